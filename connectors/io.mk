# connectors/ data paths (connectors/rsql_io.h): the formats, the embedded
# connectors (datagen, filesystem, sqlite, print, blackhole), their lookup,
# and their unit tests. Included by Makefile.am after connectors/local.mk.
librocketsql_a_SOURCES += \
	connectors/rsql_conn_io.h connectors/conn_io.c \
	connectors/formats/rsql_format.h connectors/formats/fmt_int.h \
	connectors/formats/fmt_codec.c \
	connectors/formats/fmt_json.c connectors/formats/fmt_csv.c connectors/formats/fmt_raw.c \
	connectors/datagen/datagen_source.c \
	connectors/file/file_source.c connectors/file/file_sink.c \
	connectors/sqlite/sqlite_source.c connectors/sqlite/sqlite_sink.c \
	connectors/stdio/print_sink.c connectors/stdio/blackhole_sink.c

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_formats tests/unit/test_connectors_io
TESTS += tests/unit/test_formats tests/unit/test_connectors_io
tests_unit_test_formats_SOURCES = tests/unit/test_formats.c
tests_unit_test_formats_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_formats_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_connectors_io_SOURCES = tests/unit/test_connectors_io.c
tests_unit_test_connectors_io_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_connectors_io_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

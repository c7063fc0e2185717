# connectors/formats/: json, csv, raw and the changelog formats debezium-json, canal-json and
# maxwell-json (their option tables and codecs).
librocketsql_a_SOURCES += \
	connectors/formats/rsql_format.h connectors/formats/fmt_int.h \
	connectors/formats/fmt_opts.c connectors/formats/fmt_codec.c \
	connectors/formats/fmt_json.c connectors/formats/fmt_json_value.c connectors/formats/fmt_json_scan.c \
	connectors/formats/fmt_csv.c connectors/formats/fmt_raw.c connectors/formats/fmt_debezium.c \
	connectors/formats/fmt_cdc.c connectors/formats/fmt_canal.c connectors/formats/fmt_maxwell.c

# the nested-body benchmark (run by hand; bench/README.md)
EXTRA_DIST += bench/nested.sh

# the changelog formats' unit tests (canal-json, maxwell-json)
if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_fmt_cdc
TESTS += tests/unit/test_fmt_cdc
tests_unit_test_fmt_cdc_SOURCES = tests/unit/test_fmt_cdc.c
tests_unit_test_fmt_cdc_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_fmt_cdc_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

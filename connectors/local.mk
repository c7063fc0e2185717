# connectors/: the connector registry, the shared data-path helpers, the formats and every
# connector. The connectors themselves are listed in connectors/list.mk, one include line
# each; each one's folder adds its sources and the names of its descriptors
# (rsql_<name>_conn_def) to RSQL_CONNECTORS, from which the registry's list is generated.
RSQL_CONNECTORS =
librocketsql_a_SOURCES += \
	connectors/rsql_connector.h connectors/conn_int.h \
	connectors/conn_registry.c connectors/conn_docs.c connectors/conn_meta.c connectors/conn_lookup.c \
	connectors/rsql_io.h connectors/conn_batch.c connectors/conn_latency.c \
	connectors/rsql_conn_io.h connectors/conn_io.c connectors/conn_gather.h connectors/conn_gather.c \
	connectors/rsql_plugin.h connectors/conn_plugin.c

include connectors/formats/local.mk
include connectors/list.mk

# The registry's list of descriptors, generated into the build tree from RSQL_CONNECTORS.
connectors/conn_list.h: Makefile
	$(AM_V_GEN)$(MKDIR_P) connectors && \
	for c in $(RSQL_CONNECTORS); do echo "RSQL_CONNECTOR($$c)"; done >$@-t && mv $@-t $@
BUILT_SOURCES += connectors/conn_list.h
CLEANFILES += connectors/conn_list.h
connectors/conn_registry.$(OBJEXT): connectors/conn_list.h

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_opts tests/unit/test_formats tests/unit/test_connectors_io \
	tests/unit/test_plugins tests/unit/test_conn_errors tests/unit/test_conn_positions \
	tests/unit/test_file_csv_header tests/unit/test_fmt_debezium tests/unit/test_conn_changes \
	tests/unit/test_conn_gather tests/unit/test_sqlite_lookup tests/unit/test_file_share \
	tests/unit/test_json_encode
TESTS += tests/unit/test_opts tests/unit/test_formats tests/unit/test_connectors_io \
	tests/unit/test_plugins tests/unit/test_conn_errors tests/unit/test_conn_positions \
	tests/unit/test_file_csv_header tests/unit/test_fmt_debezium tests/unit/test_conn_changes \
	tests/unit/test_conn_gather tests/unit/test_sqlite_lookup tests/unit/test_file_share \
	tests/unit/test_json_encode
check_PROGRAMS += tests/unit/test_opts_ref tests/unit/test_settings
TESTS += tests/unit/test_opts_ref tests/unit/test_settings
tests_unit_test_settings_SOURCES = tests/unit/test_settings.c
tests_unit_test_settings_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_settings_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_opts_ref_SOURCES = tests/unit/test_opts_ref.c
tests_unit_test_opts_ref_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_opts_ref_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_opts_SOURCES = tests/unit/test_opts.c
tests_unit_test_opts_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_opts_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_json_encode_SOURCES = tests/unit/test_json_encode.c
tests_unit_test_json_encode_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_json_encode_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_formats_SOURCES = tests/unit/test_formats.c
tests_unit_test_formats_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_formats_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_fmt_debezium_SOURCES = tests/unit/test_fmt_debezium.c
tests_unit_test_fmt_debezium_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_fmt_debezium_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_fmt_debezium_CPPFLAGS = $(AM_CPPFLAGS) -DRSQL_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_test_file_share_SOURCES = tests/unit/test_file_share.c
tests_unit_test_file_share_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_file_share_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_connectors_io_SOURCES = tests/unit/test_connectors_io.c
tests_unit_test_connectors_io_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_connectors_io_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_plugins_SOURCES = tests/unit/test_plugins.c
tests_unit_test_plugins_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_plugins_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_conn_errors_SOURCES = tests/unit/test_conn_errors.c
tests_unit_test_conn_errors_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_conn_errors_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_conn_positions_SOURCES = tests/unit/test_conn_positions.c
tests_unit_test_conn_positions_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_conn_positions_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_conn_gather_SOURCES = tests/unit/test_conn_gather.c
tests_unit_test_conn_gather_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_conn_gather_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_sqlite_lookup_SOURCES = tests/unit/test_sqlite_lookup.c
tests_unit_test_sqlite_lookup_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_sqlite_lookup_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_conn_changes_SOURCES = tests/unit/test_conn_changes.c
tests_unit_test_conn_changes_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_conn_changes_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_file_csv_header_SOURCES = tests/unit/test_file_csv_header.c
tests_unit_test_file_csv_header_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_file_csv_header_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
EXTRA_DIST += tests/fixtures/debezium

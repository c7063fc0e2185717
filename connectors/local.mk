# connectors/: the registry, the option tables of every connector and format, their docs.
librocketsql_a_SOURCES += \
	connectors/rsql_connector.h connectors/conn_int.h \
	connectors/conn_registry.c connectors/conn_docs.c \
	connectors/rocketmq/rmq_opts.c connectors/rocketmq/rmq_conf.h \
	connectors/rocketmq/rmq_explain.c \
	connectors/file/file_opts.c connectors/file/file_conf.h \
	connectors/sqlite/sqlite_opts.c connectors/sqlite/sqlite_conf.h \
	connectors/datagen/datagen_opts.c connectors/datagen/datagen_conf.h \
	connectors/stdio/print_opts.c connectors/stdio/print_conf.h \
	connectors/formats/fmt_opts.c

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_opts
TESTS += tests/unit/test_opts
tests_unit_test_opts_SOURCES = tests/unit/test_opts.c
tests_unit_test_opts_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_opts_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

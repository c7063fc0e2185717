# core/: errors, memory, buffers, types, the options engine, session settings.
librocketsql_a_SOURCES += \
	core/rsql_error.c core/rsql_error.h \
	core/rsql_mem.c core/rsql_mem.h \
	core/rsql_buf.c core/rsql_buf.h \
	core/rsql_types.c core/rsql_types.h \
	core/rsql_path.c core/rsql_path.h
librocketsql_a_SOURCES += \
	core/rsql_opts.c core/rsql_opts_parse.c core/rsql_opts.h core/rsql_opts_int.h \
	core/rsql_settings.c core/rsql_settings.h

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_oom
TESTS += tests/unit/test_oom
tests_unit_test_oom_SOURCES = tests/unit/test_oom.c
tests_unit_test_oom_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_oom_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_core
TESTS += tests/unit/test_core
tests_unit_test_core_SOURCES = tests/unit/test_core.c
tests_unit_test_core_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_core_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

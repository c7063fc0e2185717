# base/: errors, memory, buffers, types, result sets, the monotonic clock and deadlines, backoff,
# the logger, the line drawn in place on a terminal,
# the options engine, session settings.
librocketsql_a_SOURCES += \
	base/rsql_error.c base/rsql_error.h \
	base/rsql_mem.c base/rsql_mem.h base/rsql_mem_int.h \
	base/rsql_buf.c base/rsql_buf.h \
	base/rsql_types.c base/rsql_types.h \
	base/rsql_value.c base/rsql_value_exact.c base/rsql_value_text.c base/rsql_value_bin.c \
	base/rsql_dtoa.c base/rsql_dtoa.h \
	base/rsql_value_interval.c \
	base/rsql_value.h \
	base/rsql_path.c base/rsql_path.h \
	base/rsql_time.c base/rsql_time.h \
	base/rsql_backoff.c base/rsql_backoff.h \
	base/rsql_log.c base/rsql_log.h \
	base/rsql_term.c base/rsql_term.h \
	base/rsql_result.c base/rsql_result.h
librocketsql_a_SOURCES += \
	base/rsql_opts.c base/rsql_opts_parse.c base/rsql_opts_ref.c base/rsql_opts_show.c base/rsql_opts_doc.c base/rsql_opts.h base/rsql_opts_int.h \
	base/rsql_settings.c base/rsql_settings.h \
	base/rsql_conf.c base/rsql_conf.h

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_oom
TESTS += tests/unit/test_oom
tests_unit_test_oom_SOURCES = tests/unit/test_oom.c
tests_unit_test_oom_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_oom_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_base
TESTS += tests/unit/test_base
tests_unit_test_base_SOURCES = tests/unit/test_base.c
tests_unit_test_base_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_base_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_time
TESTS += tests/unit/test_time
tests_unit_test_time_SOURCES = tests/unit/test_time.c
tests_unit_test_time_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_time_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_log
TESTS += tests/unit/test_log
tests_unit_test_log_SOURCES = tests/unit/test_log.c
tests_unit_test_log_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_log_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_value
TESTS += tests/unit/test_value
tests_unit_test_value_SOURCES = tests/unit/test_value.c
tests_unit_test_value_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_value_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_value_fixed
TESTS += tests/unit/test_value_fixed
tests_unit_test_value_fixed_SOURCES = tests/unit/test_value_fixed.c
tests_unit_test_value_fixed_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_value_fixed_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_value_bin
TESTS += tests/unit/test_value_bin
tests_unit_test_value_bin_SOURCES = tests/unit/test_value_bin.c
tests_unit_test_value_bin_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_value_bin_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_exact
TESTS += tests/unit/test_exact
tests_unit_test_exact_SOURCES = tests/unit/test_exact.c
tests_unit_test_exact_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_exact_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_interval
TESTS += tests/unit/test_interval
tests_unit_test_interval_SOURCES = tests/unit/test_interval.c
tests_unit_test_interval_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_interval_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_dtoa
TESTS += tests/unit/test_dtoa
tests_unit_test_dtoa_SOURCES = tests/unit/test_dtoa.c
tests_unit_test_dtoa_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_dtoa_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_value_format
TESTS += tests/unit/test_value_format
tests_unit_test_value_format_SOURCES = tests/unit/test_value_format.c
tests_unit_test_value_format_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_value_format_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

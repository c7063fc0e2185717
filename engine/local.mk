# engine/: the pipeline engine (threads, queues, offsets, retries, dead letters, status
# line, signals) and its unit tests. Included from Makefile.am.
librocketsql_a_SOURCES += \
	engine/rsql_queue.h engine/rsql_pipeline.h engine/pipeline_int.h \
	engine/rt_queue.c engine/rt_offsets.c engine/rt_retry.c \
	engine/rt_pipeline.c engine/rt_batch.c engine/rt_outcomes.c engine/rt_poll.c engine/rt_stages.c engine/rt_dlq.c engine/rt_status.c engine/rt_signal.c \
	engine/rt_hold.c engine/rt_lookup.h engine/rt_lookup.c engine/rt_lookup_cache.h engine/rt_lookup_cache.c \
	engine/rt_state.h engine/rt_state.c engine/rt_state_table.h engine/rt_state_table.c engine/rt_keyfilter.h engine/rt_keyfilter.c engine/rt_dedup.h engine/rt_dedup.c engine/rt_agg.h engine/rt_agg.c engine/rt_window.h engine/rt_window_int.h engine/rt_window.c engine/rt_window_rows.c engine/rt_window_session.c engine/rt_stateful.h engine/rt_stateful.c engine/rt_key.h \
	engine/rt_preview.h engine/rt_preview.c \
	engine/rt_run_pipeline.c

EXTRA_DIST += bench/rss.sh bench/engine/run bench/engine/ir bench/engine/format_double.c
# helpers shared by the benchmarks: a process's and the server's CPU, one Maven + javac build
EXTRA_DIST += bench/lib/proc-cpu.sh bench/lib/java-build.sh
# the candidate stores of operator state side by side (RocksDB, SQLite)
EXTRA_DIST += bench/state/run bench/state/store.c
# deduplication and lookup joins next to Flink's
EXTRA_DIST += bench/dedup/run bench/dedup/gen.py bench/lookup/run bench/lookup/gen.py \
	bench/windows/run bench/windows/gen.py

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_queue
TESTS += tests/unit/test_queue
tests_unit_test_queue_SOURCES = tests/unit/test_queue.c
tests_unit_test_queue_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_queue_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_runtime
TESTS += tests/unit/test_runtime
tests_unit_test_runtime_SOURCES = tests/unit/test_runtime.c
tests_unit_test_runtime_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_runtime_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_runtime_credit
TESTS += tests/unit/test_runtime_credit
tests_unit_test_runtime_credit_SOURCES = tests/unit/test_runtime_credit.c
tests_unit_test_runtime_credit_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_runtime_credit_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_runtime_bounded
TESTS += tests/unit/test_runtime_bounded
tests_unit_test_runtime_bounded_SOURCES = tests/unit/test_runtime_bounded.c
tests_unit_test_runtime_bounded_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_runtime_bounded_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_runtime_rows
TESTS += tests/unit/test_runtime_rows
tests_unit_test_runtime_rows_SOURCES = tests/unit/test_runtime_rows.c
tests_unit_test_runtime_rows_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_runtime_rows_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_signals
TESTS += tests/unit/test_signals
tests_unit_test_signals_SOURCES = tests/unit/test_signals.c
tests_unit_test_signals_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_signals_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_lookup_cache
TESTS += tests/unit/test_lookup_cache
tests_unit_test_lookup_cache_SOURCES = tests/unit/test_lookup_cache.c
tests_unit_test_lookup_cache_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_lookup_cache_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_state
TESTS += tests/unit/test_state
tests_unit_test_state_SOURCES = tests/unit/test_state.c
tests_unit_test_state_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_state_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
check_PROGRAMS += tests/unit/test_window
TESTS += tests/unit/test_window
tests_unit_test_window_SOURCES = tests/unit/test_window.c
tests_unit_test_window_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_window_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)

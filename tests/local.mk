# tests/: shared helpers, the slt golden-file runner, and the golden files.
EXTRA_DIST += tests/lib/cu_main.h tests/lib/cu_catalog.h tests/lib/cu_catfile.h tests/lib/cu_eval.h tests/lib/cu_flat.h tests/lib/cu_pipeline.h \
	tests/lib/cu_opts.h \
	tests/lib/cu_session.h tests/lib/cu_positions.h tests/lib/cu_state.h tests/lib/rmq_sync.h \
	tests/lib/cu_sanitized.h tests/lib/canal_gen.py tests/lib/debezium_gen.py \
	tests/tsan.supp

check_PROGRAMS += tests/sql/slt_runner
tests_sql_slt_runner_SOURCES = tests/sql/slt_runner.c
tests_sql_slt_runner_LDADD = $(RSQL_LIBS)

TEST_EXTENSIONS = .slt .sh
SLT_LOG_COMPILER = $(top_builddir)/tests/sql/slt_runner
SH_LOG_COMPILER = bash
# (TSAN_OPTIONS matters only in a --enable-sanitizers=thread build: tests/tsan.supp says why.
# die_after_fork=0: the logger's writer thread runs from the first line logged, so a test that
# forks a child which starts threads of its own (a pipeline, the child's logger) forks a
# multi-threaded process; TSan would end such a child at its first thread.)
AM_TESTS_ENVIRONMENT = \
	RSQL_SRCDIR='$(abs_top_srcdir)'; export RSQL_SRCDIR; \
	RSQL_BUILDDIR='$(abs_top_builddir)'; export RSQL_BUILDDIR; \
	RSQL_CC='$(CC)'; export RSQL_CC; \
	RSQL_TEST_SECRET='env-s3cr3t'; export RSQL_TEST_SECRET; \
	RSQL_TEST_BATCH=8; export RSQL_TEST_BATCH; unset RSQL_TEST_UNSET; \
	TSAN_OPTIONS="suppressions=$(abs_top_srcdir)/tests/tsan.supp die_after_fork=0 $${TSAN_OPTIONS:-}"; \
	export TSAN_OPTIONS;

# Every golden file, listed (t_tests_listed.sh fails when one is missing here).
SLT_TESTS = \
	tests/sql/explain/changelog.slt \
	tests/sql/explain/column_list.slt \
	tests/sql/explain/datagen_filesystem.slt \
	tests/sql/explain/expressions.slt \
	tests/sql/explain/filesystem_sqlite.slt \
	tests/sql/explain/functions.slt \
	tests/sql/explain/metadata.slt \
	tests/sql/explain/rocketmq_lite_throttle.slt \
	tests/sql/explain/rocketmq_simple_fifo.slt \
	tests/sql/explain/secret_refs.slt \
	tests/sql/explain/rocketmq_tls.slt \
	tests/sql/explain/select_preview.slt \
	tests/sql/explain/sqlite_print.slt \
	tests/sql/explain/kafka_txn.slt \
	tests/sql/explain/rocketmq_postgres.slt \
	tests/sql/explain/rocketmq_changelog.slt \
	tests/sql/explain/postgres_cdc.slt \
	tests/sql/explain/lookup_join.slt \
	tests/sql/explain/dedup.slt \
	tests/sql/explain/group_by.slt \
	tests/sql/explain/watermark.slt \
	tests/sql/explain/windows.slt \
	tests/sql/semantic/casts.slt \
	tests/sql/semantic/computed.slt \
	tests/sql/semantic/decimal_math.slt \
	tests/sql/semantic/date_time.slt \
	tests/sql/semantic/datagen_types.slt \
	tests/sql/semantic/formats_dlq.slt \
	tests/sql/semantic/functions.slt \
	tests/sql/semantic/functions_json.slt \
	tests/sql/semantic/functions_text.slt \
	tests/sql/semantic/functions_time.slt \
	tests/sql/semantic/intervals.slt \
	tests/sql/semantic/metadata.slt \
	tests/sql/semantic/names.slt \
	tests/sql/semantic/nested_types.slt \
	tests/sql/semantic/show_create_names.slt \
	tests/sql/semantic/types.slt \
	tests/sql/semantic/watermark.slt \
	tests/sql/semantic/windows.slt \
	tests/sql/semantic/window_rows.slt \
	tests/sql/syntax/intervals.slt \
	tests/sql/syntax/invalid.slt
TESTS += $(SLT_TESTS)
EXTRA_DIST += $(SLT_TESTS)
# the windows' input, its statements, and the by-hand check of their results against Flink
EXTRA_DIST += tests/fixtures/windows/orders.jsonl tests/fixtures/windows/queries.txt \
	tests/fixtures/windows/flink-check

# End-to-end checks of the rocketsql binary (shell scripts, run by make check).
INTEGRATION_TESTS = \
	tests/integration/t_changelog_plan.sh \
	tests/integration/t_cli.sh \
	tests/integration/t_canal_file.sh \
	tests/integration/t_debezium_file.sh \
	tests/integration/t_csv_header.sh \
	tests/integration/t_docs_fresh.sh \
	tests/integration/t_expr_depth.sh \
	tests/integration/t_layers.sh \
	tests/integration/t_interrupt.sh \
	tests/integration/t_log_level.sh \
	tests/integration/t_nested_json.sh \
	tests/integration/t_nested_compare.sh \
	tests/integration/t_metadata_local.sh \
	tests/integration/t_plugins.sh \
	tests/integration/t_resume.sh \
	tests/integration/t_serve.sh \
	tests/integration/t_serve_drain.sh \
	tests/integration/t_serve_reload_retry.sh \
	tests/integration/t_serve_http_slow.sh \
	tests/integration/t_serve_log_stalled.sh \
	tests/integration/t_serve_restart.sh \
	tests/integration/t_serve_script.sh \
	tests/integration/t_serve_state.sh \
	tests/integration/t_sdk_header.sh \
	tests/integration/t_shell.sh \
	tests/integration/t_show_options.sh \
	tests/integration/t_sql_nul.sh \
	tests/integration/t_runner_skips.sh \
	tests/integration/t_slt_runner.sh \
	tests/integration/t_tests_listed.sh
TESTS += $(INTEGRATION_TESTS)
EXTRA_DIST += $(INTEGRATION_TESTS) tests/integration/lib.sh tests/integration/serve_lib.sh tests/integration/slow_clients.py tests/integration/pty_shell.py tests/integration/ptylib.py \
	tests/integration/pty_nul.py tests/integration/pty_width.py

# The end-to-end tests (tests/e2e/run, run by scripts/test, not by make check).
EXTRA_DIST += tests/e2e/run tests/e2e/lib.sh tests/e2e/pg_lib.sh \
	tests/e2e/t_computed.sh tests/e2e/t_lookup_join.sh tests/e2e/t_lookup_kill9.sh tests/e2e/t_dedup.sh tests/e2e/t_group_by.sh tests/e2e/t_windows.sh tests/e2e/t_window_late.sh tests/e2e/t_window_rows.sh \
	tests/e2e/t_window_proctime.sh \
	tests/e2e/t_dedup_rss.sh \
	tests/e2e/t_datagen_filter_file.sh tests/e2e/t_examples.sh tests/e2e/t_json_dlq.sh \
	tests/e2e/t_kill9.sh tests/e2e/t_gather_kill9.sh tests/e2e/t_pg_positions_read.sh tests/e2e/t_pg_sink.sh \
	tests/e2e/t_pg_writer_lock.sh \
	tests/e2e/t_pg_source.sh tests/e2e/t_pg_tls.sh \
	tests/e2e/t_rss.sh tests/e2e/t_run_job.sh tests/e2e/t_sigint.sh tests/e2e/t_start_race.sh \
	tests/e2e/t_changes_apply.sh tests/e2e/t_pgoutput_peek.sh tests/e2e/t_pgcdc_snapshot_reader.sh \
	tests/e2e/t_pgcdc_snapshot.sh tests/e2e/t_pgcdc_snapshot_keys.sh tests/e2e/t_pgcdc_boundary.sh tests/e2e/t_pgcdc_stream.sh \
	tests/e2e/t_pgcdc_replica.sh tests/e2e/pgcdc_workload.py tests/e2e/t_pgcdc_serve.sh \
	tests/e2e/t_pgcdc_schema.sh tests/e2e/pgcdc_lib.sh tests/e2e/t_pgcdc_txn.sh \
	tests/e2e/t_pg_lookup.sh \
	tests/e2e/t_apply.sh tests/e2e/t_control_api.sh tests/e2e/t_backlog.sh \
	tests/e2e/t_monitoring.sh tests/e2e/promql_names.py tests/e2e/t_kubernetes.sh \
	tests/e2e/k8s_check.py
# the fleet: monitoring (tests/e2e/t_monitoring.sh) and Kubernetes (tests/e2e/t_kubernetes.sh)
EXTRA_DIST += examples/monitoring/README.md examples/monitoring/alerts.yml \
	examples/monitoring/alerts_test.yml examples/monitoring/dashboard.json \
	examples/monitoring/prometheus.yml \
	examples/kubernetes/Dockerfile examples/kubernetes/Dockerfile.dockerignore \
	examples/kubernetes/README.md examples/kubernetes/build-image.sh \
	examples/kubernetes/configmap.yaml examples/kubernetes/deployment.yaml \
	examples/kubernetes/kustomization.yaml examples/kubernetes/pdb.yaml \
	examples/kubernetes/prometheus-scrape.yml examples/kubernetes/secret.yaml \
	examples/kubernetes/service.yaml
# the broker's own metrics (tests/rocketmq/run, group a)
EXTRA_DIST += tests/rocketmq/t_broker_metrics.sh
# postgres-cdc -> a FIFO topic, read back by the Java client (tests/rocketmq/run, group b)
EXTRA_DIST += tests/rocketmq/t_pgcdc_fifo.sh
# examples/enrich-orders.sql (RocketMQ orders LEFT JOIN postgres customers -> a topic), read
# back by the Java client and compared with psql's join (tests/rocketmq/run, group b)
EXTRA_DIST += examples/enrich-orders.sql tests/rocketmq/t_pg_example_enrich.sh
# a lookup join (RocketMQ orders LEFT JOIN postgres customers) by three processes of one consumer
# group into a postgres table, compared with psql's join (tests/rocketmq/run, group b)
EXTRA_DIST += tests/rocketmq/t_pg_lookup_scale.sh
# a deduplication of a RocketMQ topic by three processes of one consumer group, done by the
# postgres sink table keyed by the PARTITION BY column, checked with psql (group b)
EXTRA_DIST += tests/rocketmq/t_pg_dedup_scale.sh tests/rocketmq/t_pg_window_scale.sh
# the driver of t_changes_apply.sh: a changelog through a sink's own write / flush
check_PROGRAMS += tests/e2e/apply_changes
tests_e2e_apply_changes_SOURCES = tests/e2e/apply_changes.c
tests_e2e_apply_changes_LDADD = $(RSQL_LIBS)
# the driver of t_pg_lookup.sh: a connector's lookup opened from options, keys from stdin
check_PROGRAMS += tests/e2e/lookup_probe
tests_e2e_lookup_probe_SOURCES = tests/e2e/lookup_probe.c
tests_e2e_lookup_probe_LDADD = $(RSQL_LIBS)
# the driver of t_pgoutput_peek.sh: the real server's pgoutput bytes through the decoder
check_PROGRAMS += tests/e2e/pgoutput_dump
tests_e2e_pgoutput_dump_SOURCES = tests/e2e/pgoutput_dump.c
tests_e2e_pgoutput_dump_LDADD = $(RSQL_LIBS)

# The libFuzzer targets (make fuzz; scripts/fuzz).
include tests/fuzz/local.mk

# connectors/postgres/: the postgres connector (a PostgreSQL table over libpq; exactly-once sink).
RSQL_CONNECTORS += postgres
librocketsql_a_SOURCES += \
	connectors/postgres/pg_opts.c connectors/postgres/pg_conf.h \
	connectors/postgres/pg_int.h connectors/postgres/pg_conn.c \
	connectors/postgres/pg_sink.c connectors/postgres/pg_sink_int.h \
	connectors/postgres/pg_copy.c connectors/postgres/pg_applied.c \
	connectors/postgres/pg_rows.c connectors/postgres/pg_source.c connectors/postgres/pg_lookup.c \
	connectors/postgres/pgoutput.c connectors/postgres/pgoutput.h \
	connectors/postgres/pgcdc_snapshot.c connectors/postgres/pgcdc_snapshot.h
# the pgoutput decoder's unit tests (no server)
if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_pgoutput
TESTS += tests/unit/test_pgoutput
tests_unit_test_pgoutput_SOURCES = tests/unit/test_pgoutput.c
tests_unit_test_pgoutput_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_pgoutput_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests_unit_test_pgoutput_CPPFLAGS = $(AM_CPPFLAGS) -DRSQL_SRCDIR='"$(abs_top_srcdir)"'
# the postgres-cdc connector's options, value conversion and key comparison (no server)
check_PROGRAMS += tests/unit/test_pgcdc_opts
TESTS += tests/unit/test_pgcdc_opts
tests_unit_test_pgcdc_opts_SOURCES = tests/unit/test_pgcdc_opts.c
tests_unit_test_pgcdc_opts_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_pgcdc_opts_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
# the postgres-cdc snapshot reader's queries and errors (no server)
check_PROGRAMS += tests/unit/test_pgcdc_snapshot
TESTS += tests/unit/test_pgcdc_snapshot
tests_unit_test_pgcdc_snapshot_SOURCES = tests/unit/test_pgcdc_snapshot.c
tests_unit_test_pgcdc_snapshot_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_pgcdc_snapshot_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
# its tests against the real PostgreSQL (and RocketMQ) of scripts/postgres, scripts/rocketmq
EXTRA_DIST += tests/rocketmq/t_pg_exactly_once.sh tests/rocketmq/t_pg_outbox_upsert.sh \
	tests/rocketmq/t_pg_example.sh examples/rocketmq-orders-to-postgres.sql bench/postgres/run \
	bench/postgres/source-read
# postgres-cdc next to Debezium's embedded engine (bench/README.md)
EXTRA_DIST += bench/cdc/run bench/cdc/dbz/dbz-bench bench/cdc/dbz/pom.xml \
	bench/cdc/dbz/src/main/java/rocketsql/bench/DbzBench.java
# Debezium's embedded engine on that PostgreSQL, sending its change events to RocketMQ, and
# the replica test it drives
EXTRA_DIST += tests/interop-debezium/dbz-relay tests/interop-debezium/pom.xml \
	tests/interop-debezium/src/main/java/rocketsql/interop/debezium/DbzRelay.java \
	tests/rocketmq/t_cdc_debezium.sh tests/rocketmq/cdc_workload.py
# the postgres-cdc source (logical replication, pgoutput)
RSQL_CONNECTORS += postgres_cdc
librocketsql_a_SOURCES += \
	connectors/postgres/pgcdc_conf.h connectors/postgres/pgcdc_int.h \
	connectors/postgres/pgcdc_opts.c connectors/postgres/pg_repl.c \
	connectors/postgres/pgcdc_tables.c connectors/postgres/pgcdc_rows.c \
	connectors/postgres/pgcdc_source.c connectors/postgres/pgcdc_snapsrc.c \
	connectors/postgres/pgcdc_changes.c connectors/postgres/pgcdc_source_int.h
# its example (EXPLAIN checked; it needs a RocketMQ proxy to run)
EXTRA_DIST += examples/postgres-cdc-to-rocketmq.sql

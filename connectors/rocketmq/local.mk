# connectors/rocketmq/: the rocketmq-grpc connector. Its descriptor, options and EXPLAIN
# lines are always built; its data path (source, sink, held messages, housekeeping,
# throttling, lanes, bounded reads, metadata), built on the RocketMQ 5 gRPC client of
# rmqclient/ through its public header alone, only when configure found grpc,
# libprotobuf-c and protoc-c (HAVE_RMQ).
# This fragment owns the folder's sources (every .c and .h here is listed, so it is in the
# tarball) and the RocketMQ tests, scripts and benchmarks it distributes (the client's
# included).
RSQL_CONNECTORS += rmq
librocketsql_a_SOURCES += \
	connectors/rocketmq/rmq_opts.c connectors/rocketmq/rmq_conf.h \
	connectors/rocketmq/rmq_explain.c connectors/rocketmq/rmq_changelog.c
EXTRA_DIST += tests/rocketmq/run tests/rocketmq/lib.sh tests/rocketmq/t_harness.sh \
	tests/rocketmq/t_client.sh tests/rocketmq/t_source_sink.sh \
	tests/rocketmq/t_throttle.sh tests/rocketmq/t_kill9_relay.sh tests/rocketmq/t_proxy_restart.sh \
	tests/rocketmq/t_interop_normal.sh tests/rocketmq/t_interop_fifo.sh tests/rocketmq/t_interop_lite.sh \
	tests/rocketmq/t_metadata_read.sh tests/rocketmq/t_metadata_write.sh \
	tests/rocketmq/t_metadata_fifo.sh tests/rocketmq/t_example_route_by_tag.sh \
	tests/rocketmq/t_secure.sh tests/rocketmq/t_batch_send.sh tests/rocketmq/tcp_forward.py \
	tests/rocketmq/t_lite_clients.sh tests/rocketmq/t_lite_adaptive.sh \
	tests/rocketmq/t_changelog_fifo.sh bench/lite-drain/run \
	tests/rocketmq/t_adaptive_receive.sh \
	tests/rocketmq/manual/serve_proxy_restart.sh tests/rocketmq/serve_lib.sh bench/produce.sh
# the local RocketMQ 5.5 server those tests start, the Java interop client, the relay benchmark
EXTRA_DIST += scripts/rocketmq scripts/rocketmq.d/broker.conf.in \
	scripts/rocketmq.d/namesrv.properties.in scripts/rocketmq.d/rmq-proxy.json.in \
	scripts/rocketmq.d/maven-settings.xml scripts/rocketmq.d/server-pom.xml \
	scripts/rocketmq.d/RsqlRmqProbe.java scripts/rocketmq.d/loopback.c tests/rocketmq/starts \
	scripts/rocketmq.d/broker-auth.conf.in scripts/rocketmq.d/rmq-proxy-secure.json.in \
	scripts/test-certs \
	tests/interop/README.md tests/interop/pom.xml tests/interop/rmq-interop \
	tests/interop/src/main/java/rocketsql/interop/Probe.java \
	tests/interop/src/main/java/rocketsql/interop/RmqInterop.java \
	bench/relay/run bench/relay/java/pom.xml bench/relay/java/rmq-relay \
	bench/relay/java/src/main/java/rocketsql/bench/RmqRelay.java \
	bench/fairness/run bench/fairness/fairness.py

if HAVE_RMQ
librocketsql_a_SOURCES += \
	connectors/rocketmq/rmq_conn_int.h connectors/rocketmq/rmq_inflight.c \
	connectors/rocketmq/rmq_throttle.c connectors/rocketmq/rmq_bounded.c \
	connectors/rocketmq/rmq_source_int.h connectors/rocketmq/rmq_source.c \
	connectors/rocketmq/rmq_held.c connectors/rocketmq/rmq_housekeeping.c \
	connectors/rocketmq/rmq_sink.c connectors/rocketmq/rmq_sink_int.h \
	connectors/rocketmq/rmq_sink_batch.c connectors/rocketmq/rmq_meta.c \
	connectors/rocketmq/rmq_lite_ids.c connectors/rocketmq/rmq_identity.c


check_PROGRAMS += tests/rocketmq/rmq_client_probe
tests_rocketmq_rmq_client_probe_SOURCES = tests/rocketmq/rmq_client_probe.c
tests_rocketmq_rmq_client_probe_LDADD = $(RSQL_LIBS)

if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_rmq_codec
TESTS += tests/unit/test_rmq_codec
tests_unit_test_rmq_codec_SOURCES = tests/unit/test_rmq_codec.c
tests_unit_test_rmq_codec_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_codec_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests/unit/tests_unit_test_rmq_codec-test_rmq_codec.$(OBJEXT): $(RMQ_PROTO_H)
check_PROGRAMS += tests/unit/test_rmq_decode
TESTS += tests/unit/test_rmq_decode
tests_unit_test_rmq_decode_SOURCES = tests/unit/test_rmq_decode.c
tests_unit_test_rmq_decode_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_decode_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests/unit/tests_unit_test_rmq_decode-test_rmq_decode.$(OBJEXT): $(RMQ_PROTO_H)
check_PROGRAMS += tests/unit/test_rmq_source
TESTS += tests/unit/test_rmq_source
tests_unit_test_rmq_source_SOURCES = tests/unit/test_rmq_source.c
tests_unit_test_rmq_source_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_source_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
tests/unit/tests_unit_test_rmq_source-test_rmq_source.$(OBJEXT): $(RMQ_PROTO_H)
check_PROGRAMS += tests/unit/test_rmq_inflight
TESTS += tests/unit/test_rmq_inflight
tests_unit_test_rmq_inflight_SOURCES = tests/unit/test_rmq_inflight.c
tests_unit_test_rmq_inflight_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_inflight_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_bounded
TESTS += tests/unit/test_rmq_bounded
tests_unit_test_rmq_bounded_SOURCES = tests/unit/test_rmq_bounded.c
tests_unit_test_rmq_bounded_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_bounded_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_meta
TESTS += tests/unit/test_rmq_meta
tests_unit_test_rmq_meta_SOURCES = tests/unit/test_rmq_meta.c
tests_unit_test_rmq_meta_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_meta_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_lite_ids
TESTS += tests/unit/test_rmq_lite_ids
tests_unit_test_rmq_lite_ids_SOURCES = tests/unit/test_rmq_lite_ids.c
tests_unit_test_rmq_lite_ids_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_lite_ids_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_throttle
TESTS += tests/unit/test_rmq_throttle
tests_unit_test_rmq_throttle_SOURCES = tests/unit/test_rmq_throttle.c
tests_unit_test_rmq_throttle_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_rmq_throttle_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)

# Fault injection: a fake RocketMQ proxy (tests/fakes/, a grpc C core server on 127.0.0.1 with
# an OS-chosen port) that the real client, source and sink talk to, and the tests that script it.
check_LIBRARIES = tests/fakes/libfake_rmq.a
tests_fakes_libfake_rmq_a_SOURCES = tests/fakes/fake_rmq.h tests/fakes/fake_rmq_int.h \
	tests/fakes/fake_rmq.c tests/fakes/fake_rmq_svc.c tests/fakes/fake_rmq_store.c \
	tests/fakes/fake_rmq_ids.c tests/fakes/fake_rmq_synth.c \
	tests/fakes/fake_rmq_cu.h \
	tests/fakes/fake_rmq_src.h
tests/fakes/fake_rmq.$(OBJEXT) tests/fakes/fake_rmq_svc.$(OBJEXT): $(RMQ_PROTO_H)
RMQ_FAULT_LIBS = tests/fakes/libfake_rmq.a $(RSQL_LIBS) $(CUNIT_LIBS)
check_PROGRAMS += tests/unit/test_rmq_fault_client
TESTS += tests/unit/test_rmq_fault_client
tests_unit_test_rmq_fault_client_SOURCES = tests/unit/test_rmq_fault_client.c
tests_unit_test_rmq_fault_client_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_client_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_settings
TESTS += tests/unit/test_rmq_fault_settings
tests_unit_test_rmq_fault_settings_SOURCES = tests/unit/test_rmq_fault_settings.c
tests_unit_test_rmq_fault_settings_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_settings_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_tls
TESTS += tests/unit/test_rmq_fault_tls
tests_unit_test_rmq_fault_tls_SOURCES = tests/unit/test_rmq_fault_tls.c
tests_unit_test_rmq_fault_tls_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_tls_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_failover
TESTS += tests/unit/test_rmq_fault_failover
tests_unit_test_rmq_fault_failover_SOURCES = tests/unit/test_rmq_fault_failover.c
tests_unit_test_rmq_fault_failover_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_failover_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_source
TESTS += tests/unit/test_rmq_fault_source
tests_unit_test_rmq_fault_source_SOURCES = tests/unit/test_rmq_fault_source.c
tests_unit_test_rmq_fault_source_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_source_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_hostile
TESTS += tests/unit/test_rmq_fault_hostile
tests_unit_test_rmq_fault_hostile_SOURCES = tests/unit/test_rmq_fault_hostile.c
tests_unit_test_rmq_fault_hostile_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_hostile_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_sink
TESTS += tests/unit/test_rmq_fault_sink
tests_unit_test_rmq_fault_sink_SOURCES = tests/unit/test_rmq_fault_sink.c
tests_unit_test_rmq_fault_sink_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_sink_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_changelog
TESTS += tests/unit/test_rmq_changelog
tests_unit_test_rmq_changelog_SOURCES = tests/unit/test_rmq_changelog.c
tests_unit_test_rmq_changelog_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_changelog_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_batch
TESTS += tests/unit/test_rmq_fault_batch
tests_unit_test_rmq_fault_batch_SOURCES = tests/unit/test_rmq_fault_batch.c
tests_unit_test_rmq_fault_batch_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_batch_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_lite
TESTS += tests/unit/test_rmq_fault_lite
tests_unit_test_rmq_fault_lite_SOURCES = tests/unit/test_rmq_fault_lite.c
tests_unit_test_rmq_fault_lite_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_lite_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_pipeline
TESTS += tests/unit/test_rmq_fault_pipeline
tests_unit_test_rmq_fault_pipeline_SOURCES = tests/unit/test_rmq_fault_pipeline.c
tests_unit_test_rmq_fault_pipeline_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_pipeline_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
check_PROGRAMS += tests/unit/test_rmq_fault_rss
TESTS += tests/unit/test_rmq_fault_rss
tests_unit_test_rmq_fault_rss_SOURCES = tests/unit/test_rmq_fault_rss.c
tests_unit_test_rmq_fault_rss_LDADD = $(RMQ_FAULT_LIBS)
tests_unit_test_rmq_fault_rss_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
endif

# The certificates scripts/test-certs makes for test_rmq_fault_tls live in the build tree.
clean-local: rsql-clean-test-certs
.PHONY: rsql-clean-test-certs
rsql-clean-test-certs:
	-rm -rf tests/certs

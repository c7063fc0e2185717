# connectors/kafka/: the kafka connector (Apache Kafka through librdkafka).
RSQL_CONNECTORS += kafka upsert_kafka
librocketsql_a_SOURCES += \
	connectors/kafka/kafka_conf.h connectors/kafka/kafka_opts.c \
	connectors/kafka/kafka_client.c connectors/kafka/kafka_pattern.c \
	connectors/kafka/kafka_source_int.h connectors/kafka/kafka_source.c \
	connectors/kafka/kafka_group.c connectors/kafka/kafka_rows.c connectors/kafka/kafka_sink.c \
	connectors/kafka/kafka_sink_int.h connectors/kafka/kafka_txn.c
# the kafka connector's options and its librdkafka configuration (no broker)
if HAVE_CUNIT
check_PROGRAMS += tests/unit/test_kafka_opts
TESTS += tests/unit/test_kafka_opts
tests_unit_test_kafka_opts_SOURCES = tests/unit/test_kafka_opts.c
tests_unit_test_kafka_opts_LDADD = $(RSQL_LIBS) $(CUNIT_LIBS)
tests_unit_test_kafka_opts_CFLAGS = $(AM_CFLAGS) $(CUNIT_CFLAGS)
endif
# the suite against a real Kafka (tests/kafka/run; not part of make check)
EXTRA_DIST += tests/kafka/run tests/kafka/t_kill9_relay.sh tests/kafka/t_roundtrip.sh \
	tests/kafka/t_txn_sink.sh tests/kafka/t_partitions_added.sh tests/kafka/t_pgcdc_keys.sh \
	tests/kafka/t_broker_restart.sh \
	tests/kafka/t_errors.sh tests/kafka/t_exactly_once.sh tests/kafka/t_group.sh \
	tests/kafka/t_fields_include.sh tests/kafka/t_upsert.sh tests/kafka/t_backlog.sh \
	tests/kafka/t_state_partitions.sh
# the Kafka -> RocketMQ bridge of the README's tour
EXTRA_DIST += examples/kafka-to-rocketmq.sql
# the Kafka <-> RocketMQ bridges with kills (tests/rocketmq/run starts a Kafka for them)
EXTRA_DIST += tests/rocketmq/t_bridge_kafka_to_rmq.sh tests/rocketmq/t_bridge_rmq_to_kafka.sh
# the Kafka -> RocketMQ bridge benchmark and its Java reference bridge
EXTRA_DIST += bench/kafka-bridge/run bench/kafka-bridge/java/pom.xml bench/kafka-bridge/java/kafka-rmq-bridge \
	bench/kafka-bridge/java/src/main/java/rocketsql/bench/KafkaRmqBridge.java

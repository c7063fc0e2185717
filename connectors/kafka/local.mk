# connectors/kafka/: the kafka connector (Apache Kafka through librdkafka).
RSQL_CONNECTORS += kafka
librocketsql_a_SOURCES += \
	connectors/kafka/kafka_conf.h connectors/kafka/kafka_opts.c \
	connectors/kafka/kafka_client.c connectors/kafka/kafka_source.c connectors/kafka/kafka_sink.c

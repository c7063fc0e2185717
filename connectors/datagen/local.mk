# connectors/datagen/: the datagen source (generated rows).
RSQL_CONNECTORS += datagen
librocketsql_a_SOURCES += \
	connectors/datagen/datagen_opts.c connectors/datagen/datagen_conf.h \
	connectors/datagen/datagen_source.c

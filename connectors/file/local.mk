# connectors/file/: the filesystem connector (a file of json, csv or raw lines).
RSQL_CONNECTORS += file
librocketsql_a_SOURCES += \
	connectors/file/file_opts.c connectors/file/file_conf.h \
	connectors/file/file_source.c connectors/file/file_sink.c

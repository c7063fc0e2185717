# connectors/stdio/: the print sink (rows to standard output) and the blackhole sink.
RSQL_CONNECTORS += print blackhole
librocketsql_a_SOURCES += \
	connectors/stdio/print_opts.c connectors/stdio/print_conf.h \
	connectors/stdio/print_sink.c connectors/stdio/blackhole_sink.c

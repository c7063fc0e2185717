# connectors/sqlite/: the sqlite connector (a table in a SQLite file; exactly-once sink).
RSQL_CONNECTORS += sqlite
librocketsql_a_SOURCES += \
	connectors/sqlite/sqlite_opts.c connectors/sqlite/sqlite_conf.h \
	connectors/sqlite/sqlite_int.h connectors/sqlite/sqlite_err.c \
	connectors/sqlite/sqlite_values.c connectors/sqlite/sqlite_source.c \
	connectors/sqlite/sqlite_sink.c connectors/sqlite/sqlite_lookup.c

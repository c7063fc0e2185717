# core/: errors, memory, buffers, types, the options engine, session settings.
librocketsql_a_SOURCES += \
	core/rsql_error.c core/rsql_error.h \
	core/rsql_mem.c core/rsql_mem.h \
	core/rsql_buf.c core/rsql_buf.h \
	core/rsql_types.c core/rsql_types.h

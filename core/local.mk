# core/: errors, memory, buffers, types, the options engine, session settings.
librocketsql_a_SOURCES += \
	core/rsql_error.c core/rsql_error.h \
	core/rsql_mem.c core/rsql_mem.h \
	core/rsql_buf.c core/rsql_buf.h \
	core/rsql_types.c core/rsql_types.h
librocketsql_a_SOURCES += \
	core/rsql_opts.c core/rsql_opts_parse.c core/rsql_opts.h core/rsql_opts_int.h \
	core/rsql_settings.c core/rsql_settings.h

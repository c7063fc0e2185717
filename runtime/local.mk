# runtime/: the statement executor (session), results, and the pipeline runtime.
librocketsql_a_SOURCES += \
	runtime/rsql_result.h runtime/rt_result.c \
	runtime/rsql_session.h runtime/rt_int.h runtime/rt_session.c runtime/rt_show.c \
	runtime/rt_run.c runtime/rt_script.c

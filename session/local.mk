# session/: the statement executor (a session runs parsed statements: DDL, SHOW, EXPLAIN,
# INSERT, SELECT previews, RUN JOB, scripts); the engine/ runs the pipelines it plans.
librocketsql_a_SOURCES += \
	session/rsql_session.h session/rt_int.h session/rt_session.c session/rt_show.c \
	session/rt_run.c session/rt_script.c session/rt_apply.c

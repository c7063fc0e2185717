# cli/: the rocketsql binary (script runner, `run JOB`, interactive shell).
bin_PROGRAMS += rocketsql
rocketsql_SOURCES = cli/main.c cli/shell.c cli/apply.c cli/cli_int.h cli/serve.c cli/serve_http.c cli/serve_int.h
rocketsql_LDADD = $(RSQL_LIBS) $(LIBEDIT_LIBS) $(MHD_LIBS)
rocketsql_CFLAGS = $(AM_CFLAGS) $(MHD_CFLAGS)
EXTRA_DIST += docs/OPERATIONS.md examples/systemd/rocketsql.service
EXTRA_DIST += tests/rocketmq/t_serve.sh

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The interactive shell: editline line editing with a history file
 * (~/.rocketsql_history, or $ROCKETSQL_HISTORY), statements over several
 * lines until a ';', `help`, aligned tables for results, and errors drawn
 * with a caret under the spot. A statement stays one history entry however
 * many lines it was typed on, so the up-arrow recalls all of it. Ctrl-C at
 * the prompt discards the statement being typed and gives a fresh prompt
 * (a running job installs its own SIGINT handling and restores this one).
 */
#include "config.h"
#include "cli/cli_int.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "sql/rsql_sql.h"

#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <editline/readline.h>

static void shell_help(void)
{
    printf("rocketsql shell: type SQL statements ending with ';' (they may span lines).\n"
           "\n"
           "  CREATE TABLE t (a INT, b VARCHAR) WITH ('connector' = 'datagen', ...);\n"
           "  SHOW TABLES;  DESCRIBE t;  SHOW CREATE TABLE t;  DROP TABLE t;\n"
           "  SHOW CONNECTORS;  SHOW OPTIONS FOR CONNECTOR 'rocketmq-grpc';\n"
           "  SET 'errors.tolerance' = 'all';  RESET;  SHOW SETTINGS;\n"
           "  INSERT INTO sink SELECT ... FROM source WHERE ...;\n"
           "  SELECT ... FROM source [WHERE ...] [LIMIT n];    (a preview)\n"
           "  EXPLAIN INSERT ...;  EXPLAIN SELECT ...;\n"
           "  CREATE JOB j AS INSERT ...;  SHOW JOBS;  RUN JOB j;  SHOW JOB RUNS [j];  DROP JOB j;\n"
           "\n"
           "shell commands: help, quit (or exit, or Ctrl-D). The reference is docs/SQL.md.\n");
}

static char *history_path(void)
{
    const char *env = getenv("ROCKETSQL_HISTORY");
    if (env && *env) {
        return rsql_strdup(env);
    }
    const char *home = getenv("HOME");
    if (!home || !*home) {
        return NULL;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "%s/.rocketsql_history", home);
    return rsql_buf_steal(&b);
}

/* A shell command (help/quit) typed alone on the first line, with or without ';'. */
static int shell_command(const char *line)
{
    while (*line == ' ' || *line == '\t') {
        line++;
    }
    size_t n = strlen(line);
    while (n && (line[n - 1] == ' ' || line[n - 1] == ';' || line[n - 1] == '\t')) {
        n--;
    }
    if ((n == 4 && strncasecmp(line, "help", 4) == 0) || (n == 1 && line[0] == '?') ||
        (n == 5 && strncasecmp(line, ".help", 5) == 0)) {
        return 1;
    }
    if ((n == 4 && strncasecmp(line, "quit", 4) == 0) ||
        (n == 4 && strncasecmp(line, "exit", 4) == 0) ||
        (n == 2 && strncmp(line, "\\q", 2) == 0) || (n == 5 && strncmp(line, ".quit", 5) == 0)) {
        return 2;
    }
    return 0;
}

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    (void)sig;
    interrupted = 1;
}

/*
** Catch SIGINT without SA_RESTART, so the terminal read inside readline()
** fails and readline() returns NULL; `interrupted` tells that from Ctrl-D.
*/
static void catch_sigint(struct sigaction *old)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, old);
}

/* Only whitespace and comments? */
static int is_blank(const char *s)
{
    int type;
    while (*s) {
        int n = rsql_sql_get_token(s, &type);
        if (n <= 0 || type != RSQL_TK_SPACE_) {
            return 0;
        }
        s += n;
    }
    return 1;
}

int rsql_shell_run(rsql_session_t *s, const char *catalog_path)
{
    /* editline drops non-ASCII input in the "C" locale; take the terminal's character
       set (only LC_CTYPE: numbers are still parsed and printed the C way) */
    setlocale(LC_CTYPE, "");
    char *hist = history_path();
    rl_readline_name = "rocketsql";
    using_history();
    stifle_history(2000);
    if (hist) {
        read_history(hist);
    }
    printf("rocketsql %s — catalog %s. Type 'help' for help, 'quit' to leave.\n",
           PACKAGE_VERSION, catalog_path);

    struct sigaction old_int;
    catch_sigint(&old_int);
    rsql_buf_t stmt = RSQL_BUF_INIT;
    int status = 0;
    for (;;) {
        interrupted = 0;
        char *line = readline(stmt.len ? "   ...> " : "rocketsql> ");
        if (interrupted) { /* Ctrl-C: drop the statement being typed */
            free(line);
            printf("^C\n");
            fflush(stdout);
            rsql_buf_reset(&stmt);
            continue;
        }
        if (!line) {
            printf("\n"); /* Ctrl-D: leave the terminal on a fresh line */
            break;
        }
        if (stmt.len == 0) {
            int cmd = shell_command(line);
            if (cmd) {
                add_history(line);
                free(line);
                if (cmd == 2) {
                    break;
                }
                shell_help();
                continue;
            }
            if (is_blank(line)) {
                free(line);
                continue;
            }
        }
        if (stmt.len) {
            rsql_buf_putc(&stmt, '\n');
        }
        rsql_buf_puts(&stmt, line);
        free(line);
        if (stmt.oom) {
            fprintf(stderr, "error: out of memory\n");
            rsql_buf_reset(&stmt);
            stmt.oom = false;
            continue;
        }
        if (!rsql_sql_complete(rsql_buf_str(&stmt))) {
            continue;
        }
        /* One history entry for the whole statement, lines joined by spaces. */
        char *entry = rsql_strdup(rsql_buf_str(&stmt));
        if (entry) {
            for (char *p = entry; *p; p++) {
                if (*p == '\n') {
                    *p = ' ';
                }
            }
            add_history(entry);
            rsql_free(entry);
        }
        status = rsql_session_run_script(s, rsql_buf_str(&stmt), RSQL_PRINT_TABLE, stdout,
                                         stderr);
        fflush(stderr);
        rsql_buf_reset(&stmt);
    }
    sigaction(SIGINT, &old_int, NULL);
    if (hist) {
        write_history(hist);
        rsql_free(hist);
    }
    rsql_buf_deinit(&stmt);
    (void)status;
    return 0;
}

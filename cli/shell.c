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
 * Lines are read with editline's own API (el_gets), which says how many
 * characters a line had: a NUL byte typed or pasted (it would cut the line
 * short) is an error at its line:col, and the statement is dropped.
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

#include <histedit.h>

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

static const char *prompt_now = "rocketsql> ";

/* Byte offset in the line being edited of the first NUL typed (Ctrl-@, or pasted), or -1. */
static long nul_typed = -1;

/* Bound to the NUL key: no editing, but remember where it came, for the error. */
static unsigned char on_nul(EditLine *el, int ch)
{
    (void)ch;
    const LineInfo *li = el_line(el);
    if (nul_typed < 0 && li) {
        nul_typed = (long)(li->cursor - li->buffer);
    }
    return CC_NORM;
}

static char *prompt(EditLine *el)
{
    (void)el;
    return (char *)prompt_now;
}

/* Lines typed so far in stmt (1 + its newlines). */
static int lines_in(const rsql_buf_t *stmt)
{
    int n = 1;
    for (size_t i = 0; i < stmt->len; i++) {
        n += stmt->data[i] == '\n';
    }
    return n;
}

/*
** A NUL byte at byte nul of line (the line-th of the statement): the error a script would
** give, drawn the same way (the line up to the NUL, a caret under it).
*/
static void nul_error(const char *line, size_t nul, int line_no)
{
    int col = 1;
    for (size_t i = 0; i < nul; i++) {
        col += ((unsigned char)line[i] & 0xC0) != 0x80;
    }
    fprintf(stderr, "%d:%d: NUL byte (character 0) in SQL text\n  %.*s\n  %*s^\n", line_no,
            col, (int)nul, line, col - 1, "");
    fflush(stderr);
}

int rsql_shell_run(rsql_session_t *s, const char *catalog_path)
{
    /* editline drops non-ASCII input in the "C" locale; take the terminal's character
       set (only LC_CTYPE: numbers are still parsed and printed the C way) */
    setlocale(LC_CTYPE, "");
    char *hist = history_path();
    HistEvent ev;
    History *h = history_init();
    EditLine *el = el_init("rocketsql", stdin, stdout, stderr);
    if (!h || !el) {
        fprintf(stderr, "error: cannot start the line editor\n");
        if (h) {
            history_end(h);
        }
        rsql_free(hist);
        return 1;
    }
    history(h, &ev, H_SETSIZE, 2000);
    if (hist) {
        history(h, &ev, H_LOAD, hist);
    }
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_PROMPT, prompt);
    el_set(el, EL_HIST, history, h);
    el_source(el, NULL); /* ~/.editrc (or $EDITRC), as readline() did */
    /* the wide call keeps these static strings (the narrow one copies them and never frees) */
    el_wset(el, EL_ADDFN, L"rsql-nul", L"a NUL byte (an error in SQL text)", on_nul);
    el_set(el, EL_BIND, "^@", "rsql-nul", NULL);
    printf("rocketsql %s — catalog %s. Type 'help' for help, 'quit' to leave.\n",
           PACKAGE_VERSION, catalog_path);

    struct sigaction old_int;
    catch_sigint(&old_int);
    rsql_buf_t stmt = RSQL_BUF_INIT;
    int status = 0;
    for (;;) {
        interrupted = 0;
        prompt_now = stmt.len ? "   ...> " : "rocketsql> ";
        int count = 0;
        nul_typed = -1;
        const char *got = el_gets(el, &count);
        if (interrupted) { /* Ctrl-C: drop the statement being typed */
            printf("^C\n");
            fflush(stdout);
            rsql_buf_reset(&stmt);
            continue;
        }
        if (!got || count <= 0) {
            printf("\n"); /* Ctrl-D: leave the terminal on a fresh line */
            break;
        }
        /* count is in bytes as typed; the text stops at a NUL byte */
        size_t len = strlen(got);
        if ((size_t)count > len || nul_typed >= 0) {
            size_t at = (size_t)count > len || (size_t)nul_typed > len ? len : (size_t)nul_typed;
            nul_error(got, at, stmt.len ? lines_in(&stmt) + 1 : 1);
            rsql_buf_reset(&stmt);
            continue;
        }
        char *line = rsql_strndup(got, len && got[len - 1] == '\n' ? len - 1 : len);
        if (!line) {
            fprintf(stderr, "error: out of memory\n");
            continue;
        }
        if (stmt.len == 0) {
            int cmd = shell_command(line);
            if (cmd) {
                history(h, &ev, H_ENTER, line);
                rsql_free(line);
                if (cmd == 2) {
                    break;
                }
                shell_help();
                continue;
            }
            if (is_blank(line)) {
                rsql_free(line);
                continue;
            }
        }
        if (stmt.len) {
            rsql_buf_putc(&stmt, '\n');
        }
        rsql_buf_puts(&stmt, line);
        rsql_free(line);
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
            history(h, &ev, H_ENTER, entry);
            rsql_free(entry);
        }
        status = rsql_session_run_script(s, rsql_buf_str(&stmt), RSQL_PRINT_TABLE, stdout,
                                         stderr);
        fflush(stderr);
        rsql_buf_reset(&stmt);
    }
    sigaction(SIGINT, &old_int, NULL);
    if (hist) {
        history(h, &ev, H_SAVE, hist);
        rsql_free(hist);
    }
    el_end(el);
    history_end(h);
    rsql_buf_deinit(&stmt);
    (void)status;
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_sql: a SQL script (the input's bytes as they are, NULs included) through the parser,
 * the planner and EXPLAIN, against a fresh in-memory catalog holding one table per connector
 * of the registry (t_<name>, '-' as '_', seven columns of every type), so a new connector is
 * covered without a change here. Every statement the parser returns is run through the
 * session as a script would run it, except that INSERT and SELECT are EXPLAINed instead of
 * run and RUN JOB is skipped: nothing starts a pipeline. Errors are rendered (line:col and
 * caret) and results printed, to /dev/null. The parser resumes after a failed statement, so
 * the statements after a syntax error (or a NUL byte) are still planned. Scripts up to
 * 256 KiB are read (tests/fuzz/run gives this target that max_len): long enough for a chain of
 * 100,000 operators, far past RSQL_SQL_MAX_EXPR_DEPTH, so the depth limits are reached.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_result.h"
#include "session/rsql_session.h"
#include "sql/rsql_sql.h"

/* The script that creates one table per connector (made once). */
static char *setup_sql;
static FILE *devnull;

/* A value that passes row's checks (tried in order), or NULL. */
static const char *value_for(const rsql_opt_def_t *row)
{
    static const char *const candidates[] = {"x", "127.0.0.1:8081", "1", "true", "1s", "/tmp/x",
                                             NULL};
    if (row->type == RSQL_OPT_ENUM && row->enum_vals) {
        return row->enum_vals[0];
    }
    for (int i = 0; candidates[i]; i++) {
        rsql_error_t err;
        rsql_error_clear(&err);
        if (rsql_opt_check_value(row, row->name, candidates[i], RSQL_NOPOS, &err) == RSQL_OK) {
            return candidates[i];
        }
    }
    return NULL;
}

/* CREATE TABLE t_<name> (...) WITH ('connector' = name, every REQUIRED option). */
static void append_table(rsql_buf_t *b, const rsql_connector_def_t *c)
{
    rsql_buf_puts(b, "CREATE TABLE t_");
    for (const char *p = c->name; *p; p++) {
        rsql_buf_putc(b, *p == '-' ? '_' : *p);
    }
    rsql_buf_printf(b, " (a INT, b BIGINT, c DOUBLE, d BOOLEAN, e VARCHAR, f TIMESTAMP(3), "
                       "g BYTES) WITH ('connector' = '%s'",
                    c->name);
    for (const rsql_opt_def_t *row = c->opts; row && row->name; row++) {
        if (!(row->flags & RSQL_OPT_F_REQUIRED) || strcmp(row->name, "connector") == 0 ||
            strchr(row->name, '#')) {
            continue;
        }
        const char *v = value_for(row);
        if (!v) {
            fprintf(stderr, "fuzz_sql: no value for required option '%s' of connector '%s'\n",
                    row->name, c->name);
            abort();
        }
        rsql_buf_printf(b, ", '%s' = '%s'", row->name, v);
    }
    rsql_buf_puts(b, ");\n");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_log_configure("error", NULL, &err);
    devnull = fopen("/dev/null", "w");
    rsql_buf_t b = RSQL_BUF_INIT;
    for (const rsql_connector_def_t *const *c = rsql_connector_list(); *c; c++) {
        append_table(&b, *c);
    }
    setup_sql = rsql_buf_steal(&b);
    if (!devnull || !setup_sql) {
        abort();
    }
    /* The tables must be accepted, else this target plans against nothing. */
    rsql_session_t *s = rsql_session_new(":memory:", &err);
    if (!s || rsql_session_run_script(s, setup_sql, RSQL_PRINT_TSV, devnull, stderr) != 0) {
        fprintf(stderr, "fuzz_sql: the per-connector tables were refused:\n%s", setup_sql);
        abort();
    }
    rsql_session_destroy(s);
    return 0;
}

/* One statement as a script runs it, with INSERT/SELECT explained instead of run. */
static void run_statement(rsql_session_t *s, rsql_stmt_t *st, const char *sql)
{
    char *dump = rsql_sql_dump(st);
    rsql_free(dump);
    if (st->kind == RSQL_STMT_RUN_JOB) {
        return;
    }
    rsql_stmt_t explain;
    if (st->kind == RSQL_STMT_INSERT || st->kind == RSQL_STMT_SELECT) {
        memset(&explain, 0, sizeof explain);
        explain.kind = RSQL_STMT_EXPLAIN;
        explain.pos = st->pos;
        explain.inner = st;
        st = &explain;
    }
    rsql_result_t *res = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    if (rsql_session_exec(s, st, sql, &res, &err) != RSQL_OK) {
        FZ_CHECK(res == NULL, "a failed statement returned a result");
        FZ_CHECK(err.code != RSQL_OK && err.code != RSQL_ERR_INTERNAL,
                 "statement failed with code %d: %s", (int)err.code, err.msg);
        rsql_error_render(&err, sql, devnull);
        return;
    }
    rsql_result_print(res, RSQL_PRINT_TABLE, devnull);
    rsql_result_print(res, RSQL_PRINT_TSV, devnull);
    rsql_result_destroy(res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256 * 1024) {
        return 0;
    }
    char *sql = fz_strndup(data, size);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(":memory:", &err);
    FZ_CHECK(s, "cannot open an in-memory catalog: %s", err.msg);
    FZ_CHECK(rsql_session_run_script(s, setup_sql, RSQL_PRINT_TSV, devnull, devnull) == 0,
             "setup failed");
    (void)rsql_sql_complete(sql);

    rsql_parse_t *p = rsql_parse_new(sql, size);
    FZ_CHECK(p, "out of memory");
    for (int i = 0; i < 64; i++) {
        rsql_stmt_t *st = NULL;
        rsql_error_clear(&err);
        if (rsql_parse_next(p, &st, &err) != RSQL_OK) {
            FZ_CHECK(err.code != RSQL_OK && err.code != RSQL_ERR_INTERNAL,
                     "parse failed with code %d: %s", (int)err.code, err.msg);
            FZ_CHECK(err.pos.off == RSQL_POS_NONE || err.pos.off <= size,
                     "error position %u past the end (%zu)", err.pos.off, size);
            rsql_error_render(&err, sql, devnull);
            continue;
        }
        if (!st) {
            break;
        }
        FZ_CHECK((size_t)st->pos.off + st->pos.len <= size, "statement span past the end");
        run_statement(s, st, sql);
    }
    rsql_parse_destroy(p);
    rsql_session_destroy(s);
    free(sql);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Scripts (rocketsql -f / -e / stdin) and catalog jobs (rocketsql run JOB):
 * parse statement by statement, execute, print results; stop at the first
 * error, drawn with its line:col and a caret, or after a statement that a
 * signal interrupted (SIGINT, SIGTERM: status 128 + the signal, 130 for
 * SIGINT, as a shell reports a command a signal ended).
 */
#include "config.h"
#include "session/rt_int.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "base/rsql_buf.h"
#include "engine/rsql_pipeline.h"

#include <signal.h>
#include <string.h>

/* See rsql_session.h. */
void rsql_session_set_script_name(rsql_session_t *s, const char *name)
{
    s->script_name = name;
}

/* An error with its place, after the script's file name when there is one ("job.sql:4:7:"). */
static void render(const rsql_session_t *s, const rsql_error_t *err, const char *sql, FILE *errf)
{
    if (s->script_name && err->pos.off != RSQL_POS_NONE) {
        fprintf(errf, "%s:", s->script_name);
    }
    rsql_error_render(err, sql, errf);
}

int rsql_session_run_script(rsql_session_t *s, const char *sql, rsql_print_style_t style,
                            FILE *out, FILE *errf)
{
    return rsql_session_run_script_n(s, sql, strlen(sql), style, out, errf);
}

int rsql_session_run_script_n(rsql_session_t *s, const char *sql, size_t len,
                              rsql_print_style_t style, FILE *out, FILE *errf)
{
    rsql_parse_t *p = rsql_parse_new(sql, len);
    if (!p) {
        fprintf(errf, "error: out of memory\n");
        return 1;
    }
    int status = 0;
    rsql_pipeline_signal_taken(); /* one from before this script is not ours */
    s->style = style;
    for (;;) {
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_stmt_t *st = NULL;
        if (rsql_parse_next(p, &st, &err) != RSQL_OK) {
            render(s, &err, sql, errf);
            status = 1;
            break;
        }
        if (!st) {
            break;
        }
        rsql_result_t *res = NULL;
        if (rsql_session_exec(s, st, sql, &res, &err) != RSQL_OK) {
            render(s, &err, sql, errf);
            status = rsql_session_last_job_failed(s) ? 2 : 1;
            rsql_pipeline_signal_taken();
            break;
        }
        rsql_result_print(res, style, out);
        rsql_result_destroy(res);
        fflush(out);
        int sig = rsql_pipeline_signal_taken();
        if (sig) {
            bool more = rsql_parse_next(p, &st, &err) != RSQL_OK || st;
            fprintf(errf, "interrupted by %s%s\n", sig == SIGINT ? "SIGINT" : "SIGTERM",
                    more ? "; the rest of the script was not run" : "");
            fflush(errf);
            status = 128 + sig;
            break;
        }
    }
    rsql_parse_destroy(p);
    return status;
}

int rsql_session_run_job(rsql_session_t *s, const char *job, FILE *out, FILE *errf)
{
    /* RUN JOB <name> through the same path as the statement. */
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, "RUN JOB ");
    rsql_buf_quote_ident(&b, job);
    char *text = rsql_buf_steal(&b);
    if (!text) {
        fprintf(errf, "error: out of memory\n");
        return 1;
    }
    int status = rsql_session_run_script(s, text, RSQL_PRINT_TABLE, out, errf);
    rsql_free(text);
    return status;
}

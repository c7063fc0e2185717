/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Private to session/: the session struct and the statement handlers shared
 * between rt_session.c, rt_show.c and rt_run.c.
 */
#ifndef RSQL_RT_INT_H
#define RSQL_RT_INT_H

#include "base/rsql_result.h"
#include "session/rsql_session.h"
#include "sql/rsql_sql.h"

typedef struct rsql_settings rsql_settings_t;

struct rsql_session {
    rsql_catalog_t *cat;
    rsql_settings_t *settings;
    int job_failed; /* the last statement started a job that failed */
    const char *script_name; /* the script's file (-f FILE): errors start "FILE:line:col:" */
    rsql_print_style_t style; /* how the running script prints results (previews too) */
    /* rocketsql serve: the supervised job's stats; its pipelines leave the signals to the
       process and print no status line (NULL otherwise) */
    struct rsql_pipeline_stats *serve_stats;
    /* SET 'http.address': the CLI's endpoint for a running statement (rsql_session.h) */
    rsql_http_begin_cb http_begin;
    rsql_http_end_cb http_end;
    void *http_opaque;
};

rsql_err_t rsql_rt__show_tables(rsql_session_t *s, rsql_result_t **out, rsql_error_t *err);
rsql_err_t rsql_rt__describe(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                             rsql_error_t *err);
rsql_err_t rsql_rt__show_create(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                                rsql_error_t *err);
rsql_err_t rsql_rt__show_connectors(rsql_result_t **out, rsql_error_t *err);
rsql_err_t rsql_rt__show_options(const rsql_stmt_t *st, rsql_result_t **out, rsql_error_t *err);
rsql_err_t rsql_rt__show_metadata(const rsql_stmt_t *st, rsql_result_t **out, rsql_error_t *err);
rsql_err_t rsql_rt__show_settings(rsql_session_t *s, rsql_result_t **out, rsql_error_t *err);
rsql_err_t rsql_rt__show_jobs(rsql_session_t *s, rsql_result_t **out, rsql_error_t *err);
rsql_err_t rsql_rt__show_job_runs(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                                  rsql_error_t *err);
/* INSERT, SELECT preview, RUN JOB. */
rsql_err_t rsql_rt__run(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                        rsql_result_t **out, rsql_error_t *err);

#endif

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_session: executes parsed statements against a catalog with a set of
 * session settings. The CLI, the interactive shell and the slt test runner
 * all go through it: parse a statement (sql/), hand it to
 * rsql_session_exec, print the result.
 *
 * @locality the thread that owns the session (it owns one catalog connection)
 */
#ifndef RSQL_SESSION_H
#define RSQL_SESSION_H

#include <stdbool.h>
#include <stdio.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_result.h"
#include "sql/rsql_sql.h"

typedef struct rsql_session rsql_session_t;
typedef struct rsql_catalog rsql_catalog_t;

/* Open the catalog at catalog_path (created when missing). NULL with err set. */
rsql_session_t *rsql_session_new(const char *catalog_path, rsql_error_t *err);
void rsql_session_destroy(rsql_session_t *s);

/*
** Execute one statement. sql is the text stmt's positions refer to. On
** success *out is a new result (caller destroys; may be RSQL_RESULT_NONE).
** On failure returns the code with err set (with a position when the error
** comes from the SQL text) and *out is NULL. A job that started and then
** failed returns RSQL_ERR_SINK/DECODE/... with err set and
** rsql_session_last_job_failed() true (exit status 2 rather than 1).
*/
rsql_err_t rsql_session_exec(rsql_session_t *s, const rsql_stmt_t *stmt, const char *sql,
                             rsql_result_t **out, rsql_error_t *err);
int rsql_session_last_job_failed(const rsql_session_t *s);

/*
** Run every statement of a script, printing results to out and errors (with
** a caret) to errf. Stops at the first error. Returns the process exit
** status: 0 done, 1 statement error, 2 a job failed while running.
*/
int rsql_session_run_script(rsql_session_t *s, const char *sql, rsql_print_style_t style,
                            FILE *out, FILE *errf);
/*
** The same for a script of len bytes (a file, stdin): a NUL byte in it is an
** error at its line:col, like any character that starts no token (the
** statements before it run). sql[len] must be a NUL.
*/
/* The file the next scripts come from (borrowed; NULL = none): their errors start with it. */
void rsql_session_set_script_name(rsql_session_t *s, const char *name);

int rsql_session_run_script_n(rsql_session_t *s, const char *sql, size_t len,
                              rsql_print_style_t style, FILE *out, FILE *errf);

/* `rocketsql run JOB`: run a catalog job (bounded). Exit status as above. */
int rsql_session_run_job(rsql_session_t *s, const char *job, FILE *out, FILE *errf);

struct rsql_pipeline_stats;
/*
** `rocketsql serve`: run catalog job `job` once, supervised: its counts are published to
** stats (rsql_pipeline.h; rsql_pipeline_stats_stop drains and stops it), it leaves
** SIGINT/SIGTERM to the process and prints no status line. RSQL_OK when it ended (done, or
** stopped); else the error (err set, its message prefixed "job 'NAME': "). *started tells
** whether its pipeline began a run (a row in SHOW JOB RUNS); false when it did not plan.
** @locality the session's thread
*/
rsql_err_t rsql_session_serve_job(rsql_session_t *s, const char *job,
                                  struct rsql_pipeline_stats *stats, bool *started,
                                  rsql_error_t *err);
/*
** SET 'http.address' = 'ADDR:PORT': while an INSERT or RUN JOB of this session runs, begin is
** called with the address, the run's name (the job, else "insert:<source>-><sink>") and the
** stats the run publishes (rsql_pipeline.h), and end once it is over. A begin error (an
** address in use) fails the statement before it runs. The CLI sets these (cli/serve_http.c);
** without them the setting does nothing.
*/
typedef rsql_err_t (*rsql_http_begin_cb)(void *opaque, const char *addr, const char *name,
                                         struct rsql_pipeline_stats *stats, rsql_error_t *err);
typedef void (*rsql_http_end_cb)(void *opaque);
void rsql_session_set_http_hooks(rsql_session_t *s, rsql_http_begin_cb begin,
                                 rsql_http_end_cb end, void *opaque);

/*
** `rocketsql apply`: make s's catalog match a jobs file, sql (len bytes) of CREATE TABLE,
** CREATE JOB, SET and RESET statements: the file is checked whole first (in a private
** in-memory catalog: options validated, jobs planned), then what differs is created, changed
** or dropped in one catalog transaction (session/rt_apply.c says how). One line per table or
** job that differs goes to report ("+ table t: connector", "~ job j: statement changed",
** "- job old"); counts (may be NULL) gets how many are created, changed and dropped. dry_run:
** the same lines, nothing changed. On error nothing changed; err has the place in sql when
** the file is at fault.
*/
rsql_err_t rsql_session_apply(rsql_session_t *s, const char *sql, size_t len, bool dry_run,
                              rsql_buf_t *report, int counts[3], rsql_error_t *err);

/* The session's catalog connection (borrowed; the session's thread only). */
rsql_catalog_t *rsql_session_catalog(rsql_session_t *s);

#endif

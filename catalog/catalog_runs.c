/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Job runs: the history behind SHOW JOB RUNS. The runtime calls
 * rsql_catalog_run_begin when an INSERT or RUN JOB starts (status
 * "running"), rsql_catalog_run_progress now and then with the counts so far,
 * and rsql_catalog_run_end with the final status. Each call is one
 * statement, so it commits on its own (or joins the caller's transaction).
 * A run records the process (pid, host) that runs it. A process killed
 * while running leaves its run "running"; reap_dead_runs marks such runs
 * "interrupted" when their process is gone from this host (checked before
 * runs are listed or a new one begins). A run may also record what it can
 * leave invisible to later runs (rsql_catalog_run_hold: a RocketMQ consumer
 * group's held messages and until when), which the next bounded run of that
 * group reads (rsql_catalog_run_hold_last).
 */
#include "config.h"
#include "catalog/catalog_int.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/rsql_mem.h"

static rsql_err_t bind_err(rsql_catalog_t *cat, rsql_error_t *err)
{
    return rsql_catalog__sqlerr(cat, sqlite3_errcode(cat->db), err);
}

static void this_host(char *host, size_t size)
{
    if (gethostname(host, size) != 0) {
        snprintf(host, size, "%s", "localhost");
    }
    host[size - 1] = '\0';
}

/*
** Mark "interrupted" the runs of this host still "running" whose process no
** longer exists (killed with SIGKILL, crashed). Best effort: errors are
** ignored, the runs then simply stay "running".
*/
static void reap_dead_runs(rsql_catalog_t *cat)
{
    char host[256];
    this_host(host, sizeof(host));
    sqlite3_stmt *st;
    if (rsql_catalog__prepare(cat,
                              "SELECT id, pid FROM job_runs WHERE status = 'running' AND "
                              "host = ?1 AND pid IS NOT NULL",
                              &st, NULL) != RSQL_OK) {
        return;
    }
    int64_t dead[64];
    int64_t dead_pid[64];
    int n = 0;
    if (rsql_catalog__bind_text(st, 1, host) == SQLITE_OK) {
        while (n < 64 && sqlite3_step(st) == SQLITE_ROW) {
            pid_t pid = (pid_t)sqlite3_column_int64(st, 1);
            if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH) {
                dead[n] = sqlite3_column_int64(st, 0);
                dead_pid[n] = pid;
                n++;
            }
        }
    }
    sqlite3_finalize(st);
    for (int i = 0; i < n; i++) {
        if (rsql_catalog__prepare(cat,
                                  "UPDATE job_runs SET status = 'interrupted', error = ?2 "
                                  "WHERE id = ?1 AND status = 'running'",
                                  &st, NULL) != RSQL_OK) {
            return;
        }
        char why[128];
        snprintf(why, sizeof(why), "process %lld ended before the run finished (killed?)",
                 (long long)dead_pid[i]);
        if (sqlite3_bind_int64(st, 1, dead[i]) == SQLITE_OK &&
            rsql_catalog__bind_text(st, 2, why) == SQLITE_OK) {
            rsql_catalog__step_done(cat, st, NULL);
        }
        sqlite3_finalize(st);
    }
}

/*
** Insert a run (status "running", start now, counts 0). job NULL = ad-hoc
** INSERT; sql is the statement text (may be NULL). *run_id = its id.
*/
rsql_err_t rsql_catalog_run_begin(rsql_catalog_t *cat, const char *job, const char *sql,
                                  int64_t *run_id, rsql_error_t *err)
{
    sqlite3_stmt *st;
    char host[256];
    reap_dead_runs(cat);
    this_host(host, sizeof(host));
    rsql_err_t rc = rsql_catalog__prepare(cat,
                                          "INSERT INTO job_runs(job, sql, start_ms, status, pid, "
                                          "host) VALUES (?1, ?2, ?3, 'running', ?4, ?5)",
                                          &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, job) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, sql) != SQLITE_OK ||
        sqlite3_bind_int64(st, 3, rsql_wall_ms()) != SQLITE_OK ||
        sqlite3_bind_int64(st, 4, (sqlite3_int64)getpid()) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 5, host) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else if ((rc = rsql_catalog__step_done(cat, st, err)) == RSQL_OK) {
        *run_id = sqlite3_last_insert_rowid(cat->db);
    }
    sqlite3_finalize(st);
    return rc;
}

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_run_action(rsql_catalog_t *cat, const char *job, const char *action,
                                   const char *detail, rsql_error_t *err)
{
    sqlite3_stmt *st;
    char host[256];
    this_host(host, sizeof(host));
    rsql_err_t rc = rsql_catalog__prepare(cat,
                                          "INSERT INTO job_runs(job, sql, start_ms, end_ms, "
                                          "status, detail, pid, host) VALUES (?1, NULL, ?2, ?2, "
                                          "?3, ?4, ?5, ?6)",
                                          &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, job) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, rsql_wall_ms()) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 3, action) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 4, detail) != SQLITE_OK ||
        sqlite3_bind_int64(st, 5, (sqlite3_int64)getpid()) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 6, host) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        rc = rsql_catalog__step_done(cat, st, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* Bind counts to parameters first .. first+4 (read, written, filtered, dead-lettered, failed). */
static int bind_counts(sqlite3_stmt *st, int first, const rsql_job_counts_t *c)
{
    int rc = sqlite3_bind_int64(st, first, c->read);
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, first + 1, c->written);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, first + 2, c->filtered);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, first + 3, c->dead_lettered);
    }
    if (rc == SQLITE_OK) {
        rc = sqlite3_bind_int64(st, first + 4, c->failed);
    }
    return rc;
}

/* Run an UPDATE of one run; RSQL_ERR_UNKNOWN_NAME when no run has that id. */
static rsql_err_t update_run(rsql_catalog_t *cat, sqlite3_stmt *st, int64_t run_id,
                             rsql_error_t *err)
{
    rsql_err_t rc = rsql_catalog__step_done(cat, st, err);
    if (rc == RSQL_OK && sqlite3_changes(cat->db) == 0) {
        rc = rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, RSQL_NOPOS, "no job run %lld",
                            (long long)run_id);
    }
    return rc;
}

/*
** Record the counts so far (counts NULL = unchanged) and the detail JSON
** (NULL = keep the previous detail). Strings are copied.
*/
rsql_err_t rsql_catalog_run_progress(rsql_catalog_t *cat, int64_t run_id,
                                     const rsql_job_counts_t *counts, const char *detail,
                                     rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "UPDATE job_runs SET rows_read = coalesce(?2, rows_read),"
        " rows_written = coalesce(?3, rows_written), rows_filtered = coalesce(?4, rows_filtered),"
        " rows_dead_lettered = coalesce(?5, rows_dead_lettered),"
        " rows_failed = coalesce(?6, rows_failed), detail = coalesce(?7, detail) WHERE id = ?1",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        (counts && bind_counts(st, 2, counts) != SQLITE_OK) ||
        rsql_catalog__bind_text(st, 7, detail) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        rc = update_run(cat, st, run_id, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/*
** Final state of a run: status "done", "failed" or "interrupted", end time
** now, counts (NULL = unchanged), error (NULL = none), detail (NULL = keep).
*/
rsql_err_t rsql_catalog_run_end(rsql_catalog_t *cat, int64_t run_id, const char *status,
                                const rsql_job_counts_t *counts, const char *error,
                                const char *detail, rsql_error_t *err)
{
    if (!status || (strcmp(status, "done") != 0 && strcmp(status, "failed") != 0 &&
                    strcmp(status, "interrupted") != 0)) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "catalog: invalid final job run status '%s'",
                              status ? status : "(null)");
    }
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "UPDATE job_runs SET rows_read = coalesce(?2, rows_read),"
        " rows_written = coalesce(?3, rows_written), rows_filtered = coalesce(?4, rows_filtered),"
        " rows_dead_lettered = coalesce(?5, rows_dead_lettered),"
        " rows_failed = coalesce(?6, rows_failed), detail = coalesce(?7, detail),"
        " status = ?8, error = ?9, end_ms = ?10 WHERE id = ?1",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        (counts && bind_counts(st, 2, counts) != SQLITE_OK) ||
        rsql_catalog__bind_text(st, 7, detail) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 8, status) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 9, error) != SQLITE_OK ||
        sqlite3_bind_int64(st, 10, rsql_wall_ms()) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        rc = update_run(cat, st, run_id, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* See rsql_catalog.h: where run_id resumed (copied). */
rsql_err_t rsql_catalog_run_resumed(rsql_catalog_t *cat, int64_t run_id, const char *from,
                                    rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat, "UPDATE job_runs SET resumed_from = ?2 WHERE id = ?1", &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, from) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        rc = update_run(cat, st, run_id, err);
    }
    sqlite3_finalize(st);
    return rc;
}

#define RUN_COLUMNS                                                                           \
    "SELECT id, job, sql, start_ms, end_ms, status, rows_read, rows_written, rows_filtered," \
    " rows_dead_lettered, rows_failed, error, detail, resumed_from FROM job_runs"

/* A run from the current row of a RUN_COLUMNS query. */
static rsql_err_t load_run(sqlite3_stmt *st, rsql_job_run_t **out, rsql_error_t *err)
{
    rsql_job_run_t *r = rsql_calloc(1, sizeof(*r));
    if (!r) {
        return rsql_error_nomem(err);
    }
    r->id = sqlite3_column_int64(st, 0);
    r->start_ms = sqlite3_column_int64(st, 3);
    r->end_ms = sqlite3_column_int64(st, 4);
    r->counts.read = sqlite3_column_int64(st, 6);
    r->counts.written = sqlite3_column_int64(st, 7);
    r->counts.filtered = sqlite3_column_int64(st, 8);
    r->counts.dead_lettered = sqlite3_column_int64(st, 9);
    r->counts.failed = sqlite3_column_int64(st, 10);
    rsql_err_t rc = rsql_catalog__col_dup(st, 1, &r->job, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 2, &r->sql, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 5, &r->status, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 11, &r->error, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 12, &r->detail, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 13, &r->resumed_from, err);
    }
    if (rc != RSQL_OK) {
        rsql_job_run_free(r);
        return rc;
    }
    *out = r;
    return RSQL_OK;
}

/*
** Runs newest first (by id), only those of job (case-insensitive) when job
** is non-NULL, at most limit (<= 0: all). *runs a heap array of n owned runs
** (rsql_job_run_array_free); NULL and 0 when none.
*/
rsql_err_t rsql_catalog_run_list(rsql_catalog_t *cat, const char *job, int limit,
                                 rsql_job_run_t ***runs, int *n, rsql_error_t *err)
{
    *runs = NULL;
    *n = 0;
    reap_dead_runs(cat);
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        job ? RUN_COLUMNS " WHERE job = ?1 ORDER BY id DESC LIMIT ?2"
            : RUN_COLUMNS " WHERE ?1 IS NULL ORDER BY id DESC LIMIT ?2",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int cap = 0, src = SQLITE_DONE;
    if (rsql_catalog__bind_text(st, 1, job) != SQLITE_OK ||
        sqlite3_bind_int(st, 2, limit > 0 ? limit : -1) != SQLITE_OK) {
        rc = bind_err(cat, err);
    }
    while (rc == RSQL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
        rsql_job_run_t **grown = rsql_catalog__grow(*runs, &cap, *n, sizeof(*grown));
        if (!grown) {
            rc = rsql_error_nomem(err);
            break;
        }
        *runs = grown;
        if ((rc = load_run(st, &(*runs)[*n], err)) == RSQL_OK) {
            (*n)++;
        }
    }
    if (rc == RSQL_OK && src != SQLITE_DONE) {
        rc = rsql_catalog__sqlerr(cat, src, err);
    }
    sqlite3_finalize(st);
    if (rc != RSQL_OK) {
        rsql_job_run_array_free(*runs, *n);
        *runs = NULL;
        *n = 0;
    }
    return rc;
}

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_run_hold(rsql_catalog_t *cat, int64_t run_id, const char *key,
                                 int64_t hold_until_ms, rsql_error_t *err)
{
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "UPDATE job_runs SET hold_key = coalesce(?2, hold_key), hold_until_ms = ?3 WHERE id = ?1",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (sqlite3_bind_int64(st, 1, run_id) != SQLITE_OK ||
        rsql_catalog__bind_text(st, 2, key) != SQLITE_OK ||
        sqlite3_bind_int64(st, 3, hold_until_ms) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        rc = update_run(cat, st, run_id, err);
    }
    sqlite3_finalize(st);
    return rc;
}

/* See rsql_catalog.h. */
rsql_err_t rsql_catalog_run_hold_last(rsql_catalog_t *cat, const char *key,
                                      int64_t exclude_run_id, bool *found, int64_t *run_id,
                                      char **status, int64_t *hold_until_ms, rsql_error_t *err)
{
    *found = false;
    *status = NULL;
    *run_id = 0;
    *hold_until_ms = 0;
    reap_dead_runs(cat);
    sqlite3_stmt *st;
    rsql_err_t rc = rsql_catalog__prepare(
        cat,
        "SELECT id, status, coalesce(hold_until_ms, 0) FROM job_runs WHERE hold_key = ?1 AND "
        "id <> ?2 AND status <> 'running' ORDER BY id DESC LIMIT 1",
        &st, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (rsql_catalog__bind_text(st, 1, key) != SQLITE_OK ||
        sqlite3_bind_int64(st, 2, exclude_run_id) != SQLITE_OK) {
        rc = bind_err(cat, err);
    } else {
        int src = sqlite3_step(st);
        if (src == SQLITE_ROW) {
            *run_id = sqlite3_column_int64(st, 0);
            *hold_until_ms = sqlite3_column_int64(st, 2);
            rc = rsql_catalog__col_dup(st, 1, status, err);
            *found = rc == RSQL_OK;
        } else if (src != SQLITE_DONE) {
            rc = rsql_catalog__sqlerr(cat, src, err);
        }
    }
    sqlite3_finalize(st);
    return rc;
}

/* Free a run and its strings. NULL-safe. */
void rsql_job_run_free(rsql_job_run_t *run)
{
    if (!run) {
        return;
    }
    rsql_free(run->job);
    rsql_free(run->sql);
    rsql_free(run->status);
    rsql_free(run->error);
    rsql_free(run->detail);
    rsql_free(run->resumed_from);
    rsql_free(run);
}

void rsql_job_run_array_free(rsql_job_run_t **runs, int n)
{
    if (!runs) {
        return;
    }
    for (int i = 0; i < n; i++) {
        rsql_job_run_free(runs[i]);
    }
    rsql_free(runs);
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The stored jobs: a name, the INSERT statement's text and the session settings captured
 * with it (job_settings, in order).
 */
#include "config.h"
#include "catalog/catalog_int.h"

#include <string.h>

#include "base/rsql_mem.h"

/* ------------------------------------------------------------------ jobs */

/*
** Store a job (name, statement text, settings in order) in one write
** transaction. RSQL_ERR_EXISTS "job 'NAME' already exists" unless
** if_not_exists. def stays the caller's; created_ms 0 means now.
*/
rsql_err_t rsql_catalog_job_create(rsql_catalog_t *cat, const rsql_job_def_t *def,
                                   bool if_not_exists, rsql_error_t *err)
{
    if (!def || !def->name || !*def->name || !def->sql || def->n_settings < 0 ||
        (def->n_settings > 0 && !def->settings)) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "catalog: incomplete job definition");
    }
    for (int i = 0; i < def->n_settings; i++) {
        if (!def->settings[i].key || !def->settings[i].value) {
            return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                  "catalog: job '%s': invalid setting %d", def->name, i + 1);
        }
    }
    rsql_catalog_tx_t tx;
    bool done = true;
    rsql_err_t rc = rsql_catalog__create_begin(cat, "job", "SELECT 1 FROM jobs WHERE name = ?1", def->name,
                                 if_not_exists, &tx, &done, err);
    if (rc != RSQL_OK || done) {
        return rc;
    }
    rc = rsql_catalog__insert_named(cat, "INSERT INTO jobs(name, sql, created_ms) VALUES (?1, ?2, ?3)",
                      def->name, def->sql, def->created_ms, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog__insert_kvs(cat,
                        "INSERT INTO job_settings(job, ord, key, value) VALUES (?1, ?2, ?3, ?4)",
                        def->name, def->settings, def->n_settings, err);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, tx, rc == RSQL_OK, err);
    return rc != RSQL_OK ? rc : erc;
}

/* Read one job (its jobs row is the current row of st) with its settings. */
static rsql_err_t load_job(rsql_catalog_t *cat, sqlite3_stmt *st, rsql_job_def_t **out,
                           rsql_error_t *err)
{
    rsql_job_def_t *def = rsql_calloc(1, sizeof(*def));
    if (!def) {
        return rsql_error_nomem(err);
    }
    def->created_ms = sqlite3_column_int64(st, 2);
    rsql_err_t rc = rsql_catalog__col_dup(st, 0, &def->name, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog__col_dup(st, 1, &def->sql, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog__load_kvs(cat, "SELECT key, value FROM job_settings WHERE job = ?1 ORDER BY ord",
                      def->name, &def->settings, &def->n_settings, err);
    }
    if (rc != RSQL_OK) {
        rsql_job_def_free(def);
        return rc;
    }
    *out = def;
    return RSQL_OK;
}

/*
** Run a jobs query (name, sql, created_ms; ?1 bound to name when non-NULL)
** in a read transaction; every row becomes a job in *jobs (heap array of n).
*/
static rsql_err_t query_jobs(rsql_catalog_t *cat, const char *sql, const char *name,
                             rsql_job_def_t ***jobs, int *n, rsql_error_t *err)
{
    *jobs = NULL;
    *n = 0;
    rsql_catalog_tx_t tx;
    rsql_err_t rc = rsql_catalog__tx_begin(cat, false, &tx, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    sqlite3_stmt *st;
    rc = rsql_catalog__prepare(cat, sql, &st, err);
    if (rc == RSQL_OK) {
        int cap = 0, src = SQLITE_DONE;
        if (name && rsql_catalog__bind_text(st, 1, name) != SQLITE_OK) {
            rc = rsql_catalog__bind_err(cat, err);
        }
        while (rc == RSQL_OK && (src = sqlite3_step(st)) == SQLITE_ROW) {
            rsql_job_def_t **grown = rsql_catalog__grow(*jobs, &cap, *n, sizeof(*grown));
            if (!grown) {
                rc = rsql_error_nomem(err);
                break;
            }
            *jobs = grown;
            (*jobs)[*n] = NULL;
            if ((rc = load_job(cat, st, &(*jobs)[*n], err)) == RSQL_OK) {
                (*n)++;
            }
        }
        if (rc == RSQL_OK && src != SQLITE_DONE) {
            rc = rsql_catalog__sqlerr(cat, src, err);
        }
        sqlite3_finalize(st);
    }
    rsql_err_t erc = rsql_catalog__tx_end(cat, tx, rc == RSQL_OK, err);
    if (rc == RSQL_OK) {
        rc = erc;
    }
    if (rc != RSQL_OK) {
        rsql_job_def_array_free(*jobs, *n);
        *jobs = NULL;
        *n = 0;
    }
    return rc;
}

/*
** Look up a job by name (case-insensitive). *out = new copy owned by the
** caller (rsql_job_def_free), or NULL when there is none (RSQL_OK).
*/
rsql_err_t rsql_catalog_job_get(rsql_catalog_t *cat, const char *name, rsql_job_def_t **out,
                                rsql_error_t *err)
{
    rsql_job_def_t **jobs;
    int n;
    *out = NULL;
    rsql_err_t rc = query_jobs(cat, "SELECT name, sql, created_ms FROM jobs WHERE name = ?1",
                               name, &jobs, &n, err);
    if (rc == RSQL_OK && n > 0) {
        *out = jobs[0];
        jobs[0] = NULL;
    }
    rsql_job_def_array_free(jobs, n);
    return rc;
}

/* Drop a job (settings cascade; its runs stay as history). *dropped = whether it existed. */
rsql_err_t rsql_catalog_job_drop(rsql_catalog_t *cat, const char *name, bool *dropped,
                                 rsql_error_t *err)
{
    return rsql_catalog__drop_named(cat, "DELETE FROM jobs WHERE name = ?1", name, dropped, err);
}

/*
** All jobs with their settings, sorted by name case-insensitively: *jobs a
** heap array of n owned jobs (rsql_job_def_array_free); NULL and 0 when none.
*/
rsql_err_t rsql_catalog_job_list(rsql_catalog_t *cat, rsql_job_def_t ***jobs, int *n,
                                 rsql_error_t *err)
{
    return query_jobs(cat, "SELECT name, sql, created_ms FROM jobs ORDER BY name", NULL, jobs, n,
                      err);
}

/* Free a job definition and everything it owns. NULL-safe. */
void rsql_job_def_free(rsql_job_def_t *def)
{
    if (!def) {
        return;
    }
    rsql_free(def->name);
    rsql_free(def->sql);
    rsql_kv_array_free(def->settings, def->n_settings);
    rsql_free(def);
}

void rsql_job_def_array_free(rsql_job_def_t **jobs, int n)
{
    if (!jobs) {
        return;
    }
    for (int i = 0; i < n; i++) {
        rsql_job_def_free(jobs[i]);
    }
    rsql_free(jobs);
}

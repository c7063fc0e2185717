/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Statements that run pipelines: INSERT, SELECT previews and RUN JOB. Each
 * is planned first (so every bind/type error is reported with its place
 * before anything runs); the pipeline runtime (rt_run_pipeline.c) then
 * executes the plan. RUN JOB re-parses the job's stored statement and plans
 * it with the settings captured at CREATE JOB.
 */
#include "config.h"
#include "session/rt_int.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_mem.h"
#include "base/rsql_settings.h"
#include "planner/rsql_plan.h"
#include "engine/rsql_pipeline.h"

#include <stdio.h>
#include <string.h>

/* Run plan with the CLI's HTTP endpoint up (SET 'http.address'). */
static rsql_err_t run_with_http(rsql_session_t *s, const rsql_plan_t *plan, const char *job,
                                const char *addr, rsql_error_t *err)
{
    rsql_pipeline_stats_t *st = rsql_malloc(sizeof *st);
    if (!st) {
        return rsql_error_nomem(err);
    }
    rsql_pipeline_stats_init(st);
    char name[300];
    if (job) {
        snprintf(name, sizeof name, "%s", job);
    } else {
        snprintf(name, sizeof name, "insert:%.140s->%.140s", plan->source.def->name,
                 plan->sink.def->name);
    }
    rsql_err_t rc = s->http_begin(s->http_opaque, addr, name, st, err);
    if (rc == RSQL_OK) {
        rc = rsql_pipeline_run_plan_ex(s->cat, plan, job, stdout, stderr, st, true, err);
        if (rc != RSQL_OK) {
            s->job_failed = 1;
        }
        s->http_end(s->http_opaque);
    }
    rsql_pipeline_stats_deinit(st);
    rsql_free(st);
    return rc;
}

/* Plan stmt with settings and run it; a failure while running marks the job failed. */
static rsql_err_t plan_and_run(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                               const rsql_settings_t *settings, const char *job,
                               rsql_error_t *err)
{
    rsql_plan_t *plan = rsql_plan_build(s->cat, st, sql, settings, err);
    if (!plan) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    /* a statement's missing input is reported now, at the table's place, before anything runs
       (a job's run records it as its failure, as any error of a run) */
    rsql_err_t crc = job ? RSQL_OK : rsql_plan_check_source(plan, err);
    if (crc != RSQL_OK) {
        rsql_plan_destroy(plan);
        return crc;
    }
    fflush(stdout);
    const char *http = rsql_settings_get(s->settings, "http.address");
    if (http && *http && s->http_begin && !s->serve_stats && plan->kind != RSQL_PLAN_SELECT &&
        plan->sink.def) {
        rsql_err_t rc = run_with_http(s, plan, job, http, err); /* a start error: nothing ran */
        rsql_plan_destroy(plan);
        return rc;
    }
    rsql_err_t rc = s->serve_stats
                        ? rsql_pipeline_run_plan_ex(s->cat, plan, job, NULL, NULL,
                                                    s->serve_stats, false, err)
                        : rsql_pipeline_run_plan(s->cat, s->style, plan, job,
                                                 stdout, stderr, err);
    if (rc != RSQL_OK) {
        s->job_failed = 1;
    }
    rsql_plan_destroy(plan);
    return rc;
}

/* RUN JOB name: the stored INSERT, planned with the job's captured settings. */
static rsql_err_t run_job_named(rsql_session_t *s, const char *name, rsql_pos_t name_pos,
                                rsql_error_t *err)
{
    rsql_job_def_t *job = NULL;
    rsql_error_t local;
    rsql_error_clear(&local);
    if (rsql_catalog_job_get(s->cat, name, &job, &local) != RSQL_OK) {
        return rsql_error_set(err, local.code, name_pos, "%s", local.msg);
    }
    if (!job) {
        return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, name_pos, "no such job: %s", name);
    }
    rsql_err_t rc = RSQL_OK;
    rsql_settings_t *settings = rsql_settings_new();
    rsql_opt_kv_t *kvs = rsql_calloc((size_t)(job->n_settings ? job->n_settings : 1),
                                     sizeof(*kvs));
    rsql_parse_t *p = rsql_parse_new(job->sql, strlen(job->sql));
    if (!settings || !kvs || !p) {
        rc = rsql_error_nomem(err);
        goto done;
    }
    for (int i = 0; i < job->n_settings; i++) {
        kvs[i].key = job->settings[i].key;
        kvs[i].value = job->settings[i].value;
        kvs[i].key_pos = kvs[i].value_pos = RSQL_NOPOS;
    }
    rsql_error_clear(&local);
    if (rsql_settings_import(settings, kvs, job->n_settings, &local) != RSQL_OK) {
        rc = rsql_error_set(err, local.code, name_pos, "job '%s': %s", job->name, local.msg);
        goto done;
    }
    rsql_stmt_t *inner = NULL;
    rsql_error_clear(&local);
    if (rsql_parse_next(p, &inner, &local) != RSQL_OK || !inner ||
        inner->kind != RSQL_STMT_INSERT) {
        rc = rsql_error_set(err, local.code ? local.code : RSQL_ERR_CATALOG, name_pos,
                            "job '%s' has an invalid statement: %s", job->name,
                            local.code ? local.msg : "not an INSERT");
        goto done;
    }
    /* Errors in the job's own text are reported against that text, prefixed with the job. */
    rsql_error_clear(&local);
    rc = plan_and_run(s, inner, job->sql, settings, job->name, &local);
    if (rc != RSQL_OK) {
        char where[900];
        rsql_error_format(&local, job->sql, where, sizeof(where));
        rsql_error_t outer = local;
        outer.pos = s->job_failed ? RSQL_NOPOS : name_pos;
        snprintf(outer.msg, sizeof(outer.msg), "job '%.64s': %.900s", job->name,
                 local.pos.off != RSQL_POS_NONE ? where : local.msg);
        rsql_error_copy(err, &outer);
    }
done:
    rsql_parse_destroy(p);
    rsql_free(kvs);
    rsql_settings_destroy(settings);
    rsql_job_def_free(job);
    return rc;
}

rsql_err_t rsql_rt__run(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                        rsql_result_t **out, rsql_error_t *err)
{
    (void)out;
    if (st->kind == RSQL_STMT_RUN_JOB) {
        return run_job_named(s, st->name.name, st->name.pos, err);
    }
    return plan_and_run(s, st, sql, s->settings, NULL, err);
}

/* rocketsql serve: one supervised run of a catalog job (rsql_session.h). */
rsql_err_t rsql_session_serve_job(rsql_session_t *s, const char *job,
                                  struct rsql_pipeline_stats *stats, bool *started,
                                  rsql_error_t *err)
{
    s->job_failed = 0;
    s->serve_stats = stats;
    rsql_err_t rc = run_job_named(s, job, RSQL_NOPOS, err);
    s->serve_stats = NULL;
    *started = stats && atomic_load(&stats->run_id) > 0;
    return rc;
}

rsql_catalog_t *rsql_session_catalog(rsql_session_t *s)
{
    return s->cat;
}

void rsql_session_set_http_hooks(rsql_session_t *s, rsql_http_begin_cb begin,
                                 rsql_http_end_cb end, void *opaque)
{
    s->http_begin = begin;
    s->http_end = end;
    s->http_opaque = opaque;
}

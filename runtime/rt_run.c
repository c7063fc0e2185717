/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Statements that run pipelines: INSERT, SELECT previews and RUN JOB. Each
 * is planned first (so every bind/type error is reported with its place
 * before anything runs); the pipeline runtime then executes the plan.
 */
#include "config.h"
#include "runtime/rt_int.h"
#include "catalog/rsql_catalog.h"
#include "core/rsql_mem.h"
#include "planner/rsql_plan.h"

rsql_err_t rsql_rt__run(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                        rsql_result_t **out, rsql_error_t *err)
{
    (void)out;
    if (st->kind == RSQL_STMT_RUN_JOB) {
        rsql_job_def_t *job = NULL;
        rsql_error_t local;
        rsql_error_clear(&local);
        if (rsql_catalog_job_get(s->cat, st->name.name, &job, &local) != RSQL_OK) {
            return rsql_error_set(err, local.code, st->name.pos, "%s", local.msg);
        }
        if (!job) {
            return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, st->name.pos, "no such job: %s",
                                  st->name.name);
        }
        rsql_job_def_free(job);
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, st->pos,
                              "this build cannot run pipelines yet (the pipeline runtime is "
                              "not built in)");
    }
    rsql_plan_t *plan = rsql_plan_build(s->cat, st, sql, s->settings, err);
    if (!plan) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    rsql_plan_destroy(plan);
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, st->pos,
                          "this build cannot run pipelines yet (the pipeline runtime is not "
                          "built in)");
}

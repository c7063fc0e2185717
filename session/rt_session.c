/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The statement executor: dispatches each parsed statement to the catalog
 * (DDL, jobs), the settings, the planner (EXPLAIN) or the runtime (INSERT,
 * SELECT previews, RUN JOB). SHOW/DESCRIBE results are built in
 * rt_show.c; scripts are driven by rt_script.c.
 */
#include "config.h"
#include "session/rsql_session.h"
#include "session/rt_int.h"
#include "catalog/rsql_catalog.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_settings.h"
#include "planner/rsql_plan.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

rsql_session_t *rsql_session_new(const char *catalog_path, rsql_error_t *err)
{
    rsql_session_t *s = rsql_calloc(1, sizeof(*s));
    if (!s) {
        rsql_error_nomem(err);
        return NULL;
    }
    s->cat = rsql_catalog_open(catalog_path, err);
    if (!s->cat) {
        rsql_free(s);
        return NULL;
    }
    s->settings = rsql_settings_new();
    if (!s->settings) {
        rsql_catalog_close(s->cat);
        rsql_free(s);
        rsql_error_nomem(err);
        return NULL;
    }
    return s;
}

void rsql_session_destroy(rsql_session_t *s)
{
    if (!s) {
        return;
    }
    rsql_settings_destroy(s->settings);
    rsql_catalog_close(s->cat);
    rsql_free(s);
}

int rsql_session_last_job_failed(const rsql_session_t *s)
{
    return s->job_failed;
}

/*
** Re-raise an error that came without a position (catalog, registry) at pos.
*/
static rsql_err_t reposition(rsql_error_t *err, const rsql_error_t *local, rsql_pos_t pos)
{
    if (local->pos.off == RSQL_POS_NONE) {
        return rsql_error_set(err, local->code, pos, "%s", local->msg);
    }
    rsql_error_copy(err, local);
    return local->code;
}

/*
** *out = a new status result with the formatted text. Made before a statement
** changes anything, so RSQL_ERR_NOMEM (with *out NULL) means nothing changed.
*/
static rsql_err_t status_new(rsql_result_t **out, rsql_error_t *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static rsql_err_t status_new(rsql_result_t **out, rsql_error_t *err, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    *out = rsql_result_new(RSQL_RESULT_STATUS);
    if (!*out || rsql_result_set_status(*out, "%s", text) != RSQL_OK) {
        rsql_result_destroy(*out);
        *out = NULL;
        return rsql_error_nomem(err);
    }
    return RSQL_OK;
}

/* ---- CREATE TABLE */

static rsql_err_t exec_create_table(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                                    rsql_result_t **out, rsql_error_t *err)
{
    rsql_err_t rc = RSQL_OK;
    rsql_table_def_t def = {0};
    rsql_opt_kv_t *kvs = NULL;
    const char **names = NULL;
    rsql_type_t *types = NULL;
    rsql_optset_t *set = NULL;
    const rsql_connector_def_t *conn = NULL;
    int n_phys = 0;

    if (st->n_columns == 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, st->name.pos,
                              "table '%s' must have at least one column", st->name.name);
    }
    names = rsql_calloc((size_t)st->n_columns, sizeof(char *));
    types = rsql_calloc((size_t)st->n_columns, sizeof(rsql_type_t));
    kvs = rsql_calloc((size_t)(st->n_options ? st->n_options : 1), sizeof(*kvs));
    def.columns = rsql_calloc((size_t)st->n_columns, sizeof(rsql_col_t));
    def.options = rsql_calloc((size_t)(st->n_options ? st->n_options : 1), sizeof(rsql_kv_t));
    if (!names || !types || !kvs || !def.columns || !def.options) {
        rc = rsql_error_nomem(err);
        goto done;
    }
    for (int i = 0; i < st->n_columns; i++) {
        const rsql_column_def_t *c = &st->columns[i];
        for (int j = 0; j < i; j++) {
            if (strcasecmp(st->columns[j].name.name, c->name.name) == 0) {
                rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, c->name.pos,
                                    "duplicate column name '%s'", c->name.name);
                goto done;
            }
        }
        if (c->computed) { /* name AS expr: typed below, once every column is known */
            if (!c->computed_text) {
                rc = rsql_error_nomem(err);
                goto done;
            }
            def.columns[i].name = (char *)c->name.name;
            def.columns[i].expr = (char *)c->computed_text;
            def.columns[i].type = RSQL_TYPE_NULL;
            continue;
        }
        if (c->type.type == RSQL_TYPE_TIMESTAMP && c->type.precision >= 0 &&
            c->type.precision != 3) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, c->type.pos,
                                "TIMESTAMP(%d) is not supported; use TIMESTAMP(3) "
                                "(millisecond precision)",
                                c->type.precision);
            goto done;
        }
        def.columns[i].name = (char *)c->name.name;
        def.columns[i].type = c->type.type;
        def.columns[i].not_null = c->not_null;
        def.columns[i].desc = c->type.desc;
        def.columns[i].metadata = c->metadata;
        def.columns[i].meta_from = (char *)c->meta_from;
        def.columns[i].is_virtual = c->is_virtual;
        if (!c->metadata) { /* the connector and its format see the physical columns only */
            names[n_phys] = c->name.name;
            types[n_phys++] = c->type.type;
        }
    }
    def.n_columns = st->n_columns;
    def.name = (char *)st->name.name; /* a computed column may qualify a column by it */
    for (int i = 0; i < st->n_columns; i++) {
        if (st->columns[i].computed &&
            (rc = rsql_plan_computed_type(&def, st->columns[i].computed, NULL,
                                          &def.columns[i].type, &def.columns[i].desc, err)) !=
                RSQL_OK) {
            goto done;
        }
    }
    for (int k = 0; k < st->n_pkey; k++) {
        const rsql_ident_t *kc = &st->pkey[k];
        int i = 0;
        while (i < st->n_columns && strcasecmp(st->columns[i].name.name, kc->name) != 0) {
            i++;
        }
        if (i == st->n_columns) {
            rc = rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, kc->pos,
                                "PRIMARY KEY column '%s' is not a column of table '%s'",
                                kc->name, st->name.name);
            goto done;
        }
        if (st->columns[i].computed) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, kc->pos,
                                "PRIMARY KEY column '%s' is a computed column; the key is made "
                                "of columns of the body",
                                kc->name);
            goto done;
        }
        if (st->columns[i].metadata) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, kc->pos,
                                "PRIMARY KEY column '%s' is a METADATA column; the key is made "
                                "of columns of the body",
                                kc->name);
            goto done;
        }
        if (def.columns[i].pk_ord) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, kc->pos,
                                "column '%s' appears twice in PRIMARY KEY", kc->name);
            goto done;
        }
        def.columns[i].pk_ord = k + 1;
    }
    /* WATERMARK FOR col AS expr: kept on its column (the planner checked it) */
    if ((rc = rsql_plan_watermark_check(&def, st->columns, st->n_columns, st->watermarks,
                                        st->n_watermarks, sql, err)) != RSQL_OK) {
        goto done;
    }
    for (int i = 0; i < st->n_watermarks; i++) {
        for (int j = 0; j < def.n_columns; j++) {
            if (strcasecmp(def.columns[j].name, st->watermarks[i].column.name) == 0) {
                def.columns[j].watermark = (char *)st->watermarks[i].text;
            }
        }
    }
    for (int i = 0; i < st->n_options; i++) {
        kvs[i].key = st->options[i].key;
        kvs[i].value = st->options[i].value;
        kvs[i].key_pos = st->options[i].key_pos;
        kvs[i].value_pos = st->options[i].value_pos;
        def.options[i].key = (char *)st->options[i].key;
        def.options[i].value = (char *)st->options[i].value;
    }
    def.n_options = st->n_options;
    set = rsql_connector_validate(kvs, st->n_options, names, n_phys, st->name.pos, &conn, err);
    if (!set) {
        rc = err ? err->code : RSQL_ERR_BAD_OPTION;
        goto done;
    }
    const rsql_format_def_t *fmt = rsql_connector_format(conn, set);
    for (int i = 0; i < st->n_columns; i++) {
        const rsql_column_def_t *c = &st->columns[i];
        if (c->metadata && !c->computed &&
            (rc = rsql_connector_check_meta_in(conn, fmt ? fmt->name : NULL, c->name.name,
                                               c->type.type, c->type.desc,
                                               c->meta_from ? c->meta_from : c->name.name,
                                               c->is_virtual, c->meta_pos, c->type.pos,
                                               c->virtual_pos, err)) != RSQL_OK) {
            goto done;
        }
    }
    if (n_phys == 0) {
        rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, st->name.pos,
                            "table '%s' must have at least one column that is neither METADATA "
                            "nor computed",
                            st->name.name);
        goto done;
    }
    /* with a ${env:...} / ${file:...} reference pending, the planner checks the columns */
    rc = rsql_optset_pending(set) ? RSQL_OK
                                  : rsql_connector_check_columns(conn, set, st->name.name, n_phys,
                                                                 names, types, st->name.pos, err);
    if (rc != RSQL_OK) {
        goto done;
    }
    def.name = (char *)st->name.name;
    def.connector = (char *)conn->name;
    bool kept = false;
    if (st->if_not_exists) { /* say so when an existing table is kept */
        rsql_table_def_t *old = NULL;
        rsql_error_t e;
        rsql_error_clear(&e);
        kept = rsql_catalog_table_get(s->cat, st->name.name, &old, &e) == RSQL_OK && old;
        rsql_table_def_free(old);
    }
    rc = kept ? status_new(out, err, "table %s already exists; kept it (IF NOT EXISTS)",
                           st->name.name)
              : status_new(out, err, "created table %s", st->name.name);
    if (rc != RSQL_OK) {
        goto done;
    }
    rsql_error_t local;
    rsql_error_clear(&local);
    rc = rsql_catalog_table_create(s->cat, &def, st->if_not_exists, &local);
    if (rc != RSQL_OK) {
        reposition(err, &local, st->name.pos);
        rsql_result_destroy(*out);
        *out = NULL;
    }
done:
    rsql_optset_destroy(set);
    rsql_free(names);
    rsql_free(types);
    rsql_free(kvs);
    rsql_free(def.columns);
    rsql_free(def.options);
    return rc;
}

static rsql_err_t status_result(rsql_result_t **out, rsql_error_t *err, const char *verb,
                                const char *what, const char *name)
{
    return status_new(out, err, "%s%s%s %s", verb, *what ? " " : "", what, name);
}

static rsql_err_t exec_drop(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                            rsql_error_t *err)
{
    bool dropped = false;
    bool is_job = st->kind == RSQL_STMT_DROP_JOB;
    const char *what = is_job ? "job" : "table";
    rsql_err_t rc = status_result(out, err, "dropped", what, st->name.name);
    if (rc != RSQL_OK) {
        return rc;
    }
    rsql_error_t local;
    rsql_error_clear(&local);
    rc = is_job ? rsql_catalog_job_drop(s->cat, st->name.name, &dropped, &local)
                : rsql_catalog_table_drop(s->cat, st->name.name, &dropped, &local);
    if (rc != RSQL_OK || dropped) {
        if (rc != RSQL_OK) {
            rsql_result_destroy(*out);
            *out = NULL;
            reposition(err, &local, st->name.pos);
        }
        return rc;
    }
    /* nothing was dropped: nothing changed, so a failure here leaves no trace */
    rsql_result_destroy(*out);
    *out = NULL;
    if (!st->if_exists) {
        return rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, st->name.pos, "no such %s: %s", what,
                              st->name.name);
    }
    return status_result(out, err, "nothing to drop: no such", what, st->name.name);
}

/* ---- settings */

static rsql_err_t exec_set(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                           rsql_error_t *err)
{
    const rsql_option_t *o = &st->setting;
    rsql_err_t rc = status_new(out, err, "set %s = '%s'", o->key, o->value);
    if (rc == RSQL_OK) {
        rc = rsql_settings_set(s->settings, o->key, o->value, o->key_pos, o->value_pos, err);
    }
    if (rc != RSQL_OK) {
        rsql_result_destroy(*out);
        *out = NULL;
    }
    return rc;
}

static rsql_err_t exec_reset(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                             rsql_error_t *err)
{
    const char *key = st->has_setting ? st->setting.key : NULL;
    rsql_err_t rc = status_result(out, err, "reset", key ? "" : "all", key ? key : "settings");
    if (rc == RSQL_OK) {
        rc = rsql_settings_reset(s->settings, key, st->setting.key_pos, err);
    }
    if (rc != RSQL_OK) {
        rsql_result_destroy(*out);
        *out = NULL;
    }
    return rc;
}

/* RESET POSITIONS name: the next run of name (a job, 'insert:<source>-><sink>') starts over. */
static rsql_err_t exec_reset_positions(rsql_session_t *s, const rsql_stmt_t *st,
                                       rsql_result_t **out, rsql_error_t *err)
{
    int n = 0;
    rsql_error_t local;
    rsql_error_clear(&local);
    rsql_err_t rc = rsql_catalog_positions_forget(s->cat, st->setting.key, &n, &local);
    if (rc != RSQL_OK) {
        return rsql_error_set(err, rc, st->setting.key_pos,
                              "cannot forget the positions of '%s': %s", st->setting.key,
                              local.msg);
    }
    return status_new(out, err,
                      "forgot the positions of %s (%d saved); its next run starts from the "
                      "beginning",
                      st->setting.key, n);
}

/* ---- EXPLAIN */

/* EXPLAIN INSERT: whether a run would resume (the positions saved in the catalog) and how not. */
static rsql_err_t explain_resume(rsql_session_t *s, const rsql_plan_t *plan, rsql_buf_t *buf,
                                 rsql_error_t *err)
{
    if (plan->kind == RSQL_PLAN_SELECT || !plan->sink.def || !plan->source.def) {
        return RSQL_OK;
    }
    const rsql_source_ops_t *ops = plan->source.conn ? plan->source.conn->source : NULL;
    if (ops && ops->manages_own_positions) {
        rsql_buf_puts(buf, "Resume: the source keeps its own positions (its consumer group)\n");
        return RSQL_OK;
    }
    char *base = NULL, *key = NULL;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "insert:%s->%s", plan->source.def->name, plan->sink.def->name);
    base = rsql_buf_steal(&b);
    if (!base) {
        return rsql_error_nomem(err);
    }
    rsql_kv_t *kv = NULL;
    int n = 0;
    rsql_err_t rc = rsql_catalog_position_key(s->cat, base, plan->source.def->name,
                                              plan->sink.def->name, &key, NULL, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog_offset_list(s->cat, key, &kv, &n, err);
    }
    /* with state, a run resumes from the catalog's positions only (its state goes with them) */
    bool state = rsql_plan_has_state(plan);
    bool own_rows = plan->sink.conn &&
                    rsql_connector_exactly_once(
                        plan->sink.conn, rsql_optset_conf(plan->sink.opts, RSQL_CONF_CONNECTOR)) &&
                    !state;
    if (rc == RSQL_OK && n == 0 && own_rows) {
        rsql_buf_printf(buf,
                        "Resume: no positions of %s in the catalog; a run resumes after what the "
                        "%s sink holds of it (its stored positions), else from the beginning "
                        "(RESET POSITIONS '%s' starts over)\n",
                        base, plan->sink.conn->name, base);
    } else if (rc == RSQL_OK && n == 0) {
        rsql_buf_printf(buf, "Resume: no saved positions for %s; a run starts from the beginning\n",
                        base);
    } else if (rc == RSQL_OK) {
        rsql_buf_printf(buf, "Resume: a run resumes where %s left off:", base);
        for (int i = 0; i < n && i < 3; i++) {
            int64_t off;
            const char *text;
            const char *v = kv[i].value ? kv[i].value : "";
            if (rsql_io_position_parse(v, strlen(v), &off, &text) && text) {
                rsql_buf_printf(buf, "%s %s at %" PRId64 " (%.64s)", i ? "," : "", kv[i].key,
                                off, text); /* as the run says it (rsql_pipeline__resume_note) */
            } else {
                rsql_buf_printf(buf, "%s %s at %s", i ? "," : "", kv[i].key, v);
            }
        }
        if (n > 3) {
            rsql_buf_printf(buf, " and %d more", n - 3);
        }
        rsql_buf_printf(buf, " (RESET POSITIONS '%s' starts over)\n", base);
    }
    if (rc == RSQL_OK && state) {
        rsql_buf_printf(buf, "State: the %s's state is saved with the catalog's "
                           "positions; a run resumes from them (not from positions a sink "
                           "stored with its rows, which may be further: rows after them are "
                           "written again, the same rows, which a sink by key applies once)\n",
                        plan->agg ? "aggregation" : "deduplication");
    }
    rsql_kv_array_free(kv, n);
    rsql_free(key);
    rsql_free(base);
    return rc;
}

static rsql_err_t exec_explain(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                               rsql_result_t **out, rsql_error_t *err)
{
    rsql_plan_t *plan = rsql_plan_build(s->cat, st->inner, sql, s->settings, err);
    if (!plan) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    rsql_buf_t buf = RSQL_BUF_INIT;
    rsql_err_t rc = rsql_plan_explain(plan, &buf);
    if (rc == RSQL_OK) {
        rc = explain_resume(s, plan, &buf, err);
    }
    rsql_plan_destroy(plan);
    if (rc == RSQL_OK && buf.oom) {
        rc = RSQL_ERR_NOMEM;
    }
    if (rc == RSQL_OK) {
        *out = rsql_result_new(RSQL_RESULT_LINES);
        if (!*out || rsql_result_add_lines(*out, rsql_buf_str(&buf)) != RSQL_OK) {
            rc = RSQL_ERR_NOMEM;
        }
    }
    rsql_buf_deinit(&buf);
    if (rc != RSQL_OK) {
        rsql_result_destroy(*out);
        *out = NULL;
        return rsql_error_set(err, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
    }
    return RSQL_OK;
}

/* ---- jobs */

static rsql_err_t exec_create_job(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                                  rsql_result_t **out, rsql_error_t *err)
{
    /* Plan now, so a job that cannot run is refused at CREATE with the error's place. */
    rsql_plan_t *plan = rsql_plan_build(s->cat, st->inner, sql, s->settings, err);
    if (!plan) {
        return err ? err->code : RSQL_ERR_INTERNAL;
    }
    rsql_plan_destroy(plan);

    /* The settings captured with the job: the job-level ones set in this session. */
    rsql_opt_kv_t kvs[64];
    int n = rsql_settings_export(s->settings, true, kvs, 64);
    rsql_kv_t settings[64];
    for (int i = 0; i < n && i < 64; i++) {
        settings[i].key = (char *)kvs[i].key;
        settings[i].value = (char *)kvs[i].value;
    }
    rsql_job_def_t def = {0};
    def.name = (char *)st->name.name;
    def.sql = rsql_strndup(sql + st->inner->pos.off, st->inner->pos.len);
    def.settings = settings;
    def.n_settings = n < 64 ? n : 64;
    if (!def.sql) {
        return rsql_error_nomem(err);
    }
    bool kept = false;
    if (st->if_not_exists) { /* say so when an existing job is kept */
        rsql_job_def_t *old = NULL;
        rsql_error_t e;
        rsql_error_clear(&e);
        kept = rsql_catalog_job_get(s->cat, st->name.name, &old, &e) == RSQL_OK && old;
        rsql_job_def_free(old);
    }
    rsql_err_t rc = kept ? status_new(out, err, "job %s already exists; kept it (IF NOT EXISTS)",
                                      st->name.name)
                         : status_result(out, err, "created", "job", st->name.name);
    if (rc == RSQL_OK) {
        rsql_error_t local;
        rsql_error_clear(&local);
        rc = rsql_catalog_job_create(s->cat, &def, st->if_not_exists, &local);
        if (rc != RSQL_OK) {
            reposition(err, &local, st->name.pos);
            rsql_result_destroy(*out);
            *out = NULL;
        }
    }
    rsql_free(def.sql);
    return rc;
}

rsql_err_t rsql_session_exec(rsql_session_t *s, const rsql_stmt_t *st, const char *sql,
                             rsql_result_t **out, rsql_error_t *err)
{
    *out = NULL;
    s->job_failed = 0;
    switch (st->kind) {
    case RSQL_STMT_CREATE_TABLE: return exec_create_table(s, st, sql, out, err);
    case RSQL_STMT_DROP_TABLE:
    case RSQL_STMT_DROP_JOB: return exec_drop(s, st, out, err);
    case RSQL_STMT_SHOW_TABLES: return rsql_rt__show_tables(s, out, err);
    case RSQL_STMT_DESCRIBE: return rsql_rt__describe(s, st, out, err);
    case RSQL_STMT_SHOW_CREATE_TABLE: return rsql_rt__show_create(s, st, out, err);
    case RSQL_STMT_SHOW_CONNECTORS: return rsql_rt__show_connectors(out, err);
    case RSQL_STMT_SHOW_OPTIONS: return rsql_rt__show_options(st, out, err);
    case RSQL_STMT_SHOW_METADATA: return rsql_rt__show_metadata(st, out, err);
    case RSQL_STMT_SET:
        if (!st->has_setting) {
            return rsql_rt__show_settings(s, out, err);
        }
        return exec_set(s, st, out, err);
    case RSQL_STMT_RESET: return exec_reset(s, st, out, err);
    case RSQL_STMT_RESET_POSITIONS: return exec_reset_positions(s, st, out, err);
    case RSQL_STMT_SHOW_SETTINGS: return rsql_rt__show_settings(s, out, err);
    case RSQL_STMT_EXPLAIN: return exec_explain(s, st, sql, out, err);
    case RSQL_STMT_CREATE_JOB: return exec_create_job(s, st, sql, out, err);
    case RSQL_STMT_SHOW_JOBS: return rsql_rt__show_jobs(s, out, err);
    case RSQL_STMT_SHOW_JOB_RUNS: return rsql_rt__show_job_runs(s, st, out, err);
    case RSQL_STMT_INSERT:
    case RSQL_STMT_SELECT:
    case RSQL_STMT_RUN_JOB: return rsql_rt__run(s, st, sql, out, err);
    }
    return rsql_error_set(err, RSQL_ERR_INTERNAL, st->pos, "unhandled statement");
}

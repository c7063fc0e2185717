/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Result sets of the SHOW statements and DESCRIBE: tables, columns, the
 * CREATE TABLE text (secrets masked), connectors and their options (read
 * from the same option tables that validate CREATE TABLE), settings, jobs
 * and job runs (times in the TIMESTAMP text of base/rsql_value.h).
 */
#include "config.h"
#include "session/rt_int.h"
#include "catalog/rsql_catalog.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_settings.h"
#include "base/rsql_value.h"
#include "planner/rsql_plan.h"
#include "sql/rsql_sql.h"

#include <stdio.h>
#include <string.h>

static rsql_result_t *table_result(int n, const char *const *cols)
{
    rsql_result_t *r = rsql_result_new(RSQL_RESULT_TABLE);
    if (r && rsql_result_set_cols(r, n, cols) != RSQL_OK) {
        rsql_result_destroy(r);
        r = NULL;
    }
    return r;
}

/* Look a table up; missing -> "no such table: x" at the name. */
static rsql_err_t get_table(rsql_session_t *s, const rsql_ident_t *name, rsql_table_def_t **def,
                            rsql_error_t *err)
{
    rsql_error_t local;
    rsql_error_clear(&local);
    if (rsql_catalog_table_get(s->cat, name->name, def, &local) != RSQL_OK) {
        return rsql_error_set(err, local.code, name->pos, "%s", local.msg);
    }
    if (!*def) {
        return rsql_plan_no_such_table(s->cat, name->name, name->pos, err);
    }
    return RSQL_OK;
}

rsql_err_t rsql_rt__show_tables(rsql_session_t *s, rsql_result_t **out, rsql_error_t *err)
{
    char **names = NULL;
    int n = 0;
    rsql_err_t rc = rsql_catalog_table_list(s->cat, &names, &n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    static const char *const cols[] = {"name", "connector", "columns"};
    rsql_result_t *r = table_result(3, cols);
    for (int i = 0; r && i < n; i++) {
        rsql_table_def_t *def = NULL;
        if (rsql_catalog_table_get(s->cat, names[i], &def, err) != RSQL_OK || !def) {
            continue;
        }
        char ncols[16];
        snprintf(ncols, sizeof(ncols), "%d", def->n_columns);
        const char *row[] = {def->name, def->connector, ncols};
        if (rsql_result_add_row(r, row) != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
        rsql_table_def_free(def);
    }
    rsql_strv_free(names, n);
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

static void put_string(rsql_buf_t *b, const char *s)
{
    rsql_buf_putc(b, '\'');
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            rsql_buf_putc(b, '\'');
        }
        rsql_buf_putc(b, *p);
    }
    rsql_buf_putc(b, '\'');
}

/* " METADATA [FROM 'key'] [VIRTUAL]" of a METADATA column, " AS expr" of a computed one, as
   CREATE TABLE takes them. */
static void put_meta(rsql_buf_t *b, const rsql_col_t *c)
{
    if (c->expr) {
        rsql_buf_printf(b, " AS %s", c->expr);
        return;
    }
    if (!c->metadata) {
        return;
    }
    rsql_buf_puts(b, " METADATA");
    if (c->meta_from) {
        rsql_buf_puts(b, " FROM ");
        put_string(b, c->meta_from);
    }
    if (c->is_virtual) {
        rsql_buf_puts(b, " VIRTUAL");
    }
}

rsql_err_t rsql_rt__describe(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                             rsql_error_t *err)
{
    rsql_table_def_t *def = NULL;
    rsql_err_t rc = get_table(s, &st->name, &def, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    /* the key column only for a table with PRIMARY KEY (...) NOT ENFORCED, the watermark
       column (Flink's DESCRIBE has one) only for a table with a WATERMARK */
    static const char *const names[] = {"column", "type", "nullable", "key", "extras",
                                        "watermark"};
    bool has_key = false, has_wm = false;
    for (int i = 0; i < def->n_columns; i++) {
        has_key = has_key || def->columns[i].pk_ord > 0;
        has_wm = has_wm || def->columns[i].watermark;
    }
    const char *heads[6];
    int nh = 0;
    for (int k = 0; k < 6; k++) {
        if ((k != 3 || has_key) && (k != 5 || has_wm)) {
            heads[nh++] = names[k];
        }
    }
    rsql_result_t *r = table_result(nh, heads);
    for (int i = 0; r && i < def->n_columns; i++) {
        rsql_buf_t extras = RSQL_BUF_INIT;
        put_meta(&extras, &def->columns[i]);
        char key[32] = "";
        if (def->columns[i].pk_ord) {
            snprintf(key, sizeof key, "PRI(%d)", def->columns[i].pk_ord);
        }
        const char *type = def->columns[i].desc ? def->columns[i].desc->text
                                                : rsql_type_name(def->columns[i].type);
        const char *nullable = def->columns[i].not_null ? "NO" : "YES";
        const char *ex = extras.oom ? "" : rsql_buf_str(&extras) + (extras.len > 0);
        const char *all[] = {def->columns[i].name, type, nullable, key, ex,
                             def->columns[i].watermark ? def->columns[i].watermark : ""};
        const char *row[6];
        for (int k = 0, n = 0; k < 6; k++) {
            if ((k != 3 || has_key) && (k != 5 || has_wm)) {
                row[n++] = all[k];
            }
        }
        rsql_err_t arc = rsql_result_add_row(r, row);
        rsql_buf_deinit(&extras);
        if (arc != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
    }
    rsql_table_def_free(def);
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

rsql_err_t rsql_rt__show_create(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                                rsql_error_t *err)
{
    rsql_table_def_t *def = NULL;
    rsql_err_t rc = get_table(s, &st->name, &def, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    const rsql_connector_def_t *conn = rsql_connector_find(def->connector);
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, "CREATE TABLE ");
    rsql_sql_put_ident(&b, def->name);
    rsql_buf_puts(&b, " (\n");
    int n_key = 0, wm = -1; /* wm: the event-time column (WATERMARK FOR), or -1 */
    for (int i = 0; i < def->n_columns; i++) {
        n_key += def->columns[i].pk_ord > 0;
        wm = def->columns[i].watermark ? i : wm;
    }
    int more = n_key + (wm >= 0); /* clauses after the columns */
    for (int i = 0; i < def->n_columns; i++) {
        rsql_buf_puts(&b, "  ");
        rsql_sql_put_ident(&b, def->columns[i].name);
        if (def->columns[i].expr) {
            put_meta(&b, &def->columns[i]);
            rsql_buf_puts(&b, i + 1 < def->n_columns || more ? ",\n" : "\n");
            continue;
        }
        rsql_buf_printf(&b, " %s%s", def->columns[i].desc ? def->columns[i].desc->text
                                                : rsql_type_name(def->columns[i].type),
                        def->columns[i].not_null ? " NOT NULL" : "");
        put_meta(&b, &def->columns[i]);
        rsql_buf_puts(&b, i + 1 < def->n_columns || more ? ",\n" : "\n");
    }
    if (wm >= 0) {
        rsql_buf_puts(&b, "  WATERMARK FOR ");
        rsql_sql_put_ident(&b, def->columns[wm].name);
        rsql_buf_printf(&b, " AS %s%s", def->columns[wm].watermark, n_key ? ",\n" : "\n");
    }
    if (n_key) {
        rsql_buf_puts(&b, "  PRIMARY KEY (");
        for (int k = 1; k <= n_key; k++) {
            for (int i = 0; i < def->n_columns; i++) {
                if (def->columns[i].pk_ord == k) {
                    rsql_buf_puts(&b, k > 1 ? ", " : "");
                    rsql_sql_put_ident(&b, def->columns[i].name);
                }
            }
        }
        rsql_buf_puts(&b, ") NOT ENFORCED\n");
    }
    rsql_buf_puts(&b, ") WITH (\n");
    for (int i = 0; i < def->n_options; i++) {
        rsql_buf_puts(&b, "  ");
        put_string(&b, def->options[i].key);
        rsql_buf_puts(&b, " = ");
        rsql_buf_t v = RSQL_BUF_INIT;
        rsql_connector_put_shown(&v, conn, def->options[i].key, def->options[i].value);
        b.oom |= v.oom;
        put_string(&b, rsql_buf_str(&v));
        rsql_buf_deinit(&v);
        rsql_buf_puts(&b, i + 1 < def->n_options ? ",\n" : "\n");
    }
    rsql_buf_puts(&b, ")");
    rsql_table_def_free(def);
    rsql_result_t *r = b.oom ? NULL : rsql_result_new(RSQL_RESULT_LINES);
    if (r && rsql_result_add_lines(r, rsql_buf_str(&b)) != RSQL_OK) {
        rsql_result_destroy(r);
        r = NULL;
    }
    rsql_buf_deinit(&b);
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

static const char *caps_text(unsigned caps)
{
    if ((caps & RSQL_CAP_SOURCE) && (caps & RSQL_CAP_SINK)) {
        return "source, sink";
    }
    return (caps & RSQL_CAP_SOURCE) ? "source" : "sink";
}

rsql_err_t rsql_rt__show_connectors(rsql_result_t **out, rsql_error_t *err)
{
    static const char *const cols[] = {"connector", "sides", "formats", "description"};
    rsql_result_t *r = table_result(4, cols);
    if (r) {
        r->wrap_last = true;
    }
    const rsql_connector_def_t *const *list = rsql_connector_list();
    for (int i = 0; r && list[i]; i++) {
        rsql_buf_t f = RSQL_BUF_INIT;
        for (int j = 0; list[i]->formats && list[i]->formats[j]; j++) {
            rsql_buf_printf(&f, "%s%s", j ? ", " : "", list[i]->formats[j]);
        }
        const char *row[] = {list[i]->name, caps_text(list[i]->caps), rsql_buf_str(&f),
                             list[i]->description};
        if (f.oom || rsql_result_add_row(r, row) != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
        rsql_buf_deinit(&f);
    }
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

static const char *side_text(unsigned flags)
{
    if (flags & RSQL_OPT_F_SOURCE) {
        return "source";
    }
    if (flags & RSQL_OPT_F_LOOKUP) {
        return "lookup";
    }
    return (flags & RSQL_OPT_F_SINK) ? "sink" : "both";
}

/* One row per visible option; the description carries the same facts as docs/CONNECTORS.md. */
static rsql_err_t add_option_rows(rsql_result_t *r, const char *owner, const rsql_opt_def_t *t)
{
    for (int i = 0; t && t[i].name; i++) {
        if (t[i].flags & RSQL_OPT_F_HIDDEN) {
            continue;
        }
        rsql_buf_t doc = RSQL_BUF_INIT;
        rsql_buf_puts(&doc, t[i].doc ? t[i].doc : "");
        rsql_opts_facts(&t[i], &doc);
        const char *row[] = {owner,
                             t[i].name,
                             side_text(t[i].flags),
                             rsql_opt_type_name(t[i].type),
                             !t[i].def ? "" : *t[i].def ? t[i].def : "(empty)",
                             rsql_opts_required_text(&t[i]),
                             rsql_buf_str(&doc)};
        rsql_err_t rc = doc.oom ? RSQL_ERR_NOMEM : rsql_result_add_row(r, row);
        rsql_buf_deinit(&doc);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return RSQL_OK;
}

/* RSQL_ERR_UNKNOWN_NAME for connector name (SHOW OPTIONS / SHOW METADATA), at pos. */
static rsql_err_t no_such_connector(const char *name, rsql_pos_t pos, rsql_error_t *err)
{
    rsql_buf_t list = RSQL_BUF_INIT;
    const rsql_connector_def_t *const *all = rsql_connector_list();
    for (int i = 0; all[i]; i++) {
        rsql_buf_printf(&list, "%s%s", i ? ", " : "", all[i]->name);
    }
    rsql_error_set(err, RSQL_ERR_UNKNOWN_NAME, pos, "unknown connector '%s'; connectors: %s", name,
                   rsql_buf_str(&list));
    rsql_buf_deinit(&list);
    return RSQL_ERR_UNKNOWN_NAME;
}

/* SHOW METADATA FOR CONNECTOR 'name': the connector's metadata key table. */
rsql_err_t rsql_rt__show_metadata(const rsql_stmt_t *st, rsql_result_t **out, rsql_error_t *err)
{
    const rsql_connector_def_t *conn = rsql_connector_find(st->setting.value);
    if (!conn) {
        return no_such_connector(st->setting.value, st->setting.value_pos, err);
    }
    static const char *const cols[] = {"key", "type", "read", "write", "description"};
    rsql_result_t *r = table_result(5, cols);
    if (r) {
        r->wrap_last = true;
    }
    for (const rsql_meta_def_t *m = conn->metadata; r && m && m->key; m++) {
        const char *row[] = {m->key, m->type, (m->flags & RSQL_META_READ) ? "yes" : "no",
                             (m->flags & RSQL_META_WRITE) ? "yes" : "no", m->doc ? m->doc : ""};
        if (rsql_result_add_row(r, row) != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
    }
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

rsql_err_t rsql_rt__show_options(const rsql_stmt_t *st, rsql_result_t **out, rsql_error_t *err)
{
    const char *name = st->setting.value;
    const rsql_connector_def_t *conn = rsql_connector_find(name);
    if (!conn) {
        return no_such_connector(name, st->setting.value_pos, err);
    }
    static const char *const cols[] = {"from", "option", "side", "type",
                                       "default", "required", "description"};

    rsql_result_t *r = table_result(7, cols);
    if (r) {
        r->wrap_last = true;
    }
    rsql_err_t rc = r ? add_option_rows(r, conn->name, conn->opts) : RSQL_ERR_NOMEM;
    for (int i = 0; rc == RSQL_OK && conn->formats && conn->formats[i]; i++) {
        const rsql_format_def_t *f = rsql_format_find(conn->formats[i]);
        if (f) {
            rc = add_option_rows(r, f->name, f->opts);
        }
    }
    if (rc == RSQL_OK && conn->lookup) {
        rc = add_option_rows(r, "lookup", rsql_lookup_opts);
    }
    if (rc != RSQL_OK) {
        rsql_result_destroy(r);
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

rsql_err_t rsql_rt__show_settings(rsql_session_t *s, rsql_result_t **out, rsql_error_t *err)
{
    static const char *const cols[] = {"setting", "value", "default", "description"};
    rsql_result_t *r = table_result(4, cols);
    if (r) {
        r->wrap_last = true;
    }
    int n = rsql_settings_count();
    for (int i = 0; r && i < n; i++) {
        rsql_setting_info_t info;
        rsql_settings_info(s->settings, i, &info);
        const char *row[] = {info.key, info.value ? info.value : "",
                             info.def ? info.def : "",
                             info.row && info.row->doc ? info.row->doc : ""};
        if (rsql_result_add_row(r, row) != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
    }
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

/* A catalog time (ms since the epoch, 0 = not set) as TIMESTAMP text, into buf. */
static void fmt_time(int64_t ms, char buf[RSQL_VALUE_TEXT_MAX])
{
    if (ms <= 0) {
        buf[0] = '\0';
        return;
    }
    rsql_value_format_timestamp(ms, buf);
}

rsql_err_t rsql_rt__show_jobs(rsql_session_t *s, rsql_result_t **out, rsql_error_t *err)
{
    rsql_job_def_t **jobs = NULL;
    int n = 0;
    rsql_err_t rc = rsql_catalog_job_list(s->cat, &jobs, &n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    static const char *const cols[] = {"job", "statement", "settings", "created"};
    rsql_result_t *r = table_result(4, cols);
    for (int i = 0; r && i < n; i++) {
        rsql_buf_t set = RSQL_BUF_INIT;
        for (int j = 0; j < jobs[i]->n_settings; j++) {
            rsql_buf_printf(&set, "%s%s=%s", j ? ", " : "", jobs[i]->settings[j].key,
                            jobs[i]->settings[j].value);
        }
        char created[RSQL_VALUE_TEXT_MAX];
        fmt_time(jobs[i]->created_ms, created);
        const char *row[] = {jobs[i]->name, jobs[i]->sql, rsql_buf_str(&set), created};
        if (set.oom || rsql_result_add_row(r, row) != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
        rsql_buf_deinit(&set);
    }
    for (int i = 0; i < n; i++) {
        rsql_job_def_free(jobs[i]);
    }
    rsql_free(jobs);
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

rsql_err_t rsql_rt__show_job_runs(rsql_session_t *s, const rsql_stmt_t *st, rsql_result_t **out,
                                  rsql_error_t *err)
{
    rsql_job_run_t **runs = NULL;
    int n = 0;
    rsql_err_t rc = rsql_catalog_run_list(s->cat, st->name.name, 0, &runs, &n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    static const char *const cols[] = {"run", "job", "started", "ended", "status", "read",
                                       "written", "filtered", "dead_lettered", "failed",
                                       "error", "detail", "resumed_from"};
    rsql_result_t *r = table_result(13, cols);
    for (int i = 0; r && i < n; i++) {
        const rsql_job_run_t *run = runs[i];
        char id[24], c[5][24], start[RSQL_VALUE_TEXT_MAX], end[RSQL_VALUE_TEXT_MAX];
        snprintf(id, sizeof(id), "%lld", (long long)run->id);
        snprintf(c[0], sizeof(c[0]), "%lld", (long long)run->counts.read);
        snprintf(c[1], sizeof(c[1]), "%lld", (long long)run->counts.written);
        snprintf(c[2], sizeof(c[2]), "%lld", (long long)run->counts.filtered);
        snprintf(c[3], sizeof(c[3]), "%lld", (long long)run->counts.dead_lettered);
        snprintf(c[4], sizeof(c[4]), "%lld", (long long)run->counts.failed);
        fmt_time(run->start_ms, start);
        fmt_time(run->end_ms, end);
        const char *row[] = {id,   run->job ? run->job : "", start, end,  run->status,
                             c[0], c[1], c[2], c[3], c[4], run->error ? run->error : "",
                             run->detail ? run->detail : "",
                             run->resumed_from ? run->resumed_from : ""};
        if (rsql_result_add_row(r, row) != RSQL_OK) {
            rsql_result_destroy(r);
            r = NULL;
        }
    }
    for (int i = 0; i < n; i++) {
        rsql_job_run_free(runs[i]);
    }
    rsql_free(runs);
    if (!r) {
        return rsql_error_nomem(err);
    }
    *out = r;
    return RSQL_OK;
}

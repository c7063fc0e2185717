/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * `rocketsql apply FILE.sql`: make the catalog match a jobs file.
 *
 * The file is run first, whole, in a scratch session over a private in-memory catalog: its
 * CREATE TABLE, CREATE JOB, SET and RESET statements are checked exactly as a script's would
 * be (every option validated, every job planned), so a file with an error stops there, with
 * its line and column, and the catalog is not touched. What the scratch catalog then holds is
 * what is wanted; it is compared with the catalog, table by table and job by job:
 *
 *   +  a table or job of the file that the catalog lacks: created
 *   ~  one that differs (a table's connector, columns or options; a job's statement or
 *      captured settings): changed. A changed table keeps what belongs to it as created (its
 *      saved positions); a changed job is dropped and created again under its name, which a
 *      running `serve` sees as a change (it drains the job and starts it again). A job whose
 *      tables changed is created again too, so a running serve picks the new tables up.
 *   -  a table or job the file does not name: dropped
 *
 * All of it is one catalog transaction: it all lands or none of it. Options are compared as
 * written, so a secret given as a reference (${file:...}, ${env:...}) stays one: what is
 * stored is the reference, and a rotated secret behind it is no change. The report shows
 * secret values masked, as SHOW CREATE TABLE does.
 */
#include "config.h"
#include "session/rt_int.h"
#include "catalog/rsql_catalog.h"
#include "connectors/rsql_connector.h"
#include "planner/rsql_plan.h"
#include "sql/rsql_sql.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

#include <string.h>
#include <strings.h>

typedef enum { CH_NONE, CH_CREATE, CH_CHANGE, CH_DROP } change_t;

/* One job of the file: its stored form, the tables it names, and what apply does to it. */
typedef struct want_job {
    rsql_job_def_t *def; /* from the scratch catalog */
    char **tables;       /* source, sink, looked-up and dead-letter tables */
    int n_tables;
} want_job_t;

typedef struct apply {
    rsql_session_t *scratch;
    want_job_t *jobs;
    int n_jobs, cap_jobs;
    rsql_buf_t *report;
    int created, changed, dropped;
} apply_t;

/* ---- the scratch pass */

static bool allowed(const rsql_stmt_t *st)
{
    switch (st->kind) {
    case RSQL_STMT_CREATE_TABLE:
    case RSQL_STMT_CREATE_JOB:
    case RSQL_STMT_RESET:
        return true;
    case RSQL_STMT_SET:
        return st->has_setting;
    default:
        return false;
    }
}

static rsql_err_t add_table_name(want_job_t *w, const rsql_plan_table_t *t, rsql_error_t *err)
{
    if (!t->def) {
        return RSQL_OK;
    }
    char **grown = rsql_realloc(w->tables, (size_t)(w->n_tables + 1) * sizeof *grown);
    if (!grown) {
        return rsql_error_nomem(err);
    }
    w->tables = grown;
    if (!(w->tables[w->n_tables] = rsql_strdup(t->def->name))) {
        return rsql_error_nomem(err);
    }
    w->n_tables++;
    return RSQL_OK;
}

/* A CREATE JOB just run in the scratch session: note the tables its statement names. */
static rsql_err_t note_job(apply_t *a, const rsql_stmt_t *st, const char *sql,
                           rsql_error_t *err)
{
    if (a->n_jobs == a->cap_jobs) {
        int cap = a->cap_jobs ? 2 * a->cap_jobs : 8;
        want_job_t *grown = rsql_realloc(a->jobs, (size_t)cap * sizeof *grown);
        if (!grown) {
            return rsql_error_nomem(err);
        }
        a->jobs = grown;
        a->cap_jobs = cap;
    }
    want_job_t *w = &a->jobs[a->n_jobs++];
    memset(w, 0, sizeof *w);
    rsql_err_t rc = rsql_catalog_job_get(a->scratch->cat, st->name.name, &w->def, err);
    if (rc != RSQL_OK || !w->def) {
        return rc != RSQL_OK ? rc
                             : rsql_error_set(err, RSQL_ERR_INTERNAL, st->name.pos,
                                              "job %s was not stored", st->name.name);
    }
    rsql_plan_t *plan = rsql_plan_build(a->scratch->cat, st->inner, sql, a->scratch->settings,
                                        err);
    if (!plan) {
        return err->code;
    }
    rc = add_table_name(w, &plan->source, err);
    if (rc == RSQL_OK) {
        rc = add_table_name(w, &plan->sink, err);
    }
    if (rc == RSQL_OK && plan->lookup) {
        rc = add_table_name(w, &plan->lookup->table, err);
    }
    if (rc == RSQL_OK) {
        rc = add_table_name(w, &plan->errors.dlq, err);
    }
    rsql_plan_destroy(plan);
    return rc;
}

/* Run the file in the scratch session; the first error stops it (positions in sql). */
static rsql_err_t scratch_run(apply_t *a, const char *sql, size_t len, rsql_error_t *err)
{
    rsql_parse_t *p = rsql_parse_new(sql, len);
    if (!p) {
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = RSQL_OK;
    for (;;) {
        rsql_stmt_t *st = NULL;
        if ((rc = rsql_parse_next(p, &st, err)) != RSQL_OK || !st) {
            break;
        }
        if (!allowed(st)) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, st->pos,
                                "a jobs file holds CREATE TABLE, CREATE JOB, SET and RESET "
                                "statements only (what is not in it is dropped; a job runs "
                                "under `rocketsql serve` or `rocketsql run`)");
            break;
        }
        rsql_result_t *res = NULL;
        rc = rsql_session_exec(a->scratch, st, sql, &res, err);
        rsql_result_destroy(res);
        if (rc == RSQL_OK && st->kind == RSQL_STMT_CREATE_JOB) {
            rc = note_job(a, st, sql, err);
        }
        if (rc != RSQL_OK) {
            break;
        }
    }
    rsql_parse_destroy(p);
    return rc;
}

/* ---- comparing */

/* A column as one line: everything CREATE TABLE says of it. */
static void put_column(rsql_buf_t *b, const rsql_col_t *c)
{
    rsql_sql_put_ident(b, c->name);
    if (c->expr) {
        rsql_buf_printf(b, " AS %s", c->expr);
    } else {
        rsql_buf_printf(b, " %s%s", c->desc ? c->desc->text : rsql_type_name(c->type),
                        c->not_null ? " NOT NULL" : "");
    }
    if (c->metadata) {
        rsql_buf_puts(b, " METADATA");
        if (c->meta_from) {
            rsql_buf_printf(b, " FROM '%s'", c->meta_from);
        }
        rsql_buf_puts(b, c->is_virtual ? " VIRTUAL" : "");
    }
    if (c->pk_ord) {
        rsql_buf_printf(b, " (primary key %d)", c->pk_ord);
    }
    if (c->watermark) {
        rsql_buf_printf(b, " (watermark %s)", c->watermark);
    }
}

static const rsql_kv_t *find_kv(const rsql_kv_t *kv, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (strcmp(kv[i].key, key) == 0) {
            return &kv[i];
        }
    }
    return NULL;
}

static void put_shown(rsql_buf_t *b, const char *connector, const char *key, const char *value)
{
    rsql_buf_t v = RSQL_BUF_INIT;
    rsql_connector_put_shown(&v, rsql_connector_find(connector), key, value);
    rsql_buf_printf(b, "'%s'", rsql_buf_str(&v));
    b->oom |= v.oom;
    rsql_buf_deinit(&v);
}

/* How table had differs from want, as "; "-separated parts in why (nothing when the same). */
static void table_diff(const rsql_table_def_t *had, const rsql_table_def_t *want, rsql_buf_t *why)
{
    const char *sep = "";
#define PART() (rsql_buf_puts(why, sep), sep = "; ")
    if (strcmp(had->connector, want->connector) != 0) {
        PART();
        rsql_buf_printf(why, "connector '%s' -> '%s'", had->connector, want->connector);
    }
    int n = had->n_columns > want->n_columns ? had->n_columns : want->n_columns;
    for (int i = 0; i < n; i++) {
        rsql_buf_t x = RSQL_BUF_INIT, y = RSQL_BUF_INIT;
        if (i < had->n_columns) {
            put_column(&x, &had->columns[i]);
        }
        if (i < want->n_columns) {
            put_column(&y, &want->columns[i]);
        }
        if (strcmp(rsql_buf_str(&x), rsql_buf_str(&y)) != 0) {
            PART();
            if (i >= had->n_columns) {
                rsql_buf_printf(why, "column %d added: %s", i + 1, rsql_buf_str(&y));
            } else if (i >= want->n_columns) {
                rsql_buf_printf(why, "column %d removed: %s", i + 1, rsql_buf_str(&x));
            } else {
                rsql_buf_printf(why, "column %d: %s -> %s", i + 1, rsql_buf_str(&x),
                                rsql_buf_str(&y));
            }
        }
        why->oom |= x.oom || y.oom;
        rsql_buf_deinit(&x);
        rsql_buf_deinit(&y);
    }
    for (int i = 0; i < had->n_options; i++) {
        const rsql_kv_t *o = &had->options[i];
        const rsql_kv_t *w = find_kv(want->options, want->n_options, o->key);
        if (!w) {
            PART();
            rsql_buf_printf(why, "option '%s' removed", o->key);
        } else if (strcmp(o->value, w->value) != 0) {
            PART();
            rsql_buf_printf(why, "option '%s' ", o->key);
            put_shown(why, had->connector, o->key, o->value);
            rsql_buf_puts(why, " -> ");
            put_shown(why, want->connector, w->key, w->value);
        }
    }
    for (int i = 0; i < want->n_options; i++) {
        const rsql_kv_t *w = &want->options[i];
        if (!find_kv(had->options, had->n_options, w->key)) {
            PART();
            rsql_buf_printf(why, "option '%s' = ", w->key);
            put_shown(why, want->connector, w->key, w->value);
            rsql_buf_puts(why, " added");
        }
    }
#undef PART
}

/* How job had differs from want (the statement, the captured settings), into why. */
static void job_diff(const rsql_job_def_t *had, const rsql_job_def_t *want, rsql_buf_t *why)
{
    const char *sep = "";
    if (strcmp(had->sql, want->sql) != 0) {
        rsql_buf_puts(why, "statement changed");
        sep = "; ";
    }
    bool same = had->n_settings == want->n_settings;
    for (int i = 0; same && i < want->n_settings; i++) {
        const rsql_kv_t *o = find_kv(had->settings, had->n_settings, want->settings[i].key);
        same = o && strcmp(o->value, want->settings[i].value) == 0;
    }
    if (!same) {
        rsql_buf_printf(why, "%ssettings changed", sep);
    }
}

/* ---- the plan of changes */

typedef struct table_change {
    rsql_table_def_t *def; /* the wanted table (CH_CREATE, CH_CHANGE) or the one had (CH_DROP) */
    change_t what;
} table_change_t;

static void say(apply_t *a, change_t what, const char *noun, const char *name, const char *why)
{
    static const char mark[] = {' ', '+', '~', '-'};
    rsql_buf_printf(a->report, "%c %s %s", mark[what], noun, name);
    if (why && *why) {
        rsql_buf_printf(a->report, ": %s", why);
    }
    rsql_buf_puts(a->report, "\n");
    a->created += what == CH_CREATE;
    a->changed += what == CH_CHANGE;
    a->dropped += what == CH_DROP;
}

static bool names_table(const want_job_t *w, const char *table)
{
    for (int i = 0; i < w->n_tables; i++) {
        if (strcasecmp(w->tables[i], table) == 0) {
            return true;
        }
    }
    return false;
}

/* What differs between the scratch catalog (wanted) and the catalog (had). */
typedef struct diff {
    char **want_names, **had_names; /* the tables of each */
    int n_want, n_had;
    rsql_job_def_t **had_jobs;
    int n_had_jobs;
    table_change_t *tc; /* the tables created, changed or dropped */
    int n_tc;
    change_t *jc; /* per wanted job (a->jobs): what happens to it */
} diff_t;

static void diff_free(diff_t *d)
{
    for (int t = 0; t < d->n_tc; t++) {
        rsql_table_def_free(d->tc[t].def);
    }
    rsql_free(d->tc);
    rsql_free(d->jc);
    rsql_strv_free(d->want_names, d->n_want);
    rsql_strv_free(d->had_names, d->n_had);
    rsql_job_def_array_free(d->had_jobs, d->n_had_jobs);
}

/* The tables: the wanted ones created or changed, then the others dropped; told in a. */
static rsql_err_t diff_tables(apply_t *a, rsql_catalog_t *cat, diff_t *d, rsql_buf_t *why,
                              rsql_error_t *err)
{
    rsql_catalog_t *want = a->scratch->cat;
    rsql_err_t rc = RSQL_OK;
    for (int i = 0; rc == RSQL_OK && i < d->n_want; i++) {
        rsql_table_def_t *w = NULL, *h = NULL;
        if ((rc = rsql_catalog_table_get(want, d->want_names[i], &w, err)) != RSQL_OK ||
            (rc = rsql_catalog_table_get(cat, d->want_names[i], &h, err)) != RSQL_OK) {
            rsql_table_def_free(w);
            break;
        }
        rsql_buf_reset(why);
        if (h) {
            table_diff(h, w, why);
        }
        rsql_table_def_free(h);
        change_t what = !h ? CH_CREATE : why->len ? CH_CHANGE : CH_NONE;
        if (what == CH_NONE) {
            rsql_table_def_free(w);
            continue;
        }
        d->tc[d->n_tc++] = (table_change_t){w, what};
        say(a, what, "table", w->name, what == CH_CREATE ? w->connector : rsql_buf_str(why));
    }
    for (int i = 0; rc == RSQL_OK && i < d->n_had; i++) {
        bool kept = false;
        for (int k = 0; k < d->n_want && !kept; k++) {
            kept = strcasecmp(d->had_names[i], d->want_names[k]) == 0;
        }
        rsql_table_def_t *h = NULL;
        if (!kept && (rc = rsql_catalog_table_get(cat, d->had_names[i], &h, err)) == RSQL_OK &&
            h) {
            d->tc[d->n_tc++] = (table_change_t){h, CH_DROP};
            say(a, CH_DROP, "table", h->name, NULL);
        }
    }
    return rc;
}

/* The jobs: the file's created or changed (one over a changed table is created again), then
   the others dropped; told in a. */
static void diff_jobs(apply_t *a, diff_t *d, rsql_buf_t *why)
{
    for (int i = 0; i < a->n_jobs; i++) {
        const want_job_t *w = &a->jobs[i];
        const rsql_job_def_t *h = NULL;
        for (int k = 0; k < d->n_had_jobs && !h; k++) {
            h = strcasecmp(d->had_jobs[k]->name, w->def->name) == 0 ? d->had_jobs[k] : NULL;
        }
        rsql_buf_reset(why);
        if (!h) {
            d->jc[i] = CH_CREATE;
            say(a, CH_CREATE, "job", w->def->name, NULL);
            continue;
        }
        job_diff(h, w->def, why);
        int n_changed = 0;
        size_t at = why->len;
        for (int t = 0; t < d->n_tc; t++) {
            if (d->tc[t].what == CH_CHANGE && names_table(w, d->tc[t].def->name)) {
                rsql_buf_printf(why, "%s%s", n_changed++ ? ", " : "", d->tc[t].def->name);
            }
        }
        if (n_changed) { /* "restarted: its table(s) a, b changed" before the names */
            rsql_buf_t names = RSQL_BUF_INIT;
            rsql_buf_append(&names, why->data + at, why->len - at);
            why->len = at;
            rsql_buf_printf(why, "%srestarted: its table%s %s changed", at ? "; " : "",
                            n_changed > 1 ? "s" : "", rsql_buf_str(&names));
            why->oom |= names.oom;
            rsql_buf_deinit(&names);
        }
        d->jc[i] = why->len ? CH_CHANGE : CH_NONE;
        if (d->jc[i] == CH_CHANGE) {
            say(a, CH_CHANGE, "job", w->def->name, rsql_buf_str(why));
        }
    }
    for (int k = 0; k < d->n_had_jobs; k++) {
        bool kept = false;
        for (int i = 0; i < a->n_jobs && !kept; i++) {
            kept = strcasecmp(d->had_jobs[k]->name, a->jobs[i].def->name) == 0;
        }
        if (!kept) {
            say(a, CH_DROP, "job", d->had_jobs[k]->name, NULL);
        }
    }
}

/* Write the difference into cat, in one transaction: jobs out, tables, jobs in. */
static rsql_err_t write_diff(apply_t *a, rsql_catalog_t *cat, diff_t *d, rsql_error_t *err)
{
    rsql_err_t rc = rsql_catalog_begin(cat, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    for (int k = 0; rc == RSQL_OK && k < d->n_had_jobs; k++) {
        bool keep = false;
        for (int i = 0; i < a->n_jobs && !keep; i++) {
            keep = d->jc[i] == CH_NONE &&
                   strcasecmp(d->had_jobs[k]->name, a->jobs[i].def->name) == 0;
        }
        if (!keep) {
            rc = rsql_catalog_job_drop(cat, d->had_jobs[k]->name, NULL, err);
        }
    }
    for (int t = 0; rc == RSQL_OK && t < d->n_tc; t++) {
        rsql_table_def_t *def = d->tc[t].def;
        def->created_ms = 0; /* now */
        rc = d->tc[t].what == CH_DROP     ? rsql_catalog_table_drop(cat, def->name, NULL, err)
             : d->tc[t].what == CH_CHANGE ? rsql_catalog_table_replace(cat, def, err)
                                          : rsql_catalog_table_create(cat, def, false, err);
    }
    for (int i = 0; rc == RSQL_OK && i < a->n_jobs; i++) {
        if (d->jc[i] != CH_NONE) {
            a->jobs[i].def->created_ms = 0; /* now: a running serve sees a new job */
            rc = rsql_catalog_job_create(cat, a->jobs[i].def, false, err);
        }
    }
    if (rc == RSQL_OK) {
        return rsql_catalog_commit(cat, err);
    }
    rsql_catalog_rollback(cat, NULL);
    return rc;
}

/* Compare the scratch catalog with cat and, unless dry_run, apply. */
static rsql_err_t reconcile(apply_t *a, rsql_catalog_t *cat, bool dry_run, rsql_error_t *err)
{
    diff_t d;
    memset(&d, 0, sizeof d);
    rsql_buf_t why = RSQL_BUF_INIT;
    rsql_err_t rc = rsql_catalog_table_list(a->scratch->cat, &d.want_names, &d.n_want, err);
    if (rc == RSQL_OK) {
        rc = rsql_catalog_table_list(cat, &d.had_names, &d.n_had, err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_catalog_job_list(cat, &d.had_jobs, &d.n_had_jobs, err);
    }
    if (rc == RSQL_OK) {
        d.tc = rsql_calloc((size_t)(d.n_want + d.n_had + 1), sizeof *d.tc);
        d.jc = rsql_calloc((size_t)(a->n_jobs + 1), sizeof *d.jc);
        rc = d.tc && d.jc ? RSQL_OK : rsql_error_nomem(err);
    }
    if (rc == RSQL_OK) {
        rc = diff_tables(a, cat, &d, &why, err);
    }
    if (rc == RSQL_OK) {
        diff_jobs(a, &d, &why);
        rc = why.oom || a->report->oom ? rsql_error_nomem(err) : RSQL_OK;
    }
    if (rc == RSQL_OK && !dry_run && a->created + a->changed + a->dropped > 0) {
        rc = write_diff(a, cat, &d, err);
    }
    rsql_buf_deinit(&why);
    diff_free(&d);
    return rc;
}

/* See rsql_session.h. */
rsql_err_t rsql_session_apply(rsql_session_t *s, const char *sql, size_t len, bool dry_run,
                              rsql_buf_t *report, int counts[3], rsql_error_t *err)
{
    apply_t a;
    memset(&a, 0, sizeof a);
    a.report = report;
    a.scratch = rsql_session_new(":memory:", err);
    if (!a.scratch) {
        return err->code;
    }
    rsql_err_t rc = scratch_run(&a, sql, len, err);
    if (rc == RSQL_OK) {
        rsql_error_t local;
        rsql_error_clear(&local);
        rc = reconcile(&a, s->cat, dry_run, &local);
        if (rc != RSQL_OK) { /* the catalog's error has no place in the file */
            rsql_error_set(err, rc, RSQL_NOPOS, "apply: nothing changed: %s", local.msg);
        }
    }
    if (counts) {
        counts[0] = a.created;
        counts[1] = a.changed;
        counts[2] = a.dropped;
    }
    for (int i = 0; i < a.n_jobs; i++) {
        rsql_job_def_free(a.jobs[i].def);
        rsql_strv_free(a.jobs[i].tables, a.jobs[i].n_tables);
    }
    rsql_free(a.jobs);
    rsql_session_destroy(a.scratch);
    return rc;
}

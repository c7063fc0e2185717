/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_pipeline_run_plan: the one entry point the session uses to run an
 * INSERT, a RUN JOB or a SELECT preview. It turns a plan into a pipeline
 * configuration: the source and sink data paths of the plan's connectors
 * (rsql_conn_io.h), the dead-letter table's sink, the settings the planner
 * captured (batch size, queue capacity, errors.*), and the transform: decode
 * (with the source table's format, when the source hands raw bodies), then
 * rsql_plan_apply (filter + projection). Encoding is the sink's business.
 *
 * A preview has no sink connector: an in-memory sink collects the rows as
 * text (each value's canonical text, base/rsql_value.h) and they are printed as an aligned table at the end, followed by the
 * summary line on errf (no live status line); a preview calls no
 * commit_record and saves no position, so a RocketMQ source acks nothing.
 * It reads at most max(LIMIT, 1) records per poll and stops at the LIMIT
 * (or sql.preview-limit, which the planner folds into plan->limit).
 *
 * Pipeline names: the job name for a job, "insert:<source>-><sink>" for an
 * ad-hoc INSERT, "preview:<source>" for a preview (never saved). Positions are
 * kept under the name's key (rsql_catalog_position_key: the name, the uids of
 * both tables as created and how often they were forgotten).
 */
#include "config.h"
#include "engine/rsql_pipeline.h"
#include "engine/pipeline_int.h"
#include "engine/rt_stateful.h"
#include "engine/rt_lookup.h"
#include "engine/rt_preview.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_mem_int.h"
#include "base/rsql_value.h"
#include "planner/rsql_plan.h"
#include "base/rsql_result.h"

#include <stdio.h>
#include <string.h>

/* The transform state: one per run, used on the transform thread only. */
typedef struct xform {
    const rsql_plan_t *plan;
    rsql_decoder_t *dec; /* NULL when the source has no format */
    int n_in;            /* source columns */
    int n_phys;          /* of which physical (decoded from the body), the rest METADATA */
    int *phys;           /* n_phys: the source column of each decoded value; NULL = identity */
    rsql_eval_ctx_t ectx;
    rsql_value_t *spare; /* n_outputs values in the batch a row did not keep, or NULL */
    /* the batch of the last record: a batch's memory is reused once it is written, so it is
       known by its address and its first record's seq (unique) */
    const rsql_batch_t *last_batch;
    uint64_t last_seq;
    /* plan->n_outputs: the output's strings may be the evaluator's scratch, so they are
       copied into the batch; false for a physical column of the source (its strings are
       in the batch already: rsql_decode, rsql_io.h) and a constant (in the plan) */
    bool *own;
    bool has_decimal; /* the source table has a DECIMAL column (rows from the source rescaled) */
    bool changes;     /* the format is a changelog format: a body holds 0..n rows of any kind */
    /* n_fmeta format metadata keys the decoder fills after the body's columns
       (rsql_decoder_want_meta): fmeta[k] is the source column of the k-th */
    int n_fmeta;
    int *fmeta;
    rt_lookup_t *lookup; /* the lookup join's stage (plan->lookup), or NULL */
    rt_stateful_t *stateful; /* the stage with keyed state (rt_stateful.h), or NULL */
    rt_state_t *state;   /* its state, or NULL */
    rsql_error_t *reads_err; /* where mark_reads_cb puts its error */
} xform_t;

/* The decoder's column for source column col, or -1 for a METADATA column (not decoded). */
static int decoded_col(const xform_t *x, int col)
{
    if (!x->phys) {
        return col;
    }
    for (int k = 0; k < x->n_phys; k++) {
        if (x->phys[k] == col) {
            return k;
        }
    }
    return -1;
}

/*
** Tell the decoder what e reads of the source row: a ROW field path
** (r.a.b) marks only that path, a column the whole column; METADATA columns
** are not decoded from the body. RSQL_OK or NOMEM.
*/
static rsql_err_t mark_reads(const xform_t *xf, const rsql_bexpr_t *e, rsql_error_t *err)
{
    int path[32], depth = 0;
    const rsql_bexpr_t *x = e;
    while (x->kind == RSQL_BX_FIELD && depth < (int)(sizeof path / sizeof path[0])) {
        path[depth++] = x->column;
        x = x->args[0];
    }
    if (x->kind == RSQL_BX_COLUMN) {
        if (x->column >= xf->n_in) {
            return RSQL_OK; /* a joined table's column: not the body's */
        }
        int col = decoded_col(xf, x->column);
        if (col < 0) {
            return RSQL_OK;
        }
        for (int i = 0; i < depth / 2; i++) { /* outermost field first */
            int t = path[i];
            path[i] = path[depth - 1 - i];
            path[depth - 1 - i] = t;
        }
        return rsql_decoder_use(xf->dec, col, path, depth, err);
    }
    rsql_err_t rc = RSQL_OK;
    for (int i = 0; rc == RSQL_OK && i < x->n_args; i++) {
        rc = mark_reads(xf, x->args[i], err);
    }
    return rc;
}

/* mark_reads as an rsql_plan_reads visitor (its error into xf->reads_err). */
static rsql_err_t mark_reads_cb(void *opaque, const rsql_bexpr_t *e)
{
    xform_t *xf = opaque;
    return mark_reads(xf, e, xf->reads_err);
}

/* Copy v's string bytes into the batch arena (values of rsql_plan_apply point at scratch). */
static bool own_value(rsql_batch_t *b, rsql_value_t *v)
{
    if (v->is_null || (v->type != RSQL_TYPE_VARCHAR && v->type != RSQL_TYPE_BYTES)) {
        return true;
    }
    const uint8_t *c = rsql_batch_copy(b, v->v.s.p ? v->v.s.p : "", v->v.s.len);
    if (!c) {
        return false;
    }
    v->v.s.p = (const char *)c;
    return true;
}

/*
** What a changelog decoder skipped without rows (DDL and control messages, other databases or
** tables, bad bodies it was told to skip): one line after the run when there were any, so a
** run whose rows were all skipped does not look like one that read nothing (they count as
** filtered in the summary).
*/
static void report_skips(const xform_t *x, const char *format, FILE *errf)
{
    rsql_decode_skips_t k;
    rsql_decoder_skips(x->dec, &k);
    if (k.ddl + k.filtered + k.bad == 0) {
        return;
    }
    char line[256];
    snprintf(line, sizeof line,
             "%s: %llu bodies gave no rows: %llu DDL or control, %llu of other databases or "
             "tables, %llu that failed to decode (skipped by its ignore-parse-errors)",
             format, (unsigned long long)(k.ddl + k.filtered + k.bad),
             (unsigned long long)k.ddl, (unsigned long long)k.filtered,
             (unsigned long long)k.bad);
    rsql_log(RSQL_LOG_INFO, "runtime", "%s", line);
    if (errf && !rsql_log_enabled(RSQL_LOG_INFO)) {
        fprintf(errf, "%s\n", line);
        fflush(errf);
    }
}

/*
** A clear record (RSQL_ROW_CLEAR: every row of the table gone, a TRUNCATE): no row to filter
** or project; the sink gets it as it is, its values NULL, in order with the rows around it.
*/
static rsql_err_t clear_row(xform_t *x, rsql_batch_t *batch, const rsql_value_t **out,
                            bool *keep, rsql_error_t *err)
{
    int n = x->plan->n_outputs;
    rsql_value_t *o = rsql_arena_alloc(batch->arena, (size_t)(n ? n : 1) * sizeof(*o));
    if (!o) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < n; i++) {
        memset(&o[i], 0, sizeof o[i]);
        o[i].type = x->plan->outputs[i].type;
        o[i].is_null = true;
    }
    *out = o;
    *keep = true;
    return RSQL_OK;
}

/*
** The transform callback (see rsql_transform_cb): decode, filter, project.
** @locality transform thread
*/
/*
** The source row of a decoded body (n_phys values, then n_fmeta format metadata values):
** the body's columns and the format's metadata in their places, the connector's metadata
** from rec->meta. body itself when the table has no METADATA column.
*/
static rsql_value_t *place_row(const xform_t *x, rsql_batch_t *batch, const rsql_record_t *rec,
                               rsql_value_t *body)
{
    if (!x->phys) {
        return body;
    }
    rsql_value_t *row = rsql_arena_alloc(batch->arena,
                                         (size_t)(x->n_in ? x->n_in : 1) * sizeof(*row));
    if (!row) {
        return NULL;
    }
    const char *const *meta = x->plan->source_meta;
    for (int i = 0; i < x->n_in; i++) {
        row[i] = (rsql_value_t){.type = x->plan->source.def->columns[i].type, .is_null = true};
        if (meta && meta[i] && *meta[i] && rec->meta) {
            row[i] = rec->meta[i];
        }
    }
    for (int i = 0; i < x->n_phys; i++) {
        row[x->phys[i]] = body[i];
    }
    for (int k = 0; k < x->n_fmeta; k++) {
        row[x->fmeta[k]] = body[x->n_phys + k];
    }
    return row;
}

/*
** Decode rec's body into its row, or its rows (a changelog format: rec->n_rows, rows, kinds).
*/
static rsql_err_t decode_record(xform_t *x, rsql_batch_t *batch, rsql_record_t *rec,
                                rsql_error_t *err)
{
    if (!x->dec) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "the source gave a body but the table has no format");
    }
    if (x->changes) {
        rsql_changes_t ch;
        rsql_err_t rc = rsql_decode_changes(x->dec, rec->raw, rec->raw_len, batch->arena, &ch,
                                            err);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (ch.n == 0) {
            rec->n_rows = -1; /* nothing to apply: done as filtered */
            return RSQL_OK;
        }
        for (int j = 0; j < ch.n; j++) {
            if (!(ch.rows[j] = place_row(x, batch, rec, ch.rows[j]))) {
                return rsql_error_nomem(err);
            }
        }
        rec->row = ch.rows[0];
        rec->kind = ch.kinds[0];
        rec->n_rows = ch.n;
        rec->rows = ch.rows;
        rec->kinds = ch.kinds;
        return RSQL_OK;
    }
    rsql_value_t *body = rsql_arena_alloc(batch->arena,
                                          (size_t)(x->n_phys + x->n_fmeta + 1) * sizeof(*body));
    if (!body) {
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = rsql_decode(x->dec, rec->raw, rec->raw_len, batch->arena, body, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (!(rec->row = x->phys ? place_row(x, batch, rec, body) : body)) {
        return rsql_error_nomem(err);
    }
    return RSQL_OK;
}

/*
** A source that gives rows (sqlite) reads DECIMAL text at its own scale: bring each value of
** rec's row to its column's DECIMAL(p, s) (the decoders already do). Again on a row done: none.
*/
static rsql_err_t rescale_row(const xform_t *x, rsql_record_t *rec, rsql_error_t *err)
{
    const rsql_table_def_t *def = x->plan->source.def;
    rsql_value_t *row = (rsql_value_t *)rec->row;
    for (int i = 0; i < x->n_in && i < def->n_columns; i++) {
        const rsql_tdesc_t *d = rsql_tdesc_of(def->columns[i].type, def->columns[i].desc);
        rsql_value_t *v = &row[i];
        if (def->columns[i].type != RSQL_TYPE_DECIMAL || v->is_null ||
            v->type != RSQL_TYPE_DECIMAL || (v->scale == d->scale && v->prec == d->precision)) {
            continue;
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        if (rsql_value_decimal_rescale(v, d->precision, d->scale, v, &e) != RSQL_OK) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "column '%s': %s",
                                  def->columns[i].name, e.msg);
        }
    }
    return RSQL_OK;
}

/* rt_row_of_cb for the lookup stage: rec's source row, decoded when it must be; NULL when it
   has none or cannot be made (its own transform call reports why). */
static const rsql_value_t *row_of(void *opaque, rsql_batch_t *batch, rsql_record_t *rec)
{
    xform_t *x = opaque;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rec->error || (!rec->row && !rec->raw)) {
        return NULL;
    }
    if (!rec->row) {
        if (decode_record(x, batch, rec, &e) != RSQL_OK || rec->n_rows < 0 || !rec->row) {
            return NULL;
        }
    } else if (x->has_decimal && rescale_row(x, rec, &e) != RSQL_OK) {
        return NULL;
    }
    return rec->row;
}

/* rsql_pipeline_conf_t.transform_describe: what the lookup or stateful stage did. */
static size_t xform_describe(void *opaque, char *buf, size_t size)
{
    const xform_t *x = opaque;
    return x->stateful ? rsql_rt_stateful_describe(x->stateful, buf, size)
                       : rsql_rt_lookup_describe(x->lookup, buf, size);
}

/* rsql_pipeline_conf_t.transform_lanes: the window's. */
static rsql_err_t xform_lanes(void *due_opaque, uint32_t n)
{
    return rsql_rt_stateful_lanes(due_opaque, n);
}

/* rsql_pipeline_conf_t.transform_prefetch: a lookup join's batch waiting behind. */
static void xform_prefetch(void *opaque, rsql_batch_t *batch)
{
    xform_t *x = opaque;
    rsql_eval_ctx_set_now(&x->ectx, 0);
    rsql_rt_lookup_prefetch(x->lookup, batch, row_of, x, &x->ectx);
}

/*
** The transform callback (see rsql_transform_cb): decode, filter, project.
** @locality transform thread
*/
static rsql_err_t xform_apply(void *opaque, rsql_batch_t *batch, rsql_record_t *rec, int k,
                              const rsql_value_t **out, bool *keep, const char **stage,
                              rsql_error_t *err)
{
    xform_t *x = opaque;
    if (batch != x->last_batch || batch->recs[0].seq != x->last_seq) {
        rsql_eval_ctx_set_now(&x->ectx, 0);
        x->last_batch = batch;
        x->last_seq = batch->recs[0].seq;
        x->spare = NULL;
        if (x->lookup) { /* the keys of every record of the batch, looked up together */
            *stage = "lookup";
            rsql_err_t rc = rsql_rt_lookup_batch(x->lookup, batch, row_of, x, &x->ectx, err);
            if (rc != RSQL_OK) {
                return rc;
            }
        }
        if (x->stateful) { /* a mini-batch's groups at once, or its keys prefetched */
            *stage = "eval";
            rsql_err_t rc = rsql_rt_stateful_batch(x->stateful, batch, row_of, x, &x->ectx, err);
            if (rc != RSQL_OK) {
                return rc;
            }
        }
    }
    const rsql_value_t *in = rec->row;
    if (k > 0) {
        in = rec->rows[k];
    } else if (!rec->row && !rec->raw && (rec->n_rows < 0 || rec->kind == RSQL_ROW_CLEAR)) {
        if (rec->kind == RSQL_ROW_CLEAR) {
            return clear_row(x, batch, out, keep, err);
        }
        *keep = false; /* a row-less record of a source that makes rows: done as filtered */
        return RSQL_OK;
    } else if (!rec->row) {
        *stage = "decode";
        rsql_err_t rc = decode_record(x, batch, rec, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        if (rec->n_rows < 0) {
            *keep = false;
            return RSQL_OK;
        }
        in = rec->row;
    } else if (x->has_decimal) {
        *stage = "decode";
        rsql_err_t rc = rescale_row(x, rec, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    *stage = "eval";
    /* err is clear on entry (rsql_transform_cb) and after a decode that succeeded (checked:
       one load): the evaluator's error goes there first and is rewritten with its place in
       the statement below */
    if (err && err->code) {
        rsql_error_clear(err);
    }
    rsql_err_t rc = RSQL_OK;
    if (x->lookup && k == 0) {
        *stage = "lookup";
        rc = rsql_rt_lookup_record(x->lookup, batch, rec, &x->ectx, &in, keep, err);
        if (rc == RSQL_OK && !*keep) {
            rsql_eval_ctx_reset(&x->ectx);
            return RSQL_OK;
        }
        *stage = "eval";
    } else if (x->stateful && k == 0) {
        rc = rsql_rt_stateful_record(x->stateful, batch, rec, &x->ectx, &in, keep, err);
        if (rc == RSQL_OK && !*keep) {
            rsql_eval_ctx_reset(&x->ectx);
            return RSQL_OK;
        }
    }
    int n = x->plan->n_outputs; /* the outputs are evaluated in place, in the batch; */
    rsql_value_t *o = x->spare;  /* the array of a row not kept serves the next row */
    if (!o && !(o = rsql_arena__alloc(batch->arena, (size_t)(n ? n : 1) * sizeof(*o)))) {
        rsql_eval_ctx_reset(&x->ectx);
        return rsql_error_nomem(err);
    }
    if (rc == RSQL_OK) {
        rc = x->lookup || x->stateful ? rsql_plan_apply_row(x->plan, in, &x->ectx, o, keep, err)
                                   : rsql_plan_apply(x->plan, in, &x->ectx, o, keep, err);
    }
    x->spare = rc != RSQL_OK || !*keep ? o : NULL;
    if (rc != RSQL_OK) {
        rsql_error_t e = err ? *err : (rsql_error_t){.code = rc};
        rsql_error_clear(err);
        char msg[sizeof e.msg];
        if (e.code == RSQL_ERR_NOMEM) {
            snprintf(msg, sizeof msg, "%s", e.msg);
        } else {
            rsql_plan_error_format(x->plan, &e, msg, sizeof msg);
        }
        rsql_eval_ctx_reset(&x->ectx);
        return rsql_error_set(err, e.code ? e.code : rc, RSQL_NOPOS, "%s", msg);
    }
    if (!*keep) {
        rsql_eval_ctx_reset(&x->ectx);
        return RSQL_OK;
    }
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        ok = !x->own[i] || own_value(batch, &o[i]);
    }
    rsql_eval_ctx_reset(&x->ectx);
    if (!ok) {
        return rsql_error_nomem(err);
    }
    *out = o;
    return RSQL_OK;
}

/* ---- building the configuration */

typedef struct cols {
    int n;
    const char **names;
    rsql_type_t *types;
    int n_key;
    int *key; /* PRIMARY KEY: column indexes, in key order */
} cols_t;

/* def's columns; phys: its physical ones only (what a format decodes or encodes). */
static bool cols_of(const rsql_table_def_t *def, cols_t *c, bool phys)
{
    memset(c, 0, sizeof(*c));
    if (!def) {
        return true;
    }
    c->names = rsql_calloc((size_t)(def->n_columns + 1), sizeof(char *));
    c->types = rsql_calloc((size_t)(def->n_columns + 1), sizeof(rsql_type_t));
    if (!c->names || !c->types) {
        return false;
    }
    for (int i = 0; i < def->n_columns; i++) {
        if (!phys || !def->columns[i].metadata) {
            c->names[c->n] = def->columns[i].name;
            c->types[c->n++] = def->columns[i].type;
        }
    }
    return true;
}

/*
** The table's PRIMARY KEY (...) NOT ENFORCED as indexes into c->names, in key
** order (c->key, c->n_key; none when the table has no key). False when out of memory.
*/
static bool key_of(const rsql_table_def_t *def, cols_t *c)
{
    c->key = rsql_calloc((size_t)(def->n_columns + 1), sizeof(int));
    if (!c->key) {
        return false;
    }
    for (int i = 0; i < def->n_columns; i++) {
        int k = def->columns[i].pk_ord;
        if (k <= 0 || k > def->n_columns) {
            continue;
        }
        for (int j = 0; j < c->n; j++) {
            if (strcasecmp(c->names[j], def->columns[i].name) == 0) {
                c->key[k - 1] = j;
                c->n_key = k > c->n_key ? k : c->n_key;
                break;
            }
        }
    }
    return true;
}

/*
** The sink's columns from the plan's outputs: the physical ones in c, the metadata keys
** and types (the last plan->n_sink_meta outputs) in keys/types (caller frees both).
*/
static bool sink_cols_of(const rsql_plan_t *plan, cols_t *c, const char ***keys,
                         rsql_type_t **types)
{
    memset(c, 0, sizeof(*c));
    *keys = NULL;
    *types = NULL;
    if (!plan->sink.def) {
        return true;
    }
    size_t n = (size_t)plan->n_outputs + 1;
    c->names = rsql_calloc(n, sizeof(char *));
    c->types = rsql_calloc(n, sizeof(rsql_type_t));
    *keys = rsql_calloc(n, sizeof(char *));
    *types = rsql_calloc(n, sizeof(rsql_type_t));
    if (!c->names || !c->types || !*keys || !*types) {
        return false;
    }
    int m = 0;
    for (int i = 0; i < plan->n_outputs; i++) {
        const rsql_plan_output_t *o = &plan->outputs[i];
        if (o->meta_key) {
            (*keys)[m] = o->meta_key;
            (*types)[m++] = o->type;
        } else {
            c->names[c->n] = o->name;
            c->types[c->n++] = o->type;
        }
    }
    return key_of(plan->sink.def, c);
}

static void cols_free(cols_t *c)
{
    rsql_free(c->names);
    rsql_free(c->types);
    rsql_free(c->key);
}

static const char *conn_name(const rsql_plan_table_t *t)
{
    if (t->conn && t->conn->name) {
        return t->conn->name;
    }
    return t->def ? t->def->connector : NULL;
}

static rsql_err_t run_plan(rsql_catalog_t *cat, const rsql_plan_t *plan, const char *job,
                           FILE *out, FILE *errf, rsql_pipeline_stats_t *stats,
                           bool handle_signals, rsql_print_style_t style, rsql_error_t *err);

/*
** Run plan: see rsql_pipeline.h. @locality the calling thread is the worker
*/
rsql_err_t rsql_pipeline_run_plan(rsql_catalog_t *cat, rsql_print_style_t style,
                                  const rsql_plan_t *plan, const char *job, FILE *out,
                                  FILE *errf, rsql_error_t *err)
{
    return run_plan(cat, plan, job, out, errf, NULL, true, style, err);
}

/*
** Run plan, supervised: see rsql_pipeline.h. @locality the calling thread is the worker
*/
rsql_err_t rsql_pipeline_run_plan_ex(rsql_catalog_t *cat, const rsql_plan_t *plan,
                                     const char *job, FILE *out, FILE *errf,
                                     rsql_pipeline_stats_t *stats, bool handle_signals,
                                     rsql_error_t *err)
{
    return run_plan(cat, plan, job, out, errf, stats, handle_signals, RSQL_PRINT_TABLE, err);
}

/* Both entry points: a preview's rows printed in style. */
static rsql_err_t run_plan(rsql_catalog_t *cat, const rsql_plan_t *plan, const char *job,
                           FILE *out, FILE *errf, rsql_pipeline_stats_t *stats,
                           bool handle_signals, rsql_print_style_t style, rsql_error_t *err)
{
    bool preview = plan->kind == RSQL_PLAN_SELECT || !plan->sink.def;
    const rsql_table_def_t *sdef = plan->source.def;
    if (!sdef) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "plan has no source");
    }
    const rsql_source_ops_t *src_ops = plan->source.conn ? plan->source.conn->source : NULL;
    if (!src_ops) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' cannot be read from in this build",
                              conn_name(&plan->source) ? conn_name(&plan->source) : "?");
    }
    const rsql_sink_ops_t *snk_ops = &rsql_rt_preview_ops;
    if (!preview) {
        snk_ops = plan->sink.conn ? plan->sink.conn->sink : NULL;
        if (!snk_ops) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                                  "connector '%s' cannot be written to in this build",
                                  conn_name(&plan->sink) ? conn_name(&plan->sink) : "?");
        }
    }
    const rsql_sink_ops_t *dlq_ops = NULL;
    bool late_dlq = plan->window && plan->window->late_dead_letter;
    if (!preview && (plan->errors.tolerate_all || late_dlq) && plan->errors.dlq.def) {
        dlq_ops = plan->errors.dlq.conn ? plan->errors.dlq.conn->sink : NULL;
        if (!dlq_ops) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                                  "dead-letter table '%s': connector '%s' cannot be written to",
                                  plan->errors.dlq.def->name, conn_name(&plan->errors.dlq));
        }
    }
    rsql_err_t rc = RSQL_OK;
    cols_t src_cols, snk_cols, dlq_cols;
    const char **out_names = NULL;
    rsql_type_t *out_types = NULL;
    char *id = NULL, *key = NULL, *shared = NULL;
    rsql_result_t *res = NULL;
    rsql_pipeline_t *p = NULL;
    xform_t x;
    memset(&x, 0, sizeof x);
    rsql_eval_ctx_init(&x.ectx);
    cols_t phys_cols;
    const char **meta_keys = NULL;
    rsql_type_t *meta_types = NULL;
    /* the full types of the source's columns (src_cols holds every column, in order) */
    const rsql_tdesc_t **src_descs = rsql_calloc((size_t)sdef->n_columns + 1, sizeof *src_descs);
    for (int i = 0; src_descs && i < sdef->n_columns; i++) {
        src_descs[i] = sdef->columns[i].desc;
    }
    /* the columns the source table cannot go without (NOT NULL, PRIMARY KEY) */
    bool *src_required = rsql_calloc((size_t)sdef->n_columns + 1, sizeof *src_required);
    for (int i = 0; src_required && i < sdef->n_columns; i++) {
        src_required[i] = sdef->columns[i].not_null || sdef->columns[i].pk_ord > 0;
    }
    /* the source table's PRIMARY KEY columns, in key order */
    int *src_key = rsql_calloc((size_t)sdef->n_columns + 1, sizeof *src_key);
    int n_src_key = 0;
    for (int k = 1; src_key && k <= sdef->n_columns; k++) {
        for (int i = 0; i < sdef->n_columns; i++) {
            if (sdef->columns[i].pk_ord == k) {
                src_key[n_src_key++] = i;
            }
        }
    }
    /* each is called whatever the others gave: all four are freed below */
    bool ok_src = cols_of(sdef, &src_cols, false);
    bool ok_phys = cols_of(sdef, &phys_cols, true);
    bool ok_snk = sink_cols_of(plan, &snk_cols, &meta_keys, &meta_types);
    bool ok_dlq = cols_of(plan->errors.dlq.def, &dlq_cols, false);
    bool ok = ok_src && ok_phys && ok_snk && ok_dlq && src_descs && src_required && src_key;
    x.plan = plan;
    x.n_in = sdef->n_columns;
    for (int i = 0; i < sdef->n_columns; i++) {
        x.has_decimal = x.has_decimal || sdef->columns[i].type == RSQL_TYPE_DECIMAL;
    }
    x.n_phys = phys_cols.n;
    if (ok && phys_cols.n < src_cols.n) {
        x.phys = rsql_calloc((size_t)phys_cols.n + 1, sizeof(int));
        ok = x.phys != NULL;
        for (int i = 0, k = 0; ok && i < sdef->n_columns; i++) {
            if (!sdef->columns[i].metadata) {
                x.phys[k++] = i;
            }
        }
    }
    x.own = rsql_calloc((size_t)(plan->n_outputs ? plan->n_outputs : 1), sizeof(bool));
    ok = ok && x.own;
    for (int i = 0; ok && i < plan->n_outputs; i++) {
        const rsql_bexpr_t *e = plan->outputs[i].expr;
        bool meta = e->kind == RSQL_BX_COLUMN && plan->source_meta && e->column >= 0 &&
                    e->column < sdef->n_columns && plan->source_meta[e->column];
        x.own[i] = !(e->kind == RSQL_BX_CONST || (e->kind == RSQL_BX_COLUMN && !meta));
    }
    /* the rows are a changelog (the planner's mode: the source's connector or format makes
       changes): the sink gets their kinds (a preview shows them first, in an "op" column,
       as +I -U +U -D) */
    bool changelog = plan->mode != RSQL_MODE_APPEND;
    if (preview) {
        out_names = rsql_calloc((size_t)plan->n_outputs + 1, sizeof(char *));
        out_types = rsql_calloc((size_t)plan->n_outputs + 1, sizeof(rsql_type_t));
        res = rsql_result_new(RSQL_RESULT_TABLE);
        ok = ok && out_names && out_types && res;
        for (int i = 0; ok && i < plan->n_outputs; i++) {
            out_names[i] = plan->outputs[i].name;
            out_types[i] = plan->outputs[i].type;
        }
        if (ok && changelog) { /* the result's columns: op first */
            const char **cols = rsql_calloc((size_t)plan->n_outputs + 1, sizeof(char *));
            ok = cols != NULL;
            for (int i = 0; ok && i < plan->n_outputs; i++) {
                cols[i + 1] = out_names[i];
            }
            if (ok) {
                cols[0] = "op";
                ok = rsql_result_set_cols(res, plan->n_outputs + 1, cols) == RSQL_OK;
            }
            rsql_free(cols);
        } else {
            ok = ok && rsql_result_set_cols(res, plan->n_outputs, out_names) == RSQL_OK;
        }
    }
    rsql_buf_t idb = RSQL_BUF_INIT;
    if (job) {
        rsql_buf_puts(&idb, job);
    } else if (preview) {
        rsql_buf_printf(&idb, "preview:%s", sdef->name);
    } else {
        rsql_buf_printf(&idb, "insert:%s->%s", sdef->name, plan->sink.def->name);
    }
    id = rsql_buf_steal(&idb);
    ok = ok && id;
    if (!ok) {
        rc = rsql_error_nomem(err);
        goto done;
    }
    /* positions belong to the tables as created (and to base's epoch) */
    if (!preview && cat &&
        (rc = rsql_catalog_position_key(cat, id, sdef->name, plan->sink.def->name, &key, &shared,
                                   err)) !=
            RSQL_OK) {
        goto done;
    }
    if (plan->source.format) {
        x.dec = rsql_decoder_new(plan->source.format,
                                 rsql_optset_conf(plan->source.opts, RSQL_CONF_FORMAT),
                                 phys_cols.n, phys_cols.names, phys_cols.types, err);
        if (!x.dec) {
            rc = err && err->code ? err->code : RSQL_ERR_INTERNAL;
            goto done;
        }
        x.changes = rsql_format_changelog(plan->source.format);
        for (int k = 0; k < phys_cols.n; k++) {
            int i = x.phys ? x.phys[k] : k;
            if (i < plan->source.def->n_columns) {
                rsql_decoder_set_desc(x.dec, k, plan->source.def->columns[i].desc);
            }
        }
        /* the format's metadata the statement reads, after the body's columns */
        x.fmeta = rsql_calloc((size_t)sdef->n_columns + 1, sizeof(int));
        if (!x.fmeta) {
            rc = rsql_error_nomem(err);
            goto done;
        }
        for (int i = 0; plan->source_fmeta && i < sdef->n_columns; i++) {
            if (plan->source_fmeta[i]) {
                if ((rc = rsql_decoder_want_meta(x.dec, plan->source_fmeta[i], err)) != RSQL_OK) {
                    goto done;
                }
                x.fmeta[x.n_fmeta++] = i;
            }
        }
        /* decode only what the filter and the outputs read */
        rc = rsql_decoder_prune(x.dec, err);
        if (rc == RSQL_OK) {
            x.reads_err = err;
            rc = rsql_plan_reads(plan, mark_reads_cb, &x);
        }
        /* a sink that applies by key needs no -U of an update that keeps the key */
        if (rc == RSQL_OK && x.changes && plan->before_key) {
            int *bk = rsql_calloc((size_t)plan->n_before_key + 1, sizeof *bk), n = 0;
            for (int k = 0; bk && k < plan->n_before_key; k++) {
                int col = decoded_col(&x, plan->before_key[k]);
                if (col >= 0) {
                    bk[n++] = col;
                }
            }
            rc = !bk ? rsql_error_nomem(err)
                 : n  ? rsql_decoder_skip_before(x.dec, bk, n, err)
                      : RSQL_OK;
            rsql_free(bk);
        }
        if (rc != RSQL_OK) {
            goto done;
        }
    }

    if (plan->lookup &&
        (rc = rsql_rt_lookup_open(plan, &x.lookup, err)) != RSQL_OK) {
        goto done;
    }

    if ((rc = rsql_rt_stateful_open(plan, preview ? NULL : cat, key ? key : id, &x.stateful,
                                    err)) != RSQL_OK) {
        goto done;
    }
    x.state = x.stateful ? rsql_rt_stateful_state(x.stateful) : NULL;

    rsql_pipeline_conf_t conf;
    rsql_pipeline_conf_init(&conf);
    conf.id = key ? key : id;
    conf.sink_id = shared;
    conf.name = id;
    conf.preview = preview;
    if (plan->batch_size > 0) {
        conf.batch_size = (int)plan->batch_size;
    }
    if (plan->flush_interval_ms > 0) {
        conf.flush_interval_ms = plan->flush_interval_ms;
    }
    if (plan->queue_capacity > 0) {
        conf.queue_capacity = (int)plan->queue_capacity;
    }
    conf.max_in_flight_bytes = plan->memory;
    conf.retry_timeout_ms = plan->errors.retry_timeout_ms;
    conf.retry_backoff_max_ms = plan->errors.retry_backoff_max_ms;
    conf.tolerate_all = plan->errors.tolerate_all;
    conf.limit = preview && plan->has_limit ? plan->limit : -1;
    conf.limit_from_setting = plan->limit_from_setting;
    if (preview && conf.limit >= 0 && conf.limit < conf.batch_size) {
        conf.batch_size = conf.limit > 0 ? (int)conf.limit : 1; /* read no more than shown */
    }
    conf.src_ops = src_ops;
    conf.src_ctx.table = sdef->name;
    conf.src_ctx.opts = plan->source.opts;
    conf.src_ctx.conf = rsql_optset_conf(plan->source.opts, RSQL_CONF_CONNECTOR);
    conf.src_ctx.format_conf = rsql_optset_conf(plan->source.opts, RSQL_CONF_FORMAT);
    conf.src_ctx.n_columns = src_cols.n;
    conf.src_ctx.column_names = src_cols.names;
    conf.src_ctx.column_types = src_cols.types;
    conf.src_ctx.column_meta = plan->source_meta;
    conf.src_ctx.column_descs = src_descs;
    conf.src_ctx.column_required = src_required;
    conf.src_ctx.n_key = n_src_key;
    conf.src_ctx.key_columns = src_key;
    conf.snk_ops = snk_ops;
    if (snk_ops && snk_ops->gather_rows && plan->sink.opts) {
        conf.flush_rows = snk_ops->gather_rows(rsql_optset_conf(plan->sink.opts, RSQL_CONF_CONNECTOR));
    }
    if (preview) {
        conf.snk_ctx.table = "(preview)";
        conf.snk_ctx.n_columns = plan->n_outputs;
        conf.snk_ctx.column_names = out_names;
        conf.snk_ctx.column_types = out_types;
        rsql_rt_preview_target(res);
    } else {
        conf.snk_ctx.table = plan->sink.def->name;
        conf.snk_ctx.opts = plan->sink.opts;
        conf.snk_ctx.conf = rsql_optset_conf(plan->sink.opts, RSQL_CONF_CONNECTOR);
        conf.snk_ctx.format_conf = rsql_optset_conf(plan->sink.opts, RSQL_CONF_FORMAT);
        conf.snk_ctx.n_columns = snk_cols.n;
        conf.snk_ctx.column_names = snk_cols.names;
        conf.snk_ctx.column_types = snk_cols.types;
        conf.snk_ctx.n_meta = plan->n_sink_meta;
        conf.snk_ctx.meta_keys = meta_keys;
        conf.snk_ctx.meta_types = meta_types;
        conf.snk_ctx.n_key = snk_cols.n_key;
        conf.snk_ctx.key_columns = snk_cols.key;
        /* a deduplication of a RocketMQ source is the sink's: the first row of a key wins,
           or the last (its upsert) */
        conf.snk_ctx.keep_first = plan->dedup && plan->dedup->in_sink && !plan->dedup->keep_last;
        /* a window aggregation over RocketMQ: the sink merges each row's part */
        conf.snk_ctx.merge = plan->window && plan->window->in_sink ? plan->window->merge : NULL;
    }
    conf.snk_ctx.changelog = changelog;
    if (dlq_ops) {
        conf.dlq_ops = dlq_ops;
        conf.dlq_ctx.table = plan->errors.dlq.def->name;
        conf.dlq_ctx.opts = plan->errors.dlq.opts;
        conf.dlq_ctx.conf = rsql_optset_conf(plan->errors.dlq.opts, RSQL_CONF_CONNECTOR);
        conf.dlq_ctx.format_conf = rsql_optset_conf(plan->errors.dlq.opts, RSQL_CONF_FORMAT);
        conf.dlq_ctx.n_columns = dlq_cols.n;
        conf.dlq_ctx.column_names = dlq_cols.names;
        conf.dlq_ctx.column_types = dlq_cols.types;
    }
    conf.transform = xform_apply;
    conf.mark_last = plan->window && !plan->window->rows && plan->source_bounded; /* its end */
    conf.transform_opaque = &x;
    if (x.lookup && plan->lookup->in_flight > 1) {
        conf.transform_prefetch = xform_prefetch;
        conf.transform_ahead = plan->lookup->in_flight;
    }
    conf.transform_describe = x.lookup || x.stateful ? xform_describe : NULL;
    conf.transform_due = x.stateful ? rsql_rt_stateful_due : NULL; /* processing-time windows */
    conf.due_opaque = x.stateful;
    if (x.state && plan->window) { /* each lane of the source holds its watermark back */
        conf.transform_lanes = xform_lanes;
    }
    if (x.state && !preview) {
        rsql_rt_stateful_conf(x.stateful, &conf);
    }
    conf.cat = cat;
    conf.record_run = !preview;
    conf.job = job;
    conf.sql = plan->sql ? plan->sql + plan->stmt_off : NULL;
    conf.handle_signals = handle_signals;
    conf.stats = stats;
    conf.status_out = preview ? NULL : errf; /* a preview's summary follows its table */
    /* what the source may leave invisible to the next run (a RocketMQ consumer group) */
    char hold_key[512] = "";
    if (!preview && plan->source.conn && plan->source.conn->hold) {
        conf.hold_ms = plan->source.conn->hold(conf.src_ctx.conf, hold_key, sizeof hold_key);
        conf.hold_key = conf.hold_ms > 0 && *hold_key ? hold_key : NULL;
    }
    conf.source_bounded = plan->source_bounded;

    p = rsql_pipeline_new(&conf, err);
    if (!p) {
        rc = err && err->code ? err->code : RSQL_ERR_NOMEM;
        goto done;
    }
    const char *from = conn_name(&plan->source), *to = conn_name(&plan->sink);
    rsql_log(RSQL_LOG_DEBUG, "runtime", "pipeline %s: starting (%s -> %s)", id, from ? from : "?",
             preview ? "preview" : to ? to : "?");
    rc = rsql_pipeline_run(p, err);
    if (x.changes) {
        report_skips(&x, plan->source.format, errf);
    }
    if (rsql_log_enabled(RSQL_LOG_DEBUG)) {
        char sum[1024];
        rsql_pipeline__summary(p, sum, sizeof sum);
        rsql_log(RSQL_LOG_DEBUG, "runtime", "pipeline %s: %s: %s", id,
                 rc == RSQL_OK ? "finished" : "failed", sum);
    }
    if (preview) {
        if (out && rc == RSQL_OK) { /* a failed run: its error only, no half table */
            rsql_result_print(res, style, out);
            fflush(out);
        }
        if (errf) {
            char line[1024];
            rsql_pipeline__summary(p, line, sizeof line);
            fprintf(errf, "%s\n", line);
            fflush(errf);
        }
    }

done:
    rsql_rt_preview_target(NULL);
    rsql_pipeline_destroy(p);
    rsql_decoder_destroy(x.dec);
    rsql_rt_lookup_close(x.lookup);
    rsql_rt_stateful_close(x.stateful);
    rsql_eval_ctx_deinit(&x.ectx);
    rsql_free(x.own);
    rsql_result_destroy(res);
    rsql_free(out_names);
    rsql_free(out_types);
    rsql_free(id);
    rsql_free(key);
    rsql_free(shared);
    cols_free(&src_cols);
    rsql_free(src_descs);
    rsql_free(src_required);
    rsql_free(src_key);
    cols_free(&phys_cols);
    cols_free(&snk_cols);
    cols_free(&dlq_cols);
    rsql_free(meta_keys);
    rsql_free(meta_types);
    rsql_free(x.phys);
    rsql_free(x.fmeta);
    return rc;
}

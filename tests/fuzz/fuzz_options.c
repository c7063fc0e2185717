/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_options: a CREATE TABLE's columns and WITH options through rsql_connector_validate,
 * for every connector of the registry ('#' rows such as fields.#.kind included), then what
 * the planner asks of a validated table: each side's check, the format's and the connector's
 * column checks, whether a read is bounded, the EXPLAIN lines, the masking of secrets. The
 * datagen source, the one whose open touches nothing outside the process, is also opened and
 * polled for a few rows (its options once led to a use-after-free).
 *
 * Input: the first line holds the columns, "name TYPE" separated by ',' (an unknown or
 * missing type is VARCHAR); every further line is one option, "key=value" (split at the first
 * '='). Without a 'connector' option the set is validated once for each connector, with
 * 'connector' = its name prepended.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_io.h"

#include <stdarg.h>
#include <strings.h>

/* The one source the target can open and poll without any outside resource. */
extern const rsql_connector_def_t rsql_datagen_conn_def;

#define MAX_COLS 8
#define MAX_KVS 24

static void x_attr(const rsql_explain_t *x, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void x_text(const rsql_explain_t *x, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void x_attr(const rsql_explain_t *x, const char *name, const char *fmt, ...)
{
    rsql_buf_t *b = x->priv;
    va_list ap;
    va_start(ap, fmt);
    rsql_buf_printf(b, "%s: ", name);
    rsql_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

static void x_text(const rsql_explain_t *x, const char *fmt, ...)
{
    rsql_buf_t *b = x->priv;
    va_list ap;
    va_start(ap, fmt);
    rsql_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Open the datagen source on set and poll up to three small batches. */
static void poll_datagen(const rsql_connector_def_t *c, rsql_optset_t *set, int n,
                         const char *const *cols, const rsql_type_t *types)
{
    rsql_source_ctx_t ctx = {0};
    ctx.table = "t";
    ctx.pipeline = "fuzz";
    ctx.opts = set;
    ctx.conf = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    ctx.format_conf = rsql_optset_conf(set, RSQL_CONF_FORMAT);
    ctx.n_columns = n;
    ctx.column_names = cols;
    ctx.column_types = types;
    rsql_source_t *src = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    if (c->source->open(&ctx, &src, &err) != RSQL_OK) {
        FZ_CHECK(err.code != RSQL_OK && err.code != RSQL_ERR_INTERNAL && !src,
                 "datagen open failed with %s: %s", rsql_err_name(err.code), err.msg);
        return;
    }
    for (int k = 0; k < 3; k++) {
        rsql_batch_t *b = rsql_batch_new(16);
        FZ_CHECK(b, "out of memory");
        bool eof = false;
        rsql_error_clear(&err);
        rsql_err_t rc = c->source->poll(src, b, 16, 0, &eof, &err);
        for (int i = 0; rc == RSQL_OK && i < b->n; i++) {
            for (int j = 0; j < n; j++) {
                const rsql_value_t *v = &b->recs[i].row[j];
                FZ_CHECK(v->is_null || v->type == types[j], "column %d: type %d, not %d", j,
                         (int)v->type, (int)types[j]);
                FZ_CHECK(types[j] != RSQL_TYPE_INT || v->is_null ||
                             (v->v.i >= INT32_MIN && v->v.i <= INT32_MAX),
                         "INT column %d holds %lld", j, (long long)v->v.i);
            }
        }
        rsql_batch_destroy(b);
        if (rc != RSQL_OK || eof) {
            break;
        }
    }
    c->source->close(src);
}

/* What the planner and EXPLAIN ask of a validated table. */
static void use_table(const rsql_connector_def_t *c, rsql_optset_t *set, int n,
                      const char *const *cols, const rsql_type_t *types)
{
    rsql_error_t err;
    bool sides[3] = {false, false, false};
    for (int side = RSQL_SIDE_SOURCE; side <= RSQL_SIDE_SINK; side++) {
        rsql_error_clear(&err);
        sides[side] = rsql_connector_check_side(c, set, side, "t", RSQL_NOPOS, &err) == RSQL_OK;
    }
    const rsql_format_def_t *fmt = rsql_connector_format(c, set);
    if (fmt && fmt->check_columns) {
        rsql_error_clear(&err);
        if (fmt->check_columns("t", n, cols, types, RSQL_NOPOS, &err) != RSQL_OK) {
            return; /* the planner stops here */
        }
    }
    if (rsql_connector_check_columns(c, set, "t", n, cols, types, RSQL_NOPOS, &err) !=
        RSQL_OK) {
        return;
    }
    const void *conf = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    if (sides[RSQL_SIDE_SOURCE] && c->bounded) {
        const char *why = NULL;
        c->bounded(conf, &why);
        FZ_CHECK(why && *why, "bounded() gave no reason");
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    for (int part = RSQL_EXPLAIN_SOURCE; c->explain && part <= RSQL_EXPLAIN_ERRORS; part++) {
        if ((part == RSQL_EXPLAIN_SOURCE || part == RSQL_EXPLAIN_POLL) &&
            !sides[RSQL_SIDE_SOURCE]) {
            continue;
        }
        if (part == RSQL_EXPLAIN_SINK && !sides[RSQL_SIDE_SINK]) {
            continue;
        }
        for (int preview = 0; preview < 2; preview++) {
            rsql_explain_t x = {(rsql_explain_part_t)part, conf, set, preview, !preview,
                                x_attr, x_text, &b};
            c->explain(&x);
        }
    }
    for (int i = 0; i < rsql_optset_count(set); i++) {
        const rsql_opt_kv_t *kv = rsql_optset_at(set, i);
        rsql_buf_t sb = RSQL_BUF_INIT;
        rsql_optset_put_shown(set, i, &sb);
        const char *shown = rsql_buf_str(&sb);
        if (rsql_connector_is_secret(c, kv->key) && !rsql_optset_pending_at(set, i)) {
            /* an unresolved reference is shown as written: it is not the secret */
            FZ_CHECK(strcmp(shown, kv->value) != 0 || !*kv->value, "secret '%s' shown", kv->key);
        }
        rsql_buf_deinit(&sb);
    }
    rsql_buf_deinit(&b);
    if (sides[RSQL_SIDE_SOURCE] && c == &rsql_datagen_conn_def) {
        poll_datagen(c, set, n, cols, types);
    }
}

static void validate(const rsql_opt_kv_t *kvs, int nk, int n, const char *const *cols,
                     const rsql_type_t *types)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_connector_def_t *c = NULL;
    rsql_optset_t *set = rsql_connector_validate(kvs, nk, cols, n, RSQL_NOPOS, &c, &err);
    if (!set) {
        FZ_CHECK(err.code == RSQL_ERR_BAD_OPTION || err.code == RSQL_ERR_MISSING_OPTION,
                 "validation failed with %s: %s", rsql_err_name(err.code), err.msg);
        return;
    }
    FZ_CHECK(c, "validated without a connector");
    use_table(c, set, n, cols, types);
    rsql_optset_destroy(set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 16 * 1024 || memchr(data, 0, size)) {
        return 0; /* SQL strings and names hold no NUL */
    }
    fz_reader_t r = {data, size};
    size_t len;
    const uint8_t *line = fz_until(&r, '\n', &len);
    char *colspec = fz_strndup(line, len);
    char *cols[MAX_COLS];
    rsql_type_t types[MAX_COLS];
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(colspec, ",", &save); tok && n < MAX_COLS;
         tok = strtok_r(NULL, ",", &save)) {
        char *sp = strchr(tok, ' ');
        int t = -1;
        if (sp) {
            *sp = '\0';
            t = rsql_type_from_name(sp + 1);
        }
        if (!*tok) {
            continue;
        }
        cols[n] = tok;
        types[n] = t > RSQL_TYPE_NULL ? (rsql_type_t)t : RSQL_TYPE_VARCHAR;
        n++;
    }
    rsql_opt_kv_t kvs[MAX_KVS + 1];
    char *bufs[MAX_KVS];
    int nk = 1; /* kvs[0]: the connector, when the input gives none */
    bool has_connector = false;
    while (r.n && nk <= MAX_KVS) {
        line = fz_until(&r, '\n', &len);
        char *kv = fz_strndup(line, len);
        bufs[nk - 1] = kv;
        char *eq = strchr(kv, '=');
        if (eq) {
            *eq = '\0';
        }
        kvs[nk] = (rsql_opt_kv_t){kv, eq ? eq + 1 : "", RSQL_NOPOS, RSQL_NOPOS};
        has_connector |= strcasecmp(kv, "connector") == 0;
        nk++;
    }
    if (has_connector) {
        validate(kvs + 1, nk - 1, n, (const char *const *)cols, types);
    } else {
        for (const rsql_connector_def_t *const *c = rsql_connector_list(); *c; c++) {
            kvs[0] = (rsql_opt_kv_t){"connector", (*c)->name, RSQL_NOPOS, RSQL_NOPOS};
            validate(kvs, nk, n, (const char *const *)cols, types);
        }
    }
    for (int i = 0; i < nk - 1; i++) {
        free(bufs[i]);
    }
    free(colspec);
    return 0;
}

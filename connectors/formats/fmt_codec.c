/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The format dispatcher: makes decoders and encoders for a table (reading
 * the format's options once) and routes rsql_decode / rsql_encode to the
 * format files.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "connectors/rsql_conn_io.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The formats this build has: one row each (a changelog format adds its own). */
typedef struct fmt_def {
    const char *name;
    fmt_kind_t kind;
    bool changelog;
    const rsql_format_meta_t *meta; /* ended by a NULL key, or NULL */
} fmt_def_t;

static const fmt_def_t fmt_defs[] = {
    {"canal-json", FMT_CANAL, true, rsql_fmt__canal_meta},
    {"csv", FMT_CSV, false, NULL},
    {"debezium-json", FMT_DEBEZIUM, true, rsql_fmt__dbz_meta},
    {"json", FMT_JSON, false, NULL},
    {"maxwell-json", FMT_MAXWELL, true, rsql_fmt__maxwell_meta},
    {"raw", FMT_RAW, false, NULL},
};

/* The name of the format of kind (the first row of that kind). */
static const char *fmt_defs_name(fmt_kind_t kind)
{
    for (size_t i = 0; i < sizeof fmt_defs / sizeof fmt_defs[0]; i++) {
        if (fmt_defs[i].kind == kind) {
            return fmt_defs[i].name;
        }
    }
    return "";
}

static const fmt_def_t *fmt_def(const char *format)
{
    for (size_t i = 0; format && i < sizeof fmt_defs / sizeof fmt_defs[0]; i++) {
        if (strcasecmp(format, fmt_defs[i].name) == 0) {
            return &fmt_defs[i];
        }
    }
    return NULL;
}

/*
** True when format names a format this build has.
*/
bool rsql_format_known(const char *format)
{
    return fmt_def(format) != NULL;
}

bool rsql_format_changelog(const char *format)
{
    const fmt_def_t *d = fmt_def(format);
    return d && d->changelog;
}

const rsql_format_meta_t *rsql_format_metadata(const char *format)
{
    const fmt_def_t *d = fmt_def(format);
    return d ? d->meta : NULL;
}

static void need_free(fmt_need_t *kids, int n, const rsql_tdesc_t *d)
{
    for (int i = 0; kids && i < n; i++) {
        const rsql_tdesc_t *cd = d && d->type == RSQL_TYPE_ROW ? d->children[i] : NULL;
        need_free(kids[i].kids, cd && cd->type == RSQL_TYPE_ROW ? cd->n : 0, cd);
    }
    rsql_free(kids);
}

static void conf_deinit(fmt_conf_t *c)
{
    for (int i = 0; c->needs && i < c->n; i++) {
        const rsql_tdesc_t *d = c->descs ? c->descs[i] : NULL;
        need_free(c->needs[i].kids, d && d->type == RSQL_TYPE_ROW ? d->n : 0, d);
    }
    rsql_free(c->needs);
    for (int i = 0; c->names && i < c->n; i++) {
        rsql_free(c->names[i]);
    }
    rsql_free(c->names);
    rsql_free(c->name_lens);
    rsql_free(c->keypats);
    rsql_free(c->types);
    rsql_free(c->descs);
    rsql_free(c->csv_null);
    rsql_fmt__dbz_free(c);
    rsql_fmt__cdc_conf_deinit(c);
    memset(c, 0, sizeof *c);
}

/* The pattern `"name":` of a column (fmt_int.h), or len 0 when the name is longer than 13
   bytes or holds a byte JSON escapes in a key ('"', '\\', a control character): such a name
   written as is would not be that key. */
static void keypat_init(fmt_keypat_t *k, const char *name, size_t n)
{
    memset(k, 0, sizeof *k);
    if (n + 3 > sizeof k->w) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        if (ch == '"' || ch == '\\' || ch < 0x20) {
            return;
        }
    }
    unsigned char b[sizeof k->w] = {0}, m[sizeof k->m] = {0};
    b[0] = '"';
    memcpy(b + 1, name, n);
    b[n + 1] = '"';
    b[n + 2] = ':';
    memset(m, 0xff, n + 3);
    memcpy(k->w, b, sizeof b);
    memcpy(k->m, m, sizeof m);
    k->len = n + 3;
}

static rsql_err_t conf_init(fmt_conf_t *c, const char *format, const void *format_conf,
                            int n, const char *const *names, const rsql_type_t *types,
                            rsql_error_t *err)
{
    memset(c, 0, sizeof *c);
    const fmt_def_t *def = fmt_def(format);
    if (!def) {
        char known[256] = "";
        for (size_t i = 0, o = 0; i < sizeof fmt_defs / sizeof fmt_defs[0]; i++) {
            int w = snprintf(known + o, sizeof known - o, "%s%s", i ? ", " : "", fmt_defs[i].name);
            o = w > 0 && (size_t)w < sizeof known - o ? o + (size_t)w : sizeof known - 1;
        }
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "unknown format '%s' (formats are: %s)", format ? format : "",
                              known);
    }
    c->kind = def->kind;
    c->def_meta = def->meta;
    if (n < 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "format '%s' needs at least one column", format);
    }
    if (c->kind == FMT_RAW && n != 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "format 'raw' needs exactly one VARCHAR or BYTES column, the "
                              "table has %d columns", n);
    }
    if (c->kind == FMT_RAW && types[0] != RSQL_TYPE_VARCHAR && types[0] != RSQL_TYPE_BYTES) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "format 'raw' needs exactly one VARCHAR or BYTES column, column "
                              "'%s' is %s", names[0], rsql_type_name(types[0]));
    }
    c->n = n;
    c->names = rsql_calloc((size_t)n, sizeof *c->names);
    c->name_lens = rsql_calloc((size_t)n, sizeof *c->name_lens);
    c->keypats = rsql_calloc((size_t)n, sizeof *c->keypats);
    c->types = rsql_calloc((size_t)n, sizeof *c->types);
    c->descs = rsql_calloc((size_t)(n ? n : 1), sizeof *c->descs);
    if (!c->names || !c->name_lens || !c->keypats || !c->types || !c->descs) {
        goto nomem;
    }
    for (int i = 0; i < n; i++) {
        c->names[i] = rsql_strdup(names[i]);
        if (!c->names[i]) {
            goto nomem;
        }
        c->name_lens[i] = strlen(names[i]);
        c->types[i] = types[i];
        keypat_init(&c->keypats[i], names[i], c->name_lens[i]);
    }
    /* the format's typed configuration; NULL: every option at its default */
    static const rsql_json_conf_t json_default = {false, RSQL_JSON_TS_SQL};
    static const rsql_csv_conf_t csv_default = {",", "\"", "", ',', '"'};
    if (c->kind == FMT_JSON) {
        const rsql_json_conf_t *j = format_conf ? format_conf : &json_default;
        c->json_fail_missing = j->fail_on_missing_field;
        c->json_ts_millis = j->timestamp_format == RSQL_JSON_TS_EPOCH_MILLIS;
        c->json_ts_iso = j->timestamp_format == RSQL_JSON_TS_ISO8601;
    }
    if (c->kind == FMT_CSV) {
        const rsql_csv_conf_t *v = format_conf ? format_conf : &csv_default;
        c->csv_delim = v->delimiter;
        c->csv_quote = v->quote;
        const char *nl = v->null_literal;
        if (nl) {
            c->csv_null = rsql_strdup(nl);
            if (!c->csv_null) {
                goto nomem;
            }
            c->csv_null_len = strlen(nl);
        }
    }
    if (c->kind == FMT_DEBEZIUM) {
        return rsql_fmt__dbz_init(c, format_conf, err);
    }
    if (c->kind == FMT_CANAL || c->kind == FMT_MAXWELL) {
        return rsql_fmt__cdc_conf_init(c, format_conf, err);
    }
    return RSQL_OK;
nomem:
    return rsql_error_nomem(err);
}

/*
** A decoder (see rsql_format.h). Caller destroys with rsql_decoder_destroy.
*/
rsql_decoder_t *rsql_decoder_new(const char *format, const void *format_conf, int n_columns,
                                 const char *const *names, const rsql_type_t *types,
                                 rsql_error_t *err)
{
    rsql_decoder_t *dec = rsql_calloc(1, sizeof *dec);
    if (!dec) {
        rsql_error_nomem(err);
        return NULL;
    }
    rsql_buf_init(&dec->scratch);
    if (conf_init(&dec->c, format, format_conf, n_columns, names, types, err) != RSQL_OK) {
        rsql_decoder_destroy(dec);
        return NULL;
    }
    size_t n = (size_t)n_columns + 1;
    dec->seen = rsql_calloc(n, sizeof *dec->seen);
    dec->fstart = rsql_calloc(n, sizeof *dec->fstart);
    dec->flen = rsql_calloc(n, sizeof *dec->flen);
    dec->fquoted = rsql_calloc(n, sizeof *dec->fquoted);
    if (!dec->seen || !dec->fstart || !dec->flen || !dec->fquoted) {
        rsql_error_nomem(err);
        rsql_decoder_destroy(dec);
        return NULL;
    }
    return dec;
}

/*
** Free dec (NULL is a no-op).
*/
void rsql_decoder_destroy(rsql_decoder_t *dec)
{
    if (!dec) {
        return;
    }
    conf_deinit(&dec->c);
    rsql_free(dec->seen);
    rsql_free(dec->fstart);
    rsql_free(dec->flen);
    rsql_free(dec->fquoted);
    rsql_free(dec->want);
    rsql_free(dec->key);
    rsql_free(dec->key_need);
    rsql_buf_deinit(&dec->scratch);
    rsql_free(dec);
}

/* rsql_decode of a body of a changelog format: refused (out of the hot path below) */
static __attribute__((noinline, cold)) rsql_err_t decode_refused(const rsql_decoder_t *dec,
                                                                 rsql_error_t *err)
{
    if (rsql_format_changelog(fmt_defs_name(dec->c.kind))) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "format '%s' holds changes: its bodies are read as changes",
                              fmt_defs_name(dec->c.kind));
    }
    return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "bad format kind");
}

/*
** Decode one body into row (see rsql_format.h).
*/
rsql_err_t rsql_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len, rsql_arena_t *arena,
                       rsql_value_t *row, rsql_error_t *err)
{
    static const uint8_t empty[1] = {0};
    if (!raw) {
        raw = empty;
        len = 0;
    }
    switch (dec->c.kind) {
    case FMT_JSON: return rsql_fmt__json_decode(dec, raw, len, arena, row, err);
    case FMT_CSV: return rsql_fmt__csv_decode(dec, raw, len, arena, row, err);
    case FMT_RAW: return rsql_fmt__raw_decode(dec, raw, len, arena, row, err);
    default: return decode_refused(dec, err);
    }
}

/*
** Decode one body into its changes (see rsql_format.h): the plain formats give one INSERT.
*/
rsql_err_t rsql_decode_changes(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                               rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err)
{
    static const uint8_t empty[1] = {0};
    if (dec->c.kind == FMT_CANAL || dec->c.kind == FMT_MAXWELL) {
        return rsql_fmt__cdc_decode(dec, raw ? raw : empty, raw ? len : 0, arena, out, err);
    }
    out->n = 0;
    if (dec->c.kind == FMT_DEBEZIUM) {
        return rsql_fmt__dbz_decode(dec, raw ? raw : empty, raw ? len : 0, arena, out, err);
    }
    out->rows = rsql_arena_alloc(arena, sizeof *out->rows);
    out->kinds = rsql_arena_alloc(arena, 1);
    rsql_value_t *row = rsql_arena_alloc(arena, (size_t)(dec->c.n + dec->n_want) * sizeof *row);
    if (!out->rows || !out->kinds || !row) {
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = rsql_decode(dec, raw, len, arena, row, err);
    if (rc == RSQL_OK) {
        out->rows[0] = row;
        out->kinds[0] = RSQL_ROW_INSERT;
        out->n = 1;
    }
    return rc;
}

/*
** Fill format metadata key into each decoded row after its columns (see rsql_format.h).
*/
rsql_err_t rsql_decoder_want_meta(rsql_decoder_t *dec, const char *key, rsql_error_t *err)
{
    int id = -1;
    for (int i = 0; key && dec->c.def_meta && dec->c.def_meta[i].key; i++) {
        if (strcasecmp(dec->c.def_meta[i].key, key) == 0) {
            id = i;
        }
    }
    if (id < 0) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "the format has no metadata key '%s'", key ? key : "");
    }
    int *grown = rsql_realloc(dec->want, (size_t)(dec->n_want + 1) * sizeof *grown);
    if (!grown) {
        return rsql_error_nomem(err);
    }
    dec->want = grown;
    dec->want[dec->n_want++] = id;
    return RSQL_OK;
}

/*
** Give updates without their UPDATE_BEFORE when they keep the key (see rsql_format.h).
*/
rsql_err_t rsql_decoder_skip_before(rsql_decoder_t *dec, const int *key, int n_key,
                                    rsql_error_t *err)
{
    if (n_key < 1 || dec->key) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "decoder: bad key to skip "
                              "the rows before updates by");
    }
    for (int k = 0; k < n_key; k++) {
        if (key[k] < 0 || key[k] >= dec->c.n) {
            return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                  "decoder: key column %d of %d columns", key[k], dec->c.n);
        }
    }
    dec->key = rsql_calloc((size_t)n_key, sizeof *dec->key);
    dec->key_need = rsql_calloc((size_t)dec->c.n, sizeof *dec->key_need);
    if (!dec->key || !dec->key_need) {
        rsql_free(dec->key);
        rsql_free(dec->key_need);
        dec->key = NULL;
        dec->key_need = NULL;
        return rsql_error_nomem(err);
    }
    for (int k = 0; k < n_key; k++) {
        dec->key[k] = key[k];
        dec->key_need[key[k]].used = dec->key_need[key[k]].all = true;
    }
    dec->n_key = n_key;
    return RSQL_OK;
}

/*
** The bodies dec gave no rows for, by cause (see rsql_format.h).
*/
void rsql_decoder_skips(const rsql_decoder_t *dec, rsql_decode_skips_t *out)
{
    *out = dec->skips;
}

/*
** An encoder (see rsql_format.h). Caller destroys with rsql_encoder_destroy.
*/
rsql_encoder_t *rsql_encoder_new(const char *format, const void *format_conf, int n_columns,
                                 const char *const *names, const rsql_type_t *types,
                                 rsql_error_t *err)
{
    rsql_encoder_t *enc = rsql_calloc(1, sizeof *enc);
    if (!enc) {
        rsql_error_nomem(err);
        return NULL;
    }
    rsql_buf_init(&enc->scratch);
    if (conf_init(&enc->c, format, format_conf, n_columns, names, types, err) != RSQL_OK) {
        rsql_encoder_destroy(enc);
        return NULL;
    }
    return enc;
}

/*
** Free enc (NULL is a no-op).
*/
void rsql_encoder_destroy(rsql_encoder_t *enc)
{
    if (!enc) {
        return;
    }
    conf_deinit(&enc->c);
    rsql_buf_deinit(&enc->scratch);
    rsql_free(enc->key_end);
    rsql_free(enc);
}

/*
** Append the encoding of row to out (see rsql_format.h).
*/
rsql_err_t rsql_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                       rsql_error_t *err)
{
    rsql_err_t rc;
    switch (enc->c.kind) {
    case FMT_JSON: rc = rsql_fmt__json_encode(enc, row, out, err); break;
    case FMT_CSV: rc = rsql_fmt__csv_encode(enc, row, out, err); break;
    case FMT_RAW: rc = rsql_fmt__raw_encode(enc, row, out, err); break;
    case FMT_DEBEZIUM: rc = rsql_fmt__dbz_encode(enc, row, RSQL_ROW_INSERT, out, err); break;
    case FMT_CANAL:
    case FMT_MAXWELL: rc = rsql_fmt__cdc_encode(enc, row, RSQL_ROW_INSERT, out, err); break;
    default: rc = RSQL_ERR_INTERNAL; break;
    }
    if (rc == RSQL_OK && out->oom) {
        rc = rsql_error_nomem(err);
    }
    return rc;
}

/*
** Append the encoding of row with its kind (see rsql_format.h).
*/
rsql_err_t rsql_encode_change(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                              rsql_buf_t *out, rsql_error_t *err)
{
    if (enc->c.kind == FMT_DEBEZIUM || enc->c.kind == FMT_CANAL || enc->c.kind == FMT_MAXWELL) {
        rsql_err_t rc = enc->c.kind == FMT_DEBEZIUM ? rsql_fmt__dbz_encode(enc, row, kind, out, err)
                                                    : rsql_fmt__cdc_encode(enc, row, kind, out, err);
        return rc == RSQL_OK && out->oom ? rsql_error_nomem(err) : rc;
    }
    if (kind != RSQL_ROW_INSERT) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "a %s row cannot be written in an append-only format",
                              rsql_rowkind_short(kind));
    }
    return rsql_encode(enc, row, out, err);
}

/*
** Give column col of dec its full type (DECIMAL(p, s), ROW, ARRAY, MAP);
** interned, so nothing is copied. Without it a DECIMAL column reads as
** DECIMAL(10, 0) and a nested column as NULL.
*/
void rsql_decoder_set_desc(rsql_decoder_t *dec, int col, const rsql_tdesc_t *desc)
{
    if (dec && col >= 0 && col < dec->c.n && (!desc || desc->type == dec->c.types[col])) {
        dec->c.descs[col] = desc;
    }
}

/*
** From now on dec builds only what rsql_decoder_use marks: every other
** column (and ROW field) is skipped and NULL. RSQL_ERR_NOMEM or OK.
*/
rsql_err_t rsql_decoder_prune(rsql_decoder_t *dec, rsql_error_t *err)
{
    if (!dec->c.needs) {
        dec->c.needs = rsql_calloc((size_t)(dec->c.n ? dec->c.n : 1), sizeof(fmt_need_t));
        if (!dec->c.needs) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}

/*
** Mark column col as read: all of it (depth 0), or the ROW field path
** path[0..depth) (field indexes into the column's ROW descriptor; a path
** that leaves the ROWs marks the rest whole). Needs rsql_decoder_prune.
*/
rsql_err_t rsql_decoder_use(rsql_decoder_t *dec, int col, const int *path, int depth,
                            rsql_error_t *err)
{
    fmt_conf_t *c = &dec->c;
    if (!c->needs || col < 0 || col >= c->n) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "decoder: bad column use");
    }
    fmt_need_t *node = &c->needs[col];
    const rsql_tdesc_t *d = c->descs[col];
    node->used = true;
    for (int k = 0; k < depth && !node->all; k++) {
        if (!d || d->type != RSQL_TYPE_ROW || path[k] < 0 || path[k] >= d->n) {
            break;
        }
        if (!node->kids && !(node->kids = rsql_calloc((size_t)d->n, sizeof(fmt_need_t)))) {
            return rsql_error_nomem(err);
        }
        node = &node->kids[path[k]];
        node->used = true;
        d = d->children[path[k]];
    }
    node->all = true;
    return RSQL_OK;
}

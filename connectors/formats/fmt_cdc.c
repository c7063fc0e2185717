/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * What canal-json (fmt_canal.c) and maxwell-json (fmt_maxwell.c) share: both wrap rows of
 * the table in a JSON envelope naming the change ("type"), the row ("data") and, for an
 * update, the previous values of the changed columns ("old"). This file reads the envelope
 * over the json scanner (fmt_json_scan.c): the top-level object's fields as spans, strings,
 * numbers and arrays of it; turns a row object and its "old" into the change rows through
 * the json row codec (fmt_json.c: the same rules, projection pushdown included, with a JSON
 * string holding a number or boolean read as one, as Canal writes every value); fills the
 * format metadata; skips what the options say (include expressions, ignore-parse-errors)
 * and counts the bodies that give no rows; and writes a row with its kind back (Flink's
 * encoders: an UPDATE_BEFORE is written as a delete, an UPDATE_AFTER as an insert).
 *
 * Entry points: rsql_fmt__cdc_conf_init/_deinit (fmt_codec.c, per decoder or encoder),
 * rsql_fmt__cdc_decode and rsql_fmt__cdc_encode (the dispatch).
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ---- configuration: the include expressions */

#define RE_OPTS (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)
#define RE_MATCH_LIMIT 1000000u
#define RE_DEPTH_LIMIT 10000u
#define RE_HEAP_LIMIT_KIB 16384u

static pcre2_match_context *match_ctx;
static pthread_once_t match_once = PTHREAD_ONCE_INIT;

static void match_ctx_init(void)
{
    match_ctx = pcre2_match_context_create(NULL);
    if (match_ctx) {
        pcre2_set_match_limit(match_ctx, RE_MATCH_LIMIT);
        pcre2_set_depth_limit(match_ctx, RE_DEPTH_LIMIT);
        pcre2_set_heap_limit(match_ctx, RE_HEAP_LIMIT_KIB);
    }
}

static pcre2_code *re_compile(const char *re, char *why, size_t size)
{
    int code = 0;
    PCRE2_SIZE off = 0;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, RE_OPTS, &code, &off,
                                  NULL);
    if (!c && why) {
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(code, msg, sizeof msg) < 0) {
            snprintf((char *)msg, sizeof msg, "error %d", code);
        }
        snprintf(why, size, "%s at offset %zu", (const char *)msg, (size_t)off);
    }
    return c;
}

/*
** True when re compiles (the options' validation); else false with the reason in why.
*/
bool rsql_fmt__regex_valid(const char *re, char *why, size_t size)
{
    pcre2_code *c = re_compile(re ? re : "", why, size);
    pcre2_code_free(c);
    return c != NULL;
}

/*
** True when re matches the whole of s (as Java's Matcher.matches, which Flink uses); a
** match over the limits (a hostile expression) does not match. re NULL: everything does.
*/
bool cdc_match(const void *re, const char *s, size_t n)
{
    if (!re) {
        return true;
    }
    pthread_once(&match_once, match_ctx_init);
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) {
        return false;
    }
    int rc = pcre2_match(re, (PCRE2_SPTR)(s ? s : ""), n, 0,
                         PCRE2_ANCHORED | PCRE2_ENDANCHORED, md, match_ctx);
    pcre2_match_data_free(md);
    return rc >= 0;
}

/*
** The cdc part of a decoder's or encoder's configuration (format_conf NULL: defaults).
** Errors: an include expression that does not compile (validated before, so only a caller
** that skipped validation sees it), out of memory.
*/
rsql_err_t rsql_fmt__cdc_conf_init(fmt_conf_t *c, const void *format_conf, rsql_error_t *err)
{
    static const rsql_cdc_json_conf_t defaults = {false, RSQL_JSON_TS_SQL, "", ""};
    const rsql_cdc_json_conf_t *cc = format_conf ? format_conf : &defaults;
    char why[200];
    c->json_str_scalars = true;
    c->cdc_ignore_errors = cc->ignore_parse_errors;
    c->json_ts_iso = cc->timestamp_standard == RSQL_JSON_TS_ISO8601;
    const char *res[2] = {cc->database_include, cc->table_include};
    void **dst[2] = {&c->cdc_db_re, &c->cdc_tbl_re};
    for (int i = 0; i < 2; i++) {
        if (res[i] && *res[i]) {
            *dst[i] = re_compile(res[i], why, sizeof why);
            if (!*dst[i]) {
                return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                      "invalid regular expression '%s': %s", res[i], why);
            }
        }
    }
    return RSQL_OK;
}

void rsql_fmt__cdc_conf_deinit(fmt_conf_t *c)
{
    pcre2_code_free(c->cdc_db_re);
    pcre2_code_free(c->cdc_tbl_re);
    c->cdc_db_re = c->cdc_tbl_re = NULL;
}

/* ---- the envelope */

static const char *what_is(const cdc_msg_t *m, cdc_span_t s)
{
    if (s.at == s.end) {
        return "nothing (absent)";
    }
    switch (m->p.s[s.at]) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
    }
}

rsql_err_t cdc_fail(cdc_msg_t *m, const char *key, const char *want, cdc_span_t s)
{
    return rsql_error_set(m->p.err, RSQL_ERR_DECODE, RSQL_NOPOS, "%s: '%s' must be %s, got %s",
                          m->fmt, key, want, what_is(m, s));
}

/*
** Scan the whole body (a JSON object, validated to its end) and note where the values of
** keys are (exact names; the last of duplicates wins).
*/
rsql_err_t cdc_fields(cdc_msg_t *m, const char *const *keys, int n, cdc_span_t *spans)
{
    jp_t *p = &m->p;
    memset(spans, 0, (size_t)n * sizeof *spans);
    jp_ws(p);
    if (p->i >= p->n) {
        return jp_unexpected(p);
    }
    if (p->s[p->i] != '{') {
        cdc_span_t all = {p->i, p->i + 1};
        if (jp_skip(p, 0) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "%s: expected a JSON object, got %s", m->fmt, what_is(m, all));
    }
    p->i++;
    jp_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
    } else {
        for (;;) {
            const char *key;
            size_t key_len;
            bool escaped = false;
            jp_ws(p);
            if (p->i >= p->n || p->s[p->i] != '"') {
                return p->i >= p->n ? jp_unexpected(p) : jp_fail(p, p->i, "expected a string key");
            }
            size_t key_at = p->i;
            if (jp_string(p, NULL, &key, &key_len, &escaped) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            if (escaped) { /* rare: the key unescaped into scratch */
                jp_t kp = {p->s, p->n, key_at, p->err};
                if (jp_string(&kp, &m->dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                if (m->dec->scratch.oom) {
                    return rsql_error_nomem(p->err);
                }
                key = m->dec->scratch.data ? m->dec->scratch.data : "";
                key_len = m->dec->scratch.len;
            }
            jp_ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') {
                return p->i >= p->n ? jp_unexpected(p)
                                    : jp_fail(p, p->i, "expected ':' after an object key");
            }
            p->i++;
            jp_ws(p);
            size_t at = p->i;
            if (jp_skip(p, 1) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            for (int k = 0; k < n; k++) {
                if (strlen(keys[k]) == key_len && memcmp(keys[k], key, key_len) == 0) {
                    spans[k] = (cdc_span_t){at, p->i};
                }
            }
            jp_ws(p);
            if (p->i < p->n && p->s[p->i] == ',') {
                p->i++;
                continue;
            }
            if (p->i < p->n && p->s[p->i] == '}') {
                p->i++;
                break;
            }
            return p->i >= p->n ? jp_unexpected(p)
                                : jp_fail(p, p->i, "expected ',' or '}' in an object");
        }
    }
    jp_ws(p);
    if (p->i < p->n) {
        return jp_fail(p, p->i, "unexpected data after the object");
    }
    return RSQL_OK;
}

bool cdc_null(const cdc_msg_t *m, cdc_span_t s)
{
    return s.at == s.end || m->p.s[s.at] == 'n';
}

rsql_err_t cdc_str(cdc_msg_t *m, cdc_span_t s, const char *key, const char **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (cdc_null(m, s)) {
        return RSQL_OK;
    }
    if (m->p.s[s.at] != '"') {
        return cdc_fail(m, key, "a string", s);
    }
    jp_t sp = {m->p.s, s.end, s.at, m->p.err};
    rsql_buf_t *b = &m->dec->scratch;
    if (jp_string(&sp, b, NULL, NULL, NULL) != RSQL_OK) {
        return RSQL_ERR_DECODE;
    }
    char *cp = b->oom ? NULL : rsql_arena_strndup(m->arena, b->data ? b->data : "", b->len);
    if (!cp) {
        return rsql_error_nomem(m->p.err);
    }
    *out = cp;
    *n = b->len;
    return RSQL_OK;
}

rsql_err_t cdc_int(cdc_msg_t *m, cdc_span_t s, const char *key, int64_t *out, bool *set)
{
    *set = false;
    if (cdc_null(m, s)) {
        return RSQL_OK;
    }
    char ch = m->p.s[s.at];
    if ((ch != '-' && (ch < '0' || ch > '9')) ||
        rsql_value_parse_int(RSQL_TYPE_BIGINT, m->p.s + s.at, s.end - s.at, out, NULL) !=
            RSQL_OK) {
        return cdc_fail(m, key, "an integer", s);
    }
    *set = true;
    return RSQL_OK;
}

rsql_err_t cdc_bool(cdc_msg_t *m, cdc_span_t s, const char *key, bool *out)
{
    *out = false;
    if (cdc_null(m, s)) {
        return RSQL_OK;
    }
    const char *t = m->p.s + s.at;
    size_t n = s.end - s.at;
    if ((n == 4 && !memcmp(t, "true", 4)) || (n == 6 && !memcmp(t, "\"true\"", 6))) {
        *out = true;
    } else if (!(n == 5 && !memcmp(t, "false", 5)) && !(n == 7 && !memcmp(t, "\"false\"", 7))) {
        return cdc_fail(m, key, "a boolean", s);
    }
    return RSQL_OK;
}

rsql_err_t cdc_items(cdc_msg_t *m, cdc_span_t s, const char *key, int *n)
{
    *n = 0;
    if (cdc_null(m, s)) {
        return RSQL_OK;
    }
    if (m->p.s[s.at] != '[') {
        return cdc_fail(m, key, "an array", s);
    }
    size_t it = s.at;
    cdc_span_t item;
    while (cdc_next(m, s, &it, &item)) {
        ++*n;
    }
    return RSQL_OK;
}

/* The items of a validated array: no error can occur here. */
bool cdc_next(const cdc_msg_t *m, cdc_span_t s, size_t *it, cdc_span_t *item)
{
    jp_t p = {m->p.s, s.end, *it, m->p.err};
    if (cdc_null(m, s) || p.i >= s.end) {
        return false;
    }
    p.i++; /* '[' or ',' */
    jp_ws(&p);
    if (p.i >= s.end || p.s[p.i] == ']') {
        *it = s.end;
        return false;
    }
    item->at = p.i;
    if (jp_skip(&p, 1) != RSQL_OK) {
        *it = s.end;
        return false;
    }
    item->end = p.i;
    jp_ws(&p);
    *it = p.i;
    return true;
}

rsql_err_t cdc_reserve(cdc_msg_t *m, int n)
{
    rsql_changes_t *o = m->out;
    if (o->n + n <= m->cap) {
        return RSQL_OK;
    }
    int cap = o->n + n;
    rsql_value_t **rows = rsql_arena_alloc(m->arena, (size_t)cap * sizeof *rows);
    uint8_t *kinds = rsql_arena_alloc(m->arena, (size_t)cap);
    if (!rows || !kinds) {
        return rsql_error_nomem(m->p.err);
    }
    if (o->n) {
        memcpy(rows, o->rows, (size_t)o->n * sizeof *rows);
        memcpy(kinds, o->kinds, (size_t)o->n);
    }
    o->rows = rows;
    o->kinds = kinds;
    m->cap = cap;
    return RSQL_OK;
}

bool cdc_wants(const cdc_msg_t *m, int i)
{
    for (int k = 0; k < m->dec->n_want; k++) {
        if (m->dec->want[k] == i) {
            return true;
        }
    }
    return false;
}

rsql_err_t cdc_meta_nested(cdc_msg_t *m, int i, cdc_span_t s, const char *key,
                           const rsql_tdesc_t *d)
{
    rsql_value_t *v = &m->meta[i];
    memset(v, 0, sizeof *v);
    v->type = d ? d->type : RSQL_TYPE_VARCHAR;
    v->is_null = true;
    if (cdc_null(m, s) || !d) {
        return d ? RSQL_OK : rsql_error_nomem(m->p.err);
    }
    jp_t sp = {m->p.s, s.end, s.at, m->p.err};
    return json_typed(m->dec, &sp, d, NULL, key, m->arena, v, 1);
}

/*
** One row object into row (the json row codec over the span), its errors placed: "field
** 'x'" becomes "field 'data[2].x'", anything else is prefixed with the format and where.
*/
static rsql_err_t one_row(cdc_msg_t *m, cdc_span_t s, const char *where, rsql_value_t *row)
{
    rsql_error_t *err = m->p.err;
    if (s.at == s.end) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "%s: '%s' is missing", m->fmt,
                              where);
    }
    rsql_err_t rc = rsql_fmt__json_decode(m->dec, (const uint8_t *)m->p.s + s.at, s.end - s.at,
                                          m->arena, row, err);
    if (rc == RSQL_ERR_DECODE) {
        char msg[sizeof err->msg];
        snprintf(msg, sizeof msg, "%s", err->msg);
        rsql_error_clear(err);
        if (strncmp(msg, "field '", 7) == 0) {
            rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "field '%s.%s", where, msg + 7);
        } else {
            rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "%s: '%s': %s", m->fmt, where, msg);
        }
    }
    return rc;
}

static rsql_value_t *new_row(cdc_msg_t *m, int kind)
{
    const rsql_decoder_t *dec = m->dec;
    rsql_value_t *row =
        rsql_arena_alloc(m->arena, (size_t)(dec->c.n + dec->n_want) * sizeof *row);
    if (!row) {
        return NULL;
    }
    for (int k = 0; k < dec->n_want; k++) {
        row[dec->c.n + k] = m->meta[dec->want[k]];
    }
    m->out->rows[m->out->n] = row;
    m->out->kinds[m->out->n++] = (uint8_t)kind;
    return row;
}

rsql_err_t cdc_rows(cdc_msg_t *m, int kind, cdc_span_t data, cdc_span_t old, const char *where,
                    const char *old_where)
{
    rsql_decoder_t *dec = m->dec;
    rsql_err_t rc = cdc_reserve(m, kind == RSQL_ROW_UPDATE_AFTER ? 2 : 1);
    if (rc != RSQL_OK) {
        return rc;
    }
    bool alone = kind != RSQL_ROW_UPDATE_AFTER; /* one row: no UPDATE_BEFORE */
    if (!alone && dec->key_need && cdc_null(m, old)) {
        alone = true; /* rsql_decoder_skip_before, and no previous values: the same key */
    } else if (!alone && dec->key_need) {
        /* rsql_decoder_skip_before: the update keeps its key when old (the changed columns)
           names none of the key's columns */
        jp_t op = {m->p.s, old.end, old.at, m->p.err};
        bool changed;
        if (m->p.s[old.at] != '{') {
            return cdc_fail(m, old_where, "an object", old);
        }
        if ((rc = rsql_fmt__json_names_any(dec, &op, dec->key_need, &changed)) != RSQL_OK) {
            return rc;
        }
        alone = !changed;
    }
    if (alone) {
        rsql_value_t *row = new_row(m, kind);
        return row ? one_row(m, data, where, row) : rsql_error_nomem(m->p.err);
    }
    rsql_value_t *before = new_row(m, RSQL_ROW_UPDATE_BEFORE);
    rsql_value_t *after = before ? new_row(m, RSQL_ROW_UPDATE_AFTER) : NULL;
    if (!after) {
        return rsql_error_nomem(m->p.err);
    }
    if ((rc = one_row(m, data, where, after)) != RSQL_OK) {
        return rc;
    }
    if (cdc_null(m, old)) { /* no previous values known: the before image is the row */
        memcpy(before, after, (size_t)dec->c.n * sizeof *before);
        return RSQL_OK;
    }
    if ((rc = one_row(m, old, old_where, before)) != RSQL_OK) {
        return rc;
    }
    /* dec->seen: the columns "old" holds (changed); the others did not change */
    for (int i = 0; i < dec->c.n; i++) {
        if (!dec->seen[i]) {
            before[i] = after[i];
        }
    }
    /* rsql_decoder_skip_before: "old" may name a key column with the value it keeps */
    bool same = dec->key_need != NULL;
    for (int k = 0; same && k < dec->n_key; k++) {
        same = rsql_value_same_key(&before[dec->key[k]], &after[dec->key[k]]);
    }
    if (same) { /* the update keeps its key: its UPDATE_AFTER alone */
        m->out->n--;
        m->out->rows[m->out->n - 1] = after;
        m->out->kinds[m->out->n - 1] = (uint8_t)RSQL_ROW_UPDATE_AFTER;
    }
    return RSQL_OK;
}

/* ---- entry points */

/*
** Decode one canal-json or maxwell-json body into its changes (rsql_decode_changes). With
** *.ignore-parse-errors a body that fails gives no rows (counted) and RSQL_OK.
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__cdc_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err)
{
    cdc_msg_t m;
    memset(&m, 0, sizeof m);
    m.dec = dec;
    m.p = (jp_t){(const char *)raw, len, 0, err};
    m.arena = arena;
    m.out = out;
    m.fmt = dec->c.kind == FMT_CANAL ? "canal-json" : "maxwell-json";
    memset(out, 0, sizeof *out);
    rsql_err_t rc = dec->c.kind == FMT_CANAL ? rsql_fmt__canal_decode(&m)
                                             : rsql_fmt__maxwell_decode(&m);
    if (rc == RSQL_ERR_DECODE && dec->c.cdc_ignore_errors) {
        out->n = 0;
        dec->skips.bad++;
        rsql_error_clear(err);
        return RSQL_OK;
    }
    if (rc != RSQL_OK) {
        out->n = 0;
    }
    return rc;
}

/*
** Append row with its kind as one canal-json or maxwell-json body: {"data":[{...}],
** "type":"INSERT"} / {"data":{...},"type":"insert"}. As Flink: INSERT and UPDATE_AFTER are
** inserts, DELETE and UPDATE_BEFORE deletes (an update is a delete then an insert).
** @locality the encoder's thread
*/
rsql_err_t rsql_fmt__cdc_encode(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                rsql_buf_t *out, rsql_error_t *err)
{
    bool canal = enc->c.kind == FMT_CANAL;
    bool del = kind == RSQL_ROW_DELETE || kind == RSQL_ROW_UPDATE_BEFORE;
    if (kind < RSQL_ROW_INSERT || kind > RSQL_ROW_DELETE) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "bad row kind %d", kind);
    }
    rsql_buf_puts(out, canal ? "{\"data\":[" : "{\"data\":");
    rsql_err_t rc = rsql_fmt__json_encode(enc, row, out, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (canal) {
        rsql_buf_puts(out, del ? "],\"type\":\"DELETE\"}" : "],\"type\":\"INSERT\"}");
    } else {
        rsql_buf_puts(out, del ? ",\"type\":\"delete\"}" : ",\"type\":\"insert\"}");
    }
    return RSQL_OK;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fmt_int: what the format files (fmt_json.c, fmt_csv.c, fmt_raw.c, and the changelog
 * formats fmt_cdc.c, fmt_canal.c, fmt_maxwell.c) share
 * with the dispatcher (fmt_codec.c): the per-table configuration and the
 * scratch memory of decoders and encoders. Private to connectors/formats/.
 */
#ifndef RSQL_FMT_INT_H
#define RSQL_FMT_INT_H

#include "connectors/formats/rsql_format.h"
#include "base/rsql_mem_int.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

typedef enum fmt_kind {
    FMT_JSON,
    FMT_CSV,
    FMT_RAW,
    FMT_DEBEZIUM,
    FMT_CANAL,
    FMT_MAXWELL
} fmt_kind_t;

typedef struct fmt_dbz fmt_dbz_t; /* fmt_debezium.c */

/*
** What a statement reads of one column or ROW field (rsql_decoder_use): used
** at all; all of it; else for a ROW, kids[f] says what of field f is read
** (kids has one node per field, NULL when no field is read yet).
*/
typedef struct fmt_need {
    bool used, all;
    struct fmt_need *kids;
} fmt_need_t;

/*
** A column's key as it most often starts a member of a JSON object: `"name":` (len bytes, at
** most 16), the bytes in w and the ones that count in m (the rest zero), so a decoder that
** expects this column next compares two words instead of scanning the key (fmt_json.c).
** len 0: no such shortcut (a longer name, or one that JSON would write with an escape).
*/
typedef struct fmt_keypat {
    uint64_t w[2], m[2];
    size_t len;
} fmt_keypat_t;

/* The table and options a decoder or encoder was made for (owned copies). */
typedef struct fmt_conf {
    fmt_kind_t kind;
    int n;
    char **names;
    size_t *name_lens;
    fmt_keypat_t *keypats; /* per column (see fmt_keypat_t) */
    rsql_type_t *types;
    const rsql_tdesc_t **descs; /* per column: DECIMAL/ROW/ARRAY/MAP's full type, or NULL */
    fmt_need_t *needs;          /* per column once rsql_decoder_prune ran, else NULL (all) */
    const rsql_format_meta_t *def_meta; /* the format's metadata keys, or NULL */
    bool json_fail_missing; /* json.fail-on-missing-field */
    bool json_ts_millis;    /* json.timestamp-format = epoch-millis (write numbers) */
    bool json_ts_iso;       /* json.timestamp-format = iso-8601 (write ...T...Z) */
    char csv_delim;         /* csv.field-delimiter */
    char csv_quote;         /* csv.quote-character ('\0': quoting disabled) */
    char *csv_null;         /* csv.null-literal, NULL when not set */
    size_t csv_null_len;
    bool json_date_days; /* a JSON integer in a DATE is days since 1970-01-01 (debezium-json) */
    fmt_dbz_t *dbz; /* debezium-json: its options and names (fmt_debezium.c) */
    bool json_str_scalars;  /* a JSON string holding a number or boolean reads as one */
    bool cdc_ignore_errors; /* canal/maxwell: a body that fails to decode gives no rows */
    void *cdc_db_re;        /* canal-json.database-/table.include, compiled (pcre2_code) */
    void *cdc_tbl_re;
} fmt_conf_t;

struct rsql_decoder {
    fmt_conf_t c;
    bool *seen;         /* json: per column, set in this body */
    size_t *fstart;     /* csv: field spans (n + 1 slots) */
    size_t *flen;
    bool *fquoted;
    rsql_buf_t scratch; /* unescaped text */
    /* rsql_decoder_want_meta: the k-th wanted key is def_meta[want[k]], filled into value
       c.n + k of every row a changelog format decodes */
    int *want;
    int n_want;
    rsql_decode_skips_t skips; /* changelog formats: bodies without rows, by cause */
    /* rsql_decoder_skip_before: the key's columns, also as needs (key_need[i].used and .all
       for a key column, else nothing: a row of the key alone); NULL when updates give both
       rows */
    int *key;
    int n_key;
    fmt_need_t *key_need;
};

struct rsql_encoder {
    fmt_conf_t c;
    rsql_buf_t scratch; /* csv: a value's text; json: the keys, below */
    /* json: each column's key as written, ,"name": (no comma for the first), built once
       into scratch on the first row; key_end[i] is where column i's ends. NULL until then
       (or when out of memory: then the keys are written per row). */
    size_t *key_end;
};

rsql_err_t rsql_fmt__json_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                 rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err);
rsql_err_t rsql_fmt__json_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                 rsql_error_t *err);
rsql_err_t rsql_fmt__csv_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err);
rsql_err_t rsql_fmt__csv_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                rsql_error_t *err);
rsql_err_t rsql_fmt__raw_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *err);
rsql_err_t rsql_fmt__raw_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                                rsql_error_t *err);

/* debezium-json (fmt_debezium.c): its state from its typed configuration (NULL = defaults),
   freed by rsql_fmt__dbz_free; its changes; one row with its kind */
extern const rsql_format_meta_t rsql_fmt__dbz_meta[];
rsql_err_t rsql_fmt__dbz_init(fmt_conf_t *c, const void *format_conf, rsql_error_t *err);
void rsql_fmt__dbz_free(fmt_conf_t *c);
rsql_err_t rsql_fmt__dbz_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err);
rsql_err_t rsql_fmt__dbz_encode(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                rsql_buf_t *out, rsql_error_t *err);
/* canal-json and maxwell-json (fmt_cdc.c, fmt_canal.c, fmt_maxwell.c) */
rsql_err_t rsql_fmt__cdc_conf_init(fmt_conf_t *c, const void *format_conf, rsql_error_t *err);
void rsql_fmt__cdc_conf_deinit(fmt_conf_t *c);
rsql_err_t rsql_fmt__cdc_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err);
rsql_err_t rsql_fmt__cdc_encode(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                rsql_buf_t *out, rsql_error_t *err);
extern const rsql_format_meta_t rsql_fmt__canal_meta[];
extern const rsql_format_meta_t rsql_fmt__maxwell_meta[];

/* Quote s (n bytes) for an error message, cut at 40 bytes with "...". */
static inline void rsql_fmt__quote_for_msg(const char *s, size_t n, char *buf, size_t size)
{
    int cut = n > 40 ? 40 : (int)n;
    snprintf(buf, size, "\"%.*s%s\"", cut, s, n > 40 ? "..." : "");
}

/* ---- the json scanner (fmt_json_scan.c), under the value reader (fmt_json_value.c) and the
 * row codec (fmt_json.c) */

#define JSON_MAX_DEPTH 64
#define JSON_DATE_MAX_DAYS INT64_C(2932896) /* 9999-12-31 (and as far before 1970) */

typedef struct jp {
    const char *s;
    size_t n, i;
    rsql_error_t *err;
} jp_t;

/* The scanner's short names (the functions are module-internal, not static). */
#define jp_fail rsql_fmt__jp_fail
#define jp_unexpected rsql_fmt__jp_unexpected
#define jp_string rsql_fmt__jp_string
#define jp_number rsql_fmt__jp_number
#define jp_word rsql_fmt__jp_word
#define jp_skip rsql_fmt__jp_skip
#define json_scalar rsql_fmt__json_scalar
#define json_typed rsql_fmt__json_typed

/* "invalid JSON at byte N: why" */
rsql_err_t jp_fail(jp_t *p, size_t at, const char *why);
/* the character at p->i (or the end) is not what JSON allows there */
rsql_err_t jp_unexpected(jp_t *p);

/* Skip JSON whitespace (inline: it runs between every two tokens, and most find none). */
static inline void jp_ws(jp_t *p)
{
    while (p->i < p->n) {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c > ' ' || (c != ' ' && c != '\t' && c != '\n' && c != '\r')) {
            break; /* one compare for every byte above the space, which no blank is */
        }
        p->i++;
    }
}

/*
** The index of the first byte in s[i, n) that ends a plain run inside a JSON
** string ('"', '\\' or a control character below 0x20), or n. Eight bytes at a
** time on little-endian machines: in each of the three zero-byte masks only
** bytes above a flagged one can be flagged wrongly (a borrow), so the lowest
** flagged byte is exact.
*/
static inline size_t jp_plain_end(const char *s, size_t i, size_t n)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t ones = UINT64_C(0x0101010101010101), high = ones * 0x80;
    while (n - i >= 8) {
        uint64_t x;
        memcpy(&x, s + i, 8);
        uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
        uint64_t m = (((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x)) & high;
        if (m) {
            return i + (size_t)(__builtin_ctzll(m) >> 3);
        }
        i += 8;
    }
#endif
    while (i < n) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\' || c < 0x20) {
            break;
        }
        i++;
    }
    return i;
}

/*
** The string at p->i (on its opening quote) when it holds no escape: true,
** with its span between the quotes in *raw and *len and p->i past it. False
** (p unchanged) otherwise: then jp_string scans it (escapes, errors).
*/
static inline bool jp_string_plain(jp_t *p, const char **raw, size_t *len)
{
    size_t e = jp_plain_end(p->s, p->i + 1, p->n);
    if (e >= p->n || p->s[e] != '"') {
        return false;
    }
    *raw = p->s + p->i + 1;
    *len = e - p->i - 1;
    p->i = e + 1;
    return true;
}
/* the string at p->i (unescaped into out when given; the raw span in *raw) */
rsql_err_t jp_string(jp_t *p, rsql_buf_t *out, const char **raw, size_t *raw_len, bool *escaped);
rsql_err_t jp_number(jp_t *p, bool *is_int);
/* the word w (k bytes) at p->i: true with p->i past it (inline: a literal's k is a constant) */
static inline bool jp_word_is(jp_t *p, const char *w, size_t k)
{
    if (p->i + k <= p->n && memcmp(p->s + p->i, w, k) == 0) {
        p->i += k;
        return true;
    }
    return false;
}
bool jp_word(jp_t *p, const char *w);
/*
** The fast paths of the two commonest numbers, scanned and converted in one
** pass: [-]digits with no fraction or exponent and at most 18 digits (an
** integer column), and [-]digits[.digits] with at most 15 digits (a DOUBLE
** column, rsql_value_double_exact). Each returns true with p->i past the
** number and *out set; false with p unchanged for anything else (a leading
** zero before a digit, an exponent, more digits, out of range), which the
** general path scans and reports as before.
*/
static inline bool jp_int_fast(jp_t *p, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = p->s;
    size_t i = p->i, n = p->n, d0;
    bool neg = i < n && s[i] == '-';
    uint64_t m = 0;
    i += neg;
    for (d0 = i; i < n && i - d0 < 19 && s[i] >= '0' && s[i] <= '9'; i++) {
        m = m * 10 + (uint64_t)(s[i] - '0');
    }
    size_t nd = i - d0;
    if (nd == 0 || nd > 18 || (s[d0] == '0' && nd > 1)) {
        return false;
    }
    if (i < n && (s[i] == '.' || s[i] == 'e' || s[i] == 'E')) {
        return false;
    }
    int64_t v = neg ? -(int64_t)m : (int64_t)m; /* |m| < 10^18: no overflow */
    if (v < lo || v > hi) {
        return false;
    }
    *out = v;
    p->i = i;
    return true;
}

static inline bool jp_double_fast(jp_t *p, double *out)
{
    const char *s = p->s;
    size_t i = p->i, n = p->n, d0;
    bool neg = i < n && s[i] == '-';
    uint64_t m = 0;
    int frac = 0;
    i += neg;
    for (d0 = i; i < n && i - d0 < 16 && s[i] >= '0' && s[i] <= '9'; i++) {
        m = m * 10 + (uint64_t)(s[i] - '0');
    }
    size_t nd = i - d0;
    if (nd == 0 || (s[d0] == '0' && nd > 1)) {
        return false;
    }
    if (i < n && s[i] == '.') {
        size_t f0 = ++i;
        for (; i < n && nd < 16 && s[i] >= '0' && s[i] <= '9'; i++, nd++) {
            m = m * 10 + (uint64_t)(s[i] - '0');
        }
        if (i == f0) {
            return false;
        }
        frac = (int)(i - f0);
    }
    if (nd > 15 || (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] == 'e' || s[i] == 'E'))) {
        return false;
    }
    if (!rsql_value_double_exact(m, frac, neg, out)) {
        return false;
    }
    p->i = i;
    return true;
}

/*
** The commonest scalars without json_scalar's general way: a string without escapes into a
** VARCHAR, a short number into an INT, BIGINT or DOUBLE (the two fast paths above). True with
** *v set and p->i past the value; false with p unchanged (anything else, or an arena out of
** memory), for json_scalar to read, convert or report.
*/
static inline __attribute__((always_inline)) bool json_scalar_fast(jp_t *p, rsql_type_t t,
                                                                   rsql_arena_t *arena,
                                                                   rsql_value_t *v)
{
    if (p->i >= p->n) {
        return false;
    }
    char ch = p->s[p->i];
    if (ch == '"' && t == RSQL_TYPE_VARCHAR) {
        size_t at = p->i, n;
        const char *raw;
        if (!jp_string_plain(p, &raw, &n)) {
            return false;
        }
        char *cp = rsql_arena__alloc(arena, n + 1);
        if (!cp) {
            p->i = at;
            return false;
        }
        memcpy(cp, raw, n);
        cp[n] = '\0';
        memset(v, 0, sizeof *v);
        v->type = t;
        v->v.s.p = cp;
        v->v.s.len = n;
        return true;
    }
    if (ch != '-' && (ch < '0' || ch > '9')) {
        return false;
    }
    int64_t i;
    double d;
    if ((t == RSQL_TYPE_BIGINT || t == RSQL_TYPE_INT) &&
        jp_int_fast(p, t == RSQL_TYPE_INT ? INT32_MIN : INT64_MIN,
                    t == RSQL_TYPE_INT ? INT32_MAX : INT64_MAX, &i)) {
        memset(v, 0, sizeof *v);
        v->type = t;
        v->v.i = i;
        return true;
    }
    if (t == RSQL_TYPE_DOUBLE && jp_double_fast(p, &d)) {
        memset(v, 0, sizeof *v);
        v->type = t;
        v->v.d = d;
        return true;
    }
    return false;
}
/* validate and skip any value */
rsql_err_t jp_skip(jp_t *p, int depth);
/* a JSON value as scalar type t (fmt_json_value.c) */
rsql_err_t json_scalar(rsql_decoder_t *dec, jp_t *p, rsql_type_t t, const char *name,
                       rsql_arena_t *arena, rsql_value_t *v);
/* the object at p->i into row, p->i past it; names for errors (NULL = the columns') (fmt_json.c) */
rsql_err_t rsql_fmt__json_object(rsql_decoder_t *dec, jp_t *p, const char *const *names,
                                 rsql_arena_t *arena, rsql_value_t *row);
/* Does the object at p->i (on its '{') have a key naming a column whose cols[col].used is set?
   *any says, p->i past the object; RSQL_ERR_DECODE for invalid JSON (fmt_json.c) */
rsql_err_t rsql_fmt__json_names_any(rsql_decoder_t *dec, jp_t *p, const fmt_need_t *cols,
                                    bool *any);
/* a JSON value as type d, reading only what need says (NULL = all) (fmt_json_value.c) */
rsql_err_t json_typed(rsql_decoder_t *dec, jp_t *p, const rsql_tdesc_t *d, const fmt_need_t *need,
                      const char *name, rsql_arena_t *arena, rsql_value_t *v, int depth);


/* ---- the changelog envelopes (fmt_cdc.c), shared by canal-json and maxwell-json */

/* The span [at, end) of a value in the body; at == end: absent. */
typedef struct cdc_span {
    size_t at, end;
} cdc_span_t;

#define CDC_MAX_META 8

/* One body being decoded into its changes. */
typedef struct cdc_msg {
    rsql_decoder_t *dec;
    jp_t p;
    rsql_arena_t *arena;
    rsql_changes_t *out;
    int cap;              /* room in out->rows / out->kinds */
    const char *fmt;      /* "canal-json", for messages */
    rsql_value_t meta[CDC_MAX_META]; /* by the format's metadata index */
} cdc_msg_t;

#define cdc_fields rsql_fmt__cdc_fields
#define cdc_null rsql_fmt__cdc_null
#define cdc_str rsql_fmt__cdc_str
#define cdc_int rsql_fmt__cdc_int
#define cdc_bool rsql_fmt__cdc_bool
#define cdc_fail rsql_fmt__cdc_fail
#define cdc_items rsql_fmt__cdc_items
#define cdc_next rsql_fmt__cdc_next
#define cdc_reserve rsql_fmt__cdc_reserve
#define cdc_rows rsql_fmt__cdc_rows
#define cdc_wants rsql_fmt__cdc_wants
#define cdc_meta_nested rsql_fmt__cdc_meta_nested
#define cdc_match rsql_fmt__cdc_match

/* The values of keys[0..n) of the body's top-level object into spans (absent: empty). */
rsql_err_t cdc_fields(cdc_msg_t *m, const char *const *keys, int n, cdc_span_t *spans);
/* True when s is absent or null. */
bool cdc_null(const cdc_msg_t *m, cdc_span_t s);
/* "<fmt>: '<key>' must be <want>, got <what s holds>" */
rsql_err_t cdc_fail(cdc_msg_t *m, const char *key, const char *want, cdc_span_t s);
/* A string (copied into the arena, NUL-terminated), NULL for absent or null; else an error. */
rsql_err_t cdc_str(cdc_msg_t *m, cdc_span_t s, const char *key, const char **out, size_t *n);
/* An integer; *set false for absent or null. */
rsql_err_t cdc_int(cdc_msg_t *m, cdc_span_t s, const char *key, int64_t *out, bool *set);
/* A boolean (true/false, or the strings "true"/"false"); false for absent or null. */
rsql_err_t cdc_bool(cdc_msg_t *m, cdc_span_t s, const char *key, bool *out);
/* The number of items of an array (an error when s is not one; 0 for absent or null). */
rsql_err_t cdc_items(cdc_msg_t *m, cdc_span_t s, const char *key, int *n);
/* The next item of an array: *it starts at s.at; false at its end. */
bool cdc_next(const cdc_msg_t *m, cdc_span_t s, size_t *it, cdc_span_t *item);
/* Room for n more rows in m->out. */
rsql_err_t cdc_reserve(cdc_msg_t *m, int n);
/*
** The rows of one changed row: data is the row object (after image), old the changed
** columns' previous values (an update; absent: none known). kind INSERT or DELETE gives one
** row, UPDATE_AFTER gives UPDATE_BEFORE (data with old's columns) then UPDATE_AFTER. where
** names the row in messages ("data[2]", "data").
*/
rsql_err_t cdc_rows(cdc_msg_t *m, int kind, cdc_span_t data, cdc_span_t old, const char *where,
                    const char *old_where);
/* True when metadata index i is wanted (rsql_decoder_want_meta). */
bool cdc_wants(const cdc_msg_t *m, int i);
/* Metadata index i from s as type d (a string for VARCHAR, ARRAY/MAP by json_typed). */
rsql_err_t cdc_meta_nested(cdc_msg_t *m, int i, cdc_span_t s, const char *key,
                           const rsql_tdesc_t *d);
/* True when the compiled include expression re (NULL: none) matches all of s. */
bool cdc_match(const void *re, const char *s, size_t n);
/* Compile-check a regular expression (why: the reason it is not one). */
bool rsql_fmt__regex_valid(const char *re, char *why, size_t size);

rsql_err_t rsql_fmt__canal_decode(cdc_msg_t *m);
rsql_err_t rsql_fmt__maxwell_decode(cdc_msg_t *m);

/* ---- debezium-json (fmt_debezium.c, fmt_debezium_schema.c) */

/* debezium-json's state (fmt_debezium.c, fmt_debezium_schema.c) */
struct fmt_dbz {
    bool schema_include, ignore_errors, ignore_truncate;
    char **names;      /* 2n error names: "before.<column>" then "after.<column>" */
    rsql_buf_t schema; /* writing with schema-include: {"schema":...,"payload": built once */
    const rsql_tdesc_t *props; /* MAP<VARCHAR, VARCHAR>: source.properties */
    bool any_ts;               /* the table has a TIMESTAMP column */
    /* schema-include: per column, what its number counts in the last schema read (1
       milliseconds; 1000 Debezium's MicroTimestamp, 1000000 its NanoTimestamp), and that
       schema's text, so that an event with the same schema is not parsed again */
    int64_t *ts_per_ms;
    int *dec_scale; /* per column: the scale of a Kafka Connect Decimal (base64 bytes), or -1 */
    char *sch;
    size_t sch_len;
};

/* key is word (len bytes, not NUL-terminated) */
static inline bool rsql_fmt__key_is(const char *key, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(key, word, len) == 0;
}
/* an object's next key (1, p->i on its value), its end (0, past '}') or invalid JSON (-1) */
int rsql_fmt__dbz_next_key(rsql_decoder_t *dec, jp_t *p, bool *first, const char **key,
                           size_t *len);
/* what the envelope's schema sch (n bytes of JSON) says of the columns, once per text */
void rsql_fmt__dbz_schema(rsql_decoder_t *dec, const char *sch, size_t n);
/* the Decimal columns read as BYTES (swap true) or DECIMAL again (false) */
void rsql_fmt__dbz_swap_decimals(rsql_decoder_t *dec, bool swap);
/* a Decimal read as BYTES (v, of column col of the before or after image) into its DECIMAL */
rsql_err_t rsql_fmt__dbz_connect_decimal(const rsql_decoder_t *dec, int col, bool before,
                                         rsql_value_t *v, rsql_error_t *err);
/* a row's MicroTimestamp and NanoTimestamp columns into milliseconds */
void rsql_fmt__dbz_convert_ts(const rsql_decoder_t *dec, rsql_value_t *row);

#endif

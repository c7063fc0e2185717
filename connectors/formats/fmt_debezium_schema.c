/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * debezium-json's schema envelope (debezium-json.schema-include): what the schema Kafka
 * Connect's JSON converter puts next to each event says about the units of values, which the
 * table's columns alone do not: a TIMESTAMP field Debezium names io.debezium.time.MicroTimestamp
 * counts microseconds (NanoTimestamp nanoseconds), and a DECIMAL field of type bytes named
 * org.apache.kafka.connect.data.Decimal holds its unscaled value's two's complement bytes in
 * base64 with the scale in its parameters (Debezium's decimal.handling.mode precise). The
 * schema is parsed once per distinct text (kept with the decoder); fmt_debezium.c reads the
 * payload with those DECIMAL columns as BYTES (rsql_fmt__dbz_swap_decimals), then converts
 * them (rsql_fmt__dbz_connect_decimal) and the timestamps (rsql_fmt__dbz_convert_ts).
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#include <string.h>
#include <strings.h>

#define next_key rsql_fmt__dbz_next_key
#define key_is rsql_fmt__key_is

/* Step through an array: on the first call p->i is on its '['. 1 on an item, 0 past ']'. */
static int next_item(jp_t *p, bool *first)
{
    jp_ws(p);
    if (*first) {
        *first = false;
        p->i++;
        jp_ws(p);
    } else if (p->i < p->n && p->s[p->i] == ',') {
        p->i++;
        jp_ws(p);
        return p->i < p->n ? 1 : -1;
    }
    if (p->i < p->n && p->s[p->i] == ']') {
        p->i++;
        return 0;
    }
    return p->i < p->n ? 1 : -1;
}

/*
** One schema object at p->i ({"type":..,"fields":[..],"name":..,"field":..}): the spans of
** its "fields" array, its "name" and its "field" strings (raw, unescaped: Debezium's names
** have no escapes). -1 when it is not such an object.
*/
typedef struct sch_node {
    size_t fields_at, params_at;
    const char *name, *field;
    size_t name_len, field_len;
} sch_node_t;

static int sch_read_node(rsql_decoder_t *dec, jp_t *p, sch_node_t *nd)
{
    bool first = true;
    const char *key;
    size_t len;
    int r;
    memset(nd, 0, sizeof *nd);
    if (p->s[p->i] != '{') {
        return jp_skip(p, 2) == RSQL_OK ? 0 : -1;
    }
    while ((r = next_key(dec, p, &first, &key, &len)) == 1) {
        bool is_name = key_is(key, len, "name"), is_field = key_is(key, len, "field");
        if (key_is(key, len, "fields") && p->s[p->i] == '[') {
            nd->fields_at = p->i;
        } else if (key_is(key, len, "parameters") && p->s[p->i] == '{') {
            nd->params_at = p->i;
        } else if ((is_name || is_field) && p->s[p->i] == '"') {
            const char *s;
            size_t n;
            if (!jp_string_plain(p, &s, &n)) {
                if (jp_skip(p, 2) != RSQL_OK) {
                    return -1;
                }
                continue;
            }
            *(is_name ? &nd->name : &nd->field) = s;
            *(is_name ? &nd->name_len : &nd->field_len) = n;
            continue;
        }
        if (jp_skip(p, 2) != RSQL_OK) {
            return -1;
        }
    }
    return r;
}

/* The "scale" of a Decimal's parameters object at sch[at] (a string "0".."38"), or -1. */
static int decimal_scale(rsql_decoder_t *dec, const char *sch, size_t n, size_t at)
{
    rsql_error_t ignored;
    rsql_error_clear(&ignored);
    jp_t p = {sch, n, at, &ignored};
    bool first = true;
    const char *key;
    size_t len;
    int scale = -1;
    while (next_key(dec, &p, &first, &key, &len) == 1) {
        const char *v;
        size_t vn;
        bool is_scale = key_is(key, len, "scale");
        if (p.s[p.i] == '"' && jp_string_plain(&p, &v, &vn)) {
            if (is_scale && vn >= 1 && vn <= 2 && v[0] >= '0' && v[0] <= '9' &&
                (vn == 1 || (v[1] >= '0' && v[1] <= '9'))) {
                scale = vn == 1 ? v[0] - '0' : (v[0] - '0') * 10 + (v[1] - '0');
            }
        } else if (jp_skip(&p, 2) != RSQL_OK) {
            return -1;
        }
    }
    return scale <= 38 ? scale : -1;
}

/*
** The DECIMAL columns the schema says are Kafka Connect Decimals (the unscaled value's
** two's complement bytes, big-endian, in base64) are read as BYTES while the payload is
** (swap true), then back (false).
*/
void rsql_fmt__dbz_swap_decimals(rsql_decoder_t *dec, bool swap)
{
    fmt_dbz_t *z = dec->c.dbz;
    for (int i = 0; z->dec_scale && i < dec->c.n; i++) {
        if (z->dec_scale[i] >= 0) {
            dec->c.types[i] = swap ? RSQL_TYPE_BYTES : RSQL_TYPE_DECIMAL;
        }
    }
    }

/* A Kafka Connect Decimal read as BYTES (v) into the DECIMAL of column col. */
rsql_err_t rsql_fmt__dbz_connect_decimal(const rsql_decoder_t *dec, int col, bool before,
                                  rsql_value_t *v, rsql_error_t *err)
{
    const fmt_conf_t *c = &dec->c;
    const char *name = c->dbz->names[(before ? 0 : c->n) + col];
    const rsql_tdesc_t *d = rsql_tdesc_of(RSQL_TYPE_DECIMAL, c->descs[col]);
    if (v->is_null || !d) {
        memset(v, 0, sizeof *v);
        v->type = RSQL_TYPE_DECIMAL;
        v->is_null = true;
        return RSQL_OK;
    }
    const uint8_t *b = (const uint8_t *)v->v.s.p;
    size_t n = v->v.s.len;
    if (n < 1 || n > 16) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "field '%s': a Decimal of %zu bytes (1 to 16 are read)", name, n);
    }
    unsigned __int128 u = b[0] & 0x80 ? ~(unsigned __int128)0 : 0;
    for (size_t i = 0; i < n; i++) {
        u = u << 8 | b[i];
    }
    __int128 x = (__int128)u, lim = 1;
    for (int k = 0; k < 38; k++) {
        lim *= 10;
    }
    if (x >= lim || x <= -lim) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "field '%s': a Decimal of more than 38 digits", name);
    }
    rsql_value_t tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.type = RSQL_TYPE_DECIMAL;
    tmp.prec = 38;
    tmp.scale = (uint8_t)c->dbz->dec_scale[col];
    tmp.v.dec.lo = (uint64_t)u;
    tmp.v.dec.hi = (int64_t)(u >> 64);
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_value_decimal_rescale(&tmp, d->precision, d->scale, v, &e) != RSQL_OK) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "field '%s': %s", name, e.msg);
    }
    return RSQL_OK;
}

/*
** From the envelope's schema (sch, n bytes of valid JSON), what each TIMESTAMP column's
** number counts: Debezium's io.debezium.time.MicroTimestamp microseconds, NanoTimestamp
** nanoseconds, anything else milliseconds. Kept with the schema's text: the next event
** with the same schema reuses it. A schema of another shape changes nothing.
*/
void rsql_fmt__dbz_schema(rsql_decoder_t *dec, const char *sch, size_t n)
{
    fmt_dbz_t *z = dec->c.dbz;
    const fmt_conf_t *c = &dec->c;
    if (z->sch && z->sch_len == n && memcmp(z->sch, sch, n) == 0) {
        return;
    }
    for (int i = 0; i < c->n; i++) {
        z->ts_per_ms[i] = 1;
        z->dec_scale[i] = -1;
    }
    rsql_free(z->sch);
    z->sch = rsql_malloc(n ? n : 1);
    z->sch_len = z->sch ? n : 0;
    if (z->sch) {
        memcpy(z->sch, sch, n);
    }
    rsql_error_t ignored;
    rsql_error_clear(&ignored);
    jp_t p = {sch, n, 0, &ignored};
    sch_node_t top, side, col;
    bool first = true;
    if (sch_read_node(dec, &p, &top) < 0 || !top.fields_at) {
        return;
    }
    p.i = top.fields_at;
    while (next_item(&p, &first) == 1) { /* before, after, source, op, ... */
        if (sch_read_node(dec, &p, &side) < 0) {
            return;
        }
        if (!side.fields_at || !side.field || !key_is(side.field, side.field_len, "after")) {
            continue;
        }
        jp_t q = {sch, n, side.fields_at, &ignored};
        bool f2 = true;
        while (next_item(&q, &f2) == 1) {
            if (sch_read_node(dec, &q, &col) < 0) {
                return;
            }
            int64_t per_ms = !col.name ? 1
                             : key_is(col.name, col.name_len, "io.debezium.time.MicroTimestamp")
                                 ? 1000
                             : key_is(col.name, col.name_len, "io.debezium.time.NanoTimestamp")
                                 ? 1000000
                                 : 1;
            int scale = col.name && col.params_at &&
                                key_is(col.name, col.name_len,
                                       "org.apache.kafka.connect.data.Decimal")
                            ? decimal_scale(dec, sch, n, col.params_at)
                            : -1;
            for (int i = 0; (per_ms > 1 || scale >= 0) && col.field && i < c->n; i++) {
                if (c->name_lens[i] != col.field_len ||
                    strncasecmp(c->names[i], col.field, col.field_len) != 0) {
                    continue;
                }
                if (c->types[i] == RSQL_TYPE_TIMESTAMP) {
                    z->ts_per_ms[i] = per_ms;
                } else if (c->types[i] == RSQL_TYPE_DECIMAL) {
                    z->dec_scale[i] = scale;
                }
            }
        }
        return;
    }
}

/* A row's TIMESTAMP columns of Debezium's micro- and nanoseconds into milliseconds. */
void rsql_fmt__dbz_convert_ts(const rsql_decoder_t *dec, rsql_value_t *row)
{
    const fmt_conf_t *c = &dec->c;
    for (int i = 0; i < c->n; i++) {
        int64_t d = c->dbz->ts_per_ms[i];
        rsql_value_t *v = &row[i];
        if (d > 1 && v->type == RSQL_TYPE_TIMESTAMP && !v->is_null) {
            v->v.ts = v->v.ts / d - (v->v.ts % d < 0); /* floor: before 1970 too */
        }
    }
}

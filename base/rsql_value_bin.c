/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_value_bin: values as bytes, for the state of a job (a deduplication's keys and kept
 * rows, kept in the catalog across runs). Each value is a tag byte, its type's code (with
 * 0x80 set for NULL, then nothing more), and its payload:
 *
 *   BOOLEAN                    one byte, 0 or 1
 *   INT BIGINT DATE TIMESTAMP  a zigzag varint (LEB128)
 *   DOUBLE                     the 8 bytes of its bits, little-endian
 *   VARCHAR BYTES              a varint length, the bytes
 *   DECIMAL                    precision, scale, then the unscaled 128 bits (16 bytes, LE)
 *   ROW ARRAY MAP              a varint count, then each item so (a MAP's keys and values in
 *                              turn)
 *
 * Reading checks every tag against the type expected, every length against the bytes left
 * and nesting against the type's own: malformed bytes are an error, never undefined
 * behaviour. Packing is canonical for keys: values that are the same key (rsql_value_same_key)
 * of one type pack to the same bytes (-0.0 as 0.0, a DECIMAL at its type's scale).
 */
#include "config.h"
#include "base/rsql_value.h"

#include <string.h>

#define NULL_TAG 0x80u

/* v as a varint (LEB128) at b; returns its length (at most 10). */
static inline size_t varint_at(unsigned char *b, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        b[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    b[n++] = (unsigned char)v;
    return n;
}

/* v as 8 bytes, little-endian, at b. */
static void le64_at(unsigned char *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) {
        b[i] = (unsigned char)(v >> (8 * i));
    }
}

/* The bytes of a pack gathered before they go to the buffer: a row's few scalars (a per-row
   accumulator is several) reach it in one append, not one or two a value. */
typedef struct packer {
    rsql_buf_t *out;
    size_t n;
    unsigned char b[256];
} packer_t;

static void pk_flush(packer_t *k)
{
    if (k->n) {
        rsql_buf_append(k->out, k->b, k->n);
        k->n = 0;
    }
}

static void pack_one(packer_t *k, const rsql_value_t *v)
{
    if (sizeof k->b - k->n < 1 + 2 + 16) { /* room for a tag and the largest fixed part */
        pk_flush(k);
    }
    unsigned char *b = k->b + k->n;
    size_t n = 1;
    b[0] = (unsigned char)v->type;
    if (v->is_null || v->type == RSQL_TYPE_NULL) {
        b[0] |= NULL_TAG;
        k->n += 1;
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: b[n++] = v->v.b ? 1 : 0; break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_INTERVAL:
    case RSQL_TYPE_TIMESTAMP: {
        int64_t i = v->type == RSQL_TYPE_TIMESTAMP ? v->v.ts : v->v.i;
        n += varint_at(b + n, ((uint64_t)i << 1) ^ (uint64_t)(i >> 63));
        break;
    }
    case RSQL_TYPE_DOUBLE: {
        double d = v->v.d == 0 ? 0.0 : v->v.d;
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        le64_at(b + n, bits);
        n += 8;
        break;
    }
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES:
        n += varint_at(b + n, v->v.s.len);
        k->n += n;
        if (v->v.s.len <= sizeof k->b - k->n) { /* a short string goes with the rest */
            if (v->v.s.len) {
                memcpy(k->b + k->n, v->v.s.p, v->v.s.len);
            }
            k->n += v->v.s.len;
        } else {
            pk_flush(k);
            rsql_buf_append(k->out, v->v.s.p, v->v.s.len);
        }
        return;
    case RSQL_TYPE_DECIMAL:
        b[n++] = v->prec;
        b[n++] = v->scale;
        le64_at(b + n, v->v.dec.lo);
        le64_at(b + n + 8, (uint64_t)v->v.dec.hi);
        n += 16;
        break;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: {
        const rsql_composite_t *c = v->v.c;
        size_t m = c ? (v->type == RSQL_TYPE_MAP ? 2 * (size_t)c->n : (size_t)c->n) : 0;
        k->n += varint_at(b + n, c ? c->n : 0) + n;
        for (size_t i = 0; i < m; i++) {
            pack_one(k, &c->items[i]);
        }
        return;
    }
    default: break;
    }
    k->n += n;
}

/* See rsql_value.h. */
void rsql_value_pack(const rsql_value_t *vals, int n, rsql_buf_t *out)
{
    packer_t k;
    k.out = out;
    k.n = 0;
    for (int i = 0; i < n; i++) {
        const rsql_value_t *v = &vals[i];
        /* an integer or a TIMESTAMP (most accumulators and keys) inline, as pack_one writes it */
        if (!v->is_null &&
            (v->type == RSQL_TYPE_BIGINT || v->type == RSQL_TYPE_INT ||
             v->type == RSQL_TYPE_TIMESTAMP) &&
            sizeof k.b - k.n >= 1 + 10) {
            int64_t x = v->type == RSQL_TYPE_TIMESTAMP ? v->v.ts : v->v.i;
            k.b[k.n] = (unsigned char)v->type;
            k.n += 1 + varint_at(k.b + k.n + 1, ((uint64_t)x << 1) ^ (uint64_t)(x >> 63));
            continue;
        }
        pack_one(&k, v);
    }
    pk_flush(&k);
}

/* ---- reading */

typedef struct rd {
    const uint8_t *p, *end;
    rsql_arena_t *a;
    rsql_error_t *err;
} rd_t;

static rsql_err_t bad(rd_t *r, const char *what)
{
    return rsql_error_set(r->err, RSQL_ERR_DECODE, RSQL_NOPOS, "state: %s", what);
}

static inline bool get_varint(rd_t *r, uint64_t *v)
{
    if (r->p < r->end && *r->p < 0x80) { /* one byte: most counts, flags, small values */
        *v = *r->p++;
        return true;
    }
    *v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (r->p >= r->end) {
            return false;
        }
        uint8_t b = *r->p++;
        if (shift == 63 && (b & 0x7e)) {
            return false; /* more than 64 bits */
        }
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            return true;
        }
    }
    return false;
}

static bool get_le64(rd_t *r, uint64_t *v)
{
    if (r->end - r->p < 8) {
        return false;
    }
    *v = 0;
    for (int i = 0; i < 8; i++) {
        *v |= (uint64_t)r->p[i] << (8 * i);
    }
    r->p += 8;
    return true;
}

static rsql_err_t unpack_one(rd_t *r, const rsql_tdesc_t *t, int depth, rsql_value_t *out)
{
    memset(out, 0, sizeof *out);
    out->type = t->type;
    if (depth > 64) {
        return bad(r, "nested too deep");
    }
    if (r->p >= r->end) {
        return bad(r, "a value is missing");
    }
    uint8_t tag = *r->p++;
    if ((tag & ~NULL_TAG) != (uint8_t)t->type) {
        return bad(r, "a value is not of its column's type");
    }
    if (tag & NULL_TAG) {
        out->is_null = true;
        return RSQL_OK;
    }
    uint64_t u;
    switch (t->type) {
    case RSQL_TYPE_BOOLEAN:
        if (r->p >= r->end || *r->p > 1) {
            return bad(r, "a BOOLEAN is not 0 or 1");
        }
        out->v.b = *r->p++ == 1;
        return RSQL_OK;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_INTERVAL:
    case RSQL_TYPE_TIMESTAMP: {
        if (!get_varint(r, &u)) {
            return bad(r, "an integer is cut short");
        }
        int64_t i = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        if (t->type == RSQL_TYPE_INT && (i < INT32_MIN || i > INT32_MAX)) {
            return bad(r, "an INT is out of range");
        }
        if (t->type == RSQL_TYPE_TIMESTAMP) {
            out->v.ts = i;
        } else {
            out->v.i = i;
        }
        return RSQL_OK;
    }
    case RSQL_TYPE_DOUBLE:
        if (!get_le64(r, &u)) {
            return bad(r, "a DOUBLE is cut short");
        }
        memcpy(&out->v.d, &u, sizeof u);
        return RSQL_OK;
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: {
        if (!get_varint(r, &u) || u > (uint64_t)(r->end - r->p)) {
            return bad(r, "a string is cut short");
        }
        char *s = rsql_arena_alloc_raw(r->a, (size_t)u + 1);
        if (!s) {
            return rsql_error_nomem(r->err);
        }
        if (u) {
            memcpy(s, r->p, (size_t)u);
        }
        s[u] = '\0';
        r->p += u;
        out->v.s.p = s;
        out->v.s.len = (size_t)u;
        return RSQL_OK;
    }
    case RSQL_TYPE_DECIMAL: {
        uint64_t lo, hi;
        if (r->end - r->p < 2) {
            return bad(r, "a DECIMAL is cut short");
        }
        out->prec = r->p[0];
        out->scale = r->p[1];
        r->p += 2;
        if (out->prec != t->precision || out->scale != t->scale) {
            return bad(r, "a DECIMAL is not of its column's precision and scale");
        }
        if (!get_le64(r, &lo) || !get_le64(r, &hi)) {
            return bad(r, "a DECIMAL is cut short");
        }
        out->v.dec.lo = lo;
        out->v.dec.hi = (int64_t)hi;
        return RSQL_OK;
    }
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: {
        if (!get_varint(r, &u) || u > (uint64_t)(r->end - r->p)) {
            return bad(r, "a nested value's count is past its bytes"); /* >= 1 byte an item */
        }
        if (t->type == RSQL_TYPE_ROW && u != (uint64_t)t->n) {
            return bad(r, "a ROW has the wrong number of fields");
        }
        size_t items = t->type == RSQL_TYPE_MAP ? 2 * (size_t)u : (size_t)u;
        rsql_composite_t *c = rsql_arena_alloc(r->a, sizeof *c + items * sizeof c->items[0]);
        if (!c) {
            return rsql_error_nomem(r->err);
        }
        c->desc = t;
        c->n = (uint32_t)u;
        for (size_t i = 0; i < items; i++) {
            const rsql_tdesc_t *ct = t->type == RSQL_TYPE_ROW   ? t->children[i]
                                     : t->type == RSQL_TYPE_ARRAY ? t->children[0]
                                                                 : t->children[i % 2];
            rsql_err_t rc = unpack_one(r, ct, depth + 1, &c->items[i]);
            if (rc != RSQL_OK) {
                return rc;
            }
            if (t->type == RSQL_TYPE_MAP && i % 2 == 0 && c->items[i].is_null) {
                return bad(r, "a MAP key is NULL");
            }
        }
        out->v.c = c;
        return RSQL_OK;
    }
    default: return bad(r, "a value of a type state does not keep");
    }
}

/*
** A value of a scalar type t (an integer, a TIMESTAMP, a DOUBLE) read as unpack_one reads it,
** when its bytes are well formed: true with out set and r past it; else false with r
** untouched, for unpack_one to read it and say what is wrong.
*/
static inline bool unpack_scalar(rd_t *r, rsql_type_t t, rsql_value_t *out)
{
    const uint8_t *p = r->p;
    if (p >= r->end || (*p & ~NULL_TAG) != (uint8_t)t) {
        return false;
    }
    switch (t) {
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_INTERVAL:
    case RSQL_TYPE_TIMESTAMP:
    case RSQL_TYPE_DOUBLE: break;
    default: return false;
    }
    memset(out, 0, sizeof *out);
    out->type = t;
    if (*p & NULL_TAG) {
        out->is_null = true;
        r->p = p + 1;
        return true;
    }
    rd_t q = *r;
    q.p = p + 1;
    uint64_t u;
    if (t == RSQL_TYPE_DOUBLE) {
        if (!get_le64(&q, &u)) {
            return false;
        }
        memcpy(&out->v.d, &u, sizeof u);
    } else {
        if (!get_varint(&q, &u)) {
            return false;
        }
        int64_t i = (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
        if (t == RSQL_TYPE_INT && (i < INT32_MIN || i > INT32_MAX)) {
            return false;
        }
        if (t == RSQL_TYPE_TIMESTAMP) {
            out->v.ts = i;
        } else {
            out->v.i = i;
        }
    }
    r->p = q.p;
    return true;
}

/* See rsql_value.h. */
rsql_err_t rsql_value_unpack(const uint8_t *p, size_t len, int n, const rsql_type_t *types,
                             const rsql_tdesc_t *const *descs, rsql_arena_t *a, rsql_value_t *out,
                             rsql_error_t *err)
{
    rd_t r = {p, p + len, a, err};
    for (int i = 0; i < n; i++) {
        if (unpack_scalar(&r, types[i], &out[i])) {
            continue;
        }
        const rsql_tdesc_t *t = rsql_tdesc_of(types[i], descs ? descs[i] : NULL);
        if (!t) {
            return bad(&r, "a column's type is unknown");
        }
        rsql_err_t rc = unpack_one(&r, t, 0, &out[i]);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    return r.p == r.end ? RSQL_OK : bad(&r, "bytes are left after the last value");
}

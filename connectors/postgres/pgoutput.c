/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgoutput: the decoder of PostgreSQL's logical replication stream (pgoutput.h has the
 * model): a bounds-checked reader over one message, the CopyBoth framing ('w', 'k', 'r'),
 * the messages of proto_version 1 with the relation cache, the tuples and their rows with
 * kinds, and a value's text read by its column's type OID through base/rsql_value.h.
 *
 * Entry points: rsql_pgoutput_copy_parse, rsql_pgoutput_status_update, rsql_pgoutput_new,
 * rsql_pgoutput_decode, rsql_pgoutput_value. No libpq here: the replication connection
 * hands its CopyData payloads in, and the tests hand in bytes of their own.
 */
#include "config.h"
#include "connectors/postgres/pgoutput.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/rsql_value.h"

/* Type OIDs of pg_type (fixed in every PostgreSQL release). */
enum {
    OID_BOOL = 16,
    OID_BYTEA = 17,
    OID_INT8 = 20,
    OID_INT2 = 21,
    OID_INT4 = 23,
    OID_FLOAT4 = 700,
    OID_FLOAT8 = 701,
    OID_DATE = 1082,
    OID_TIMESTAMP = 1114,
    OID_TIMESTAMPTZ = 1184,
    OID_NUMERIC = 1700
};

/* The milliseconds between 1970-01-01 and 2000-01-01. */
#define PG_EPOCH_MS INT64_C(946684800000)

/* ---- LSNs and times */

static int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = (unsigned char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* 1 to 8 hex digits from s[*i] up to stop (or the end), into *out. */
static bool hex32(const char *s, size_t n, size_t *i, char stop, uint32_t *out)
{
    size_t k = 0;
    uint32_t v = 0;
    for (; *i < n && s[*i] != stop; (*i)++, k++) {
        int h = hexval((unsigned char)s[*i]);
        if (h < 0 || k == 8) {
            return false;
        }
        v = v << 4 | (uint32_t)h;
    }
    *out = v;
    return k > 0;
}

bool rsql_pgoutput_lsn_parse(const char *s, size_t n, rsql_lsn_t *out)
{
    size_t i = 0;
    uint32_t hi, lo;
    if (!hex32(s, n, &i, '/', &hi) || i == n) {
        return false;
    }
    i++;
    if (!hex32(s, n, &i, '\0', &lo) || i != n) {
        return false;
    }
    *out = (uint64_t)hi << 32 | lo;
    return true;
}

size_t rsql_pgoutput_lsn_format(rsql_lsn_t lsn, char buf[RSQL_LSN_TEXT_MAX])
{
    int k = snprintf(buf, RSQL_LSN_TEXT_MAX, "%" PRIX32 "/%" PRIX32, (uint32_t)(lsn >> 32),
                     (uint32_t)lsn);
    return (size_t)k;
}

int64_t rsql_pgoutput_time_ms(int64_t pg_us)
{
    int64_t ms = pg_us / 1000;
    if (pg_us % 1000 < 0) {
        ms--; /* floor, for times before 2000 */
    }
    return ms + PG_EPOCH_MS;
}

/* ---- a reader over one message: every read checked, the first failure sticks */

typedef struct rd {
    const uint8_t *p;
    size_t n, at;
    const char *msg; /* the message's name, for errors */
    rsql_error_t *err;
    rsql_err_t rc;
} rd_t;

static bool fail(rd_t *r, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool fail(rd_t *r, size_t at, const char *fmt, ...)
{
    if (r->rc != RSQL_OK) {
        return false;
    }
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    r->rc = rsql_error_set(r->err, RSQL_ERR_DECODE, RSQL_NOPOS, "pgoutput: %s at byte %zu", what,
                           at);
    return false;
}

/* k more bytes are there; else an error naming what was expected. */
static bool need(rd_t *r, size_t k, const char *what)
{
    if (r->rc != RSQL_OK) {
        return false;
    }
    if (r->n - r->at < k) {
        return fail(r, r->at, "%s message cut short (%zu bytes): expected %s", r->msg, r->n,
                    what);
    }
    return true;
}

static uint64_t get_be(const uint8_t *p, int k)
{
    uint64_t v = 0;
    for (int i = 0; i < k; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

static uint64_t rd_int(rd_t *r, int k, const char *what)
{
    if (!need(r, (size_t)k, what)) {
        return 0;
    }
    uint64_t v = get_be(r->p + r->at, k);
    r->at += (size_t)k;
    return v;
}

static uint8_t rd_u8(rd_t *r, const char *what) { return (uint8_t)rd_int(r, 1, what); }
static uint16_t rd_u16(rd_t *r, const char *what) { return (uint16_t)rd_int(r, 2, what); }
static uint32_t rd_u32(rd_t *r, const char *what) { return (uint32_t)rd_int(r, 4, what); }
static uint64_t rd_u64(rd_t *r, const char *what) { return rd_int(r, 8, what); }

/* A NUL-terminated string in the message (borrowed); "" after a failure. */
static const char *rd_str(rd_t *r, const char *what)
{
    if (r->rc != RSQL_OK) {
        return "";
    }
    const uint8_t *e = r->at < r->n ? memchr(r->p + r->at, 0, r->n - r->at) : NULL;
    if (!e) {
        fail(r, r->at, "%s message cut short (%zu bytes): expected %s (a NUL-terminated string)",
             r->msg, r->n, what);
        return "";
    }
    const char *s = (const char *)(r->p + r->at);
    r->at = (size_t)(e - r->p) + 1;
    return s;
}

/* ---- CopyBoth framing */

rsql_err_t rsql_pgoutput_copy_parse(const uint8_t *p, size_t n, rsql_pgoutput_copy_t *out,
                                    rsql_error_t *err)
{
    memset(out, 0, sizeof *out);
    rd_t r = {p, n, 0, "CopyData", err, RSQL_OK};
    out->kind = (char)rd_u8(&r, "a message kind");
    if (r.rc != RSQL_OK) {
        return r.rc;
    }
    if (out->kind == 'w') {
        r.msg = "XLogData";
        out->start_lsn = rd_u64(&r, "the start LSN");
        out->end_lsn = rd_u64(&r, "the end of WAL");
        out->time_us = (int64_t)rd_u64(&r, "the send time");
        out->data = p + r.at;
        out->len = n - r.at;
    } else if (out->kind == 'k') {
        r.msg = "Primary keepalive";
        out->end_lsn = rd_u64(&r, "the end of WAL");
        out->time_us = (int64_t)rd_u64(&r, "the send time");
        out->reply_requested = rd_u8(&r, "the reply flag") != 0;
    } else {
        fail(&r, 0, "CopyData message of kind 0x%02x, expected 'w' (XLogData) or 'k' (keepalive)",
             (unsigned)(uint8_t)out->kind);
    }
    if (r.rc != RSQL_OK) {
        out->data = NULL;
        out->len = 0;
    }
    return r.rc;
}

static void put_be(uint8_t *p, uint64_t v, int k)
{
    for (int i = k - 1; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}

size_t rsql_pgoutput_status_update(uint8_t out[RSQL_PGOUTPUT_STATUS_LEN], rsql_lsn_t written,
                                   rsql_lsn_t flushed, rsql_lsn_t applied, int64_t now_us,
                                   bool reply)
{
    out[0] = 'r';
    put_be(out + 1, written, 8);
    put_be(out + 9, flushed, 8);
    put_be(out + 17, applied, 8);
    put_be(out + 25, (uint64_t)now_us, 8);
    out[33] = reply ? 1 : 0;
    return RSQL_PGOUTPUT_STATUS_LEN;
}

/* ---- the decoder */

struct rsql_pgoutput {
    rsql_pgoutput_rel_t **rels; /* the relation cache (few relations: searched in order) */
    size_t n_rels, cap_rels;
    rsql_pgoutput_datum_t *tup[2]; /* the old and the new tuple of the last message */
    size_t cap_tup[2];
    uint32_t *relids; /* the last Truncate's */
    size_t cap_relids;
};

rsql_pgoutput_t *rsql_pgoutput_new(void) { return rsql_calloc(1, sizeof(rsql_pgoutput_t)); }

static void rel_free(rsql_pgoutput_rel_t *rel)
{
    if (!rel) {
        return;
    }
    for (uint16_t i = 0; rel->cols && i < rel->n_cols; i++) {
        rsql_free(rel->cols[i].name);
    }
    rsql_free(rel->cols);
    rsql_free(rel->nspname);
    rsql_free(rel->relname);
    rsql_free(rel);
}

void rsql_pgoutput_destroy(rsql_pgoutput_t *d)
{
    if (!d) {
        return;
    }
    for (size_t i = 0; i < d->n_rels; i++) {
        rel_free(d->rels[i]);
    }
    rsql_free(d->rels);
    rsql_free(d->tup[0]);
    rsql_free(d->tup[1]);
    rsql_free(d->relids);
    rsql_free(d);
}

static size_t rel_index(const rsql_pgoutput_t *d, uint32_t oid)
{
    size_t i = 0;
    while (i < d->n_rels && d->rels[i]->oid != oid) {
        i++;
    }
    return i;
}

const rsql_pgoutput_rel_t *rsql_pgoutput_relation(const rsql_pgoutput_t *d, uint32_t oid)
{
    size_t i = rel_index(d, oid);
    return i < d->n_rels ? d->rels[i] : NULL;
}

/* Room for want items of size sz in *p (capacity *cap); false when out of memory. */
static bool grow(void **p, size_t *cap, size_t want, size_t sz)
{
    if (want <= *cap) {
        return true;
    }
    size_t c = *cap ? *cap : 8;
    while (c < want) {
        c *= 2;
    }
    void *q = rsql_realloc(*p, c * sz);
    if (!q) {
        return false;
    }
    *p = q;
    *cap = c;
    return true;
}

static bool oom(rd_t *r)
{
    if (r->rc == RSQL_OK) {
        r->rc = rsql_error_nomem(r->err);
    }
    return false;
}

/* Two definitions differ in anything a consumer sees (names, identity, columns). */
static bool rel_differs(const rsql_pgoutput_rel_t *a, const rsql_pgoutput_rel_t *b)
{
    if (strcmp(a->nspname, b->nspname) || strcmp(a->relname, b->relname) ||
        a->replident != b->replident || a->n_cols != b->n_cols) {
        return true;
    }
    for (uint16_t i = 0; i < a->n_cols; i++) {
        const rsql_pgoutput_col_t *x = &a->cols[i], *y = &b->cols[i];
        if (strcmp(x->name, y->name) || x->flags != y->flags || x->type_oid != y->type_oid ||
            x->typmod != y->typmod) {
            return true;
        }
    }
    return false;
}

/* 'R': a relation into the cache, replacing its earlier definition once all of it read. */
static bool dec_relation(rsql_pgoutput_t *d, rd_t *r, rsql_pgoutput_event_t *ev)
{
    uint32_t oid = rd_u32(r, "the relation OID");
    const char *nsp = rd_str(r, "the namespace");
    const char *name = rd_str(r, "the relation name");
    size_t at_ident = r->at;
    char ident = (char)rd_u8(r, "the replica identity");
    uint16_t n = rd_u16(r, "the number of columns");
    if (r->rc != RSQL_OK) {
        return false;
    }
    if (ident != 'd' && ident != 'n' && ident != 'f' && ident != 'i') {
        return fail(r, at_ident, "Relation %u has replica identity 0x%02x, expected 'd', 'n', "
                    "'f' or 'i'", oid, (unsigned)(uint8_t)ident);
    }
    if ((size_t)n * 10 > r->n - r->at) { /* a column takes at least 10 bytes */
        return fail(r, r->at, "Relation %u says %u columns, the message has room for %zu",
                    oid, n, (r->n - r->at) / 10);
    }
    rsql_pgoutput_rel_t *rel = rsql_calloc(1, sizeof *rel);
    if (!rel) {
        return oom(r);
    }
    rel->oid = oid;
    rel->replident = ident;
    rel->nspname = rsql_strdup(nsp);
    rel->relname = rsql_strdup(name);
    rel->cols = rsql_calloc(n ? n : 1, sizeof *rel->cols);
    if (!rel->nspname || !rel->relname || !rel->cols) {
        rel_free(rel);
        return oom(r);
    }
    for (uint16_t i = 0; i < n && r->rc == RSQL_OK; i++) {
        rsql_pgoutput_col_t *c = &rel->cols[i];
        c->flags = rd_u8(r, "a column's flags");
        const char *cname = rd_str(r, "a column's name");
        c->type_oid = rd_u32(r, "a column's type OID");
        c->typmod = (int32_t)rd_u32(r, "a column's type modifier");
        rel->n_cols = (uint16_t)(i + 1);
        if (r->rc == RSQL_OK && !(c->name = rsql_strdup(cname))) {
            oom(r);
        }
    }
    if (r->rc == RSQL_OK && r->at != r->n) { /* checked before the cache changes */
        fail(r, r->at, "%zu bytes after the end of the %s message", r->n - r->at, r->msg);
    }
    size_t i = rel_index(d, oid);
    if (r->rc != RSQL_OK || (i == d->n_rels && !grow((void **)&d->rels, &d->cap_rels,
                                                     d->n_rels + 1, sizeof *d->rels))) {
        rel_free(rel);
        return r->rc != RSQL_OK ? false : oom(r);
    }
    ev->changed = i < d->n_rels && rel_differs(d->rels[i], rel);
    if (i < d->n_rels) {
        rel_free(d->rels[i]);
    } else {
        d->n_rels++;
    }
    d->rels[i] = rel;
    ev->rel = rel;
    return true;
}

/* The relation of an Insert, Update or Delete, which must have come before. */
static const rsql_pgoutput_rel_t *dml_rel(rsql_pgoutput_t *d, rd_t *r)
{
    size_t at = r->at;
    uint32_t oid = rd_u32(r, "the relation OID");
    if (r->rc != RSQL_OK) {
        return NULL;
    }
    const rsql_pgoutput_rel_t *rel = rsql_pgoutput_relation(d, oid);
    if (!rel) {
        fail(r, at, "%s for unknown relation %" PRIu32, r->msg, oid);
    }
    return rel;
}

/* TupleData of rel into tuple slot t (0 old, 1 new); which names it in errors. */
static bool dec_tuple(rsql_pgoutput_t *d, rd_t *r, const rsql_pgoutput_rel_t *rel, int t,
                      const char *which)
{
    size_t at = r->at;
    uint16_t n = rd_u16(r, "the number of columns of a tuple");
    if (r->rc != RSQL_OK) {
        return false;
    }
    if (n != rel->n_cols) {
        return fail(r, at, "%s tuple of %s has %u columns, relation %s.%s has %u", which,
                    r->msg, n, rel->nspname, rel->relname, rel->n_cols);
    }
    if (!grow((void **)&d->tup[t], &d->cap_tup[t], n ? n : 1, sizeof *d->tup[t])) {
        return oom(r);
    }
    for (uint16_t i = 0; i < n; i++) {
        rsql_pgoutput_datum_t *x = &d->tup[t][i];
        size_t at_kind = r->at;
        x->kind = (char)rd_u8(r, "a column's kind");
        x->data = NULL;
        x->len = 0;
        if (r->rc != RSQL_OK) {
            return false;
        }
        switch (x->kind) {
        case 'n':
        case 'u': break;
        case 't':
        case 'b':
            x->len = rd_u32(r, "a value's length");
            if (!need(r, x->len, "the bytes of a value")) {
                return false;
            }
            x->data = r->p + r->at;
            r->at += x->len;
            break;
        default:
            return fail(r, at_kind, "%s tuple of %s: column %u (%s) has kind 0x%02x, expected "
                        "'n', 'u', 't' or 'b'", which, r->msg, i + 1, rel->cols[i].name,
                        (unsigned)(uint8_t)x->kind);
        }
    }
    return true;
}

static void set_row(rsql_pgoutput_event_t *ev, const rsql_pgoutput_rel_t *rel,
                    rsql_rowkind_t kind, bool key_only, const rsql_pgoutput_datum_t *cols)
{
    rsql_pgoutput_row_t *row = &ev->rows[ev->n_rows++];
    row->kind = kind;
    row->key_only = key_only;
    row->cols = cols;
    row->n_unchanged = 0;
    row->n_filled = 0;
    for (uint16_t i = 0; i < rel->n_cols; i++) {
        row->n_unchanged += cols[i].kind == 'u';
    }
}

/* 'I', 'U', 'D': the relation, the tuples, the rows with their kinds. */
static bool dec_dml(rsql_pgoutput_t *d, rd_t *r, char type, rsql_pgoutput_event_t *ev)
{
    const rsql_pgoutput_rel_t *rel = dml_rel(d, r);
    if (!rel) {
        return false;
    }
    ev->rel = rel;
    size_t at = r->at;
    char tag = (char)rd_u8(r, "a tuple tag");
    if (r->rc != RSQL_OK) {
        return false;
    }
    if (type == 'I') {
        if (tag != 'N') {
            return fail(r, at, "Insert has tuple tag 0x%02x, expected 'N'", (unsigned)(uint8_t)tag);
        }
        if (!dec_tuple(d, r, rel, 1, "new")) {
            return false;
        }
        set_row(ev, rel, RSQL_ROW_INSERT, false, d->tup[1]);
        return true;
    }
    if (tag == 'K' || tag == 'O') {
        ev->old_tag = tag;
        if (!dec_tuple(d, r, rel, 0, tag == 'K' ? "key" : "old")) {
            return false;
        }
    } else if (type == 'D' || tag != 'N') {
        return fail(r, at, "%s has tuple tag 0x%02x, expected %s", r->msg, (unsigned)(uint8_t)tag,
                    type == 'D' ? "'K' or 'O'" : "'K', 'O' or 'N'");
    }
    if (type == 'D') {
        set_row(ev, rel, RSQL_ROW_DELETE, tag == 'K', d->tup[0]);
        return true;
    }
    if (tag != 'N') {
        at = r->at;
        tag = (char)rd_u8(r, "the new tuple's tag");
        if (r->rc != RSQL_OK) {
            return false;
        }
        if (tag != 'N') {
            return fail(r, at, "Update has tuple tag 0x%02x after the %s tuple, expected 'N'",
                        (unsigned)(uint8_t)tag, ev->old_tag == 'K' ? "key" : "old");
        }
    }
    if (!dec_tuple(d, r, rel, 1, "new")) {
        return false;
    }
    uint16_t filled = 0;
    if (ev->old_tag == 'O') { /* an unchanged TOASTed value is the old one */
        for (uint16_t i = 0; i < rel->n_cols; i++) {
            char k = d->tup[0][i].kind;
            if (d->tup[1][i].kind == 'u' && (k == 't' || k == 'b' || k == 'n')) {
                d->tup[1][i] = d->tup[0][i];
                filled++;
            }
        }
    }
    if (ev->old_tag) {
        set_row(ev, rel, RSQL_ROW_UPDATE_BEFORE, ev->old_tag == 'K', d->tup[0]);
    }
    set_row(ev, rel, RSQL_ROW_UPDATE_AFTER, false, d->tup[1]);
    ev->rows[ev->n_rows - 1].n_filled = filled;
    return true;
}

/* 'T': the truncated relations' OIDs and the options. */
static bool dec_truncate(rsql_pgoutput_t *d, rd_t *r, rsql_pgoutput_event_t *ev)
{
    uint32_t n = rd_u32(r, "the number of relations");
    ev->flags = rd_u8(r, "the options");
    if (r->rc != RSQL_OK) {
        return false;
    }
    if (n > (r->n - r->at) / 4) {
        return fail(r, r->at, "Truncate says %" PRIu32 " relations, the message has room for "
                    "%zu", n, (r->n - r->at) / 4);
    }
    if (!grow((void **)&d->relids, &d->cap_relids, n ? n : 1, sizeof *d->relids)) {
        return oom(r);
    }
    for (uint32_t i = 0; i < n; i++) {
        d->relids[i] = rd_u32(r, "a relation OID");
    }
    ev->n_relids = n;
    ev->relids = d->relids;
    return r->rc == RSQL_OK;
}

static const char *msg_name(char type)
{
    switch (type) {
    case 'B': return "Begin";
    case 'C': return "Commit";
    case 'O': return "Origin";
    case 'R': return "Relation";
    case 'Y': return "Type";
    case 'I': return "Insert";
    case 'U': return "Update";
    case 'D': return "Delete";
    case 'T': return "Truncate";
    case 'M': return "Message";
    }
    return NULL;
}

rsql_err_t rsql_pgoutput_decode(rsql_pgoutput_t *d, const uint8_t *msg, size_t n,
                                rsql_pgoutput_event_t *ev, rsql_error_t *err)
{
    memset(ev, 0, sizeof *ev);
    rd_t r = {msg, n, 0, "pgoutput", err, RSQL_OK};
    char type = (char)rd_u8(&r, "a message type");
    if (r.rc != RSQL_OK) {
        return r.rc;
    }
    r.msg = msg_name(type);
    if (!r.msg) {
        fail(&r, 0, "unknown message type 0x%02x", (unsigned)(uint8_t)type);
        return r.rc;
    }
    ev->type = type;
    switch (type) {
    case 'B':
        ev->final_lsn = rd_u64(&r, "the final LSN");
        ev->time_us = (int64_t)rd_u64(&r, "the commit time");
        ev->xid = rd_u32(&r, "the transaction id");
        break;
    case 'C':
        ev->flags = rd_u8(&r, "the flags");
        ev->lsn = rd_u64(&r, "the commit LSN");
        ev->end_lsn = rd_u64(&r, "the end LSN");
        ev->time_us = (int64_t)rd_u64(&r, "the commit time");
        break;
    case 'O':
        ev->lsn = rd_u64(&r, "the origin's commit LSN");
        ev->name = rd_str(&r, "the origin's name");
        break;
    case 'R': dec_relation(d, &r, ev); break;
    case 'Y':
        ev->type_oid = rd_u32(&r, "the type OID");
        ev->nspname = rd_str(&r, "the namespace");
        ev->name = rd_str(&r, "the type name");
        break;
    case 'I':
    case 'U':
    case 'D': dec_dml(d, &r, type, ev); break;
    case 'T': dec_truncate(d, &r, ev); break;
    case 'M':
        ev->flags = rd_u8(&r, "the flags");
        ev->lsn = rd_u64(&r, "the message's LSN");
        ev->name = rd_str(&r, "the prefix");
        ev->len = rd_u32(&r, "the content's length");
        if (need(&r, ev->len, "the content")) {
            ev->data = msg + r.at;
            r.at += ev->len;
        }
        break;
    }
    if (r.rc == RSQL_OK && r.at != n) {
        fail(&r, r.at, "%zu bytes after the end of the %s message", n - r.at, r.msg);
    }
    if (r.rc != RSQL_OK) {
        memset(ev, 0, sizeof *ev);
    }
    return r.rc;
}

/* ---- values */

rsql_type_t rsql_pgoutput_type(uint32_t type_oid)
{
    switch (type_oid) {
    case OID_BOOL: return RSQL_TYPE_BOOLEAN;
    case OID_INT2:
    case OID_INT4: return RSQL_TYPE_INT;
    case OID_INT8: return RSQL_TYPE_BIGINT;
    case OID_FLOAT4:
    case OID_FLOAT8: return RSQL_TYPE_DOUBLE;
    case OID_NUMERIC: return RSQL_TYPE_DECIMAL;
    case OID_DATE: return RSQL_TYPE_DATE;
    case OID_TIMESTAMP:
    case OID_TIMESTAMPTZ: return RSQL_TYPE_TIMESTAMP;
    case OID_BYTEA: return RSQL_TYPE_BYTES;
    }
    return RSQL_TYPE_VARCHAR;
}

rsql_err_t rsql_pg__decimal_text(const char *txt, size_t n, rsql_value_t *out, rsql_error_t *err)
{
    const char *dot = memchr(txt, '.', n);
    int scale = 0;
    for (size_t j = dot ? (size_t)(dot - txt) + 1 : n; j < n && scale < 38; j++) {
        scale += txt[j] >= '0' && txt[j] <= '9';
    }
    return rsql_value_parse_decimal(txt, n, RSQL_DECIMAL_MAX_PRECISION, scale, out, err);
}

/* bytea's text (hex: \x then two digits a byte) into arena. */
static rsql_err_t bytea_text(const char *s, size_t n, rsql_arena_t *arena, rsql_value_t *out,
                             rsql_error_t *err)
{
    if (n < 2 || s[0] != '\\' || s[1] != 'x' || n % 2) {
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "not bytea's hex form (\\x...)");
    }
    size_t len = (n - 2) / 2;
    uint8_t *p = rsql_arena_alloc_raw(arena, len ? len : 1);
    if (!p) {
        return rsql_error_nomem(err);
    }
    for (size_t i = 0; i < len; i++) {
        int hi = hexval((unsigned char)s[2 + 2 * i]), lo = hexval((unsigned char)s[3 + 2 * i]);
        if (hi < 0 || lo < 0) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "not a hex digit at %zu",
                                  2 + 2 * i + (hi < 0 ? 0 : 1));
        }
        p[i] = (uint8_t)(hi << 4 | lo);
    }
    out->v.s.p = (const char *)p;
    out->v.s.len = len;
    return RSQL_OK;
}

static rsql_err_t text_value(uint32_t oid, const char *s, size_t n, rsql_arena_t *arena,
                             rsql_value_t *out, rsql_error_t *err)
{
    switch (oid) {
    case OID_BOOL:
        if (n == 1 && (s[0] == 't' || s[0] == 'f')) {
            out->v.b = s[0] == 't';
            return RSQL_OK;
        }
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "not a boolean (t or f)");
    case OID_NUMERIC: return rsql_pg__decimal_text(s, n, out, err);
    case OID_BYTEA: return bytea_text(s, n, arena, out, err);
    }
    return rsql_value_parse(out->type, s, n, arena, out, err);
}

rsql_err_t rsql_pgoutput_value(const rsql_pgoutput_col_t *col, const rsql_pgoutput_datum_t *d,
                               rsql_arena_t *arena, rsql_value_t *out, rsql_error_t *err)
{
    memset(out, 0, sizeof *out);
    out->type = rsql_pgoutput_type(col->type_oid);
    rsql_error_t why;
    rsql_error_clear(&why);
    rsql_err_t rc = RSQL_OK;
    switch (d->kind) {
    case 'n': out->is_null = true; return RSQL_OK;
    case 't':
        rc = text_value(col->type_oid, (const char *)d->data, d->len, arena, out, &why);
        break;
    case 'b': {
        if (col->type_oid != OID_BYTEA) {
            rc = rsql_error_set(&why, RSQL_ERR_DECODE, RSQL_NOPOS,
                                "a binary value (only bytea's is read; ask for text)");
            break;
        }
        char *p = rsql_arena_alloc_raw(arena, d->len ? d->len : 1);
        if (!p) {
            return rsql_error_nomem(err);
        }
        if (d->len) {
            memcpy(p, d->data, d->len);
        }
        out->v.s.p = p;
        out->v.s.len = d->len;
        return RSQL_OK;
    }
    case 'u':
        rc = rsql_error_set(&why, RSQL_ERR_DECODE, RSQL_NOPOS,
                            "an unchanged TOASTed value, which the server does not send");
        break;
    default:
        rc = rsql_error_set(&why, RSQL_ERR_DECODE, RSQL_NOPOS, "a value of kind 0x%02x",
                            (unsigned)(uint8_t)d->kind);
        break;
    }
    if (rc == RSQL_ERR_NOMEM) {
        return rsql_error_nomem(err);
    }
    if (rc != RSQL_OK) {
        memset(out, 0, sizeof *out);
        return rsql_error_set(err, rc, RSQL_NOPOS, "pgoutput: column '%s' (type OID %" PRIu32
                              "): %s", col->name, col->type_oid, why.msg);
    }
    return RSQL_OK;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The debezium-json format: Debezium's change events, read as changes and written as them
 * (docs/CHANGELOGS.md, "debezium-json"). A body is
 *   {"before":{...},"after":{...},"source":{...},"op":"u","ts_ms":1700000000000}
 * or, with debezium-json.schema-include, that object as the "payload" of
 *   {"schema":{...},"payload":{...}}
 * (Kafka Connect's JSON converter with schemas enabled); that schema says only the units the
 * columns cannot (a timestamp's micro- or nanoseconds, a Decimal's scale: see
 * fmt_debezium_schema.c). A DATE column also takes Debezium's day count (a JSON integer).
 *
 * Reading (rsql_fmt__dbz_decode): op "c" (create) and "r" (a snapshot read) give one INSERT
 * of after; "u" gives UPDATE_BEFORE of before then UPDATE_AFTER of after, or only the
 * UPDATE_AFTER when before is null (a PostgreSQL table without REPLICA IDENTITY FULL: an
 * upsert by key applies it rightly); "d" gives one DELETE of before; "t" (truncate) is an
 * error unless debezium-json.ignore-truncate skips it. An empty body or `null` (the tombstone
 * Debezium sends after a delete), and a null payload, give no rows. before and after are read
 * into the table's columns by the json format's object reader (fmt_json.c: the same value
 * rules, nested types, and only the columns the statement reads), with errors naming
 * "after.amount". The metadata keys (rsql_fmt__dbz_meta) are filled after the columns of
 * each row when asked for (rsql_decoder_want_meta); the source object is read only then.
 * With debezium-json.ignore-parse-errors a body that fails to decode gives no rows and is
 * counted (rsql_decoder_skips).
 *
 * Writing (rsql_fmt__dbz_encode), as Flink does: INSERT and UPDATE_AFTER are an op "c" with
 * after, UPDATE_BEFORE and DELETE an op "d" with before (an update is a delete and a create:
 * one event per row, so no row waits for its partner); with schema-include the event is the
 * payload of an envelope whose schema (Kafka Connect's) is built once from the columns.
 */
#include "config.h"
#include "connectors/formats/fmt_int.h"
#include "base/rsql_value.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define next_key rsql_fmt__dbz_next_key
#define key_is rsql_fmt__key_is

/* The metadata keys, in Flink's names; M_* index them. */
const rsql_format_meta_t rsql_fmt__dbz_meta[] = {
    {"schema", RSQL_TYPE_VARCHAR,
     "The body's `schema` as JSON text (with `debezium-json.schema-include`), else NULL."},
    {"ingestion-timestamp", RSQL_TYPE_TIMESTAMP,
     "When Debezium processed the change (the event's `ts_ms`)."},
    {"source.timestamp", RSQL_TYPE_TIMESTAMP,
     "When the change was made in the database (`source.ts_ms`)."},
    {"source.database", RSQL_TYPE_VARCHAR, "The database of the change (`source.db`)."},
    {"source.schema", RSQL_TYPE_VARCHAR, "The schema of the change (`source.schema`)."},
    {"source.table", RSQL_TYPE_VARCHAR,
     "The table of the change (`source.table`, or `source.collection`)."},
    {"source.properties", RSQL_TYPE_MAP,
     "Every field of `source`, as a MAP<VARCHAR, VARCHAR> of their texts.",
     "MAP<VARCHAR, VARCHAR>"},
    {NULL, RSQL_TYPE_NULL, NULL},
};
enum { M_SCHEMA, M_INGEST, M_SRC_TS, M_SRC_DB, M_SRC_SCHEMA, M_SRC_TABLE, M_SRC_PROPS, M_N };


/* 9999-12-31 23:59:59.999 UTC: a later timestamp in an event is not epoch milliseconds */
#define TS_MAX_MS INT64_C(253402300799999)

/*
** The format's state from its typed configuration (rsql_debezium_conf_t; NULL = defaults).
*/
rsql_err_t rsql_fmt__dbz_init(fmt_conf_t *c, const void *format_conf, rsql_error_t *err)
{
    static const rsql_debezium_conf_t defaults = {false, false, false, RSQL_JSON_TS_SQL};
    const rsql_debezium_conf_t *o = format_conf ? format_conf : &defaults;
    fmt_dbz_t *z = rsql_calloc(1, sizeof *z);
    if (!z) {
        return rsql_error_nomem(err);
    }
    c->dbz = z;
    rsql_buf_init(&z->schema);
    z->schema_include = o->schema_include;
    z->ignore_errors = o->ignore_parse_errors;
    z->ignore_truncate = o->ignore_truncate;
    c->json_ts_iso = o->timestamp_standard == RSQL_JSON_TS_ISO8601;
    c->json_date_days = true;
    z->props = rsql_tdesc_map(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR));
    for (int i = 0; i < c->n; i++) {
        z->any_ts = z->any_ts || c->types[i] == RSQL_TYPE_TIMESTAMP;
    }
    bool any_dec = false;
    for (int i = 0; i < c->n; i++) {
        any_dec = any_dec || c->types[i] == RSQL_TYPE_DECIMAL;
    }
    if ((z->any_ts || any_dec) && z->schema_include) {
        z->ts_per_ms = rsql_calloc((size_t)c->n, sizeof *z->ts_per_ms);
        z->dec_scale = rsql_calloc((size_t)c->n, sizeof *z->dec_scale);
        if (!z->ts_per_ms || !z->dec_scale) {
            return rsql_error_nomem(err);
        }
        for (int i = 0; i < c->n; i++) {
            z->ts_per_ms[i] = 1;
            z->dec_scale[i] = -1;
        }
    }
    z->names = rsql_calloc((size_t)c->n * 2, sizeof *z->names);
    if (!z->names || !z->props) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < 2 * c->n; i++) {
        const char *col = c->names[i % c->n];
        size_t size = strlen(col) + sizeof "before.";
        if (!(z->names[i] = rsql_malloc(size))) {
            return rsql_error_nomem(err);
        }
        snprintf(z->names[i], size, "%s.%s", i < c->n ? "before" : "after", col);
    }
    return RSQL_OK;
}

/* Free c's debezium-json state (none: a no-op). */
void rsql_fmt__dbz_free(fmt_conf_t *c)
{
    fmt_dbz_t *z = c->dbz;
    if (!z) {
        return;
    }
    for (int i = 0; z->names && i < 2 * c->n; i++) {
        rsql_free(z->names[i]);
    }
    rsql_free(z->names);
    rsql_free(z->ts_per_ms);
    rsql_free(z->dec_scale);
    rsql_free(z->sch);
    rsql_buf_deinit(&z->schema);
    rsql_free(z);
    c->dbz = NULL;
}

/* ---- reading */

/* What one body said, as it is read. */
typedef struct event {
    rsql_value_t *before, *after; /* NULL until the key is read with an object */
    char op[8];                   /* the op's text (cut), "" when absent or null */
    size_t op_len;
    bool op_given; /* op was a string (maybe empty) */
    const char *sch; /* the envelope's schema (its JSON text), NULL when none */
    size_t sch_len;
    bool top_op, top_envelope; /* the object had "op"/"before"/"after", or "schema"/"payload" */
    /* rsql_decoder_skip_before: before holds only the key's columns (read from before_at)
       until the op is known; skip_before: an update that keeps its key, only UPDATE_AFTER */
    bool before_key_only, skip_before;
    size_t before_at;
    bool want[M_N];
    bool want_source; /* one of the source.* keys is wanted */
    rsql_value_t meta[M_N]; /* last: set for the wanted keys only (not zeroed per event) */
} event_t;

static const char *json_kind(char ch)
{
    switch (ch) {
    case '{': return "an object";
    case '[': return "an array";
    case '"': return "a string";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
    }
}

/*
** Step through an object's keys: on the first call p->i is on its '{'. Returns 1 with the
** key in *key and *len (borrowed from the body or dec's scratch, valid until the next value is
** read) and p->i on its value; 0 past the closing '}'; -1 on invalid JSON (err set).
*/
int rsql_fmt__dbz_next_key(rsql_decoder_t *dec, jp_t *p, bool *first, const char **key,
                            size_t *len)
{
    jp_ws(p);
    if (*first) {
        *first = false;
        p->i++; /* '{' */
        jp_ws(p);
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            return 0;
        }
    } else {
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            return 0;
        }
        if (p->i >= p->n || p->s[p->i] != ',') {
            return p->i >= p->n ? (jp_unexpected(p), -1)
                                : (jp_fail(p, p->i, "expected ',' or '}' in an object"), -1);
        }
        p->i++;
        jp_ws(p);
    }
    if (p->i >= p->n || p->s[p->i] != '"') {
        return p->i >= p->n ? (jp_unexpected(p), -1)
                            : (jp_fail(p, p->i, "expected a string key"), -1);
    }
    if (!jp_string_plain(p, key, len)) {
        if (jp_string(p, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
            return -1;
        }
        if (dec->scratch.oom) {
            rsql_error_nomem(p->err);
            return -1;
        }
        *key = dec->scratch.data ? dec->scratch.data : "";
        *len = dec->scratch.len;
    }
    jp_ws(p);
    if (p->i >= p->n || p->s[p->i] != ':') {
        return p->i >= p->n ? (jp_unexpected(p), -1)
                            : (jp_fail(p, p->i, "expected ':' after an object key"), -1);
    }
    p->i++;
    jp_ws(p);
    if (p->i >= p->n) {
        jp_unexpected(p);
        return -1;
    }
    return 1;
}


/* A value that must be a JSON object or null: true when it is null (and skipped). */
static rsql_err_t object_or_null(jp_t *p, const char *what, bool *is_null)
{
    char ch = p->s[p->i];
    *is_null = ch == 'n';
    if (ch == '{') {
        return RSQL_OK;
    }
    if (jp_skip(p, 1) != RSQL_OK) {
        return RSQL_ERR_DECODE;
    }
    if (*is_null) {
        return RSQL_OK;
    }
    return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS,
                          "debezium-json: '%s' must be a JSON object or null, got %s", what,
                          json_kind(ch));
}

/* A string value as a VARCHAR metadata value (any other JSON value: its text). */
static rsql_err_t meta_text(rsql_decoder_t *dec, jp_t *p, const char *name, rsql_arena_t *arena,
                            rsql_value_t *v)
{
    return json_scalar(dec, p, RSQL_TYPE_VARCHAR, name, arena, v);
}

/* The source object at p->i: the source.* metadata the decoder was asked for. */
static rsql_err_t read_source(rsql_decoder_t *dec, jp_t *p, event_t *ev, rsql_arena_t *arena)
{
    size_t at = p->i;
    bool first = true, is_null;
    const char *key;
    size_t len;
    int r;
    if (object_or_null(p, "source", &is_null) != RSQL_OK || is_null) {
        return is_null ? RSQL_OK : RSQL_ERR_DECODE;
    }
    while ((r = next_key(dec, p, &first, &key, &len)) == 1) {
        int m = key_is(key, len, "ts_ms")        ? M_SRC_TS
                : key_is(key, len, "db")         ? M_SRC_DB
                : key_is(key, len, "schema")     ? M_SRC_SCHEMA
                : key_is(key, len, "table")      ? M_SRC_TABLE
                : key_is(key, len, "collection") ? M_SRC_TABLE
                                                 : -1;
        rsql_err_t rc;
        if (m < 0 || !ev->want[m]) {
            rc = jp_skip(p, 2);
        } else if (m == M_SRC_TS) {
            rc = json_scalar(dec, p, RSQL_TYPE_TIMESTAMP, "source.ts_ms", arena, &ev->meta[m]);
        } else {
            rc = meta_text(dec, p, m == M_SRC_DB ? "source.db" : m == M_SRC_SCHEMA ?
                           "source.schema" : "source.table", arena, &ev->meta[m]);
        }
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    if (r < 0) {
        return RSQL_ERR_DECODE;
    }
    if (ev->want[M_SRC_PROPS]) { /* the whole object again, as a map of texts */
        jp_t q = {p->s, p->n, at, p->err};
        return json_typed(dec, &q, dec->c.dbz->props, NULL, "source", arena,
                          &ev->meta[M_SRC_PROPS], 2);
    }
    return RSQL_OK;
}

/* A row of n columns plus the wanted metadata, in arena. */
static rsql_value_t *new_row(rsql_decoder_t *dec, rsql_arena_t *arena)
{
    return rsql_arena_alloc(arena, (size_t)(dec->c.n + dec->n_want) * sizeof(rsql_value_t));
}

/* The op read so far is "u". */
static bool is_update(const event_t *ev)
{
    return ev->op_given && ev->op_len == 1 && ev->op[0] == 'u';
}

/* The before object at p->i into row, its key's columns alone (rsql_decoder_skip_before). */
static rsql_err_t before_key(rsql_decoder_t *dec, jp_t *p, rsql_arena_t *arena,
                             rsql_value_t *row)
{
    fmt_need_t *needs = dec->c.needs;
    dec->c.needs = dec->key_need;
    rsql_err_t rc = rsql_fmt__json_object(dec, p, (const char *const *)dec->c.dbz->names, arena,
                                          row);
    dec->c.needs = needs;
    return rc;
}

/* The event object (the body, or the payload) at p->i, on its '{'. */
static rsql_err_t read_event(rsql_decoder_t *dec, jp_t *p, event_t *ev, rsql_arena_t *arena)
{
    fmt_dbz_t *z = dec->c.dbz;
    bool first = true;
    const char *key;
    size_t len;
    int r;
    while ((r = next_key(dec, p, &first, &key, &len)) == 1) {
        rsql_err_t rc = RSQL_OK;
        bool is_before = key_is(key, len, "before");
        if (is_before || key_is(key, len, "after")) {
            bool is_null;
            ev->top_op = true;
            if (object_or_null(p, is_before ? "before" : "after", &is_null) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            rsql_value_t **slot = is_before ? &ev->before : &ev->after;
            if (is_null) {
                *slot = NULL;
                continue;
            }
            if (!*slot && !(*slot = new_row(dec, arena))) {
                return rsql_error_nomem(p->err);
            }
            if (is_before) {
                /* rsql_decoder_skip_before: an update may need the key alone (the op, which
                   Debezium writes after the images, decides below) */
                ev->before_key_only = dec->key_need && (!ev->op_given || is_update(ev));
                ev->before_at = p->i;
            }
            rc = is_before && ev->before_key_only ? before_key(dec, p, arena, ev->before)
                 : rsql_fmt__json_object(dec, p, (const char *const *)z->names +
                                         (is_before ? 0 : dec->c.n), arena, *slot);
        } else if (key_is(key, len, "op")) {
            const char *s;
            size_t n;
            ev->top_op = true;
            ev->op_len = 0;
            ev->op[0] = 0;
            ev->op_given = p->s[p->i] == '"';
            if (ev->op_given) {
                if (!jp_string_plain(p, &s, &n)) {
                    if (jp_string(p, &dec->scratch, NULL, NULL, NULL) != RSQL_OK) {
                        return RSQL_ERR_DECODE;
                    }
                    s = dec->scratch.data ? dec->scratch.data : "";
                    n = dec->scratch.len;
                }
                ev->op_len = n;
                /* the op's text, cut (for messages); copied, not printed: once per event */
                size_t cut = n < sizeof ev->op - 1 ? n : sizeof ev->op - 1;
                memcpy(ev->op, s, cut);
                ev->op[cut] = '\0';
            } else if (p->s[p->i] == 'n') {
                rc = jp_skip(p, 1);
            } else {
                char ch = p->s[p->i];
                if (jp_skip(p, 1) != RSQL_OK) {
                    return RSQL_ERR_DECODE;
                }
                return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                      "debezium-json: 'op' must be a string, got %s",
                                      json_kind(ch));
            }
        } else if (key_is(key, len, "source")) {
            rc = ev->want_source ? read_source(dec, p, ev, arena) : jp_skip(p, 1);
        } else if (key_is(key, len, "ts_ms") && ev->want[M_INGEST]) {
            rc = json_scalar(dec, p, RSQL_TYPE_TIMESTAMP, "ts_ms", arena, &ev->meta[M_INGEST]);
        } else {
            if (key_is(key, len, "schema") || key_is(key, len, "payload")) {
                ev->top_envelope = true;
            }
            rc = jp_skip(p, 1);
        }
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    if (r < 0) {
        return RSQL_ERR_DECODE;
    }
    if (!ev->before_key_only || !ev->before) {
        return RSQL_OK;
    }
    /* the key alone is read of before: enough for an update that keeps its key (only its
       UPDATE_AFTER is given), else the whole row again (a delete, a changed key) */
    ev->skip_before = is_update(ev) && ev->after;
    for (int k = 0; ev->skip_before && k < dec->n_key; k++) {
        int c = dec->key[k];
        ev->skip_before = rsql_value_same_key(&ev->before[c], &ev->after[c]);
    }
    if (ev->skip_before) {
        return RSQL_OK;
    }
    jp_t q = {p->s, p->n, ev->before_at, p->err};
    ev->before_key_only = false;
    return rsql_fmt__json_object(dec, &q, (const char *const *)z->names, arena, ev->before);
}

/*
** The body's envelope {"schema":...,"payload":...} (schema-include), p->i on its '{'.
** *payload is false when the payload is null (no rows).
*/
static rsql_err_t read_envelope(rsql_decoder_t *dec, jp_t *p, event_t *ev, rsql_arena_t *arena,
                                bool *payload)
{
    bool first = true, seen = false;
    const char *key;
    size_t len;
    int r;
    *payload = false;
    while ((r = next_key(dec, p, &first, &key, &len)) == 1) {
        rsql_err_t rc;
        if (key_is(key, len, "payload")) {
            bool is_null;
            seen = true;
            if (object_or_null(p, "payload", &is_null) != RSQL_OK) {
                return RSQL_ERR_DECODE;
            }
            *payload = !is_null;
            if (!is_null) {
                rsql_fmt__dbz_swap_decimals(dec, true);
                rc = read_event(dec, p, ev, arena);
                rsql_fmt__dbz_swap_decimals(dec, false);
                for (int i = 0; rc == RSQL_OK && dec->c.dbz->dec_scale && i < dec->c.n; i++) {
                    if (dec->c.dbz->dec_scale[i] < 0) {
                        continue;
                    }
                    if (ev->before) {
                        rc = rsql_fmt__dbz_connect_decimal(dec, i, true, &ev->before[i], p->err);
                    }
                    if (rc == RSQL_OK && ev->after) {
                        rc = rsql_fmt__dbz_connect_decimal(dec, i, false, &ev->after[i], p->err);
                    }
                }
            } else {
                rc = RSQL_OK;
            }
        } else if (key_is(key, len, "schema") && (ev->want[M_SCHEMA] || dec->c.dbz->ts_per_ms)) {
            size_t at = p->i;
            if ((rc = jp_skip(p, 1)) == RSQL_OK && p->s[at] == '{') {
                ev->sch = p->s + at;
                ev->sch_len = p->i - at;
                if (dec->c.dbz->ts_per_ms) { /* before the payload: its decimals need it */
                    rsql_fmt__dbz_schema(dec, ev->sch, ev->sch_len);
                }
            }
            if (rc == RSQL_OK && ev->want[M_SCHEMA]) {
                rsql_value_t *v = &ev->meta[M_SCHEMA];
                char *text = p->s[at] == 'n' ? NULL : rsql_arena_strndup(arena, p->s + at,
                                                                         p->i - at);
                if (p->s[at] != 'n' && !text) {
                    return rsql_error_nomem(p->err);
                }
                v->is_null = !text;
                v->v.s.p = text;
                v->v.s.len = text ? p->i - at : 0;
            }
        } else {
            if (key_is(key, len, "op") || key_is(key, len, "before") ||
                key_is(key, len, "after")) {
                ev->top_op = true;
            }
            rc = jp_skip(p, 1);
        }
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    if (r < 0) {
        return RSQL_ERR_DECODE;
    }
    if (!seen) {
        return rsql_error_set(p->err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              ev->top_op ? "debezium-json: missing 'payload': the body is an "
                                           "event without the schema envelope; set "
                                           "'debezium-json.schema-include' = 'false'"
                                         : "debezium-json: missing 'payload' (with "
                                           "'debezium-json.schema-include' a body is "
                                           "{\"schema\":...,\"payload\":...})");
    }
    return RSQL_OK;
}

/*
** A TIMESTAMP column past the year 9999 (or as far before 1970): Debezium's microseconds or
** nanoseconds since the epoch (a PostgreSQL `timestamp` with time.precision.mode adaptive)
** read as milliseconds. An error, not a silently wrong value.
*/
static rsql_err_t check_timestamps(const rsql_decoder_t *dec, const rsql_value_t *row,
                                   bool before, rsql_error_t *err)
{
    const fmt_conf_t *c = &dec->c;
    for (int i = 0; i < c->n; i++) {
        const rsql_value_t *v = &row[i];
        if (c->types[i] == RSQL_TYPE_TIMESTAMP && !v->is_null &&
            (v->v.ts > TS_MAX_MS || v->v.ts < -TS_MAX_MS)) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                  "field '%s': %lld is past the year 9999 as epoch "
                                  "milliseconds (microseconds? declare the column BIGINT, or "
                                  "set Debezium's time.precision.mode to connect)",
                                  c->dbz->names[(before ? 0 : c->n) + i], (long long)v->v.ts);
        }
    }
    return RSQL_OK;
}

/* The rows of the event ev (see the file comment). */
static rsql_err_t event_rows(rsql_decoder_t *dec, event_t *ev, rsql_arena_t *arena,
                             rsql_changes_t *out, rsql_error_t *err)
{
    fmt_dbz_t *z = dec->c.dbz;
    rsql_value_t *rows[2];
    uint8_t kinds[2];
    int n = 0;
    if (!ev->op_given) {
        if (ev->top_envelope && !z->schema_include) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                  "debezium-json: missing 'op': the body has the schema "
                                  "envelope ('schema' and 'payload'); set "
                                  "'debezium-json.schema-include' = 'true'");
        }
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS, "debezium-json: missing 'op'");
    }
    char op = ev->op_len == 1 ? ev->op[0] : '?';
    switch (op) {
    case 'c':
    case 'r':
    case 'u':
        if (!ev->after) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                  "debezium-json: op '%c' without 'after'", op);
        }
        if (op == 'u' && ev->before && !ev->skip_before) {
            rows[n] = ev->before;
            kinds[n++] = RSQL_ROW_UPDATE_BEFORE;
        }
        rows[n] = ev->after;
        kinds[n++] = op == 'u' ? RSQL_ROW_UPDATE_AFTER : RSQL_ROW_INSERT;
        break;
    case 'd':
        if (!ev->before) {
            return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                                  "debezium-json: op 'd' without 'before'");
        }
        rows[n] = ev->before;
        kinds[n++] = RSQL_ROW_DELETE;
        break;
    case 't':
        if (z->ignore_truncate) {
            dec->skips.ddl++;
            return RSQL_OK;
        }
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "debezium-json: op 't' (a truncate of the table) has no rows to "
                              "apply; set 'debezium-json.ignore-truncate' = 'true' to skip it");
    default:
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "debezium-json: unknown op '%s%s' (expected c, r, u, d or t)",
                              ev->op, ev->op_len > 7 ? "..." : "");
    }
    if (z->ts_per_ms && ev->sch) {
        rsql_fmt__dbz_schema(dec, ev->sch, ev->sch_len);
        for (int i = 0; i < n; i++) {
            rsql_fmt__dbz_convert_ts(dec, rows[i]);
        }
    }
    for (int i = 0; z->any_ts && i < n; i++) {
        if (check_timestamps(dec, rows[i], rows[i] == ev->before, err) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
    }
    /* room for the two rows an event gives at most, their kinds after them: one allocation */
    out->rows = rsql_arena_alloc(arena, 2 * sizeof *out->rows + 2);
    if (!out->rows) {
        return rsql_error_nomem(err);
    }
    out->kinds = (uint8_t *)(out->rows + 2);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < dec->n_want; k++) {
            rows[i][dec->c.n + k] = ev->meta[dec->want[k]];
        }
        out->rows[i] = rows[i];
        out->kinds[i] = kinds[i];
    }
    out->n = n;
    return RSQL_OK;
}

static rsql_err_t decode_body(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                              rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err)
{
    jp_t p = {(const char *)raw, len, 0, err};
    event_t ev;
    memset(&ev, 0, offsetof(event_t, meta));
    for (int k = 0; k < dec->n_want; k++) {
        int m = dec->want[k];
        ev.want[m] = true;
        ev.want_source = ev.want_source || (m >= M_SRC_TS && m <= M_SRC_PROPS);
        memset(&ev.meta[m], 0, sizeof ev.meta[m]);
        ev.meta[m].type = rsql_fmt__dbz_meta[m].type;
        ev.meta[m].is_null = true;
    }
    jp_ws(&p);
    if (p.i >= p.n || p.s[p.i] != '{') {
        /* a tombstone (empty or null) has no rows; anything else is not an event */
        char ch = p.i < p.n ? p.s[p.i] : 'n';
        if (p.i < p.n && jp_skip(&p, 0) != RSQL_OK) {
            return RSQL_ERR_DECODE;
        }
        jp_ws(&p);
        if (p.i < p.n) {
            return jp_fail(&p, p.i, "unexpected data after the value");
        }
        if (ch == 'n') {
            return RSQL_OK;
        }
        return rsql_error_set(err, RSQL_ERR_DECODE, RSQL_NOPOS,
                              "debezium-json: expected a JSON object, got %s", json_kind(ch));
    }
    bool payload = true;
    rsql_err_t rc = dec->c.dbz->schema_include ? read_envelope(dec, &p, &ev, arena, &payload)
                                               : read_event(dec, &p, &ev, arena);
    if (rc != RSQL_OK) {
        return rc;
    }
    jp_ws(&p);
    if (p.i < p.n) {
        return jp_fail(&p, p.i, "unexpected data after the object");
    }
    return payload ? event_rows(dec, &ev, arena, out, err) : RSQL_OK;
}

/*
** Decode one body into its changes (see the file comment). With
** debezium-json.ignore-parse-errors a decode error gives no rows and counts the body.
** @locality the decoder's thread
*/
rsql_err_t rsql_fmt__dbz_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                                rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err)
{
    out->n = 0;
    rsql_err_t rc = decode_body(dec, raw, len, arena, out, err);
    if (rc == RSQL_ERR_DECODE && dec->c.dbz->ignore_errors) {
        rsql_error_clear(err);
        out->n = 0;
        dec->skips.bad++;
        return RSQL_OK;
    }
    return rc;
}

/* ---- writing */

/* s as a JSON string (names: quotes, backslashes and control characters escaped). */
static void put_str(rsql_buf_t *b, const char *s)
{
    rsql_buf_putc(b, '"');
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch < 0x20) {
            rsql_buf_printf(b, "\\u%04x", ch);
            continue;
        }
        if (ch == '"' || ch == '\\') {
            rsql_buf_putc(b, '\\');
        }
        rsql_buf_putc(b, (char)ch);
    }
    rsql_buf_putc(b, '"');
}

/*
** A Kafka Connect schema of one column or nested type (d: NULL = its parts unknown), with
** its field name when given.
*/
static void put_type(rsql_buf_t *b, rsql_type_t t, const rsql_tdesc_t *d, const char *field)
{
    switch (t) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(b, "{\"type\":\"boolean\""); break;
    case RSQL_TYPE_INT: rsql_buf_puts(b, "{\"type\":\"int32\""); break;
    case RSQL_TYPE_BIGINT: rsql_buf_puts(b, "{\"type\":\"int64\""); break;
    case RSQL_TYPE_DOUBLE:
    case RSQL_TYPE_DECIMAL: rsql_buf_puts(b, "{\"type\":\"double\""); break;
    case RSQL_TYPE_BYTES: rsql_buf_puts(b, "{\"type\":\"bytes\""); break;
    case RSQL_TYPE_ARRAY:
        rsql_buf_puts(b, "{\"type\":\"array\"");
        if (d) {
            rsql_buf_puts(b, ",\"items\":");
            put_type(b, d->children[0]->type, d->children[0], NULL);
        }
        break;
    case RSQL_TYPE_MAP:
        rsql_buf_puts(b, "{\"type\":\"map\"");
        if (d) {
            rsql_buf_puts(b, ",\"keys\":{\"type\":\"string\",\"optional\":false},\"values\":");
            put_type(b, d->children[1]->type, d->children[1], NULL);
        }
        break;
    case RSQL_TYPE_ROW:
        rsql_buf_puts(b, "{\"type\":\"struct\"");
        if (d) {
            rsql_buf_puts(b, ",\"fields\":[");
            for (int i = 0; i < d->n; i++) {
                rsql_buf_puts(b, i ? "," : "");
                put_type(b, d->children[i]->type, d->children[i], d->names[i]);
            }
            rsql_buf_putc(b, ']');
        }
        break;
    default: rsql_buf_puts(b, "{\"type\":\"string\""); break; /* VARCHAR, TIMESTAMP, DATE */
    }
    rsql_buf_puts(b, ",\"optional\":true");
    if (field) {
        rsql_buf_puts(b, ",\"field\":");
        put_str(b, field);
    }
    rsql_buf_putc(b, '}');
}

/* {"schema":<the event's Connect schema>,"payload": into z->schema, once. */
static void build_schema(const fmt_conf_t *c, fmt_dbz_t *z)
{
    rsql_buf_t *b = &z->schema;
    rsql_buf_puts(b, "{\"schema\":{\"type\":\"struct\",\"fields\":[");
    for (int side = 0; side < 2; side++) {
        rsql_buf_puts(b, side ? ",{\"type\":\"struct\",\"fields\":["
                              : "{\"type\":\"struct\",\"fields\":[");
        for (int i = 0; i < c->n; i++) {
            rsql_buf_puts(b, i ? "," : "");
            put_type(b, c->types[i], c->descs ? c->descs[i] : NULL, c->names[i]);
        }
        rsql_buf_printf(b, "],\"optional\":true,\"field\":\"%s\"}", side ? "after" : "before");
    }
    rsql_buf_puts(b, ",{\"type\":\"string\",\"optional\":false,\"field\":\"op\"}],"
                     "\"optional\":false,\"name\":\"rocketsql.Envelope\"},\"payload\":");
}

/*
** Append row with its kind as one Debezium event (see the file comment).
** @locality the encoder's thread
*/
rsql_err_t rsql_fmt__dbz_encode(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                rsql_buf_t *out, rsql_error_t *err)
{
    fmt_dbz_t *z = enc->c.dbz;
    bool removes = kind == RSQL_ROW_UPDATE_BEFORE || kind == RSQL_ROW_DELETE;
    if (kind < RSQL_ROW_INSERT || kind > RSQL_ROW_DELETE) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "debezium-json: bad row kind %d", kind);
    }
    if (z->schema_include) {
        if (!z->schema.len) {
            build_schema(&enc->c, z);
        }
        if (z->schema.oom) {
            rsql_buf_reset(&z->schema);
            return rsql_error_nomem(err);
        }
        rsql_buf_append(out, z->schema.data, z->schema.len);
    }
    rsql_buf_puts(out, "{\"before\":");
    if (removes) {
        rsql_err_t rc = rsql_fmt__json_encode(enc, row, out, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        rsql_buf_puts(out, ",\"after\":null,\"op\":\"d\"}");
    } else {
        rsql_buf_puts(out, "null,\"after\":");
        rsql_err_t rc = rsql_fmt__json_encode(enc, row, out, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        rsql_buf_puts(out, ",\"op\":\"c\"}");
    }
    if (z->schema_include) {
        rsql_buf_putc(out, '}');
    }
    return RSQL_OK;
}

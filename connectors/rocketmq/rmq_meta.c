/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_meta: METADATA columns of rocketmq-grpc (the key table is rmq_meta in rmq_opts.c).
 * The source turns the keys a statement reads into ids once, at open (rsql_rmq__meta_id),
 * and per message fills only those columns (rsql_rmq__record_meta), copying into the
 * batch arena; properties leave out the few the broker adds itself. keys are written as one VARCHAR (the keys joined by one space) and
 * properties as a JSON object of strings, until ARRAY<STRING> and MAP<STRING, STRING>
 * exist; the sink parses a properties value back with rsql_rmq__props_parse (untrusted
 * text: bounded, every byte checked).
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"
#include "connectors/rocketmq/rmq_int.h"

#include <stdio.h>
#include <string.h>

/*
** Properties the broker adds that are not the producer's: a FIFO message's group
** (__SHARDINGKEY) and a lite message's dispatch to its queue (INNER_MULTI_*).
*/
static bool broker_prop(const char *key)
{
    return key && (strcmp(key, "__SHARDINGKEY") == 0 || strcmp(key, "INNER_MULTI_DISPATCH") == 0 ||
                   strcmp(key, "INNER_MULTI_QUEUE_OFFSET") == 0);
}

static const char *const meta_keys[RMQ_META_N] = {
    [RMQ_META_TOPIC] = "topic",
    [RMQ_META_LITE_TOPIC] = "lite_topic",
    [RMQ_META_MESSAGE_ID] = "message_id",
    [RMQ_META_TAG] = "tag",
    [RMQ_META_KEYS] = "keys",
    [RMQ_META_MESSAGE_GROUP] = "message_group",
    [RMQ_META_PROPERTIES] = "properties",
    [RMQ_META_BORN_TIMESTAMP] = "born_timestamp",
    [RMQ_META_STORE_TIMESTAMP] = "store_timestamp",
    [RMQ_META_DELIVERY_TIMESTAMP] = "delivery_timestamp",
    [RMQ_META_BORN_HOST] = "born_host",
    [RMQ_META_DELIVERY_ATTEMPT] = "delivery_attempt",
    [RMQ_META_QUEUE_ID] = "queue_id",
    [RMQ_META_QUEUE_OFFSET] = "queue_offset",
    [RMQ_META_MESSAGE_TYPE] = "message_type",
};

/* See rmq_source_int.h. */
int rsql_rmq__meta_id(const char *key)
{
    for (int i = 1; key && *key && i < RMQ_META_N; i++) {
        if (strcmp(meta_keys[i], key) == 0) {
            return i;
        }
    }
    return RMQ_META_NONE;
}

static const char *type_name(int32_t t)
{
    switch (t) {
    case RSQL_RMQ_MSG_NORMAL: return "NORMAL";
    case RSQL_RMQ_MSG_FIFO: return "FIFO";
    case RSQL_RMQ_MSG_DELAY: return "DELAY";
    case RSQL_RMQ_MSG_TRANSACTION: return "TRANSACTION";
    case RSQL_RMQ_MSG_LITE: return "LITE";
    case 6: return "PRIORITY";
    default: return NULL;
    }
}

/* A string value (NULL s = SQL NULL) copied into arena; false when out of memory. */
static bool str_value(rsql_arena_t *a, rsql_type_t t, const char *s, size_t n, rsql_value_t *v)
{
    *v = (rsql_value_t){.type = t, .is_null = s == NULL};
    if (!s) {
        return true;
    }
    char *c = rsql_arena_alloc(a, n + 1);
    if (!c) {
        return false;
    }
    memcpy(c, s, n);
    c[n] = '\0';
    v->v.s.p = c;
    v->v.s.len = n;
    return true;
}

/* An integer value for a column of type t (INT, BIGINT, or DOUBLE they widen to). */
static rsql_value_t int_value(rsql_type_t t, int64_t x)
{
    rsql_value_t v = {.type = t, .is_null = false};
    if (t == RSQL_TYPE_DOUBLE) {
        v.v.d = (double)x;
    } else {
        v.v.i = x;
    }
    return v;
}

/* JSON string text of s[0..n) into b, quoted and escaped. */
static void json_str(rsql_buf_t *b, const char *s)
{
    rsql_buf_putc(b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            rsql_buf_putc(b, '\\');
            rsql_buf_putc(b, (char)*p);
        } else if (*p < 0x20) {
            rsql_buf_printf(b, "\\u%04x", *p);
        } else {
            rsql_buf_putc(b, (char)*p);
        }
    }
    rsql_buf_putc(b, '"');
}

/* See rmq_source_int.h. */
rsql_value_t *rsql_rmq__record_meta(rsql_arena_t *a, const rsql_rmq_msg_t *m, const char *topic,
                                    int n, const int *ids, const rsql_type_t *types)
{
    rsql_value_t *vals = rsql_arena_alloc(a, sizeof(*vals) * (size_t)(n > 0 ? n : 1));
    if (!vals) {
        return NULL;
    }
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        rsql_type_t t = types[i];
        rsql_value_t *v = &vals[i];
        *v = (rsql_value_t){.type = t, .is_null = true};
        const char *s = NULL;
        switch (ids[i]) {
        case RMQ_META_NONE: continue;
        case RMQ_META_TOPIC: s = m->topic && *m->topic ? m->topic : topic; break;
        case RMQ_META_LITE_TOPIC: s = m->lite_topic; break;
        case RMQ_META_MESSAGE_ID: s = m->message_id; break;
        case RMQ_META_TAG: s = m->tag; break;
        case RMQ_META_MESSAGE_GROUP: s = m->message_group; break;
        case RMQ_META_BORN_HOST: s = m->born_host; break;
        case RMQ_META_MESSAGE_TYPE: s = type_name(m->message_type); break;
        case RMQ_META_KEYS:
        case RMQ_META_PROPERTIES: {
            if (ids[i] == RMQ_META_KEYS && m->n_keys == 0) {
                continue;
            }
            rsql_buf_t b = RSQL_BUF_INIT;
            if (ids[i] == RMQ_META_KEYS) {
                for (size_t k = 0; k < m->n_keys; k++) {
                    rsql_buf_printf(&b, "%s%s", k ? " " : "", m->keys[k] ? m->keys[k] : "");
                }
            } else {
                rsql_buf_putc(&b, '{');
                for (size_t k = 0, shown = 0; k < m->n_props; k++) {
                    if (broker_prop(m->props[k].key)) {
                        continue;
                    }
                    rsql_buf_puts(&b, shown++ ? "," : "");
                    json_str(&b, m->props[k].key ? m->props[k].key : "");
                    rsql_buf_putc(&b, ':');
                    json_str(&b, m->props[k].value ? m->props[k].value : "");
                }
                rsql_buf_putc(&b, '}');
            }
            ok = !b.oom && str_value(a, t, b.data ? b.data : "", b.len, v);
            rsql_buf_deinit(&b);
            continue;
        }
        case RMQ_META_BORN_TIMESTAMP:
        case RMQ_META_STORE_TIMESTAMP:
        case RMQ_META_DELIVERY_TIMESTAMP: {
            int64_t ms = ids[i] == RMQ_META_BORN_TIMESTAMP    ? m->born_ms
                         : ids[i] == RMQ_META_STORE_TIMESTAMP ? m->store_ms
                                                              : m->delivery_ms;
            if (ms != 0) {
                v->is_null = false;
                v->v.ts = ms;
            }
            continue;
        }
        case RMQ_META_DELIVERY_ATTEMPT: *v = int_value(t, m->delivery_attempt); continue;
        case RMQ_META_QUEUE_ID: *v = int_value(t, m->queue_id); continue;
        case RMQ_META_QUEUE_OFFSET: *v = int_value(t, m->queue_offset); continue;
        default: continue;
        }
        ok = str_value(a, t, s, s ? strlen(s) : 0, v);
    }
    return ok ? vals : NULL;
}

/* ---- properties: a JSON object of strings */

typedef struct jp {
    const char *p, *end;
    char *why;
    size_t why_size;
} jp_t;

static void ws(jp_t *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r')) {
        j->p++;
    }
}

static bool fail(jp_t *j, const char *what)
{
    snprintf(j->why, j->why_size, "properties is not a JSON object of strings: %s", what);
    return false;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* A JSON string at j->p into b (UTF-8; \uXXXX escapes, surrogate pairs joined). */
static bool jstring(jp_t *j, rsql_buf_t *b)
{
    if (j->p >= j->end || *j->p != '"') {
        return fail(j, "a key or value is not a string");
    }
    j->p++;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;
        if (c < 0x20) {
            return fail(j, "a control character in a string");
        }
        if (c != '\\') {
            rsql_buf_putc(b, (char)c);
            continue;
        }
        if (j->p >= j->end) {
            break;
        }
        char e = *j->p++;
        const char *simple = strchr("\"\\/bfnrt", e);
        if (simple && e) {
            static const char out[] = "\"\\/\b\f\n\r\t";
            rsql_buf_putc(b, out[simple - "\"\\/bfnrt"]);
            continue;
        }
        if (e != 'u' || j->end - j->p < 4) {
            return fail(j, "a bad escape");
        }
        uint32_t cp = 0;
        for (int k = 0; k < 4; k++) {
            int h = hexval(j->p[k]);
            if (h < 0) {
                return fail(j, "a bad \\u escape");
            }
            cp = cp << 4 | (uint32_t)h;
        }
        j->p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && j->end - j->p >= 6 && j->p[0] == '\\' &&
            j->p[1] == 'u') {
            uint32_t lo = 0;
            for (int k = 2; k < 6; k++) {
                int h = hexval(j->p[k]);
                lo = h < 0 ? 0 : lo << 4 | (uint32_t)h;
            }
            if (lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                j->p += 6;
            }
        }
        if (cp >= 0xD800 && cp < 0xE000) {
            return fail(j, "a lone surrogate");
        }
        char u[4];
        size_t n = cp < 0x80 ? (u[0] = (char)cp, 1)
                   : cp < 0x800 ? (u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), 2)
                   : cp < 0x10000
                       ? (u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)),
                          u[2] = (char)(0x80 | (cp & 0x3F)), 3)
                       : (u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)),
                          u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)),
                          4);
        rsql_buf_append(b, u, n);
    }
    if (j->p >= j->end) {
        return fail(j, "an unterminated string");
    }
    j->p++;
    return true;
}

/* See rmq_source_int.h. */
rsql_err_t rsql_rmq__props_parse(const char *s, size_t n, rsql_rmq_prop_t **out, size_t *n_out,
                                 char *why, size_t why_size)
{
    jp_t j = {s, s + n, why, why_size};
    rsql_rmq_prop_t *props = NULL;
    size_t np = 0, cap = 0;
    bool ok = true;
    *out = NULL;
    *n_out = 0;
    why[0] = '\0';
    if (n > RMQ_PROPS_MAX) {
        snprintf(why, why_size, "properties longer than %d bytes", RMQ_PROPS_MAX);
        return RSQL_ERR_TOO_LARGE;
    }
    ws(&j);
    if (j.p >= j.end || *j.p != '{') {
        ok = fail(&j, "it does not start with '{'");
    } else {
        j.p++;
        ws(&j);
    }
    bool first = true;
    while (ok && j.p < j.end && *j.p != '}') {
        if (!first) {
            if (*j.p != ',') {
                ok = fail(&j, "a ',' or '}' is missing");
                break;
            }
            j.p++;
            ws(&j);
        }
        first = false;
        rsql_buf_t k = RSQL_BUF_INIT, v = RSQL_BUF_INIT;
        ok = jstring(&j, &k);
        ws(&j);
        if (ok && (j.p >= j.end || *j.p != ':')) {
            ok = fail(&j, "a ':' is missing");
        }
        if (ok) {
            j.p++;
            ws(&j);
            ok = jstring(&j, &v);
            ws(&j);
        }
        if (ok && k.len == 0) {
            ok = fail(&j, "an empty key");
        }
        for (size_t i = 0; ok && i < np; i++) {
            if (strcmp(props[i].key, rsql_buf_str(&k)) == 0) {
                ok = fail(&j, "a repeated key");
            }
        }
        if (ok && np == cap) {
            cap = cap ? cap * 2 : 8;
            rsql_rmq_prop_t *g = rsql_realloc(props, cap * sizeof(*g));
            if (!g) {
                snprintf(why, why_size, "out of memory");
                ok = false;
            } else {
                props = g;
            }
        }
        if (ok) {
            props[np].key = rsql_buf_steal(&k);
            props[np].value = rsql_buf_steal(&v);
            if (!props[np].key || !props[np].value) {
                rsql_free(props[np].key);
                rsql_free(props[np].value);
                snprintf(why, why_size, "out of memory");
                ok = false;
            } else {
                np++;
            }
        }
        rsql_buf_deinit(&k);
        rsql_buf_deinit(&v);
    }
    if (ok && j.p >= j.end) {
        ok = fail(&j, "it does not end with '}'");
    } else if (ok) {
        j.p++;
        ws(&j);
        if (j.p != j.end) {
            ok = fail(&j, "text after the object");
        }
    }
    if (!ok) {
        rsql_rmq__props_free(props, np);
        return strcmp(why, "out of memory") == 0 ? RSQL_ERR_NOMEM : RSQL_ERR_DECODE;
    }
    *out = props;
    *n_out = np;
    return RSQL_OK;
}

/* See rmq_source_int.h. */
void rsql_rmq__props_free(rsql_rmq_prop_t *props, size_t n)
{
    for (size_t i = 0; props && i < n; i++) {
        rsql_free(props[i].key);
        rsql_free(props[i].value);
    }
    rsql_free(props);
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_meta: METADATA columns of rocketmq-grpc (the key table is rmq_meta in rmq_opts.c).
 * The source turns the keys a statement reads into ids once, at open (rsql_rmq__meta_id),
 * and per message fills only those columns (rsql_rmq__record_meta), copying into the
 * batch arena: keys as an ARRAY<STRING>, properties as a MAP<STRING, STRING> (without the
 * few the broker adds itself). The sink turns a row's keys and properties values back into
 * the message's (rsql_rmq__keys_of, rsql_rmq__props_of).
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conn_int.h"

#include <stdio.h>
#include <string.h>

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

/*
** Properties the broker adds that are not the producer's: a FIFO message's group
** (__SHARDINGKEY) and a lite message's dispatch to its queue (INNER_MULTI_*).
*/
static bool broker_prop(const char *key)
{
    return key && (strcmp(key, "__SHARDINGKEY") == 0 || strcmp(key, "INNER_MULTI_DISPATCH") == 0 ||
                   strcmp(key, "INNER_MULTI_QUEUE_OFFSET") == 0);
}

/* See rmq_conn_int.h. */
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

/* A composite of desc with n items in arena (items zeroed), or NULL. */
static rsql_composite_t *composite(rsql_arena_t *a, const rsql_tdesc_t *desc, size_t n)
{
    if (!desc) {
        return NULL;
    }
    rsql_composite_t *c = rsql_arena_alloc(a, sizeof(*c) + n * sizeof(rsql_value_t));
    if (c) {
        c->desc = desc;
        c->n = 0;
        memset(c->items, 0, n * sizeof(rsql_value_t));
    }
    return c;
}

/* The message's keys as an ARRAY<STRING> value into *v; false when out of memory. */
static bool keys_value(rsql_arena_t *a, const rsql_rmq_msg_t *m, rsql_value_t *v)
{
    rsql_composite_t *c =
        composite(a, rsql_tdesc_array(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR)), m->n_keys);
    if (!c) {
        return false;
    }
    for (size_t k = 0; k < m->n_keys; k++) {
        const char *s = m->keys[k] ? m->keys[k] : "";
        if (!str_value(a, RSQL_TYPE_VARCHAR, s, strlen(s), &c->items[c->n++])) {
            return false;
        }
    }
    *v = (rsql_value_t){.type = RSQL_TYPE_ARRAY, .is_null = false};
    v->v.c = c;
    return true;
}

/* The user properties as a MAP<STRING, STRING> value into *v; false when out of memory. */
static bool props_value(rsql_arena_t *a, const rsql_rmq_msg_t *m, rsql_value_t *v)
{
    rsql_composite_t *c =
        composite(a, rsql_tdesc_map(rsql_tdesc_scalar(RSQL_TYPE_VARCHAR)), 2 * m->n_props);
    if (!c) {
        return false;
    }
    for (size_t k = 0; k < m->n_props; k++) {
        const char *key = m->props[k].key, *val = m->props[k].value ? m->props[k].value : "";
        if (!key || broker_prop(key)) {
            continue;
        }
        if (!str_value(a, RSQL_TYPE_VARCHAR, key, strlen(key), &c->items[2 * c->n]) ||
            !str_value(a, RSQL_TYPE_VARCHAR, val, strlen(val), &c->items[2 * c->n + 1])) {
            return false;
        }
        c->n++; /* (the decoder refused a message with an empty or repeated key) */
    }
    *v = (rsql_value_t){.type = RSQL_TYPE_MAP, .is_null = false};
    v->v.c = c;
    return true;
}

/* See rmq_conn_int.h. */
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
        case RMQ_META_KEYS: ok = keys_value(a, m, v); continue;
        case RMQ_META_PROPERTIES: ok = props_value(a, m, v); continue;
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

/* A heap copy of a VARCHAR value's bytes (NUL-terminated), or NULL when out of memory. */
static char *dup_text(const rsql_value_t *v)
{
    return rsql_strndup(v->v.s.p ? v->v.s.p : "", v->v.s.len);
}

/* See rmq_conn_int.h. */
rsql_err_t rsql_rmq__keys_of(const rsql_value_t *v, char ***out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    if (v->is_null || v->type != RSQL_TYPE_ARRAY || !v->v.c || v->v.c->n == 0) {
        return RSQL_OK;
    }
    const rsql_composite_t *c = v->v.c;
    char **keys = rsql_calloc(c->n, sizeof(char *));
    if (!keys) {
        return RSQL_ERR_NOMEM;
    }
    size_t n = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const rsql_value_t *e = &c->items[i];
        if (e->is_null || e->v.s.len == 0) {
            continue; /* no such key: left out */
        }
        if (!(keys[n] = dup_text(e))) {
            rsql_rmq__strv_free(keys, n);
            return RSQL_ERR_NOMEM;
        }
        n++;
    }
    *out = keys;
    *n_out = n;
    return RSQL_OK;
}

/* See rmq_conn_int.h. */
rsql_err_t rsql_rmq__props_of(const rsql_value_t *v, rsql_rmq_prop_t **out, size_t *n_out,
                              char *why, size_t why_size)
{
    *out = NULL;
    *n_out = 0;
    why[0] = '\0';
    if (v->is_null || v->type != RSQL_TYPE_MAP || !v->v.c || v->v.c->n == 0) {
        return RSQL_OK;
    }
    const rsql_composite_t *c = v->v.c;
    for (uint32_t i = 0; i < c->n; i++) {
        const rsql_value_t *key = &c->items[2 * i], *val = &c->items[2 * i + 1];
        if (key->v.s.len == 0) {
            snprintf(why, why_size, "properties: an empty key");
            return RSQL_ERR_SINK;
        }
        if (val->is_null) {
            snprintf(why, why_size, "properties: the value of '%.*s' is NULL",
                     (int)(key->v.s.len > 100 ? 100 : key->v.s.len), key->v.s.p);
            return RSQL_ERR_SINK;
        }
    }
    rsql_rmq_prop_t *p = rsql_calloc(c->n, sizeof(*p));
    if (!p) {
        return RSQL_ERR_NOMEM;
    }
    for (uint32_t i = 0; i < c->n; i++) {
        p[i].key = dup_text(&c->items[2 * i]);
        p[i].value = dup_text(&c->items[2 * i + 1]);
        if (!p[i].key || !p[i].value) {
            rsql_rmq__props_free(p, i + 1);
            return RSQL_ERR_NOMEM;
        }
    }
    *out = p;
    *n_out = c->n;
    return RSQL_OK;
}

/* See rmq_conn_int.h. */
void rsql_rmq__props_free(rsql_rmq_prop_t *props, size_t n)
{
    for (size_t i = 0; props && i < n; i++) {
        rsql_free(props[i].key);
        rsql_free(props[i].value);
    }
    rsql_free(props);
}

/* See rmq_conn_int.h. */
void rsql_rmq__strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++) {
        rsql_free(v[i]);
    }
    rsql_free(v);
}

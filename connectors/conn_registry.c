/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The connector registry: the static list of connectors and formats, and
 * the validation of a table's WITH options.  rsql_connector_validate finds
 * the 'connector', checks the chosen 'format', rejects the options of a
 * format that is not chosen, validates everything else against the
 * connector's table plus the chosen format's table (base/rsql_opts.c) and
 * runs the connector's cross-option rules (finalize).  The option tables
 * themselves live next to each connector (<name>/<name>_opts.c).
 */
#include "config.h"
#include "connectors/rsql_connector.h"
#include "connectors/conn_int.h"
#include "base/rsql_conf.h"
#include "base/rsql_opts_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* connectors/conn_list.h (generated from connectors/list.mk): RSQL_CONNECTOR(name) lines. */
#define RSQL_CONNECTOR(name) extern const rsql_connector_def_t rsql_##name##_conn_def;
#include "connectors/conn_list.h"
#undef RSQL_CONNECTOR

#define RSQL_CONNECTOR(name) &rsql_##name##_conn_def,
static const rsql_connector_def_t *const connectors[] = {
#include "connectors/conn_list.h"
    NULL,
};
#undef RSQL_CONNECTOR

static const rsql_format_def_t *const formats[] = {
    &rsql_json_format_def,
    &rsql_csv_format_def,
    &rsql_raw_format_def,
    NULL,
};

/* All connectors, NULL-terminated, in a stable order. */
const rsql_connector_def_t *const *rsql_connector_list(void)
{
    return connectors;
}

/* The connector named name (case-insensitive), or NULL. Static. */
const rsql_connector_def_t *rsql_connector_find(const char *name)
{
    for (int i = 0; name && connectors[i]; i++) {
        if (strcasecmp(connectors[i]->name, name) == 0) {
            return connectors[i];
        }
    }
    return NULL;
}

/* All formats, NULL-terminated. */
const rsql_format_def_t *const *rsql_format_list(void)
{
    return formats;
}

/* The format named name (case-insensitive), or NULL. Static. */
const rsql_format_def_t *rsql_format_find(const char *name)
{
    for (int i = 0; name && formats[i]; i++) {
        if (strcasecmp(formats[i]->name, name) == 0) {
            return formats[i];
        }
    }
    return NULL;
}

/* "source, sink", "source" or "sink". */
const char *rsql_connector_sides(const rsql_connector_def_t *conn)
{
    bool src = conn->caps & RSQL_CAP_SOURCE, snk = conn->caps & RSQL_CAP_SINK;
    return src && snk ? "source, sink" : src ? "source" : snk ? "sink" : "none";
}

static rsql_err_t unknown_connector(const char *name, rsql_pos_t pos, rsql_error_t *err)
{
    char head[300];
    const char *best = NULL;
    int best_score = -1;
    char list[256] = "";
    size_t used = 0;
    for (int i = 0; connectors[i]; i++) {
        int s = rsql_opts__near(name, connectors[i]->name);
        if (s >= 0 && (best_score < 0 || s < best_score)) {
            best_score = s;
            best = connectors[i]->name;
        }
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 connectors[i]->name);
    }
    if (best) {
        snprintf(head, sizeof head, "unknown connector '%.200s' (did you mean '%s'?)", name, best);
    } else {
        snprintf(head, sizeof head, "unknown connector '%.200s'", name);
    }
    return rsql_opts__set_listed(err, RSQL_ERR_BAD_OPTION, pos, head, "connectors", list);
}

static int kv_index(const rsql_opt_kv_t *kvs, int n, const char *key)
{
    for (int i = 0; i < n; i++) {
        if (kvs[i].key && strcasecmp(kvs[i].key, key) == 0) {
            return i;
        }
    }
    return -1;
}

/* The typed configurations of the connector and its format, attached to set. */
static rsql_err_t build_confs(const rsql_connector_def_t *c, const rsql_format_def_t *fmt,
                              rsql_optset_t *set, const char *const *columns, int n_columns,
                              rsql_error_t *err)
{
    if (c->conf_size) {
        void *conf = rsql_conf_build(set, RSQL_CONF_CONNECTOR, c->conf_size, c->opts, err);
        if (!conf) {
            return err ? err->code : RSQL_ERR_NOMEM;
        }
        if (c->configure) {
            rsql_err_t rc =
                c->configure(conf, set, columns, n_columns, rsql_optset_arena(set), err);
            if (rc != RSQL_OK) {
                return rc;
            }
        }
    }
    if (fmt && fmt->conf_size) {
        void *conf = rsql_conf_build(set, RSQL_CONF_FORMAT, fmt->conf_size, fmt->opts, err);
        if (!conf) {
            return err ? err->code : RSQL_ERR_NOMEM;
        }
        if (fmt->configure) {
            rsql_err_t rc = fmt->configure(conf, set, err);
            if (rc != RSQL_OK) {
                return rc;
            }
        }
    }
    return RSQL_OK;
}

/*
** Validate a table's WITH options (see rsql_connector.h). Returns a new set
** (caller destroys) and the connector in *conn (when conn is non-NULL), or
** NULL with err set.
*/
rsql_optset_t *rsql_connector_validate(const rsql_opt_kv_t *kvs, int n_kvs,
                                       const char *const *columns, int n_columns,
                                       rsql_pos_t what_pos, const rsql_connector_def_t **conn,
                                       rsql_error_t *err)
{
    int ci = kv_index(kvs, n_kvs, "connector");
    if (ci < 0) {
        rsql_error_set(err, RSQL_ERR_MISSING_OPTION, what_pos,
                       "missing required option 'connector'");
        return NULL;
    }
    const char *cname = kvs[ci].value ? kvs[ci].value : "";
    const rsql_connector_def_t *c = rsql_connector_find(cname);
    if (!c) {
        unknown_connector(cname, kvs[ci].value_pos, err);
        return NULL;
    }
    char what[128];
    snprintf(what, sizeof what, "connector '%s'", c->name);

    /* the chosen format: checked first, so that its options can be told apart */
    const rsql_format_def_t *fmt = NULL;
    const rsql_opt_def_t *frow = rsql_opt_find(c->opts, "format");
    if (frow) {
        int fi = kv_index(kvs, n_kvs, "format");
        const char *fv = fi >= 0 ? kvs[fi].value : frow->def;
        if (fi >= 0 && rsql_opt_check_value(frow, "format", fv, kvs[fi].value_pos, err)) {
            return NULL;
        }
        fmt = fv ? rsql_format_find(fv) : NULL;
        for (int i = 0; i < n_kvs; i++) {
            for (const char *const *f = c->formats; f && *f; f++) {
                const rsql_format_def_t *other = rsql_format_find(*f);
                if (other && other != fmt && kvs[i].key &&
                    rsql_opt_find(other->opts, kvs[i].key)) {
                    rsql_error_set(err, RSQL_ERR_BAD_OPTION, kvs[i].key_pos,
                                   "option '%s' requires 'format' = '%s'", kvs[i].key,
                                   other->name);
                    return NULL;
                }
            }
        }
    }

    const rsql_opt_def_t *tables[2] = {c->opts, fmt ? fmt->opts : NULL};
    rsql_optset_t *set = rsql_optset_new_at(tables, fmt ? 2 : 1, what, kvs, n_kvs, columns,
                                            n_columns, what_pos, err);
    if (!set) {
        return NULL;
    }
    if ((c->finalize && c->finalize(set, err) != RSQL_OK) ||
        (fmt && fmt->finalize && fmt->finalize(set, err) != RSQL_OK) ||
        build_confs(c, fmt, set, columns, n_columns, err) != RSQL_OK) {
        rsql_optset_destroy(set);
        return NULL;
    }
    if (conn) {
        *conn = c;
    }
    return set;
}

/*
** Check that the table can be used on side (capability, side-REQUIRED rows).
*/
rsql_err_t rsql_connector_check_side(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                     int side, const char *table_name, rsql_pos_t pos,
                                     rsql_error_t *err)
{
    const char *tn = table_name ? table_name : "?";
    if (side == RSQL_SIDE_SOURCE && !(conn->caps & RSQL_CAP_SOURCE)) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                              "table '%s' cannot be read from: connector '%s' is a sink only", tn,
                              conn->name);
    }
    if (side == RSQL_SIDE_SINK && !(conn->caps & RSQL_CAP_SINK)) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                              "table '%s' cannot be written to: connector '%s' is a source only",
                              tn, conn->name);
    }
    return rsql_optset_check_side_for(set, side, table_name, pos, err);
}

/* The connector's column check (see rsql_connector.h). */
rsql_err_t rsql_connector_check_columns(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                        const char *table_name, int n_columns,
                                        const char *const *names, const rsql_type_t *types,
                                        rsql_pos_t pos, rsql_error_t *err)
{
    if (!conn->check_columns) {
        return RSQL_OK;
    }
    rsql_error_t local;
    rsql_error_clear(&local);
    rsql_err_t rc = conn->check_columns(rsql_optset_conf(set, RSQL_CONF_CONNECTOR), set,
                                        n_columns, names, types, &local);
    if (rc == RSQL_OK) {
        return RSQL_OK;
    }
    if (local.pos.off == RSQL_POS_NONE) {
        return rsql_error_set(err, rc, pos, "%s (table '%s')", local.msg,
                              table_name ? table_name : "?");
    }
    rsql_error_copy(err, &local);
    return rc;
}

/* The chosen format (given or default), or NULL. */
const rsql_format_def_t *rsql_connector_format(const rsql_connector_def_t *conn,
                                               const rsql_optset_t *set)
{
    if (!rsql_opt_find(conn->opts, "format")) {
        return NULL;
    }
    return rsql_format_find(rsql_optset_str(set, "format"));
}

/* True when key is SECRET in conn's table or one of its formats' tables. */
bool rsql_connector_is_secret(const rsql_connector_def_t *conn, const char *key)
{
    const rsql_opt_def_t *tables[8];
    int n = 0;
    tables[n++] = conn->opts;
    for (const char *const *f = conn->formats; f && *f && n < 8; f++) {
        const rsql_format_def_t *fd = rsql_format_find(*f);
        if (fd) {
            tables[n++] = fd->opts;
        }
    }
    return rsql_opt_is_secret(tables, n, key);
}

/* ---- helpers for finalize hooks */

/* Position of a given key (RSQL_NOPOS when absent). */
rsql_pos_t rsql_conn__key_pos(const rsql_optset_t *set, const char *key)
{
    int i = rsql_optset_find(set, key);
    return i >= 0 ? rsql_optset_at(set, i)->key_pos : RSQL_NOPOS;
}

/* Position of a given key's value (RSQL_NOPOS when absent). */
rsql_pos_t rsql_conn__value_pos(const rsql_optset_t *set, const char *key)
{
    int i = rsql_optset_find(set, key);
    return i >= 0 ? rsql_optset_at(set, i)->value_pos : RSQL_NOPOS;
}

/*
** "option 'KEY' requires 'OTHER' = 'VALUE'" when key (or a key under the
** prefix key, when it ends with '.') is given and other is not value.
*/
rsql_err_t rsql_conn__requires(const rsql_optset_t *set, const char *key, const char *other,
                               const char *value, rsql_error_t *err)
{
    const char *ov = rsql_optset_str(set, other);
    if (ov && strcasecmp(ov, value) == 0) {
        return RSQL_OK;
    }
    size_t klen = strlen(key);
    bool prefix = klen > 0 && key[klen - 1] == '.';
    for (int i = 0; i < rsql_optset_count(set); i++) {
        const rsql_opt_kv_t *kv = rsql_optset_at(set, i);
        if (prefix ? strncasecmp(kv->key, key, klen) == 0 : strcasecmp(kv->key, key) == 0) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, kv->key_pos,
                                  "option '%s' requires '%s' = '%s'", kv->key, other, value);
        }
    }
    return RSQL_OK;
}

/*
** "options 'A' and 'B' cannot be used together" at the later of the two.
*/
rsql_err_t rsql_conn__exclusive(const rsql_optset_t *set, const char *a, const char *b,
                                rsql_error_t *err)
{
    int ia = rsql_optset_find(set, a), ib = rsql_optset_find(set, b);
    if (ia < 0 || ib < 0) {
        return RSQL_OK;
    }
    const rsql_opt_kv_t *later = rsql_optset_at(set, ia > ib ? ia : ib);
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, later->key_pos,
                          "options '%s' and '%s' cannot be used together", a, b);
}

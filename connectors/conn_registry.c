/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The connector registry: the static list of connectors and formats (plus
 * the connectors plugins add at start-up, rsql_connector_register), and
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
#include "connectors/rsql_plugin.h"
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
    &rsql_debezium_format_def,
    &rsql_canal_format_def,
    &rsql_maxwell_format_def,
    NULL,
};

/*
** The registered connectors, built-ins first: NULL until a plugin adds one
** (then the built-ins are copied in), NULL-terminated. origins[i] names
** where all[i] came from (NULL: built in). Written only at start-up, by
** rsql_connector_register, before any other thread runs.
*/
static const rsql_connector_def_t **all;
static char **origins;
static int n_all;

/* All connectors, NULL-terminated, in a stable order: built-ins, then plugins'. */
const rsql_connector_def_t *const *rsql_connector_list(void)
{
    return all ? (const rsql_connector_def_t *const *)all : connectors;
}

/* The connector named name (case-insensitive), or NULL. Static. */
const rsql_connector_def_t *rsql_connector_find(const char *name)
{
    const rsql_connector_def_t *const *list = rsql_connector_list();
    for (int i = 0; name && list[i]; i++) {
        if (strcasecmp(list[i]->name, name) == 0) {
            return list[i];
        }
    }
    return NULL;
}

/* See rsql_connector.h. */
bool rsql_connector_exactly_once(const rsql_connector_def_t *c, const void *conf)
{
    return c && (c->exactly_once || (c->sink_exactly_once && conf && c->sink_exactly_once(conf)));
}

/* Index of name in the registry (case-insensitive), or -1. */
static int registered_index(const char *name)
{
    const rsql_connector_def_t *const *list = rsql_connector_list();
    for (int i = 0; list[i]; i++) {
        if (strcasecmp(list[i]->name, name) == 0) {
            return i;
        }
    }
    return -1;
}

static bool known_format(const char *name)
{
    for (int i = 0; formats[i]; i++) {
        if (strcmp(formats[i]->name, name) == 0) {
            return true;
        }
    }
    return false;
}

/*
** The basic checks of a descriptor that does not come from this tree:
** RSQL_OK, or RSQL_ERR_UNSUPPORTED with err saying what is wrong.
*/
rsql_err_t rsql_connector_check_def(const rsql_connector_def_t *def, rsql_error_t *err)
{
    if (!def->name || !*def->name) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "a connector has no name");
    }
    const char *n = def->name;
    for (const char *c = n; *c; c++) {
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-' || *c == '_')) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                                  "connector '%.100s': a name has only lower-case letters, "
                                  "digits, '-' and '_'",
                                  n);
        }
    }
    if (!def->description) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' has no description", n);
    }
    if (!(def->caps & (RSQL_CAP_SOURCE | RSQL_CAP_SINK))) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' has no capabilities (caps: RSQL_CAP_SOURCE, "
                              "RSQL_CAP_SINK)",
                              n);
    }
    if ((def->caps & RSQL_CAP_SOURCE) &&
        (!def->source || !def->source->open || !def->source->poll)) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' is a source without source operations (open, "
                              "poll)",
                              n);
    }
    if ((def->caps & RSQL_CAP_SINK) && (!def->sink || !def->sink->open || !def->sink->write)) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' is a sink without sink operations (open, write)",
                              n);
    }
    if ((def->exactly_once || def->sink_exactly_once) &&
        (!def->sink || !def->sink->stored_positions)) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' is exactly_once without stored_positions", n);
    }
    if (!def->opts || !def->opts[0].name || strcmp(def->opts[0].name, "connector") != 0 ||
        def->opts[0].type != RSQL_OPT_STR) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s': its option table does not start with the "
                              "'connector' row (RSQL_CONN_ROW_CONNECTOR)",
                              n);
    }
    for (const rsql_meta_def_t *m = def->metadata; m && m->key; m++) {
        if (!*m->key || !rsql_meta_type(m) ||
            !(m->flags & (RSQL_META_READ | RSQL_META_WRITE))) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                                  "connector '%s': metadata key '%.100s' needs a type this "
                                  "rocketsql knows and RSQL_META_READ or RSQL_META_WRITE",
                                  n, m->key);
        }
    }
    if (def->formats && !rsql_opt_find(def->opts, "format")) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                              "connector '%s' lists formats but has no 'format' option", n);
    }
    for (const char *const *f = def->formats; f && *f; f++) {
        if (!known_format(*f)) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                                  "connector '%s': unknown format '%.100s'", n, *f);
        }
    }
    return RSQL_OK;
}

/*
** Add defs (NULL-terminated, from a plugin named origin) after the
** registered connectors, all or none: each must pass
** rsql_connector_check_def and have a name not taken yet. The descriptors
** are borrowed and must outlive the process's use of the registry; origin
** is copied. Start-up only (not thread-safe).
*/
rsql_err_t rsql_connector_register(const rsql_connector_def_t *const *defs, const char *origin,
                                   rsql_error_t *err)
{
    int n = 0;
    while (defs && defs[n]) {
        n++;
    }
    if (n == 0) {
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "it has no connectors");
    }
    for (int i = 0; i < n; i++) {
        rsql_err_t rc = rsql_connector_check_def(defs[i], err);
        if (rc != RSQL_OK) {
            return rc;
        }
        int at = registered_index(defs[i]->name);
        if (at >= 0) {
            if (at < n_all && origins[at]) {
                return rsql_error_set(err, RSQL_ERR_EXISTS, RSQL_NOPOS,
                                      "connector '%s' is already defined by plugin %s",
                                      defs[i]->name, origins[at]);
            }
            return rsql_error_set(err, RSQL_ERR_EXISTS, RSQL_NOPOS,
                                  "connector '%s' is already defined (built in)",
                                  defs[i]->name);
        }
        for (int j = 0; j < i; j++) {
            if (strcasecmp(defs[j]->name, defs[i]->name) == 0) {
                return rsql_error_set(err, RSQL_ERR_EXISTS, RSQL_NOPOS,
                                      "connector '%s' is defined twice", defs[i]->name);
            }
        }
    }
    const rsql_connector_def_t *const *cur = rsql_connector_list();
    int have = 0;
    while (cur[have]) {
        have++;
    }
    const rsql_connector_def_t **na = rsql_calloc((size_t)(have + n + 1), sizeof *na);
    char **no = rsql_calloc((size_t)(have + n + 1), sizeof *no);
    char *label = rsql_strdup(origin ? origin : "?");
    if (!na || !no || !label) {
        rsql_free(na);
        rsql_free(no);
        rsql_free(label);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < have; i++) {
        na[i] = cur[i];
        no[i] = i < n_all ? origins[i] : NULL;
    }
    for (int i = 0; i < n; i++) {
        na[have + i] = defs[i];
        no[have + i] = label; /* shared by the plugin's connectors; freed never (process life) */
    }
    rsql_free(all);
    rsql_free(origins);
    all = na;
    origins = no;
    n_all = have + n;
    return RSQL_OK;
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
    if (conn->lookup) {
        return src && snk ? "source, sink, lookup" : src ? "source, lookup"
                                              : snk ? "sink, lookup" : "lookup";
    }
    return src && snk ? "source, sink" : src ? "source" : snk ? "sink" : "none";
}

static rsql_err_t unknown_connector(const char *name, rsql_pos_t pos, rsql_error_t *err)
{
    char head[300];
    const char *best = NULL;
    int best_score = -1;
    rsql_buf_t list = RSQL_BUF_INIT;
    const rsql_connector_def_t *const *cs = rsql_connector_list();
    for (int i = 0; cs[i]; i++) {
        int s = rsql_opts__near(name, cs[i]->name);
        if (s >= 0 && (best_score < 0 || s < best_score)) {
            best_score = s;
            best = cs[i]->name;
        }
        rsql_buf_printf(&list, "%s%s", i ? ", " : "", cs[i]->name);
    }
    if (best) {
        snprintf(head, sizeof head, "unknown connector '%.200s' (did you mean '%s'?)", name, best);
    } else {
        snprintf(head, sizeof head, "unknown connector '%.200s'", name);
    }
    rsql_err_t rc = rsql_opts__set_listed(err, RSQL_ERR_BAD_OPTION, pos, head, "connectors",
                                          rsql_buf_str(&list));
    rsql_buf_deinit(&list);
    return rc;
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
rsql_optset_t *rsql_connector_validate_ex(const rsql_opt_kv_t *kvs, int n_kvs,
                                          const char *const *columns, int n_columns,
                                          rsql_pos_t what_pos, unsigned flags,
                                          const rsql_connector_def_t **conn, rsql_error_t *err)
{
    /* the two keys that choose the option tables are never references */
    static const char *const choosers[] = {"connector", "format"};
    for (int k = 0; k < 2; k++) {
        int i = kv_index(kvs, n_kvs, choosers[k]);
        rsql_opt_ref_t ref = {RSQL_OPT_REF_NONE, NULL, 0};
        if (i >= 0 && (rsql_opt_ref_parse(choosers[k], kvs[i].value, false, kvs[i].value_pos,
                                          &ref, err) != RSQL_OK ||
                       ref.kind != RSQL_OPT_REF_NONE)) {
            if (ref.kind != RSQL_OPT_REF_NONE) {
                rsql_error_set(err, RSQL_ERR_BAD_OPTION, kvs[i].value_pos,
                               "option '%s' cannot be a reference (${env:...} or ${file:...}): "
                               "it decides which options the table has",
                               choosers[k]);
            }
            return NULL;
        }
    }
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
        /* a connector with a "value.format" row (Flink's kafka) takes it for "format" */
        const char *fkey = "format";
        int fi = kv_index(kvs, n_kvs, fkey);
        if (fi < 0 && rsql_opt_find(c->opts, "value.format")) {
            fkey = "value.format";
            fi = kv_index(kvs, n_kvs, fkey);
        }
        const char *fv = fi >= 0 ? kvs[fi].value : frow->def;
        if (fi >= 0 && rsql_opt_check_value(frow, fkey, fv, kvs[fi].value_pos, err)) {
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

    /* the connector's rows, its format's, and the lookup rows when it can be looked up */
    const rsql_opt_def_t *tables[3] = {c->opts, NULL, NULL};
    int n_tables = 1;
    if (fmt) {
        tables[n_tables++] = fmt->opts;
    }
    if (c->lookup) {
        tables[n_tables++] = rsql_lookup_opts;
    }
    rsql_optset_t *set = rsql_optset_new_ex(tables, n_tables, what, kvs, n_kvs, columns,
                                            n_columns, what_pos, flags, err);
    if (!set) {
        return NULL;
    }
    /* cross-option rules need every value: with a reference pending they run at planning */
    bool pending = rsql_optset_pending(set);
    if ((!pending && c->finalize && c->finalize(set, err) != RSQL_OK) ||
        (!pending && fmt && fmt->finalize && fmt->finalize(set, err) != RSQL_OK) ||
        (!pending && c->lookup && rsql_lookup_opts_finalize(set, err) != RSQL_OK) ||
        build_confs(c, fmt, set, columns, n_columns, err) != RSQL_OK) {
        rsql_optset_destroy(set);
        return NULL;
    }
    if (conn) {
        *conn = c;
    }
    return set;
}

/* rsql_connector_validate_ex keeping references unresolved (CREATE TABLE). */
rsql_optset_t *rsql_connector_validate(const rsql_opt_kv_t *kvs, int n_kvs,
                                       const char *const *columns, int n_columns,
                                       rsql_pos_t what_pos, const rsql_connector_def_t **conn,
                                       rsql_error_t *err)
{
    return rsql_connector_validate_ex(kvs, n_kvs, columns, n_columns, what_pos, 0, conn, err);
}

/*
** Check that the table can be used on side (capability, side-REQUIRED rows).
*/
rsql_err_t rsql_connector_check_side(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                     int side, const char *table_name, rsql_pos_t pos,
                                     rsql_error_t *err)
{
    const char *tn = table_name ? table_name : "?";
    if (side == RSQL_SIDE_LOOKUP) {
        if (!conn->lookup) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                                  "table '%s' cannot be looked up: connector '%s' does not read "
                                  "rows by key (a lookup join needs a connector that does, such "
                                  "as postgres or sqlite)",
                                  tn, conn->name);
        }
        return RSQL_OK;
    }
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

/* The connector's check before a read (see rsql_connector.h). */
rsql_err_t rsql_connector_check_source(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                       const char *table_name, rsql_pos_t pos,
                                       rsql_error_t *err)
{
    if (!conn->check_source) {
        return RSQL_OK;
    }
    rsql_error_t local;
    rsql_error_clear(&local);
    rsql_err_t rc = conn->check_source(rsql_optset_conf(set, RSQL_CONF_CONNECTOR), &local);
    if (rc == RSQL_OK || rc == RSQL_ERR_NOMEM) {
        return rc == RSQL_OK ? RSQL_OK : rsql_error_nomem(err);
    }
    return rsql_error_set(err, rc, pos, "table '%s' cannot be read: %s",
                          table_name ? table_name : "?", local.msg);
}

/* The chosen format (given or default), or NULL. */
const rsql_format_def_t *rsql_connector_format(const rsql_connector_def_t *conn,
                                               const rsql_optset_t *set)
{
    if (!rsql_opt_find(conn->opts, "format")) {
        return NULL;
    }
    /* Flink's spelling, where the connector has it: "value.format" in place of "format" */
    if (rsql_opt_find(conn->opts, "value.format") && rsql_optset_has(set, "value.format")) {
        return rsql_format_find(rsql_optset_str(set, "value.format"));
    }
    return rsql_format_find(rsql_optset_str(set, "format"));
}

/* The row of key in conn's table or one of its formats' tables, or NULL. */
static const rsql_opt_def_t *option_row(const rsql_connector_def_t *conn, const char *key)
{
    const rsql_opt_def_t *d = rsql_opt_find(conn->opts, key);
    for (const char *const *f = conn->formats; !d && f && *f; f++) {
        const rsql_format_def_t *fd = rsql_format_find(*f);
        d = fd ? rsql_opt_find(fd->opts, key) : NULL;
    }
    return d;
}

/* True when key is SECRET in conn's table or one of its formats' tables. */
bool rsql_connector_is_secret(const rsql_connector_def_t *conn, const char *key)
{
    const rsql_opt_def_t *d = option_row(conn, key);
    return d && (d->flags & RSQL_OPT_F_SECRET);
}

/* See rsql_connector.h. */
void rsql_connector_put_shown(rsql_buf_t *out, const rsql_connector_def_t *conn, const char *key,
                              const char *value)
{
    rsql_opt_put_shown(out, conn ? option_row(conn, key) : NULL, value);
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

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Metadata keys: the checks of a METADATA column against its connector's key table
 * (rsql_connector_def_t.metadata) and the table's Markdown for docs/CONNECTORS.md. The
 * session calls rsql_connector_check_meta at CREATE TABLE, the planner again for every
 * table it binds (the catalog may be older than the build); SHOW METADATA FOR CONNECTOR
 * (session/rt_show.c) and EXPLAIN read the same table.
 */
#include "config.h"
#include "connectors/rsql_connector.h"
#include "connectors/formats/rsql_format.h"
#include "base/rsql_opts_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The row of key in conn's metadata table (case-insensitive), or NULL. */
const rsql_meta_def_t *rsql_connector_meta_find(const rsql_connector_def_t *conn,
                                                const char *key)
{
    for (const rsql_meta_def_t *m = conn ? conn->metadata : NULL; key && m && m->key; m++) {
        if (strcasecmp(m->key, key) == 0) {
            return m;
        }
    }
    return NULL;
}

/* "R", "W" or "R/W". */
const char *rsql_meta_access(const rsql_meta_def_t *m)
{
    bool r = m->flags & RSQL_META_READ, w = m->flags & RSQL_META_WRITE;
    return r && w ? "R/W" : r ? "R" : w ? "W" : "-";
}

/* The interned descriptor of key m's type text, or NULL when this build cannot parse it. */
const rsql_tdesc_t *rsql_meta_type(const rsql_meta_def_t *m)
{
    const rsql_tdesc_t *d = NULL;
    if (!m || !m->type || rsql_tdesc_parse(m->type, strlen(m->type), &d, NULL, NULL) != RSQL_OK) {
        return NULL;
    }
    return d;
}

/*
** True when a column of type column (desc: its descriptor, NULL for a plain scalar) can hold
** the key (read) or give it (write): the same type (descriptors are interned: equal pointers),
** or scalars where the value widens without loss (rsql_type_widens). A key type this build
** cannot name fits nothing.
*/
bool rsql_meta_type_fits(const rsql_meta_def_t *m, rsql_type_t column, const rsql_tdesc_t *desc,
                         bool write)
{
    const rsql_tdesc_t *kd = rsql_meta_type(m), *cd = rsql_tdesc_of(column, desc);
    if (!kd || !cd) {
        return false;
    }
    if (kd == cd) {
        return true;
    }
    if (rsql_type_is_param(kd->type) || rsql_type_is_param(cd->type)) {
        return false;
    }
    return write ? rsql_type_widens(cd->type, kd->type) : rsql_type_widens(kd->type, cd->type);
}

/* See rsql_connector.h. */
const rsql_format_meta_t *rsql_connector_format_meta(const char *format, const char *key)
{
    size_t np = strlen(RSQL_FORMAT_META_PREFIX);
    if (!format || !key || strncasecmp(key, RSQL_FORMAT_META_PREFIX, np) != 0) {
        return NULL;
    }
    for (const rsql_format_meta_t *f = rsql_format_metadata(format); f && f->key; f++) {
        if (strcasecmp(f->key, key + np) == 0) {
            return f;
        }
    }
    return NULL;
}

/* Weigh candidate against key for the nearest known one; append it to the list. */
static void candidate(const char *key, const char *prefix, const char *cand, rsql_buf_t *list,
                      char *best, size_t size, int *best_score)
{
    char full[160];
    snprintf(full, sizeof full, "%s%s", prefix, cand);
    int s = rsql_opts__near(key, full);
    if (s >= 0 && (*best_score < 0 || s < *best_score)) {
        *best_score = s;
        snprintf(best, size, "%s", full);
    }
    rsql_buf_printf(list, "%s%s", list->len ? ", " : "", full);
}

static rsql_err_t unknown_key(const rsql_connector_def_t *conn, const char *format,
                              const char *key, rsql_pos_t pos, rsql_error_t *err)
{
    const rsql_format_meta_t *fm = rsql_format_metadata(format);
    if ((!conn->metadata || !conn->metadata[0].key) && (!fm || !fm->key)) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "connector '%s' has no metadata keys (metadata key '%.100s')",
                              conn->name, key);
    }
    char best[160] = "";
    int best_score = -1;
    rsql_buf_t list = RSQL_BUF_INIT;
    for (const rsql_meta_def_t *m = conn->metadata; m && m->key; m++) {
        candidate(key, "", m->key, &list, best, sizeof best, &best_score);
    }
    for (const rsql_format_meta_t *f = fm; f && f->key; f++) {
        candidate(key, RSQL_FORMAT_META_PREFIX, f->key, &list, best, sizeof best, &best_score);
    }
    char head[640], with[120] = ""; /* room for every part at its longest: never cut */
    if (fm && fm->key) {
        snprintf(with, sizeof with, " with format '%s'", format);
    }
    if (*best) {
        snprintf(head, sizeof head,
                 "unknown metadata key '%.100s' for connector '%.64s'%s (did you mean '%s'?)", key,
                 conn->name, with, best);
    } else {
        snprintf(head, sizeof head, "unknown metadata key '%.100s' for connector '%.64s'%s", key,
                 conn->name, with);
    }
    rsql_err_t rc =
        rsql_opts__set_listed(err, RSQL_ERR_BAD_OPTION, pos, head, "keys", rsql_buf_str(&list));
    rsql_buf_deinit(&list);
    return rc;
}

/* See rsql_connector.h. */
rsql_err_t rsql_connector_check_meta(const rsql_connector_def_t *conn, const char *column,
                                     rsql_type_t type, const rsql_tdesc_t *desc, const char *key,
                                     bool is_virtual,
                                     rsql_pos_t key_pos, rsql_pos_t type_pos,
                                     rsql_pos_t virtual_pos, rsql_error_t *err)
{
    return rsql_connector_check_meta_in(conn, NULL, column, type, desc, key, is_virtual, key_pos,
                                        type_pos, virtual_pos, err);
}

/* A format metadata key: read-only, of a type that fits the column's (rsql_meta_type_fits). */
static rsql_err_t check_format_meta(const rsql_format_meta_t *fm, const char *format,
                                    const char *column, rsql_type_t type,
                                    const rsql_tdesc_t *desc, rsql_pos_t type_pos,
                                    rsql_error_t *err)
{
    const char *kt = fm->type_text ? fm->type_text : rsql_type_name(fm->type);
    rsql_meta_def_t m = {fm->key, kt, RSQL_META_READ, fm->doc};
    if (!rsql_meta_type_fits(&m, type, desc, false)) {
        const rsql_tdesc_t *cd = rsql_tdesc_of(type, desc);
        return rsql_error_set(err, RSQL_ERR_TYPE, type_pos,
                              "column '%s' is %s but metadata key '%s%s' of format '%s' is %s",
                              column, cd ? cd->text : rsql_type_name(type),
                              RSQL_FORMAT_META_PREFIX, fm->key, format, kt);
    }
    return RSQL_OK;
}

/* See rsql_connector.h. */
rsql_err_t rsql_connector_check_meta_in(const rsql_connector_def_t *conn, const char *format,
                                        const char *column, rsql_type_t type,
                                        const rsql_tdesc_t *desc, const char *key,
                                        bool is_virtual, rsql_pos_t key_pos, rsql_pos_t type_pos,
                                        rsql_pos_t virtual_pos, rsql_error_t *err)
{
    const rsql_meta_def_t *m = rsql_connector_meta_find(conn, key);
    if (!m) {
        const rsql_format_meta_t *fm = rsql_connector_format_meta(format, key);
        if (fm) {
            return check_format_meta(fm, format, column, type, desc, type_pos, err);
        }
        return unknown_key(conn, format, key, key_pos, err);
    }
    if (is_virtual && !(m->flags & RSQL_META_READ)) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, virtual_pos,
                              "column '%s': metadata key '%s' of connector '%s' is not readable, "
                              "so it cannot be VIRTUAL",
                              column, m->key, conn->name);
    }
    bool writes = !is_virtual && (m->flags & RSQL_META_WRITE);
    bool reads = m->flags & RSQL_META_READ;
    if ((reads && !rsql_meta_type_fits(m, type, desc, false)) ||
        (writes && !rsql_meta_type_fits(m, type, desc, true))) {
        const rsql_tdesc_t *cd = rsql_tdesc_of(type, desc), *kd = rsql_meta_type(m);
        return rsql_error_set(err, RSQL_ERR_TYPE, type_pos,
                              "column '%s' is %s but metadata key '%s' of connector '%s' is %s",
                              column, cd ? cd->text : rsql_type_name(type), m->key, conn->name,
                              kd ? kd->text : m->type);
    }
    return RSQL_OK;
}

/* Markdown text of s with '|' escaped (a table cell). */
static void cell(rsql_buf_t *out, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        if (*p == '|') {
            rsql_buf_putc(out, '\\');
        }
        rsql_buf_putc(out, *p);
    }
}

/* The metadata section of conn for docs/CONNECTORS.md (nothing when conn has none). */
void rsql_connector_meta_markdown(const rsql_connector_def_t *conn, rsql_buf_t *out)
{
    if (!conn->metadata || !conn->metadata[0].key) {
        return;
    }
    rsql_buf_puts(out, "\nMetadata keys (`name TYPE METADATA [FROM 'key'] [VIRTUAL]`; R = read "
                       "from a source, W = written by a sink):\n\n"
                       "| key | type | access | description |\n|---|---|---|---|\n");
    for (const rsql_meta_def_t *m = conn->metadata; m->key; m++) {
        rsql_buf_printf(out, "| `%s` | `%s` | %s | ", m->key, m->type, rsql_meta_access(m));
        cell(out, m->doc);
        rsql_buf_puts(out, " |\n");
    }
}

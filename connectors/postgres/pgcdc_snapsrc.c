/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_snapsrc: the snapshot phase of the postgres-cdc source (pgcdc_int.h): which tables
 * still need their snapshot rows (from the stored positions), the snapshot reader
 * (pgcdc_snapshot.c) on an ordinary connection of the source's options, each table's rows
 * mapped to the rocketsql columns like the stream's rows, and their positions.
 *
 * Positions: the snapshot of table s.t is partition "snapshot:s.t" (partition 1 + its index
 * in the source's tables; the slot's stream is partition 0). A row's offset is its key when
 * the key is one integer column; otherwise it counts the table's rows read, over runs (1,
 * 2, ...: positions stay ordered, the runtime keeps the further one), and the position's
 * text part is the row's key (rsql_io_key_text: each value as PostgreSQL's text). Either way
 * a resume reads the table after that key, so no committed row is read again. A row-less
 * record with RSQL_PGCDC_SNAP_DONE follows a table's last row (a resume skips the table); a
 * stored RSQL_PGCDC_SNAP_STARTED (earlier versions) reads the table again from its start.
 */
#include "config.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/postgres/pgcdc_int.h"
#include "connectors/postgres/pgcdc_snapshot.h"
#include "connectors/rsql_conn_io.h"

#include <stdio.h>
#include <string.h>

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_snapsrc_init(rsql_pgcdc_snapsrc_t *ss, const rsql_source_ctx_t *ctx,
                                   rsql_error_t *err)
{
    memset(ss, 0, sizeof *ss);
    size_t pre = strlen(RSQL_PGCDC_SNAP_PREFIX);
    for (int i = 0; i < ctx->n_resume; i++) {
        if (strncmp(ctx->resume_partitions[i], RSQL_PGCDC_SNAP_PREFIX, pre) != 0) {
            continue;
        }
        char **names = rsql_realloc(ss->resume_names, (size_t)(ss->n_resume + 1) * sizeof *names);
        if (names) {
            ss->resume_names = names;
        }
        int64_t *offs = rsql_realloc(ss->resume_offs, (size_t)(ss->n_resume + 1) * sizeof *offs);
        if (offs) {
            ss->resume_offs = offs;
        }
        char **keys = rsql_realloc(ss->resume_keys, (size_t)(ss->n_resume + 1) * sizeof *keys);
        if (keys) {
            ss->resume_keys = keys;
        }
        const char *key = ctx->resume_keys ? ctx->resume_keys[i] : NULL;
        char *name = names && offs && keys ? rsql_strdup(ctx->resume_partitions[i]) : NULL;
        char *kc = name && key ? rsql_strdup(key) : NULL;
        if (!name || (key && !kc)) {
            rsql_free(name);
            return rsql_error_nomem(err);
        }
        ss->resume_names[ss->n_resume] = name;
        ss->resume_keys[ss->n_resume] = kc;
        ss->resume_offs[ss->n_resume++] = ctx->resume_offsets[i];
    }
    return RSQL_OK;
}

/* The position of source table i (partition name) into *off and its text part into *key
   (NULL: none): where it stands in this run, else the stored one; false when it has none. */
static bool stored(const rsql_pgcdc_snapsrc_t *ss, int table, const char *name, int64_t *off,
                   const char **key)
{
    if (ss->given && ss->given[table].has) {
        *off = ss->given[table].off;
        *key = ss->given[table].key.len ? rsql_buf_str(&ss->given[table].key) : NULL;
        return true;
    }
    for (int i = 0; i < ss->n_resume; i++) {
        if (strcmp(ss->resume_names[i], name) == 0) {
            *off = ss->resume_offs[i];
            *key = ss->resume_keys[i];
            return true;
        }
    }
    return false;
}

/* The partition names of the tables (once). */
static rsql_err_t name_parts(rsql_pgcdc_snapsrc_t *ss, const rsql_pgcdc_tables_t *t,
                             rsql_error_t *err)
{
    if (ss->part_names) {
        return RSQL_OK;
    }
    char **v = rsql_calloc((size_t)t->n + 1, sizeof *v);
    ss->given = rsql_calloc((size_t)t->n + 1, sizeof *ss->given);
    if (!v || !ss->given) {
        rsql_free(v);
        rsql_free(ss->given);
        ss->given = NULL;
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < t->n; i++) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_buf_printf(&b, "%s%s.%s", RSQL_PGCDC_SNAP_PREFIX, t->v[i].schema, t->v[i].name);
        v[i] = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_deinit(&b);
        if (!v[i]) {
            for (int j = 0; j < i; j++) {
                rsql_free(v[j]);
            }
            rsql_free(v);
            return rsql_error_nomem(err);
        }
    }
    ss->part_names = v;
    ss->n_parts = t->n;
    return RSQL_OK;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_snapsrc_needed(rsql_pgcdc_snapsrc_t *ss, const rsql_pgcdc_tables_t *t,
                                     bool *needed, rsql_error_t *err)
{
    rsql_err_t rc = name_parts(ss, t, err);
    *needed = false;
    for (int i = 0; rc == RSQL_OK && !ss->finished && i < t->n; i++) {
        int64_t off;
        const char *key;
        if (!stored(ss, i, ss->part_names[i], &off, &key) || off != RSQL_PGCDC_SNAP_DONE) {
            *needed = true;
        }
    }
    return rc;
}

/* See pgcdc_int.h. */
const char *rsql_pgcdc_snapsrc_part(const rsql_pgcdc_snapsrc_t *ss, uint32_t partition)
{
    return partition >= 1 && (int)partition <= ss->n_parts ? ss->part_names[partition - 1] : NULL;
}

/*
** Table k of the snapshot (the source's table i) resumes after its stored position: an
** integer key in off, or (key not NULL) the key of the last row written, off counting the
** rows read before. A text part that is not a key of the table's length is an error naming
** the partition (the stored position is not one this source wrote for this table).
*/
static rsql_err_t resume_table(rsql_pgcdc_snapsrc_t *ss, int k, int i, int64_t off,
                               const char *key, rsql_error_t *err)
{
    if (!key) {
        if (!rsql_pgcdc_snap_int_key(ss->snap, k)) {
            return RSQL_OK; /* no resume point: the table is read again */
        }
        char txt[24];
        const char *kp[1] = {txt};
        snprintf(txt, sizeof txt, "%lld", (long long)off);
        return rsql_pgcdc_snap_resume_after(ss->snap, k, 1, kp, err);
    }
    enum { MAX_KEY = 32 };
    const char *vals[MAX_KEY];
    char *buf = rsql_malloc(strlen(key) + 1);
    if (!buf) {
        return rsql_error_nomem(err);
    }
    int n = rsql_io_key_parse(key, buf, vals, MAX_KEY);
    rsql_err_t rc = n < 0 ? rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                           "postgres-cdc: the stored position of %s holds '%.64s', "
                                           "not a key; RESET POSITIONS starts the job over",
                                           ss->part_names[i], key)
                          : rsql_pgcdc_snap_resume_after(ss->snap, k, n, vals, err);
    rsql_free(buf);
    rsql_pgcdc_given_t *g = &ss->given[i];
    if (rc == RSQL_OK && key != rsql_buf_str(&g->key)) { /* where it stands: the rows count on */
        rsql_buf_reset(&g->key);
        rsql_buf_puts(&g->key, key);
        g->off = off;
        g->has = true;
        rc = g->key.oom ? rsql_error_nomem(err) : RSQL_OK;
    }
    return rc;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_snapsrc_open(rsql_pgcdc_snapsrc_t *ss, const rsql_pgcdc_conf_t *conf,
                                   const rsql_pgcdc_tables_t *t, const char *snapshot_name,
                                   int n, const char *const *names, const char *const *meta,
                                   const rsql_pgcdc_follow_t *follow, const char *what,
                                   rsql_error_t *err)
{
    rsql_err_t rc = name_parts(ss, t, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rsql_pgcdc_snapsrc_close(ss, false);
    ss->pg = &conf->pg;
    ss->what = what;
    ss->broken = false;
    PGconn *c = rsql_pg__connect(&conf->pg, what, err);
    if (!c) {
        return err && err->code ? err->code : RSQL_ERR_UNAVAILABLE;
    }
    int64_t fetch = conf->fetch_size > 0 ? conf->fetch_size : RSQL_PGCDC_SNAP_FETCH_DEFAULT;
    ss->snap = rsql_pgcdc_snap_open(c, snapshot_name, fetch, err);
    const char **cols = rsql_calloc((size_t)n + 1, sizeof *cols);
    ss->maps = rsql_calloc((size_t)t->n + 1, sizeof *ss->maps);
    ss->table_of = rsql_calloc((size_t)t->n + 1, sizeof *ss->table_of);
    if (!ss->snap) {
        rc = err && err->code ? err->code : RSQL_ERR_UNAVAILABLE;
    } else if (!cols || !ss->maps || !ss->table_of) {
        rc = rsql_error_nomem(err);
    }
    for (int i = 0; rc == RSQL_OK && i < t->n; i++) {
        /* the physical columns the table has (under schema-change.mode 'follow' one may be
           gone: it reads as NULL, pg_types NULL) */
        int n_cols = 0;
        for (int j = 0; j < n; j++) {
            if ((!meta || !meta[j]) && (!follow || (t->v[i].pg_types && t->v[i].pg_types[j]))) {
                cols[n_cols++] = names[j];
            }
        }
        int64_t off = 0;
        const char *key = NULL;
        bool has = stored(ss, i, ss->part_names[i], &off, &key);
        if (has && off == RSQL_PGCDC_SNAP_DONE) {
            continue; /* read to its end by an earlier run */
        }
        int k = rsql_pgcdc_snap_add_table(ss->snap, t->v[i].schema, t->v[i].name, n_cols, cols,
                                          0, NULL, false, err);
        if (k >= 0 && has && off != RSQL_PGCDC_SNAP_STARTED &&
            resume_table(ss, k, i, off, key, err) != RSQL_OK) {
            k = -1;
        }
        if (k < 0) {
            rc = err && err->code ? err->code : RSQL_ERR_INTERNAL;
            break;
        }
        ss->table_of[k] = i;
        ss->n_tables = k + 1;
        /* the snapshot's relation does not change while it is read; a column gone before
           it (schema-change.mode 'follow') reads as NULL */
        rc = rsql_pgcdc_map(&ss->maps[k], rsql_pgcdc_snap_rel(ss->snap, k), &t->v[i], n, names,
                            meta, follow, what, err);
    }
    rsql_free(cols);
    ss->active = rc == RSQL_OK;
    if (rc != RSQL_OK) {
        rsql_pgcdc_snapsrc_close(ss, false);
    }
    return rc;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pgcdc_snapsrc_next(rsql_pgcdc_snapsrc_t *ss, rsql_pgcdc_snaprow_t *out,
                                   bool *done, rsql_error_t *err)
{
    rsql_pgcdc_snap_row_t r;
    memset(out, 0, sizeof *out);
    *done = false;
    if (ss->broken) {
        PGconn *c = rsql_pg__connect(ss->pg, ss->what, err);
        if (!c) {
            return err && err->code ? err->code : RSQL_ERR_UNAVAILABLE;
        }
        rsql_err_t rc = rsql_pgcdc_snap_reopen(ss->snap, c, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        ss->broken = false;
    }
    rsql_err_t rc = rsql_pgcdc_snap_next(ss->snap, &r, done, err);
    ss->broken = rc != RSQL_OK && rc != RSQL_ERR_NOMEM;
    if (rc != RSQL_OK || *done) {
        if (*done) {
            ss->active = false;
            ss->finished = true;
            rsql_pgcdc_snapsrc_close(ss, false);
        }
        return rc;
    }
    out->map = &ss->maps[r.table];
    out->rel = r.rel;
    out->partition = 1 + (uint32_t)ss->table_of[r.table];
    out->n_key = r.n_key;
    out->key = r.key;
    rsql_pgcdc_given_t *g = &ss->given[ss->table_of[r.table]];
    if (r.table_end) {
        out->offset = RSQL_PGCDC_SNAP_DONE;
        rsql_buf_reset(&g->key);
        g->off = RSQL_PGCDC_SNAP_DONE;
        g->has = true;
        return RSQL_OK;
    }
    ss->row = r.row; /* out->row must outlive r */
    out->row = &ss->row;
    int64_t v;
    if (rsql_pgcdc_snap_int_key(ss->snap, r.table)) {
        out->offset = r.n_key == 1 && rsql_pgcdc_snap_key_int(r.key[0], &v)
                          ? v
                          : RSQL_PGCDC_SNAP_STARTED;
        g->off = out->offset;
        g->has = out->offset != RSQL_PGCDC_SNAP_STARTED;
        return RSQL_OK;
    }
    rsql_buf_reset(&g->key);
    rsql_io_key_text(&g->key, r.n_key, r.key);
    if (g->key.oom) {
        g->has = false; /* a reopen resumes from the stored position: rows again, none lost */
        return rsql_error_nomem(err);
    }
    out->pos_key = rsql_buf_str(&g->key);
    out->offset = ++g->off; /* 0 when the table was not resumed */
    g->has = true;
    return RSQL_OK;
}

/* See pgcdc_int.h. */
void rsql_pgcdc_snapsrc_close(rsql_pgcdc_snapsrc_t *ss, bool all)
{
    for (int i = 0; ss->maps && i < ss->n_tables; i++) {
        rsql_pgcdc_map_free(&ss->maps[i]);
    }
    rsql_free(ss->maps);
    rsql_free(ss->table_of);
    rsql_pgcdc_snap_close(ss->snap);
    ss->maps = NULL;
    ss->table_of = NULL;
    ss->snap = NULL;
    ss->n_tables = 0;
    if (!all) {
        return;
    }
    for (int i = 0; i < ss->n_resume; i++) {
        rsql_free(ss->resume_names[i]);
        rsql_free(ss->resume_keys[i]);
    }
    rsql_free(ss->resume_names);
    rsql_free(ss->resume_offs);
    rsql_free(ss->resume_keys);
    for (int i = 0; ss->given && i < ss->n_parts; i++) {
        rsql_buf_deinit(&ss->given[i].key);
    }
    rsql_free(ss->given);
    for (int i = 0; ss->part_names && i < ss->n_parts; i++) {
        rsql_free(ss->part_names[i]);
    }
    rsql_free(ss->part_names);
    memset(ss, 0, sizeof *ss);
}

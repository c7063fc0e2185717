/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The postgres-cdc source's change messages made records: each pgoutput message of the
 * stream (pgoutput.c decodes it) moves the transaction and the positions (Begin, Commit; see
 * pgcdc_source.c for what an offset is) or adds records to the poll's batch, of the kinds
 * changelog-mode asks for, with their METADATA values.
 *
 * TRUNCATE: stops the job under truncate.mode 'fail' (a permanent error, after the rows of
 * the same poll are handed over); 'skip' ignores it; 'apply' gives a row-less record of kind
 * RSQL_ROW_CLEAR in its place among the transaction's rows (the sink empties its table;
 * table-name must match one table, checked at the start). A read column dropped or retyped
 * stops the job too, unless schema-change.mode 'follow' (pgcdc_rows.c): NULL from then on,
 * or the new type when it converts. An unchanged TOASTed value of a
 * read column (DEFAULT replica identity) is that row's error, naming the table, the column
 * and REPLICA IDENTITY FULL.
 *
 * Poll thread only.
 */
#include "config.h"
#include "connectors/postgres/pgcdc_source_int.h"

#include <stdio.h>
#include <string.h>

#include "base/rsql_time.h"

/* The map of relation oid, or NULL when no table of ours. */
static rsql_pgcdc_map_t *map_of(rsql_source_t *s, uint32_t oid)
{
    for (int i = 0; i < s->n_maps; i++) {
        if (s->maps[i].oid == oid) {
            return &s->maps[i];
        }
    }
    return NULL;
}

/* A Relation message: (re)map it when it is one of our tables. */
static rsql_err_t on_relation(rsql_source_t *s, const rsql_pgoutput_event_t *ev,
                              rsql_error_t *err)
{
    const rsql_pgcdc_table_t *t = rsql_pgcdc_tables_get(&s->tables, ev->rel->oid);
    if (!t) {
        return RSQL_OK; /* published by an existing publication, not read */
    }
    rsql_pgcdc_map_t *m = map_of(s, ev->rel->oid);
    if (!m) {
        rsql_pgcdc_map_t *v = rsql_realloc(s->maps, (size_t)(s->n_maps + 1) * sizeof *v);
        if (!v) {
            return rsql_error_nomem(err);
        }
        s->maps = v;
        m = &s->maps[s->n_maps++];
        memset(m, 0, sizeof *m);
    }
    return rsql_pgcdc_map(m, ev->rel, t, s->n, (const char *const *)s->names,
                          (const char *const *)s->meta, rsql_pgcdc__follow_of(s), s->what, err);
}

/* A record slot in batch, or NULL when full or out of memory. */
static rsql_record_t *add_record(rsql_source_t *s, rsql_batch_t *batch, rsql_lsn_t offset)
{
    rsql_record_t *rec = rsql_batch_add(batch);
    if (rec) {
        rec->partition = 0;
        rec->offset = (int64_t)offset;
    }
    (void)s;
    return rec;
}

/* A row-less record carrying offset (done as filtered). */
rsql_err_t rsql_pgcdc__add_marker(rsql_source_t *s, rsql_batch_t *batch, rsql_lsn_t offset,
                                  rsql_error_t *err)
{
    rsql_record_t *rec = add_record(s, batch, offset);
    if (!rec) {
        s->pending_marker = offset;
        return RSQL_OK;
    }
    char lsn[RSQL_LSN_TEXT_MAX];
    rsql_pgoutput_lsn_format(offset, lsn);
    size_t n = strlen(s->conf.slot) + 48;
    char *ident = rsql_arena_alloc(batch->arena, n);
    if (!ident) {
        batch->n--;
        return rsql_error_nomem(err);
    }
    snprintf(ident, n, "postgres-cdc:%s@%s", s->conf.slot, lsn);
    rec->ident = ident;
    rec->n_rows = -1;
    return RSQL_OK;
}

/* The METADATA value of key for a row of kind in table t, into *v. */
static rsql_err_t meta_value(rsql_source_t *s, const char *key, const rsql_pgcdc_table_t *t,
                             int kind, rsql_type_t type, rsql_arena_t *arena, rsql_value_t *v,
                             rsql_error_t *err)
{
    memset(v, 0, sizeof *v);
    v->type = type;
    const char *text = NULL;
    if (s->ss.active && (strcmp(key, "commit_lsn") == 0 || strcmp(key, "op_ts") == 0 ||
                         strcmp(key, "xid") == 0)) {
        v->is_null = true; /* a snapshot row: no transaction */
        return RSQL_OK;
    }
    char lsn[RSQL_LSN_TEXT_MAX];
    if (strcmp(key, "database_name") == 0) {
        text = s->repl.dbname;
    } else if (strcmp(key, "schema_name") == 0) {
        text = t->schema;
    } else if (strcmp(key, "table_name") == 0) {
        text = t->name;
    } else if (strcmp(key, "commit_lsn") == 0) {
        rsql_pgoutput_lsn_format(s->txn_commit, lsn);
        text = lsn;
    } else if (strcmp(key, "row_kind") == 0) {
        text = rsql_rowkind_short(kind);
    } else if (strcmp(key, "op_ts") == 0) {
        v->v.ts = rsql_pgoutput_time_ms(s->txn_time_us);
        return RSQL_OK;
    } else if (strcmp(key, "xid") == 0) {
        v->v.i = s->txn_xid;
        return RSQL_OK;
    } else {
        v->is_null = true;
        return RSQL_OK;
    }
    char *p = rsql_arena_strdup(arena, text);
    if (!p) {
        return rsql_error_nomem(err);
    }
    v->v.s.p = p;
    v->v.s.len = strlen(p);
    return RSQL_OK;
}

/*
** One row of an Insert/Update/Delete as a record of kind; a value that does not convert, or
** an unchanged TOASTed value of a read column, is the record's error.
*/
rsql_err_t rsql_pgcdc__add_row(rsql_source_t *s, rsql_batch_t *batch, const rsql_pgcdc_map_t *m,
                               const rsql_pgoutput_rel_t *rel, const rsql_pgoutput_row_t *row,
                               int kind, rsql_error_t *err)
{
    const rsql_pgcdc_table_t *t = m->table;
    rsql_record_t *rec = add_record(s, batch, s->last_end);
    rsql_value_t *vals = rsql_arena_alloc(batch->arena, (size_t)(s->n + 1) * sizeof *vals);
    char lsn[RSQL_LSN_TEXT_MAX];
    rsql_pgoutput_lsn_format(s->txn_commit, lsn);
    size_t n = strlen(s->conf.slot) + strlen(t->schema) + strlen(t->name) + 64;
    char *ident = rsql_arena_alloc(batch->arena, n);
    if (!rec || !vals || !ident) {
        if (rec) {
            batch->n--;
        }
        return rsql_error_nomem(err);
    }
    snprintf(ident, n, "postgres-cdc:%s@%s#%d %s.%s", s->conf.slot, lsn, s->txn_rows, t->schema,
             t->name);
    rec->ident = ident;
    rec->kind = (uint8_t)kind;
    rsql_error_t bad;
    rsql_error_clear(&bad);
    for (int i = 0; i < s->n && bad.code == RSQL_OK; i++) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_err_t rc;
        if (s->meta && s->meta[i]) {
            if (!*s->meta[i]) {
                memset(&vals[i], 0, sizeof vals[i]);
                vals[i].type = s->types[i];
                vals[i].is_null = true;
                continue;
            }
            rc = meta_value(s, s->meta[i], t, kind, s->types[i], batch->arena, &vals[i], &e);
        } else if (m->col[i] == RSQL_PGCDC_COL_GONE) {
            /* dropped while the job ran (schema-change.mode 'follow') */
            memset(&vals[i], 0, sizeof vals[i]);
            vals[i].type = s->types[i];
            vals[i].is_null = true;
            continue;
        } else {
            const rsql_pgoutput_datum_t *d = &row->cols[m->col[i]];
            if (d->kind == 'u') {
                rsql_error_set(&bad, RSQL_ERR_DECODE, RSQL_NOPOS,
                               "table %s.%s: an update left column '%s' (a large, TOASTed "
                               "value) unchanged and the server did not send it (REPLICA "
                               "IDENTITY DEFAULT): run ALTER TABLE %s REPLICA IDENTITY FULL",
                               t->schema, t->name, s->names[i], t->qname);
                break;
            }
            rc = rsql_pgcdc_value(&rel->cols[m->col[i]], d, s->types[i], batch->arena, &vals[i],
                                  &e);
        }
        if (rc == RSQL_ERR_NOMEM) {
            batch->n--;
            return rsql_error_nomem(err);
        }
        if (rc != RSQL_OK) {
            rsql_error_set(&bad, RSQL_ERR_DECODE, RSQL_NOPOS, "table %s.%s: %s", t->schema,
                           t->name, e.msg);
        }
    }
    if (bad.code != RSQL_OK) {
        rsql_error_t *be = rsql_arena_alloc(batch->arena, sizeof *be);
        if (!be) {
            batch->n--;
            return rsql_error_nomem(err);
        }
        *be = bad;
        rec->error = be;
        rec->raw = (const uint8_t *)ident;
        rec->raw_len = strlen(ident);
    } else {
        rec->row = vals;
    }
    s->txn_last = batch->n - 1;
    s->txn_rows++;
    return RSQL_OK;
}

/* An Insert, Update or Delete: its rows, by changelog-mode. */
static rsql_err_t on_change(rsql_source_t *s, rsql_batch_t *batch,
                            const rsql_pgoutput_event_t *ev, rsql_error_t *err)
{
    rsql_pgcdc_map_t *m = map_of(s, ev->rel->oid);
    if (!m || s->skip_txn) {
        return RSQL_OK;
    }
    rsql_err_t rc = RSQL_OK;
    for (int r = 0; r < ev->n_rows && rc == RSQL_OK; r++) {
        int kind = ev->rows[r].kind;
        if (kind == RSQL_ROW_UPDATE_BEFORE && s->conf.changelog == RSQL_PGCDC_UPSERT) {
            /* upsert: no -U; an update that moved the key deletes the old key */
            if (ev->n_rows < 2 || !rsql_pgcdc_key_changed(m, ev->rel, &ev->rows[0], &ev->rows[1])) {
                continue;
            }
            kind = RSQL_ROW_DELETE;
        }
        rc = rsql_pgcdc__add_row(s, batch, m, ev->rel, &ev->rows[r], kind, err);
        if (rc == RSQL_OK && s->conf.txn_atomic) {
            batch->recs[batch->n - 1].flags |= RSQL_REC_IN_TXN; /* until its commit */
        }
    }
    return rc;
}

/*
** truncate.mode 'apply': the TRUNCATE of table t as a row-less record of kind RSQL_ROW_CLEAR
** (the sink deletes every row of its table), positioned as a row of the transaction.
*/
static rsql_err_t add_clear(rsql_source_t *s, rsql_batch_t *batch, const rsql_pgcdc_table_t *t,
                            rsql_error_t *err)
{
    rsql_record_t *rec = add_record(s, batch, s->last_end);
    char lsn[RSQL_LSN_TEXT_MAX];
    rsql_pgoutput_lsn_format(s->txn_commit, lsn);
    size_t n = strlen(s->conf.slot) + strlen(t->schema) + strlen(t->name) + 80;
    char *ident = rec ? rsql_arena_alloc(batch->arena, n) : NULL;
    if (!ident) {
        if (rec) {
            batch->n--;
        }
        return rsql_error_nomem(err);
    }
    snprintf(ident, n, "postgres-cdc:%s@%s#%d %s.%s TRUNCATE", s->conf.slot, lsn, s->txn_rows,
             t->schema, t->name);
    rec->ident = ident;
    rec->kind = RSQL_ROW_CLEAR;
    rec->n_rows = 0;
    s->txn_last = batch->n - 1;
    s->txn_rows++;
    return RSQL_OK;
}

/*
** A Truncate of one of our tables: stops the job (truncate.mode 'fail'), is skipped, or
** empties the sink's table ('apply', one table only: checked at the start).
*/
static rsql_err_t on_truncate(rsql_source_t *s, rsql_batch_t *batch,
                              const rsql_pgoutput_event_t *ev, rsql_error_t *err)
{
    if (s->skip_txn || s->conf.truncate_mode == RSQL_PGCDC_TRUNC_SKIP) {
        return RSQL_OK;
    }
    for (uint32_t i = 0; i < ev->n_relids; i++) {
        const rsql_pgcdc_table_t *t = rsql_pgcdc_tables_get(&s->tables, ev->relids[i]);
        if (t && s->conf.truncate_mode == RSQL_PGCDC_TRUNC_APPLY) {
            return add_clear(s, batch, t, err);
        }
        if (t) {
            return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                                  "%s: table %s.%s was truncated (transaction %u): the sink "
                                  "still has its rows; empty it yourself and start the job "
                                  "again past this point, or set truncate.mode 'skip' or 'apply'",
                                  s->what, t->schema, t->name, s->txn_xid);
        }
    }
    return RSQL_OK;
}

/* One pgoutput message. */
rsql_err_t rsql_pgcdc__on_message(rsql_source_t *s, rsql_batch_t *batch, const uint8_t *msg,
                                  size_t len, rsql_error_t *err)
{
    rsql_pgoutput_event_t ev;
    rsql_err_t rc = rsql_pgoutput_decode(s->dec, msg, len, &ev, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    switch (ev.type) {
    case 'B':
        s->in_txn = true;
        s->txn_commit = ev.final_lsn;
        s->txn_xid = ev.xid;
        s->txn_time_us = ev.time_us;
        s->txn_rows = 0;
        s->txn_last = -1;
        /* committed before the stored position: delivered by an earlier run */
        s->skip_txn = s->has_resume && ev.final_lsn < s->resume;
        return RSQL_OK;
    case 'C':
        s->in_txn = false;
        s->last_activity_ms = rsql_now_ms();
        if (s->skip_txn) {
            return RSQL_OK;
        }
        if (ev.end_lsn > s->last_end) {
            s->last_end = ev.end_lsn;
        }
        if (s->txn_last >= 0 && s->txn_last < batch->n) {
            batch->recs[s->txn_last].offset = (int64_t)s->last_end;
            batch->recs[s->txn_last].flags &= (uint8_t)~RSQL_REC_IN_TXN; /* it ends it */
            return RSQL_OK;
        }
        return rsql_pgcdc__add_marker(s, batch, s->last_end, err);
    case 'R': return on_relation(s, &ev, err);
    case 'I':
    case 'U':
    case 'D': return on_change(s, batch, &ev, err);
    case 'T': return on_truncate(s, batch, &ev, err);
    default: return RSQL_OK; /* Origin, Type, Message */
    }
}

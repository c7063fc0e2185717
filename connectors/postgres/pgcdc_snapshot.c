/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgcdc_snapshot: the postgres-cdc source's snapshot reader (pgcdc_snapshot.h): the rows of
 * its tables in one REPEATABLE READ snapshot, chunk by chunk in primary key order, each
 * chunk starting after the last key read (keyset pagination; no OFFSET, no cursor, so a
 * chunk costs what its rows cost and a new snapshot can start after any key).
 */
#include "config.h"
#include "connectors/postgres/pgcdc_snapshot.h"
#include "connectors/postgres/pg_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The stream's session settings (docs/CDC.md): a value's text is the walsender's. */
#define SNAP_SETTINGS                                                                        \
    "SET datestyle = 'ISO'; SET timezone = 'UTC'; SET intervalstyle = 'postgres'; "         \
    "SET extra_float_digits = 3; SET client_encoding = 'UTF8'; "                            \
    "SET client_min_messages = warning"
#define SNAP_BEGIN "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY"

/* PostgreSQL's type OIDs of the integer keys. */
#define OID_INT8 20
#define OID_INT2 21
#define OID_INT4 23

typedef struct snap_table {
    rsql_pgoutput_rel_t rel; /* owns nspname, relname, the columns' names */
    int n_key;
    char **key_names;
    Oid *key_oids;
    char *sql_first; /* the first chunk's query, and the one after a key */
    char *sql_after;
    char **last_key; /* n_key texts: the last key given, NULL before the first */
    bool done;       /* read to its end (its end given), or done before a resume */
} snap_table_t;

struct rsql_pgcdc_snap {
    PGconn *conn;
    int64_t fetch;
    snap_table_t *tables;
    int n_tables, cap;
    int cur;        /* the table being read */
    PGresult *res;  /* its chunk at hand */
    int next_row;   /* the next row of res to give */
    bool last;      /* res is the table's last chunk (fewer rows than fetch) */
    bool in_txn;    /* the snapshot's transaction is open */
    rsql_pgoutput_datum_t *datums;
    const char **keyp;
    int datums_cap, keyp_cap;
};

/* ---- SQL */

/* ", " between the quoted names of n columns. */
static void put_names(rsql_buf_t *b, int n, const char *const *names)
{
    for (int i = 0; i < n; i++) {
        if (i) {
            rsql_buf_puts(b, ", ");
        }
        rsql_buf_quote_ident(b, names[i]);
    }
}

/* See pgcdc_snapshot.h. */
void rsql_pgcdc_snap_sql(rsql_buf_t *b, const char *schema, const char *table, int n_cols,
                         const char *const *cols, int n_key, const char *const *key, bool after,
                         int64_t limit)
{
    rsql_buf_puts(b, "SELECT ");
    put_names(b, n_cols, cols);
    rsql_buf_puts(b, ", ");
    put_names(b, n_key, key);
    rsql_buf_puts(b, " FROM ");
    rsql_buf_quote_ident(b, schema);
    rsql_buf_putc(b, '.');
    rsql_buf_quote_ident(b, table);
    if (after) {
        rsql_buf_puts(b, n_key > 1 ? " WHERE (" : " WHERE ");
        put_names(b, n_key, key);
        rsql_buf_puts(b, n_key > 1 ? ") > (" : " > ");
        for (int i = 0; i < n_key; i++) {
            rsql_buf_printf(b, "%s$%d", i ? ", " : "", i + 1);
        }
        rsql_buf_puts(b, n_key > 1 ? ")" : "");
    }
    rsql_buf_puts(b, " ORDER BY ");
    put_names(b, n_key, key);
    rsql_buf_printf(b, " LIMIT %lld", (long long)limit);
}

/* ---- errors */

/* err from a failed result r of statement sql on table t (NULL: the snapshot itself). */
static rsql_err_t snap_error(rsql_pgcdc_snap_t *s, const snap_table_t *t, PGresult *r,
                             const char *what, const char *sql, rsql_error_t *err)
{
    rsql_err_t rc;
    if (t) {
        rc = rsql_pg__error(s->conn, r, err, "postgres-cdc snapshot of %s.%s: %s (%.120s%s)",
                            t->rel.nspname, t->rel.relname, what, sql,
                            strlen(sql) > 120 ? "..." : "");
    } else {
        rc = rsql_pg__error(s->conn, r, err, "postgres-cdc snapshot: %s (%.120s)", what, sql);
    }
    PQclear(r);
    return rc;
}

/* Run sql (no rows expected). */
static rsql_err_t snap_exec(rsql_pgcdc_snap_t *s, const char *sql, const char *what,
                            rsql_error_t *err)
{
    PGresult *r = PQexec(s->conn, sql);
    if (!r || PQresultStatus(r) != PGRES_COMMAND_OK) {
        return snap_error(s, NULL, r, what, sql, err);
    }
    PQclear(r);
    return RSQL_OK;
}

/* ---- open */

/* Settings, then the snapshot's transaction: name's exported snapshot, or a fresh one. */
static rsql_err_t snap_begin(rsql_pgcdc_snap_t *s, const char *name, rsql_error_t *err)
{
    if (PQstatus(s->conn) != CONNECTION_OK) {
        return rsql_pg__error(s->conn, NULL, err, "postgres-cdc snapshot: not connected");
    }
    rsql_err_t rc = snap_exec(s, SNAP_SETTINGS, "cannot set the session", err);
    if (rc != RSQL_OK) {
        return rc;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, SNAP_BEGIN);
    if (name) {
        char *lit = PQescapeLiteral(s->conn, name, strlen(name));
        if (!lit) {
            rsql_buf_deinit(&b);
            return rsql_pg__error(s->conn, NULL, err,
                                  "postgres-cdc snapshot: cannot quote the snapshot name");
        }
        rsql_buf_printf(&b, "; SET TRANSACTION SNAPSHOT %s", lit);
        PQfreemem(lit);
    }
    if (b.oom) {
        rsql_buf_deinit(&b);
        return rsql_error_nomem(err);
    }
    rc = snap_exec(s, rsql_buf_str(&b),
                   name ? "cannot import the exported snapshot" : "cannot begin the snapshot",
                   err);
    rsql_buf_deinit(&b);
    if (rc != RSQL_OK) {
        PQclear(PQexec(s->conn, "ROLLBACK"));
        return rc;
    }
    s->in_txn = true;
    return RSQL_OK;
}

/* See pgcdc_snapshot.h. */
rsql_pgcdc_snap_t *rsql_pgcdc_snap_open(PGconn *conn, const char *snapshot_name,
                                        int64_t fetch_size, rsql_error_t *err)
{
    rsql_pgcdc_snap_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        PQfinish(conn);
        rsql_error_nomem(err);
        return NULL;
    }
    s->conn = conn;
    s->fetch = fetch_size >= 1 ? fetch_size : RSQL_PGCDC_SNAP_FETCH_DEFAULT;
    if (!conn) {
        rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                       "postgres-cdc snapshot: no connection");
        rsql_pgcdc_snap_close(s);
        return NULL;
    }
    if (snap_begin(s, snapshot_name, err) != RSQL_OK) {
        rsql_pgcdc_snap_close(s);
        return NULL;
    }
    return s;
}

/* ---- tables */

static void free_strs(char **v, int n)
{
    for (int i = 0; v && i < n; i++) {
        rsql_free(v[i]);
    }
    rsql_free(v);
}

static void table_free(snap_table_t *t)
{
    rsql_free(t->rel.nspname);
    rsql_free(t->rel.relname);
    for (int i = 0; t->rel.cols && i < t->rel.n_cols; i++) {
        rsql_free(t->rel.cols[i].name);
    }
    rsql_free(t->rel.cols);
    free_strs(t->key_names, t->n_key);
    rsql_free(t->key_oids);
    rsql_free(t->sql_first);
    rsql_free(t->sql_after);
    free_strs(t->last_key, t->n_key);
}

/* A query with params (text) of the catalog, in the snapshot. NULL with err set. */
static PGresult *catalog(rsql_pgcdc_snap_t *s, snap_table_t *t, const char *sql, int n,
                         const char *const *params, const char *what, rsql_error_t *err)
{
    PGresult *r = PQexecParams(s->conn, sql, n, NULL, params, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        snap_error(s, t, r, what, sql, err);
        return NULL;
    }
    return r;
}

static const char SQL_REL[] = "SELECT c.oid FROM pg_catalog.pg_class c "
                              "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                              "WHERE n.nspname = $1 AND c.relname = $2 "
                              "AND c.relkind IN ('r', 'p')";
static const char SQL_COLS[] = "SELECT attname, atttypid, atttypmod FROM pg_catalog.pg_attribute "
                               "WHERE attrelid = $1::oid AND attnum > 0 AND NOT attisdropped "
                               "ORDER BY attnum";
static const char SQL_KEY[] = "SELECT a.attname, a.atttypid FROM pg_catalog.pg_index i, "
                              "unnest(i.indkey) WITH ORDINALITY k(attnum, ord), "
                              "pg_catalog.pg_attribute a WHERE i.indrelid = $1::oid "
                              "AND i.indisprimary AND a.attrelid = i.indrelid "
                              "AND a.attnum = k.attnum ORDER BY k.ord";

/* Row j of SQL_COLS into column c; KEY flag when t's key has it. false: out of memory. */
static bool fill_col(snap_table_t *t, PGresult *r, int j, rsql_pgoutput_col_t *c)
{
    c->name = rsql_strdup(PQgetvalue(r, j, 0));
    c->type_oid = (uint32_t)strtoul(PQgetvalue(r, j, 1), NULL, 10);
    c->typmod = (int32_t)strtol(PQgetvalue(r, j, 2), NULL, 10);
    c->flags = 0;
    for (int k = 0; c->name && k < t->n_key; k++) {
        if (strcmp(t->key_names[k], c->name) == 0) {
            c->flags = RSQL_PGOUTPUT_COL_KEY;
        }
    }
    return c->name != NULL;
}

/* t's relation (oid, columns asked for) and primary key from the catalog, in the snapshot. */
static rsql_err_t look_up(rsql_pgcdc_snap_t *s, snap_table_t *t, int n_cols,
                          const char *const *cols, rsql_error_t *err)
{
    const char *p[2] = {t->rel.nspname, t->rel.relname};
    PGresult *r = catalog(s, t, SQL_REL, 2, p, "cannot look up the table", err);
    if (!r) {
        return err && err->code ? err->code : RSQL_ERR_REMOTE;
    }
    if (PQntuples(r) != 1) {
        PQclear(r);
        return rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                              "postgres-cdc snapshot: no table %s.%s", t->rel.nspname,
                              t->rel.relname);
    }
    char oid[16];
    snprintf(oid, sizeof oid, "%s", PQgetvalue(r, 0, 0));
    t->rel.oid = (uint32_t)strtoul(oid, NULL, 10);
    PQclear(r);
    const char *po[1] = {oid};
    r = catalog(s, t, SQL_KEY, 1, po, "cannot read the primary key", err);
    if (!r) {
        return err && err->code ? err->code : RSQL_ERR_REMOTE;
    }
    t->n_key = PQntuples(r);
    if (t->n_key == 0) {
        PQclear(r);
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "postgres-cdc snapshot: table %s.%s has no primary key: the "
                              "snapshot reads and resumes by key (add one, or use "
                              "scan.startup.mode 'latest-offset')",
                              t->rel.nspname, t->rel.relname);
    }
    t->key_names = rsql_calloc((size_t)t->n_key, sizeof *t->key_names);
    t->key_oids = rsql_calloc((size_t)t->n_key, sizeof *t->key_oids);
    for (int k = 0; t->key_names && t->key_oids && k < t->n_key; k++) {
        t->key_names[k] = rsql_strdup(PQgetvalue(r, k, 0));
        t->key_oids[k] = (Oid)strtoul(PQgetvalue(r, k, 1), NULL, 10);
        if (!t->key_names[k]) {
            break;
        }
    }
    bool ok = t->key_names && t->key_oids && t->key_names[t->n_key - 1];
    PQclear(r);
    if (!ok) {
        return rsql_error_nomem(err);
    }
    r = catalog(s, t, SQL_COLS, 1, po, "cannot read the columns", err);
    if (!r) {
        return err && err->code ? err->code : RSQL_ERR_REMOTE;
    }
    int n = n_cols > 0 ? n_cols : PQntuples(r);
    t->rel.cols = rsql_calloc((size_t)n + 1, sizeof *t->rel.cols);
    rsql_err_t rc = t->rel.cols ? RSQL_OK : rsql_error_nomem(err);
    for (int i = 0; rc == RSQL_OK && i < n; i++) {
        int row = n_cols > 0 ? -1 : i;
        for (int j = 0; row < 0 && j < PQntuples(r); j++) {
            row = strcmp(PQgetvalue(r, j, 0), cols[i]) == 0 ? j : -1;
        }
        if (row < 0) {
            rc = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                                "postgres-cdc snapshot: table %s.%s has no column '%s'",
                                t->rel.nspname, t->rel.relname, cols[i]);
        } else if (!fill_col(t, r, row, &t->rel.cols[i])) {
            rc = rsql_error_nomem(err);
        } else {
            t->rel.n_cols = (uint16_t)(i + 1);
        }
    }
    PQclear(r);
    return rc;
}

/* t's two chunk queries. */
static rsql_err_t make_sql(rsql_pgcdc_snap_t *s, snap_table_t *t, rsql_error_t *err)
{
    const char **names = rsql_calloc((size_t)t->rel.n_cols + 1, sizeof *names);
    if (!names) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < t->rel.n_cols; i++) {
        names[i] = t->rel.cols[i].name;
    }
    for (int after = 0; after < 2; after++) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_pgcdc_snap_sql(&b, t->rel.nspname, t->rel.relname, t->rel.n_cols, names, t->n_key,
                            (const char *const *)t->key_names, after, s->fetch);
        char *sql = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
        rsql_buf_deinit(&b);
        *(after ? &t->sql_after : &t->sql_first) = sql;
    }
    rsql_free(names);
    return t->sql_first && t->sql_after ? RSQL_OK : rsql_error_nomem(err);
}

/* Room for n datums and k key pointers. */
static bool room(rsql_pgcdc_snap_t *s, int n, int k)
{
    if (n > s->datums_cap) {
        void *p = rsql_realloc(s->datums, (size_t)n * sizeof *s->datums);
        if (!p) {
            return false;
        }
        s->datums = p;
        s->datums_cap = n;
    }
    if (k > s->keyp_cap) {
        void *p = rsql_realloc(s->keyp, (size_t)k * sizeof *s->keyp);
        if (!p) {
            return false;
        }
        s->keyp = p;
        s->keyp_cap = k;
    }
    return true;
}

/* t's last key (the read goes on after it): the n_key texts of key. */
static rsql_err_t set_key(snap_table_t *t, int n_key, const char *const *key, rsql_error_t *err)
{
    if (n_key != t->n_key) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "postgres-cdc snapshot of %s.%s: a resume key of %d values, "
                              "the primary key has %d columns",
                              t->rel.nspname, t->rel.relname, n_key, t->n_key);
    }
    char **v = rsql_calloc((size_t)t->n_key, sizeof *v);
    for (int k = 0; v && k < t->n_key; k++) {
        v[k] = rsql_strdup(key[k] ? key[k] : "");
        if (!v[k]) {
            free_strs(v, k);
            v = NULL;
        }
    }
    if (!v) {
        return rsql_error_nomem(err);
    }
    free_strs(t->last_key, t->n_key);
    t->last_key = v;
    return RSQL_OK;
}

/* See pgcdc_snapshot.h. */
rsql_err_t rsql_pgcdc_snap_resume_after(rsql_pgcdc_snap_t *s, int table, int n_key,
                                        const char *const *key, rsql_error_t *err)
{
    if (table < 0 || table >= s->n_tables || (s->cur == table && s->res)) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "postgres-cdc snapshot: no table %d to resume", table);
    }
    return set_key(&s->tables[table], n_key, key, err);
}

/* See pgcdc_snapshot.h. */
const rsql_pgoutput_rel_t *rsql_pgcdc_snap_rel(const rsql_pgcdc_snap_t *s, int table)
{
    return table >= 0 && table < s->n_tables ? &s->tables[table].rel : NULL;
}

/* See pgcdc_snapshot.h. */
int rsql_pgcdc_snap_add_table(rsql_pgcdc_snap_t *s, const char *schema, const char *name,
                              int n_cols, const char *const *cols, int n_key,
                              const char *const *resume_key, bool resume_done,
                              rsql_error_t *err)
{
    if (!s->in_txn) {
        rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                       "postgres-cdc snapshot: a table added outside the snapshot");
        return -1;
    }
    if (s->n_tables == s->cap) {
        int cap = s->cap ? s->cap * 2 : 4;
        void *p = rsql_realloc(s->tables, (size_t)cap * sizeof *s->tables);
        if (!p) {
            rsql_error_nomem(err);
            return -1;
        }
        s->tables = p;
        s->cap = cap;
    }
    snap_table_t *t = &s->tables[s->n_tables];
    memset(t, 0, sizeof *t);
    t->rel.nspname = rsql_strdup(schema);
    t->rel.relname = rsql_strdup(name);
    t->rel.replident = 'd';
    t->done = resume_done;
    rsql_err_t rc = t->rel.nspname && t->rel.relname ? RSQL_OK : rsql_error_nomem(err);
    if (rc == RSQL_OK) {
        rc = look_up(s, t, n_cols, cols, err);
    }
    if (rc == RSQL_OK && resume_key && !resume_done) {
        rc = set_key(t, n_key, resume_key, err);
    }
    if (rc == RSQL_OK) {
        rc = make_sql(s, t, err);
    }
    if (rc == RSQL_OK && !room(s, t->rel.n_cols, t->n_key)) {
        rc = rsql_error_nomem(err);
    }
    if (rc != RSQL_OK) {
        table_free(t);
        return -1;
    }
    return s->n_tables++;
}

/* See pgcdc_snapshot.h. */
const char *const *rsql_pgcdc_snap_key_names(const rsql_pgcdc_snap_t *s, int table, int *n_key)
{
    if (table < 0 || table >= s->n_tables) {
        *n_key = 0;
        return NULL;
    }
    *n_key = s->tables[table].n_key;
    return (const char *const *)s->tables[table].key_names;
}

/* See pgcdc_snapshot.h. */
bool rsql_pgcdc_snap_int_key(const rsql_pgcdc_snap_t *s, int table)
{
    if (table < 0 || table >= s->n_tables || s->tables[table].n_key != 1) {
        return false;
    }
    Oid o = s->tables[table].key_oids[0];
    return o == OID_INT2 || o == OID_INT4 || o == OID_INT8;
}

/* See pgcdc_snapshot.h. */
bool rsql_pgcdc_snap_key_int(const char *txt, int64_t *out)
{
    if (!txt || !*txt || (*txt != '-' && (*txt < '0' || *txt > '9'))) {
        return false;
    }
    char *end;
    errno = 0;
    long long v = strtoll(txt, &end, 10);
    if (errno != 0 || *end != '\0') {
        return false;
    }
    *out = (int64_t)v;
    return true;
}

/* ---- reading */

/* Keep the key of the last row given from the chunk at hand, then drop the chunk. */
static rsql_err_t drop_chunk(rsql_pgcdc_snap_t *s, rsql_error_t *err)
{
    rsql_err_t rc = RSQL_OK;
    if (s->res && s->next_row > 0 && s->cur < s->n_tables) {
        snap_table_t *t = &s->tables[s->cur];
        int row = s->next_row - 1, base = t->rel.n_cols;
        if (!t->last_key) {
            t->last_key = rsql_calloc((size_t)t->n_key, sizeof *t->last_key);
        }
        for (int k = 0; t->last_key && k < t->n_key; k++) {
            rsql_free(t->last_key[k]);
            t->last_key[k] = rsql_strdup(PQgetvalue(s->res, row, base + k));
            if (!t->last_key[k]) {
                rc = rsql_error_nomem(err);
            }
        }
        if (!t->last_key) {
            rc = rsql_error_nomem(err);
        }
    }
    PQclear(s->res);
    s->res = NULL;
    s->next_row = 0;
    s->last = false;
    return rc;
}

/* The next chunk of the table at hand into s->res. */
static rsql_err_t fetch_chunk(rsql_pgcdc_snap_t *s, rsql_error_t *err)
{
    snap_table_t *t = &s->tables[s->cur];
    const char *sql = t->last_key ? t->sql_after : t->sql_first;
    PGresult *r = PQexecParams(s->conn, sql, t->last_key ? t->n_key : 0,
                               t->last_key ? t->key_oids : NULL,
                               (const char *const *)t->last_key, NULL, NULL, 0);
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        return snap_error(s, t, r, "cannot read a chunk", sql, err);
    }
    if (PQnfields(r) != t->rel.n_cols + t->n_key) {
        PQclear(r);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "postgres-cdc snapshot of %s.%s: a chunk of %d columns",
                              t->rel.nspname, t->rel.relname, PQnfields(r));
    }
    s->res = r;
    s->next_row = 0;
    s->last = PQntuples(r) < s->fetch;
    return RSQL_OK;
}

/* See pgcdc_snapshot.h. */
rsql_err_t rsql_pgcdc_snap_next(rsql_pgcdc_snap_t *s, rsql_pgcdc_snap_row_t *out, bool *done,
                                rsql_error_t *err)
{
    memset(out, 0, sizeof *out);
    *done = false;
    for (;;) {
        if (s->cur >= s->n_tables) {
            if (s->in_txn) {
                rsql_err_t rc = snap_exec(s, "COMMIT", "cannot end the snapshot", err);
                if (rc != RSQL_OK) {
                    return rc;
                }
                s->in_txn = false;
            }
            *done = true;
            return RSQL_OK;
        }
        if (!s->in_txn) {
            return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                                  "postgres-cdc snapshot: its transaction ended after an "
                                  "error (reopen it)");
        }
        snap_table_t *t = &s->tables[s->cur];
        if (t->done && !s->res) {
            s->cur++;
            continue;
        }
        if (s->res && s->next_row < PQntuples(s->res)) {
            int row = s->next_row++;
            for (int i = 0; i < t->rel.n_cols; i++) {
                bool null = PQgetisnull(s->res, row, i);
                s->datums[i].kind = null ? 'n' : 't';
                s->datums[i].data = null ? NULL : (const uint8_t *)PQgetvalue(s->res, row, i);
                s->datums[i].len = null ? 0 : (uint32_t)PQgetlength(s->res, row, i);
            }
            for (int k = 0; k < t->n_key; k++) {
                s->keyp[k] = PQgetvalue(s->res, row, t->rel.n_cols + k);
            }
            out->table = s->cur;
            out->rel = &t->rel;
            out->row.kind = RSQL_ROW_INSERT;
            out->row.cols = s->datums;
            out->n_key = t->n_key;
            out->key = s->keyp;
            return RSQL_OK;
        }
        if (s->res && !s->last) {
            rsql_err_t rc = drop_chunk(s, err);
            if (rc == RSQL_OK) {
                rc = fetch_chunk(s, err);
            }
            if (rc != RSQL_OK) {
                return rc;
            }
            continue;
        }
        if (!s->res) {
            rsql_err_t rc = fetch_chunk(s, err);
            if (rc != RSQL_OK) {
                return rc;
            }
            if (!s->last) {
                continue;
            }
            if (PQntuples(s->res) > 0) {
                continue;
            }
        }
        /* the last chunk is given: the table's end */
        rsql_err_t rc = drop_chunk(s, err);
        if (rc != RSQL_OK) {
            return rc;
        }
        t->done = true;
        out->table = s->cur++;
        out->rel = &t->rel;
        out->table_end = true;
        out->n_key = t->last_key ? t->n_key : 0;
        out->key = (const char *const *)t->last_key;
        return RSQL_OK;
    }
}

/* See pgcdc_snapshot.h. */
rsql_err_t rsql_pgcdc_snap_reopen(rsql_pgcdc_snap_t *s, PGconn *conn, rsql_error_t *err)
{
    rsql_err_t rc = drop_chunk(s, err);
    if (s->conn) {
        PQfinish(s->conn);
    }
    s->conn = conn;
    s->in_txn = false;
    if (rc != RSQL_OK) {
        return rc;
    }
    if (!conn) {
        return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                              "postgres-cdc snapshot: no connection");
    }
    return snap_begin(s, NULL, err);
}

/* See pgcdc_snapshot.h. */
void rsql_pgcdc_snap_close(rsql_pgcdc_snap_t *s)
{
    if (!s) {
        return;
    }
    PQclear(s->res);
    if (s->conn) {
        PQfinish(s->conn);
    }
    for (int i = 0; i < s->n_tables; i++) {
        table_free(&s->tables[i]);
    }
    rsql_free(s->tables);
    rsql_free(s->datums);
    rsql_free(s->keyp);
    rsql_free(s);
}

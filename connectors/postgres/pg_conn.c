/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_conn: what the postgres connector's source and sink share: connecting with the
 * table's options (pg_int.h) and PostgreSQL's errors as rsql errors. The SQLSTATE says what
 * happened, so the one retriable predicate (rsql_error_retriable) decides from the code: a
 * lost connection, a serialization failure or a lock wait that timed out is retried, a
 * constraint violation is not. The message is always PostgreSQL's own, with its SQLSTATE.
 *
 * And the sink's connection (pg_sink_int.h), which writing (pg_copy.c) and the exactly-once
 * record (pg_applied.c) open again after a failure: connecting, creating what the sink
 * writes to, the writer lock, and running a statement on it. Nothing here calls back into
 * the sink's other files.
 */
#include "config.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/postgres/pg_sink_int.h"
#include "base/rsql_opts.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* See pg_int.h. */
rsql_err_t rsql_pg__code(const char *st, bool conn_bad)
{
    if (!st || strlen(st) != 5) {
        return conn_bad ? RSQL_ERR_UNAVAILABLE : RSQL_ERR_REMOTE;
    }
    /* a serialization failure, a deadlock, a lock_timeout (its holder may yet end), a
       statement cancelled (statement_timeout: the table may answer faster next time) */
    if (strcmp(st, "40001") == 0 || strcmp(st, "40P01") == 0 || strcmp(st, "55P03") == 0 ||
        strcmp(st, "57014") == 0) {
        return RSQL_ERR_BUSY;
    }
    if (strcmp(st, "53100") == 0) {
        return RSQL_ERR_NO_SPACE;
    }
    if (strcmp(st, "42501") == 0 || strncmp(st, "28", 2) == 0) {
        return RSQL_ERR_PERMISSION;
    }
    if (strcmp(st, "42P01") == 0 || strcmp(st, "42703") == 0) {
        return RSQL_ERR_NOT_FOUND;
    }
    if (strcmp(st, "57P01") == 0 || strcmp(st, "57P02") == 0 || strcmp(st, "57P03") == 0 ||
        strncmp(st, "08", 2) == 0) {
        return RSQL_ERR_UNAVAILABLE;
    }
    if (strncmp(st, "23", 2) == 0) {
        return RSQL_ERR_CONSTRAINT;
    }
    if (strncmp(st, "22", 2) == 0) {
        return RSQL_ERR_TYPE;
    }
    if (strncmp(st, "53", 2) == 0) {
        return RSQL_ERR_BUSY;
    }
    return conn_bad ? RSQL_ERR_UNAVAILABLE : RSQL_ERR_REMOTE;
}

/* PostgreSQL's primary message without its trailing newline, at most size-1 bytes. */
static void clean_msg(const char *m, char *out, size_t size)
{
    size_t n = m ? strlen(m) : 0;
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) {
        n--;
    }
    if (n >= size) {
        n = size - 1;
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = m[i] == '\n' ? ' ' : m[i];
    }
    out[n] = '\0';
}

/* See pg_int.h. */
rsql_err_t rsql_pg__error(PGconn *conn, const PGresult *res, rsql_error_t *err, const char *fmt,
                          ...)
{
    const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *m = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *detail = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL) : NULL;
    bool bad = !conn || PQstatus(conn) == CONNECTION_BAD;
    char msg[200], det[120], prefix[256];
    if (!m || !*m) {
        m = conn ? PQerrorMessage(conn) : "no connection";
    }
    clean_msg(m, msg, sizeof msg);
    clean_msg(detail, det, sizeof det);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    rsql_err_t code = rsql_pg__code(st, bad);
    if (st && *st) {
        return rsql_error_set(err, code, RSQL_NOPOS, "%s: %s%s%s (SQLSTATE %s)", prefix, msg,
                              *det ? ": " : "", det, st);
    }
    return rsql_error_set(err, code, RSQL_NOPOS, "%s: %s", prefix, *msg ? msg : "failed");
}

/* libpq's message in msg (one line), with the passwords of conf masked. */
static void conn_msg(const rsql_pg_conf_t *conf, const char *m, char *msg, size_t size)
{
    clean_msg(m, msg, size);
    /* libpq may echo a part of the url it cannot parse, the password included */
    rsql_opt_mask_url_secrets(msg, size, conf->url);
    if (conf->password) {
        rsql_opt_mask_secret(msg, size, conf->password, strlen(conf->password));
    }
}

/*
** A url that libpq cannot parse is a permanent error (BAD_OPTION), found before connecting.
** libpq takes a url as a connection string when it starts with postgresql:// or
** postgres://, or holds '='; else it is a database name.
*/
static rsql_err_t check_url(const rsql_pg_conf_t *conf, const char *what, rsql_error_t *err)
{
    const char *u = conf->url;
    if (strncmp(u, "postgresql://", 13) != 0 && strncmp(u, "postgres://", 11) != 0 &&
        !strchr(u, '=')) {
        return RSQL_OK;
    }
    char *why = NULL;
    PQconninfoOption *opts = PQconninfoParse(u, &why);
    if (opts) {
        PQconninfoFree(opts);
        return RSQL_OK;
    }
    char msg[256];
    conn_msg(conf, why ? why : "out of memory", msg, sizeof msg);
    PQfreemem(why);
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS, "%s: invalid url: %s", what, msg);
}

/* See pg_int.h. */
PGconn *rsql_pg__connect(const rsql_pg_conf_t *conf, const char *what, rsql_error_t *err)
{
    return rsql_pg__connect_ex(conf, what, NULL, NULL, err);
}

/* See pg_int.h. */
PGconn *rsql_pg__connect_ex(const rsql_pg_conf_t *conf, const char *what,
                            const char *const *xkeys, const char *const *xvals,
                            rsql_error_t *err)
{
    if (check_url(conf, what, err) != RSQL_OK) {
        return NULL;
    }
    /* libpq keeps the last value of a key, and the url (expanded in place of dbname) sets
       what it holds: our defaults go before it, the options the user set after it, and the
       caller's extra keys last (they are the connection's kind, not the user's choice) */
    const char *keys[16], *vals[16];
    int n = 0;
    keys[n] = "application_name";
    vals[n++] = "rocketsql";
    keys[n] = "connect_timeout";
    vals[n++] = "10";
    keys[n] = "dbname";
    vals[n++] = conf->url;
    if (conf->username) {
        keys[n] = "user";
        vals[n++] = conf->username;
    }
    if (conf->password) {
        keys[n] = "password";
        vals[n++] = conf->password;
    }
    if (conf->sslmode_set) {
        keys[n] = "sslmode";
        vals[n++] = rsql_pg_sslmodes[conf->sslmode];
    }
    for (int i = 0; xkeys && xkeys[i] && n < 15; i++) {
        keys[n] = xkeys[i];
        vals[n++] = xvals[i];
    }
    keys[n] = NULL;
    vals[n] = NULL;
    PGconn *c = PQconnectdbParams(keys, vals, 1);
    if (!c) {
        rsql_error_nomem(err);
        return NULL;
    }
    if (PQstatus(c) != CONNECTION_OK) {
        char msg[256];
        conn_msg(conf, PQerrorMessage(c), msg, sizeof msg);
        /* refused credentials, a server certificate that does not verify (wrong CA or
           name) and a server that takes no connection of this kind (pg_hba.conf: without
           TLS, say) are permanent: retrying cannot fix them */
        rsql_err_t code = strstr(msg, "authentication failed") || strstr(msg, "password") ||
                                  strstr(msg, "certificate") ||
                                  strstr(msg, "no pg_hba.conf entry")
                              ? RSQL_ERR_PERMISSION
                              : RSQL_ERR_UNAVAILABLE;
        if (strstr(msg, "does not exist")) {
            code = RSQL_ERR_NOT_FOUND;
        }
        rsql_error_set(err, code, RSQL_NOPOS, "%s: cannot connect: %s", what, msg);
        PQfinish(c);
        return NULL;
    }
    if (!xkeys) { /* the extra keys' connections set their sessions in their options */
        PGresult *r = PQexec(c, "SET TIME ZONE 'UTC'; SET client_min_messages = warning");
        PQclear(r);
    }
    return c;
}

/* Does pg (format_type's text) start with one of the names in list, as a whole word? */
static bool type_in(const char *pg, const char *const *list)
{
    for (; *list; list++) {
        size_t n = strlen(*list);
        if (strncmp(pg, *list, n) == 0 && (pg[n] == '\0' || pg[n] == '(')) {
            return true;
        }
    }
    return false;
}

/* See pg_int.h. */
bool rsql_pg__type_fits(rsql_type_t t, const char *pg, bool reading)
{
    static const char *const ints_w[] = {"integer", "bigint", "numeric", "double precision", NULL};
    static const char *const bigs_w[] = {"bigint", "numeric", NULL};
    static const char *const dbls_w[] = {"double precision", "numeric", NULL};
    static const char *const ints_r[] = {"integer", "smallint", NULL};
    static const char *const bigs_r[] = {"bigint", "integer", "smallint", NULL};
    static const char *const dbls_r[] = {"double precision", "real", "integer", "smallint", NULL};
    static const char *const nums[] = {"numeric", NULL};
    static const char *const texts[] = {"text", "character varying", "character", "json",
                                        "jsonb", "name", "uuid", NULL};
    switch (t) {
    case RSQL_TYPE_BOOLEAN: return strcmp(pg, "boolean") == 0;
    case RSQL_TYPE_INT: return type_in(pg, reading ? ints_r : ints_w);
    case RSQL_TYPE_BIGINT: return type_in(pg, reading ? bigs_r : bigs_w);
    case RSQL_TYPE_DOUBLE: return type_in(pg, reading ? dbls_r : dbls_w);
    case RSQL_TYPE_VARCHAR: return reading || type_in(pg, texts); /* any value has a text */
    case RSQL_TYPE_BYTES: return strcmp(pg, "bytea") == 0;
    case RSQL_TYPE_TIMESTAMP: return strncmp(pg, "timestamp", 9) == 0;
    /* DECIMAL: numeric only when written (exact: never a double); integers read exactly */
    case RSQL_TYPE_DECIMAL:
        return type_in(pg, nums) || (reading && type_in(pg, bigs_r));
    case RSQL_TYPE_DATE: return strcmp(pg, "date") == 0;
    /* ROW/ARRAY/MAP: jsonb or json (read through the json format's decoder), and when read
       an ARRAY also from a PostgreSQL array (int[], text[]: to_json makes it a JSON array) */
    case RSQL_TYPE_ARRAY:
        if (reading && strlen(pg) > 2 && strcmp(pg + strlen(pg) - 2, "[]") == 0) {
            return true;
        }
        /* fall through */
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_MAP: return strcmp(pg, "jsonb") == 0 || strcmp(pg, "json") == 0;
    default: return true; /* as text: PostgreSQL's input or output function decides */
    }
}

/* See pg_int.h. */
void rsql_pg__quote_table(rsql_buf_t *b, const char *name)
{
    const char *dot = strchr(name, '.');
    if (dot) {
        rsql_buf_quote_identn(b, name, (size_t)(dot - name));
        rsql_buf_putc(b, '.');
        name = dot + 1;
    }
    rsql_buf_quote_identn(b, name, strlen(name));
}

/* ---- the sink's connection */

/* See pg_sink_int.h. */
rsql_err_t rsql_pg__exec(rsql_sink_t *k, const char *sql, const char *what, rsql_error_t *err)
{
    PGresult *r = PQexec(k->conn, sql);
    ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    rsql_err_t rc = RSQL_OK;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: %s", k->table, what);
    }
    PQclear(r);
    return rc;
}

/*
** rocketsql_positions made before its resume_key column was (a position's text part,
** rsql_record_t.pos_key): the column added. Only when it is missing, so a role that writes
** into a table it does not own needs no more than before.
*/
static rsql_err_t positions_key_column(rsql_sink_t *k, rsql_error_t *err)
{
    const char *params[1] = {k->pos_name};
    PGresult *r = PQexecParams(k->conn, k->pos_has_key, 1, NULL, params, NULL, NULL, 0);
    rsql_err_t rc = RSQL_OK;
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1) {
        rc = rsql_pg__error(k->conn, r, err,
                            "postgres sink %s: cannot look up rocketsql_positions' columns",
                            k->table);
    } else if (strcmp(PQgetvalue(r, 0, 0), "0") == 0) {
        rc = rsql_pg__exec(k, k->pos_add_key, "cannot add resume_key to rocketsql_positions",
                           err);
    }
    PQclear(r);
    return rc;
}

/*
** Create what is missing of what the sink writes to: the table's schema and the table itself
** (with_table), rocketsql_positions and (by_ident) rocketsql_applied. Several processes may
** do so at the same moment (a scale-out start), and PostgreSQL's IF NOT EXISTS does not
** make two concurrent creations of one name safe (the second fails with a unique violation
** on its catalogs), so the statements run in one transaction that first takes the
** database's rocketsql DDL lock (a transaction-level advisory lock): a second process waits
** for the first to commit and then finds everything there. The schema is looked up before
** it is created, so a user without the database's CREATE privilege can write into an
** existing schema. At most 30 s for a lock (lock_timeout: a transient error, retried per
** errors.retry.*). RSQL_OK, or err set and the transaction rolled back.
*/
static rsql_err_t create_missing(rsql_sink_t *k, bool with_table, rsql_error_t *err)
{
    rsql_err_t rc = rsql_pg__exec(k,
                                  "BEGIN; SET LOCAL lock_timeout = '30s'; "
                                  "SELECT pg_advisory_xact_lock(hashtextextended('rocketsql:ddl', "
                                  "0))",
                                  "cannot take the lock for creating tables", err);
    const char *dot = strchr(k->table, '.');
    if (rc == RSQL_OK && with_table && dot) {
        char *schema = rsql_strndup(k->table, (size_t)(dot - k->table));
        rsql_buf_t q = RSQL_BUF_INIT;
        rsql_buf_puts(&q, "CREATE SCHEMA ");
        rsql_buf_quote_identn(&q, k->table, (size_t)(dot - k->table));
        if (!schema || q.oom) {
            rc = rsql_error_nomem(err);
        } else {
            const char *params[1] = {schema};
            PGresult *r = PQexecParams(k->conn, "SELECT 1 FROM pg_namespace WHERE nspname = $1",
                                       1, NULL, params, NULL, NULL, 0);
            if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
                rc = rsql_pg__error(k->conn, r, err, "postgres sink %s: cannot look up schema %s",
                                    k->table, schema);
            } else if (PQntuples(r) == 0) {
                rc = rsql_pg__exec(k, rsql_buf_str(&q), "cannot create the schema", err);
            }
            PQclear(r);
        }
        rsql_free(schema);
        rsql_buf_deinit(&q);
    }
    if (rc == RSQL_OK && with_table) {
        rc = rsql_pg__exec(k, k->table_create, "cannot create the table", err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_pg__exec(k, k->pos_create, "cannot create rocketsql_positions", err);
    }
    if (rc == RSQL_OK) {
        rc = positions_key_column(k, err);
    }
    if (rc == RSQL_OK && k->by_ident) {
        rc = rsql_pg__exec(k, k->app_create, "cannot create rocketsql_applied", err);
    }
    if (rc == RSQL_OK) {
        rc = rsql_pg__exec(k, "COMMIT", "cannot commit the created tables", err);
    }
    if (rc != RSQL_OK) {
        if (k->conn && PQtransactionStatus(k->conn) != PQTRANS_IDLE) {
            PQclear(PQexec(k->conn, "ROLLBACK"));
        }
    }
    return rc;
}

/*
** Fencing, for a sink that stores positions: the connection holds the advisory lock of
** ("rocketsql", the table, the pipeline) for as long as it lives. The server backend of an
** earlier connection of the same pipeline (a process killed with kill -9, a connection that
** broke) may still be running the transaction it was sent, COMMIT included, after its
** client is gone; it holds that lock until it ends, so this connection waits for it and the
** positions read next are final (reading them sooner would write that transaction's rows a
** second time). At most 30 s (lock_timeout): then another writer of the pipeline is alive
** (or a backend the server has not found dead yet): a transient error, retried per
** errors.retry.*; this one never writes beside it.
*/
static rsql_err_t writer_lock(rsql_sink_t *k, rsql_error_t *err)
{
    rsql_buf_t key = RSQL_BUF_INIT;
    rsql_buf_printf(&key, "rocketsql:%s:%s", k->table, k->pipeline);
    if (key.oom) {
        rsql_buf_deinit(&key);
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = rsql_pg__exec(k, "SET lock_timeout = '30s'", "cannot set lock_timeout", err);
    if (rc == RSQL_OK) {
        const char *params[1] = {rsql_buf_str(&key)};
        PGresult *r = PQexecParams(k->conn, "SELECT pg_advisory_lock(hashtextextended($1, 0))",
                                   1, NULL, params, NULL, NULL, 0);
        if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
            rc = rsql_pg__error(k->conn, r, err,
                                "postgres sink %s: cannot take the writer lock of pipeline '%s' "
                                "(is another run of it still writing?)",
                                k->table, k->pipeline);
        }
        PQclear(r);
    }
    if (rc == RSQL_OK) {
        rc = rsql_pg__exec(k, "RESET lock_timeout", "cannot reset lock_timeout", err);
    }
    rsql_buf_deinit(&key);
    return rc;
}

/* See pg_sink_int.h. */
rsql_err_t rsql_pg__sink_connect(rsql_sink_t *k, rsql_error_t *err)
{
    char what[300];
    if (k->conn) {
        PQfinish(k->conn);
        k->conn = NULL;
    }
    snprintf(what, sizeof what, "postgres sink %s", k->table);
    k->staged = false; /* a temporary table lives as long as its connection */
    k->conn = rsql_pg__connect(k->conf, what, err);
    if (!k->conn) {
        return err ? err->code : RSQL_ERR_UNAVAILABLE;
    }
    /* at open (not checked yet) the table too; when connecting again only what the
       exactly-once record needs */
    rsql_err_t rc = create_missing(k, !k->checked, err);
    if (rc == RSQL_OK && !k->by_ident) {
        rc = writer_lock(k, err);
    }
    if (rc != RSQL_OK) {
        /* never written on: without the writer lock (its wait timed out) a write could go
           beside the transaction of the lock's holder; the next attempt connects again */
        PQfinish(k->conn);
        k->conn = NULL;
    }
    return rc;
}

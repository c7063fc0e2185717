/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_conn: what the postgres connector's source and sink share: connecting with the
 * table's options (pg_int.h) and PostgreSQL's errors as rsql errors. The SQLSTATE says what
 * happened, so the one retriable predicate (rsql_error_retriable) decides from the code: a
 * lost connection, a serialization failure or a lock wait that timed out is retried, a
 * constraint violation is not. The message is always PostgreSQL's own, with its SQLSTATE.
 */
#include "config.h"
#include "connectors/postgres/pg_int.h"
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
    /* a serialization failure, a deadlock, a lock_timeout (its holder may yet end) */
    if (strcmp(st, "40001") == 0 || strcmp(st, "40P01") == 0 || strcmp(st, "55P03") == 0) {
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
    if (check_url(conf, what, err) != RSQL_OK) {
        return NULL;
    }
    /* libpq keeps the last value of a key, and the url (expanded in place of dbname) sets
       what it holds: our defaults go before it, the options the user set after it */
    const char *keys[8], *vals[8];
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
    PGresult *r = PQexec(c, "SET TIME ZONE 'UTC'; SET client_min_messages = warning");
    PQclear(r);
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

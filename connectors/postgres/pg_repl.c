/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_repl: the postgres-cdc connector's replication connection (pgcdc_int.h). libpq with
 * replication=database and the session settings the pgoutput decoder reads: the walsender
 * writes values by them (docs/CDC.md). IDENTIFY_SYSTEM, the slot (looked up, created when
 * missing, never dropped), START_REPLICATION, and the CopyBoth stream: PQgetCopyData
 * without blocking and poll(2) on the connection's socket (and the source's wake pipe), never
 * a spin; Standby Status Updates written and flushed.
 *
 * A replication connection takes simple queries only (no parameters): literals are escaped
 * with PQescapeLiteral.
 */
#include "config.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/postgres/pgcdc_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* See pgcdc_int.h. */
rsql_err_t rsql_pg_repl_connect(rsql_pg_repl_t *r, const rsql_pg_conf_t *conf, const char *what,
                                rsql_error_t *err)
{
    static const char *const keys[] = {"replication", "options", NULL};
    static const char *const vals[] = {
        "database",
        "-c datestyle=ISO -c timezone=UTC -c intervalstyle=postgres -c extra_float_digits=3 "
        "-c client_encoding=UTF8 -c client_min_messages=warning",
        NULL};
    rsql_pg_repl_close(r);
    snprintf(r->what, sizeof r->what, "%s", what);
    r->conn = rsql_pg__connect_ex(conf, what, keys, vals, err);
    if (!r->conn) {
        return err && err->code ? err->code : RSQL_ERR_UNAVAILABLE;
    }
    PGresult *res = rsql_pg_repl_query(r, "IDENTIFY_SYSTEM", "IDENTIFY_SYSTEM", err);
    if (!res) {
        rsql_pg_repl_close(r);
        return err->code;
    }
    if (PQntuples(res) != 1 || PQnfields(res) < 4) {
        PQclear(res);
        rsql_pg_repl_close(r);
        return rsql_error_set(err, RSQL_ERR_REMOTE, RSQL_NOPOS,
                              "%s: IDENTIFY_SYSTEM answered %d rows of %d columns", what,
                              PQntuples(res), PQnfields(res));
    }
    snprintf(r->sysid, sizeof r->sysid, "%s", PQgetvalue(res, 0, 0));
    const char *pos = PQgetvalue(res, 0, 2);
    rsql_pgoutput_lsn_parse(pos, strlen(pos), &r->xlogpos);
    snprintf(r->dbname, sizeof r->dbname, "%s", PQgetvalue(res, 0, 3));
    PQclear(res);
    return RSQL_OK;
}

/* See pgcdc_int.h. */
void rsql_pg_repl_close(rsql_pg_repl_t *r)
{
    if (r->conn) {
        PQfinish(r->conn);
    }
    r->conn = NULL;
    r->streaming = false;
}

/* See pgcdc_int.h. */
PGresult *rsql_pg_repl_query(rsql_pg_repl_t *r, const char *sql, const char *doing,
                             rsql_error_t *err)
{
    PGresult *res = PQexec(r->conn, sql);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
        return res;
    }
    rsql_pg__error(r->conn, res, err, "%s: %s", r->what, doing);
    PQclear(res);
    return NULL;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pg_repl_literal(rsql_pg_repl_t *r, rsql_buf_t *b, const char *s,
                                rsql_error_t *err)
{
    char *q = PQescapeLiteral(r->conn, s, strlen(s));
    if (!q) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS, "%s: cannot quote '%s': %s",
                              r->what, s, PQerrorMessage(r->conn));
    }
    rsql_buf_puts(b, q);
    PQfreemem(q);
    return b->oom ? rsql_error_nomem(err) : RSQL_OK;
}

/* Fill out from a row of pg_replication_slots (plugin, database, confirmed_flush_lsn). */
static rsql_err_t slot_row(rsql_pg_repl_t *r, const char *slot, PGresult *res,
                           rsql_pg_slot_t *out, rsql_error_t *err)
{
    const char *plugin = PQgetvalue(res, 0, 0), *db = PQgetvalue(res, 0, 1);
    const char *lsn = PQgetvalue(res, 0, 2), *kind = PQgetvalue(res, 0, 3);
    out->exists = true;
    snprintf(out->plugin, sizeof out->plugin, "%s", plugin);
    if (strcmp(kind, "logical") != 0 || strcmp(plugin, "pgoutput") != 0) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "%s: replication slot '%s' exists as a %s slot of plugin '%s'; "
                              "postgres-cdc needs a logical slot of pgoutput: choose another "
                              "slot.name",
                              r->what, slot, kind, *plugin ? plugin : "(none)");
    }
    if (strcmp(db, r->dbname) != 0) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "%s: replication slot '%s' belongs to database '%s', not '%s': "
                              "choose another slot.name",
                              r->what, slot, db, r->dbname);
    }
    if (!PQgetisnull(res, 0, 2) && !rsql_pgoutput_lsn_parse(lsn, strlen(lsn), &out->confirmed)) {
        return rsql_error_set(err, RSQL_ERR_REMOTE, RSQL_NOPOS,
                              "%s: replication slot '%s': confirmed_flush_lsn '%s' does not read",
                              r->what, slot, lsn);
    }
    if (strcmp(PQgetvalue(res, 0, 4), "lost") == 0) {
        return rsql_error_set(err, RSQL_ERR_REMOTE, RSQL_NOPOS,
                              "%s: replication slot '%s' is invalidated (its WAL was removed: "
                              "max_slot_wal_keep_size); changes are lost: drop it and start "
                              "again with a snapshot",
                              r->what, slot);
    }
    return RSQL_OK;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pg_repl_slot(rsql_pg_repl_t *r, const char *slot, bool create, bool temporary,
                             bool export, rsql_pg_slot_t *out, rsql_error_t *err)
{
    memset(out, 0, sizeof *out);
    rsql_buf_t q = RSQL_BUF_INIT;
    rsql_buf_puts(&q, "SELECT coalesce(plugin, ''), coalesce(database::text, ''), "
                      "confirmed_flush_lsn, slot_type, coalesce(wal_status, '') "
                      "FROM pg_replication_slots WHERE slot_name = ");
    rsql_err_t rc = rsql_pg_repl_literal(r, &q, slot, err);
    PGresult *res = rc == RSQL_OK ? rsql_pg_repl_query(r, rsql_buf_str(&q),
                                                       "cannot look up the replication slot", err)
                                  : NULL;
    rsql_buf_deinit(&q);
    if (!res) {
        return err->code;
    }
    if (PQntuples(res) == 1) {
        rc = slot_row(r, slot, res, out, err);
        PQclear(res);
        return rc;
    }
    PQclear(res);
    if (!create) {
        return rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                              "%s: replication slot '%s' does not exist", r->what, slot);
    }
    rsql_buf_puts(&q, "CREATE_REPLICATION_SLOT ");
    rsql_buf_quote_identn(&q, slot, strlen(slot));
    rsql_buf_puts(&q, temporary ? " TEMPORARY" : "");
    rsql_buf_puts(&q, export ? " LOGICAL pgoutput (SNAPSHOT 'export')"
                             : " LOGICAL pgoutput (SNAPSHOT 'nothing')");
    res = q.oom ? NULL : PQexec(r->conn, rsql_buf_str(&q));
    rsql_buf_deinit(&q);
    if (!res || PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1 ||
        PQnfields(res) < 4) {
        const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
        rc = rsql_pg__error(r->conn, res, err, "%s: cannot create replication slot '%s'%s",
                            r->what, slot,
                            st && strcmp(st, "42501") == 0
                                ? " (the role needs the REPLICATION attribute: ALTER ROLE "
                                  "... REPLICATION)"
                                : "");
        PQclear(res);
        return rc;
    }
    out->created = true;
    snprintf(out->plugin, sizeof out->plugin, "pgoutput");
    const char *cp = PQgetvalue(res, 0, 1);
    rsql_pgoutput_lsn_parse(cp, strlen(cp), &out->confirmed);
    if (!PQgetisnull(res, 0, 2)) {
        snprintf(out->snapshot, sizeof out->snapshot, "%s", PQgetvalue(res, 0, 2));
    }
    PQclear(res);
    return RSQL_OK;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pg_repl_start(rsql_pg_repl_t *r, const char *slot, const char *pub,
                              rsql_lsn_t from, rsql_error_t *err)
{
    char lsn[RSQL_LSN_TEXT_MAX];
    rsql_pgoutput_lsn_format(from, lsn);
    rsql_buf_t q = RSQL_BUF_INIT;
    rsql_buf_puts(&q, "START_REPLICATION SLOT ");
    rsql_buf_quote_identn(&q, slot, strlen(slot));
    rsql_buf_printf(&q, " LOGICAL %s (proto_version '1', publication_names ", lsn);
    /* publication_names is a list of identifiers in one string literal */
    rsql_buf_t names = RSQL_BUF_INIT;
    rsql_buf_quote_identn(&names, pub, strlen(pub));
    rsql_err_t rc = names.oom ? rsql_error_nomem(err)
                              : rsql_pg_repl_literal(r, &q, rsql_buf_str(&names), err);
    rsql_buf_deinit(&names);
    rsql_buf_puts(&q, ")");
    if (rc != RSQL_OK || q.oom) {
        rsql_buf_deinit(&q);
        return rc != RSQL_OK ? rc : rsql_error_nomem(err);
    }
    PGresult *res = PQexec(r->conn, rsql_buf_str(&q));
    rsql_buf_deinit(&q);
    if (res && PQresultStatus(res) == PGRES_COPY_BOTH) {
        PQclear(res);
        r->streaming = true;
        return RSQL_OK;
    }
    const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    rc = rsql_pg__error(r->conn, res, err, "%s: cannot start streaming replication slot '%s' "
                                           "at %s", r->what, slot, lsn);
    if (st && strcmp(st, "55006") == 0) {
        err->code = RSQL_ERR_BUSY; /* "active for PID n": the old walsender is exiting */
        rc = RSQL_ERR_BUSY;
    }
    PQclear(res);
    return rc;
}

/* The stream ended or failed: the server's error (the slot dropped, WAL removed). */
static int stream_end(rsql_pg_repl_t *r, rsql_error_t *err)
{
    PGresult *res = PQgetResult(r->conn);
    r->streaming = false;
    if (res && PQresultStatus(res) == PGRES_COMMAND_OK) {
        rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                       "%s: the server ended the replication stream", r->what);
    } else {
        rsql_pg__error(r->conn, res, err, "%s: replication stream", r->what);
    }
    PQclear(res);
    while ((res = PQgetResult(r->conn)) != NULL) {
        PQclear(res);
    }
    return -1;
}

/* See pgcdc_int.h. */
int rsql_pg_repl_recv(rsql_pg_repl_t *r, int timeout_ms, int wake_fd, char **buf,
                      rsql_error_t *err)
{
    *buf = NULL;
    for (;;) {
        int n = PQgetCopyData(r->conn, buf, 1);
        if (n > 0) {
            return n;
        }
        if (n == -1 || n == -2) {
            return stream_end(r, err);
        }
        /* 0: nothing complete buffered; wait for the socket (or a wake, or the time) */
        struct pollfd p[2] = {{.fd = PQsocket(r->conn), .events = POLLIN},
                              {.fd = wake_fd, .events = POLLIN}};
        int np = wake_fd >= 0 ? 2 : 1;
        int rc = poll(p, (nfds_t)np, timeout_ms);
        if (rc < 0 && errno != EINTR) {
            rsql_error_set(err, RSQL_ERR_IO, RSQL_NOPOS, "%s: poll: %s", r->what,
                           strerror(errno));
            return -1;
        }
        if (rc <= 0 || (np == 2 && (p[1].revents & POLLIN))) {
            return 0;
        }
        if (!PQconsumeInput(r->conn)) {
            rsql_pg__error(r->conn, NULL, err, "%s: replication stream", r->what);
            r->streaming = false;
            return -1;
        }
        timeout_ms = 0; /* read what came; a partial message waits for the next poll */
        n = PQgetCopyData(r->conn, buf, 1);
        if (n > 0) {
            return n;
        }
        if (n < 0) {
            return stream_end(r, err);
        }
        return 0;
    }
}

/* Now in PostgreSQL's epoch (microseconds since 2000-01-01 UTC). */
static int64_t pg_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ((int64_t)ts.tv_sec - 946684800) * 1000000 + ts.tv_nsec / 1000;
}

/* See pgcdc_int.h. */
rsql_err_t rsql_pg_repl_status(rsql_pg_repl_t *r, rsql_lsn_t written, rsql_lsn_t flushed,
                               rsql_error_t *err)
{
    uint8_t msg[RSQL_PGOUTPUT_STATUS_LEN];
    size_t n = rsql_pgoutput_status_update(msg, written, flushed, flushed, pg_now_us(), false);
    if (PQputCopyData(r->conn, (const char *)msg, (int)n) != 1 || PQflush(r->conn) != 0) {
        return rsql_pg__error(r->conn, NULL, err, "%s: cannot send a status update", r->what);
    }
    return RSQL_OK;
}

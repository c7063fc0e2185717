/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the postgres-cdc connector: the changes of PostgreSQL tables, read from a
 * logical replication slot with the pgoutput plugin (docs/CDC.md). Option names follow
 * Flink CDC's postgres-cdc connector (hostname, port, database-name, schema-name,
 * table-name, slot.name, decoding.plugin.name, scan.startup.mode, changelog-mode,
 * heartbeat.interval.ms); the connection rows (url, username, password, sslmode) are the
 * postgres connector's (pg_conf.h). Also its metadata keys, EXPLAIN lines and descriptor.
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/postgres/pgcdc_conf.h"
#include "connectors/postgres/pgcdc_int.h"

#include <stdio.h>
#include <string.h>

static const char *const plugins[] = {"pgoutput", NULL};
static const char *const startup_modes[] = {"initial", "latest-offset", "snapshot", NULL};
static const char *const changelog_modes[] = {"all", "upsert", NULL};
static const char *const truncate_modes[] = {"fail", "skip", "apply", NULL};
static const char *const schema_modes[] = {"fail", "follow", NULL};
static const char *const toast_modes[] = {"fail", NULL};

#define F(member, ctype) RSQL_OPT_FIELD(rsql_pgcdc_conf_t, member, ctype)

/* slot.name: what PostgreSQL accepts for a replication slot, checked before any server sees it. */
static rsql_err_t slot_name_valid(const rsql_opt_def_t *def, const char *key, const char *value,
                                  rsql_pos_t value_pos, rsql_error_t *err)
{
    (void)def;
    size_t n = strlen(value);
    size_t bad = strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_");
    if (bad < n) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, value_pos,
                              "option '%s': '%s' is not a replication slot name: character %zu "
                              "('%c') is not a lower-case letter, a digit or an underscore",
                              key, value, bad + 1, value[bad]);
    }
    if (n == 0 || n > 63) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, value_pos,
                              "option '%s': a replication slot name has 1 to 63 characters, "
                              "not %zu",
                              key, n);
    }
    return RSQL_OK;
}

static const rsql_opt_def_t pgcdc_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("postgres-cdc"),
    RSQL_OPT_ROW_F("hostname", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                   "The server's host name or address (with `port` and `database-name`); or "
                   "give `url` instead. Neither: libpq's defaults (`PGHOST`, `PGPORT`, "
                   "`PGDATABASE`, the local socket), as psql's.",
                   F(hostname, const char *)),
    RSQL_OPT_ROW_F("port", RSQL_OPT_INT, 0, "5432", 1, 65535, NULL,
                   "The server's port (with `hostname`).", F(port, int64_t)),
    RSQL_OPT_ROW_F("database-name", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                   "The database (unset: libpq's default, `PGDATABASE` or the user's name).", F(database, const char *)),
    RSQL_PG_ROW_URL(0, F(pg.url, const char *)),
    RSQL_PG_ROW_USERNAME(F(pg.username, const char *)),
    RSQL_PG_ROW_PASSWORD(F(pg.password, const char *)),
    RSQL_PG_ROW_SSLMODE(F(pg.sslmode, int), F(pg.sslmode_set, bool)),
    RSQL_OPT_ROW_F("schema-name", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                   "The schemas to read: a regular expression (PostgreSQL's, `~`) that must "
                   "match a schema's whole name (`public`, `shard_[0-9]+`).",
                   F(schema_re, const char *)),
    RSQL_OPT_ROW_F("table-name", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                   "The tables to read in those schemas: a regular expression that must match "
                   "a table's whole name (`orders`, `orders_[0-9]+`). Every matched table "
                   "must have every physical column of the rocketsql table (matched by name; "
                   "a missing one is an error naming it and the table when the job starts); "
                   "its other columns are not read.",
                   F(table_re, const char *)),
    RSQL_OPT_ROW_VF("slot.name", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                   "The logical replication slot (pgoutput). Created when missing (the role "
                   "needs the REPLICATION attribute), never dropped: drop it with "
                   "`SELECT pg_drop_replication_slot('name')` when the job is gone, or the "
                   "server keeps WAL for it forever. A slot of another plugin is an error. "
                   "The source's position is the slot's (one partition, named after it). "
                   "PostgreSQL's rule for the name: 1 to 63 lower-case letters, digits and "
                   "underscores.",
                   slot_name_valid, F(slot, const char *)),
    RSQL_OPT_ROW_F("decoding.plugin.name", RSQL_OPT_ENUM, 0, "pgoutput", 0, 0, plugins,
                   "The logical decoding plugin: `pgoutput` (built into PostgreSQL) only.",
                   F(plugin, int)),
    RSQL_OPT_ROW_F("scan.startup.mode", RSQL_OPT_ENUM, 0, "initial", 0, 0, startup_modes,
                   "`initial`: the tables' rows (a snapshot exported when the slot is "
                   "created), then their changes; `latest-offset`: only the changes from now "
                   "on (or from the existing slot's confirmed position); `snapshot`: the "
                   "rows only (a bounded read).",
                   F(startup, int)),
    RSQL_OPT_ROW_F("publication.name", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                   "The publication the slot streams. Unset: `rsql_<slot.name>`. Created FOR "
                   "TABLE the matched tables when missing (that needs the ownership of each "
                   "table: without it the error names the statement for an owner to run); an "
                   "existing one must publish every matched table.",
                   F(publication, const char *)),
    RSQL_OPT_ROW_F("changelog-mode", RSQL_OPT_ENUM, 0, "all", 0, 0, changelog_modes,
                   "`all`: +I, -U, +U, -D (the -U and -D of a table with the DEFAULT replica "
                   "identity carry its key only, its other columns NULL: `ALTER TABLE ... "
                   "REPLICA IDENTITY FULL` for the whole row); `upsert`: +I, +U, -D, without "
                   "the -U (an update that changes the key gives the -D of the old key).",
                   F(changelog, int)),
    RSQL_OPT_ROW_F("heartbeat.interval.ms", RSQL_OPT_DURATION, 0, "30s", 100, 24 * RSQL_MS_H,
                   NULL,
                   "While no change of the tables is pending, how often the source moves its "
                   "position (and the slot's confirmed position, once committed) to the "
                   "server's, so that an idle publication on a busy server does not keep WAL.",
                   F(heartbeat_ms, int64_t)),
    RSQL_OPT_ROW_F("status-interval", RSQL_OPT_DURATION, 0, "10s", 100, RSQL_MS_H, NULL,
                   "How often the source sends the server a status update (what it received "
                   "and what is committed); it also answers every keepalive that asks for "
                   "one.",
                   F(status_ms, int64_t)),
    RSQL_OPT_ROW_F("truncate.mode", RSQL_OPT_ENUM, 0, "fail", 0, 0, truncate_modes,
                   "What a TRUNCATE of a read table does: `fail` stops the job with an error "
                   "naming the table (the sink keeps its rows); `skip` ignores it; `apply` "
                   "empties the sink's table (a `-T` row: the sink deletes every row of its "
                   "table, in order with the other rows, in the same transaction as their "
                   "positions). `apply` needs a sink that applies changes by key (postgres, "
                   "sqlite: the statement is refused at planning otherwise) and a `table-name` "
                   "that matches exactly one table (checked when the job starts).",
                   F(truncate_mode, int)),
    RSQL_OPT_ROW_F("schema-change.mode", RSQL_OPT_ENUM, 0, "fail", 0, 0, schema_modes,
                   "What a change of a read table's definition while the job runs does (a "
                   "column the rocketsql table does not read comes and goes freely either "
                   "way): `fail` stops the job when a read column is dropped or changes its "
                   "type; `follow` reads a dropped column as NULL from then on (a warning "
                   "names the table and the column; a NOT NULL or PRIMARY KEY column of the "
                   "rocketsql table dropped still stops the job) and a retyped column by its "
                   "new type when that converts to the column's type (else the job stops "
                   "with the conversion's error).",
                   F(schema_change, int)),
    RSQL_OPT_ROW_F("toast.unchanged", RSQL_OPT_ENUM, 0, "fail", 0, 0, toast_modes,
                   "An update that leaves a large (TOASTed) value alone does not send it under "
                   "the DEFAULT replica identity: `fail` makes such a row an error naming the "
                   "table, the column and `ALTER TABLE ... REPLICA IDENTITY FULL` (under which "
                   "the value comes from the old row).",
                   F(toast, int)),
    RSQL_OPT_ROW_F("scan.snapshot.fetch.size", RSQL_OPT_INT, 0, "8192", 1, 1000000, NULL,
                   "Rows per chunk of the snapshot read (by primary key).",
                   F(fetch_size, int64_t)),
    RSQL_OPT_ROW_F("transaction.atomic", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                   "`true`: the sink commits a source transaction's rows together, never a "
                   "part of one (a reader of the sink's tables sees whole transactions only; "
                   "snapshot rows are each their own unit). The sink (postgres, sqlite) holds "
                   "an open transaction's rows in memory until its commit arrives: a large "
                   "source transaction is held whole. Rows of a transaction that has not ended "
                   "when the run stops are not written, and the next run reads it again.",
                   F(txn_atomic, bool)),
    RSQL_OPT_END,
};

/*
** url, or hostname / port / database-name: not both. Neither is libpq's defaults (PGHOST,
** PGPORT, PGDATABASE, the local socket), as psql's.
*/
static rsql_err_t pgcdc_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    if (!rsql_optset_has(set, "url")) {
        return RSQL_OK;
    }
    const char *other = rsql_optset_has(set, "hostname")        ? "hostname"
                        : rsql_optset_has(set, "database-name") ? "database-name"
                        : rsql_optset_has(set, "port")          ? "port"
                                                                : NULL;
    return other ? rsql_conn__exclusive(set, "url", other, err) : RSQL_OK;
}

/* v as a libpq connection-string value ('...' with ' and \ escaped) appended to b. */
static void put_conninfo(rsql_buf_t *b, const char *key, const char *v)
{
    rsql_buf_printf(b, "%s%s='", b->len ? " " : "", key);
    for (; *v; v++) {
        if (*v == '\'' || *v == '\\') {
            rsql_buf_putc(b, '\\');
        }
        rsql_buf_putc(b, *v);
    }
    rsql_buf_putc(b, '\'');
}

/* The url from hostname, port and database-name; the publication's default name. */
static rsql_err_t pgcdc_configure(void *conf, const rsql_optset_t *set, const char *const *columns,
                                  int n_columns, rsql_arena_t *arena, rsql_error_t *err)
{
    (void)columns;
    (void)n_columns;
    rsql_pgcdc_conf_t *c = conf;
    if (!c->pg.url) { /* a connection string of what is given ("": libpq's defaults) */
        char port[24];
        snprintf(port, sizeof port, "%lld", (long long)c->port);
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_buf_puts(&b, "");
        if (c->hostname) {
            put_conninfo(&b, "host", c->hostname);
        }
        if (c->hostname || rsql_optset_has(set, "port")) {
            put_conninfo(&b, "port", port);
        }
        if (c->database) {
            put_conninfo(&b, "dbname", c->database);
        }
        c->pg.url = b.oom ? NULL : rsql_arena_strdup(arena, rsql_buf_str(&b));
        rsql_buf_deinit(&b);
        if (!c->pg.url) {
            return rsql_error_nomem(err);
        }
    }
    if (!c->publication && c->slot) {
        size_t n = strlen(c->slot) + 6;
        char *p = rsql_arena_alloc(arena, n);
        if (!p) {
            return rsql_error_nomem(err);
        }
        snprintf(p, n, "rsql_%s", c->slot);
        c->publication = p;
    }
    return RSQL_OK;
}

/* snapshot alone ends with the last row; the others stream. */
static bool pgcdc_bounded(const void *conf, const char **why)
{
    const rsql_pgcdc_conf_t *c = conf;
    if (c->startup == RSQL_PGCDC_SNAPSHOT) {
        *why = "bounded (scan.startup.mode 'snapshot': ends at the last row of the snapshot)";
        return true;
    }
    *why = "unbounded (the changes of the replication slot)";
    return false;
}

static int pgcdc_produces_changes(const void *conf)
{
    const rsql_pgcdc_conf_t *c = conf;
    if (c->startup == RSQL_PGCDC_SNAPSHOT) {
        return RSQL_MODE_APPEND; /* the rows, +I only */
    }
    return c->changelog == RSQL_PGCDC_UPSERT ? RSQL_MODE_UPSERT : RSQL_MODE_FULL;
}

/* truncate.mode 'apply' (streamed): a TRUNCATE is a -T row, the sink empties its table. */
static const char *pgcdc_produces_clears(const void *conf)
{
    const rsql_pgcdc_conf_t *c = conf;
    if (c->startup == RSQL_PGCDC_SNAPSHOT || c->truncate_mode != RSQL_PGCDC_TRUNC_APPLY) {
        return NULL;
    }
    return "truncate.mode 'apply'";
}

static void pgcdc_explain(const rsql_explain_t *x)
{
    const rsql_pgcdc_conf_t *c = x->conf;
    if (x->part != RSQL_EXPLAIN_SOURCE || !c) {
        return;
    }
    if (c->startup == RSQL_PGCDC_SNAPSHOT) {
        x->attr(x, "tables", "schema ~ '%s', table ~ '%s'", c->schema_re, c->table_re);
        x->attr(x, "startup", "snapshot (the rows only, +I, by primary key; no slot, no "
                              "publication)");
        x->attr(x, "positions", "the last primary key written, per table (partitions "
                                "'snapshot:<schema>.<table>')");
        return;
    }
    x->attr(x, "slot", "'%s' (pgoutput; created when missing, never dropped)%s", c->slot,
            x->preview ? "; a preview uses a TEMPORARY one when it is missing, and confirms "
                         "nothing"
                       : "");
    x->attr(x, "publication", "'%s' (tables: schema ~ '%s', table ~ '%s')", c->publication,
            c->schema_re, c->table_re);
    x->attr(x, "startup", "%s", c->startup == RSQL_PGCDC_INITIAL
                                    ? "initial (a snapshot of the rows, by primary key, then "
                                      "the changes from the slot's consistent point)"
                                    : "latest-offset (the changes from the slot's position)");
    x->attr(x, "changelog", "%s", c->changelog == RSQL_PGCDC_UPSERT ? "upsert (+I +U -D)"
                                                                     : "all (+I -U +U -D)");
    x->attr(x, "truncate", "%s",
            c->truncate_mode == RSQL_PGCDC_TRUNC_APPLY
                ? "apply (a -T row: the sink deletes every row of its table; table-name must "
                  "match one table)"
            : c->truncate_mode == RSQL_PGCDC_TRUNC_SKIP ? "skip (ignored)"
                                                        : "fail (stops the job)");
    x->attr(x, "schema changes", "%s",
            c->schema_change == RSQL_PGCDC_SCHEMA_FOLLOW
                ? "follow (a read column dropped reads as NULL, a retyped one by its new "
                  "type when it converts; columns not read are ignored)"
                : "fail (a read column dropped or retyped stops the job; columns not read are "
                  "ignored)");
    x->attr(x, "positions",
            "LSNs, partition '%s': the slot's confirmed position moves only to what the "
            "sink committed; a restart resumes after the last committed transaction",
            c->slot);
    if (c->txn_atomic) {
        x->attr(x, "transactions", "atomic (transaction.atomic: the sink commits each source "
                                   "transaction whole, holding an open one's rows)");
    }
}

/* transaction.atomic: the sink must keep each source transaction whole. */
static const char *pgcdc_whole_transactions(const void *conf)
{
    const rsql_pgcdc_conf_t *c = conf;
    return c->txn_atomic && c->startup != RSQL_PGCDC_SNAPSHOT ? "transaction.atomic" : NULL;
}

static const rsql_meta_def_t pgcdc_meta[] = {
    RSQL_META_ROW("database_name", "VARCHAR", RSQL_META_READ, "The database the change was made in."),
    RSQL_META_ROW("schema_name", "VARCHAR", RSQL_META_READ, "The schema of the changed table."),
    RSQL_META_ROW("table_name", "VARCHAR", RSQL_META_READ, "The changed table's name."),
    RSQL_META_ROW("op_ts", "TIMESTAMP(3)", RSQL_META_READ, "When the change's transaction committed (NULL for snapshot rows)."),
    RSQL_META_ROW("commit_lsn", "VARCHAR", RSQL_META_READ, "The LSN of the change's transaction's commit (`16/B374D848`; NULL for snapshot rows)."),
    RSQL_META_ROW("xid", "BIGINT", RSQL_META_READ, "The id of the change's transaction (NULL for snapshot rows)."),
    RSQL_META_ROW("row_kind", "VARCHAR", RSQL_META_READ, "The row's kind: `+I`, `-U`, `+U` or `-D`."),
    RSQL_META_END,
};

const rsql_connector_def_t rsql_postgres_cdc_conn_def = {
    .name = "postgres-cdc",
    .description =
        "The changes of PostgreSQL tables, from a logical replication slot (pgoutput): an "
        "initial snapshot of the rows, then every insert, update and delete as +I, -U, +U, "
        "-D, positioned by LSN, so an exactly-once sink (postgres, sqlite) resumes after the "
        "last transaction it committed.",
    .caps = RSQL_CAP_SOURCE,
    .opts = pgcdc_opts,
    .formats = NULL,
    .finalize = pgcdc_finalize,
    .conf_size = sizeof(rsql_pgcdc_conf_t),
    .configure = pgcdc_configure,
    .source = &rsql_pgcdc_source_ops,
    .bounded = pgcdc_bounded,
    .explain = pgcdc_explain,
    .metadata = pgcdc_meta,
    .produces_changes = pgcdc_produces_changes,
    .produces_clears = pgcdc_produces_clears,
    .whole_transactions = pgcdc_whole_transactions,
};

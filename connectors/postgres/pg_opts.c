/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the postgres connector: a table of a PostgreSQL database, reached over
 * libpq, written in transactions that also store the source positions (exactly-once).
 * Option names follow Flink's JDBC connector where it has one (url, table-name, username,
 * password, sink.buffer-flush.*, sink.max-retries), plus libpq's sslmode.
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/postgres/pg_conf.h"
#include "connectors/postgres/pg_int.h"

const char *const rsql_pg_sslmodes[] = {"prefer", "disable", "allow", "require", "verify-ca",
                                        "verify-full", NULL};

#define F(member, ctype) RSQL_OPT_FIELD(rsql_pg_conf_t, member, ctype)

static const rsql_opt_def_t pg_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("postgres"),
    RSQL_PG_ROW_URL(RSQL_OPT_F_REQUIRED, F(url, const char *)),
    RSQL_OPT_ROW_F("table-name", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                   "The table, optionally schema-qualified (`public.orders`). A sink creates it "
                   "(and its schema) when missing, with the rocketsql table's columns (any "
                   "number of processes starting at once may do so); an existing table's "
                   "columns are matched by name and checked against the rocketsql types when "
                   "the job starts (a mismatch is an error naming the column). Types: BOOLEAN "
                   "`boolean`, INT `integer`, BIGINT `bigint`, DOUBLE `double precision`, "
                   "VARCHAR `text`, BYTES `bytea`, TIMESTAMP(3) `timestamptz`, DECIMAL(p, s) "
                   "`numeric` (exact, never through a double; an existing `numeric(p, s)` "
                   "column is fine), DATE `date`, ROW, ARRAY and MAP `jsonb` (their JSON text; "
                   "ARRAY is jsonb, not a PostgreSQL array, so arrays of ROWs and MAPs work "
                   "alike: an existing `integer[]` column is refused). The source reads "
                   "`numeric` (and integers) into DECIMAL exactly, `date` into DATE, and any "
                   "column, `jsonb` included, into VARCHAR; ROW, ARRAY and MAP from `jsonb` "
                   "or `json` (decoded like the json format, by the full type: JSON of the "
                   "wrong shape is that row's error, naming the column and field), and ARRAY "
                   "also from a PostgreSQL array (`integer[]`, `text[]`, multidimensional into "
                   "nested ARRAYs).",
                   F(table_name, const char *)),
    RSQL_PG_ROW_USERNAME(F(username, const char *)),
    RSQL_PG_ROW_PASSWORD(F(password, const char *)),
    RSQL_PG_ROW_SSLMODE(F(sslmode, int), F(sslmode_set, bool)),
    RSQL_OPT_ROW_F("scan.incremental.column", RSQL_OPT_STR, RSQL_OPT_F_SOURCE | RSQL_OPT_F_NONEMPTY,
                   NULL, 0, 0, NULL,
                   "Read incrementally by this integer column that only grows (such as a "
                   "`bigserial` id: the outbox pattern): rows above the last committed value, in "
                   "its order, so a later run resumes after the last row it committed. A row "
                   "committed later with a smaller value than one already read (concurrent "
                   "writers) is not seen. Unset: the table is read once, in its physical order, "
                   "in one snapshot (a REPEATABLE READ transaction and a cursor: rows written "
                   "while it reads are neither skipped nor read twice; the transaction stays "
                   "open until the last row is read), and a later run skips as many rows as "
                   "were committed (exact only while the table does not change between runs; "
                   "so does a read that lost its connection).",
                   F(inc_column, const char *)),
    RSQL_OPT_ROW_F("scan.incremental.interval", RSQL_OPT_DURATION, RSQL_OPT_F_SOURCE, NULL, 10,
                   RSQL_MS_H, NULL,
                   "With `scan.incremental.column`: keep polling for new rows at this interval "
                   "(the source is then unbounded). Unset: the read ends when no row is left.",
                   F(interval_src_ms, int64_t)),
    RSQL_OPT_ROW_F("sink.buffer-flush.max-rows", RSQL_OPT_INT, RSQL_OPT_F_SINK, "8192", 1,
                   1000000,
                   NULL,
                   "Most rows per transaction. The sink gathers the pipeline's batches "
                   "(`pipeline.batch-size`, default 512) into one transaction until it holds "
                   "this many rows or `sink.buffer-flush.interval` passed, whichever comes "
                   "first, and stores the positions of the source being copied (or the ids of "
                   "the RocketMQ messages applied) in that transaction, so a copy into "
                   "PostgreSQL is exactly-once, even across a kill -9; a batch is acknowledged "
                   "only once its transaction committed. The runtime lets this many rows wait "
                   "for their transaction (instead of `pipeline.queue-capacity`), and has the "
                   "sink commit when it is idle. Each COMMIT waits for PostgreSQL's WAL flush, "
                   "so fewer, larger transactions are faster: 8192 copies about twice the rows "
                   "per second of 1024 (bench/README.md), for about 10 MB more memory.",
                   F(max_rows, int64_t)),
    RSQL_OPT_ROW_F("sink.buffer-flush.interval", RSQL_OPT_DURATION, RSQL_OPT_F_SINK, "1s", 0,
                   RSQL_MS_H, NULL,
                   "The longest a gathered row waits for its transaction while rows keep "
                   "coming (checked at each pipeline batch; an idle pipeline commits at once). "
                   "0ms: one transaction per pipeline batch.",
                   F(interval_ms, int64_t)),
    RSQL_OPT_ROW_F("sink.max-retries", RSQL_OPT_INT, RSQL_OPT_F_SINK, "3", 0, 100, NULL,
                   "How many times a batch that failed with a transient error (a lost "
                   "connection, a serialization failure, a deadlock) is written again at once, "
                   "after reconnecting, before the failure goes to the runtime (which retries "
                   "it further per `errors.retry.*`). A constraint violation is never retried.",
                   F(max_retries, int64_t)),
    RSQL_OPT_ROW_F("sink.exactly-once.retention", RSQL_OPT_DURATION, RSQL_OPT_F_SINK, "1h",
                   RSQL_MS_MIN, 30 * 24 * RSQL_MS_H, NULL, RSQL_EXACTLY_ONCE_RETENTION_DOC,
                   F(retention_ms, int64_t)),
    RSQL_OPT_END,
};

/* scan.incremental.interval needs the column it polls by. */
static rsql_err_t pg_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    if (rsql_optset_has(set, "scan.incremental.interval") &&
        !rsql_optset_has(set, "scan.incremental.column")) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION,
                              rsql_conn__key_pos(set, "scan.incremental.interval"),
                              "option 'scan.incremental.interval' requires "
                              "'scan.incremental.column'");
    }
    return RSQL_OK;
}

/* Ends when no row is left, unless it polls for new ones. */
static bool pg_bounded(const void *conf, const char **why)
{
    const rsql_pg_conf_t *c = conf;
    bool polls = c->inc_column && c->interval_src_ms > 0;
    *why = polls ? "unbounded (polls for new rows at scan.incremental.interval)"
                 : "bounded (ends at the last row)";
    return !polls;
}

const rsql_connector_def_t rsql_postgres_conn_def = {
    .name = "postgres",
    .description =
        "A table of a PostgreSQL database, over libpq. The source reads it once, or "
        "incrementally by a growing column (the outbox pattern), resuming after the last "
        "committed row. The sink writes rows in transactions (COPY; an upsert with PRIMARY "
        "KEY ... NOT ENFORCED) and stores the source positions, or the ids of the applied "
        "RocketMQ messages, in the same transaction: exactly-once.",
    .caps = RSQL_CAP_SOURCE | RSQL_CAP_SINK,
    .finalize = pg_finalize,
    .bounded = pg_bounded,
    .source = &rsql_postgres_source_ops,
    .opts = pg_opts,
    .formats = NULL,
    .conf_size = sizeof(rsql_pg_conf_t),
    .sink = &rsql_postgres_sink_ops,
    .lookup = &rsql_postgres_lookup_ops,
    .changes = RSQL_CHANGES_BY_KEY,
    .exactly_once = true,
};

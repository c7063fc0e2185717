/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the sqlite connector: a table in a SQLite database file,
 * read in rowid order (resuming after the last committed rowid) or written
 * in transactions that also store the source position (exactly-once).
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/sqlite/sqlite_conf.h"

#include <string.h>

static const rsql_opt_def_t sqlite_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("sqlite"),
    RSQL_OPT_ROW_F("path", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                 "The SQLite database file. A source's must exist (else the statement that reads "
                 "it fails before it runs); a sink creates it when missing.",
                   RSQL_OPT_FIELD(rsql_sqlite_conf_t, path, const char *)),
    RSQL_OPT_ROW_F("table", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                 "The table in that database. Its columns are matched to the rocketsql table's "
                 "columns by name.",
                   RSQL_OPT_FIELD(rsql_sqlite_conf_t, table, const char *)),
    RSQL_OPT_ROW_F("scan.follow", RSQL_OPT_BOOL, RSQL_OPT_F_SOURCE, "false", 0, 0, NULL,
                 "Keep polling for rows inserted later (by rowid) instead of ending after the "
                 "last row; the source is then unbounded.",
                   RSQL_OPT_FIELD(rsql_sqlite_conf_t, follow, bool)),
    RSQL_OPT_ROW_F("scan.poll-interval", RSQL_OPT_DURATION, RSQL_OPT_F_SOURCE, "500ms", 10,
                 RSQL_MS_H, NULL, "With `scan.follow`: how often to look for new rows.",
                   RSQL_OPT_FIELD(rsql_sqlite_conf_t, poll_ms, int64_t)),
    RSQL_OPT_ROW_F("sink.batch-size", RSQL_OPT_INT, RSQL_OPT_F_SINK, "8192", 1, 1000000, NULL,
                 "Most rows per transaction. The sink gathers the pipeline's batches up to this "
                 "many rows (or until the runtime flushes it: every `state.flush-interval` while "
                 "rows come, when none came for a moment, at the end) and reports them only "
                 "once they are committed. The position of the source being copied is stored "
                 "in the same transaction, so a copy into SQLite is exactly-once, even across a "
                 "kill -9.",
                   RSQL_OPT_FIELD(rsql_sqlite_conf_t, batch_size, int64_t)),
    RSQL_OPT_ROW_F("sink.exactly-once.retention", RSQL_OPT_DURATION, RSQL_OPT_F_SINK, "1h",
                   RSQL_MS_MIN, 30 * 24 * RSQL_MS_H, NULL, RSQL_EXACTLY_ONCE_RETENTION_DOC,
                   RSQL_OPT_FIELD(rsql_sqlite_conf_t, retention_ms, int64_t)),
    RSQL_OPT_END,
};

/* scan.poll-interval only means something when following the table. */
static rsql_err_t sqlite_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    return rsql_conn__requires(set, "scan.poll-interval", "scan.follow", "true", err);
}

/* Ends after the last row unless it follows new rows. */
static bool sqlite_bounded(const void *conf, const char **why)
{
    const rsql_sqlite_conf_t *c = conf;
    *why = c->follow ? "unbounded (follows new rows)" : "bounded (ends at the last row)";
    return !c->follow;
}

/*
** The database file a source reads exists and can be read (before a statement runs): opened
** read-only, a missing one would otherwise say only "unable to open database file". A URI
** ("file:...") or ":memory:" is left to the open.
*/
static rsql_err_t sqlite_check_source(const void *conf, rsql_error_t *err)
{
    const rsql_sqlite_conf_t *c = conf;
    if (!c || !c->path || strncmp(c->path, "file:", 5) == 0 || strcmp(c->path, ":memory:") == 0) {
        return RSQL_OK;
    }
    return rsql_conn__check_readable(c->path, err);
}

/* METADATA columns of a sqlite source (rsql_meta_def_t). */
static const rsql_meta_def_t sqlite_meta[] = {
    RSQL_META_ROW("rowid", "BIGINT", RSQL_META_READ, "The row's SQLite rowid (the source reads in rowid order)."),
    RSQL_META_END,
};

const rsql_connector_def_t rsql_sqlite_conn_def = {
    .name = "sqlite",
    .description =
        "A table in a SQLite database file. The source reads it in rowid order and resumes "
        "after the last committed rowid; the sink inserts rows in transactions, exactly-once.",
    .caps = RSQL_CAP_SOURCE | RSQL_CAP_SINK,
    .opts = sqlite_opts,
    .formats = NULL,
    .finalize = sqlite_finalize,
    .conf_size = sizeof(rsql_sqlite_conf_t),
    .bounded = sqlite_bounded,
    .source = &rsql_sqlite_source_ops,
    .sink = &rsql_sqlite_sink_ops,
    .lookup = &rsql_sqlite_lookup_ops,
    .changes = RSQL_CHANGES_BY_KEY,
    .exactly_once = true,
    .metadata = sqlite_meta,
    .check_source = sqlite_check_source,
};

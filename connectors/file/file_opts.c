/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the filesystem connector: one file of json lines, csv
 * lines or raw lines, read from its start (resuming at the byte position
 * kept in the catalog) or appended to.
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/file/file_conf.h"

const char *const rsql_file_formats[] = {"json", "csv", "raw", "debezium-json", "canal-json",
                                         "maxwell-json", NULL};

static const rsql_opt_def_t file_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("filesystem"),
    RSQL_OPT_ROW_F("path", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                 "The file. A source reads it line by line from the start and keeps its byte "
                 "position in the catalog, so a job run again resumes after the last line it "
                 "committed (a file that does not exist is an error of the statement that reads "
                 "it, before it runs). A sink appends to it, creating it when missing.",
                   RSQL_OPT_FIELD(rsql_file_conf_t, path, const char *)),
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, "json", 0, 0, rsql_file_formats,
                 "How a line becomes a row, and a row a line (`json`: one JSON object per line).",
                   RSQL_OPT_FIELD(rsql_file_conf_t, format, int)),
    RSQL_OPT_ROW_F("csv.header", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                 "With `format` = `csv`: the file's first line is a header naming the columns. "
                 "A source skips it: it is never a row, and its fields are counted (a header "
                 "with more or fewer fields than the table's physical columns fails the read, "
                 "naming the file and line 1; names are not compared: fields go to columns by "
                 "position). The header counts in the `line` and `offset` metadata (the first "
                 "row is line 2), and a read resumed after a committed row does not see it "
                 "again. A sink writes the column names as the header when it starts a file "
                 "(missing or empty), so appending to a file adds no second header.",
                   RSQL_OPT_FIELD(rsql_file_conf_t, header, bool)),
    RSQL_OPT_ROW_F("scan.follow", RSQL_OPT_BOOL, RSQL_OPT_F_SOURCE, "false", 0, 0, NULL,
                 "Keep reading data appended to the file (like `tail -f`) instead of ending at "
                 "its end; the source is then unbounded.",
                   RSQL_OPT_FIELD(rsql_file_conf_t, follow, bool)),
    RSQL_OPT_ROW_F("scan.poll-interval", RSQL_OPT_DURATION, RSQL_OPT_F_SOURCE, "500ms", 10,
                 RSQL_MS_H, NULL,
                 "With `scan.follow`: how often to look for appended data once the end is "
                 "reached.",
                   RSQL_OPT_FIELD(rsql_file_conf_t, poll_ms, int64_t)),
    RSQL_OPT_ROW_F("sink.sync", RSQL_OPT_BOOL, RSQL_OPT_F_SINK, "true", 0, 0, NULL,
                 "Sync the file to disk (fsync) at each flush, before the source positions of "
                 "the flushed rows are committed, so a committed row survives a crash or power "
                 "loss; a failed sync fails the rows it was to cover. `false`: only write, "
                 "faster.",
                   RSQL_OPT_FIELD(rsql_file_conf_t, sync, bool)),
    RSQL_OPT_END,
};

/* scan.poll-interval only means something when following the file, csv.header with csv. */
static rsql_err_t file_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    rsql_err_t rc = rsql_conn__requires(set, "scan.poll-interval", "scan.follow", "true", err);
    return rc != RSQL_OK ? rc : rsql_conn__requires(set, "csv.header", "format", "csv", err);
}

/* Ends at the end of the file unless it follows appended data. */
static bool file_bounded(const void *conf, const char **why)
{
    const rsql_file_conf_t *c = conf;
    *why = c->follow ? "unbounded (follows appended data)" : "bounded (ends at end of file)";
    return !c->follow;
}

/* The file a source reads exists and can be read (before a statement runs). */
static rsql_err_t file_check_source(const void *conf, rsql_error_t *err)
{
    const rsql_file_conf_t *c = conf;
    return rsql_conn__check_readable(c ? c->path : NULL, err);
}

/* METADATA columns of a filesystem source (rsql_meta_def_t). */
static const rsql_meta_def_t file_meta[] = {
    RSQL_META_ROW("path", "VARCHAR", RSQL_META_READ, "The path of the file the line was read from, as given in `path`."),
    RSQL_META_ROW("offset", "BIGINT", RSQL_META_READ, "The byte offset of the line's first byte in the file (0 for the first line)."),
    RSQL_META_ROW("line", "BIGINT", RSQL_META_READ, "The line number in the file (1 for the first line), counting every line, skipped and header lines included."),
    RSQL_META_END,
};

const rsql_connector_def_t rsql_file_conn_def = {
    .name = "filesystem",
    .description =
        "A local file of lines: JSON lines, CSV or raw lines. The source reads it to the end "
        "(bounded) or follows it, and resumes at its committed byte position; the sink appends "
        "rows and syncs on flush.",
    .caps = RSQL_CAP_SOURCE | RSQL_CAP_SINK,
    .opts = file_opts,
    .formats = rsql_file_formats,
    .finalize = file_finalize,
    .conf_size = sizeof(rsql_file_conf_t),
    .bounded = file_bounded,
    .source = &rsql_file_source_ops,
    .sink = &rsql_file_sink_ops,
    .changes = RSQL_CHANGES_BY_FORMAT,
    .metadata = file_meta,
    .check_source = file_check_source,
};

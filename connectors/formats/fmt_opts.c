/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the formats (json, csv, raw, canal-json, maxwell-json): how a message body or a
 * line becomes a row and back.  A format's options are valid only in a
 * table whose 'format' chooses it (conn_registry.c checks that).
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/formats/fmt_int.h"

#include <string.h>
#include <strings.h>

static const char *const json_ts_formats[] = {"sql", "iso-8601", "epoch-millis", NULL};

static const rsql_opt_def_t json_opts[] = {
    RSQL_OPT_ROW_F("json.fail-on-missing-field", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                 "Reading: a column absent from the JSON object is a decode error (handled by "
                 "`errors.tolerance`) instead of NULL. A value of the wrong JSON type is always "
                 "a decode error, except that a VARCHAR column takes any JSON value (a number "
                 "or an object is kept as its JSON text).",
                 RSQL_OPT_FIELD(rsql_json_conf_t, fail_on_missing_field, bool)),
    RSQL_OPT_ROW_F("json.timestamp-format", RSQL_OPT_ENUM, 0, "sql", 0, 0, json_ts_formats,
                 "How TIMESTAMP(3) values are written: `sql` strings in the canonical text "
                 "`2026-01-02 03:04:05.678` (UTC; what CAST and print show), `iso-8601` strings "
                 "`2026-01-02T03:04:05.678Z`, or `epoch-millis` numbers. Reading takes every "
                 "form always, and any TIMESTAMP text (a `T`, `Z` or an offset such as "
                 "`+02:00`; see SQL.md, \"Text forms of values\").",
                 RSQL_OPT_FIELD(rsql_json_conf_t, timestamp_format, int)),
    RSQL_OPT_END,
};

static const char *const dbz_ts_standards[] = {"SQL", "ISO-8601", NULL};

static const rsql_opt_def_t debezium_opts[] = {
    RSQL_OPT_ROW_F("debezium-json.schema-include", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                   "The bodies are Kafka Connect's JSON with the schema, "
                   "`{\"schema\":{...},\"payload\":{...}}` (Debezium with "
                   "`value.converter.schemas.enable`), and are written so. A body without the "
                   "envelope when it is expected, or with it when not, is a decode error that "
                   "says which to set.",
                   RSQL_OPT_FIELD(rsql_debezium_conf_t, schema_include, bool)),
    RSQL_OPT_ROW_F("debezium-json.ignore-parse-errors", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                   "Reading: a body that fails to decode (invalid JSON, a value of the wrong "
                   "type, an unknown or missing `op`) is skipped, with no rows, instead of being "
                   "a decode error (handled by `errors.tolerance`).",
                   RSQL_OPT_FIELD(rsql_debezium_conf_t, ignore_parse_errors, bool)),
    RSQL_OPT_ROW_F("debezium-json.ignore-truncate", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                   "Reading: an event of op `t` (a TRUNCATE of the captured table) is skipped "
                   "instead of being a decode error (it names no rows to delete).",
                   RSQL_OPT_FIELD(rsql_debezium_conf_t, ignore_truncate, bool)),
    RSQL_OPT_ROW_F("debezium-json.timestamp-format.standard", RSQL_OPT_ENUM, 0, "SQL", 0, 0,
                   dbz_ts_standards,
                   "How TIMESTAMP values are written: `SQL` `2026-01-02 03:04:05.678`, "
                   "`ISO-8601` `2026-01-02T03:04:05.678Z`. Reading takes both, and epoch "
                   "milliseconds (as the json format).",
                   RSQL_OPT_FIELD(rsql_debezium_conf_t, timestamp_standard, int)),
    RSQL_OPT_END,
};

/* See rsql_format.h. */
int rsql_csv_char(const char *v)
{
    if (v[0] && !v[1] && v[0] != '\n' && v[0] != '\r') {
        return (unsigned char)v[0];
    }
    if (strcmp(v, "\\t") == 0 || strcasecmp(v, "tab") == 0) {
        return '\t';
    }
    if (strcmp(v, "\\\\") == 0) {
        return '\\';
    }
    return -1;
}

/*
** A single character (SQL strings have no escapes, so `\t` or `tab` stand
** for a tab); line ends are not allowed.
*/
static rsql_err_t check_char(const rsql_opt_def_t *def, const char *key, const char *value,
                             rsql_pos_t pos, rsql_error_t *err)
{
    (void)def;
    if (rsql_csv_char(value) >= 0) {
        return RSQL_OK;
    }
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "invalid value '%s' for option '%s': expected a single character", value,
                          key);
}

/* A quote character, or empty for none. */
static rsql_err_t check_quote(const rsql_opt_def_t *def, const char *key, const char *value,
                              rsql_pos_t pos, rsql_error_t *err)
{
    return *value ? check_char(def, key, value, pos, err) : RSQL_OK;
}

/*
** The quote must differ from the delimiter, and the null literal must be a field of its
** own: no delimiter, quote or line end in it (else NULL would be written as two fields, or
** as a quoted one, and not read back as NULL).
*/
static rsql_err_t csv_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    const char *q = rsql_optset_str(set, "csv.quote-character");
    const char *nl = rsql_optset_str(set, "csv.null-literal");
    int dc = rsql_csv_char(rsql_optset_str(set, "csv.field-delimiter"));
    int qc = *q ? rsql_csv_char(q) : -1;
    for (const char *p = nl; p && *p; p++) {
        unsigned char ch = (unsigned char)*p;
        if (ch == dc || ch == qc || ch == '\n' || ch == '\r') {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION,
                                  rsql_conn__value_pos(set, "csv.null-literal"),
                                  "option 'csv.null-literal' must not hold the field delimiter, "
                                  "the quote character or a line end");
        }
    }
    if (*q && rsql_csv_char(q) == rsql_csv_char(rsql_optset_str(set, "csv.field-delimiter"))) {
        rsql_pos_t pos = rsql_conn__value_pos(set, "csv.quote-character");
        if (pos.off == RSQL_POS_NONE) {
            pos = rsql_conn__value_pos(set, "csv.field-delimiter");
        }
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "options 'csv.field-delimiter' and 'csv.quote-character' must "
                              "differ");
    }
    return RSQL_OK;
}

static const rsql_opt_def_t csv_opts[] = {
    RSQL_OPT_ROW_VF("csv.field-delimiter", RSQL_OPT_STR, 0, ",", 0, 0, NULL,
                    "The character between fields; write `\\t` or `tab` for a tab.", check_char,
                    RSQL_OPT_FIELD(rsql_csv_conf_t, delimiter_text, const char *)),
    RSQL_OPT_ROW_VF("csv.quote-character", RSQL_OPT_STR, 0, "\"", 0, 0, NULL,
                    "The character around a field holding the delimiter, a quote or a line end "
                    "(or whose text is the null literal); a quote inside such a field is "
                    "doubled. Empty: no quoting, and a row with such a value cannot be written "
                    "so that it reads back: it fails on its own (dead-lettered under "
                    "`errors.tolerance` = `all`), whether written or read (a record with a line "
                    "end inside a field, or a BYTES field of blanks, fails to decode).",
                    check_quote, RSQL_OPT_FIELD(rsql_csv_conf_t, quote_text, const char *)),
    RSQL_OPT_ROW_F("csv.null-literal", RSQL_OPT_STR, 0, "", 0, 0, NULL,
                   "A field with exactly this text is NULL (and NULL is written as it; it may "
                   "not hold the delimiter, the quote or a line end). By default an empty "
                   "unquoted field is NULL and a quoted empty field (`\"\"`) is the empty "
                   "string (or empty BYTES).",
                   RSQL_OPT_FIELD(rsql_csv_conf_t, null_literal, const char *)),
    RSQL_OPT_END,
};

static const rsql_opt_def_t raw_opts[] = {
    RSQL_OPT_END,
};

/* The characters the csv options stand for (validated, so each is one character). */
static rsql_err_t csv_configure(void *conf, const rsql_optset_t *set, rsql_error_t *err)
{
    (void)set;
    rsql_csv_conf_t *c = conf;
    int d = rsql_csv_char(c->delimiter_text);
    int q = *c->quote_text ? rsql_csv_char(c->quote_text) : 0;
    if (d < 0 || q < 0) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "csv: a validated delimiter or quote is not one character");
    }
    c->delimiter = (char)d;
    c->quote = (char)q;
    return RSQL_OK;
}

const rsql_format_def_t rsql_json_format_def = {
    .name = "json",
    .description =
        "One JSON object per body (or line); columns are matched to the object's fields by "
        "name. Written objects have one field per column, NULL as `null`. ROW, ARRAY and MAP "
        "columns read nested objects and arrays (and write them back); DECIMAL reads a number "
        "or a numeric string exactly, DATE a `YYYY-MM-DD` string; a nested value of the wrong "
        "JSON type, or a DECIMAL that does not fit its precision, is a decode error of that "
        "record naming its path (`field 'o.items[2]': ...`). Only the columns and ROW fields "
        "the statement reads are decoded (SQL.md, \"The json format and nested types\").",
    .opts = json_opts,
    .conf_size = sizeof(rsql_json_conf_t),
};

const rsql_format_def_t rsql_debezium_format_def = {
    .name = "debezium-json",
    .description =
        "Debezium's change events (`before`, `after`, `op`, `source`, `ts_ms`), read as "
        "changes: op `c`/`r` an insert, `u` an update (-U of before, +U of after), `d` a "
        "delete; a null body (Debezium's tombstone) has none. Columns are read from before "
        "and after as the json format reads an object. Written as Flink does: +I and +U as "
        "op `c`, -U and -D as op `d` (CHANGELOGS.md, \"debezium-json\").",
    .opts = debezium_opts,
    .conf_size = sizeof(rsql_debezium_conf_t),
};

/* ---- canal-json and maxwell-json (fmt_canal.c, fmt_maxwell.c; docs/CHANGELOGS.md) */

static const char *const cdc_ts_standards[] = {"SQL", "ISO-8601", NULL};

/* An include option: a regular expression (PCRE2, close to Java's), or empty for all. */
static rsql_err_t check_regex(const rsql_opt_def_t *def, const char *key, const char *value,
                              rsql_pos_t pos, rsql_error_t *err)
{
    char why[200];
    (void)def;
    if (rsql_fmt__regex_valid(value, why, sizeof why)) {
        return RSQL_OK;
    }
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "invalid value '%s' for option '%s': not a regular expression (%s)",
                          value, key, why);
}

#define CDC_IGNORE_DOC(more)                                                                  \
    "A message that fails to decode (invalid JSON, a value of the wrong type, an unknown "    \
    "`type`) gives no rows and is counted, instead of failing (then `errors.tolerance` "     \
    "decides)." more
#define CDC_TS_DOC                                                                            \
    "How TIMESTAMP values are written: `SQL` (`2020-12-30 12:13:14.123`) or `ISO-8601` "      \
    "(`2020-12-30T12:13:14.123Z`). Reading takes both, and epoch milliseconds."

static const rsql_opt_def_t canal_opts[] = {
    RSQL_OPT_ROW_F("canal-json.ignore-parse-errors", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                   CDC_IGNORE_DOC(" The whole message is skipped, also those of its rows "
                                  "that did decode."),
                   RSQL_OPT_FIELD(rsql_cdc_json_conf_t, ignore_parse_errors, bool)),
    RSQL_OPT_ROW_F("canal-json.timestamp-format.standard", RSQL_OPT_ENUM, 0, "SQL", 0, 0,
                   cdc_ts_standards, CDC_TS_DOC,
                   RSQL_OPT_FIELD(rsql_cdc_json_conf_t, timestamp_standard, int)),
    RSQL_OPT_ROW_VF("canal-json.database.include", RSQL_OPT_STR, 0, "", 0, 0, NULL,
                    "Read only the messages whose `database` this regular expression matches "
                    "as a whole (PCRE2 syntax, close to Java's); the others give no rows and "
                    "are counted. Empty: every database.",
                    check_regex,
                    RSQL_OPT_FIELD(rsql_cdc_json_conf_t, database_include, const char *)),
    RSQL_OPT_ROW_VF("canal-json.table.include", RSQL_OPT_STR, 0, "", 0, 0, NULL,
                    "Read only the messages whose `table` this regular expression matches as "
                    "a whole, as `canal-json.database.include`. Empty: every table.",
                    check_regex,
                    RSQL_OPT_FIELD(rsql_cdc_json_conf_t, table_include, const char *)),
    RSQL_OPT_END,
};

static const rsql_opt_def_t maxwell_opts[] = {
    RSQL_OPT_ROW_F("maxwell-json.ignore-parse-errors", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                   CDC_IGNORE_DOC(""),
                   RSQL_OPT_FIELD(rsql_cdc_json_conf_t, ignore_parse_errors, bool)),
    RSQL_OPT_ROW_F("maxwell-json.timestamp-format.standard", RSQL_OPT_ENUM, 0, "SQL", 0, 0,
                   cdc_ts_standards, CDC_TS_DOC,
                   RSQL_OPT_FIELD(rsql_cdc_json_conf_t, timestamp_standard, int)),
    RSQL_OPT_END,
};

const rsql_format_def_t rsql_canal_format_def = {
    .name = "canal-json",
    .description =
        "A changelog: Canal's JSON messages (MySQL's binlog), one statement's rows each: "
        "`INSERT` rows are inserts, `DELETE` rows deletes, `UPDATE` rows an update before "
        "(with the `old` values) and after; DDL messages give no rows. Values are read as "
        "in `json`, and a string holding a number or boolean reads as one. Written: "
        "`{\"data\":[{...}],\"type\":\"INSERT\"}` (an update as a DELETE and an INSERT, "
        "as Flink). See CHANGELOGS.md.",
    .opts = canal_opts,
    .conf_size = sizeof(rsql_cdc_json_conf_t),
};

const rsql_format_def_t rsql_maxwell_format_def = {
    .name = "maxwell-json",
    .description =
        "A changelog: Maxwell's JSON messages (MySQL's binlog), one row each: `insert` and "
        "`bootstrap-insert` are inserts, `delete` a delete, `update` an update before (with "
        "the `old` values) and after; bootstrap markers and DDL messages give no rows. "
        "Written: `{\"data\":{...},\"type\":\"insert\"}` (an update as a delete and an "
        "insert, as Flink). See CHANGELOGS.md.",
    .opts = maxwell_opts,
    .conf_size = sizeof(rsql_cdc_json_conf_t),
};

/* csv has no text form for nested values: a ROW, ARRAY or MAP column is refused. */
static rsql_err_t csv_check_columns(const char *table, int n, const char *const *names,
                                    const rsql_type_t *types, rsql_pos_t pos, rsql_error_t *err)
{
    for (int i = 0; i < n; i++) {
        if (rsql_type_is_nested(types[i])) {
            return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                                  "format 'csv' cannot hold column '%s' of table '%s' (%s); "
                                  "use format 'json' for nested types",
                                  names[i], table, rsql_type_name(types[i]));
        }
    }
    return RSQL_OK;
}

const rsql_format_def_t rsql_csv_format_def = {
    .name = "csv",
    .description = "One CSV record per body (or line), fields in column order (RFC 4180 quoting).",
    .opts = csv_opts,
    .finalize = csv_finalize,
    .check_columns = csv_check_columns,
    .conf_size = sizeof(rsql_csv_conf_t),
    .configure = csv_configure,
};

/* The raw format carries exactly one VARCHAR or BYTES column. */
static rsql_err_t raw_check_columns(const char *table, int n, const char *const *names,
                                    const rsql_type_t *types, rsql_pos_t pos, rsql_error_t *err)
{
    if (n != 1) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                              "format 'raw' needs exactly one VARCHAR or BYTES column, table '%s' "
                              "has %d columns",
                              table, n);
    }
    if (types[0] != RSQL_TYPE_VARCHAR && types[0] != RSQL_TYPE_BYTES) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, pos,
                              "format 'raw' needs exactly one VARCHAR or BYTES column, column "
                              "'%s' of table '%s' is %s",
                              names[0], table, rsql_type_name(types[0]));
    }
    return RSQL_OK;
}

const rsql_format_def_t rsql_raw_format_def = {
    .name = "raw",
    .description =
        "The whole body (or line) is the value of the table's one column, which must be "
        "VARCHAR (UTF-8 text) or BYTES; this is checked when the statement is planned. No "
        "options.",
    .opts = raw_opts,
    .check_columns = raw_check_columns,
};

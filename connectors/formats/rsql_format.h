/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_format: the formats (json, csv, raw) that turn a record body into a
 * row of a table (decode) and a row into a body (encode), and the changelog
 * formats (canal-json, maxwell-json) whose bodies hold changes (below). The text forms of
 * the values are base/rsql_value.h's, shared with CAST and the sinks.
 *
 * A decoder or encoder is made once per pipeline for one table (its columns
 * and the table's validated options, which include the format's `json.*` /
 * `csv.*` keys) and is then used by ONE thread at a time (the pipeline's
 * transform thread); it keeps scratch memory so the hot path does not
 * allocate per row except in the caller's arena.
 *
 * Decode errors are RSQL_ERR_DECODE with a precise message, e.g.
 *   invalid JSON at byte 17: expected ':' after an object key
 *   field 'amount': expected DOUBLE, got string "abc"
 *   missing field 'id'                           (json.fail-on-missing-field)
 *   line has 3 fields, table has 4 columns       (csv)
 */
#ifndef RSQL_FORMAT_H
#define RSQL_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_types.h"

typedef struct rsql_decoder rsql_decoder_t;
typedef struct rsql_encoder rsql_encoder_t;

/* json.timestamp-format */
enum { RSQL_JSON_TS_SQL, RSQL_JSON_TS_ISO8601, RSQL_JSON_TS_EPOCH_MILLIS };

/* The typed configuration of the json format (fmt_opts.c rows fill it). */
typedef struct rsql_json_conf {
    bool fail_on_missing_field;
    int timestamp_format; /* RSQL_JSON_TS_* */
} rsql_json_conf_t;

/* The typed configuration of the debezium-json format (fmt_opts.c rows fill it). */
typedef struct rsql_debezium_conf {
    bool schema_include;      /* debezium-json.schema-include */
    bool ignore_parse_errors; /* debezium-json.ignore-parse-errors */
    bool ignore_truncate;     /* debezium-json.ignore-truncate */
    int timestamp_standard;   /* ...timestamp-format.standard: RSQL_JSON_TS_SQL or _ISO8601 */
} rsql_debezium_conf_t;

/*
** The typed configuration of canal-json and maxwell-json (fmt_opts.c rows fill it; maxwell
** has no include options: they stay NULL). *.timestamp-format.standard: RSQL_JSON_TS_SQL or
** RSQL_JSON_TS_ISO8601, as debezium-json's.
*/
typedef struct rsql_cdc_json_conf {
    bool ignore_parse_errors;
    int timestamp_standard;
    const char *database_include; /* a regular expression the whole name matches, or "" */
    const char *table_include;
} rsql_cdc_json_conf_t;

/* The typed configuration of the csv format. */
typedef struct rsql_csv_conf {
    const char *delimiter_text; /* csv.field-delimiter as written */
    const char *quote_text;     /* csv.quote-character as written ("" = none) */
    const char *null_literal;   /* csv.null-literal ("" = the default NULL rules) */
    char delimiter;             /* the character delimiter_text stands for */
    char quote;                 /* the quote character, 0 = no quoting */
} rsql_csv_conf_t;

/*
** The character a csv character option's text stands for (`\t` and `tab`
** are a tab, `\\` a backslash), or -1 when it is not a single character.
** The one parser of these options (validation and configuration).
*/
int rsql_csv_char(const char *text);

/*
** A decoder of format ("json", "csv", "raw"; case-insensitive) for a table
** of n_columns columns. names/types are copied; format_conf is the format's
** typed configuration (rsql_json_conf_t, rsql_csv_conf_t; the option set's
** RSQL_CONF_FORMAT slot), read during the call only (NULL = every format
** option at its default). Errors: unknown format
** (RSQL_ERR_UNSUPPORTED), raw with a table that is not one VARCHAR or BYTES
** column (RSQL_ERR_SEMANTIC), out of memory. Caller destroys.
*/
rsql_decoder_t *rsql_decoder_new(const char *format, const void *format_conf, int n_columns,
                                 const char *const *names, const rsql_type_t *types,
                                 rsql_error_t *err);
void rsql_decoder_destroy(rsql_decoder_t *dec);

/*
** The full type of column col (a DECIMAL(p, s), ROW, ARRAY or MAP column;
** desc interned, see base/rsql_types.h). The json format decodes nested
** objects and arrays into ROW/ARRAY/MAP values by it: a JSON value of the
** wrong type anywhere inside, or a DECIMAL that does not fit, is
** RSQL_ERR_DECODE naming the path ("field 'o.items[2].qty': expected INT,
** got string \"x\""). Encoders need no descriptor: nested values carry
** theirs.
*/
void rsql_decoder_set_desc(rsql_decoder_t *dec, int col, const rsql_tdesc_t *desc);

/*
** Projection pushdown (json): after rsql_decoder_prune, the decoder builds
** values only for what rsql_decoder_use marks: a whole column (depth 0) or
** a ROW field path (path[0..depth), field indexes; set the descriptors
** first). Everything else is validated as JSON and skipped without building
** a value, and reads as NULL. Other formats decode every column anyway.
*/
rsql_err_t rsql_decoder_prune(rsql_decoder_t *dec, rsql_error_t *err);
rsql_err_t rsql_decoder_use(rsql_decoder_t *dec, int col, const int *path, int depth,
                            rsql_error_t *err);

/*
** Decode one body (raw, len bytes; need not be NUL-terminated) into row,
** an array of n_columns values supplied by the caller (e.g. in the batch
** arena). Strings and bytes of the values are copied into arena, so they
** live as long as it does and not as long as raw. On error row is partly
** written and must not be used; RSQL_ERR_DECODE with the message above.
** @locality one thread at a time per decoder
*/
rsql_err_t rsql_decode(rsql_decoder_t *dec, const uint8_t *raw, size_t len, rsql_arena_t *arena,
                       rsql_value_t *row, rsql_error_t *err);

/*
** An encoder, as rsql_decoder_new. Encoded bodies carry no trailing newline
** (line-oriented sinks add it).
*/
rsql_encoder_t *rsql_encoder_new(const char *format, const void *format_conf, int n_columns,
                                 const char *const *names, const rsql_type_t *types,
                                 rsql_error_t *err);
void rsql_encoder_destroy(rsql_encoder_t *enc);

/*
** APPEND the encoding of row (n_columns values, in column order; a value's
** type may be RSQL_TYPE_NULL or is_null for NULL) to out. The caller resets
** out when it wants one body per buffer. Errors: out of memory (out->oom),
** raw with a NULL row value is written as an empty body.
** @locality one thread at a time per encoder
*/
rsql_err_t rsql_encode(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *out,
                       rsql_error_t *err);

/* True when format is one this build has (json, csv, raw and the changelog formats). */
bool rsql_format_known(const char *format);

/* ---- changelogs (docs/CHANGELOGS.md) */

/*
** True for a changelog format (debezium-json, canal-json, maxwell-json): a body holds
** changes (inserts, updates, deletes, several rows in one body), not one row to append.
*/
bool rsql_format_changelog(const char *format);

/*
** The rows of one body: n rows (0 = nothing to apply: a tombstone, a DDL message or a
** truncate the options skip), each an array of the decoder's n_columns values plus one per
** rsql_decoder_want_meta, in arena; kinds[i] is rows[i]'s rsql_rowkind_t.
*/
typedef struct rsql_changes {
    int n;
    rsql_value_t **rows;
    uint8_t *kinds;
} rsql_changes_t;

/*
** Decode one body into its changes (arena as rsql_decode). Every format: json, csv and raw
** give one INSERT row. An update of a changelog format gives UPDATE_BEFORE then
** UPDATE_AFTER (the before image as far as the format has it), or only the UPDATE_AFTER
** after rsql_decoder_skip_before (below). Errors as rsql_decode.
** @locality one thread at a time per decoder
*/
rsql_err_t rsql_decode_changes(rsql_decoder_t *dec, const uint8_t *raw, size_t len,
                               rsql_arena_t *arena, rsql_changes_t *out, rsql_error_t *err);

/*
** Updates without their UPDATE_BEFORE, for a sink that applies changes by a key (an upsert by
** the key needs only the row after an update). key[0..n_key) are the decoder's columns the
** sink's key is made of. From now on a changelog format gives an update that keeps those
** columns' values as its UPDATE_AFTER alone, without building the row before it; an update
** that changes one of them, or of which the format cannot tell, still gives both rows (the
** UPDATE_BEFORE deletes the old key). How each format tells:
**   debezium-json: before's key columns equal after's (rsql_value_same_key: a NULL or nested
**     value in the key counts as a change); before null gives only UPDATE_AFTER anyway;
**   canal-json, maxwell-json: "old" (the previous values of the changed columns) holds none
**     of the key's columns, or is absent.
** Other formats: no effect (they give no updates). Call before the first decode. The caller
** (the planner) ensures nothing else reads the UPDATE_BEFORE rows: a filter that may pass one
** and not its UPDATE_AFTER needs them. RSQL_ERR_INTERNAL for no or a bad column, NOMEM.
*/
rsql_err_t rsql_decoder_skip_before(rsql_decoder_t *dec, const int *key, int n_key,
                                    rsql_error_t *err);

/*
** A format's own metadata, readable as METADATA columns (a changelog format's database,
** table, timestamps...): its key and type. rsql_format_metadata gives the list, ended by
** a NULL key, or NULL when the format has none.
*/
typedef struct rsql_format_meta {
    const char *key;
    rsql_type_t type;
    const char *doc;
    /* The full type as a column type is written ("MAP<STRING, INT>", "ARRAY<STRING>"), for
       a MAP, ARRAY, ROW or DECIMAL key: a METADATA column must have it (NULL: type alone,
       which a column of such a type never matches). */
    const char *type_text;
} rsql_format_meta_t;
const rsql_format_meta_t *rsql_format_metadata(const char *format);

/*
** Make dec fill the format metadata key (one of rsql_format_metadata's) into each decoded
** row, after its n_columns values: the k-th call's key into value n_columns + k (NULL when
** a body does not have it). Call before the first decode. RSQL_ERR_SEMANTIC for a key the
** format does not have.
*/
rsql_err_t rsql_decoder_want_meta(rsql_decoder_t *dec, const char *key, rsql_error_t *err);

/*
** APPEND the encoding of row with its kind (rsql_rowkind_t) to out, as rsql_encode. A
** changelog format writes the kind in its envelope; json, csv and raw write an INSERT as
** rsql_encode does and refuse the other kinds (RSQL_ERR_UNSUPPORTED: the planner sends
** changes only to a changelog format).
** @locality one thread at a time per encoder
*/
rsql_err_t rsql_encode_change(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                              rsql_buf_t *out, rsql_error_t *err);

/*
** The bodies a changelog decoder gave no rows for, by cause, since it was made: DDL and
** control messages (a canal isDdl message, a maxwell bootstrap-start, a debezium truncate
** under debezium-json.ignore-truncate), messages of another
** database or table (canal-json.*.include), and bodies that failed to decode but were
** skipped (*.ignore-parse-errors). For the runtime to log; all 0 for the other formats.
*/
typedef struct rsql_decode_skips {
    uint64_t ddl;
    uint64_t filtered;
    uint64_t bad;
} rsql_decode_skips_t;
void rsql_decoder_skips(const rsql_decoder_t *dec, rsql_decode_skips_t *out);

#endif

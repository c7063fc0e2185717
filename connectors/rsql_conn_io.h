/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_conn_io: the data-path vtables (rsql_io.h) of the embedded
 * connectors, which their descriptors point at, and the helpers their data
 * paths share (result arrays, interruptible sleep). Options are not read
 * here: a data path reads its typed configuration (ctx->conf,
 * ctx->format_conf; base/rsql_conf.h).
 */
#ifndef RSQL_CONN_IO_H
#define RSQL_CONN_IO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_time.h" /* rsql_now_ms, deadlines, monotonic condition variables */
#include "connectors/rsql_io.h"
#include "connectors/formats/rsql_format.h"

/* The embedded connectors' vtables (their descriptors point at them). */
extern const rsql_source_ops_t rsql_datagen_source_ops;
extern const rsql_source_ops_t rsql_file_source_ops;
extern const rsql_sink_ops_t rsql_file_sink_ops;
extern const rsql_source_ops_t rsql_sqlite_source_ops;
extern const rsql_sink_ops_t rsql_sqlite_sink_ops;
extern const rsql_lookup_ops_t rsql_sqlite_lookup_ops;
extern const rsql_sink_ops_t rsql_print_sink_ops;
extern const rsql_sink_ops_t rsql_blackhole_sink_ops;

/*
** Make *results hold at least n sink results (a sink's per-batch result
** array, grown on demand and reused; new space is zeroed: RSQL_OK, no meta).
** RSQL_ERR_NOMEM with err set when it cannot grow; *results is unchanged then.
*/
rsql_err_t rsql_io_results_reserve(rsql_sink_result_t **results, int *cap, int n,
                                   rsql_error_t *err);

/*
** Append the encoding of row, of kind (rsql_rowkind_t; INSERT for every row that is not part
** of a changelog), to buf for a sink that encodes rows: rsql_encode_change, so a changelog
** format writes the kind and an append-only format refuses any kind but INSERT. A row the
** format refuses (any error but out of memory: e.g. a csv value that cannot be written
** unquoted, a -D in json) is that row's own failure: what it appended since mark is dropped
** from buf, *r gets the reason (not retriable: errors.tolerance decides), and the other rows
** go on. Returns RSQL_OK when the row is in buf, RSQL_ERR_NOMEM (err set) when the whole
** write must fail, another code when the row was refused (*r filled, err untouched).
*/
rsql_err_t rsql_io_encode_change(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                 rsql_buf_t *buf, size_t mark, rsql_sink_result_t *r,
                                 rsql_error_t *err);

/*
** Applying a changelog by a key (rsql_sink_ctx_t.changelog, .key_columns): what rows[i]
** does to the table, in row order. UPSERT: INSERT and UPDATE_AFTER (the row of its key is
** now this one). DELETE: DELETE, and UPDATE_BEFORE (a -U whose +U a filter dropped must
** remove the row). SKIP: an UPDATE_BEFORE directly followed, in rows[i + 1] (i + 1 < to),
** by the UPDATE_AFTER of the same key from the same record: the upsert that follows sets
** the row anyway. n_key key column indexes in key (their values compared as the sink would
** write them; a key of a nested type is never found the same, which only costs a delete).
** CLEAR: RSQL_ROW_CLEAR, every row of the table deleted (DELETE FROM t), in row order.
*/
enum { RSQL_IO_UPSERT, RSQL_IO_DELETE, RSQL_IO_SKIP, RSQL_IO_CLEAR };
int rsql_io_change_op(const rsql_sink_row_t *rows, int i, int to, int n_key, const int *key);

/*
** The end of a transaction that holds rows[from, ...): from + max (at most n), moved on so
** that it does not split the rows of one record (a record of several rows: rsql_record_t
** .n_rows), which are consecutive in a write and are committed together with the record's
** position or identity, nor a source transaction (rows marked RSQL_REC_IN_TXN go with the
** row that ends theirs: a transaction of the source is one of the sink, whatever its size).
*/
int rsql_io_chunk_end(const rsql_sink_row_t *rows, int from, int64_t max, int n);

/*
** The source positions an exactly-once sink stores with rows[from, to): the last offset of
** each partition among them (rows without a partition name or record are skipped), in order
** of first appearance, handed to each() in groups of at most RSQL_IO_POS_GROUP partitions
** (names[k] is the partition name, offs[k] its offset, keys[k] its text part, the record's
** pos_key, or NULL; m >= 1). A partition whose group was
** handed on already comes again in a later group with its later offset, so storing each
** group as an upsert in turn leaves every partition at its last offset. Stops at the first
** result other than RSQL_OK and returns it; RSQL_OK when all went through.
*/
#define RSQL_IO_POS_GROUP 32
typedef rsql_err_t (*rsql_io_positions_fn)(void *opaque, const char *const *names,
                                           const int64_t *offs, const char *const *keys, int m);
rsql_err_t rsql_io_positions_each(const rsql_sink_row_t *rows, int from, int to,
                                  rsql_io_positions_fn each, void *opaque);

/*
** A source's interruptible sleep: wait on cv (made by rsql_cond_init_monotonic)
** under mu until until_ms (rsql_now_ms time) or until *woken is set by a
** wakeup. Clears *woken; returns whether it was set. Never spins.
*/
/*
** A position as one text (the catalog's value, a Kafka positions record): the offset in
** decimal, then, when it has a text part (rsql_record_t.pos_key), one space and that text.
** rsql_io_position_text appends it to b; rsql_io_position_parse reads s[0, len): true with
** *offset and *key (s + where the text part starts, or NULL: none) when s is one as
** rsql_io_position_text writes it, false otherwise (a value written by something else).
*/
void rsql_io_position_text(rsql_buf_t *b, int64_t offset, const char *key);
bool rsql_io_position_parse(const char *s, size_t len, int64_t *offset, const char **key);

/*
** The text part of a position that is a row key of n values (postgres-cdc's snapshot of a
** table keyed by other than one integer): each value as "<length>:<bytes>," (a netstring),
** in key order. rsql_io_key_text appends it to b; rsql_io_key_parse splits s (NUL-ended)
** into at most max values (vals[k] points into buf, NUL-ended, buf at least strlen(s) + 1
** bytes): their number, or -1 when s is not such a text as rsql_io_key_text writes (a bad
** length or one with a leading zero, a missing ',', more than max values, a NUL inside a
** value).
*/
void rsql_io_key_text(rsql_buf_t *b, int n, const char *const *vals);
int rsql_io_key_parse(const char *s, char *buf, const char **vals, int max);

bool rsql_io_sleep_until(pthread_mutex_t *mu, pthread_cond_t *cv, bool *woken, int64_t until_ms);

#endif

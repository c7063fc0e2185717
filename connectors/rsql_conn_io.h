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
** Append the encoding of row to buf for a line-per-row sink. A row the format refuses (any
** error but out of memory: e.g. a csv value that cannot be written unquoted) is that row's
** own failure: what it appended since mark is dropped from buf, *r gets the reason (not
** retriable: errors.tolerance decides), and the other rows go on. Returns RSQL_OK when
** the row is in buf, RSQL_ERR_NOMEM (err set) when the whole write must fail, another code
** when the row was refused (*r filled, err untouched).
*/
rsql_err_t rsql_io_encode_row(rsql_encoder_t *enc, const rsql_value_t *row, rsql_buf_t *buf,
                              size_t mark, rsql_sink_result_t *r, rsql_error_t *err);

/*
** As rsql_io_encode_row, for a row of kind (rsql_rowkind_t): rsql_encode_change, so a
** changelog format writes the kind and an append-only format refuses any kind but INSERT
** (that row's own failure, as a value the format refuses).
*/
rsql_err_t rsql_io_encode_change(rsql_encoder_t *enc, const rsql_value_t *row, int kind,
                                 rsql_buf_t *buf, size_t mark, rsql_sink_result_t *r,
                                 rsql_error_t *err);

/*
** The source positions an exactly-once sink stores with rows[from, to): the last offset of
** each partition among them (rows without a partition name or record are skipped), in order
** of first appearance, handed to each() in groups of at most RSQL_IO_POS_GROUP partitions
** (names[k] is the partition name, offs[k] its offset; m >= 1). A partition whose group was
** handed on already comes again in a later group with its later offset, so storing each
** group as an upsert in turn leaves every partition at its last offset. Stops at the first
** result other than RSQL_OK and returns it; RSQL_OK when all went through.
*/
#define RSQL_IO_POS_GROUP 32
typedef rsql_err_t (*rsql_io_positions_fn)(void *opaque, const char *const *names,
                                           const int64_t *offs, int m);
rsql_err_t rsql_io_positions_each(const rsql_sink_row_t *rows, int from, int to,
                                  rsql_io_positions_fn each, void *opaque);

/*
** A source's interruptible sleep: wait on cv (made by rsql_cond_init_monotonic)
** under mu until until_ms (rsql_now_ms time) or until *woken is set by a
** wakeup. Clears *woken; returns whether it was set. Never spins.
*/
bool rsql_io_sleep_until(pthread_mutex_t *mu, pthread_cond_t *cv, bool *woken, int64_t until_ms);

#endif

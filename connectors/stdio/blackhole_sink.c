/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The blackhole sink: discards every row and reports the batch written at
 * once, inside write (for benchmarks and tests).
 *
 * Threads: everything on the write thread.
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"

#include <string.h>

struct rsql_sink {
    rsql_sink_result_t *results;
    int results_cap;
    rsql_delivery_cb deliver;
    void *deliver_opaque;
};

static rsql_err_t bh_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    rsql_sink_t *k = rsql_calloc(1, sizeof *k);
    if (!k) {
        return rsql_error_nomem(err);
    }
    k->deliver = ctx->deliver;
    k->deliver_opaque = ctx->deliver_opaque;
    *out = k;
    return RSQL_OK;
}

static rsql_err_t bh_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                           rsql_error_t *err)
{
    (void)rows;
    rsql_err_t grc = rsql_io_results_reserve(&k->results, &k->results_cap, n, err);
    if (grc != RSQL_OK) {
        return grc;
    }
    if (k->deliver) {
        k->deliver(k->deliver_opaque, batch_id, n, k->results);
    }
    return RSQL_OK;
}

static rsql_err_t bh_flush(rsql_sink_t *k, int timeout_ms, rsql_error_t *err)
{
    (void)k;
    (void)timeout_ms;
    (void)err;
    return RSQL_OK;
}

static void bh_close(rsql_sink_t *k)
{
    if (k) {
        rsql_free(k->results);
        rsql_free(k);
    }
}

/*
** The blackhole sink vtable (rsql_io.h). Static.
*/
const rsql_sink_ops_t rsql_blackhole_sink_ops = {
    .open = bh_open,
    .write = bh_write,
    .flush = bh_flush,
    .stored_positions = NULL,
    .close = bh_close,
};

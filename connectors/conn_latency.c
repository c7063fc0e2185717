/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Latency histograms (rsql_latency_hist_t, connectors/rsql_io.h): the engine records a
 * batch's send and end-to-end latencies in them, a source its ack latency (from any of its
 * threads, plugins included), and rocketsql serve exposes them as Prometheus histograms.
 */
#include "config.h"
#include "connectors/rsql_io.h"

const double rsql_latency_bounds_s[RSQL_LATENCY_BUCKETS - 1] = {
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30};

/* See rsql_io.h. */
void rsql_latency_observe(rsql_latency_hist_t *h, int64_t us, int64_t n)
{
    if (n <= 0) {
        return;
    }
    if (us < 0) {
        us = 0;
    }
    int b = 0;
    while (b < RSQL_LATENCY_BUCKETS - 1 && (double)us > rsql_latency_bounds_s[b] * 1e6) {
        b++;
    }
    atomic_fetch_add(&h->bucket[b], n);
    atomic_fetch_add(&h->count, n);
    atomic_fetch_add(&h->sum_us, us * n);
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_backoff: exponential backoff with a cap (base/rsql_backoff.h). Pure arithmetic.
 */
#include "config.h"
#include "base/rsql_backoff.h"

#include <math.h>

/* See rsql_backoff.h. */
int64_t rsql_backoff_next(int64_t cur_ms, int64_t first_ms, int64_t max_ms)
{
    int64_t w;
    if (cur_ms <= 0) {
        w = first_ms;
    } else {
        w = cur_ms > INT64_MAX / 2 ? INT64_MAX : cur_ms * 2;
    }
    if (w > max_ms) {
        w = max_ms;
    }
    return w < 0 ? 0 : w;
}

/* See rsql_backoff.h. */
int64_t rsql_backoff_nth(int64_t first_ms, double factor, int64_t max_ms, int64_t attempt)
{
    if (factor < 1.0 || factor != factor) {
        factor = 1.0;
    }
    double w = (double)(first_ms < 0 ? 0 : first_ms);
    if (attempt > 1) {
        w *= pow(factor, (double)(attempt - 1)); /* inf past the double range: capped below */
    }
    if (!(w <= (double)max_ms)) {
        w = (double)max_ms;
    }
    return w < 0 ? 0 : (int64_t)w;
}

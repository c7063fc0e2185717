/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_backoff: the one exponential backoff of rocketsql. Every wait between two tries of a
 * failed operation (the runtime's retries, the RocketMQ sink's resends and the source's
 * receives, the Telemetry stream's re-opens, the PostgreSQL sink's held rows, the server's job
 * restarts) grows here: it starts at a first wait, is multiplied (doubled, unless the caller
 * configures a factor) after every failure, and never exceeds a cap. Callers keep either the
 * current wait (rsql_backoff_next) or the attempt number (rsql_backoff_nth); the clock and the
 * sleeping stay with them, so this arithmetic is deterministic and testable.
 *
 * Base layer: no state, thread-safe.
 */
#ifndef RSQL_BACKOFF_H
#define RSQL_BACKOFF_H

#include <stdint.h>

/*
** The wait after one more failure when the last wait was cur_ms: first_ms when cur_ms <= 0
** (the first failure), else cur_ms doubled; never above max_ms (nor below 0). Doubling
** saturates instead of overflowing.
*/
int64_t rsql_backoff_next(int64_t cur_ms, int64_t first_ms, int64_t max_ms);

/*
** The wait before try number attempt + 1, after attempt failures (attempt 1 = the first
** failure): first_ms * factor^(attempt - 1), capped at max_ms and never below 0. attempt < 1
** counts as 1; factor < 1 counts as 1 (a fixed wait).
*/
int64_t rsql_backoff_nth(int64_t first_ms, double factor, int64_t max_ms, int64_t attempt);

#endif

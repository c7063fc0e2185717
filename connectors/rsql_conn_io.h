/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_conn_io: where the runtime finds the data path (rsql_io.h vtables)
 * of a connector by name, kept apart from the registry (conn_registry.c),
 * which only describes connectors and their options. Also the option
 * readers the embedded connectors and the formats share: they fall back to
 * a given default when an option is neither set nor has a default, and
 * they accept the option whatever type its table row declares (a rate or a
 * number, a duration or a number of ms), so a data path never aborts on a
 * table detail.
 */
#ifndef RSQL_CONN_IO_H
#define RSQL_CONN_IO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_time.h" /* rsql_now_ms, deadlines, monotonic condition variables */
#include "connectors/rsql_io.h"

/* The embedded connectors' vtables (their descriptors point at them). */
extern const rsql_source_ops_t rsql_datagen_source_ops;
extern const rsql_source_ops_t rsql_file_source_ops;
extern const rsql_sink_ops_t rsql_file_sink_ops;
extern const rsql_source_ops_t rsql_sqlite_source_ops;
extern const rsql_sink_ops_t rsql_sqlite_sink_ops;
extern const rsql_sink_ops_t rsql_print_sink_ops;
extern const rsql_sink_ops_t rsql_blackhole_sink_ops;

/*
** Option readers. opts may be NULL; name need not be in opts' tables. Each
** returns the value given, else the table's default, else dflt. Strings are
** borrowed from opts. _int reads INT/SIZE/DURATION (ms) rows and numbers
** written as text; _double also reads RATE (per second) rows.
*/
const char *rsql_io_opt_str(const rsql_optset_t *opts, const char *name, const char *dflt);
int64_t rsql_io_opt_int(const rsql_optset_t *opts, const char *name, int64_t dflt);
double rsql_io_opt_double(const rsql_optset_t *opts, const char *name, double dflt);
bool rsql_io_opt_bool(const rsql_optset_t *opts, const char *name, bool dflt);
/* True when name was given explicitly (false when it is not in the tables). */
bool rsql_io_opt_has(const rsql_optset_t *opts, const char *name);

/*
** Make *results hold at least n sink results (a sink's per-batch result
** array, grown on demand and reused; new space is zeroed: RSQL_OK, no meta).
** RSQL_ERR_NOMEM with err set when it cannot grow; *results is unchanged then.
*/
rsql_err_t rsql_io_results_reserve(rsql_sink_result_t **results, int *cap, int n,
                                   rsql_error_t *err);

/*
** A source's interruptible sleep: wait on cv (made by rsql_cond_init_monotonic)
** under mu until until_ms (rsql_now_ms time) or until *woken is set by a
** wakeup. Clears *woken; returns whether it was set. Never spins.
*/
bool rsql_io_sleep_until(pthread_mutex_t *mu, pthread_cond_t *cv, bool *woken, int64_t until_ms);

#endif

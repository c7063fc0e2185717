/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Helpers the embedded connectors share (rsql_conn_io.h). A connector's
 * data path is found through its descriptor (rsql_connector_def_t.source,
 * .sink), never by its name.
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "base/rsql_mem.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

/* The effective text of name and its row, or NULL (not in the tables / unset, no default). */
static const char *opt_text(const rsql_optset_t *opts, const char *name,
                            const rsql_opt_def_t **def)
{
    *def = NULL;
    if (!opts || !name) {
        return NULL;
    }
    *def = rsql_optset_lookup_def(opts, name);
    if (!*def) {
        return NULL;
    }
    return rsql_optset_str(opts, name);
}

/*
** The text of option name (given, else default, else dflt). Borrowed.
*/
const char *rsql_io_opt_str(const rsql_optset_t *opts, const char *name, const char *dflt)
{
    const rsql_opt_def_t *d;
    const char *v = opt_text(opts, name, &d);
    return v ? v : dflt;
}

/*
** The integer value of option name: INT, SIZE (bytes), DURATION (ms), or a
** number given as text; dflt when unset or unreadable.
*/
int64_t rsql_io_opt_int(const rsql_optset_t *opts, const char *name, int64_t dflt)
{
    const rsql_opt_def_t *d;
    const char *v = opt_text(opts, name, &d);
    int64_t out;
    double dv;
    if (!v) {
        return dflt;
    }
    if (d->type == RSQL_OPT_DURATION) {
        return rsql_opt_parse_duration(v, &out) == RSQL_OK ? out : dflt;
    }
    if (d->type == RSQL_OPT_SIZE) {
        return rsql_opt_parse_size(v, &out) == RSQL_OK ? out : dflt;
    }
    if (rsql_opt_parse_int(v, &out) == RSQL_OK) {
        return out;
    }
    if (rsql_opt_parse_double(v, &dv) == RSQL_OK && dv > -9.2e18 && dv < 9.2e18) {
        return (int64_t)dv;
    }
    if (rsql_opt_parse_duration(v, &out) == RSQL_OK) {
        return out;
    }
    if (rsql_opt_parse_size(v, &out) == RSQL_OK) {
        return out;
    }
    return dflt;
}

/*
** The number value of option name: DOUBLE, INT, RATE (per second) or a
** number given as text; dflt when unset or unreadable.
*/
double rsql_io_opt_double(const rsql_optset_t *opts, const char *name, double dflt)
{
    const rsql_opt_def_t *d;
    const char *v = opt_text(opts, name, &d);
    double out;
    if (!v) {
        return dflt;
    }
    if (d->type == RSQL_OPT_RATE) {
        return rsql_opt_parse_rate(v, &out) == RSQL_OK ? out : dflt;
    }
    if (rsql_opt_parse_double(v, &out) == RSQL_OK) {
        return out;
    }
    if (rsql_opt_parse_rate(v, &out) == RSQL_OK) {
        return out;
    }
    return dflt;
}

/*
** The boolean value of option name; dflt when unset or unreadable.
*/
bool rsql_io_opt_bool(const rsql_optset_t *opts, const char *name, bool dflt)
{
    const rsql_opt_def_t *d;
    const char *v = opt_text(opts, name, &d);
    bool out;
    if (!v) {
        return dflt;
    }
    return rsql_opt_parse_bool(v, &out) == RSQL_OK ? out : dflt;
}

/*
** True when option name was given explicitly.
*/
bool rsql_io_opt_has(const rsql_optset_t *opts, const char *name)
{
    return opts && name && rsql_optset_lookup_def(opts, name) && rsql_optset_find(opts, name) >= 0;
}

rsql_err_t rsql_io_results_reserve(rsql_sink_result_t **results, int *cap, int n,
                                   rsql_error_t *err)
{
    if (n <= *cap) {
        return RSQL_OK;
    }
    rsql_sink_result_t *nr = rsql_realloc(*results, (size_t)n * sizeof *nr);
    if (!nr) {
        return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    memset(nr + *cap, 0, (size_t)(n - *cap) * sizeof *nr);
    *results = nr;
    *cap = n;
    return RSQL_OK;
}

bool rsql_io_sleep_until(pthread_mutex_t *mu, pthread_cond_t *cv, bool *woken, int64_t until_ms)
{
    pthread_mutex_lock(mu);
    while (!*woken && rsql_now_ms() < until_ms) {
        if (rsql_cond_wait_until(cv, mu, until_ms) == ETIMEDOUT) {
            break;
        }
    }
    bool was = *woken;
    *woken = false;
    pthread_mutex_unlock(mu);
    return was;
}

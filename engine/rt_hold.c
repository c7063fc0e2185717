/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * What a run may leave invisible to the next one. A source whose connector
 * has a hold hook (rsql_connector_def_t.hold: a RocketMQ consumer, whose held messages come
 * back only after their invisible duration) runs with a hold key (what later runs share: its
 * consumer group and topic) and a hold time. The run records in the catalog until when what it
 * took may stay invisible - now + hold time + a margin for the time to its next record, renewed
 * with every progress, so a run killed with -9 leaves a time that covers it - and a new run
 * of a bounded source first looks at the newest finished run of its key: when that one was
 * interrupted or failed and its time is still ahead, the new run's source gets it as
 * not_before_ms, and the bounded read does not end before the messages that run held can be
 * seen again. (A "done" run resolved everything it took; what it deferred by design it
 * reports in its summary instead.)
 *
 * It owns the not-before rule and the hold records of a run; it must not touch a record's
 * outcome, and it knows the source only through the pipeline's configuration (the connector
 * never sees the catalog).
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_time.h"

#include <inttypes.h>
#include <string.h>

/* The catalog's busy timeout: the longest a progress record can be late behind a lock. */
#define HOLD_BUSY_MARGIN_MS 5000

/* See pipeline_int.h. */
int64_t rsql_pipeline__not_before(const char *prev_status, int64_t prev_hold_until_ms,
                                  int64_t now_wall_ms)
{
    if (!prev_status ||
        (strcmp(prev_status, "interrupted") != 0 && strcmp(prev_status, "failed") != 0)) {
        return 0; /* done: it resolved what it took */
    }
    return prev_hold_until_ms > now_wall_ms ? prev_hold_until_ms : 0;
}

/* Until when this run's messages may stay invisible if it stopped now. */
static int64_t hold_until(const rsql_pipeline_t *p, bool final)
{
    int64_t margin = final ? 0 : 2 * p->conf.flush_interval_ms + HOLD_BUSY_MARGIN_MS;
    return rsql_wall_ms() + p->conf.hold_ms + margin;
}

/* See pipeline_int.h. */
void rsql_pipeline__hold_begin(rsql_pipeline_t *p)
{
    p->not_before_ms = 0;
    if (p->run_id <= 0 || !p->conf.cat || !p->conf.hold_key || p->conf.hold_ms <= 0) {
        return;
    }
    rsql_error_t e;
    rsql_error_clear(&e);
    bool found = false;
    int64_t prev = 0, until = 0;
    char *status = NULL;
    if (!p->conf.source_bounded) {
        /* an unbounded read never ends by itself: nothing to wait for, only to record */
    } else if (rsql_catalog_run_hold_last(p->conf.cat, p->conf.hold_key, p->run_id, &found, &prev,
                                   &status, &until, &e) != RSQL_OK) {
        rsql_log(RSQL_LOG_WARN, "runtime",
                 "run %" PRId64 ": cannot read the previous run of %s: %s", p->run_id,
                 p->conf.hold_key, e.msg);
    } else if (found) {
        int64_t now = rsql_wall_ms();
        p->not_before_ms = rsql_pipeline__not_before(status, until, now);
        if (p->not_before_ms > 0) {
            char d[32];
            int64_t left_ms = (p->not_before_ms - now + 999) / 1000 * 1000;
            rsql_log(RSQL_LOG_WARN, "runtime",
                     "run %" PRId64 ": the previous run %" PRId64 " of %s ended '%s'; what it "
                     "held may stay invisible for %s more, so a bounded read does not end "
                     "before then",
                     p->run_id, prev, p->conf.hold_key, status,
                     rsql_opt_format_duration(left_ms, d, sizeof d));
        }
    }
    rsql_free(status);
    /* the key now; a time only once the source is open (a run that could not even open it,
       say the proxy is down, took nothing and holds nothing back) */
    rsql_catalog_run_hold(p->conf.cat, p->run_id, p->conf.hold_key, 0, NULL);
}

/* See pipeline_int.h. */
void rsql_pipeline__hold_touch(rsql_pipeline_t *p, bool final)
{
    if (p->run_id <= 0 || !p->conf.cat || !p->conf.hold_key || p->conf.hold_ms <= 0 ||
        (final && !p->hold_active)) {
        return;
    }
    p->hold_active = true;
    rsql_catalog_run_hold(p->conf.cat, p->run_id, NULL, hold_until(p, final), NULL);
}

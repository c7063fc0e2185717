/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The live status line and the final summary of a run. On a terminal the
 * worker redraws one line with '\r' every status.interval:
 *
 *   12345 rows/s  in flight 512  read=100000 written=97000 filtered=2000
 *   dead_lettered=0 failed=0  41.2%
 *
 * (one line; the percentage only when the source knows its total). When
 * the run ends the line is cleared and the summary is printed whether or
 * not the output is a terminal:
 *
 *   read=N written=N filtered=N dead_lettered=N failed=N elapsed=12.34s flowing=0.85s
 *   idle=11.49s rate=N rows/s
 *
 * (one line): flowing is the time records flowed, from the first one read to the last one
 * given its outcome (written, filtered, dead-lettered or failed), and the rate is over that
 * time; idle is the time after the last outcome until the run ended (a bounded run's
 * scan.idle-timeout, a drain); elapsed also holds the start before the first record.
 * followed, when the source says the run leaves messages the next run cannot see yet (its
 * leftover hook), by "; " and that text: "...rows/s; rocketmq: left 3 held and 12 deferred
 * messages, invisible for up to 30min"; and then by what the transform says of its work (a
 * lookup join: "lookup of customers: 1200 keys asked in 40 calls, 950 rows found; cache:
 * 18800 hits, 1200 misses, 1000 keys held (160 KiB)").
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_term.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int64_t done_count(rsql_pipeline_t *p)
{
    return p->written + p->filtered + p->dead_lettered + p->failed;
}

/* Note when the last record got its outcome (for the summary). @locality worker */
void rsql_pipeline__status_note(rsql_pipeline_t *p, int64_t now_ms)
{
    int64_t done = done_count(p);
    if (done != p->last_done_seen) {
        p->last_done_seen = done;
        p->last_done_ms = now_ms;
    }
}

/*
** Redraw the status line when the output is a terminal and status.interval
** has passed. @locality worker
*/
void rsql_pipeline__status_tick(rsql_pipeline_t *p, int64_t now_ms)
{
    if (!p->status_tty || !p->conf.status_out ||
        now_ms - p->last_status_ms < p->conf.status_interval_ms) {
        return;
    }
    int64_t done = done_count(p);
    int64_t dt = now_ms - p->last_status_ms;
    int64_t rate = dt > 0 ? (done - p->last_status_done) * 1000 / dt : 0;
    p->last_status_ms = now_ms;
    p->last_status_done = done;
    int64_t read = atomic_load(&p->read);
    char line[1024];
    int n = snprintf(line, sizeof line,
                     "%" PRId64 " rows/s  in flight %" PRId64 "  read=%" PRId64
                     " written=%" PRId64 " filtered=%" PRId64 " dead_lettered=%" PRId64
                     " failed=%" PRId64,
                     rate, read - done, read, p->written, p->filtered, p->dead_lettered,
                     p->failed);
    if (p->total > 0 && n > 0 && (size_t)n < sizeof line) {
        n += snprintf(line + n, sizeof line - (size_t)n, "  %.1f%%",
                      100.0 * (double)done / (double)p->total);
    }
    /* the source's own state, e.g. the busiest lite topics (in flight/deferred/delivered) */
    if (p->src && p->conf.src_ops->describe && n > 0 && (size_t)n + 2 < sizeof line) {
        char *at = line + n;
        if (p->conf.src_ops->describe(p->src, true, at + 2, sizeof line - (size_t)n - 2) > 0) {
            at[0] = ' ';
            at[1] = ' ';
        }
    }
    /* \r, the line, then clear to the end of the line; a sink printing to the same terminal
       clears it before its rows and draws it again after them (base/rsql_term.h) */
    rsql_term_line_draw(p->conf.status_out, line);
    p->status_drawn = true;
}

/*
** The summary line (no newline) into buf (see the file comment). Times have two decimals;
** the rate is records read per second while they flowed.
*/
void rsql_pipeline__summary(rsql_pipeline_t *p, char *buf, size_t size)
{
    int64_t ms = rsql_pipeline_elapsed_ms(p);
    int64_t end = p->start_ms + ms;
    int64_t read = atomic_load(&p->read);
    int64_t first = atomic_load(&p->first_read_ms);
    int64_t flowing = first && p->last_done_ms > first ? p->last_done_ms - first : 0;
    int64_t idle = p->last_done_ms ? end - p->last_done_ms : ms;
    if (idle < 0) {
        idle = 0;
    }
    int64_t rate = read * 1000 / (flowing > 0 ? flowing : 1);
    snprintf(buf, size,
             "read=%" PRId64 " written=%" PRId64 " filtered=%" PRId64 " dead_lettered=%" PRId64
             " failed=%" PRId64 " elapsed=%" PRId64 ".%02" PRId64 "s flowing=%" PRId64
             ".%02" PRId64 "s idle=%" PRId64 ".%02" PRId64 "s rate=%" PRId64 " rows/s",
             read, p->written, p->filtered, p->dead_lettered, p->failed, ms / 1000,
             (ms % 1000) / 10, flowing / 1000, (flowing % 1000) / 10, idle / 1000,
             (idle % 1000) / 10, rate);
    size_t n = strlen(buf);
    if (atomic_load(&p->limit_reached) && p->conf.limit_from_setting) {
        snprintf(buf + n, size - n,
                 "; cut at sql.preview-limit (%" PRId64 " rows): there may be more (add a LIMIT, "
                 "or SET 'sql.preview-limit')",
                 p->conf.limit);
    } else if (atomic_load(&p->limit_reached)) {
        snprintf(buf + n, size - n, "; stopped at LIMIT %" PRId64, p->conf.limit);
    }
    n = strlen(buf);
    if (p->past_limit > 0 && n + 2 < size) {
        snprintf(buf + n, size - n, "; %" PRId64 " more row%s read and not shown", p->past_limit,
                 p->past_limit == 1 ? "" : "s");
    }
    n = strlen(buf);
    if (atomic_load(&p->interrupted) && n + 2 < size) {
        snprintf(buf + n, size - n, " interrupted");
        n = strlen(buf);
    }
    if (p->leftover[0] && n + 2 < size) {
        snprintf(buf + n, size - n, "; %s", p->leftover); /* what the next run cannot see yet */
    }
    n = strlen(buf);
    if (p->conf.transform_describe && n + 3 < size) {
        if (p->conf.transform_describe(p->conf.transform_opaque, buf + n + 2, size - n - 2) > 0) {
            buf[n] = ';';
            buf[n + 1] = ' ';
        } else {
            buf[n] = '\0';
        }
    }
}

/*
** Clear a drawn status line and print the summary line. @locality worker
*/
void rsql_pipeline__status_final(rsql_pipeline_t *p)
{
    if (!p->conf.status_out) {
        return;
    }
    if (p->status_drawn) {
        rsql_term_line_clear(p->conf.status_out);
        p->status_drawn = false;
    }
    char line[1024];
    rsql_pipeline__summary(p, line, sizeof line);
    fprintf(p->conf.status_out, "%s\n", line);
    fflush(p->conf.status_out);
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_explain_state: the EXPLAIN nodes of the steps that keep state (plan_explain.c draws
 * the tree): deduplication, window functions and window aggregation, group aggregation;
 * what each keeps, how it emits, and how its state is saved.
 */
#include "config.h"
#include "planner/plan_int.h"
#include "planner/plan_explain_int.h"
#include "base/rsql_buf.h"

#include <inttypes.h>
#include <string.h>

/* The state attribute of a stateful node: what it keeps per key (what, e.g. "the last row")
   and how (state.memory, table.exec.state.ttl). */
static void state_attr(explain_t *x, int d, const char *what, const char *key, int64_t memory,
                       int64_t ttl_ms)
{
    rsql_plan__x_attr(x, d, "state");
    if (x->plan->kind == RSQL_PLAN_SELECT) {
        rsql_buf_printf(x->out, "%s of each %s seen, in memory for the preview (never saved)\n",
                        what, key);
        return;
    }
    char ttl[32], mem[32], every[32];
    rsql_buf_printf(x->out, "%s of each %s seen, in the catalog, saved in the transaction that "
                            "saves the source positions (so the state on disk is that of the "
                            "rows before them), every %s; ",
                    what, key,
                    rsql_opt_format_duration(x->plan->flush_interval_ms, every, sizeof every));
    if (memory > 0) {
        rsql_buf_printf(x->out, "at most %s in memory (state.memory: the rest read back from "
                                "the catalog when a row needs it); ",
                        rsql_opt_format_size(memory, mem, sizeof mem));
    } else {
        rsql_buf_puts(x->out, "all of it in memory (state.memory = 0); ");
    }
    if (ttl_ms > 0) {
        rsql_buf_printf(x->out, "a %s is forgotten %s after it was written "
                                "(table.exec.state.ttl)\n",
                        key, rsql_opt_format_duration(ttl_ms, ttl, sizeof ttl));
    } else {
        rsql_buf_printf(x->out, "%ss are kept for good (table.exec.state.ttl = 0)\n", key);
    }
}

/* Deduplication's node: the key, which row is kept, the state. */
void rsql_plan__x_dedup_node(explain_t *x, int d)
{
    const rsql_plan_dedup_t *dd = x->plan->dedup;
    const char *title =
        dd->in_sink ? (dd->keep_last ? "Deduplicate: the last row of each key, in the sink table\n"
                                     : "Deduplicate: the first row of each key, in the sink "
                                       "table\n")
        : dd->keep_last ? "Deduplicate: the last row of each key (a changelog: -U of the row kept "
                          "before, +U of the newer one)\n"
                        : "Deduplicate: the first row of each key (append-only: later rows of a "
                          "key are dropped)\n";
    rsql_plan__x_node(x, d, title);
    rsql_plan__x_attr(x, d, "key");
    if (dd->n_key == 0) {
        rsql_buf_puts(x->out, "none (PARTITION BY absent: the whole stream is one key)");
    }
    for (int i = 0; i < dd->n_key; i++) {
        rsql_buf_puts(x->out, i ? ", " : "");
        rsql_bexpr_print(dd->keys[i], x->out);
    }
    rsql_buf_puts(x->out, "\n");
    rsql_plan__x_attr(x, d, "order");
    rsql_bexpr_print(dd->order, x->out);
    rsql_buf_puts(x->out, dd->keep_last ? " DESC (processing time: the newest row read wins)\n"
                                        : " ASC (processing time: the first row read wins)\n");
    if (dd->in_sink) {
        rsql_plan__x_attr(x, d, "state");
        rsql_buf_printf(x->out, "none: the sink table, keyed by the PARTITION BY columns, "
                                "keeps %s (table '%s' acknowledges its messages itself and "
                                "spreads them over the processes of its consumer group, which "
                                "all write that table)\n",
                        dd->keep_last ? "the last row written of each key (its upsert)"
                                      : "the first row written of each key (a later row of a "
                                        "key it holds is not written)",
                        x->plan->source.def->name);
        return;
    }
    state_attr(x, d, dd->keep_last ? "the last row" : "a mark", "key", dd->memory, dd->ttl_ms);
}

/* The window function's line: its intervals and the windows of a row. */
static void window_fn_line(explain_t *x, int d)
{
    const rsql_plan_window_t *w = x->plan->window;
    char a[32], b[32], o[32];
    rsql_plan__x_attr(x, d, "window");
    rsql_buf_printf(x->out, "%s(%s, %s", w->fn, w->time_name,
                    rsql_plan__x_dur(w->step_ms, a, sizeof a));
    if (w->kind != RSQL_WIN_TUMBLE) {
        rsql_buf_printf(x->out, ", %s", rsql_plan__x_dur(w->size_ms, b, sizeof b));
    }
    rsql_buf_printf(x->out, "%s%s): %s\n", w->offset_ms ? ", offset " : "",
                    w->offset_ms ? rsql_plan__x_dur(w->offset_ms, o, sizeof o) : "",
                    w->kind == RSQL_WIN_TUMBLE ? "each row in the one window of its time"
                    : w->kind == RSQL_WIN_HOP  ? "each row in every window of size that holds "
                                                 "its time, one starting every slide"
                                               : "each row in the windows that start with its "
                                                 "max_size window and end at each step after "
                                                 "its time");
}

/* A window function's rows without an aggregation: each row with each of its windows. */
void rsql_plan__x_window_rows_node(explain_t *x, int d)
{
    rsql_plan__x_node(x, d, "WindowTableFunction: each row once per window it falls into, with "
               "window_start, window_end and window_time\n");
    window_fn_line(x, d);
    rsql_plan__x_attr(x, d, "emits");
    rsql_buf_printf(x->out, "+I of each row and window at once (append-only); no state, and no "
                            "row is late: %s\n",
                    x->plan->window->proctime ? "the windows are those of the processing time "
                                                "(when the row's batch is processed)"
                                              : "the watermark decides nothing here");
}

/* A window aggregation's lines: the windows, the watermark, what it emits, the state. */
static void window_lines(explain_t *x, int d)
{
    const rsql_plan_window_t *w = x->plan->window;
    char a[32], b[32];
    window_fn_line(x, d);
    if (w->proctime) {
        rsql_plan__x_attr(x, d, "time");
        rsql_buf_printf(x->out, "processing time (%s AS PROCTIME()), so no row is late; a "
                                "window is given once the clock passes its end, with the row "
                                "that comes then or by a timer when none does\n",
                        w->time_name);
    } else {
        rsql_plan__x_attr(x, d, "watermark");
        rsql_buf_printf(x->out, "%s, per lane of the source (a file, a partition): the "
                                "greatest over the lane's rows; the statement's is the least "
                                "of the lanes' ",
                        w->watermark_text);
        if (w->idle_timeout_ms > 0) {
            rsql_buf_printf(x->out, "that gave a row in the last %s "
                                    "(table.exec.source.idle-timeout)\n",
                            rsql_plan__x_dur(w->idle_timeout_ms, a, sizeof a));
        } else {
            rsql_buf_puts(x->out, "(a lane never goes idle: table.exec.source.idle-timeout = "
                                  "0)\n");
        }
        rsql_plan__x_attr(x, d, "late rows");
        rsql_buf_puts(x->out, "a row goes into its windows not given yet; one whose every "
                              "window was given is dropped and counted "
                              "(rocketsql_records_late_total)");
        if (w->late_dead_letter) {
            rsql_buf_puts(x->out, ", and dead-lettered with stage late into table ");
            rsql_buf_put_ident(x->out, x->plan->errors.dlq.def->name);
            rsql_buf_puts(x->out, " (table.exec.late-rows), not a failure: its position is "
                                  "committed once its dead-letter row is");
        }
        rsql_buf_putc(x->out, '\n');
    }
    if (w->in_sink) {
        rsql_plan__x_attr(x, d, "emits");
        rsql_buf_puts(x->out, "for each row and each of its windows, the row's own part of the "
                              "group's result (+I), which the sink merges into the row of its "
                              "key: COUNT and SUM added, MIN and MAX kept; the row is the "
                              "window's result so far, final once the watermark passes its "
                              "end\n");
        rsql_plan__x_attr(x, d, "state");
        rsql_buf_printf(x->out, "none: table '%s' acknowledges its messages itself and spreads "
                                "them over the processes of its consumer group, so each "
                                "process's rows are merged in the sink table (exactly once: "
                                "the sink records each message it applied in the same "
                                "transaction); each process's watermark starts anew with it\n",
                        x->plan->source.def->name);
        return;
    }
    rsql_plan__x_attr(x, d, "emits");
    rsql_buf_printf(x->out, "+I of each group's result, once, when the watermark passes its "
                            "window's end (append-only)%s\n",
                    x->plan->source_bounded ? "; at the input's end every window still open"
                                            : "");
    rsql_plan__x_attr(x, d, "state");
    if (x->plan->kind == RSQL_PLAN_SELECT) {
        rsql_buf_puts(x->out, "the accumulators of each open window's groups, in memory for "
                              "the preview (never saved)\n");
        return;
    }
    rsql_buf_printf(x->out, "the accumulators of each open window's groups%s, in the "
                            "catalog, saved in the transaction that saves the source "
                            "positions, every %s; ",
                    w->proctime ? "" : " and each lane's watermark",
                    rsql_plan__x_dur(x->plan->flush_interval_ms, a, sizeof a));
    if (x->plan->agg->memory > 0) {
        rsql_buf_printf(x->out, "at most %s in memory (state.memory); ",
                        rsql_opt_format_size(x->plan->agg->memory, b, sizeof b));
    }
    rsql_buf_printf(x->out, "a window's are deleted once it is given%s\n",
                    w->proctime ? " (a run killed after giving it may give it again)" : "");
}

/* Group aggregation's node: the keys, the aggregates, what it emits, the state. */
void rsql_plan__x_agg_node(explain_t *x, int d)
{
    const rsql_plan_agg_t *a = x->plan->agg;
    const char *title = !x->plan->window ? "GroupAggregate: one result row per group, updated "
                                           "by each row it takes\n"
                        : x->plan->window->in_sink
                            ? "WindowAggregate: each row's part of its windows' groups, merged "
                              "by the sink\n"
                            : "WindowAggregate: each window's groups, given once the watermark "
                              "passes the window's end\n";
    rsql_plan__x_node(x, d, title);
    rsql_plan__x_attr(x, d, "group by");
    if (a->n_group == 0) {
        rsql_buf_puts(x->out, "none (no GROUP BY: the whole stream is one group)");
    }
    for (int i = 0; i < a->n_group; i++) {
        rsql_buf_puts(x->out, i ? ", " : "");
        rsql_bexpr_print(a->group[i], x->out);
    }
    rsql_buf_puts(x->out, "\n");
    rsql_plan__x_attr(x, d, "aggregates");
    for (int i = 0; i < a->n_calls; i++) {
        rsql_buf_printf(x->out, "%s%s (%s)", i ? ", " : "", a->calls[i].text,
                        a->calls[i].desc ? a->calls[i].desc->text
                                         : rsql_type_name(a->calls[i].type));
    }
    rsql_buf_puts(x->out, a->n_calls ? "\n" : "none\n");
    if (x->plan->window) {
        window_lines(x, d);
        return;
    }
    rsql_plan__x_attr(x, d, "emits");
    rsql_buf_puts(x->out, a->emit_before
                              ? "+I for a new group; -U of the result before and +U of the new "
                                "one when a row changes it (nothing when it does not)\n"
                              : "+I for a new group; +U of the new result when a row changes "
                                "it (no -U: the sink replaces the row of the group's key)\n");
    if (a->mini_batch) {
        rsql_plan__x_attr(x, d, "mini-batch");
        rsql_buf_printf(x->out, "on (table.exec.mini-batch.enabled): a group's rows once per "
                                "batch of at most %lld rows, with the batch's last row of it\n",
                        (long long)(x->plan->batch_size > 0 ? x->plan->batch_size : 256));
    }
    bool distinct = false;
    for (int i = 0; i < a->n_calls; i++) {
        distinct |= a->calls[i].distinct;
    }
    state_attr(x, d,
               distinct ? "the accumulators and the values taken by DISTINCT calls"
                        : "the accumulators",
               "group", a->memory, a->ttl_ms);
}


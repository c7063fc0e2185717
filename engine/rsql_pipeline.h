/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_pipeline: the pipeline engine. One pipeline drives one source and
 * one sink (rsql_io.h):
 *
 *   poll thread --[q1]--> transform thread --[q2]--> write thread --> sink.write
 *        | registers every record                              |
 *        v in the offset tracker                               v deliveries
 *   worker (the thread that calls rsql_pipeline_run) <--[worker queue]-- (any thread)
 *
 * - poll thread: source.poll into batches of at most batch_size records;
 *   numbers them (rsql_record_t.seq) and registers each in the offset
 *   tracker BEFORE it travels on. It also waits for credit: at most
 *   max_in_flight records (polled, outcome not yet reported) exist at once,
 *   which is what bounds memory whatever the sink does.
 * - transform thread: the transform callback (decode, filter, projection) on
 *   every record in poll order; kept rows go to the write thread, filtered
 *   and failed records go to the worker as outcomes. While the next batch
 *   is already waiting it goes on with it (up to 4) and hands the group on
 *   at once (one wake-up each for the worker and the write thread).
 * - write thread: sink.write in poll order (so the sink sees each partition
 *   in order), retrying a write the sink refused with a transient error
 *   (rsql_error_retriable; exponential backoff, errors.retry.*; each retry
 *   is logged), and sink.flush when idle, when
 *   many rows await their delivery, every flush interval and at the end.
 * - worker: serves its queue: deliveries (posted by the sink's delivery
 *   callback from any thread; those made on the write thread itself are
 *   held there and handed on together, before it waits for anything),
 *   outcomes from the transform thread, signals.
 *   It is the only thread that calls source.commit_record (exactly once per
 *   record), advances the offset tracker, hands dead letters to the
 *   dead-letter thread (rt_dlq.c: the dead-letter sink's write, retries and
 *   flush) and resolves them on its reports, saves positions to the catalog
 *   (every flush interval and at the end), and draws the status line.
 *
 * Queue capacity (pipeline.queue-capacity) is in RECORDS: q1 and q2 each
 * hold at most that many records (whole batches; a batch, or a group of
 * them handed on at once, larger than the capacity still passes an empty
 * queue), and max_in_flight defaults to
 * 3 x capacity (one queue-full waiting for transform, one for the write
 * thread, one inside the sink awaiting delivery).
 *
 * Offsets: per partition the position saved is the offset of the last
 * record before the first record whose outcome is unknown (or FAILED).
 * WRITTEN, FILTERED and DEAD_LETTERED complete a position; FAILED never
 * does. Positions are stored in the catalog as decimal text under
 * (pipeline id, partition name); the source is then told via
 * source.committed. A preview commits nothing and calls no commit_record.
 *
 * Errors: whether a failure is retried is decided by its code alone
 * (rsql_error_retriable): a transient one (busy, timed out, unavailable) of
 * the source poll, the sink write or a row's delivery is retried per
 * errors.retry.*; a permanent one, or a transient one whose retry time is
 * used up, is a record error. A transform or sink error is handled per
 * errors.tolerance: none =
 * the record is FAILED, the pipeline stops (nothing after it is written or
 * committed; records already polled behind it are reported FAILED to the
 * source as "aborted" but not counted, neither as read nor as failed: the
 * next run reads them again), and the run fails with
 * "<stage> error at <ident>: <message>";
 * all = the record is written to the dead-letter sink (when there is one),
 * and becomes DEAD_LETTERED once that write is confirmed.
 */
#ifndef RSQL_PIPELINE_H
#define RSQL_PIPELINE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "catalog/rsql_catalog.h"
#include "connectors/rsql_io.h"
#include "base/rsql_error.h"
#include "base/rsql_result.h"

/* ---- offset tracker (engine/rt_offsets.c) */

/*
** Per-lane in-flight bookkeeping. A lane is a uint32 key: the source
** partition index. Each lane is a FIFO of its records in poll order;
** the committable position is the offset of the last record of the
** longest completed prefix. Not thread-safe: the pipeline guards it.
*/
typedef struct rsql_offtrack rsql_offtrack_t;

rsql_offtrack_t *rsql_offtrack_new(void); /* NULL on OOM; caller destroys */
void rsql_offtrack_destroy(rsql_offtrack_t *t); /* NULL-safe */
/*
** Register a record of lane whose resume position after it is offset and key (its text
** part, rsql_record_t.pos_key, copied; NULL: none); *ticket identifies it for
** rsql_offtrack_done. RSQL_ERR_NOMEM on OOM.
*/
rsql_err_t rsql_offtrack_add(rsql_offtrack_t *t, uint32_t lane, int64_t offset,
                             const char *key, uint64_t *ticket);
/*
** The record's outcome is known and completes its position (written,
** filtered, dead-lettered; never call it for FAILED). Returns true when the
** lane's committable position advanced. Completing twice is ignored.
*/
bool rsql_offtrack_done(rsql_offtrack_t *t, uint32_t lane, uint64_t ticket);
/*
** Lanes whose position advanced since the last take: fills up to max of
** lanes/offsets and, when keys is not NULL, keys (each position's text part, a copy the
** caller frees, or NULL: none; out of memory takes fewer), clears their "dirty" mark and
** returns the count taken.
*/
int rsql_offtrack_take_dirty(rsql_offtrack_t *t, uint32_t *lanes, int64_t *offsets, char **keys,
                             int max);
/* Put a lane back to dirty (its save failed). */
void rsql_offtrack_mark_dirty(rsql_offtrack_t *t, uint32_t lane);

/* ---- retry with exponential backoff (engine/rt_retry.c) */

/*
** Backoff starts at 100 ms and doubles up to backoff_max_ms; the retries
** stop once timeout_ms have passed since the first failure (timeout 0 =
** never retry). Caller's storage.
*/
typedef struct rsql_retry {
    int64_t start_ms, timeout_ms, backoff_max_ms, next_backoff_ms;
    int attempts;
} rsql_retry_t;

#define RSQL_RETRY_BACKOFF_START_MS 100

void rsql_retry_init(rsql_retry_t *r, int64_t timeout_ms, int64_t backoff_max_ms, int64_t now_ms);
/*
** After a failure at now_ms: the wait in ms before the next attempt (never
** past the deadline), or -1 when the time is up (give up).
*/
int64_t rsql_retry_next(rsql_retry_t *r, int64_t now_ms);

/* ---- the pipeline */

typedef struct rsql_pipeline rsql_pipeline_t;

/*
** What a supervisor (rocketsql serve) sees of a running pipeline without taking any of its
** locks: the worker publishes its counts here as atomics after every op it serves (so a
** metrics scraper reads them, never a pipeline lock), and rsql_pipeline_stats_stop asks the
** pipeline that runs with these stats to drain and stop. The caller's storage, set up with
** rsql_pipeline_stats_init; it must outlive every run it is given to (conf.stats), and one
** run at a time uses it. Counts are those of the current (or last) run.
*/

typedef struct rsql_pipeline_stats {
    atomic_int_least64_t read, written, filtered, dead_lettered, failed;
    atomic_int_least64_t retries;     /* transient failures retried (poll, write, delivery) */
    atomic_int_least64_t in_flight;   /* records polled whose outcome is not known yet */
    atomic_int_least64_t in_flight_bytes; /* their bytes as pipeline.memory counts them */
    atomic_int_least64_t queue_depth; /* records waiting in the stage queues */
    atomic_int_least64_t run_id;      /* the run's id in the catalog, 0 before it began */
    atomic_bool open;                 /* the source and the sink are open (connected) */
    atomic_bool source_down;          /* the source's polls fail and are being retried */
    atomic_bool sink_down;            /* the sink's writes fail and are being retried */
    /* read (poll) -> the sink's confirmation, per row; sink write -> its delivery, per batch.
       Over every run using the stats: never reset. */
    rsql_latency_hist_t e2e, send;
    rsql_source_counters_t src;       /* the source's (rsql_source_ctx_t.counters) */
    /* The statement's state (a deduplication's; conf.state_stats), published by the worker
       every state.flush-interval and after each checkpoint. has_state false: the job keeps
       none (it is set by the first run that has some, and stays). The gauges are those of the
       current run (0 between runs); the counters and the histogram go on over every run. */
    atomic_bool has_state;
    atomic_int_least64_t state_keys, state_bytes; /* held in memory */
    atomic_int_least64_t state_pending;           /* changes not yet on disk */
    atomic_int_least64_t state_checkpoints;       /* transactions that wrote changes */
    atomic_int_least64_t state_reads;             /* keys looked up in the catalog */
    atomic_int_least64_t state_evictions;         /* entries that left memory for the bound */
    atomic_int_least64_t state_waits;             /* waits for a checkpoint (the bound) */
    atomic_int_least64_t records_late;            /* rows a window aggregation dropped late */
    rsql_latency_hist_t state_checkpoint;         /* each checkpoint's transaction, to commit */
    pthread_mutex_t mu;               /* guards p, stop and detail */
    /* the source's own state as JSON (rsql_source_ops_t.describe), refreshed every
       state.flush-interval, e.g. {"lite_topics":[...],"lanes":N,"deferred":N} or
       {"connected":false} while a RocketMQ source cannot receive; "" = nothing */
    char detail[2048];
    rsql_pipeline_t *p;               /* the pipeline running with these stats, or NULL */
    bool stop;                        /* a stop was asked for: the next run stops at once */
} rsql_pipeline_stats_t;

void rsql_pipeline_stats_init(rsql_pipeline_stats_t *st);
void rsql_pipeline_stats_deinit(rsql_pipeline_stats_t *st);
/* Zero the counts for a new run (not while one runs; the last run's detail stays until the next
   run starts); clears a pending stop when clear_stop. */
void rsql_pipeline_stats_reset(rsql_pipeline_stats_t *st, bool clear_stop);
/*
** Ask the run using st (now, or the next one to start) to stop: stop polling, drain, commit,
** end "interrupted". Any thread.
*/
void rsql_pipeline_stats_stop(rsql_pipeline_stats_t *st);

/*
** The per-row transform, called on the transform thread in poll order: row k of rec, from
** 0. For k = 0 it decodes when rec->row is NULL; a record that holds several rows then says
** so (rsql_record_t.n_rows: the call is made again for k = 1 .. n_rows - 1, in order; n_rows
** < 0: no row, the record is filtered). It filters and projects that row into *out, n_out
** values (sink column order) that must live as long as the batch (allocate them and their
** strings in batch->arena, e.g. with rsql_batch_copy); the row keeps its kind. *keep =
** false drops the row (a record none of whose rows is kept is FILTERED). An error return
** fails the record, with every row of it; *stage names where ("decode", "eval") and err
** says why (err is clear on entry).
*/
typedef rsql_err_t (*rsql_transform_cb)(void *opaque, rsql_batch_t *batch, rsql_record_t *rec,
                                        int k, const rsql_value_t **out, bool *keep,
                                        const char **stage, rsql_error_t *err);

/*
** What a statement's state says of itself (rsql_pipeline_conf_t.state_stats): counts of the
** current run (engine/rt_state.h, rt_state_stats_t).
*/
typedef struct rsql_state_counts {
    int64_t keys, bytes;  /* held in memory */
    int64_t pending;      /* changes not yet on disk */
    int64_t checkpoints;  /* transactions that wrote changes */
    int64_t reads;        /* keys looked up in the catalog */
    int64_t evictions;    /* entries that left memory for the bound */
    int64_t waits;        /* waits for a checkpoint */
    int64_t late;         /* rows a window aggregation dropped as late */
} rsql_state_counts_t;

/* The positions a state checkpoint saves (rsql_pipeline_conf_t.state_checkpoint): lanes[i] at
   offs[i], keys[i] the text part or NULL; the state's: lanes and offs valid until the next
   checkpoint, keys until state_committed. */
typedef struct rsql_state_cut {
    int n;
    const uint32_t *lanes;
    const int64_t *offs;
    const char *const *keys;
} rsql_state_cut_t;

typedef struct rsql_pipeline_conf {
    const char *id;     /* pipeline id: the offset key in the catalog (copied) */
    const char *sink_id; /* the key of what a sink stores with its rows (positions, applied
                            ids; copied); NULL = id */
    const char *name;   /* the name said to users (RESET POSITIONS takes it); NULL = id */
    bool preview;       /* SELECT preview: no commit_record, no offsets saved */
    int batch_size;     /* records per poll / per sink write (pipeline.batch-size) */
    int queue_capacity; /* records per stage queue (pipeline.queue-capacity) */
    int max_in_flight;  /* records polled and not yet resolved; 0 = 3 x queue_capacity
                           (+ flush_rows when that is larger than queue_capacity) */
    int64_t max_in_flight_bytes; /* bytes of records polled and not yet resolved (their
                                    bodies, or their batch's arena at poll when more); 0 = no
                                    bound */
    int flush_rows;     /* unreported rows that make the writer flush; 0 = queue_capacity
                           (the sink's gather_rows when larger) */
    int poll_timeout_ms;          /* longest single poll wait; 0 = 200 */
    /* Hold each polled batch until the next poll says whether the input ended, and mark
       the input's last record RSQL_REC_LAST (a bounded source under a statement that acts
       at the end of its input: a window aggregation). */
    bool mark_last;
    int64_t flush_interval_ms;    /* positions to the catalog (state.flush-interval); 0 = 1000 */
    int64_t status_interval_ms;   /* status line redraw (status.interval); 0 = 1000 */
    int64_t retry_timeout_ms;     /* errors.retry.timeout */
    int64_t retry_backoff_max_ms; /* errors.retry.backoff-max */
    bool tolerate_all;            /* errors.tolerance = all */
    int64_t limit;                /* rows to keep, then stop (LIMIT); < 0 = none */
    bool limit_from_setting;      /* limit is sql.preview-limit, not a LIMIT written */

    /* the source: ops and its ctx (pipeline, resume filled in by the pipeline) */
    const rsql_source_ops_t *src_ops;
    rsql_source_ctx_t src_ctx;
    /* the sink: ops and its ctx (pipeline, deliver filled in by the pipeline) */
    const rsql_sink_ops_t *snk_ops;
    rsql_sink_ctx_t snk_ctx;
    /* dead letters: a sink of a table with columns raw, stage, error, source,
       ts (by name; others get NULL); dlq_ops NULL = count them only */
    const rsql_sink_ops_t *dlq_ops;
    rsql_sink_ctx_t dlq_ctx;

    rsql_transform_cb transform;
    void *transform_opaque;
    /* Optional: what the transform says of its work at the end of the summary, after "; "
       (a lookup join's keys asked and cache hits), into buf; 0: nothing. Called once the
       stages have stopped, with transform_opaque. */
    size_t (*transform_describe)(void *opaque, char *buf, size_t size);
    /* Optional: work the transform may start on batches waiting behind the one it
       transforms (a lookup join sends their lookups before the first one's answer comes).
       transform_prefetch is called with each batch, in order, before the transform of its
       first record, with at most transform_ahead of them (the one about to be transformed
       included) not yet transformed. @locality the transform thread */
    void (*transform_prefetch)(void *opaque, rsql_batch_t *batch);
    int transform_ahead;
    /* Optional: the wall-clock time (rsql_wall_ms) at which the transform has rows to give
       without a record (a processing-time window's end), INT64_MAX for none, with
       due_opaque. When no batch waits, the transform thread waits for one only until then,
       and then transforms a record of its own (RSQL_REC_TICK) to carry those rows; not before
       it transformed a record of the run. @locality the transform thread */
    int64_t (*transform_due)(void *due_opaque);
    void *due_opaque;
    /* Optional, with due_opaque: the source has n lanes (rsql_source_ops_t.partition_count),
       said before the first batch and whenever the count grows; an error fails the run.
       @locality the transform thread */
    rsql_err_t (*transform_lanes)(void *due_opaque, uint32_t n);
    /* Optional: the statement's state (engine/rt_state.h), with state_opaque. The
       transform thread calls state_seen for each record it hands an outcome (not a tick),
       and state_seal between two batches (force: now, else only when the state wants one;
       *sealed: it made one, which a checkpoint soon can save):
       a seal is the state as of the records seen, with their positions (ticks: the ticks made
       before it). state_checkpoint writes into cat, inside the transaction that saves
       positions, the seals the records delivered reached (lanes[i] at offs[i], the positions
       taken now; ticks_done the ticks resolved), and says in *cut which positions to save
       with them (none: save none now); state_committed says that transaction committed. With
       it the run resumes from the catalog's positions only (the state on disk goes with them),
       not from those an exactly-once sink stored with its rows (which may be further). */
    void *state_opaque;
    rsql_err_t (*state_seen)(void *opaque, const rsql_record_t *rec);
    rsql_err_t (*state_seal)(void *opaque, bool force, uint64_t ticks, bool *sealed);
    void (*state_ask)(void *opaque); /* the worker, every flush interval: a seal is wanted */
    rsql_err_t (*state_checkpoint)(void *opaque, rsql_catalog_t *cat, int n,
                                   const uint32_t *lanes, const int64_t *offs,
                                   uint64_t ticks_done, rsql_state_cut_t *cut,
                                   rsql_error_t *err);
    void (*state_committed)(void *opaque);
    /* Optional, with the state: state_full says its changes not on disk reached what it may
       hold unsaved; the transform thread then hands on the rows it holds, asks the worker to
       save positions as soon as their deliveries come, and calls state_wait, which returns
       once a checkpoint committed or at until_ms (rsql_now_ms's clock): true when there is
       room again. */
    bool (*state_full)(void *opaque);
    bool (*state_wait)(void *opaque, int64_t until_ms);
    /* Optional, with the state: its counts so far, into *out (worker thread, while the other
       stages run); the worker publishes them to conf.stats every flush interval and after
       each checkpoint, and times each checkpoint that wrote changes. */
    void (*state_stats)(void *opaque, rsql_state_counts_t *out);

    /* the catalog (worker thread only) for offsets and the job run; may be NULL */
    rsql_catalog_t *cat;
    bool record_run;     /* record a job run (rsql_catalog_run_begin/progress/end) */
    const char *job;     /* job name for the run, NULL for an ad-hoc INSERT */
    const char *sql;     /* statement text for the run */
    bool handle_signals; /* install the SIGINT/SIGTERM handling for the run */
    rsql_pipeline_stats_t *stats; /* published counts and a stop handle (borrowed), or NULL */
    /* What the source may leave invisible to later runs (rsql_connector_def_t.hold): its key
       and for how long after the run last worked; NULL / 0 = nothing. With record_run the
       run records it, and when the newest finished run of that key was interrupted or failed
       and may still hold messages, the source gets its end as not_before_ms. */
    const char *hold_key;
    int64_t hold_ms;
    bool source_bounded; /* the source ends by itself: only then is not_before_ms looked up */
    FILE *status_out;    /* status line and summary (NULL = none) */
} rsql_pipeline_conf_t;

/* Fill conf with the defaults above (all pointers NULL). */
void rsql_pipeline_conf_init(rsql_pipeline_conf_t *conf);

/*
** A new pipeline for conf (copied; the pointers in it are borrowed and must
** outlive the pipeline). Nothing is opened yet. NULL with err set on OOM or
** a bad conf.
*/
rsql_pipeline_t *rsql_pipeline_new(const rsql_pipeline_conf_t *conf, rsql_error_t *err);

/*
** Open the sink (and the dead-letter sink), work out the resume positions
** (the sink's stored positions, else the catalog's; per partition the
** further one wins), open the source, run every stage until the source ends
** (bounded), rsql_pipeline_stop, a signal or a failure, drain what is in
** flight, save positions, close both ends and end the job run. The calling
** thread is the worker. Returns RSQL_OK when done or stopped cleanly (the
** job run's status tells which), else the first error (err set).
*/
rsql_err_t rsql_pipeline_run(rsql_pipeline_t *p, rsql_error_t *err);

/*
** Ask a running pipeline to stop: stop polling, drain, commit. Any thread,
** async-signal-unsafe (use the signal handling instead from handlers).
*/
void rsql_pipeline_stop(rsql_pipeline_t *p);

/* Counts of the run so far (after rsql_pipeline_run: final). */
void rsql_pipeline_counts(rsql_pipeline_t *p, rsql_job_counts_t *out);
/*
** The signal (SIGINT, SIGTERM) that interrupted a run of this thread (its worker) since the
** last call, 0 = none; taking it forgets it. A script ends after the statement a signal
** interrupted (rsql_session_run_script).
*/
int rsql_pipeline_signal_taken(void);
/* Elapsed run time in ms (after run: the whole run). */
int64_t rsql_pipeline_elapsed_ms(rsql_pipeline_t *p);

void rsql_pipeline_destroy(rsql_pipeline_t *p); /* NULL-safe; not while running */

/* ---- the session's entry point (engine/rt_run_pipeline.c) */

typedef struct rsql_plan rsql_plan_t;

/*
** Run the plan to the end (bounded source) or until a signal. Records a job
** run in the catalog (job may be NULL for an ad-hoc INSERT), prints the
** status line and summary to errf. Returns RSQL_OK when done or
** interrupted cleanly; on a job failure returns the error with err set.
** For SELECT previews (plan has no sink) prints rows in style (an aligned
** table, or TSV) to out, unless the run failed, and never commits or acks
** anything.
**
** The pipeline id (offset key) is the job name for jobs, else
** "insert:<source>-><sink>" for an INSERT and "preview:<source>" for a
** preview. The catalog connection cat is used from this thread only.
*/
rsql_err_t rsql_pipeline_run_plan(rsql_catalog_t *cat, rsql_print_style_t style,
                                  const rsql_plan_t *plan, const char *job, FILE *out,
                                  FILE *errf, rsql_error_t *err);

/*
** The same for a supervised run (rocketsql serve): stats as in rsql_pipeline_conf_t (may be
** NULL); handle_signals false leaves SIGINT/SIGTERM to the caller (the process owns them);
** errf NULL prints no status line and no summary.
*/
rsql_err_t rsql_pipeline_run_plan_ex(rsql_catalog_t *cat, const rsql_plan_t *plan,
                                     const char *job, FILE *out, FILE *errf,
                                     rsql_pipeline_stats_t *stats, bool handle_signals,
                                     rsql_error_t *err);

#endif

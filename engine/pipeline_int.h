/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Private to the pipeline engine (the rt_*.c files of engine/ but
 * rt_queue.c and rt_run_pipeline.c): the pipeline struct, the ops its
 * threads post to each other, and the functions shared between those files.
 * See rsql_pipeline.h for the threading model.
 */
#ifndef RSQL_PIPELINE_INT_H
#define RSQL_PIPELINE_INT_H

#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>

#include "base/rsql_mem.h"
#include "engine/rsql_pipeline.h"
#include "engine/rsql_queue.h"

/* Worker and write-thread op codes. */
enum {
    RT_OP_OUTCOMES = 1, /* transform -> worker: filtered / failed records of a batch */
    RT_OP_DELIVERY,     /* sink callback -> worker: results of a write batch */
    RT_OP_WRITE_FAILED, /* write thread -> worker: a write batch the sink did not accept */
    RT_OP_DLQ_DELIVERY, /* dead-letter sink callback -> worker */
    RT_OP_POLL_DONE,    /* poll thread -> worker: no more batches */
    RT_OP_SIGNAL,       /* signal thread -> worker: first SIGINT/SIGTERM */
    RT_OP_CHECKPOINT,   /* transform -> worker: save positions (and state) now */
    RT_OP_WRITE         /* transform / worker -> write thread: rows to write */
};

/*
** Memory on the delivery path is allocated ahead, per batch, by the poll thread before it
** polls (rt_stages.c): the batch's q1 op, its tickets, its outcomes op and its write batch
** with that batch's delivery report and write-failed report. So once records are polled, no
** stage needs memory to hand them on or to report their outcomes: out of memory can only
** refuse a batch before it is polled (a job error, RSQL_ERR_NOMEM) or fail a record (never
** dead-lettered), and every polled record still gets exactly one outcome.
*/
struct rt_outcomes_op;
struct rt_wbatch;

/* A polled batch in flight: freed by the worker once every record has its outcome. */
#define RT_ROWS_FAILING INT_MIN

typedef struct rt_inbatch {
    rsql_qop_t op; /* poll -> transform (q1); weight = records */
    rsql_batch_t *b;
    int cap;           /* records it was allocated for */
    uint64_t *tickets; /* per record: offset tracker ticket */
    uint8_t *registered; /* per record: in the offset tracker */
    uint8_t *resolved; /* per record: outcome reported */
    /* per record: rows still to be written before it is (a record of several rows kept;
       NULL until one comes: transform thread, then the worker's once handed on) */
    int *rows_left; /* RT_ROWS_FAILING: one of its rows failed, its outcome is on its way */
    int pending;       /* records without an outcome */
    int64_t bytes;     /* counted against max_in_flight_bytes: its bodies or arena at poll */
    int64_t poll_us;   /* when it was polled (rsql_now_ns() / 1000), for the latency stats */
    struct rt_outcomes_op *oo; /* allocated ahead; handed to the worker by transform */
    struct rt_wbatch *wb;      /* allocated ahead; handed to the write thread by transform */
} rt_inbatch_t;

/* What the transform thread says about one record. */
/* RT_ITEM_PAST_LIMIT: read after a preview's LIMIT was reached, not shown (nor filtered).
   RT_ITEM_LATE: a window aggregation found it late (RSQL_REC_LATE): it goes to the dead-letter
   table with stage "late" whatever errors.tolerance says, not as a failure; with_rows when it
   also carries rows for the sink (its dead letter then counts as one more of its rows:
   ib->rows_left, and the record is WRITTEN once all are). */
typedef enum rt_item_kind {
    RT_ITEM_FILTERED,
    RT_ITEM_ERROR,
    RT_ITEM_ABORTED,
    RT_ITEM_PAST_LIMIT,
    RT_ITEM_LATE
} rt_item_kind_t;
typedef struct rt_item {
    int idx;
    rt_item_kind_t kind;
    const char *stage;  /* ERROR: "decode", "eval" (static); LATE: "late" */
    rsql_error_t *err;  /* ERROR, LATE: owned by the op */
    bool with_rows;     /* LATE: the record's rows go to the sink too */
} rt_item_t;

typedef struct rt_outcomes_op {
    rsql_qop_t op;
    rt_inbatch_t *ib;
    int n;
    rt_item_t items[];
} rt_outcomes_op_t;

/*
** A delivery report: the sink's results, copied by the delivery callback (any thread). When
** every one of the n is written with nothing to say (the common report), all_ok says so and
** results is not written (nor read): 356 bytes a row less to copy and read back.
*/
typedef struct rt_delivery_op {
    rsql_qop_t op;
    void *batch; /* rt_wbatch_t * or rt_dlqbatch_t * */
    int n;
    bool all_ok;
    rsql_sink_result_t results[];
} rt_delivery_op_t;

/* The result of row i of report d (i < d->n): results[i], or a written one when all_ok. */
static inline const rsql_sink_result_t *rt_delivery_result(const rt_delivery_op_t *d, int i)
{
    static const rsql_sink_result_t written = {RSQL_OK, "", ""};
    return d->all_ok ? &written : &d->results[i];
}

typedef struct rt_write_failed_op {
    rsql_qop_t op;
    struct rt_wbatch *wb;
    bool aborted;
    rsql_error_t err;
} rt_write_failed_op_t;

/*
** Rows for the sink (q2 op); its address is the sink batch_id. Its reports live in it: dop
** (room for cap results, posted by the delivery callback) and failed (posted by the write
** thread); a batch has at most one report outstanding, and a retry reuses the batch.
*/
typedef struct rt_wbatch {
    rsql_qop_t op;
    rt_inbatch_t *ib;
    int n, cap;
    rsql_sink_row_t *rows;
    int *idx; /* per row: the record's index in ib->b */
    bool has_retry;
    rsql_retry_t retry;
    int64_t not_before_ms; /* a retry waits until then */
    int64_t write_us;      /* when it was last handed to the sink (latency stats) */
    rt_delivery_op_t *dop;
    rt_write_failed_op_t failed;
    /* The transform's outcomes ops (a list) of the group this batch was handed on with: the
       write thread hands them to the worker with the reports it holds (rt_stages.c), so the
       worker wakes once per group. NULL once taken (and in every other batch). */
    rsql_qop_t *outcomes;
} rt_wbatch_t;

typedef struct rt_dlq rt_dlq_t; /* rt_dlq.c */

struct rsql_pipeline {
    rsql_pipeline_conf_t conf;
    char *id;
    char *sink_id; /* conf.sink_id or id: the key of what the sink stores with its rows */
    rsql_source_t *src;
    rsql_sink_t *snk;

    pthread_t poll_th, xform_th, write_th;
    bool poll_started, xform_started, write_started;
    rsql_queue_t *q1, *q2, *wq; /* poll->transform, transform->write, ->worker */

    pthread_mutex_t track_lock; /* guards track */
    rsql_offtrack_t *track;
    /* Worker only: while it resolves a batch's outcomes or a delivery report, the completions
       for track are gathered here and applied under one track_lock at the end (or when
       full), not one lock per record (rsql_pipeline__resolve). */
    bool done_defer;
    int done_n;
    struct {
        uint32_t partition;
        uint64_t ticket;
    } done[256];

    pthread_mutex_t lock; /* guards in_flight, in_flight_bytes, sink_waiting, live, err;
                             credit_cv, sleep_cv */
    pthread_cond_t credit_cv, sleep_cv;
    int64_t in_flight; /* records in live batches */
    /* rows the sink holds for the end of their source transaction (rsql_sink_ops_t.waiting,
       set by the write thread): not counted against max_in_flight, so a source transaction
       larger than it can end */
    int64_t sink_waiting;
    /* Credit hysteresis: once the poll thread waits for credit (credit_waiting), it is woken
       only when in_flight has fallen to credit_resume (<= max_in_flight - batch_size, at
       most half of max_in_flight) and in_flight_bytes to bytes_resume
       (rsql_pipeline__credit_back), so it wakes once per several batches, not per batch. */
    int64_t credit_resume;
    bool credit_waiting;
    /* Bytes of the records in live batches (rt_inbatch_t.bytes; counted whether or not
       max_in_flight_bytes bounds them, for the gauge), and the bytes_resume they must fall to
       (half of max_in_flight_bytes) before a poll thread waiting for credit goes on. */
    int64_t in_flight_bytes, bytes_resume;
    /* poll thread only: bytes and records of the batches read lately (halved as they grow),
       their ratio the size of a record that the next poll's count is reckoned with */
    int64_t seen_bytes, seen_recs;
    int64_t live;      /* live batches */
    rsql_error_t err;  /* the first failure */

    atomic_bool stopping;   /* stop polling */
    atomic_bool stop_asked; /* rsql_pipeline_stats_stop while no worker loop takes its op yet
                              (the opens): their retries end (wakes sleep_cv) */
    atomic_bool aborting;   /* a failure: fail everything not yet transformed */
    atomic_bool abort_sink; /* a sink failure: fail everything not yet written */
    atomic_bool interrupted;
    atomic_bool xform_done; /* the transform thread ended: nothing new comes to the sink */
    /* the transform's own records (RSQL_REC_TICK): made (transform thread) and resolved
       (worker); a state seal made after a tick is written only once that tick is resolved */
    _Atomic uint64_t ticks_made, ticks_done;
    atomic_bool limit_reached; /* a preview kept its LIMIT (or sql.preview-limit) rows */
    int signal_no; /* the signal that stops the run (set before its op is posted), 0 = none */
    atomic_int_least64_t unreported; /* rows accepted by the sink, not yet delivered */
    atomic_int_least64_t retry_warned_ms; /* when a retry was last logged at warn (0 = never) */
    atomic_int_least64_t read;
    atomic_int_least64_t first_read_ms; /* when the first record was read (0: none yet) */
    int64_t written, filtered, dead_lettered, failed; /* worker only */
    int64_t past_limit; /* worker only: read after a preview's LIMIT was reached, not shown
                           (and taken off read) */
    bool poll_done;                                   /* worker only */
    uint64_t next_seq;                                /* poll thread only */

    /* Delivery reports a sink made on the write thread itself, held there and handed on to
       the worker together (rt_stages.c); write thread only. */
    rsql_qop_t *held_head, **held_tail;
    int held_n;
    bool reports_inline; /* write thread: the last write's report came within it */

    rt_dlq_t *dlq;
    int64_t positions_saved;
    rsql_state_counts_t state_seen; /* worker: the state's counts last published (rt_offsets.c) */
    rsql_qop_t poll_done_op, signal_op; /* posted at most once each: no allocation */
    rsql_qop_t stop_op; /* rsql_pipeline_stats_stop's: posted at most once (stop_posted) */
    /* a checkpoint asked for (rsql_pipeline__checkpoint_soon): the worker saves positions as
       soon as some advanced, not at its next flush interval; checkpoint_op is in wq while
       ckpt_queued */
    rsql_qop_t checkpoint_op;
    atomic_bool ckpt_wanted, ckpt_queued;
    bool stop_posted;   /* guarded by conf.stats->mu */

    /* run record and status */
    int64_t run_id;
    int64_t start_ms, end_ms;
    int64_t last_status_ms, last_status_done, last_flush_ms;
    /* write thread: the budget (errors.retry.*) of the flushes in a row that failed
       transiently, from the first; attempts 0 = the last flush did not fail */
    rsql_retry_t flush_retry;
    int64_t last_done_ms, last_done_seen; /* worker: when the last record got its outcome,
                                             and the outcomes counted then */
    bool status_tty, status_drawn;
    int64_t total; /* source total or -1 */
    char pname[32];
    int64_t not_before_ms; /* the source's not_before_ms (rt_hold.c); 0 = none */
    bool hold_active;      /* the source was opened: the run's hold time is recorded */
    bool resume_noted;     /* where the run resumes was said (once, not per open retry) */
    char leftover[256];    /* the source's leftovers at the end, for the summary; "" = none */
};

/* rt_pipeline.c */
/* The name of source partition lane (borrowed until the next call). @locality worker */
const char *rsql_pipeline__partition_name(rsql_pipeline_t *p, uint32_t lane);

/* rt_outcomes.c */
/*
** Report one record's outcome: commit_record (not in previews), counts,
** the offset tracker, and the batch's release when it was the last.
** @locality worker
*/
void rsql_pipeline__resolve(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx,
                            const rsql_outcome_t *o);

/* rt_offsets.c: save advanced positions to the catalog. @locality worker */
rsql_err_t rsql_pipeline__save_positions(rsql_pipeline_t *p, bool final, rsql_error_t *err);
/* Ask the worker to save positions as soon as some advanced (the state's bound).
   @locality transform thread */
void rsql_pipeline__checkpoint_soon(rsql_pipeline_t *p);
/* The worker's side of it: a checkpoint was asked for and positions advanced since: save them
   now. @locality worker */
void rsql_pipeline__checkpoint_if_wanted(rsql_pipeline_t *p);
/* At the end of p's run on its worker thread: remember the signal that interrupted it. */
void rsql_pipeline__signal_note(rsql_pipeline_t *p);
/* Say (status output, job run) that the run resumes from n saved positions (keys: their text
   parts, or NULL); n = 0: nothing. */
void rsql_pipeline__resume_note(rsql_pipeline_t *p, int n, const char *const *names,
                                const int64_t *offs, const char *const *keys);

/* rt_dlq.c (all @locality worker; the dead-letter sink is written on a thread of its own) */
rsql_err_t rsql_pipeline__dlq_open(rsql_pipeline_t *p, rsql_error_t *err);
/* A tolerated failure: dead-letter record idx of ib (err copied). */
void rsql_pipeline__dlq_add(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx, const char *stage,
                            const rsql_error_t *err);
/* A late row's record (RT_ITEM_LATE): dead-letter it with stage "late" (err copied); its
   outcome is DEAD_LETTERED once its row is written, or, with_rows, that of one more of its
   rows written (RSQL_OUTCOME_WRITTEN through ib->rows_left). Never a failure of the record. */
void rsql_pipeline__dlq_add_late(rsql_pipeline_t *p, rt_inbatch_t *ib, int idx,
                                 const rsql_error_t *err, bool with_rows);
/* Write the queued dead letters (when force, or enough are queued). */
void rsql_pipeline__dlq_pump(rsql_pipeline_t *p, bool force);
void rsql_pipeline__dlq_delivered(rsql_pipeline_t *p, rt_delivery_op_t *op);
/* Free a dead-letter batch whose delivery was never served (its report op). */
void rsql_pipeline__dlq_free_report(rt_delivery_op_t *op);
/* Dead letters queued or awaiting their delivery. */
int64_t rsql_pipeline__dlq_busy(rsql_pipeline_t *p);
/* End the dead-letter thread (before the source closes); dlq_close does it too. */
void rsql_pipeline__dlq_stop(rsql_pipeline_t *p);
void rsql_pipeline__dlq_close(rsql_pipeline_t *p);
/* Batches waiting for the dead-letter thread (0 without one); for tests. Any thread, while
   the pipeline runs. */
int64_t rsql_pipeline__dlq_queued(rsql_pipeline_t *p);

/* rt_status.c (worker) */
void rsql_pipeline__status_tick(rsql_pipeline_t *p, int64_t now_ms);
/* Note when the last record got its outcome (the summary's flowing and idle times). */
void rsql_pipeline__status_note(rsql_pipeline_t *p, int64_t now_ms);
void rsql_pipeline__status_final(rsql_pipeline_t *p);
/* "read=N written=N ... elapsed=12.34s flowing=0.85s idle=11.49s rate=N rows/s" into buf. */
void rsql_pipeline__summary(rsql_pipeline_t *p, char *buf, size_t size);

/* rt_hold.c (worker): what a run may leave invisible to the next one */
/*
** The not-before rule: the end of the previous run's hold (epoch ms) when that run ended
** "interrupted" or "failed" and the end is after now_wall_ms; else 0.
*/
int64_t rsql_pipeline__not_before(const char *prev_status, int64_t prev_hold_until_ms,
                                  int64_t now_wall_ms);
/* After the run began: set p->not_before_ms from the previous run, record this run's hold. */
void rsql_pipeline__hold_begin(rsql_pipeline_t *p);
/*
** Once the source is open, with each progress, and final at the end (only after the source
** was opened): renew this run's hold-until time.
*/
void rsql_pipeline__hold_touch(rsql_pipeline_t *p, bool final);

/* rt_signal.c */
rsql_err_t rsql_pipeline__signals_start(rsql_pipeline_t *p, rsql_error_t *err);
void rsql_pipeline__signals_stop(rsql_pipeline_t *p);

/* rt_retry.c: the pipeline's side of the error rules */
/*
** A transient failure of what ("source poll", "sink write", "sink delivery") is retried after
** wait_ms (the err's code decided: rsql_error_retriable). Logs it with the underlying message:
** at warn for the first retry of a streak (attempt 1), at most once per 10 s per pipeline;
** otherwise at debug. Any thread, no lock held.
*/
void rsql_pipeline__retrying(rsql_pipeline_t *p, const char *what, const rsql_error_t *err,
                             int64_t wait_ms, int attempt);
/* Record the pipeline's first failure (thread-safe); with stop, abort the run. */
void rsql_pipeline__fail(rsql_pipeline_t *p, const rsql_error_t *e, bool sink_stage);
/* A record's ident for messages: rec->ident, else "<partition>@<offset>". */
const char *rsql_pipeline__ident(rsql_pipeline_t *p, const rsql_record_t *rec, char *buf,
                                 size_t size);
/*
** Where a record is, for an error: its ident and, when its source knows it, " line N"
** (rsql_record_t.line), in buf (cut to size); returns buf.
*/
const char *rsql_pipeline__where(rsql_pipeline_t *p, const rsql_record_t *rec, char *buf,
                                 size_t size);
/* What the error of a record that does not decode adds when it stops the run: how to go on
   past bad records (errors.tolerance). */
#define RSQL_PIPELINE_TOLERANCE_HINT                                                           \
    " (SET 'errors.tolerance' = 'all' to skip bad records, and 'errors.dlq.table' to keep "     \
    "them)"
/* Sleep up to ms on p's sleep condition; returns early when the pipeline aborts (or, with
   wake_on_stop, stops). */
void rsql_pipeline__sleep_interruptible(rsql_pipeline_t *p, int64_t ms, bool wake_on_stop);

/* rt_batch.c: a batch's life */
/* A batch for cap records with everything its way through the stages needs (NULL on OOM). */
rt_inbatch_t *rsql_pipeline__inbatch_new(int cap);
/* Room in wb for need rows (grows rows, idx and the report). RSQL_OK or RSQL_ERR_NOMEM. */
rsql_err_t rsql_pipeline__wbatch_reserve(rt_wbatch_t *wb, int need);
/* Free batches and ops. NULL-safe (but free_outcomes). */
void rsql_pipeline__free_inbatch(rt_inbatch_t *ib);
void rsql_pipeline__free_wbatch(rt_wbatch_t *wb);
void rsql_pipeline__free_outcomes(rt_outcomes_op_t *oo);
/* Free an op left on a queue at the end. */
void rsql_pipeline__free_op(rsql_pipeline_t *p, rsql_qop_t *op);
/* A delivery report's latencies, in conf.stats (none without). @locality worker */
void rsql_pipeline__wbatch_observe(rsql_pipeline_t *p, const rt_wbatch_t *wb,
                                   const rt_delivery_op_t *d);

/* rt_outcomes.c: worker-side handlers of the worker queue's ops */
void rsql_pipeline__on_outcomes(rsql_pipeline_t *p, rt_outcomes_op_t *oo);
void rsql_pipeline__on_delivery(rsql_pipeline_t *p, rt_delivery_op_t *d);
void rsql_pipeline__on_write_failed(rsql_pipeline_t *p, rt_write_failed_op_t *f);
/* The sink delivery callback (any thread; posts to the worker queue). */
void rsql_pipeline__deliver_cb(void *opaque, uint64_t batch_id, int n,
                               const rsql_sink_result_t *results);
/*
** On a write thread: its pipeline (rt_stages.c), whose delivery reports made on this thread
** are held in p->held_* and handed on by that thread (so the worker wakes once for several);
** NULL elsewhere.
*/
extern _Thread_local rsql_pipeline_t *rsql_pipeline__write_thread_of;
/* A supervised run's stage thread logs with its job and run id (rt_pipeline.c). */
void rsql_pipeline__log_context(rsql_pipeline_t *p);
/* The stage threads (rt_stages.c); arg is the pipeline. */
void *rsql_pipeline__poll_main(void *arg);
void *rsql_pipeline__transform_main(void *arg);
void *rsql_pipeline__write_main(void *arg);

/*
** The bytes of the records in flight that count against max_in_flight_bytes: none while the
** sink holds rows for the end of their source transaction (sink_waiting), as those rows do
** not count against max_in_flight: which records are pinned until that end is read (the held
** rows, the records of their batches filtered out or written before a cut) is not known
** here, and waiting for them would wait for a record only a poll can bring. The rows' bound
** still holds then. @locks p->lock held
*/
static inline int64_t rsql_pipeline__bytes_counted(const rsql_pipeline_t *p)
{
    return p->sink_waiting > 0 ? 0 : p->in_flight_bytes;
}

/*
** Whether the poll thread, waiting for credit, may go on: the rows counted are down to
** credit_resume and the bytes counted to bytes_resume. @locks p->lock held
*/
static inline bool rsql_pipeline__credit_back(const rsql_pipeline_t *p)
{
    return p->in_flight - p->sink_waiting <= p->credit_resume &&
           (p->conf.max_in_flight_bytes <= 0 ||
            rsql_pipeline__bytes_counted(p) <= p->bytes_resume);
}

#endif

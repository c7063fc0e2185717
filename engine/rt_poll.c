/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The pipeline's poll thread: the source's poll into batches, with retries, under the
 * credit that bounds the records in flight (3 x pipeline.queue-capacity rows, and
 * pipeline.memory bytes: a poll asks for fewer records as their bytes near it). It registers
 * each record with the offset tracker and hands the batch to the transform thread
 * (rt_stages.c); outcomes are the worker's (rt_outcomes.c).
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <stdlib.h>

static void poll_oom(rsql_pipeline_t *p)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_error_set(&e, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory polling the source");
    rsql_pipeline__fail(p, &e, false);
}

/* The size a record is taken to have before any was read: the first poll asks for at most
   max_in_flight_bytes / POLL_FIRST_BYTES records (at least one). */
#define POLL_FIRST_BYTES (64 * 1024)

/* The bytes of a record as the poll thread reckons them: the mean of the records read lately
   (at least 1; POLL_FIRST_BYTES before any). @locality poll thread */
static int64_t rec_bytes(const rsql_pipeline_t *p)
{
    int64_t b = p->seen_recs > 0 ? p->seen_bytes / p->seen_recs : POLL_FIRST_BYTES;
    return b > 0 ? b : 1;
}

/*
** How many records the next poll asks for: the batch size, fewer when the bytes still free
** under max_in_flight_bytes hold fewer records of the size read lately (at least one); before
** any record was read, records of POLL_FIRST_BYTES. @locks p->lock held @locality poll thread
*/
static int poll_count(const rsql_pipeline_t *p, int bs)
{
    if (p->conf.max_in_flight_bytes <= 0) {
        return bs;
    }
    int64_t room = p->conf.max_in_flight_bytes - rsql_pipeline__bytes_counted(p);
    int64_t n = room > 0 ? room / rec_bytes(p) : 0;
    return n < 1 ? 1 : n < bs ? (int)n : bs;
}

/*
** Count ib's bytes and note them for rec_bytes: its records' bodies or its arena, whichever is
** more. A source that copies its bodies into the arena has them there (the arena is the more);
** one that lends them, as the file source its read buffer, holds about the bodies' bytes in
** that buffer and little in the arena (the bodies are the more). Decoded rows and outputs,
** made later in the same arena, are not counted. @locality poll thread
*/
static void count_bytes(rsql_pipeline_t *p, rt_inbatch_t *ib)
{
    int64_t bytes = 0, arena = (int64_t)rsql_arena_bytes(ib->b->arena);
    for (int i = 0; i < ib->b->n; i++) {
        bytes += (int64_t)ib->b->recs[i].raw_len;
    }
    if (bytes < arena) {
        bytes = arena;
    }
    ib->bytes = bytes;
    p->seen_bytes += bytes;
    p->seen_recs += ib->b->n;
    if (p->seen_recs > 4096) { /* the sizes of late, mostly */
        p->seen_bytes /= 2;
        p->seen_recs /= 2;
    }
}

/* Hand ib (its records registered) to the transform thread. */
static void push_inbatch(rsql_pipeline_t *p, rt_inbatch_t *ib)
{
    int n = ib->b->n;
    pthread_mutex_lock(&p->lock);
    p->in_flight += n;
    p->in_flight_bytes += ib->bytes;
    p->live++;
    pthread_mutex_unlock(&p->lock);
    if (atomic_fetch_add(&p->read, n) == 0 && atomic_load(&p->first_read_ms) == 0) {
        atomic_store(&p->first_read_ms, rsql_now_ms()); /* the summary's rate starts here */
    }
    ib->op.type = 0;
    ib->op.weight = n;
    if (rsql_queue_push(p->q1, &ib->op) != RSQL_OK) {
        /* cannot happen: q1 is closed only by this thread */
        abort();
    }
}

void *rsql_pipeline__poll_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    rsql_pipeline__log_context(p);
    const rsql_source_ops_t *ops = p->conf.src_ops;
    int bs = p->conf.batch_size;
    int64_t maxb = p->conf.max_in_flight_bytes;
    rsql_retry_t retry;
    bool retrying = false;
    rsql_error_t e;
    rt_inbatch_t *ib = NULL; /* allocated ahead, kept across empty polls */
    rt_inbatch_t *last = NULL; /* conf.mark_last: the batch polled last, not yet handed on */
    bool last_is_end = false;  /* the last poll said the input ended */
    while (!atomic_load(&p->stopping)) {
        /* credit: bound the records in flight, and their bytes */
        pthread_mutex_lock(&p->lock);
        if (p->in_flight > 0 && (p->in_flight - p->sink_waiting + bs > p->conf.max_in_flight ||
                                 (maxb > 0 && rsql_pipeline__bytes_counted(p) + rec_bytes(p) >
                                                  maxb))) {
            /* full: wait until in_flight (and its bytes) are down to credit_resume (and
               bytes_resume; see pipeline_int.h), so this thread and the worker meet once per
               several batches */
            p->credit_waiting = true;
            while (!atomic_load(&p->stopping) && !rsql_pipeline__credit_back(p)) {
                pthread_cond_wait(&p->credit_cv, &p->lock);
            }
            p->credit_waiting = false;
        }
        int want = poll_count(p, bs);
        pthread_mutex_unlock(&p->lock);
        if (atomic_load(&p->stopping)) {
            break;
        }
        /* everything this batch needs downstream, before anything is polled into it */
        if (!ib && !(ib = rsql_pipeline__inbatch_new(bs))) {
            poll_oom(p);
            break;
        }
        bool eof = false;
        rsql_error_clear(&e);
        rsql_err_t rc = ops->poll(p->src, ib->b, want, p->conf.poll_timeout_ms, &eof, &e);
        if (rc != RSQL_OK) {
            /* nothing of a failed poll is kept (rsql_io.h) */
            rsql_pipeline__free_inbatch(ib);
            ib = NULL;
            if (!e.code) {
                rsql_error_set(&e, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
            }
            bool retriable = rsql_error_retriable(&e);
            int64_t now = rsql_now_ms();
            if (retriable) {
                if (!retrying) {
                    rsql_retry_init(&retry, p->conf.retry_timeout_ms,
                                    p->conf.retry_backoff_max_ms, now);
                    retrying = true;
                }
                int64_t wait = rsql_retry_next(&retry, now);
                if (wait >= 0) {
                    if (p->conf.stats) {
                        atomic_store(&p->conf.stats->source_down, true);
                    }
                    rsql_pipeline__retrying(p, "source poll", &e, wait, retry.attempts);
                    rsql_pipeline__sleep_interruptible(p, wait, true);
                    continue;
                }
            }
            rsql_error_t f;
            rsql_error_clear(&f);
            rsql_error_set(&f, rc, RSQL_NOPOS, "source error: %s", e.msg);
            rsql_pipeline__fail(p, &f, false);
            break;
        }
        if (retrying && p->conf.stats) {
            atomic_store(&p->conf.stats->source_down, false);
        }
        retrying = false;
        int n = ib->b->n;
        ib->poll_us = rsql_now_ns() / 1000;
        last_is_end = eof;
        if (n == 0) {
            if (eof) {
                break;
            }
            continue; /* a timeout: the same (empty) batch polls again */
        }
        count_bytes(p, ib);
        pthread_mutex_lock(&p->track_lock);
        bool tracked = true;
        for (int i = 0; i < n; i++) {
            rsql_record_t *r = &ib->b->recs[i];
            r->seq = p->next_seq++;
            if (tracked && rsql_offtrack_add(p->track, r->partition, r->offset, r->pos_key,
                                             &ib->tickets[i]) == RSQL_OK) {
                ib->registered[i] = 1;
            } else {
                tracked = false;
            }
        }
        pthread_mutex_unlock(&p->track_lock);
        if (!tracked) {
            /* Out of memory in the offset tracker: the run fails, and the batch still goes on
               so that every polled record gets its outcome (aborted, never committed; the
               records registered so far stay unknown, so no position passes them). */
            poll_oom(p);
        }
        ib->pending = n;
        if (p->conf.mark_last && tracked) {
            /* the batch waits for the next poll, which says whether its last record is the
               input's last; the one waiting before goes now */
            rt_inbatch_t *prev = last;
            last = ib;
            ib = NULL;
            if (prev) {
                push_inbatch(p, prev);
            }
            if (eof) {
                break;
            }
            continue;
        }
        if (last) { /* in poll order */
            push_inbatch(p, last);
            last = NULL;
        }
        push_inbatch(p, ib);
        ib = NULL;
        if (eof || !tracked) {
            break;
        }
    }
    if (last) { /* the input's end when the source said so (not when the run stops) */
        if (last_is_end) {
            last->b->recs[last->b->n - 1].flags |= RSQL_REC_LAST;
        }
        push_inbatch(p, last);
    }
    rsql_pipeline__free_inbatch(ib);
    rsql_queue_close(p->q1);
    p->poll_done_op.type = RT_OP_POLL_DONE;
    rsql_queue_push(p->wq, &p->poll_done_op);
    return NULL;
}

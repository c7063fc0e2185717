/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_sink_batch: the rocketmq-grpc sink's batch sends (sink.batch-size > 1, the default):
 * NORMAL messages next to each other in the queue go out together in one SendMessage, at most
 * sink.batch-size of them and BATCH_MAX_BYTES of bodies; a partial batch waits up to
 * sink.linger while another request is in flight. The proxy answers a batch all or nothing
 * (docs/ROCKETMQ-NOTES.md 3.1): a transient failure retries the batch whole; a permanent one
 * sends its messages again one at a time, so only the refused ones fail.
 *
 * Whether the proxy takes batches at all is learnt from the first batches, never from a probe
 * message (it would reach the topic's consumers): the first batch it accepts settles it; two
 * batches it refuses whole before that, whose messages then all go through alone, show a
 * proxy that does not take batches (batch send is not a documented part of the gRPC
 * protocol), and the sink sends one message per request from then on and says so in the log.
 * A refused batch one of whose messages is refused alone too was that message's fault, and
 * batching stays; one refusal alone could be a passing fault, so it takes two.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_sink_int.h"

#include <stdio.h>
#include <string.h>

#include "base/rsql_backoff.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

/*
** A batch's SendMessage is done. The proxy answers all or nothing: success gives each message
** its own entry (rsql_rmq_send splits the joined ids); a transient failure retries the whole
** batch after a backoff; a permanent one sends its messages again one by one, so only the bad
** ones fail. @locality client thread (or send thread when the send did not start)
*/
static void batch_cb(rsql_rmq_client_t *c, const rsql_error_t *err,
                     const rsql_rmq_send_entry_t *entries, size_t n, void *opaque)
{
    (void)c;
    smsg_t *h = opaque;
    rsql_sink_t *k = h->k;
    sbatch_t *done = NULL;
    pthread_mutex_lock(&k->mu);
    k->inflight--;
    bool retriable = err && rsql_error_retriable(err);
    if (err && retriable && h->attempts < k->max_attempts && !k->closing) {
        h->not_before =
            rsql_now_ms() + rsql_backoff_nth(BACKOFF_START_MS, 2, BACKOFF_MAX_MS, h->attempts);
        h->next = k->retry;
        k->retry = h;
    } else if (err && !retriable && h->bn > 1) {
        /* isolate the bad message: each is sent again on its own, first in line; while no
           batch has been accepted, these also tell whether the proxy takes batches at all */
        bool probe = !k->batch_ok && k->probe_left == 0;
        if (probe) {
            k->probe_left = h->bn;
            k->probe_bad = false;
            snprintf(k->probe_why, sizeof k->probe_why, "%.180s", err->msg);
        }
        smsg_t *last = NULL;
        for (smsg_t *q = h; q; q = q->bnext) {
            q->nobatch = true;
            q->probe = probe;
            q->attempts = 0;
            q->bn = 0;
            q->next = q->bnext;
            last = q;
        }
        for (smsg_t *q = h, *nx; q; q = nx) {
            nx = q->bnext;
            q->bnext = NULL;
        }
        last->next = k->ready;
        k->ready = h;
        if (!k->ready_tail) {
            k->ready_tail = last;
        }
    } else {
        k->batch_ok |= !err && h->bn > 1; /* a batch of one proves nothing */
        size_t i = 0;
        int attempts = h->attempts;
        for (smsg_t *q = h, *nx; q; q = nx, i++) {
            nx = q->bnext;
            q->bnext = NULL;
            q->bn = 0;
            q->attempts = attempts;
            rsql_rmq__sink_complete(k, q, err, err || n == 0 ? NULL : &entries[i < n ? i : n - 1], &done);
        }
    }
    pthread_cond_signal(&k->cv);
    pthread_mutex_unlock(&k->mu);
    rsql_rmq__sink_deliver(k, done);
}

/*
** See rmq_sink_int.h: due when full (sink.batch-size messages or BATCH_MAX_BYTES of bodies),
** followed by a message that cannot join it, lingered long enough, nothing in flight, or
** closing. @locks k->mu
*/
smsg_t *rsql_rmq__sink_take_batch(rsql_sink_t *k, int64_t now, int64_t *wake)
{
    int cnt = 0;
    size_t bytes = 0;
    smsg_t *q = k->ready;
    while (q && cnt < k->batch_size && rsql_rmq__sink_batchable(q) &&
           (cnt == 0 || bytes + q->len <= BATCH_MAX_BYTES)) {
        bytes += q->len;
        q = q->next;
        cnt++;
    }
    int64_t due = k->ready->queued_ms + k->linger_ms;
    if (cnt < k->batch_size && !q && !k->closing && k->inflight > 0 && due > now) {
        *wake = due < *wake ? due : *wake;
        return NULL;
    }
    smsg_t *h = k->ready;
    smsg_t *t = h;
    for (int i = 1; i < cnt; i++) {
        t->bnext = t->next;
        t = t->next;
    }
    t->bnext = NULL;
    k->ready = t->next;
    if (!k->ready) {
        k->ready_tail = NULL;
    }
    h->bn = cnt;
    return h;
}

/* See rmq_sink_int.h. */
void rsql_rmq__sink_send_batch(rsql_sink_t *k, smsg_t *h)
{
    k->inflight++;
    h->attempts++;
    pthread_mutex_unlock(&k->mu);
    int cnt = h->bn;
    rsql_rmq_out_msg_t *om = rsql_calloc((size_t)cnt, sizeof *om);
    const char **key1 = rsql_calloc((size_t)cnt, sizeof *key1);
    rsql_error_t e;
    rsql_error_clear(&e);
    if (!om || !key1) {
        rsql_error_nomem(&e);
        batch_cb(k->cli, &e, NULL, 0, h);
    } else {
        int i = 0;
        for (smsg_t *q = h; q && i < cnt; q = q->bnext, i++) {
            rsql_rmq__sink_out_msg(k, q, &om[i], &key1[i]);
        }
        if (rsql_rmq_send(k->cli, om, (size_t)cnt, batch_cb, h, &e) != RSQL_OK) {
            batch_cb(k->cli, &e, NULL, 0, h);
        }
    }
    rsql_free(om);
    rsql_free(key1);
    pthread_mutex_lock(&k->mu);
}

/* See rmq_sink_int.h. */
void rsql_rmq__sink_probe_done(rsql_sink_t *k, smsg_t *m, bool failed)
{
    m->probe = false;
    k->probe_bad |= failed;
    if (k->probe_left > 0 && --k->probe_left == 0 && !k->probe_bad && !k->batch_ok &&
        ++k->batch_refused >= 2 && k->batch_size > 1) {
        /* refused together, taken alone, twice: the proxy does not take batches */
        k->batch_size = 1;
        k->batch_off_log = true;
        pthread_cond_signal(&k->cv);
    }
}

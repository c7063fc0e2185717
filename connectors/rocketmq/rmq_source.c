/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_source: the rocketmq-grpc source (rsql_io.h), a Pop consumer with downstream ack.
 *
 * Simple mode registers a SIMPLE_CONSUMER on `topic` with the tag/SQL92 filter; lite mode
 * registers a LITE_PUSH_CONSUMER bound to the LITE parent `topic` (the 5.5 proxy refuses
 * LITE_SIMPLE_CONSUMER; the client still drives ReceiveMessage itself with auto_renew = false):
 * with a wildcard group every lite topic under the parent arrives, including new ones; with
 * `source.lite-topics` the list is subscribed with SyncLiteSubscription PARTIAL_ADD.
 *
 * Client identities (lite mode): the broker wakes each client id for at most ~100 lite topics
 * per full-dispatch round (docs/ROCKETMQ-NOTES.md §1.3a), so the source may run several clients
 * (s->clis), each a whole consumer of its own (client id, Telemetry stream, Settings,
 * heartbeat, the same lite subscription, its own adaptive long polls), clis[1..]
 * sharing the gRPC channel of clis[0] (the client id is per-request metadata). It starts with
 * `source.lite-clients-min` (1) and adapts up to `source.lite-clients`: recv_cb reports a full
 * round (rmq_lite_ids.c), the housekeeping thread starts and retires identities
 * (rmq_identity.c). A held message remembers the identity that received it (held_t.ci): its
 * ack, renewals, deferral and DLQ forward go through that client, since receipt handles are
 * per client, and the identity is not retired while it has any (s->ci_busy); an ack batch
 * holds one identity's messages only (rmq_held.c). Everything else (the buffer, lanes,
 * throttling, the idle clock, close) is the source's, shared by the identities.
 *
 * Threads
 *   - client thread (rmq_client.c): receive, ack, change-invisible and DLQ-forward completions.
 *     They only take s->mu briefly, move messages and signal; they never block.
 *   - housekeeping thread (one per source, rmq_housekeeping.c): blocks on hk_cv with a
 *     deadline (never spins) and starts what is due: the long polls while the internal buffer
 *     has room (back-pressure: buffered + polls in flight x batch < 2 x fetch x batch), as
 *     many per identity as the answers ask for: one at first, doubled by each poll that comes
 *     back full, halved by each that comes back empty, never over `source.fetch-concurrency`
 *     (an idle job parks one request per identity, a backlog is drained at the broker's
 *     pace); the renewals (ChangeInvisibleDuration `source.renewal-ahead`
 *     before a held message's invisibility ends; the NEW receipt handle replaces the old one),
 *     and the ack flush (at most ACK_DELAY_MS after the oldest queued ack).
 *   - poll thread: poll() waits on poll_cv for buffered messages and hands them out as records.
 *   - worker thread: commit_record() turns an outcome into an ack (WRITTEN, FILTERED,
 *     DEAD_LETTERED), a DLQ forward (DEAD_LETTERED with `source.dead-letter` = native) or a
 *     release (FAILED: not acked, the message comes back after its invisible duration). Acks
 *     are batched per topic: one AckMessage for up to ACK_BATCH entries (rmq_held.c).
 *   Client operations are never started with s->mu held, and nothing is logged with it held:
 *   lines are formatted into a local buffer (rsql_log_defer) and written after unlocking.
 *
 * Held messages (rmq_held.c): every message received and not yet resolved is "held" (a held_t
 * on s->held): buffered (not yet polled) or polled (outcome unknown). A renewal in flight and an
 * outcome are serialized per message: while `renewing`, commit_record only records the wanted
 * action (pending) and the renewal's completion carries it out with the new handle.
 *
 * Fair throttling (lite mode with throttle.* options; rmq_throttle.c has the policy): recv_cb
 * asks the policy for every message received. A message over its lite topic's share is not
 * held and not handed to the pipeline: it is deferred at once (ChangeInvisibleDuration with
 * its lite topic, suspend = false so the broker counts the attempt, started by recv_cb after
 * s->mu is released), counted as deferred in its lane and freed when the call completes; it
 * takes no buffer room, so the long polls go on fetching for the other lite topics.
 * At log level trace (--log-level trace) one "rmq-throttle: admit|valve|defer ..." line is logged
 * per decision; at debug the source's counters are logged at close.
 *
 * Bounded reads (scan.idle-timeout; rmq_bounded.c has the rules): the idle clock counts only
 * time the broker answered for (recv_cb feeds it every empty answer, with the time its long poll
 * started; a failed poll counts nothing). Once it expired, housekeeping starts no long poll and
 * poll reports the end when the ones still out have come back, so a bounded run never leaves a
 * message popped by a late long poll held and unseen. Long polls last at most the idle timeout.
 *
 * Lanes (rmq_inflight.c): lite mode = one lane per lite topic, FIFO topics one per message
 * group, else one lane for the topic. The lane is the record's partition (so the runtime's
 * offset tracker keys in-flight by lite topic) and carries in-flight/delivered counts. The
 * runtime stores no positions for this source (manages_own_positions): the broker keeps them.
 * A lane with nothing held goes after `lanes.idle-timeout` idle (the housekeeping thread sweeps;
 * its number, a partition, is then reused by a new lite topic or message group): a record's
 * partition always names the lane of its message, which is held until its outcome.
 *
 * This file owns the vtable: open (the client's configuration, the housekeeping thread), poll
 * (buffered messages out as records), commit_record (an outcome becomes an ack, a forward or a
 * release), wakeup, close and describe. It must not send acks or start receives, renewals or
 * deferrals itself (rmq_held.c and rmq_housekeeping.c do), and like every file of the source it
 * sees the client only through rmq_client.h.
 */
#include "config.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rocketmq/rmq_source_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/rsql_log.h"
#include "base/rsql_mem.h"

#define CLOSE_WAIT_MS 10000 /* close: longest wait for acks and renewals in flight */

/* ---- the vtable */

static void rs_close(rsql_source_t *s);

/* Split "a,b , c" into an array of trimmed strdup'ed items; *n set. NULL on OOM. */
static char **split_csv(const char *v, size_t *n)
{
    *n = 0;
    size_t cap = 1;
    for (const char *p = v; *p; p++) {
        cap += *p == ',';
    }
    char **out = rsql_calloc(cap, sizeof *out);
    if (!out) {
        return NULL;
    }
    const char *p = v;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') {
            p++;
            len--;
        }
        while (len && p[len - 1] == ' ') {
            len--;
        }
        if (len) {
            out[*n] = rsql_strndup(p, len);
            if (!out[*n]) {
                break;
            }
            (*n)++;
        }
        if (!e) {
            return out;
        }
        p = e + 1;
    }
    for (size_t i = 0; i < *n; i++) {
        rsql_free(out[i]);
    }
    rsql_free(out);
    return NULL;
}

/* "a:1,b:2" → "a:1;b:2" (the client's separator). Caller frees. */
static rsql_err_t rs_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_rmq_conf_t *c = ctx->conf;
    const char *topic = c ? c->topic : NULL;
    const char *group = c ? c->group : NULL;
    if (!topic || !*topic || !group || !*group) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "rocketmq-grpc source: options 'topic' and "
                              "'source.consumer-group' are required");
    }
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    if (!s) {
        return rsql_error_nomem(err);
    }
    bool reads_meta = false;
    for (int i = 0; ctx->column_meta && i < ctx->n_columns; i++) {
        reads_meta |= rsql_rmq__meta_id(ctx->column_meta[i]) != RMQ_META_NONE;
    }
    if (reads_meta) {
        s->n_columns = ctx->n_columns;
        s->meta_ids = rsql_calloc((size_t)ctx->n_columns, sizeof(int));
        s->meta_types = rsql_calloc((size_t)ctx->n_columns, sizeof(rsql_type_t));
        if (!s->meta_ids || !s->meta_types) {
            rsql_free(s->meta_ids);
            rsql_free(s->meta_types);
            rsql_free(s);
            return rsql_error_nomem(err);
        }
        for (int i = 0; i < ctx->n_columns; i++) {
            s->meta_ids[i] = rsql_rmq__meta_id(ctx->column_meta[i]);
            s->meta_types[i] = ctx->column_types[i];
        }
    }
    pthread_mutex_init(&s->mu, NULL);
    rsql_cond_init_monotonic(&s->poll_cv);
    rsql_cond_init_monotonic(&s->hk_cv);
    rsql_cond_init_monotonic(&s->done_cv);
    s->held.next = s->held.prev = &s->held;
    rsql_error_clear(&s->fatal);
    s->next_renew_due = INT64_MAX;
    s->ctr = ctx->counters;
    s->lite = c->mode == RSQL_RMQ_MODE_LITE;
    s->native_dlq = c->dead_letter == RSQL_RMQ_DLQ_NATIVE;
    s->fetch = (int)c->fetch_concurrency;
    s->fetch_now = 1; /* adaptive: grows while the polls come back full */
    s->batch = (int)c->batch_size;
    s->invisible_ms = c->invisible_ms;
    s->ahead_ms = c->renewal_ahead_ms;
    s->max_attempts = (int)c->max_delivery_attempts;
    s->idle_ms = c->idle_timeout_given ? c->idle_timeout_ms : -1;
    s->lane_idle_ms = c->lane_idle_ms;
    s->debug = rsql_log_enabled(RSQL_LOG_TRACE) ? 2 : rsql_log_enabled(RSQL_LOG_DEBUG) ? 1 : 0;
    bool throttle_oom = false;
    if (s->lite && (c->max_inflight_per_lite_given || c->rate_per_lite_given)) {
        rsql_rmq_throttle_conf_t tc = {
            .max_inflight = c->max_inflight_per_lite,
            .rate = c->rate_per_lite, /* 0 when not given: no rate limit */
            .burst = 0,
            .defer_ms = c->defer_ms,
            .max_attempts = s->max_attempts,
            .max_invisible_ms = c->max_invisible_ms,
        };
        s->thr = rsql_rmq_throttle_new(&tc);
        throttle_oom = !s->thr;
    }
    s->topic = rsql_strdup(topic);
    s->lanes = rsql_rmq_inflight_new(topic);
    rsql_rmq_config_t conf;
    char *eps = rsql_rmq__client_config(
        c, s->lite ? RSQL_RMQ_LITE_PUSH_CONSUMER : RSQL_RMQ_SIMPLE_CONSUMER, &conf);
    if (!s->topic || !s->lanes || !eps || throttle_oom) {
        rsql_free(eps);
        rs_close(s);
        return rsql_error_nomem(err);
    }
    const char *topics[1] = {topic};
    conf.group = group;
    conf.topics = topics;
    conf.n_topics = 1;
    conf.filter_type = !s->lite && c->filter_type == RSQL_RMQ_FILTER_TYPE_SQL92
                           ? RSQL_RMQ_FILTER_SQL
                           : RSQL_RMQ_FILTER_TAG;
    /* lite mode subscribes the parent topic's wildcard (finalize rejects a filter there) */
    conf.filter_expression = s->lite ? "*" : c->filter_expression;
    /* a bounded read polls no longer than its idle timeout (the answer completes it) */
    conf.long_polling_timeout_ms = (int)rsql_rmq_idle_long_poll_ms(c->await_ms, s->idle_ms);
    conf.max_body_bytes = (size_t)c->max_body_bytes;
    /* lite mode: source.lite-clients-start identities to start with (all registered before
       the broker's first dispatch round), the first owning the channel, each with its own
       client id, Telemetry stream, heartbeat and (the same) lite subscription; the
       housekeeping thread adds more up to source.lite-clients while the broker's dispatch
       rounds come back full and retires them down to source.lite-clients-min after a quiet
       time (rmq_identity.c) */
    int max_clis = s->lite && c->lite_clients > 1 ? (int)c->lite_clients : 1;
    max_clis = max_clis > RMQ_MAX_CLIENTS ? RMQ_MAX_CLIENTS : max_clis;
    int min_clis = s->lite && c->lite_clients_min > 1 ? (int)c->lite_clients_min : 1;
    min_clis = min_clis > max_clis ? max_clis : min_clis;
    rsql_rmq_ids_init(&s->ids, min_clis, max_clis, s->lite ? (int)rsql_rmq_lite_start(c) : 1,
                      rsql_now_ms());
    int n_clis = s->ids.target;
    rsql_err_t rc = RSQL_OK;
    size_t n_lt = 0;
    char **lt = s->lite && c->lite_topics ? split_csv(c->lite_topics, &n_lt) : NULL;
    if ((s->lite && c->lite_topics && !lt) || !rsql_rmq__identity_keep(s, &conf, lt, n_lt)) {
        rc = rsql_error_nomem(err);
    }
    rsql_free(eps); /* (copied) */
    for (int i = 0; rc == RSQL_OK && i < n_clis; i++) {
        rc = rsql_rmq__identity_start(s, i, err);
    }
    if (rc != RSQL_OK) {
        rs_close(s);
        return rc;
    }
    /* a previous run of this group was interrupted: count idle time only once what it held
       can be seen again (the runtime's rule, rt_hold.c); wall-clock time to this clock */
    int64_t now = rsql_now_ms();
    int64_t not_before = 0;
    if (ctx->not_before_ms > 0) {
        not_before = now + (ctx->not_before_ms - rsql_wall_ms());
    }
    rsql_rmq_idle_init(&s->idle, s->idle_ms, now, not_before);
    /* its lines carry the job and run */
    if (rsql_log_thread_create(&s->hk, rsql_rmq__hk_main, s) != 0) {
        rs_close(s);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "rocketmq-grpc source: cannot start its thread");
    }
    s->hk_started = true;
    *out = s;
    return RSQL_OK;
}

/* Append s to b, at most max bytes of it, a byte that is not printable ASCII as '?'. */
static void put_clean(rsql_buf_t *b, const char *s, size_t max)
{
    size_t n = 0;
    for (; s[n] && n < max; n++) {
        unsigned char ch = (unsigned char)s[n];
        rsql_buf_putc(b, ch > 0x20 && ch < 0x7f ? (char)ch : '?');
    }
    if (s[n]) {
        rsql_buf_puts(b, "...");
    }
}

/* See rmq_source_int.h. */
const char *rsql_rmq__record_ident(rsql_arena_t *arena, const rsql_rmq_msg_t *m,
                                   const char *topic)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    put_clean(&b, m->topic && *m->topic ? m->topic : topic ? topic : "", 256);
    if (m->lite_topic) {
        rsql_buf_putc(&b, '/');
        put_clean(&b, m->lite_topic, 128);
    }
    rsql_buf_putc(&b, '/');
    if (m->message_id && *m->message_id) {
        put_clean(&b, m->message_id, 128);
    } else {
        rsql_buf_puts(&b, "(no message id)");
    }
    const char *id = b.oom ? NULL : rsql_arena_strndup(arena, rsql_buf_str(&b), b.len);
    rsql_buf_deinit(&b);
    return id;
}

/*
** Hand out buffered messages as records (body, ident "<topic>[/<lite>]/<id>", lane as the
** partition, the held message as opaque). A message the client marked bad (rsql_rmq_msg_t.bad)
** becomes a record with rec->error set and its raw form: a decode failure of that record (its
** outcome still comes back, so it is acked, forwarded or released like any other).
** @locality poll thread
*/
static rsql_err_t rs_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                          bool *eof, rsql_error_t *err)
{
    *eof = false;
    int room = batch->cap - batch->n;
    if (max > room) {
        max = room;
    }
    if (max <= 0) {
        return RSQL_OK;
    }
    held_t *take[64];
    int cap = max < 64 ? max : 64;
    int n = 0;
    int64_t deadline = rsql_now_ms() + timeout_ms;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->fatal.code != RSQL_OK && s->n_buffered == 0) {
            rsql_error_copy(err, &s->fatal);
            pthread_mutex_unlock(&s->mu);
            return err ? err->code : RSQL_ERR_REMOTE;
        }
        if (s->n_buffered > 0 || s->stopping) {
            break;
        }
        /* the end of a bounded read: the broker answered for scan.idle-timeout without a
           message, and no long poll is still out (housekeeping starts none once the clock
           expired), so nothing it could still bring is left behind, held and unseen */
        if (rsql_rmq_idle_expired(&s->idle) && s->recv_outstanding == 0) {
            *eof = true;
            s->ended = true;
            break;
        }
        if (rsql_now_ms() >= deadline) {
            break;
        }
        rsql_cond_wait_until(&s->poll_cv, &s->mu, deadline); /* every answer signals */
    }
    while (n < cap && s->bhead) {
        held_t *h = s->bhead;
        s->bhead = h->bnext;
        if (!s->bhead) {
            s->btail = NULL;
        }
        h->bnext = NULL;
        h->polled = true;
        s->n_buffered--;
        take[n++] = h;
    }
    if (n > 0) {
        pthread_cond_signal(&s->hk_cv); /* room for more long polls */
    }
    pthread_mutex_unlock(&s->mu);
    for (int i = 0; i < n; i++) {
        held_t *h = take[i];
        rsql_record_t *r = rsql_batch_add(batch);
        if (!r) {
            /* cannot happen (room checked); give the rest back to the buffer front */
            pthread_mutex_lock(&s->mu);
            for (int j = n - 1; j >= i; j--) {
                take[j]->polled = false;
                take[j]->bnext = s->bhead;
                s->bhead = take[j];
                if (!s->btail) {
                    s->btail = take[j];
                }
                s->n_buffered++;
            }
            pthread_mutex_unlock(&s->mu);
            break;
        }
        rsql_rmq_msg_t *m = h->m;
        r->partition = h->lane;
        r->offset = h->offset;
        r->raw = rsql_batch_copy(batch, m->body ? (const void *)m->body : "", m->body_len);
        r->raw_len = m->body_len;
        r->ident = rsql_rmq__record_ident(batch->arena, m, s->topic);
        r->opaque = h;
        rsql_error_t *bad = NULL;
        if (m->bad.code != RSQL_OK && (bad = rsql_arena_alloc(batch->arena, sizeof *bad))) {
            *bad = m->bad; /* a decode failure of this record (rsql_record_t.error) */
        }
        r->error = bad;
        if (s->meta_ids && m->bad.code == RSQL_OK &&
            !(r->meta = rsql_rmq__record_meta(batch->arena, m, s->topic, s->n_columns,
                                              s->meta_ids, s->meta_types))) {
            return rsql_error_nomem(err);
        }
        if ((!r->raw && m->body_len > 0) || (m->bad.code != RSQL_OK && !bad)) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}

static int rs_partition_count(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    int n = (int)rsql_rmq_inflight_count(s->lanes);
    pthread_mutex_unlock(&s->mu);
    return n;
}

static const char *rs_partition_name(rsql_source_t *s, uint32_t partition)
{
    pthread_mutex_lock(&s->mu);
    const char *n = rsql_rmq_inflight_name(s->lanes, partition);
    pthread_mutex_unlock(&s->mu);
    return n;
}

/*
** The outcome of a record: ack, forward to the DLQ, or release. See the file comment.
** @locality worker thread
*/
static void rs_commit_record(rsql_source_t *s, const rsql_record_t *rec,
                             const rsql_outcome_t *outcome)
{
    held_t *h = rec->opaque;
    if (!h) {
        return;
    }
    int action = outcome->kind == RSQL_OUTCOME_FAILED ? P_RELEASE
                 : outcome->kind == RSQL_OUTCOME_DEAD_LETTERED && s->native_dlq ? P_DLQ
                                                                               : P_ACK;
    ack_batch_t *ab = NULL;
    held_t *to_dlq = NULL;
    pthread_mutex_lock(&s->mu);
    /* (under s->mu: a renewal's completion replaces the handle, renew_cb) */
    if (!h->m->receipt_handle) {
        action = P_RELEASE; /* a bad message without a receipt handle cannot be acked */
    }
    if (h->renewing) {
        h->pending = action; /* the renewal's completion acts, with the new handle */
        pthread_mutex_unlock(&s->mu);
        return;
    }
    rsql_rmq__held_unlink(s, h);
    if (action == P_RELEASE) {
        rsql_rmq__held_release(s, h);
    } else if (action == P_DLQ) {
        s->ops++;
        to_dlq = h;
    } else {
        rsql_rmq__ackq_push(s, h);
        if (s->n_ack >= ACK_BATCH) {
            ab = rsql_rmq__ackq_take(s);
        } else if (s->n_ack == 1) {
            pthread_cond_signal(&s->hk_cv); /* start the flush timer */
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (to_dlq) {
        rsql_rmq__dlq_send(s, to_dlq);
    }
    if (ab) {
        rsql_rmq__ack_send(s, ab);
    }
}

static void rs_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->stopping = true;
    s->ended = true;
    pthread_cond_broadcast(&s->poll_cv);
    pthread_cond_signal(&s->hk_cv);
    pthread_mutex_unlock(&s->mu);
}

/*
** Close: stop the housekeeping thread, send every queued ack and wait (up to CLOSE_WAIT_MS)
** for acks, renewals and forwards in flight, then stop the client. Messages still held (not
** resolved) are released: they come back after their invisible duration.
*/
static void rs_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    pthread_mutex_lock(&s->mu);
    s->closing = true;
    s->stopping = true;
    pthread_cond_signal(&s->hk_cv);
    pthread_mutex_unlock(&s->mu);
    if (s->hk_started) {
        pthread_join(s->hk, NULL);
    }
    if (s->cli) {
        int64_t until = rsql_now_ms() + CLOSE_WAIT_MS;
        pthread_mutex_lock(&s->mu);
        for (;;) {
            ack_batch_t *ab = rsql_rmq__ackq_take(s);
            if (ab) {
                pthread_mutex_unlock(&s->mu);
                rsql_rmq__ack_send(s, ab);
                pthread_mutex_lock(&s->mu);
                continue;
            }
            int64_t now = rsql_now_ms();
            if ((s->ops == 0 && s->n_ack == 0) || now >= until) {
                break;
            }
            rsql_cond_wait_until(&s->done_cv, &s->mu, until);
        }
        s->clis_closing = true;
        pthread_mutex_unlock(&s->mu);
        /* completes what is still in flight; the channel's owner (clis[0]) last */
        for (int i = RMQ_MAX_CLIENTS - 1; i >= 0; i--) {
            rsql_rmq_client_destroy(s->clis[i]);
            s->clis[i] = NULL;
        }
        s->n_clis = 0;
        s->cli = NULL;
    }
    rsql_rmq__identity_forget(s);
    for (size_t i = 0; i < s->n_ack; i++) {
        rsql_rmq__held_free(s->ackq[i]);
    }
    rsql_free(s->ackq);
    while (s->held.next != &s->held) {
        held_t *h = s->held.next;
        rsql_rmq__held_unlink(s, h);
        rsql_rmq__held_free(h);
    }
    if (s->debug) {
        rsql_log(RSQL_LOG_DEBUG, "rocketmq",
                 "rocketmq-grpc source: acked=%" PRId64 " invalid_handle=%" PRId64
                 " renewed=%" PRId64 " renew_failed=%" PRId64 " forwarded=%" PRId64
                 " lanes=%" PRIu32 " deferred=%" PRId64 " defer_failed=%" PRId64
                 " valve=%" PRId64,
                 s->n_acked, s->n_ack_invalid, s->n_renewed, s->n_renew_failed, s->n_forwarded,
                 s->lanes ? rsql_rmq_inflight_count(s->lanes) : 0, s->n_deferred,
                 s->n_defer_failed, s->n_valve);
    }
    rsql_rmq_later_deinit(&s->released);
    rsql_rmq_later_deinit(&s->deferred_later);
    rsql_rmq_throttle_destroy(s->thr);
    rsql_rmq_inflight_destroy(s->lanes);
    rsql_free(s->topic);
    rsql_free(s->meta_ids);
    rsql_free(s->meta_types);
    pthread_cond_destroy(&s->poll_cv);
    pthread_cond_destroy(&s->hk_cv);
    pthread_cond_destroy(&s->done_cv);
    pthread_mutex_destroy(&s->mu);
    rsql_free(s);
}

/*
** What is left invisible to the next run: messages still held (buffered, or polled without an
** outcome) or let go without an ack and not yet visible again, and deferred ones not yet back.
** @locks s->mu held
*/
static void leftover0(rsql_source_t *s, rsql_rmq_leftover_t *lo)
{
    int64_t now = rsql_now_ms(), held_last = 0, deferred_last = 0;
    memset(lo, 0, sizeof *lo);
    lo->now_wall_ms = rsql_wall_ms();
    for (held_t *h = s->held.next; h != &s->held; h = h->next) {
        lo->held++;
        held_last = h->deadline > held_last ? h->deadline : held_last;
    }
    int64_t released_last = 0;
    lo->held += (int64_t)rsql_rmq_later_count(&s->released, now, &released_last);
    held_last = released_last > held_last ? released_last : held_last;
    lo->deferred = (int64_t)rsql_rmq_later_count(&s->deferred_later, now, &deferred_last);
    lo->held_in_ms = held_last > now ? held_last - now : 0;
    lo->deferred_in_ms = deferred_last > now ? deferred_last - now : 0;
}

/*
** Add the members mem (`"a":1,"b":2`) to the JSON object of n bytes in buf (or make one when
** n is 0); returns the new length (n unchanged when they do not fit).
*/
static size_t json_add(char *buf, size_t n, size_t size, const char *mem)
{
    size_t ml = strlen(mem);
    if (n >= 2 && buf[n - 1] == '}' && n + ml + 2 < size) {
        return n - 1 + (size_t)snprintf(buf + n - 1, size - n + 1, "%s%s}",
                                        buf[n - 2] == '{' ? "" : ",", mem);
    }
    if (n == 0 && ml + 3 < size) {
        return (size_t)snprintf(buf, size, "{%s}", mem);
    }
    return n;
}

/*
** The busiest lite topics (or message groups) for the status line / SHOW JOB RUNS; once the
** read ended (or was stopped), the JSON also says what it leaves invisible ("left").
*/
static size_t rs_describe(rsql_source_t *s, bool text, char *buf, size_t size)
{
    if (size == 0) {
        return 0;
    }
    buf[0] = '\0';
    pthread_mutex_lock(&s->mu);
    size_t n = s->lite ? rsql_rmq_throttle_describe(s->lanes, text ? 3 : 10, text, buf, size)
                       : 0;
    char polls[128] = "";
    if (!text) {
        /* the adaptive receive: polls allowed now, at most, and in flight */
        snprintf(polls, sizeof polls,
                 "\"long_polls\":%d,\"long_polls_max\":%d,\"long_polls_in_flight\":%d",
                 s->fetch_now * s->n_active, s->fetch * s->n_active, s->recv_outstanding);
    }
    char left[256] = "";
    if (!text && s->ended) {
        rsql_rmq_leftover_t lo;
        leftover0(s, &lo);
        rsql_rmq_leftover_format(&lo, true, left, sizeof left);
    }
    /* while receives fail (the proxy is down, unreachable): "connected":false, for /readyz */
    bool failing = !text && !s->ended && s->recv_backoff > 0;
    int ids = s->n_active;
    pthread_mutex_unlock(&s->mu);
    if (*polls) {
        n = json_add(buf, n, size, polls);
    }
    if (s->lite && !text) {
        /* the client identities in use (rmq_identity.c; serve's
           rocketsql_source_lite_identities) */
        char f[40];
        snprintf(f, sizeof f, "\"identities\":%d", ids);
        n = json_add(buf, n, size, f);
    }
    if (failing) {
        n = json_add(buf, n, size, "\"connected\":false");
    }
    if (*left) {
        /* "left" is the object's last member */
        char mem[sizeof left + 8];
        snprintf(mem, sizeof mem, "\"left\":%s", left);
        n = json_add(buf, n, size, mem);
    }
    return n;
}

/* The run's leftovers for its summary line (once, at the end, before close). */
static size_t rs_leftover(rsql_source_t *s, char *buf, size_t size)
{
    rsql_rmq_leftover_t lo;
    pthread_mutex_lock(&s->mu);
    leftover0(s, &lo);
    pthread_mutex_unlock(&s->mu);
    return rsql_rmq_leftover_format(&lo, false, buf, size);
}

/*
** The rocketmq-grpc source vtable (rsql_io.h). Static.
*/
const rsql_source_ops_t rsql_rmq_source_ops = {
    .open = rs_open,
    .poll = rs_poll,
    .partition_count = rs_partition_count,
    .partition_name = rs_partition_name,
    .commit_record = rs_commit_record,
    .committed = NULL,
    .total = NULL,
    .wakeup = rs_wakeup,
    .close = rs_close,
    .manages_own_positions = true,
    .describe = rs_describe,
    .leftover = rs_leftover,
};

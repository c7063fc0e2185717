/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_call: the client's gRPC call machinery. It makes calls (every call carries the x-mq-*
 * headers and, with credentials, the signed authorization header of rmq_sign.c), starts their
 * batches on the client's completion queue (grpc_call_start_batch is thread-safe, so from any
 * thread), takes received bytes and gRPC statuses out of them, hands every completion-queue event
 * to what the call is for (rsql_rmq__call_handle, on the client thread) and decides when a call
 * is freed (below).
 *
 * Call shapes: unary RPCs are one batch (send metadata+message+close, receive metadata+message
 * +status). ReceiveMessage (server stream) reads elements one RECV_MESSAGE batch at a time, then
 * RECV_STATUS. Telemetry (bidi) keeps one receive batch and one status batch pending and
 * serialises its writes through a small queue (rmq_telemetry.c).
 *
 * It owns a call's batch state (pending, status_started, the tags, the buffers) and the client's
 * list of active calls. It must not decode responses, run user callbacks or read routes and
 * settings: the completions it dispatches to (rmq_ops.c, rmq_telemetry.c) do that.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/support/alloc.h>
#include <grpc/support/time.h>

#include "rmqclient/rmq_client_int.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

/*
** Who frees a call, and when (the call/tag release state machine)
**
** A call (struct rmq_call) carries its four completion-queue tags (t_main, t_recv, t_status,
** t_write) inline, so it must outlive every batch it started: it is freed only when no batch of
** it is pending and none will be started any more. k->pending counts the batches started whose
** event has not been handled yet; k->status_started says its RECV_STATUS_ON_CLIENT op has been
** started (or tried). Both, like c->active, c->n_active and c->telemetry, change under c->mu.
**
**   NEW       rsql_rmq__call_new: allocated, its grpc_call created on c->cq, linked on
**             c->active (n_active++), pending = 0. While the client is closing a new call is
**             refused (freed at once, never linked), except NotifyClientTermination.
**             NEW -> STARTED: rsql_rmq__call_start.
**             NEW -> RELEASED: its starter gives up before starting it: rsql_rmq_send when the
**             QueryRoute that must precede the first send to a topic cannot start, and
**             send_after_route when that QueryRoute fails (the send's callback then gets the
**             route's error).
**   STARTED   rsql_rmq__call_start started the first batch (tag t_main; pending = 1):
**               unary          send metadata, message and close; receive metadata, message and
**                              the status (status_started = true): one batch, one event.
**               server stream  the same without the status: the first element comes with it.
**               bidi           send the metadata only; rsql_rmq__tele_open then starts one
**                              receive (t_recv) and the status (t_status; status_started) under
**                              c->mu, and writes go one at a time (t_write, rsql_rmq__tele_pump0).
**             If gRPC refuses the first batch: pending = 0 and the call is RELEASED at once; the
**             starter gets the error and no callback runs.
**   EVENTS    rsql_rmq__call_handle, client thread, one completion-queue event (ok =
**             ev.success): c->mu is taken before the tag is read (so what the starter wrote
**             into the call before its locked pending = 1 is seen), pending--, then by the
**             call's kind:
**               unary          the only batch is done: rsql_rmq__finish_unary runs the
**                              callback, then RELEASED.
**               server stream  at most one batch is pending at a time. OP_MAIN or OP_RECV with a
**                              message: the element is kept and the next receive is started
**                              (pending++). Without one (end of the stream, or ok = false, e.g.
**                              cancelled): the status is started (pending++); if gRPC refuses it
**                              (pending back to 0, gstatus = INTERNAL) rsql_rmq__finish_receive
**                              and RELEASED now. OP_STATUS, the last event:
**                              rsql_rmq__finish_receive runs the callback, then RELEASED. (If gRPC
**                              refused a next receive, nothing would be pending and nothing would
**                              release the call.)
**               bidi           OP_RECV with a message: the server command is handled and the
**                              next receive started. OP_WRITE: write_busy = false and, when ok,
**                              the next queued write starts. OP_STATUS: c->telemetry is cleared
**                              and rsql_rmq__tele_broken records why and schedules the re-open.
**                              OP_MAIN: nothing. After every event the call is RELEASED once
**                              pending == 0 AND status_started, so an OP_MAIN event handled
**                              before tele_open has started the receive and the status does not
**                              free it.
**   RELEASED  rsql_rmq__call_release: unlinked from c->active (n_active--), c->telemetry
**             cleared if it was this call, c->cond broadcast (a destroy may be waiting), then
**             call_free (buffers, pending writes, kept messages, grpc_call_unref). Nothing may
**             touch the call afterwards.
**
** Cancellation: grpc_call_cancel frees nothing. It makes every pending batch complete (receives
** with ok = false, the status CANCELLED, which maps to RSQL_ERR_INTERRUPTED), so a cancelled call
** leaves through the same EVENTS as any other, its callback included. The client cancels every
** active call in stop_thread (destroy, or a failed start) and the Telemetry call on a server
** ReconnectEndpointsCommand (its OP_STATUS then schedules the re-open).
**
** Destroy while calls are in flight (rsql_rmq_client_destroy -> stop_thread): closing = true (no
** new call is linked any more), every call on c->active is cancelled, and destroy waits on
** c->cond until n_active == 0, i.e. until the client thread has handled the last event of every
** call and released it as above. Only then is the completion queue shut down (the client thread
** ends at GRPC_QUEUE_SHUTDOWN) and the channel destroyed. A NEW call has no batch for the cancel
** to complete: whoever holds it releases it (a send waiting for its route: send_after_route, when
** the route call, cancelled too, completes). This is why a callback, which runs on the client
** thread, must not call rsql_rmq_client_destroy: it would wait for its own thread.
*/

/* ---- calls --------------------------------------------------------------------------------- */

static void md_add(rmq_call_t *k, const char *key, const char *value)
{
    if (k->n_md < RMQ_MAX_MD) {
        k->md[k->n_md].key = grpc_slice_from_static_string(key);
        k->md[k->n_md].value = grpc_slice_from_copied_string(value);
        k->n_md++;
    }
}

static void call_free(rmq_call_t *k)
{
    for (size_t i = 0; i < k->n_md; i++) {
        grpc_slice_unref(k->md[i].value);
    }
    grpc_metadata_array_destroy(&k->md_init);
    grpc_metadata_array_destroy(&k->md_trail);
    if (k->send_bb) {
        grpc_byte_buffer_destroy(k->send_bb);
    }
    if (k->recv_bb) {
        grpc_byte_buffer_destroy(k->recv_bb);
    }
    grpc_slice_unref(k->gdetails);
    for (size_t i = 0; i < k->n_msgs; i++) {
        rsql_rmq_msg_destroy(k->msgs[i]);
    }
    rsql_free(k->msgs);
    rsql_free(k->rmessage);
    rsql_free(k->topic);
    while (k->wq_head) {
        rmq_write_t *w = k->wq_head;
        k->wq_head = w->next;
        if (w->bb) {
            grpc_byte_buffer_destroy(w->bb);
        }
        rsql_free(w);
    }
    if (k->gcall) {
        grpc_call_unref(k->gcall);
    }
    rsql_free(k);
}

/* Unlink k from the active list and free it; wakes a destroy waiting for the list to drain. */
void rsql_rmq__call_release(rmq_call_t *k)
{
    rsql_rmq_client_t *c = k->c;
    pthread_mutex_lock(&c->mu);
    if (k->prev) {
        k->prev->next = k->next;
    } else if (c->active == k) {
        c->active = k->next;
    }
    if (k->next) {
        k->next->prev = k->prev;
    }
    c->n_active--;
    if (c->telemetry == k) {
        c->telemetry = NULL;
    }
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->mu);
    call_free(k);
}

/* See rmq_client_int.h. */
grpc_byte_buffer *rsql_rmq__bb_from(const rmq_bytes_t *b)
{
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)b->data, b->len);
    grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    return bb;
}

/*
** Create a call of rpc with all headers; the request bytes become its send buffer. The call is
** linked into the active list. Returns NULL with err set (closing client, out of memory).
*/
rmq_call_t *rsql_rmq__call_new(rsql_rmq_client_t *c, rmq_rpc_id_t id, const rmq_bytes_t *req,
                               int64_t deadline_ms, rsql_error_t *err)
{
    rmq_call_t *k = rsql_calloc(1, sizeof(*k));
    if (!k) {
        rsql_error_nomem(err);
        return NULL;
    }
    k->c = c;
    k->rpc = rsql_rmq__rpc(id);
    k->t_main = (rmq_tag_t){OP_MAIN, k};
    k->t_recv = (rmq_tag_t){OP_RECV, k};
    k->t_status = (rmq_tag_t){OP_STATUS, k};
    k->t_write = (rmq_tag_t){OP_WRITE, k};
    k->gdetails = grpc_empty_slice();
    grpc_metadata_array_init(&k->md_init);
    grpc_metadata_array_init(&k->md_trail);
    char reqid[37], dt[17], auth[512];
    rsql_rmq__uuid(reqid);
    rsql_rmq__datetime((time_t)(rsql_wall_ms() / 1000), dt);
    md_add(k, "x-mq-language", "CPP");
    md_add(k, "x-mq-protocol", "v2");
    md_add(k, "x-mq-client-version", RMQ_CLIENT_VERSION);
    md_add(k, "x-mq-client-id", c->client_id);
    md_add(k, "x-mq-request-id", reqid);
    md_add(k, "x-mq-date-time", dt);
    md_add(k, "x-mq-namespace", c->name_space);
    if (c->access_key && rsql_rmq__sign(c->access_key, c->secret_key, dt, auth, sizeof(auth),
                                        NULL) == RSQL_OK) {
        md_add(k, "authorization", auth);
    }
    if (req) {
        k->send_bb = rsql_rmq__bb_from(req);
    }
    gpr_timespec deadline =
        deadline_ms > 0 ? gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                                       gpr_time_from_millis(deadline_ms, GPR_TIMESPAN))
                        : gpr_inf_future(GPR_CLOCK_MONOTONIC);
    pthread_mutex_lock(&c->mu);
    if (c->closing && id != RMQ_RPC_NOTIFY_TERMINATION) {
        pthread_mutex_unlock(&c->mu);
        call_free(k);
        rsql_error_set(err, RSQL_ERR_INTERRUPTED, RSQL_NOPOS, "RocketMQ client is closing");
        return NULL;
    }
    k->gcall = grpc_channel_create_call(c->channel, NULL, GRPC_PROPAGATE_DEFAULTS, c->cq,
                                        grpc_slice_from_static_string(k->rpc->path), NULL,
                                        deadline, NULL);
    k->next = c->active;
    if (c->active) {
        c->active->prev = k;
    }
    c->active = k;
    c->n_active++;
    pthread_mutex_unlock(&c->mu);
    return k;
}

/* See rmq_client_int.h. */
rsql_err_t rsql_rmq__start_simple(rsql_rmq_client_t *c, rmq_rpc_id_t id, rmq_bytes_t *req,
                                  rmq_call_t **out, rsql_error_t *err)
{
    const rmq_rpc_t *rpc = rsql_rmq__rpc(id);
    int64_t dl = c->request_timeout_ms + (rpc->long_poll ? c->long_polling_ms : 0);
    rmq_call_t *k = rsql_rmq__call_new(c, id, req, dl, err);
    rsql_free(req->data);
    req->data = NULL;
    if (!k) {
        return err && err->code ? err->code : RSQL_ERR_INTERNAL;
    }
    *out = k;
    return RSQL_OK;
}

/*
** Set k's pending count (and status_started) before its first batch, under c->mu as the state
** machine above says. The lock also orders everything its starter did with k before (writes of
** api, callback, opaque, ...; reads) before the client thread's handling of the batch's event,
** which begins by taking c->mu and may free k: the completion queue orders them too, but inside
** gRPC, where ThreadSanitizer does not see it. So the starter touches nothing of k between this
** and grpc_call_start_batch (the grpc_call is read before).
*/
static void set_pending(rmq_call_t *k, int pending, bool status_started)
{
    pthread_mutex_lock(&k->c->mu);
    k->pending = pending;
    k->status_started = status_started;
    pthread_mutex_unlock(&k->c->mu);
}

/* Start the first batch of k; on failure k is released and err set (no callback). */
rsql_err_t rsql_rmq__call_start(rmq_call_t *k, rsql_error_t *err)
{
    grpc_op ops[6];
    memset(ops, 0, sizeof(ops));
    size_t n = 0;
    ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
    ops[n].data.send_initial_metadata.count = k->n_md;
    ops[n].data.send_initial_metadata.metadata = k->md;
    if (k->rpc->long_poll || k->rpc->kind == RMQ_BIDI) {
        /* While the proxy is away (restart), a long poll waits for the channel to reconnect
         * (within its deadline) instead of failing at once: receivers do not escalate their
         * retry backoff during the outage and resume as soon as the channel is back. The
         * Telemetry stream does the same, so its re-open (and the Settings the restarted proxy
         * needs) goes out the moment the channel is back, with the long polls, instead of at
         * the end of a re-open backoff that doubled during the outage (up to 30 s of polls
         * answered `"settings" is null`, docs/ROCKETMQ-NOTES.md §12). */
        ops[n].flags = GRPC_INITIAL_METADATA_WAIT_FOR_READY |
                       GRPC_INITIAL_METADATA_WAIT_FOR_READY_EXPLICITLY_SET;
    }
    n++;
    if (k->rpc->kind == RMQ_BIDI) {
        /* Telemetry: metadata goes first; messages go through the write queue. */
        grpc_call *gc = k->gcall; /* read before set_pending: see there */
        set_pending(k, 1, false);
        grpc_call_error e = grpc_call_start_batch(gc, ops, n, &k->t_main, NULL);
        if (e != GRPC_CALL_OK) {
            set_pending(k, 0, false);
            rsql_rmq__call_release(k);
            return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                  "gRPC refused to start %s (%d)", "Telemetry", (int)e);
        }
        return RSQL_OK;
    }
    ops[n].op = GRPC_OP_SEND_MESSAGE;
    ops[n].data.send_message.send_message = k->send_bb;
    n++;
    ops[n].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
    n++;
    ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
    ops[n].data.recv_initial_metadata.recv_initial_metadata = &k->md_init;
    n++;
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n].data.recv_message.recv_message = &k->recv_bb;
    n++;
    if (k->rpc->kind == RMQ_UNARY) {
        ops[n].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
        ops[n].data.recv_status_on_client.trailing_metadata = &k->md_trail;
        ops[n].data.recv_status_on_client.status = &k->gstatus;
        ops[n].data.recv_status_on_client.status_details = &k->gdetails;
        n++;
    }
    grpc_call *gc = k->gcall; /* read before set_pending: see there */
    set_pending(k, 1, k->rpc->kind == RMQ_UNARY);
    grpc_call_error e = grpc_call_start_batch(gc, ops, n, &k->t_main, NULL);
    if (e != GRPC_CALL_OK) {
        set_pending(k, 0, k->rpc->kind == RMQ_UNARY);
        const char *name = k->rpc->name;
        rsql_rmq__call_release(k);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "gRPC refused to start %s (%d)", name, (int)e);
    }
    return RSQL_OK;
}

/* See rmq_client_int.h. */
void rsql_rmq__call_start_status(rmq_call_t *k)
{
    grpc_op op;
    memset(&op, 0, sizeof(op));
    op.op = GRPC_OP_RECV_STATUS_ON_CLIENT;
    op.data.recv_status_on_client.trailing_metadata = &k->md_trail;
    op.data.recv_status_on_client.status = &k->gstatus;
    op.data.recv_status_on_client.status_details = &k->gdetails;
    k->status_started = true;
    k->pending++;
    if (grpc_call_start_batch(k->gcall, &op, 1, &k->t_status, NULL) != GRPC_CALL_OK) {
        k->pending--;
        k->gstatus = GRPC_STATUS_INTERNAL;
    }
}

/* See rmq_client_int.h. */
void rsql_rmq__call_start_recv(rmq_call_t *k, bool with_md)
{
    grpc_op ops[2];
    memset(ops, 0, sizeof(ops));
    size_t n = 0;
    if (with_md) {
        ops[n].op = GRPC_OP_RECV_INITIAL_METADATA;
        ops[n].data.recv_initial_metadata.recv_initial_metadata = &k->md_init;
        n++;
    }
    ops[n].op = GRPC_OP_RECV_MESSAGE;
    ops[n].data.recv_message.recv_message = &k->recv_bb;
    n++;
    k->pending++;
    if (grpc_call_start_batch(k->gcall, ops, n, &k->t_recv, NULL) != GRPC_CALL_OK) {
        k->pending--;
    }
}

/* Take the received buffer's bytes (rsql_malloc'ed) and reset recv_bb. */
bool rsql_rmq__call_take_recv(rmq_call_t *k, rmq_bytes_t *out)
{
    out->data = NULL;
    out->len = 0;
    if (!k->recv_bb) {
        return false;
    }
    grpc_byte_buffer_reader r;
    bool ok = false;
    if (grpc_byte_buffer_reader_init(&r, k->recv_bb)) {
        grpc_slice s = grpc_byte_buffer_reader_readall(&r);
        out->len = GRPC_SLICE_LENGTH(s);
        out->data = rsql_malloc(out->len ? out->len : 1);
        if (out->data) {
            memcpy(out->data, GRPC_SLICE_START_PTR(s), out->len);
            ok = true;
        }
        grpc_slice_unref(s);
        grpc_byte_buffer_reader_destroy(&r);
    }
    grpc_byte_buffer_destroy(k->recv_bb);
    k->recv_bb = NULL;
    return ok;
}

/* The gRPC status of a finished call as an error (RSQL_OK when the status is OK). */
rsql_err_t rsql_rmq__call_status_err(rmq_call_t *k, rsql_error_t *err)
{
    if (k->gstatus == GRPC_STATUS_OK) {
        return RSQL_OK;
    }
    char *d = grpc_slice_to_c_string(k->gdetails);
    rsql_err_t rc = rsql_rmq__grpc_error((int)k->gstatus, d, k->rpc->name, err);
    gpr_free(d);
    return rc;
}

/* ---- completion-queue events --------------------------------------------------------------- */

/* See rmq_client_int.h. */
void rsql_rmq__call_handle(rsql_rmq_client_t *c, rmq_tag_t *t, bool ok)
{
    pthread_mutex_lock(&c->mu); /* before anything of the call is read (see set_pending) */
    rmq_call_t *k = t->call;
    k->pending--;
    pthread_mutex_unlock(&c->mu);
    if (k->rpc->kind == RMQ_UNARY) {
        rsql_rmq__finish_unary(k);
        rsql_rmq__call_release(k);
        return;
    }
    if (k->rpc->kind == RMQ_SERVER_STREAM) {
        if (t->op == OP_STATUS) {
            rsql_rmq__finish_receive(k);
            rsql_rmq__call_release(k);
            return;
        }
        /* OP_MAIN or OP_RECV: one element (or the end of the stream) */
        if (ok && k->recv_bb) {
            rsql_rmq__recv_element(k);
            pthread_mutex_lock(&c->mu);
            rsql_rmq__call_start_recv(k, false);
            pthread_mutex_unlock(&c->mu);
        } else {
            pthread_mutex_lock(&c->mu);
            rsql_rmq__call_start_status(k);
            bool none = k->pending == 0;
            pthread_mutex_unlock(&c->mu);
            if (none) {
                rsql_rmq__finish_receive(k);
                rsql_rmq__call_release(k);
            }
        }
        return;
    }
    /* Telemetry */
    switch (t->op) {
    case OP_RECV:
        if (ok && k->recv_bb) {
            rsql_rmq__tele_command(k);
            pthread_mutex_lock(&c->mu);
            rsql_rmq__call_start_recv(k, false);
            pthread_mutex_unlock(&c->mu);
        }
        break;
    case OP_WRITE:
        pthread_mutex_lock(&c->mu);
        k->write_busy = false;
        if (ok) {
            rsql_rmq__tele_pump0(k);
        }
        pthread_mutex_unlock(&c->mu);
        break;
    case OP_STATUS:
        pthread_mutex_lock(&c->mu);
        if (c->telemetry == k) {
            c->telemetry = NULL;
        }
        pthread_mutex_unlock(&c->mu);
        rsql_rmq__tele_broken(k);
        break;
    default:
        break;
    }
    pthread_mutex_lock(&c->mu);
    bool done = k->pending == 0 && k->status_started;
    pthread_mutex_unlock(&c->mu);
    if (done) {
        rsql_rmq__call_release(k);
    }
}

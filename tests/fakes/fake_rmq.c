/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fake_rmq: the gRPC side of the fake RocketMQ proxy (API in fake_rmq.h). A grpc C core server
 * with one completion queue, served by one thread; the TCP listener is ours (127.0.0.1, port
 * 0 = chosen by the OS): an accept thread hands every connection to gRPC
 * (grpc_server_add_channel_from_fd) and keeps a dup of its socket, so fake_rmq_drop can cut
 * them all (shutdown(2): the client sees its connection reset, as when a proxy dies).
 *
 * A call (fcall_t) is generic (grpc_server_request_call): its method path says the RPC. It
 * always has RECV_CLOSE_ON_SERVER pending (so a client cancel or deadline is seen), one
 * RECV_MESSAGE at a time (unary and ReceiveMessage: one; Telemetry: one after another), and an
 * outbox of messages and the final status sent one batch at a time. It is freed once its close
 * event came and no batch is pending. Answers can be held back (a delay) on a timer; the
 * completion-queue thread sleeps in grpc_completion_queue_next until the next timer.
 *
 * It owns the server, the calls, the connections, the timers and the waits; what an RPC
 * answers is fake_rmq_svc.c's.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_posix.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>

#include "tests/fakes/fake_rmq_int.h"

#define SVC "/apache.rocketmq.v2.MessagingService/"
#define N_REQUESTS 4 /* grpc_server_request_call kept outstanding */

static const char *const rpc_paths[FAKE_RPC__COUNT] = {
    SVC "QueryRoute",      SVC "Heartbeat",
    SVC "SendMessage",     SVC "ReceiveMessage",
    SVC "AckMessage",      SVC "ChangeInvisibleDuration",
    SVC "ForwardMessageToDeadLetterQueue", SVC "NotifyClientTermination",
    SVC "Telemetry",       SVC "SyncLiteSubscription",
};

/* See fake_rmq_int.h. */
int64_t fk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static gpr_timespec deadline_at(int64_t ms)
{
    int64_t wait = ms - fk_now();
    if (wait < 0) {
        wait = 0;
    }
    return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(wait, GPR_TIMESPAN));
}

/* ---- calls --------------------------------------------------------------------------------- */

static void fout_free(fout_t *o)
{
    while (o) {
        fout_t *n = o->next;
        if (o->bb) {
            grpc_byte_buffer_destroy(o->bb);
        }
        free(o);
        o = n;
    }
}

static void call_free(fcall_t *k)
{
    fake_rmq_t *f = k->f;
    if (k->prev) {
        k->prev->next = k->next;
    } else if (f->calls == k) {
        f->calls = k->next;
    }
    if (k->next) {
        k->next->prev = k->prev;
    }
    f->n_calls--;
    fout_free(k->oh);
    fout_free(k->held);
    if (k->recv_bb) {
        grpc_byte_buffer_destroy(k->recv_bb);
    }
    if (k->send_bb) {
        grpc_byte_buffer_destroy(k->send_bb);
    }
    grpc_call_details_destroy(&k->details);
    grpc_metadata_array_destroy(&k->md);
    if (k->call) {
        grpc_call_unref(k->call);
    }
    free(k->topic);
    free(k);
}

/* Free k when nothing of it is pending any more. */
static void maybe_free(fcall_t *k)
{
    if (k->closed && k->pending == 0) {
        call_free(k);
    }
}

static void request_call(fake_rmq_t *f)
{
    fcall_t *k = calloc(1, sizeof *k);
    if (!k) {
        return;
    }
    k->f = f;
    k->rpc = -1;
    k->t_new = (ftag_t){FT_NEW, k};
    k->t_recv = (ftag_t){FT_RECV, k};
    k->t_close = (ftag_t){FT_CLOSE, k};
    k->t_send = (ftag_t){FT_SEND, k};
    grpc_call_details_init(&k->details);
    grpc_metadata_array_init(&k->md);
    k->next = f->calls;
    if (f->calls) {
        f->calls->prev = k;
    }
    f->calls = k;
    f->n_calls++;
    if (grpc_server_request_call(f->server, &k->call, &k->details, &k->md, f->cq, f->cq,
                                 &k->t_new) != GRPC_CALL_OK) {
        k->closed = true;
        call_free(k);
        return;
    }
    k->pending = 1;
    f->requests++;
}

static void start_recv(fcall_t *k)
{
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_MESSAGE;
    op.data.recv_message.recv_message = &k->recv_bb;
    if (grpc_call_start_batch(k->call, &op, 1, &k->t_recv, NULL) == GRPC_CALL_OK) {
        k->pending++;
    }
}

/* See fake_rmq_int.h. */
void fk_out_msg(fcall_t *k, const uint8_t *p, size_t n)
{
    fout_t *o = calloc(1, sizeof *o);
    if (!o) {
        return;
    }
    grpc_slice s = grpc_slice_from_copied_buffer((const char *)p, n);
    o->bb = grpc_raw_byte_buffer_create(&s, 1);
    grpc_slice_unref(s);
    if (k->ot) {
        k->ot->next = o;
    } else {
        k->oh = o;
    }
    k->ot = o;
}

/* See fake_rmq_int.h. */
void fk_out_status(fcall_t *k, int gstatus)
{
    if (k->status_queued) {
        return;
    }
    fout_t *o = calloc(1, sizeof *o);
    if (!o) {
        return;
    }
    k->status_queued = true;
    o->status = true;
    o->gstatus = gstatus;
    if (k->ot) {
        k->ot->next = o;
    } else {
        k->oh = o;
    }
    k->ot = o;
}

/* See fake_rmq_int.h. */
void fk_pump(fcall_t *k)
{
    if (k->sending || !k->oh || k->closed) {
        return;
    }
    fout_t *o = k->oh;
    k->oh = o->next;
    if (!k->oh) {
        k->ot = NULL;
    }
    /* a message and the status right after it go in one batch */
    fout_t *st = NULL;
    if (o->bb && k->oh && k->oh->status) {
        st = k->oh;
        k->oh = st->next;
        if (!k->oh) {
            k->ot = NULL;
        }
    } else if (o->status) {
        st = o;
    }
    grpc_op ops[3];
    memset(ops, 0, sizeof ops);
    size_t n = 0;
    if (!k->md_sent) {
        ops[n].op = GRPC_OP_SEND_INITIAL_METADATA;
        n++;
        k->md_sent = true;
    }
    if (o->bb) {
        ops[n].op = GRPC_OP_SEND_MESSAGE;
        ops[n].data.send_message.send_message = o->bb;
        n++;
        k->send_bb = o->bb;
        o->bb = NULL;
    }
    /* a static slice (no reference counting); gRPC takes its own reference at the start */
    grpc_slice details = grpc_slice_from_static_string("fake_rmq: scripted status");
    if (st) {
        ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
        ops[n].data.send_status_from_server.status = (grpc_status_code)st->gstatus;
        ops[n].data.send_status_from_server.status_details = st->gstatus ? &details : NULL;
        n++;
    }
    if (o != st) {
        free(o);
    }
    free(st);
    if (grpc_call_start_batch(k->call, ops, n, &k->t_send, NULL) == GRPC_CALL_OK) {
        k->pending++;
        k->sending = true;
    } else if (k->send_bb) {
        grpc_byte_buffer_destroy(k->send_bb);
        k->send_bb = NULL;
    }
}

/* See fake_rmq_int.h. */
void fk_hold(fcall_t *k, int64_t due)
{
    fout_free(k->held);
    k->held = k->oh;
    k->oh = k->ot = NULL;
    fk_schedule(k, due, FDUE_SEND_HELD);
}

/* See fake_rmq_int.h. */
void fk_schedule(fcall_t *k, int64_t due, int kind)
{
    k->due = due;
    k->due_kind = kind;
}

/* See fake_rmq_int.h. */
void fk_header(const fcall_t *k, const char *key, char *out, size_t size)
{
    out[0] = '\0';
    for (size_t i = 0; i < k->md.count; i++) {
        const grpc_metadata *m = &k->md.metadata[i];
        size_t kl = GRPC_SLICE_LENGTH(m->key);
        if (kl == strlen(key) && memcmp(GRPC_SLICE_START_PTR(m->key), key, kl) == 0) {
            size_t vl = GRPC_SLICE_LENGTH(m->value);
            if (vl >= size) {
                vl = size - 1;
            }
            memcpy(out, GRPC_SLICE_START_PTR(m->value), vl);
            out[vl] = '\0';
            return;
        }
    }
}

static void on_new(fcall_t *k, bool ok)
{
    fake_rmq_t *f = k->f;
    f->requests--;
    if (!ok) {
        k->closed = true; /* the server is shutting down: there is no call */
        return;
    }
    if (!f->stopping) {
        request_call(f);
    }
    for (int i = 0; i < FAKE_RPC__COUNT; i++) {
        if (grpc_slice_str_cmp(k->details.method, rpc_paths[i]) == 0) {
            k->rpc = i;
        }
    }
    grpc_op op;
    memset(&op, 0, sizeof op);
    op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
    op.data.recv_close_on_server.cancelled = &k->cancelled;
    if (grpc_call_start_batch(k->call, &op, 1, &k->t_close, NULL) == GRPC_CALL_OK) {
        k->pending++;
    } else {
        k->closed = true;
    }
    if (k->rpc < 0) {
        fk_out_status(k, GRPC_STATUS_UNIMPLEMENTED);
        fk_pump(k);
        return;
    }
    start_recv(k);
}

static void on_recv(fcall_t *k, bool ok)
{
    if (k->closed) {
        return;
    }
    if (!ok || !k->recv_bb) {
        if (k->rpc == FAKE_TELEMETRY && ok) {
            fk_svc_half_close(k);
        }
        return;
    }
    grpc_byte_buffer_reader r;
    if (grpc_byte_buffer_reader_init(&r, k->recv_bb)) {
        grpc_slice s = grpc_byte_buffer_reader_readall(&r);
        grpc_byte_buffer_reader_destroy(&r);
        grpc_byte_buffer_destroy(k->recv_bb);
        k->recv_bb = NULL;
        fk_svc_request(k, GRPC_SLICE_START_PTR(s), GRPC_SLICE_LENGTH(s));
        grpc_slice_unref(s);
    } else {
        grpc_byte_buffer_destroy(k->recv_bb);
        k->recv_bb = NULL;
    }
    if (k->rpc == FAKE_TELEMETRY && !k->closed && !k->status_queued) {
        start_recv(k);
    }
}

static void handle(ftag_t *t, bool ok)
{
    fcall_t *k = t->k;
    if (!k) {
        return;
    }
    k->pending--;
    switch (t->op) {
    case FT_NEW:
        on_new(k, ok);
        break;
    case FT_RECV:
        on_recv(k, ok);
        break;
    case FT_SEND:
        k->sending = false;
        if (k->send_bb) {
            grpc_byte_buffer_destroy(k->send_bb);
            k->send_bb = NULL;
        }
        if (ok) {
            fk_pump(k);
        }
        break;
    case FT_CLOSE:
        k->closed = true;
        k->due = 0;
        fk_svc_closed(k);
        break;
    default:
        break;
    }
    maybe_free(k);
}

/* Run the timers that are due; returns the next one (0: none). */
static int64_t run_timers(fake_rmq_t *f, int64_t now)
{
    int64_t next = fk_store_expire(f, now);
    for (fcall_t *k = f->calls; k; k = k->next) {
        if (k->due && k->due <= now && !k->closed) {
            k->due = 0;
            if (k->due_kind == FDUE_SEND_HELD) {
                fout_t *h = k->held;
                k->held = NULL;
                while (h) {
                    fout_t *n = h->next;
                    h->next = NULL;
                    if (k->ot) {
                        k->ot->next = h;
                    } else {
                        k->oh = h;
                    }
                    k->ot = h;
                    h = n;
                }
                fk_pump(k);
            } else {
                fk_svc_due(k);
            }
        }
        if (k->due && !k->closed && (next == 0 || k->due < next)) {
            next = k->due;
        }
    }
    return next;
}

static void *cq_main(void *arg)
{
    fake_rmq_t *f = arg;
    int64_t next = 0;
    for (;;) {
        int64_t wake = fk_now() + 1000;
        if (next && next < wake) {
            wake = next;
        }
        grpc_event ev = grpc_completion_queue_next(f->cq, deadline_at(wake), NULL);
        if (ev.type == GRPC_QUEUE_SHUTDOWN) {
            break;
        }
        pthread_mutex_lock(&f->mu);
        if (ev.type == GRPC_OP_COMPLETE) {
            if (ev.tag == &f->t_shutdown) {
                f->shutdown_done = true;
            } else {
                handle(ev.tag, ev.success != 0);
            }
        }
        next = run_timers(f, fk_now());
        fk_store_count(f);
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
    }
    return NULL;
}

/* ---- connections --------------------------------------------------------------------------- */

static void *accept_main(void *arg)
{
    fake_rmq_t *f = arg;
    for (;;) {
        int fd = accept4(f->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) {
                continue;
            }
            break;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_mutex_lock(&f->mu);
        if (f->stopping) {
            pthread_mutex_unlock(&f->mu);
            close(fd);
            break;
        }
        int d = dup(fd);
        int *nf = d >= 0 ? realloc(f->conn_fds, (f->n_conn_fds + 1) * sizeof *nf) : NULL;
        if (nf) {
            f->conn_fds = nf;
            f->conn_fds[f->n_conn_fds++] = d;
        } else if (d >= 0) {
            close(d);
        }
        f->st.connections++;
        pthread_cond_broadcast(&f->cv);
        pthread_mutex_unlock(&f->mu);
        /* gRPC owns fd from here (and closes it); the accept thread is joined before the
           server shuts down, so the server is alive here */
        grpc_server_add_channel_from_fd(f->server, fd, f->creds);
    }
    return NULL;
}

/* See fake_rmq_int.h. */
void fk_drop0(fake_rmq_t *f)
{
    for (size_t i = 0; i < f->n_conn_fds; i++) {
        shutdown(f->conn_fds[i], SHUT_RDWR);
        close(f->conn_fds[i]);
    }
    f->n_conn_fds = 0;
}

/* See fake_rmq.h. */
void fake_rmq_drop(fake_rmq_t *f)
{
    pthread_mutex_lock(&f->mu);
    fk_drop0(f);
    pthread_mutex_unlock(&f->mu);
}

/* ---- lifecycle ----------------------------------------------------------------------------- */

static int listen_loopback(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -1;
    }
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0; /* the OS chooses: parallel runs never collide */
    socklen_t len = sizeof a;
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0 ||
        getsockname(fd, (struct sockaddr *)&a, &len) != 0) {
        close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* The whole file at path (NUL-terminated, malloc'ed), or NULL (printed on stderr). */
static char *read_pem(const char *path)
{
    FILE *fp = path ? fopen(path, "rb") : NULL;
    char *buf = fp ? calloc(1, 65536) : NULL;
    size_t n = buf ? fread(buf, 1, 65535, fp) : 0;
    if (fp) {
        fclose(fp);
    }
    if (!buf || n == 0) {
        fprintf(stderr, "fake_rmq: cannot read %s\n", path ? path : "(null)");
        free(buf);
        return NULL;
    }
    return buf;
}

/*
** TLS: a second listening port (grpc's own, 127.0.0.1, chosen by the OS) with TLS; it becomes
** the fake's endpoint. Connections to it are gRPC's, so fake_rmq_drop does not cut them.
*/
static bool add_tls_port(fake_rmq_t *f, const fake_tls_t *tls)
{
    char *cert = read_pem(tls->cert_file), *key = read_pem(tls->key_file);
    char *ca = tls->client_ca_file ? read_pem(tls->client_ca_file) : NULL;
    bool ok = cert && key && (!tls->client_ca_file || ca);
    if (ok) {
        grpc_ssl_pem_key_cert_pair pair = {key, cert};
        grpc_server_credentials *sc = grpc_ssl_server_credentials_create_ex(
            ca, &pair, 1,
            ca ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
               : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE,
            NULL);
        int port = grpc_server_add_http2_port(f->server, "127.0.0.1:0", sc);
        grpc_server_credentials_release(sc);
        ok = port > 0;
        if (ok) {
            snprintf(f->endpoint, sizeof f->endpoint, "127.0.0.1:%d", port);
        } else {
            fprintf(stderr, "fake_rmq: cannot add its TLS port\n");
        }
    }
    free(cert);
    free(key);
    free(ca);
    return ok;
}

/* See fake_rmq.h. */
fake_rmq_t *fake_rmq_start(void)
{
    return fake_rmq_start_tls(NULL);
}

/* See fake_rmq.h. */
fake_rmq_t *fake_rmq_start_tls(const fake_tls_t *tls)
{
    fake_rmq_t *f = calloc(1, sizeof *f);
    if (!f) {
        return NULL;
    }
    pthread_mutex_init(&f->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&f->cv, &ca);
    pthread_condattr_destroy(&ca);
    f->st.last_change_suspend = -1;
    f->lfd = listen_loopback(&f->port);
    if (f->lfd < 0) {
        fprintf(stderr, "fake_rmq: cannot listen on 127.0.0.1: %s\n", strerror(errno));
        pthread_mutex_destroy(&f->mu);
        pthread_cond_destroy(&f->cv);
        free(f);
        return NULL;
    }
    snprintf(f->endpoint, sizeof f->endpoint, "127.0.0.1:%d", f->port);
    grpc_init();
    /* the client's -1 (unlimited) receive size has a server-side twin: the fake accepts any
       request size, and may send large responses (hostile-input tests) */
    grpc_arg args[2];
    args[0] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
                         {.integer = -1}};
    args[1] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_SEND_MESSAGE_LENGTH,
                         {.integer = -1}};
    grpc_channel_args cargs = {2, args};
    f->server = grpc_server_create(&cargs, NULL);
    f->cq = grpc_completion_queue_create_for_next(NULL);
    f->creds = grpc_insecure_server_credentials_create();
    grpc_server_register_completion_queue(f->server, f->cq, NULL);
    if (tls && !add_tls_port(f, tls)) {
        grpc_server_destroy(f->server);
        grpc_completion_queue_shutdown(f->cq);
        while (grpc_completion_queue_next(f->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
        grpc_completion_queue_destroy(f->cq);
        grpc_server_credentials_release(f->creds);
        grpc_shutdown();
        close(f->lfd);
        pthread_mutex_destroy(&f->mu);
        pthread_cond_destroy(&f->cv);
        free(f);
        return NULL;
    }
    grpc_server_start(f->server);
    f->t_shutdown = (ftag_t){0, NULL};
    pthread_mutex_lock(&f->mu);
    for (int i = 0; i < N_REQUESTS; i++) {
        request_call(f);
    }
    pthread_mutex_unlock(&f->mu);
    f->cq_started = pthread_create(&f->cq_thread, NULL, cq_main, f) == 0;
    f->accept_started =
        f->cq_started && pthread_create(&f->accept_thread, NULL, accept_main, f) == 0;
    if (!f->accept_started) {
        fprintf(stderr, "fake_rmq: cannot start its threads\n");
        fake_rmq_stop(f);
        return NULL;
    }
    return f;
}

/* See fake_rmq.h. */
void fake_rmq_stop(fake_rmq_t *f)
{
    if (!f) {
        return;
    }
    pthread_mutex_lock(&f->mu);
    f->stopping = true;
    pthread_mutex_unlock(&f->mu);
    shutdown(f->lfd, SHUT_RDWR); /* wakes accept() */
    if (f->accept_started) {
        pthread_join(f->accept_thread, NULL);
    }
    close(f->lfd);
    grpc_server_shutdown_and_notify(f->server, f->cq, &f->t_shutdown);
    grpc_server_cancel_all_calls(f->server);
    if (f->cq_started) {
        /* wait for the shutdown and for every call (and request) to be released */
        pthread_mutex_lock(&f->mu);
        while (!f->shutdown_done || f->n_calls > 0) {
            pthread_cond_wait(&f->cv, &f->mu);
        }
        pthread_mutex_unlock(&f->mu);
    }
    grpc_server_destroy(f->server);
    grpc_completion_queue_shutdown(f->cq);
    if (f->cq_started) {
        pthread_join(f->cq_thread, NULL);
    } else {
        while (grpc_completion_queue_next(f->cq, gpr_inf_future(GPR_CLOCK_REALTIME), NULL).type !=
               GRPC_QUEUE_SHUTDOWN) {
        }
    }
    grpc_completion_queue_destroy(f->cq);
    grpc_server_credentials_release(f->creds);
    pthread_mutex_lock(&f->mu);
    fk_drop0(f);
    fk_store_free(f);
    fk_ids_free(f);
    pthread_mutex_unlock(&f->mu);
    free(f->conn_fds);
    grpc_shutdown();
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->cv);
    free(f);
}

/* See fake_rmq.h. */
const char *fake_rmq_endpoint(const fake_rmq_t *f)
{
    return f->endpoint;
}

/* ---- records and waits --------------------------------------------------------------------- */

/* See fake_rmq.h. */
void fake_rmq_stats(fake_rmq_t *f, fake_stats_t *out)
{
    pthread_mutex_lock(&f->mu);
    fk_store_count(f);
    *out = f->st;
    pthread_mutex_unlock(&f->mu);
}

/* The CLOCK_MONOTONIC time timeout_ms from now (f->cv uses that clock). */
static struct timespec mono_in(int timeout_ms)
{
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    return dl;
}

/* See fake_rmq.h. */
bool fake_rmq_wait(fake_rmq_t *f, fake_pred_t ok, void *arg, int timeout_ms)
{
    struct timespec dl = mono_in(timeout_ms);
    pthread_mutex_lock(&f->mu);
    bool done;
    for (;;) {
        fk_store_count(f);
        done = ok(&f->st, arg);
        if (done || pthread_cond_timedwait(&f->cv, &f->mu, &dl) == ETIMEDOUT) {
            break;
        }
    }
    if (!done) {
        fk_store_count(f);
        done = ok(&f->st, arg);
    }
    pthread_mutex_unlock(&f->mu);
    return done;
}

/* See fake_rmq.h. */
bool fake_rmq_wait_msg(fake_rmq_t *f, size_t idx, fake_msg_pred_t ok, void *arg, int timeout_ms)
{
    struct timespec dl = mono_in(timeout_ms);
    fake_msg_info_t mi;
    pthread_mutex_lock(&f->mu);
    bool done;
    for (;;) {
        done = fk_store_msg_info(f, idx, &mi) && ok(&mi, arg);
        if (done || pthread_cond_timedwait(&f->cv, &f->mu, &dl) == ETIMEDOUT) {
            break;
        }
    }
    if (!done) {
        done = fk_store_msg_info(f, idx, &mi) && ok(&mi, arg);
    }
    pthread_mutex_unlock(&f->mu);
    return done;
}

typedef struct calls_arg {
    fake_rpc_t rpc;
    int n;
} calls_arg_t;

static bool calls_at_least(const fake_stats_t *st, void *arg)
{
    const calls_arg_t *a = arg;
    return st->calls[a->rpc] >= a->n;
}

/* See fake_rmq.h. */
bool fake_rmq_wait_calls(fake_rmq_t *f, fake_rpc_t rpc, int n, int timeout_ms)
{
    calls_arg_t a = {rpc, n};
    return fake_rmq_wait(f, calls_at_least, &a, timeout_ms);
}

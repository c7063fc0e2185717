/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * SIGINT / SIGTERM while pipelines run: the first
 * signal stops polling in every running pipeline that asked for the signals,
 * drains what is in flight, commits and ends each run as "interrupted"; a
 * second one ends the process at once (the default action of that signal),
 * committing nothing more: positions in the catalog only ever cover
 * delivered records, so this stays at-least-once.
 *
 * The process, not a pipeline, owns the signals: the handlers are installed
 * when the first pipeline registers and restored when the last one leaves,
 * and any number of pipelines may run at once (each registers itself). The
 * handler only write()s the signal number to a self-pipe (async-signal safe,
 * errno preserved). A watcher thread reads the pipe and posts an
 * RT_OP_SIGNAL to every registered pipeline's worker queue (each pipeline's
 * own op, posted at most once), or for the second signal restores the
 * default action and re-raises it. A pipeline that registers after the first
 * signal gets its op at once.
 *
 * Locks: sig_lock serialises install/uninstall (held while the watcher is
 * joined); list_lock guards the registry and is the only lock the watcher
 * takes, so joining it under sig_lock cannot deadlock.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_log.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define STOP_BYTE 0xff
#define MAX_REGISTERED 256

static int sig_pipe[2] = {-1, -1};
static pthread_t watcher;
static struct sigaction old_int, old_term;
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static bool installed; /* under sig_lock */

static pthread_mutex_t list_lock = PTHREAD_MUTEX_INITIALIZER;
static rsql_pipeline_t *registered[MAX_REGISTERED]; /* under list_lock */
static int n_registered;                             /* under list_lock */
static int signals_seen;                             /* under list_lock; reset at install */
static int first_signal; /* under list_lock: the first signal since the install */
/* the signal that interrupted the last run of this thread's pipelines, until taken */
static _Thread_local int thread_signal;

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(sig_pipe[1], &b, 1);
    (void)w;
    errno = saved;
}

/* Post p's own signal op (once per run). @locks list_lock held */
static void post_signal0(rsql_pipeline_t *p)
{
    memset(&p->signal_op, 0, sizeof p->signal_op);
    p->signal_op.type = RT_OP_SIGNAL;
    rsql_queue_push(p->wq, &p->signal_op);
}

static void *watch_main(void *arg)
{
    (void)arg;
    for (;;) {
        unsigned char b;
        ssize_t r = read(sig_pipe[0], &b, 1);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0 || b == STOP_BYTE) {
            break;
        }
        pthread_mutex_lock(&list_lock);
        int seen = ++signals_seen;
        if (seen == 1) {
            first_signal = b;
        }
        FILE *status = NULL;
        for (int i = 0; i < n_registered; i++) {
            if (seen == 1) {
                registered[i]->signal_no = b;
                post_signal0(registered[i]);
            } else if (!status) {
                status = registered[i]->conf.status_out;
            }
        }
        pthread_mutex_unlock(&list_lock);
        if (seen == 1) {
            continue;
        }
        /* second signal: die now, the way the signal would have killed us */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        sigaction(b, &dfl, NULL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, b);
        pthread_sigmask(SIG_UNBLOCK, &set, NULL);
        if (status) {
            fputs("\n", status);
            fflush(status);
        }
        rsql_log_sync_brief(); /* the exit handlers do not run: lines still queued would be lost */
        raise(b);
        _exit(128 + b);
    }
    return NULL;
}

/* Make the pipe and the watcher, install the handlers. @locks sig_lock held */
static rsql_err_t install0(rsql_error_t *err)
{
    if (pipe(sig_pipe) != 0) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "pipe: %s", strerror(errno));
    }
    fcntl(sig_pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(sig_pipe[1], F_SETFD, FD_CLOEXEC);
    fcntl(sig_pipe[1], F_SETFL, O_NONBLOCK);
    pthread_mutex_lock(&list_lock);
    signals_seen = 0;
    first_signal = 0;
    pthread_mutex_unlock(&list_lock);
    if (pthread_create(&watcher, NULL, watch_main, NULL) != 0) {
        close(sig_pipe[0]);
        close(sig_pipe[1]);
        sig_pipe[0] = sig_pipe[1] = -1;
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "cannot start the signal thread");
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    installed = true;
    return RSQL_OK;
}

/* Restore the handlers, stop and join the watcher. @locks sig_lock held */
static void uninstall0(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    unsigned char b = STOP_BYTE;
    ssize_t w = write(sig_pipe[1], &b, 1);
    (void)w;
    pthread_join(watcher, NULL);
    close(sig_pipe[0]);
    close(sig_pipe[1]);
    sig_pipe[0] = sig_pipe[1] = -1;
    installed = false;
}

/*
** Register p for SIGINT/SIGTERM for its run, installing the handling when p is the first.
** RSQL_ERR_INTERNAL when the pipe/thread cannot be made or MAX_REGISTERED pipelines already
** run.
*/
rsql_err_t rsql_pipeline__signals_start(rsql_pipeline_t *p, rsql_error_t *err)
{
    rsql_err_t rc = RSQL_OK;
    pthread_mutex_lock(&sig_lock);
    if (!installed) {
        rc = install0(err);
    }
    if (rc == RSQL_OK) {
        pthread_mutex_lock(&list_lock);
        if (n_registered == MAX_REGISTERED) {
            rc = rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                "more than %d pipelines handle the signals", MAX_REGISTERED);
        } else {
            registered[n_registered++] = p;
            if (signals_seen > 0) {
                p->signal_no = first_signal;
                post_signal0(p); /* it started after the first signal */
            }
        }
        int n = n_registered;
        pthread_mutex_unlock(&list_lock);
        if (rc != RSQL_OK && n == 0) {
            uninstall0();
        }
    }
    pthread_mutex_unlock(&sig_lock);
    return rc;
}

/*
** Unregister p (no op is posted to it afterwards); the last one out restores the previous
** handlers and stops the watcher. Call before p's worker queue is drained for the last time.
*/
void rsql_pipeline__signals_stop(rsql_pipeline_t *p)
{
    pthread_mutex_lock(&sig_lock);
    pthread_mutex_lock(&list_lock);
    for (int i = 0; i < n_registered; i++) {
        if (registered[i] == p) {
            registered[i] = registered[--n_registered];
            break;
        }
    }
    int n = n_registered;
    pthread_mutex_unlock(&list_lock);
    if (installed && n == 0) {
        uninstall0();
    }
    pthread_mutex_unlock(&sig_lock);
}

/* Record that p's run (on this thread, its worker) ended interrupted by its signal. */
void rsql_pipeline__signal_note(rsql_pipeline_t *p)
{
    if (p->signal_no && atomic_load(&p->interrupted)) {
        thread_signal = p->signal_no;
    }
}

/* See rsql_pipeline.h: the signal that interrupted this thread's runs since the last call. */
int rsql_pipeline_signal_taken(void)
{
    int sig = thread_signal;
    thread_signal = 0;
    return sig;
}

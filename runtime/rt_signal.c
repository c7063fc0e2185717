/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * SIGINT / SIGTERM while a pipeline runs (PRODUCT.md, "Errors"): the first
 * signal stops polling, drains what is in flight, commits and ends the run
 * as "interrupted"; a second one ends the process at once (the default
 * action of that signal), committing nothing more: positions in the
 * catalog only ever cover delivered records, so this stays at-least-once.
 *
 * The handler only write()s the signal number to a self-pipe (async-signal
 * safe, errno preserved). A watcher thread reads the pipe and posts an
 * RT_OP_SIGNAL to the worker's queue, or for the second signal restores
 * the default action and re-raises it. The previous handlers are restored
 * when the run ends. One pipeline at a time owns the signals.
 */
#include "config.h"
#include "runtime/pipeline_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define STOP_BYTE 0xff

static int sig_pipe[2] = {-1, -1};
static pthread_t watcher;
static struct sigaction old_int, old_term;
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static bool installed;

static void on_signal(int sig)
{
    int saved = errno;
    unsigned char b = (unsigned char)sig;
    ssize_t w = write(sig_pipe[1], &b, 1);
    (void)w;
    errno = saved;
}

static void *watch_main(void *arg)
{
    rsql_pipeline_t *p = arg;
    int count = 0;
    for (;;) {
        unsigned char b;
        ssize_t r = read(sig_pipe[0], &b, 1);
        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0 || b == STOP_BYTE) {
            break;
        }
        if (++count == 1) {
            /* the pipeline's own op: posted once, never allocated */
            memset(&p->signal_op, 0, sizeof p->signal_op);
            p->signal_op.type = RT_OP_SIGNAL;
            rsql_queue_push(p->wq, &p->signal_op);
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
        if (p->conf.status_out) {
            fputs("\n", p->conf.status_out);
            fflush(p->conf.status_out);
        }
        raise(b);
        _exit(128 + b);
    }
    return NULL;
}

/*
** Install the SIGINT/SIGTERM handling for p's run. RSQL_ERR_INTERNAL when
** another run holds it or the pipe/thread cannot be made.
*/
rsql_err_t rsql_pipeline__signals_start(rsql_pipeline_t *p, rsql_error_t *err)
{
    pthread_mutex_lock(&sig_lock);
    if (installed) {
        pthread_mutex_unlock(&sig_lock);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "another pipeline already handles the signals");
    }
    if (pipe(sig_pipe) != 0) {
        pthread_mutex_unlock(&sig_lock);
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "pipe: %s", strerror(errno));
    }
    fcntl(sig_pipe[0], F_SETFD, FD_CLOEXEC);
    fcntl(sig_pipe[1], F_SETFD, FD_CLOEXEC);
    fcntl(sig_pipe[1], F_SETFL, O_NONBLOCK);
    if (pthread_create(&watcher, NULL, watch_main, p) != 0) {
        close(sig_pipe[0]);
        close(sig_pipe[1]);
        sig_pipe[0] = sig_pipe[1] = -1;
        pthread_mutex_unlock(&sig_lock);
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
    pthread_mutex_unlock(&sig_lock);
    return RSQL_OK;
}

/* Restore the previous handlers and stop the watcher. */
void rsql_pipeline__signals_stop(rsql_pipeline_t *p)
{
    (void)p;
    pthread_mutex_lock(&sig_lock);
    if (!installed) {
        pthread_mutex_unlock(&sig_lock);
        return;
    }
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
    pthread_mutex_unlock(&sig_lock);
}

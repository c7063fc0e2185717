/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Private to `rocketsql serve` (cli/serve.c: the supervisor; cli/serve_http.c: the HTTP
 * endpoint). The supervisor keeps one serve_job_t per running catalog job; the HTTP thread
 * reads them under srv->mu only (the job's counts are atomics the pipeline publishes, never
 * read under a pipeline lock), builds its answer in memory and releases the lock before
 * libmicrohttpd writes a byte, so a slow or stuck scraper cannot stall a job.
 */
#ifndef RSQL_SERVE_INT_H
#define RSQL_SERVE_INT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "engine/rsql_pipeline.h"

typedef struct serve_job {
    char *name;
    char *fingerprint; /* the job's statement, settings and creation time */
    rsql_pipeline_stats_t stats_own; /* st for a job of serve */
    rsql_pipeline_stats_t *st;       /* its published stats (a script's run: the runtime's) */
    pthread_t th;
    bool th_started;
    struct serve *srv;
    /* under srv->mu */
    const char *state; /* starting, running, restarting, draining, failed, finished, stopped */
    char last_error[sizeof(((rsql_error_t *)0)->msg)];
    int64_t restarts, runs, last_run_id;
    rsql_job_counts_t base; /* totals of the runs that ended */
    int64_t base_retries;
    bool retire; /* drain and stop (dropped, changed, shutting down) */
    bool ended;  /* the thread is done */
    bool held;   /* stopped by an operator (POST /jobs/NAME/stop): listed, not started again
                    until POST .../start or .../restart */
} serve_job_t;

/* What an operator asked through the control API, for the main thread to do. */
typedef enum { SERVE_STOP, SERVE_START, SERVE_RESTART } serve_verb_t;
typedef struct serve_action {
    char *job;
    serve_verb_t verb;
    char peer[64]; /* the client's address */
} serve_action_t;
#define SERVE_MAX_ACTIONS 64

typedef struct serve {
    const char *catalog_path;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* retire / ended */
    serve_job_t **jobs;
    int n_jobs, cap_jobs;
    void *http; /* the endpoint (serve_http.c) */
    bool reload_pending; /* a changed job waits for its old self to drain (main thread) */
    /* the control API: its bearer token (--http-token-file; NULL: the API does not exist),
       and the actions asked and not yet done (under mu; the main thread takes them, woken by
       SIGUSR1) */
    char *token;
    size_t token_len;
    serve_action_t actions[SERVE_MAX_ACTIONS];
    int n_actions;
} serve_t;

/* The name of an action ("stop", "start", "restart"). */
const char *serve__verb_name(serve_verb_t verb);

/*
** The job's totals over all its runs (counters never go back when it restarts): the ended
** runs' plus the running one's. Read by the job's thread (serve.c) and the endpoints
** (serve_http.c). @locks srv->mu held
*/
static inline void serve__totals0(const serve_job_t *j, rsql_job_counts_t *c, int64_t *retries)
{
    const rsql_pipeline_stats_t *st = j->st;
    c->read = j->base.read + atomic_load(&st->read);
    c->written = j->base.written + atomic_load(&st->written);
    c->filtered = j->base.filtered + atomic_load(&st->filtered);
    c->dead_lettered = j->base.dead_lettered + atomic_load(&st->dead_lettered);
    c->failed = j->base.failed + atomic_load(&st->failed);
    *retries = j->base_retries + atomic_load(&st->retries);
}

/*
** Start the HTTP endpoint on addr ("HOST:PORT", "PORT" = 127.0.0.1:PORT); RSQL_ERR_USAGE
** for a bad address, RSQL_ERR_IO (e.g. "address already in use") when it cannot listen.
*/
rsql_err_t serve__http_start(serve_t *srv, const char *addr, rsql_error_t *err);
void serve__http_stop(serve_t *srv);
/* The bodies of /metrics and /jobs, and whether every job is ready (for tests too). */
void serve__metrics(serve_t *srv, rsql_buf_t *out);
void serve__jobs_json(serve_t *srv, rsql_buf_t *out);
bool serve__ready(serve_t *srv);

/*
** SET 'http.address' in a script or the shell: the endpoint for one running INSERT or RUN JOB
** (rsql_session_set_http_hooks). begin starts it with one job named name whose stats the
** runtime publishes; end stops it.
*/
rsql_err_t serve__run_http_begin(void *opaque, const char *addr, const char *name,
                                 rsql_pipeline_stats_t *stats, rsql_error_t *err);
void serve__run_http_end(void *opaque);

/* `rocketsql serve ...` (argv after "serve"); returns the exit status. */
int rsql_serve_main(const char *catalog_path, int argc, char **argv);

#endif

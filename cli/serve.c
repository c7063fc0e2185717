/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * `rocketsql serve [--catalog FILE] [--job NAME ...] [--http ADDR:PORT]`: runs the catalog's
 * jobs (all, or those named) at once in one process, until SIGTERM or SIGINT.
 *
 * The process owns the signals: SIGINT, SIGTERM and SIGHUP are blocked in every thread
 * before any is started, and the main thread takes them with sigtimedwait. SIGHUP re-reads
 * the catalog (a new job starts, a dropped one drains and stops, a changed one - its
 * statement, its settings or its creation time differ - drains and starts again once drained;
 * the others go on untouched). The main thread never waits for a drain: a draining job stays
 * in the set (and in /metrics, /jobs) until its thread has ended, then it is reaped. The
 * first SIGTERM/SIGINT drains every job (positions saved, messages acked only once written)
 * and the process exits 0; a second one exits at once, which stays at-least-once (positions
 * only ever cover delivered records).
 *
 * Each job runs on a thread of its own with its own session (its own catalog connection):
 * a run, then per its restart strategy (settings restart-strategy.*, Flink's names) a wait
 * and another run, every attempt a row of SHOW JOB RUNS with its error. A job that does not
 * plan (its table was dropped, an option became invalid) fails alone: a failed run with the
 * error is recorded for it, and the others run on.
 *
 * --apply FILE.sql makes the catalog match a jobs file (cli/apply.c) at start and again on
 * every SIGHUP, before the catalog is re-read; a file with an error changes nothing (at start
 * the process exits 1, on SIGHUP the error is logged and the jobs run on as they were).
 *
 * --http-token-file FILE turns on the control API of the endpoint: POST /jobs/NAME/stop,
 * /start, /restart with `Authorization: Bearer <the file's token>` (serve_http.c checks it).
 * The endpoint queues the action and wakes the main thread with SIGUSR1; the main thread
 * does it and records it as a row of the job's runs (SHOW JOB RUNS). A stopped job stays
 * listed ("stopped") and is not started again, by a reload either, until start or restart.
 */
#include "config.h"
#include "cli/cli_int.h"
#include "cli/serve_int.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_backoff.h"
#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_settings.h"
#include "base/rsql_time.h"
#include "session/rsql_session.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXIT_USAGE 64

/* ---- restart strategies */

typedef struct restart_conf {
    enum { RS_NONE, RS_FIXED, RS_EXP } kind;
    int64_t attempts, delay_ms;                         /* fixed-delay */
    int64_t initial_ms, max_ms, reset_ms, exp_attempts; /* exponential-delay */
    double multiplier, jitter;
} restart_conf_t;

/* The job's restart strategy from its captured settings (defaults for the rest). */
static void restart_conf_load(rsql_catalog_t *cat, const char *name, restart_conf_t *rc)
{
    rsql_settings_t *st = rsql_settings_new();
    rsql_job_def_t *job = NULL;
    memset(rc, 0, sizeof *rc);
    if (st && rsql_catalog_job_get(cat, name, &job, NULL) == RSQL_OK && job) {
        for (int i = 0; i < job->n_settings; i++) {
            rsql_settings_set(st, job->settings[i].key, job->settings[i].value, RSQL_NOPOS,
                              RSQL_NOPOS, NULL);
        }
    }
    const char *kind = st ? rsql_settings_get(st, "restart-strategy") : "none";
    rc->kind = !kind || strcmp(kind, "none") == 0 ? RS_NONE
               : strcmp(kind, "fixed-delay") == 0 ? RS_FIXED
                                                  : RS_EXP;
    if (st) {
        rc->attempts = rsql_settings_int(st, "restart-strategy.fixed-delay.attempts");
        rc->delay_ms = rsql_settings_int(st, "restart-strategy.fixed-delay.delay");
        rc->initial_ms =
            rsql_settings_int(st, "restart-strategy.exponential-delay.initial-backoff");
        rc->max_ms = rsql_settings_int(st, "restart-strategy.exponential-delay.max-backoff");
        rc->reset_ms =
            rsql_settings_int(st, "restart-strategy.exponential-delay.reset-backoff-threshold");
        rc->exp_attempts = rsql_settings_int(
            st, "restart-strategy.exponential-delay.attempts-before-reset-backoff");
        rc->multiplier =
            rsql_settings_double(st, "restart-strategy.exponential-delay.backoff-multiplier");
        rc->jitter = rsql_settings_double(st, "restart-strategy.exponential-delay.jitter-factor");
    }
    rsql_job_def_free(job);
    rsql_settings_destroy(st);
}

/*
** The wait before restart number attempt (1 = the first since the last reset), or -1 when
** the strategy gives up.
*/
static int64_t restart_delay(const restart_conf_t *rc, int64_t attempt, unsigned *seed)
{
    switch (rc->kind) {
    case RS_NONE:
        return -1;
    case RS_FIXED:
        return attempt > rc->attempts ? -1 : rc->delay_ms;
    case RS_EXP:
    default:
        break;
    }
    if (attempt > rc->exp_attempts) {
        return -1;
    }
    double d = (double)rsql_backoff_nth(rc->initial_ms, rc->multiplier, rc->max_ms, attempt);
    if (rc->jitter > 0) {
        double r = (double)rand_r(seed) / RAND_MAX * 2.0 - 1.0; /* -1 .. 1 */
        d += d * rc->jitter * r;
    }
    return d < 0 ? 0 : (int64_t)d;
}

/* ---- one job's thread */

/* A job that did not plan: record a failed run with its error (SHOW JOB RUNS). */
static void record_plan_failure(rsql_catalog_t *cat, serve_job_t *j, const char *msg)
{
    int64_t run_id = 0;
    rsql_job_def_t *def = NULL;
    rsql_catalog_job_get(cat, j->name, &def, NULL);
    if (rsql_catalog_run_begin(cat, j->name, def ? def->sql : "", &run_id, NULL) == RSQL_OK) {
        rsql_job_counts_t zero = {0, 0, 0, 0, 0};
        rsql_catalog_run_end(cat, run_id, "failed", &zero, msg, NULL, NULL);
        pthread_mutex_lock(&j->srv->mu);
        j->last_run_id = run_id;
        pthread_mutex_unlock(&j->srv->mu);
    }
    rsql_job_def_free(def);
}

static void *job_main(void *arg)
{
    serve_job_t *j = arg;
    serve_t *srv = j->srv;
    rsql_log_set_context(j->name, 0);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(srv->catalog_path, &err);
    unsigned seed = (unsigned)rsql_now_ms() ^ (unsigned)(uintptr_t)j;
    int64_t attempt = 0; /* restarts since the last reset */
    const char *final = "failed";
    if (!s) {
        pthread_mutex_lock(&srv->mu);
        snprintf(j->last_error, sizeof j->last_error, "%s", err.msg);
        pthread_mutex_unlock(&srv->mu);
    }
    while (s) {
        pthread_mutex_lock(&srv->mu);
        bool retire = j->retire;
        if (!retire) {
            j->state = "running";
            j->runs++;
        }
        pthread_mutex_unlock(&srv->mu);
        if (retire) {
            final = "stopped";
            break;
        }
        rsql_pipeline_stats_reset(j->st, false);
        bool started = false;
        rsql_error_clear(&err);
        int64_t t0 = rsql_now_ms();
        rsql_err_t rc = rsql_session_serve_job(s, j->name, j->st, &started, &err);
        int64_t worked_ms = rsql_now_ms() - t0;
        if (rc != RSQL_OK && !started) {
            record_plan_failure(rsql_session_catalog(s), j, err.msg);
        }
        /* fold the run's counts into the totals, atomically for a scraper */
        pthread_mutex_lock(&srv->mu);
        rsql_job_counts_t c;
        int64_t retries;
        serve__totals0(j, &c, &retries);
        j->base = c;
        j->base_retries = retries;
        if (started) {
            j->last_run_id = atomic_load(&j->st->run_id);
        }
        rsql_pipeline_stats_reset(j->st, false);
        if (rc != RSQL_OK) {
            snprintf(j->last_error, sizeof j->last_error, "%s", err.msg);
        }
        retire = j->retire;
        pthread_mutex_unlock(&srv->mu);
        if (rc == RSQL_OK) {
            final = retire ? "stopped" : "finished";
            break;
        }
        pthread_mutex_lock(&srv->mu);
        int64_t last_run = j->last_run_id;
        pthread_mutex_unlock(&srv->mu);
        rsql_log_set_context(j->name, last_run); /* the failed run's id */
        rsql_log(RSQL_LOG_ERROR, "serve", "job %s failed: %s", j->name, err.msg);
        if (retire) {
            final = "stopped";
            break;
        }
        restart_conf_t rconf;
        restart_conf_load(rsql_session_catalog(s), j->name, &rconf);
        if (rconf.kind == RS_EXP && rconf.reset_ms > 0 && worked_ms >= rconf.reset_ms) {
            attempt = 0;
        }
        int64_t wait = restart_delay(&rconf, ++attempt, &seed);
        if (wait < 0) {
            rsql_log(RSQL_LOG_ERROR, "serve", "job %s: no more restarts", j->name);
            final = "failed";
            break;
        }
        rsql_log(RSQL_LOG_WARN, "serve", "job %s: restart %lld in %lld ms", j->name,
                 (long long)attempt, (long long)wait);
        pthread_mutex_lock(&srv->mu);
        if (!j->retire) {
            j->state = "restarting";
        }
        j->restarts++;
        int64_t until = rsql_now_ms() + wait;
        while (!j->retire && !rsql_deadline_passed(until)) {
            rsql_cond_wait_until(&srv->cv, &srv->mu, until);
        }
        pthread_mutex_unlock(&srv->mu);
    }
    rsql_session_destroy(s);
    pthread_mutex_lock(&srv->mu);
    j->state = final;
    j->ended = true;
    pthread_cond_broadcast(&srv->cv);
    pthread_mutex_unlock(&srv->mu);
    return NULL;
}

/* ---- the job set */

static char *fingerprint(const rsql_job_def_t *def)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "%lld\n%s\n", (long long)def->created_ms, def->sql);
    for (int i = 0; i < def->n_settings; i++) {
        rsql_buf_printf(&b, "%s=%s\n", def->settings[i].key, def->settings[i].value);
    }
    return rsql_buf_steal(&b);
}

static serve_job_t *job_start(serve_t *srv, const rsql_job_def_t *def)
{
    serve_job_t *j = rsql_calloc(1, sizeof *j);
    if (!j) {
        return NULL;
    }
    j->srv = srv;
    j->name = rsql_strdup(def->name);
    j->fingerprint = fingerprint(def);
    j->state = "starting";
    j->st = &j->stats_own;
    rsql_pipeline_stats_init(j->st);
    if (!j->name || !j->fingerprint || pthread_create(&j->th, NULL, job_main, j) != 0) {
        rsql_pipeline_stats_deinit(j->st);
        rsql_free(j->name);
        rsql_free(j->fingerprint);
        rsql_free(j);
        return NULL;
    }
    j->th_started = true;
    rsql_log(RSQL_LOG_INFO, "serve", "job %s: started", def->name);
    return j;
}

/* Ask j to drain and stop (any thread); it stays listed, "draining", until reaped. */
static void job_retire(serve_job_t *j)
{
    pthread_mutex_lock(&j->srv->mu);
    j->retire = true;
    if (!j->ended) {
        j->state = "draining";
    }
    pthread_cond_broadcast(&j->srv->cv);
    pthread_mutex_unlock(&j->srv->mu);
    rsql_pipeline_stats_stop(j->st);
}

static void job_free(serve_job_t *j)
{
    if (j->th_started) {
        pthread_join(j->th, NULL);
    }
    rsql_pipeline_stats_deinit(j->st);
    rsql_free(j->name);
    rsql_free(j->fingerprint);
    rsql_free(j);
}

static bool wanted(const char *name, char **only, int n_only)
{
    if (n_only == 0) {
        return true;
    }
    for (int i = 0; i < n_only; i++) {
        if (strcmp(only[i], name) == 0) {
            return true;
        }
    }
    return false;
}

/* The job named name in the set, draining or not. @locks srv->mu held */
static serve_job_t *job_find0(serve_t *srv, const char *name)
{
    for (int k = 0; k < srv->n_jobs; k++) {
        if (strcmp(srv->jobs[k]->name, name) == 0) {
            return srv->jobs[k];
        }
    }
    return NULL;
}

/*
** Bring the running set in line with the catalog without waiting for anything: ask the
** dropped and changed jobs to drain (they stay in the set, "draining", visible in /metrics
** and /jobs, until reap_retired takes them out), and start the new ones. A changed job starts
** again only once its old self is gone (two runs of one job must not overlap): then
** srv->reload_pending is set and the caller reconciles again after the next reap.
** @locality main thread
*/
static rsql_err_t reconcile(serve_t *srv, rsql_catalog_t *cat, char **only, int n_only,
                            rsql_error_t *err)
{
    rsql_job_def_t **defs = NULL;
    int n = 0;
    rsql_err_t rc = rsql_catalog_job_list(cat, &defs, &n, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    srv->reload_pending = false;
    char **fps = rsql_calloc((size_t)(n ? n : 1), sizeof(char *));
    if (!fps) {
        rc = rsql_error_nomem(err);
        goto done;
    }
    for (int i = 0; i < n; i++) {
        fps[i] = fingerprint(defs[i]);
    }
    /* the jobs that go: absent, unwanted or changed (those already draining go on draining) */
    pthread_mutex_lock(&srv->mu);
    int n_jobs = srv->n_jobs;
    pthread_mutex_unlock(&srv->mu);
    for (int k = 0; k < n_jobs; k++) {
        serve_job_t *j = srv->jobs[k]; /* only this thread changes the set */
        pthread_mutex_lock(&srv->mu);
        bool retired = j->retire;
        pthread_mutex_unlock(&srv->mu);
        int found = -1;
        for (int i = 0; i < n; i++) {
            if (strcmp(defs[i]->name, j->name) == 0) {
                found = i;
            }
        }
        if (retired) {
            pthread_mutex_lock(&srv->mu);
            if (j->held && (found < 0 || !wanted(j->name, only, n_only))) {
                j->held = false; /* a stopped job that went: reaped like the others */
            }
            pthread_mutex_unlock(&srv->mu);
            continue;
        }
        if (found >= 0 && fps[found] && strcmp(fps[found], j->fingerprint) == 0 &&
            wanted(j->name, only, n_only)) {
            continue;
        }
        rsql_log(RSQL_LOG_INFO, "serve", "job %s: dropped or changed, draining", j->name);
        job_retire(j);
    }
    /* the jobs that start: wanted and not in the set (a draining one starts after it) */
    for (int i = 0; i < n; i++) {
        if (!wanted(defs[i]->name, only, n_only)) {
            continue;
        }
        pthread_mutex_lock(&srv->mu);
        serve_job_t *cur = job_find0(srv, defs[i]->name);
        bool held = cur && cur->held;
        bool draining = cur && cur->retire;
        if (!cur && srv->n_jobs == srv->cap_jobs) {
            int cap = srv->cap_jobs ? srv->cap_jobs * 2 : 8;
            serve_job_t **nj = rsql_realloc(srv->jobs, (size_t)cap * sizeof *nj);
            if (nj) {
                srv->jobs = nj;
                srv->cap_jobs = cap;
            }
        }
        bool room = srv->n_jobs < srv->cap_jobs;
        pthread_mutex_unlock(&srv->mu);
        if (held) {
            continue; /* stopped by an operator */
        }
        if (draining) {
            srv->reload_pending = true;
            continue;
        }
        if (cur) {
            continue; /* unchanged */
        }
        serve_job_t *j = room ? job_start(srv, defs[i]) : NULL;
        if (!j) {
            rc = rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "cannot start job %s",
                                defs[i]->name);
            break;
        }
        pthread_mutex_lock(&srv->mu);
        srv->jobs[srv->n_jobs++] = j;
        pthread_mutex_unlock(&srv->mu);
    }
done:
    for (int i = 0; fps && i < n; i++) {
        rsql_free(fps[i]);
    }
    rsql_free(fps);
    for (int i = 0; i < n; i++) {
        rsql_job_def_free(defs[i]);
    }
    rsql_free(defs);
    return rc;
}

/*
** Take the drained jobs (asked to stop, thread ended) out of the set and free them; the join
** does not wait, their threads are done. Returns how many. @locality main thread
*/
static int reap_retired(serve_t *srv)
{
    int reaped = 0;
    for (;;) {
        serve_job_t *gone = NULL;
        pthread_mutex_lock(&srv->mu);
        for (int k = 0; k < srv->n_jobs; k++) {
            serve_job_t *j = srv->jobs[k];
            if (j->retire && j->ended && !j->held) {
                gone = j;
                srv->jobs[k] = srv->jobs[--srv->n_jobs];
                break;
            }
        }
        pthread_mutex_unlock(&srv->mu);
        if (!gone) {
            return reaped;
        }
        rsql_log(RSQL_LOG_INFO, "serve", "job %s: drained", gone->name);
        job_free(gone);
        reaped++;
    }
}

static bool all_ended(serve_t *srv)
{
    pthread_mutex_lock(&srv->mu);
    bool ended = true;
    for (int k = 0; k < srv->n_jobs; k++) {
        ended = ended && srv->jobs[k]->ended;
    }
    pthread_mutex_unlock(&srv->mu);
    return ended;
}

/* See serve_int.h. */
const char *serve__verb_name(serve_verb_t verb)
{
    return verb == SERVE_STOP ? "stop" : verb == SERVE_START ? "start" : "restart";
}

/*
** Do the actions the control API queued: stop (drain it, keep it listed, start it no more),
** start (a stopped, finished or failed job runs again; a running one is left alone) and
** restart (drain it and start it again), each recorded as a row of the job's runs; then the
** set is brought in line. @locality main thread
*/
static void do_actions(serve_t *srv, rsql_catalog_t *cat, char **only, int n_only)
{
    serve_action_t todo[SERVE_MAX_ACTIONS];
    pthread_mutex_lock(&srv->mu);
    int n = srv->n_actions;
    memcpy(todo, srv->actions, (size_t)n * sizeof todo[0]);
    srv->n_actions = 0;
    pthread_mutex_unlock(&srv->mu);
    for (int i = 0; i < n; i++) {
        serve_action_t *a = &todo[i];
        pthread_mutex_lock(&srv->mu);
        serve_job_t *j = job_find0(srv, a->job);
        bool retire = false;
        const char *before = j ? j->state : "gone";
        if (j && a->verb == SERVE_STOP) {
            j->held = true;
            retire = !j->retire;
        } else if (j && a->verb == SERVE_START) {
            /* a stopped one is taken out once drained and started again; so is one that ended */
            retire = !j->held && j->ended && !j->retire;
            j->held = false;
        } else if (j) {
            retire = !j->retire;
            j->held = false;
        }
        pthread_mutex_unlock(&srv->mu);
        if (retire) {
            job_retire(j);
        }
        rsql_log(RSQL_LOG_INFO, "serve", "job %s: %s (control API, from %s; it was %s)", a->job,
                 serve__verb_name(a->verb), a->peer, before);
        rsql_buf_t d = RSQL_BUF_INIT;
        rsql_buf_puts(&d, "{\"action\":\"");
        rsql_buf_puts(&d, serve__verb_name(a->verb));
        rsql_buf_puts(&d, "\",\"via\":\"control API\",\"peer\":\"");
        rsql_buf_puts(&d, a->peer); /* an IP address: nothing to escape */
        rsql_buf_printf(&d, "\",\"was\":\"%s\"}", before);
        rsql_error_t err;
        rsql_error_clear(&err);
        if (d.oom || rsql_catalog_run_action(cat, a->job, serve__verb_name(a->verb),
                                             rsql_buf_str(&d), &err) != RSQL_OK) {
            rsql_log(RSQL_LOG_WARN, "serve", "job %s: cannot record the %s: %s", a->job,
                     serve__verb_name(a->verb), d.oom ? "out of memory" : err.msg);
        }
        rsql_buf_deinit(&d);
        rsql_free(a->job);
    }
    if (n > 0) {
        reap_retired(srv);
        rsql_error_t err;
        rsql_error_clear(&err);
        if (reconcile(srv, cat, only, n_only, &err) != RSQL_OK) {
            rsql_log(RSQL_LOG_ERROR, "serve", "reload: %s", err.msg);
        }
    }
}

/* The token of --http-token-file: the file's first line, which must not be empty. */
static char *read_token(const char *path, size_t *len)
{
    size_t n = 0;
    bool usage = false;
    char *text = rsql_cli_read_all(path, &n, &usage, stderr);
    if (!text) {
        return NULL;
    }
    text[strcspn(text, "\r\n")] = '\0';
    *len = strlen(text);
    if (*len == 0 || *len != strnlen(text, n)) {
        fprintf(stderr, "rocketsql: serve: --http-token-file %s: no token in its first line\n",
                path);
        rsql_free(text);
        return NULL;
    }
    return text;
}

static void serve_usage(FILE *f)
{
    fprintf(f, "usage: rocketsql [--catalog FILE] serve [--catalog FILE] [--job NAME ...]\n"
               "                 [--http ADDR:PORT] [--http-token-file FILE] [--apply FILE.sql]\n");
}

/* See serve_int.h. */
int rsql_serve_main(const char *catalog_path, int argc, char **argv)
{
    const char *http = NULL, *apply = NULL, *token_file = NULL;
    char **only = rsql_calloc((size_t)argc + 1, sizeof(char *));
    int n_only = 0;
    static const struct option longopts[] = {
        {"catalog", required_argument, NULL, 'c'},
        {"job", required_argument, NULL, 'j'},
        {"http", required_argument, NULL, 'H'},
        {"apply", required_argument, NULL, 'A'},
        {"http-token-file", required_argument, NULL, 'T'},
        {NULL, 0, NULL, 0},
    };
    optind = 1;
    int c;
    while (only && (c = getopt_long(argc, argv, "c:j:", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': catalog_path = optarg; break;
        case 'j': only[n_only++] = optarg; break;
        case 'H': http = optarg; break;
        case 'A': apply = optarg; break;
        case 'T': token_file = optarg; break;
        default: serve_usage(stderr); rsql_free(only); return EXIT_USAGE;
        }
    }
    if (!only || optind < argc) {
        if (only) {
            fprintf(stderr, "rocketsql: serve: unexpected argument '%s'\n", argv[optind]);
        }
        serve_usage(stderr);
        rsql_free(only);
        return EXIT_USAGE;
    }
    if (token_file && !http) {
        fprintf(stderr, "rocketsql: serve: --http-token-file needs --http\n");
        rsql_free(only);
        return EXIT_USAGE;
    }
    /* the process owns the signals: block them before any thread exists */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGUSR1); /* the control API queued an action */
    pthread_sigmask(SIG_BLOCK, &set, NULL);

    serve_t srv;
    memset(&srv, 0, sizeof srv);
    srv.catalog_path = catalog_path;
    pthread_mutex_init(&srv.mu, NULL);
    rsql_cond_init_monotonic(&srv.cv);
    rsql_error_t err;
    rsql_error_clear(&err);
    int status = 0;
    rsql_catalog_t *cat = NULL;
    if (token_file && !(srv.token = read_token(token_file, &srv.token_len))) {
        status = EXIT_USAGE;
        goto out;
    }
    if (apply && !rsql_apply_logged(catalog_path, apply)) {
        fprintf(stderr, "rocketsql: serve: --apply %s: not applied (see the log)\n", apply);
        status = 1;
        goto out;
    }
    cat = rsql_catalog_open(catalog_path, &err);
    if (!cat) {
        fprintf(stderr, "rocketsql: serve: %s\n", err.msg);
        status = 1;
        goto out;
    }
    for (int i = 0; i < n_only; i++) {
        rsql_job_def_t *def = NULL;
        if (rsql_catalog_job_get(cat, only[i], &def, &err) != RSQL_OK || !def) {
            fprintf(stderr, "rocketsql: serve: no such job: %s\n", only[i]);
            status = 1;
            goto out;
        }
        rsql_job_def_free(def);
    }
    if (http && serve__http_start(&srv, http, &err) != RSQL_OK) {
        fprintf(stderr, "rocketsql: serve: --http %s: %s\n", http, err.msg);
        status = err.code == RSQL_ERR_USAGE ? EXIT_USAGE : 1;
        goto out;
    }
    if (reconcile(&srv, cat, only, n_only, &err) != RSQL_OK) {
        fprintf(stderr, "rocketsql: serve: %s\n", err.msg);
        status = 1;
    }
    rsql_log(RSQL_LOG_INFO, "serve", "serving %d job(s) from %s", srv.n_jobs, catalog_path);
    bool draining = false;
    bool reload_again = false; /* a reload after a drain failed: tried again (reload_at) */
    int64_t reload_at = 0;
    while (status == 0) {
        struct timespec tick = {0, 200 * 1000 * 1000};
        int sig = sigtimedwait(&set, NULL, &tick);
        if (sig == SIGHUP && !draining) {
            rsql_log(RSQL_LOG_INFO, "serve", "SIGHUP: re-reading the catalog");
            if (apply) {
                rsql_apply_logged(catalog_path, apply); /* an error changes nothing */
            }
            rsql_error_clear(&err);
            if (reconcile(&srv, cat, only, n_only, &err) != RSQL_OK) {
                rsql_log(RSQL_LOG_ERROR, "serve", "reload: %s", err.msg);
            }
        } else if (sig == SIGINT || sig == SIGTERM) {
            if (draining) {
                /* a second signal: exit at once (positions only cover delivered records),
                   with the log lines still queued written if the output takes them soon */
                rsql_log_sync_brief();
                _exit(128 + sig);
            }
            draining = true;
            rsql_log(RSQL_LOG_INFO, "serve", "signal %d: draining every job", sig);
            pthread_mutex_lock(&srv.mu);
            int n = srv.n_jobs;
            pthread_mutex_unlock(&srv.mu);
            for (int k = 0; k < n; k++) {
                job_retire(srv.jobs[k]);
            }
        }
        if (!draining) {
            do_actions(&srv, cat, only, n_only); /* SIGUSR1, or queued before a SIGHUP */
        }
        if (draining && all_ended(&srv)) {
            break;
        }
        /* never waits: a drained job's thread is done; a changed one then starts again (its
           old self is gone, so a reload that fails here is tried again until it starts) */
        bool reaped = !draining && reap_retired(&srv) > 0;
        if (!draining && ((reaped && srv.reload_pending) ||
                          (reload_again && rsql_deadline_passed(reload_at)))) {
            rsql_error_clear(&err);
            reload_again = reconcile(&srv, cat, only, n_only, &err) != RSQL_OK;
            if (reload_again) {
                rsql_log(RSQL_LOG_ERROR, "serve", "reload: %s (trying again in 1 s)", err.msg);
                reload_at = rsql_now_ms() + 1000;
            }
        }
    }
    for (int k = 0; k < srv.n_jobs; k++) {
        job_retire(srv.jobs[k]);
    }
    serve__http_stop(&srv);
    for (int k = 0; k < srv.n_jobs; k++) {
        job_free(srv.jobs[k]);
    }
out:
    serve__http_stop(&srv);
    rsql_free(srv.jobs);
    rsql_catalog_close(cat);
    for (int i = 0; i < srv.n_actions; i++) {
        rsql_free(srv.actions[i].job);
    }
    if (srv.token) {
        memset(srv.token, 0, srv.token_len);
    }
    rsql_free(srv.token);
    pthread_cond_destroy(&srv.cv);
    pthread_mutex_destroy(&srv.mu);
    rsql_free(only);
    return status;
}

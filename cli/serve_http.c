/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The HTTP endpoint of `rocketsql serve --http ADDR:PORT` (libmicrohttpd, one internal
 * polling thread): GET /metrics (Prometheus text format 0.0.4), /healthz (alive), /readyz
 * (200 when every job is running with its source and sink open and not retrying, or ended
 * by itself; else 503), /jobs (JSON). Other paths answer 404, other methods 405.
 *
 * With a token (serve --http-token-file), the control API: POST /jobs/NAME/stop, /start and
 * /restart, answered 202 (queued for the main thread, serve.c) only with the header
 * `Authorization: Bearer TOKEN`, compared in time that does not depend on where it differs; a
 * missing or wrong token gets 401 and a log line with the client's address, an unknown job
 * 404, a start of a running job 409. Without a token these paths do not exist (404).
 *
 * Every answer is built in memory under srv->mu (job states) from the atomics the pipelines
 * publish (rsql_pipeline_stats_t), then handed to libmicrohttpd as a copy; no lock is held
 * while it writes to the socket, so a slow or stuck scraper costs a connection slot, never a
 * job's progress. The slots are guarded too: a connection idle for 10 s is closed, a request
 * whose headers are not in after 5 s is cut (the guard below), and one client address holds
 * at most 16 connections, so probes from elsewhere are answered whatever one client does.
 *
 * The listening socket is made here (bind errors such as "address already in use" are then
 * reported as they are, at start-up) and given to libmicrohttpd.
 */
#include "config.h"
#include "cli/serve_int.h"
#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"

#include <arpa/inet.h>
#include <cjson/cJSON.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- bodies */

typedef struct metric_def {
    const char *name, *type, *help;
} metric_def_t;

enum { M_READ, M_WRITTEN, M_FILTERED, M_DLQ, M_FAILED, M_RETRIES, M_RESTARTS, M_RUNS,
       M_ACKED, M_RENEWED, M_DEFERRED, M_IN_FLIGHT, M_IN_FLIGHT_BYTES, M_QUEUE, M_HELD, M_UP, N_METRICS };

static const metric_def_t metric_defs[N_METRICS] = {
    {"rocketsql_records_read_total", "counter", "Records read from the job's source."},
    {"rocketsql_records_written_total", "counter", "Records the job's sink confirmed."},
    {"rocketsql_records_filtered_total", "counter", "Records the job's WHERE dropped."},
    {"rocketsql_records_dead_lettered_total", "counter",
     "Records that failed and went to the dead-letter destination."},
    {"rocketsql_records_failed_total", "counter", "Records that failed the job."},
    {"rocketsql_retries_total", "counter",
     "Transient source, sink or delivery failures that were retried."},
    {"rocketsql_job_restarts_total", "counter", "Restarts by the job's restart strategy."},
    {"rocketsql_job_runs_total", "counter", "Runs of the job (attempts) by this process."},
    {"rocketsql_messages_acked_total", "counter",
     "Messages the job's RocketMQ source acked and the broker confirmed (0 for other sources)."},
    {"rocketsql_invisible_renewals_total", "counter",
     "Invisible-duration renewals (ChangeInvisibleDuration) of the job's RocketMQ source the "
     "broker confirmed."},
    {"rocketsql_messages_deferred_total", "counter",
     "Messages the job's RocketMQ source deferred (fair throttling: made invisible again)."},
    {"rocketsql_records_in_flight", "gauge",
     "Records read whose outcome (written, filtered, failed) is not known yet."},
    {"rocketsql_records_in_flight_bytes", "gauge",
     "Bytes of the records in flight as pipeline.memory counts them when read (bodies as "
     "received, or what the source holds for them when more)."},
    {"rocketsql_queue_depth_records", "gauge", "Records waiting between pipeline stages."},
    {"rocketsql_messages_held", "gauge",
     "Messages the job's RocketMQ source received and holds invisible, not resolved yet."},
    {"rocketsql_job_up", "gauge",
     "1 while the job runs with its source and sink open and not retrying, else 0."},
};

/* Label value escaping (Prometheus text format: backslash, quote, newline). */
static void put_label(rsql_buf_t *out, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"') {
            rsql_buf_putc(out, '\\');
            rsql_buf_putc(out, *v);
        } else if (*v == '\n') {
            rsql_buf_puts(out, "\\n");
        } else {
            rsql_buf_putc(out, *v);
        }
    }
}

/* A copy of the source's detail JSON (stats.detail). @locks srv->mu held (takes stats.mu) */
static void detail_copy0(serve_job_t *j, char *buf, size_t size)
{
    pthread_mutex_lock(&j->st->mu);
    snprintf(buf, size, "%s", j->st->detail);
    pthread_mutex_unlock(&j->st->mu);
}

/* Whether j is running and connected. @locks srv->mu held */
static bool job_up0(serve_job_t *j)
{
    if (strcmp(j->state, "running") != 0 || !atomic_load(&j->st->open) ||
        atomic_load(&j->st->source_down) || atomic_load(&j->st->sink_down)) {
        return false;
    }
    char d[sizeof j->st->detail];
    detail_copy0(j, d, sizeof d);
    return !strstr(d, "\"connected\":false");
}

/* A gauge per job from the number key of its source's detail (docs[k]: job k's, parsed). */
static void put_job_gauge0(serve_t *srv, cJSON **docs, rsql_buf_t *out, const char *name,
                           const char *help, const char *key)
{
    rsql_buf_printf(out, "# HELP %s %s\n# TYPE %s gauge\n", name, help, name);
    for (int k = 0; k < srv->n_jobs; k++) {
        cJSON *v = cJSON_GetObjectItemCaseSensitive(docs[k], key);
        if (!cJSON_IsNumber(v)) {
            continue;
        }
        rsql_buf_printf(out, "%s{job=\"", name);
        put_label(out, srv->jobs[k]->name);
        rsql_buf_printf(out, "\"} %.0f\n", v->valuedouble);
    }
}

/* Per-job source gauges from its detail: active lite topics, deferred, the busiest lite
   topics (at most 10 per job: describe's top list, so the label set stays bounded), the long
   polls in flight, a lite source's client identities, a replication slot's lag, and the
   source's backlog. */
static void put_source_gauges0(serve_t *srv, rsql_buf_t *out)
{
    static const char *const names[] = {"rocketsql_lite_topics_active",
                                        "rocketsql_records_deferred",
                                        "rocketsql_lite_topic_in_flight",
                                        "rocketsql_lite_topic_deferred"};
    static const char *const helps[] = {
        "Lite topics (or message groups) the job's RocketMQ source keeps (active within "
        "lanes.idle-timeout).",
        "Messages the job's RocketMQ source deferred (fair throttling), now invisible.",
        "In-flight messages of one of the busiest lite topics (top 10 per job).",
        "Deferred messages of one of the busiest lite topics (top 10 per job)."};
    cJSON **docs = rsql_calloc((size_t)(srv->n_jobs ? srv->n_jobs : 1), sizeof *docs);
    if (!docs) {
        return;
    }
    for (int k = 0; k < srv->n_jobs; k++) {
        char d[sizeof srv->jobs[k]->st->detail];
        detail_copy0(srv->jobs[k], d, sizeof d);
        docs[k] = d[0] ? cJSON_Parse(d) : NULL;
    }
    for (int m = 0; m < 4; m++) {
        rsql_buf_printf(out, "# HELP %s %s\n# TYPE %s gauge\n", names[m], helps[m], names[m]);
        for (int k = 0; k < srv->n_jobs; k++) {
            cJSON *lanes = cJSON_GetObjectItemCaseSensitive(docs[k], "lanes");
            if (!cJSON_IsNumber(lanes)) {
                continue; /* no lite source */
            }
            if (m < 2) {
                cJSON *v = m == 0 ? lanes : cJSON_GetObjectItemCaseSensitive(docs[k], "deferred");
                rsql_buf_printf(out, "%s{job=\"", names[m]);
                put_label(out, srv->jobs[k]->name);
                rsql_buf_printf(out, "\"} %.0f\n", cJSON_IsNumber(v) ? v->valuedouble : 0.0);
                continue;
            }
            cJSON *top = cJSON_GetObjectItemCaseSensitive(docs[k], "lite_topics");
            int i = 0;
            cJSON *t;
            cJSON_ArrayForEach(t, top)
            {
                cJSON *name = cJSON_GetObjectItemCaseSensitive(t, "name");
                cJSON *v = cJSON_GetObjectItemCaseSensitive(t, m == 2 ? "in_flight" : "deferred");
                if (i++ >= 10 || !cJSON_IsString(name) || !cJSON_IsNumber(v)) {
                    continue;
                }
                rsql_buf_printf(out, "%s{job=\"", names[m]);
                put_label(out, srv->jobs[k]->name);
                rsql_buf_puts(out, "\",lite_topic=\"");
                put_label(out, name->valuestring);
                rsql_buf_printf(out, "\"} %.0f\n", v->valuedouble);
            }
        }
    }
    /* a RocketMQ source's adaptive receive: the long polls it keeps in flight now; a lite
       source's client identities in use (they grow while the broker's dispatch rounds are
       full and drop back after the backlog) */
    put_job_gauge0(srv, docs, out, "rocketsql_source_long_polls",
                   "Long polls (ReceiveMessage) the job's RocketMQ source keeps in flight now: "
                   "more while they come back full, fewer while they come back empty, at most "
                   "source.fetch-concurrency per client identity.",
                   "long_polls");
    put_job_gauge0(srv, docs, out, "rocketsql_source_lite_identities",
                   "Client identities the job's lite RocketMQ source has in use (between "
                   "source.lite-clients-min and source.lite-clients).",
                   "identities");
    /* a replication slot's source (postgres-cdc): the WAL the server keeps for it */
    static const char lag[] = "rocketsql_replication_slot_lag_bytes";
    rsql_buf_printf(out,
                    "# HELP %s WAL bytes between the server's end of WAL (as last heard) and "
                    "what the job committed, which the server keeps for the job's replication "
                    "slot.\n# TYPE %s gauge\n",
                    lag, lag);
    for (int k = 0; k < srv->n_jobs; k++) {
        cJSON *slot = cJSON_GetObjectItemCaseSensitive(docs[k], "slot");
        cJSON *v = cJSON_GetObjectItemCaseSensitive(docs[k], "lag_bytes");
        if (!cJSON_IsString(slot) || !cJSON_IsNumber(v)) {
            continue;
        }
        rsql_buf_printf(out, "%s{job=\"", lag);
        put_label(out, srv->jobs[k]->name);
        rsql_buf_puts(out, "\",slot=\"");
        put_label(out, slot->valuestring);
        rsql_buf_printf(out, "\"} %.0f\n", v->valuedouble);
    }
    /* what the source has left to read, where it can know it: a file's bytes, a Kafka
       topic's messages past the position, a replication slot's WAL bytes */
    static const char backlog[] = "rocketsql_source_backlog";
    static const char *const units[] = {"bytes", "messages", "rows"};
    rsql_buf_printf(out,
                    "# HELP %s What the job's source has left to read, where it can know it "
                    "(unit: bytes of a file or of WAL, messages of Kafka partitions).\n"
                    "# TYPE %s gauge\n",
                    backlog, backlog);
    for (int k = 0; k < srv->n_jobs; k++) {
        for (int u = 0; u < 3; u++) {
            char key[32];
            snprintf(key, sizeof key, "backlog_%s", units[u]);
            cJSON *v = cJSON_GetObjectItemCaseSensitive(docs[k], key);
            if (!cJSON_IsNumber(v)) {
                continue;
            }
            rsql_buf_printf(out, "%s{job=\"", backlog);
            put_label(out, srv->jobs[k]->name);
            rsql_buf_printf(out, "\",unit=\"%s\"} %.0f\n", units[u], v->valuedouble);
        }
    }
    for (int k = 0; k < srv->n_jobs; k++) {
        cJSON_Delete(docs[k]);
    }
    rsql_free(docs);
}

static int64_t metric_value0(serve_job_t *j, int m)
{
    rsql_job_counts_t c;
    int64_t retries;
    serve__totals0(j, &c, &retries);
    switch (m) {
    case M_READ: return c.read;
    case M_WRITTEN: return c.written;
    case M_FILTERED: return c.filtered;
    case M_DLQ: return c.dead_lettered;
    case M_FAILED: return c.failed;
    case M_RETRIES: return retries;
    case M_RESTARTS: return j->restarts;
    case M_RUNS: return j->runs;
    case M_ACKED: return atomic_load(&j->st->src.acked);
    case M_RENEWED: return atomic_load(&j->st->src.renewed);
    case M_DEFERRED: return atomic_load(&j->st->src.deferred);
    case M_HELD: return atomic_load(&j->st->src.held);
    case M_IN_FLIGHT: return atomic_load(&j->st->in_flight);
    case M_IN_FLIGHT_BYTES: return atomic_load(&j->st->in_flight_bytes);
    case M_QUEUE: return atomic_load(&j->st->queue_depth);
    case M_UP: return job_up0(j) ? 1 : 0;
    default: return 0;
    }
}

/* One histogram family over the jobs (stateful_only: the jobs that keep state).
   @locks srv->mu held */
static void put_hist0(serve_t *srv, rsql_buf_t *out, const char *name, const char *help,
                      size_t off, bool stateful_only)
{
    rsql_buf_printf(out, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
    for (int k = 0; k < srv->n_jobs; k++) {
        serve_job_t *j = srv->jobs[k];
        if (stateful_only && !atomic_load(&j->st->has_state)) {
            continue;
        }
        rsql_latency_hist_t *h = (rsql_latency_hist_t *)((char *)j->st + off);
        int64_t cum = 0;
        for (int b = 0; b < RSQL_LATENCY_BUCKETS; b++) {
            cum += atomic_load(&h->bucket[b]);
            rsql_buf_printf(out, "%s_bucket{job=\"", name);
            put_label(out, j->name);
            if (b < RSQL_LATENCY_BUCKETS - 1) {
                rsql_buf_printf(out, "\",le=\"%g\"} %lld\n", rsql_latency_bounds_s[b],
                                (long long)cum);
            } else {
                rsql_buf_printf(out, "\",le=\"+Inf\"} %lld\n", (long long)cum);
            }
        }
        /* the count is the +Inf bucket, read once above: the two always agree */
        rsql_buf_printf(out, "%s_sum{job=\"", name);
        put_label(out, j->name);
        rsql_buf_printf(out, "\"} %.6f\n", (double)atomic_load(&h->sum_us) / 1e6);
        rsql_buf_printf(out, "%s_count{job=\"", name);
        put_label(out, j->name);
        rsql_buf_printf(out, "\"} %lld\n", (long long)cum);
    }
}

/* The state of a job that keeps some (a deduplication): one series per such job, none for
   the others. @locks srv->mu held */
static void put_state0(serve_t *srv, rsql_buf_t *out)
{
    static const struct {
        metric_def_t d;
        size_t off;
    } defs[] = {
        {{"rocketsql_state_keys", "gauge", "Keys of the job's state held in memory."},
         offsetof(rsql_pipeline_stats_t, state_keys)},
        {{"rocketsql_state_bytes", "gauge",
          "Bytes of the keys and values of the job's state held in memory."},
         offsetof(rsql_pipeline_stats_t, state_bytes)},
        {{"rocketsql_state_pending_changes", "gauge",
          "Changes to the job's state not yet saved in the catalog."},
         offsetof(rsql_pipeline_stats_t, state_pending)},
        {{"rocketsql_state_checkpoints_total", "counter",
          "Checkpoints that saved changes of the job's state (with its source positions)."},
         offsetof(rsql_pipeline_stats_t, state_checkpoints)},
        {{"rocketsql_state_evictions_total", "counter",
          "Entries of the job's state that left memory for its bound (state.memory)."},
         offsetof(rsql_pipeline_stats_t, state_evictions)},
        {{"rocketsql_state_lookups_total", "counter",
          "Keys of the job's state not in memory that were looked up in the catalog."},
         offsetof(rsql_pipeline_stats_t, state_reads)},
        {{"rocketsql_records_late_total", "counter",
          "Rows a window aggregation dropped because their window was already given (the "
          "watermark had passed its end)."},
         offsetof(rsql_pipeline_stats_t, records_late)},
        {{"rocketsql_state_checkpoint_waits_total", "counter",
          "Waits of the job's transform for a checkpoint (unsaved changes reached half of "
          "state.memory)."},
         offsetof(rsql_pipeline_stats_t, state_waits)},
    };
    for (size_t m = 0; m < sizeof defs / sizeof defs[0]; m++) {
        const metric_def_t *d = &defs[m].d;
        rsql_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name, d->type);
        for (int k = 0; k < srv->n_jobs; k++) {
            serve_job_t *j = srv->jobs[k];
            if (!atomic_load(&j->st->has_state)) {
                continue;
            }
            atomic_int_least64_t *v = (atomic_int_least64_t *)((char *)j->st + defs[m].off);
            rsql_buf_printf(out, "%s{job=\"", d->name);
            put_label(out, j->name);
            rsql_buf_printf(out, "\"} %lld\n", (long long)atomic_load(v));
        }
    }
    put_hist0(srv, out, "rocketsql_state_checkpoint_duration_seconds",
              "How long each checkpoint of the job's state took, from its transaction's start "
              "to its commit.",
              offsetof(rsql_pipeline_stats_t, state_checkpoint), true);
}

/* See serve_int.h. */
void serve__metrics(serve_t *srv, rsql_buf_t *out)
{
    pthread_mutex_lock(&srv->mu);
    for (int m = 0; m < N_METRICS; m++) {
        const metric_def_t *d = &metric_defs[m];
        rsql_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name, d->type);
        for (int k = 0; k < srv->n_jobs; k++) {
            serve_job_t *j = srv->jobs[k];
            rsql_buf_printf(out, "%s{job=\"", d->name);
            put_label(out, j->name);
            rsql_buf_printf(out, "\"} %lld\n", (long long)metric_value0(j, m));
        }
    }
    put_source_gauges0(srv, out);
    put_hist0(srv, out, "rocketsql_end_to_end_latency_seconds",
              "From a record's read to its sink's confirmation (sources without a born time: "
              "read time).",
              offsetof(rsql_pipeline_stats_t, e2e), false);
    put_hist0(srv, out, "rocketsql_send_latency_seconds",
              "From a sink write to its delivery report, per batch.",
              offsetof(rsql_pipeline_stats_t, send), false);
    put_hist0(srv, out, "rocketsql_ack_latency_seconds",
              "From an ack request of the job's RocketMQ source to the broker's answer.",
              offsetof(rsql_pipeline_stats_t, src.ack), false);
    put_state0(srv, out);
    pthread_mutex_unlock(&srv->mu);
    rsql_buf_printf(out,
                    "# HELP rocketsql_log_lines_dropped_total Log lines dropped because the log "
                    "output (standard error) was not read fast enough.\n"
                    "# TYPE rocketsql_log_lines_dropped_total counter\n"
                    "rocketsql_log_lines_dropped_total %llu\n",
                    (unsigned long long)rsql_log_dropped());
}

/* Ready when every job is up, or ended by itself (a bounded job that finished). */
bool serve__ready(serve_t *srv)
{
    pthread_mutex_lock(&srv->mu);
    bool ready = true;
    for (int k = 0; k < srv->n_jobs; k++) {
        serve_job_t *j = srv->jobs[k];
        ready = ready && (job_up0(j) || strcmp(j->state, "finished") == 0);
    }
    pthread_mutex_unlock(&srv->mu);
    return ready;
}

/* See serve_int.h. */
void serve__jobs_json(serve_t *srv, rsql_buf_t *out)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(root, "jobs");
    pthread_mutex_lock(&srv->mu);
    for (int k = 0; arr && k < srv->n_jobs; k++) {
        serve_job_t *j = srv->jobs[k];
        rsql_job_counts_t c;
        int64_t retries;
        serve__totals0(j, &c, &retries);
        int64_t run = atomic_load(&j->st->run_id);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", j->name);
        cJSON_AddStringToObject(o, "status", j->state);
        cJSON_AddBoolToObject(o, "ready", job_up0(j));
        cJSON_AddNumberToObject(o, "run_id", (double)(run > 0 ? run : j->last_run_id));
        cJSON_AddNumberToObject(o, "runs", (double)j->runs);
        cJSON_AddNumberToObject(o, "restarts", (double)j->restarts);
        cJSON *cn = cJSON_AddObjectToObject(o, "counts");
        cJSON_AddNumberToObject(cn, "read", (double)c.read);
        cJSON_AddNumberToObject(cn, "written", (double)c.written);
        cJSON_AddNumberToObject(cn, "filtered", (double)c.filtered);
        cJSON_AddNumberToObject(cn, "dead_lettered", (double)c.dead_lettered);
        cJSON_AddNumberToObject(cn, "failed", (double)c.failed);
        cJSON_AddNumberToObject(cn, "retries", (double)retries);
        cJSON_AddNumberToObject(cn, "in_flight", (double)atomic_load(&j->st->in_flight));
        char d[sizeof j->st->detail]; /* the source's backlog, where it knows it */
        detail_copy0(j, d, sizeof d);
        cJSON *doc = d[0] ? cJSON_Parse(d) : NULL;
        cJSON *bl = NULL;
        static const char *const units[] = {"bytes", "messages", "rows"};
        for (int u = 0; u < 3 && doc; u++) {
            char key[32];
            snprintf(key, sizeof key, "backlog_%s", units[u]);
            cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, key);
            if (cJSON_IsNumber(v) && (bl || (bl = cJSON_AddObjectToObject(o, "backlog")))) {
                cJSON_AddNumberToObject(bl, units[u], v->valuedouble);
            }
        }
        /* a RocketMQ source's adaptive receive: its long polls now, at most, in flight */
        static const char *const lp[][2] = {{"long_polls", "long_polls"},
                                            {"long_polls_max", "max"},
                                            {"long_polls_in_flight", "in_flight"}};
        cJSON *rcv = NULL;
        for (int i = 0; i < 3 && doc; i++) {
            cJSON *v = cJSON_GetObjectItemCaseSensitive(doc, lp[i][0]);
            if (cJSON_IsNumber(v) && (rcv || (rcv = cJSON_AddObjectToObject(o, "receive")))) {
                cJSON_AddNumberToObject(rcv, lp[i][1], v->valuedouble);
            }
        }
        cJSON_Delete(doc);
        if (!bl) {
            cJSON_AddNullToObject(o, "backlog");
        }
        if (j->last_error[0]) {
            cJSON_AddStringToObject(o, "last_error", j->last_error);
        } else {
            cJSON_AddNullToObject(o, "last_error");
        }
        cJSON_AddItemToArray(arr, o);
    }
    pthread_mutex_unlock(&srv->mu);
    char *text = cJSON_PrintUnformatted(root);
    if (text) {
        rsql_buf_puts(out, text);
        rsql_buf_putc(out, '\n');
        cJSON_free(text);
    }
    cJSON_Delete(root);
}

/* ---- the daemon */

/*
** The endpoint's own state: the daemon, and a guard over its connections. libmicrohttpd
** closes a connection idle for 10 s, but a client that sends its request a byte at a time
** is never idle: the guard gives every request HEADER_TIMEOUT_MS to bring its headers (from
** the connection's start, or the end of the request before on it), and a thread of its own
** shuts down the connections past that. libmicrohttpd then closes them; it reports a
** connection closed (guard_notify, CLOSED) before it closes its socket, and the record goes
** under h->mu then, so the guard never touches a socket number that was reused.
*/
#define HEADER_TIMEOUT_MS 5000
#define PER_ADDRESS_LIMIT 16 /* connections from one client address */
#define CONNECTION_LIMIT 256 /* connections in all */

typedef struct http_conn {
    struct http_conn *next, *prev;
    int fd;
    int64_t since_ms;  /* the start of the wait for the current request's headers */
    bool headers_in;   /* the current request's headers are all in */
    bool cut;          /* shut down by the guard */
} http_conn_t;

typedef struct http {
    serve_t *srv;
    struct MHD_Daemon *d;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    http_conn_t conns; /* list head, under mu */
    bool stop;         /* under mu */
    pthread_t guard;
    bool guard_started;
} http_t;

/* libmicrohttpd's connection callback: a connection starts or ends. @locality MHD thread */
static void guard_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
                         enum MHD_ConnectionNotificationCode toe)
{
    http_t *h = cls;
    if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        http_conn_t *c = rsql_calloc(1, sizeof *c);
        if (!c || !ci) {
            rsql_free(c); /* not guarded: the idle timeout still applies */
            *socket_context = NULL;
            return;
        }
        c->fd = ci->connect_fd;
        c->since_ms = rsql_now_ms();
        pthread_mutex_lock(&h->mu);
        c->next = h->conns.next;
        c->prev = &h->conns;
        h->conns.next->prev = c;
        h->conns.next = c;
        pthread_mutex_unlock(&h->mu);
        *socket_context = c;
        return;
    }
    http_conn_t *c = *socket_context;
    if (c) {
        pthread_mutex_lock(&h->mu);
        c->prev->next = c->next;
        c->next->prev = c->prev;
        pthread_mutex_unlock(&h->mu);
        rsql_free(c);
        *socket_context = NULL;
    }
}

/* The headers of the connection's request are in: its clock stops. @locality MHD thread */
static void guard_headers_in(http_t *h, void *socket_context)
{
    http_conn_t *c = socket_context;
    if (c) {
        pthread_mutex_lock(&h->mu);
        c->headers_in = true;
        pthread_mutex_unlock(&h->mu);
    }
}

/* A request is done: the clock starts again for the next one. @locality MHD thread */
static void guard_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                            enum MHD_RequestTerminationCode toe)
{
    (void)con_cls;
    (void)toe;
    http_t *h = cls;
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    http_conn_t *c = ci ? ci->socket_context : NULL;
    if (c) {
        pthread_mutex_lock(&h->mu);
        c->headers_in = false;
        c->since_ms = rsql_now_ms();
        pthread_mutex_unlock(&h->mu);
    }
}

/* The guard's thread: every 200 ms, shut down the connections past their header time. */
static void *guard_main(void *arg)
{
    http_t *h = arg;
    pthread_mutex_lock(&h->mu);
    while (!h->stop) {
        int64_t now = rsql_now_ms();
        for (http_conn_t *c = h->conns.next; c != &h->conns; c = c->next) {
            if (!c->headers_in && !c->cut && now - c->since_ms >= HEADER_TIMEOUT_MS) {
                shutdown(c->fd, SHUT_RDWR); /* libmicrohttpd sees the end and closes it */
                c->cut = true;
            }
        }
        rsql_cond_wait_until(&h->cv, &h->mu, now + 200);
    }
    pthread_mutex_unlock(&h->mu);
    return NULL;
}

static enum MHD_Result answer_allow(struct MHD_Connection *conn, unsigned status,
                                    const char *type, const char *body, size_t len,
                                    const char *allow, const char *www_auth)
{
    struct MHD_Response *r =
        MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);
    if (!r) {
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    if (allow) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, allow);
    }
    if (www_auth) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, www_auth);
    }
    enum MHD_Result ret = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned status, const char *type,
                              const char *body, size_t len, bool allow)
{
    return answer_allow(conn, status, type, body, len, allow ? "GET, HEAD" : NULL, NULL);
}

/* ---- the control API */

/* given == want, in time that depends on want's length only. */
static bool token_equal(const char *given, size_t given_len, const char *want, size_t want_len)
{
    unsigned char diff = given_len != want_len;
    for (size_t i = 0; i < want_len; i++) {
        diff |= (unsigned char)((i < given_len ? (unsigned char)given[i] : 0) ^
                                (unsigned char)want[i]);
    }
    return diff == 0;
}

/* The client's address as text. */
static void peer_of(struct MHD_Connection *conn, char *buf, size_t size)
{
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    snprintf(buf, size, "unknown");
    if (ci && ci->client_addr && ci->client_addr->sa_family == AF_INET) {
        inet_ntop(AF_INET, &((const struct sockaddr_in *)(const void *)ci->client_addr)->sin_addr,
                  buf, (socklen_t)size);
    }
}

/*
** url is /jobs/NAME/VERB with VERB stop, start or restart: *verb set, the name's bytes at
** *name (*name_len of them). NAME has no '/'.
*/
static bool control_path(const char *url, const char **name, size_t *name_len,
                         serve_verb_t *verb)
{
    if (strncmp(url, "/jobs/", 6) != 0) {
        return false;
    }
    const char *n = url + 6, *slash = strchr(n, '/');
    if (!slash || slash == n || strchr(slash + 1, '/')) {
        return false;
    }
    const char *v = slash + 1;
    if (strcmp(v, "stop") == 0) {
        *verb = SERVE_STOP;
    } else if (strcmp(v, "start") == 0) {
        *verb = SERVE_START;
    } else if (strcmp(v, "restart") == 0) {
        *verb = SERVE_RESTART;
    } else {
        return false;
    }
    *name = n;
    *name_len = (size_t)(slash - n);
    return true;
}

static enum MHD_Result control(serve_t *srv, struct MHD_Connection *conn, const char *url,
                               const char *method, const char *name, size_t name_len,
                               serve_verb_t verb)
{
    const char *json = "application/json";
    cJSON *o = cJSON_CreateObject();
    unsigned status = MHD_HTTP_ACCEPTED;
    const char *www_auth = NULL, *allow = NULL;
    char peer[64];
    peer_of(conn, peer, sizeof peer);
    const char *auth =
        MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    bool bearer = auth && strncasecmp(auth, "Bearer ", 7) == 0;
    const char *given = bearer ? auth + 7 : "";
    if (strcmp(method, "POST") != 0) {
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
        allow = "POST";
        cJSON_AddStringToObject(o, "error", "method not allowed: use POST");
    } else if (!token_equal(given, strlen(given), srv->token, srv->token_len)) {
        status = MHD_HTTP_UNAUTHORIZED;
        www_auth = "Bearer realm=\"rocketsql\"";
        cJSON_AddStringToObject(o, "error", "unauthorized");
        char shown[128]; /* the path as logged: printable ASCII only, cut short */
        size_t n = 0;
        for (const char *c = url; *c && n + 1 < sizeof shown; c++) {
            shown[n++] = *c > 0x20 && *c < 0x7f ? *c : '?';
        }
        shown[n] = '\0';
        rsql_log(RSQL_LOG_WARN, "serve", "control API: %s %s from %s refused: %s", method, shown,
                 peer, !auth ? "no Authorization header" : !bearer ? "not a Bearer token"
                                                                  : "wrong token");
    } else {
        pthread_mutex_lock(&srv->mu);
        serve_job_t *j = NULL;
        for (int k = 0; k < srv->n_jobs && !j; k++) {
            const char *jn = srv->jobs[k]->name;
            j = strlen(jn) == name_len && strncmp(jn, name, name_len) == 0 ? srv->jobs[k] : NULL;
        }
        char *copy = j ? rsql_strdup(j->name) : NULL;
        if (!j) {
            status = MHD_HTTP_NOT_FOUND;
            cJSON_AddStringToObject(o, "error", "no such job");
        } else if (verb == SERVE_START && !j->held && !j->ended && !j->retire) {
            status = MHD_HTTP_CONFLICT;
            cJSON_AddStringToObject(o, "error", "the job is running; restart it instead");
        } else if (!copy || srv->n_actions == SERVE_MAX_ACTIONS) {
            status = MHD_HTTP_SERVICE_UNAVAILABLE;
            cJSON_AddStringToObject(o, "error", "too many actions waiting; try again");
        } else {
            serve_action_t *a = &srv->actions[srv->n_actions++];
            a->job = copy;
            copy = NULL;
            a->verb = verb;
            snprintf(a->peer, sizeof a->peer, "%s", peer);
            cJSON_AddStringToObject(o, "action", serve__verb_name(verb));
        }
        if (j) {
            cJSON_AddStringToObject(o, "job", j->name);
            cJSON_AddStringToObject(o, "state", j->state);
        }
        pthread_mutex_unlock(&srv->mu);
        rsql_free(copy);
        if (status == MHD_HTTP_ACCEPTED) {
            kill(getpid(), SIGUSR1); /* the main thread takes it (sigtimedwait) */
        }
    }
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    enum MHD_Result ret;
    if (!text) {
        static const char oom[] = "out of memory\n";
        ret = answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", oom,
                     sizeof oom - 1, false);
    } else {
        ret = answer_allow(conn, status, json, text, strlen(text), allow, www_auth);
        cJSON_free(text);
    }
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    (void)version;
    (void)upload_data;
    http_t *h = cls;
    serve_t *srv = h->srv;
    if (!*con_cls) { /* the first call is for the headers only: they are all in */
        const union MHD_ConnectionInfo *ci =
            MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
        guard_headers_in(h, ci ? ci->socket_context : NULL);
        *con_cls = srv;
        return MHD_YES;
    }
    if (*upload_data_size) {
        *upload_data_size = 0; /* a body is read and ignored */
        return MHD_YES;
    }
    const char *text = "text/plain; charset=utf-8";
    const char *name = NULL;
    size_t name_len = 0;
    serve_verb_t verb;
    if (srv->token && control_path(url, &name, &name_len, &verb)) {
        return control(srv, conn, url, method, name, name_len, verb);
    }
    bool known = strcmp(url, "/metrics") == 0 || strcmp(url, "/healthz") == 0 ||
                 strcmp(url, "/readyz") == 0 || strcmp(url, "/jobs") == 0;
    if (!known) {
        static const char nf[] = "not found\n";
        return answer(conn, MHD_HTTP_NOT_FOUND, text, nf, sizeof nf - 1, false);
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
        static const char na[] = "method not allowed\n";
        return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, text, na, sizeof na - 1, true);
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    unsigned status = MHD_HTTP_OK;
    const char *type = text;
    if (strcmp(url, "/metrics") == 0) {
        serve__metrics(srv, &b);
        type = "text/plain; version=0.0.4; charset=utf-8";
    } else if (strcmp(url, "/healthz") == 0) {
        rsql_buf_puts(&b, "ok\n");
    } else if (strcmp(url, "/readyz") == 0) {
        bool ready = serve__ready(srv);
        rsql_buf_puts(&b, ready ? "ready\n" : "not ready\n");
        status = ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE;
    } else {
        serve__jobs_json(srv, &b);
        type = "application/json";
    }
    enum MHD_Result ret;
    if (b.oom) {
        static const char oom[] = "out of memory\n";
        ret = answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, text, oom, sizeof oom - 1, false);
    } else {
        ret = answer(conn, status, type, b.data ? b.data : "", b.len, false);
    }
    rsql_buf_deinit(&b);
    return ret;
}

/* "HOST:PORT" or "PORT" into an IPv4 address (loopback when no host). */
static rsql_err_t parse_addr(const char *addr, struct sockaddr_in *sa, rsql_error_t *err)
{
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    const char *colon = strrchr(addr, ':');
    const char *port = colon ? colon + 1 : addr;
    char host[64] = "127.0.0.1";
    if (colon) {
        size_t n = (size_t)(colon - addr);
        if (n == 0 || n >= sizeof host) {
            return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                                  "expected ADDR:PORT, e.g. 127.0.0.1:9464");
        }
        memcpy(host, addr, n);
        host[n] = 0;
    }
    char *end = NULL;
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS, "bad port '%s'", port);
    }
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1) {
        return rsql_error_set(err, RSQL_ERR_USAGE, RSQL_NOPOS,
                              "'%s' is not an IPv4 address", host);
    }
    sa->sin_port = htons((uint16_t)p);
    return RSQL_OK;
}

/* See serve_int.h. */
rsql_err_t serve__http_start(serve_t *srv, const char *addr, rsql_error_t *err)
{
    struct sockaddr_in sa;
    rsql_err_t rc = parse_addr(addr, &sa, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return rsql_error_set(err, RSQL_ERR_IO, RSQL_NOPOS, "socket: %s", strerror(errno));
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        return rsql_error_set(err, RSQL_ERR_IO, RSQL_NOPOS, "cannot listen: %s", strerror(e));
    }
    http_t *h = rsql_calloc(1, sizeof *h);
    if (!h) {
        close(fd);
        return rsql_error_nomem(err);
    }
    h->srv = srv;
    h->conns.next = h->conns.prev = &h->conns;
    pthread_mutex_init(&h->mu, NULL);
    rsql_cond_init_monotonic(&h->cv);
    /* libmicrohttpd's thread and the guard's take no signal (serve's main thread does) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    h->d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, 0, NULL, NULL, on_request, h,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd, MHD_OPTION_CONNECTION_TIMEOUT,
        (unsigned int)10, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)CONNECTION_LIMIT,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)PER_ADDRESS_LIMIT,
        MHD_OPTION_NOTIFY_CONNECTION, guard_notify, h, MHD_OPTION_NOTIFY_COMPLETED,
        guard_completed, h, MHD_OPTION_END);
    h->guard_started = h->d && pthread_create(&h->guard, NULL, guard_main, h) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!h->guard_started) {
        bool daemon_started = h->d != NULL; /* serve__http_stop frees h */
        srv->http = h;
        serve__http_stop(srv);
        if (!daemon_started) {
            close(fd);
        }
        return rsql_error_set(err, RSQL_ERR_IO, RSQL_NOPOS, "cannot start the HTTP server");
    }
    srv->http = h;
    return RSQL_OK;
}

/* See serve_int.h. NULL-safe, idempotent. */
void serve__http_stop(serve_t *srv)
{
    http_t *h = srv->http;
    if (!h) {
        return;
    }
    srv->http = NULL;
    if (h->guard_started) {
        pthread_mutex_lock(&h->mu);
        h->stop = true;
        pthread_cond_broadcast(&h->cv);
        pthread_mutex_unlock(&h->mu);
        pthread_join(h->guard, NULL);
    }
    if (h->d) {
        MHD_stop_daemon(h->d); /* reports every connection closed: the list empties */
    }
    pthread_cond_destroy(&h->cv);
    pthread_mutex_destroy(&h->mu);
    rsql_free(h);
}

/* ---- SET 'http.address' in a script or the shell: one run's endpoint */

typedef struct run_http {
    serve_t srv;
    serve_job_t job;
    serve_job_t *jobs[1];
} run_http_t;

static run_http_t *run_http; /* the session's thread only: one run at a time */

/* See serve_int.h. */
rsql_err_t serve__run_http_begin(void *opaque, const char *addr, const char *name,
                                 rsql_pipeline_stats_t *stats, rsql_error_t *err)
{
    (void)opaque;
    run_http_t *r = rsql_calloc(1, sizeof *r);
    char *nm = rsql_strdup(name);
    if (!r || !nm) {
        rsql_free(r);
        rsql_free(nm);
        return rsql_error_nomem(err);
    }
    pthread_mutex_init(&r->srv.mu, NULL);
    r->job.name = nm;
    r->job.st = stats;
    r->job.state = "running";
    r->job.srv = &r->srv;
    r->jobs[0] = &r->job;
    r->srv.jobs = r->jobs;
    r->srv.n_jobs = r->srv.cap_jobs = 1;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (serve__http_start(&r->srv, addr, &e) != RSQL_OK) {
        pthread_mutex_destroy(&r->srv.mu);
        rsql_free(nm);
        rsql_free(r);
        return rsql_error_set(err, e.code, RSQL_NOPOS, "http.address '%s': %s", addr, e.msg);
    }
    run_http = r;
    return RSQL_OK;
}

/* See serve_int.h. */
void serve__run_http_end(void *opaque)
{
    (void)opaque;
    run_http_t *r = run_http;
    if (!r) {
        return;
    }
    run_http = NULL;
    serve__http_stop(&r->srv);
    pthread_mutex_destroy(&r->srv.mu);
    rsql_free(r->job.name);
    rsql_free(r);
}

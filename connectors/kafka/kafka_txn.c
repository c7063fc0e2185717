/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * kafka_txn: the kafka sink's exactly-once delivery (sink.delivery-guarantee 'exactly-once'):
 * Kafka transactions that carry the source positions with the rows.
 *
 * The producer's transactional.id is sink.transactional-id-prefix, '-', the pipeline's name
 * (the job's), so a run fences the one before it: init_transactions at open aborts what a
 * killed run left open, and a second process of the same job cannot commit beside it. The
 * runtime's batches are gathered (conn_gather.h) into transactions of up to
 * sink.transaction.max-rows rows; one transaction holds the rows' records and, for each source
 * partition among them, a record of its last position in sink.positions-topic (a compacted
 * topic the sink makes when missing: key "<pipeline>\n<partition>", value the offset in
 * decimal, then a space and the position's text part when it has one). A batch is reported written only once its transaction committed, so the runtime
 * commits no position before Kafka has the rows; after a crash the rows of an open
 * transaction are aborted and never seen by a read_committed consumer, and the next run
 * resumes from the positions read back (read_committed) at open: nothing is lost, nothing
 * shows twice to such a consumer. (A read_uncommitted consumer sees aborted records too.)
 *
 * Failures: a row its format refuses fails alone under errors.tolerance 'all' (the others
 * commit); under 'none' nothing of the transaction commits and the sink refuses every later
 * row (the run stops there). A transaction whose records Kafka refuses is aborted and tried
 * again, whole, as conn_gather does with a transient failure; a fenced producer (another run
 * of the job took over) or another fatal error fails the rows for good.
 *
 * Threads: everything here on the write thread (open, the gatherer's writes and flushes,
 * close); delivery reports come on the sink's poll thread (kafka_sink.c).
 */
#include "config.h"
#include "connectors/kafka/kafka_sink_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "base/rsql_time.h"
#include "connectors/rsql_conn_io.h"

/* The longest a positions key may be: a pipeline and a partition name. */
#define POS_KEY_MAX 1024

/* See kafka_sink_int.h. */
char *rsql_kafka__txn_id(const rsql_kafka_conf_t *c, const char *pipeline)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "%s-%s", c->txn_prefix ? c->txn_prefix : "rocketsql",
                    pipeline && *pipeline ? pipeline : "rocketsql");
    char *id = b.oom ? NULL : rsql_strdup(rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return id;
}

/* An error of a transaction call into err: fatal ones (a fenced producer) are permanent. */
static rsql_err_t txn_error(rsql_sink_t *k, rd_kafka_error_t *te, const char *what,
                            rsql_error_t *err)
{
    bool fenced = rd_kafka_error_code(te) == RD_KAFKA_RESP_ERR__FENCED ||
                  rd_kafka_error_code(te) == RD_KAFKA_RESP_ERR_PRODUCER_FENCED;
    rsql_err_t code = rd_kafka_error_is_fatal(te) || fenced ? RSQL_ERR_REMOTE
                      : rd_kafka_error_is_retriable(te) || rd_kafka_error_txn_requires_abort(te)
                          ? RSQL_ERR_UNAVAILABLE
                          : rsql_kafka__err_code(rd_kafka_error_code(te));
    rsql_error_set(err, code, RSQL_NOPOS, "kafka %s: %s of a transaction on '%s' failed: %s%s",
                   k->where, what, k->topic, rd_kafka_error_string(te),
                   fenced ? " (another run of this job took over its transactional.id)" : "");
    rd_kafka_error_destroy(te);
    return code;
}

/* One positions record: key "<pipeline>\n<partition>", value the position as text (the offset,
   then a space and its text part when it has one: rsql_io_position_text). */
static rsql_err_t put_position(rsql_sink_t *k, const char *partition, int64_t offset,
                               const char *pkey)
{
    char key[POS_KEY_MAX];
    int kl = snprintf(key, sizeof key, "%s\n%s", k->pipeline, partition);
    if (kl < 0 || (size_t)kl >= sizeof key) {
        return RSQL_ERR_TOO_LARGE;
    }
    rsql_buf_t val = RSQL_BUF_INIT;
    rsql_io_position_text(&val, offset, pkey);
    if (val.oom) {
        rsql_buf_deinit(&val);
        return RSQL_ERR_NOMEM;
    }
    for (;;) {
        rd_kafka_resp_err_t e = rd_kafka_producev(
            k->rk, RD_KAFKA_V_RKT(k->pos_rkt), RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_KEY(key, (size_t)kl), RD_KAFKA_V_VALUE(val.data, val.len), RD_KAFKA_V_END);
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rsql_buf_deinit(&val);
            return e == RD_KAFKA_RESP_ERR_NO_ERROR ? RSQL_OK : rsql_kafka__err_code(e);
        }
        rd_kafka_poll(k->rk, 100);
    }
}

static rsql_err_t put_group(void *opaque, const char *const *names, const int64_t *offs,
                            const char *const *keys, int m)
{
    rsql_sink_t *k = opaque;
    rsql_err_t rc = RSQL_OK;
    for (int i = 0; i < m && rc == RSQL_OK; i++) {
        rc = put_position(k, names[i], offs[i], keys[i]);
    }
    return rc;
}

/*
** Wait until every record of p is reported (the poll thread serves them), and free p; after
** twice the transaction timeout (a producer in a fatal state may never report what it held)
** p is left to its last report, which frees it, and writes no result any more.
*/
static void wait_done(rsql_sink_t *k, pending_t *p)
{
    int64_t deadline = rsql_now_ms() + 2 * k->timeout_ms;
    pthread_mutex_lock(&k->mu);
    while (!p->done && rsql_cond_wait_until(&k->cv, &k->mu, deadline) == 0) {
    }
    bool done = p->done;
    if (!done) {
        p->results = NULL;
        p->orphan = true;
    }
    pthread_mutex_unlock(&k->mu);
    if (done) {
        rsql_free(p);
    }
}

/*
** The gatherer's writer (conn_gather.h): rows[0, n) and their positions in one transaction.
** RSQL_OK once it committed (results say row by row what was written); an error when nothing
** was committed.
*/
static rsql_err_t txn_write(void *opaque, int n, const rsql_sink_row_t *rows,
                            rsql_sink_result_t *results, rsql_error_t *err)
{
    rsql_sink_t *k = opaque;
    if (k->poisoned.code != RSQL_OK) {
        rsql_error_copy(err, &k->poisoned);
        return err->code;
    }
    pending_t *p = rsql_kafka__pending_new(k, n, results);
    if (!p) {
        return rsql_error_nomem(err);
    }
    p->txn = true;
    rd_kafka_error_t *te = rd_kafka_begin_transaction(k->rk);
    if (te) {
        rsql_free(p);
        return txn_error(k, te, "the start", err);
    }
    rsql_kafka__put_rows(k, p, rows);
    /* a row refused for good: under 'none' nothing past it may commit */
    int bad = -1;
    pthread_mutex_lock(&k->mu);
    for (int i = 0; i < n && bad < 0; i++) {
        bad = results[i].code != RSQL_OK && !rsql_err_code_retriable(results[i].code) ? i : -1;
    }
    pthread_mutex_unlock(&k->mu);
    rsql_err_t rc = RSQL_OK;
    if (bad >= 0 && !k->tolerate_all) {
        rsql_error_set(&k->poisoned, results[bad].code, RSQL_NOPOS, "kafka %s: %s", k->where,
                       results[bad].msg);
        rsql_error_copy(err, &k->poisoned);
        rc = err->code;
    }
    if (rc == RSQL_OK && rsql_io_positions_each(rows, 0, n, put_group, k) != RSQL_OK) {
        rc = rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                            "kafka %s: cannot queue the positions of a transaction for '%s'",
                            k->where, rd_kafka_topic_name(k->pos_rkt));
    }
    rsql_kafka__release(p);
    if (rc == RSQL_OK && (te = rd_kafka_commit_transaction(k->rk, (int)k->timeout_ms))) {
        rc = txn_error(k, te, "the commit", err);
    }
    if (rc != RSQL_OK && (te = rd_kafka_abort_transaction(k->rk, (int)k->timeout_ms))) {
        rsql_error_t ae;
        rsql_error_clear(&ae);
        txn_error(k, te, "the abort", &ae);
        rsql_log(RSQL_LOG_WARN, "kafka", "%s", ae.msg);
    }
    wait_done(k, p); /* an abort purges what was queued: its reports come too */
    if (rc != RSQL_OK) {
        memset(results, 0, (size_t)n * sizeof *results);
    }
    return rc;
}

/* Make sink.positions-topic when it is missing: one partition, compacted. */
static rsql_err_t ensure_positions_topic(rsql_sink_t *k, const char *topic, rsql_error_t *err)
{
    char why[256] = "";
    rd_kafka_NewTopic_t *nt = rd_kafka_NewTopic_new(topic, 1, -1, why, sizeof why);
    if (!nt) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "kafka %s: sink.positions-topic '%s': %s", k->where, topic, why);
    }
    rd_kafka_NewTopic_set_config(nt, "cleanup.policy", "compact");
    rd_kafka_queue_t *q = rd_kafka_queue_new(k->rk);
    rd_kafka_AdminOptions_t *ao = rd_kafka_AdminOptions_new(k->rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_operation_timeout(ao, (int)k->timeout_ms, why, sizeof why);
    rd_kafka_CreateTopics(k->rk, &nt, 1, ao, q);
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, (int)k->timeout_ms + 2000);
    rd_kafka_resp_err_t e = RD_KAFKA_RESP_ERR__TIMED_OUT;
    const char *msg = "no answer";
    const rd_kafka_CreateTopics_result_t *res = ev ? rd_kafka_event_CreateTopics_result(ev) : NULL;
    if (ev && rd_kafka_event_error(ev)) {
        e = rd_kafka_event_error(ev);
        msg = rd_kafka_event_error_string(ev);
    } else if (res) {
        size_t cnt = 0;
        const rd_kafka_topic_result_t **tr = rd_kafka_CreateTopics_result_topics(res, &cnt);
        e = cnt ? rd_kafka_topic_result_error(tr[0]) : RD_KAFKA_RESP_ERR_NO_ERROR;
        msg = cnt && rd_kafka_topic_result_error_string(tr[0])
                  ? rd_kafka_topic_result_error_string(tr[0])
                  : rd_kafka_err2str(e);
    }
    rsql_err_t rc = RSQL_OK;
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR && e != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS) {
        rc = rsql_error_set(err, rsql_kafka__err_code(e), RSQL_NOPOS,
                            "kafka %s: cannot make sink.positions-topic '%s': %s", k->where,
                            topic, msg);
    }
    if (ev) {
        rd_kafka_event_destroy(ev);
    }
    rd_kafka_AdminOptions_destroy(ao);
    rd_kafka_queue_destroy(q);
    rd_kafka_NewTopic_destroy(nt);
    return rc;
}

/* Set partition's stored position (the last record read of it wins): offset and its text
   part key[0, key_len) (key NULL: none). */
static rsql_err_t pos_set(rsql_sink_t *k, const char *partition, size_t len, int64_t offset,
                          const char *key, size_t key_len)
{
    char *kc = key ? rsql_strndup(key, key_len) : NULL;
    if (key && !kc) {
        return RSQL_ERR_NOMEM;
    }
    for (int i = 0; i < k->n_pos; i++) {
        if (strlen(k->pos[i].partition) == len && memcmp(k->pos[i].partition, partition, len) == 0) {
            k->pos[i].offset = offset;
            rsql_free(k->pos[i].key);
            k->pos[i].key = kc;
            return RSQL_OK;
        }
    }
    rsql_kafka_pos_t *np = rsql_realloc(k->pos, (size_t)(k->n_pos + 1) * sizeof *np);
    if (!np) {
        rsql_free(kc);
        return RSQL_ERR_NOMEM;
    }
    k->pos = np;
    if (!(np[k->n_pos].partition = rsql_strndup(partition, len))) {
        rsql_free(kc);
        return RSQL_ERR_NOMEM;
    }
    np[k->n_pos].key = kc;
    np[k->n_pos++].offset = offset;
    return RSQL_OK;
}

/* One record of the positions topic: this pipeline's keys kept, others skipped. */
static rsql_err_t pos_record(rsql_sink_t *k, const rd_kafka_message_t *m)
{
    size_t pl = strlen(k->pipeline);
    const char *key = m->key;
    if (!key || m->key_len <= pl || memcmp(key, k->pipeline, pl) != 0 || key[pl] != '\n' ||
        !m->payload || m->len == 0) {
        return RSQL_OK;
    }
    int64_t off;
    const char *pkey;
    if (!rsql_io_position_parse(m->payload, m->len, &off, &pkey)) {
        return RSQL_OK; /* not one of ours */
    }
    return pos_set(k, key + pl + 1, m->key_len - pl - 1, off, pkey,
                   pkey ? m->len - (size_t)(pkey - (const char *)m->payload) : 0);
}

/*
** Read the positions topic whole, read_committed, into k->pos: every partition from its
** beginning to its end as it was when the read began.
*/
static rsql_err_t read_positions(rsql_sink_t *k, const rsql_sink_ctx_t *ctx,
                                 const rsql_kafka_conf_t *c, const char *topic, rsql_error_t *err)
{
    static const char *const extra[] = {"isolation.level",      "read_committed",
                                        "enable.partition.eof", "true",
                                        "enable.auto.commit",   "false",
                                        "group.id",             "rocketsql-positions-reader"};
    rd_kafka_conf_t *kc = rsql_kafka__conf_new(c, ctx->opts, extra, 4, &k->box, err);
    if (!kc) {
        return err->code;
    }
    char why[512];
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, why, sizeof why);
    if (!rk) {
        rd_kafka_conf_destroy(kc);
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "kafka: cannot make the positions reader: %s", why);
    }
    int np = 0;
    rsql_err_t rc = rsql_kafka__topic_partitions(rk, c, &k->box, k->where, topic, &np, err);
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(np > 0 ? np : 1);
    for (int i = 0; rc == RSQL_OK && i < np; i++) {
        rd_kafka_topic_partition_list_add(tl, topic, i)->offset = RD_KAFKA_OFFSET_BEGINNING;
    }
    rd_kafka_resp_err_t e = rc == RSQL_OK ? rd_kafka_assign(rk, tl) : RD_KAFKA_RESP_ERR_NO_ERROR;
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rc = rsql_error_set(err, rsql_kafka__err_code(e), RSQL_NOPOS,
                            "kafka %s: cannot read sink.positions-topic '%s': %s", k->where,
                            topic, rd_kafka_err2str(e));
    }
    int at_end = 0;
    int64_t deadline = rsql_now_ms() + 4 * k->timeout_ms;
    while (rc == RSQL_OK && at_end < np) {
        if (rsql_now_ms() > deadline) {
            rc = rsql_error_set(err, RSQL_ERR_TIMEOUT, RSQL_NOPOS,
                                "kafka %s: reading sink.positions-topic '%s' did not reach its "
                                "end in %" PRId64 " ms",
                                k->where, topic, 4 * k->timeout_ms);
            break;
        }
        rd_kafka_message_t *m = rd_kafka_consumer_poll(rk, 200);
        if (!m) {
            continue;
        }
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            at_end++;
        } else if (m->err) {
            rc = rsql_error_set(err, rsql_kafka__err_code(m->err), RSQL_NOPOS,
                                "kafka %s: reading sink.positions-topic '%s': %s", k->where,
                                topic, rd_kafka_message_errstr(m));
        } else if (pos_record(k, m) != RSQL_OK) {
            rc = rsql_error_nomem(err);
        }
        rd_kafka_message_destroy(m);
    }
    rd_kafka_topic_partition_list_destroy(tl);
    rd_kafka_consumer_close(rk);
    rd_kafka_destroy(rk);
    return rc;
}

/* See kafka_sink_int.h. */
rsql_err_t rsql_kafka__txn_open(rsql_sink_t *k, const rsql_sink_ctx_t *ctx,
                                const rsql_kafka_conf_t *c, rsql_error_t *err)
{
    if (ctx->source_own_positions) {
        return rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                              "kafka %s: sink.delivery-guarantee 'exactly-once' stores source "
                              "positions; this source keeps its own (use 'at-least-once')",
                              k->where);
    }
    const char *topic = c->positions_topic ? c->positions_topic : "rocketsql-positions";
    k->timeout_ms = c->timeout_ms > 0 ? c->timeout_ms : 30000;
    k->tolerate_all = ctx->tolerate_all;
    rsql_error_clear(&k->poisoned);
    if (!(k->pipeline = rsql_strdup(ctx->pipeline && *ctx->pipeline ? ctx->pipeline : "rocketsql"))) {
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = ensure_positions_topic(k, topic, err);
    if (rc == RSQL_OK && !(k->pos_rkt = rd_kafka_topic_new(k->rk, topic, NULL))) {
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                            "kafka: bad sink.positions-topic name '%s'", topic);
    }
    rd_kafka_error_t *te = NULL;
    if (rc == RSQL_OK && (te = rd_kafka_init_transactions(k->rk, (int)k->timeout_ms))) {
        rc = txn_error(k, te, "the set-up (init_transactions)", err);
    }
    if (rc == RSQL_OK) {
        rc = read_positions(k, ctx, c, topic, err);
    }
    if (rc == RSQL_OK) {
        rsql_gather_init(&k->g, c->txn_max_rows, 0, k->where, txn_write, k, k->deliver,
                         k->deliver_opaque);
        k->g_ready = true;
    }
    return rc;
}

/* See kafka_sink_int.h. */
rsql_err_t rsql_kafka__txn_positions(rsql_sink_t *k, rsql_position_cb add, void *opaque,
                                     rsql_error_t *err)
{
    for (int i = 0; i < k->n_pos; i++) {
        if (add(opaque, k->pos[i].partition, k->pos[i].offset, k->pos[i].key) != RSQL_OK) {
            return rsql_error_nomem(err);
        }
    }
    return RSQL_OK;
}

/* See kafka_sink_int.h. */
void rsql_kafka__txn_close(rsql_sink_t *k)
{
    if (k->g_ready) {
        rsql_gather_deinit(&k->g);
        k->g_ready = false;
    }
    for (int i = 0; i < k->n_pos; i++) {
        rsql_free(k->pos[i].partition);
        rsql_free(k->pos[i].key);
    }
    rsql_free(k->pos);
    k->pos = NULL;
    k->n_pos = 0;
    rsql_free(k->pipeline);
    k->pipeline = NULL;
}

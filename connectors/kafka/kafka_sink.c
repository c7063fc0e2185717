/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The kafka sink: a librdkafka producer writing one topic. Each row becomes one record: its
 * value the row in the table's format (every column; with value.fields-include 'EXCEPT_KEY'
 * every column but the key's), its key the key.fields columns in key.format (none without
 * them; upsert-kafka: the PRIMARY KEY's columns, and -D or -U is the key's tombstone, a
 * record without a value), its partition by sink.partitioner, its timestamp the
 * 'timestamp' METADATA column when written. sink.delivery-guarantee 'at-least-once' (the
 * default) uses the idempotent producer with acks from every in-sync replica.
 *
 * Delivery: librdkafka reports every record once (its delivery report); a batch's delivery
 * is reported to the runtime, one result per row in row order, when its last record's report
 * came. A dedicated thread serves the reports (rd_kafka_poll), so they flow whether or not
 * rows are being written. A failed record's result carries librdkafka's reason and a code by
 * which the runtime retries it (a timeout, brokers down) or not (a record too large).
 *
 * Start: the topic must exist (the connector never creates one): a missing topic or a cluster
 * that does not answer within connect.timeout fails open with the reason.
 *
 * Threads: open, write, flush, close on the write thread; delivery reports on the sink's
 * poll thread (and on the write thread while a full queue is drained).
 */
#include "config.h"
#include "connectors/kafka/kafka_sink_int.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/rsql_conn_io.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

/* Rows an at-least-once sink lets the runtime keep in flight (kk_gather_rows). */
#define KAFKA_INFLIGHT_ROWS 8192

/* Report p when its last record is in; called with k->mu held. Frees p. */
static void finish0(pending_t *p)
{
    rsql_sink_t *k = p->k;
    if (p->txn && p->orphan) { /* its writer gave up waiting: the last report frees it */
        rsql_free(p);
        return;
    }
    if (p->txn) {
        p->done = true;
        pthread_cond_broadcast(&k->cv);
        return;
    }
    if (!k->closing) {
        k->deliver(k->deliver_opaque, p->batch_id, p->n, p->results);
    }
    rsql_free(p->results);
    rsql_free(p);
}

/* One record's outcome into its batch's results. @locks none (takes k->mu) */
static void record_done(pending_t *p, int row, rd_kafka_resp_err_t e, const char *why,
                        int32_t partition, int64_t offset)
{
    rsql_sink_t *k = p->k;
    pthread_mutex_lock(&k->mu);
    rsql_sink_result_t scratch = {0};
    /* (a transaction's writer that stopped waiting took its results back: kafka_txn.c) */
    rsql_sink_result_t *r = p->results ? &p->results[row] : &scratch;
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
        r->code = RSQL_OK;
        snprintf(r->meta, sizeof r->meta, "partition=%d offset=%lld", (int)partition,
                 (long long)offset);
    } else if (r->code == RSQL_OK) {
        r->code = rsql_kafka__err_code(e);
        snprintf(r->msg, sizeof r->msg, "kafka: topic '%s': %s", k->topic, why);
    }
    if (--p->left == 0) {
        finish0(p);
    }
    pthread_mutex_unlock(&k->mu);
}

/* See kafka_sink_int.h. */
void rsql_kafka__release(pending_t *p)
{
    rsql_sink_t *k = p->k;
    pthread_mutex_lock(&k->mu);
    if (--p->left == 0) {
        finish0(p);
    }
    pthread_mutex_unlock(&k->mu);
}

/* librdkafka's delivery report: once per record. */
static void dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    (void)rk;
    (void)opaque;
    slot_t *s = m->_private;
    if (!s) {
        return;
    }
    record_done(s->p, s->row, m->err, rd_kafka_err2str(m->err), m->partition, m->offset);
}

/* The sink's poll thread: serves delivery reports until stop. */
static void *poll_main(void *arg)
{
    rsql_sink_t *k = arg;
    while (!atomic_load(&k->stop)) {
        rd_kafka_poll(k->rk, 100);
    }
    return NULL;
}

static void kk_close(rsql_sink_t *k)
{
    if (!k) {
        return;
    }
    if (k->rk) {
        /* what was not reported stays unreported (the runtime has not committed it) */
        pthread_mutex_lock(&k->mu);
        k->closing = true;
        pthread_mutex_unlock(&k->mu);
        rd_kafka_purge(k->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    }
    atomic_store(&k->stop, true);
    if (k->thread_started) {
        pthread_join(k->thread, NULL);
    }
    if (k->rk) {
        rd_kafka_flush(k->rk, 1000); /* serves the purged records' reports: frees their batches */
    }
    if (k->rkt) {
        rd_kafka_topic_destroy(k->rkt);
    }
    if (k->pos_rkt) {
        rd_kafka_topic_destroy(k->pos_rkt);
    }
    if (k->rk) {
        rd_kafka_destroy(k->rk);
    }
    rsql_kafka__txn_close(k);
    rsql_encoder_destroy(k->enc);
    rsql_encoder_destroy(k->key_enc);
    rsql_buf_deinit(&k->buf);
    rsql_buf_deinit(&k->kbuf);
    rsql_free(k->key_cols);
    rsql_free(k->key_row);
    rsql_free(k->val_cols);
    rsql_free(k->val_row);
    rsql_free(k->topic);
    pthread_mutex_destroy(&k->mu);
    pthread_cond_destroy(&k->cv);
    pthread_mutex_destroy(&k->box.mu);
    rsql_free(k);
}

/*
** key.fields: the columns' indexes and an encoder of them in key.format; with EXCEPT_KEY the
** value's columns (the others) and its encoder, else the value's encoder of every column.
*/
static rsql_err_t open_key(rsql_sink_t *k, const rsql_sink_ctx_t *ctx, const rsql_kafka_conf_t *c,
                           rsql_error_t *err)
{
    int n = ctx->n_columns;
    const char **names = rsql_calloc((size_t)n + RSQL_KAFKA_MAX_KEY, sizeof *names);
    rsql_type_t *types = rsql_calloc((size_t)n + RSQL_KAFKA_MAX_KEY, sizeof *types);
    k->key_cols = rsql_calloc(RSQL_KAFKA_MAX_KEY, sizeof *k->key_cols);
    k->key_row = rsql_calloc(RSQL_KAFKA_MAX_KEY, sizeof *k->key_row);
    k->val_cols = rsql_calloc((size_t)n + 1, sizeof *k->val_cols);
    k->val_row = rsql_calloc((size_t)n + 1, sizeof *k->val_row);
    rsql_err_t rc = RSQL_OK;
    if (!names || !types || !k->key_cols || !k->key_row || !k->val_cols || !k->val_row) {
        rc = rsql_error_nomem(err);
    }
    if (rc == RSQL_OK && c->upsert) {
        if (ctx->n_key <= 0 || ctx->n_key > RSQL_KAFKA_MAX_KEY) {
            rc = rsql_error_set(err, RSQL_ERR_SEMANTIC, RSQL_NOPOS,
                                "upsert-kafka %s: the table needs a PRIMARY KEY (...) NOT "
                                "ENFORCED: the record key", k->where);
        }
        for (int i = 0; rc == RSQL_OK && i < ctx->n_key; i++) {
            k->key_cols[k->n_key++] = ctx->key_columns[i];
        }
    } else if (rc == RSQL_OK && c->key_fields) {
        k->n_key = rsql_kafka__key_columns(c->key_fields, n, ctx->column_names, k->key_cols, err);
        rc = k->n_key < 0 ? err->code : RSQL_OK;
    }
    for (int i = 0; rc == RSQL_OK && i < k->n_key; i++) {
        names[i] = ctx->column_names[k->key_cols[i]];
        types[i] = ctx->column_types[k->key_cols[i]];
    }
    if (rc == RSQL_OK && k->n_key > 0) {
        k->key_enc = rsql_encoder_new(rsql_kafka_formats[c->key_format], NULL, k->n_key, names,
                                      types, err);
        rc = k->key_enc ? RSQL_OK : err->code;
    }
    if (rc == RSQL_OK && c->fields_include == RSQL_KAFKA_FI_EXCEPT_KEY) {
        for (int i = 0; i < n; i++) {
            bool in_key = false;
            for (int j = 0; j < k->n_key; j++) {
                in_key |= k->key_cols[j] == i;
            }
            if (!in_key) {
                names[k->n_val] = ctx->column_names[i];
                types[k->n_val] = ctx->column_types[i];
                k->val_cols[k->n_val++] = i;
            }
        }
        k->enc = rsql_encoder_new(c->format_name, ctx->format_conf, k->n_val, names, types, err);
    } else if (rc == RSQL_OK) {
        k->enc = rsql_encoder_new(c->format_name, ctx->format_conf, n, ctx->column_names,
                                  ctx->column_types, err);
    }
    if (rc == RSQL_OK && !k->enc) {
        rc = err->code;
    }
    rsql_free(names);
    rsql_free(types);
    return rc;
}

static rsql_err_t kk_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    const rsql_kafka_conf_t *c = ctx->conf;
    if (!c->topic) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, RSQL_NOPOS,
                              "kafka sink table '%s': a sink writes the one topic of option "
                              "'topic' (topic-pattern is for reading)", ctx->table);
    }
    if (strchr(c->topic, ';')) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "kafka sink table '%s': a sink writes one topic; option 'topic' is "
                              "'%s'", ctx->table, c->topic);
    }
    rsql_sink_t *k = rsql_calloc(1, sizeof *k);
    if (!k) {
        return rsql_error_nomem(err);
    }
    pthread_mutex_init(&k->box.mu, NULL);
    snprintf(k->where, sizeof k->where, "sink table '%.120s'", ctx->table ? ctx->table : "?");
    pthread_mutex_init(&k->mu, NULL);
    rsql_cond_init_monotonic(&k->cv);
    rsql_buf_init(&k->buf);
    rsql_buf_init(&k->kbuf);
    k->deliver = ctx->deliver;
    k->deliver_opaque = ctx->deliver_opaque;
    k->partitioner = c->partitioner;
    k->upsert = c->upsert;
    k->ts_meta = -1;
    k->hdr_meta = -1;
    for (int i = 0; i < ctx->n_meta; i++) {
        if (strcasecmp(ctx->meta_keys[i], "timestamp") == 0) {
            k->ts_meta = ctx->n_columns + i;
        } else if (strcasecmp(ctx->meta_keys[i], "headers") == 0) {
            k->hdr_meta = ctx->n_columns + i;
        }
    }
    k->topic = rsql_strdup(c->topic);
    rsql_err_t rc = k->topic ? RSQL_OK : rsql_error_nomem(err);

    bool none = c->guarantee == RSQL_KAFKA_DG_NONE;
    k->eos = c->guarantee == RSQL_KAFKA_DG_EXACTLY_ONCE;
    char *txn_id = NULL;
    if (rc == RSQL_OK && k->eos && !(txn_id = rsql_kafka__txn_id(c, ctx->pipeline))) {
        rc = rsql_error_nomem(err);
    }
    const char *extra[] = {"enable.idempotence", none ? "false" : "true",
                           "acks", none ? "1" : "all",
                           /* Kafka's Java producer's hash, so keys land where Java puts them */
                           "partitioner", "murmur2_random",
                           /* exactly-once: this pipeline's transactional producer */
                           "transactional.id", txn_id};
    rd_kafka_conf_t *kc = NULL;
    if (rc == RSQL_OK) {
        kc = rsql_kafka__conf_new(c, ctx->opts, extra, k->eos ? 4 : 3, &k->box, err);
        rc = kc ? RSQL_OK : err->code;
    }
    rsql_free(txn_id);
    char why[512];
    if (rc == RSQL_OK) {
        rd_kafka_conf_set_dr_msg_cb(kc, dr_cb);
        if (!(k->rk = rd_kafka_new(RD_KAFKA_PRODUCER, kc, why, sizeof why))) {
            rd_kafka_conf_destroy(kc);
            rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                                "kafka: cannot make the producer: %s", why);
        }
    }
    if (rc == RSQL_OK) {
        rc = rsql_kafka__topic_partitions(k->rk, c, &k->box, k->where, k->topic,
                                          &k->n_partitions, err);
    }
    if (rc == RSQL_OK && !(k->rkt = rd_kafka_topic_new(k->rk, k->topic, NULL))) {
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS, "kafka: bad topic name '%s'",
                            k->topic);
    }
    if (rc == RSQL_OK) {
        rc = open_key(k, ctx, c, err);
    }
    if (rc == RSQL_OK) {
        if (pthread_create(&k->thread, NULL, poll_main, k) != 0) {
            rc = rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                                "kafka: cannot start the delivery thread");
        } else {
            k->thread_started = true;
        }
    }
    if (rc == RSQL_OK && k->eos) {
        rc = rsql_kafka__txn_open(k, ctx, c, err);
    }
    if (rc != RSQL_OK) {
        kk_close(k);
        return rc;
    }
    *out = k;
    return RSQL_OK;
}

/* The partition of the next record (RD_KAFKA_PARTITION_UA: by the key's hash). */
static int32_t pick_partition(rsql_sink_t *k)
{
    switch (k->partitioner) {
    case RSQL_KAFKA_PART_FIXED:
        return 0;
    case RSQL_KAFKA_PART_ROUND_ROBIN:
        return (int32_t)(k->next_partition++ % (uint32_t)k->n_partitions);
    default:
        return RD_KAFKA_PARTITION_UA;
    }
}

/*
** The headers of a 'headers' METADATA value (a MAP of names to BYTES or strings; a NULL value
** is a header without one), or NULL for none. Caller owns them (librdkafka once it takes the
** record).
*/
static rd_kafka_headers_t *headers_of(const rsql_value_t *v)
{
    if (v->is_null || v->type != RSQL_TYPE_MAP || !v->v.c || v->v.c->n == 0) {
        return NULL;
    }
    const rsql_composite_t *c = v->v.c;
    rd_kafka_headers_t *hdrs = rd_kafka_headers_new(c->n);
    for (uint32_t i = 0; hdrs && i < c->n; i++) {
        const rsql_value_t *name = &c->items[2 * i], *val = &c->items[2 * i + 1];
        bool null = val->is_null || val->type == RSQL_TYPE_NULL;
        rd_kafka_header_add(hdrs, name->v.s.p, (ssize_t)name->v.s.len, null ? NULL : val->v.s.p,
                            null ? 0 : (ssize_t)val->v.s.len);
    }
    return hdrs;
}

/* Hand one encoded record to librdkafka, waiting while its queue is full. */
static rd_kafka_resp_err_t produce(rsql_sink_t *k, const rsql_sink_row_t *row, slot_t *slot)
{
    int64_t ts = 0;
    if (k->ts_meta >= 0 && !row->values[k->ts_meta].is_null &&
        row->values[k->ts_meta].type != RSQL_TYPE_NULL) {
        ts = row->values[k->ts_meta].v.ts;
    }
    int32_t part = pick_partition(k);
    for (;;) {
        /* headers: a new set per attempt (librdkafka takes it only when the record is taken) */
        rd_kafka_headers_t *hdrs = NULL;
        if (k->hdr_meta >= 0) {
            hdrs = headers_of(&row->values[k->hdr_meta]);
        }
        rd_kafka_resp_err_t e = rd_kafka_producev(
            k->rk, RD_KAFKA_V_RKT(k->rkt), RD_KAFKA_V_PARTITION(part),
            RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY),
            RD_KAFKA_V_VALUE(k->buf.len ? k->buf.data : NULL, k->buf.len),
            RD_KAFKA_V_KEY(k->key_enc ? k->kbuf.data : NULL, k->key_enc ? k->kbuf.len : 0),
            RD_KAFKA_V_TIMESTAMP(ts), RD_KAFKA_V_HEADERS(hdrs), RD_KAFKA_V_OPAQUE(slot),
            RD_KAFKA_V_END);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR && hdrs) {
            rd_kafka_headers_destroy(hdrs);
        }
        if (e != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            return e;
        }
        rd_kafka_poll(k->rk, 100); /* room comes as reports are served */
    }
}

/* See kafka_sink_int.h. */
pending_t *rsql_kafka__pending_new(rsql_sink_t *k, int n, rsql_sink_result_t *results)
{
    pending_t *p = rsql_calloc(1, sizeof *p + sizeof(slot_t) * (size_t)(n > 0 ? n : 1));
    if (p) {
        p->k = k;
        p->n = n;
        p->results = results;
        p->left = n + 1; /* + 1: held until every row is handed over */
    }
    return p;
}

/* See kafka_sink_int.h. */
void rsql_kafka__put_rows(rsql_sink_t *k, pending_t *p, const rsql_sink_row_t *rows)
{
    rsql_sink_result_t *results = p->results;
    slot_t *slots = (slot_t *)(p + 1);
    int n = p->n;
    rsql_error_t ebuf;
    rsql_error_t *err = &ebuf;
    rsql_error_clear(err);
    for (int i = 0; i < n; i++) {
        slots[i] = (slot_t){p, i};
        rsql_buf_reset(&k->buf);
        rsql_sink_result_t refused = {0};
        const rsql_value_t *val = rows[i].values;
        if (k->n_val > 0) { /* EXCEPT_KEY: the value without the key's columns */
            for (int c = 0; c < k->n_val; c++) {
                k->val_row[c] = rows[i].values[k->val_cols[c]];
            }
            val = k->val_row;
        }
        rsql_err_t rc = RSQL_OK;
        uint8_t kind = rows[i].kind;
        if (k->upsert && kind == RSQL_ROW_CLEAR) {
            refused.code = RSQL_ERR_UNSUPPORTED;
            snprintf(refused.msg, sizeof refused.msg,
                     "upsert-kafka: a TRUNCATE (every row gone) has no record to write");
            rc = refused.code;
        } else if (!k->upsert || (kind != RSQL_ROW_DELETE && kind != RSQL_ROW_UPDATE_BEFORE)) {
            /* upsert-kafka: -D and -U delete the key (a tombstone: no value); the planner
               leaves out the -U a +U of the same key replaces anyway */
            rc = rsql_io_encode_change(k->enc, val, k->upsert ? RSQL_ROW_INSERT : kind, &k->buf,
                                       0, &refused, err);
        }
        if (rc == RSQL_OK && k->key_enc) {
            for (int c = 0; c < k->n_key; c++) {
                k->key_row[c] = rows[i].values[k->key_cols[c]];
            }
            rsql_buf_reset(&k->kbuf);
            rsql_error_t kerr = {0};
            rc = rsql_encode(k->key_enc, k->key_row, &k->kbuf, &kerr);
            if (rc == RSQL_OK && k->kbuf.oom) {
                rc = RSQL_ERR_NOMEM;
            }
            if (rc != RSQL_OK && rc != RSQL_ERR_NOMEM) {
                snprintf(refused.msg, sizeof refused.msg, "key.fields: %.200s", kerr.msg);
                refused.code = rc;
            }
        }
        if (rc == RSQL_ERR_NOMEM) {
            /* rows handed over already are reported; the rest fail with it */
            for (int j = i; j < n; j++) {
                record_done(p, j, RD_KAFKA_RESP_ERR__FAIL, "out of memory", -1, -1);
            }
            break;
        }
        if (rc != RSQL_OK) { /* the format refused this row: its own failure */
            pthread_mutex_lock(&k->mu);
            results[i] = refused;
            if (results[i].code == RSQL_OK) {
                results[i].code = rc;
            }
            pthread_mutex_unlock(&k->mu);
            record_done(p, i, RD_KAFKA_RESP_ERR__FAIL, refused.msg, -1, -1);
            continue;
        }
        rd_kafka_resp_err_t e = produce(k, &rows[i], &slots[i]);
        if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
            record_done(p, i, e, rd_kafka_err2str(e), -1, -1);
        }
    }
}

static rsql_err_t kk_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                           rsql_error_t *err)
{
    if (k->eos) { /* gathered into transactions (kafka_txn.c) */
        return rsql_gather_write(&k->g, batch_id, n, rows, err);
    }
    rsql_sink_result_t *results = rsql_calloc((size_t)(n > 0 ? n : 1), sizeof *results);
    pending_t *p = results ? rsql_kafka__pending_new(k, n, results) : NULL;
    if (!p) {
        rsql_free(results);
        return rsql_error_nomem(err);
    }
    p->batch_id = batch_id;
    rsql_kafka__put_rows(k, p, rows);
    rsql_kafka__release(p); /* the hold above */
    return RSQL_OK;
}

static rsql_err_t kk_flush(rsql_sink_t *k, int timeout_ms, rsql_error_t *err)
{
    if (k->eos) {
        return rsql_gather_flush(&k->g, err);
    }
    rd_kafka_resp_err_t e = rd_kafka_flush(k->rk, timeout_ms);
    if (e == RD_KAFKA_RESP_ERR__TIMED_OUT) {
        return rsql_error_set(err, RSQL_ERR_TIMEOUT, RSQL_NOPOS,
                              "kafka: %d records to '%s' not acknowledged yet",
                              rd_kafka_outq_len(k->rk), k->topic);
    }
    return RSQL_OK;
}

static rsql_err_t kk_stored_positions(rsql_sink_t *k, rsql_position_cb add, void *opaque,
                                      rsql_error_t *err)
{
    return k->eos ? rsql_kafka__txn_positions(k, add, opaque, err) : RSQL_OK;
}

/*
** sink.transaction.max-rows when exactly-once; else KAFKA_INFLIGHT_ROWS: the producer reports
** a record once the brokers have it (a few ms after it is queued, its batch lingers first), so
** the runtime's default bound of rows in flight would leave it waiting on its reports.
*/
static int kk_gather_rows(const void *conf)
{
    const rsql_kafka_conf_t *c = conf;
    return c && c->guarantee == RSQL_KAFKA_DG_EXACTLY_ONCE ? rsql_gather_rows(c->txn_max_rows)
                                                           : KAFKA_INFLIGHT_ROWS;
}

const rsql_sink_ops_t rsql_kafka_sink_ops = {
    .open = kk_open,
    .write = kk_write,
    .flush = kk_flush,
    .stored_positions = kk_stored_positions,
    .close = kk_close,
    .gather_rows = kk_gather_rows,
};

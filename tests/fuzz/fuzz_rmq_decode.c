/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_rmq_decode: bytes from a RocketMQ proxy through the client's decoders: a
 * ReceiveMessageResponse stream element or a bare Message (with its system and user
 * properties, and a body that may be gzip/zlib compressed) into the client's message struct
 * (rsql_rmq_msg_t), the unary responses, the QueryRoute response, a Telemetry command, and
 * inflate on its own. A decoded message must be what its consumers (the source's poll, the
 * sink's forward to a dead-letter queue) may use without checks: every string the struct
 * does not document as nullable is non-NULL, the body is NUL-terminated.
 *
 * Written against the decoding entry points of rmq_int.h only (rsql_rmq__dec_*,
 * rsql_rmq__inflate), so that it survives a reshuffle of the files behind them. Input: byte
 * 0 picks the decoder (and byte 1 the RPC for the unary responses); the rest is the wire
 * bytes. tests/fuzz/mkseeds_rmq.py writes the seed corpus.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_mem.h"
#include "rmqclient/rmq_client.h"
#include "rmqclient/rmq_int.h"

static const char endpoint[] = "127.0.0.1:8081";
/* source.max-body-size for the decoders: small, so the over-limit paths are reached too */
#define FZ_MAX_BODY (64u * 1024)

/* What rs_poll and the dead-letter forward read without a NULL check. */
static void check_msg(const rsql_rmq_msg_t *m)
{
    FZ_CHECK(m->topic, "message without topic string");
    FZ_CHECK(m->message_id, "message without message_id string (no system_properties?)");
    FZ_CHECK(m->endpoint && strcmp(m->endpoint, endpoint) == 0, "endpoint not kept");
    FZ_CHECK(m->body && m->body[m->body_len] == '\0', "body missing or not NUL-terminated");
    size_t total = strlen(m->topic) + strlen(m->message_id);
    for (size_t i = 0; i < m->n_keys; i++) {
        FZ_CHECK(m->keys[i], "key %zu is NULL", i);
        total += strlen(m->keys[i]);
    }
    for (size_t i = 0; i < m->n_props; i++) {
        FZ_CHECK(m->props[i].key && m->props[i].value, "property %zu has a NULL side", i);
        total += strlen(m->props[i].key) + strlen(m->props[i].value);
    }
    total += m->receipt_handle ? strlen(m->receipt_handle) : 0;
    total += m->lite_topic ? strlen(m->lite_topic) : 0;
    total += m->message_group ? strlen(m->message_group) : 0;
    total += m->tag ? strlen(m->tag) : 0;
    (void)total;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    uint8_t which = fz_byte(&r) % 6;
    uint8_t rpc = which == 2 ? fz_byte(&r) : 0;
    rsql_error_t err;
    rsql_error_clear(&err);
    switch (which) {
    case 0: {
        rmq_recv_elem_t e;
        if (rsql_rmq__dec_receive(r.p, r.n, endpoint, FZ_MAX_BODY, &e, &err) == RSQL_OK) {
            if (e.kind == RMQ_RECV_MESSAGE) {
                FZ_CHECK(e.msg, "a MESSAGE element without its message");
                check_msg(e.msg);
            }
        } else {
            FZ_CHECK(err.code == RSQL_ERR_DECODE, "receive: %s: %s", rsql_err_name(err.code),
                     err.msg);
        }
        rsql_rmq_msg_destroy(e.msg);
        rsql_free(e.message);
        break;
    }
    case 1: {
        rsql_rmq_msg_t *m = rsql_rmq__dec_message(r.p, r.n, endpoint, FZ_MAX_BODY, &err);
        if (m) {
            check_msg(m);
        } else {
            FZ_CHECK(err.code == RSQL_ERR_DECODE, "message: %s: %s", rsql_err_name(err.code),
                     err.msg);
        }
        rsql_rmq_msg_destroy(m);
        break;
    }
    case 2: {
        rmq_resp_t resp;
        memset(&resp, 0, sizeof resp);
        rsql_rmq__dec_resp(rpc % RMQ_RPC__COUNT, r.p, r.n, &resp, &err);
        for (size_t i = 0; i < resp.n_send; i++) {
            FZ_CHECK(resp.send[i].message_id, "send entry without message id");
        }
        rsql_rmq__resp_deinit(&resp);
        break;
    }
    case 3: {
        int32_t code = 0;
        char *message = NULL;
        rmq_route_t route;
        memset(&route, 0, sizeof route);
        if (rsql_rmq__dec_query_route(r.p, r.n, &code, &message, &route, &err) == RSQL_OK) {
            for (size_t i = 0; i < route.n_queues; i++) {
                /* broker_name may be NULL (no broker): its users check */
                FZ_CHECK(route.queues[i].topic, "queue %zu without topic", i);
            }
        }
        rsql_rmq__route_deinit(&route);
        rsql_free(message);
        break;
    }
    case 4: {
        rmq_tcmd_t t;
        rsql_rmq__dec_telemetry(r.p, r.n, &t, &err);
        rsql_rmq__tcmd_deinit(&t);
        break;
    }
    default: {
        uint8_t *out = NULL;
        size_t len = 0;
        rsql_error_clear(&err);
        if (rsql_rmq__inflate(r.p, r.n, FZ_MAX_BODY, &out, &len, &err) == RSQL_OK) {
            FZ_CHECK(out && out[len] == '\0', "inflated body not NUL-terminated");
            FZ_CHECK(len <= FZ_MAX_BODY, "inflated past its limit: %zu bytes", len);
        } else {
            FZ_CHECK(err.code == RSQL_ERR_DECODE || err.code == RSQL_ERR_TOO_LARGE ||
                         err.code == RSQL_ERR_NOMEM,
                     "inflate: %s: %s", rsql_err_name(err.code), err.msg);
        }
        rsql_free(out);
        break;
    }
    }
    return 0;
}

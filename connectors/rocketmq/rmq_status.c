/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_status: RocketMQ Status.code and gRPC status → rsql_error_t. 20000 is OK; 429xx, 5xxxx
 * and REQUEST_TIMEOUT are retriable; any other code is not. The original RocketMQ code is kept
 * in err->remote_code, and messages read "RocketMQ TOPIC_NOT_FOUND (40402): <server message>".
 * It owns the name table (made from RSQL_RMQ_CODE_MAP of rmq_client.h, where every code is
 * declared) and the rules code → rsql code and retriable. It must not declare codes of its own,
 * see gRPC or protobuf-c headers (gRPC codes arrive as ints) or keep any state.
 */
#include "config.h"

#include <stddef.h>

#include "connectors/rocketmq/rmq_int.h"

static const struct {
    int32_t code;
    const char *name;
} codes[] = {
#define RMQ_CODE_ROW(name, number) {number, #name},
    RSQL_RMQ_CODE_MAP(RMQ_CODE_ROW)
#undef RMQ_CODE_ROW
};

/* The protocol name of code (static string), "UNKNOWN" when not in the table. */
const char *rsql_rmq_code_name(int32_t code)
{
    for (size_t i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
        if (codes[i].code == code) {
            return codes[i].name;
        }
    }
    return "UNKNOWN";
}

/* True for codes where the same request may succeed later. */
bool rsql_rmq_code_retriable(int32_t code)
{
    return (code >= RSQL_RMQ_CODE_THROTTLED_MIN && code < RSQL_RMQ_CODE_THROTTLED_END) ||
           (code >= RSQL_RMQ_CODE_SERVER_MIN && code < RSQL_RMQ_CODE_SERVER_END) ||
           code == RSQL_RMQ_CODE_REQUEST_TIMEOUT;
}

static void set_extra(rsql_error_t *err, bool fresh, unsigned flags, int32_t remote)
{
    if (err && fresh) {
        err->flags = flags;
        err->remote_code = remote;
    }
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__status_error(int32_t code, const char *msg, rsql_error_t *err)
{
    if (code == RSQL_RMQ_CODE_OK) {
        return RSQL_OK;
    }
    bool retry = rsql_rmq_code_retriable(code);
    rsql_err_t rc = RSQL_ERR_REMOTE;
    if (code >= RSQL_RMQ_CODE_THROTTLED_MIN && code < RSQL_RMQ_CODE_THROTTLED_END) {
        rc = RSQL_ERR_BUSY;
    } else if (code == RSQL_RMQ_CODE_REQUEST_TIMEOUT || code == RSQL_RMQ_CODE_PROXY_TIMEOUT ||
               code == RSQL_RMQ_CODE_MASTER_PERSISTENCE_TIMEOUT ||
               code == RSQL_RMQ_CODE_SLAVE_PERSISTENCE_TIMEOUT) {
        rc = RSQL_ERR_TIMEOUT;
    } else if (retry) {
        rc = RSQL_ERR_UNAVAILABLE;
    }
    /* one line: the proxy's messages carry newlines (exception text, FAQ links) */
    char line[400];
    size_t n = 0;
    for (const char *p = msg ? msg : ""; *p && n < sizeof(line) - 1; p++) {
        char ch = (*p == '\n' || *p == '\r' || *p == '\t') ? ' ' : *p;
        if (ch == ' ' && (n == 0 || line[n - 1] == ' ')) {
            continue;
        }
        line[n++] = ch;
    }
    while (n > 0 && line[n - 1] == ' ') {
        n--;
    }
    line[n] = '\0';
    bool fresh = err && err->code == RSQL_OK;
    rsql_error_set(err, rc, RSQL_NOPOS, "RocketMQ %s (%d): %s", rsql_rmq_code_name(code),
                   (int)code, n ? line : "(no message)");
    set_extra(err, fresh, retry ? RSQL_EF_RETRY : 0, code);
    return rc;
}

static const char *const grpc_names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
};

/* See rmq_int.h. */
rsql_err_t rsql_rmq__grpc_error(int grpc_code, const char *details, const char *what,
                                rsql_error_t *err)
{
    if (grpc_code == 0) {
        return RSQL_OK;
    }
    const char *name = grpc_code > 0 && grpc_code <= 16 ? grpc_names[grpc_code] : "UNKNOWN";
    rsql_err_t rc = RSQL_ERR_REMOTE;
    bool retry = false;
    switch (grpc_code) {
    case 1: /* CANCELLED */
        rc = RSQL_ERR_INTERRUPTED;
        break;
    case 4: /* DEADLINE_EXCEEDED */
        rc = RSQL_ERR_TIMEOUT;
        retry = true;
        break;
    case 8: /* RESOURCE_EXHAUSTED */
        rc = RSQL_ERR_BUSY;
        retry = true;
        break;
    case 10: /* ABORTED */
    case 13: /* INTERNAL */
    case 14: /* UNAVAILABLE */
        rc = RSQL_ERR_UNAVAILABLE;
        retry = true;
        break;
    default:
        break;
    }
    bool fresh = err && err->code == RSQL_OK;
    rsql_error_set(err, rc, RSQL_NOPOS, "gRPC %s (%d): %s%s%s%s", name, grpc_code,
                   details && *details ? details : "(no details)", what ? " [" : "",
                   what ? what : "", what ? "]" : "");
    set_extra(err, fresh, retry ? RSQL_EF_RETRY : 0, 0);
    return rc;
}

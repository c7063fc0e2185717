/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_status: RocketMQ Status.code and gRPC status → rsql_error_t, the one place that says
 * which statuses are transient. 20000 is OK. Transient (a transient rsql code, so
 * rsql_error_retriable() is true): 429xx (flow control, too many requests: BUSY), REQUEST_TIMEOUT
 * and the 504xx persistence timeouts (TIMEOUT), ILLEGAL_POLLING_TIME (TIMEOUT: this client asks
 * for a deadline of the long poll plus the request timeout, so the proxy says it only when the
 * call spent its deadline before reaching it, e.g. waiting for the channel to reconnect), every
 * other 5xxxx (UNAVAILABLE). Permanent:
 * every other 4xxxx (401/403 PERMISSION, 404xx NOT_FOUND, 413xx/431xx TOO_LARGE, the rest
 * REMOTE) and anything unknown. gRPC: DEADLINE_EXCEEDED (TIMEOUT), RESOURCE_EXHAUSTED (BUSY,
 * unless it is a message over gRPC's size limit: TOO_LARGE), ABORTED/INTERNAL/UNAVAILABLE
 * (UNAVAILABLE) are transient, except an UNAVAILABLE that is TLS refusing the server's
 * certificate (PERMISSION); CANCELLED is INTERRUPTED; PERMISSION_DENIED/UNAUTHENTICATED
 * (PERMISSION), NOT_FOUND and the rest are permanent. A status saying the proxy has no Settings
 * for the client (rsql_rmq_settings_missing) is transient whatever its code. The original
 * RocketMQ code is kept in err->remote_code, and messages read "RocketMQ TOPIC_NOT_FOUND (40402): <server message>".
 * It owns the name table (made from RSQL_RMQ_CODE_MAP of rmq_client.h, where every code is
 * declared) and the rules code → rsql code. It must not declare codes of its own, see gRPC or
 * protobuf-c headers (gRPC codes arrive as ints) or keep any state.
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include "rmqclient/rmq_int.h"

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

/* The rsql code of a (non-OK) RocketMQ status: its class is the status's class. */
static rsql_err_t status_code(int32_t code)
{
    if (code >= RSQL_RMQ_CODE_THROTTLED_MIN && code < RSQL_RMQ_CODE_THROTTLED_END) {
        return RSQL_ERR_BUSY;
    }
    if (code == RSQL_RMQ_CODE_REQUEST_TIMEOUT || code == RSQL_RMQ_CODE_ILLEGAL_POLLING_TIME ||
        (code >= RSQL_RMQ_CODE_PROXY_TIMEOUT && code < RSQL_RMQ_CODE_PROXY_TIMEOUT + 100)) {
        return RSQL_ERR_TIMEOUT;
    }
    if (code >= RSQL_RMQ_CODE_SERVER_MIN && code < RSQL_RMQ_CODE_SERVER_END) {
        return RSQL_ERR_UNAVAILABLE;
    }
    if (code == RSQL_RMQ_CODE_UNAUTHORIZED || code == RSQL_RMQ_CODE_FORBIDDEN) {
        return RSQL_ERR_PERMISSION;
    }
    if (code >= RSQL_RMQ_CODE_NOT_FOUND && code < RSQL_RMQ_CODE_NOT_FOUND + 100) {
        return RSQL_ERR_NOT_FOUND;
    }
    if ((code >= RSQL_RMQ_CODE_PAYLOAD_TOO_LARGE && code < RSQL_RMQ_CODE_PAYLOAD_TOO_LARGE + 100) ||
        (code >= RSQL_RMQ_CODE_REQUEST_HEADER_FIELDS_TOO_LARGE &&
         code < RSQL_RMQ_CODE_REQUEST_HEADER_FIELDS_TOO_LARGE + 100)) {
        return RSQL_ERR_TOO_LARGE;
    }
    return RSQL_ERR_REMOTE;
}

/* True for codes where the same request may succeed later (the class of status_code). */
bool rsql_rmq_code_retriable(int32_t code)
{
    return code != RSQL_RMQ_CODE_OK && rsql_err_code_retriable(status_code(code));
}

static void set_remote(rsql_error_t *err, bool fresh, int32_t remote)
{
    if (err && fresh) {
        err->remote_code = remote;
    }
}

/* See rmq_int.h. */
bool rsql_rmq_settings_missing(int32_t code, const char *msg)
{
    if (!msg) {
        return false;
    }
    return (code == RSQL_RMQ_CODE_INTERNAL_SERVER_ERROR &&
            (strstr(msg, "\"settings\" is null") || strstr(msg, "\"this.channel\" is null"))) ||
           (code == RSQL_RMQ_CODE_UNRECOGNIZED_CLIENT_TYPE &&
            strstr(msg, "cannot find client settings"));
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__status_error(int32_t code, const char *msg, rsql_error_t *err)
{
    if (code == RSQL_RMQ_CODE_OK) {
        return RSQL_OK;
    }
    /* the proxy lost our Settings (restart, its scan of unused settings): the client re-sends
       them (rsql_rmq__tele_settings_lost), so the same request succeeds later */
    rsql_err_t rc = rsql_rmq_settings_missing(code, msg) ? RSQL_ERR_UNAVAILABLE : status_code(code);
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
    set_remote(err, fresh, code);
    return rc;
}

static const char *const grpc_names[] = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
};

/*
** A connection that failed because TLS refused the server's certificate: not trusted (its
** chain), or without the name asked for. Both are permanent: retrying gets the same
** certificate. grpc (1.51) reports them as UNAVAILABLE with these texts in the details.
** (A client certificate the server refuses reaches the client only as a closed socket.)
*/
static rsql_err_t tls_refusal(const char *details, const char *what, rsql_error_t *err)
{
    const char *peer = strstr(details, "Peer name ");
    const char *tail = peer ? strstr(peer, " is not in peer certificate") : NULL;
    if (tail) {
        const char *name = peer + strlen("Peer name ");
        return rsql_error_set(err, RSQL_ERR_PERMISSION, RSQL_NOPOS,
                              "TLS: the server's certificate does not hold the name '%.*s' "
                              "(set tls.server-name to a name it holds) [%s]",
                              (int)(tail - name > 200 ? 200 : tail - name), name,
                              what ? what : "connect");
    }
    if (strstr(details, "certificate verify failed") || strstr(details, "CERTIFICATE_VERIFY")) {
        return rsql_error_set(err, RSQL_ERR_PERMISSION, RSQL_NOPOS,
                              "TLS: the server's certificate is not trusted (it does not chain to "
                              "tls.ca-file, or to gRPC's default roots without it): %s [%s]",
                              details, what ? what : "connect");
    }
    return RSQL_OK;
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__grpc_error(int grpc_code, const char *details, const char *what,
                                rsql_error_t *err)
{
    if (grpc_code == 0) {
        return RSQL_OK;
    }
    if (grpc_code == 14 && details) {
        rsql_error_t local;
        rsql_error_clear(&local);
        if (tls_refusal(details, what, &local) != RSQL_OK) {
            if (err && err->code == RSQL_OK) {
                rsql_error_copy(err, &local);
            }
            return local.code;
        }
    }
    const char *name = grpc_code > 0 && grpc_code <= 16 ? grpc_names[grpc_code] : "UNKNOWN";
    rsql_err_t rc = RSQL_ERR_REMOTE;
    switch (grpc_code) {
    case 1: /* CANCELLED */
        rc = RSQL_ERR_INTERRUPTED;
        break;
    case 4: /* DEADLINE_EXCEEDED */
        rc = RSQL_ERR_TIMEOUT;
        break;
    case 5: /* NOT_FOUND */
        rc = RSQL_ERR_NOT_FOUND;
        break;
    case 7:  /* PERMISSION_DENIED */
    case 16: /* UNAUTHENTICATED */
        rc = RSQL_ERR_PERMISSION;
        break;
    case 8: /* RESOURCE_EXHAUSTED: flow control, or a message over gRPC's size limit */
        rc = details && strstr(details, "larger than max") ? RSQL_ERR_TOO_LARGE : RSQL_ERR_BUSY;
        break;
    case 10: /* ABORTED */
    case 13: /* INTERNAL */
    case 14: /* UNAVAILABLE */
        rc = RSQL_ERR_UNAVAILABLE;
        break;
    default:
        break;
    }
    bool fresh = err && err->code == RSQL_OK;
    rsql_error_set(err, rc, RSQL_NOPOS, "gRPC %s (%d): %s%s%s%s", name, grpc_code,
                   details && *details ? details : "(no details)", what ? " [" : "",
                   what ? what : "", what ? "]" : "");
    set_remote(err, fresh, 0);
    return rc;
}

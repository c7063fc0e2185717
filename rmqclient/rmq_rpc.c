/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_rpc: the one table of the MessagingService RPCs the client uses: gRPC method path, kind
 * (unary, server-streaming, bidi) and deadline rule. rmq_call.c starts every call from it.
 * It owns that table and nothing else: it must not see gRPC or protobuf-c headers, and a new
 * RPC is one row here plus its rmq_rpc_id_t (rmq_int.h).
 */
#include "config.h"

#include "rmqclient/rmq_int.h"

#define RMQ_SVC "/apache.rocketmq.v2.MessagingService/"

static const rmq_rpc_t rpcs[RMQ_RPC__COUNT] = {
    {RMQ_RPC_QUERY_ROUTE, RMQ_SVC "QueryRoute", "QueryRoute", RMQ_UNARY, false},
    {RMQ_RPC_HEARTBEAT, RMQ_SVC "Heartbeat", "Heartbeat", RMQ_UNARY, false},
    {RMQ_RPC_SEND_MESSAGE, RMQ_SVC "SendMessage", "SendMessage", RMQ_UNARY, false},
    {RMQ_RPC_RECEIVE_MESSAGE, RMQ_SVC "ReceiveMessage", "ReceiveMessage", RMQ_SERVER_STREAM,
     true},
    {RMQ_RPC_ACK_MESSAGE, RMQ_SVC "AckMessage", "AckMessage", RMQ_UNARY, false},
    {RMQ_RPC_FORWARD_DLQ, RMQ_SVC "ForwardMessageToDeadLetterQueue",
     "ForwardMessageToDeadLetterQueue", RMQ_UNARY, false},
    {RMQ_RPC_TELEMETRY, RMQ_SVC "Telemetry", "Telemetry", RMQ_BIDI, false},
    {RMQ_RPC_NOTIFY_TERMINATION, RMQ_SVC "NotifyClientTermination", "NotifyClientTermination",
     RMQ_UNARY, false},
    {RMQ_RPC_CHANGE_INVISIBLE, RMQ_SVC "ChangeInvisibleDuration", "ChangeInvisibleDuration",
     RMQ_UNARY, false},
    {RMQ_RPC_SYNC_LITE, RMQ_SVC "SyncLiteSubscription", "SyncLiteSubscription", RMQ_UNARY,
     false},
};

/* The table row of id (static storage). */
const rmq_rpc_t *rsql_rmq__rpc(rmq_rpc_id_t id)
{
    return (unsigned)id < RMQ_RPC__COUNT ? &rpcs[id] : NULL;
}

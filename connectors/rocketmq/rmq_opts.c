/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options of the rocketmq-grpc connector: one table for the client,
 * the Pop source (simple and lite modes, renewal, throttling, dead letters)
 * and the producer sink, plus the cross-option rules (finalize).  Names
 * follow the Flink rocketmq-grpc SQL connector where one exists
 * (docs ROCKETMQ.md §5).  Validation fills rsql_rmq_conf_t (rmq_conf.h)
 * from these rows; the data path and EXPLAIN read only that struct.
 */
#include "config.h"
#include "connectors/conn_int.h"
#include "connectors/rocketmq/rmq_conf.h"
#include "connectors/rsql_io.h"
#ifdef RSQL_HAVE_RMQ
#include "connectors/rocketmq/rmq_conn_int.h"
#endif

#include <inttypes.h>
#include <string.h>
#include <strings.h>

const char *const rsql_rmq_formats[] = {"json", "csv", "raw", "debezium-json", "canal-json",
                                        "maxwell-json", NULL};
const char *const rsql_rmq_modes[] = {"simple", "lite", NULL};
const char *const rsql_rmq_filter_types[] = {"tag", "sql92", NULL};
const char *const rsql_rmq_dead_letters[] = {"none", "native", NULL};
const char *const rsql_rmq_changelog_orders[] = {"per-key", "none", NULL};

/* The member of rsql_rmq_conf_t a row fills. */
#define F(member, ctype) RSQL_OPT_FIELD(rsql_rmq_conf_t, member, ctype)

#define SRC RSQL_OPT_F_SOURCE
#define SNK RSQL_OPT_F_SINK
#define REQ RSQL_OPT_F_REQUIRED

/*
** endpoints: host:port items, port 1..65535.
*/
static rsql_err_t check_endpoints(const rsql_opt_def_t *def, const char *key, const char *value,
                                  rsql_pos_t pos, rsql_error_t *err)
{
    (void)def;
    const char *p = value;
    for (;;) {
        while (*p == ' ') {
            p++;
        }
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n > 0 && p[n - 1] == ' ') {
            n--;
        }
        /* the last colon of the item ("[::1]:8081" has several) */
        const char *colon = NULL;
        for (const char *q = p; q < p + n; q++) {
            if (*q == ':') {
                colon = q;
            }
        }
        long port = 0;
        bool ok = colon && colon > p && colon + 1 < p + n;
        for (const char *q = colon ? colon + 1 : p; ok && q < p + n; q++) {
            ok = *q >= '0' && *q <= '9' && (port = port * 10 + (*q - '0')) <= 65535;
        }
        if (!ok || port == 0) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                                  "invalid value '%s' for option '%s': expected host:port, or "
                                  "several separated by commas",
                                  value, key);
        }
        if (!e) {
            return RSQL_OK;
        }
        p = e + 1;
    }
}

static const rsql_opt_def_t rmq_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("rocketmq-grpc"),
    RSQL_OPT_ROW_VF("endpoints", RSQL_OPT_CSV, REQ, NULL, 0, 0, NULL,
                   "The gRPC endpoints of the RocketMQ 5.x proxy, `host:port` (the proxy's gRPC "
                   "port is 8081 by default), such as `127.0.0.1:8081`; several are separated by "
                   "commas.",
                   check_endpoints, F(endpoints, const char *)),
    RSQL_OPT_ROW_F("namespace", RSQL_OPT_STR, 0, "", 0, 0, NULL,
                 "The RocketMQ namespace of the topic and the consumer group; empty for none.", F(namespace_, const char *)),
    RSQL_OPT_ROW_F("access-key", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "The access key for an ACL-enabled cluster. With `secret-key`, every request is "
                 "signed (HMAC-SHA1).", F(access_key, const char *)),
    RSQL_OPT_ROW_F("secret-key", RSQL_OPT_STR, RSQL_OPT_F_SECRET | RSQL_OPT_F_NONEMPTY, NULL, 0, 0,
                 NULL, "The secret key that goes with `access-key`. Give it as `${env:NAME}` or "
                       "`${file:PATH}` (docs/SQL.md): the catalog then keeps only the "
                       "reference. Written inline it is stored in the catalog as written (the "
                       "file is created with mode 0600).", F(secret_key, const char *)),
    RSQL_OPT_ROW_F("tls", RSQL_OPT_BOOL, 0, "false", 0, 0, NULL,
                 "Connect to the proxy with TLS. The server's certificate is always verified: "
                 "its chain against `tls.ca-file` (else gRPC's default roots), its name against "
                 "`tls.server-name` (else the endpoint's host, as a DNS or IP name). A refused "
                 "certificate fails the job at once with the reason.", F(tls, bool)),
    RSQL_OPT_ROW_F("tls.ca-file", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "PEM file of the CA certificate(s) the proxy's certificate must chain to "
                 "(instead of gRPC's default roots).", F(tls_ca_file, const char *)),
    RSQL_OPT_ROW_F("tls.server-name", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "The name the proxy's certificate must hold, when it is not the endpoint's host "
                 "(an endpoint given as an IP address, several endpoints behind one name).",
                 F(tls_server_name, const char *)),
    RSQL_OPT_ROW_F("tls.cert-file", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "Mutual TLS: PEM file of the client certificate presented to the proxy (with "
                 "`tls.key-file`).", F(tls_cert_file, const char *)),
    RSQL_OPT_ROW_F("tls.key-file", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "Mutual TLS: PEM file of the private key of `tls.cert-file` (unencrypted).",
                 F(tls_key_file, const char *)),
    RSQL_OPT_ROW_F("request-timeout", RSQL_OPT_DURATION, 0, "3s", 100, 5 * RSQL_MS_MIN, NULL,
                 "Deadline of each request (route, heartbeat, send, ack, change of invisible "
                 "duration). A long poll gets `source.await-duration` on top of it.", F(request_timeout_ms, int64_t)),
    RSQL_OPT_ROW_F("topic", RSQL_OPT_STR, REQ, NULL, 0, 0, NULL,
                 "The topic to read from or write to. In lite mode (`source.mode` = `lite`), and "
                 "when writing with `sink.lite-topic` or `sink.lite-topic-column`, the LITE parent "
                 "topic.", F(topic, const char *)),
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, "json", 0, 0, rsql_rmq_formats,
                 "How a message body becomes a row, and a row a body. Tag, keys, properties and "
                 "the rest around the body are METADATA columns (see the keys below).",
                 F(format, int)),

    RSQL_OPT_ROW_F("source.mode", RSQL_OPT_ENUM, SRC, "simple", 0, 0, rsql_rmq_modes,
                 "`simple`: read a NORMAL or FIFO topic, optionally filtered by tag or SQL92. "
                 "`lite`: read a LITE parent topic through a wildcard lite subscription: every "
                 "lite topic under it, including lite topics that appear while the job runs (or "
                 "only `source.lite-topics`). The consumer group needs the attributes "
                 "`lite.bind.topic=<topic>` and `lite.sub.wildcard=true`, and the proxy must run "
                 "in cluster mode.", F(mode, int)),
    RSQL_OPT_ROW_F("source.consumer-group", RSQL_OPT_STR, REQ | SRC, NULL, 0, 0, NULL,
                 "The consumer group. Several rocketsql processes (or jobs) in one group share "
                 "the messages: the broker balances them message by message, with no partition "
                 "assignment.", F(group, const char *)),
    RSQL_OPT_ROW_F("source.filter-type", RSQL_OPT_ENUM, SRC, "tag", 0, 0, rsql_rmq_filter_types,
                 "How `source.filter-expression` is read (simple mode).", F(filter_type, int)),
    RSQL_OPT_ROW_F("source.filter-expression", RSQL_OPT_STR, SRC | RSQL_OPT_F_NONEMPTY, "*", 0, 0,
                 NULL,
                 "Simple mode: the broker-side filter. A tag expression (`*` for every message, "
                 "`TagA || TagB`) or, with `source.filter-type` = `sql92`, an SQL92 expression "
                 "over message properties. Messages that do not match are never delivered.", F(filter_expression, const char *)),
    RSQL_OPT_ROW_F("source.fetch-concurrency", RSQL_OPT_INT, SRC, "16", 1, 64, NULL,
                 "The most long polls (ReceiveMessage) kept in flight at once (per client "
                 "identity). The source adapts within it: it starts with one, doubles the "
                 "polls while they come back full (the broker has more than they fetch) and "
                 "halves them while they come back empty, so an idle job parks one request "
                 "and a backlog is drained at the broker's pace (a topic-to-topic relay on a "
                 "2-core machine moved about 2x the messages with 16 as with 4, "
                 "bench/README.md). serve's `/jobs` (`receive`) and the "
                 "`rocketsql_source_long_polls` gauge show the polls in use. The internal buffer is 2 x this x `source.batch-size` "
                 "messages.", F(fetch_concurrency, int64_t)),
    RSQL_OPT_ROW_F("source.batch-size", RSQL_OPT_INT, SRC, "32", 1, 32, NULL,
                 "Most messages one long poll returns (the proxy's limit is 32).", F(batch_size, int64_t)),
    RSQL_OPT_ROW_F("source.await-duration", RSQL_OPT_DURATION, SRC, "20s", RSQL_MS_S,
                 5 * RSQL_MS_MIN, NULL,
                 "How long one long poll waits for messages. The proxy clamps it to its own "
                 "bounds (by default 5s to 20s), so a value outside them acts like the nearest "
                 "bound.", F(await_ms, int64_t)),
    RSQL_OPT_ROW_F("source.invisible-duration", RSQL_OPT_DURATION, SRC, "60s", 10 * RSQL_MS_S,
                 12 * RSQL_MS_H, NULL,
                 "How long a received message stays hidden from other consumers. A message the "
                 "pipeline still holds is renewed `source.renewal-ahead` before this ends; a "
                 "message that is neither acked nor renewed in time is delivered again.", F(invisible_ms, int64_t)),
    RSQL_OPT_ROW_F("source.renewal-ahead", RSQL_OPT_DURATION, SRC, "5s", RSQL_MS_S, RSQL_MS_H, NULL,
                 "How long before its invisible duration ends a held message is renewed "
                 "(ChangeInvisibleDuration; the ack then uses the new receipt handle). Must be "
                 "shorter than `source.invisible-duration`.", F(renewal_ahead_ms, int64_t)),
    RSQL_OPT_ROW_F("source.max-body-size", RSQL_OPT_SIZE, SRC, "4MiB", 1024, INT64_C(1) << 30,
                 NULL,
                 "Largest message body taken, as received and once a GZIP body is inflated. A "
                 "bigger body, like any message that cannot be decoded (no system properties, a "
                 "malformed id or property map, a timestamp out of range), is a decode failure "
                 "of that message: dead-lettered under `errors.tolerance` = `all` (its raw form "
                 "is the body as received, its first 64 KiB when over the limit), else the job "
                 "stops at it. The default is the broker's own default `maxMessageSize`. The "
                 "client accepts gRPC messages (one message each) up to max(this, 4MiB) + 1MiB, "
                 "so a smaller value still fails big bodies one record at a time; if the broker "
                 "accepts bodies over 4MiB, set this at least as high, or a bigger message "
                 "fails its whole long poll (gRPC RESOURCE_EXHAUSTED, retried).",
                 F(max_body_bytes, int64_t)),
    RSQL_OPT_ROW_F("source.max-delivery-attempts", RSQL_OPT_INT, SRC, "16", 1, 1000, NULL,
                 "Safety valve: a message at this delivery attempt is processed, never deferred "
                 "by throttling again. Also the attempt count reported when a message is "
                 "forwarded to the native dead-letter queue. Keep it at or below the consumer "
                 "group's retry limit + 1 (17 by default): past that the broker moves the message "
                 "to the group's dead-letter queue before the valve lets it through.", F(max_delivery_attempts, int64_t)),
    RSQL_OPT_ROW_F("source.max-invisible-duration", RSQL_OPT_DURATION, SRC, "30min",
                 10 * RSQL_MS_S, 12 * RSQL_MS_H, NULL,
                 "Safety valve: no deferral by throttling is longer than this.", F(max_invisible_ms, int64_t)),
    RSQL_OPT_ROW_F("source.lite-topics", RSQL_OPT_CSV, SRC | RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "Lite mode: read only these lite topics (comma-separated), subscribed "
                 "explicitly, instead of every lite topic under the parent topic.", F(lite_topics, const char *)),
    RSQL_OPT_ROW_F("source.lite-clients", RSQL_OPT_INT, SRC, "8", 1, 16, NULL,
                 "Lite mode: the most client identities the source runs, each with its own "
                 "client id, Telemetry stream, heartbeat, lite subscription (the same one) and "
                 "`source.fetch-concurrency` long polls, all over one gRPC connection; a message "
                 "is acked and renewed by the identity that received it, and the internal buffer "
                 "is 2 x fetch-concurrency x batch-size per identity in use. The broker hands each "
                 "identity at most 100 backlogged lite topics per dispatch round (5.5.0's "
                 "`lite.sub.client.max.event.cnt`; a wildcard group's first round comes 5 s after "
                 "the subscription, the next ones 10 s apart, and only identities registered by "
                 "then share a round), so the source starts with `source.lite-clients-start` (8) "
                 "identities, which drain a backlog of up to 800 lite topics in the first round; "
                 "when fewer were started and one identity pops 100 lite topics in one burst (a "
                 "full round: the backlog is larger) it starts identities up to this number "
                 "(logged); when no round has "
                 "been full for 30 s (from the start, or from the last full one) it retires the "
                 "extra ones down to `source.lite-clients-min` (1), each once its long polls have "
                 "come back and its messages are acked or let go, so live traffic runs on one "
                 "identity. Measured (bench/README.md, 3,000 messages over 300 lite topics, "
                 "5.5.0): about 6 s at the defaults, 26 s with one identity; 6,000 over 600: about "
                 "6 s at the defaults, 16 s when 4 start. The identities in "
                 "use are in the job's detail (`identities`) and the "
                 "`rocketsql_source_lite_identities` metric. 1 keeps one identity.",
                 F(lite_clients, int64_t)),
    RSQL_OPT_ROW_F("source.lite-clients-start", RSQL_OPT_INT, SRC, "8", 1, 16, NULL,
                 "Lite mode, every lite topic (no `source.lite-topics`): client identities "
                 "started at open, kept at least 30 s (within `source.lite-clients-min` and "
                 "`source.lite-clients`; with `source.lite-topics` the source starts with "
                 "`source.lite-clients-min`). Several from the start "
                 "share the broker's first dispatch round, so a backlog over many lite topics "
                 "drains in one round instead of two or three; 1 starts with one identity, which "
                 "grows only after a full round. Live traffic was measured as fair with 1, 4 and "
                 "8 from the start (tests/rocketmq/t_throttle.sh).",
                 F(lite_clients_start, int64_t)),
    RSQL_OPT_ROW_F("source.lite-clients-min", RSQL_OPT_INT, SRC, "1", 1, 16, NULL,
                 "Lite mode: the fewest client identities the source keeps (at most "
                 "`source.lite-clients`): it goes back to this many once no dispatch round has "
                 "been full for 30 s. Equal to `source.lite-clients` fixes the number.",
                 F(lite_clients_min, int64_t)),
    RSQL_OPT_ROW_FG("source.dead-letter", RSQL_OPT_ENUM, SRC, "none", 0, 0, rsql_rmq_dead_letters,
                 "Where a failed message goes under `errors.tolerance` = `all`. `none`: only to "
                 "`errors.dlq.table` (when set), then it is acked. `native`: also forwarded to the "
                 "consumer group's RocketMQ dead-letter queue (`%DLQ%<group>`, with "
                 "ForwardMessageToDeadLetterQueue) instead of being acked.", F(dead_letter, int), F(dead_letter_given, bool)),
    RSQL_OPT_ROW_FG("scan.idle-timeout", RSQL_OPT_DURATION, SRC, NULL, 100, 24 * RSQL_MS_H, NULL,
                 "Makes the read bounded (for batch jobs): the source ends once the broker has "
                 "answered for this long that there is no message. Only answered long polls "
                 "count: while the proxy cannot be reached or long polls fail, the clock stands "
                 "still, so an outage never ends a job as done. Long polls then last at most "
                 "this long (at least 5s, the proxy's minimum), and the end waits for the ones "
                 "still out. In lite mode give it 20s or more: the broker hands out a lite "
                 "topic's backlog in dispatch rounds 10s apart (later on a busy broker), and a "
                 "shorter timeout can end the read before the last round. Unset: the source runs until it is stopped.",
                 F(idle_timeout_ms, int64_t), F(idle_timeout_given, bool)),
    RSQL_OPT_ROW_FG("throttle.max-inflight-per-lite-topic", RSQL_OPT_INT, SRC, "0", 0, 1000000, NULL,
                 "Lite mode: most messages of one lite topic in the pipeline at once. A message "
                 "over it is deferred (made invisible again with ChangeInvisibleDuration, neither "
                 "held nor acked), so the fetch budget goes to the other lite topics. `0`: no "
                 "limit.", F(max_inflight_per_lite, int64_t), F(max_inflight_per_lite_given, bool)),
    RSQL_OPT_ROW_FG("throttle.rate-per-lite-topic", RSQL_OPT_RATE, SRC, NULL, 0, 0, NULL,
                 "Lite mode: most messages per second taken from one lite topic, such as "
                 "`200/s`; messages over it are deferred. Unset: no rate limit.", F(rate_per_lite, double), F(rate_per_lite_given, bool)),
    RSQL_OPT_ROW_F("throttle.defer", RSQL_OPT_DURATION, SRC, "1s", 100, 12 * RSQL_MS_H, NULL,
                 "Lite mode: the first deferral of a throttled message; it doubles each time the "
                 "same message is deferred again, up to `source.max-invisible-duration`. A lite "
                 "topic over its rate also has its deferred messages spaced 1/rate apart, so each "
                 "comes back when the topic has room instead of being deferred again.", F(defer_ms, int64_t)),

    RSQL_OPT_ROW_F("sink.lite-topic", RSQL_OPT_STR, SNK | RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "Send every row to this lite topic of the LITE parent topic `topic`.", F(lite_topic, const char *)),
    RSQL_OPT_ROW_F("sink.lite-topic-column", RSQL_OPT_STR, SNK | RSQL_OPT_F_NONEMPTY, NULL, 0, 0,
                 NULL,
                 "Send each row to the lite topic named by this VARCHAR column of the row (one "
                 "lite topic per tenant or session).", F(lite_topic_column, const char *)),
    RSQL_OPT_ROW_F("sink.tag", RSQL_OPT_STR, SNK | RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "The tag of every message sent.", F(tag, const char *)),
    RSQL_OPT_ROW_F("sink.keys-column", RSQL_OPT_STR, SNK | RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
                 "The column whose value becomes each message's key (to look messages up by "
                 "key).", F(keys_column, const char *)),
    RSQL_OPT_ROW_F("sink.message-group-column", RSQL_OPT_STR, SNK | RSQL_OPT_F_NONEMPTY, NULL, 0,
                 0, NULL,
                 "FIFO: the column whose value is each message's message group; messages of one "
                 "group are sent, and stored, in order. `topic` must be a FIFO topic.", F(message_group_column, const char *)),
    RSQL_OPT_ROW_F("sink.max-attempts", RSQL_OPT_INT, SNK, "3", 1, 100, NULL,
                 "Attempts to send one message, the first included, with exponential backoff "
                 "between them, before the send counts as failed (and its source message is not "
                 "acked).", F(max_attempts, int64_t)),
    RSQL_OPT_ROW_F("sink.max-inflight", RSQL_OPT_INT, SNK, "64", 1, 10000, NULL,
                 "Most send requests in flight at once; messages of one message group still go "
                 "out one after the other.", F(max_inflight, int64_t)),
    RSQL_OPT_ROW_F("sink.batch-size", RSQL_OPT_INT, SNK, "64", 1, 1024, NULL,
                 "NORMAL messages: most messages sent together in one SendMessage request (the "
                 "proxy stores them as one batch, all or nothing; about 14x the messages per "
                 "second of single sends against a 5.5.0 proxy, bench/README.md); 1 sends one "
                 "message per request. FIFO, LITE and timer messages, rows whose METADATA sets "
                 "message_group, lite_topic or delivery_timestamp, and every message to a topic "
                 "whose route names another type than NORMAL, are always sent one by one. A "
                 "batch that fails transiently is retried as a batch; one that fails "
                 "permanently is sent again one message at a time, so only the bad message "
                 "fails. Batch send is not a documented part of RocketMQ's gRPC protocol "
                 "(docs/ROCKETMQ-NOTES.md): until the proxy has accepted a batch, two batches "
                 "it refuses whole whose messages then all go through alone turn batching off "
                 "for the rest of the run, with a warning in the log.", F(send_batch_size, int64_t)),
    RSQL_OPT_ROW_F("sink.linger", RSQL_OPT_DURATION, SNK, "5ms", 0, RSQL_MS_S, NULL,
                 "With `sink.batch-size` > 1: the longest a message waits for its batch to fill "
                 "before the batch is sent as it is (a batch also goes out at once while "
                 "nothing else is in flight).", F(linger_ms, int64_t)),
    RSQL_OPT_ROW_F("sink.changelog-order", RSQL_OPT_ENUM, SNK, "per-key", 0, 0,
                 rsql_rmq_changelog_orders,
                 "A changelog written to the topic (rows that update and delete, in a changelog "
                 "format; docs/CHANGELOGS.md): each change is one message whose keys are the "
                 "row's PRIMARY KEY (the table must have one). `per-key`: the changes of one "
                 "key stay in order from end to end: each change's message group is its primary "
                 "key (unless `sink.message-group-column` or the message_group METADATA column "
                 "sets it; EXPLAIN then says whether the order per key still holds), and the "
                 "topic must be a FIFO topic: the sink reads its type from its route when it "
                 "starts and refuses any other type before sending anything. `none`: the order "
                 "does not matter to the topic's consumers: changes to a NORMAL topic go as "
                 "NORMAL messages (batched with `sink.batch-size`), which consumers may receive "
                 "in any order; on a FIFO topic they are still grouped by key. Like Flink's "
                 "upsert-kafka, which always partitions by the key; this option is the explicit "
                 "way out.",
                 F(changelog_order, int)),
    RSQL_OPT_ROW_F("lanes.idle-timeout", RSQL_OPT_DURATION, 0, "1min", 100, 24 * RSQL_MS_H, NULL,
                 "How long the state of a lite topic or message group (a lane: its counts, its "
                 "throttle bucket, the sink's order queue) is kept once nothing of it is in "
                 "flight, held or queued; then it is freed, so memory follows the lite topics "
                 "and message groups active within this time, not every one ever seen. A lane "
                 "seen again starts afresh. Idle lanes are looked for at most every half of "
                 "this time, each look a walk over every lane, hence the lower bound.",
                 F(lane_idle_ms, int64_t)),
    RSQL_OPT_END,
};

/*
** Cross-option rules of rocketmq-grpc; see the messages.
*/
static rsql_err_t rmq_finalize(const rsql_optset_t *set, rsql_error_t *err)
{
    rsql_err_t rc;
    if ((rc = rsql_conn__requires(set, "source.lite-topics", "source.mode", "lite", err)) ||
        (rc = rsql_conn__requires(set, "throttle.", "source.mode", "lite", err)) ||
        (rc = rsql_conn__requires(set, "source.filter-type", "source.mode", "simple", err)) ||
        (rc = rsql_conn__requires(set, "source.filter-expression", "source.mode", "simple",
                                  err)) ||
        (rc = rsql_conn__exclusive(set, "sink.lite-topic", "sink.lite-topic-column", err)) ||
        (rc = rsql_conn__exclusive(set, "sink.message-group-column", "sink.lite-topic", err)) ||
        (rc = rsql_conn__exclusive(set, "sink.message-group-column", "sink.lite-topic-column",
                                   err))) {
        return rc;
    }
    if (rsql_optset_has(set, "access-key") != rsql_optset_has(set, "secret-key")) {
        const char *given = rsql_optset_has(set, "access-key") ? "access-key" : "secret-key";
        const char *missing = rsql_optset_has(set, "access-key") ? "secret-key" : "access-key";
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, rsql_conn__key_pos(set, given),
                              "missing required option '%s' for connector 'rocketmq-grpc' "
                              "(needed with '%s')",
                              missing, given);
    }
    for (int i = 0; i < rsql_optset_count(set); i++) {
        const rsql_opt_kv_t *kv = rsql_optset_at(set, i);
        if (strncasecmp(kv->key, "tls.", 4) == 0 && !rsql_optset_bool(set, "tls")) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, kv->key_pos,
                                  "option '%s' requires 'tls' = 'true'", kv->key);
        }
    }
    if (rsql_optset_has(set, "tls.cert-file") != rsql_optset_has(set, "tls.key-file")) {
        bool cert = rsql_optset_has(set, "tls.cert-file");
        const char *given = cert ? "tls.cert-file" : "tls.key-file";
        const char *missing = cert ? "tls.key-file" : "tls.cert-file";
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, rsql_conn__key_pos(set, given),
                              "missing required option '%s' for connector 'rocketmq-grpc' "
                              "(needed with '%s')",
                              missing, given);
    }
    if (strcmp(rsql_optset_str(set, "source.filter-type"), "sql92") == 0 &&
        !rsql_optset_has(set, "source.filter-expression")) {
        return rsql_error_set(err, RSQL_ERR_MISSING_OPTION,
                              rsql_conn__value_pos(set, "source.filter-type"),
                              "missing required option 'source.filter-expression' for connector "
                              "'rocketmq-grpc' (needed with 'source.filter-type' = 'sql92')");
    }
    const char *mode = rsql_optset_str(set, "source.mode");
    static const char *const lc[] = {"source.lite-clients", "source.lite-clients-min",
                                     "source.lite-clients-start"};
    for (int k = 0; k < 3; k++) {
        int il = rsql_optset_find(set, lc[k]);
        if (il >= 0 && rsql_optset_int(set, lc[k]) > 1 &&
            (!mode || strcasecmp(mode, "lite") != 0)) {
            return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_optset_at(set, il)->key_pos,
                                  "option '%s' > 1 requires 'source.mode' = 'lite'", lc[k]);
        }
    }
    int imin = rsql_optset_find(set, "source.lite-clients-min");
    if (imin >= 0 && rsql_optset_int(set, "source.lite-clients-min") >
                         rsql_optset_int(set, "source.lite-clients")) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, rsql_optset_at(set, imin)->key_pos,
                              "option 'source.lite-clients-min' (%" PRId64
                              ") must not exceed 'source.lite-clients' (%" PRId64 ")",
                              rsql_optset_int(set, "source.lite-clients-min"),
                              rsql_optset_int(set, "source.lite-clients"));
    }
    int64_t ahead = rsql_optset_int(set, "source.renewal-ahead");
    int64_t invisible = rsql_optset_int(set, "source.invisible-duration");
    if (ahead >= invisible) {
        char a[32], b[32];
        rsql_pos_t pos = rsql_conn__value_pos(set, "source.renewal-ahead");
        if (pos.off == RSQL_POS_NONE) {
            pos = rsql_conn__value_pos(set, "source.invisible-duration");
        }
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "option 'source.renewal-ahead' (%s) must be shorter than "
                              "'source.invisible-duration' (%s)",
                              rsql_opt_format_duration(ahead, a, sizeof a),
                              rsql_opt_format_duration(invisible, b, sizeof b));
    }
    return RSQL_OK;
}

/* Derived members: throttled = some throttle.* option was given. */
static rsql_err_t rmq_configure(void *conf, const rsql_optset_t *set, const char *const *columns,
                                int n_columns, rsql_arena_t *arena, rsql_error_t *err)
{
    (void)columns;
    (void)n_columns;
    (void)arena;
    (void)err;
    rsql_rmq_conf_t *c = conf;
    for (int i = 0; i < rsql_optset_count(set); i++) {
        c->throttled |= strncasecmp(rsql_optset_at(set, i)->key, "throttle.", 9) == 0;
    }
    return RSQL_OK;
}

/*
** METADATA columns of rocketmq-grpc (rsql_meta_def_t): what surrounds a message's body.
** Readable ones come from the received Message and its SystemProperties; writable ones
** set the sent message's, per row, over the matching sink.* option.
*/
static const rsql_meta_def_t rmq_meta[] = {
    RSQL_META_ROW("topic", "VARCHAR", RSQL_META_READ, "The topic the message was read from (the parent topic in lite mode)."),
    RSQL_META_ROW("lite_topic", "VARCHAR", RSQL_META_READ | RSQL_META_WRITE, "The message's lite topic (NULL when it has none). Written: the lite topic to send to, over `sink.lite-topic` / `sink.lite-topic-column`."),
    RSQL_META_ROW("message_id", "VARCHAR", RSQL_META_READ, "The message id the broker gave it."),
    RSQL_META_ROW("tag", "VARCHAR", RSQL_META_READ | RSQL_META_WRITE, "The message's tag (NULL when none). Written: over `sink.tag`."),
    RSQL_META_ROW("keys", "ARRAY<STRING>", RSQL_META_READ | RSQL_META_WRITE, "The message's keys (an empty array when none). Written: the keys of the message (NULL or empty elements left out), over `sink.keys-column`."),
    RSQL_META_ROW("message_group", "VARCHAR", RSQL_META_READ | RSQL_META_WRITE, "The message group of a FIFO message (NULL otherwise). Written: over `sink.message-group-column`."),
    RSQL_META_ROW("properties", "MAP<STRING, STRING>", RSQL_META_READ | RSQL_META_WRITE, "The user properties (an empty map when none; the broker's own `__SHARDINGKEY`, `INNER_MULTI_DISPATCH` and `INNER_MULTI_QUEUE_OFFSET` are left out). Written: the user properties of the message; a NULL value fails the row permanently."),
    RSQL_META_ROW("born_timestamp", "TIMESTAMP(3)", RSQL_META_READ, "When the producer created the message."),
    RSQL_META_ROW("store_timestamp", "TIMESTAMP(3)", RSQL_META_READ, "When the broker stored the message."),
    RSQL_META_ROW("delivery_timestamp", "TIMESTAMP(3)", RSQL_META_READ | RSQL_META_WRITE, "When a timer message was to be delivered (NULL for others). Written: sends a timer (delay) message the broker delivers at that instant; one in the past is delivered at once, one beyond the broker's maximum delay is a permanent error of that row."),
    RSQL_META_ROW("born_host", "VARCHAR", RSQL_META_READ, "The host the producer ran on."),
    RSQL_META_ROW("delivery_attempt", "INT", RSQL_META_READ, "How many times the broker has delivered the message (1 the first time)."),
    RSQL_META_ROW("queue_id", "INT", RSQL_META_READ, "The id of the queue the message was stored in."),
    RSQL_META_ROW("queue_offset", "BIGINT", RSQL_META_READ, "The message's offset in its queue."),
    RSQL_META_ROW("message_type", "VARCHAR", RSQL_META_READ, "NORMAL, FIFO, DELAY, TRANSACTION or LITE."),
    RSQL_META_END,
};

const rsql_connector_def_t rsql_rmq_conn_def = {
    .name = "rocketmq-grpc",
    .description =
        "Apache RocketMQ 5.x over its gRPC protocol. As a source, a Pop consumer: long polls "
        "spread over `source.fetch-concurrency` requests, message-level load balancing by the "
        "broker (processes in one consumer group share the work), and a message is acked only "
        "after the sink has confirmed its row (or it was filtered out or dead-lettered), so "
        "delivery is at-least-once. `simple` mode reads a NORMAL or FIFO topic with a tag or "
        "SQL92 filter; `lite` mode reads every lite topic under a LITE parent topic, with fair "
        "per-lite-topic throttling. As a sink, a producer: NORMAL, FIFO (message group from a "
        "column) or LITE (lite topic fixed or from a column).",
    .caps = RSQL_CAP_SOURCE | RSQL_CAP_SINK,
    .opts = rmq_opts,
    .formats = rsql_rmq_formats,
    .finalize = rmq_finalize,
#ifdef RSQL_HAVE_RMQ
    .source = &rsql_rmq_source_ops,
    .sink = &rsql_rmq_sink_ops,
#endif
    .conf_size = sizeof(rsql_rmq_conf_t),
    .configure = rmq_configure,
    .bounded = rsql_rmq__bounded,
    .hold = rsql_rmq__hold,
    .own_positions = "RocketMQ acks",
    .explain = rsql_rmq__explain,
    .metadata = rmq_meta,
    .changes = RSQL_CHANGES_BY_FORMAT,
    .accept_changes = rsql_rmq__accept_changes,
};

/* See rmq_conn_int.h. */
char *rsql_rmq__client_config(const rsql_rmq_conf_t *c, rsql_rmq_client_type_t client_type,
                              rsql_rmq_config_t *conf)
{
    memset(conf, 0, sizeof *conf);
    char *eps = rsql_strdup(c->endpoints ? c->endpoints : "");
    for (char *p = eps; p && *p; p++) {
        *p = *p == ',' ? ';' : *p;
    }
    conf->endpoints = eps;
    conf->name_space = c->namespace_;
    conf->access_key = c->access_key;
    conf->secret_key = c->secret_key;
    conf->tls = c->tls;
    conf->tls_ca_file = c->tls_ca_file;
    conf->tls_server_name = c->tls_server_name;
    conf->tls_cert_file = c->tls_cert_file;
    conf->tls_key_file = c->tls_key_file;
    conf->request_timeout_ms = (int)c->request_timeout_ms;
    conf->client_type = client_type;
    return eps;
}

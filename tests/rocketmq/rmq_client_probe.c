/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_client_probe: drives the rocketsql RocketMQ gRPC client (rmqclient/) against a
 * real proxy, for tests/rocketmq/t_client.sh. Each sub-command does one scenario and prints
 * machine-checkable lines; the exit status is 0 only when the scenario held.
 *
 *   produce  --topic T --count N [--group-count G] [--lite-count K] [--tag TAG] [--batch B]
 *            sends N messages (FIFO groups g0..g(G-1) / lite topics l0..l(K-1)); prints
 *            "id <message-id>" per message, then "sent N"
 *   consume  --topic T --group G --count N [--lite] [--timeout S]
 *            receives and acks until N distinct messages arrived; fails on duplicates; then
 *            long-polls once more and fails if anything comes back; prints "id <id>" lines
 *   change   --topic T --group G   change-invisible gives a new handle; an ack with the new
 *            handle acks, an ack with the old one does not (the message comes back)
 *   errors   --topic T --missing M  send to a missing topic → TOPIC_NOT_FOUND, not retriable;
 *            oversized body → MESSAGE_BODY_TOO_LARGE, not retriable
 *   fifo     --topic T --group G --count N --group-count K   FIFO send + receive: every
 *            message arrives, in send order per message group
 * Common: --endpoint HOST:PORT (default 127.0.0.1:8081).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rmqclient/rmq_client.h"
#include "tests/lib/rmq_sync.h"
#include "base/rsql_mem.h"

typedef struct args {
    const char *cmd, *endpoint, *topic, *group, *missing, *tag;
    int count, group_count, lite_count, batch, timeout_s;
    bool lite;
    rsql_rmq_client_type_t lite_type; /* --lite-type simple|push */
} args_t;

static int fail(const char *what, const rsql_error_t *e)
{
    fprintf(stderr, "FAIL %s: %s (code %d, remote %d, retriable %d)\n", what,
            e ? e->msg : "", e ? (int)e->code : 0, e ? (int)e->remote_code : 0,
            e ? (int)rsql_error_retriable(e) : 0);
    return 1;
}

static rsql_rmq_client_t *open_client(const args_t *a, rsql_rmq_client_type_t type,
                                      const char *topic)
{
    rsql_error_t e;
    rsql_error_clear(&e);
    const char *topics[1] = {topic};
    rsql_rmq_config_t conf = {0};
    conf.endpoints = a->endpoint;
    conf.client_type = type;
    conf.group = a->group;
    conf.topics = topics;
    conf.n_topics = 1;
    conf.long_polling_timeout_ms = 5000;
    rsql_rmq_client_t *c = rsql_rmq_client_new(&conf, &e);
    if (!c) {
        fail("client_new", &e);
        return NULL;
    }
    if (rsql_rmq_client_start(c, &e) != RSQL_OK) {
        fail("client_start", &e);
        rsql_rmq_client_destroy(c);
        return NULL;
    }
    rsql_rmq_server_settings_t s;
    rsql_rmq_client_settings(c, &s);
    fprintf(stderr, "started %s type=%d max_body=%d fifo=%d lite_quota=%d max_lite=%d\n",
            rsql_rmq_client_id(c), (int)type, (int)s.max_body_size, (int)s.fifo,
            (int)s.lite_subscription_quota, (int)s.max_lite_topic_size);
    return c;
}

static int cmd_produce(const args_t *a)
{
    rsql_rmq_client_t *c = open_client(a, RSQL_RMQ_PRODUCER, a->topic);
    if (!c) {
        return 1;
    }
    int batch = a->batch > 0 ? a->batch : 1;
    if (a->group_count > 0) {
        batch = 1; /* a FIFO batch must share one group: keep it simple */
    }
    int rc = 0, sent = 0;
    char bodies[64][96], groups[64][32], lites[64][32];
    rsql_rmq_out_msg_t msgs[64];
    char *ids[64];
    while (sent < a->count && rc == 0) {
        int n = a->count - sent < batch ? a->count - sent : batch;
        if (n > 64) {
            n = 64;
        }
        for (int i = 0; i < n; i++) {
            int seq = sent + i;
            memset(&msgs[i], 0, sizeof(msgs[i]));
            msgs[i].topic = a->topic;
            snprintf(bodies[i], sizeof(bodies[i]), "{\"id\":%d,\"src\":\"rocketsql\"}", seq);
            msgs[i].body = bodies[i];
            msgs[i].body_len = strlen(bodies[i]);
            msgs[i].tag = a->tag;
            if (a->group_count > 0) {
                snprintf(groups[i], sizeof(groups[i]), "g%d", seq % a->group_count);
                msgs[i].message_group = groups[i];
            }
            if (a->lite_count > 0) {
                snprintf(lites[i], sizeof(lites[i]), "l%d", seq % a->lite_count);
                msgs[i].lite_topic = lites[i];
            }
            ids[i] = NULL;
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        if (tsync_send(c, msgs, (size_t)n, ids, &e) != RSQL_OK) {
            rc = fail("send", &e);
        }
        for (int i = 0; i < n; i++) {
            if (ids[i]) {
                printf("id %s\n", ids[i]);
            }
            rsql_free(ids[i]);
        }
        sent += rc == 0 ? n : 0;
    }
    printf("sent %d\n", sent);
    rsql_rmq_client_destroy(c);
    return rc;
}

static int cmp_str(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

static int cmd_consume(const args_t *a)
{
    rsql_rmq_client_t *c =
        open_client(a, a->lite ? a->lite_type : RSQL_RMQ_SIMPLE_CONSUMER, a->topic);
    if (!c) {
        return 1;
    }
    char **seen = rsql_calloc((size_t)a->count + 1, sizeof(char *));
    bool *body_ids = rsql_calloc((size_t)a->count + 1, sizeof(bool));
    size_t n_seen = 0;
    int rc = 0, dups = 0, lite_missing = 0;
    time_t end = time(NULL) + (a->timeout_s > 0 ? a->timeout_s : 120);
    while (rc == 0 && n_seen < (size_t)a->count && time(NULL) < end) {
        rsql_rmq_msg_t **msgs = NULL;
        size_t n = 0;
        rsql_error_t e;
        rsql_error_clear(&e);
        if (tsync_receive(c, a->topic, 32, 30000, &msgs, &n, &e) != RSQL_OK) {
            if (rsql_error_retriable(&e)) {
                fprintf(stderr, "retriable receive error: %s\n", e.msg);
                continue;
            }
            rc = fail("receive", &e);
            break;
        }
        rsql_rmq_ack_entry_t *ents = rsql_calloc(n ? n : 1, sizeof(*ents));
        int32_t *codes = rsql_calloc(n ? n : 1, sizeof(int32_t));
        for (size_t i = 0; i < n; i++) {
            bool dup = false;
            for (size_t k = 0; k < n_seen; k++) {
                if (strcmp(seen[k], msgs[i]->message_id) == 0) {
                    dup = true;
                }
            }
            if (dup) {
                dups++;
                fprintf(stderr, "duplicate %s attempt %d\n", msgs[i]->message_id,
                        (int)msgs[i]->delivery_attempt);
            } else if (n_seen < (size_t)a->count) {
                seen[n_seen++] = rsql_strdup(msgs[i]->message_id);
            }
            const char *idp = strstr((const char *)msgs[i]->body, "\"id\":");
            int bid = idp ? atoi(idp + 5) : -1;
            if (bid >= 0 && bid < a->count) {
                body_ids[bid] = true;
            }
            if (a->lite && !msgs[i]->lite_topic) {
                lite_missing++;
            }
            ents[i].message_id = msgs[i]->message_id;
            ents[i].receipt_handle = msgs[i]->receipt_handle;
            ents[i].lite_topic = msgs[i]->lite_topic;
        }
        if (n) {
            rsql_error_clear(&e);
            if (tsync_ack(c, a->topic, ents, n, codes, &e) != RSQL_OK) {
                rc = fail("ack", &e);
            }
        }
        for (size_t i = 0; i < n; i++) {
            rsql_rmq_msg_destroy(msgs[i]);
        }
        rsql_free(msgs);
        rsql_free(ents);
        rsql_free(codes);
    }
    if (rc == 0 && n_seen == (size_t)a->count) {
        /* after the acks nothing may come back */
        rsql_rmq_msg_t **msgs = NULL;
        size_t n = 0;
        rsql_error_t e;
        rsql_error_clear(&e);
        if (tsync_receive(c, a->topic, 32, 10000, &msgs, &n, &e) != RSQL_OK) {
            rc = fail("re-poll", &e);
        }
        for (size_t i = 0; i < n; i++) {
            bool was_seen = false;
            for (size_t k = 0; k < n_seen; k++) {
                was_seen = was_seen || strcmp(seen[k], msgs[i]->message_id) == 0;
            }
            fprintf(stderr, "came back after ack: %s attempt %d lite %s seen %d\n",
                    msgs[i]->message_id, (int)msgs[i]->delivery_attempt,
                    msgs[i]->lite_topic ? msgs[i]->lite_topic : "-", (int)was_seen);
            rsql_rmq_msg_destroy(msgs[i]);
        }
        rsql_free(msgs);
        printf("repoll %zu\n", n);
        if (n) {
            rc = 1;
        }
    }
    qsort(seen, n_seen, sizeof(char *), cmp_str);
    for (size_t i = 0; i < n_seen; i++) {
        printf("id %s\n", seen[i]);
        rsql_free(seen[i]);
    }
    rsql_free(seen);
    int body_missing = 0;
    for (int i = 0; i < a->count; i++) {
        body_missing += !body_ids[i];
    }
    rsql_free(body_ids);
    printf("received %zu duplicates %d lite_missing %d body_ids_missing %d\n", n_seen, dups,
           lite_missing, body_missing);
    if (n_seen != (size_t)a->count || dups || lite_missing || body_missing) {
        rc = 1;
    }
    rsql_rmq_client_destroy(c);
    return rc;
}

/*
** change: two messages A and B, each made invisible for 10 s more by ChangeInvisibleDuration
** (new handle). A: ack with the OLD handle, then with the NEW one (must succeed). B: ack with
** the OLD handle only. Then poll for 25 s: B must come back (the old handle did not ack it), A
** must not (the new handle did).
*/
static int cmd_change(const args_t *a)
{
    rsql_rmq_client_t *p = open_client(a, RSQL_RMQ_PRODUCER, a->topic);
    rsql_rmq_client_t *c = p ? open_client(a, RSQL_RMQ_SIMPLE_CONSUMER, a->topic) : NULL;
    int rc = 1;
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_rmq_msg_t *got[2] = {NULL, NULL};
    size_t n_got = 0;
    char *nh[2] = {NULL, NULL};
    if (!c) {
        goto out;
    }
    rsql_rmq_out_msg_t m[2] = {{.topic = a->topic, .body = "{\"id\":0}", .body_len = 8},
                               {.topic = a->topic, .body = "{\"id\":1}", .body_len = 8}};
    if (tsync_send(p, m, 2, NULL, &e) != RSQL_OK) {
        fail("send", &e);
        goto out;
    }
    for (int i = 0; i < 6 && n_got < 2; i++) {
        rsql_rmq_msg_t **msgs = NULL;
        size_t n = 0;
        rsql_error_clear(&e);
        if (tsync_receive(c, a->topic, 2, 20000, &msgs, &n, &e) != RSQL_OK) {
            fail("receive", &e);
            goto out;
        }
        for (size_t k = 0; k < n; k++) {
            if (n_got < 2) {
                got[n_got++] = msgs[k];
            } else {
                rsql_rmq_msg_destroy(msgs[k]);
            }
        }
        rsql_free(msgs);
    }
    if (n_got != 2) {
        fprintf(stderr, "FAIL change: received %zu messages\n", n_got);
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        rsql_error_clear(&e);
        if (tsync_change_invisible(c, a->topic, got[i]->message_id,
                                           got[i]->receipt_handle, NULL, 10000, false, &nh[i],
                                           &e) != RSQL_OK) {
            fail("change_invisible", &e);
            goto out;
        }
        printf("new handle differs: %s\n", strcmp(nh[i], got[i]->receipt_handle) ? "yes" : "no");
    }
    int32_t code = 0;
    rsql_rmq_ack_entry_t olda = {got[0]->message_id, got[0]->receipt_handle, NULL};
    rsql_error_clear(&e);
    rsql_err_t r = tsync_ack(c, a->topic, &olda, 1, &code, &e);
    printf("A old handle ack: %s (%d)\n", r == RSQL_OK ? "ok" : "failed", (int)code);
    rsql_rmq_ack_entry_t newa = {got[0]->message_id, nh[0], NULL};
    rsql_error_clear(&e);
    rsql_err_t ra = tsync_ack(c, a->topic, &newa, 1, &code, &e);
    printf("A new handle ack: %s (%d) %s\n", ra == RSQL_OK ? "ok" : "failed", (int)code, e.msg);
    rsql_rmq_ack_entry_t oldb = {got[1]->message_id, got[1]->receipt_handle, NULL};
    rsql_error_clear(&e);
    r = tsync_ack(c, a->topic, &oldb, 1, &code, &e);
    printf("B old handle ack: %s (%d)\n", r == RSQL_OK ? "ok" : "failed", (int)code);
    bool a_back = false, b_back = false;
    time_t end = time(NULL) + 25;
    while (time(NULL) < end && !b_back) {
        rsql_rmq_msg_t **msgs = NULL;
        size_t n = 0;
        rsql_error_clear(&e);
        if (tsync_receive(c, a->topic, 2, 10000, &msgs, &n, &e) != RSQL_OK) {
            fail("re-receive", &e);
            break;
        }
        for (size_t k = 0; k < n; k++) {
            a_back = a_back || strcmp(msgs[k]->message_id, got[0]->message_id) == 0;
            if (strcmp(msgs[k]->message_id, got[1]->message_id) == 0) {
                b_back = true;
                printf("B came back: attempt %d\n", (int)msgs[k]->delivery_attempt);
                rsql_rmq_ack_entry_t x = {msgs[k]->message_id, msgs[k]->receipt_handle, NULL};
                tsync_ack(c, a->topic, &x, 1, NULL, NULL);
            }
            rsql_rmq_msg_destroy(msgs[k]);
        }
        rsql_free(msgs);
    }
    printf("A came back: %s; B came back: %s\n", a_back ? "yes" : "no", b_back ? "yes" : "no");
    rc = (strcmp(nh[0], got[0]->receipt_handle) != 0 && ra == RSQL_OK && !a_back && b_back) ? 0
                                                                                          : 1;
out:
    for (int i = 0; i < 2; i++) {
        rsql_rmq_msg_destroy(got[i]);
        rsql_free(nh[i]);
    }
    rsql_rmq_client_destroy(c);
    rsql_rmq_client_destroy(p);
    return rc;
}

static int cmd_errors(const args_t *a)
{
    rsql_rmq_client_t *p = open_client(a, RSQL_RMQ_PRODUCER, a->topic);
    if (!p) {
        return 1;
    }
    int rc = 0;
    rsql_error_t e;
    rsql_error_clear(&e);
    rsql_rmq_out_msg_t m = {.topic = a->missing, .body = "x", .body_len = 1};
    rsql_err_t r = tsync_send(p, &m, 1, NULL, &e);
    printf("missing topic: rc=%d remote=%d retriable=%d msg=%s\n", (int)r, (int)e.remote_code,
           (int)rsql_error_retriable(&e), e.msg);
    if (r == RSQL_OK || e.remote_code != RSQL_RMQ_CODE_TOPIC_NOT_FOUND || rsql_error_retriable(&e)) {
        rc = 1;
    }
    size_t big_len = 5u * 1024 * 1024;
    char *big = rsql_malloc(big_len);
    memset(big, 'a', big_len);
    rsql_error_clear(&e);
    rsql_rmq_out_msg_t b = {.topic = a->topic, .body = big, .body_len = big_len};
    r = tsync_send(p, &b, 1, NULL, &e);
    printf("oversized body: rc=%d remote=%d retriable=%d msg=%s\n", (int)r, (int)e.remote_code,
           (int)rsql_error_retriable(&e), e.msg);
    if (r == RSQL_OK || rsql_error_retriable(&e)) {
        rc = 1;
    }
    rsql_free(big);
    /* a client for a topic that does not exist cannot start: QueryRoute says TOPIC_NOT_FOUND */
    const char *topics[1] = {a->missing};
    rsql_rmq_config_t conf = {.endpoints = a->endpoint, .client_type = RSQL_RMQ_PRODUCER,
                              .topics = topics, .n_topics = 1};
    rsql_rmq_client_t *q = rsql_rmq_client_new(&conf, &e);
    rsql_error_clear(&e);
    r = rsql_rmq_client_start(q, &e);
    printf("start on missing topic: rc=%d remote=%d retriable=%d msg=%s\n", (int)r,
           (int)e.remote_code, (int)rsql_error_retriable(&e), e.msg);
    if (r == RSQL_OK || e.remote_code != RSQL_RMQ_CODE_TOPIC_NOT_FOUND) {
        rc = 1;
    }
    rsql_rmq_client_destroy(q);
    rsql_rmq_client_destroy(p);
    return rc;
}

static int cmd_fifo(const args_t *a)
{
    args_t pa = *a;
    int rc = cmd_produce(&pa);
    if (rc) {
        return rc;
    }
    rsql_rmq_client_t *c = open_client(a, RSQL_RMQ_SIMPLE_CONSUMER, a->topic);
    if (!c) {
        return 1;
    }
    int k = a->group_count > 0 ? a->group_count : 1;
    int *last = rsql_calloc((size_t)k, sizeof(int));
    for (int i = 0; i < k; i++) {
        last[i] = -1;
    }
    int got = 0, disorder = 0;
    time_t end = time(NULL) + (a->timeout_s > 0 ? a->timeout_s : 120);
    while (rc == 0 && got < a->count && time(NULL) < end) {
        rsql_rmq_msg_t **msgs = NULL;
        size_t n = 0;
        rsql_error_t e;
        rsql_error_clear(&e);
        if (tsync_receive(c, a->topic, 32, 30000, &msgs, &n, &e) != RSQL_OK) {
            rc = fail("receive", &e);
            break;
        }
        rsql_rmq_ack_entry_t *ents = rsql_calloc(n ? n : 1, sizeof(*ents));
        for (size_t i = 0; i < n; i++) {
            int id = atoi(strchr((char *)msgs[i]->body, ':') + 1);
            int g = msgs[i]->message_group ? atoi(msgs[i]->message_group + 1) : -1;
            if (g < 0 || g >= k || id <= last[g]) {
                disorder++;
            } else {
                last[g] = id;
            }
            got++;
            ents[i] = (rsql_rmq_ack_entry_t){msgs[i]->message_id, msgs[i]->receipt_handle, NULL};
        }
        if (n && tsync_ack(c, a->topic, ents, n, NULL, &e) != RSQL_OK) {
            rc = fail("ack", &e);
        }
        for (size_t i = 0; i < n; i++) {
            rsql_rmq_msg_destroy(msgs[i]);
        }
        rsql_free(msgs);
        rsql_free(ents);
    }
    printf("fifo received %d disorder %d\n", got, disorder);
    rsql_free(last);
    rsql_rmq_client_destroy(c);
    return rc || got != a->count || disorder ? 1 : 0;
}

int main(int argc, char **argv)
{
    args_t a = {0};
    a.endpoint = "127.0.0.1:8081";
    a.lite_type = RSQL_RMQ_LITE_SIMPLE_CONSUMER;
    a.cmd = argc > 1 ? argv[1] : "";
    for (int i = 2; i < argc; i++) {
        const char *k = argv[i], *v = i + 1 < argc ? argv[i + 1] : "";
        if (strcmp(k, "--lite") == 0) {
            a.lite = true;
            continue;
        }
        i++;
        if (strcmp(k, "--endpoint") == 0) {
            a.endpoint = v;
        } else if (strcmp(k, "--topic") == 0) {
            a.topic = v;
        } else if (strcmp(k, "--group") == 0) {
            a.group = v;
        } else if (strcmp(k, "--missing") == 0) {
            a.missing = v;
        } else if (strcmp(k, "--tag") == 0) {
            a.tag = v;
        } else if (strcmp(k, "--count") == 0) {
            a.count = atoi(v);
        } else if (strcmp(k, "--group-count") == 0) {
            a.group_count = atoi(v);
        } else if (strcmp(k, "--lite-count") == 0) {
            a.lite_count = atoi(v);
        } else if (strcmp(k, "--batch") == 0) {
            a.batch = atoi(v);
        } else if (strcmp(k, "--lite-type") == 0) {
            a.lite_type = strcmp(v, "push") == 0 ? RSQL_RMQ_LITE_PUSH_CONSUMER
                                                 : RSQL_RMQ_LITE_SIMPLE_CONSUMER;
        } else if (strcmp(k, "--timeout") == 0) {
            a.timeout_s = atoi(v);
        } else {
            fprintf(stderr, "unknown argument %s\n", k);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (!a.topic) {
        fprintf(stderr, "usage: rmq_client_probe produce|consume|change|errors|fifo --topic T ...\n");
        return 2;
    }
    if (strcmp(a.cmd, "produce") == 0) {
        return cmd_produce(&a);
    }
    if (strcmp(a.cmd, "consume") == 0) {
        return cmd_consume(&a);
    }
    if (strcmp(a.cmd, "change") == 0) {
        return cmd_change(&a);
    }
    if (strcmp(a.cmd, "errors") == 0) {
        return cmd_errors(&a);
    }
    if (strcmp(a.cmd, "fifo") == 0) {
        return cmd_fifo(&a);
    }
    fprintf(stderr, "unknown command %s\n", a.cmd);
    return 2;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The kafka source's consumer group side (kafka_source_int.h): the commits of the job's
 * positions to the group, and in group mode the subscription and its rebalances.
 *
 * Positions: the runtime commits a partition only up to the first record whose outcome is not
 * known and tells the source (ks_committed); the poll thread sends each such commit to the
 * group, for the partitions it owns only (a partition given up belongs to another member,
 * whose commits must not be overwritten by older ones).
 *
 * Group mode: a partition assigned starts at the later of the group's committed offset and
 * the job's own position of it. Each member's own position is that of what it delivered, and
 * the group's is that of what some member delivered, so the later of the two skips nothing;
 * and a member never goes back to a stale position of its own once another member moved the
 * partition on. A partition revoked is drained first: the revoke waits until every record of
 * it that was handed on is committed by the job, commits that to the group and only then gives
 * the partition up, so the next owner starts where this one stopped.
 */
#include "config.h"
#include "connectors/kafka/kafka_source_int.h"
#include "base/rsql_log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int rsql_kafka__lane_of(const rsql_source_t *s, const char *topic, int32_t partition)
{
    for (int i = 0; i < s->n_lanes; i++) {
        if (s->lanes[i].partition == partition && strcmp(s->lanes[i].topic, topic) == 0) {
            return i;
        }
    }
    return -1;
}

/*
** The positions the job committed since the last time (every lane with any, when all is set),
** of the partitions owned, as one list for the group; NULL when there is none (or no memory:
** they stay dirty).
*/
static rd_kafka_topic_partition_list_t *group_offsets(rsql_source_t *s, bool all,
                                                      bool unconfirmed)
{
    rd_kafka_topic_partition_list_t *tl = NULL;
    for (int i = 0; i < s->n_lanes; i++) {
        lane_t *l = &s->lanes[i];
        int64_t off = atomic_load(&l->committed);
        bool want = all ? off >= 0 : atomic_load(&l->dirty);
        want |= unconfirmed && off >= 0 && off != l->acked;
        if (!want || !atomic_load(&l->owned)) {
            continue;
        }
        if (!tl && !(tl = rd_kafka_topic_partition_list_new(s->n_lanes))) {
            return NULL;
        }
        atomic_store(&l->dirty, false);
        rd_kafka_topic_partition_list_add(tl, l->topic, l->partition)->offset =
            atomic_load(&l->committed);
    }
    return tl;
}

void rsql_kafka__group_commit(rsql_source_t *s)
{
    int64_t now = now_ms();
    if (!s->commit || now < s->commit_at_ms) {
        return;
    }
    s->commit_at_ms = now + KAFKA_GROUP_COMMIT_MS;
    bool resend = now >= s->resend_at_ms;
    if (resend) {
        s->resend_at_ms = now + KAFKA_GROUP_RESEND_MS;
    }
    rd_kafka_topic_partition_list_t *tl = group_offsets(s, false, resend);
    if (tl) {
        rd_kafka_commit(s->rk, tl, 1);
        rd_kafka_topic_partition_list_destroy(tl);
    }
}

/*
** One synchronous commit of tl: the first error, the request's or a partition's (NO_ERROR when
** every partition is committed; those are marked confirmed). Waits up to timeout_ms.
*/
static rd_kafka_resp_err_t commit_once(rsql_source_t *s, rd_kafka_topic_partition_list_t *tl,
                                       int timeout_ms)
{
    rd_kafka_queue_t *cq = rd_kafka_queue_new(s->rk);
    if (!cq) {
        return RD_KAFKA_RESP_ERR__FAIL;
    }
    rd_kafka_resp_err_t e = rd_kafka_commit_queue(s->rk, tl, cq, NULL, NULL);
    rd_kafka_event_t *ev = e == RD_KAFKA_RESP_ERR_NO_ERROR ? rd_kafka_queue_poll(cq, timeout_ms)
                                                           : NULL;
    if (e == RD_KAFKA_RESP_ERR_NO_ERROR) {
        e = ev ? rd_kafka_event_error(ev) : RD_KAFKA_RESP_ERR__TIMED_OUT;
    }
    const rd_kafka_topic_partition_list_t *got = ev ? rd_kafka_event_topic_partition_list(ev)
                                                    : NULL;
    for (int i = 0; e == RD_KAFKA_RESP_ERR_NO_ERROR && got && i < got->cnt; i++) {
        e = got->elems[i].err;
    }
    for (int i = 0; e == RD_KAFKA_RESP_ERR_NO_ERROR && i < tl->cnt; i++) {
        int li = rsql_kafka__lane_of(s, tl->elems[i].topic, tl->elems[i].partition);
        if (li >= 0) {
            s->lanes[li].acked = tl->elems[i].offset;
        }
    }
    if (ev) {
        rd_kafka_event_destroy(ev);
    }
    rd_kafka_queue_destroy(cq);
    return e;
}

/*
** Commit tl to the group and wait for the answer, again while it fails (a partition's commit
** can be refused while the group rebalances), for up to timeout_ms in all; what: for the
** warning when it never succeeds.
*/
static void commit_wait(rsql_source_t *s, rd_kafka_topic_partition_list_t *tl, int timeout_ms,
                        const char *what)
{
    int64_t until = now_ms() + timeout_ms;
    rd_kafka_resp_err_t e;
    int tries = 0;
    for (;;) {
        int64_t left = until - now_ms();
        e = commit_once(s, tl, (int)(left > 0 ? left : 1));
        tries++;
        if (e == RD_KAFKA_RESP_ERR_NO_ERROR || now_ms() + KAFKA_COMMIT_RETRY_MS >= until ||
            atomic_load(&s->stopping)) {
            break;
        }
        struct timespec pause = {0, KAFKA_COMMIT_RETRY_MS * 1000000L};
        nanosleep(&pause, NULL);
    }
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rsql_log(RSQL_LOG_WARN, "kafka", "%s: %s to group '%s': %s after %d tries (the "
                 "positions are in the catalog)", s->where, what, s->group, rd_kafka_err2str(e),
                 tries);
    } else if (tries > 1) {
        rsql_log(RSQL_LOG_INFO, "kafka", "%s: %s to group '%s' done at try %d", s->where, what,
                 s->group, tries);
    }
}

void rsql_kafka__group_commit_last(rsql_source_t *s, int timeout_ms)
{
    rd_kafka_topic_partition_list_t *tl = s->commit ? group_offsets(s, true, false) : NULL;
    if (tl) {
        commit_wait(s, tl, timeout_ms, "the last commit");
        rd_kafka_topic_partition_list_destroy(tl);
    }
}

void rsql_kafka__commit_cb(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                           rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    (void)rk;
    rsql_source_t *s = opaque;
    if (e == RD_KAFKA_RESP_ERR__NO_OFFSET) {
        return;
    }
    for (int i = 0; offsets && i < offsets->cnt; i++) {
        rd_kafka_resp_err_t pe = e ? e : offsets->elems[i].err;
        int li = rsql_kafka__lane_of(s, offsets->elems[i].topic, offsets->elems[i].partition);
        if (li < 0) {
            continue;
        }
        if (pe == RD_KAFKA_RESP_ERR_NO_ERROR) {
            s->lanes[li].acked = offsets->elems[i].offset; /* the poll thread's field */
            continue;
        }
        atomic_store(&s->lanes[li].dirty, true); /* sent again by a later poll */
        rsql_log(RSQL_LOG_DEBUG, "kafka", "%s: commit of %s to group '%s': %s (sent again)",
                 s->where, s->lanes[li].name, s->group, rd_kafka_err2str(pe));
    }
}

static bool cooperative(rsql_source_t *s)
{
    const char *p = rd_kafka_rebalance_protocol(s->rk);
    return p && strcmp(p, "COOPERATIVE") == 0;
}

/* Log and drop a rebalance call's error object (librdkafka's incremental calls return one). */
static void rebalance_error(rsql_source_t *s, const char *what, rd_kafka_error_t *error)
{
    if (error) {
        rsql_log(RSQL_LOG_WARN, "kafka", "%s: %s in group '%s': %s", s->where, what, s->group,
                 rd_kafka_error_string(error));
        rd_kafka_error_destroy(error);
    }
}

/* The later of two positions (-1: none). */
static int64_t later(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Partitions assigned: each from the later of the group's offset and the job's own. */
static void on_assign(rsql_source_t *s, rd_kafka_topic_partition_list_t *parts)
{
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_copy(parts);
    if (!tl) {
        rsql_log(RSQL_LOG_ERROR, "kafka", "%s: out of memory taking partitions", s->where);
        return;
    }
    /* the group's committed offsets (-1001, RD_KAFKA_OFFSET_INVALID, where it has none) */
    rd_kafka_resp_err_t e = rd_kafka_committed(s->rk, tl, 10000);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        rsql_log(RSQL_LOG_WARN, "kafka", "%s: the committed offsets of group '%s': %s (the "
                 "partitions start at the job's own positions, else per scan.startup.mode)",
                 s->where, s->group, rd_kafka_err2str(e));
    }
    rd_kafka_topic_partition_list_t *take = rd_kafka_topic_partition_list_new(tl->cnt);
    for (int i = 0; take && i < tl->cnt; i++) {
        rd_kafka_topic_partition_t *tp = &tl->elems[i];
        int li = rsql_kafka__lane_of(s, tp->topic, tp->partition);
        bool added = false;
        if (li < 0) {
            /* a partition added to the topic after the job started: all it holds was written
               since, so it is read from its beginning (unless the group has an offset) */
            li = rsql_kafka__lane_add(s, tp->topic, tp->partition, false);
            if (li < 0) {
                rsql_log(RSQL_LOG_ERROR, "kafka", "%s: partition %s/%" PRId32 " was added "
                         "after the job started and cannot be taken (more than %d added, or "
                         "out of memory): not read until the job starts again", s->where,
                         tp->topic, tp->partition, RSQL_KAFKA_MORE_LANES);
                continue;
            }
            s->lanes[li].start = RD_KAFKA_OFFSET_BEGINNING;
            added = true;
        }
        lane_t *l = &s->lanes[li];
        if (added) {
            rsql_log(RSQL_LOG_INFO, "kafka", "%s: partition %s was added to the topic after "
                     "the job started: read from its beginning", s->where, l->name);
        }
        int64_t group = e == RD_KAFKA_RESP_ERR_NO_ERROR && tp->err == RD_KAFKA_RESP_ERR_NO_ERROR
                            ? tp->offset
                            : -1;
        int64_t own = later(atomic_load(&l->committed), l->resume);
        int64_t from = later(group, own);
        atomic_store(&l->owned, true);
        l->polled = -1;
        l->next = from;
        l->acked = group;
        if (group > atomic_load(&l->committed)) {
            /* what some member delivered is this job's position too: an older one of its own
               must never be sent to the group again */
            atomic_store(&l->committed, group);
        }
        if (own > group && own >= 0) {
            /* the group is behind what this job delivered: tell it */
            if (atomic_load(&l->committed) < own) {
                atomic_store(&l->committed, own);
            }
            atomic_store(&l->dirty, true);
        }
        rd_kafka_topic_partition_list_add(take, l->topic, l->partition)->offset =
            from >= 0 ? from : l->start;
        rsql_log(RSQL_LOG_INFO, "kafka", "%s: group '%s' assigned %s, from %s %" PRId64,
                 s->where, s->group, l->name,
                 from < 0 ? "scan.startup.mode" : from == group ? "the group's offset"
                                                                : "the job's position",
                 from >= 0 ? from : l->start);
    }
    if (!take) {
        rsql_log(RSQL_LOG_ERROR, "kafka", "%s: out of memory taking partitions", s->where);
    } else if (cooperative(s)) {
        rebalance_error(s, "taking partitions", rd_kafka_incremental_assign(s->rk, take));
    } else {
        rd_kafka_resp_err_t ae = rd_kafka_assign(s->rk, take);
        if (ae != RD_KAFKA_RESP_ERR_NO_ERROR) {
            rsql_log(RSQL_LOG_WARN, "kafka", "%s: taking partitions in group '%s': %s",
                     s->where, s->group, rd_kafka_err2str(ae));
        }
    }
    if (take) {
        rd_kafka_topic_partition_list_destroy(take);
    }
    rd_kafka_topic_partition_list_destroy(tl);
}

/* Every lane of parts that handed records on has them committed by the job (or none). */
static bool drained(rsql_source_t *s, const rd_kafka_topic_partition_list_t *parts)
{
    for (int i = 0; i < parts->cnt; i++) {
        int li = rsql_kafka__lane_of(s, parts->elems[i].topic, parts->elems[i].partition);
        if (li >= 0 && atomic_load(&s->lanes[li].owned) && s->lanes[li].polled >= 0 &&
            atomic_load(&s->lanes[li].committed) < s->lanes[li].polled) {
            return false;
        }
    }
    return true;
}

/* Partitions revoked: drain them, commit, give them up. */
static void on_revoke(rsql_source_t *s, rd_kafka_topic_partition_list_t *parts)
{
    bool lost = rd_kafka_assignment_lost(s->rk);
    if (!lost && !s->closing) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += KAFKA_REVOKE_DRAIN_MS / 1000;
        pthread_mutex_lock(&s->mu);
        int rc = 0;
        while (rc != ETIMEDOUT && !atomic_load(&s->stopping) && !drained(s, parts)) {
            rc = pthread_cond_timedwait(&s->cv, &s->mu, &until);
        }
        pthread_mutex_unlock(&s->mu);
        if (!drained(s, parts)) {
            rsql_log(RSQL_LOG_WARN, "kafka", "%s: giving partitions up in group '%s' with "
                     "records still on their way (%s): their next owner reads them again",
                     s->where, s->group, rc == ETIMEDOUT ? "drain timed out" : "the run stops");
        }
    }
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(parts->cnt);
    for (int i = 0; tl && i < parts->cnt; i++) {
        int li = rsql_kafka__lane_of(s, parts->elems[i].topic, parts->elems[i].partition);
        int64_t off = li >= 0 ? atomic_load(&s->lanes[li].committed) : -1;
        if (li >= 0 && atomic_load(&s->lanes[li].owned) && off >= 0 &&
            off != s->lanes[li].acked) {
            rd_kafka_topic_partition_list_add(tl, parts->elems[i].topic,
                                              parts->elems[i].partition)->offset = off;
        }
    }
    if (tl && tl->cnt > 0 && !lost) {
        commit_wait(s, tl, 10000, "the commit of partitions given up");
    }
    if (tl) {
        rd_kafka_topic_partition_list_destroy(tl);
    }
    for (int i = 0; i < parts->cnt; i++) {
        int li = rsql_kafka__lane_of(s, parts->elems[i].topic, parts->elems[i].partition);
        if (li >= 0) {
            atomic_store(&s->lanes[li].owned, false);
            s->lanes[li].polled = -1;
            if (lost) {
                rsql_log(RSQL_LOG_WARN, "kafka", "%s: group '%s' lost partition %s (this "
                         "member's generation ended): its next owner reads again what this job "
                         "did not commit to the group", s->where, s->group, s->lanes[li].name);
            } else {
                rsql_log(RSQL_LOG_INFO, "kafka", "%s: group '%s' revoked %s", s->where,
                         s->group, s->lanes[li].name);
            }
        }
    }
    if (cooperative(s)) {
        rebalance_error(s, "giving partitions up", rd_kafka_incremental_unassign(s->rk, parts));
    } else {
        rd_kafka_assign(s->rk, NULL);
    }
}

void rsql_kafka__rebalance_cb(rd_kafka_t *rk, rd_kafka_resp_err_t e,
                              rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    (void)rk;
    rsql_source_t *s = opaque;
    switch (e) {
    case RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS:
        on_assign(s, parts);
        break;
    case RD_KAFKA_RESP_ERR__REVOKE_PARTITIONS:
        on_revoke(s, parts);
        break;
    default:
        rsql_log(RSQL_LOG_WARN, "kafka", "%s: rebalance of group '%s' failed: %s", s->where,
                 s->group, rd_kafka_err2str(e));
        for (int i = 0; i < s->n_lanes; i++) {
            atomic_store(&s->lanes[i].owned, false);
            s->lanes[i].polled = -1;
        }
        rd_kafka_assign(s->rk, NULL);
        break;
    }
}

rsql_err_t rsql_kafka__group_subscribe(rsql_source_t *s, rsql_error_t *err)
{
    rd_kafka_topic_partition_list_t *tl = rd_kafka_topic_partition_list_new(4);
    if (!tl) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < s->n_lanes; i++) {
        bool seen = false;
        for (int k = 0; k < tl->cnt && !seen; k++) {
            seen = strcmp(tl->elems[k].topic, s->lanes[i].topic) == 0;
        }
        if (!seen) {
            rd_kafka_topic_partition_list_add(tl, s->lanes[i].topic, RD_KAFKA_PARTITION_UA);
        }
    }
    rd_kafka_resp_err_t e = rd_kafka_subscribe(s->rk, tl);
    rd_kafka_topic_partition_list_destroy(tl);
    if (e != RD_KAFKA_RESP_ERR_NO_ERROR) {
        return rsql_error_set(err, rsql_kafka__err_code(e), RSQL_NOPOS,
                              "kafka %s: cannot subscribe in group '%s': %s", s->where,
                              s->group, rd_kafka_err2str(e));
    }
    rsql_log(RSQL_LOG_INFO, "kafka", "%s: subscribed in group '%s' (%s)", s->where, s->group,
             "partitions come with the group's rebalances");
    return RSQL_OK;
}

/* Append text to buf (size bytes) at *at, NUL-terminated, never past its end. */
static void put(char *buf, size_t size, size_t *at, const char *text)
{
    size_t n = strlen(text);
    if (*at + 1 >= size) {
        return;
    }
    if (n > size - 1 - *at) {
        n = size - 1 - *at;
    }
    memcpy(buf + *at, text, n);
    *at += n;
    buf[*at] = '\0';
}

/* text as a JSON string's inside (quotes and backslashes escaped, control bytes dropped). */
static void put_json(char *buf, size_t size, size_t *at, const char *text)
{
    for (const char *p = text; *p; p++) {
        char one[3] = {*p, 0, 0};
        if (*p == '"' || *p == '\\') {
            one[0] = '\\';
            one[1] = *p;
        } else if ((unsigned char)*p < 0x20) {
            continue;
        }
        put(buf, size, at, one);
    }
}

/* The messages after the position of the owned partitions, or -1 when no watermark is known. */
static int64_t backlog(rsql_source_t *s)
{
    int64_t sum = 0;
    bool known = false;
    for (int i = 0; i < s->n_lanes; i++) {
        lane_t *l = &s->lanes[i];
        int64_t lo = -1, hi = -1;
        if (!atomic_load(&l->owned) ||
            rd_kafka_get_watermark_offsets(s->rk, l->topic, l->partition, &lo, &hi) !=
                RD_KAFKA_RESP_ERR_NO_ERROR ||
            hi < 0) {
            continue;
        }
        int64_t pos = atomic_load_explicit(&l->shown, memory_order_relaxed);
        if (pos < 0) { /* nothing handed on yet: from where it starts */
            pos = l->resume >= 0 ? l->resume : lo;
        }
        known = true;
        sum += hi > pos ? hi - pos : 0;
    }
    return known ? sum : -1;
}

size_t rsql_kafka__describe(rsql_source_t *s, bool text, char *buf, size_t size)
{
    size_t at = 0;
    if (size == 0) {
        return 0;
    }
    buf[0] = '\0';
    int64_t lag = backlog(s);
    char num[96];
    if (!s->group_mode) {
        if (lag >= 0) {
            snprintf(num, sizeof num, text ? "backlog %lld messages" : "{\"backlog_messages\":%lld}",
                     (long long)lag);
            put(buf, size, &at, num);
        }
        return at;
    }
    int owned = 0;
    for (int i = 0; i < s->n_lanes; i++) {
        owned += atomic_load(&s->lanes[i].owned);
    }
    if (text) {
        put(buf, size, &at, "group ");
        put(buf, size, &at, s->group);
        snprintf(num, sizeof num, ": %d of %d partitions", owned, s->n_lanes);
        put(buf, size, &at, num);
        if (lag >= 0) {
            snprintf(num, sizeof num, "; backlog %lld messages", (long long)lag);
            put(buf, size, &at, num);
        }
        return at;
    }
    put(buf, size, &at, "{\"group\":\"");
    put_json(buf, size, &at, s->group);
    snprintf(num, sizeof num, "\",\"of\":%d,\"partitions\":[", s->n_lanes);
    put(buf, size, &at, num);
    int k = 0;
    for (int i = 0; i < s->n_lanes; i++) {
        if (atomic_load(&s->lanes[i].owned)) {
            put(buf, size, &at, k++ ? ",\"" : "\"");
            put_json(buf, size, &at, s->lanes[i].name);
            put(buf, size, &at, "\"");
        }
    }
    put(buf, size, &at, "]");
    if (lag >= 0) {
        snprintf(num, sizeof num, ",\"backlog_messages\":%lld", (long long)lag);
        put(buf, size, &at, num);
    }
    put(buf, size, &at, "}");
    if (at + 1 >= size) { /* cut: say nothing rather than broken JSON */
        buf[0] = '\0';
        return 0;
    }
    return at;
}

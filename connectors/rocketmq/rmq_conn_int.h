/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_conn_int: private declarations of the rocketmq-grpc data path (rmq_source.c, rmq_sink.c)
 * on top of the client (rmq_client.h): the lane map of rmq_inflight.c, which gives every lite
 * topic (source), message group (FIFO source and sink) or other string key a small stable lane
 * number and keeps per-lane counts: messages in flight (received, outcome not yet known),
 * delivered (acked), deferred (throttling) and a per-lane offset sequence. The source
 * reports lanes as its partitions, so the runtime's offset tracker keys in-flight by lite topic
 * too. Also the fair per-lite-topic throttling policy (rmq_throttle.c). Not thread-safe: the
 * owner guards them with its own lock.
 */
#ifndef RSQL_RMQ_CONN_INT_H
#define RSQL_RMQ_CONN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_error.h"

typedef struct rsql_rmq_inflight rsql_rmq_inflight_t;

/* Per-lane counts. */
typedef struct rsql_rmq_lane_stats {
    int64_t in_flight; /* received and held, outcome not yet known */
    int64_t received;  /* every message received on the lane */
    int64_t delivered; /* acked (or forwarded to the DLQ) */
    int64_t released;  /* let go without an ack (failed, or still held at close) */
    int64_t deferred;  /* made invisible again by throttling */
} rsql_rmq_lane_stats_t;

/*
** A new empty lane map; names of lanes are "<prefix>" for the empty key and "<prefix>/<key>"
** otherwise (prefix copied; NULL = ""). NULL when out of memory. Caller destroys.
*/
rsql_rmq_inflight_t *rsql_rmq_inflight_new(const char *prefix);
/* FNV-1a of the NUL-terminated s: the lane map's hash, and the sink's of a long key. */
uint32_t rsql_rmq__hash(const char *s);
/* Free the map and its names. NULL-safe. */
void rsql_rmq_inflight_destroy(rsql_rmq_inflight_t *t);
/*
** The lane of key (NULL = ""), created on first use (lanes are numbered 0, 1, 2, ...; the number
** of a lane that went is reused by the next new key). RSQL_ERR_NOMEM when a new lane cannot be
** made.
*/
rsql_err_t rsql_rmq_inflight_lane(rsql_rmq_inflight_t *t, const char *key, uint32_t *lane,
                                  rsql_error_t *err);
/* The lane of key if it exists (false otherwise). */
bool rsql_rmq_inflight_find(const rsql_rmq_inflight_t *t, const char *key, uint32_t *lane);
/* Lane numbers used so far, live or free: every lane is below it. */
uint32_t rsql_rmq_inflight_count(const rsql_rmq_inflight_t *t);
/* Number of live lanes. */
uint32_t rsql_rmq_inflight_live(const rsql_rmq_inflight_t *t);
/*
** Let idle lanes go, at most every idle_ms / 2 (a call before that returns 0 at once): a lane
** goes when it has nothing in flight, saw no activity (new message, outcome, lookup by key) for
** idle_ms, and may_go (when given) agrees; may_go is asked last, so its true is final: it drops
** its own state of the lane then. Returns how many went. Their counts stay summed
** (rsql_rmq_inflight_gone).
*/
uint32_t rsql_rmq_inflight_sweep(rsql_rmq_inflight_t *t, int64_t now_ms, int64_t idle_ms,
                                 bool (*may_go)(void *opaque, uint32_t lane), void *opaque);
/* The counts of the lanes that went, summed. */
void rsql_rmq_inflight_gone(const rsql_rmq_inflight_t *t, rsql_rmq_lane_stats_t *out);
/*
** The lane's name ("<prefix>/<key>") and key (borrowed: stable until the lane goes), or NULL for
** a lane that does not exist.
*/
const char *rsql_rmq_inflight_name(const rsql_rmq_inflight_t *t, uint32_t lane);
const char *rsql_rmq_inflight_key(const rsql_rmq_inflight_t *t, uint32_t lane);
/* A message of lane was received (in_flight++, received++); returns the lane's next offset. */
int64_t rsql_rmq_inflight_received(rsql_rmq_inflight_t *t, uint32_t lane);
/*
** A held message of lane is done: acked/forwarded (delivered = true) or let go (false).
** in_flight never goes below 0.
*/
void rsql_rmq_inflight_done(rsql_rmq_inflight_t *t, uint32_t lane, bool delivered);
/* A message of lane was deferred (no longer held: in_flight--, deferred++). */
void rsql_rmq_inflight_deferred(rsql_rmq_inflight_t *t, uint32_t lane);
/* The lane's counts (zeros for a lane that does not exist). */
void rsql_rmq_inflight_stats(const rsql_rmq_inflight_t *t, uint32_t lane,
                             rsql_rmq_lane_stats_t *out);

/* ---- fair per-lite-topic throttling (rmq_throttle.c) -------------------------------------- */

typedef struct rsql_rmq_throttle rsql_rmq_throttle_t;

/* The policy's settings (the `throttle.*` and valve options of a lite source). */
typedef struct rsql_rmq_throttle_conf {
    int64_t max_inflight;     /* most held messages per lite topic; 0 = no cap */
    double rate;              /* most messages per second per lite topic; <= 0 = no rate limit */
    double burst;             /* token bucket capacity; <= 0 = max(1, rate) (one second) */
    int64_t defer_ms;         /* first deferral (`throttle.defer`) */
    int32_t max_attempts;     /* valve: at this delivery attempt a message is never deferred */
    int64_t max_invisible_ms; /* valve: no deferral is longer */
} rsql_rmq_throttle_conf_t;

/* What to do with one received message. */
typedef enum rsql_rmq_throttle_action {
    RSQL_RMQ_ADMIT,       /* within its lite topic's share: hand it to the pipeline */
    RSQL_RMQ_DEFER,       /* over its share: ChangeInvisibleDuration by *defer_ms, not held */
    RSQL_RMQ_ADMIT_VALVE  /* over its share but at max_attempts: processed anyway */
} rsql_rmq_throttle_action_t;

/*
** A new policy (conf copied), or NULL when out of memory. A policy with neither an in-flight
** cap nor a rate admits everything. Caller destroys. Not thread-safe (the source's lock).
*/
rsql_rmq_throttle_t *rsql_rmq_throttle_new(const rsql_rmq_throttle_conf_t *conf);
/* Free. NULL-safe. */
void rsql_rmq_throttle_destroy(rsql_rmq_throttle_t *t);
/* True when the policy can defer (a cap or a rate is set). */
bool rsql_rmq_throttle_active(const rsql_rmq_throttle_t *t);
/*
** Decide for one message of lane just received: in_flight = the lane's messages already held
** (not counting this one), attempt = its delivery attempt (1 = first; < 1 taken as 1), now_ms
** a monotonic clock. Admitting takes a token of the lane's bucket. On RSQL_RMQ_DEFER
** *defer_ms is the deferral (rsql_rmq_throttle_defer_ms); otherwise it is set to 0. A lane
** seen for the first time starts with a full bucket; when its state cannot be grown (out of
** memory) the message is admitted. A deferral for the rate is stretched to the lane's next
** free return slot (returns spaced 1/rate apart), never beyond max_invisible_ms.
*/
rsql_rmq_throttle_action_t rsql_rmq_throttle_decide(rsql_rmq_throttle_t *t, uint32_t lane,
                                                    int64_t in_flight, int32_t attempt,
                                                    int64_t now_ms, int64_t *defer_ms);
/*
** Drop the state of lane (a lane that goes: rsql_rmq_inflight_sweep) and return true, when it is
** where a new lane starts: no deferred message still to come back at a spaced return slot, and
** its bucket refilled by now_ms. False (state kept) otherwise. NULL t: true.
*/
bool rsql_rmq_throttle_forget(rsql_rmq_throttle_t *t, uint32_t lane, int64_t now_ms);
/*
** The deferral of a message at delivery attempt `attempt`: defer_ms x 2^(attempt - 1), never
** more than max_invisible_ms (and never negative).
*/
int64_t rsql_rmq_throttle_defer_ms(const rsql_rmq_throttle_conf_t *conf, int32_t attempt);
/*
** Describe the busiest lanes of lanes (by messages received, at most top_n) into buf (always
** NUL-terminated when size > 0): as JSON
**   {"lite_topics":[{"name":"t1","in_flight":3,"deferred":120,"delivered":900},...],
**    "lanes":N,"deferred":D}
** (N: the live lanes; D: every deferral, lanes that went included)
** or, with text, as a short status text "lite t1 3/120/900, t2 ..." (in flight/deferred/
** delivered). Returns the length written (0 when there are no lanes, buf then ""); output that
** does not fit is cut at a whole entry.
*/
size_t rsql_rmq_throttle_describe(const rsql_rmq_inflight_t *lanes, int top_n, bool text,
                                  char *buf, size_t size);

/* ---- lite client identities in use (rmq_lite_ids.c): pure, on the caller's clock */

/* Lite topics the 5.5.0 broker hands one identity per dispatch round (`maxClientEventCount`,
   ROCKETMQ-NOTES.md §1.3a): an identity that pops this many lite topics in one burst had a full
   round, so the backlog holds more than its identities are given per round */
#define RSQL_RMQ_ROUND_FULL 100
/* a burst: messages of one identity less than GAP apart, at most SPAN long (a round's lite
   topics are popped at once; the broker's rounds are 10 s apart) */
#define RSQL_RMQ_ROUND_GAP_MS 2000
#define RSQL_RMQ_ROUND_SPAN_MS 5000
/* no full round for this long (three of the broker's 10-s rounds): the backlog is gone */
#define RSQL_RMQ_IDS_SHRINK_MS 30000

/*
** One identity's current burst: the distinct lite topics (lanes) it received in it. Zeroed
** storage is an empty burst; rsql_rmq_round_deinit frees it.
*/
typedef struct rsql_rmq_round {
    int64_t start_ms, last_ms; /* the burst's first and latest message (0: none yet) */
    uint32_t stamp;            /* the burst's number: seen[lane] == stamp once counted */
    uint32_t *seen;            /* per lane: the burst that last counted it */
    uint32_t cap;
    int distinct;              /* lite topics counted in this burst */
} rsql_rmq_round_t;

/*
** A message of lane arrived at now_ms: counted in the identity's burst (a new burst starts when
** the last message is RSQL_RMQ_ROUND_GAP_MS old or the burst RSQL_RMQ_ROUND_SPAN_MS long). True
** exactly once per burst: when its distinct lite topics reach RSQL_RMQ_ROUND_FULL. Out of memory
** counts nothing (false).
*/
bool rsql_rmq_round_seen(rsql_rmq_round_t *r, uint32_t lane, int64_t now_ms);
/* Forget every burst (a new identity in the slot). Keeps the storage. */
void rsql_rmq_round_reset(rsql_rmq_round_t *r);
void rsql_rmq_round_deinit(rsql_rmq_round_t *r);

/*
** How many identities a lite source should have in use, between min (the floor) and max
** (`source.lite-clients`), start at open: a full round of any identity raises it to max at once
** (each identity added waits ~5 s for the broker's next round, so growing a step at a time would
** cost a round per step); RSQL_RMQ_IDS_SHRINK_MS without a full round (the start counts as one)
** lowers it back to min.
*/
typedef struct rsql_rmq_ids {
    int min, max, target;
    int64_t last_full_ms; /* the latest full round (0: none) */
} rsql_rmq_ids_t;

/* start (clamped to [min, max]) in use from now_ms. */
void rsql_rmq_ids_init(rsql_rmq_ids_t *d, int min, int max, int start, int64_t now_ms);
/* A full round at now_ms. True when the target changed (it grew). */
bool rsql_rmq_ids_full(rsql_rmq_ids_t *d, int64_t now_ms);
/* Time passed to now_ms. True when the target changed (back to min). */
bool rsql_rmq_ids_tick(rsql_rmq_ids_t *d, int64_t now_ms);
/* When rsql_rmq_ids_tick could next change the target (INT64_MAX: not before a full round). */
int64_t rsql_rmq_ids_next(const rsql_rmq_ids_t *d);
/* Growing failed (an identity could not start): the target stays at what is in use, n. */
void rsql_rmq_ids_failed(rsql_rmq_ids_t *d, int n);

/* ---- bounded reads (rmq_bounded.c): pure state machines on the caller's clock */

/* The proxy's shortest long poll (observed: it clamps to [5 s, 20 s], ROCKETMQ-NOTES.md §4). */
#define RSQL_RMQ_MIN_LONG_POLL_MS 5000

/*
** The idle clock of scan.idle-timeout: idle time the broker answered for since the last message
** (or since a not-before time). Caller's storage; times are one monotonic clock (ms).
*/
typedef struct rsql_rmq_idle {
    int64_t limit_ms;    /* scan.idle-timeout; < 0: unbounded, never expires */
    int64_t answered_ms; /* answered idle time counted */
    int64_t mark_ms;     /* counting resumes after this: the last span's end, message or start */
} rsql_rmq_idle_t;

/* Start at now_ms; nothing before not_before_ms (may be 0 or in the past) ever counts. */
void rsql_rmq_idle_init(rsql_rmq_idle_t *c, int64_t limit_ms, int64_t now_ms,
                        int64_t not_before_ms);
/* A message arrived (also one deferred at once): start counting again from now. */
void rsql_rmq_idle_message(rsql_rmq_idle_t *c, int64_t now_ms);
/*
** A long poll started at started_ms answered at now_ms with no message and no error: the part
** of [started_ms, now_ms] not yet counted (nor before a message or the not-before time) counts.
** Answers are fed in the order they arrive. A failed poll is not fed: it vouches for nothing.
*/
void rsql_rmq_idle_answered(rsql_rmq_idle_t *c, int64_t started_ms, int64_t now_ms);
/* True when the broker answered for limit_ms of idle time (never when unbounded). */
bool rsql_rmq_idle_expired(const rsql_rmq_idle_t *c);
/*
** The long poll to ask for: await_ms, or for a bounded read (idle_ms >= 0) no longer than the
** idle timeout, so the answer that completes it is not late, but at least
** RSQL_RMQ_MIN_LONG_POLL_MS (shorter deadlines make the proxy answer ILLEGAL_POLLING_TIME).
*/
int64_t rsql_rmq_idle_long_poll_ms(int64_t await_ms, int64_t idle_ms);

/*
** "Later": the times (one clock, ms) at which messages let go become visible again; the count
** of those still in the future. Zeroed storage is an empty set.
*/
typedef struct rsql_rmq_later {
    int64_t *t; /* min-heap */
    size_t n, cap;
    int64_t last_ms; /* the latest time added */
} rsql_rmq_later_t;

/* Add a time; false when out of memory (the message is then not counted). */
bool rsql_rmq_later_add(rsql_rmq_later_t *l, int64_t at_ms);
/*
** Forget the times <= now_ms; the count of the others, *last_ms (may be NULL) the latest of them
** (0 when none).
*/
size_t rsql_rmq_later_count(rsql_rmq_later_t *l, int64_t now_ms, int64_t *last_ms);
void rsql_rmq_later_deinit(rsql_rmq_later_t *l);

/* What a run leaves invisible to the next one (the source's leftover hook). */
typedef struct rsql_rmq_leftover {
    int64_t held;           /* held (unresolved, or released without an ack) */
    int64_t held_in_ms;     /* the last of them visible again in this long */
    int64_t deferred;       /* deferred by throttling and not visible yet */
    int64_t deferred_in_ms;
    int64_t now_wall_ms;    /* for the JSON form's absolute times */
} rsql_rmq_leftover_t;

/*
** Into buf (NUL-terminated, at most size bytes): text "rocketmq: left 3 held and 12 deferred
** messages, invisible for up to 30min", or JSON {"held":3,"held_visible_by_ms":<epoch ms>,
** "deferred":12,"deferred_visible_by_ms":<epoch ms>}. Returns the length; 0 (buf "") when
** nothing is left or it does not fit.
*/
size_t rsql_rmq_leftover_format(const rsql_rmq_leftover_t *lo, bool json, char *buf,
                                size_t size);

/* The data-path vtables (registered in connectors/conn_io.c). */
#include "connectors/rsql_io.h"
extern const rsql_source_ops_t rsql_rmq_source_ops;
extern const rsql_sink_ops_t rsql_rmq_sink_ops;

#include "rmqclient/rmq_client.h"

/* ---- the client configuration of a table (rmq_opts.c) */

/*
** Fill *conf (zeroed first) with what the source and the sink share: the connection of
** table options c (endpoints, namespace, credentials, TLS, request timeout) and client_type;
** the caller adds the rest (topics, group, filter, ...). Strings are borrowed from c, except
** the endpoints in the client's form (';'-separated), returned on the heap: the caller frees
** it after rsql_rmq_client_new. NULL when out of memory.
*/
struct rsql_rmq_conf;
char *rsql_rmq__client_config(const struct rsql_rmq_conf *c, rsql_rmq_client_type_t client_type,
                              rsql_rmq_config_t *conf);

/* ---- METADATA columns (rmq_meta.c; the key table is rmq_meta in rmq_opts.c) */

typedef enum rmq_meta_id {
    RMQ_META_NONE = 0, /* a physical column, or a METADATA column the statement does not read */
    RMQ_META_TOPIC,
    RMQ_META_LITE_TOPIC,
    RMQ_META_MESSAGE_ID,
    RMQ_META_TAG,
    RMQ_META_KEYS,
    RMQ_META_MESSAGE_GROUP,
    RMQ_META_PROPERTIES,
    RMQ_META_BORN_TIMESTAMP,
    RMQ_META_STORE_TIMESTAMP,
    RMQ_META_DELIVERY_TIMESTAMP,
    RMQ_META_BORN_HOST,
    RMQ_META_DELIVERY_ATTEMPT,
    RMQ_META_QUEUE_ID,
    RMQ_META_QUEUE_OFFSET,
    RMQ_META_MESSAGE_TYPE,
    RMQ_META_N
} rmq_meta_id_t;

/* The id of metadata key key (the key table's spelling), RMQ_META_NONE for NULL, "" or unknown. */
int rsql_rmq__meta_id(const char *key);
/*
** The METADATA values of message m for n columns (ids[i] what column i reads, types[i] its
** type), in arena; columns with RMQ_META_NONE are NULL. topic: the table's, when the message
** names none. NULL when out of memory.
*/
rsql_value_t *rsql_rmq__record_meta(rsql_arena_t *a, const rsql_rmq_msg_t *m, const char *topic,
                                    int n, const int *ids, const rsql_type_t *types);
/*
** A row's keys METADATA value (ARRAY<STRING>) as *n_out heap strings (NULL and empty elements
** left out; free with rsql_rmq__strv_free); none for NULL. RSQL_OK or RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_rmq__keys_of(const rsql_value_t *v, char ***out, size_t *n_out);
/*
** A row's properties METADATA value (MAP<STRING, STRING>) as *n_out heap pairs (free with
** rsql_rmq__props_free); none for NULL. A NULL value or an empty key is RSQL_ERR_SINK with
** why set (the row cannot be sent); RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_rmq__props_of(const rsql_value_t *v, rsql_rmq_prop_t **out, size_t *n_out,
                              char *why, size_t why_size);
void rsql_rmq__strv_free(char **v, size_t n);
void rsql_rmq__props_free(rsql_rmq_prop_t *props, size_t n);

#endif

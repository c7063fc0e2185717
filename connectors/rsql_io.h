/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_io: the connector domain model's data path. A worker drives one
 * source and one sink per pipeline:
 *
 *   source.poll ──► [queue] ──► decode / filter / project / encode ──► [queue] ──► sink.write
 *        ▲                                                                         │
 *        └──── source.commit_record(rec, outcome)  ◄── worker ◄── delivery ◄───────┘
 *
 * Records carry a partition and an offset. Every record gets exactly one
 * outcome (written, filtered, dead-lettered, failed), and the source is told
 * each one with commit_record, so a connector may manage its own offsets
 * (RocketMQ acks), dismiss or route failures. By default the worker manages
 * offsets: per partition it commits only up to the first record whose
 * outcome is not known yet, and a tolerated failure (dead-lettered)
 * completes its position, so it never stalls the partition.
 *
 * Threads (see engine/): poll runs on the pipeline's poll thread; decode,
 * filter, projection and encode on its transform thread; sink.write and
 * sink.flush on its write thread; sink deliveries may be reported from any
 * thread (e.g. a RocketMQ client thread) and are posted to the worker; the
 * worker (the thread that runs the pipeline) calls commit_record and
 * commit_offsets. A source must therefore tolerate poll and commit_record
 * running at the same time on two threads.
 *
 * Ownership: a batch owns its records and their bytes (one arena per
 * batch). The runtime keeps a batch alive until every record in it has its
 * outcome and was reported to the source, then frees it. Pointers handed to
 * a callback are valid only during the call unless stated otherwise.
 */
#ifndef RSQL_IO_H
#define RSQL_IO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_types.h"

/* ---- records and batches */

typedef struct rsql_record {
    uint32_t partition; /* index into the source's partitions (rsql_source_ops_t.partition_name) */
    int64_t offset;     /* the partition position AFTER this record (resume point) */
    uint64_t seq;       /* set by the runtime: global poll order */
    /* The record as received (body bytes), for formats and the dead-letter table.
       NULL for sources that produce rows directly (datagen, sqlite). */
    const uint8_t *raw;
    size_t raw_len;
    /* The decoded row (n_columns of the source table), in the batch arena.
       Set by the source for row-native sources, else by the decode stage. */
    rsql_value_t *row;
    /* Human-readable identity for errors and the DLQ 'source' column:
       "file:/data/in.json@1234", "orders/lite-7/0A1B...". In the batch arena. */
    const char *ident;
    /* Connector-private (e.g. the RocketMQ receipt handle holder). */
    void *opaque;
    /* A record the source could not turn into a row (a value it cannot convert, an
       over-long line, a bad body): why, in the batch arena; row is NULL and raw holds its
       raw form as far as the source has one. The runtime fails it at the decode stage, on
       the same path as a body its format cannot decode: dead-lettered under
       errors.tolerance 'all', the run stops at it under 'none'. NULL for a good record. */
    const rsql_error_t *error;
    /* The METADATA columns' values (rsql_source_ctx_t.column_meta), in the batch arena:
       n_columns values indexed like the table's columns, only the metadata columns the
       statement reads set (the others are ignored). Set by a source that produces raw
       bodies, when any column_meta is non-NULL; the decode stage puts them in the row.
       A row-native source puts them in row itself. NULL = all NULL. */
    rsql_value_t *meta;
    /* The line of the source the record starts on (from 1), for a source of lines: errors
       name it after the ident ("decode error at file:in.jsonl@8 line 2: ..."). 0 = none. */
    int64_t line;
    /* The row's kind (rsql_rowkind_t): INSERT (0) from every append-only source; a change
       source (or the decode stage, for a changelog format) sets the others. */
    uint8_t kind;
    /* RSQL_REC_* flags (0 for most records; in the padding after kind: the slot stays the
       same size and rsql_batch_add's zeroing sets them). */
    uint8_t flags;
    /* A record that holds several rows (a canal-json message of many rows, a debezium-json
       update as UPDATE_BEFORE and UPDATE_AFTER): n_rows > 1, rows[0..n_rows) and
       kinds[0..n_rows) in the batch arena (row == rows[0], kind == kinds[0]). Each row goes
       through the statement on its own, in order; the record is written once every row it
       keeps is, and fails as a whole when one of them fails. n_rows < 0: the record holds
       no row at all (a tombstone, a skipped DDL message): it is done as filtered; a source
       that makes rows itself may add one with neither row nor raw to carry a position alone
       (postgres-cdc: a transaction's end). 0 or 1: the one row above. A record of kind
       RSQL_ROW_CLEAR (every row of the table gone: a TRUNCATE; postgres-cdc under
       truncate.mode 'apply') has n_rows 0 and no row: it goes past filter and projection
       untouched, to the sink as one row of that kind (its values NULL). */
    int n_rows;
    rsql_value_t **rows;
    uint8_t *kinds;
    /* The text part of the position after this record, for a source whose position is more
       than a number (postgres-cdc's snapshot of a table keyed by text, uuids or several
       columns: the key of the row, offset counting the rows): stored with offset wherever
       positions are (an exactly-once sink's table, the catalog) and handed back at open
       (rsql_source_ctx_t.resume_keys). In the batch arena; NULL (most sources) = none. */
    const char *pos_key;
} rsql_record_t;

/*
** rsql_record_t.flags: RSQL_REC_IN_TXN marks a record INSIDE a source transaction that has not
** ended with it (a later record ends it; postgres-cdc's transaction.atomic sets it on every row
** of a transaction but its last). A sink that gathers transactions (conn_gather.h) then never
** commits a row of it without the row that ends it. Records without it are units of their own.
*/
#define RSQL_REC_IN_TXN 0x01
/* Set by the runtime (never by a source) on the last record of a bounded source's input, for
   a statement that acts at the end of its input (a window aggregation gives every window still
   open with it). */
#define RSQL_REC_LAST 0x02
/* Set by the runtime (never by a source) on a record of its own, made by the transform thread
   when the clock reaches the time a stage waits for (rsql_pipeline_conf_t.transform_due: a
   processing-time window's end): its row is all NULL and stands for no source row; it carries
   the rows the stage gives then, with the lane and offset of the record transformed last
   (never registered: no position moves by it, nor is it counted or acknowledged). */
#define RSQL_REC_TICK 0x04
/* Set by the runtime (never by a source) on a record a window aggregation found late (a row of
   it whose every window was given) under table.exec.late-rows = dead-letter: its transform
   succeeded, the error it was given says why it is late, and the record goes to the
   dead-letter table with stage "late" besides any rows it carries (rt_stages.c). */
#define RSQL_REC_LATE 0x08

/* rsql_sink_ctx_t.merge: how a column merges into the row of its key the table holds. */
enum { RSQL_MERGE_REPLACE = 0, RSQL_MERGE_SUM, RSQL_MERGE_MIN, RSQL_MERGE_MAX };

typedef struct rsql_batch {
    int n, cap;
    rsql_record_t *recs;
    rsql_arena_t *arena; /* owns recs' bytes, rows, idents */
} rsql_batch_t;

/* A new empty batch able to hold cap records (NULL when out of memory). */
rsql_batch_t *rsql_batch_new(int cap);
void rsql_batch_destroy(rsql_batch_t *b);
/* Append a record slot (zeroed) or NULL when full / out of memory. */
rsql_record_t *rsql_batch_add(rsql_batch_t *b);
/* Copy bytes into the batch arena. */
const uint8_t *rsql_batch_copy(rsql_batch_t *b, const void *p, size_t n);

/* ---- outcomes */

typedef enum rsql_outcome_kind {
    RSQL_OUTCOME_WRITTEN,       /* the sink confirmed it (meta may say where) */
    RSQL_OUTCOME_FILTERED,      /* WHERE dropped it, or a LIMIT reached: done, nothing written */
    RSQL_OUTCOME_DEAD_LETTERED, /* failed, tolerated: routed to the dead-letter destination */
    RSQL_OUTCOME_FAILED         /* failed, not tolerated: the pipeline stops; never committed */
} rsql_outcome_kind_t;

typedef struct rsql_outcome {
    rsql_outcome_kind_t kind;
    const rsql_error_t *err; /* DEAD_LETTERED / FAILED: why (stage in err->msg) */
    const char *meta;        /* WRITTEN: sink metadata ("msgid=... offset=..."), may be NULL */
} rsql_outcome_t;

/* ---- sources */

typedef struct rsql_source rsql_source_t; /* connector-private */

/*
** A latency histogram of atomics (Prometheus buckets, upper bounds 1ms 5ms 10ms 25ms 50ms
** 100ms 250ms 500ms 1s 5s 30s, cumulative when exposed): counts per bucket (the last is
** +Inf), the count and the sum in microseconds.
*/
#define RSQL_LATENCY_BUCKETS 12
typedef struct rsql_latency_hist {
    atomic_int_least64_t bucket[RSQL_LATENCY_BUCKETS];
    atomic_int_least64_t count, sum_us;
} rsql_latency_hist_t;
/* Record one observation of us microseconds, n times. Any thread. */
void rsql_latency_observe(rsql_latency_hist_t *h, int64_t us, int64_t n);
/* The upper bounds (seconds) of the buckets but the last. */
extern const double rsql_latency_bounds_s[RSQL_LATENCY_BUCKETS - 1];

/*
** What a source that acknowledges messages itself (a broker consumer) publishes while it runs
** (rsql_source_ctx_t.counters): the runtime owns it and exposes it (rocketsql serve's
** /metrics); the source updates it with atomics from any of its threads, never under a runtime
** lock. Counters only go up and live across the runs of a job; the gauges are the source's
** current values (the runtime sets them to 0 when the run ends).
*/
typedef struct rsql_source_counters {
    atomic_int_least64_t acked;    /* messages whose ack the broker confirmed */
    atomic_int_least64_t renewed;  /* invisible-duration renewals the broker confirmed */
    atomic_int_least64_t deferred; /* messages deferred (made invisible again, not processed) */
    atomic_int_least64_t held;     /* gauge: messages received and not resolved yet */
    rsql_latency_hist_t ack;       /* from an ack sent to its answer, per ack request */
} rsql_source_counters_t;

/* What a source is opened with. Borrowed for the duration of open; copy what you keep. */
typedef struct rsql_source_ctx {
    const char *table;          /* catalog table name */
    const char *pipeline;       /* stable id of the pipeline (offset key) */
    const rsql_optset_t *opts;  /* the table's validated options */
    const void *conf;           /* the connector's typed configuration (its conf struct) */
    const void *format_conf;    /* the chosen format's, or NULL */
    int n_columns;
    const char *const *column_names;
    const rsql_type_t *column_types;
    /* Resume positions by partition name (from the catalog, or from an
       exactly-once sink); n_resume may be 0. */
    int n_resume;
    const char *const *resume_partitions;
    const int64_t *resume_offsets;
    const char *const *resume_keys; /* each position's text part (rsql_record_t.pos_key), or
                                       NULL: none stored */
    /* A bounded source must not report the end (poll's *eof) before this wall-clock time
       (epoch ms; 0 = no such time): the previous run sharing what this source reads (a
       RocketMQ consumer group, rsql_connector_def_t.hold) was interrupted or failed, and the
       messages it held may stay invisible until then. */
    int64_t not_before_ms;
    /* Per column (n_columns): NULL for a physical column (from the body, or the row of a
       row-native source); for a METADATA column, the key the source fills it from (the
       connector's spelling, rsql_connector_def_t.metadata, checked at planning), or ""
       when the statement does not read it (leave it NULL, read nothing for it). NULL as a
       whole when the table has no METADATA column. */
    const char *const *column_meta;
    /* Per column (n_columns): the full type (base/rsql_types.h, interned) of a DECIMAL, ROW,
       ARRAY or MAP column, NULL for the others; NULL as a whole when not given. For sources
       that make rows themselves (postgres: jsonb into ROW/ARRAY/MAP). */
    const rsql_tdesc_t *const *column_descs;
    /* Per column (n_columns): true when the table cannot go without its value (NOT NULL, or
       in the PRIMARY KEY); NULL as a whole when not given (postgres-cdc: a dropped column
       read as NULL under schema-change.mode 'follow' is refused for these). */
    const bool *column_required;
    /* Where the source publishes its acks, renewals, deferrals and held messages, or NULL
       (nobody reads them: publish nothing). Outlives the source. */
    rsql_source_counters_t *counters;
    /* The table's PRIMARY KEY (...) NOT ENFORCED: n_key column indexes, in key order; 0 = none
       (upsert-kafka reads the key's columns from the record key). */
    int n_key;
    const int *key_columns;
    /* A preview (a SELECT shown, never committed): a source that would join something shared
       (a Kafka consumer group's subscription) reads on its own instead. */
    bool preview;
} rsql_source_ctx_t;

typedef struct rsql_source_ops {
    /* Open; *out is the connector's handle. */
    rsql_err_t (*open)(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err);
    /*
    ** Append up to max records to batch, waiting at most timeout_ms for the
    ** first one (block, never spin). *eof = true when a bounded source has
    ** nothing more, ever. RSQL_OK with no records appended is a timeout.
    ** A record that cannot become a row is appended with rec->error set
    ** (see rsql_record_t), never an error of the poll: the records around
    ** it are still delivered. An error return is for the source itself
    ** (it cannot read, out of memory): nothing of that poll is kept.
    ** Transient errors (rsql_error_retriable) are retried with backoff by the
    ** runtime; a permanent one fails the run at once.
    ** @locality poll thread
    */
    rsql_err_t (*poll)(rsql_source_t *src, rsql_batch_t *batch, int max, int timeout_ms,
                       bool *eof, rsql_error_t *err);
    /*
    ** Number of partitions known so far and the name of one (stable, e.g. a path). A source
    ** whose partitions come and go (RocketMQ: one per lite topic or message group) keeps a
    ** partition's name at least while a record of it is in flight, then may reuse its number.
    */
    int (*partition_count)(rsql_source_t *src);
    const char *(*partition_name)(rsql_source_t *src, uint32_t partition);
    /*
    ** Told the outcome of every record exactly once, in any order across
    ** partitions. Optional (NULL = nothing to do).
    ** @locality worker thread
    */
    void (*commit_record)(rsql_source_t *src, const rsql_record_t *rec,
                          const rsql_outcome_t *outcome);
    /*
    ** The runtime committed partition up to offset (worker-managed offsets,
    ** already stored in the catalog). Optional.
    ** @locality worker thread
    */
    void (*committed)(rsql_source_t *src, uint32_t partition, int64_t offset);
    /* Total number of records when known in advance (for a percentage), else -1. Optional. */
    int64_t (*total)(rsql_source_t *src);
    /* Stop: wake a blocked poll (any thread). Optional. */
    void (*wakeup)(rsql_source_t *src);
    void (*close)(rsql_source_t *src);
    /*
    ** True when the source keeps its own positions (RocketMQ: the broker
    ** does, through acks): the runtime then stores no partition positions
    ** in the catalog for it (its offset tracker still counts in-flight).
    */
    bool manages_own_positions;
    /*
    ** A short description of the source's own state, or NULL (none). text = true: for the
    ** live status line (e.g. "lite t1 3/120/900, t2 0/0/85"); false: a JSON object for the
    ** `detail` column of SHOW JOB RUNS (e.g. {"lite_topics":[{"name":"t1","in_flight":3,
    ** "deferred":120,"delivered":900}]}). Writes at most size bytes, NUL-terminated; returns
    ** the length (0 = nothing to say). Optional.
    ** @locality worker thread (while poll may run on the poll thread)
    */
    size_t (*describe)(rsql_source_t *src, bool text, char *buf, size_t size);
    /*
    ** What the run leaves that the next run cannot see yet, for the run's summary line (e.g.
    ** "rocketmq: left 3 held and 12 deferred messages, invisible for up to 30min"), or
    ** nothing. Called once when the run ends, before close. Writes at most size bytes,
    ** NUL-terminated; returns the length (0 = nothing left). Optional.
    ** @locality worker thread
    */
    size_t (*leftover)(rsql_source_t *src, char *buf, size_t size);
} rsql_source_ops_t;

/* ---- sinks */

typedef struct rsql_sink rsql_sink_t; /* connector-private */

/* One row to write: values in sink column order, plus the record it came from. */
typedef struct rsql_sink_row {
    const rsql_value_t *values;
    const rsql_record_t *rec; /* partition/offset/ident of the source record */
    const char *partition_name; /* the source partition's name (exactly-once sinks store it) */
    /* The row's kind (rsql_rowkind_t). INSERT unless rsql_sink_ctx_t.changelog. */
    uint8_t kind;
} rsql_sink_row_t;

/*
** The result of one row, reported by the sink. A failure's code says what
** happened, and its class (rsql_err_code_retriable) whether the runtime
** writes the row again: a transient code (BUSY, TIMEOUT, UNAVAILABLE) is
** retried per errors.retry.*, a permanent one is not.
*/
typedef struct rsql_sink_result {
    rsql_err_t code;  /* RSQL_OK = written */
    char meta[96];    /* with success: e.g. "msgid=01AB.. offset=42"; "" when none */
    char msg[256];    /* with a failure: the underlying message */
} rsql_sink_result_t;

/*
** Sinks report each written batch exactly once with one result per row, in
** row order, from any thread. The results array is borrowed for the call.
*/
typedef void (*rsql_delivery_cb)(void *opaque, uint64_t batch_id, int n,
                                 const rsql_sink_result_t *results);

/*
** What a sink's stored_positions reports each stored position through: a partition
** (borrowed for the call: the callee copies it), its offset and its text part (the
** record's pos_key when it had one, else NULL; borrowed too). RSQL_OK, or RSQL_ERR_NOMEM:
** stored_positions then stops and returns that error.
*/
typedef rsql_err_t (*rsql_position_cb)(void *opaque, const char *partition, int64_t offset,
                                       const char *key);

typedef struct rsql_sink_ctx {
    const char *table;
    const char *pipeline;
    const rsql_optset_t *opts;
    const void *conf;        /* the connector's typed configuration (its conf struct) */
    const void *format_conf; /* the chosen format's, or NULL */
    int n_columns;
    const char *const *column_names;
    const rsql_type_t *column_types;
    rsql_delivery_cb deliver; /* report results here */
    void *deliver_opaque;
    /* The metadata the sink writes per row: each row's values[n_columns + i] (typed
       meta_types[i]) is key meta_keys[i]; a NULL value = not set for that row (the sink's
       options apply). The physical columns (column_names, the format's) come first. */
    int n_meta;
    const char *const *meta_keys;
    const rsql_type_t *meta_types;
    /*
    ** The source keeps its own positions (RocketMQ acks: rsql_source_ops_t
    ** .manages_own_positions). An exactly-once sink then records, in the same
    ** transaction as the rows, the identity of each applied record (rec->ident:
    ** topic, lite topic and message id) instead of positions, and reports a row
    ** whose identity it applied before as written without writing it again (a
    ** redelivered message is then acked, not doubled). It prunes that record so
    ** it stays bounded.
    */
    bool source_own_positions;
    /*
    ** The table's PRIMARY KEY (...) NOT ENFORCED: n_key column indexes (into
    ** column_names), in key order; 0 = none. A sink that can upsert (postgres,
    ** sqlite) then writes each row as an upsert by that key (the last row of a
    ** key wins); the others append.
    */
    int n_key;
    const int *key_columns;
    /*
    ** With n_key: the first row of a key wins instead (a deduplication keeping the first
    ** row, done by the sink): a row whose key the table already holds, or that an earlier
    ** row of the same write holds, is not written (and is reported written). Set only for
    ** rows that are all INSERTs, into a sink that keeps rows by key (changes BY_KEY).
    */
    bool keep_first;
    /*
    ** With n_key: how each column of a row merges into the row of its key that the table
    ** holds (RSQL_MERGE_*, n_columns of them), NULL for a plain upsert. A row is then a part
    ** of its key's result (a window aggregation over a source that several processes read:
    ** each process's rows), and the sink adds it in: SUM columns are added (a NULL is no
    ** value), MIN and MAX columns keep the least and the greatest (NULLs skipped), REPLACE
    ** columns (the key's own values) are written. Rows of the same key in one write merge
    ** with each other the same way. Set only for rows that are all INSERTs, into a sink that
    ** keeps rows by key (changes BY_KEY).
    */
    const uint8_t *merge;
    /*
    ** The rows are a changelog: their kind (rsql_sink_row_t.kind) may be any, not only
    ** INSERT. The planner sends one only to a sink that takes changes
    ** (rsql_connector_def_t.changes): applied by the key (postgres, sqlite: INSERT and
    ** UPDATE_AFTER are upserts, UPDATE_BEFORE and DELETE delete the key, in row order),
    ** written in a changelog format, or shown with their kind (print).
    */
    bool changelog;
    /*
    ** errors.tolerance = all. Under 'none' (false) a row that fails permanently
    ** stops the run, and nothing past it may be committed: a sink that commits
    ** (with positions) refuses every later row once one failed permanently, so
    ** batches already on their way to it cannot commit past the failure.
    */
    bool tolerate_all;
} rsql_sink_ctx_t;

typedef struct rsql_sink_ops {
    rsql_err_t (*open)(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err);
    /*
    ** Write n rows. The rows (and the values/records they point at) stay
    ** valid until the batch's delivery has been reported. RSQL_OK = accepted:
    ** exactly one delivery callback for batch_id follows (maybe before write
    ** returns). An error return = not accepted, no callback comes.
    ** @locality write thread
    */
    rsql_err_t (*write)(rsql_sink_t *snk, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                        rsql_error_t *err);
    /*
    ** Make everything accepted so far durable and reported; wait up to timeout_ms.
    ** RSQL_ERR_TIMEOUT = not all reported within timeout_ms, nothing failed: the sink still
    ** works on them and ends each row by its own policy (the runtime flushes again later,
    ** with no deadline). Any other transient error is a failed attempt (a commit that could
    ** not be made), tried again within errors.retry.timeout of the first.
    */
    rsql_err_t (*flush)(rsql_sink_t *snk, int timeout_ms, rsql_error_t *err);
    /*
    ** Exactly-once sinks (sqlite, postgres): every source position stored with the data
    ** (same transaction), each reported once through add(opaque, partition, offset, key); there
    ** is no limit to their number. RSQL_OK when all of them were reported; otherwise an
    ** error (err set; a busy or unreachable database is transient), never a part of the
    ** list: the runtime then fails the source's open (retrying it per errors.retry.* when
    ** the error is transient) rather than resume from the catalog's older positions, which
    ** would write committed rows a second time. Called on the worker before writing starts.
    ** Optional (NULL = at-least-once sink; the catalog offsets are used).
    */
    rsql_err_t (*stored_positions)(rsql_sink_t *snk, rsql_position_cb add, void *opaque,
                                   rsql_error_t *err);
    void (*close)(rsql_sink_t *snk);
    /*
    ** Optional: how many rows the sink gathers before it commits them by itself (conf: its
    ** typed configuration, rsql_sink_ctx_t.conf). The runtime then flushes only once that
    ** many rows are unreported (not pipeline.queue-capacity), and lets that many more be in
    ** flight, so a transaction can hold them all. 0 or absent: pipeline.queue-capacity.
    */
    int (*gather_rows)(const void *conf);
    /*
    ** Optional, for a sink that keeps source transactions whole (it gathers them:
    ** conn_gather.h; records marked RSQL_REC_IN_TXN). waiting: how many accepted rows wait
    ** for a later row to end their source transaction (the runtime does not count them
    ** against its bound of rows in flight, so a transaction larger than that bound can
    ** end). release: the run ends and no more rows come: report the rows that wait with
    ** RSQL_ERR_INTERRUPTED (not written; the runtime does not acknowledge them, the next run
    ** reads them again), and so any row accepted later that waits; returns their number.
    ** @locality write thread
    */
    int64_t (*waiting)(rsql_sink_t *snk);
    int64_t (*release)(rsql_sink_t *snk);
} rsql_sink_ops_t;

/* ---- lookups: a table joined FOR SYSTEM_TIME AS OF, its rows read by key as rows arrive */

typedef struct rsql_lookup rsql_lookup_t;

/* What a lookup is opened with. Borrowed for the duration of open; copy what you keep. */
typedef struct rsql_lookup_ctx {
    const char *table;         /* catalog table name (for messages) */
    const rsql_optset_t *opts; /* the table's validated options */
    const void *conf;          /* the connector's typed configuration (its conf struct) */
    /* The columns a found row has, in this order (the table's physical columns), with their
       types; column_descs[i] is the full type of a DECIMAL, ROW, ARRAY or MAP column (NULL
       for the others). */
    int n_columns;
    const char *const *column_names;
    const rsql_type_t *column_types;
    const rsql_tdesc_t *const *column_descs;
    /* The columns a lookup matches by equality (indices into the columns above), in the order
       a key's values come in. At least one. */
    int n_key;
    const int *key_columns;
    /* table.exec.async-lookup.timeout: the longest one lookup may take (0: no limit); past
       it, it fails transiently */
    int64_t timeout_ms;
} rsql_lookup_ctx_t;

/*
** What lookup reports each found row through: key is the index of the key it matches (0 ..
** n-1 of that call), row its n_columns values (strings, bytes and nested values valid during
** the call only: copy what you keep). A non-OK return (RSQL_ERR_NOMEM) stops the lookup, which
** returns it.
*/
typedef rsql_err_t (*rsql_lookup_row_cb)(void *opaque, int key, const rsql_value_t *row);

typedef struct rsql_lookup_ops {
    /* Open: check the table can be read by key (it exists, the columns do), connect. */
    rsql_err_t (*open)(const rsql_lookup_ctx_t *ctx, rsql_lookup_t **out, rsql_error_t *err);
    /*
    ** Find the rows of n keys: keys[i * n_key + k] is key i's value of key column k, of that
    ** column's type and never NULL (a NULL matches nothing, and is not asked). Calls row once
    ** for every row whose key columns equal key i's values, for every i (any number of rows
    ** per key, 0 included; keys in any order). Several keys in one round trip where the
    ** connector can (postgres: = ANY($1)); n is at most a pipeline batch. A failure that
    ** may pass (a lost connection, a busy database) is transient (rsql_error_retriable): the
    ** caller asks again per errors.retry.*, after a close and a new open when
    ** RSQL_ERR_UNAVAILABLE. Anything else is permanent. Rows reported before a failure are
    ** reported again by the retry: the caller keeps none of a failed call's.
    ** @locality the transform thread (one lookup is used by one thread)
    */
    rsql_err_t (*lookup)(rsql_lookup_t *lk, int n, const rsql_value_t *keys,
                         rsql_lookup_row_cb row, void *opaque, rsql_error_t *err);
    /*
    ** Optional, both or neither: lookups in flight. send asks for the rows of n keys (as
    ** lookup) without waiting for them; receive reports the rows of the oldest lookup sent
    ** and not yet received (as lookup does), waiting for them. Lookups are received in the
    ** order they were sent, and any number may be in flight. After a failure of either the
    ** caller closes the lookup (what was in flight is lost) or receives the others in turn
    ** (a failed lookup does not fail the ones after it). lookup is not called while any is
    ** in flight.
    ** @locality the transform thread
    */
    rsql_err_t (*send)(rsql_lookup_t *lk, int n, const rsql_value_t *keys, rsql_error_t *err);
    rsql_err_t (*receive)(rsql_lookup_t *lk, rsql_lookup_row_cb row, void *opaque,
                          rsql_error_t *err);
    void (*close)(rsql_lookup_t *lk);
} rsql_lookup_ops_t;

#endif

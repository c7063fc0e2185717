/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_plan: the planner's API. rsql_plan_build binds an INSERT or SELECT
 * statement against the catalog (names, types, connector sides, formats,
 * the dead-letter table of errors.dlq.table), type-checks every expression
 * and returns a plan: source -> filter -> projection -> sink, plus the error
 * settings. rsql_plan_explain prints it as a stable tree; rsql_plan_apply is
 * the runtime's per-row transform (filter, then projection) built on the
 * expression evaluator rsql_expr_eval.
 *
 * Ownership: a plan owns copies of everything it keeps (table definitions,
 * validated option sets, bound expressions in its own arena, the statement
 * text); the AST and the SQL text may die right after rsql_plan_build.
 * A plan is immutable after it is built: several threads may read it and
 * evaluate its expressions at once, each with its own rsql_eval_ctx_t.
 *
 * Type rules (checked at plan time; see planner/plan_bind.c):
 *   - arithmetic + - * / on numerics; the result is the widest operand type
 *     (INT < BIGINT < DOUBLE); INT op INT is INT, and an overflow of the
 *     result type is an evaluation error ("integer overflow"); / on two
 *     integers is integer division truncating toward zero; % takes
 *     integers only; x / 0 and x % 0 are "division by zero" (a constant 0
 *     divisor is already a plan error).
 *   - || takes VARCHAR operands only (use CAST); CONCAT() takes any types
 *     and converts each argument as CAST(x AS VARCHAR).
 *   - comparisons: numeric with numeric, VARCHAR with VARCHAR, VARCHAR or
 *     BYTES with BYTES, BOOLEAN with BOOLEAN, TIMESTAMP with TIMESTAMP; a
 *     VARCHAR literal compared with a TIMESTAMP is converted at plan time.
 *     Strings compare bytewise (UTF-8 code point order).
 *   - implicit casts are widening only: INT -> BIGINT -> DOUBLE,
 *     VARCHAR -> BYTES, NULL -> any.
 *   - CAST: numeric <-> numeric, any <-> VARCHAR, BOOLEAN <-> INT/BIGINT,
 *     TIMESTAMP <-> BIGINT (ms since the epoch), TIMESTAMP <-> VARCHAR
 *     (ISO-8601, written as 2024-01-02T03:04:05.678Z). DOUBLE -> integer
 *     truncates toward zero; out of range is an evaluation error.
 *   - DECIMAL(p, s): + - * exact with Flink's result types (INT counts as
 *     DECIMAL(10, 0), BIGINT as (19, 0), a DOUBLE operand makes it DOUBLE);
 *     / and % are plan errors; comparisons with DECIMAL/INT/BIGINT exact.
 *     DATE compares with DATE. ROW/ARRAY/MAP are not comparable; r.f, a[i]
 *     (1-based) and m['k'] are NULL when absent. CAST adds DECIMAL <->
 *     numeric/VARCHAR, DATE <-> TIMESTAMP/VARCHAR, nested -> VARCHAR (JSON).
 *   - UPPER/LOWER map Unicode letters when the C.UTF-8 locale is available
 *     (else ASCII only); CHAR_LENGTH and SUBSTRING count code points.
 */
#ifndef RSQL_PLAN_H
#define RSQL_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "catalog/rsql_catalog.h"
#include "connectors/rsql_connector.h"
#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "base/rsql_settings.h"
#include "base/rsql_types.h"
#include "sql/rsql_sql.h"

typedef struct rsql_func rsql_func_t; /* a row of the function table (plan_funcs.c) */

/* ---- bound expressions */

typedef enum rsql_bx_kind {
    RSQL_BX_CONST,   /* value */
    RSQL_BX_COLUMN,  /* column (index into the source row), name */
    RSQL_BX_UNARY,   /* op (NOT, NEG) args[0] */
    RSQL_BX_BINARY,  /* args[0] op args[1] (arithmetic, comparison, AND, OR, ||) */
    RSQL_BX_IS_NULL, /* args[0] IS [NOT] NULL */
    RSQL_BX_LIKE,    /* args[0] [NOT] LIKE args[1] [ESCAPE args[2]] (n_args 2 or 3) */
    RSQL_BX_IN,      /* args[0] [NOT] IN (args[1..n_args-1]) */
    RSQL_BX_BETWEEN, /* args[0] [NOT] BETWEEN args[1] AND args[2] */
    RSQL_BX_CASE,    /* [args[0] if has_operand] WHEN/THEN pairs, [ELSE last if has_else] */
    RSQL_BX_CAST,    /* CAST(args[0] AS type); implicit when inserted by the planner */
    RSQL_BX_FUNC,    /* func(args) */
    RSQL_BX_FIELD,   /* args[0].field: field `column` of a ROW (name = the field's name) */
    RSQL_BX_INDEX,   /* args[0][args[1]]: ARRAY element (1-based) or MAP value; NULL if absent */
    /* a computed column (name): args[0], its expression, is evaluated once per row into the
       row's slot `column` (rsql_plan_apply: the plan's computed[]), and read from there */
    RSQL_BX_COMPUTED
} rsql_bx_kind_t;

typedef struct rsql_bexpr rsql_bexpr_t;
struct rsql_bexpr {
    rsql_bx_kind_t kind;
    rsql_type_t type; /* result type (RSQL_TYPE_NULL only for a bare NULL) */
    const rsql_tdesc_t *desc; /* DECIMAL/ROW/ARRAY/MAP: the full type; NULL = type alone */
    rsql_pos_t pos;   /* span in the plan's statement text (rsql_plan_t.sql) */
    rsql_op_t op;     /* UNARY, BINARY */
    bool negated;     /* IS NOT NULL, NOT LIKE, NOT IN, NOT BETWEEN */
    bool implicit;    /* CAST inserted by the planner */
    bool has_operand; /* CASE x WHEN ... */
    bool has_else;    /* CASE ... ELSE ... */
    rsql_value_t value; /* CONST; strings point into the plan's arena */
    int column;         /* COLUMN: index into the source row */
    const char *name;   /* COLUMN: the column's name; FUNC: the function's name */
    const rsql_func_t *func; /* FUNC */
    const void *aux; /* FUNC: what its binder fixed for the statement (a compiled literal
                        pattern, RETURNING and ON EMPTY/ERROR, a time unit), in the arena */
    int n_args;
    rsql_bexpr_t **args;
};

/*
** A bound expression compiled into a flat program (plan_prog.c): its operators as an array of
** instructions over a small register file, run by one loop per row (no tree walk), with the
** tree walk's results and errors exactly.
*/
typedef struct rsql_prog rsql_prog_t;

/* ---- plans */

typedef enum rsql_plan_kind {
    RSQL_PLAN_INSERT, /* INSERT INTO sink SELECT ... */
    RSQL_PLAN_SELECT  /* SELECT preview: rows printed, nothing acked or committed */
} rsql_plan_kind_t;

typedef struct rsql_plan_computed rsql_plan_computed_t; /* plan_computed.c */

/* A bound table: its stored definition, connector and validated options. */
typedef struct rsql_plan_table {
    /* owned copy; NULL when absent. Without its computed columns (name AS expr): the
       columns the connector reads or writes and the runtime's rows hold, in table order */
    rsql_table_def_t *def;
    /* the table as declared when it has computed columns (owned), else NULL; computed[i]
       is decl column i's parsed expression, once a statement referred to it */
    rsql_table_def_t *decl;
    rsql_plan_computed_t *computed;
    /* the computed columns the statement refers to, by slot: slots[k] is the COMPUTED node
       of the first reference to the column of slot k (its value is at row[slot_base + k]) */
    int n_slots;
    const rsql_bexpr_t **slots;
    const rsql_connector_def_t *conn;  /* static registry entry */
    rsql_optset_t *opts;               /* owned, validated against conn (and its format) */
    const char *format;                /* the 'format' option (or its default), or NULL */
    rsql_pos_t pos;                    /* its name in the statement (RSQL_NOPOS: none) */
} rsql_plan_table_t;

/* A lookup join: FROM s [AS] a [INNER | LEFT] JOIN t FOR SYSTEM_TIME AS OF a.pt [AS] b ON ... */
typedef struct rsql_plan_lookup {
    rsql_plan_table_t table; /* the table looked up (its connector reads rows by key) */
    const char *alias;       /* what the statement calls it; NULL: its name */
    bool left;               /* LEFT JOIN: a row that finds nothing goes on, with NULLs */
    int offset;              /* its columns in the row: offset .. offset + n_columns - 1 */
    int n_key;               /* ON's equalities with a column of the table: */
    int *key_columns;        /* that column (an index of table.def's columns) */
    rsql_bexpr_t **keys;     /* and the value it must equal: over the FROM row, its type */
    rsql_bexpr_t *cond;      /* the rest of ON, over the joined row; NULL when none */
    rsql_bexpr_t *as_of;     /* FOR SYSTEM_TIME AS OF: the FROM table's processing time */
    rsql_pos_t pos;          /* the JOIN clause */
    /* table.exec.async-lookup.*: the most input rows whose lookups are in flight
       (buffer-capacity), and in_flight, the batches that makes (at most
       RSQL_LOOKUP_IN_FLIGHT_MAX; 0 when the connector answers one call at a time
       (no rsql_lookup_ops_t.send) or the buffer holds one batch); the longest one lookup may
       take (timeout, 0: none). output-mode changes nothing: answers keep input order. */
    int64_t buffer_capacity;
    int in_flight;
    int64_t timeout_ms;
} rsql_plan_lookup_t;

/* The most batches whose lookups may be in flight at once. */
#define RSQL_LOOKUP_IN_FLIGHT_MAX 32

/*
** Deduplication (Flink's ROW_NUMBER() OVER (PARTITION BY k ORDER BY proc_time) ... WHERE rn = 1,
** planner/plan_dedup.c): of the rows that pass pre, the first of each key is kept (an insert),
** or with keep_last the last (its first row an insert, each newer one the -U of the row kept
** before it and its own +U). The key's values are kept in the job's state.
*/
typedef struct rsql_plan_dedup {
    int n_key;           /* PARTITION BY (0: the whole stream is one key) */
    rsql_bexpr_t **keys; /* over the source row */
    bool keep_last;      /* ORDER BY ... DESC */
    rsql_bexpr_t *order; /* the processing time (a PROCTIME() computed column) */
    rsql_bexpr_t *pre;   /* the subquery's WHERE, before deduplication; NULL: none */
    const char *rn;      /* the row number's name */
    rsql_pos_t pos;      /* the subquery */
    int64_t ttl_ms;      /* table.exec.state.ttl: a key is forgotten this long after it was
                            written; 0: never */
    int64_t memory;      /* state.memory: the bytes of state held in memory (0: all) */
    /* The source acknowledges its messages itself (a RocketMQ consumer: no position to save
       state with, and its messages spread over the processes of a consumer group): the sink
       table, keyed by the PARTITION BY columns, keeps the rows: the first of each key
       (rsql_sink_ctx_t.keep_first) or, with keep_last, the last (its upsert). No state, no
       pre (it is the plan's filter), and every process of the group writes the same table. */
    bool in_sink;
} rsql_plan_dedup_t;

/* The aggregate functions of GROUP BY (planner/plan_agg.c). */
typedef enum rsql_agg_fn {
    RSQL_AGG_COUNT, /* COUNT(x): the rows whose x is not NULL; COUNT(*) (arg NULL): every row */
    RSQL_AGG_SUM,   /* of the non-NULL values, NULL when there is none; the argument's type */
    RSQL_AGG_AVG,   /* SUM / COUNT in the argument's type (an integer average is truncated) */
    RSQL_AGG_MIN,
    RSQL_AGG_MAX,
    RSQL_AGG_FIRST_VALUE, /* the first non-NULL value, in arrival order */
    RSQL_AGG_LAST_VALUE   /* the last non-NULL value */
} rsql_agg_fn_t;

typedef struct rsql_plan_aggcall {
    rsql_agg_fn_t fn;
    rsql_bexpr_t *arg; /* over the source row; NULL for COUNT(*) */
    rsql_type_t type;  /* the result's */
    const rsql_tdesc_t *desc;
    const char *text;  /* the call as written */
    rsql_pos_t pos;
    int acc;           /* its first accumulator value (rsql_plan_agg_t.acc_types) */
    bool distinct;     /* f(DISTINCT x): a value the group had before is not taken again */
} rsql_plan_aggcall_t;

/*
** Group aggregation (GROUP BY keys, aggregate calls, HAVING; planner/plan_agg.c): the rows
** that pass pre are grouped by the keys' values; each row updates its group's accumulators
** (kept in the job's state) and gives the group's new result row: an insert for a new group,
** else the -U of the result before and the +U of the new one (none when the result did not
** change). The result row ("the aggregate row") holds the n_group key values, then the
** n_calls results: HAVING (the plan's filter) and the outputs are over it.
*/
typedef struct rsql_plan_agg {
    int n_group;
    rsql_bexpr_t **group; /* over the source row */
    int n_calls;
    rsql_plan_aggcall_t *calls;
    rsql_bexpr_t *pre; /* WHERE, before aggregation; NULL: none */
    rsql_pos_t pos;    /* GROUP BY ... [HAVING ...], or the first aggregate call */
    /* An update gives its -U too. False when the sink applies changes by a key written from
       the GROUP BY keys and there is no HAVING: the +U alone replaces the row of its key. */
    bool emit_before;
    int64_t ttl_ms; /* table.exec.state.ttl: a group is forgotten this long after its last
                       row; 0: never */
    int64_t memory; /* state.memory */
    /* table.exec.mini-batch.enabled: a group's rows are given once per batch of the pipeline
       (at most table.exec.mini-batch.size rows), with the last row of the batch it took */
    bool mini_batch;
    /* A group's accumulators, as values (the state keeps them packed): the group's row
       count, then each call's (plan_agg_eval.c) */
    int n_acc;
    rsql_type_t *acc_types;
    const rsql_tdesc_t **acc_descs;
} rsql_plan_agg_t;

/* The window table-valued functions (FROM TABLE(TUMBLE(...)); planner/plan_window.c). */
typedef enum rsql_window_kind {
    RSQL_WIN_TUMBLE,
    RSQL_WIN_HOP,
    RSQL_WIN_CUMULATE,
    RSQL_WIN_SESSION,
} rsql_window_kind_t;

/*
** A window aggregation (Flink's Window TVF aggregation): each row of the source goes into the
** windows its event time (the DESCRIPTOR column, the table's WATERMARK column) falls in; the
** aggregation (plan->agg, grouped by window_start, window_end and any other keys) keeps each
** window's groups until the watermark passes the window's end, then gives each group's result
** once (+I) and forgets it. Every window is [start, start + size); the windows of a row:
**   TUMBLE(size[, offset]): the one whose start is a multiple of size (plus offset) at or
**     before the row's time;
**   HOP(slide, size[, offset]): size / slide windows, one starting every slide;
**   CUMULATE(step, max_size[, offset]): the windows that start where a TUMBLE of max_size
**     would and end at each step up to it, those ending after the row's time;
**   SESSION(TABLE t [PARTITION BY k], gap): per value of the PARTITION BY columns (the GROUP
**     BY's keys besides the window's), [time, time + gap), merged with every session of the
**     same keys it overlaps or touches (size_ms is the gap).
** The watermark of a lane (a partition of the source) is the greatest value of the table's
** WATERMARK expression over its rows so far; the statement's is the least of its lanes' that
** are not idle (no row for idle_timeout_ms), and never goes back. A window is given once the
** watermark passes its end (end - 1 <= watermark); a row goes into its windows not given yet,
** and one whose every window was given is late: dropped and counted, never put into a window
** already given.
** Without an aggregation (rows: plan->agg NULL; TUMBLE, HOP and CUMULATE) the function's rows
** are the statement's: each source row once per window it falls into, with window_start,
** window_end and window_time (end - 1 ms) set, given at once (+I, no state, no watermark: a
** row is never late), then through WHERE and the projection. Their time may also be
** processing time (a column AS PROCTIME(), the time the row's batch is processed: proctime).
*/
typedef struct rsql_plan_window {
    rsql_window_kind_t kind;
    const char *fn;        /* TUMBLE, HOP, CUMULATE or SESSION */
    int64_t size_ms;       /* TUMBLE, HOP: the windows' size; CUMULATE: the largest */
    int64_t step_ms;       /* HOP: the slide; CUMULATE: the step; TUMBLE: the size */
    int64_t slice_ms;      /* every window's end falls on a multiple of it (plus the offset) */
    int64_t offset_ms;     /* the windows' alignment: start = k * step + offset */
    rsql_bexpr_t *time;    /* the event time: the DESCRIPTOR column, over the row */
    const char *time_name;
    rsql_bexpr_t *watermark; /* the table's WATERMARK expression, over the row */
    const char *watermark_text;
    int col;               /* window_start, window_end, window_time: row[col .. col + 2] */
    int64_t idle_timeout_ms; /* table.exec.source.idle-timeout; 0: a lane never goes idle */
    void *parse;           /* what the WATERMARK expression was parsed into (owned) */
    /* Over a source that acknowledges its own messages (RocketMQ: no positions to save
       state with, and a consumer group's processes each take some of the rows): no state;
       each row gives, for each of its windows, its own part of the group's result, which
       the keyed sink merges into the row of the window's group (merge[i], an RSQL_MERGE_* for
       output i: COUNT and SUM are added, MIN and MAX kept, the keys replaced), in the
       transaction that records the message applied. */
    bool in_sink;
    uint8_t *merge;
    bool rows;             /* no aggregation: each row with each of its windows */
    /* The time is processing time (a column AS PROCTIME(): when the row's batch is
       processed), not the WATERMARK column's: the rows need no watermark (watermark NULL);
       an aggregation's watermark is the rows' own time and the clock's (watermark == time),
       so a window is given once the clock passes its end, by a row or, when none comes, by a
       timer (rsql_pipeline_conf_t.transform_due). TUMBLE, HOP and CUMULATE only. */
    bool proctime;
    /* table.exec.late-rows = dead-letter (an INSERT over event time, with errors.dlq.table):
       a late row also goes to the dead-letter table, stage late (rt_window.c marks its record
       RSQL_REC_LATE); else it is only dropped and counted */
    bool late_dead_letter;
    rsql_pos_t pos;        /* TABLE(...) */
} rsql_plan_window_t;

/* One output column, in sink column order (INSERT) or select-list order (SELECT). */
typedef struct rsql_plan_output {
    const char *name;   /* sink column name, or the select item's alias / text */
    rsql_type_t type;   /* the sink column's type (INSERT) or the expression's type */
    const rsql_tdesc_t *desc; /* its full type when DECIMAL/ROW/ARRAY/MAP, else NULL */
    bool not_null;      /* the sink column is NOT NULL: a NULL value is an eval error */
    rsql_bexpr_t *expr; /* never NULL: widening casts inserted; NULL const for unlisted columns */
    /* INSERT: the metadata key this output writes (a non-VIRTUAL METADATA column of the
       sink), else NULL. Such outputs follow every physical one (rsql_sink_ctx_t.meta_keys). */
    const char *meta_key;
} rsql_plan_output_t;

/* What happens to a failed record (the errors.* settings). */
typedef struct rsql_plan_errors {
    bool tolerate_all;         /* errors.tolerance = all */
    rsql_plan_table_t dlq;     /* errors.dlq.table, or def == NULL */
    int64_t retry_timeout_ms;  /* errors.retry.timeout */
    int64_t retry_backoff_max_ms; /* errors.retry.backoff-max */
} rsql_plan_errors_t;

typedef struct rsql_plan {
    rsql_plan_kind_t kind;
    char *sql; /* owned copy of the text given to rsql_plan_build, up to the end of the
                  statement: every position in the plan and its errors refers to it */
    uint32_t stmt_off; /* the INSERT/SELECT statement starts at sql + stmt_off */
    rsql_plan_table_t source;
    bool source_bounded; /* the source ends by itself (see rsql_plan_build) */
    const char *bounded_why; /* e.g. "number-of-rows = 10" or "unbounded: scan.follow" */
    rsql_plan_table_t sink; /* def NULL for a SELECT preview */
    rsql_plan_lookup_t *lookup; /* a lookup join (its table's columns follow the source's in
                                   the row), or NULL */
    rsql_bexpr_t *filter;   /* WHERE, or NULL (after deduplication, when there is one) */
    rsql_plan_dedup_t *dedup; /* FROM (SELECT ..., ROW_NUMBER() OVER (...) AS rn ...) WHERE
                                 rn = 1, or NULL */
    /* GROUP BY (or an aggregate call), or NULL: then filter is HAVING, and filter and outputs
       are over the aggregate row (rsql_plan_agg_t) */
    rsql_plan_agg_t *agg;
    /* FROM TABLE(TUMBLE | HOP | CUMULATE | SESSION(...)): agg is over its windows (or,
       window->rows, there is no agg: filter and outputs are over each row's windows); NULL:
       none */
    rsql_plan_window_t *window;
    /* The row rsql_plan_apply evaluates over: the source row's n_in values, then the
       n_computed computed columns the statement refers to (computed[k]'s expression, args[0]
       of an RSQL_BX_COMPUTED node, evaluated first, once per row) */
    int n_in;
    int n_computed;
    const rsql_bexpr_t *const *computed;
    int n_outputs;
    rsql_plan_output_t *outputs;
    /* The flat programs (plan_prog.c) of filter, outputs[i].expr and computed[k]'s expression,
       compiled once the plan is built, in its arena; a NULL program (or array): that
       expression is evaluated by walking its tree */
    const rsql_prog_t *filter_prog;
    const rsql_prog_t **output_progs;
    const rsql_prog_t *apply_prog; /* filter and outputs in one (rsql_plan_apply_row) */
    const rsql_prog_t **computed_progs;
    bool has_limit;            /* SELECT preview only (an INSERT never has a LIMIT) */
    int64_t limit;
    bool limit_from_setting;   /* no LIMIT written: sql.preview-limit applies */
    int64_t queue_capacity;    /* pipeline.queue-capacity: rows per queue between threads */
    int64_t batch_size;        /* pipeline.batch-size */
    int64_t memory;            /* pipeline.memory: bytes of records in flight; 0 = no bound */
    /* how often source positions (and a statement's state with them) are saved:
       state.flush-interval, or state.checkpoint.interval for a statement with state */
    int64_t flush_interval_ms;
    rsql_plan_errors_t errors;
    rsql_arena_t *arena; /* owns the bound expressions and plan strings */
    /* The metadata the source reads (rsql_source_ctx_t.column_meta): per source column, the
       key of a METADATA column the statement uses, "" for one it does not use, NULL for a
       physical column; NULL as a whole when the table has no METADATA column. */
    const char **source_meta;
    int n_sink_meta; /* INSERT: how many of the outputs are metadata (the last ones) */
    /* Per source column, the format metadata key (rsql_format_metadata's spelling, without
       "value.") of a METADATA column the statement reads, else NULL; NULL as a whole when
       there is none. Such a column is "" in source_meta: the source does not fill it, the
       decoder does (rsql_decoder_want_meta). */
    const char **source_fmeta;
    /* The changelog mode (RSQL_MODE_*, docs/CHANGELOGS.md) of the source's rows. Filter and
       projection keep each row's kind, so it is the plan's mode and what the sink gets (an
       INSERT into a sink that cannot take it is refused). changes_by says what makes the
       changes ("format 'debezium-json'", "connector 'postgres-cdc'"), NULL when APPEND. */
    int mode;
    const char *changes_by;
    /* The source also gives RSQL_ROW_CLEAR rows (a TRUNCATE: every row gone;
       rsql_connector_def_t.produces_clears): what makes them ("connector 'postgres-cdc',
       truncate.mode 'apply'"), NULL when it does not. Only a sink that applies changes by
       key (or a preview) takes them. */
    const char *clears_by;
    /* An INSERT of a full changelog that the source's format makes, into a sink that applies
       it by key (RSQL_CHANGES_BY_KEY), needs no -U row of an update that keeps the sink's key
       (Flink drops UPDATE_BEFORE for such a sink too): its +U replaces the row of that key.
       So when every key column of the sink is written from a physical column of the source
       (through implicit casts) and the WHERE reads no other physical column (a -U that passes
       the filter while its +U does not must delete the key), before_key lists those
       n_before_key source columns (in the arena) and the decoder gives such an update as its
       +U alone (rsql_decoder_skip_before); an update that changes them keeps its -U. NULL
       when every -U is kept; before_kept then says why for EXPLAIN (NULL: not a by-key sink
       of a format's changelog). */
    int n_before_key;
    int *before_key;
    const char *before_kept;
} rsql_plan_t;

/*
** Bind and type-check stmt (RSQL_STMT_INSERT or RSQL_STMT_SELECT; EXPLAIN
** passes its inner statement) against cat. sql is the text the AST
** positions refer to (the text given to the parser: it holds at least the
** statement's bytes, and is read up to the statement's end whatever bytes,
** NULs included, come before it); settings may be NULL (= defaults). Returns a new plan
** (rsql_plan_destroy) or NULL with err set at the offending position
** (RSQL_ERR_UNKNOWN_NAME, TYPE, SEMANTIC, BAD_OPTION, MISSING_OPTION; a
** problem with errors.dlq.table is RSQL_ERR_BAD_SETTING without position).
** The source is bounded for datagen with number-of-rows, filesystem and
** sqlite unless told to follow, and rocketmq-grpc with scan.idle-timeout.
*/
rsql_plan_t *rsql_plan_build(rsql_catalog_t *cat, const rsql_stmt_t *stmt, const char *sql,
                             const rsql_settings_t *settings, rsql_error_t *err);

/*
** Call visit for every expression of the plan that reads the source row (so a decoder builds
** and a source fills what they read, and nothing else): WHERE, the outputs and a lookup
** join's ON; a deduplication's key, order and WHERE; an aggregation's keys, arguments and
** WHERE (its HAVING and outputs read the aggregate row). Stops at the first error visit
** returns, and returns it.
*/
rsql_err_t rsql_plan_reads(const rsql_plan_t *plan,
                           rsql_err_t (*visit)(void *opaque, const rsql_bexpr_t *e),
                           void *opaque);

/* Whether the plan keeps state in the job (a deduplication not done by the sink, an
   aggregation): saved with the catalog's positions, which a run then resumes from. */
bool rsql_plan_has_state(const rsql_plan_t *plan);

/*
** Can the plan's source be read now (rsql_connector_check_source: its file or database file
** exists)? Called before a statement runs; EXPLAIN, CREATE JOB and a job's run do not (what
** is read may appear later; a job's run records the error of its open as its failure).
** RSQL_OK, or the error at the source table's name in the statement.
*/
rsql_err_t rsql_plan_check_source(const rsql_plan_t *plan, rsql_error_t *err);

/*
** Append the plan's EXPLAIN text (stable, ASCII, several lines, each ending
** in '\n'; secrets masked) to out. RSQL_ERR_NOMEM when out failed.
*/
rsql_err_t rsql_plan_explain(const rsql_plan_t *plan, rsql_buf_t *out);

/*
** CREATE TABLE's check of a computed column (name AS x): x bound against the columns of def
** that are not computed (positions in sql, the statement's text), its type into *type and
** *desc. A computed column's type cannot be NULL, and it refers to no computed column.
*/
rsql_err_t rsql_plan_computed_type(const rsql_table_def_t *def, const rsql_expr_t *x,
                                   const char *sql, rsql_type_t *type,
                                   const rsql_tdesc_t **desc, rsql_error_t *err);

/*
** CREATE TABLE's check of its WATERMARK clauses (n_wm of them; at most one is allowed): the
** column is one of def's (all typed, computed ones included) and TIMESTAMP(3); the expression
** binds over def's columns, returns TIMESTAMP(3), and calls nothing whose value is not a
** function of the row, itself or through a computed column of cols (the statement's column
** definitions). Errors at their place in sql.
*/
rsql_err_t rsql_plan_watermark_check(const rsql_table_def_t *def, const rsql_column_def_t *cols,
                                     int n_cols, const rsql_watermark_t *wm, int n_wm,
                                     const char *sql, rsql_error_t *err);

/* Free the plan and everything it owns. NULL is a no-op. */
void rsql_plan_destroy(rsql_plan_t *plan);

/* Append e printed back as canonical SQL text ("(a + 1)", "UPPER(b)") to out. */
void rsql_bexpr_print(const rsql_bexpr_t *e, rsql_buf_t *out);

/* ---- evaluation */

/*
** Per-thread evaluation state: a scratch area for strings produced while
** evaluating one row (UPPER, CAST to VARCHAR, ...) and the cached "now" of
** the current batch. Values returned by rsql_expr_eval / rsql_plan_apply
** point into the input row, the plan or this scratch; they stay valid until
** rsql_eval_ctx_reset (which keeps the memory for the next row).
*/
typedef struct rsql_eval_block rsql_eval_block_t;
typedef struct rsql_eval_ctx {
    rsql_eval_block_t *blocks; /* owned */
    int64_t now_ms; /* NOW()/CURRENT_TIMESTAMP; 0 = read the clock on first use */
    void *json_doc; /* the row's last parsed JSON document (planner/fn_json.c); owned */
    rsql_value_t *row; /* rsql_plan_apply: the source row and its computed columns; owned */
    int row_cap;
} rsql_eval_ctx_t;

void rsql_eval_ctx_init(rsql_eval_ctx_t *ctx);
void rsql_eval_ctx_deinit(rsql_eval_ctx_t *ctx);
/* Forget the scratch strings of the last row (memory is kept). */
void rsql_eval_ctx_reset(rsql_eval_ctx_t *ctx);
/* Set the batch's "now" (ms since the epoch); 0 = clock at next use. */
void rsql_eval_ctx_set_now(rsql_eval_ctx_t *ctx, int64_t now_ms);
/* n bytes of scratch valid until the next reset; NULL when out of memory. */
void *rsql_eval_scratch(rsql_eval_ctx_t *ctx, size_t n);

/*
** Evaluate e over row (the source row: values indexed like the source
** columns, typed as the source schema says). *out gets the result typed
** e->type (is_null for SQL NULL). Errors are RSQL_ERR_EVAL ("division by
** zero", "integer overflow", "cannot cast 'abc' to INT") at e's position,
** or RSQL_ERR_NOMEM. Allocates only in ctx's scratch.
*/
rsql_err_t rsql_expr_eval(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                          rsql_value_t *out, rsql_error_t *err);

/*
** rsql_expr_eval with the two commonest per-row forms of a window's expressions inline (no
** call, no dispatch): a column (a grouping key, DESCRIPTOR(ts)) and a TIMESTAMP column minus
** a constant INTERVAL (a WATERMARK's `ts - INTERVAL '5' SECOND`), with the evaluator's result
** (a NULL column gives NULL); anything else, and an overflow (its error), is rsql_expr_eval's.
*/
static inline rsql_err_t rsql_expr_eval_row(const rsql_bexpr_t *e, const rsql_value_t *row,
                                            rsql_eval_ctx_t *ctx, rsql_value_t *out,
                                            rsql_error_t *err)
{
    if (e->kind == RSQL_BX_COLUMN) {
        *out = row[e->column];
        out->type = e->type;
        return RSQL_OK;
    }
    if (e->kind == RSQL_BX_BINARY && e->op == RSQL_OP_SUB && e->type == RSQL_TYPE_TIMESTAMP &&
        e->args[0]->kind == RSQL_BX_COLUMN && e->args[0]->type == RSQL_TYPE_TIMESTAMP &&
        e->args[1]->kind == RSQL_BX_CONST && e->args[1]->type == RSQL_TYPE_INTERVAL &&
        !e->args[1]->value.is_null) {
        const rsql_value_t *x = &row[e->args[0]->column];
        int64_t r = 0;
        if (x->is_null || !__builtin_sub_overflow(x->v.ts, e->args[1]->value.v.i, &r)) {
            memset(out, 0, sizeof *out);
            out->type = e->type;
            out->is_null = x->is_null;
            out->v.ts = r;
            return RSQL_OK;
        }
    }
    return rsql_expr_eval(e, row, ctx, out, err);
}

/*
** rsql_expr_eval recurses once per level of e: the planner refuses (at bind time) any
** expression deeper than RSQL_EVAL_MAX_DEPTH, so evaluation cannot run out of stack. Bound
** trees are deeper than their SQL (implicit casts), hence the margin over the parser's limit.
** rsql_expr_depth_ok says whether e is at most limit levels deep; its own recursion stops at
** the limit, so it is safe on any tree.
*/
#define RSQL_EVAL_MAX_DEPTH (4 * RSQL_SQL_MAX_EXPR_DEPTH)
bool rsql_expr_depth_ok(const rsql_bexpr_t *e, int limit);

/*
** Compile e into a flat program in arena a (e and its constants must outlive it: the plan's
** arena). Nodes the flat form does not cover (CASE, LIKE, IN, BETWEEN, COALESCE, IF, ROW
** fields, [] ) are run by the tree walk from within the program. NULL when out of memory or
** when e needs more registers than a program has (then evaluate e with rsql_expr_eval).
*/
rsql_prog_t *rsql_prog_compile(rsql_arena_t *a, const rsql_bexpr_t *e);
/* Run p over row: what rsql_expr_eval(e, row, ctx, out, err) gives for p's expression e,
   result and errors alike. @locality any thread, each with its own ctx */
rsql_err_t rsql_prog_run(const rsql_prog_t *p, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                         rsql_value_t *out, rsql_error_t *err);
/* rsql_plan_apply_row by plan->apply_prog: what the tree walk gives, *keep included. */
rsql_err_t rsql_prog_apply(const rsql_prog_t *p, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                           rsql_value_t *out_row, bool *keep, rsql_error_t *err);
/* How many of p's instructions hand a subtree to the tree walk (0: p is flat throughout). */
int rsql_prog_tree_count(const rsql_prog_t *p);
/* Compile plan's filter, outputs and computed columns into plan->filter_prog, output_progs,
   apply_prog and computed_progs (rsql_plan_build does it); one that cannot be compiled stays
   NULL. */
void rsql_plan_compile(rsql_plan_t *plan);

/*
** The runtime's per-row transform: evaluate the filter (a NULL or FALSE
** filter sets *keep = false and leaves out_row alone), then every output
** into out_row[0..plan->n_outputs). A NULL for a NOT NULL sink column is
** RSQL_ERR_EVAL. Positions in err refer to plan->sql (the text given to
** rsql_plan_build); rsql_plan_error_format renders them.
*/
rsql_err_t rsql_plan_apply(const rsql_plan_t *plan, const rsql_value_t *in_row,
                           rsql_eval_ctx_t *ctx, rsql_value_t *out_row, bool *keep,
                           rsql_error_t *err);
/*
** The steps of rsql_plan_apply for a plan with a lookup join (plan->lookup), whose row holds
** the joined table's columns after the source's:
**   rsql_plan_row: the row for source row src (n_in + n_computed values, in ctx, valid until
**     the next call): src's values, the joined table's columns NULL, the computed columns
**     evaluated (once); the caller copies it, and fills the joined columns of each row found;
**   rsql_plan_lookup_cond: the rest of ON (plan->lookup->cond) over such a row (*match true
**     when there is none);
**   rsql_plan_apply_row: filter and projection over it (what rsql_plan_apply does after
**     computing the computed columns).
** A plan without a lookup join has n_in = the source's columns; rsql_plan_apply is
** rsql_plan_row (when it has computed columns) then rsql_plan_apply_row.
*/
rsql_err_t rsql_plan_row(const rsql_plan_t *plan, const rsql_value_t *src, rsql_eval_ctx_t *ctx,
                         const rsql_value_t **row, rsql_error_t *err);
rsql_err_t rsql_plan_lookup_cond(const rsql_plan_t *plan, const rsql_value_t *row,
                                 rsql_eval_ctx_t *ctx, bool *match, rsql_error_t *err);
rsql_err_t rsql_plan_apply_row(const rsql_plan_t *plan, const rsql_value_t *row,
                               rsql_eval_ctx_t *ctx, rsql_value_t *out_row, bool *keep,
                               rsql_error_t *err);

/*
** A group's accumulators (a->n_acc values; planner/plan_agg_eval.c):
**   rsql_plan_agg_init: those of a group with no row yet;
**   rsql_plan_agg_add: add source row `row` (rsql_plan_row's: computed columns included),
**     values kept in arena a; an error (an overflow of a SUM) leaves acc as it may be half
**     changed: the caller drops it;
**   rsql_plan_agg_results: the calls' results (a->n_calls values) from acc.
*/
void rsql_plan_agg_init(const rsql_plan_agg_t *a, rsql_value_t *acc);
/* For a DISTINCT call (index call) and the row's non-NULL value v: *seen when the group took
   v before (the caller remembers it, once the row is taken, for the rows after). */
typedef rsql_err_t (*rsql_agg_seen_cb)(void *opaque, int call, const rsql_value_t *v,
                                       bool *seen, rsql_error_t *err);
rsql_err_t rsql_plan_agg_add(const rsql_plan_agg_t *a, rsql_value_t *acc,
                             const rsql_value_t *row, rsql_eval_ctx_t *ctx, rsql_arena_t *arena,
                             rsql_agg_seen_cb seen, void *opaque, rsql_error_t *err);
void rsql_plan_agg_results(const rsql_plan_agg_t *a, const rsql_value_t *acc, rsql_value_t *out);
/* Merge accumulators from (of rows after acc's: a later SESSION) into acc (values kept in
   arena): counts and sums added, MIN and MAX compared, FIRST_VALUE acc's unless it has none,
   LAST_VALUE from's unless it has none. DISTINCT calls are added as the others: a value both
   took is then in acc twice (rsql_plan_agg_take_back takes it out again; the values each took
   are the caller's). An error (a SUM overflow) may leave acc half merged. */
rsql_err_t rsql_plan_agg_merge(const rsql_plan_agg_t *a, rsql_value_t *acc,
                               const rsql_value_t *from, rsql_arena_t *arena, rsql_error_t *err);
/* Take non-NULL value v of DISTINCT call `call` (COUNT, SUM or AVG) out of acc once: two
   sessions merged (rsql_plan_agg_merge added both) that had each taken v. */
rsql_err_t rsql_plan_agg_take_back(const rsql_plan_agg_t *a, rsql_value_t *acc, int call,
                                   const rsql_value_t *v, rsql_error_t *err);
/* Whether every call can take a row out again (COUNT, SUM and AVG, not of DISTINCT values);
   else *why is the first that cannot. */
bool rsql_plan_agg_retractable(const rsql_plan_agg_t *a, const rsql_plan_aggcall_t **why);
/* Take source row `row` (a -U or -D) out of acc: the inverse of rsql_plan_agg_add, for a plan
   whose calls are retractable. */
rsql_err_t rsql_plan_agg_retract(const rsql_plan_agg_t *a, rsql_value_t *acc,
                                 const rsql_value_t *row, rsql_eval_ctx_t *ctx, rsql_error_t *err);

/*
** An evaluation error as one line for a DLQ row or a log: "1:24: division by
** zero (at 'a / b')" using the plan's own copy of the statement text.
*/
void rsql_plan_error_format(const rsql_plan_t *plan, const rsql_error_t *err, char *buf,
                            size_t size);

/*
** The error of an unknown table name at pos: "no such table: name (did you mean x?)" with the
** nearest of the catalog's tables (RSQL_ERR_UNKNOWN_NAME, returned).
*/
rsql_err_t rsql_plan_no_such_table(rsql_catalog_t *cat, const char *name, rsql_pos_t pos,
                                   rsql_error_t *err);

#endif

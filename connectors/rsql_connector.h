/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_connector: the connector registry.  Each connector declares its name,
 * sides and ONE options table; formats (json, csv, raw) declare theirs.  The
 * registry validates a table's WITH options against the connector's table
 * plus, for connectors with a `format` option, the chosen format's table
 * (keys `json.*`, `csv.*`).  The data-path vtable joins this struct with the
 * runtime.
 */
#ifndef RSQL_CONNECTOR_H
#define RSQL_CONNECTOR_H

#include "base/rsql_opts.h"
#include "connectors/rsql_io.h"

/*
** The connector ABI: the layout of every struct and the signature of every
** function in this header and the ones it includes (the installed SDK
** header, rocketsql/connector.h, is made from them). Bumped on every
** incompatible change; rocketsql loads only plugins built with its own
** number (docs/PLUGINS.md, "ABI versioning").
*/
#define RSQL_CONNECTOR_ABI_VERSION 13

#define RSQL_CAP_SOURCE 0x1u
#define RSQL_CAP_SINK 0x2u

/* The 'connector' row every connector's option table starts with. */
#define RSQL_CONN_ROW_CONNECTOR(name)                                              \
    RSQL_OPT_ROW("connector", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL, \
                 "Must be `" name "`.")

/* The typed configurations a validated option set carries (rsql_optset_conf). */
#define RSQL_CONF_CONNECTOR 0
#define RSQL_CONF_FORMAT 1

typedef struct rsql_format_def {
    const char *name; /* "json" */
    const char *description;
    const rsql_opt_def_t *opts; /* keys start with "<name>." */
    /* Optional cross-option rules, run after the connector's finalize. */
    rsql_err_t (*finalize)(const rsql_optset_t *set, rsql_error_t *err);
    /* Size of the format's config struct (the rows' fields point into it); 0 = none. */
    size_t conf_size;
    /* Optional: complete the config after its rows were written (derived members). */
    rsql_err_t (*configure)(void *conf, const rsql_optset_t *set, rsql_error_t *err);
    /*
    ** Optional, at planning: can a table of these columns use this format
    ** ("format 'raw' needs exactly one VARCHAR or BYTES column ...")? Report
    ** RSQL_ERR_SEMANTIC at pos, naming table.
    */
    rsql_err_t (*check_columns)(const char *table, int n_columns, const char *const *names,
                                const rsql_type_t *types, rsql_pos_t pos, rsql_error_t *err);
} rsql_format_def_t;

/* ---- metadata keys: what a connector reads or writes around the body */

#define RSQL_META_READ 0x1u  /* readable: the source fills a METADATA column of this key */
#define RSQL_META_WRITE 0x2u /* writable: the sink writes a (non-VIRTUAL) column of this key */

/*
** One row of a connector's metadata key table (rsql_connector_def_t.metadata), ended by a
** row whose key is NULL (RSQL_META_END). The table drives validation of METADATA columns
** (unknown key, type, VIRTUAL or read-only key on a sink), DESCRIBE, SHOW METADATA FOR
** CONNECTOR, EXPLAIN and docs/CONNECTORS.md. type is the key's SQL type as text, as a
** column type is written ("VARCHAR", "TIMESTAMP(3)", "ARRAY<STRING>"; rsql_tdesc_parse).
*/
typedef struct rsql_meta_def {
    const char *key;  /* "tag": lower snake_case */
    const char *type; /* "VARCHAR" */
    unsigned flags;   /* RSQL_META_READ | RSQL_META_WRITE */
    const char *doc;
} rsql_meta_def_t;

#define RSQL_META_ROW(key, type, flags, doc) {key, type, flags, doc}
#define RSQL_META_END {NULL, NULL, 0, NULL}

/* ---- what EXPLAIN asks a connector (rsql_connector_def_t.explain) */

typedef enum rsql_explain_part {
    RSQL_EXPLAIN_SOURCE, /* extra attribute lines of the Source node */
    RSQL_EXPLAIN_SINK,   /* extra attribute lines of the Sink node */
    RSQL_EXPLAIN_POLL,   /* text after "Threads: poll" (e.g. " (4 long polls)") */
    RSQL_EXPLAIN_ERRORS  /* text appended to the "Errors:" line */
} rsql_explain_part_t;

typedef struct rsql_explain rsql_explain_t;
struct rsql_explain {
    rsql_explain_part_t part;
    const void *conf;          /* this table's connector config (RSQL_CONF_CONNECTOR) */
    const rsql_optset_t *opts; /* its options (for display only) */
    bool preview;              /* a SELECT preview: nothing is acked or committed */
    bool tolerate_all;         /* errors.tolerance = all */
    /* One attribute line "name: text" at the node's depth (SOURCE, SINK). */
    void (*attr)(const rsql_explain_t *x, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
    /* Text appended to the current line (POLL, ERRORS). */
    void (*text)(const rsql_explain_t *x, const char *fmt, ...)
        __attribute__((format(printf, 2, 3)));
    void *priv; /* the planner's */
    /* The SINK part: whether the rows are a changelog (rsql_sink_ctx_t.changelog), the
       table's PRIMARY KEY (n_key column names in key order; 0 = none) and the METADATA keys
       the statement writes (n_meta). */
    bool changelog;
    int n_key;
    const char *const *key;
    int n_meta;
    const char *const *meta;
};

/*
** A connector's descriptor: its identity, options, data path and the
** semantics the planner and EXPLAIN need. One per connector, in its own
** folder (or in a plugin); conn_registry.c lists them all, built-ins first,
** then the plugins'. Nothing else in the tree knows a connector by its name.
*/
/* rsql_connector_def_t.changes */
enum { RSQL_CHANGES_NONE = 0, RSQL_CHANGES_BY_KEY, RSQL_CHANGES_BY_FORMAT, RSQL_CHANGES_ALL };

/*
** The changelog mode of a table's rows (Flink's names; docs/CHANGELOGS.md): APPEND, inserts
** only (+I); UPSERT, inserts, updates and deletes by the table's PRIMARY KEY without the
** before image (+I +U -D); FULL, every kind (+I -U +U -D). rsql_connector_def_t.produces_changes
** returns one; a source whose format is a changelog format (rsql_format_changelog) is FULL.
*/
enum { RSQL_MODE_APPEND = 0, RSQL_MODE_UPSERT, RSQL_MODE_FULL };

/*
** The options of a table that is looked up (connectors/conn_lookup.c), shared by every
** connector with a lookup data path: validated with its own rows (rsql_connector_validate
** adds them), rows flagged RSQL_OPT_F_LOOKUP.
*/
extern const rsql_opt_def_t rsql_lookup_opts[];
/* Their cross-option rules: the lookup.partial-cache.* rows need lookup.cache = PARTIAL. */
rsql_err_t rsql_lookup_opts_finalize(const rsql_optset_t *set, rsql_error_t *err);

/* The lookup options of a table, as the runtime uses them. */
typedef struct rsql_lookup_conf {
    bool cache;                     /* lookup.cache = PARTIAL */
    int64_t max_rows;               /* lookup.partial-cache.max-rows */
    int64_t expire_after_write_ms;  /* 0: never */
    int64_t expire_after_access_ms; /* 0: never */
    bool cache_missing;             /* lookup.partial-cache.cache-missing-key */
    int max_retries;                /* lookup.max-retries */
} rsql_lookup_conf_t;
/* Read them from a table's validated option set. */
void rsql_lookup_conf_get(const rsql_optset_t *set, rsql_lookup_conf_t *conf);

typedef struct rsql_connector_def {
    const char *name; /* "rocketmq-grpc" */
    const char *description;
    unsigned caps;              /* RSQL_CAP_SOURCE | RSQL_CAP_SINK */
    const rsql_opt_def_t *opts; /* includes "connector"; side-specific rows are flagged */
    const char *const *formats; /* formats allowed for "format" (NULL-terminated), or NULL */
    /*
    ** Optional cross-option rules, run by rsql_connector_validate after every
    ** single value passed ("options 'sink.lite-topic' and
    ** 'sink.lite-topic-column' cannot be used together"). Reports at the
    ** offending key or value (see rsql_optset_at).
    */
    rsql_err_t (*finalize)(const rsql_optset_t *set, rsql_error_t *err);

    /* ---- typed configuration (base/rsql_conf.h) */
    size_t conf_size; /* the config struct the rows' fields point into; 0 = none */
    /*
    ** Optional: complete conf after the rows were written (values derived
    ** from several options, '#' rows per column of the table's columns).
    ** Allocate from arena (it lives as long as the option set). Must not
    ** change a validated value.
    */
    rsql_err_t (*configure)(void *conf, const rsql_optset_t *set, const char *const *columns,
                            int n_columns, rsql_arena_t *arena, rsql_error_t *err);

    /* ---- data path (NULL on a side it lacks, or when not compiled in) */
    const rsql_source_ops_t *source;
    const rsql_sink_ops_t *sink;
    /* rows read by key for a lookup join (FROM s JOIN t FOR SYSTEM_TIME AS OF ...); NULL when
       the connector cannot */
    const rsql_lookup_ops_t *lookup;

    /* ---- semantics */
    /*
    ** Source side: does a read end by itself under conf? *why is EXPLAIN's
    ** "read" text ("bounded (ends at end of file)"). NULL = unbounded.
    */
    bool (*bounded)(const void *conf, const char **why);
    /*
    ** Source side: non-NULL when the source keeps its own positions (acks)
    ** instead of the catalog's offsets; names them for EXPLAIN ("RocketMQ
    ** acks"). Such a source prints its own acknowledgement lines.
    */
    const char *own_positions;
    /*
    ** Sink side: true when the sink stores the source positions in the same
    ** transaction as the rows (exactly-once with a source whose positions
    ** the runtime keeps), and, for a source that keeps its own
    ** (rsql_sink_ctx_t.source_own_positions), the identities of the applied
    ** records (exactly-once with RocketMQ). Its data path then has
    ** stored_positions.
    */
    bool exactly_once;
    /*
    ** Sink side, optional: exactly_once as one table's options decide it (conf: its typed
    ** configuration), for a connector that stores positions only when asked to (kafka's
    ** sink.delivery-guarantee 'exactly-once'). Such a sink has stored_positions, which
    ** reports none when the table does not ask. Use rsql_connector_exactly_once.
    */
    bool (*sink_exactly_once)(const void *conf);
    /*
    ** Sink side: what the sink does with a changelog (rows that update or delete, not only
    ** insert; rsql_sink_ctx_t.changelog). RSQL_CHANGES_NONE: it only appends, and the
    ** planner refuses a changelog into it. RSQL_CHANGES_BY_KEY: applies them by the
    ** table's PRIMARY KEY (the planner refuses a changelog into such a table without one).
    ** RSQL_CHANGES_BY_FORMAT: writes them in its format when that is a changelog format
    ** (rsql_format_changelog). RSQL_CHANGES_ALL: takes any (print shows the kinds).
    */
    int changes;
    /*
    ** Sink side, optional: may a changelog go into this table as configured (conf: its
    ** typed configuration; n_key: its PRIMARY KEY's columns, 0 = none)? Run at planning
    ** when the rows are a changelog and `changes` is not NONE; RSQL_OK, or an error that
    ** says what to set (e.g. a RocketMQ topic that does not keep the order per key).
    */
    rsql_err_t (*accept_changes)(const void *conf, const rsql_optset_t *set, int n_key,
                                 rsql_error_t *err);
    /*
    ** Source side, optional: the name of the option that makes the sink keep each source
    ** transaction whole (postgres-cdc's transaction.atomic: its records carry
    ** RSQL_REC_IN_TXN), when it is set under conf; NULL when not. The planner then refuses a
    ** sink whose data path cannot (one without rsql_sink_ops_t.release, that is, one that
    ** does not gather transactions), naming the option.
    */
    const char *(*whole_transactions)(const void *conf);
    /* Optional extra EXPLAIN output (see rsql_explain_t). */
    void (*explain)(const rsql_explain_t *x);
    /*
    ** Optional: do the options fit the columns' types ("option 'fields.b.kind': BOOLEAN
    ** column 'b' cannot be a sequence")? Run at CREATE TABLE and at planning, where the
    ** types are known (rsql_connector_check_columns). conf is the connector's typed
    ** configuration. Report RSQL_ERR_BAD_OPTION at the offending value (rsql_conn__value_pos;
    ** options loaded from the catalog have no position, and the caller's is used).
    */
    rsql_err_t (*check_columns)(const void *conf, const rsql_optset_t *set, int n_columns,
                                const char *const *names, const rsql_type_t *types,
                                rsql_error_t *err);
    /*
    ** Source side, optional: what a run of this source may leave invisible to the next run
    ** when it ends without resolving everything it took (killed, interrupted, failed): a
    ** RocketMQ consumer's held messages come back only after their invisible duration.
    ** Writes the key of what runs share (e.g. the consumer group and topic) into key
    ** (NUL-terminated, at most size bytes) and returns for how long (ms) after the run last
    ** worked its messages may stay invisible; 0 = nothing (key unused). The runtime records
    ** it with the run (the catalog) and gives a later run after an interrupted or failed one
    ** rsql_source_ctx_t.not_before_ms.
    */
    int64_t (*hold)(const void *conf, char *key, size_t size);
    /*
    ** The metadata keys (see rsql_meta_def_t), ended by RSQL_META_END; NULL = none. A source
    ** fills a METADATA column from rsql_source_ctx_t.column_meta, a sink writes the keys of
    ** rsql_sink_ctx_t.meta_keys.
    */
    const rsql_meta_def_t *metadata;
    /*
    ** Source side, optional: can a read start now? What the source reads that must exist
    ** before a run (a file, a database file) is looked up, and a missing one reported with
    ** its path and the system's message ("cannot open in.jsonl: No such file or directory").
    ** Run when a statement is about to run (rsql_connector_check_source), not at CREATE TABLE,
    ** CREATE JOB, EXPLAIN or a job's run (what is read may appear later). conf is the typed
    ** configuration.
    */
    rsql_err_t (*check_source)(const void *conf, rsql_error_t *err);
    /*
    ** Source side, optional: the changelog mode (RSQL_MODE_*) of the rows this source reads
    ** under conf, when it makes changes itself (a CDC source: rsql_record_t.kind of each row).
    ** NULL or RSQL_MODE_APPEND: inserts only, unless the table's format is a changelog format.
    ** The planner refuses such changes into a sink that cannot take them.
    */
    int (*produces_changes)(const void *conf);
    /*
    ** Source side, optional: does this source under conf also give RSQL_ROW_CLEAR records
    ** (every row of its table gone: a TRUNCATE)? NULL, or returning NULL: no. Else the
    ** setting that makes it, as the planner's error names it ("truncate.mode 'apply'"): the
    ** planner sends such a source only to a sink that applies changes by key
    ** (RSQL_CHANGES_BY_KEY: it deletes every row of its table) or to a preview.
    */
    const char *(*produces_clears)(const void *conf);
    /*
    ** Sink side, with changes RSQL_CHANGES_BY_KEY: the sink applies the changes by writing
    ** each to a log keyed by the table's key (upsert-kafka: a record per upsert, a tombstone
    ** per delete), so it cannot delete every row of its table (a TRUNCATE: RSQL_ROW_CLEAR)
    ** nor tell whether it holds a key (a deduplication keeping the first row, done by the
    ** sink). The planner sends it neither.
    */
    bool keyed_log;
    /*
    ** Source side: may the source give some of its rows to this process and the others to
    ** other processes of the same job (a Kafka consumer group's members sharing its
    ** partitions)? NULL, or returning NULL: no. Else the setting that makes it ("properties
    ** .group.id 'g'"): the planner refuses a statement whose state is per key (a
    ** deduplication, GROUP BY, windows), which would split a key's rows over the processes.
    */
    const char *(*shares_rows)(const void *conf);
} rsql_connector_def_t;

/* ---- plugins (docs/PLUGINS.md) */

/*
** What a plugin's entry point returns: the ABI it was built against
** (RSQL_CONNECTOR_ABI_VERSION), its name (for messages) and its
** connectors. Everything it points at must stay valid while the plugin is
** loaded (static data, in practice): rocketsql keeps it loaded until exit.
*/
typedef struct rsql_plugin {
    int abi_version;
    const char *name;
    const rsql_connector_def_t *const *connectors; /* NULL-terminated */
} rsql_plugin_t;

/* The entry point every plugin exports, by this name. */
#define RSQL_PLUGIN_ENTRY "rocketsql_plugin"
typedef const rsql_plugin_t *(*rsql_plugin_entry_fn)(void);
/* Mark the entry point exported when the plugin is built with -fvisibility=hidden. */
#define RSQL_PLUGIN_EXPORT __attribute__((visibility("default")))
/* Defined by a plugin (never by rocketsql): called once, when the plugin is loaded. */
const rsql_plugin_t *rocketsql_plugin(void);

/* All connectors (built-ins, then plugins'), in a stable order, NULL-terminated. */
const rsql_connector_def_t *const *rsql_connector_list(void);
const rsql_connector_def_t *rsql_connector_find(const char *name); /* case-insensitive */
/* Does c's sink, configured by conf (its typed configuration), store positions with its rows? */
bool rsql_connector_exactly_once(const rsql_connector_def_t *c, const void *conf);
const rsql_format_def_t *const *rsql_format_list(void);
const rsql_format_def_t *rsql_format_find(const char *name);

/*
** Validate a table's WITH options: 'connector' present and known (else an
** error at the key/value, suggesting the nearest connector name), then every
** option against the connector's table and its format's table. columns are
** the table's column names (for '#' rows like fields.#.kind). what_pos is
** where a missing 'connector' is reported. Returns a new option set (caller
** destroys) and the connector in *conn, or NULL with err set.
*/
rsql_optset_t *rsql_connector_validate(const rsql_opt_kv_t *kvs, int n_kvs,
                                       const char *const *columns, int n_columns,
                                       rsql_pos_t what_pos, const rsql_connector_def_t **conn,
                                       rsql_error_t *err);

/*
** rsql_connector_validate with rsql_optset_new_ex flags: RSQL_OPTSET_RESOLVE
** resolves ${env:...} / ${file:...} references (the planner does, for a
** job). Without it (CREATE TABLE) references are checked for their form
** only, and the cross-option rules (finalize) wait for planning when a
** reference is pending. 'connector' and 'format' are never references.
*/
rsql_optset_t *rsql_connector_validate_ex(const rsql_opt_kv_t *kvs, int n_kvs,
                                          const char *const *columns, int n_columns,
                                          rsql_pos_t what_pos, unsigned flags,
                                          const rsql_connector_def_t **conn, rsql_error_t *err);

/* True when key is a secret option of connector conn (or its formats). */
bool rsql_connector_is_secret(const rsql_connector_def_t *conn, const char *key);

/*
** Append value, the value of option key of a table of connector conn (NULL: not known) as
** written in the catalog, to out as it may be shown (rsql_opt_put_shown: references as
** written, secrets masked, the passwords of a URL masked).
*/
void rsql_connector_put_shown(rsql_buf_t *out, const rsql_connector_def_t *conn, const char *key,
                              const char *value);

/* docs/CONNECTORS.md, generated from the tables. */
void rsql_connector_docs_markdown(rsql_buf_t *out);

/* ---- additions (after the first API freeze) */

/*
** Check that table table_name (using connector conn with options set) can
** be used on one side (RSQL_SIDE_SOURCE: read, RSQL_SIDE_SINK: written):
** the connector has that capability ("table 'out' cannot be read from:
** connector 'print' is a sink only", RSQL_ERR_SEMANTIC) and the side's
** REQUIRED options are present (rsql_optset_check_side_for). Errors at pos.
*/
rsql_err_t rsql_connector_check_side(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                     int side, const char *table_name, rsql_pos_t pos,
                                     rsql_error_t *err);

/* The format chosen by set (given or the connector's default), or NULL (no format). */
const rsql_format_def_t *rsql_connector_format(const rsql_connector_def_t *conn,
                                               const rsql_optset_t *set);

/*
** Run conn's check_columns hook (if any) for table table_name's columns; an error
** without a position of its own is reported at pos (the table's name).
*/
rsql_err_t rsql_connector_check_columns(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                        const char *table_name, int n_columns,
                                        const char *const *names, const rsql_type_t *types,
                                        rsql_pos_t pos, rsql_error_t *err);

/*
** Run conn's check_source hook (if any) for table table_name read with options set; its error
** is reported at pos (the table's name in the statement), prefixed with the table.
*/
rsql_err_t rsql_connector_check_source(const rsql_connector_def_t *conn, const rsql_optset_t *set,
                                       const char *table_name, rsql_pos_t pos,
                                       rsql_error_t *err);

/* ---- metadata columns (conn_meta.c) */

/* The row of key in conn's metadata table (case-insensitive), or NULL. */
const rsql_meta_def_t *rsql_connector_meta_find(const rsql_connector_def_t *conn,
                                                const char *key);

/*
** Check a METADATA column of a table on conn: key known (else RSQL_ERR_BAD_OPTION at
** key_pos listing the keys and suggesting the nearest), its type fits the key's (read:
** the key's type widens to the column's; written, i.e. not VIRTUAL on a writable key: the
** column's widens to the key's; else RSQL_ERR_TYPE at type_pos), a VIRTUAL column names a
** readable key (RSQL_ERR_SEMANTIC at virtual_pos).
*/
rsql_err_t rsql_connector_check_meta(const rsql_connector_def_t *conn, const char *column,
                                     rsql_type_t type, const rsql_tdesc_t *desc, const char *key,
                                     bool is_virtual,
                                     rsql_pos_t key_pos, rsql_pos_t type_pos,
                                     rsql_pos_t virtual_pos, rsql_error_t *err);

/*
** True when a value of the column's type (desc: its descriptor, NULL for a plain scalar)
** fits the key's type m->type in that direction.
*/
bool rsql_meta_type_fits(const rsql_meta_def_t *m, rsql_type_t column, const rsql_tdesc_t *desc,
                         bool write);
/* The interned descriptor of the key's type text (m->type), or NULL when it does not parse. */
const rsql_tdesc_t *rsql_meta_type(const rsql_meta_def_t *m);

/*
** Format metadata (a changelog format's database, table, timestamps: rsql_format_metadata)
** is read through the connector under the key "value.<key>" (Flink's prefix rule), next to
** the connector's own keys; it is read-only. rsql_connector_format_meta gives the format's
** row of such a METADATA key of a table in format (NULL when key has no "value." prefix, or
** the format has no such key). Only a table with a format (rsql_connector_format) has them.
*/
#define RSQL_FORMAT_META_PREFIX "value."
struct rsql_format_meta;
const struct rsql_format_meta *rsql_connector_format_meta(const char *format, const char *key);

/*
** rsql_connector_check_meta for a table in format (NULL: none): a "value.<key>" of the
** format's metadata is a readable key of the format's type; an unknown key's error lists
** the connector's keys and the format's.
*/
rsql_err_t rsql_connector_check_meta_in(const rsql_connector_def_t *conn, const char *format,
                                        const char *column, rsql_type_t type,
                                        const rsql_tdesc_t *desc, const char *key,
                                        bool is_virtual, rsql_pos_t key_pos, rsql_pos_t type_pos,
                                        rsql_pos_t virtual_pos, rsql_error_t *err);

/* The metadata section of conn for docs/CONNECTORS.md (nothing when conn has none). */
void rsql_connector_meta_markdown(const rsql_connector_def_t *conn, rsql_buf_t *out);

/* "R", "W" or "R/W": the directions of a key, for SHOW METADATA and the docs. */
const char *rsql_meta_access(const rsql_meta_def_t *m);

/* "source, sink" / "source" / "sink" for docs and SHOW CONNECTORS. */
const char *rsql_connector_sides(const rsql_connector_def_t *conn);

#endif

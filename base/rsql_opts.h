/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_opts: the options engine.  Each connector, each format and the
 * session settings declare their options ONCE, as a table of rsql_opt_def_t
 * rows; this engine uses those rows for everything: validation at CREATE
 * TABLE / SET (unknown key -> error at its position listing the options and
 * suggesting the nearest; bad type, range or enum value -> error at the
 * value), defaults, typed access, masking of secrets, SHOW OPTIONS and the
 * generated docs/CONNECTORS.md.
 */
#ifndef RSQL_OPTS_H
#define RSQL_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_mem.h"

typedef enum rsql_opt_type {
    RSQL_OPT_STR,
    RSQL_OPT_INT,      /* integer; vmin/vmax inclusive when not both 0 */
    RSQL_OPT_BOOL,     /* true/false */
    RSQL_OPT_DOUBLE,
    RSQL_OPT_SIZE,     /* bytes: 512, 64KB, 4MB, 1GB (also KiB/MiB/GiB, k/m/g) */
    RSQL_OPT_DURATION, /* milliseconds: 500ms, 20s, 30min, 1h, 1d; a bare number is ms */
    RSQL_OPT_ENUM,     /* one of enum_vals (case-insensitive) */
    RSQL_OPT_CSV,      /* comma-separated list of non-empty strings */
    RSQL_OPT_RATE      /* events per second: '200/s', '12000/min', '5/h' */
} rsql_opt_type_t;

#define RSQL_OPT_F_REQUIRED 0x01u   /* must be given (for the side(s) it applies to) */
#define RSQL_OPT_F_SECRET 0x02u     /* masked in SHOW CREATE TABLE, EXPLAIN and logs */
#define RSQL_OPT_F_SOURCE 0x04u     /* applies only when the table is read */
#define RSQL_OPT_F_SINK 0x08u       /* applies only when the table is written */
#define RSQL_OPT_F_HIDDEN 0x10u     /* accepted, not listed */
#define RSQL_OPT_F_DEPRECATED 0x20u /* accepted with a warning */
#define RSQL_OPT_F_NONEMPTY 0x40u   /* STR/CSV: '' is rejected (REQUIRED rows imply it) */
#define RSQL_OPT_F_URL 0x80u        /* a URL or connection string: its passwords masked when shown */
#define RSQL_OPT_F_LOOKUP 0x100u    /* applies only when the table is looked up (a lookup join) */

typedef struct rsql_opt_def {
    const char *name; /* may hold one '#' standing for a column name: "fields.#.kind" */
    rsql_opt_type_t type;
    unsigned flags;
    const char *def; /* default as text (parsed like user input); NULL = none */
    int64_t vmin, vmax; /* INT / SIZE (bytes) / DURATION (ms) range, both 0 = unbounded */
    const char *const *enum_vals; /* ENUM: NULL-terminated */
    const char *doc;
    /*
    ** Optional extra check of one value, run after the type/range/enum
    ** checks passed (e.g. "a single character"). Report at value_pos.
    */
    rsql_err_t (*validate)(const struct rsql_opt_def *def, const char *key, const char *value,
                           rsql_pos_t value_pos, rsql_error_t *err);
    /*
    ** Typed configuration (base/rsql_conf.h): where the value goes in the
    ** owner's config struct, as RSQL_OPT_FIELD(struct, member, ctype); 0 =
    ** no field (the row is read some other way, e.g. a '#' row by the
    ** owner's configure hook). The member's C type follows the row's type:
    ** STR/CSV const char *, INT/SIZE/DURATION int64_t, BOOL bool,
    ** DOUBLE/RATE double, ENUM int (the index in enum_vals).
    */
    size_t field;
    /* Optionally a bool member set to true when the key was given (0 = none). */
    size_t given_field;
} rsql_opt_def_t;

/*
** The field of a row: offsetof(T, member) + 1 (0 means "no field"), with a
** compile-time check that the member has C type ctype.
*/
#define RSQL_OPT_FIELD(T, member, ctype) \
    (offsetof(T, member) + 1 + 0 * sizeof((ctype *)0 == &((T *)0)->member))

/* A table ends with this row. */
#define RSQL_OPT_END {NULL, RSQL_OPT_STR, 0, NULL, 0, 0, NULL, NULL, NULL, 0, 0}

/*
** Rows, positionally: name, type, flags, default text, vmin, vmax, enum
** values, doc; _V adds a validate hook; _F a field (RSQL_OPT_FIELD); _FG a
** field and a given_field; _VF a validate hook and a field. Every member
** is written, so tables compile cleanly under -Wextra.
*/
#define RSQL_OPT_ROW(name, type, flags, def, lo, hi, enums, doc) \
    {name, type, flags, def, lo, hi, enums, doc, NULL, 0, 0}
#define RSQL_OPT_ROW_V(name, type, flags, def, lo, hi, enums, doc, validate) \
    {name, type, flags, def, lo, hi, enums, doc, validate, 0, 0}
#define RSQL_OPT_ROW_F(name, type, flags, def, lo, hi, enums, doc, field) \
    {name, type, flags, def, lo, hi, enums, doc, NULL, field, 0}
#define RSQL_OPT_ROW_FG(name, type, flags, def, lo, hi, enums, doc, field, given) \
    {name, type, flags, def, lo, hi, enums, doc, NULL, field, given}
#define RSQL_OPT_ROW_VF(name, type, flags, def, lo, hi, enums, doc, validate, field) \
    {name, type, flags, def, lo, hi, enums, doc, validate, field, 0}

/* ---- parsing values (shared by options, settings and the planner) */
rsql_err_t rsql_opt_parse_bool(const char *s, bool *out);
rsql_err_t rsql_opt_parse_int(const char *s, int64_t *out);
rsql_err_t rsql_opt_parse_double(const char *s, double *out);
rsql_err_t rsql_opt_parse_size(const char *s, int64_t *bytes);
rsql_err_t rsql_opt_parse_duration(const char *s, int64_t *ms);
rsql_err_t rsql_opt_parse_rate(const char *s, double *per_second);

/* Type name for docs ("duration", "enum", ...). */
const char *rsql_opt_type_name(rsql_opt_type_t t);

/*
** The row of table matching key (a '#' row matches any one segment), or NULL.
** Keys match case-insensitively. (The column check of '#' segments is done
** by rsql_optset_new when it is given columns, n_columns >= 0.)
*/
const rsql_opt_def_t *rsql_opt_find(const rsql_opt_def_t *table, const char *key);

/*
** Check one value against its row: type, range, enum. On error returns
** RSQL_ERR_BAD_OPTION with pos = value_pos and a message that names the key
** and the expected form ("option 'source.batch-size' must be between 1 and
** 32, got '64'").
*/
rsql_err_t rsql_opt_check_value(const rsql_opt_def_t *def, const char *key, const char *value,
                                rsql_pos_t value_pos, rsql_error_t *err);

/*
** The nearest of names[0..n) to key, an unknown name (a column, function, table or keyword),
** by edit distance (at most 1, 2 for a key of 8 characters or more; none for a key shorter
** than 3), or NULL when none is
** near. For "did you mean".
*/
const char *rsql_nearest_name(const char *key, const char *const *names, int n);

/* ---- a validated set of options */

typedef struct rsql_optset rsql_optset_t;

/* One key/value as given, with places (RSQL_NOPOS when loaded from the catalog). */
typedef struct rsql_opt_kv {
    const char *key;
    const char *value;
    rsql_pos_t key_pos, value_pos;
} rsql_opt_kv_t;

/*
** Validate kvs against the union of tables (searched in order): unknown keys
** (error at key_pos: "unknown option 'topik' for connector 'rocketmq-grpc'
** (did you mean 'topic'?); valid options: ..."), duplicates, bad values, and
** the REQUIRED rows that apply to neither side only (side-specific ones are
** checked by rsql_optset_check_side). what names the owner in messages
** ("connector 'rocketmq-grpc'"). '#' rows must match one of columns.
** Returns a new set (copies everything) or NULL with err set.
*/
rsql_optset_t *rsql_optset_new(const rsql_opt_def_t *const *tables, int n_tables,
                               const char *what, const rsql_opt_kv_t *kvs, int n_kvs,
                               const char *const *columns, int n_columns, rsql_error_t *err);
void rsql_optset_destroy(rsql_optset_t *set);

#define RSQL_SIDE_SOURCE 1
#define RSQL_SIDE_SINK 2
#define RSQL_SIDE_LOOKUP 3 /* read by key (a lookup join): no side's rows are required */
/*
** Check the rows that apply to one side: required ones present. pos is
** where to report a missing one (e.g. the table name in FROM).
*/
rsql_err_t rsql_optset_check_side(const rsql_optset_t *set, int side, rsql_pos_t pos,
                                  rsql_error_t *err);

/* Typed access: the value given, else the row's default. name must be in a table (else abort). */
bool rsql_optset_has(const rsql_optset_t *set, const char *name); /* given explicitly */
const char *rsql_optset_str(const rsql_optset_t *set, const char *name); /* NULL: unset, no default */
int64_t rsql_optset_int(const rsql_optset_t *set, const char *name); /* INT, SIZE, DURATION(ms) */
bool rsql_optset_bool(const rsql_optset_t *set, const char *name);
double rsql_optset_double(const rsql_optset_t *set, const char *name); /* DOUBLE, RATE (/s) */
/* The given keys in order (for iteration: '#' rows, SHOW CREATE). */
int rsql_optset_count(const rsql_optset_t *set);
const rsql_opt_kv_t *rsql_optset_at(const rsql_optset_t *set, int i);
/*
** Append the i-th given value to out as it may be shown (rsql_opt_put_shown): a reference as
** written, never its resolved value.
*/
void rsql_optset_put_shown(const rsql_optset_t *set, int i, rsql_buf_t *out);
bool rsql_opt_is_secret(const rsql_opt_def_t *const *tables, int n_tables, const char *key);

/* ---- showing values (rsql_opts_show.c): the one rule for SHOW, EXPLAIN, logs, messages */

/*
** Append value, an option's value as written, as it may be shown: a reference (${env:NAME},
** ${file:PATH}) as written (it names where the value is, not the value); "******" for a
** SECRET row's inline value; a URL row's (RSQL_OPT_F_URL) with each password in it replaced
** by "******" (scheme://user:PASSWORD@host, and parameters whose name ends in "password":
** ?password=..., sslpassword=..., password='...' in a key=value connection string); else as
** written. def NULL (an option of no known row): as written.
*/
void rsql_opt_put_shown(rsql_buf_t *out, const rsql_opt_def_t *def, const char *value);

/* Secrets shorter than this are not searched for in messages (they would mask ordinary text). */
#define RSQL_OPT_MASK_MIN_LEN 3
/*
** Replace every occurrence of secret (len bytes, not NUL-terminated) in text (NUL-terminated,
** a buffer of size bytes) by "******", in place, cut to fit. For messages of a library that
** may echo a secret it was given.
*/
void rsql_opt_mask_secret(char *text, size_t size, const char *secret, size_t len);
/* rsql_opt_mask_secret for each password of url (a URL or connection string, as above). */
void rsql_opt_mask_url_secrets(char *text, size_t size, const char *url);

/* Markdown table of rows (for docs/CONNECTORS.md). */
void rsql_opts_markdown(const rsql_opt_def_t *table, rsql_buf_t *out);
/* "yes", "to read", "to write" or "no": when the option must be given (docs, SHOW OPTIONS). */
const char *rsql_opts_required_text(const rsql_opt_def_t *d);
/*
** Append the facts the docs add after an option's description, each a sentence starting
** with a space: its enum values, range, secrecy, deprecation (docs, SHOW OPTIONS).
*/
void rsql_opts_facts(const rsql_opt_def_t *d, rsql_buf_t *out);

/* ---- additions (after the first API freeze) */

/*
** Canonical text of a duration in ms ("500ms", "20s", "30min", "1h", "1d":
** the largest unit that divides it) or a size in bytes ("512B", "64KB",
** "4MB", "1GB"; binary units). Written into buf (always NUL-terminated);
** returns buf. Both parse back to the same number.
*/
const char *rsql_opt_format_duration(int64_t ms, char *buf, size_t size);
const char *rsql_opt_format_size(int64_t bytes, char *buf, size_t size);

/*
** Like rsql_opt_check_value, naming the key with noun ("option", "setting")
** and failing with code (RSQL_ERR_BAD_OPTION, RSQL_ERR_BAD_SETTING).
*/
rsql_err_t rsql_opt_check_value_as(const rsql_opt_def_t *def, const char *noun, rsql_err_t code,
                                   const char *key, const char *value, rsql_pos_t value_pos,
                                   rsql_error_t *err);

/*
** The nearest name to an unknown key by edit distance, written into out; a
** '#' row is offered with the key's own segment in place of '#'
** ("fields.id.kinf" -> "fields.id.kind"). False when none is near.
*/
bool rsql_opt_suggest_key(const rsql_opt_def_t *const *tables, int n_tables, const char *key,
                          char *out, size_t size);

/*
** rsql_optset_new, reporting a missing REQUIRED option at what_pos (the
** statement's WITH clause or table name) instead of no position.
*/
rsql_optset_t *rsql_optset_new_at(const rsql_opt_def_t *const *tables, int n_tables,
                                  const char *what, const rsql_opt_kv_t *kvs, int n_kvs,
                                  const char *const *columns, int n_columns, rsql_pos_t what_pos,
                                  rsql_error_t *err);

/*
** rsql_optset_check_side naming the table in the message: "missing required
** option 'source.consumer-group' for connector 'rocketmq-grpc' (needed to
** read from table 'orders')" / "(needed to write to table 'out')".
** table_name may be NULL (then no parenthesis).
*/
rsql_err_t rsql_optset_check_side_for(const rsql_optset_t *set, int side, const char *table_name,
                                      rsql_pos_t pos, rsql_error_t *err);

/*
** Typed configurations attached to a set (see base/rsql_conf.h): slot 0 is
** the connector's (or the settings'), slot 1 its format's. The set owns an
** arena for them: rsql_optset_arena creates it on first use (NULL when out
** of memory) and it is freed with the set.
*/
#define RSQL_OPTSET_CONF_SLOTS 2
void rsql_optset_set_conf(rsql_optset_t *set, int slot, const void *conf);
const void *rsql_optset_conf(const rsql_optset_t *set, int slot);
rsql_arena_t *rsql_optset_arena(rsql_optset_t *set);

/* The row the i-th given key matched (never NULL for a valid i). */
const rsql_opt_def_t *rsql_optset_def_at(const rsql_optset_t *set, int i);
/* Index of the given key name (case-insensitive), or -1 when it was not given. */
int rsql_optset_find(const rsql_optset_t *set, const char *name);
/* The def row for name (a '#' row matches any segment), or NULL. Borrowed, static. */
const rsql_opt_def_t *rsql_optset_lookup_def(const rsql_optset_t *set, const char *name);

/* ---- references to values kept outside the catalog (rsql_opts_ref.c) */

/*
** A whole value `${env:NAME}` or `${file:PATH}` is a reference: the catalog
** keeps it as written, and a set built with RSQL_OPTSET_RESOLVE (when a job
** is planned) replaces it by the variable's value or the file's contents
** (one trailing newline dropped, at most 64 KiB, no NUL byte). Resolved
** values are never shown: SHOW and EXPLAIN print the reference as written
** (for a SECRET row too: it is not the secret), messages name the variable
** or file only.
*/
typedef enum rsql_opt_ref_kind {
    RSQL_OPT_REF_NONE, /* a plain value */
    RSQL_OPT_REF_ENV,
    RSQL_OPT_REF_FILE
} rsql_opt_ref_kind_t;

typedef struct rsql_opt_ref {
    rsql_opt_ref_kind_t kind;
    const char *name; /* the variable name or path, inside the value (not NUL-terminated) */
    size_t name_len;
} rsql_opt_ref_t;

/*
** Is value a reference? A value of the form ${...} that is neither form is
** an error at pos (the value is not echoed when secret). kind NONE: plain.
*/
rsql_err_t rsql_opt_ref_parse(const char *key, const char *value, bool secret, rsql_pos_t pos,
                              rsql_opt_ref_t *ref, rsql_error_t *err);
/*
** The referred text (caller frees with rsql_opt_ref_free), or an error at pos
** naming the option and the variable or file: not set, unreadable, too big.
*/
rsql_err_t rsql_opt_ref_resolve(const char *key, const rsql_opt_ref_t *ref, rsql_pos_t pos,
                                char **out, rsql_error_t *err);
/* Wipe and free a resolved value. NULL-safe. */
void rsql_opt_ref_free(char *resolved);

/* rsql_optset_new_ex flags */
#define RSQL_OPTSET_RESOLVE 0x01u /* resolve references (else they are kept, checked later) */

/*
** rsql_optset_new_at with flags. Without RSQL_OPTSET_RESOLVE a reference is
** only checked for its form: the typed getters and rsql_conf_fill see a
** STR/CSV reference as its text and any other type as not yet known (the
** row's default), and rsql_optset_pending() is true. With it, each
** reference is resolved and its value checked like one written inline.
*/
rsql_optset_t *rsql_optset_new_ex(const rsql_opt_def_t *const *tables, int n_tables,
                                  const char *what, const rsql_opt_kv_t *kvs, int n_kvs,
                                  const char *const *columns, int n_columns, rsql_pos_t what_pos,
                                  unsigned flags, rsql_error_t *err);
/* True when the set holds a reference that is not resolved (see rsql_optset_new_ex). */
bool rsql_optset_pending(const rsql_optset_t *set);
/* True when the i-th given value is an unresolved reference. */
bool rsql_optset_pending_at(const rsql_optset_t *set, int i);

#endif

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The options engine.  Connectors, formats and the session settings each
 * declare their options once, as a table of rsql_opt_def_t rows; this file
 * turns those rows into: validation of a WITH clause (unknown keys with the
 * list of valid ones and a "did you mean", duplicates, values checked by
 * type, range, enum and the row's own hook, REQUIRED rows), the validated
 * option set with typed getters that fall back to the row's default (parsed
 * like user input), showing values (rsql_opts_show.c), and the Markdown tables of
 * docs/CONNECTORS.md (rsql_opts_doc.c).  Value parsers live in rsql_opts_parse.c,
 * references to values outside the catalog in rsql_opts_ref.c.
 *
 * Keys are matched case-insensitively and stored in the row's spelling; a
 * row name holding '#' ("fields.#.kind") matches any one column name, kept
 * as written, and one named "prefix.*" ("properties.*") any key under the prefix, the rest
 * kept as written.  ENUM values are stored in the row's spelling too, so callers
 * can strcmp() them.
 */
#include "config.h"
#include "base/rsql_opts.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct rsql_optset {
    const rsql_opt_def_t **tables; /* owned array; the tables are static, borrowed */
    int n_tables;
    char *what;           /* "connector 'rocketmq-grpc'", or NULL */
    rsql_opt_kv_t *kvs;   /* key/value owned (canonical spelling) */
    const rsql_opt_def_t **defs; /* row of each kv */
    char **raw;           /* a reference as written (rsql_opts_ref.c), else NULL */
    bool *pending;        /* the value is the reference itself, not resolved */
    bool any_pending;
    int n;
    rsql_arena_t *arena;  /* owns the typed configurations, or NULL */
    const void *conf[RSQL_OPTSET_CONF_SLOTS];
};

#define MSG_MAX (sizeof(((rsql_error_t *)0)->msg) - 1)

/* ---- names and matching */

/*
** Does key match row name pattern? A '#' in pattern matches one non-empty
** segment of key; *seg / *seg_len (optional) receive it. A pattern ending in
** ".*" matches every key that starts with what comes before the '*' and goes on
** (a pass-through family such as "properties.*": dots included).
*/
static bool name_match(const char *pattern, const char *key, const char **seg, size_t *seg_len)
{
    const char *hash = strchr(pattern, '#');
    size_t plen = strlen(pattern);
    if (!hash && plen >= 2 && strcmp(pattern + plen - 2, ".*") == 0) {
        return strlen(key) > plen - 1 && strncasecmp(pattern, key, plen - 1) == 0;
    }
    if (!hash) {
        return strcasecmp(pattern, key) == 0;
    }
    size_t pre = (size_t)(hash - pattern), suf = strlen(hash + 1), klen = strlen(key);
    if (klen < pre + suf + 1 || strncasecmp(pattern, key, pre) != 0 ||
        strcasecmp(hash + 1, key + klen - suf) != 0) {
        return false;
    }
    if (seg) {
        *seg = key + pre;
        *seg_len = klen - pre - suf;
    }
    return true;
}

/*
** The row of table matching key ('#' rows match any one segment), or NULL.
*/
const rsql_opt_def_t *rsql_opt_find(const rsql_opt_def_t *table, const char *key)
{
    if (!table || !key) {
        return NULL;
    }
    for (const rsql_opt_def_t *d = table; d->name; d++) {
        if (name_match(d->name, key, NULL, NULL)) {
            return d;
        }
    }
    return NULL;
}

static const rsql_opt_def_t *find_in(const rsql_opt_def_t *const *tables, int n_tables,
                                     const char *key)
{
    for (int t = 0; t < n_tables; t++) {
        const rsql_opt_def_t *d = rsql_opt_find(tables[t], key);
        if (d) {
            return d;
        }
    }
    return NULL;
}

static int tolower_ascii(char c)
{
    return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : (unsigned char)c;
}

/* Optimal string alignment distance, case-insensitive; -1 for over-long input. */
static int osa_distance(const char *a, const char *b)
{
    enum { MAXL = 96 };
    size_t la = strlen(a), lb = strlen(b);
    if (la >= MAXL || lb >= MAXL) {
        return -1;
    }
    int d[MAXL + 1][MAXL + 1];
    for (size_t i = 0; i <= la; i++) {
        d[i][0] = (int)i;
    }
    for (size_t j = 0; j <= lb; j++) {
        d[0][j] = (int)j;
    }
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int ca = tolower_ascii(a[i - 1]), cb = tolower_ascii(b[j - 1]);
            int cost = ca == cb ? 0 : 1;
            int v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) {
                v = d[i][j - 1] + 1;
            }
            if (d[i - 1][j - 1] + cost < v) {
                v = d[i - 1][j - 1] + cost;
            }
            if (i > 1 && j > 1 && ca == tolower_ascii(b[j - 2]) &&
                tolower_ascii(a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v) {
                v = d[i - 2][j - 2] + 1;
            }
            d[i][j] = v;
        }
    }
    return d[la][lb];
}

static bool ends_with_dot(const char *s, const char *tail)
{
    size_t ls = strlen(s), lt = strlen(tail);
    return ls > lt && s[ls - lt - 1] == '.' && strcasecmp(s + ls - lt, tail) == 0;
}

/*
** Nearness score of candidate for key (see rsql_opts_int.h): the edit
** distance when it is at most max(2, len(key) / 3), else threshold + 1 for
** prefix/suffix relations, else -1.
*/
int rsql_opts__near(const char *key, const char *candidate)
{
    size_t klen = strlen(key);
    int thr = (int)(klen / 3) > 2 ? (int)(klen / 3) : 2;
    int d = osa_distance(key, candidate);
    if (d >= 0 && d <= thr) {
        return d;
    }
    if (klen >= 3 && (strncasecmp(candidate, key, klen) == 0 || ends_with_dot(key, candidate) ||
                      ends_with_dot(candidate, key))) {
        return thr + 1;
    }
    return -1;
}

/* See rsql_opts.h: the nearest of names[0..n) to key, or NULL. */
const char *rsql_nearest_name(const char *key, const char *const *names, int n)
{
    const char *best = NULL;
    int best_d = -1;
    /* stricter than for options: short SQL names are many and near each other */
    int max_d = key && strlen(key) >= 8 ? 2 : 1;
    if (!key || strlen(key) < 3) {
        return NULL; /* "x": any one-letter name is as near */
    }
    for (int i = 0; key && i < n; i++) {
        int d = names[i] ? rsql_opts__near(key, names[i]) : -1;
        if (d > max_d) {
            continue;
        }
        /* a tie goes to a name of the key's length (FORM: FROM, not FOR) */
        if (d >= 0 && (best_d < 0 || d < best_d ||
                       (d == best_d && strlen(names[i]) == strlen(key) &&
                        strlen(best) != strlen(key)))) {
            best = names[i];
            best_d = d;
        }
    }
    return best;
}

/*
** The name of row d offered for key: for a '#' row with as many segments as
** key, the row's name with key's segment in place of '#'.
*/
static void candidate_for(const rsql_opt_def_t *d, const char *key, char *out, size_t size)
{
    const char *hash = strchr(d->name, '#');
    snprintf(out, size, "%s", d->name);
    if (!hash) {
        return;
    }
    /* index of the '#' segment and the segment counts */
    int hash_seg = 0, pat_segs = 1, key_segs = 1;
    for (const char *p = d->name; *p; p++) {
        if (*p == '.') {
            pat_segs++;
            if (p < hash) {
                hash_seg++;
            }
        }
    }
    for (const char *p = key; *p; p++) {
        key_segs += *p == '.';
    }
    if (key_segs != pat_segs) {
        return;
    }
    const char *s = key;
    for (int i = 0; i < hash_seg; i++) {
        s = strchr(s, '.') + 1;
    }
    const char *e = strchr(s, '.');
    size_t slen = e ? (size_t)(e - s) : strlen(s);
    if (slen == 0) {
        return;
    }
    snprintf(out, size, "%.*s%.*s%s", (int)(hash - d->name), d->name, (int)slen, s, hash + 1);
}

/*
** The nearest non-hidden name to key, written into out (see rsql_opts.h).
*/
bool rsql_opt_suggest_key(const rsql_opt_def_t *const *tables, int n_tables, const char *key,
                          char *out, size_t size)
{
    int best = -1;
    char cand[256];
    if (!key || !*key) {
        return false;
    }
    for (int t = 0; t < n_tables; t++) {
        for (const rsql_opt_def_t *d = tables[t]; d && d->name; d++) {
            if (d->flags & RSQL_OPT_F_HIDDEN) {
                continue;
            }
            candidate_for(d, key, cand, sizeof cand);
            int s = rsql_opts__near(key, cand);
            if (s >= 0 && (best < 0 || s < best)) {
                best = s;
                snprintf(out, size, "%s", cand);
            }
        }
    }
    return best >= 0;
}

/*
** Append the non-hidden names of tables to out, comma-separated.
*/
void rsql_opts__names(const rsql_opt_def_t *const *tables, int n_tables, rsql_buf_t *out)
{
    bool first = true;
    for (int t = 0; t < n_tables; t++) {
        for (const rsql_opt_def_t *d = tables[t]; d && d->name; d++) {
            if (!(d->flags & RSQL_OPT_F_HIDDEN)) {
                rsql_buf_printf(out, "%s%s", first ? "" : ", ", d->name);
                first = false;
            }
        }
    }
}

/*
** Set err to head + "; label: list", shortening the list to fit.
*/
rsql_err_t rsql_opts__set_listed(rsql_error_t *err, rsql_err_t code, rsql_pos_t pos,
                                 const char *head, const char *label, const char *list)
{
    if (!list || !*list) {
        return rsql_error_set(err, code, pos, "%s", head);
    }
    size_t fixed = strlen(head) + 2 + strlen(label) + 2;
    size_t llen = strlen(list);
    if (fixed + llen <= MSG_MAX) {
        return rsql_error_set(err, code, pos, "%s; %s: %s", head, label, list);
    }
    /* keep whole names only, then ", ..." */
    const char *ell = ", ...";
    size_t room = MSG_MAX > fixed + strlen(ell) ? MSG_MAX - fixed - strlen(ell) : 0;
    size_t cut = 0;
    for (size_t i = 0; i + 1 < llen && i <= room; i++) {
        if (list[i] == ',' && list[i + 1] == ' ') {
            cut = i;
        }
    }
    return rsql_error_set(err, code, pos, "%s; %s: %.*s%s", head, label, (int)cut, list, ell);
}

/* ---- checking one value */

/* One bound of def's range as text (see rsql_opts_int.h). */
void rsql_opts__range_text(const rsql_opt_def_t *def, int64_t v, char *buf, size_t size)
{
    if (def->type == RSQL_OPT_DURATION) {
        rsql_opt_format_duration(v, buf, size);
    } else if (def->type == RSQL_OPT_SIZE) {
        rsql_opt_format_size(v, buf, size);
    } else {
        snprintf(buf, size, "%" PRId64, v);
    }
}

/* Does def have a range (see rsql_opts_int.h)? */
bool rsql_opts__has_range(const rsql_opt_def_t *def)
{
    return def->vmin != 0 || def->vmax != 0;
}

static rsql_err_t range_error(const rsql_opt_def_t *def, const char *noun, rsql_err_t code,
                              const char *key, const char *shown, rsql_pos_t pos,
                              rsql_error_t *err)
{
    char lo[32], hi[32];
    rsql_opts__range_text(def, def->vmin, lo, sizeof lo);
    rsql_opts__range_text(def, def->vmax, hi, sizeof hi);
    if (def->vmax == INT64_MAX) {
        return rsql_error_set(err, code, pos, "%s '%s' must be at least %s, got '%s'", noun, key,
                              lo, shown);
    }
    if (def->vmin == INT64_MIN) {
        return rsql_error_set(err, code, pos, "%s '%s' must be at most %s, got '%s'", noun, key,
                              hi, shown);
    }
    return rsql_error_set(err, code, pos, "%s '%s' must be between %s and %s, got '%s'", noun,
                          key, lo, hi, shown);
}

static bool csv_ok(const char *v)
{
    /* items separated by ',', each non-empty after trimming spaces */
    const char *p = v;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t i = 0;
        while (i < n && p[i] == ' ') {
            i++;
        }
        if (i == n) {
            return false;
        }
        if (!e) {
            return true;
        }
        p = e + 1;
    }
}

/* Parse v as an INT, SIZE (bytes) or DURATION (ms) option value. */
static rsql_err_t parse_integral(rsql_opt_type_t type, const char *v, int64_t *out)
{
    switch (type) {
    case RSQL_OPT_SIZE: return rsql_opt_parse_size(v, out);
    case RSQL_OPT_DURATION: return rsql_opt_parse_duration(v, out);
    default: return rsql_opt_parse_int(v, out);
    }
}

/* What an INT, SIZE or DURATION value should look like, for messages. */
static const char *integral_expected(rsql_opt_type_t type)
{
    switch (type) {
    case RSQL_OPT_SIZE: return "a size such as 512, 64KB, 4MB, 1GB";
    case RSQL_OPT_DURATION: return "a duration such as 500ms, 20s, 30min, 1h";
    default: return "an integer";
    }
}

/*
** Check value against def, naming it "<noun> '<key>'" in messages and
** failing with code at value_pos. SECRET values are never echoed.
*/
rsql_err_t rsql_opt_check_value_as(const rsql_opt_def_t *def, const char *noun, rsql_err_t code,
                                   const char *key, const char *value, rsql_pos_t value_pos,
                                   rsql_error_t *err)
{
    const char *v = value ? value : "";
    const char *shown = (def->flags & RSQL_OPT_F_SECRET) ? "******" : v;
    const char *expected = NULL;
    int64_t i64 = 0;
    double dbl = 0;
    bool b;

    switch (def->type) {
    case RSQL_OPT_STR:
    case RSQL_OPT_CSV:
        if (*v == '\0' && (def->flags & (RSQL_OPT_F_REQUIRED | RSQL_OPT_F_NONEMPTY))) {
            return rsql_error_set(err, code, value_pos, "%s '%s' must not be empty", noun, key);
        }
        if (def->type == RSQL_OPT_CSV && *v && !csv_ok(v)) {
            expected = "a comma-separated list of non-empty names";
        }
        break;
    case RSQL_OPT_INT:
    case RSQL_OPT_SIZE:
    case RSQL_OPT_DURATION:
        if (parse_integral(def->type, v, &i64) != RSQL_OK) {
            expected = integral_expected(def->type);
        } else if (rsql_opts__has_range(def) && (i64 < def->vmin || i64 > def->vmax)) {
            return range_error(def, noun, code, key, shown, value_pos, err);
        }
        break;
    case RSQL_OPT_BOOL:
        if (rsql_opt_parse_bool(v, &b) != RSQL_OK) {
            expected = "true or false";
        }
        break;
    case RSQL_OPT_DOUBLE:
        if (rsql_opt_parse_double(v, &dbl) != RSQL_OK) {
            expected = "a number";
        } else if (rsql_opts__has_range(def) &&
                   (dbl < (double)def->vmin || dbl > (double)def->vmax)) {
            return range_error(def, noun, code, key, shown, value_pos, err);
        }
        break;
    case RSQL_OPT_RATE:
        if (rsql_opt_parse_rate(v, &dbl) != RSQL_OK) {
            expected = "a rate such as 200/s";
        }
        break;
    case RSQL_OPT_ENUM: {
        bool found = false;
        for (const char *const *e = def->enum_vals; e && *e; e++) {
            found = found || strcasecmp(*e, v) == 0;
        }
        if (!found) {
            rsql_buf_t list = RSQL_BUF_INIT;
            for (const char *const *e = def->enum_vals; e && *e; e++) {
                rsql_buf_printf(&list, "%s%s", e == def->enum_vals ? "" : ", ", *e);
            }
            rsql_error_set(err, code, value_pos,
                           "invalid value '%s' for %s '%s': expected one of %s", shown, noun, key,
                           rsql_buf_str(&list));
            rsql_buf_deinit(&list);
            return code;
        }
        break;
    }
    }
    if (expected) {
        return rsql_error_set(err, code, value_pos, "invalid value '%s' for %s '%s': expected %s",
                              shown, noun, key, expected);
    }
    if (def->validate) {
        rsql_error_t local;
        rsql_error_clear(&local);
        rsql_err_t rc = def->validate(def, key, v, value_pos, &local);
        if (rc != RSQL_OK) {
            local.code = code;
            rsql_error_copy(err, &local);
            return code;
        }
    }
    return RSQL_OK;
}

/*
** Check one option value against its row (type, range, enum, hook).
*/
rsql_err_t rsql_opt_check_value(const rsql_opt_def_t *def, const char *key, const char *value,
                                rsql_pos_t value_pos, rsql_error_t *err)
{
    return rsql_opt_check_value_as(def, "option", RSQL_ERR_BAD_OPTION, key, value, value_pos,
                                   err);
}

/* ---- option sets */

/*
** Destroy a set and everything it owns. NULL-safe.
*/
void rsql_optset_destroy(rsql_optset_t *set)
{
    if (!set) {
        return;
    }
    for (int i = 0; i < set->n; i++) {
        rsql_free((char *)set->kvs[i].key);
        if (set->raw && set->raw[i] && !set->pending[i]) {
            rsql_opt_ref_free((char *)set->kvs[i].value); /* a resolved secret: wiped */
        } else {
            rsql_free((char *)set->kvs[i].value);
        }
        rsql_free(set->raw ? set->raw[i] : NULL);
    }
    rsql_free(set->kvs);
    rsql_free(set->defs);
    rsql_free(set->raw);
    rsql_free(set->pending);
    rsql_free(set->tables);
    rsql_free(set->what);
    rsql_arena_destroy(set->arena);
    rsql_free(set);
}

/* Attach a typed configuration (allocated in the set's arena) at slot. */
void rsql_optset_set_conf(rsql_optset_t *set, int slot, const void *conf)
{
    if (set && slot >= 0 && slot < RSQL_OPTSET_CONF_SLOTS) {
        set->conf[slot] = conf;
    }
}

/* The typed configuration at slot, or NULL. Borrowed; lives as long as the set. */
const void *rsql_optset_conf(const rsql_optset_t *set, int slot)
{
    return set && slot >= 0 && slot < RSQL_OPTSET_CONF_SLOTS ? set->conf[slot] : NULL;
}

/* The set's arena, created on first use; NULL when out of memory. */
rsql_arena_t *rsql_optset_arena(rsql_optset_t *set)
{
    if (set && !set->arena) {
        set->arena = rsql_arena_new();
    }
    return set ? set->arena : NULL;
}

static rsql_err_t unknown_key(const rsql_opt_def_t *const *tables, int n_tables, const char *what,
                              const char *key, rsql_pos_t pos, rsql_error_t *err)
{
    char near[256];
    rsql_buf_t head = RSQL_BUF_INIT, list = RSQL_BUF_INIT;
    rsql_buf_printf(&head, "unknown option '%s'", key);
    if (what) {
        rsql_buf_printf(&head, " for %s", what);
    }
    if (rsql_opt_suggest_key(tables, n_tables, key, near, sizeof near)) {
        rsql_buf_printf(&head, " (did you mean '%s'?)", near);
    }
    rsql_opts__names(tables, n_tables, &list);
    if (head.oom || list.oom) {
        rsql_error_nomem(err);
    } else {
        rsql_opts__set_listed(err, RSQL_ERR_BAD_OPTION, pos, rsql_buf_str(&head), "valid options",
                              rsql_buf_str(&list));
    }
    rsql_buf_deinit(&head);
    rsql_buf_deinit(&list);
    return RSQL_ERR_BAD_OPTION;
}

/*
** The key in the row's spelling ('#' replaced by the segment as written; under a "prefix.*"
** row, the prefix in the row's spelling and the rest as written).
*/
static char *canonical_key(const rsql_opt_def_t *d, const char *key)
{
    const char *seg = NULL;
    size_t seg_len = 0;
    const char *hash = strchr(d->name, '#');
    size_t dlen = strlen(d->name);
    if (!hash && dlen >= 2 && strcmp(d->name + dlen - 2, ".*") == 0) {
        char *out = rsql_strdup(key);
        if (out) {
            memcpy(out, d->name, dlen - 1);
        }
        return out;
    }
    if (!hash || !name_match(d->name, key, &seg, &seg_len)) {
        return rsql_strdup(d->name);
    }
    size_t pre = (size_t)(hash - d->name), suf = strlen(hash + 1);
    char *out = rsql_malloc(pre + seg_len + suf + 1);
    if (out) {
        memcpy(out, d->name, pre);
        memcpy(out + pre, seg, seg_len);
        memcpy(out + pre + seg_len, hash + 1, suf + 1);
    }
    return out;
}

static const char *canonical_value(const rsql_opt_def_t *d, const char *value)
{
    if (d->type == RSQL_OPT_ENUM) {
        for (const char *const *e = d->enum_vals; e && *e; e++) {
            if (strcasecmp(*e, value) == 0) {
                return *e;
            }
        }
    }
    return value;
}

/*
** Validate kvs against tables and build a set; a missing non-side REQUIRED
** row is reported at what_pos. Returns a new set (caller destroys) or NULL
** with err set. tables (the rows) must outlive the set; everything else is
** copied.
*/
rsql_optset_t *rsql_optset_new_ex(const rsql_opt_def_t *const *tables, int n_tables,
                                  const char *what, const rsql_opt_kv_t *kvs, int n_kvs,
                                  const char *const *columns, int n_columns, rsql_pos_t what_pos,
                                  unsigned flags, rsql_error_t *err)
{
    rsql_optset_t *set = rsql_calloc(1, sizeof *set);
    if (!set) {
        rsql_error_nomem(err);
        return NULL;
    }
    set->tables = rsql_calloc(n_tables > 0 ? (size_t)n_tables : 1, sizeof *set->tables);
    set->kvs = rsql_calloc(n_kvs > 0 ? (size_t)n_kvs : 1, sizeof *set->kvs);
    set->defs = rsql_calloc(n_kvs > 0 ? (size_t)n_kvs : 1, sizeof *set->defs);
    set->raw = rsql_calloc(n_kvs > 0 ? (size_t)n_kvs : 1, sizeof *set->raw);
    set->pending = rsql_calloc(n_kvs > 0 ? (size_t)n_kvs : 1, sizeof *set->pending);
    set->what = what ? rsql_strdup(what) : NULL;
    if (!set->tables || !set->kvs || !set->defs || !set->raw || !set->pending ||
        (what && !set->what)) {
        goto nomem;
    }
    for (int t = 0; t < n_tables; t++) {
        set->tables[t] = tables[t];
    }
    set->n_tables = n_tables;

    for (int i = 0; i < n_kvs; i++) {
        const rsql_opt_kv_t *kv = &kvs[i];
        const char *key = kv->key ? kv->key : "";
        const char *value = kv->value ? kv->value : "";
        const rsql_opt_def_t *d = find_in(tables, n_tables, key);
        if (!d) {
            unknown_key(tables, n_tables, what, key, kv->key_pos, err);
            goto fail;
        }
        const char *seg;
        size_t seg_len;
        if (strchr(d->name, '#') && n_columns >= 0 && name_match(d->name, key, &seg, &seg_len)) {
            bool found = false;
            for (int c = 0; c < n_columns && !found; c++) {
                found = strlen(columns[c]) == seg_len && strncasecmp(columns[c], seg, seg_len) == 0;
            }
            if (!found) {
                rsql_error_set(err, RSQL_ERR_BAD_OPTION, kv->key_pos,
                               "unknown column '%.*s' in option '%s'", (int)seg_len, seg, key);
                goto fail;
            }
        }
        for (int j = 0; j < i; j++) {
            if (strcasecmp(set->kvs[j].key, key) == 0) {
                rsql_error_set(err, RSQL_ERR_BAD_OPTION, kv->key_pos, "duplicate option '%s'",
                               key);
                goto fail;
            }
        }
        rsql_opt_ref_t ref;
        if (rsql_opt_ref_parse(key, value, d->flags & RSQL_OPT_F_SECRET, kv->value_pos, &ref,
                               err) != RSQL_OK) {
            goto fail;
        }
        char *resolved = NULL;
        if (ref.kind != RSQL_OPT_REF_NONE && (flags & RSQL_OPTSET_RESOLVE)) {
            if (rsql_opt_ref_resolve(key, &ref, kv->value_pos, &resolved, err) != RSQL_OK) {
                goto fail;
            }
            rsql_error_t local;
            rsql_error_clear(&local);
            if (rsql_opt_check_value(d, key, resolved, kv->value_pos, &local) != RSQL_OK) {
                rsql_opt_ref_free(resolved);
                rsql_error_set(err, RSQL_ERR_BAD_OPTION, kv->value_pos,
                               "invalid value from %.300s for option '%s' (%s; the value is "
                               "not shown)",
                               value, key, rsql_opt_type_name(d->type));
                goto fail;
            }
        } else if (ref.kind == RSQL_OPT_REF_NONE &&
                   rsql_opt_check_value(d, key, value, kv->value_pos, err) != RSQL_OK) {
            goto fail;
        }
        set->kvs[i].key = canonical_key(d, key);
        set->kvs[i].value = resolved ? resolved : rsql_strdup(canonical_value(d, value));
        if (resolved && canonical_value(d, resolved) != resolved) {
            memcpy(resolved, canonical_value(d, resolved), strlen(resolved)); /* same length */
        }
        set->kvs[i].key_pos = kv->key_pos;
        set->kvs[i].value_pos = kv->value_pos;
        set->defs[i] = d;
        set->pending[i] = ref.kind != RSQL_OPT_REF_NONE && !resolved;
        set->any_pending |= set->pending[i];
        set->raw[i] = ref.kind != RSQL_OPT_REF_NONE ? rsql_strdup(value) : NULL;
        set->n = i + 1;
        if (!set->kvs[i].key || !set->kvs[i].value ||
            (ref.kind != RSQL_OPT_REF_NONE && !set->raw[i])) {
            goto nomem;
        }
    }

    for (int t = 0; t < n_tables; t++) {
        for (const rsql_opt_def_t *d = tables[t]; d && d->name; d++) {
            if ((d->flags & RSQL_OPT_F_REQUIRED) &&
                !(d->flags & (RSQL_OPT_F_SOURCE | RSQL_OPT_F_SINK)) && !strchr(d->name, '#') &&
                rsql_optset_find(set, d->name) < 0) {
                rsql_error_set(err, RSQL_ERR_MISSING_OPTION, what_pos,
                               "missing required option '%s'%s%s", d->name, what ? " for " : "",
                               what ? what : "");
                goto fail;
            }
        }
    }
    return set;

nomem:
    rsql_error_nomem(err);
fail:
    rsql_optset_destroy(set);
    return NULL;
}

/*
** rsql_optset_new_ex keeping references unresolved.
*/
rsql_optset_t *rsql_optset_new_at(const rsql_opt_def_t *const *tables, int n_tables,
                                  const char *what, const rsql_opt_kv_t *kvs, int n_kvs,
                                  const char *const *columns, int n_columns, rsql_pos_t what_pos,
                                  rsql_error_t *err)
{
    return rsql_optset_new_ex(tables, n_tables, what, kvs, n_kvs, columns, n_columns, what_pos,
                              0, err);
}

/* True when some given value is an unresolved reference. */
bool rsql_optset_pending(const rsql_optset_t *set)
{
    return set && set->any_pending;
}

/* True when the i-th given value is an unresolved reference. */
bool rsql_optset_pending_at(const rsql_optset_t *set, int i)
{
    return set && i >= 0 && i < set->n && set->pending[i];
}

/*
** rsql_optset_new_at without a position for a missing REQUIRED option.
*/
rsql_optset_t *rsql_optset_new(const rsql_opt_def_t *const *tables, int n_tables,
                               const char *what, const rsql_opt_kv_t *kvs, int n_kvs,
                               const char *const *columns, int n_columns, rsql_error_t *err)
{
    return rsql_optset_new_at(tables, n_tables, what, kvs, n_kvs, columns, n_columns, RSQL_NOPOS,
                              err);
}

/*
** Check the REQUIRED rows flagged for side, naming table_name when given.
*/
rsql_err_t rsql_optset_check_side_for(const rsql_optset_t *set, int side, const char *table_name,
                                      rsql_pos_t pos, rsql_error_t *err)
{
    unsigned flag = side == RSQL_SIDE_SOURCE ? RSQL_OPT_F_SOURCE : RSQL_OPT_F_SINK;
    for (int t = 0; t < set->n_tables; t++) {
        for (const rsql_opt_def_t *d = set->tables[t]; d && d->name; d++) {
            if (!(d->flags & RSQL_OPT_F_REQUIRED) || !(d->flags & flag) || strchr(d->name, '#') ||
                rsql_optset_find(set, d->name) >= 0) {
                continue;
            }
            char tail[200] = "";
            if (table_name) {
                snprintf(tail, sizeof tail, " (needed to %s table '%s')",
                         side == RSQL_SIDE_SOURCE ? "read from" : "write to", table_name);
            }
            return rsql_error_set(err, RSQL_ERR_MISSING_OPTION, pos,
                                  "missing required option '%s'%s%s%s", d->name,
                                  set->what ? " for " : "", set->what ? set->what : "", tail);
        }
    }
    return RSQL_OK;
}

/*
** Check the REQUIRED rows flagged for side (no table name in the message).
*/
rsql_err_t rsql_optset_check_side(const rsql_optset_t *set, int side, rsql_pos_t pos,
                                  rsql_error_t *err)
{
    return rsql_optset_check_side_for(set, side, NULL, pos, err);
}

/*
** Index of the given key (case-insensitive), or -1.
*/
int rsql_optset_find(const rsql_optset_t *set, const char *name)
{
    for (int i = 0; set && i < set->n; i++) {
        if (strcasecmp(set->kvs[i].key, name) == 0) {
            return i;
        }
    }
    return -1;
}

/*
** The row for name in the set's tables, or NULL.
*/
const rsql_opt_def_t *rsql_optset_lookup_def(const rsql_optset_t *set, const char *name)
{
    return find_in(set->tables, set->n_tables, name);
}

static const rsql_opt_def_t *must_def(const rsql_optset_t *set, const char *name)
{
    const rsql_opt_def_t *d = rsql_optset_lookup_def(set, name);
    if (!d) {
        fprintf(stderr, "rsql_optset: no option '%s' in the tables of %s\n", name,
                set->what ? set->what : "this set");
        abort();
    }
    return d;
}

/* The effective text of name: given, else default, else NULL. */
static const char *effective(const rsql_optset_t *set, const char *name,
                             const rsql_opt_def_t **def)
{
    *def = must_def(set, name);
    int i = rsql_optset_find(set, name);
    if (i >= 0 && set->pending[i] && (*def)->type != RSQL_OPT_STR &&
        (*def)->type != RSQL_OPT_CSV) {
        return (*def)->def; /* not known before it is resolved */
    }
    return i >= 0 ? set->kvs[i].value : (*def)->def;
}

/*
** True when name was given explicitly.
*/
bool rsql_optset_has(const rsql_optset_t *set, const char *name)
{
    must_def(set, name);
    return rsql_optset_find(set, name) >= 0;
}

/*
** The value of name as text (given, else the default), or NULL when unset
** without a default. Borrowed from the set / the table.
*/
const char *rsql_optset_str(const rsql_optset_t *set, const char *name)
{
    const rsql_opt_def_t *d;
    return effective(set, name, &d);
}

/*
** INT, SIZE (bytes) or DURATION (ms) value of name; 0 when unset without a
** default. Any other type aborts (a programming error).
*/
int64_t rsql_optset_int(const rsql_optset_t *set, const char *name)
{
    const rsql_opt_def_t *d;
    const char *v = effective(set, name, &d);
    int64_t out = 0;
    if (!v) {
        return 0;
    }
    switch (d->type) {
    case RSQL_OPT_INT: rsql_opt_parse_int(v, &out); break;
    case RSQL_OPT_SIZE: rsql_opt_parse_size(v, &out); break;
    case RSQL_OPT_DURATION: rsql_opt_parse_duration(v, &out); break;
    default:
        fprintf(stderr, "rsql_optset_int: option '%s' is a %s\n", name,
                rsql_opt_type_name(d->type));
        abort();
    }
    return out;
}

/*
** BOOL value of name; false when unset without a default.
*/
bool rsql_optset_bool(const rsql_optset_t *set, const char *name)
{
    const rsql_opt_def_t *d;
    const char *v = effective(set, name, &d);
    bool out = false;
    if (d->type != RSQL_OPT_BOOL) {
        fprintf(stderr, "rsql_optset_bool: option '%s' is a %s\n", name,
                rsql_opt_type_name(d->type));
        abort();
    }
    if (v) {
        rsql_opt_parse_bool(v, &out);
    }
    return out;
}

/*
** DOUBLE, RATE (per second) or INT value of name; 0 when unset without a
** default.
*/
double rsql_optset_double(const rsql_optset_t *set, const char *name)
{
    const rsql_opt_def_t *d;
    const char *v = effective(set, name, &d);
    double out = 0;
    int64_t i = 0;
    if (!v) {
        return 0;
    }
    switch (d->type) {
    case RSQL_OPT_DOUBLE: rsql_opt_parse_double(v, &out); break;
    case RSQL_OPT_RATE: rsql_opt_parse_rate(v, &out); break;
    case RSQL_OPT_INT:
        rsql_opt_parse_int(v, &i);
        out = (double)i;
        break;
    default:
        fprintf(stderr, "rsql_optset_double: option '%s' is a %s\n", name,
                rsql_opt_type_name(d->type));
        abort();
    }
    return out;
}

/* Number of keys given. */
int rsql_optset_count(const rsql_optset_t *set)
{
    return set ? set->n : 0;
}

/* The i-th given key/value (canonical spelling), borrowed from the set. */
const rsql_opt_kv_t *rsql_optset_at(const rsql_optset_t *set, int i)
{
    return (set && i >= 0 && i < set->n) ? &set->kvs[i] : NULL;
}

/* The row matched by the i-th given key. */
const rsql_opt_def_t *rsql_optset_def_at(const rsql_optset_t *set, int i)
{
    return (set && i >= 0 && i < set->n) ? set->defs[i] : NULL;
}

/* See rsql_opts.h. */
void rsql_optset_put_shown(const rsql_optset_t *set, int i, rsql_buf_t *out)
{
    if (!set || i < 0 || i >= set->n) {
        return;
    }
    rsql_opt_put_shown(out, set->defs[i], set->raw[i] ? set->raw[i] : set->kvs[i].value);
}

/*
** True when key matches a SECRET row of tables.
*/
bool rsql_opt_is_secret(const rsql_opt_def_t *const *tables, int n_tables, const char *key)
{
    const rsql_opt_def_t *d = find_in(tables, n_tables, key);
    return d && (d->flags & RSQL_OPT_F_SECRET);
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_int: what the function families (fn_str.c, fn_hash.c, fn_regex.c,
 * fn_time.c, fn_json.c, fn_jpath.c) share with the one function table in
 * plan_funcs.c: their binders, evaluators and printers, and small helpers.
 */
#ifndef RSQL_FN_INT_H
#define RSQL_FN_INT_H

#include "planner/plan_int.h"

#include <string.h>

/* ---- helpers */

/* The longest string a function builds for one row (LPAD, REPLACE, REGEXP_REPLACE). */
#define RSQL_FN_MAX_RESULT ((size_t)64 << 20)

static inline bool rsql_fn_type_ok(rsql_type_t t, rsql_type_t want)
{
    return t == want || t == RSQL_TYPE_NULL;
}

static inline bool rsql_fn_int_ok(rsql_type_t t)
{
    return t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT || t == RSQL_TYPE_NULL;
}

static inline rsql_err_t rsql_fn_arg_error(const rsql_bexpr_t *call, int i, const char *want,
                                           rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_TYPE, call->args[i]->pos,
                          "argument %d of %s must be %s, got %s", i + 1, call->func->name, want,
                          rsql_type_name(call->args[i]->type));
}

/* Check that the arguments from..to-1 (those present) are VARCHAR. */
static inline rsql_err_t rsql_fn_want_str(const rsql_bexpr_t *call, int from, int to,
                                          rsql_error_t *err)
{
    for (int i = from; i < to && i < call->n_args; i++) {
        if (!rsql_fn_type_ok(call->args[i]->type, RSQL_TYPE_VARCHAR)) {
            return rsql_fn_arg_error(call, i, "VARCHAR", err);
        }
    }
    return RSQL_OK;
}

/* n bytes of scratch for a result string into *p. */
static inline rsql_err_t rsql_fn_out_str(rsql_eval_ctx_t *ctx, size_t n, char **p,
                                         rsql_error_t *err)
{
    *p = rsql_eval_scratch(ctx, n ? n : 1);
    return *p ? RSQL_OK : rsql_error_nomem(err);
}

/* A copy of b's bytes as the VARCHAR result *out (b is left as it is). */
rsql_err_t rsql_fn_out_buf(rsql_eval_ctx_t *ctx, const rsql_buf_t *b, rsql_value_t *out,
                           rsql_error_t *err);

/* Print "NAME(" args from..n-1 joined by sep ")" */
void rsql_fn_print_args(const rsql_bexpr_t *call, int from, const char *sep, rsql_buf_t *out);

#define RSQL_FN_DECL(name)                                                                  \
    rsql_err_t rsql_fn_bind_##name(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast, \
                                   rsql_error_t *err);                                      \
    rsql_err_t rsql_fn_eval_##name(const rsql_bexpr_t *call, const rsql_value_t *args,      \
                                   rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
#define RSQL_FN_PRINT(name) void rsql_fn_print_##name(const rsql_bexpr_t *call, rsql_buf_t *out)

/* fn_str.c */
RSQL_FN_DECL(replace);
RSQL_FN_DECL(split_index);
RSQL_FN_DECL(lpad);
RSQL_FN_DECL(rpad);
RSQL_FN_DECL(position);
RSQL_FN_PRINT(position);
rsql_err_t rsql_fn_bind_if(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                           rsql_error_t *err);
rsql_err_t rsql_fn_bind_ifnull(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                               rsql_error_t *err);
/* fn_hash.c */
RSQL_FN_DECL(md5);
RSQL_FN_DECL(sha256);
RSQL_FN_DECL(to_base64);
RSQL_FN_DECL(from_base64);
RSQL_FN_DECL(uuid);
/* fn_regex.c */
RSQL_FN_DECL(regexp);
RSQL_FN_DECL(regexp_extract);
RSQL_FN_DECL(regexp_replace);
/* fn_time.c */
RSQL_FN_DECL(date_format);
RSQL_FN_DECL(to_timestamp);
RSQL_FN_DECL(from_unixtime);
RSQL_FN_DECL(unix_timestamp);
RSQL_FN_DECL(timestampadd);
RSQL_FN_DECL(timestampdiff);
RSQL_FN_DECL(extract);
RSQL_FN_PRINT(unit_call);
RSQL_FN_PRINT(extract);
/* fn_json.c */
RSQL_FN_DECL(json_value);
RSQL_FN_DECL(json_query);
RSQL_FN_DECL(json_exists);
RSQL_FN_DECL(json_object);
RSQL_FN_DECL(json_array);
RSQL_FN_PRINT(json_clauses);
RSQL_FN_PRINT(json_object);

/* ---- SQL/JSON paths (fn_jpath.c) */

#define RSQL_JPATH_MAX_STEPS 64 /* steps of one path */

typedef enum rsql_jstep_kind { RSQL_JSTEP_KEY, RSQL_JSTEP_INDEX } rsql_jstep_kind_t;
typedef struct rsql_jstep {
    rsql_jstep_kind_t kind;
    size_t key_off; /* KEY: its unescaped, NUL-terminated text at keys + key_off */
    int64_t index;  /* INDEX: 0-based */
} rsql_jstep_t;
typedef struct rsql_jpath {
    size_t size; /* bytes of the whole struct (it can be copied with memcpy) */
    bool strict; /* strict (the default) or 'lax $...' */
    int n;
    rsql_jstep_t steps[RSQL_JPATH_MAX_STEPS];
    char keys[]; /* the keys' text */
} rsql_jpath_t;

/*
** Parse the SQL/JSON path s (n bytes): [lax|strict] $ then .key, ."key",
** ['key'], ["key"], .['key'] or [n] steps; strict unless it says lax. Returns a path from malloc (free()) or
** NULL with *why set to a static reason and *at to the byte offset of the
** problem (*why "out of memory" then).
*/
rsql_jpath_t *rsql_jpath_parse(const char *s, size_t n, const char **why, size_t *at);

/*
** Evaluate path over the JSON text doc (n bytes, need not be valid) and
** append the JSON_QUERY-style result: *found gets what the path reached
** (RSQL_JFOUND_*); for a value, out gets its compact JSON text.
** *why gets a static reason for RSQL_JFOUND_ERROR. Bounded: the
** document may nest at most RSQL_JSON_MAX_DEPTH deep (deeper is an error).
*/
#define RSQL_JSON_MAX_DEPTH 256
typedef enum rsql_jfound { RSQL_JFOUND_VALUE, RSQL_JFOUND_EMPTY, RSQL_JFOUND_ERROR } rsql_jfound_t;
rsql_jfound_t rsql_json_path_text(const rsql_jpath_t *path, const char *doc, size_t n,
                                  rsql_buf_t *out, const char **why);

#endif

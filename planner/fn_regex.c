/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_regex: REGEXP, REGEXP_EXTRACT and REGEXP_REPLACE on PCRE2 (Perl
 * syntax, close to Java's that Flink uses), in UTF mode; invalid UTF-8 in
 * the subject never matches there rather than being undefined
 * (PCRE2_MATCH_INVALID_UTF).
 *
 *   REGEXP(s, re)                 TRUE when re matches some part of s
 *   REGEXP_EXTRACT(s, re [, i])   group i (default 1; 0 = the whole match) of the
 *                                 first match; NULL when none, when the group
 *                                 took no part, or when re has no group i
 *   REGEXP_REPLACE(s, re, r)      every match replaced by r, where $n or ${n} is
 *                                 group n and $$ a dollar
 *
 * A literal pattern is compiled once, when the statement is planned, into
 * the plan's arena (a PCRE2 general context allocating there), and an
 * invalid one is a plan error at the literal. A pattern from a column is
 * compiled per row and an invalid one is an error of that row. Every match
 * runs under a match limit, a depth limit and a heap limit, so a hostile
 * pattern or subject fails that row ("regular expression too complex")
 * instead of hanging the pipeline.
 */
#include "config.h"
#include "planner/fn_int.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>

#define MATCH_LIMIT 1000000u /* calls of the matcher's inner loop per match */
#define DEPTH_LIMIT 10000u   /* backtracking depth */
#define HEAP_LIMIT_KIB 16384u

static pcre2_match_context *match_ctx;
static pthread_once_t match_once = PTHREAD_ONCE_INIT;

static void match_ctx_init(void)
{
    match_ctx = pcre2_match_context_create(NULL);
    if (match_ctx) {
        pcre2_set_match_limit(match_ctx, MATCH_LIMIT);
        pcre2_set_depth_limit(match_ctx, DEPTH_LIMIT);
        pcre2_set_heap_limit(match_ctx, HEAP_LIMIT_KIB);
    }
}

static void *arena_malloc(size_t n, void *data)
{
    return rsql_arena_alloc(data, n);
}

static void arena_free(void *p, void *data)
{
    (void)p;
    (void)data; /* freed with the plan's arena */
}

#define COMPILE_OPTS (PCRE2_UTF | PCRE2_MATCH_INVALID_UTF)

/* Compile re; NULL with *why (into why[size]) and *at set. arena NULL: malloc. */
static pcre2_code *compile(const char *re, size_t n, rsql_arena_t *arena, char *why,
                           size_t size, size_t *at)
{
    pcre2_general_context *g = NULL;
    pcre2_compile_context *cc = NULL;
    if (arena) {
        g = pcre2_general_context_create(arena_malloc, arena_free, arena);
        cc = g ? pcre2_compile_context_create(g) : NULL;
        if (!cc) {
            snprintf(why, size, "out of memory");
            *at = 0;
            return NULL;
        }
    }
    int code = 0;
    PCRE2_SIZE off = 0;
    pcre2_code *c = pcre2_compile((PCRE2_SPTR)(re ? re : ""), n, COMPILE_OPTS, &code, &off, cc);
    if (!c) {
        PCRE2_UCHAR msg[160];
        if (pcre2_get_error_message(code, msg, sizeof(msg)) < 0) {
            snprintf((char *)msg, sizeof(msg), "error %d", code);
        }
        snprintf(why, size, "%s", (const char *)msg);
        *at = off;
    }
    return c;
}

/* Binder part shared by the three: types, and the literal pattern compiled. */
static rsql_err_t bind_regex(rsql_bind_t *b, rsql_bexpr_t *call, rsql_type_t result,
                             int int_arg, rsql_error_t *err)
{
    for (int i = 0; i < call->n_args; i++) {
        bool ok = i == int_arg ? rsql_fn_int_ok(call->args[i]->type)
                               : rsql_fn_type_ok(call->args[i]->type, RSQL_TYPE_VARCHAR);
        if (!ok) {
            return rsql_fn_arg_error(call, i, i == int_arg ? "an integer" : "VARCHAR", err);
        }
    }
    call->type = result;
    const rsql_bexpr_t *re = call->args[1];
    if (re->kind == RSQL_BX_CONST && !re->value.is_null) {
        char why[200];
        size_t at = 0;
        pcre2_code *c = compile(re->value.v.s.p, re->value.v.s.len, b->arena, why, sizeof(why),
                                &at);
        if (!c) {
            return rsql_error_set(err, RSQL_ERR_TYPE, re->pos,
                                  "invalid regular expression: %s at offset %zu", why, at);
        }
        call->aux = c;
    }
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_regexp(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                               rsql_error_t *err)
{
    (void)ast;
    return bind_regex(b, call, RSQL_TYPE_BOOLEAN, -1, err);
}

rsql_err_t rsql_fn_bind_regexp_extract(rsql_bind_t *b, rsql_bexpr_t *call,
                                       const rsql_expr_t *ast, rsql_error_t *err)
{
    (void)ast;
    return bind_regex(b, call, RSQL_TYPE_VARCHAR, 2, err);
}

rsql_err_t rsql_fn_bind_regexp_replace(rsql_bind_t *b, rsql_bexpr_t *call,
                                       const rsql_expr_t *ast, rsql_error_t *err)
{
    (void)ast;
    return bind_regex(b, call, RSQL_TYPE_VARCHAR, -1, err);
}

/* The call's compiled pattern: the plan's, or one compiled now (*owned, free it). */
static rsql_err_t get_code(const rsql_bexpr_t *call, const rsql_value_t *re, pcre2_code **owned,
                           const pcre2_code **code, rsql_error_t *err)
{
    *owned = NULL;
    if (call->aux) {
        *code = call->aux;
        return RSQL_OK;
    }
    char why[200];
    size_t at = 0;
    *owned = compile(re->v.s.p, re->v.s.len, NULL, why, sizeof(why), &at);
    if (!*owned) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->args[1]->pos,
                              "invalid regular expression: %s at offset %zu", why, at);
    }
    *code = *owned;
    return RSQL_OK;
}

/* A negative PCRE2 result other than no-match as the row's error. */
static rsql_err_t match_error(const rsql_bexpr_t *call, int rc, rsql_error_t *err)
{
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos,
                              "regular expression too complex for this input (%s limit)",
                              rc == PCRE2_ERROR_MATCHLIMIT   ? "match"
                              : rc == PCRE2_ERROR_DEPTHLIMIT ? "depth"
                                                             : "heap");
    }
    if (rc == PCRE2_ERROR_NOMEMORY) {
        return rsql_error_nomem(err);
    }
    PCRE2_UCHAR msg[160];
    if (pcre2_get_error_message(rc, msg, sizeof(msg)) < 0) {
        snprintf((char *)msg, sizeof(msg), "error %d", rc);
    }
    return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "%s: %s", call->func->name,
                          (const char *)msg);
}

/* Match data from malloc, never from the pattern's memory (a literal pattern's is the plan's
 * arena, which the threads evaluating the plan must not allocate from). */
static pcre2_match_data *new_match_data(const pcre2_code *code)
{
    uint32_t groups = 0;
    pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
    return pcre2_match_data_create(groups + 1, NULL);
}

/* Run the first match of the call's pattern over args[0]; rc as pcre2_match. */
static int first_match(const rsql_bexpr_t *call, const rsql_value_t *args,
                       const pcre2_code *code, pcre2_match_data **md)
{
    pthread_once(&match_once, match_ctx_init);
    *md = new_match_data(code);
    if (!*md || !match_ctx) {
        return PCRE2_ERROR_NOMEMORY;
    }
    (void)call;
    return pcre2_match(code, (PCRE2_SPTR)(args[0].v.s.p ? args[0].v.s.p : ""), args[0].v.s.len,
                       0, 0, *md, match_ctx);
}

rsql_err_t rsql_fn_eval_regexp(const rsql_bexpr_t *call, const rsql_value_t *args,
                               rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)ctx;
    pcre2_code *owned;
    const pcre2_code *code = NULL;
    rsql_err_t rc = get_code(call, &args[1], &owned, &code, err);
    if (rc) {
        return rc;
    }
    pcre2_match_data *md = NULL;
    int m = first_match(call, args, code, &md);
    if (m >= 0 || m == PCRE2_ERROR_NOMATCH) {
        out->v.b = m >= 0;
    } else {
        rc = match_error(call, m, err);
    }
    pcre2_match_data_free(md);
    pcre2_code_free(owned);
    return rc;
}

rsql_err_t rsql_fn_eval_regexp_extract(const rsql_bexpr_t *call, const rsql_value_t *args,
                                       rsql_eval_ctx_t *ctx, rsql_value_t *out,
                                       rsql_error_t *err)
{
    (void)ctx;
    pcre2_code *owned;
    const pcre2_code *code = NULL;
    rsql_err_t rc = get_code(call, &args[1], &owned, &code, err);
    if (rc) {
        return rc;
    }
    int64_t group = call->n_args > 2 ? args[2].v.i : 1;
    pcre2_match_data *md = NULL;
    int m = first_match(call, args, code, &md);
    out->is_null = true;
    if (m >= 0) {
        uint32_t groups = 0;
        pcre2_pattern_info(code, PCRE2_INFO_CAPTURECOUNT, &groups);
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (group >= 0 && group <= (int64_t)groups && group < m &&
            ov[2 * group] != PCRE2_UNSET) {
            out->is_null = false;
            out->v.s.p = args[0].v.s.p + ov[2 * group];
            out->v.s.len = ov[2 * group + 1] - ov[2 * group];
        }
    } else if (m != PCRE2_ERROR_NOMATCH) {
        rc = match_error(call, m, err);
    }
    pcre2_match_data_free(md);
    pcre2_code_free(owned);
    return rc;
}

rsql_err_t rsql_fn_eval_regexp_replace(const rsql_bexpr_t *call, const rsql_value_t *args,
                                       rsql_eval_ctx_t *ctx, rsql_value_t *out,
                                       rsql_error_t *err)
{
    pcre2_code *owned;
    const pcre2_code *code = NULL;
    rsql_err_t rc = get_code(call, &args[1], &owned, &code, err);
    if (rc) {
        return rc;
    }
    pthread_once(&match_once, match_ctx_init);
    pcre2_match_data *md = new_match_data(code);
    if (!md) {
        pcre2_code_free(owned);
        return rsql_error_nomem(err);
    }
    PCRE2_SIZE cap = args[0].v.s.len * 2 + 64;
    for (int attempt = 0; attempt < 2 && !rc; attempt++) {
        char *p;
        if ((rc = rsql_fn_out_str(ctx, cap, &p, err))) {
            break;
        }
        PCRE2_SIZE len = cap;
        int m = match_ctx ? pcre2_substitute(
                                code, (PCRE2_SPTR)(args[0].v.s.p ? args[0].v.s.p : ""),
                                args[0].v.s.len, 0,
                                PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH, md,
                                match_ctx, (PCRE2_SPTR)(args[2].v.s.p ? args[2].v.s.p : ""),
                                args[2].v.s.len, (PCRE2_UCHAR *)p, &len)
                          : PCRE2_ERROR_NOMEMORY;
        if (m >= 0) {
            out->v.s.p = p;
            out->v.s.len = len;
            break;
        }
        if (m == PCRE2_ERROR_NOMEMORY && attempt == 0 && match_ctx) {
            if (len > RSQL_FN_MAX_RESULT) {
                rc = rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "result too long");
            }
            cap = len; /* the length it needs (PCRE2_SUBSTITUTE_OVERFLOW_LENGTH) */
            continue;
        }
        rc = match_error(call, m, err);
    }
    pcre2_match_data_free(md);
    pcre2_code_free(owned);
    return rc;
}

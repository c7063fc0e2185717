/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_json: the SQL/JSON functions on VARCHAR JSON text, with Flink's names,
 * defaults and clauses:
 *
 *   JSON_VALUE(s, path [RETURNING t] [{NULL|ERROR|DEFAULT v} ON EMPTY]
 *              [{NULL|ERROR|DEFAULT v} ON ERROR])
 *       the scalar at path as t (VARCHAR by default; INT, BIGINT, DOUBLE,
 *       DECIMAL(p, s), BOOLEAN, DATE, TIMESTAMP(3)); JSON null is NULL.
 *       DECIMAL reads a JSON string exactly, a JSON number through its
 *       double (exact up to 15 significant digits). No value at the path is
 *       the EMPTY case; invalid JSON, an object or array at the path, a
 *       strict-mode structural error or a value that does not convert to t
 *       is the ERROR case. Both default to NULL. Paths are strict unless they
 *       start with lax (Flink's default), so a missing member is the ERROR
 *       case of a strict path and the EMPTY case of a lax one.
 *   JSON_QUERY(s, path [{WITHOUT|WITH [CONDITIONAL|UNCONDITIONAL]} [ARRAY] WRAPPER]
 *              [{NULL|ERROR|EMPTY ARRAY|EMPTY OBJECT} ON EMPTY] [... ON ERROR])
 *       the object or array at path as compact JSON text; a scalar there is
 *       an ERROR unless a WITH wrapper puts it in an array (UNCONDITIONAL
 *       wraps objects and arrays too)
 *   JSON_EXISTS(s, path [{TRUE|FALSE|UNKNOWN|ERROR} ON ERROR])
 *       whether path reaches a value (FALSE ON ERROR by default)
 *   JSON_OBJECT([[KEY] k VALUE v, ...] [{NULL|ABSENT} ON NULL])   (k: string literals)
 *   JSON_ARRAY([v, ...] [{NULL|ABSENT} ON NULL])
 *       JSON text built from the values (NULL ON NULL / ABSENT ON NULL are the
 *       defaults); a value that is itself a JSON_OBJECT, JSON_ARRAY or
 *       JSON_QUERY call is inserted as JSON, any other VARCHAR as a string
 *
 * A NULL s or path gives NULL. A literal path is parsed once at plan time
 * (an invalid one is a plan error at the literal); a path from a column is
 * parsed per row (invalid: the ERROR case). The document is parsed by cJSON
 * (Debian's libcjson) after a linear pre-scan that refuses nesting deeper
 * than RSQL_JSON_MAX_DEPTH, so no input recurses deeply. Numbers are read
 * as doubles (integers beyond 2^53 lose precision).
 */
#include "config.h"
#include "planner/fn_int.h"
#include "base/rsql_value.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_CLAUSES 3

typedef struct jclause {
    rsql_json_beh_t beh;
    rsql_json_event_t event;
    rsql_value_t dflt; /* DEFAULT's value, converted to the result type */
} jclause_t;

typedef struct jfn {
    const rsql_jpath_t *path; /* a literal path (arena), or NULL */
    bool has_returning;
    rsql_json_beh_t on_empty, on_error, on_null;
    rsql_value_t empty_val, error_val;
    int wrapper;   /* JSON_QUERY: RSQL_JW_* (0 = WITHOUT) */
    int n_clauses; /* as written, for EXPLAIN */
    jclause_t clauses[MAX_CLAUSES];
    bool *raw; /* JSON_OBJECT/JSON_ARRAY: argument i is JSON text to insert as is */
} jfn_t;

/* ---- the document */

/* False when doc nests deeper than RSQL_JSON_MAX_DEPTH (strings skipped). */
static bool depth_ok(const char *doc, size_t n)
{
    int depth = 0;
    bool in_str = false;
    for (size_t i = 0; i < n; i++) {
        char c = doc[i];
        if (in_str) {
            if (c == '\\') {
                i++;
            } else if (c == '"') {
                in_str = false;
            }
        } else if (c == '"') {
            in_str = true;
        } else if (c == '[' || c == '{') {
            if (++depth > RSQL_JSON_MAX_DEPTH) {
                return false;
            }
        } else if (c == ']' || c == '}') {
            depth--;
        }
    }
    return true;
}

static cJSON *parse_doc(const char *doc, size_t n, const char **why)
{
    if (!depth_ok(doc, n)) {
        *why = "JSON nested too deeply";
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(doc ? doc : "", n, &end, false);
    if (root && end) {
        while (end < doc + n && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r')) {
            end++;
        }
        if (end != doc + n) {
            cJSON_Delete(root);
            root = NULL;
        }
    }
    if (!root) {
        *why = "invalid JSON";
    }
    return root;
}

/* Walk path from root: the item, or NULL with *found EMPTY or ERROR. */
static cJSON *walk(const rsql_jpath_t *p, cJSON *root, rsql_jfound_t *found, const char **why)
{
    cJSON *cur = root;
    for (int i = 0; i < p->n && cur; i++) {
        const rsql_jstep_t *st = &p->steps[i];
        if (st->kind == RSQL_JSTEP_KEY) {
            if (!cJSON_IsObject(cur)) {
                *why = "strict JSON path: not an object";
                cur = NULL;
                break;
            }
            cJSON *next = cJSON_GetObjectItemCaseSensitive(cur, p->keys + st->key_off);
            if (!next) {
                *why = "strict JSON path: no such member";
            }
            cur = next;
        } else if (cJSON_IsArray(cur)) {
            int size = cJSON_GetArraySize(cur);
            cJSON *next = st->index < size ? cJSON_GetArrayItem(cur, (int)st->index) : NULL;
            if (!next) {
                *why = "strict JSON path: index out of range";
            }
            cur = next;
        } else if (!p->strict && st->index == 0) {
            /* lax: a non-array is an array of itself */
        } else {
            *why = "strict JSON path: not an array";
            cur = NULL;
        }
    }
    *found = cur ? RSQL_JFOUND_VALUE : p->strict ? RSQL_JFOUND_ERROR : RSQL_JFOUND_EMPTY;
    return cur;
}

rsql_jfound_t rsql_json_path_text(const rsql_jpath_t *path, const char *doc, size_t n,
                                  rsql_buf_t *out, const char **why)
{
    cJSON *root = parse_doc(doc, n, why);
    if (!root) {
        return RSQL_JFOUND_ERROR;
    }
    rsql_jfound_t f;
    cJSON *item = walk(path, root, &f, why);
    if (item) {
        char *t = cJSON_PrintUnformatted(item);
        if (t) {
            rsql_buf_puts(out, t);
            cJSON_free(t);
        } else {
            out->oom = true;
        }
    }
    cJSON_Delete(root);
    return f;
}

/* ---- binding */

static const char *beh_name(rsql_json_beh_t b)
{
    static const char *const names[] = {"NULL",    "ERROR",   "ABSENT",      "TRUE",
                                        "FALSE",   "UNKNOWN", "DEFAULT",     "EMPTY ARRAY",
                                        "EMPTY OBJECT"};
    return names[b];
}

static const char *event_name(rsql_json_event_t e)
{
    return e == RSQL_JE_EMPTY ? "EMPTY" : e == RSQL_JE_ERROR ? "ERROR" : "NULL";
}

/* allowed[event] is a bit set of behaviors (1u << beh). */
static rsql_err_t bind_clauses(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                               jfn_t *j, const unsigned allowed[3], rsql_error_t *err)
{
    bool seen[3] = {false, false, false};
    if (ast->wrapper && strcmp(call->func->name, "JSON_QUERY") != 0) {
        return rsql_error_set(err, RSQL_ERR_SYNTAX, ast->wrapper_pos,
                              "%s() takes no WRAPPER clause", call->func->name);
    }
    j->wrapper = ast->wrapper;
    for (int i = 0; i < ast->n_clauses; i++) {
        const rsql_json_clause_t *c = &ast->clauses[i];
        if (!(allowed[c->event] & (1u << c->beh)) || seen[c->event] || i >= MAX_CLAUSES) {
            return rsql_error_set(err, RSQL_ERR_SYNTAX, c->pos, "%s() takes no %s%s ON %s",
                                  call->func->name, seen[c->event] ? "second " : "",
                                  beh_name(c->beh), event_name(c->event));
        }
        seen[c->event] = true;
        jclause_t *jc = &j->clauses[j->n_clauses++];
        jc->beh = c->beh;
        jc->event = c->event;
        if (c->beh == RSQL_JB_DEFAULT) {
            rsql_bexpr_t *d = rsql_plan__bind_expr(b, c->dflt, err);
            if (!d) {
                return err ? err->code : RSQL_ERR_TYPE;
            }
            if (d->kind != RSQL_BX_CONST) {
                return rsql_error_set(err, RSQL_ERR_TYPE, d->pos,
                                      "the DEFAULT of %s must be a constant", call->func->name);
            }
            rsql_value_t v = d->value;
            if (!v.is_null && (d->type != call->type || call->type == RSQL_TYPE_DECIMAL)) {
                rsql_error_t cerr;
                if (!rsql_plan__castable(d->type, call->type) ||
                    rsql_plan__cast_value_desc(&d->value, call->type, call->desc, NULL,
                                               b->arena, d->pos, &v, &cerr)) {
                    return rsql_error_set(err, RSQL_ERR_TYPE, d->pos,
                                          "the DEFAULT of %s must be %s, got %s",
                                          call->func->name,
                                          call->desc ? call->desc->text
                                                     : rsql_type_name(call->type),
                                          rsql_type_name(d->type));
                }
            }
            v.type = call->type;
            jc->dflt = v;
        }
        if (c->event == RSQL_JE_EMPTY) {
            j->on_empty = c->beh;
            j->empty_val = jc->dflt;
        } else if (c->event == RSQL_JE_ERROR) {
            j->on_error = c->beh;
            j->error_val = jc->dflt;
        } else {
            j->on_null = c->beh;
        }
    }
    return RSQL_OK;
}

/* (s VARCHAR, path VARCHAR): types, the literal path parsed, the aux made. */
static rsql_err_t bind_doc_path(rsql_bind_t *b, rsql_bexpr_t *call, jfn_t **out,
                                rsql_error_t *err)
{
    rsql_err_t rc = rsql_fn_want_str(call, 0, 2, err);
    if (rc) {
        return rc;
    }
    jfn_t *j = rsql_arena_alloc(b->arena, sizeof(*j));
    if (!j) {
        return rsql_error_nomem(err);
    }
    const rsql_bexpr_t *p = call->args[1];
    if (p->kind == RSQL_BX_CONST && !p->value.is_null) {
        const char *why = NULL;
        size_t at = 0;
        rsql_jpath_t *jp = rsql_jpath_parse(p->value.v.s.p, p->value.v.s.len, &why, &at);
        if (!jp) {
            return rsql_error_set(err, RSQL_ERR_TYPE, p->pos, "invalid JSON path: %s at offset %zu",
                                  why, at);
        }
        void *copy = rsql_arena_alloc(b->arena, jp->size);
        if (copy) {
            memcpy(copy, jp, jp->size);
        }
        free(jp);
        if (!copy) {
            return rsql_error_nomem(err);
        }
        j->path = copy;
    }
    call->aux = j;
    *out = j;
    return RSQL_OK;
}

#define BIT(b) (1u << (b))

rsql_err_t rsql_fn_bind_json_value(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                   rsql_error_t *err)
{
    jfn_t *j;
    rsql_err_t rc = bind_doc_path(b, call, &j, err);
    if (rc) {
        return rc;
    }
    call->type = RSQL_TYPE_VARCHAR;
    if (ast->has_returning) {
        rsql_type_t t = ast->cast_type.type;
        bool ok = t == RSQL_TYPE_VARCHAR || t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT ||
                  t == RSQL_TYPE_DOUBLE || t == RSQL_TYPE_BOOLEAN || t == RSQL_TYPE_DATE ||
                  t == RSQL_TYPE_DECIMAL ||
                  (t == RSQL_TYPE_TIMESTAMP &&
                   (ast->cast_type.precision == -1 || ast->cast_type.precision == 3));
        if (!ok) {
            return rsql_error_set(err, RSQL_ERR_TYPE, ast->cast_type.pos,
                                  "JSON_VALUE cannot return %s (VARCHAR, INT, BIGINT, DOUBLE, "
                                  "DECIMAL, BOOLEAN, DATE or TIMESTAMP(3))",
                                  t == RSQL_TYPE_TIMESTAMP ? "this TIMESTAMP precision"
                                                           : rsql_type_name(t));
        }
        call->type = t;
        call->desc = t == RSQL_TYPE_DECIMAL ? ast->cast_type.desc : NULL;
        j->has_returning = true;
    }
    static const unsigned allowed[3] = {
        BIT(RSQL_JB_NULL) | BIT(RSQL_JB_ERROR) | BIT(RSQL_JB_DEFAULT),
        BIT(RSQL_JB_NULL) | BIT(RSQL_JB_ERROR) | BIT(RSQL_JB_DEFAULT), 0};
    return bind_clauses(b, call, ast, j, allowed, err);
}

rsql_err_t rsql_fn_bind_json_query(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                   rsql_error_t *err)
{
    jfn_t *j;
    rsql_err_t rc = bind_doc_path(b, call, &j, err);
    if (rc) {
        return rc;
    }
    if (ast->has_returning) {
        return rsql_error_set(err, RSQL_ERR_SYNTAX, ast->cast_type.pos,
                              "JSON_QUERY() takes no RETURNING (it returns VARCHAR)");
    }
    call->type = RSQL_TYPE_VARCHAR;
#define QUERY_BEHS \
    (BIT(RSQL_JB_NULL) | BIT(RSQL_JB_ERROR) | BIT(RSQL_JB_EMPTY_ARRAY) | BIT(RSQL_JB_EMPTY_OBJECT))
    static const unsigned allowed[3] = {QUERY_BEHS, QUERY_BEHS, 0};
#undef QUERY_BEHS
    return bind_clauses(b, call, ast, j, allowed, err);
}

rsql_err_t rsql_fn_bind_json_exists(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                    rsql_error_t *err)
{
    jfn_t *j;
    rsql_err_t rc = bind_doc_path(b, call, &j, err);
    if (rc) {
        return rc;
    }
    if (ast->has_returning) {
        return rsql_error_set(err, RSQL_ERR_SYNTAX, ast->cast_type.pos,
                              "JSON_EXISTS() takes no RETURNING (it returns BOOLEAN)");
    }
    call->type = RSQL_TYPE_BOOLEAN;
    j->on_error = RSQL_JB_FALSE;
    static const unsigned allowed[3] = {
        0, BIT(RSQL_JB_TRUE) | BIT(RSQL_JB_FALSE) | BIT(RSQL_JB_UNKNOWN) | BIT(RSQL_JB_ERROR), 0};
    return bind_clauses(b, call, ast, j, allowed, err);
}

static bool is_json_call(const rsql_bexpr_t *a)
{
    return a->kind == RSQL_BX_FUNC &&
           (strcmp(a->name, "JSON_OBJECT") == 0 || strcmp(a->name, "JSON_ARRAY") == 0 ||
            strcmp(a->name, "JSON_QUERY") == 0);
}

static rsql_err_t bind_ctor(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                            rsql_json_beh_t on_null, bool object, rsql_error_t *err)
{
    if (ast->has_returning) {
        return rsql_error_set(err, RSQL_ERR_SYNTAX, ast->cast_type.pos, "%s() takes no RETURNING",
                              call->func->name);
    }
    jfn_t *j = rsql_arena_alloc(b->arena, sizeof(*j));
    bool *raw = rsql_arena_alloc(b->arena, (size_t)call->n_args + 1);
    if (!j || !raw) {
        return rsql_error_nomem(err);
    }
    j->on_null = on_null;
    j->raw = raw;
    for (int i = 0; i < call->n_args; i++) {
        rsql_bexpr_t *a = call->args[i];
        if (object && i % 2 == 0) { /* Flink: keys are non-NULL string literals */
            if (a->kind != RSQL_BX_CONST || a->value.is_null || a->type != RSQL_TYPE_VARCHAR) {
                return rsql_error_set(err, RSQL_ERR_TYPE, a->pos,
                                      "a key of JSON_OBJECT must be a string literal");
            }
            continue;
        }
        raw[i] = is_json_call(a);
    }
    call->type = RSQL_TYPE_VARCHAR;
    call->aux = j;
    static const unsigned allowed[3] = {0, 0, BIT(RSQL_JB_NULL) | BIT(RSQL_JB_ABSENT)};
    return bind_clauses(b, call, ast, j, allowed, err);
}

rsql_err_t rsql_fn_bind_json_object(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                    rsql_error_t *err)
{
    if (call->n_args > 0 && !ast->kv_pairs) {
        return rsql_error_set(err, RSQL_ERR_SYNTAX, call->args[0]->pos,
                              "JSON_OBJECT takes KEY k VALUE v members");
    }
    return bind_ctor(b, call, ast, RSQL_JB_NULL, true, err);
}

rsql_err_t rsql_fn_bind_json_array(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                   rsql_error_t *err)
{
    return bind_ctor(b, call, ast, RSQL_JB_ABSENT, false, err);
}

/* ---- evaluation */

/* The result of the EMPTY or ERROR case by its behavior. */
static rsql_err_t outcome(const rsql_bexpr_t *call, rsql_json_beh_t beh, const rsql_value_t *dflt,
                          const char *why, rsql_value_t *out, rsql_error_t *err)
{
    switch (beh) {
    case RSQL_JB_ERROR:
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "%s: %s", call->func->name, why);
    case RSQL_JB_DEFAULT: *out = *dflt; break;
    case RSQL_JB_TRUE: out->v.b = true; break;
    case RSQL_JB_EMPTY_ARRAY: out->v.s.p = "[]"; out->v.s.len = 2; break;
    case RSQL_JB_EMPTY_OBJECT: out->v.s.p = "{}"; out->v.s.len = 2; break;
    case RSQL_JB_FALSE: out->v.b = false; break;
    default: out->is_null = true; break;
    }
    out->type = call->type;
    return RSQL_OK;
}

/* The parsed document of this row's last JSON function call (ctx->json_doc): a statement
 * that reads several paths of one body parses it once per row. */
typedef struct jdoc {
    const char *p;
    size_t n;
    cJSON *root;
} jdoc_t;

void rsql_plan__json_doc_drop(rsql_eval_ctx_t *ctx)
{
    jdoc_t *d = ctx->json_doc;
    if (d) {
        cJSON_Delete(d->root);
        rsql_free(d);
        ctx->json_doc = NULL;
    }
}

/* s (n bytes) parsed: the cached tree when it is the same bytes of this row, else a new one
 * that replaces it (owned by ctx). NULL with *why when s is no JSON. */
static cJSON *row_doc(rsql_eval_ctx_t *ctx, const char *s, size_t n, const char **why)
{
    jdoc_t *d = ctx->json_doc;
    if (d && d->p == s && d->n == n) {
        return d->root;
    }
    cJSON *root = parse_doc(s, n, why);
    if (!root) {
        return NULL;
    }
    if (!d && !(d = ctx->json_doc = rsql_calloc(1, sizeof(*d)))) {
        return root; /* uncached: the caller's *owned frees it */
    }
    cJSON_Delete(d->root);
    d->p = s;
    d->n = n;
    d->root = root;
    return root;
}

/* Parse the doc (or take the row's cached tree), walk the path: the item, or NULL with
 * *found set. *owned is a tree the caller frees (only when the cache could not take it). */
static cJSON *locate(const rsql_bexpr_t *call, const rsql_value_t *args, rsql_eval_ctx_t *ctx,
                     cJSON **owned, rsql_jfound_t *found, const char **why)
{
    const jfn_t *j = call->aux;
    rsql_jpath_t *own = NULL;
    const rsql_jpath_t *path = j->path;
    *owned = NULL;
    if (!path) {
        size_t at;
        if (!(path = own = rsql_jpath_parse(args[1].v.s.p, args[1].v.s.len, why, &at))) {
            *found = RSQL_JFOUND_ERROR;
            *why = "invalid JSON path";
            return NULL;
        }
    }
    cJSON *item = NULL, *root = row_doc(ctx, args[0].v.s.p, args[0].v.s.len, why);
    if (root) {
        jdoc_t *d = ctx->json_doc;
        if (!d || d->root != root) {
            *owned = root;
        }
        item = walk(path, root, found, why);
    } else {
        *found = RSQL_JFOUND_ERROR;
    }
    free(own);
    return item;
}

rsql_err_t rsql_fn_eval_json_value(const rsql_bexpr_t *call, const rsql_value_t *args,
                                   rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    const jfn_t *j = call->aux;
    cJSON *root;
    rsql_jfound_t found;
    const char *why = "no value at the JSON path";
    cJSON *item = locate(call, args, ctx, &root, &found, &why);
    rsql_err_t rc = RSQL_OK;
    char num[RSQL_VALUE_TEXT_MAX];
    const char *text = NULL;
    if (found == RSQL_JFOUND_EMPTY) {
        rc = outcome(call, j->on_empty, &j->empty_val, "no value at the JSON path", out, err);
    } else if (found == RSQL_JFOUND_ERROR) {
        rc = outcome(call, j->on_error, &j->error_val, why, out, err);
    } else if (cJSON_IsNull(item)) {
        out->is_null = true;
    } else if (cJSON_IsString(item)) {
        text = item->valuestring;
    } else if (cJSON_IsBool(item)) {
        text = cJSON_IsTrue(item) ? "true" : "false";
    } else if (cJSON_IsNumber(item)) {
        double d = item->valuedouble;
        if (d == floor(d) && fabs(d) < 9007199254740992.0) {
            snprintf(num, sizeof(num), "%lld", (long long)d);
        } else {
            rsql_value_format_double(d, num);
        }
        text = num;
    } else {
        rc = outcome(call, j->on_error, &j->error_val, "not a scalar at the JSON path", out, err);
    }
    if (text) {
        size_t n = strlen(text);
        if (call->type == RSQL_TYPE_VARCHAR) {
            char *p;
            if (!(rc = rsql_fn_out_str(ctx, n, &p, err))) {
                memcpy(p, text, n);
                out->v.s.p = p;
                out->v.s.len = n;
            }
        } else if (call->type == RSQL_TYPE_DECIMAL
                       ? rsql_value_parse_decimal(
                             text, n, call->desc ? call->desc->precision
                                                 : RSQL_DECIMAL_DEFAULT_PRECISION,
                             call->desc ? call->desc->scale : 0, out, NULL)
                       : rsql_value_parse(call->type, text, n, NULL, out, NULL)) {
            char why2[96];
            snprintf(why2, sizeof(why2), "the value is not %s",
                     call->desc ? call->desc->text : rsql_type_name(call->type));
            rc = outcome(call, j->on_error, &j->error_val, why2, out, err);
        }
    }
    cJSON_Delete(root);
    out->type = call->type;
    return rc;
}

rsql_err_t rsql_fn_eval_json_query(const rsql_bexpr_t *call, const rsql_value_t *args,
                                   rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    const jfn_t *j = call->aux;
    cJSON *root;
    rsql_jfound_t found;
    const char *why = "no value at the JSON path";
    cJSON *item = locate(call, args, ctx, &root, &found, &why);
    rsql_err_t rc = RSQL_OK;
    if (found == RSQL_JFOUND_EMPTY) {
        rc = outcome(call, j->on_empty, NULL, "no value at the JSON path", out, err);
    } else if (found == RSQL_JFOUND_ERROR) {
        rc = outcome(call, j->on_error, NULL, why, out, err);
    } else if (!cJSON_IsObject(item) && !cJSON_IsArray(item) &&
               j->wrapper < RSQL_JW_CONDITIONAL) {
        rc = outcome(call, j->on_error, NULL, "not an object or array at the JSON path", out,
                     err);
    } else {
        /* WITH CONDITIONAL WRAPPER wraps a scalar, WITH UNCONDITIONAL WRAPPER anything */
        bool wrap = j->wrapper == RSQL_JW_UNCONDITIONAL ||
                    (j->wrapper == RSQL_JW_CONDITIONAL && !cJSON_IsObject(item) &&
                     !cJSON_IsArray(item));
        char *t = cJSON_PrintUnformatted(item);
        size_t n = t ? strlen(t) : 0;
        char *p;
        if (!t) {
            rc = rsql_error_nomem(err);
        } else if (!(rc = rsql_fn_out_str(ctx, n + 2, &p, err))) {
            memcpy(p + wrap, t, n);
            if (wrap) {
                p[0] = '[';
                p[n + 1] = ']';
            }
            out->v.s.p = p;
            out->v.s.len = n + (wrap ? 2 : 0);
        }
        cJSON_free(t);
    }
    cJSON_Delete(root);
    return rc;
}

rsql_err_t rsql_fn_eval_json_exists(const rsql_bexpr_t *call, const rsql_value_t *args,
                                    rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    const jfn_t *j = call->aux;
    cJSON *root;
    rsql_jfound_t found;
    const char *why = "";
    locate(call, args, ctx, &root, &found, &why);
    rsql_err_t rc = RSQL_OK;
    if (found == RSQL_JFOUND_ERROR) {
        rc = outcome(call, j->on_error, NULL, why, out, err);
    } else {
        out->v.b = found == RSQL_JFOUND_VALUE;
    }
    cJSON_Delete(root);
    return rc;
}

/* Append s as a JSON string. */
static void put_json_string(rsql_buf_t *b, const char *s, size_t n)
{
    rsql_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            rsql_buf_putc(b, '\\');
            rsql_buf_putc(b, (char)c);
        } else if (c == '\n') {
            rsql_buf_puts(b, "\\n");
        } else if (c == '\t') {
            rsql_buf_puts(b, "\\t");
        } else if (c == '\r') {
            rsql_buf_puts(b, "\\r");
        } else if (c < 0x20) {
            rsql_buf_printf(b, "\\u%04x", c);
        } else {
            rsql_buf_putc(b, (char)c);
        }
    }
    rsql_buf_putc(b, '"');
}

static void put_json_value(rsql_buf_t *b, const rsql_value_t *v, bool raw)
{
    char num[RSQL_VALUE_TEXT_MAX];
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(b, v->v.b ? "true" : "false"); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
        rsql_value_format_int(v->v.i, num);
        rsql_buf_puts(b, num);
        break;
    case RSQL_TYPE_DOUBLE:
        if (isfinite(v->v.d)) {
            rsql_value_format_double(v->v.d, num);
            rsql_buf_puts(b, num);
        } else { /* NaN and the infinities are no JSON numbers: their text as a string */
            rsql_value_format_double(v->v.d, num);
            put_json_string(b, num, strlen(num));
        }
        break;
    case RSQL_TYPE_DECIMAL: /* exact: its text is a JSON number */
        rsql_value_format(v, b);
        break;
    case RSQL_TYPE_VARCHAR:
        if (raw) {
            rsql_buf_append(b, v->v.s.p, v->v.s.len);
        } else {
            put_json_string(b, v->v.s.p, v->v.s.len);
        }
        break;
    default: { /* TIMESTAMP, BYTES: their text form as a string */
        rsql_buf_t t = RSQL_BUF_INIT;
        rsql_value_format(v, &t);
        put_json_string(b, t.data ? t.data : "", t.len);
        rsql_buf_deinit(&t);
        break;
    }
    }
}

static rsql_err_t eval_ctor(const rsql_bexpr_t *call, const rsql_value_t *args, bool object,
                            rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    const jfn_t *j = call->aux;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_putc(&b, object ? '{' : '[');
    bool first = true;
    int step = object ? 2 : 1;
    for (int i = 0; i < call->n_args; i += step) {
        const rsql_value_t *v = &args[i + step - 1];
        if (v->is_null && j->on_null == RSQL_JB_ABSENT) {
            continue;
        }
        if (!first) {
            rsql_buf_putc(&b, ',');
        }
        first = false;
        if (object) {
            put_json_string(&b, args[i].v.s.p, args[i].v.s.len);
            rsql_buf_putc(&b, ':');
        }
        if (v->is_null) {
            rsql_buf_puts(&b, "null");
        } else {
            put_json_value(&b, v, j->raw[i + step - 1]);
        }
    }
    rsql_buf_putc(&b, object ? '}' : ']');
    rsql_err_t rc = rsql_fn_out_buf(ctx, &b, out, err);
    rsql_buf_deinit(&b);
    return rc;
}

rsql_err_t rsql_fn_eval_json_object(const rsql_bexpr_t *call, const rsql_value_t *args,
                                    rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    return eval_ctor(call, args, true, ctx, out, err);
}

rsql_err_t rsql_fn_eval_json_array(const rsql_bexpr_t *call, const rsql_value_t *args,
                                   rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    return eval_ctor(call, args, false, ctx, out, err);
}

/* ---- EXPLAIN */

static void print_clauses(const jfn_t *j, rsql_buf_t *out)
{
    for (int i = 0; i < j->n_clauses; i++) {
        const jclause_t *c = &j->clauses[i];
        rsql_buf_printf(out, " %s", beh_name(c->beh));
        if (c->beh == RSQL_JB_DEFAULT) {
            rsql_buf_putc(out, ' ');
            if (c->dflt.is_null) {
                rsql_buf_puts(out, "NULL");
            } else if (c->dflt.type == RSQL_TYPE_VARCHAR ||
                       c->dflt.type == RSQL_TYPE_TIMESTAMP) { /* quoted, as EXPLAIN's constants */
                rsql_buf_t t = RSQL_BUF_INIT;
                rsql_value_format(&c->dflt, &t);
                rsql_buf_puts(out, c->dflt.type == RSQL_TYPE_TIMESTAMP ? "TIMESTAMP '" : "'");
                for (size_t k = 0; k < t.len; k++) {
                    if (t.data[k] == '\'') {
                        rsql_buf_putc(out, '\'');
                    }
                    rsql_buf_putc(out, t.data[k]);
                }
                rsql_buf_putc(out, '\'');
                rsql_buf_deinit(&t);
            } else {
                rsql_value_format(&c->dflt, out);
            }
        }
        rsql_buf_printf(out, " ON %s", event_name(c->event));
    }
}

void rsql_fn_print_json_clauses(const rsql_bexpr_t *call, rsql_buf_t *out)
{
    const jfn_t *j = call->aux;
    rsql_buf_printf(out, "%s(", call->name);
    rsql_fn_print_args(call, 0, ", ", out);
    if (j->has_returning) {
        rsql_buf_printf(out, " RETURNING %s",
                        call->desc ? call->desc->text : rsql_type_name(call->type));
    }
    if (j->wrapper) {
        rsql_buf_puts(out, j->wrapper == RSQL_JW_WITHOUT ? " WITHOUT ARRAY WRAPPER"
                           : j->wrapper == RSQL_JW_CONDITIONAL
                               ? " WITH CONDITIONAL ARRAY WRAPPER"
                               : " WITH UNCONDITIONAL ARRAY WRAPPER");
    }
    print_clauses(j, out);
    rsql_buf_putc(out, ')');
}

void rsql_fn_print_json_object(const rsql_bexpr_t *call, rsql_buf_t *out)
{
    const jfn_t *j = call->aux;
    rsql_buf_puts(out, "JSON_OBJECT(");
    for (int i = 0; i + 1 < call->n_args; i += 2) {
        rsql_buf_puts(out, i ? ", KEY " : "KEY ");
        rsql_bexpr_print(call->args[i], out);
        rsql_buf_puts(out, " VALUE ");
        rsql_bexpr_print(call->args[i + 1], out);
    }
    print_clauses(j, out);
    rsql_buf_putc(out, ')');
}

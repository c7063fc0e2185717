/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_eval: the evaluator of bound expressions over one row, and the
 * runtime's per-row transform rsql_plan_apply (filter, then projection).
 * It runs on the pipeline's transform thread for every row, so it walks the
 * bound tree directly, allocates nothing but strings (in the caller's
 * rsql_eval_ctx_t scratch, reused row after row), and follows SQL
 * semantics: three-valued logic for AND/OR/NOT, comparisons, IN, BETWEEN
 * and CASE; NULL in, NULL out for operators and strict functions; errors
 * (RSQL_ERR_EVAL, at the expression's position) for integer overflow,
 * division by zero and impossible casts.
 */
#include "config.h"
#include "planner/plan_int.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

/* ---- scratch */

struct rsql_eval_block {
    rsql_eval_block_t *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
};

#define SCRATCH_MIN 4096

/* Initialise ctx (no memory is taken until the first scratch string). */
void rsql_eval_ctx_init(rsql_eval_ctx_t *ctx)
{
    ctx->blocks = NULL;
    ctx->now_ms = 0;
    ctx->json_doc = NULL;
    ctx->row = NULL;
    ctx->row_cap = 0;
}

/* Free ctx's scratch memory. */
void rsql_eval_ctx_deinit(rsql_eval_ctx_t *ctx)
{
    rsql_plan__json_doc_drop(ctx);
    rsql_eval_block_t *b = ctx->blocks;
    while (b) {
        rsql_eval_block_t *next = b->next;
        rsql_free(b);
        b = next;
    }
    ctx->blocks = NULL;
    rsql_free(ctx->row);
    ctx->row = NULL;
    ctx->row_cap = 0;
}

/*
** Forget the last row's scratch strings. When a row needed several blocks,
** they are replaced by one block as large as all of them, so the steady
** state is one block and no allocation per row.
*/
void rsql_eval_ctx_reset(rsql_eval_ctx_t *ctx)
{
    if (ctx->json_doc) {
        rsql_plan__json_doc_drop(ctx); /* its bytes may be the last row's */
    }
    rsql_eval_block_t *b = ctx->blocks;
    if (!b) {
        return;
    }
    if (!b->next) {
        b->used = 0;
        return;
    }
    size_t total = 0;
    while (b) {
        rsql_eval_block_t *next = b->next;
        total += b->size;
        rsql_free(b);
        b = next;
    }
    ctx->blocks = rsql_malloc(sizeof(rsql_eval_block_t) + total);
    if (ctx->blocks) {
        ctx->blocks->next = NULL;
        ctx->blocks->used = 0;
        ctx->blocks->size = total;
    }
}

/* Set the batch's "now" (0: read the clock at the next NOW()). */
void rsql_eval_ctx_set_now(rsql_eval_ctx_t *ctx, int64_t now_ms)
{
    ctx->now_ms = now_ms;
}

/* n bytes of scratch, 8-byte aligned, valid until the next reset; NULL when out of memory. */
void *rsql_eval_scratch(rsql_eval_ctx_t *ctx, size_t n)
{
    n = (n + 7) & ~(size_t)7;
    rsql_eval_block_t *b = ctx->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = n > SCRATCH_MIN ? n : SCRATCH_MIN;
        b = rsql_malloc(sizeof(rsql_eval_block_t) + size);
        if (!b) {
            return NULL;
        }
        b->size = size;
        b->used = 0;
        b->next = ctx->blocks;
        ctx->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

/* ---- comparison and LIKE */

static double as_double(const rsql_value_t *v)
{
    return v->type == RSQL_TYPE_DOUBLE ? v->v.d : (double)v->v.i;
}

/*
** Equality of two ROW, ARRAY or MAP values of the same type, as Flink's:
** field by field, element by element (in order), a MAP by its entries (in
** any order); a NULL inside equals only a NULL.
*/
static bool nested_equal(const rsql_value_t *a, const rsql_value_t *b)
{
    if (a->is_null || b->is_null) {
        return a->is_null && b->is_null;
    }
    if (!rsql_type_is_nested(a->type)) {
        return rsql_plan__compare(a, b) == 0;
    }
    const rsql_composite_t *x = a->v.c, *y = b->v.c;
    if (x->n != y->n) {
        return false;
    }
    if (a->type != RSQL_TYPE_MAP) {
        for (uint32_t i = 0; i < x->n; i++) {
            if (!nested_equal(&x->items[i], &y->items[i])) {
                return false;
            }
        }
        return true;
    }
    for (uint32_t i = 0; i < x->n; i++) { /* keys are unique: each of x's is in y */
        const rsql_value_t *k = &x->items[2 * i];
        uint32_t j = 0;
        while (j < y->n && rsql_plan__compare(k, &y->items[2 * j]) != 0) {
            j++;
        }
        if (j == y->n || !nested_equal(&x->items[2 * i + 1], &y->items[2 * j + 1])) {
            return false;
        }
    }
    return true;
}

/*
** Compare two non-NULL values of comparable types (numerics across
** INT/BIGINT/DOUBLE); ROW, ARRAY and MAP values (of the same type; the binder
** allows only = and <> on them) give 0 when equal, else 1.
*/
int rsql_plan__compare(const rsql_value_t *a, const rsql_value_t *b)
{
    switch (a->type) {
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT:
    case RSQL_TYPE_DOUBLE:
        if (b->type == RSQL_TYPE_DECIMAL) {
            break;
        }
        if (a->type == RSQL_TYPE_DOUBLE || b->type == RSQL_TYPE_DOUBLE) {
            double x = as_double(a), y = as_double(b);
            return x < y ? -1 : x > y ? 1 : 0;
        }
        return a->v.i < b->v.i ? -1 : a->v.i > b->v.i ? 1 : 0;
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: {
        size_t n = a->v.s.len < b->v.s.len ? a->v.s.len : b->v.s.len;
        int c = n ? memcmp(a->v.s.p, b->v.s.p, n) : 0;
        if (c) {
            return c < 0 ? -1 : 1;
        }
        return a->v.s.len < b->v.s.len ? -1 : a->v.s.len > b->v.s.len ? 1 : 0;
    }
    case RSQL_TYPE_BOOLEAN: return (int)a->v.b - (int)b->v.b;
    case RSQL_TYPE_TIMESTAMP: return a->v.ts < b->v.ts ? -1 : a->v.ts > b->v.ts ? 1 : 0;
    case RSQL_TYPE_DATE:
    case RSQL_TYPE_INTERVAL: return a->v.i < b->v.i ? -1 : a->v.i > b->v.i ? 1 : 0;
    case RSQL_TYPE_DECIMAL: break; /* below, with a DECIMAL on the right */
    case RSQL_TYPE_NULL: return 0;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: return nested_equal(a, b) ? 0 : 1;
    }
    /* a DECIMAL against a DECIMAL or an integer exactly, against a DOUBLE as doubles */
    const rsql_value_t *o = a->type == RSQL_TYPE_DECIMAL ? b : a;
    if (o->type == RSQL_TYPE_DOUBLE) {
        double x = a->type == RSQL_TYPE_DOUBLE ? a->v.d : rsql_value_decimal_to_double(a);
        double y = b->type == RSQL_TYPE_DOUBLE ? b->v.d : rsql_value_decimal_to_double(b);
        return x < y ? -1 : x > y ? 1 : 0;
    }
    rsql_value_t da = *a, db = *b;
    if (a->type != RSQL_TYPE_DECIMAL) {
        rsql_value_decimal_from_int(a->v.i, RSQL_DECIMAL_MAX_PRECISION, 0, &da, NULL);
    }
    if (b->type != RSQL_TYPE_DECIMAL) {
        rsql_value_decimal_from_int(b->v.i, RSQL_DECIMAL_MAX_PRECISION, 0, &db, NULL);
    }
    return rsql_value_decimal_cmp(&da, &db);
}

/*
** LIKE by backtracking over the last '%' (linear for patterns without '%'
** runs, O(n*m) at worst); '_' is one code point.
*/
rsql_err_t rsql_plan__like(const char *s, size_t sn, const char *p, size_t pn, uint32_t esc,
                           bool *match)
{
    size_t si = 0, pi = 0;
    size_t star_p = SIZE_MAX, star_s = 0;
    while (si < sn) {
        if (pi < pn) {
            size_t pnext = pi;
            uint32_t pc = rsql_plan__utf8_next(p, pn, &pnext);
            if (esc && pc == esc) {
                if (pnext >= pn) {
                    return RSQL_ERR_EVAL;
                }
                size_t lit_end = pnext;
                uint32_t lc = rsql_plan__utf8_next(p, pn, &lit_end);
                size_t snext = si;
                if (rsql_plan__utf8_next(s, sn, &snext) == lc) {
                    si = snext;
                    pi = lit_end;
                    continue;
                }
            } else if (pc == '%') {
                star_p = pnext;
                star_s = si;
                pi = pnext;
                continue;
            } else {
                size_t snext = si;
                uint32_t sc = rsql_plan__utf8_next(s, sn, &snext);
                if (pc == '_' || pc == sc) {
                    si = snext;
                    pi = pnext;
                    continue;
                }
            }
        }
        if (star_p == SIZE_MAX) {
            *match = false;
            return RSQL_OK;
        }
        /* let the last % swallow one more code point */
        rsql_plan__utf8_next(s, sn, &star_s);
        si = star_s;
        pi = star_p;
    }
    while (pi < pn) {
        size_t pnext = pi;
        uint32_t pc = rsql_plan__utf8_next(p, pn, &pnext);
        if (esc && pc == esc) {
            if (pnext >= pn) {
                return RSQL_ERR_EVAL;
            }
            break;
        }
        if (pc != '%') {
            break;
        }
        pi = pnext;
    }
    *match = pi == pn;
    return RSQL_OK;
}

/* ---- the evaluator */

static void set_null(rsql_value_t *out, rsql_type_t t)
{
    memset(out, 0, sizeof(*out));
    out->type = t;
    out->is_null = true;
}

static void set_bool(rsql_value_t *out, bool b)
{
    memset(out, 0, sizeof(*out));
    out->type = RSQL_TYPE_BOOLEAN;
    out->v.b = b;
}

static rsql_err_t overflow(const rsql_bexpr_t *e, rsql_error_t *err)
{
    return rsql_error_set(err, RSQL_ERR_EVAL, e->pos, "%s",
                          e->type == RSQL_TYPE_TIMESTAMP  ? "out of range for TIMESTAMP(3)"
                          : e->type == RSQL_TYPE_INTERVAL ? "interval overflow"
                                                          : "integer overflow");
}

static rsql_err_t eval_binary(const rsql_bexpr_t *e, const rsql_value_t *row,
                              rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err);
static rsql_err_t eval_func(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                            rsql_value_t *out, rsql_error_t *err);

/*
** rsql_expr_eval of an operand: a column or a constant (most operands) is copied here, as
** rsql_expr_eval would, without the call (the evaluator's prologue and dispatch were its
** biggest cost per row); an operator or a function call goes to its evaluator directly
** (what rsql_expr_eval's switch would call, and the same result type after it).
*/
static inline rsql_err_t eval_sub(const rsql_bexpr_t *e, const rsql_value_t *row,
                                  rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    rsql_err_t rc;
    switch (e->kind) {
    case RSQL_BX_COLUMN:
    case RSQL_BX_COMPUTED: /* its slot, filled by rsql_plan_apply */
        *out = row[e->column];
        out->type = e->type;
        return RSQL_OK;
    case RSQL_BX_CONST:
        *out = e->value;
        out->type = e->type;
        return RSQL_OK;
    case RSQL_BX_BINARY:
        rc = eval_binary(e, row, ctx, out, err);
        out->type = e->type;
        return rc;
    case RSQL_BX_FUNC:
        rc = eval_func(e, row, ctx, out, err);
        out->type = e->type;
        return rc;
    default: return rsql_expr_eval(e, row, ctx, out, err);
    }
}

static rsql_err_t eval_arith(const rsql_bexpr_t *e, const rsql_value_t *x, const rsql_value_t *y,
                             rsql_value_t *out, rsql_error_t *err)
{
    if (e->type == RSQL_TYPE_DOUBLE) {
        double a = as_double(x), b = as_double(y), r = 0;
        switch (e->op) {
        case RSQL_OP_ADD: r = a + b; break;
        case RSQL_OP_SUB: r = a - b; break;
        case RSQL_OP_MUL: r = a * b; break;
        case RSQL_OP_DIV:
            if (!(b < 0.0 || b > 0.0)) {
                return rsql_error_set(err, RSQL_ERR_EVAL, e->pos, "division by zero");
            }
            r = a / b;
            break;
        default: return rsql_error_set(err, RSQL_ERR_INTERNAL, e->pos, "bad operator");
        }
        out->v.d = r;
        return RSQL_OK;
    }
    int64_t a = x->v.i, b = y->v.i, r = 0;
    switch (e->op) {
    case RSQL_OP_ADD:
        if (__builtin_add_overflow(a, b, &r)) {
            return overflow(e, err);
        }
        break;
    case RSQL_OP_SUB:
        if (__builtin_sub_overflow(a, b, &r)) {
            return overflow(e, err);
        }
        break;
    case RSQL_OP_MUL:
        if (__builtin_mul_overflow(a, b, &r)) {
            return overflow(e, err);
        }
        break;
    case RSQL_OP_DIV:
    case RSQL_OP_MOD:
        if (b == 0) {
            return rsql_error_set(err, RSQL_ERR_EVAL, e->pos, "division by zero");
        }
        if (b == -1) { /* INT64_MIN / -1 overflows; x % -1 is 0 */
            if (e->op == RSQL_OP_MOD) {
                r = 0;
            } else if (__builtin_sub_overflow((int64_t)0, a, &r)) {
                return overflow(e, err);
            }
        } else {
            r = e->op == RSQL_OP_DIV ? a / b : a % b;
        }
        break;
    default: return rsql_error_set(err, RSQL_ERR_INTERNAL, e->pos, "bad operator");
    }
    if (e->type == RSQL_TYPE_INT && (r < INT32_MIN || r > INT32_MAX)) {
        return overflow(e, err);
    }
    out->v.i = r;
    return RSQL_OK;
}

/* Three-valued AND / OR with short circuit: x decides alone when FALSE (AND) / TRUE (OR). */
static rsql_err_t eval_logic(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                             rsql_value_t *out, rsql_error_t *err)
{
    bool is_and = e->op == RSQL_OP_AND;
    rsql_value_t x, y;
    rsql_err_t rc = eval_sub(e->args[0], row, ctx, &x, err);
    if (rc) {
        return rc;
    }
    if (!x.is_null && x.v.b != is_and) {
        set_bool(out, !is_and);
        return RSQL_OK;
    }
    if ((rc = eval_sub(e->args[1], row, ctx, &y, err))) {
        return rc;
    }
    if (!y.is_null && y.v.b != is_and) {
        set_bool(out, !is_and);
    } else if (x.is_null || y.is_null) {
        set_null(out, RSQL_TYPE_BOOLEAN);
    } else {
        set_bool(out, is_and);
    }
    return RSQL_OK;
}

/*
** x op y for a BINARY node e other than AND and OR, its operands evaluated (typed as e's
** arguments): what the tree walk and the flat program (plan_prog.c) both compute. NULL in,
** NULL out; errors at e's position.
*/
rsql_err_t rsql_plan__binary_values(const rsql_bexpr_t *e, const rsql_value_t *xp,
                                    const rsql_value_t *yp, rsql_eval_ctx_t *ctx,
                                    rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t x = *xp, y = *yp; /* out may be where either came from */
    rsql_err_t rc;
    if (x.is_null || y.is_null) {
        set_null(out, e->type);
        return RSQL_OK;
    }
    memset(out, 0, sizeof(*out));
    out->type = e->type;
    switch (e->op) {
    case RSQL_OP_ADD:
    case RSQL_OP_SUB:
    case RSQL_OP_MUL:
    case RSQL_OP_DIV:
    case RSQL_OP_MOD:
        if (e->type == RSQL_TYPE_DECIMAL) {
            const rsql_tdesc_t *d = rsql_tdesc_of(RSQL_TYPE_DECIMAL, e->desc);
            char op = e->op == RSQL_OP_ADD ? '+' : e->op == RSQL_OP_SUB ? '-' : '*';
            rc = e->op == RSQL_OP_DIV   ? rsql_value_decimal_div(&x, &y, d->precision, d->scale,
                                                                 out, err)
                 : e->op == RSQL_OP_MOD ? rsql_value_decimal_mod(&x, &y, d->precision, d->scale,
                                                                 out, err)
                                        : rsql_value_decimal_arith(op, &x, &y, d->precision,
                                                                   d->scale, out, err);
            if (rc) {
                if (err) {
                    err->pos = e->pos;
                }
            }
            return rc;
        }
        return eval_arith(e, &x, &y, out, err);
    case RSQL_OP_CONCAT: {
        size_t n = x.v.s.len + y.v.s.len;
        char *p = rsql_eval_scratch(ctx, n ? n : 1);
        if (!p) {
            return rsql_error_nomem(err);
        }
        if (x.v.s.len) {
            memcpy(p, x.v.s.p, x.v.s.len);
        }
        if (y.v.s.len) {
            memcpy(p + x.v.s.len, y.v.s.p, y.v.s.len);
        }
        out->v.s.p = p;
        out->v.s.len = n;
        return RSQL_OK;
    }
    default: break;
    }
    int c;
    if ((x.type == RSQL_TYPE_BIGINT || x.type == RSQL_TYPE_INT) &&
        (y.type == RSQL_TYPE_BIGINT || y.type == RSQL_TYPE_INT)) {
        c = (x.v.i > y.v.i) - (x.v.i < y.v.i); /* rsql_plan__compare's integer case */
    } else {
        c = rsql_plan__compare(&x, &y);
    }
    bool r = false;
    switch (e->op) {
    case RSQL_OP_EQ: r = c == 0; break;
    case RSQL_OP_NE: r = c != 0; break;
    case RSQL_OP_LT: r = c < 0; break;
    case RSQL_OP_LE: r = c <= 0; break;
    case RSQL_OP_GT: r = c > 0; break;
    case RSQL_OP_GE: r = c >= 0; break;
    default: return rsql_error_set(err, RSQL_ERR_INTERNAL, e->pos, "bad operator");
    }
    set_bool(out, r);
    return RSQL_OK;
}

static rsql_err_t eval_binary(const rsql_bexpr_t *e, const rsql_value_t *row,
                              rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    if (e->op == RSQL_OP_AND || e->op == RSQL_OP_OR) {
        return eval_logic(e, row, ctx, out, err);
    }
    rsql_value_t x, y;
    rsql_err_t rc = eval_sub(e->args[0], row, ctx, &x, err);
    if (rc || (rc = eval_sub(e->args[1], row, ctx, &y, err))) {
        return rc;
    }
    return rsql_plan__binary_values(e, &x, &y, ctx, out, err);
}

static rsql_err_t eval_like(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                            rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t v[3];
    bool any_null = false;
    for (int i = 0; i < e->n_args; i++) {
        rsql_err_t rc = eval_sub(e->args[i], row, ctx, &v[i], err);
        if (rc) {
            return rc;
        }
        any_null |= v[i].is_null;
    }
    if (any_null) {
        set_null(out, RSQL_TYPE_BOOLEAN);
        return RSQL_OK;
    }
    uint32_t esc = 0;
    if (e->n_args == 3) {
        size_t i = 0;
        if (v[2].v.s.len) {
            esc = rsql_plan__utf8_next(v[2].v.s.p, v[2].v.s.len, &i);
        }
        if (v[2].v.s.len == 0 || i != v[2].v.s.len) {
            return rsql_error_set(err, RSQL_ERR_EVAL, e->args[2]->pos,
                                  "ESCAPE must be a single character");
        }
    }
    bool m = false;
    if (rsql_plan__like(v[0].v.s.p, v[0].v.s.len, v[1].v.s.p, v[1].v.s.len, esc, &m)) {
        return rsql_error_set(err, RSQL_ERR_EVAL, e->args[1]->pos,
                              "LIKE pattern ends with the ESCAPE character");
    }
    set_bool(out, m != e->negated);
    return RSQL_OK;
}

static rsql_err_t eval_in(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                          rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t x, y;
    rsql_err_t rc = eval_sub(e->args[0], row, ctx, &x, err);
    if (rc) {
        return rc;
    }
    if (x.is_null) {
        set_null(out, RSQL_TYPE_BOOLEAN);
        return RSQL_OK;
    }
    bool saw_null = false;
    for (int i = 1; i < e->n_args; i++) {
        if ((rc = eval_sub(e->args[i], row, ctx, &y, err))) {
            return rc;
        }
        if (y.is_null) {
            saw_null = true;
        } else if (rsql_plan__compare(&x, &y) == 0) {
            set_bool(out, !e->negated);
            return RSQL_OK;
        }
    }
    if (saw_null) {
        set_null(out, RSQL_TYPE_BOOLEAN);
    } else {
        set_bool(out, e->negated);
    }
    return RSQL_OK;
}

static rsql_err_t eval_between(const rsql_bexpr_t *e, const rsql_value_t *row,
                               rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t v[3];
    for (int i = 0; i < 3; i++) {
        rsql_err_t rc = eval_sub(e->args[i], row, ctx, &v[i], err);
        if (rc) {
            return rc;
        }
    }
    if (v[0].is_null) {
        set_null(out, RSQL_TYPE_BOOLEAN);
        return RSQL_OK;
    }
    /* lo <= x AND x <= hi, three-valued: -1 unknown, 0 false, 1 true */
    int lo = v[1].is_null ? -1 : rsql_plan__compare(&v[0], &v[1]) >= 0;
    int hi = v[2].is_null ? -1 : rsql_plan__compare(&v[0], &v[2]) <= 0;
    int r = (lo == 0 || hi == 0) ? 0 : (lo == -1 || hi == -1) ? -1 : 1;
    if (r < 0) {
        set_null(out, RSQL_TYPE_BOOLEAN);
    } else {
        set_bool(out, (r == 1) != e->negated);
    }
    return RSQL_OK;
}

static rsql_err_t eval_case(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                            rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t operand, w;
    rsql_err_t rc;
    int k = 0;
    if (e->has_operand) {
        if ((rc = eval_sub(e->args[0], row, ctx, &operand, err))) {
            return rc;
        }
        k = 1;
    }
    int end = e->n_args - (e->has_else ? 1 : 0);
    for (; k + 1 < end; k += 2) {
        if ((rc = eval_sub(e->args[k], row, ctx, &w, err))) {
            return rc;
        }
        bool hit = e->has_operand
                       ? (!operand.is_null && !w.is_null && rsql_plan__compare(&operand, &w) == 0)
                       : (!w.is_null && w.v.b);
        if (hit) {
            rc = eval_sub(e->args[k + 1], row, ctx, out, err);
            out->type = e->type;
            return rc;
        }
    }
    if (e->has_else) {
        rc = eval_sub(e->args[e->n_args - 1], row, ctx, out, err);
        out->type = e->type;
        return rc;
    }
    set_null(out, e->type);
    return RSQL_OK;
}

static rsql_err_t eval_func(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                            rsql_value_t *out, rsql_error_t *err)
{
    const rsql_func_t *f = e->func;
    rsql_err_t rc;
    if (f->flags & RSQL_FN_LAZY) { /* COALESCE: the first non-NULL argument */
        for (int i = 0; i < e->n_args; i++) {
            if ((rc = eval_sub(e->args[i], row, ctx, out, err))) {
                return rc;
            }
            if (!out->is_null) {
                out->type = e->type;
                return RSQL_OK;
            }
        }
        set_null(out, e->type);
        return RSQL_OK;
    }
    if (f->flags & RSQL_FN_COND) { /* IF(c, a, b): a when c is TRUE, else b (NULL c too) */
        rsql_value_t c;
        if ((rc = eval_sub(e->args[0], row, ctx, &c, err))) {
            return rc;
        }
        if ((rc = eval_sub(e->args[!c.is_null && c.v.b ? 1 : 2], row, ctx, out, err))) {
            return rc;
        }
        out->type = e->type;
        return RSQL_OK;
    }
    rsql_value_t local[8], *args = local;
    if (e->n_args > 8) {
        args = rsql_eval_scratch(ctx, sizeof(rsql_value_t) * (size_t)e->n_args);
        if (!args) {
            return rsql_error_nomem(err);
        }
    }
    for (int i = 0; i < e->n_args; i++) {
        if ((rc = eval_sub(e->args[i], row, ctx, &args[i], err))) {
            return rc;
        }
        if (args[i].is_null && (f->flags & RSQL_FN_STRICT)) {
            set_null(out, e->type);
            return RSQL_OK;
        }
    }
    memset(out, 0, sizeof(*out));
    out->type = e->type;
    return f->eval(e, args, ctx, out, err);
}

/* x[i]: an ARRAY element (1-based; out of range NULL) or a MAP value (missing key NULL). */
static rsql_err_t eval_index(const rsql_bexpr_t *e, const rsql_value_t *row,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t x, i;
    rsql_err_t rc = eval_sub(e->args[0], row, ctx, &x, err);
    if (rc || (rc = eval_sub(e->args[1], row, ctx, &i, err))) {
        return rc;
    }
    set_null(out, e->type);
    if (x.is_null || i.is_null || !x.v.c) {
        return RSQL_OK;
    }
    const rsql_composite_t *c = x.v.c;
    if (x.type == RSQL_TYPE_ARRAY) {
        if (i.v.i >= 1 && (uint64_t)i.v.i <= c->n) {
            *out = c->items[i.v.i - 1];
        }
        return RSQL_OK;
    }
    for (uint32_t k = 0; k < c->n; k++) {
        const rsql_value_t *key = &c->items[2 * k];
        if (key->v.s.len == i.v.s.len && (i.v.s.len == 0 || !memcmp(key->v.s.p, i.v.s.p, i.v.s.len))) {
            *out = c->items[2 * k + 1];
            break;
        }
    }
    return RSQL_OK;
}

/*
** NOT x or -x for a UNARY node e, x evaluated (typed as e's argument): what the tree walk and
** the flat program (plan_prog.c) both compute. NULL in, NULL out (typed e->type); errors at
** e's position. out->type is left to the caller otherwise.
*/
rsql_err_t rsql_plan__unary_values(const rsql_bexpr_t *e, const rsql_value_t *xp,
                                   rsql_value_t *out, rsql_error_t *err)
{
    rsql_value_t x = *xp; /* out may be where it came from */
    rsql_err_t rc = RSQL_OK;
    if (x.is_null) {
        set_null(out, e->type);
        return RSQL_OK;
    }
    memset(out, 0, sizeof(*out));
    if (e->op == RSQL_OP_NOT) {
        out->v.b = !x.v.b;
    } else if (e->type == RSQL_TYPE_DECIMAL) { /* 0 - x: exact, never overflows */
        rsql_value_t zero;
        rsql_value_decimal_from_int(0, x.prec ? x.prec : 1, 0, &zero, NULL);
        rc = rsql_value_decimal_arith('-', &zero, &x, RSQL_DECIMAL_MAX_PRECISION, x.scale, out,
                                      err);
        if (rc == RSQL_OK) {
            out->prec = x.prec;
        }
    } else if (e->type == RSQL_TYPE_DOUBLE) {
        out->v.d = -x.v.d;
    } else {
        int64_t min = e->type == RSQL_TYPE_INT ? INT32_MIN : INT64_MIN;
        if (x.v.i == min) {
            return overflow(e, err);
        }
        out->v.i = -x.v.i;
    }
    return rc;
}

/* Whether e is at most limit levels deep (see rsql_plan.h); recurses at most limit deep. */
bool rsql_expr_depth_ok(const rsql_bexpr_t *e, int limit)
{
    if (limit <= 0) {
        return false;
    }
    for (int i = 0; i < e->n_args; i++) {
        if (e->args[i] && !rsql_expr_depth_ok(e->args[i], limit - 1)) {
            return false;
        }
    }
    return true;
}

/*
** Evaluate e over row into *out (typed e->type). Strings in *out point into
** row, the plan or ctx's scratch. RSQL_ERR_EVAL at e's position on a row
** that cannot be computed.
*/
rsql_err_t rsql_expr_eval(const rsql_bexpr_t *e, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                          rsql_value_t *out, rsql_error_t *err)
{
    rsql_err_t rc = RSQL_OK;
    switch (e->kind) {
    case RSQL_BX_CONST: *out = e->value; break;
    case RSQL_BX_COLUMN: *out = row[e->column]; break;
    case RSQL_BX_COMPUTED: *out = row[e->column]; break; /* its slot (rsql_plan_apply) */
    case RSQL_BX_UNARY: {
        rsql_value_t x;
        if ((rc = eval_sub(e->args[0], row, ctx, &x, err))) {
            return rc;
        }
        if ((rc = rsql_plan__unary_values(e, &x, out, err)) || x.is_null) {
            return rc; /* a NULL: typed by set_null already */
        }
        break;
    }
    case RSQL_BX_BINARY: rc = eval_binary(e, row, ctx, out, err); break;
    case RSQL_BX_IS_NULL: {
        rsql_value_t x;
        if ((rc = eval_sub(e->args[0], row, ctx, &x, err))) {
            return rc;
        }
        set_bool(out, x.is_null != e->negated);
        break;
    }
    case RSQL_BX_LIKE: rc = eval_like(e, row, ctx, out, err); break;
    case RSQL_BX_IN: rc = eval_in(e, row, ctx, out, err); break;
    case RSQL_BX_BETWEEN: rc = eval_between(e, row, ctx, out, err); break;
    case RSQL_BX_CASE: rc = eval_case(e, row, ctx, out, err); break;
    case RSQL_BX_CAST: {
        rsql_value_t x;
        if ((rc = eval_sub(e->args[0], row, ctx, &x, err))) {
            return rc;
        }
        return rsql_plan__cast_value_desc(&x, e->type, e->desc, ctx, NULL, e->pos, out, err);
    }
    case RSQL_BX_FUNC: rc = eval_func(e, row, ctx, out, err); break;
    case RSQL_BX_FIELD: {
        rsql_value_t x;
        if ((rc = eval_sub(e->args[0], row, ctx, &x, err))) {
            return rc;
        }
        if (x.is_null || !x.v.c || (uint32_t)e->column >= x.v.c->n) {
            set_null(out, e->type);
        } else {
            *out = x.v.c->items[e->column];
        }
        break;
    }
    case RSQL_BX_INDEX: rc = eval_index(e, row, ctx, out, err); break;
    }
    out->type = e->type;
    return rc;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_row(const rsql_plan_t *plan, const rsql_value_t *src, rsql_eval_ctx_t *ctx,
                         const rsql_value_t **row, rsql_error_t *err)
{
    int n_src = plan->source.def->n_columns;
    int w = plan->n_in + plan->n_computed;
    if (ctx->row_cap < w) {
        rsql_value_t *r = rsql_realloc(ctx->row, (size_t)w * sizeof *r);
        if (!r) {
            return rsql_error_nomem(err);
        }
        ctx->row = r;
        ctx->row_cap = w;
    }
    memcpy(ctx->row, src, (size_t)n_src * sizeof *src);
    for (int i = n_src; i < plan->n_in; i++) { /* a joined table's columns: not found yet */
        set_null(&ctx->row[i], plan->lookup ? plan->lookup->table.def->columns[i - n_src].type
                                            : RSQL_TYPE_TIMESTAMP); /* a window's */
    }
    for (int k = 0; k < plan->n_computed; k++) { /* once each, over the source's columns */
        const rsql_bexpr_t *c = plan->computed[k];
        const rsql_prog_t *p = plan->computed_progs ? plan->computed_progs[k] : NULL;
        rsql_err_t rc = p ? rsql_prog_run(p, src, ctx, &ctx->row[c->column], err)
                          : eval_sub(c->args[0], src, ctx, &ctx->row[c->column], err);
        if (rc != RSQL_OK) {
            return rc;
        }
        ctx->row[c->column].type = c->type;
    }
    *row = ctx->row;
    return RSQL_OK;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_lookup_cond(const rsql_plan_t *plan, const rsql_value_t *row,
                                 rsql_eval_ctx_t *ctx, bool *match, rsql_error_t *err)
{
    *match = true;
    if (!plan->lookup || !plan->lookup->cond) {
        return RSQL_OK;
    }
    rsql_value_t f;
    rsql_err_t rc = eval_sub(plan->lookup->cond, row, ctx, &f, err);
    *match = rc == RSQL_OK && !f.is_null && f.v.b;
    return rc;
}

/* See rsql_plan.h. */
rsql_err_t rsql_plan_apply_row(const rsql_plan_t *plan, const rsql_value_t *row,
                               rsql_eval_ctx_t *ctx, rsql_value_t *out_row, bool *keep,
                               rsql_error_t *err)
{
    rsql_err_t rc;
    if (plan->apply_prog) {
        return rsql_prog_apply(plan->apply_prog, row, ctx, out_row, keep, err);
    }
    *keep = false;
    if (plan->filter) {
        rsql_value_t f;
        if ((rc = plan->filter_prog ? rsql_prog_run(plan->filter_prog, row, ctx, &f, err)
                                    : eval_sub(plan->filter, row, ctx, &f, err))) {
            return rc;
        }
        if (f.is_null || !f.v.b) {
            return RSQL_OK;
        }
    }
    for (int i = 0; i < plan->n_outputs; i++) {
        const rsql_plan_output_t *o = &plan->outputs[i];
        const rsql_prog_t *p = plan->output_progs ? plan->output_progs[i] : NULL;
        if ((rc = p ? rsql_prog_run(p, row, ctx, &out_row[i], err)
                    : eval_sub(o->expr, row, ctx, &out_row[i], err))) {
            return rc;
        }
        if (out_row[i].is_null && o->not_null) {
            return rsql_error_set(err, RSQL_ERR_EVAL, o->expr->pos,
                                  "NULL value for NOT NULL column '%s'", o->name);
        }
    }
    *keep = true;
    return RSQL_OK;
}

/*
** Filter, then projection, for one source row (see rsql_plan.h). out_row
** must have room for plan->n_outputs values.
*/
rsql_err_t rsql_plan_apply(const rsql_plan_t *plan, const rsql_value_t *in_row,
                           rsql_eval_ctx_t *ctx, rsql_value_t *out_row, bool *keep,
                           rsql_error_t *err)
{
    if (plan->n_computed > 0) { /* the computed columns, once each, after the source's */
        rsql_err_t rc = rsql_plan_row(plan, in_row, ctx, &in_row, err);
        if (rc != RSQL_OK) {
            *keep = false;
            return rc;
        }
    }
    return rsql_plan_apply_row(plan, in_row, ctx, out_row, keep, err);
}

/* "line:col: message (at 'expression text')", from the plan's copy of the statement. */
void rsql_plan_error_format(const rsql_plan_t *plan, const rsql_error_t *err, char *buf,
                            size_t size)
{
    rsql_error_format(err, plan ? plan->sql : NULL, buf, size);
    if (!plan || !plan->sql || err->pos.off == RSQL_POS_NONE || err->pos.len == 0) {
        return;
    }
    size_t sql_len = strlen(plan->sql);
    if ((size_t)err->pos.off + err->pos.len > sql_len) {
        return;
    }
    size_t used = strlen(buf);
    int n = err->pos.len > 60 ? 60 : (int)err->pos.len;
    snprintf(buf + used, size > used ? size - used : 0, " (at '%.*s%s')", n,
             plan->sql + err->pos.off, err->pos.len > 60 ? "..." : "");
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_prog: bound expressions compiled into flat programs, and the loop that runs them.
 * rsql_plan_build compiles the statement's filter, outputs and computed columns once
 * (rsql_plan_compile); rsql_plan_apply then runs each as a loop over an array of
 * instructions instead of walking the tree row after row.
 *
 * A program is the expression's operator nodes in post order. An instruction reads its
 * operands where they are (a register, a column of the row, a constant of the program: a
 * column or a constant costs no instruction) and writes one place: a register, or the
 * caller's output value itself. rsql_plan_apply_row runs one program per row for the filter
 * and every output together (plan->apply_prog: the filter, a check that ends the program
 * for a row not kept, then each output in turn, with the NOT NULL checks). AND and OR jump
 * past their right operand when the left one decides; a strict function's argument that is
 * NULL jumps past the call. Integer and DOUBLE arithmetic and
 * comparisons have their own instructions; every other operator calls the evaluator's own
 * code for it (rsql_plan__binary_values, rsql_plan__unary_values, the casts, the function
 * table), and the nodes the flat form does not cover (CASE, LIKE, IN, BETWEEN, COALESCE, IF,
 * ROW fields, []) are one instruction that runs the tree walk (rsql_expr_eval) on that
 * subtree. Results, NULLs and errors (message and place) are the tree walk's exactly: an
 * instruction's fast path gives up to the shared code whenever an error or an edge case
 * (overflow, division by zero or by -1) is possible.
 */
#include "config.h"
#include "planner/plan_int.h"
#include "base/rsql_mem.h"

#include <string.h>

/* Registers a program may use (its file is on the stack of rsql_prog_run); an expression that
   needs more is left to the tree walk. */
#define PROG_MAX_REGS 32

typedef enum prog_op {
    PI_LOAD,   /* regs[dst] = a, typed e->type (a column or constant where a value is needed) */
    PI_TREE,   /* regs[dst] = rsql_expr_eval(e) */
    PI_ADD_I,  /* integer arithmetic (any result type but DOUBLE and DECIMAL) */
    PI_SUB_I,
    PI_MUL_I,
    PI_DIV_I,
    PI_MOD_I,
    PI_ARITH_D, /* DOUBLE arithmetic over INT/BIGINT/DOUBLE operands; sub: the operator */
    PI_CMP_I,   /* comparison of two integers; sub: the operator */
    PI_CMP_D,   /* comparison of INT/BIGINT/DOUBLE operands, one of them DOUBLE */
    PI_CMP_I_F, /* PI_CMP_I and PI_CMP_D as the whole filter: unless TRUE, the row is not kept */
    PI_CMP_D_F, /* and the program ends (PI_FILTER's test, without writing the value) */
    PI_BINARY,  /* any other x op y (DECIMAL, ||, strings, timestamps, ...) */
    PI_UNARY,   /* NOT x, -x */
    PI_IS_NULL, /* x IS [NOT] NULL */
    PI_CAST,    /* CAST(x AS e's type) */
    PI_AND_OR,  /* the left operand of AND (sub 1) / OR (sub 0): when it decides, regs[dst] is
                   set and the program goes on at jump */
    PI_LOGIC,   /* both operands of AND / OR evaluated: regs[dst] three-valued */
    PI_STRICT,  /* a strict function's argument a: when NULL, regs[dst] = NULL, go to jump */
    PI_LOAD_STRICT, /* PI_LOAD of a strict function's argument (a column or constant) into
                       regs[dst], then PI_STRICT's test: when NULL, b (the call's place) =
                       NULL, go to jump */
    PI_FUNC,    /* regs[dst] = e->func over regs[first .. first + e->n_args) */
    PI_FILTER,  /* the filter's value a: unless TRUE, the row is not kept and the program ends */
    PI_NOT_NULL /* output a of a NOT NULL sink column (aux its name): NULL is an error */
} prog_op_t;

/* Where an operand or a result is: the registers, the row, the program's constants, the
   caller's output values (out_row of rsql_plan_apply_row; rsql_prog_run's *out). */
enum { B_REG, B_ROW, B_CONST, B_OUT };

typedef struct prog_arg {
    uint8_t base;     /* B_* */
    rsql_type_t type; /* the operand node's type (what the tree walk's copy of it says) */
    int32_t idx;
} prog_arg_t;

typedef struct prog_ins {
    uint8_t op;   /* prog_op_t */
    uint8_t sub;  /* PI_ARITH_D, PI_CMP_*: rsql_op_t; PI_AND_OR: 1 for AND */
    uint8_t dbl;  /* PI_ARITH_D, PI_CMP_D: bit 0 a is DOUBLE, bit 1 b is DOUBLE */
    prog_arg_t d; /* where the result goes (a register or an output) */
    int32_t jump; /* PI_AND_OR, PI_STRICT: where to go on */
    int32_t first; /* PI_FUNC: the first argument's register; PI_LOAD_STRICT: its type */
    const char *aux; /* PI_NOT_NULL: the column's name */
    prog_arg_t a, b;
    const rsql_bexpr_t *e; /* the node (type, position, operator, function) */
} prog_ins_t;

struct rsql_prog {
    int n_ins;
    int n_regs;
    int n_tree;
    const prog_ins_t *ins;
    const rsql_value_t *consts;
};

/* ---- compiling */

typedef struct prog_build {
    prog_ins_t *ins;
    int n_ins, cap_ins;
    rsql_value_t *consts;
    int n_consts, cap_consts;
    int top;    /* registers in use: a subexpression's are given back after its parent */
    int n_regs; /* the most in use at once */
    int n_tree;
    bool failed; /* out of memory or of registers */
} prog_build_t;

static bool is_leaf(const rsql_bexpr_t *e)
{
    return e->kind == RSQL_BX_CONST || e->kind == RSQL_BX_COLUMN || e->kind == RSQL_BX_COMPUTED;
}

static bool is_int(rsql_type_t t)
{
    return t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT;
}

static bool is_num(rsql_type_t t)
{
    return is_int(t) || t == RSQL_TYPE_DOUBLE;
}

static int reg_new(prog_build_t *pb, int n)
{
    if (pb->top + n > PROG_MAX_REGS) {
        pb->failed = true;
        return 0;
    }
    pb->top += n;
    if (pb->top > pb->n_regs) {
        pb->n_regs = pb->top;
    }
    return pb->top - n;
}

/* A new instruction (zeroed) for node e, or NULL (pb->failed) when out of memory. */
static prog_ins_t *emit(prog_build_t *pb, prog_op_t op, const rsql_bexpr_t *e, prog_arg_t dst)
{
    if (pb->n_ins == pb->cap_ins) {
        int cap = pb->cap_ins ? 2 * pb->cap_ins : 16;
        prog_ins_t *n = rsql_realloc(pb->ins, (size_t)cap * sizeof *n);
        if (!n) {
            pb->failed = true;
            return NULL;
        }
        pb->ins = n;
        pb->cap_ins = cap;
    }
    prog_ins_t *i = &pb->ins[pb->n_ins++];
    memset(i, 0, sizeof *i);
    i->op = (uint8_t)op;
    i->e = e;
    i->d = dst;
    return i;
}

static void compile(prog_build_t *pb, const rsql_bexpr_t *e, prog_arg_t dst);

static prog_arg_t reg_at(int r)
{
    return (prog_arg_t){.base = B_REG, .idx = r};
}

/*
** Operand e: a leaf where it is, else compiled into *into (the parent's own result: every
** instruction reads its operands before it writes) or, when into is NULL, a new register.
*/
static prog_arg_t operand(prog_build_t *pb, const rsql_bexpr_t *e, const prog_arg_t *into)
{
    prog_arg_t a = {.base = B_REG, .type = e->type, .idx = 0};
    if (e->kind == RSQL_BX_CONST) {
        if (pb->n_consts == pb->cap_consts) {
            int cap = pb->cap_consts ? 2 * pb->cap_consts : 8;
            rsql_value_t *n = rsql_realloc(pb->consts, (size_t)cap * sizeof *n);
            if (!n) {
                pb->failed = true;
                return a;
            }
            pb->consts = n;
            pb->cap_consts = cap;
        }
        pb->consts[pb->n_consts] = e->value;
        pb->consts[pb->n_consts].type = e->type;
        a.base = B_CONST;
        a.idx = pb->n_consts++;
    } else if (is_leaf(e)) {
        a.base = B_ROW;
        a.idx = e->column;
    } else {
        if (into) {
            a.base = into->base;
            a.idx = into->idx;
        } else {
            a.idx = reg_new(pb, 1);
        }
        if (!pb->failed) {
            compile(pb, e, a);
        }
    }
    return a;
}

static void compile_binary(prog_build_t *pb, const rsql_bexpr_t *e, prog_arg_t dst)
{
    prog_ins_t *i;
    int top = pb->top;
    if (e->op == RSQL_OP_AND || e->op == RSQL_OP_OR) {
        prog_arg_t a = operand(pb, e->args[0], &dst);
        int test = pb->n_ins;
        if (pb->failed || !(i = emit(pb, PI_AND_OR, e, dst))) {
            return;
        }
        i->a = a;
        i->sub = e->op == RSQL_OP_AND;
        prog_arg_t b = operand(pb, e->args[1], NULL);
        if (pb->failed || !(i = emit(pb, PI_LOGIC, e, dst))) {
            return;
        }
        i->a = a;
        i->b = b;
        i->sub = e->op == RSQL_OP_AND;
        pb->ins[test].jump = pb->n_ins;
        pb->top = top;
        return;
    }
    prog_arg_t a = operand(pb, e->args[0], &dst);
    prog_arg_t b = pb->failed ? a : operand(pb, e->args[1], NULL);
    pb->top = top;
    prog_op_t op = PI_BINARY;
    bool arith = e->op >= RSQL_OP_ADD && e->op <= RSQL_OP_MOD;
    bool cmp = e->op >= RSQL_OP_EQ && e->op <= RSQL_OP_GE;
    if (arith && e->type == RSQL_TYPE_DOUBLE && is_num(a.type) && is_num(b.type) &&
        e->op != RSQL_OP_MOD) {
        op = PI_ARITH_D;
    } else if (arith && e->type != RSQL_TYPE_DOUBLE && e->type != RSQL_TYPE_DECIMAL) {
        static const prog_op_t int_ops[] = {PI_ADD_I, PI_SUB_I, PI_MUL_I, PI_DIV_I, PI_MOD_I};
        op = int_ops[e->op - RSQL_OP_ADD];
    } else if (cmp && is_int(a.type) && is_int(b.type)) {
        op = PI_CMP_I;
    } else if (cmp && is_num(a.type) && is_num(b.type)) {
        op = PI_CMP_D;
    }
    if (pb->failed || !(i = emit(pb, op, e, dst))) {
        return;
    }
    i->a = a;
    i->b = b;
    i->sub = (uint8_t)e->op;
    i->dbl = (uint8_t)((a.type == RSQL_TYPE_DOUBLE) | (b.type == RSQL_TYPE_DOUBLE) << 1);
}

static void compile_func(prog_build_t *pb, const rsql_bexpr_t *e, prog_arg_t dst)
{
    unsigned flags = e->func->flags;
    int top = pb->top;
    int first = reg_new(pb, e->n_args); /* not dst: out must not be one of the arguments */
    int start = pb->n_ins;
    for (int k = 0; k < e->n_args && !pb->failed; k++) {
        if ((flags & RSQL_FN_STRICT) && is_leaf(e->args[k])) {
            prog_arg_t a = operand(pb, e->args[k], NULL);
            prog_ins_t *i = pb->failed ? NULL : emit(pb, PI_LOAD_STRICT, e, reg_at(first + k));
            if (i) {
                i->a = a;
                i->b = dst;
                i->first = (int32_t)e->args[k]->type; /* the value's type once loaded */
            }
            continue;
        }
        compile(pb, e->args[k], reg_at(first + k));
        if ((flags & RSQL_FN_STRICT) && !pb->failed) {
            prog_ins_t *i = emit(pb, PI_STRICT, e, dst);
            if (i) {
                i->a = (prog_arg_t){.base = B_REG, .type = e->args[k]->type, .idx = first + k};
            }
        }
    }
    prog_ins_t *i = pb->failed ? NULL : emit(pb, PI_FUNC, e, dst);
    pb->top = top;
    if (!i) {
        return;
    }
    i->first = first;
    for (int k = start; k < pb->n_ins; k++) {
        if ((pb->ins[k].op == PI_STRICT || pb->ins[k].op == PI_LOAD_STRICT) &&
            pb->ins[k].e == e) {
            pb->ins[k].jump = pb->n_ins;
        }
    }
}

/* Code that leaves e's value at dst, as rsql_expr_eval gives it. */
static void compile(prog_build_t *pb, const rsql_bexpr_t *e, prog_arg_t dst)
{
    prog_ins_t *i;
    prog_op_t op;
    switch (e->kind) {
    case RSQL_BX_CONST:
    case RSQL_BX_COLUMN:
    case RSQL_BX_COMPUTED: {
        prog_arg_t a = operand(pb, e, NULL);
        if (!pb->failed && (i = emit(pb, PI_LOAD, e, dst))) {
            i->a = a;
        }
        return;
    }
    case RSQL_BX_BINARY: compile_binary(pb, e, dst); return;
    case RSQL_BX_UNARY: op = PI_UNARY; break;
    case RSQL_BX_IS_NULL: op = PI_IS_NULL; break;
    case RSQL_BX_CAST: op = PI_CAST; break;
    case RSQL_BX_FUNC:
        /* COALESCE and IF evaluate only some of their arguments: the tree walk does them */
        if (!(e->func->flags & (RSQL_FN_LAZY | RSQL_FN_COND))) {
            compile_func(pb, e, dst);
            return;
        }
        op = PI_TREE;
        break;
    default: op = PI_TREE; break;
    }
    if (op == PI_TREE) {
        if ((i = emit(pb, PI_TREE, e, dst))) {
            pb->n_tree++;
        }
        return;
    }
    prog_arg_t a = operand(pb, e->args[0], &dst);
    if (!pb->failed && (i = emit(pb, op, e, dst))) {
        i->a = a;
    }
}

/* The program pb built, in arena; NULL when pb failed or out of memory. Frees pb's arrays. */
static rsql_prog_t *finish(prog_build_t *pb, rsql_arena_t *arena)
{
    rsql_prog_t *p = NULL;
    if (!pb->failed && (p = rsql_arena_alloc(arena, sizeof *p))) {
        prog_ins_t *ins = rsql_arena_alloc(arena, (size_t)pb->n_ins * sizeof *ins);
        rsql_value_t *k = pb->n_consts
                              ? rsql_arena_alloc(arena, (size_t)pb->n_consts * sizeof *k)
                              : NULL;
        if (!ins || (pb->n_consts && !k)) {
            p = NULL;
        } else {
            memcpy(ins, pb->ins, (size_t)pb->n_ins * sizeof *ins);
            if (k) {
                memcpy(k, pb->consts, (size_t)pb->n_consts * sizeof *k);
            }
            *p = (rsql_prog_t){.n_ins = pb->n_ins, .n_regs = pb->n_regs, .n_tree = pb->n_tree,
                               .ins = ins, .consts = k};
        }
    }
    rsql_free(pb->ins);
    rsql_free(pb->consts);
    return p;
}

/* See rsql_plan.h. */
rsql_prog_t *rsql_prog_compile(rsql_arena_t *arena, const rsql_bexpr_t *e)
{
    prog_build_t pb = {0};
    compile(&pb, e, (prog_arg_t){.base = B_OUT, .idx = 0});
    return finish(&pb, arena);
}

/* See rsql_plan.h. */
int rsql_prog_tree_count(const rsql_prog_t *p)
{
    return p->n_tree;
}

/*
** The whole of rsql_plan_apply_row as one program: the filter (PI_FILTER ends the program
** for a row it does not keep), then each output straight into out_row[k], checked after it
** when its sink column is NOT NULL, in the tree walk's order.
*/
static rsql_prog_t *compile_apply(rsql_plan_t *plan)
{
    prog_build_t pb = {0};
    prog_ins_t *i;
    if (plan->filter) {
        prog_arg_t f = reg_at(reg_new(&pb, 1));
        compile(&pb, plan->filter, f);
        i = pb.failed ? NULL : &pb.ins[pb.n_ins - 1];
        if (i && i->e == plan->filter && (i->op == PI_CMP_I || i->op == PI_CMP_D)) {
            /* a comparison at the root (no jump goes past it): it decides the row itself */
            i->op = i->op == PI_CMP_I ? PI_CMP_I_F : PI_CMP_D_F;
        } else if (!pb.failed && (i = emit(&pb, PI_FILTER, plan->filter, f))) {
            i->a = f;
        }
        pb.top = 0;
    }
    for (int k = 0; k < plan->n_outputs && !pb.failed; k++) {
        const rsql_plan_output_t *o = &plan->outputs[k];
        prog_arg_t d = {.base = B_OUT, .idx = k};
        compile(&pb, o->expr, d);
        if (o->not_null && !pb.failed && (i = emit(&pb, PI_NOT_NULL, o->expr, d))) {
            i->a = d;
            i->aux = o->name;
        }
    }
    return finish(&pb, plan->arena);
}

/* See rsql_plan.h. A program that cannot be made is left NULL: the tree walk evaluates it. */
void rsql_plan_compile(rsql_plan_t *plan)
{
    if (plan->filter) {
        plan->filter_prog = rsql_prog_compile(plan->arena, plan->filter);
    }
    if (plan->n_outputs > 0) {
        const rsql_prog_t **o = rsql_arena_alloc(plan->arena, (size_t)plan->n_outputs * sizeof *o);
        for (int k = 0; o && k < plan->n_outputs; k++) {
            o[k] = rsql_prog_compile(plan->arena, plan->outputs[k].expr);
        }
        plan->output_progs = o;
    }
    plan->apply_prog = compile_apply(plan);
    if (plan->n_computed > 0) {
        const rsql_prog_t **c = rsql_arena_alloc(plan->arena,
                                                 (size_t)plan->n_computed * sizeof *c);
        for (int k = 0; c && k < plan->n_computed; k++) {
            c[k] = rsql_prog_compile(plan->arena, plan->computed[k]->args[0]);
        }
        plan->computed_progs = c;
    }
}

/* ---- running */

static inline void put_null(rsql_value_t *out, rsql_type_t t)
{
    memset(out, 0, sizeof *out);
    out->type = t;
    out->is_null = true;
}

static inline void put_bool(rsql_value_t *out, rsql_type_t t, bool b)
{
    memset(out, 0, sizeof *out);
    out->type = t;
    out->v.b = b;
}

static inline bool cmp_true(int op, int c)
{
    switch (op) {
    case RSQL_OP_EQ: return c == 0;
    case RSQL_OP_NE: return c != 0;
    case RSQL_OP_LT: return c < 0;
    case RSQL_OP_LE: return c <= 0;
    case RSQL_OP_GT: return c > 0;
    default: return c >= 0; /* RSQL_OP_GE: the compiler gives no other */
    }
}

/* The operand's value typed as its node (the tree walk's copy of it). */
static inline rsql_value_t typed(const rsql_value_t *v, rsql_type_t t)
{
    rsql_value_t x = *v;
    x.type = t;
    return x;
}

/* The shared code for x op y (an error, or an edge case the fast path does not take). */
static rsql_err_t binary_slow(const prog_ins_t *i, const rsql_value_t *a, const rsql_value_t *b,
                              rsql_eval_ctx_t *ctx, rsql_value_t *d, rsql_error_t *err)
{
    rsql_value_t x = typed(a, i->a.type), y = typed(b, i->b.type);
    rsql_err_t rc = rsql_plan__binary_values(i->e, &x, &y, ctx, d, err);
    d->type = i->e->type;
    return rc;
}

/*
** Run p over row, its outputs into outs; *keep false when PI_FILTER drops the row (or on an
** error), else true.
*/
static rsql_err_t exec(const rsql_prog_t *p, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                       rsql_value_t *outs, bool *keep, rsql_error_t *err)
{
    rsql_value_t regs[PROG_MAX_REGS];
    rsql_value_t *const base[4] = {regs, (rsql_value_t *)row, (rsql_value_t *)p->consts, outs};
    const prog_ins_t *i = p->ins, *end = p->ins + p->n_ins;
    rsql_err_t rc;
    *keep = false;
    for (; i < end; i++) {
        rsql_value_t *d = &base[i->d.base][i->d.idx];
        const rsql_value_t *a = &base[i->a.base][i->a.idx];
        const rsql_value_t *b; /* read only by the instructions with two operands */
        const rsql_bexpr_t *e = i->e;
        int64_t r;
        switch ((prog_op_t)i->op) {
        case PI_LOAD:
            *d = *a;
            d->type = e->type;
            break;
        case PI_TREE:
            if ((rc = rsql_expr_eval(e, row, ctx, d, err))) {
                return rc;
            }
            break;
        case PI_ADD_I:
        case PI_SUB_I:
        case PI_MUL_I:
        case PI_DIV_I:
        case PI_MOD_I:
            b = &base[i->b.base][i->b.idx];
            if (a->is_null || b->is_null) {
                put_null(d, e->type);
                break;
            }
            {
                int64_t x = a->v.i, y = b->v.i;
                bool slow;
                switch ((prog_op_t)i->op) {
                case PI_ADD_I: slow = __builtin_add_overflow(x, y, &r); break;
                case PI_SUB_I: slow = __builtin_sub_overflow(x, y, &r); break;
                case PI_MUL_I: slow = __builtin_mul_overflow(x, y, &r); break;
                case PI_DIV_I:
                    slow = y == 0 || y == -1;
                    r = slow ? 0 : x / y;
                    break;
                default:
                    slow = y == 0 || y == -1;
                    r = slow ? 0 : x % y;
                    break;
                }
                if (slow || (e->type == RSQL_TYPE_INT && (r < INT32_MIN || r > INT32_MAX))) {
                    if ((rc = binary_slow(i, a, b, ctx, d, err))) {
                        return rc;
                    }
                    break;
                }
            }
            memset(d, 0, sizeof *d);
            d->type = e->type;
            d->v.i = r;
            break;
        case PI_ARITH_D:
            b = &base[i->b.base][i->b.idx];
            if (a->is_null || b->is_null) {
                put_null(d, e->type);
                break;
            }
            {
                double x = (i->dbl & 1) ? a->v.d : (double)a->v.i;
                double y = (i->dbl & 2) ? b->v.d : (double)b->v.i, z;
                switch (i->sub) {
                case RSQL_OP_ADD: z = x + y; break;
                case RSQL_OP_SUB: z = x - y; break;
                case RSQL_OP_MUL: z = x * y; break;
                default:
                    if (!(y < 0.0 || y > 0.0)) {
                        if ((rc = binary_slow(i, a, b, ctx, d, err))) {
                            return rc;
                        }
                        continue;
                    }
                    z = x / y;
                    break;
                }
                memset(d, 0, sizeof *d);
                d->type = e->type;
                d->v.d = z;
            }
            break;
        case PI_CMP_I:
            b = &base[i->b.base][i->b.idx];
            if (a->is_null || b->is_null) {
                put_null(d, e->type);
                break;
            }
            put_bool(d, e->type, cmp_true(i->sub, (a->v.i > b->v.i) - (a->v.i < b->v.i)));
            break;
        case PI_CMP_D:
            b = &base[i->b.base][i->b.idx];
            if (a->is_null || b->is_null) {
                put_null(d, e->type);
                break;
            }
            {
                double x = (i->dbl & 1) ? a->v.d : (double)a->v.i;
                double y = (i->dbl & 2) ? b->v.d : (double)b->v.i;
                put_bool(d, e->type, cmp_true(i->sub, x < y ? -1 : x > y ? 1 : 0));
            }
            break;
        case PI_CMP_I_F:
            b = &base[i->b.base][i->b.idx];
            if (a->is_null || b->is_null ||
                !cmp_true(i->sub, (a->v.i > b->v.i) - (a->v.i < b->v.i))) {
                return RSQL_OK;
            }
            break;
        case PI_CMP_D_F:
            b = &base[i->b.base][i->b.idx];
            if (a->is_null || b->is_null) {
                return RSQL_OK;
            }
            {
                double x = (i->dbl & 1) ? a->v.d : (double)a->v.i;
                double y = (i->dbl & 2) ? b->v.d : (double)b->v.i;
                if (!cmp_true(i->sub, x < y ? -1 : x > y ? 1 : 0)) {
                    return RSQL_OK;
                }
            }
            break;
        case PI_BINARY:
            b = &base[i->b.base][i->b.idx];
            if ((rc = binary_slow(i, a, b, ctx, d, err))) {
                return rc;
            }
            break;
        case PI_UNARY: {
            rsql_value_t x = typed(a, i->a.type);
            if ((rc = rsql_plan__unary_values(e, &x, d, err))) {
                return rc;
            }
            d->type = e->type;
            break;
        }
        case PI_IS_NULL: put_bool(d, e->type, a->is_null != e->negated); break;
        case PI_CAST: {
            rsql_value_t x = typed(a, i->a.type);
            if ((rc = rsql_plan__cast_value_desc(&x, e->type, e->desc, ctx, NULL, e->pos, d,
                                                 err))) {
                return rc;
            }
            break;
        }
        case PI_AND_OR:
            if (!a->is_null && a->v.b != i->sub) {
                put_bool(d, e->type, !i->sub);
                i = p->ins + i->jump - 1;
            }
            break;
        case PI_LOGIC:
            b = &base[i->b.base][i->b.idx];
            if (!b->is_null && b->v.b != i->sub) {
                put_bool(d, e->type, !i->sub);
            } else if (a->is_null || b->is_null) {
                put_null(d, e->type);
            } else {
                put_bool(d, e->type, i->sub);
            }
            break;
        case PI_STRICT:
            if (a->is_null) {
                put_null(d, e->type);
                i = p->ins + i->jump - 1;
            }
            break;
        case PI_LOAD_STRICT:
            *d = *a;
            d->type = (rsql_type_t)i->first;
            if (d->is_null) {
                put_null(&base[i->b.base][i->b.idx], e->type);
                i = p->ins + i->jump - 1;
            }
            break;
        case PI_FUNC:
            memset(d, 0, sizeof *d);
            d->type = e->type;
            rc = e->func->eval(e, &regs[i->first], ctx, d, err);
            d->type = e->type;
            if (rc) {
                return rc;
            }
            break;
        case PI_FILTER:
            if (a->is_null || !a->v.b) {
                return RSQL_OK;
            }
            break;
        case PI_NOT_NULL:
            if (a->is_null) {
                return rsql_error_set(err, RSQL_ERR_EVAL, e->pos,
                                      "NULL value for NOT NULL column '%s'", i->aux);
            }
            break;
        default: __builtin_unreachable(); /* the compiler makes no other */
        }
    }
    *keep = true;
    return RSQL_OK;
}

/* See rsql_plan.h. */
rsql_err_t rsql_prog_run(const rsql_prog_t *p, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                         rsql_value_t *out, rsql_error_t *err)
{
    bool keep;
    return exec(p, row, ctx, out, &keep, err);
}

/* See rsql_plan.h. */
rsql_err_t rsql_prog_apply(const rsql_prog_t *p, const rsql_value_t *row, rsql_eval_ctx_t *ctx,
                           rsql_value_t *out_row, bool *keep, rsql_error_t *err)
{
    return exec(p, row, ctx, out_row, keep, err);
}

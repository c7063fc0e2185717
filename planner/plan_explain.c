/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_explain: the EXPLAIN text of a plan, and bound expressions printed
 * back as canonical SQL. The output is stable (golden-tested): ASCII
 * framing, no addresses or times, secrets masked, options in the order they
 * were written. The tree reads top-down from the sink to the source (data
 * flows upwards); each node's details are indented under it:
 *
 *   Sink: s
 *     connector: filesystem
 *     ...
 *     ->  Projection
 *           x := CAST((a + 1) AS BIGINT) (BIGINT)
 *           ->  Filter: a > 3
 *                 ->  Source: t
 *                       connector: datagen
 *                       ...
 *   Threads: poll -> queue(1024) -> decode/filter/project/encode -> queue(1024) -> write ...
 *   Errors: ...
 *   Retries: ...
 *
 * Expressions: arithmetic and || always in parentheses, boolean operators
 * (comparisons, AND, OR, NOT, IS, LIKE, IN, BETWEEN) in parentheses only
 * when they are the operand of another operator; functions as NAME(args).
 */
#include "config.h"
#include "planner/plan_int.h"
#include "planner/plan_explain_int.h"
#include "base/rsql_buf.h"
#include "base/rsql_value.h"

#include <ctype.h>
#include <stdarg.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>

/* ---- expressions */

/* The SQL spelling of an operator ("+", "<>", "AND"); "?" for RSQL_OP_NONE. */
const char *rsql_plan__op_text(rsql_op_t op)
{
    switch (op) {
    case RSQL_OP_ADD: return "+";
    case RSQL_OP_SUB: return "-";
    case RSQL_OP_MUL: return "*";
    case RSQL_OP_DIV: return "/";
    case RSQL_OP_MOD: return "%";
    case RSQL_OP_EQ: return "=";
    case RSQL_OP_NE: return "<>";
    case RSQL_OP_LT: return "<";
    case RSQL_OP_LE: return "<=";
    case RSQL_OP_GT: return ">";
    case RSQL_OP_GE: return ">=";
    case RSQL_OP_AND: return "AND";
    case RSQL_OP_OR: return "OR";
    case RSQL_OP_CONCAT: return "||";
    case RSQL_OP_NOT: return "NOT";
    case RSQL_OP_NEG: return "-";
    case RSQL_OP_PLUS: return "+";
    case RSQL_OP_NONE: break;
    }
    return "?";
}

static void put_string(rsql_buf_t *out, const char *s, size_t n)
{
    rsql_buf_putc(out, '\'');
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') {
            rsql_buf_putc(out, '\'');
        }
        rsql_buf_putc(out, s[i]);
    }
    rsql_buf_putc(out, '\'');
}

static void put_const(rsql_buf_t *out, const rsql_bexpr_t *e)
{
    const rsql_value_t *v = &e->value;
    char buf[RSQL_VALUE_TEXT_MAX];
    if (v->is_null || e->type == RSQL_TYPE_NULL) {
        rsql_buf_puts(out, "NULL");
        return;
    }
    switch (e->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(out, v->v.b ? "TRUE" : "FALSE"); break; /* SQL words */
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_append(out, buf, rsql_value_format_int(v->v.i, buf)); break;
    case RSQL_TYPE_DOUBLE:
        rsql_buf_append(out, buf, rsql_value_format_double(v->v.d, buf));
        break;
    case RSQL_TYPE_TIMESTAMP:
        rsql_value_format_timestamp(v->v.ts, buf);
        rsql_buf_printf(out, "TIMESTAMP '%s'", buf);
        break;
    case RSQL_TYPE_VARCHAR:
    case RSQL_TYPE_BYTES: put_string(out, v->v.s.p, v->v.s.len); break;
    case RSQL_TYPE_DECIMAL:
        rsql_value_format_decimal(v, buf);
        rsql_buf_printf(out, "CAST('%s' AS %s)", buf,
                        rsql_tdesc_of(RSQL_TYPE_DECIMAL, e->desc)->text);
        break;
    case RSQL_TYPE_DATE:
        rsql_value_format_date(v->v.i, buf);
        rsql_buf_printf(out, "DATE '%s'", buf);
        break;
    case RSQL_TYPE_INTERVAL: rsql_buf_append(out, buf, rsql_value_interval_sql(v->v.i, buf)); break;
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: rsql_buf_puts(out, rsql_type_name(e->type)); break;
    case RSQL_TYPE_NULL: break;
    }
}

static void print_expr(const rsql_bexpr_t *e, rsql_buf_t *out, bool nested);

static void print_list(const rsql_bexpr_t *const *args, int n, rsql_buf_t *out)
{
    for (int i = 0; i < n; i++) {
        if (i) {
            rsql_buf_puts(out, ", ");
        }
        print_expr(args[i], out, false);
    }
}

static void print_expr(const rsql_bexpr_t *e, rsql_buf_t *out, bool nested)
{
    bool boolean_op = e->kind == RSQL_BX_IS_NULL || e->kind == RSQL_BX_LIKE ||
                      e->kind == RSQL_BX_IN || e->kind == RSQL_BX_BETWEEN ||
                      (e->kind == RSQL_BX_UNARY && e->op == RSQL_OP_NOT) ||
                      (e->kind == RSQL_BX_BINARY && e->type == RSQL_TYPE_BOOLEAN);
    bool paren = (boolean_op && nested) || (e->kind == RSQL_BX_BINARY && !boolean_op);
    if (paren) {
        rsql_buf_putc(out, '(');
    }
    switch (e->kind) {
    case RSQL_BX_CONST: put_const(out, e); break;
    case RSQL_BX_COLUMN:
    case RSQL_BX_COMPUTED: rsql_buf_put_ident(out, e->name); break;
    case RSQL_BX_UNARY:
        if (e->op == RSQL_OP_NOT) {
            rsql_buf_puts(out, "NOT ");
            print_expr(e->args[0], out, true);
        } else {
            const rsql_bexpr_t *x = e->args[0];
            bool wrap = x->kind == RSQL_BX_UNARY ||
                        (x->kind == RSQL_BX_CONST && !x->value.is_null &&
                         ((x->type == RSQL_TYPE_DOUBLE && x->value.v.d < 0) ||
                          (x->type != RSQL_TYPE_DOUBLE && x->value.v.i < 0)));
            rsql_buf_putc(out, '-');
            if (wrap) {
                rsql_buf_putc(out, '(');
            }
            print_expr(x, out, true);
            if (wrap) {
                rsql_buf_putc(out, ')');
            }
        }
        break;
    case RSQL_BX_BINARY:
        print_expr(e->args[0], out, true);
        rsql_buf_printf(out, " %s ", rsql_plan__op_text(e->op));
        print_expr(e->args[1], out, true);
        break;
    case RSQL_BX_IS_NULL:
        print_expr(e->args[0], out, true);
        rsql_buf_puts(out, e->negated ? " IS NOT NULL" : " IS NULL");
        break;
    case RSQL_BX_LIKE:
        print_expr(e->args[0], out, true);
        rsql_buf_puts(out, e->negated ? " NOT LIKE " : " LIKE ");
        print_expr(e->args[1], out, true);
        if (e->n_args > 2) {
            rsql_buf_puts(out, " ESCAPE ");
            print_expr(e->args[2], out, true);
        }
        break;
    case RSQL_BX_IN:
        print_expr(e->args[0], out, true);
        rsql_buf_puts(out, e->negated ? " NOT IN (" : " IN (");
        print_list((const rsql_bexpr_t *const *)e->args + 1, e->n_args - 1, out);
        rsql_buf_putc(out, ')');
        break;
    case RSQL_BX_BETWEEN:
        print_expr(e->args[0], out, true);
        rsql_buf_puts(out, e->negated ? " NOT BETWEEN " : " BETWEEN ");
        print_expr(e->args[1], out, true);
        rsql_buf_puts(out, " AND ");
        print_expr(e->args[2], out, true);
        break;
    case RSQL_BX_CASE: {
        int k = 0, end = e->n_args - (e->has_else ? 1 : 0);
        rsql_buf_puts(out, "CASE");
        if (e->has_operand) {
            rsql_buf_putc(out, ' ');
            print_expr(e->args[0], out, false);
            k = 1;
        }
        for (; k + 1 < end; k += 2) {
            rsql_buf_puts(out, " WHEN ");
            print_expr(e->args[k], out, false);
            rsql_buf_puts(out, " THEN ");
            print_expr(e->args[k + 1], out, false);
        }
        if (e->has_else) {
            rsql_buf_puts(out, " ELSE ");
            print_expr(e->args[e->n_args - 1], out, false);
        }
        rsql_buf_puts(out, " END");
        break;
    }
    case RSQL_BX_CAST:
        rsql_buf_puts(out, "CAST(");
        print_expr(e->args[0], out, false);
        rsql_buf_printf(out, " AS %s)", e->desc ? e->desc->text : rsql_type_name(e->type));
        break;
    case RSQL_BX_FIELD:
        print_expr(e->args[0], out, true);
        rsql_buf_putc(out, '.');
        rsql_buf_put_ident(out, e->name);
        break;
    case RSQL_BX_INDEX:
        print_expr(e->args[0], out, true);
        rsql_buf_putc(out, '[');
        print_expr(e->args[1], out, false);
        rsql_buf_putc(out, ']');
        break;
    case RSQL_BX_FUNC:
        if (e->func && e->func->print) {
            e->func->print(e, out);
            break;
        }
        rsql_buf_puts(out, e->name);
        if (strcmp(e->name, "CURRENT_TIMESTAMP") != 0) {
            rsql_buf_putc(out, '(');
            print_list((const rsql_bexpr_t *const *)e->args, e->n_args, out);
            rsql_buf_putc(out, ')');
        }
        break;
    }
    if (paren) {
        rsql_buf_putc(out, ')');
    }
}

/* Append e as canonical SQL text to out. */
void rsql_bexpr_print(const rsql_bexpr_t *e, rsql_buf_t *out)
{
    print_expr(e, out, false);
}

/* ---- the tree */

static void indent(rsql_buf_t *out, int n)
{
    for (int i = 0; i < n; i++) {
        rsql_buf_putc(out, ' ');
    }
}

/* See plan_explain_int.h. */
void rsql_plan__x_node(explain_t *x, int d, const char *title)
{
    if (d > 0) {
        indent(x->out, 6 * d - 4);
        rsql_buf_puts(x->out, "->  ");
    }
    rsql_buf_puts(x->out, title);
}

/* See plan_explain_int.h. */
void rsql_plan__x_attr(explain_t *x, int d, const char *key)
{
    indent(x->out, 6 * d + 2);
    rsql_buf_printf(x->out, "%s: ", key);
}

/* See plan_explain_int.h. */
const char *rsql_plan__x_dur(int64_t ms, char *buf, size_t size)
{
    return rsql_opt_format_duration(ms, buf, size);
}

/* ---- what a connector adds (rsql_connector_def_t.explain) */

typedef struct conn_explain {
    explain_t *x;
    int depth;
} conn_explain_t;

static void conn_attr(const rsql_explain_t *e, const char *name, const char *fmt, ...)
{
    conn_explain_t *c = e->priv;
    va_list ap;
    rsql_plan__x_attr(c->x, c->depth, name);
    va_start(ap, fmt);
    rsql_buf_vprintf(c->x->out, fmt, ap);
    va_end(ap);
    rsql_buf_putc(c->x->out, '\n');
}

static void conn_text(const rsql_explain_t *e, const char *fmt, ...)
{
    conn_explain_t *c = e->priv;
    va_list ap;
    va_start(ap, fmt);
    rsql_buf_vprintf(c->x->out, fmt, ap);
    va_end(ap);
}

/* Let table t's connector add its part of the output (when it has a hook). */
static void conn_explain(explain_t *x, int d, const rsql_plan_table_t *t, rsql_explain_part_t part)
{
    if (!t->conn || !t->conn->explain) {
        return;
    }
    conn_explain_t c = {x, d};
    const rsql_plan_t *p = x->plan;
    rsql_explain_t e = {
        .part = part,
        .conf = rsql_optset_conf(t->opts, RSQL_CONF_CONNECTOR),
        .opts = t->opts,
        .preview = p->kind == RSQL_PLAN_SELECT,
        .tolerate_all = p->errors.tolerate_all,
        .attr = conn_attr,
        .text = conn_text,
        .priv = &c,
    };
    const char **key = NULL, **meta = NULL;
    if (part == RSQL_EXPLAIN_SINK && t->def) {
        e.changelog = p->mode != RSQL_MODE_APPEND;
        key = rsql_calloc((size_t)t->def->n_columns + 1, sizeof *key);
        meta = rsql_calloc((size_t)p->n_outputs + 1, sizeof *meta);
        for (int i = 0; key && i < t->def->n_columns; i++) {
            int k = t->def->columns[i].pk_ord;
            if (k > 0 && k <= t->def->n_columns) {
                key[k - 1] = t->def->columns[i].name;
                e.n_key = k > e.n_key ? k : e.n_key;
            }
        }
        for (int i = 0; meta && i < p->n_outputs; i++) {
            if (p->outputs[i].meta_key) {
                meta[e.n_meta++] = p->outputs[i].meta_key;
            }
        }
        e.key = key;
        e.meta = meta;
    }
    t->conn->explain(&e);
    rsql_free(key);
    rsql_free(meta);
}

/* Does the sink keep the source positions in its own transaction (exactly-once)? */
static bool sink_exactly_once(const rsql_plan_t *p)
{
    return p->kind != RSQL_PLAN_SELECT && p->sink.conn &&
           rsql_connector_exactly_once(p->sink.conn,
                                       rsql_optset_conf(p->sink.opts, RSQL_CONF_CONNECTOR));
}

static void table_details(explain_t *x, int d, const rsql_plan_table_t *t)
{
    rsql_plan__x_attr(x, d, "connector");
    rsql_buf_printf(x->out, "%s\n", t->conn->name);
    if (t->format) {
        rsql_plan__x_attr(x, d, "format");
        rsql_buf_printf(x->out, "%s\n", t->format);
    }
    int n = rsql_optset_count(t->opts), shown = 0;
    for (int i = 0; i < n; i++) {
        const rsql_opt_kv_t *kv = rsql_optset_at(t->opts, i);
        if (strcasecmp(kv->key, "connector") == 0) {
            continue;
        }
        if (shown++ == 0) {
            rsql_plan__x_attr(x, d, "options");
        } else {
            rsql_buf_puts(x->out, ", ");
        }
        rsql_buf_printf(x->out, "'%s'='", kv->key);
        rsql_optset_put_shown(t->opts, i, x->out);
        rsql_buf_putc(x->out, '\'');
    }
    if (shown) {
        rsql_buf_putc(x->out, '\n');
    }
    rsql_plan__x_attr(x, d, "columns");
    for (int i = 0; i < t->def->n_columns; i++) {
        const rsql_col_t *c = &t->def->columns[i];
        rsql_buf_puts(x->out, i ? ", " : "");
        rsql_buf_put_ident(x->out, c->name);
        rsql_buf_printf(x->out, " %s%s", c->desc ? c->desc->text : rsql_type_name(c->type),
                        c->not_null ? " NOT NULL" : "");
        if (c->metadata) {
            rsql_buf_puts(x->out, " METADATA");
            if (c->meta_from) {
                rsql_buf_printf(x->out, " FROM '%s'", c->meta_from);
            }
            rsql_buf_puts(x->out, c->is_virtual ? " VIRTUAL" : "");
        }
    }
    rsql_buf_putc(x->out, '\n');
    /* computed columns: evaluated where a statement refers to them, never read or written */
    for (int i = 0, nc = 0; t->decl && i < t->decl->n_columns; i++) {
        const rsql_col_t *c = &t->decl->columns[i];
        if (c->expr) {
            if (nc++ == 0) {
                rsql_plan__x_attr(x, d, "computed");
            }
            rsql_buf_puts(x->out, nc > 1 ? ", " : "");
            rsql_buf_put_ident(x->out, c->name);
            rsql_buf_printf(x->out, " %s AS %s", c->desc ? c->desc->text : rsql_type_name(c->type),
                            c->expr);
        }
        if (i + 1 == t->decl->n_columns && nc) {
            rsql_buf_putc(x->out, '\n');
        }
    }
    /* WATERMARK FOR col AS expr, on a physical or a computed column: a window aggregation
       over the table generates it (its node says how), else it is only declared */
    for (int k = 0, i = 0; k < 2; k++, i = 0) { /* the source's columns, then the computed */
        const rsql_table_def_t *wd = k ? t->decl : t->def;
        for (; wd && i < wd->n_columns; i++) {
            if (!wd->columns[i].watermark || (k && !wd->columns[i].expr)) {
                continue;
            }
            rsql_plan__x_attr(x, d, "watermark");
            rsql_buf_puts(x->out, "FOR ");
            rsql_buf_put_ident(x->out, wd->columns[i].name);
            rsql_buf_printf(x->out, " AS %s (%s)\n", wd->columns[i].watermark,
                            !x->plan->window || t != &x->plan->source ||
                                    (x->plan->window->proctime && !x->plan->window->rows)
                                ? "declared; no window aggregation of this statement reads it"
                            : x->plan->window->rows ? "the window function's event time; its "
                                                      "rows are given at once, whatever the "
                                                      "watermark"
                                                    : "the window aggregation's event time");
        }
    }
    int n_key = 0; /* the key's columns have pk_ord 1, 2, ... */
    for (bool found = true; found;) {
        found = false;
        for (int i = 0; i < t->def->n_columns && !found; i++) {
            if (t->def->columns[i].pk_ord == n_key + 1) {
                if (n_key == 0) {
                    rsql_plan__x_attr(x, d, "primary key");
                }
                rsql_buf_puts(x->out, n_key ? ", " : "");
                rsql_buf_put_ident(x->out, t->def->columns[i].name);
                found = true;
                n_key++;
            }
        }
    }
    if (n_key) {
        rsql_buf_puts(x->out, " (NOT ENFORCED: a sink that can upsert writes by it)\n");
    }
}

/* "metadata: reads tag, keys" (source) / "metadata: writes tag" (sink), when there is any. */
static void meta_line(explain_t *x, int d, bool sink)
{
    const rsql_plan_t *p = x->plan;
    int n = 0;
    if (sink) {
        for (int i = 0; i < p->n_outputs; i++) {
            if (p->outputs[i].meta_key) {
                if (n++ == 0) {
                    rsql_plan__x_attr(x, d, "metadata");
                    rsql_buf_puts(x->out, "writes ");
                }
                rsql_buf_printf(x->out, "%s%s", n > 1 ? ", " : "", p->outputs[i].meta_key);
            }
        }
    } else {
        for (int i = 0; p->source_meta && i < p->source.def->n_columns; i++) {
            const char *f = p->source_fmeta ? p->source_fmeta[i] : NULL;
            if ((p->source_meta[i] && *p->source_meta[i]) || f) {
                if (n++ == 0) {
                    rsql_plan__x_attr(x, d, "metadata");
                    rsql_buf_puts(x->out, "reads ");
                }
                rsql_buf_printf(x->out, "%s%s%s", n > 1 ? ", " : "",
                                f ? RSQL_FORMAT_META_PREFIX : "", f ? f : p->source_meta[i]);
            }
        }
    }
    if (n) {
        rsql_buf_putc(x->out, '\n');
    }
}

static void sink_node(explain_t *x)
{
    const rsql_plan_t *p = x->plan;
    const rsql_plan_table_t *t = &p->sink;
    if (p->kind == RSQL_PLAN_SELECT) {
        rsql_plan__x_node(x, 0, "Preview: print to terminal, ");
        if (p->has_limit) {
            rsql_buf_printf(x->out, "LIMIT %" PRId64 "%s", p->limit,
                            p->limit_from_setting ? " (sql.preview-limit)" : "");
        } else {
            rsql_buf_puts(x->out, "no LIMIT");
        }
        rsql_buf_puts(x->out, ", never acks\n");
        return;
    }
    rsql_plan__x_node(x, 0, "Sink: ");
    rsql_buf_put_ident(x->out, t->def->name);
    rsql_buf_putc(x->out, '\n');
    table_details(x, 0, t);
    meta_line(x, 0, true);
    conn_explain(x, 0, t, RSQL_EXPLAIN_SINK);
    rsql_plan__x_attr(x, 0, "delivery");
    const char *own = p->source.conn ? p->source.conn->own_positions : NULL;
    if (sink_exactly_once(p) && !own) {
        rsql_buf_printf(x->out, "exactly-once (the %s sink stores the source position in the "
                                "same transaction as the rows)\n",
                        t->conn->name);
    } else if (sink_exactly_once(p)) {
        rsql_buf_printf(x->out, "exactly-once (the %s sink records each applied message's id in "
                                "the same transaction as its row; a redelivered message already "
                                "applied is acked without being written again)\n",
                        t->conn->name);
    } else {
        rsql_buf_puts(x->out, "at-least-once (a row's source position is committed only after "
                              "the sink confirms it)\n");
    }
}

/* The lookup join's node: the table, how rows are matched and read. */
static void lookup_node(explain_t *x, int d)
{
    const rsql_plan_lookup_t *lk = x->plan->lookup;
    const rsql_table_def_t *def = lk->table.def;
    const char *q = lk->alias ? lk->alias : def->name;
    rsql_lookup_conf_t lc;
    rsql_lookup_conf_get(lk->table.opts, &lc);
    rsql_plan__x_node(x, d, lk->left ? "LookupJoin (LEFT): " : "LookupJoin: ");
    rsql_buf_put_ident(x->out, def->name);
    if (lk->alias) {
        rsql_buf_puts(x->out, " AS ");
        rsql_buf_put_ident(x->out, lk->alias);
    }
    rsql_buf_puts(x->out, lk->left ? " (a row that finds nothing goes on, with NULLs)\n"
                                   : " (a row that finds nothing is dropped)\n");
    rsql_plan__x_attr(x, d, "as of");
    print_expr(lk->as_of, x->out, false);
    rsql_buf_puts(x->out, " (processing time: the rows as they are when each row is read)\n");
    rsql_plan__x_attr(x, d, "key");
    for (int i = 0; i < lk->n_key; i++) {
        rsql_buf_puts(x->out, i ? ", " : "");
        rsql_buf_put_ident(x->out, q);
        rsql_buf_putc(x->out, '.');
        rsql_buf_put_ident(x->out, def->columns[lk->key_columns[i]].name);
        rsql_buf_puts(x->out, " = ");
        print_expr(lk->keys[i], x->out, false);
    }
    rsql_buf_puts(x->out, " (a NULL value finds nothing)\n");
    if (lk->cond) {
        rsql_plan__x_attr(x, d, "condition");
        print_expr(lk->cond, x->out, false);
        rsql_buf_putc(x->out, '\n');
    }
    table_details(x, d, &lk->table);
    rsql_plan__x_attr(x, d, "lookups");
    rsql_buf_printf(x->out, "the distinct keys of a batch of rows in one call to the connector, "
                            "on the transform thread; a transient failure asked again up to %d "
                            "times\n", lc.max_retries);
    rsql_plan__x_attr(x, d, "in flight");
    char tmo[32];
    bool local_only = false;
    if (!lk->table.conn->lookup || !lk->table.conn->lookup->send) {
        rsql_buf_printf(x->out, "one call at a time (connector '%s' answers each call before "
                                "the next, locally)\n",
                        lk->table.conn->name);
        local_only = true;
    } else if (lk->in_flight == 0) {
        rsql_buf_puts(x->out, "one call at a time (table.exec.async-lookup.buffer-capacity "
                              "holds one batch)");
    } else {
        rsql_buf_printf(x->out, "up to %d calls, the batches waiting behind the one joined "
                                "sent before its answer comes (table.exec.async-lookup."
                                "buffer-capacity = %lld rows), answered in order: the rows "
                                "keep input order",
                        lk->in_flight, (long long)lk->buffer_capacity);
    }
    if (local_only) {
        /* no time limit of its own: a local file */
    } else if (lk->timeout_ms > 0) {
        rsql_buf_printf(x->out, "; a call taking over %s fails, transiently "
                                "(table.exec.async-lookup.timeout)\n",
                        rsql_opt_format_duration(lk->timeout_ms, tmo, sizeof tmo));
    } else {
        rsql_buf_puts(x->out, "; no time limit per call\n");
    }
    rsql_plan__x_attr(x, d, "cache");
    if (!lc.cache) {
        rsql_buf_puts(x->out, "none (every key is asked of the table)\n");
        return;
    }
    char w[32], a[32];
    rsql_buf_printf(x->out, "PARTIAL, at most %lld rows (least recently used evicted)",
                    (long long)lc.max_rows);
    if (lc.expire_after_write_ms) {
        rsql_buf_printf(x->out, ", expire after write %s",
                        rsql_opt_format_duration(lc.expire_after_write_ms, w, sizeof w));
    }
    if (lc.expire_after_access_ms) {
        rsql_buf_printf(x->out, ", expire after access %s",
                        rsql_opt_format_duration(lc.expire_after_access_ms, a, sizeof a));
    }
    rsql_buf_puts(x->out, lc.cache_missing ? ", keys that find nothing kept too\n"
                                           : ", keys that find nothing asked every time\n");
}

static void source_node(explain_t *x, int d)
{
    const rsql_plan_t *p = x->plan;
    const rsql_plan_table_t *t = &p->source;
    rsql_plan__x_node(x, d, "Source: ");
    rsql_buf_put_ident(x->out, t->def->name);
    rsql_buf_putc(x->out, '\n');
    table_details(x, d, t);
    meta_line(x, d, false);
    rsql_plan__x_attr(x, d, "read");
    rsql_buf_printf(x->out, "%s\n", p->bounded_why);
    conn_explain(x, d, t, RSQL_EXPLAIN_SOURCE);
    if (t->conn->own_positions) {
        return; /* such a source says itself how it acknowledges */
    }
    rsql_plan__x_attr(x, d, "offsets");
    if (p->kind == RSQL_PLAN_SELECT) {
        rsql_buf_puts(x->out, "never committed (preview)\n");
    } else if (sink_exactly_once(p)) {
        rsql_buf_printf(x->out, "position committed up to the first row whose outcome is "
                                "unknown, by the %s sink in its transaction and to the catalog\n",
                        p->sink.conn->name);
    } else {
        rsql_buf_puts(x->out, "position committed to the catalog up to the first row whose "
                              "outcome is unknown\n");
    }
}

static void threads_line(explain_t *x)
{
    const rsql_plan_t *p = x->plan;
    rsql_buf_puts(x->out, "Threads: poll");
    conn_explain(x, 0, &p->source, RSQL_EXPLAIN_POLL);
    rsql_buf_printf(x->out,
                    " -> queue(%" PRId64 ") -> decode/filter/project/encode -> queue(%" PRId64
                    ") -> %s (batches of %" PRId64 ")\n",
                    p->queue_capacity, p->queue_capacity,
                    p->kind == RSQL_PLAN_SELECT ? "print" : "write", p->batch_size);
}

static void errors_line(explain_t *x)
{
    const rsql_plan_t *p = x->plan;
    const rsql_plan_errors_t *e = &p->errors;
    char b1[32], b2[32];
    rsql_buf_puts(x->out, "Errors: ");
    if (!e->tolerate_all) {
        rsql_buf_puts(x->out, "tolerance none (a failed row stops the job; nothing past it is "
                              "committed or acked)");
    } else if (e->dlq.def) {
        rsql_buf_puts(x->out, "tolerance all (a failed row goes to dead-letter table ");
        rsql_buf_put_ident(x->out, e->dlq.def->name);
        rsql_buf_printf(x->out, " [%s] and the job goes on)", e->dlq.conn->name);
    } else {
        rsql_buf_puts(x->out, "tolerance all (a failed row is counted and skipped; no "
                              "errors.dlq.table)");
    }
    if (!e->tolerate_all && e->dlq.def) {
        rsql_buf_puts(x->out, "; dead-letter table ");
        rsql_buf_put_ident(x->out, e->dlq.def->name);
        rsql_buf_puts(x->out, p->window && p->window->late_dead_letter
                                  ? " for late rows only (table.exec.late-rows)"
                                  : " unused");
    }
    conn_explain(x, 0, &p->source, RSQL_EXPLAIN_ERRORS);
    rsql_buf_putc(x->out, '\n');
    if (e->retry_timeout_ms > 0) {
        rsql_buf_printf(x->out,
                        "Retries: retriable failures retried for up to %s (backoff from 100ms, "
                        "doubling, at most %s)\n",
                        rsql_plan__x_dur(e->retry_timeout_ms, b1, sizeof b1),
                        rsql_plan__x_dur(e->retry_backoff_max_ms, b2, sizeof b2));
    } else {
        rsql_buf_puts(x->out, "Retries: none (errors.retry.timeout = 0)\n");
    }
}

/* Append the EXPLAIN text of plan to out. */
rsql_err_t rsql_plan_explain(const rsql_plan_t *plan, rsql_buf_t *out)
{
    explain_t x = {out, plan};
    sink_node(&x);
    rsql_plan__x_node(&x, 1, "Projection\n");
    for (int i = 0; i < plan->n_outputs; i++) {
        const rsql_plan_output_t *o = &plan->outputs[i];
        indent(out, 8);
        rsql_buf_put_ident(out, o->name);
        rsql_buf_puts(out, " := ");
        print_expr(o->expr, out, false);
        rsql_buf_printf(out, " (%s)\n", o->desc ? o->desc->text : rsql_type_name(o->type));
    }
    int d = 2;
    if (plan->filter) {
        rsql_plan__x_node(&x, d, "Filter: ");
        print_expr(plan->filter, out, false);
        rsql_buf_putc(out, '\n');
        d++;
    }
    if (plan->lookup) {
        lookup_node(&x, d);
        d++;
    }
    if (plan->window && plan->window->rows) {
        rsql_plan__x_window_rows_node(&x, d);
        d++;
    }
    if (plan->agg) {
        rsql_plan__x_agg_node(&x, d);
        d++;
        if (plan->agg->pre) {
            rsql_plan__x_node(&x, d, "Filter: ");
            print_expr(plan->agg->pre, out, false);
            rsql_buf_putc(out, '\n');
            d++;
        }
    }
    if (plan->dedup) {
        rsql_plan__x_dedup_node(&x, d);
        d++;
        if (plan->dedup->pre) {
            rsql_plan__x_node(&x, d, "Filter: ");
            print_expr(plan->dedup->pre, out, false);
            rsql_buf_putc(out, '\n');
            d++;
        }
    }
    if (plan->n_computed > 0) { /* the computed columns referred to, once per row */
        rsql_plan__x_node(&x, d, "Computed\n");
        for (int k = 0; k < plan->n_computed; k++) {
            const rsql_bexpr_t *c = plan->computed[k];
            indent(out, 6 * d + 2);
            rsql_buf_put_ident(out, c->name);
            rsql_buf_puts(out, " := ");
            print_expr(c->args[0], out, false);
            rsql_buf_printf(out, " (%s)\n", c->desc ? c->desc->text : rsql_type_name(c->type));
        }
        d++;
    }
    source_node(&x, d);
    rsql_plan__explain_changes(plan, out);
    threads_line(&x);
    errors_line(&x);
    return out->oom ? RSQL_ERR_NOMEM : RSQL_OK;
}

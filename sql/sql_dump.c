/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_dump: a stable one-line s-expression of an AST, for tests and
 * debugging (SQLite's treeview.c role).  Examples:
 *
 *   (select (items (col a) (as (+ (col a) (int 1)) b) (star)) (from t)
 *           (where (> (col a) (int 3))) (limit 10))
 *   (create-table t if-not-exists (columns (a INT not-null) (ts TIMESTAMP(3)))
 *                 (with ('connector' 'file')))
 *
 * Names print bare when they are plain words, else "double-quoted"; strings
 * print 'single-quoted' with '' doubled.  Positions are not printed.
 */
#include "config.h"
#include "sql/sql_int.h"

#include "base/rsql_buf.h"

#include <string.h>

static void put_string(rsql_buf_t *b, const char *s, size_t n)
{
    rsql_buf_putc(b, '\'');
    for (size_t i = 0; s && i < n; i++) {
        if (s[i] == '\'') {
            rsql_buf_putc(b, '\'');
        }
        rsql_buf_putc(b, s[i]);
    }
    rsql_buf_putc(b, '\'');
}

static void put_cstring(rsql_buf_t *b, const char *s)
{
    put_string(b, s, s ? strlen(s) : 0);
}

static void put_type(rsql_buf_t *b, const rsql_type_spec_t *t)
{
    if (t->type == RSQL_TYPE_TIMESTAMP) {
        rsql_buf_puts(b, "TIMESTAMP");
        if (t->precision >= 0) {
            rsql_buf_printf(b, "(%d)", t->precision);
        }
        return;
    }
    rsql_buf_puts(b, t->desc ? t->desc->text : rsql_type_name(t->type));
}

static const char *op_name(rsql_op_t op)
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
    case RSQL_OP_AND: return "and";
    case RSQL_OP_OR: return "or";
    case RSQL_OP_CONCAT: return "||";
    case RSQL_OP_NOT: return "not";
    case RSQL_OP_NEG: return "neg";
    case RSQL_OP_PLUS: return "pos";
    case RSQL_OP_NONE: break;
    }
    return "?";
}

static void put_expr(rsql_buf_t *b, const rsql_expr_t *e);

static void put_args(rsql_buf_t *b, const rsql_expr_list_t *l)
{
    for (int i = 0; i < l->n; i++) {
        rsql_buf_putc(b, ' ');
        put_expr(b, l->items[i]);
    }
}

static void put_literal(rsql_buf_t *b, const rsql_literal_t *l)
{
    char num[64];
    switch (l->kind) {
    case RSQL_LIT_NULL: rsql_buf_puts(b, "(null)"); break;
    case RSQL_LIT_BOOL: rsql_buf_puts(b, l->b ? "(bool true)" : "(bool false)"); break;
    case RSQL_LIT_INT: rsql_buf_printf(b, "(int %lld)", (long long)l->i); break;
    case RSQL_LIT_INTERVAL: rsql_buf_printf(b, "(interval %lld ms)", (long long)l->i); break;
    case RSQL_LIT_DOUBLE:
        rsql_sql__fmt_double(num, sizeof(num), l->d);
        rsql_buf_printf(b, "(double %s)", num);
        break;
    case RSQL_LIT_STRING:
        rsql_buf_puts(b, "(string ");
        put_string(b, l->s, l->s_len);
        rsql_buf_putc(b, ')');
        break;
    }
}

static void put_expr(rsql_buf_t *b, const rsql_expr_t *e)
{
    if (!e) {
        rsql_buf_puts(b, "(nil)");
        return;
    }
    switch (e->kind) {
    case RSQL_EX_LITERAL: put_literal(b, &e->lit); return;
    case RSQL_EX_COLUMN:
        rsql_buf_puts(b, "(col ");
        if (e->qualifier) {
            rsql_buf_put_ident(b, e->qualifier);
            rsql_buf_putc(b, '.');
        }
        rsql_buf_put_ident(b, e->name);
        break;
    case RSQL_EX_STAR: rsql_buf_puts(b, "(star"); break;
    case RSQL_EX_UNARY:
        rsql_buf_printf(b, "(%s ", op_name(e->op));
        put_expr(b, e->left);
        break;
    case RSQL_EX_BINARY:
        rsql_buf_printf(b, "(%s ", op_name(e->op));
        put_expr(b, e->left);
        rsql_buf_putc(b, ' ');
        put_expr(b, e->right);
        break;
    case RSQL_EX_IS_NULL:
        rsql_buf_puts(b, e->negated ? "(is-not-null " : "(is-null ");
        put_expr(b, e->left);
        break;
    case RSQL_EX_LIKE:
        rsql_buf_puts(b, e->negated ? "(not-like " : "(like ");
        put_expr(b, e->left);
        rsql_buf_putc(b, ' ');
        put_expr(b, e->right);
        if (e->third) {
            rsql_buf_puts(b, " (escape ");
            put_expr(b, e->third);
            rsql_buf_putc(b, ')');
        }
        break;
    case RSQL_EX_IN:
        rsql_buf_puts(b, e->negated ? "(not-in " : "(in ");
        put_expr(b, e->left);
        put_args(b, &e->args);
        break;
    case RSQL_EX_BETWEEN:
        rsql_buf_puts(b, e->negated ? "(not-between " : "(between ");
        put_expr(b, e->left);
        rsql_buf_putc(b, ' ');
        put_expr(b, e->right);
        rsql_buf_putc(b, ' ');
        put_expr(b, e->third);
        break;
    case RSQL_EX_CASE:
        rsql_buf_puts(b, "(case");
        if (e->left) {
            rsql_buf_putc(b, ' ');
            put_expr(b, e->left);
        }
        for (int i = 0; i + 1 < e->args.n; i += 2) {
            rsql_buf_puts(b, " (when ");
            put_expr(b, e->args.items[i]);
            rsql_buf_putc(b, ' ');
            put_expr(b, e->args.items[i + 1]);
            rsql_buf_putc(b, ')');
        }
        if (e->right) {
            rsql_buf_puts(b, " (else ");
            put_expr(b, e->right);
            rsql_buf_putc(b, ')');
        }
        break;
    case RSQL_EX_CAST:
        rsql_buf_puts(b, "(cast ");
        put_expr(b, e->left);
        rsql_buf_putc(b, ' ');
        put_type(b, &e->cast_type);
        break;
    case RSQL_EX_FUNC: {
        static const char *const behs[] = {"null",    "error",   "absent",      "true",
                                           "false",   "unknown", "default",     "empty-array",
                                           "empty-object"};
        static const char *const wrappers[] = {"", "without", "conditional", "unconditional"};
        static const char *const events[] = {"empty", "error", "null"};
        rsql_buf_puts(b, e->kv_pairs ? "(func-kv " : "(func ");
        rsql_buf_put_ident(b, e->name);
        put_args(b, &e->args);
        if (e->has_returning) {
            rsql_buf_puts(b, " (returning ");
            put_type(b, &e->cast_type);
            rsql_buf_putc(b, ')');
        }
        if (e->wrapper > 0 && e->wrapper <= RSQL_JW_UNCONDITIONAL) {
            rsql_buf_printf(b, " (wrapper %s)", wrappers[e->wrapper]);
        }
        for (int i = 0; i < e->n_clauses; i++) {
            const rsql_json_clause_t *c = &e->clauses[i];
            rsql_buf_printf(b, " (on-%s %s", events[c->event], behs[c->beh]);
            if (c->dflt) {
                rsql_buf_putc(b, ' ');
                put_expr(b, c->dflt);
            }
            rsql_buf_putc(b, ')');
        }
        break;
    case RSQL_EX_FIELD:
        rsql_buf_puts(b, "(field ");
        put_expr(b, e->left);
        rsql_buf_putc(b, ' ');
        rsql_buf_put_ident(b, e->name);
        break;
    case RSQL_EX_INDEX:
        rsql_buf_puts(b, "(index ");
        put_expr(b, e->left);
        rsql_buf_putc(b, ' ');
        put_expr(b, e->right);
        break;
    }
    }
    rsql_buf_putc(b, ')');
}

static void put_select(rsql_buf_t *b, const rsql_select_t *s)
{
    rsql_buf_puts(b, "(select (items");
    for (int i = 0; i < s->n_items; i++) {
        const rsql_select_item_t *it = &s->items[i];
        rsql_buf_putc(b, ' ');
        if (it->alias.name) {
            rsql_buf_puts(b, "(as ");
            put_expr(b, it->expr);
            rsql_buf_putc(b, ' ');
            rsql_buf_put_ident(b, it->alias.name);
            rsql_buf_putc(b, ')');
        } else {
            put_expr(b, it->expr);
        }
    }
    rsql_buf_puts(b, ") (from ");
    rsql_buf_put_ident(b, s->from.name);
    if (s->from_alias.name) {
        rsql_buf_puts(b, " as ");
        rsql_buf_put_ident(b, s->from_alias.name);
    }
    rsql_buf_putc(b, ')');
    if (s->join) {
        rsql_buf_puts(b, s->join->left ? " (left-join " : " (join ");
        rsql_buf_put_ident(b, s->join->table.name);
        if (s->join->alias.name) {
            rsql_buf_puts(b, " as ");
            rsql_buf_put_ident(b, s->join->alias.name);
        }
        rsql_buf_puts(b, " (as-of ");
        put_expr(b, s->join->as_of);
        rsql_buf_puts(b, ") (on ");
        put_expr(b, s->join->on);
        rsql_buf_puts(b, "))");
    }
    if (s->where) {
        rsql_buf_puts(b, " (where ");
        put_expr(b, s->where);
        rsql_buf_putc(b, ')');
    }
    if (s->has_limit) {
        rsql_buf_printf(b, " (limit %lld)", (long long)s->limit);
    }
    rsql_buf_putc(b, ')');
}

static void put_insert(rsql_buf_t *b, const rsql_insert_t *ins)
{
    rsql_buf_puts(b, "(insert ");
    rsql_buf_put_ident(b, ins->target.name);
    if (ins->n_columns) {
        rsql_buf_puts(b, " (columns");
        for (int i = 0; i < ins->n_columns; i++) {
            rsql_buf_putc(b, ' ');
            rsql_buf_put_ident(b, ins->columns[i].name);
        }
        rsql_buf_putc(b, ')');
    }
    rsql_buf_putc(b, ' ');
    put_select(b, ins->select);
    rsql_buf_putc(b, ')');
}

static const char *stmt_name(rsql_stmt_kind_t k)
{
    switch (k) {
    case RSQL_STMT_CREATE_TABLE: return "create-table";
    case RSQL_STMT_DROP_TABLE: return "drop-table";
    case RSQL_STMT_SHOW_TABLES: return "show-tables";
    case RSQL_STMT_DESCRIBE: return "describe";
    case RSQL_STMT_SHOW_CREATE_TABLE: return "show-create-table";
    case RSQL_STMT_SHOW_CONNECTORS: return "show-connectors";
    case RSQL_STMT_SHOW_OPTIONS: return "show-options";
    case RSQL_STMT_SHOW_METADATA: return "show-metadata";
    case RSQL_STMT_SET: return "set";
    case RSQL_STMT_RESET: return "reset";
    case RSQL_STMT_SHOW_SETTINGS: return "show-settings";
    case RSQL_STMT_INSERT: return "insert";
    case RSQL_STMT_SELECT: return "select";
    case RSQL_STMT_EXPLAIN: return "explain";
    case RSQL_STMT_CREATE_JOB: return "create-job";
    case RSQL_STMT_DROP_JOB: return "drop-job";
    case RSQL_STMT_SHOW_JOBS: return "show-jobs";
    case RSQL_STMT_RUN_JOB: return "run-job";
    case RSQL_STMT_SHOW_JOB_RUNS: return "show-job-runs";
    case RSQL_STMT_RESET_POSITIONS: return "reset-positions";
    }
    return "?";
}

static void put_stmt(rsql_buf_t *b, const rsql_stmt_t *s)
{
    if (s->kind == RSQL_STMT_INSERT) {
        put_insert(b, s->insert);
        return;
    }
    if (s->kind == RSQL_STMT_SELECT) {
        put_select(b, s->select);
        return;
    }
    rsql_buf_printf(b, "(%s", stmt_name(s->kind));
    if (s->name.name) {
        rsql_buf_putc(b, ' ');
        rsql_buf_put_ident(b, s->name.name);
    }
    if (s->if_not_exists) {
        rsql_buf_puts(b, " if-not-exists");
    }
    if (s->if_exists) {
        rsql_buf_puts(b, " if-exists");
    }
    if (s->kind == RSQL_STMT_CREATE_TABLE) {
        rsql_buf_puts(b, " (columns");
        for (int i = 0; i < s->n_columns; i++) {
            const rsql_column_def_t *c = &s->columns[i];
            rsql_buf_puts(b, " (");
            rsql_buf_put_ident(b, c->name.name);
            rsql_buf_putc(b, ' ');
            if (c->computed) {
                rsql_buf_puts(b, "as ");
                put_expr(b, c->computed);
                rsql_buf_putc(b, ')');
                continue;
            }
            put_type(b, &c->type);
            rsql_buf_puts(b, c->not_null ? " not-null" : "");
            if (c->metadata) {
                rsql_buf_puts(b, " metadata");
                if (c->meta_from) {
                    rsql_buf_putc(b, ' ');
                    put_cstring(b, c->meta_from);
                }
                rsql_buf_puts(b, c->is_virtual ? " virtual" : "");
            }
            rsql_buf_putc(b, ')');
        }
        rsql_buf_putc(b, ')');
        if (s->n_options) {
            rsql_buf_puts(b, " (with");
            for (int i = 0; i < s->n_options; i++) {
                rsql_buf_puts(b, " (");
                put_cstring(b, s->options[i].key);
                rsql_buf_putc(b, ' ');
                put_cstring(b, s->options[i].value);
                rsql_buf_putc(b, ')');
            }
            rsql_buf_putc(b, ')');
        }
    }
    if (s->has_setting) {
        if (s->setting.key) {
            rsql_buf_putc(b, ' ');
            put_cstring(b, s->setting.key);
        }
        if (s->setting.value) {
            rsql_buf_putc(b, ' ');
            put_cstring(b, s->setting.value);
        }
    }
    if (s->inner) {
        rsql_buf_putc(b, ' ');
        put_stmt(b, s->inner);
    }
    rsql_buf_putc(b, ')');
}

/*
** The one-line dump of s.  Returns a heap string the caller frees with
** rsql_free(), or NULL when out of memory.
*/
char *rsql_sql_dump(const rsql_stmt_t *s)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    if (!s) {
        rsql_buf_puts(&b, "(nil)");
    } else {
        put_stmt(&b, s);
    }
    return rsql_buf_steal(&b);
}

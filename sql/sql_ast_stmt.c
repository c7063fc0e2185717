/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_ast_stmt: the parser actions that build statements and their parts (column
 * definitions, options, select items, SELECT with its FROM alias and lookup join, INSERT,
 * and each statement kind); the expressions are sql_ast.c's.
 */
#include "config.h"
#include "sql/sql_int.h"

#include <string.h>

rsql_column_def_t rsql_sql__column(rsql_parse_t *p, const rsql_ident_t *name,
                                   const rsql_type_spec_t *type, sql_flag_t nullability)
{
    rsql_column_def_t c;
    memset(&c, 0, sizeof(c));
    c.name = *name;
    c.type = *type;
    c.not_null = nullability.on;
    c.pos = rsql_sql__span(name->pos,
                           nullability.pos.off != RSQL_POS_NONE ? nullability.pos : type->pos);
    return c;
}

/* name AS x: a computed column; its text is x as written. */
rsql_column_def_t rsql_sql__column_computed(rsql_parse_t *p, const rsql_ident_t *name,
                                            const rsql_expr_t *x)
{
    rsql_column_def_t c;
    memset(&c, 0, sizeof(c));
    c.name = *name;
    c.type.type = RSQL_TYPE_NULL;
    c.type.pos = RSQL_NOPOS;
    c.meta_pos = c.virtual_pos = RSQL_NOPOS;
    if (!x) {
        c.pos = name->pos;
        return c;
    }
    c.computed = x;
    c.pos = rsql_sql__span(name->pos, x->pos);
    char *s = rsql_sql__alloc(p, (size_t)x->pos.len + 1);
    if (s) {
        memcpy(s, p->text + x->pos.off, x->pos.len);
        s[x->pos.len] = '\0';
        c.computed_text = s;
    }
    return c;
}

/*
** Mark c a METADATA column (m->on) and widen its span over METADATA ... VIRTUAL. The key's
** place is the 'key' literal when FROM is given, else the METADATA keyword.
*/
void rsql_sql__column_meta(rsql_parse_t *p, rsql_column_def_t *c, const sql_meta_t *m)
{
    (void)p;
    c->meta_pos = RSQL_NOPOS;
    c->virtual_pos = RSQL_NOPOS;
    if (!m->on) {
        return;
    }
    c->metadata = true;
    c->meta_from = m->from.s;
    c->meta_pos = m->from.s ? m->from.pos : m->pos;
    c->is_virtual = m->virt.on;
    c->virtual_pos = m->virt.pos;
    rsql_pos_t end = m->virt.on ? m->virt.pos : m->from.s ? m->from.pos : m->pos;
    c->pos = rsql_sql__span(c->pos, end);
}

/* 'key' = 'value' of WITH (...), both unescaped, positions with quotes. */
rsql_option_t rsql_sql__option(rsql_parse_t *p, const rsql_token_t *key,
                               const rsql_token_t *value)
{
    rsql_option_t o;
    o.key = rsql_sql__unquote(p, key, NULL);
    o.key_pos = rsql_sql__tok_pos(key);
    o.value = rsql_sql__unquote(p, value, NULL);
    o.value_pos = rsql_sql__tok_pos(value);
    return o;
}

/* A select list item; alias NULL when there is no AS. */
rsql_select_item_t rsql_sql__select_item(rsql_parse_t *p, rsql_expr_t *x,
                                         const rsql_ident_t *alias)
{
    rsql_select_item_t it = {x, {NULL, RSQL_NOPOS}};
    if (alias) {
        it.alias = *alias;
    }
    return it;
}

/* ---------------------------------------------------------------- statements */

/* SELECT items FROM from [WHERE where] [LIMIT n]; pos spans SELECT .. last token. */
rsql_select_t *rsql_sql__select(rsql_parse_t *p, const rsql_token_t *select_tok,
                                const sql_vec_t *items, const rsql_ident_t *from,
                                const rsql_ident_t *alias, rsql_join_t *join,
                                rsql_expr_t *where, const sql_limit_t *limit)
{
    rsql_select_t *s = rsql_sql__alloc(p, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->n_items = items->n;
    s->items = items->items;
    s->from = *from;
    s->from_alias = *alias;
    s->join = join;
    s->where = where;
    s->limit_pos = RSQL_NOPOS;
    s->group_pos = RSQL_NOPOS;
    rsql_pos_t end = where        ? where->pos
                     : join       ? join->pos
                     : alias->name ? alias->pos
                                  : from->pos;
    if (limit->present) {
        uint64_t v;
        if (!rsql_sql__parse_uint(p, &limit->tok, false, &v)) {
            return NULL;
        }
        s->has_limit = true;
        s->limit = (int64_t)v;
        s->limit_pos = rsql_sql__tok_pos(&limit->tok);
        end = s->limit_pos;
    }
    s->pos = rsql_sql__span(rsql_sql__tok_pos(select_tok), end);
    return s;
}

/* See sql_int.h. */
rsql_select_t *rsql_sql__select_group(rsql_parse_t *p, rsql_select_t *sel, const sql_group_t *g)
{
    if (!sel) {
        return NULL;
    }
    sel->group_pos = RSQL_NOPOS;
    if (!g->present || p->failed) {
        return sel;
    }
    sel->group_by = g->keys;
    sel->having = g->having;
    rsql_pos_t end = g->having ? g->having->pos
                     : g->keys.n ? g->keys.items[g->keys.n - 1]->pos
                                 : g->pos;
    sel->group_pos = rsql_sql__span(g->pos, end);
    if (!sel->has_limit) {
        sel->pos = rsql_sql__span(sel->pos, end);
    }
    return sel;
}

/* See sql_int.h. */
rsql_select_t *rsql_sql__select_from_sub(rsql_parse_t *p, rsql_select_t *sel, rsql_select_t *sub,
                                         const rsql_token_t *lp, const rsql_token_t *rp)
{
    if (p->failed || !sel || !sub) {
        return NULL;
    }
    sel->from_sub = sub;
    sel->from.pos = rsql_sql__span(rsql_sql__tok_pos(lp), rsql_sql__tok_pos(rp));
    if (sel->from.pos.off + sel->from.pos.len > sel->pos.off + sel->pos.len) {
        sel->pos = rsql_sql__span(sel->pos, sel->from.pos); /* nothing after the subquery */
    }
    return sel;
}

/* See sql_int.h. */
rsql_window_tvf_t *rsql_sql__window_tvf(rsql_parse_t *p, const rsql_token_t *fn,
                                        const rsql_ident_t *table,
                                        const sql_vec_t *partition,
                                        const rsql_ident_t *time_col,
                                        const rsql_expr_list_t *args, const rsql_token_t *rp)
{
    if (p->failed) {
        return NULL;
    }
    rsql_window_tvf_t *w = rsql_sql__alloc(p, sizeof(*w));
    if (!w) {
        return NULL;
    }
    w->fn = rsql_sql__ident(p, fn);
    w->table = *table;
    w->n_partition = partition->n;
    w->partition = partition->items;
    w->time_col = *time_col;
    w->args = *args;
    w->pos = rsql_sql__span(w->fn.pos, rsql_sql__tok_pos(rp));
    return w->fn.name ? w : NULL;
}

/* See sql_int.h. */
rsql_select_t *rsql_sql__select_window(rsql_parse_t *p, rsql_select_t *sel, rsql_window_tvf_t *w,
                                       const rsql_token_t *table_tok, const rsql_token_t *rp)
{
    if (p->failed || !sel || !w) {
        return NULL;
    }
    sel->window = w;
    w->pos = rsql_sql__span(rsql_sql__tok_pos(table_tok), rsql_sql__tok_pos(rp));
    if (w->pos.off + w->pos.len > sel->pos.off + sel->pos.len) {
        sel->pos = rsql_sql__span(sel->pos, w->pos); /* nothing after the function */
    }
    return sel;
}

/* [INNER | LEFT [OUTER]] JOIN table FOR SYSTEM_TIME AS OF as_of [[AS] alias] ON on. */
rsql_join_t *rsql_sql__join(rsql_parse_t *p, const sql_flag_t *type, const rsql_token_t *join_tok,
                            const rsql_ident_t *table, rsql_expr_t *as_of,
                            const rsql_ident_t *alias, rsql_expr_t *on)
{
    if (p->failed || !as_of || !on) {
        return NULL;
    }
    rsql_join_t *j = rsql_sql__alloc(p, sizeof(*j));
    if (!j) {
        return NULL;
    }
    j->left = type->on;
    j->table = *table;
    j->alias = *alias;
    j->as_of = as_of;
    j->on = on;
    rsql_pos_t start = type->pos.off != RSQL_POS_NONE ? type->pos : rsql_sql__tok_pos(join_tok);
    j->pos = rsql_sql__span(start, on->pos);
    return j;
}

/* INSERT INTO target [(columns)] select; pos spans INSERT .. end of select. */
rsql_insert_t *rsql_sql__insert(rsql_parse_t *p, const rsql_token_t *insert_tok,
                                const rsql_ident_t *target, const sql_vec_t *columns,
                                rsql_select_t *select)
{
    rsql_insert_t *ins = rsql_sql__alloc(p, sizeof(*ins));
    if (!ins) {
        return NULL;
    }
    ins->target = *target;
    ins->n_columns = columns->n;
    ins->columns = columns->items;
    ins->select = select;
    ins->pos = rsql_sql__span(rsql_sql__tok_pos(insert_tok), select->pos);
    return ins;
}

/* A statement of kind, naming name when non-NULL (its pos is set by the caller). */
rsql_stmt_t *rsql_sql__stmt(rsql_parse_t *p, rsql_stmt_kind_t kind, const rsql_ident_t *name)
{
    rsql_stmt_t *s = rsql_sql__alloc(p, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->kind = kind;
    s->pos = RSQL_NOPOS;
    s->name.pos = RSQL_NOPOS;
    s->setting.key_pos = RSQL_NOPOS;
    s->setting.value_pos = RSQL_NOPOS;
    if (name) {
        s->name = *name;
    }
    return s;
}

/* CREATE TABLE [IF NOT EXISTS] name (columns) [WITH (options)]. */
rsql_stmt_t *rsql_sql__stmt_create_table(rsql_parse_t *p, bool if_not_exists,
                                         const rsql_ident_t *name, const sql_vec_t *columns,
                                         const sql_vec_t *options)
{
    rsql_stmt_t *s = rsql_sql__stmt(p, RSQL_STMT_CREATE_TABLE, name);
    if (s) {
        s->if_not_exists = if_not_exists;
        s->n_columns = columns->n;
        s->columns = columns->items;
        s->n_options = options->n;
        s->options = options->items;
    }
    return s;
}

/* See sql_int.h. */
void rsql_sql__stmt_primary_key(rsql_parse_t *p, rsql_stmt_t *s, const sql_pkey_t *pk)
{
    (void)p;
    if (s) {
        s->n_pkey = pk->cols.n;
        s->pkey = pk->cols.items;
        s->pkey_pos = pk->pos;
    }
}

/* DROP TABLE / DROP JOB [IF EXISTS] name. */
rsql_stmt_t *rsql_sql__stmt_drop(rsql_parse_t *p, rsql_stmt_kind_t kind, bool if_exists,
                                 const rsql_ident_t *name)
{
    rsql_stmt_t *s = rsql_sql__stmt(p, kind, name);
    if (s) {
        s->if_exists = if_exists;
    }
    return s;
}

/* SET key = value, RESET [key], SHOW OPTIONS FOR CONNECTOR value. */
rsql_stmt_t *rsql_sql__stmt_setting(rsql_parse_t *p, rsql_stmt_kind_t kind,
                                    const sql_text_t *key, const sql_text_t *value)
{
    rsql_stmt_t *s = rsql_sql__stmt(p, kind, NULL);
    if (s) {
        s->has_setting = key || value;
        if (key) {
            s->setting.key = key->s;
            s->setting.key_pos = key->pos;
        }
        if (value) {
            s->setting.value = value->s;
            s->setting.value_pos = value->pos;
        }
    }
    return s;
}

/* An INSERT statement (pos = the INSERT's span, for CREATE JOB's text). */
rsql_stmt_t *rsql_sql__stmt_insert(rsql_parse_t *p, rsql_insert_t *ins)
{
    rsql_stmt_t *s = rsql_sql__stmt(p, RSQL_STMT_INSERT, NULL);
    if (s) {
        s->insert = ins;
        s->pos = ins->pos;
    }
    return s;
}

/* A SELECT statement (pos = the SELECT's span). */
rsql_stmt_t *rsql_sql__stmt_select(rsql_parse_t *p, rsql_select_t *sel)
{
    rsql_stmt_t *s = rsql_sql__stmt(p, RSQL_STMT_SELECT, NULL);
    if (s) {
        s->select = sel;
        s->pos = sel->pos;
    }
    return s;
}

/* EXPLAIN inner, CREATE JOB name AS inner. */
rsql_stmt_t *rsql_sql__stmt_wrap(rsql_parse_t *p, rsql_stmt_kind_t kind, bool if_not_exists,
                                 const rsql_ident_t *name, rsql_stmt_t *inner)
{
    rsql_stmt_t *s = rsql_sql__stmt(p, kind, name);
    if (s) {
        s->if_not_exists = if_not_exists;
        s->inner = inner;
    }
    return s;
}

/* The start rule's action: keep the statement for the driver. */
void rsql_sql__finish(rsql_parse_t *p, rsql_stmt_t *s)
{
    if (!p->failed) {
        p->stmt = s;
    }
}

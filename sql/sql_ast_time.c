/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_ast_time: the parser actions of the time attributes: the interval literal INTERVAL
 * 'text' unit [TO unit] (a day-time interval, read at parse time into milliseconds, so a
 * malformed one is an error at its place) and the WATERMARK FOR column AS expr clause of
 * CREATE TABLE.
 */
#include "config.h"
#include "sql/sql_int.h"

#include <string.h>
#include <strings.h>

#include "base/rsql_value.h"

/* The RSQL_IV_* of the unit token t, or -1 with the error set (YEAR and MONTH refused). */
static int interval_unit(rsql_parse_t *p, const rsql_token_t *t)
{
    static const char *const names[] = {"DAY", "HOUR", "MINUTE", "SECOND"};
    for (int u = 0; u < 4; u++) {
        if (t->n == strlen(names[u]) && strncasecmp(t->z, names[u], t->n) == 0) {
            return u;
        }
    }
    bool ym = (t->n == 4 && strncasecmp(t->z, "YEAR", 4) == 0) ||
              (t->n == 5 && strncasecmp(t->z, "MONTH", 5) == 0);
    rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(t),
                    ym ? "year-month intervals (%.*s) are not supported: an interval is a day-time "
                         "one, in DAY, HOUR, MINUTE or SECOND (TIMESTAMPADD(MONTH, n, ts) adds "
                         "months)"
                       : "unknown interval unit '%.*s': expected DAY, HOUR, MINUTE or SECOND",
                    (int)t->n, t->z);
    return -1;
}

/* See sql_int.h. */
rsql_expr_t *rsql_sql__expr_interval(rsql_parse_t *p, const rsql_token_t *kw,
                                     const rsql_token_t *text, const rsql_token_t *from,
                                     const rsql_token_t *to)
{
    int uf = interval_unit(p, from);
    int ut = uf < 0 ? -1 : to ? interval_unit(p, to) : uf;
    if (uf < 0 || ut < 0) {
        return NULL;
    }
    if (ut < uf || (to && ut == uf)) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX,
                        rsql_sql__span(rsql_sql__tok_pos(from), rsql_sql__tok_pos(to)),
                        "INTERVAL %s TO %s: the first unit must be larger than the second",
                        rsql_interval_unit_name(uf), rsql_interval_unit_name(ut));
        return NULL;
    }
    rsql_expr_t *e = rsql_sql__expr_literal(p, text);
    if (!e) {
        return NULL;
    }
    uint32_t off = 0;
    rsql_error_t err;
    memset(&err, 0, sizeof err);
    int64_t ms;
    if (rsql_value_interval_literal(e->lit.s, e->lit.s_len, uf, ut, &ms, &off, &err) != RSQL_OK) {
        /* the place in the string (its quote first; '' inside shifts it, rarely) */
        rsql_pos_t at = {text->off + 1 + off, 1};
        if (at.off >= text->off + text->n - 1) {
            at = rsql_sql__tok_pos(text);
        }
        rsql_sql__error(p, RSQL_ERR_SYNTAX, at, "invalid INTERVAL '%s' %s%s%s: %s", e->lit.s,
                        rsql_interval_unit_name(uf), to ? " TO " : "",
                        to ? rsql_interval_unit_name(ut) : "", err.msg);
        return NULL;
    }
    e->lit.kind = RSQL_LIT_INTERVAL;
    e->lit.i = ms;
    e->pos = rsql_sql__span(rsql_sql__tok_pos(kw), rsql_sql__tok_pos(to ? to : from));
    return e;
}

/* See sql_int.h. */
void rsql_sql__watermark(rsql_parse_t *p, const rsql_token_t *kw, int n_columns,
                         const rsql_ident_t *column, const rsql_expr_t *x)
{
    if (p->failed || !x) {
        return;
    }
    rsql_watermark_t w;
    memset(&w, 0, sizeof w);
    w.column = *column;
    w.expr = x;
    w.pos = rsql_sql__span(rsql_sql__tok_pos(kw), x->pos);
    w.after_columns = n_columns;
    char *s = rsql_sql__alloc(p, (size_t)x->pos.len + 1);
    if (!s) {
        return;
    }
    memcpy(s, p->text + x->pos.off, x->pos.len);
    s[x->pos.len] = '\0';
    w.text = s;
    rsql_sql__push(p, &p->wms.n, &p->wms.items, &w, sizeof w);
}

/* See sql_int.h. */
void rsql_sql__stmt_watermarks(rsql_parse_t *p, rsql_stmt_t *s)
{
    if (s && !p->failed) {
        s->n_watermarks = p->wms.n;
        s->watermarks = p->wms.items;
        for (int i = 0; i < s->n_watermarks; i++) {
            int k = s->watermarks[i].after_columns;
            if (k < s->n_columns) {
                rsql_sql__error(p, RSQL_ERR_SYNTAX, s->columns[k].pos,
                                "column '%s' after WATERMARK: the WATERMARK clause comes after "
                                "the columns",
                                s->columns[k].name.name);
                break;
            }
        }
    }
    p->wms.n = 0;
    p->wms.items = NULL;
}

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

/* The value of a precision token (INTEGER), at most 99 (-1 when absent). */
static int prec_value(const rsql_token_t *t)
{
    if (!t->z) {
        return -1;
    }
    int v = 0;
    for (uint32_t i = 0; i < t->n && t->z[i] >= '0' && t->z[i] <= '9'; i++) {
        v = v < 100 ? v * 10 + (t->z[i] - '0') : v;
    }
    return v;
}

/* The place of offset off of the unquoted text in the string token (its quote first; ''
   inside shifts it, rarely), or the whole token when past its end. */
static rsql_pos_t text_pos(const rsql_token_t *text, uint32_t off)
{
    rsql_pos_t at = {text->off + 1 + off, 1};
    return at.off >= text->off + text->n - 1 ? rsql_sql__tok_pos(text) : at;
}

/*
** The precisions of the qualifier: *lead the leading field's digits (DAY(3), SECOND(2, 3);
** -1: any), *frac the fraction's (SECOND(2, 3), ... TO SECOND(3); -1: 9). Flink's ranges:
** leading 1 to 9, fraction 0 to 9; a precision on any other unit is an error.
*/
static bool precisions(rsql_parse_t *p, const sql_ivunit_t *from, const sql_ivunit_t *to,
                       int uf, int ut, int *lead, int *frac)
{
    const sql_ivunit_t *bad = from->p2.z && (to || uf != RSQL_IV_SECOND) ? from
                              : to && to->p2.z                           ? to
                              : to && to->p1.z && ut != RSQL_IV_SECOND   ? to
                                                                         : NULL;
    if (bad) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(&bad->p1),
                        "INTERVAL %s(...): not a precision this unit takes: the first unit takes "
                        "one (DAY(3)), SECOND alone two (SECOND(2, 3)), a second unit SECOND one "
                        "(DAY TO SECOND(3))",
                        rsql_interval_unit_name(bad == from ? uf : ut));
        return false;
    }
    *lead = prec_value(&from->p1);
    *frac = to ? prec_value(&to->p1) : prec_value(&from->p2);
    if (*lead == 0 || *lead > 9 || *frac > 9) {
        const rsql_token_t *t = *lead == 0 || *lead > 9 ? &from->p1 : to ? &to->p1 : &from->p2;
        rsql_sql__error(p, RSQL_ERR_SYNTAX, rsql_sql__tok_pos(t),
                        "interval precision %.*s out of range (leading 1 to 9, fraction 0 to 9)",
                        (int)t->n, t->z);
        return false;
    }
    return true;
}

/* The text's digits against the precisions: an error at the field that has too many. */
static bool check_digits(rsql_parse_t *p, const rsql_token_t *text, const char *s, size_t n,
                         int uf, int lead, int frac)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '-' || s[i] == '+')) {
        i++;
    }
    size_t k = i;
    while (k < n && s[k] >= '0' && s[k] <= '9') {
        k++;
    }
    if (lead >= 0 && k - i > (size_t)lead) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, text_pos(text, (uint32_t)i),
                        "invalid INTERVAL '%s': the %s field has %zu digits, more than its "
                        "precision %d",
                        s, rsql_interval_unit_name(uf), k - i, lead);
        return false;
    }
    const char *dot = memchr(s, '.', n);
    size_t f = 0;
    while (dot && (size_t)(dot - s) + 1 + f < n && dot[1 + f] >= '0' && dot[1 + f] <= '9') {
        f++;
    }
    if (dot && frac >= 0 && f > (size_t)frac) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX, text_pos(text, (uint32_t)(dot - s) + 1),
                        "invalid INTERVAL '%s': %zu fraction digits, more than its precision %d",
                        s, f, frac);
        return false;
    }
    return true;
}

/* See sql_int.h. */
rsql_expr_t *rsql_sql__expr_interval(rsql_parse_t *p, const rsql_token_t *kw,
                                     const rsql_token_t *text, const sql_ivunit_t *from,
                                     const sql_ivunit_t *to)
{
    int uf = interval_unit(p, &from->unit);
    int ut = uf < 0 ? -1 : to ? interval_unit(p, &to->unit) : uf;
    if (uf < 0 || ut < 0) {
        return NULL;
    }
    if (ut < uf || (to && ut == uf)) {
        rsql_sql__error(p, RSQL_ERR_SYNTAX,
                        rsql_sql__span(rsql_sql__tok_pos(&from->unit), rsql_sql__tok_pos(&to->last)),
                        "INTERVAL %s TO %s: the first unit must be larger than the second",
                        rsql_interval_unit_name(uf), rsql_interval_unit_name(ut));
        return NULL;
    }
    int lead, frac;
    if (!precisions(p, from, to, uf, ut, &lead, &frac)) {
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
        rsql_sql__error(p, RSQL_ERR_SYNTAX, text_pos(text, off), "invalid INTERVAL '%s' %s%s%s: %s",
                        e->lit.s, rsql_interval_unit_name(uf), to ? " TO " : "",
                        to ? rsql_interval_unit_name(ut) : "", err.msg);
        return NULL;
    }
    if (!check_digits(p, text, e->lit.s, e->lit.s_len, uf, lead, frac)) {
        return NULL;
    }
    e->lit.kind = RSQL_LIT_INTERVAL;
    e->lit.i = ms;
    e->pos = rsql_sql__span(rsql_sql__tok_pos(kw), rsql_sql__tok_pos(to ? &to->last : &from->last));
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

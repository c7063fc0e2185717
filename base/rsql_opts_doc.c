/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The Markdown tables of docs/CONNECTORS.md, from the option rows.
 */
#include "config.h"
#include "base/rsql_opts.h"
#include "base/rsql_opts_int.h"

#include <stdint.h>

/* ---- docs */

static void md_text(rsql_buf_t *out, const char *s)
{
    for (; s && *s; s++) {
        if (*s == '|') {
            rsql_buf_puts(out, "\\|");
        } else if (*s == '\n') {
            rsql_buf_putc(out, ' ');
        } else {
            rsql_buf_putc(out, *s);
        }
    }
}

/* See rsql_opts.h. */
const char *rsql_opts_required_text(const rsql_opt_def_t *d)
{
    if (!(d->flags & RSQL_OPT_F_REQUIRED)) {
        return "no";
    }
    if (d->flags & RSQL_OPT_F_SOURCE) {
        return "to read";
    }
    return (d->flags & RSQL_OPT_F_SINK) ? "to write" : "yes";
}

/* See rsql_opts.h. */
void rsql_opts_facts(const rsql_opt_def_t *d, rsql_buf_t *out)
{
    if (d->type == RSQL_OPT_ENUM && d->enum_vals) {
        rsql_buf_puts(out, " One of:");
        for (const char *const *e = d->enum_vals; *e; e++) {
            rsql_buf_printf(out, "%s `%s`", e == d->enum_vals ? "" : ",", *e);
        }
        rsql_buf_puts(out, ".");
    }
    if (rsql_opts__has_range(d)) {
        char lo[32], hi[32];
        rsql_opts__range_text(d, d->vmin, lo, sizeof lo);
        rsql_opts__range_text(d, d->vmax, hi, sizeof hi);
        if (d->vmax == INT64_MAX) {
            rsql_buf_printf(out, " At least %s.", lo);
        } else if (d->vmin == INT64_MIN) {
            rsql_buf_printf(out, " At most %s.", hi);
        } else {
            rsql_buf_printf(out, " From %s to %s.", lo, hi);
        }
    }
    if (d->flags & RSQL_OPT_F_SECRET) {
        rsql_buf_puts(out, " Secret: shown as `******` (a reference as written).");
    }
    if (d->flags & RSQL_OPT_F_URL) {
        rsql_buf_puts(out, " Its password is shown as `******`.");
    }
    if (d->flags & RSQL_OPT_F_DEPRECATED) {
        rsql_buf_puts(out, " Deprecated.");
    }
}

/*
** Append a Markdown table of table's non-hidden rows to out: option, type,
** default, required, description (with enum values, ranges, secrecy).
*/
void rsql_opts_markdown(const rsql_opt_def_t *table, rsql_buf_t *out)
{
    rsql_buf_puts(out, "| option | type | default | required | description |\n");
    rsql_buf_puts(out, "|---|---|---|---|---|\n");
    for (const rsql_opt_def_t *d = table; d && d->name; d++) {
        if (d->flags & RSQL_OPT_F_HIDDEN) {
            continue;
        }
        rsql_buf_printf(out, "| `%s` | %s | ", d->name, rsql_opt_type_name(d->type));
        if (d->def && *d->def) {
            rsql_buf_puts(out, "`");
            md_text(out, d->def);
            rsql_buf_puts(out, "`");
        } else if (d->def) {
            rsql_buf_puts(out, "(empty)");
        }
        rsql_buf_printf(out, " | %s | ", rsql_opts_required_text(d));
        md_text(out, d->doc);
        rsql_opts_facts(d, out);
        rsql_buf_puts(out, " |\n");
    }
}

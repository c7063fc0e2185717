/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pg_rows: a PostgreSQL table's rows as rsql values, for the postgres connector's readers
 * (the source, pg_source.c, and the lookup, pg_lookup.c; pg_int.h): the check that the
 * table has every column, of a type that converts; the select list that asks for each
 * column's text in a form rsql_value_parse reads; and a result row into values.
 *
 * Values arrive as PostgreSQL's text, with BOOLEAN as true/false, BYTES as base64 and
 * TIMESTAMP(3) as UTC "YYYY-MM-DD HH:MM:SS.mmm" (the select list asks for these forms), and
 * are parsed by the one conversion module (rsql_value_parse). ROW, ARRAY and MAP columns are
 * read from jsonb or json columns (an ARRAY also from a PostgreSQL array such as int[] or
 * text[]): the select list gathers them into one JSON object per row,
 * json_build_object('col', "col", ...) (to_json makes a PostgreSQL array a JSON array), which
 * the json format's decoder (connectors/formats) reads into the columns by their full types.
 */
#include "config.h"
#include "base/rsql_value.h"
#include "connectors/formats/rsql_format.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/postgres/pgoutput.h"

#include <stdio.h>
#include <string.h>

/* The select-list expression of column c for type t: its text in a form rsql_value_parse reads. */
static void put_expr(rsql_buf_t *b, const char *c, rsql_type_t t)
{
    switch (t) {
    case RSQL_TYPE_ROW:
    case RSQL_TYPE_ARRAY:
    case RSQL_TYPE_MAP: rsql_buf_puts(b, "NULL::text"); break; /* in the JSON object */
    case RSQL_TYPE_TIMESTAMP:
        rsql_buf_puts(b, "to_char(");
        rsql_buf_quote_identn(b, c, strlen(c));
        rsql_buf_puts(b, "::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS')");
        break;
    case RSQL_TYPE_BYTES:
        rsql_buf_puts(b, "translate(encode(");
        rsql_buf_quote_identn(b, c, strlen(c));
        rsql_buf_puts(b, ", 'base64'), E'\\n', '')");
        break;
    default:
        rsql_buf_quote_identn(b, c, strlen(c));
        rsql_buf_puts(b, "::text");
        break;
    }
}

/*
** The text of a column (put_expr's) as a value of t. A DECIMAL (numeric's text, exact) is
** read at the text's own scale; the runtime brings it to the column's DECIMAL(p, s).
*/
static rsql_err_t parse_value(rsql_type_t t, const char *txt, size_t n, rsql_arena_t *arena,
                              rsql_value_t *out, rsql_error_t *err)
{
    if (t != RSQL_TYPE_DECIMAL) {
        return rsql_value_parse(t, txt, n, arena, out, err);
    }
    return rsql_pg__decimal_text(txt, n, out, err);
}

/* name as an SQL string literal ('...', quotes doubled), appended to b. */
static void put_literal(rsql_buf_t *b, const char *name)
{
    rsql_buf_putc(b, '\'');
    for (; *name; name++) {
        if (*name == '\'') {
            rsql_buf_putc(b, '\'');
        }
        rsql_buf_putc(b, *name);
    }
    rsql_buf_putc(b, '\'');
}

/* See pg_int.h. */
void rsql_pg__rows_deinit(rsql_pg_rows_t *rr)
{
    rsql_decoder_destroy(rr->dec);
    for (int i = 0; rr->names && i < rr->n; i++) {
        rsql_free(rr->names[i]);
    }
    rsql_free(rr->names);
    rsql_free(rr->types);
    rsql_free(rr->nested);
    rsql_free(rr->nested_row);
    memset(rr, 0, sizeof *rr);
}

/*
** The json format's decoder of the ROW/ARRAY/MAP columns' object (json_build_object's text,
** keyed by the column names), by the columns' full types.
*/
static rsql_err_t open_decoder(rsql_pg_rows_t *rr, const rsql_tdesc_t *const *descs,
                               const char *what, rsql_error_t *err)
{
    const char **names = rsql_calloc((size_t)rr->n_nested + 1, sizeof *names);
    rsql_type_t *types = rsql_calloc((size_t)rr->n_nested + 1, sizeof *types);
    rr->nested_row = rsql_calloc((size_t)rr->n_nested + 1, sizeof *rr->nested_row);
    if (!names || !types || !rr->nested_row) {
        rsql_free(names);
        rsql_free(types);
        return rsql_error_nomem(err);
    }
    for (int j = 0; j < rr->n_nested; j++) {
        names[j] = rr->names[rr->nested[j]];
        types[j] = rr->types[rr->nested[j]];
    }
    rr->dec = rsql_decoder_new("json", NULL, rr->n_nested, names, types, err);
    for (int j = 0; rr->dec && j < rr->n_nested; j++) {
        const rsql_tdesc_t *d = descs ? descs[rr->nested[j]] : NULL;
        if (!d) {
            rsql_decoder_destroy(rr->dec);
            rr->dec = NULL;
            rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                           "%s: column '%s' has no full type", what, names[j]);
            break;
        }
        rsql_decoder_set_desc(rr->dec, j, d);
    }
    rsql_free(names);
    rsql_free(types);
    return rr->dec ? RSQL_OK : (err && err->code ? err->code : RSQL_ERR_NOMEM);
}

/* See pg_int.h. */
rsql_err_t rsql_pg__rows_init(rsql_pg_rows_t *rr, int n, const char *const *names,
                              const rsql_type_t *types, const rsql_tdesc_t *const *descs,
                              const char *what, rsql_error_t *err)
{
    memset(rr, 0, sizeof *rr);
    rr->n = n;
    rr->names = rsql_calloc((size_t)n + 1, sizeof *rr->names);
    rr->types = rsql_calloc((size_t)n + 1, sizeof *rr->types);
    rr->nested = rsql_calloc((size_t)n + 1, sizeof *rr->nested);
    bool ok = rr->names && rr->types && rr->nested;
    for (int i = 0; ok && i < n; i++) {
        rr->types[i] = types[i];
        ok = (rr->names[i] = rsql_strdup(names[i])) != NULL;
        if (types[i] == RSQL_TYPE_ROW || types[i] == RSQL_TYPE_ARRAY ||
            types[i] == RSQL_TYPE_MAP) {
            rr->nested[rr->n_nested++] = i;
        }
    }
    if (!ok) {
        rsql_pg__rows_deinit(rr);
        return rsql_error_nomem(err);
    }
    rsql_err_t rc = rr->n_nested ? open_decoder(rr, descs, what, err) : RSQL_OK;
    if (rc != RSQL_OK) {
        rsql_pg__rows_deinit(rr);
    }
    return rc;
}

/* See pg_int.h. */
int rsql_pg__rows_select(const rsql_pg_rows_t *rr, rsql_buf_t *b)
{
    for (int i = 0; i < rr->n; i++) {
        put_expr(b, rr->names[i], rr->types[i]);
        rsql_buf_printf(b, " AS rsql_c%d%s", i, /* no output name shadows a column */
                        i + 1 < rr->n || rr->n_nested ? ", " : "");
    }
    /* the ROW/ARRAY/MAP columns as one JSON object, keyed by their names */
    for (int j = 0; j < rr->n_nested; j++) {
        const char *c = rr->names[rr->nested[j]];
        rsql_buf_puts(b, j ? ", " : "json_build_object(");
        put_literal(b, c);
        rsql_buf_puts(b, ", ");
        rsql_buf_quote_identn(b, c, strlen(c));
    }
    rsql_buf_puts(b, rr->n_nested ? ")::text AS rsql_nested" : "");
    return rr->n + (rr->n_nested ? 1 : 0);
}

/* See pg_int.h. */
rsql_err_t rsql_pg__rows_convert(rsql_pg_rows_t *rr, const PGresult *r, int t,
                                 rsql_arena_t *arena, rsql_value_t *row, rsql_error_t *bad)
{
    for (int i = 0; i < rr->n; i++) {
        memset(&row[i], 0, sizeof row[i]);
        row[i].type = rr->types[i];
        row[i].is_null = PQgetisnull(r, t, i);
        if (row[i].is_null || bad->code != RSQL_OK) {
            continue;
        }
        rsql_error_t e;
        rsql_error_clear(&e);
        if (parse_value(rr->types[i], PQgetvalue(r, t, i), (size_t)PQgetlength(r, t, i), arena,
                        &row[i], &e) != RSQL_OK) {
            if (e.code == RSQL_ERR_NOMEM) {
                rsql_error_clear(bad);
                return rsql_error_nomem(bad);
            }
            rsql_error_set(bad, RSQL_ERR_DECODE, RSQL_NOPOS, "column %d: %s", i + 1, e.msg);
        }
    }
    if (rr->dec && bad->code == RSQL_OK) { /* the ROW/ARRAY/MAP columns, from their object */
        rsql_error_t e;
        rsql_error_clear(&e);
        if (rsql_decode(rr->dec, (const uint8_t *)PQgetvalue(r, t, rr->n),
                        (size_t)PQgetlength(r, t, rr->n), arena, rr->nested_row,
                        &e) != RSQL_OK) {
            if (e.code == RSQL_ERR_NOMEM) {
                return rsql_error_nomem(bad);
            }
            rsql_error_set(bad, RSQL_ERR_DECODE, RSQL_NOPOS, "reading jsonb: %s", e.msg);
        }
        for (int j = 0; bad->code == RSQL_OK && j < rr->n_nested; j++) {
            row[rr->nested[j]] = rr->nested_row[j];
        }
    }
    return bad->code;
}

/* See pg_int.h. */
rsql_err_t rsql_pg__check_columns(PGconn *conn, const char *table, const rsql_pg_rows_t *rr,
                                  const char *inc_column, const char *what, char ***base_types,
                                  rsql_error_t *err)
{
    rsql_buf_t qt = RSQL_BUF_INIT;
    rsql_pg__quote_table(&qt, table);
    const char *param = rsql_buf_str(&qt);
    PGresult *r = PQexecParams(conn,
                               "SELECT a.attname, format_type(a.atttypid, a.atttypmod), "
                               "a.atttypid::regtype::text "
                               "FROM pg_attribute a WHERE a.attrelid = $1::regclass "
                               "AND a.attnum > 0 AND NOT a.attisdropped",
                               1, NULL, &param, NULL, NULL, 0);
    rsql_buf_deinit(&qt);
    rsql_err_t rc = RSQL_OK;
    if (!r || PQresultStatus(r) != PGRES_TUPLES_OK) {
        rc = rsql_pg__error(conn, r, err, "%s: cannot read the table's columns", what);
        PQclear(r);
        return rc;
    }
    if (base_types && !(*base_types = rsql_calloc((size_t)rr->n + 1, sizeof **base_types))) {
        PQclear(r);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i <= rr->n && rc == RSQL_OK; i++) {
        const char *name = i < rr->n ? rr->names[i] : inc_column;
        if (!name) {
            break;
        }
        int row = -1;
        for (int j = 0; j < PQntuples(r) && row < 0; j++) {
            row = strcmp(PQgetvalue(r, j, 0), name) == 0 ? j : -1;
        }
        if (row < 0) {
            rc = rsql_error_set(err, RSQL_ERR_NOT_FOUND, RSQL_NOPOS,
                                "%s: the table has no column '%s'", what, name);
            break;
        }
        const char *pg = PQgetvalue(r, row, 1);
        bool fits;
        if (i == rr->n) {
            fits = strcmp(pg, "bigint") == 0 || strcmp(pg, "integer") == 0 ||
                   strcmp(pg, "smallint") == 0;
        } else {
            fits = rsql_pg__type_fits(rr->types[i], pg, true);
        }
        if (!fits && i == rr->n) {
            rc = rsql_error_set(err, RSQL_ERR_TYPE, RSQL_NOPOS,
                                "%s: scan.incremental.column '%s' is %s in PostgreSQL, not an "
                                "integer",
                                what, name, pg);
        } else if (!fits) {
            rc = rsql_error_set(err, RSQL_ERR_TYPE, RSQL_NOPOS,
                                "%s: column '%s' is %s in PostgreSQL, which does not convert "
                                "to %s",
                                what, name, pg, rsql_type_name(rr->types[i]));
        } else if (base_types && i < rr->n &&
                   !((*base_types)[i] = rsql_strdup(PQgetvalue(r, row, 2)))) {
            rc = rsql_error_nomem(err);
        }
    }
    PQclear(r);
    if (rc != RSQL_OK && base_types && *base_types) {
        for (int i = 0; i < rr->n; i++) {
            rsql_free((*base_types)[i]);
        }
        rsql_free(*base_types);
        *base_types = NULL;
    }
    return rc;
}

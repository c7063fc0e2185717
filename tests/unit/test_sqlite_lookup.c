/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the sqlite lookup (connectors/sqlite/sqlite_lookup.c, rsql_lookup_ops_t):
 * a database made with the sqlite3 API, the lookup opened through the connector's
 * descriptor with a validated option set, and every key's rows compared with what a plain
 * SQLite query of the same database returns for it. Both sides are rendered as text here,
 * independently: the reference by SQL expressions (hex(), strftime(), printf('%.15g')), the
 * lookup's values by this file's own formatting (gmtime, hex), so a wrong conversion or a
 * wrong match shows as a difference. Rows of a key are compared as sorted lists (a lookup
 * may report them in any order). Hits, misses, duplicate keys in one call, a key with
 * several rows, a two-column key, a key of every type; and the errors: a missing file,
 * table or column (named), a value that does not convert (the column named), permanent; a
 * database another connection holds, transient.
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "base/rsql_opts.h"
#include "base/rsql_value.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NCOL 10
static const char *const col_names[NCOL] = {"id",    "region", "flag", "big", "score",
                                            "label", "data",   "ts",   "day", "amount"};
static const rsql_type_t col_types[NCOL] = {
    RSQL_TYPE_INT,  RSQL_TYPE_VARCHAR, RSQL_TYPE_BOOLEAN,   RSQL_TYPE_BIGINT, RSQL_TYPE_DOUBLE,
    RSQL_TYPE_VARCHAR, RSQL_TYPE_BYTES, RSQL_TYPE_TIMESTAMP, RSQL_TYPE_DATE,   RSQL_TYPE_DECIMAL};

/* The reference's text of each column: SQL over the stored value ("NULL" for NULL). */
static const char *const ref_expr[NCOL] = {
    "CAST(id AS TEXT)",
    "region",
    "CASE WHEN flag THEN 'true' ELSE 'false' END",
    "CAST(big AS TEXT)",
    "printf('%.15g', score)", /* SQLite's printf: at most 16 digits */
    "label",
    "hex(data)",
    "CASE typeof(ts) WHEN 'integer' THEN strftime('%Y-%m-%d %H:%M:%S', ts / 1000, "
    "'unixepoch') || printf('.%03d', ts % 1000) ELSE strftime('%Y-%m-%d %H:%M:%f', ts) END",
    "day",
    "amount",
};

static char dir[] = "/tmp/rsql-lookup-XXXXXX";
static char db_path[80];

static int suite_init(void)
{
    if (!mkdtemp(dir)) {
        return 1;
    }
    snprintf(db_path, sizeof db_path, "%s/dim.db", dir);
    sqlite3 *db = NULL;
    if (sqlite3_open(db_path, &db) != SQLITE_OK) {
        return 1;
    }
    /* declared types as the sqlite sink declares them (sqlite_sink.c's sql_type), but ts
       without one: it holds TEXT timestamps and INTEGER milliseconds (TEXT affinity would
       turn those into text) */
    const char *ddl =
        "CREATE TABLE dim(id INTEGER, region TEXT, flag INTEGER, big INTEGER, score REAL, "
        "label TEXT, data BLOB, ts, day TEXT, amount TEXT);"
        "CREATE INDEX dim_id ON dim(id);"
        "CREATE TABLE \"we\"\"ird\"(\"k\"\"ey\" INTEGER, v TEXT);"
        "INSERT INTO \"we\"\"ird\" VALUES (1, 'one'), (2, 'two');"
        "CREATE TABLE bad(id INTEGER, n TEXT);"
        "INSERT INTO bad VALUES (1, 'abc'), (2, '42');";
    int rc = sqlite3_exec(db, ddl, NULL, NULL, NULL);
    sqlite3_stmt *ins = NULL;
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(db, "INSERT INTO dim VALUES (?,?,?,?,?,?,?,?,?,?)", -1, &ins,
                                NULL);
    }
    /* the rows: id 1 once, id 2 three times (two regions), id 3 with NULLs, id 4 an INTEGER
       timestamp, id 5 awkward text */
    static const struct {
        int id;
        const char *region;
        int flag;
        long long big;
        double score;
        const char *label;
        const char *data; /* hex, NULL: NULL */
        const char *ts;   /* text, or "#<ms>" for INTEGER milliseconds */
        const char *day, *amount;
    } rows[] = {
        {1, "eu", 1, 10000000000LL, 2.5, "alpha", "00FF10", "2024-01-02 03:04:05.678",
         "2024-02-29", "12.50"},
        {2, "eu", 0, -1, 0.1, "beta", "", "1970-01-01 00:00:00.000", "1970-01-01", "-0.01"},
        {2, "us", 1, 9223372036854775807LL, -1e300, "gamma", "61", "2099-12-31 23:59:59.999",
         "1969-12-31", "99999999.99"},
        {2, "us", 0, 7, 3.0, "delta", "0102", "2000-06-15 12:00:00.001", "2000-06-15", "0"},
        {3, NULL, 0, 0, 0, NULL, NULL, NULL, NULL, NULL},
        {4, "ap", 1, 4, 4.25, "eps", "FFFF", "#1704164645678", "2024-01-02", "1.5"},
        {5, "o'br\\ien, {x}", 0, 5, 5.5, "\"q\"", "5C", "2001-01-01 00:00:00.000", "2001-01-01",
         "5"},
    };
    for (size_t r = 0; rc == SQLITE_OK && r < sizeof rows / sizeof rows[0]; r++) {
        sqlite3_reset(ins);
        sqlite3_clear_bindings(ins);
        sqlite3_bind_int(ins, 1, rows[r].id);
        if (rows[r].region) { /* id 3: NULL in every other column */
            sqlite3_bind_text(ins, 2, rows[r].region, -1, SQLITE_STATIC);
            sqlite3_bind_int(ins, 3, rows[r].flag);
            sqlite3_bind_int64(ins, 4, rows[r].big);
            sqlite3_bind_double(ins, 5, rows[r].score);
            sqlite3_bind_text(ins, 6, rows[r].label, -1, SQLITE_STATIC);
            unsigned char blob[16];
            size_t n = strlen(rows[r].data) / 2;
            for (size_t j = 0; j < n; j++) {
                unsigned x = 0;
                sscanf(rows[r].data + 2 * j, "%2x", &x);
                blob[j] = (unsigned char)x;
            }
            sqlite3_bind_blob(ins, 7, blob, (int)n, SQLITE_TRANSIENT);
            if (rows[r].ts[0] == '#') {
                sqlite3_bind_int64(ins, 8, strtoll(rows[r].ts + 1, NULL, 10));
            } else {
                sqlite3_bind_text(ins, 8, rows[r].ts, -1, SQLITE_STATIC);
            }
            sqlite3_bind_text(ins, 9, rows[r].day, -1, SQLITE_STATIC);
            sqlite3_bind_text(ins, 10, rows[r].amount, -1, SQLITE_STATIC);
        }
        rc = sqlite3_step(ins) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
    }
    sqlite3_finalize(ins);
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : 1;
}

static int suite_clean(void)
{
    char path[96];
    snprintf(path, sizeof path, "%s/dim.db", dir);
    unlink(path);
    rmdir(dir);
    return 0;
}

/* ---- rendering the lookup's values (this file's own formatting) */

static void put_value(rsql_buf_t *b, const rsql_value_t *v)
{
    if (v->is_null) {
        rsql_buf_puts(b, "NULL");
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(b, v->v.b ? "true" : "false"); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_printf(b, "%lld", (long long)v->v.i); break;
    case RSQL_TYPE_DOUBLE: rsql_buf_printf(b, "%.15g", v->v.d); break;
    case RSQL_TYPE_VARCHAR: rsql_buf_append(b, v->v.s.p, v->v.s.len); break;
    case RSQL_TYPE_BYTES:
        for (size_t i = 0; i < v->v.s.len; i++) {
            rsql_buf_printf(b, "%02X", (unsigned char)v->v.s.p[i]);
        }
        break;
    case RSQL_TYPE_TIMESTAMP:
    case RSQL_TYPE_DATE: {
        int64_t ms = v->type == RSQL_TYPE_DATE ? v->v.i * 86400000 : v->v.ts;
        int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
        time_t t = (time_t)secs;
        struct tm tm;
        gmtime_r(&t, &tm);
        char out[64];
        strftime(out, sizeof out, v->type == RSQL_TYPE_DATE ? "%Y-%m-%d" : "%Y-%m-%d %H:%M:%S",
                 &tm);
        rsql_buf_puts(b, out);
        if (v->type == RSQL_TYPE_TIMESTAMP) {
            rsql_buf_printf(b, ".%03d", (int)(ms - secs * 1000));
        }
        break;
    }
    default: rsql_value_format(v, b); break; /* DECIMAL: its exact digits */
    }
}

/* ---- what a lookup reports: per key, its rows as text */

#define MAXK 16
#define MAXR 16
typedef struct got {
    char *rows[MAXK][MAXR];
    int n[MAXK];
    int over;
} got_t;

static rsql_err_t collect(void *opaque, int key, const rsql_value_t *row)
{
    got_t *g = opaque;
    if (key < 0 || key >= MAXK || g->n[key] >= MAXR) {
        g->over++;
        return RSQL_OK;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    for (int c = 0; c < NCOL; c++) {
        if (c) {
            rsql_buf_putc(&b, '|');
        }
        put_value(&b, &row[c]);
    }
    g->rows[key][g->n[key]++] = rsql_strdup(rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return RSQL_OK;
}

static void got_free(got_t *g)
{
    for (int k = 0; k < MAXK; k++) {
        for (int r = 0; r < g->n[k]; r++) {
            rsql_free(g->rows[k][r]);
        }
    }
    memset(g, 0, sizeof *g);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The reference: the rows of `where` by a plain query, as text, into rows (sorted). */
static int reference(const char *where, char **rows, int max)
{
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    rsql_buf_t sql = RSQL_BUF_INIT;
    int n = 0;
    rsql_buf_puts(&sql, "SELECT ");
    for (int c = 0; c < NCOL; c++) {
        rsql_buf_printf(&sql, "%sCASE WHEN %s IS NULL THEN 'NULL' ELSE %s END", c ? " || '|' || " : "",
                        col_names[c], ref_expr[c]);
    }
    rsql_buf_printf(&sql, " FROM dim WHERE %s", where);
    CU_ASSERT_EQUAL_FATAL(sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    int rc = sqlite3_prepare_v2(db, rsql_buf_str(&sql), -1, &st, NULL);
    if (rc != SQLITE_OK) {
        fprintf(stderr, "\n  reference %s: %s\n", rsql_buf_str(&sql), sqlite3_errmsg(db));
    }
    CU_ASSERT_EQUAL_FATAL(rc, SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && n < max) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        rows[n++] = rsql_strdup(text ? text : "(a column's reference text is NULL)");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    rsql_buf_deinit(&sql);
    qsort(rows, (size_t)n, sizeof *rows, cmp_str);
    return n;
}

/* ---- opening */

static rsql_optset_t *opts_for(const char *path, const char *table)
{
    rsql_opt_kv_t kv[] = {{"connector", "sqlite", RSQL_NOPOS, RSQL_NOPOS},
                          {"path", path, RSQL_NOPOS, RSQL_NOPOS},
                          {"table", table, RSQL_NOPOS, RSQL_NOPOS}};
    const rsql_connector_def_t *def = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_optset_t *opts = rsql_connector_validate(kv, 3, col_names, NCOL, RSQL_NOPOS, &def, &err);
    CU_ASSERT_PTR_NOT_NULL(opts);
    return opts;
}

static rsql_err_t open_lookup(const char *path, const char *table, int n_columns,
                              const char *const *names, const rsql_type_t *types, int n_key,
                              const int *key_columns, rsql_lookup_t **lk, rsql_error_t *err)
{
    const rsql_connector_def_t *def = rsql_connector_find("sqlite");
    CU_ASSERT_PTR_NOT_NULL_FATAL(def);
    CU_ASSERT_PTR_NOT_NULL_FATAL(def->lookup);
    rsql_optset_t *opts = opts_for(path, table);
    if (!opts) {
        return RSQL_ERR_INTERNAL;
    }
    rsql_lookup_ctx_t ctx = {.table = "dims",
                             .opts = opts,
                             .conf = rsql_optset_conf(opts, RSQL_CONF_CONNECTOR),
                             .n_columns = n_columns,
                             .column_names = names,
                             .column_types = types,
                             .n_key = n_key,
                             .key_columns = key_columns};
    rsql_error_clear(err);
    rsql_err_t rc = def->lookup->open(&ctx, lk, err);
    rsql_optset_destroy(opts); /* borrowed for the open only */
    return rc;
}

/*
** Look up n keys (of n_key columns each) in dim and compare each key's rows with the
** reference query of wheres[i]. Returns the number of keys that differ.
*/
static int check_keys(int n_key, const int *key_columns, int n, const rsql_value_t *keys,
                      const char *const *wheres)
{
    rsql_lookup_t *lk = NULL;
    rsql_error_t err;
    rsql_err_t rc = open_lookup(db_path, "dim", NCOL, col_names, col_types, n_key, key_columns,
                                &lk, &err);
    if (rc != RSQL_OK) {
        fprintf(stderr, "\n  open: %s\n", err.msg);
    }
    CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
    const rsql_connector_def_t *def = rsql_connector_find("sqlite");
    static got_t g;
    int bad = 0;
    /* twice: a lookup leaves nothing behind that changes the next */
    for (int round = 0; round < 2; round++) {
        got_free(&g);
        rc = def->lookup->lookup(lk, n, keys, collect, &g, &err);
        if (rc != RSQL_OK) {
            fprintf(stderr, "\n  lookup: %s\n", err.msg);
        }
        CU_ASSERT_EQUAL(rc, RSQL_OK);
        CU_ASSERT_EQUAL(g.over, 0);
        for (int i = 0; i < n; i++) {
            char *want[MAXR];
            int m = reference(wheres[i], want, MAXR);
            qsort(g.rows[i], (size_t)g.n[i], sizeof(char *), cmp_str);
            bool same = m == g.n[i];
            for (int r = 0; same && r < m; r++) {
                same = strcmp(want[r], g.rows[i][r]) == 0;
            }
            if (!same) {
                bad++;
                fprintf(stderr, "\n  key %d (%s): want %d rows, got %d\n", i, wheres[i], m,
                        g.n[i]);
                for (int r = 0; r < m; r++) {
                    fprintf(stderr, "    want %s\n", want[r]);
                }
                for (int r = 0; r < g.n[i]; r++) {
                    fprintf(stderr, "    got  %s\n", g.rows[i][r]);
                }
            }
            for (int r = 0; r < m; r++) {
                rsql_free(want[r]);
            }
        }
    }
    got_free(&g);
    def->lookup->close(lk);
    return bad;
}

static rsql_value_t int_v(rsql_type_t t, int64_t x)
{
    rsql_value_t v = {.type = t};
    if (t == RSQL_TYPE_TIMESTAMP) {
        v.v.ts = x;
    } else if (t == RSQL_TYPE_BOOLEAN) {
        v.v.b = x != 0;
    } else {
        v.v.i = x;
    }
    return v;
}

static rsql_value_t str_v(rsql_type_t t, const char *s, size_t n)
{
    rsql_value_t v = {.type = t};
    v.v.s.p = s;
    v.v.s.len = n;
    return v;
}

/* One INT key: hits, a miss, a key with three rows, a duplicate key in the same call. */
static void test_lookup_int_key(void)
{
    static const int key[] = {0};
    rsql_value_t keys[] = {int_v(RSQL_TYPE_INT, 1), int_v(RSQL_TYPE_INT, 999),
                           int_v(RSQL_TYPE_INT, 2), int_v(RSQL_TYPE_INT, 1),
                           int_v(RSQL_TYPE_INT, 3), int_v(RSQL_TYPE_INT, 2)};
    static const char *const where[] = {"id = 1", "id = 999", "id = 2",
                                        "id = 1", "id = 3",   "id = 2"};
    CU_ASSERT_EQUAL(check_keys(1, key, 6, keys, where), 0);
    /* and the reference is not empty where it should not be (the comparison means something) */
    char *rows[MAXR];
    int m = reference("id = 2", rows, MAXR);
    CU_ASSERT_EQUAL(m, 3);
    for (int r = 0; r < m; r++) {
        rsql_free(rows[r]);
    }
}

/* A two-column key (id, region), its columns given in the other order than the table's. */
static void test_lookup_two_column_key(void)
{
    static const int key[] = {1, 0}; /* region, id */
    rsql_value_t keys[] = {
        str_v(RSQL_TYPE_VARCHAR, "us", 2), int_v(RSQL_TYPE_INT, 2),
        str_v(RSQL_TYPE_VARCHAR, "eu", 2), int_v(RSQL_TYPE_INT, 2),
        str_v(RSQL_TYPE_VARCHAR, "eu", 2), int_v(RSQL_TYPE_INT, 4), /* a miss: both exist */
        str_v(RSQL_TYPE_VARCHAR, "o'br\\ien, {x}", 13), int_v(RSQL_TYPE_INT, 5),
    };
    static const char *const where[] = {"region = 'us' AND id = 2", "region = 'eu' AND id = 2",
                                        "region = 'eu' AND id = 4",
                                        "region = 'o''br\\ien, {x}' AND id = 5"};
    CU_ASSERT_EQUAL(check_keys(2, key, 4, keys, where), 0);
}

/* A key of each type, each a hit and a miss. */
static void test_lookup_each_type(void)
{
    rsql_value_t dec_hit, dec_miss, dec_neg;
    int64_t day_hit = 0, day_miss = 0;
    CU_ASSERT_EQUAL_FATAL(rsql_value_parse_decimal("12.50", 5, 10, 2, &dec_hit, NULL), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(rsql_value_parse_decimal("12.51", 5, 10, 2, &dec_miss, NULL), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(rsql_value_parse_decimal("-0.01", 5, 10, 2, &dec_neg, NULL), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(rsql_value_parse_date("2024-02-29", 10, &day_hit, NULL), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(rsql_value_parse_date("2024-03-01", 10, &day_miss, NULL), RSQL_OK);
    rsql_value_t dbl = {.type = RSQL_TYPE_DOUBLE}, dbl2 = {.type = RSQL_TYPE_DOUBLE},
                 dbl_miss = {.type = RSQL_TYPE_DOUBLE};
    dbl.v.d = 2.5;
    dbl2.v.d = 0.1;
    dbl_miss.v.d = 0.30000000000000004;
    static const struct {
        int col;
        const char *where[3];
    } cases[] = {
        {2, {"flag = 1", "flag = 0", "flag = 1"}},
        {3, {"big = 10000000000", "big = 9223372036854775807", "big = 11"}},
        {4, {"score = 2.5", "score = 0.1", "score = 0.30000000000000004"}},
        {5, {"label = 'alpha'", "label = '\"q\"'", "label = 'zeta'"}},
        {6, {"data = X'00FF10'", "data = X''", "data = X'5C00'"}},
        {7, {"ts = '2024-01-02 03:04:05.678' OR ts = 1704164645678",
             "ts = '2099-12-31 23:59:59.999' OR ts = 4102444799999",
             "ts = '2024-01-02 03:04:05.679' OR ts = 1704164645679"}},
        {8, {"day = '2024-02-29'", "day = '2024-03-01'", "day = '2024-02-29'"}},
        {9, {"amount = '12.50'", "amount = '12.51'", "amount = '-0.01'"}},
    };
    rsql_value_t keys[][3] = {
        {int_v(RSQL_TYPE_BOOLEAN, 1), int_v(RSQL_TYPE_BOOLEAN, 0), int_v(RSQL_TYPE_BOOLEAN, 1)},
        {int_v(RSQL_TYPE_BIGINT, 10000000000LL), int_v(RSQL_TYPE_BIGINT, 9223372036854775807LL),
         int_v(RSQL_TYPE_BIGINT, 11)},
        {dbl, dbl2, dbl_miss},
        {str_v(RSQL_TYPE_VARCHAR, "alpha", 5), str_v(RSQL_TYPE_VARCHAR, "\"q\"", 3),
         str_v(RSQL_TYPE_VARCHAR, "zeta", 4)},
        {str_v(RSQL_TYPE_BYTES, "\x00\xff\x10", 3), str_v(RSQL_TYPE_BYTES, "", 0),
         str_v(RSQL_TYPE_BYTES, "\\\x00", 2)},
        /* a TEXT timestamp, then the INTEGER milliseconds of id 4 (the same instant) */
        {int_v(RSQL_TYPE_TIMESTAMP, 1704164645678LL), int_v(RSQL_TYPE_TIMESTAMP, 4102444799999LL),
         int_v(RSQL_TYPE_TIMESTAMP, 1704164645679LL)},
        {int_v(RSQL_TYPE_DATE, day_hit), int_v(RSQL_TYPE_DATE, day_miss),
         int_v(RSQL_TYPE_DATE, day_hit)},
        {dec_hit, dec_miss, dec_neg},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int key[] = {cases[c].col};
        int bad = check_keys(1, key, 3, keys[c], cases[c].where);
        if (bad) {
            fprintf(stderr, "\n  key column %s\n", col_names[cases[c].col]);
        }
        CU_ASSERT_EQUAL(bad, 0);
    }
    /* the INTEGER timestamp is found by its instant too */
    char *rows[MAXR];
    int m = reference("ts = 1704164645678", rows, MAXR);
    CU_ASSERT_EQUAL(m, 1);
    for (int r = 0; r < m; r++) {
        rsql_free(rows[r]);
    }
}

/* Two columns' rows: "<BIGINT or INT>=<VARCHAR or INT>" per row, joined by ';' per key. */
typedef struct pairs {
    char text[4][128];
} pairs_t;

static rsql_err_t collect_pair(void *opaque, int key, const rsql_value_t *row)
{
    pairs_t *p = opaque;
    if (key < 0 || key >= 4) {
        return RSQL_ERR_INTERNAL;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, p->text[key]);
    put_value(&b, &row[0]);
    rsql_buf_putc(&b, '=');
    put_value(&b, &row[1]);
    rsql_buf_putc(&b, ';');
    snprintf(p->text[key], sizeof p->text[key], "%s", rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return RSQL_OK;
}

/* Identifiers are quoted: a table and a column with a double quote in their names. */
static void test_lookup_quoted_names(void)
{
    static const char *const names[] = {"k\"ey", "v"};
    static const rsql_type_t types[] = {RSQL_TYPE_BIGINT, RSQL_TYPE_VARCHAR};
    static const int key[] = {0};
    rsql_lookup_t *lk = NULL;
    rsql_error_t err;
    rsql_err_t rc = open_lookup(db_path, "we\"ird", 2, names, types, 1, key, &lk, &err);
    if (rc != RSQL_OK) {
        fprintf(stderr, "\n  open: %s\n", err.msg);
    }
    CU_ASSERT_EQUAL_FATAL(rc, RSQL_OK);
    rsql_value_t keys[] = {int_v(RSQL_TYPE_BIGINT, 2), int_v(RSQL_TYPE_BIGINT, 7)};
    pairs_t p;
    memset(&p, 0, sizeof p);
    const rsql_connector_def_t *def = rsql_connector_find("sqlite");
    CU_ASSERT_EQUAL(def->lookup->lookup(lk, 2, keys, collect_pair, &p, &err), RSQL_OK);
    CU_ASSERT_STRING_EQUAL(p.text[0], "2=two;");
    CU_ASSERT_STRING_EQUAL(p.text[1], "");
    def->lookup->close(lk);
}

/* The errors of open: a missing file, table, column, each named; NOT_FOUND, permanent. */
static void test_lookup_open_errors(void)
{
    static const int key[] = {0};
    rsql_lookup_t *lk = NULL;
    rsql_error_t err;
    char missing[128];
    snprintf(missing, sizeof missing, "%s/nope.db", dir);
    rsql_err_t rc = open_lookup(missing, "dim", NCOL, col_names, col_types, 1, key, &lk, &err);
    CU_ASSERT_NOT_EQUAL(rc, RSQL_OK);
    CU_ASSERT_FALSE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sqlite lookup dims"));

    rc = open_lookup(db_path, "nosuch", NCOL, col_names, col_types, 1, key, &lk, &err);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_NOT_FOUND);
    CU_ASSERT_FALSE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no table 'nosuch'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sqlite lookup dims"));

    static const char *const names[] = {"id", "region", "colour"};
    static const rsql_type_t types[] = {RSQL_TYPE_INT, RSQL_TYPE_VARCHAR, RSQL_TYPE_VARCHAR};
    rc = open_lookup(db_path, "dim", 3, names, types, 1, key, &lk, &err);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "has no column 'colour'"));
    if (!strstr(err.msg, "has no column 'colour'")) {
        fprintf(stderr, "\n  got: %s\n", err.msg);
    }
}

/* A stored value that does not convert fails the lookup, permanently, naming the column. */
static void test_lookup_bad_value(void)
{
    static const char *const names[] = {"id", "n"};
    static const rsql_type_t types[] = {RSQL_TYPE_INT, RSQL_TYPE_INT};
    static const int key[] = {0};
    rsql_lookup_t *lk = NULL;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(open_lookup(db_path, "bad", 2, names, types, 1, key, &lk, &err),
                          RSQL_OK);
    const rsql_connector_def_t *def = rsql_connector_find("sqlite");
    rsql_value_t keys[] = {int_v(RSQL_TYPE_INT, 2), int_v(RSQL_TYPE_INT, 1)};
    pairs_t p;
    memset(&p, 0, sizeof p);
    rsql_error_clear(&err);
    rsql_err_t rc = def->lookup->lookup(lk, 2, keys, collect_pair, &p, &err);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE); /* the first key's row is fine, then 'abc' */
    CU_ASSERT_STRING_EQUAL(p.text[0], "2=42;");
    CU_ASSERT_FALSE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 'n'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sqlite lookup dims"));
    def->lookup->close(lk);
}

/*
** A writer holding the database (BEGIN EXCLUSIVE, rollback journal) makes a lookup fail BUSY,
** transient, after its busy timeout; once the writer is gone the same lookup finds the rows.
*/
static void test_lookup_busy_transient(void)
{
    static const int key[] = {0};
    rsql_lookup_t *lk = NULL;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(open_lookup(db_path, "dim", NCOL, col_names, col_types, 1, key, &lk,
                                      &err),
                          RSQL_OK);
    const rsql_connector_def_t *def = rsql_connector_find("sqlite");
    sqlite3 *writer = NULL;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(db_path, &writer), SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_exec(writer, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
    rsql_value_t keys[] = {int_v(RSQL_TYPE_INT, 2)};
    static got_t g;
    rsql_error_clear(&err);
    rsql_err_t rc = def->lookup->lookup(lk, 1, keys, collect, &g, &err);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_BUSY);
    CU_ASSERT_TRUE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "sqlite lookup dims"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "locked"));
    CU_ASSERT_EQUAL(sqlite3_exec(writer, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(writer);
    got_free(&g);
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(def->lookup->lookup(lk, 1, keys, collect, &g, &err), RSQL_OK);
    CU_ASSERT_EQUAL(g.n[0], 3);
    got_free(&g);
    def->lookup->close(lk);
}

static CU_TestInfo lookup_tests[] = {
    {"test_lookup_int_key", test_lookup_int_key},
    {"test_lookup_two_column_key", test_lookup_two_column_key},
    {"test_lookup_each_type", test_lookup_each_type},
    {"test_lookup_quoted_names", test_lookup_quoted_names},
    {"test_lookup_open_errors", test_lookup_open_errors},
    {"test_lookup_bad_value", test_lookup_bad_value},
    {"test_lookup_busy_transient", test_lookup_busy_transient},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"sqlite_lookup", suite_init, suite_clean, NULL, NULL, lookup_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * test_pgcdc_opts: the postgres-cdc connector without a server: its options (validation,
 * errors with their positions, the configuration they make: the url from hostname, port and
 * database-name, the publication's default name), its semantics (bounded, changelog mode,
 * secrets; truncate.mode 'apply', schema-change.mode 'follow'), and the conversion of
 * pgoutput values into the rocketsql columns' types, the column map when a table's
 * definition changes, and the key comparison of an update (pgcdc_rows.c).
 */
#include "config.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"
#include "connectors/postgres/pgcdc_conf.h"
#include "connectors/postgres/pgcdc_int.h"
#include "connectors/rsql_connector.h"

#include <CUnit/CUnit.h>
#include <stdio.h>
#include <string.h>

#include "tests/lib/cu_opts.h"

/* Validate key, value, ..., NULL for a table of columns id, v (cu_opts.h's offsets). */
static rsql_optset_t *with(const char *const *kv, rsql_error_t *err)
{
    static const char *const cols[] = {"id", "v"};
    return cu_opts_validate(kv, cols, 2, 0, NULL, err);
}

static void expect_fail(const char *const *kv, rsql_err_t code, const char *msg, uint32_t off)
{
    rsql_error_t err;
    rsql_optset_t *set = with(kv, &err);
    cu_opts_failed(set, &err, code, msg, off);
}

#define BASE "connector", "postgres-cdc", "schema-name", "public", "table-name", "orders"

static void test_pgcdc_hostname(void)
{
    const char *kv[] = {BASE, "hostname", "db.example", "port", "5433", "database-name",
                        "shop", "slot.name", "s1", "password", "pw", NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    const rsql_pgcdc_conf_t *c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_STRING_EQUAL(c->pg.url, "host='db.example' port='5433' dbname='shop'");
    CU_ASSERT_STRING_EQUAL(c->pg.password, "pw");
    CU_ASSERT_STRING_EQUAL(c->slot, "s1");
    CU_ASSERT_STRING_EQUAL(c->publication, "rsql_s1");
    CU_ASSERT_EQUAL(c->startup, RSQL_PGCDC_INITIAL);
    CU_ASSERT_EQUAL(c->changelog, RSQL_PGCDC_ALL);
    CU_ASSERT_EQUAL(c->heartbeat_ms, 30000);
    CU_ASSERT_EQUAL(c->status_ms, 10000);
    CU_ASSERT_EQUAL(c->truncate_mode, RSQL_PGCDC_TRUNC_FAIL);
    CU_ASSERT_EQUAL(c->schema_change, RSQL_PGCDC_SCHEMA_FAIL);
    const rsql_connector_def_t *d = rsql_connector_find("postgres-cdc");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_TRUE(rsql_connector_is_secret(d, "password"));
    CU_ASSERT_FALSE(rsql_connector_is_secret(d, "slot.name"));
    const char *why = NULL;
    CU_ASSERT_FALSE(d->bounded(c, &why));
    CU_ASSERT_EQUAL(d->produces_changes(c), RSQL_MODE_FULL);
    CU_ASSERT_PTR_NULL(d->produces_clears(c)); /* truncate.mode 'fail' */
    CU_ASSERT_EQUAL(d->caps, RSQL_CAP_SOURCE);
    rsql_optset_destroy(set);

    /* quotes and backslashes in a value stay in it */
    const char *q[] = {BASE, "hostname", "h'o\\st", "database-name", "d b", "slot.name", "s",
                       NULL};
    set = with(q, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_STRING_EQUAL(c->pg.url, "host='h\\'o\\\\st' port='5432' dbname='d b'");
    rsql_optset_destroy(set);
}

static void test_pgcdc_url(void)
{
    /* neither url nor hostname: libpq's defaults (an empty connection string) */
    const char *none[] = {BASE, "slot.name", "s0", NULL};
    rsql_error_t e0;
    rsql_optset_t *s0 = with(none, &e0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s0);
    const rsql_pgcdc_conf_t *c0 = rsql_optset_conf(s0, RSQL_CONF_CONNECTOR);
    CU_ASSERT_STRING_EQUAL(c0->pg.url, "");
    rsql_optset_destroy(s0);
    const char *db[] = {BASE, "slot.name", "s0", "database-name", "shop", NULL};
    s0 = with(db, &e0);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s0);
    c0 = rsql_optset_conf(s0, RSQL_CONF_CONNECTOR);
    CU_ASSERT_STRING_EQUAL(c0->pg.url, "dbname='shop'");
    rsql_optset_destroy(s0);

    const char *kv[] = {BASE, "url", "postgresql://u@127.0.0.1:5432/db", "slot.name", "s2",
                        "publication.name", "mine", "scan.startup.mode", "snapshot",
                        "changelog-mode", "upsert", "heartbeat.interval.ms", "5s",
                        "truncate.mode", "skip", NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    const rsql_pgcdc_conf_t *c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_STRING_EQUAL(c->pg.url, "postgresql://u@127.0.0.1:5432/db");
    CU_ASSERT_STRING_EQUAL(c->publication, "mine");
    CU_ASSERT_EQUAL(c->startup, RSQL_PGCDC_SNAPSHOT);
    CU_ASSERT_EQUAL(c->heartbeat_ms, 5000);
    CU_ASSERT_EQUAL(c->truncate_mode, RSQL_PGCDC_TRUNC_SKIP);
    const rsql_connector_def_t *d = rsql_connector_find("postgres-cdc");
    const char *why = NULL;
    CU_ASSERT_TRUE(d->bounded(c, &why));
    CU_ASSERT_EQUAL(d->produces_changes(c), RSQL_MODE_APPEND); /* the snapshot's +I only */
    CU_ASSERT_PTR_NULL(d->produces_clears(c));
    rsql_optset_destroy(set);
}

/* truncate.mode 'apply' and schema-change.mode 'follow'. */
static void test_pgcdc_apply_follow(void)
{
    const char *kv[] = {BASE, "url", "db", "slot.name", "s", "truncate.mode", "apply",
                        "schema-change.mode", "follow", NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(kv, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    const rsql_pgcdc_conf_t *c = rsql_optset_conf(set, RSQL_CONF_CONNECTOR);
    CU_ASSERT_EQUAL(c->truncate_mode, RSQL_PGCDC_TRUNC_APPLY);
    CU_ASSERT_EQUAL(c->schema_change, RSQL_PGCDC_SCHEMA_FOLLOW);
    const rsql_connector_def_t *d = rsql_connector_find("postgres-cdc");
    CU_ASSERT_PTR_NOT_NULL_FATAL(d->produces_clears);
    const char *why = d->produces_clears(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(why);
    CU_ASSERT_STRING_EQUAL(why, "truncate.mode 'apply'");
    rsql_optset_destroy(set);
    /* 'snapshot' reads no TRUNCATE: nothing to clear */
    const char *snap[] = {BASE, "url", "db", "slot.name", "s", "truncate.mode", "apply",
                          "scan.startup.mode", "snapshot", NULL};
    set = with(snap, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(set);
    CU_ASSERT_PTR_NULL(d->produces_clears(rsql_optset_conf(set, RSQL_CONF_CONNECTOR)));
    rsql_optset_destroy(set);
    const char *bad_t[] = {BASE, "url", "db", "slot.name", "s", "truncate.mode", "cascade",
                           NULL};
    expect_fail(bad_t, RSQL_ERR_BAD_OPTION,
                "invalid value 'cascade' for option 'truncate.mode': expected one of fail, "
                "skip, apply",
                550);
    const char *bad_s[] = {BASE, "url", "db", "slot.name", "s", "schema-change.mode",
                           "evolve", NULL};
    expect_fail(bad_s, RSQL_ERR_BAD_OPTION,
                "invalid value 'evolve' for option 'schema-change.mode': expected one of "
                "fail, follow",
                550);
}

static void test_pgcdc_errors(void)
{
    const char *plugin[] = {BASE, "url", "db", "slot.name", "s", "decoding.plugin.name",
                            "decoderbufs", NULL};
    expect_fail(plugin, RSQL_ERR_BAD_OPTION,
                "invalid value 'decoderbufs' for option 'decoding.plugin.name': expected one "
                "of pgoutput",
                550);
    const char *noslot[] = {BASE, "url", "db", NULL};
    expect_fail(noslot, RSQL_ERR_MISSING_OPTION, "missing required option 'slot.name' for connector 'postgres-cdc'", 7);
    const char *dbport[] = {BASE, "slot.name", "s", "url", "db", "port", "5", NULL};
    expect_fail(dbport, RSQL_ERR_BAD_OPTION, "options 'url' and 'port' cannot be used together",
                500);
    const char *both[] = {BASE, "slot.name", "s", "url", "db", "hostname", "h", NULL};
    expect_fail(both, RSQL_ERR_BAD_OPTION,
                "options 'url' and 'hostname' cannot be used together", 500);
    const char *mode[] = {BASE, "url", "db", "slot.name", "s", "scan.startup.mode",
                          "earliest-offset", NULL};
    expect_fail(mode, RSQL_ERR_BAD_OPTION,
                "invalid value 'earliest-offset' for option 'scan.startup.mode': expected one "
                "of initial, latest-offset, snapshot",
                550);
    const char *toast[] = {BASE, "url", "db", "slot.name", "s", "toast.unchanged", "keep",
                           NULL};
    expect_fail(toast, RSQL_ERR_BAD_OPTION,
                "invalid value 'keep' for option 'toast.unchanged': expected one of fail", 550);
    const char *slot_case[] = {BASE, "url", "db", "slot.name", "Orders_Slot", NULL};
    expect_fail(slot_case, RSQL_ERR_BAD_OPTION,
                "option 'slot.name': 'Orders_Slot' is not a replication slot name: character 1 "
                "('O') is not a lower-case letter, a digit or an underscore",
                450);
    const char *slot_long[] = {BASE, "url", "db", "slot.name",
                               "s123456789012345678901234567890123456789012345678901234567890123",
                               NULL};
    expect_fail(slot_long, RSQL_ERR_BAD_OPTION,
                "option 'slot.name': a replication slot name has 1 to 63 characters, not 64",
                450);
    const char *port[] = {BASE, "hostname", "h", "database-name", "d", "slot.name", "s",
                          "port", "70000", NULL};
    rsql_error_t err;
    rsql_optset_t *set = with(port, &err);
    CU_ASSERT_PTR_NULL(set);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_BAD_OPTION);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'port'"));
}

/* A text datum of s. */
static rsql_pgoutput_datum_t text(const char *s)
{
    return (rsql_pgoutput_datum_t){'t', (const uint8_t *)s, (uint32_t)strlen(s)};
}

static void test_pgcdc_values(void)
{
    rsql_arena_t *a = rsql_arena_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    rsql_pgoutput_col_t i4 = {"n", 0, 23, -1}, b = {"b", 0, 16, -1}, num = {"d", 0, 1700, -1};
    rsql_value_t v;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_pgoutput_datum_t d = text("42");
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&i4, &d, RSQL_TYPE_BIGINT, a, &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_BIGINT);
    CU_ASSERT_EQUAL(v.v.i, 42);
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&i4, &d, RSQL_TYPE_DOUBLE, a, &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_DOUBLE);
    CU_ASSERT_DOUBLE_EQUAL(v.v.d, 42.0, 1e-9);
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&i4, &d, RSQL_TYPE_DECIMAL, a, &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_DECIMAL);
    d = text("t");
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&b, &d, RSQL_TYPE_VARCHAR, a, &v, &err), RSQL_OK);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_VARCHAR);
    CU_ASSERT_EQUAL(v.v.s.len, 1);
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&b, &d, RSQL_TYPE_BOOLEAN, a, &v, &err), RSQL_OK);
    CU_ASSERT_TRUE(v.v.b);
    rsql_pgoutput_datum_t null = {'n', NULL, 0};
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&num, &null, RSQL_TYPE_DECIMAL, a, &v, &err), RSQL_OK);
    CU_ASSERT_TRUE(v.is_null);
    CU_ASSERT_EQUAL(v.type, RSQL_TYPE_DECIMAL);
    /* a numeric into a BOOLEAN column does not convert: the column is named */
    d = text("1.5");
    CU_ASSERT_EQUAL(rsql_pgcdc_value(&num, &d, RSQL_TYPE_BOOLEAN, a, &v, &err), RSQL_ERR_TYPE);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 'd'"));
    /* an integer's text that does not read names the column too */
    rsql_error_clear(&err);
    d = text("4x");
    CU_ASSERT_NOT_EQUAL(rsql_pgcdc_value(&i4, &d, RSQL_TYPE_INT, a, &v, &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "'n'"));
    rsql_arena_destroy(a);
}

static void test_pgcdc_key_changed(void)
{
    rsql_pgoutput_col_t cols[2] = {{"id", RSQL_PGOUTPUT_COL_KEY, 23, -1}, {"v", 0, 25, -1}};
    rsql_pgoutput_rel_t rel = {1, "s", "t", 'd', 2, cols};
    rsql_pgoutput_datum_t o[2] = {text("1"), text("a")}, same[2] = {text("1"), text("b")},
                          moved[2] = {text("2"), text("a")};
    rsql_pgoutput_row_t ro = {RSQL_ROW_UPDATE_BEFORE, false, 0, 0, o};
    rsql_pgoutput_row_t rs = {RSQL_ROW_UPDATE_AFTER, false, 0, 0, same};
    rsql_pgoutput_row_t rm = {RSQL_ROW_UPDATE_AFTER, false, 0, 0, moved};
    int pk[1] = {0};
    rsql_pgcdc_map_t by_pk = {.n_pk = 1, .pk = pk};
    rsql_pgcdc_map_t by_identity = {.n_pk = 0};
    CU_ASSERT_FALSE(rsql_pgcdc_key_changed(&by_pk, &rel, &ro, &rs));
    CU_ASSERT_TRUE(rsql_pgcdc_key_changed(&by_pk, &rel, &ro, &rm));
    CU_ASSERT_FALSE(rsql_pgcdc_key_changed(&by_identity, &rel, &ro, &rs));
    CU_ASSERT_TRUE(rsql_pgcdc_key_changed(&by_identity, &rel, &ro, &rm));
}

/* The column map under schema-change.mode 'fail' and 'follow' (pgcdc_rows.c). */
static void test_pgcdc_map_follow(void)
{
    rsql_pgcdc_table_t t = {.oid = 7, .schema = "s", .name = "t", .n_pk = 0};
    const char *names[] = {"id", "v", "n"};
    rsql_type_t types[] = {RSQL_TYPE_BIGINT, RSQL_TYPE_VARCHAR, RSQL_TYPE_BIGINT};
    bool required[] = {true, false, false};
    rsql_pgcdc_follow_t follow = {types, required};
    rsql_pgoutput_col_t c0[3] = {{"id", RSQL_PGOUTPUT_COL_KEY, 23, -1}, {"v", 0, 25, -1},
                                 {"n", 0, 23, -1}};
    rsql_pgoutput_rel_t r0 = {7, "s", "t", 'd', 3, c0};
    /* v dropped, w added, n int -> bigint */
    rsql_pgoutput_col_t c1[3] = {{"id", RSQL_PGOUTPUT_COL_KEY, 23, -1}, {"n", 0, 20, -1},
                                 {"w", 0, 25, -1}};
    rsql_pgoutput_rel_t r1 = {7, "s", "t", 'd', 3, c1};
    /* n int -> text: VARCHAR does not convert to BIGINT */
    rsql_pgoutput_col_t c2[3] = {{"id", RSQL_PGOUTPUT_COL_KEY, 23, -1}, {"v", 0, 25, -1},
                                 {"n", 0, 25, -1}};
    rsql_pgoutput_rel_t r2 = {7, "s", "t", 'd', 3, c2};
    /* id dropped: the rocketsql table requires it */
    rsql_pgoutput_col_t c3[2] = {{"v", 0, 25, -1}, {"n", 0, 23, -1}};
    rsql_pgoutput_rel_t r3 = {7, "s", "t", 'd', 2, c3};
    rsql_error_t err;
    rsql_error_clear(&err);

    rsql_pgcdc_map_t m = {0};
    CU_ASSERT_EQUAL_FATAL(rsql_pgcdc_map(&m, &r0, &t, 3, names, NULL, NULL, "src", &err), RSQL_OK);
    CU_ASSERT_EQUAL(m.col[1], 1);
    /* 'fail': the drop is the job's error, m unchanged */
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&m, &r1, &t, 3, names, NULL, NULL, "src", &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "table s.t changed while the job ran: column 'v'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "schema-change.mode 'follow'"));
    CU_ASSERT_EQUAL(m.col[1], 1);
    /* 'fail': a retype too */
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&m, &r2, &t, 3, names, NULL, NULL, "src", &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 'n', which the job reads, changed its type"));

    /* 'follow': v reads as NULL, n by its new type (int8 reads as BIGINT) */
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL_FATAL(rsql_pgcdc_map(&m, &r1, &t, 3, names, NULL, &follow, "src", &err),
                          RSQL_OK);
    CU_ASSERT_EQUAL(m.col[0], 0);
    CU_ASSERT_EQUAL(m.col[1], RSQL_PGCDC_COL_GONE);
    CU_ASSERT_EQUAL(m.col[2], 1);
    CU_ASSERT_EQUAL(m.type_oid[2], 20);
    CU_ASSERT_EQUAL(m.type_oid[1], 0);
    /* again (the same definition sent again): still gone, no error */
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&m, &r1, &t, 3, names, NULL, &follow, "src", &err), RSQL_OK);
    CU_ASSERT_EQUAL(m.col[1], RSQL_PGCDC_COL_GONE);
    /* 'follow': a retype that does not convert is still the error, naming both types */
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&m, &r2, &t, 3, names, NULL, &follow, "src", &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "its values (VARCHAR) do not convert to the "
                                           "column's BIGINT"));
    CU_ASSERT_EQUAL(m.col[2], 1); /* unchanged */
    /* 'follow': a required column dropped is still the error */
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&m, &r3, &t, 3, names, NULL, &follow, "src", &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "column 'id'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "NOT NULL or in its PRIMARY KEY"));
    rsql_pgcdc_map_free(&m);

    /* a first mapping that lacks a read column (a run started after the drop): the error
       under 'fail', NULL under 'follow' */
    rsql_pgcdc_map_t f = {0};
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&f, &r1, &t, 3, names, NULL, NULL, "src", &err),
                    RSQL_ERR_SEMANTIC);
    CU_ASSERT_PTR_NULL(f.col);
    CU_ASSERT_EQUAL(rsql_pgcdc_map(&f, &r1, &t, 3, names, NULL, &follow, "src", &err), RSQL_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.col);
    CU_ASSERT_EQUAL(f.col[1], RSQL_PGCDC_COL_GONE);
    rsql_pgcdc_map_free(&f);

    CU_ASSERT_TRUE(rsql_pgcdc_converts(23, RSQL_TYPE_BIGINT));
    CU_ASSERT_TRUE(rsql_pgcdc_converts(20, RSQL_TYPE_DECIMAL));
    CU_ASSERT_TRUE(rsql_pgcdc_converts(1700, RSQL_TYPE_VARCHAR));
    CU_ASSERT_FALSE(rsql_pgcdc_converts(20, RSQL_TYPE_INT)); /* bigint into INT may not fit */
    CU_ASSERT_FALSE(rsql_pgcdc_converts(25, RSQL_TYPE_BIGINT));
}

static CU_TestInfo pgcdc_tests[] = {{"apply_follow", test_pgcdc_apply_follow},
                                    {"map_follow", test_pgcdc_map_follow},{"hostname", test_pgcdc_hostname},
                                    {"url", test_pgcdc_url},
                                    {"errors", test_pgcdc_errors},
                                    {"values", test_pgcdc_values},
                                    {"key_changed", test_pgcdc_key_changed},
                                    CU_TEST_INFO_NULL};
static CU_SuiteInfo suites[] = {{"pgcdc_opts", NULL, NULL, NULL, NULL, pgcdc_tests},
                                CU_SUITE_INFO_NULL};
#include "tests/lib/cu_main.h"

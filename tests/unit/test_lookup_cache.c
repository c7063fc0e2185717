/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of the lookup join's partial cache (engine/rt_lookup_cache.c): a property test
 * that runs random gets and puts (keys of an INT and a VARCHAR, 0 to 3 rows of an INT, a
 * VARCHAR and a DECIMAL each, the clock moving on) against a model kept here as a plain list
 * in order of use, under several bounds and expiry settings, and compares every answer (hit
 * or miss, the rows' values) and the rows and keys held after every step; then the keys that
 * are the same whatever their form (DECIMAL scales, -0.0 and 0.0), the ones never held (NULL,
 * NaN), and that an entry holds its own copy of the bytes it was given.
 */
#include "config.h"
#include "base/rsql_value.h"
#include "engine/rt_lookup_cache.h"

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NCOL 3
#define MAXROWS 3

/* The model's entry: a key (an int and a short text) and its rows as ints. */
typedef struct mentry {
    int k1;
    char k2[8];
    int n;
    int rows[MAXROWS];
    int64_t written, accessed;
} mentry_t;

typedef struct model {
    mentry_t e[4096]; /* e[0] is the most recently used */
    int n;
    int64_t rows;
    rsql_lookup_conf_t conf;
} model_t;

static int64_t weight(const mentry_t *e)
{
    return e->n ? e->n : 1;
}

static void m_remove(model_t *m, int i)
{
    m->rows -= weight(&m->e[i]);
    memmove(&m->e[i], &m->e[i + 1], (size_t)(m->n - i - 1) * sizeof m->e[0]);
    m->n--;
}

static int m_find(const model_t *m, int k1, const char *k2)
{
    for (int i = 0; i < m->n; i++) {
        if (m->e[i].k1 == k1 && strcmp(m->e[i].k2, k2) == 0) {
            return i;
        }
    }
    return -1;
}

static bool m_expired(const model_t *m, const mentry_t *e, int64_t now)
{
    return (m->conf.expire_after_write_ms && now - e->written >= m->conf.expire_after_write_ms) ||
           (m->conf.expire_after_access_ms && now - e->accessed >= m->conf.expire_after_access_ms);
}

/* A hit: its index, moved to the front (0). -1: a miss. */
static int m_get(model_t *m, int k1, const char *k2, int64_t now)
{
    int i = m_find(m, k1, k2);
    if (i < 0) {
        return -1;
    }
    if (m_expired(m, &m->e[i], now)) {
        m_remove(m, i);
        return -1;
    }
    mentry_t e = m->e[i];
    e.accessed = now;
    memmove(&m->e[1], &m->e[0], (size_t)i * sizeof m->e[0]);
    m->e[0] = e;
    return 0;
}

static void m_put(model_t *m, int k1, const char *k2, const int *rows, int n, int64_t now)
{
    int i = m_find(m, k1, k2);
    if (i >= 0) {
        m_remove(m, i);
    }
    if (n == 0 && !m->conf.cache_missing) {
        return;
    }
    memmove(&m->e[1], &m->e[0], (size_t)m->n * sizeof m->e[0]);
    mentry_t *e = &m->e[0];
    memset(e, 0, sizeof *e);
    e->k1 = k1;
    snprintf(e->k2, sizeof e->k2, "%s", k2);
    e->n = n;
    memcpy(e->rows, rows, (size_t)n * sizeof *rows);
    e->written = e->accessed = now;
    m->n++;
    m->rows += weight(e);
    while (m->rows > m->conf.max_rows && m->n > 1) {
        m_remove(m, m->n - 1);
    }
}

/* The row of value x: x, its text, and x / 100 as a DECIMAL(10, 2); its text in buf. */
static void make_row(int x, char *buf, rsql_value_t *row)
{
    snprintf(buf, 16, "r%d", x);
    memset(row, 0, NCOL * sizeof *row);
    row[0].type = RSQL_TYPE_INT;
    row[0].v.i = x;
    row[1].type = RSQL_TYPE_VARCHAR;
    row[1].v.s.p = buf;
    row[1].v.s.len = strlen(buf);
    row[2].type = RSQL_TYPE_DECIMAL;
    row[2].prec = 10;
    row[2].scale = 2;
    row[2].v.dec.lo = (uint64_t)x;
}

static void make_key(int k1, const char *k2, rsql_value_t *key)
{
    memset(key, 0, 2 * sizeof *key);
    key[0].type = RSQL_TYPE_INT;
    key[0].v.i = k1;
    key[1].type = RSQL_TYPE_VARCHAR;
    key[1].v.s.p = k2;
    key[1].v.s.len = strlen(k2);
}

static void run_model(unsigned seed, rsql_lookup_conf_t conf, int n_keys, int steps)
{
    static model_t m;
    memset(&m, 0, sizeof m);
    m.conf = conf;
    rt_lkcache_t *c = rsql_lkcache_new(2, NCOL, &conf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    srand(seed);
    int64_t now = 1000;
    int bad = 0;
    for (int s = 0; s < steps && bad < 5; s++) {
        now += rand() % 4 == 0 ? rand() % 40 : 0;
        int k1 = rand() % n_keys;
        char k2[8];
        snprintf(k2, sizeof k2, "k%d", k1 % 3);
        rsql_value_t key[2];
        char keybuf[8];
        snprintf(keybuf, sizeof keybuf, "%s", k2);
        make_key(k1, keybuf, key);
        if (rand() % 2) {
            const rsql_value_t *const *rows = NULL;
            int n = -1;
            bool hit = rsql_lkcache_get(c, key, now, &rows, &n);
            int mi = m_get(&m, k1, k2, now);
            if (hit != (mi >= 0)) {
                bad++;
                CU_FAIL("a get differs from the model's (hit or miss)");
                continue;
            }
            if (!hit) {
                continue;
            }
            CU_ASSERT_EQUAL(n, m.e[mi].n);
            for (int r = 0; r < n && r < m.e[mi].n; r++) {
                char want[16];
                snprintf(want, sizeof want, "r%d", m.e[mi].rows[r]);
                CU_ASSERT_EQUAL(rows[r][0].v.i, m.e[mi].rows[r]);
                CU_ASSERT_EQUAL(rows[r][1].v.s.len, strlen(want));
                CU_ASSERT_NSTRING_EQUAL(rows[r][1].v.s.p, want, strlen(want));
                CU_ASSERT_EQUAL(rows[r][2].v.dec.lo, (uint64_t)m.e[mi].rows[r]);
                CU_ASSERT_EQUAL(rows[r][2].scale, 2);
            }
        } else {
            int n = rand() % (MAXROWS + 1);
            int ints[MAXROWS];
            char bufs[MAXROWS][16];
            rsql_value_t vals[MAXROWS][NCOL];
            const rsql_value_t *rows[MAXROWS];
            for (int r = 0; r < n; r++) {
                ints[r] = rand() % 100000;
                make_row(ints[r], bufs[r], vals[r]);
                rows[r] = vals[r];
            }
            CU_ASSERT_EQUAL_FATAL(rsql_lkcache_put(c, key, rows, n, now), RSQL_OK);
            memset(bufs, 'x', sizeof bufs); /* the entry holds its own copy */
            memset(keybuf, 'y', sizeof keybuf - 1);
            m_put(&m, k1, k2, ints, n, now);
        }
        rt_lkcache_stats_t st;
        rsql_lkcache_stats(c, &st);
        if (st.rows != m.rows || st.entries != m.n) {
            bad++;
            CU_FAIL("the rows or keys held differ from the model's");
        }
        CU_ASSERT(st.rows <= conf.max_rows || st.entries == 1);
    }
    rt_lkcache_stats_t st;
    rsql_lkcache_stats(c, &st);
    CU_ASSERT(st.hits > 0);
    CU_ASSERT(st.misses > 0);
    rsql_lkcache_free(c);
}

static rsql_lookup_conf_t conf_of(int64_t max_rows, int64_t ew, int64_t ea, bool missing)
{
    rsql_lookup_conf_t c = {.cache = true,
                            .max_rows = max_rows,
                            .expire_after_write_ms = ew,
                            .expire_after_access_ms = ea,
                            .cache_missing = missing,
                            .max_retries = 3};
    return c;
}

static void test_model_bound(void)
{
    run_model(1, conf_of(50, 0, 0, true), 200, 20000);
    run_model(2, conf_of(1, 0, 0, true), 10, 5000);
    run_model(3, conf_of(100000, 0, 0, false), 500, 20000);
}

static void test_model_expiry(void)
{
    run_model(4, conf_of(1000, 200, 0, true), 100, 20000);
    run_model(5, conf_of(1000, 0, 60, true), 100, 20000);
    run_model(6, conf_of(30, 500, 100, false), 80, 20000);
}

static void test_same_keys(void)
{
    rsql_lookup_conf_t conf = conf_of(100, 0, 0, true);
    rt_lkcache_t *c = rsql_lkcache_new(1, NCOL, &conf);
    rsql_value_t k = {0}, k2 = {0};
    const rsql_value_t *const *rows;
    int n;
    char buf[16];
    rsql_value_t row[NCOL];
    const rsql_value_t *one[1] = {row};
    make_row(7, buf, row);

    k.type = k2.type = RSQL_TYPE_DECIMAL; /* 1.50 and 1.5 */
    k.prec = 10, k.scale = 2, k.v.dec.lo = 150;
    k2.prec = 10, k2.scale = 1, k2.v.dec.lo = 15;
    CU_ASSERT_EQUAL(rsql_lkcache_put(c, &k, one, 1, 0), RSQL_OK);
    CU_ASSERT_TRUE(rsql_lkcache_get(c, &k2, 0, &rows, &n));
    CU_ASSERT_EQUAL(n, 1);
    k2.v.dec.lo = 16; /* 1.6 is not */
    CU_ASSERT_FALSE(rsql_lkcache_get(c, &k2, 0, &rows, &n));

    memset(&k, 0, sizeof k);
    memset(&k2, 0, sizeof k2);
    k.type = k2.type = RSQL_TYPE_DOUBLE; /* -0.0 and 0.0 */
    k.v.d = -0.0;
    k2.v.d = 0.0;
    CU_ASSERT_EQUAL(rsql_lkcache_put(c, &k, NULL, 0, 0), RSQL_OK);
    CU_ASSERT_TRUE(rsql_lkcache_get(c, &k2, 0, &rows, &n));
    CU_ASSERT_EQUAL(n, 0);

    k.v.d = 0.0 / 0.0; /* NaN: never the same key, never held */
    CU_ASSERT_EQUAL(rsql_lkcache_put(c, &k, one, 1, 0), RSQL_OK);
    CU_ASSERT_FALSE(rsql_lkcache_get(c, &k, 0, &rows, &n));
    k.is_null = true;
    CU_ASSERT_EQUAL(rsql_lkcache_put(c, &k, one, 1, 0), RSQL_OK);
    CU_ASSERT_FALSE(rsql_lkcache_get(c, &k, 0, &rows, &n));

    k.is_null = false; /* INT 5 and BIGINT 5 are different types: different keys */
    k.type = RSQL_TYPE_INT;
    k.v.i = 5;
    k2.type = RSQL_TYPE_BIGINT;
    k2.v.i = 5;
    CU_ASSERT_EQUAL(rsql_lkcache_put(c, &k, one, 1, 0), RSQL_OK);
    CU_ASSERT_FALSE(rsql_lkcache_get(c, &k2, 0, &rows, &n));
    rt_lkcache_stats_t st;
    rsql_lkcache_stats(c, &st);
    CU_ASSERT_EQUAL(st.entries, 3);
    CU_ASSERT(st.bytes > 0);
    rsql_lkcache_free(c);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    CU_pSuite s = CU_add_suite("lookup_cache", NULL, NULL);
    CU_add_test(s, "random gets and puts against a model, bounded", test_model_bound);
    CU_add_test(s, "random gets and puts against a model, with expiry", test_model_expiry);
    CU_add_test(s, "keys that are the same, keys never held", test_same_keys);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of a statement's keyed state (engine/rt_state.c) over a catalog file: a
 * checkpoint writes the seals the deliveries reached, in every lane, and says which positions
 * go with them (so the state on disk is exactly that of the rows before them), a key changed
 * many times between seals is written once, nothing is dropped before its transaction
 * committed (a rolled back one is written again), a state reopened from the catalog holds what
 * was committed and nothing after, the last change of a key wins, state.ttl forgets old
 * entries (read back and in memory), and a state without a catalog (a preview) keeps
 * everything in memory only.
 */
#include "config.h"
#include "catalog/rsql_catalog.h"
#include "engine/rt_keyfilter.h"
#include "engine/rt_state.h"

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static rsql_catalog_t *fresh(void)
{
    snprintf(path, sizeof path, "/tmp/rsql-test-state-%d.db", (int)getpid());
    unlink(path);
    rsql_error_t err;
    rsql_catalog_t *cat = rsql_catalog_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    return cat;
}

static bool has(rt_state_t *s, const char *key, const char *want)
{
    const uint8_t *v;
    size_t n;
    bool found;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(rsql_rt_state_get(s, key, strlen(key), 1000, &v, &n, &found, &err),
                          RSQL_OK);
    if (!found) {
        return want == NULL;
    }
    return want && n == strlen(want) && memcmp(v, want, n) == 0;
}

/* A record at off of lane that sets key to value. */
static void put(rt_state_t *s, const char *key, const char *value, uint32_t lane, int64_t off)
{
    CU_ASSERT_EQUAL(rsql_rt_state_put(s, key, strlen(key), value, strlen(value), 1000), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rt_state_seen(s, lane, off, NULL), RSQL_OK);
}

static void seal(rt_state_t *s)
{
    CU_ASSERT_EQUAL(rsql_rt_state_seal(s, 0), RSQL_OK);
}

/* Checkpoint with the positions delivered lanes/offs (and ticks delivered) in one catalog
   transaction, committed or rolled back; *cut (if asked) the positions it says to save. */
static void checkpoint_t(rt_state_t *s, rsql_catalog_t *cat, int n, const uint32_t *lanes,
                         const int64_t *offs, uint64_t ticks, bool commit, rt_state_cut_t *cut)
{
    rsql_error_t err;
    rt_state_cut_t c;
    CU_ASSERT_EQUAL_FATAL(rsql_catalog_begin(cat, &err), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rt_state_checkpoint(s, cat, n, lanes, offs, ticks, &c, &err), RSQL_OK);
    if (cut) {
        *cut = c;
    }
    if (commit) {
        CU_ASSERT_EQUAL(rsql_catalog_commit(cat, &err), RSQL_OK);
        rsql_rt_state_committed(s);
    } else {
        CU_ASSERT_EQUAL(rsql_catalog_rollback(cat, &err), RSQL_OK);
    }
}

static void checkpoint(rt_state_t *s, rsql_catalog_t *cat, int n, const uint32_t *lanes,
                       const int64_t *offs, bool commit)
{
    checkpoint_t(s, cat, n, lanes, offs, 0, commit, NULL);
}

/* The cut's position of lane (INT64_MIN: it has none). */
static int64_t cut_at(const rt_state_cut_t *c, uint32_t lane)
{
    for (int i = 0; i < c->n; i++) {
        if (c->lanes[i] == lane) {
            return c->offs[i];
        }
    }
    return INT64_MIN;
}

static rt_state_t *reopen_bounded(rsql_catalog_t *cat, int64_t ttl, int64_t memory)
{
    rt_state_t *s = NULL;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(rsql_rt_state_open(cat, "job@a.b~0", ttl, memory, &s, &err), RSQL_OK);
    return s;
}

static rt_state_t *reopen(rsql_catalog_t *cat, int64_t ttl)
{
    return reopen_bounded(cat, ttl, 0);
}

static void test_state_checkpoint_prefix(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen(cat, 0);
    put(s, "a", "1", 0, 10);
    put(s, "b", "1", 1, 5);
    seal(s); /* 1: lane 0 at 10, lane 1 at 5 */
    put(s, "a", "2", 0, 20);
    put(s, "c", "1", 0, 30);
    seal(s); /* 2: lane 0 at 30 */
    put(s, "d", "1", 1, 50);
    put(s, "e", "1", 1, 60); /* not sealed yet */
    CU_ASSERT_TRUE(has(s, "a", "2")); /* in memory: everything */
    /* delivered: lane 0 to 20, lane 1 to 4: seal 1 is not reached (b at 5 is not delivered),
       so nothing is written and no position is to be saved, though lane 0 went past a */
    rt_state_cut_t cut;
    checkpoint_t(s, cat, 2, (uint32_t[]){0, 1}, (int64_t[]){20, 4}, 0, true, &cut);
    CU_ASSERT_EQUAL(cut.n, 0);
    rt_state_t *r = reopen(cat, 0);
    CU_ASSERT_TRUE(has(r, "a", NULL));
    rsql_rt_state_close(r);
    /* lane 1 to 5 (lane 0 stays at 20, said before): seal 1, and only it: a is 1 on disk, as
       of lane 0 at 10, the position saved with it, though lane 0 was delivered to 20 */
    checkpoint_t(s, cat, 1, (uint32_t[]){1}, (int64_t[]){5}, 0, true, &cut);
    CU_ASSERT_EQUAL(cut.n, 2);
    CU_ASSERT_EQUAL(cut_at(&cut, 0), 10);
    CU_ASSERT_EQUAL(cut_at(&cut, 1), 5);
    r = reopen(cat, 0);
    CU_ASSERT_TRUE(has(r, "a", "1"));
    CU_ASSERT_TRUE(has(r, "b", "1"));
    CU_ASSERT_TRUE(has(r, "c", NULL));
    rsql_rt_state_close(r);
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.pending, 4); /* seal 2's a and c, and d and e not sealed */
    /* a rolled back transaction drops nothing: the next checkpoint writes it again */
    seal(s); /* 3: lane 1 at 60 */
    checkpoint_t(s, cat, 2, (uint32_t[]){0, 1}, (int64_t[]){30, 59}, 0, false, &cut);
    CU_ASSERT_EQUAL(cut.n, 1); /* seal 2 only: seal 3 needs lane 1 at 60 */
    CU_ASSERT_EQUAL(cut_at(&cut, 0), 30);
    r = reopen(cat, 0);
    CU_ASSERT_TRUE(has(r, "a", "1"));
    rsql_rt_state_close(r);
    checkpoint_t(s, cat, 1, (uint32_t[]){1}, (int64_t[]){60}, 0, true, &cut);
    CU_ASSERT_EQUAL(cut.n, 2);
    CU_ASSERT_EQUAL(cut_at(&cut, 0), 30);
    CU_ASSERT_EQUAL(cut_at(&cut, 1), 60);
    r = reopen(cat, 0);
    CU_ASSERT_TRUE(has(r, "a", "2"));
    CU_ASSERT_TRUE(has(r, "c", "1"));
    CU_ASSERT_TRUE(has(r, "d", "1"));
    CU_ASSERT_TRUE(has(r, "e", "1"));
    rsql_rt_state_close(r);
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.pending, 0);
    CU_ASSERT_EQUAL(st.keys, 5);
    CU_ASSERT_EQUAL(st.checkpoints, 3); /* the rolled back one too */
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    unlink(path);
}

/* A key changed many times between two seals is one change; a seal after a tick waits for the
   tick's delivery; a position's text part is in the cut; a deletion is written as one. */
static void test_state_seals(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen(cat, 0);
    char v[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(v, sizeof v, "%d", i);
        put(s, i % 2 ? "odd" : "even", v, 0, i);
    }
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.pending, 2);
    CU_ASSERT_EQUAL(rsql_rt_state_seen(s, 3, 7, "3:abc,"), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_rt_state_seal(s, 1), RSQL_OK); /* one tick made before it */
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.pending, 2);
    rt_state_cut_t cut;
    checkpoint_t(s, cat, 2, (uint32_t[]){0, 3}, (int64_t[]){999, 7}, 0, true, &cut);
    CU_ASSERT_EQUAL(cut.n, 0); /* the tick is not delivered */
    /* the cut's texts are the seals': read before the commit frees them (as the worker does) */
    checkpoint_t(s, cat, 0, NULL, NULL, 1, false, &cut);
    CU_ASSERT_EQUAL_FATAL(cut.n, 2);
    CU_ASSERT_PTR_NULL(cut.keys[cut.lanes[0] == 3 ? 1 : 0]);
    CU_ASSERT_STRING_EQUAL(cut.keys[cut.lanes[0] == 3 ? 0 : 1], "3:abc,");
    checkpoint_t(s, cat, 0, NULL, NULL, 1, true, &cut);
    CU_ASSERT_EQUAL_FATAL(cut.n, 2);
    CU_ASSERT_EQUAL(cut_at(&cut, 0), 999);
    CU_ASSERT_EQUAL(cut_at(&cut, 3), 7);
    rt_state_t *r = reopen(cat, 0);
    CU_ASSERT_TRUE(has(r, "odd", "999"));
    CU_ASSERT_TRUE(has(r, "even", "998"));
    rsql_rt_state_close(r);
    /* deleted, set again, deleted: the catalog forgets it */
    rsql_error_t err;
    CU_ASSERT_EQUAL(rsql_rt_state_del(s, "odd", 3, 1000), RSQL_OK);
    put(s, "odd", "x", 0, 1000);
    CU_ASSERT_EQUAL(rsql_rt_state_del(s, "odd", 3, 1000), RSQL_OK);
    CU_ASSERT_TRUE(has(s, "odd", NULL));
    seal(s);
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){1000}, true);
    r = reopen(cat, 0);
    CU_ASSERT_TRUE(has(r, "odd", NULL));
    CU_ASSERT_TRUE(has(r, "even", "998"));
    rsql_rt_state_close(r);
    /* nothing changed, nothing seen: a seal makes nothing, a checkpoint writes nothing */
    seal(s);
    checkpoint_t(s, cat, 1, (uint32_t[]){0}, (int64_t[]){1000}, 1, true, &cut);
    CU_ASSERT_EQUAL(cut.n, 0);
    (void)err;
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    unlink(path);
}

/* 20,000 changes over three lanes, sealed every 100 records, checkpointed every 1,000 with
   the deliveries 500 behind: after each checkpoint the catalog holds exactly the values of the
   records up to the positions saved, whichever lanes they came from. */
static void test_state_many(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen(cat, 0);
    char k[32], v[32];
    int bad = 0;
    for (int i = 0; i < 20000; i++) {
        snprintf(k, sizeof k, "key%d", i % 5000);
        snprintf(v, sizeof v, "v%d", i);
        put(s, k, v, (uint32_t)(i % 3), i);
        if (i % 100 == 99) {
            seal(s);
        }
        if (i % 1000 == 999) {
            rt_state_cut_t cut;
            checkpoint_t(s, cat, 3, (uint32_t[]){0, 1, 2},
                         (int64_t[]){i - 500, i - 500, i - 500}, 0, true, &cut);
            int64_t upto = INT64_MIN; /* the last record the positions saved take in */
            for (int j = 0; j < cut.n; j++) {
                upto = cut.offs[j] > upto ? cut.offs[j] : upto;
            }
            if (i >= 1999) { /* a seal 500 behind exists from then on */
                CU_ASSERT(upto > i - 600 && upto <= i - 500);
            }
            rt_state_t *r = reopen(cat, 0);
            for (int j = 0; j < 5000; j += 37) { /* key j's last record at or before upto */
                int last = (int)upto - (((int)upto - j) % 5000 + 5000) % 5000;
                snprintf(k, sizeof k, "key%d", j);
                snprintf(v, sizeof v, "v%d", last);
                bad += !has(r, k, last >= 0 ? v : NULL);
            }
            rsql_rt_state_close(r);
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    seal(s);
    checkpoint(s, cat, 3, (uint32_t[]){0, 1, 2}, (int64_t[]){19999, 19999, 19999}, true);
    rt_state_t *r = reopen(cat, 0);
    bad = 0;
    for (int j = 0; j < 5000; j++) {
        snprintf(k, sizeof k, "key%d", j);
        snprintf(v, sizeof v, "v%d", 15000 + j);
        bad += !has(r, k, v);
    }
    CU_ASSERT_EQUAL(bad, 0);
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.pending, 0);
    rsql_rt_state_close(r);
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    unlink(path);
}

/* Keys sharing their first 20 to 60 bytes (a window's keys share their window's 17), each
   changed four times between checkpoints, in several seals: the checkpoint's sort (on the
   keys' first 48 bytes, then the rest) and its choice of each key's last change look past
   the shared part. */
static void test_state_long_keys(void)
{
    static const int shared[] = {20, 30, 40, 47, 48, 60};
    for (size_t t = 0; t < sizeof shared / sizeof shared[0]; t++) {
        rsql_catalog_t *cat = fresh();
        rt_state_t *s = reopen(cat, 0);
        char k[96], v[32];
        int pre = shared[t];
        for (int i = 0; i < 6000; i++) {
            snprintf(k, sizeof k, "%0*d%d", pre, 7, i % 1500);
            snprintf(v, sizeof v, "v%d", i);
            put(s, k, v, 0, i);
            if (i % 250 == 249) {
                seal(s);
            }
            if (i % 1000 == 999) {
                checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){i - 300}, true);
            }
        }
        seal(s);
        checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){5999}, true);
        rt_state_t *r = reopen(cat, 0);
        int bad = 0;
        for (int j = 0; j < 1500; j++) {
            snprintf(k, sizeof k, "%0*d%d", pre, 7, j);
            snprintf(v, sizeof v, "v%d", 4500 + j);
            bad += !has(r, k, v);
        }
        CU_ASSERT_EQUAL(bad, 0);
        rsql_rt_state_close(r);
        rsql_rt_state_close(s);
        rsql_catalog_close(cat);
        unlink(path);
    }
}

static void test_state_ttl_and_memory(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen(cat, 0);
    put(s, "old", "x", 0, 1); /* written at 1000 ms: long ago for the wall clock */
    seal(s);
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){1}, true);
    rsql_rt_state_close(s);
    s = reopen(cat, 60000); /* a ttl of a minute: the entry of 1970 is not read back */
    CU_ASSERT_TRUE(has(s, "old", NULL));
    rsql_rt_state_close(s);
    s = reopen(cat, 0);
    CU_ASSERT_TRUE(has(s, "old", "x"));
    const uint8_t *v;
    size_t n;
    rsql_rt_state_close(s);
    rt_state_t *m = NULL;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(rsql_rt_state_open(NULL, NULL, 100, 1, &m, &err), RSQL_OK);
    put(m, "k", "1", 0, 1); /* written at 1000 */
    bool found;
    CU_ASSERT_EQUAL(rsql_rt_state_get(m, "k", 1, 1099, &v, &n, &found, &err), RSQL_OK);
    CU_ASSERT_TRUE(found); /* memory only: never evicted, whatever the bound */
    CU_ASSERT_EQUAL(rsql_rt_state_get(m, "k", 1, 1100, &v, &n, &found, &err), RSQL_OK);
    CU_ASSERT_FALSE(found); /* ttl passed */
    rt_state_stats_t st;
    rsql_rt_state_stats(m, &st);
    CU_ASSERT_EQUAL(st.pending, 0); /* in memory only: nothing to write */
    rsql_rt_state_close(m);
    rsql_catalog_close(cat);
    unlink(path);
}

/* A bound: entries on disk leave memory and are read back; pending ones stay until saved. */
static void test_state_bounded(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen_bounded(cat, 0, 64 * 1024);
    char k[32], v[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "key%d", i);
        snprintf(v, sizeof v, "value of %d", i);
        put(s, k, v, 0, i + 1);
        if (i + 1 == 4000) {
            seal(s); /* keys 0..3999, at 4000 */
        }
    }
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.keys, 5000); /* nothing saved yet: nothing may leave memory */
    CU_ASSERT_EQUAL(st.evictions, 0);
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){4000}, true);
    put(s, "one more", "x", 0, 5001); /* past the bound: the saved ones leave */
    rsql_rt_state_stats(s, &st);
    CU_ASSERT(st.evictions > 0);
    CU_ASSERT(st.keys >= 1000); /* keys 4000..4999 are not saved: they stay */
    int bad = 0;
    for (int i = 3990; i < 5000; i++) { /* both kinds are found, with their values */
        snprintf(k, sizeof k, "key%d", i);
        snprintf(v, sizeof v, "value of %d", i);
        bad += !has(s, k, v);
    }
    for (int i = 0; i < 4000; i += 7) { /* read back from the catalog */
        snprintf(k, sizeof k, "key%d", i);
        snprintf(v, sizeof v, "value of %d", i);
        bad += !has(s, k, v);
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_TRUE(has(s, "never", NULL));
    rsql_rt_state_stats(s, &st);
    CU_ASSERT(st.reads > 0);
    /* keys never seen are not looked for in the catalog (but for the filter's few false
       positives) */
    int64_t reads = st.reads;
    for (int i = 0; i < 1000; i++) {
        snprintf(k, sizeof k, "new key %d", i);
        bad += !has(s, k, NULL);
    }
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT(st.reads - reads < 50);
    CU_ASSERT(st.bytes <= 64 * 1024 + 200 * 1000); /* the bound, and the 1000 pending ones */
    rsql_rt_state_close(s);
    /* a new run, bounded: reads the keys as they are asked for */
    s = reopen_bounded(cat, 0, 64 * 1024);
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.keys, 0);
    CU_ASSERT_TRUE(has(s, "key17", "value of 17"));
    CU_ASSERT_TRUE(has(s, "key4500", NULL)); /* never saved */
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    unlink(path);
}

/* Bounded: a deleted entry stays in memory until its deletion is on disk (lest the value
   before it be read back), then leaves at the next seal; one put again after stays. */
static void test_state_deleted_leave(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen_bounded(cat, 0, 1024 * 1024);
    char k[32];
    for (int i = 0; i < 100; i++) {
        snprintf(k, sizeof k, "key%d", i);
        put(s, k, "v", 0, i);
    }
    seal(s);
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){99}, true);
    for (int i = 0; i < 50; i++) { /* deleted at 100..149 */
        snprintf(k, sizeof k, "key%d", i);
        CU_ASSERT_EQUAL(rsql_rt_state_del(s, k, strlen(k), 1000), RSQL_OK);
        CU_ASSERT_EQUAL(rsql_rt_state_seen(s, 0, 100 + i, NULL), RSQL_OK);
    }
    seal(s);
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.keys, 100); /* the deletions are not on disk yet */
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){149}, false); /* rolled back */
    put(s, "key0", "again", 0, 150);
    seal(s);
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.keys, 100);
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){150}, true);
    CU_ASSERT_EQUAL(rsql_rt_state_seen(s, 0, 151, NULL), RSQL_OK);
    seal(s); /* the deletions committed: their entries go, key0 (put again) stays */
    rsql_rt_state_stats(s, &st);
    CU_ASSERT_EQUAL(st.keys, 51);
    CU_ASSERT_TRUE(has(s, "key0", "again"));
    CU_ASSERT_TRUE(has(s, "key1", NULL));
    CU_ASSERT_TRUE(has(s, "key49", NULL));
    CU_ASSERT_TRUE(has(s, "key50", "v"));
    rsql_rt_state_close(s);
    s = reopen_bounded(cat, 0, 1024 * 1024);
    CU_ASSERT_TRUE(has(s, "key0", "again"));
    CU_ASSERT_TRUE(has(s, "key1", NULL));
    CU_ASSERT_TRUE(has(s, "key99", "v"));
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    unlink(path);
}

/* A small deterministic generator (xorshift64*) for the table's random tests. */
static uint64_t rnd(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * UINT64_C(2685821657736338717);
}

/*
** The table against a reference, in memory only (a deletion drops the entry: the table's
** clusters close up behind it) and bounded over a catalog (entries leave memory and are read
** back): random puts of values of 0 to 40 bytes (some grow past their entry's room), deletions
** and reads over 6,000 keys, every answer checked, all keys checked now and then; with the
** slots' tags and without them.
*/
static void table_random(bool bounded, bool tags)
{
    enum { KEYS = 6000, OPS = 120000 };
    static char ref[KEYS][48];
    static bool there[KEYS];
    memset(there, 0, sizeof there);
    rsql_catalog_t *cat = bounded ? fresh() : NULL;
    rt_state_t *s = NULL;
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(rsql_rt_state_open(cat, cat ? "job@a.b~0" : NULL, 0,
                                             bounded ? 48 * 1024 : 0, &s, &err), RSQL_OK);
    if (!tags) {
        rsql_rt_state__no_tags(s);
    }
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    char k[32];
    int bad = 0;
    for (int i = 0; i < OPS; i++) {
        uint64_t r = rnd(&x);
        int key = (int)(r % KEYS), op = (int)(r >> 32) % 10;
        snprintf(k, sizeof k, "k%d", key);
        if (op < 5) {
            int len = (int)((r >> 40) % 41);
            memset(ref[key], 'a' + i % 26, (size_t)len);
            ref[key][len] = 0;
            CU_ASSERT_EQUAL(rsql_rt_state_put(s, k, strlen(k), ref[key], (size_t)len, 1000),
                            RSQL_OK);
            there[key] = true;
        } else if (op < 7) {
            CU_ASSERT_EQUAL(rsql_rt_state_del(s, k, strlen(k), 1000), RSQL_OK);
            there[key] = false;
        } else {
            bad += !has(s, k, there[key] ? ref[key] : NULL);
        }
        if (cat) {
            CU_ASSERT_EQUAL(rsql_rt_state_seen(s, 0, i, NULL), RSQL_OK);
            if (i % 500 == 499) { /* everything delivered: all of it may go to disk */
                seal(s);
                checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){i}, true);
            }
        }
        if (i % 20000 == 19999) {
            for (int j = 0; j < KEYS; j++) {
                snprintf(k, sizeof k, "k%d", j);
                bad += !has(s, k, there[j] ? ref[j] : NULL);
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    rt_state_stats_t st;
    rsql_rt_state_stats(s, &st);
    int n = 0;
    for (int j = 0; j < KEYS; j++) {
        n += there[j];
    }
    if (bounded) {
        CU_ASSERT(st.evictions > 0);
        CU_ASSERT(st.reads > 0);
    } else {
        CU_ASSERT_EQUAL(st.keys, n); /* deleted ones are gone from memory */
    }
    rsql_rt_state_close(s);
    if (cat) {
        rsql_catalog_close(cat);
        unlink(path);
    }
}

static void test_state_table(void)
{
    table_random(false, true);
    table_random(false, false);
    table_random(true, true);
    table_random(true, false);
}

/* The filter of keys on disk: no false negatives as it grows by layers, few false positives. */
static void test_keyfilter(void)
{
    rt_keyfilter_t *f = rsql_rt_keyfilter_new(100, 0); /* grows many times */
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    uint64_t x = 88172645463325252u;
    uint64_t *added = malloc(sizeof *added * 200000);
    CU_ASSERT_PTR_NOT_NULL_FATAL(added);
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
        added[i] = x;
        CU_ASSERT_TRUE_FATAL(rsql_rt_keyfilter_add(f, x));
    }
    int missed = 0, false_pos = 0;
    for (int i = 0; i < 200000; i++) {
        missed += !rsql_rt_keyfilter_maybe(f, added[i]);
    }
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        false_pos += rsql_rt_keyfilter_maybe(f, x);
    }
    CU_ASSERT_EQUAL(missed, 0);
    /* under 2 % over all its layers (12 here) */
    CU_ASSERT(false_pos < 2000);
    /* 11 to 16 bits a key, the last layer up to half empty: under 4 bytes a key */
    CU_ASSERT(rsql_rt_keyfilter_bytes(f) < 200000 * 4);
    printf("(%d false positives in 100000, %lld bytes) ", false_pos,
           (long long)rsql_rt_keyfilter_bytes(f));
    free(added);
    rsql_rt_keyfilter_free(f);
    /* at most max_bytes: past it, it gives up and says "maybe" of everything */
    f = rsql_rt_keyfilter_new(1000, 8192);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    int i = 0;
    while (rsql_rt_keyfilter_add(f, (uint64_t)i * 0x9e3779b97f4a7c15u) && i < 100000) {
        CU_ASSERT(rsql_rt_keyfilter_bytes(f) <= 8192);
        i++;
    }
    CU_ASSERT(i > 1000 && i < 100000);
    CU_ASSERT(rsql_rt_keyfilter_bytes(f) < 4096); /* its layers (8 KB) freed */
    CU_ASSERT_TRUE(rsql_rt_keyfilter_maybe(f, 12345));
    rsql_rt_keyfilter_free(f);
}

/* A catalog of schema 8 (the state keyed by the pipeline's text) is migrated: its entries are
   found after, and DROP TABLE still forgets them. */
static void test_state_migrated_from_8(void)
{
    rsql_catalog_t *cat = fresh();
    rt_state_t *s = reopen(cat, 0);
    put(s, "a", "1", 0, 1);
    put(s, "b", "2", 0, 2);
    seal(s);
    checkpoint(s, cat, 1, (uint32_t[]){0}, (int64_t[]){2}, true);
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    /* back to schema 8's shape, rows and trigger (catalog_migrate.c, step 8) */
    sqlite3 *db;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    char *msg = NULL;
    int rc = sqlite3_exec(
        db,
        "BEGIN;"
        "CREATE TABLE state8 (pipeline TEXT NOT NULL COLLATE NOCASE, key BLOB NOT NULL,"
        "  value BLOB NOT NULL, written_ms INTEGER NOT NULL, PRIMARY KEY (pipeline, key))"
        "  WITHOUT ROWID;"
        "INSERT INTO state8 SELECT p.pipeline, s.key, s.value, s.written_ms"
        "  FROM state s JOIN state_pipelines p ON p.id = s.pipe;"
        "INSERT INTO state8 VALUES ('other@x.y~0', X'61', X'39', 5);"
        "DROP TRIGGER tables_forget_state; DROP TRIGGER state_pipelines_forget;"
        "DROP TABLE state; DROP TABLE state_pipelines; ALTER TABLE state8 RENAME TO state;"
        "CREATE TRIGGER tables_forget_state AFTER DELETE ON tables WHEN old.uid IS NOT NULL"
        " BEGIN DELETE FROM state WHERE instr(pipeline, '@' || old.uid || '.') > 0"
        "   OR instr(pipeline, '.' || old.uid) > 0; END;"
        "ALTER TABLE table_columns DROP COLUMN watermark;" /* step 10's, after 8 */
        "PRAGMA user_version = 8; COMMIT;",
        NULL, NULL, &msg);
    CU_ASSERT_EQUAL(rc, SQLITE_OK);
    if (msg) {
        printf("%s\n", msg);
        sqlite3_free(msg);
    }
    sqlite3_close(db);
    rsql_error_t err;
    cat = rsql_catalog_open(path, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cat);
    s = reopen(cat, 0);
    CU_ASSERT_TRUE(has(s, "a", "1"));
    CU_ASSERT_TRUE(has(s, "b", "2"));
    rsql_rt_state_close(s);
    s = reopen_bounded(cat, 0, 1024); /* read back one by one */
    CU_ASSERT_TRUE(has(s, "b", "2"));
    CU_ASSERT_TRUE(has(s, "c", NULL));
    rsql_rt_state_close(s);
    rsql_catalog_close(cat);
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    CU_ASSERT_EQUAL_FATAL(
        sqlite3_prepare_v2(db,
                           "SELECT (SELECT count(*) FROM state), (SELECT count(*) FROM "
                           "state_pipelines), (SELECT user_version FROM pragma_user_version)",
                           -1, &st, NULL),
        SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
    CU_ASSERT_EQUAL(sqlite3_column_int(st, 0), 3);
    CU_ASSERT_EQUAL(sqlite3_column_int(st, 1), 2);
    CU_ASSERT_EQUAL(sqlite3_column_int(st, 2), 11); /* and on through the later steps */
    sqlite3_finalize(st);
    /* forgetting a pipeline's number forgets its entries */
    CU_ASSERT_EQUAL(sqlite3_exec(db, "DELETE FROM state_pipelines WHERE pipeline = 'OTHER@x.y~0'",
                                 NULL, NULL, NULL),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_prepare_v2(db, "SELECT count(*) FROM state", -1, &st, NULL),
                    SQLITE_OK);
    CU_ASSERT_EQUAL(sqlite3_step(st), SQLITE_ROW);
    CU_ASSERT_EQUAL(sqlite3_column_int(st, 0), 2);
    sqlite3_finalize(st);
    sqlite3_close(db);
    unlink(path);
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 1;
    }
    CU_pSuite su = CU_add_suite("state", NULL, NULL);
    CU_add_test(su, "a checkpoint writes the seals the positions reach",
                test_state_checkpoint_prefix);
    CU_add_test(su, "seals: one change a key, ticks, text positions, deletions", test_state_seals);
    CU_add_test(su, "keys sharing a long prefix: the last change of each is written", test_state_long_keys);
    CU_add_test(su, "many changes over three lanes", test_state_many);
    CU_add_test(su, "ttl, and a state in memory only", test_state_ttl_and_memory);
    CU_add_test(su, "a bound on memory", test_state_bounded);
    CU_add_test(su, "the table against a reference, with and without tags", test_state_table);
    CU_add_test(su, "deleted entries leave memory once on disk", test_state_deleted_leave);
    CU_add_test(su, "the filter of keys on disk", test_keyfilter);
    CU_add_test(su, "a catalog of schema 8 migrated", test_state_migrated_from_8);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}

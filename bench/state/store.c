/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * bench/state/store.c: the two candidate stores for operator state, RocksDB (librocksdb-dev)
 * and SQLite (a WITHOUT ROWID table of blobs, WAL), under the operations the state of a
 * stateful job makes of its store, each with a durable commit (fsync) per checkpoint:
 *
 *   load     N new keys written in checkpoints of C keys (a dedup's or a window's new keys)
 *   get-hit  N point reads of random existing keys (the in-memory cache missed)
 *   get-miss N point reads of keys that are not there (a dedup's first sight of a key)
 *   update   N read-modify-writes of random existing keys, in checkpoints of C (a window's
 *            running aggregate)
 *
 * RocksDB runs with a block cache of CACHE_MB and a bloom filter (10 bits a key); SQLite with a
 * page cache of CACHE_MB. Keys are 16 bytes (a hash of the key columns, then their bytes),
 * values 24 bytes. Each phase prints one line: operations, CPU seconds (user + system,
 * getrusage), wall seconds, and operations per CPU-second; the end prints the files' size on
 * disk and the peak RSS. One store per process, so the RSS is that store's.
 *
 *   store rocksdb|sqlite DIR N C CACHE_MB
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include <rocksdb/c.h>
#include <sqlite3.h>

#define KLEN 16
#define VLEN 24

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (unsigned char)v;
        v >>= 8;
    }
}

/* key i: its hash, big-endian, then i (keys of one store spread over the key space) */
static void key_of(uint64_t i, unsigned char *k)
{
    put64(k, mix(i));
    put64(k + 8, i);
}

static void value_of(uint64_t i, uint64_t gen, unsigned char *v)
{
    put64(v, i);
    put64(v + 8, gen);
    put64(v + 16, mix(i ^ gen));
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what, const char *msg)
{
    fprintf(stderr, "store: %s: %s\n", what, msg ? msg : "failed");
    exit(1);
}

/* ---- the two stores behind one small interface */

typedef struct store {
    /* rocksdb */
    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_block_based_table_options_t *bbt;
    rocksdb_cache_t *cache;
    rocksdb_writeoptions_t *wo;
    rocksdb_readoptions_t *ro;
    rocksdb_writebatch_t *wb;
    /* sqlite */
    sqlite3 *sq;
    sqlite3_stmt *get, *put;
    int in_txn;
} store_t;

static int is_rocks;

static void st_open(store_t *s, const char *dir, int cache_mb)
{
    memset(s, 0, sizeof *s);
    char *err = NULL;
    if (is_rocks) {
        s->opts = rocksdb_options_create();
        rocksdb_options_set_create_if_missing(s->opts, 1);
        s->bbt = rocksdb_block_based_options_create();
        s->cache = rocksdb_cache_create_lru((size_t)cache_mb << 20);
        rocksdb_block_based_options_set_block_cache(s->bbt, s->cache);
        /* a bloom filter per table file, as any point-read workload sets: a miss then costs
           no block read */
        rocksdb_block_based_options_set_filter_policy(s->bbt,
                                                      rocksdb_filterpolicy_create_bloom(10));
        rocksdb_options_set_block_based_table_factory(s->opts, s->bbt);
        s->db = rocksdb_open(s->opts, dir, &err);
        if (err) {
            die("rocksdb_open", err);
        }
        s->wo = rocksdb_writeoptions_create();
        rocksdb_writeoptions_set_sync(s->wo, 1);
        s->ro = rocksdb_readoptions_create();
        s->wb = rocksdb_writebatch_create();
        return;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/state.db", dir);
    if (sqlite3_open(path, &s->sq) != SQLITE_OK) {
        die("sqlite3_open", sqlite3_errmsg(s->sq));
    }
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA cache_size=-%d;"
             "PRAGMA wal_autocheckpoint=16384;"
             "CREATE TABLE IF NOT EXISTS s (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID;",
             cache_mb * 1024);
    if (sqlite3_exec(s->sq, pragmas, NULL, NULL, &err) != SQLITE_OK) {
        die("sqlite3_exec", err);
    }
    if (sqlite3_prepare_v2(s->sq, "SELECT v FROM s WHERE k = ?1", -1, &s->get, NULL) ||
        sqlite3_prepare_v2(s->sq, "INSERT OR REPLACE INTO s(k, v) VALUES (?1, ?2)", -1, &s->put,
                           NULL)) {
        die("sqlite3_prepare_v2", sqlite3_errmsg(s->sq));
    }
}

static void st_put(store_t *s, const unsigned char *k, const unsigned char *v)
{
    if (is_rocks) {
        rocksdb_writebatch_put(s->wb, (const char *)k, KLEN, (const char *)v, VLEN);
        return;
    }
    if (!s->in_txn) {
        sqlite3_exec(s->sq, "BEGIN", NULL, NULL, NULL);
        s->in_txn = 1;
    }
    sqlite3_bind_blob(s->put, 1, k, KLEN, SQLITE_STATIC);
    sqlite3_bind_blob(s->put, 2, v, VLEN, SQLITE_STATIC);
    if (sqlite3_step(s->put) != SQLITE_DONE) {
        die("insert", sqlite3_errmsg(s->sq));
    }
    sqlite3_reset(s->put);
}

/* the value of k into v; 1 found, 0 not */
static int st_get(store_t *s, const unsigned char *k, unsigned char *v)
{
    if (is_rocks) {
        char *err = NULL;
        size_t n = 0;
        char *p = rocksdb_get(s->db, s->ro, (const char *)k, KLEN, &n, &err);
        if (err) {
            die("rocksdb_get", err);
        }
        if (!p) {
            return 0;
        }
        memcpy(v, p, n < VLEN ? n : VLEN);
        rocksdb_free(p);
        return 1;
    }
    sqlite3_bind_blob(s->get, 1, k, KLEN, SQLITE_STATIC);
    int rc = sqlite3_step(s->get), found = 0;
    if (rc == SQLITE_ROW) {
        int n = sqlite3_column_bytes(s->get, 0);
        memcpy(v, sqlite3_column_blob(s->get, 0), n < VLEN ? (size_t)n : VLEN);
        found = 1;
    } else if (rc != SQLITE_DONE) {
        die("select", sqlite3_errmsg(s->sq));
    }
    sqlite3_reset(s->get);
    return found;
}

/* a checkpoint: what was put since the last one, durable (fsync) at once */
static void st_commit(store_t *s)
{
    if (is_rocks) {
        char *err = NULL;
        rocksdb_write(s->db, s->wo, s->wb, &err);
        if (err) {
            die("rocksdb_write", err);
        }
        rocksdb_writebatch_clear(s->wb);
        return;
    }
    if (s->in_txn && sqlite3_exec(s->sq, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
        die("commit", sqlite3_errmsg(s->sq));
    }
    s->in_txn = 0;
}

static void st_close(store_t *s)
{
    if (is_rocks) {
        rocksdb_writebatch_destroy(s->wb);
        rocksdb_readoptions_destroy(s->ro);
        rocksdb_writeoptions_destroy(s->wo);
        rocksdb_close(s->db);
        rocksdb_options_destroy(s->opts);
        rocksdb_block_based_options_destroy(s->bbt);
        rocksdb_cache_destroy(s->cache);
        return;
    }
    sqlite3_finalize(s->get);
    sqlite3_finalize(s->put);
    sqlite3_close(s->sq);
}

static long long dir_bytes(const char *dir)
{
    DIR *d = opendir(dir);
    long long total = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char p[4096];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
            total += st.st_size;
        }
    }
    if (d) {
        closedir(d);
    }
    return total;
}

static double t_cpu, t_wall;

static void phase_start(void)
{
    t_cpu = cpu_s();
    t_wall = wall_s();
}

static void phase_end(const char *store, const char *phase, uint64_t ops, uint64_t found)
{
    double c = cpu_s() - t_cpu, w = wall_s() - t_wall;
    printf("store=%s phase=%s ops=%" PRIu64 " found=%" PRIu64
           " cpu_s=%.2f wall_s=%.2f ops_per_cpu_s=%.0f\n",
           store, phase, ops, found, c, w, c > 0 ? ops / c : 0.0);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    static const char *const kinds[] = {"sqlite", "rocksdb"}; /* index: is_rocks */
    int kind = -1;
    for (int i = 0; argc == 6 && i < 2; i++) {
        kind = strcmp(argv[1], kinds[i]) == 0 ? i : kind;
    }
    if (kind < 0) {
        fprintf(stderr, "usage: store rocksdb|sqlite DIR N C CACHE_MB\n");
        return 2;
    }
    is_rocks = kind;
    const char *dir = argv[2];
    uint64_t n = strtoull(argv[3], NULL, 10), c = strtoull(argv[4], NULL, 10);
    int cache_mb = atoi(argv[5]);
    if (n == 0 || c == 0 || cache_mb <= 0) {
        fprintf(stderr, "store: N, C and CACHE_MB must be positive\n");
        return 2;
    }
    store_t s;
    st_open(&s, dir, cache_mb);
    unsigned char k[KLEN], v[VLEN];
    uint64_t found = 0;

    phase_start();
    for (uint64_t i = 0; i < n; i++) {
        key_of(i, k);
        value_of(i, 0, v);
        st_put(&s, k, v);
        if ((i + 1) % c == 0) {
            st_commit(&s);
        }
    }
    st_commit(&s);
    phase_end(argv[1], "load", n, n);

    phase_start();
    found = 0;
    for (uint64_t i = 0; i < n; i++) {
        key_of(mix(i + 7777) % n, k);
        found += (uint64_t)st_get(&s, k, v);
    }
    phase_end(argv[1], "get-hit", n, found);
    if (found != n) {
        die("get-hit", "a key written is missing");
    }

    phase_start();
    found = 0;
    for (uint64_t i = 0; i < n; i++) {
        key_of(n + mix(i) % n, k); /* never written */
        found += (uint64_t)st_get(&s, k, v);
    }
    phase_end(argv[1], "get-miss", n, found);
    if (found != 0) {
        die("get-miss", "a key never written was found");
    }

    phase_start();
    found = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = mix(i + 99991) % n;
        key_of(j, k);
        found += (uint64_t)st_get(&s, k, v);
        value_of(j, i + 1, v);
        st_put(&s, k, v);
        if ((i + 1) % c == 0) {
            st_commit(&s);
        }
    }
    st_commit(&s);
    phase_end(argv[1], "update", n, found);

    st_close(&s);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("store=%s disk_bytes=%lld peak_rss_kb=%ld\n", argv[1], dir_bytes(dir), ru.ru_maxrss);
    return 0;
}

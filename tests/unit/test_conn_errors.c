/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of what a failure says and whether it is retried: the class of
 * every code in the error map and the one retriable predicate
 * (rsql_error_retriable), errno and SQLite result codes, and per embedded
 * connector, through the statements a user types, one permanent failure that
 * fails at once with the underlying message (a CHECK constraint in a sqlite
 * sink, a full disk under a filesystem sink, a missing input file) and one
 * transient failure that is retried and recovers (a sqlite sink whose
 * database another connection holds locked).
 *
 * And tolerance for every source: a record a source cannot turn into a row
 * (a value the sqlite source cannot convert, a line over the file source's
 * limit) is a decode failure of that record: dead-lettered with its raw form
 * under errors.tolerance 'all', the good records around it delivered; under
 * 'none' the run stops at it, with what came before it delivered.
 *
 * "At once" is shown without a clock: the runtime logs every retry it makes
 * (engine/rt_pipeline.c, rsql_pipeline__retrying), and the tests read that
 * log: a permanent failure leaves no retry line. The transient test waits for
 * the retry line (an event) before it releases the lock.
 */
#include "config.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "connectors/file/file_conf.h"
#include "connectors/postgres/pg_int.h"
#include "connectors/sqlite/sqlite_int.h"
#include "base/rsql_result.h"
#include "session/rsql_session.h"
#include "sql/rsql_sql.h"
#include "tests/lib/cu_session.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RETRY_MARK "transient), retry"

static char tmpdir[64];

static int suite_init(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/rsql-errors-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

/* Removes the directory (RSQL_KEEP=1 keeps it, to look at the databases after a failure). */
static int suite_clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return getenv("RSQL_KEEP") || system(cmd) == 0 ? 0 : -1;
}

/* ---- the map and the predicate */

static void test_errors_classes(void)
{
    static const rsql_err_t transient[] = {RSQL_ERR_BUSY, RSQL_ERR_TIMEOUT, RSQL_ERR_UNAVAILABLE};
    static const rsql_err_t permanent[] = {
        RSQL_ERR_NOMEM,      RSQL_ERR_INTERNAL,  RSQL_ERR_SYNTAX,     RSQL_ERR_UNKNOWN_NAME,
        RSQL_ERR_TYPE,       RSQL_ERR_BAD_OPTION, RSQL_ERR_IO,        RSQL_ERR_CATALOG,
        RSQL_ERR_PERMISSION, RSQL_ERR_NOT_FOUND, RSQL_ERR_NO_SPACE,   RSQL_ERR_CONSTRAINT,
        RSQL_ERR_TOO_LARGE,  RSQL_ERR_REMOTE,    RSQL_ERR_DECODE,     RSQL_ERR_EVAL,
        RSQL_ERR_SINK,       RSQL_ERR_INTERRUPTED, RSQL_ERR_UNSUPPORTED};
    rsql_error_t e;
    for (size_t i = 0; i < sizeof transient / sizeof transient[0]; i++) {
        rsql_error_clear(&e);
        rsql_error_set(&e, transient[i], RSQL_NOPOS, "x");
        CU_ASSERT_TRUE(rsql_error_retriable(&e));
        CU_ASSERT_TRUE(rsql_err_code_retriable(transient[i]));
    }
    for (size_t i = 0; i < sizeof permanent / sizeof permanent[0]; i++) {
        rsql_error_clear(&e);
        rsql_error_set(&e, permanent[i], RSQL_NOPOS, "x");
        CU_ASSERT_FALSE(rsql_error_retriable(&e));
    }
    /* no error is not retriable; the error decides, not who asks */
    CU_ASSERT_FALSE(rsql_error_retriable(NULL));
    rsql_error_clear(&e);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));
    CU_ASSERT_FALSE(rsql_err_code_retriable((rsql_err_t)12345));
    /* the first error wins, class included */
    rsql_error_set(&e, RSQL_ERR_CONSTRAINT, RSQL_NOPOS, "CHECK constraint failed");
    rsql_error_set(&e, RSQL_ERR_BUSY, RSQL_NOPOS, "database is locked");
    CU_ASSERT_EQUAL(e.code, RSQL_ERR_CONSTRAINT);
    CU_ASSERT_FALSE(rsql_error_retriable(&e));
}

static void test_errors_errno(void)
{
    CU_ASSERT_EQUAL(rsql_err_from_errno(EACCES), RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_err_from_errno(EPERM), RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_err_from_errno(EROFS), RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_err_from_errno(ENOENT), RSQL_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(rsql_err_from_errno(ENOSPC), RSQL_ERR_NO_SPACE);
    CU_ASSERT_EQUAL(rsql_err_from_errno(EFBIG), RSQL_ERR_TOO_LARGE);
    CU_ASSERT_EQUAL(rsql_err_from_errno(ENOMEM), RSQL_ERR_NOMEM);
    CU_ASSERT_EQUAL(rsql_err_from_errno(EIO), RSQL_ERR_IO);
    CU_ASSERT_EQUAL(rsql_err_from_errno(EISDIR), RSQL_ERR_IO);
    /* the transient ones a filesystem can give (none can be provoked on a local file) */
    CU_ASSERT_EQUAL(rsql_err_from_errno(EAGAIN), RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_err_from_errno(EBUSY), RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_err_from_errno(ETIMEDOUT), RSQL_ERR_TIMEOUT);
    CU_ASSERT_EQUAL(rsql_err_from_errno(ECONNRESET), RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_TRUE(rsql_err_code_retriable(rsql_err_from_errno(EAGAIN)));
    CU_ASSERT_FALSE(rsql_err_code_retriable(rsql_err_from_errno(ENOSPC)));
}

/* PostgreSQL's SQLSTATEs: constraint violations permanent, lost connections and
   serialization failures transient (rsql_err_code_retriable decides from the code). */
static void test_errors_pg_codes(void)
{
    CU_ASSERT_EQUAL(rsql_pg__code("23505", false), RSQL_ERR_CONSTRAINT); /* unique */
    CU_ASSERT_EQUAL(rsql_pg__code("23514", false), RSQL_ERR_CONSTRAINT); /* check */
    CU_ASSERT_EQUAL(rsql_pg__code("23502", false), RSQL_ERR_CONSTRAINT); /* not null */
    CU_ASSERT_EQUAL(rsql_pg__code("40001", false), RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_pg__code("40P01", false), RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_pg__code("08006", true), RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_EQUAL(rsql_pg__code("57P01", true), RSQL_ERR_UNAVAILABLE); /* admin shutdown */
    CU_ASSERT_EQUAL(rsql_pg__code(NULL, true), RSQL_ERR_UNAVAILABLE);
    CU_ASSERT_EQUAL(rsql_pg__code("", false), RSQL_ERR_REMOTE);
    CU_ASSERT_EQUAL(rsql_pg__code("42P01", false), RSQL_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(rsql_pg__code("42501", false), RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_pg__code("28P01", false), RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_pg__code("22003", false), RSQL_ERR_TYPE);
    CU_ASSERT_EQUAL(rsql_pg__code("53100", false), RSQL_ERR_NO_SPACE);
    CU_ASSERT_EQUAL(rsql_pg__code("53300", false), RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_pg__code("2350", false), RSQL_ERR_REMOTE); /* not a SQLSTATE */
    CU_ASSERT_FALSE(rsql_err_code_retriable(rsql_pg__code("23505", false)));
    CU_ASSERT_TRUE(rsql_err_code_retriable(rsql_pg__code("40001", false)));
    CU_ASSERT_TRUE(rsql_err_code_retriable(rsql_pg__code(NULL, true)));
}

/* The postgres type check at open, and identifiers quoted for its SQL. */
static void test_pg_types_quoting(void)
{
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_INT, "integer", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_INT, "bigint", false)); /* wider: fine */
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_INT, "smallint", false)); /* may overflow */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_INT, "smallint", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_INT, "bigint", true));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_VARCHAR, "character varying(20)", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_VARCHAR, "jsonb", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_VARCHAR, "integer", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_VARCHAR, "integer", true)); /* read as text */
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_VARCHAR, "textual", false)); /* whole word */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_TIMESTAMP, "timestamp with time zone", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_TIMESTAMP, "timestamp(3) without time zone", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_BOOLEAN, "integer", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_BYTES, "bytea", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DOUBLE, "real", false)); /* loses precision */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_DOUBLE, "real", true));
    /* DECIMAL is numeric (exact) when written, never a double; DATE is date; nested: jsonb */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "numeric(10,2)", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "numeric", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "double precision", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "text", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "numericx", false)); /* whole word */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "bigint", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DECIMAL, "real", true));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_DATE, "date", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_DATE, "date", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DATE, "text", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_DATE, "timestamp with time zone", true));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_ROW, "jsonb", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_MAP, "json", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_ARRAY, "jsonb", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_ARRAY, "integer[]", false));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_ROW, "text", false));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_ROW, "jsonb", true)); /* the json decoder's */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_MAP, "json", true));
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_ARRAY, "integer[]", true)); /* via to_json */
    CU_ASSERT_TRUE(rsql_pg__type_fits(RSQL_TYPE_ARRAY, "text[]", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_ROW, "integer[]", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_MAP, "text", true));
    CU_ASSERT_FALSE(rsql_pg__type_fits(RSQL_TYPE_ARRAY, "[]", true));
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_pg__quote_table(&b, "orders");
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "\"orders\"");
    rsql_buf_reset(&b);
    rsql_pg__quote_table(&b, "shop.Or\"ders");
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "\"shop\".\"Or\"\"ders\"");
    rsql_buf_deinit(&b);
}

static void test_errors_sqlite_codes(void)
{
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_BUSY, "database is locked", 0), RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_LOCKED, "database table is locked", 0),
                    RSQL_ERR_BUSY);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_CONSTRAINT_CHECK, "CHECK constraint failed: v", 0),
                    RSQL_ERR_CONSTRAINT);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_CONSTRAINT, "NOT NULL constraint failed: t.v", 0),
                    RSQL_ERR_CONSTRAINT);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_ERROR, "no such table: t", 0), RSQL_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_ERROR, "table t has no column named x", 0),
                    RSQL_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_READONLY, "attempt to write a readonly database", 0),
                    RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_FULL, "database or disk is full", 0),
                    RSQL_ERR_NO_SPACE);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_CANTOPEN, "unable to open database file", ENOENT),
                    RSQL_ERR_NOT_FOUND);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_CANTOPEN, "unable to open database file", EACCES),
                    RSQL_ERR_PERMISSION);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_IOERR_WRITE, "disk I/O error", ENOSPC),
                    RSQL_ERR_NO_SPACE);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_TOOBIG, "string or blob too big", 0),
                    RSQL_ERR_TOO_LARGE);
    CU_ASSERT_EQUAL(rsql_sqlite__code(SQLITE_MISMATCH, "datatype mismatch", 0), RSQL_ERR_TYPE);
}

/* ---- through the session, with the runtime's log captured */

typedef struct logcap {
    int fd[2]; /* pipe: [0] the test reads, [1] the logger writes */
    int prev;
    char text[16384];
    size_t len;
} logcap_t;

static void log_begin(logcap_t *l)
{
    memset(l, 0, sizeof *l);
    CU_ASSERT_EQUAL_FATAL(pipe(l->fd), 0);
    fcntl(l->fd[0], F_SETFL, O_NONBLOCK);
    rsql_log_set_level(RSQL_LOG_WARN);
    l->prev = rsql_log_set_fd(l->fd[1]);
}

/* Read what the logger wrote so far; with wait_ms > 0 wait up to that long for more. */
static void log_read(logcap_t *l, int wait_ms)
{
    struct pollfd pfd = {l->fd[0], POLLIN, 0};
    if (wait_ms > 0 && poll(&pfd, 1, wait_ms) <= 0) {
        return;
    }
    ssize_t r;
    while (l->len + 1 < sizeof l->text &&
           (r = read(l->fd[0], l->text + l->len, sizeof l->text - 1 - l->len)) > 0) {
        l->len += (size_t)r;
    }
    l->text[l->len] = '\0';
}

/* Block until the log holds mark (or give up after timeout_s: the test then fails). */
static bool log_wait_for(logcap_t *l, const char *mark, int timeout_s)
{
    for (int i = 0; i < timeout_s * 10 && !strstr(l->text, mark); i++) {
        log_read(l, 100);
    }
    return strstr(l->text, mark) != NULL;
}

static void log_end(logcap_t *l)
{
    rsql_log_set_fd(l->prev);
    log_read(l, 0);
    close(l->fd[0]);
    close(l->fd[1]);
}

static rsql_session_t *new_session(const char *name)
{
    char cat[128];
    snprintf(cat, sizeof cat, "%s/%s.catalog", tmpdir, name);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(cat, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    return s;
}

static void sqlite_exec(const char *db_path, const char *sql)
{
    sqlite3 *db;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(db_path, &db), SQLITE_OK);
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        fprintf(stderr, "\n%s: %s\n", sql, msg);
        CU_FAIL("sqlite3_exec");
    }
    sqlite3_free(msg);
    sqlite3_close(db);
}

static int64_t sqlite_count(const char *db_path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st = NULL;
    int64_t n = -1;
    if (sqlite3_open(db_path, &db) == SQLITE_OK &&
        sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
        n = sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return n;
}

static const char *const datagen_src =
    "CREATE TABLE src (v INT) WITH ('connector'='datagen', 'rows-per-second'='0', "
    "'fields.v.kind'='sequence', 'fields.v.start'='1', 'fields.v.end'='5');";

/*
** A sqlite sink into a table whose CHECK constraint rows 3..5 violate: the run fails at once
** (no retry was made; errors.retry.timeout is 30 s) with SQLite's own message naming
** the constraint and the row; under tolerance 'all' the violating rows are dead-lettered with
** it and the others written.
*/
static void test_errors_sqlite_check_permanent(void)
{
    char db[128], sql[1024];
    snprintf(db, sizeof db, "%s/check.db", tmpdir);
    sqlite_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t (v INTEGER CHECK (v < 3))");
    rsql_session_t *s = new_session("check");
    snprintf(sql, sizeof sql,
             "%s CREATE TABLE dst (v INT) WITH ('connector'='sqlite', 'path'='%s', 'table'='t', "
             "'sink.batch-size'='1');"
             "SET 'errors.retry.timeout' = '30s';", /* the case: 30 s of retries */
             datagen_src, db);
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
    logcap_t log;
    log_begin(&log);
    rsql_err_t rc = cu_exec_all(s, "INSERT INTO dst SELECT v FROM src", &err);
    log_end(&log);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_CONSTRAINT);
    CU_ASSERT_FALSE(rsql_error_retriable(&err));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot insert the row of datagen@2: CHECK constraint "
                                           "failed: v < 3"));
    CU_ASSERT_PTR_NULL(strstr(err.msg, "not an error"));
    if (!strstr(err.msg, "CHECK constraint failed")) {
        fprintf(stderr, "\n  got: %s\n", err.msg);
    }
    CU_ASSERT_PTR_NULL(strstr(log.text, RETRY_MARK)); /* failed without a single retry */
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t"), 2); /* v = 1, 2 committed */

    /* tolerance 'all': the violating rows go to the dead-letter table with the message */
    snprintf(sql, sizeof sql,
             "CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, "
             "ts TIMESTAMP(3)) WITH ('connector'='sqlite', 'path'='%s', 'table'='dlq');"
             "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq';"
             "CREATE TABLE src2 (v INT) WITH ('connector'='datagen', 'rows-per-second'='0', "
             "'fields.v.kind'='sequence', 'fields.v.start'='-1', 'fields.v.end'='4');",
             db);
    CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
    log_begin(&log);
    rc = cu_exec_all(s, "INSERT INTO dst SELECT v FROM src2", &err);
    log_end(&log);
    CU_ASSERT_EQUAL(rc, RSQL_OK);
    CU_ASSERT_PTR_NULL(strstr(log.text, RETRY_MARK));
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t WHERE v < 1"), 2); /* -1, 0 */
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t"), 6);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM dlq WHERE stage = 'sink' AND error "
                                     "LIKE '%CHECK constraint failed: v < 3%'"),
                    2); /* 3, and 4 behind it in the same write */
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM dlq WHERE source = 'datagen@4'"), 1);
    rsql_session_destroy(s);
}

/*
** Under tolerance 'all', one violating row among six in one transaction: the transaction is
** narrowed down to its rows, so that row alone is dead-lettered (with SQLite's message) and
** the five others are written, in their order.
*/
static void test_errors_sqlite_all_isolates_the_row(void)
{
    char db[128], sql[1024];
    snprintf(db, sizeof db, "%s/isolate.db", tmpdir);
    sqlite_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t (v INTEGER CHECK (v <> 3))");
    rsql_session_t *s = new_session("isolate");
    snprintf(sql, sizeof sql,
             "CREATE TABLE src6 (v INT) WITH ('connector'='datagen', 'rows-per-second'='0', "
             "'fields.v.kind'='sequence', 'fields.v.start'='1', 'fields.v.end'='6');"
             "CREATE TABLE dst (v INT) WITH ('connector'='sqlite', 'path'='%s', 'table'='t', "
             "'sink.batch-size'='100');"
             "CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, "
             "ts TIMESTAMP(3)) WITH ('connector'='sqlite', 'path'='%s', 'table'='dlq');"
             "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq';",
             db, db);
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
    rsql_err_t rc = cu_exec_all(s, "INSERT INTO dst SELECT v FROM src6", &err);
    if (rc != RSQL_OK) {
        fprintf(stderr, "\n  got: %s\n", err.msg);
    }
    CU_ASSERT_EQUAL(rc, RSQL_OK);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t"), 5);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t WHERE v = 3"), 0);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT sum(v) FROM t"), 1 + 2 + 4 + 5 + 6);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t WHERE rowid = 3 AND v = 4"), 1);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM dlq"), 1);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM dlq WHERE stage = 'sink' AND source = "
                                     "'datagen@2' AND error LIKE '%CHECK constraint failed%'"),
                    1);
    rsql_session_destroy(s);
}

typedef struct busy_run {
    char sql[1024];
    rsql_err_t rc;
    rsql_error_t err;
} busy_run_t;

static void *busy_main(void *arg)
{
    busy_run_t *b = arg;
    rsql_session_t *s = new_session("busy");
    b->rc = cu_exec_all(s, b->sql, &b->err);
    rsql_session_destroy(s);
    return NULL;
}

/*
** A sqlite sink whose database another connection holds a write lock on: SQLITE_BUSY is
** transient, so the write is retried; once the retry is logged the lock is released, and the
** run ends with every row written.
*/
static void test_errors_sqlite_busy_transient(void)
{
    char db[128];
    snprintf(db, sizeof db, "%s/busy.db", tmpdir);
    /* the sink's tables exist as it makes them, so opening it needs no write lock (a
       positions table without resume_key would: test_conn_positions adds it) */
    sqlite_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t (v INTEGER);"
                    "CREATE TABLE rocketsql_positions(pipeline TEXT NOT NULL, \"partition\" TEXT "
                    "NOT NULL, \"offset\" INTEGER NOT NULL, resume_key TEXT, "
                    "PRIMARY KEY(pipeline, \"partition\"))");
    sqlite3 *holder;
    CU_ASSERT_EQUAL_FATAL(sqlite3_open(db, &holder), SQLITE_OK);
    CU_ASSERT_EQUAL_FATAL(sqlite3_exec(holder, "BEGIN IMMEDIATE; INSERT INTO t VALUES (100)", NULL,
                                       NULL, NULL),
                          SQLITE_OK);
    busy_run_t b;
    memset(&b, 0, sizeof b);
    snprintf(b.sql, sizeof b.sql,
             "%s CREATE TABLE dst (v INT) WITH ('connector'='sqlite', 'path'='%s', 'table'='t', "
             "'sink.batch-size'='1');" /* commits within write (not gathered until a flush) */
             "INSERT INTO dst SELECT v FROM src",
             datagen_src, db);
    logcap_t log;
    log_begin(&log);
    pthread_t th;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, busy_main, &b), 0);
    /* the event: the runtime retries the write because the database was busy */
    bool retried = log_wait_for(&log, "sink write failed (BUSY, " RETRY_MARK, 120);
    CU_ASSERT_TRUE(retried);
    CU_ASSERT_EQUAL(sqlite3_exec(holder, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    pthread_join(th, NULL);
    log_end(&log);
    sqlite3_close(holder);
    CU_ASSERT_PTR_NOT_NULL(strstr(log.text, "database is locked"));
    CU_ASSERT_EQUAL(b.rc, RSQL_OK);
    if (b.rc != RSQL_OK) {
        fprintf(stderr, "\n  got: %s\n", b.err.msg);
    }
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT count(*) FROM t"), 6);
    CU_ASSERT_EQUAL(sqlite_count(db, "SELECT sum(v) FROM t"), 115);
}

/* A filesystem sink on a full disk (/dev/full: ENOSPC) fails at once with the OS's message. */
static void test_errors_file_sink_no_space(void)
{
    rsql_session_t *s = new_session("full");
    char sql[1024];
    snprintf(sql, sizeof sql,
             "%s CREATE TABLE dst (v INT) WITH ('connector'='filesystem', 'path'='/dev/full');",
             datagen_src);
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
    logcap_t log;
    rsql_err_t rc;
    if (access("/dev/full", W_OK) == 0) {
        log_begin(&log);
        rc = cu_exec_all(s, "INSERT INTO dst SELECT v FROM src", &err);
        log_end(&log);
        CU_ASSERT_EQUAL(rc, RSQL_ERR_NO_SPACE);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot write /dev/full: No space left on device"));
        CU_ASSERT_PTR_NULL(strstr(log.text, RETRY_MARK));
    } else {
        fprintf(stderr, "(no writable /dev/full: the ENOSPC case is not run) ");
    }

    /* a missing input file: NOT_FOUND, at once */
    snprintf(sql, sizeof sql,
             "CREATE TABLE missing (v INT) WITH ('connector'='filesystem', 'path'='%s/nope.json');"
             "CREATE TABLE out (v INT) WITH ('connector'='blackhole');",
             tmpdir);
    CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
    log_begin(&log);
    rc = cu_exec_all(s, "INSERT INTO out SELECT v FROM missing", &err);
    log_end(&log);
    CU_ASSERT_EQUAL(rc, RSQL_ERR_NOT_FOUND);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "nope.json: No such file or directory"));
    CU_ASSERT_PTR_NULL(strstr(log.text, RETRY_MARK));
    rsql_session_destroy(s);
}

static int fdatasync_eio(int fd)
{
    (void)fd;
    errno = EIO;
    return -1;
}

/*
** A filesystem sink whose fdatasync fails (through its seam, rsql_file_fdatasync): no row is
** reported delivered before the sync that covers it, so the run fails with the sync's error
** and no source position is committed; with a working sync the same job commits them all.
*/
static void test_errors_file_sink_sync_fails(void)
{
    rsql_session_t *s = new_session("sync");
    char cat[128], out[128], sql[1024];
    snprintf(cat, sizeof cat, "%s/sync.catalog", tmpdir);
    snprintf(out, sizeof out, "%s/synced.json", tmpdir);
    snprintf(sql, sizeof sql,
             "CREATE TABLE src (v INT) WITH ('connector'='filesystem', 'path'='%s/sync_in.json');"
             "CREATE TABLE dst (v INT) WITH ('connector'='filesystem', 'path'='%s');"
             "CREATE JOB j AS INSERT INTO dst SELECT v FROM src;",
             tmpdir, out);
    char in[128];
    snprintf(in, sizeof in, "%s/sync_in.json", tmpdir);
    FILE *f = fopen(in, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"v\":1}\n{\"v\":2}\n{\"v\":3}\n", f);
    fclose(f);
    rsql_error_t err;
    CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
    rsql_file_fdatasync = fdatasync_eio;
    logcap_t log;
    log_begin(&log);
    rsql_err_t rc = cu_exec_all(s, "RUN JOB j", &err);
    log_end(&log);
    rsql_file_fdatasync = fdatasync;
    CU_ASSERT_EQUAL(rc, RSQL_ERR_IO);
    char want[256];
    snprintf(want, sizeof want, "cannot sync %s: Input/output error", out);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    CU_ASSERT_PTR_NULL(strstr(log.text, RETRY_MARK)); /* EIO is permanent */
    CU_ASSERT_EQUAL(sqlite_count(cat, "SELECT count(*) FROM offsets"), 0);
    /* the same job with a sync that works: every position committed */
    CU_ASSERT_EQUAL(cu_exec_all(s, "RUN JOB j", &err), RSQL_OK);
    CU_ASSERT_EQUAL(sqlite_count(cat, "SELECT count(*) FROM offsets"), 1);
    rsql_session_destroy(s);
}

/* ---- tolerance for every source */

#define DLQ_SQL                                                                             \
    "CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, "         \
    "ts TIMESTAMP(3)) WITH ('connector'='sqlite', 'path'='%s', 'table'='dlq');"

/*
** A sqlite source with one value its column type cannot hold: under 'all' the good rows are
** written and the bad one is dead-lettered with its raw row, stage and message; under 'none'
** the run fails with that message, the row before it written, nothing after it, and the
** stored position at the row before it.
*/
static void test_tolerance_sqlite_source_bad_value(void)
{
    char in[128], out[128], sql[2048], want[512];
    snprintf(in, sizeof in, "%s/bad_in.db", tmpdir);
    sqlite_exec(in, "CREATE TABLE src (id, name); INSERT INTO src VALUES (1, 'a'), ('abc', 'b'), "
                    "(3, 'c'), (4, 'd')");
    const char *mode[2] = {"all", "none"};
    for (int m = 0; m < 2; m++) {
        char cat[32];
        snprintf(cat, sizeof cat, "bad_%s", mode[m]);
        snprintf(out, sizeof out, "%s/%s.db", tmpdir, cat);
        rsql_session_t *s = new_session(cat);
        int n = snprintf(sql, sizeof sql,
                         "CREATE TABLE src (id BIGINT, name VARCHAR) WITH ('connector'='sqlite', "
                         "'path'='%s', 'table'='src');"
                         "CREATE TABLE dst (id BIGINT, name VARCHAR) WITH ('connector'='sqlite', "
                         "'path'='%s', 'table'='copy');",
                         in, out);
        n += snprintf(sql + n, sizeof sql - (size_t)n, DLQ_SQL, out);
        snprintf(sql + n, sizeof sql - (size_t)n,
                 "SET 'errors.tolerance' = '%s'; SET 'errors.dlq.table' = 'dlq';"
                 "CREATE JOB j AS INSERT INTO dst SELECT id, name FROM src;",
                 mode[m]);
        rsql_error_t err;
        CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
        rsql_err_t rc = cu_exec_all(s, "RUN JOB j", &err);
        snprintf(want, sizeof want,
                 "%sdecode error at sqlite:%s#src@2: column 'id': expected BIGINT, got TEXT "
                 "\"abc\"",
                 m == 0 ? "" : "job 'j': ", in);
        if (m == 0) {
            CU_ASSERT_EQUAL(rc, RSQL_OK);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT count(*) FROM copy"), 3);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT sum(id) FROM copy"), 8);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT count(*) FROM dlq"), 1);
            char src[256];
            snprintf(src, sizeof src, "sqlite:%s#src@2", in);
            char *q = sqlite3_mprintf("SELECT count(*) FROM dlq WHERE stage = 'decode' AND raw = "
                                      "'{\"id\":\"abc\",\"name\":\"b\"}' AND error = %Q AND "
                                      "source = %Q",
                                      want, src);
            CU_ASSERT_EQUAL(sqlite_count(out, q), 1);
            sqlite3_free(q);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT \"offset\" FROM rocketsql_positions WHERE "
                                              "pipeline = 'j'"),
                            4);
        } else {
            CU_ASSERT_EQUAL(rc, RSQL_ERR_DECODE);
            /* the run stops at the bad record and says how to go on past such records */
            strncat(want,
                    " (SET 'errors.tolerance' = 'all' to skip bad records, and "
                    "'errors.dlq.table' to keep them)",
                    sizeof want - strlen(want) - 1);
            CU_ASSERT_STRING_EQUAL(err.msg, want);
            if (strcmp(err.msg, want) != 0) {
                fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
            }
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT count(*) FROM copy"), 1);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT max(id) FROM copy"), 1);
            CU_ASSERT(sqlite_count(out, "SELECT count(*) FROM dlq") < 1); /* none, or no table */
            /* stopped at its position: the next run starts at the bad row again */
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT \"offset\" FROM rocketsql_positions WHERE "
                                              "pipeline = 'j'"),
                            1);
        }
        rsql_session_destroy(s);
    }
}

/*
** A file whose second line is over the 16 MiB line limit: under 'all' the lines around it
** are written and it is dead-lettered (its first 64 KiB as raw form); under 'none' the run
** fails at it with the line's size and position.
*/
static void test_tolerance_file_long_line(void)
{
    char in[128], out[128], sql[2048];
    snprintf(in, sizeof in, "%s/long.json", tmpdir);
    FILE *f = fopen(in, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs("{\"id\": 1}\n", f);
    char *big = malloc(1024 * 1024);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    memset(big, ' ', 1024 * 1024);
    for (int i = 0; i < 17; i++) {
        fwrite(big, 1, 1024 * 1024, f);
    }
    free(big);
    fputs("\n{\"id\": 3}\n", f);
    fclose(f);
    const char *mode[2] = {"all", "none"};
    for (int m = 0; m < 2; m++) {
        char cat[32];
        snprintf(cat, sizeof cat, "long_%s", mode[m]);
        snprintf(out, sizeof out, "%s/%s.db", tmpdir, cat);
        rsql_session_t *s = new_session(cat);
        int n = snprintf(sql, sizeof sql,
                         "CREATE TABLE src (id BIGINT) WITH ('connector'='filesystem', "
                         "'path'='%s');"
                         "CREATE TABLE dst (id BIGINT) WITH ('connector'='sqlite', "
                         "'path'='%s', 'table'='copy');",
                         in, out);
        n += snprintf(sql + n, sizeof sql - (size_t)n, DLQ_SQL, out);
        snprintf(sql + n, sizeof sql - (size_t)n,
                 "SET 'errors.tolerance' = '%s'; SET 'errors.dlq.table' = 'dlq';", mode[m]);
        rsql_error_t err;
        CU_ASSERT_EQUAL_FATAL(cu_exec_all(s, sql, &err), RSQL_OK);
        rsql_err_t rc = cu_exec_all(s, "INSERT INTO dst SELECT id FROM src", &err);
        if (m == 0) {
            CU_ASSERT_EQUAL(rc, RSQL_OK);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT sum(id) FROM copy"), 4);
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT count(*) FROM dlq WHERE stage = 'decode' "
                                              "AND length(raw) = 65536 AND error LIKE "
                                              "'%line longer than 16 MiB (17825792 bytes;%'"),
                            1);
        } else {
            char want[512];
            snprintf(want, sizeof want,
                     "decode error at file:%s@10 line 2: line longer than 16 MiB (17825792 "
                     "bytes; the first 65536 are kept as its raw form) (SET 'errors.tolerance' "
                     "= 'all' to skip bad records, and 'errors.dlq.table' to keep them)",
                     in);
            CU_ASSERT_EQUAL(rc, RSQL_ERR_TOO_LARGE);
            CU_ASSERT_STRING_EQUAL(err.msg, want);
            if (strcmp(err.msg, want) != 0) {
                fprintf(stderr, "\n  got:  %s\n  want: %s\n", err.msg, want);
            }
            CU_ASSERT_EQUAL(sqlite_count(out, "SELECT sum(id) FROM copy"), 1);
        }
        rsql_session_destroy(s);
    }
    unlink(in);
}

static CU_TestInfo error_tests[] = {
    {"test_errors_classes", test_errors_classes},
    {"test_errors_errno", test_errors_errno},
    {"test_errors_pg_codes", test_errors_pg_codes},
    {"test_pg_types_quoting", test_pg_types_quoting},
    {"test_errors_sqlite_codes", test_errors_sqlite_codes},
    {"test_errors_sqlite_check_permanent", test_errors_sqlite_check_permanent},
    {"test_errors_sqlite_all_isolates_the_row", test_errors_sqlite_all_isolates_the_row},
    {"test_errors_sqlite_busy_transient", test_errors_sqlite_busy_transient},
    {"test_errors_file_sink_no_space", test_errors_file_sink_no_space},
    {"test_errors_file_sink_sync_fails", test_errors_file_sink_sync_fails},
    {"test_tolerance_sqlite_source_bad_value", test_tolerance_sqlite_source_bad_value},
    {"test_tolerance_file_long_line", test_tolerance_file_long_line},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"conn_errors", suite_init, suite_clean, NULL, NULL, error_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"

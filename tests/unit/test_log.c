/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_log.c: level names and parsing, the command line's rule (the
 * --log-level flag wins over $ROCKETSQL_LOG; a bad value is a usage error naming where it
 * came from), level filtering, the line format (prefix, CR/LF flattened, long lines cut),
 * deferred lines written only at flush, several threads logging at once producing whole
 * lines, none interleaved and any lost counted, an output nobody reads that never makes a
 * caller wait, a sync that returns while another thread goes on logging, and a process that
 * exits right after logging losing no line. Lines go to a temporary file or a pipe
 * (rsql_log_set_fd).
 */
#include "config.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"

#include <fcntl.h>
#include <sys/wait.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CUnit/CUnit.h>

static char log_path[64];
static int log_fd_saved = -1;

/* Send the log to a fresh temporary file; returns its fd. */
static int capture_start(void)
{
    snprintf(log_path, sizeof log_path, "/tmp/rsql-test-log-XXXXXX");
    int fd = mkstemp(log_path);
    CU_ASSERT_FATAL(fd >= 0);
    log_fd_saved = rsql_log_set_fd(fd);
    return fd;
}

/* Stop capturing; returns what was logged (malloc'd) and removes the file. */
static char *capture_end(int fd)
{
    rsql_log_set_fd(log_fd_saved);
    off_t size = lseek(fd, 0, SEEK_END);
    CU_ASSERT_FATAL(size >= 0);
    char *text = malloc((size_t)size + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    ssize_t n = pread(fd, text, (size_t)size, 0);
    CU_ASSERT_EQUAL(n, size);
    text[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(log_path);
    return text;
}

static void test_log_level_parse(void)
{
    static const char *const names[] = {"error", "warn", "info", "debug", "trace"};
    for (int i = 0; i < 5; i++) {
        rsql_log_level_t l = RSQL_LOG_TRACE;
        CU_ASSERT_EQUAL(rsql_log_level_parse(names[i], &l, NULL), RSQL_OK);
        CU_ASSERT_EQUAL((int)l, i);
        CU_ASSERT_STRING_EQUAL(rsql_log_level_name(l), names[i]);
    }
    rsql_log_level_t l = RSQL_LOG_ERROR;
    CU_ASSERT_EQUAL(rsql_log_level_parse("DeBuG", &l, NULL), RSQL_OK);
    CU_ASSERT_EQUAL(l, RSQL_LOG_DEBUG);
    CU_ASSERT_STRING_EQUAL(rsql_log_level_name((rsql_log_level_t)9), "?");

    const char *bad[] = {"loud", "", "warning ", "3", NULL};
    for (int i = 0; i < 5; i++) {
        rsql_error_t err;
        rsql_error_clear(&err);
        l = RSQL_LOG_INFO;
        CU_ASSERT_EQUAL(rsql_log_level_parse(bad[i], &l, &err), RSQL_ERR_USAGE);
        CU_ASSERT_EQUAL(err.code, RSQL_ERR_USAGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "invalid log level '"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(expected error, warn, info, debug or trace)"));
        CU_ASSERT_EQUAL(l, RSQL_LOG_INFO); /* untouched */
    }
}

static void test_log_configure(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_error_t err;

    rsql_log_set_level(RSQL_LOG_WARN);
    CU_ASSERT_EQUAL(rsql_log_configure(NULL, NULL, NULL), RSQL_OK); /* neither: unchanged */
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_WARN);
    CU_ASSERT_EQUAL(rsql_log_configure(NULL, "", NULL), RSQL_OK); /* empty env = unset */
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_WARN);
    CU_ASSERT_EQUAL(rsql_log_configure(NULL, "debug", NULL), RSQL_OK);
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_DEBUG);
    CU_ASSERT_EQUAL(rsql_log_configure("error", "trace", NULL), RSQL_OK); /* the flag wins */
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_ERROR);
    CU_ASSERT_EQUAL(rsql_log_configure("info", "nonsense", NULL), RSQL_OK); /* env not used */
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_INFO);

    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_log_configure("loud", "debug", &err), RSQL_ERR_USAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "invalid log level 'loud' for --log-level (expected error, "
                                    "warn, info, debug or trace)");
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_INFO); /* unchanged on error */
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_log_configure(NULL, "verbose", &err), RSQL_ERR_USAGE);
    CU_ASSERT_STRING_EQUAL(err.msg, "invalid log level 'verbose' for ROCKETSQL_LOG (expected "
                                    "error, warn, info, debug or trace)");
    CU_ASSERT_EQUAL(rsql_log_get_level(), RSQL_LOG_INFO);
    rsql_log_set_level(saved);
}

static void test_log_filtering(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    int fd = capture_start();
    rsql_log_set_level(RSQL_LOG_WARN);
    CU_ASSERT_TRUE(rsql_log_enabled(RSQL_LOG_ERROR));
    CU_ASSERT_TRUE(rsql_log_enabled(RSQL_LOG_WARN));
    CU_ASSERT_FALSE(rsql_log_enabled(RSQL_LOG_INFO));
    CU_ASSERT_FALSE(rsql_log_enabled(RSQL_LOG_TRACE));
    for (int l = RSQL_LOG_ERROR; l <= RSQL_LOG_TRACE; l++) {
        rsql_log((rsql_log_level_t)l, "runtime", "at %s", rsql_log_level_name(l));
    }
    rsql_log_set_level(RSQL_LOG_TRACE);
    rsql_log(RSQL_LOG_TRACE, "rocketmq", "now %d", 42);
    rsql_log(RSQL_LOG_DEBUG, NULL, "no component");
    rsql_log_set_level(RSQL_LOG_ERROR);
    rsql_log(RSQL_LOG_WARN, "sqlite", "dropped");
    char *text = capture_end(fd);
    CU_ASSERT_STRING_EQUAL(text, "rocketsql: error: runtime: at error\n"
                                 "rocketsql: warn: runtime: at warn\n"
                                 "rocketsql: trace: rocketmq: now 42\n"
                                 "rocketsql: debug: -: no component\n");
    free(text);
    rsql_log_set_level(saved);
}

static void test_log_line_format(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int fd = capture_start();
    rsql_log(RSQL_LOG_INFO, "runtime", "two\nlines\r\nin one");
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    rsql_log(RSQL_LOG_INFO, "runtime", "%s", big);
    char *text = capture_end(fd);
    const char *first = "rocketsql: info: runtime: two lines  in one\n";
    CU_ASSERT_EQUAL(strncmp(text, first, strlen(first)), 0);
    const char *second = text + strlen(first);
    CU_ASSERT_EQUAL(strlen(second), RSQL_LOG_LINE_MAX); /* cut, newline included */
    CU_ASSERT_EQUAL(strncmp(second, "rocketsql: info: runtime: xxx", 29), 0);
    CU_ASSERT_EQUAL(strcmp(second + RSQL_LOG_LINE_MAX - 5, "x...\n"), 0);
    free(text);
    rsql_log_set_level(saved);
}

/* The job context in text lines, and --log-format json: escaped, cut, still one object. */
static void test_log_context_and_json(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int fd = capture_start();
    rsql_log_set_context("orders", 0);
    rsql_log(RSQL_LOG_INFO, "serve", "a");
    rsql_log_set_context("orders", 42);
    rsql_log(RSQL_LOG_WARN, "runtime", "b");
    CU_ASSERT_EQUAL(rsql_log_set_format("json", NULL), RSQL_OK);
    rsql_log(RSQL_LOG_WARN, "runtime", "say \"hi\"\n\\ %d", 7);
    rsql_log_set_context("j\"x", 3);
    char big[3000];
    memset(big, '"', sizeof big - 1); /* every byte needs escaping */
    big[sizeof big - 1] = '\0';
    rsql_log(RSQL_LOG_INFO, "runtime", "%s", big);
    rsql_log_set_context(NULL, 0);
    rsql_log(RSQL_LOG_INFO, "c", "plain");
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_log_set_format("xml", &err), RSQL_ERR_USAGE);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "invalid log format 'xml' for --log-format (expected text or json)");
    CU_ASSERT_EQUAL(rsql_log_set_format("text", NULL), RSQL_OK);
    rsql_log(RSQL_LOG_INFO, "c", "back");
    char *text = capture_end(fd);
    char *l1 = text, *l2 = strchr(l1, '\n') + 1, *l3 = strchr(l2, '\n') + 1;
    char *l4 = strchr(l3, '\n') + 1, *l5 = strchr(l4, '\n') + 1, *l6 = strchr(l5, '\n') + 1;
    CU_ASSERT_EQUAL(strncmp(l1, "rocketsql: info: serve: job=orders: a\n", (size_t)(l2 - l1)), 0);
    CU_ASSERT_EQUAL(strncmp(l2, "rocketsql: warn: runtime: job=orders run=42: b\n",
                            (size_t)(l3 - l2)), 0);
    CU_ASSERT_EQUAL(strncmp(l3, "{\"time\":\"", 9), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(l3, "\"level\":\"warn\",\"component\":\"runtime\","
                                      "\"job\":\"orders\",\"run\":42,"
                                      "\"msg\":\"say \\\"hi\\\"\\u000a\\\\ 7\"}\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(l4, "\"job\":\"j\\\"x\",\"run\":3,\"msg\":\"\\\"\\\""));
    CU_ASSERT((size_t)(l5 - l4) <= RSQL_LOG_LINE_MAX);          /* cut to one line */
    CU_ASSERT_EQUAL(strncmp(l5 - 5, "\\\"\"}\n", 5), 0); /* whole escapes, closed */
    CU_ASSERT_PTR_NOT_NULL(strstr(l5, "\"component\":\"c\",\"msg\":\"plain\"}\n")); /* no job */
    CU_ASSERT_EQUAL(strcmp(l6, "rocketsql: info: c: back\n"), 0);
    free(text);
    rsql_log_set_level(saved);
}

static void *ctx_thread_main(void *arg)
{
    rsql_log(RSQL_LOG_INFO, "rocketmq", "%s", (const char *)arg);
    return NULL;
}

/* A thread started with rsql_log_thread_create logs with its creator's context; a plain one
   (and one started from a thread without a context) with none. */
static void test_log_thread_inherits_context(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int fd = capture_start();
    pthread_t th;
    rsql_log_set_context("relay", 7);
    CU_ASSERT_EQUAL_FATAL(rsql_log_thread_create(&th, ctx_thread_main, "from the client"), 0);
    pthread_join(th, NULL);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, ctx_thread_main, "plain"), 0);
    pthread_join(th, NULL);
    rsql_log_set_context(NULL, 0);
    CU_ASSERT_EQUAL_FATAL(rsql_log_thread_create(&th, ctx_thread_main, "none"), 0);
    pthread_join(th, NULL);
    char *text = capture_end(fd);
    CU_ASSERT_STRING_EQUAL(text, "rocketsql: info: rocketmq: job=relay run=7: from the client\n"
                                 "rocketsql: info: rocketmq: plain\n"
                                 "rocketsql: info: rocketmq: none\n");
    free(text);
    rsql_log_set_level(saved);
}

static void test_log_defer_flush(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int fd = capture_start();
    rsql_buf_t pending = RSQL_BUF_INIT;
    rsql_log_defer(&pending, RSQL_LOG_WARN, "rocketmq", "held %d", 1);
    rsql_log_defer(&pending, RSQL_LOG_DEBUG, "rocketmq", "filtered"); /* level off */
    rsql_log_defer(&pending, RSQL_LOG_INFO, "rocketmq", "held %d", 2);
    rsql_log_defer(NULL, RSQL_LOG_ERROR, "rocketmq", "no buffer"); /* a no-op */
    CU_ASSERT_EQUAL(lseek(fd, 0, SEEK_END), 0); /* nothing written before the flush */
    rsql_log(RSQL_LOG_INFO, "runtime", "direct");
    rsql_log_flush(&pending);
    CU_ASSERT_PTR_NULL(pending.data); /* freed, reusable */
    CU_ASSERT_EQUAL(pending.len, 0);
    rsql_log_flush(&pending); /* empty: nothing */
    rsql_buf_t none = RSQL_BUF_INIT;
    rsql_log_defer(&none, RSQL_LOG_TRACE, "x", "off");
    CU_ASSERT_PTR_NULL(none.data); /* a disabled level does not allocate */
    char *text = capture_end(fd);
    CU_ASSERT_STRING_EQUAL(text, "rocketsql: info: runtime: direct\n"
                                 "rocketsql: warn: rocketmq: held 1\n"
                                 "rocketsql: info: rocketmq: held 2\n");
    free(text);
    rsql_log_set_level(saved);
}

#define N_THREADS 8
#define N_LINES 2000

/* Thread i writes N_LINES lines "seq=<n> <pad>", the pad a run of 'a'+i of varying length
   (up to ~900 bytes): in each block of four, one line through rsql_log and three through
   rsql_log_defer, flushed together (so the thread's own order is kept). */
static void *logger_main(void *arg)
{
    int id = (int)(intptr_t)arg;
    char comp[8];
    snprintf(comp, sizeof comp, "t%d", id);
    char pad[1000];
    rsql_buf_t pending = RSQL_BUF_INIT;
    for (int n = 0; n < N_LINES; n++) {
        int len = (n * 37 + id * 101) % 900;
        memset(pad, 'a' + id, (size_t)len);
        pad[len] = '\0';
        if (n % 4 == 0) {
            rsql_log(RSQL_LOG_INFO, comp, "seq=%d %s", n, pad);
        } else {
            rsql_log_defer(&pending, RSQL_LOG_INFO, comp, "seq=%d %s", n, pad);
            if (n % 4 == 3) {
                rsql_log_flush(&pending);
            }
        }
    }
    rsql_log_flush(&pending);
    return NULL;
}

static void test_log_threads_whole_lines(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int fd = capture_start();
    uint64_t dropped0 = rsql_log_dropped();
    pthread_t th[N_THREADS];
    for (int i = 0; i < N_THREADS; i++) {
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, logger_main, (void *)(intptr_t)i), 0);
    }
    for (int i = 0; i < N_THREADS; i++) {
        pthread_join(th[i], NULL);
    }
    char *text = capture_end(fd);
    /* the writer may fall behind the eight threads: what the ring had no room for is dropped,
       counted and noted; every line that is there is whole and in its thread's order */
    int dropped = (int)(rsql_log_dropped() - dropped0);
    int next_seq[N_THREADS] = {0};
    int bad = 0, lines = 0, noted = 0;
    for (char *line = text, *nl; *line; line = nl + 1) {
        nl = strchr(line, '\n');
        if (!nl) {
            bad++; /* a last line without its newline */
            break;
        }
        *nl = '\0';
        int id = -1, seq = -1, off = 0, k = 0;
        if (sscanf(line, "rocketsql: warn: log: %d log line(s) dropped", &k) == 1) {
            noted += k;
            continue;
        }
        lines++;
        if (sscanf(line, "rocketsql: info: t%d: seq=%d %n", &id, &seq, &off) != 2 || id < 0 ||
            id >= N_THREADS || seq < next_seq[id] || (seq > next_seq[id] && dropped == 0)) {
            bad++;
            continue;
        }
        next_seq[id] = seq + 1;
        int want = (seq * 37 + id * 101) % 900;
        const char *p = line + off;
        char pad_char[2] = {(char)('a' + id), '\0'};
        if ((int)strlen(p) != want || (int)strspn(p, pad_char) != want) {
            bad++;
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL(lines + dropped, N_THREADS * N_LINES);
    CU_ASSERT(noted <= dropped); /* the last drops are noted only before a next line */
    for (int i = 0; i < N_THREADS && dropped == 0; i++) {
        CU_ASSERT_EQUAL(next_seq[i], N_LINES);
    }
    free(text);
    rsql_log_set_level(saved);
}

/* ---- an output nobody reads */

#define STALL_LINES 20000

typedef struct stall {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    int fd;         /* the pipe's read end (the reader) */
    rsql_buf_t got; /* what the reader read */
} stall_t;

static void *stall_logger(void *arg)
{
    stall_t *st = arg;
    char pad[201];
    memset(pad, 'x', 200);
    pad[200] = '\0';
    for (int i = 0; i < STALL_LINES; i++) {
        rsql_log(RSQL_LOG_INFO, "stall", "line %d %s", i, pad);
    }
    pthread_mutex_lock(&st->mu);
    st->done = true;
    pthread_cond_broadcast(&st->cv);
    pthread_mutex_unlock(&st->mu);
    return NULL;
}

static void *stall_reader(void *arg)
{
    stall_t *st = arg;
    char buf[65536];
    ssize_t r;
    while ((r = read(st->fd, buf, sizeof buf)) > 0) {
        rsql_buf_append(&st->got, buf, (size_t)r);
    }
    return NULL;
}

/*
** The log goes to a pipe nobody reads (made as small as the kernel allows): 20,000 lines of
** 240 bytes, more than the pipe and the logger's ring hold, are all logged without waiting;
** the ones that found no room are counted (rsql_log_dropped). Once the pipe is read, the
** next line goes out after a warning that says how many were dropped, and the lines that
** were kept come out whole.
*/
static void test_log_stalled_output(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int p[2];
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    fcntl(p[1], F_SETPIPE_SZ, 4096);
    stall_t st = {.fd = p[0], .got = RSQL_BUF_INIT};
    pthread_mutex_init(&st.mu, NULL);
    rsql_cond_init_monotonic(&st.cv);
    /* a count still pending from an earlier test (drops it allowed) goes out with this line,
       to the old output, so the notes read below count this test's drops only */
    rsql_log(RSQL_LOG_INFO, "stall", "before");
    rsql_log_sync();
    uint64_t dropped0 = rsql_log_dropped();
    int prev = rsql_log_set_fd(p[1]);
    pthread_t lt, rt;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&lt, NULL, stall_logger, &st), 0);
    int64_t until = rsql_now_ms() + 20000;
    pthread_mutex_lock(&st.mu);
    while (!st.done && !rsql_deadline_passed(until)) {
        rsql_cond_wait_until(&st.cv, &st.mu, until);
    }
    bool done = st.done;
    pthread_mutex_unlock(&st.mu);
    CU_ASSERT_TRUE(done); /* else logging waited for the output */
    uint64_t dropped = rsql_log_dropped() - dropped0;
    CU_ASSERT(dropped > 0);
    /* now read it: the next line comes after the note with the count */
    CU_ASSERT_EQUAL_FATAL(pthread_create(&rt, NULL, stall_reader, &st), 0);
    pthread_join(lt, NULL);
    rsql_log_sync(); /* what the ring holds is written: there is room again */
    rsql_log(RSQL_LOG_INFO, "stall", "after");
    rsql_log_set_fd(prev); /* writes out what is left first */
    close(p[1]);
    pthread_join(rt, NULL);
    rsql_buf_putc(&st.got, '\0');
    const char *text = st.got.data ? st.got.data : "";
    /* one note, or several when the writer took a chunk (making room) after drops began:
       together they count every line dropped, the last before the line after */
    static const char note[] = "rocketsql: warn: log: ";
    unsigned long long noted = 0;
    const char *n = NULL;
    for (const char *at = strstr(text, note); at; at = strstr(at + 1, note)) {
        unsigned long long c = 0;
        if (sscanf(at + sizeof note - 1, "%llu log line(s) dropped: ", &c) == 1) {
            noted += c;
            n = at;
        }
    }
    const char *after = strstr(text, "rocketsql: info: stall: after\n");
    CU_ASSERT_EQUAL(noted, (unsigned long long)dropped);
    CU_ASSERT_PTR_NOT_NULL(n);
    CU_ASSERT_PTR_NOT_NULL(after);
    CU_ASSERT(n && after && n < after);
    int lines = 0, bad = 0;
    for (const char *l = text; *l;) {
        const char *nl = strchr(l, '\n');
        if (!nl) {
            bad++;
            break;
        }
        int i = -1, off = 0;
        if (sscanf(l, "rocketsql: info: stall: line %d %n", &i, &off) == 1) {
            lines++;
            bad += nl - (l + off) != 200;
        }
        l = nl + 1;
    }
    CU_ASSERT_EQUAL(bad, 0);
    CU_ASSERT_EQUAL((uint64_t)lines + dropped, (uint64_t)STALL_LINES);
    rsql_buf_deinit(&st.got);
    close(p[0]);
    pthread_cond_destroy(&st.cv);
    pthread_mutex_destroy(&st.mu);
    rsql_log_set_level(saved);
}

/* A logger that never stops until told, and a slow reader of the pipe it logs into. */
typedef struct busy {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int logged;      /* under mu */
    bool synced;     /* rsql_log_sync returned; under mu */
    atomic_bool stop;
    int fd;          /* the pipe's read end */
} busy_t;

static void *busy_logger(void *arg)
{
    busy_t *b = arg;
    char pad[801];
    memset(pad, 'y', 800);
    pad[800] = '\0';
    while (!atomic_load(&b->stop)) {
        rsql_log(RSQL_LOG_INFO, "busy", "%s", pad);
        pthread_mutex_lock(&b->mu);
        b->logged++;
        pthread_cond_broadcast(&b->cv);
        pthread_mutex_unlock(&b->mu);
    }
    return NULL;
}

static void *busy_reader(void *arg)
{
    busy_t *b = arg;
    char buf[16]; /* slower than the logger: the ring never empties while it logs */
    while (read(b->fd, buf, sizeof buf) > 0) {
    }
    return NULL;
}

static void *busy_syncer(void *arg)
{
    busy_t *b = arg;
    rsql_log_sync();
    pthread_mutex_lock(&b->mu);
    b->synced = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/*
** rsql_log_sync (run at exit) waits for the lines logged before it, not for the ring to be
** empty: while another thread goes on logging faster than the output is read, the ring never
** empties, yet the writer makes progress, so a sync waiting for an empty ring never returns
** (the process never exits). Here a thread logs without end into a pipe read slowly; a sync
** must return while it still logs.
*/
static void test_log_sync_busy(void)
{
    rsql_log_level_t saved = rsql_log_get_level();
    rsql_log_set_level(RSQL_LOG_INFO);
    int p[2];
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    fcntl(p[1], F_SETPIPE_SZ, 4096);
    busy_t b = {.fd = p[0]};
    pthread_mutex_init(&b.mu, NULL);
    rsql_cond_init_monotonic(&b.cv);
    int prev = rsql_log_set_fd(p[1]);
    pthread_t lt, rt, st;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&rt, NULL, busy_reader, &b), 0);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&lt, NULL, busy_logger, &b), 0);
    pthread_mutex_lock(&b.mu);
    while (b.logged < 5000) { /* the ring is full by now: more than 1 MiB was logged */
        pthread_cond_wait(&b.cv, &b.mu);
    }
    pthread_mutex_unlock(&b.mu);
    CU_ASSERT_EQUAL_FATAL(pthread_create(&st, NULL, busy_syncer, &b), 0);
    int64_t until = rsql_now_ms() + 15000;
    pthread_mutex_lock(&b.mu);
    while (!b.synced && !rsql_deadline_passed(until)) {
        rsql_cond_wait_until(&b.cv, &b.mu, until);
    }
    bool synced = b.synced;
    pthread_mutex_unlock(&b.mu);
    CU_ASSERT_TRUE(synced); /* else the sync waited for the logger to stop */
    atomic_store(&b.stop, true);
    pthread_join(lt, NULL);
    pthread_join(st, NULL);
    rsql_log_set_fd(prev); /* writes out what is left first */
    close(p[1]);
    pthread_join(rt, NULL);
    close(p[0]);
    pthread_cond_destroy(&b.cv);
    pthread_mutex_destroy(&b.mu);
    rsql_log_set_level(saved);
}

/*
** A process that logs and exits at once (exit, not _exit) loses no line: what the writer had
** not written yet is written at exit. The child logs 5,000 lines into a file and exits; the
** file then holds all of them.
*/
static void test_log_exit_flush(void)
{
    int fd = capture_start();
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        rsql_log_set_level(RSQL_LOG_INFO);
        for (int i = 0; i < 5000; i++) {
            rsql_log(RSQL_LOG_INFO, "exit", "line %d of 5000, padded to be longer", i);
        }
        exit(0);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char *text = capture_end(fd);
    int lines = 0;
    for (const char *l = text; (l = strstr(l, "rocketsql: info: exit: line ")); l++) {
        lines++;
    }
    CU_ASSERT_EQUAL(lines, 5000);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "line 4999 of 5000"));
    free(text);
}

static CU_TestInfo log_tests[] = {
    {"test_log_level_parse", test_log_level_parse},
    {"test_log_configure", test_log_configure},
    {"test_log_filtering", test_log_filtering},
    {"test_log_line_format", test_log_line_format},
    {"test_log_defer_flush", test_log_defer_flush},
    {"test_log_context_and_json", test_log_context_and_json},
    {"test_log_thread_inherits_context", test_log_thread_inherits_context},
    {"test_log_threads_whole_lines", test_log_threads_whole_lines},
    {"test_log_stalled_output", test_log_stalled_output},
    {"test_log_sync_busy", test_log_sync_busy},
    {"test_log_exit_flush", test_log_exit_flush},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"log", NULL, NULL, NULL, NULL, log_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * exec: a rocketsql sink plugin that runs a shell command for every row.
 * The row, encoded by the table's format (json or csv, through the SDK's
 * encoder) plus a newline, is the command's standard input; its exit
 * status is the row's outcome: 0 = written, anything else = failed with a
 * message naming the status and the command (the first line the command
 * wrote to standard error follows). A command that runs past 'timeout' is
 * killed, with its whole process group, and its row fails.
 *
 *   CREATE TABLE alerts (id BIGINT, msg STRING) WITH (
 *     'connector' = 'exec', 'command' = 'logger -t rocketsql', 'format' = 'csv');
 *
 * Built against the installed SDK header only (see Makefile, README.md);
 * the contract it follows is docs/PLUGINS.md.
 *
 * Threads: everything runs on the pipeline's write thread. write() blocks
 * while the batch's commands run, one after the other, then reports the
 * batch's results once, before it returns. SIGPIPE (a command that does not
 * read its input) is blocked on that thread while a command runs, and
 * discarded.
 */
#define _GNU_SOURCE /* pipe2, O_CLOEXEC */
#include <rocketsql/connector.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- options: one row each, written into exec_conf_t when the table is validated */

static const char *const exec_formats[] = {"json", "csv", NULL};

typedef struct exec_conf {
    const char *command; /* run as /bin/sh -c command */
    int format;          /* index in exec_formats */
    int64_t timeout_ms;  /* per row */
} exec_conf_t;

static const rsql_opt_def_t exec_opts[] = {
    RSQL_CONN_ROW_CONNECTOR("exec"),
    RSQL_OPT_ROW_F("command", RSQL_OPT_STR, RSQL_OPT_F_REQUIRED, NULL, 0, 0, NULL,
                   "Shell command (`/bin/sh -c`) run once per row, with the row's encoding and "
                   "a newline on its standard input (its standard output is discarded). Exit "
                   "status 0: the row is written; any other status fails the row.",
                   RSQL_OPT_FIELD(exec_conf_t, command, const char *)),
    RSQL_OPT_ROW_F("format", RSQL_OPT_ENUM, 0, "json", 0, 0, exec_formats,
                   "How a row is encoded on the command's standard input.",
                   RSQL_OPT_FIELD(exec_conf_t, format, int)),
    RSQL_OPT_ROW_F("timeout", RSQL_OPT_DURATION, 0, "30s", 1, INT64_C(86400000), NULL,
                   "Longest a command may run for one row; it is then killed (SIGKILL, with "
                   "its process group) and the row fails.",
                   RSQL_OPT_FIELD(exec_conf_t, timeout_ms, int64_t)),
    RSQL_OPT_END,
};

/* ---- the sink */

struct rsql_sink {
    char *command;
    int64_t timeout_ms;
    rsql_encoder_t *enc;
    rsql_buf_t body; /* one row's encoding */
    rsql_sink_result_t *results;
    int results_cap;
    rsql_delivery_cb deliver;
    void *deliver_opaque;
};

static void ex_close(rsql_sink_t *k)
{
    if (!k) {
        return;
    }
    rsql_encoder_destroy(k->enc);
    rsql_buf_deinit(&k->body);
    rsql_free(k->results);
    rsql_free(k->command);
    rsql_free(k);
}

static rsql_err_t ex_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    const exec_conf_t *conf = ctx->conf;
    if (!conf || !conf->command || conf->format < 0) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS, "exec: no configuration");
    }
    rsql_sink_t *k = rsql_calloc(1, sizeof *k);
    if (!k || !(k->command = rsql_strdup(conf->command))) {
        ex_close(k);
        return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
    }
    rsql_buf_init(&k->body);
    k->timeout_ms = conf->timeout_ms;
    k->deliver = ctx->deliver;
    k->deliver_opaque = ctx->deliver_opaque;
    k->enc = rsql_encoder_new(exec_formats[conf->format], ctx->format_conf, ctx->n_columns,
                              ctx->column_names, ctx->column_types, err);
    if (!k->enc) {
        ex_close(k);
        return err && err->code ? err->code : RSQL_ERR_INTERNAL;
    }
    *out = k;
    return RSQL_OK;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* What a command did: its wait status, or a timeout. */
typedef struct exec_run {
    int status;
    bool timed_out;
    char errline[128]; /* the first line of its standard error */
    size_t errlen;
    bool errline_done;
} exec_run_t;

static void keep_stderr(exec_run_t *r, const char *p, ssize_t n)
{
    for (ssize_t i = 0; i < n && !r->errline_done; i++) {
        if (p[i] == '\n' || r->errlen + 1 == sizeof r->errline) {
            r->errline_done = r->errlen > 0 || p[i] != '\n';
        } else if (p[i] != '\r') {
            r->errline[r->errlen++] = p[i];
        }
    }
    r->errline[r->errlen] = '\0';
}

/*
** Feed in[0..len) to the command's stdin (in_fd), collect its stderr
** (err_fd) and wait for it to end or for the deadline (then kill its
** process group). Never spins: poll() on the pipes, short sleeps (1 to 50
** ms) only while the command runs with both pipes closed. Closes the fds.
*/
static void supervise(pid_t pid, int in_fd, int err_fd, const char *in, size_t len,
                      int64_t timeout_ms, exec_run_t *r)
{
    int64_t deadline = rsql_deadline_in(timeout_ms); /* the SDK's monotonic clock */
    size_t off = 0;
    int tick = 1;
    bool exited = false;
    fcntl(in_fd, F_SETFL, fcntl(in_fd, F_GETFL) | O_NONBLOCK);
    fcntl(err_fd, F_SETFL, fcntl(err_fd, F_GETFL) | O_NONBLOCK);
    for (;;) {
        if (waitpid(pid, &r->status, WNOHANG) == pid) {
            exited = true;
            break;
        }
        int64_t left = rsql_deadline_left_ms(deadline);
        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR) {
            }
            r->timed_out = true;
            break;
        }
        struct pollfd fds[2];
        int nf = 0, wait = left < tick ? (int)left : tick;
        if (in_fd >= 0) {
            fds[nf++] = (struct pollfd){.fd = in_fd, .events = POLLOUT};
        }
        if (err_fd >= 0) {
            fds[nf++] = (struct pollfd){.fd = err_fd, .events = POLLIN};
        }
        int ready = 0;
        if (nf == 0) {
            sleep_ms(wait);
        } else {
            ready = poll(fds, (nfds_t)nf, wait);
        }
        if (ready <= 0) {
            tick = tick >= 25 ? 50 : tick * 2; /* the command runs quietly: check less often */
            continue;
        }
        tick = 1;
        for (int i = 0; i < nf; i++) {
            if (!fds[i].revents) {
                continue;
            }
            if (fds[i].fd == in_fd) {
                ssize_t w = write(in_fd, in + off, len - off);
                if (w > 0) {
                    off += (size_t)w;
                }
                /* all written, or EPIPE: the command does not read (all) its input */
                if (off == len || (w < 0 && errno != EAGAIN && errno != EINTR)) {
                    close_fd(&in_fd);
                }
            } else {
                char buf[512];
                ssize_t n = read(err_fd, buf, sizeof buf);
                if (n > 0) {
                    keep_stderr(r, buf, n);
                } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
                    close_fd(&err_fd);
                }
            }
        }
    }
    if (exited && err_fd >= 0) {
        /* what it wrote last (a child it left behind may keep the pipe open: no waiting) */
        char buf[512];
        ssize_t n;
        while ((n = read(err_fd, buf, sizeof buf)) > 0) {
            keep_stderr(r, buf, n);
        }
    }
    close_fd(&in_fd);
    close_fd(&err_fd);
}

/* The command (shortened) for a message. */
static void short_command(const char *cmd, char *out, size_t size)
{
    size_t n = strlen(cmd);
    if (n < size) {
        memcpy(out, cmd, n + 1);
    } else {
        memcpy(out, cmd, size - 4);
        memcpy(out + size - 4, "...", 4);
    }
}

/* Run the command for one row whose encoding is in[0..len); fill res. */
static void run_one(rsql_sink_t *k, const char *in, size_t len, rsql_sink_result_t *res)
{
    char cmd[64];
    short_command(k->command, cmd, sizeof cmd);
    memset(res, 0, sizeof *res);
    int in_p[2] = {-1, -1}, err_p[2] = {-1, -1};
    if (pipe2(in_p, O_CLOEXEC) != 0 || pipe2(err_p, O_CLOEXEC) != 0) {
        res->code = RSQL_ERR_BUSY; /* transient: out of descriptors or processes for now */
        snprintf(res->msg, sizeof res->msg, "command '%s': cannot make a pipe: %s", cmd,
                 strerror(errno));
        close_fd(&in_p[0]);
        close_fd(&in_p[1]);
        return;
    }
    /* the child: stdin and stderr our pipes, stdout /dev/null, its own process group,
       default signal handling and no blocked signals */
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t empty, dfl;
    sigemptyset(&empty);
    sigemptyset(&dfl);
    sigaddset(&dfl, SIGPIPE);
    sigaddset(&dfl, SIGINT);
    sigaddset(&dfl, SIGTERM);
    sigaddset(&dfl, SIGHUP);
    sigaddset(&dfl, SIGQUIT);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in_p[0], STDIN_FILENO);
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, err_p[1], STDERR_FILENO);
    posix_spawnattr_init(&at);
    posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                      POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&at, 0);
    posix_spawnattr_setsigmask(&at, &empty);
    posix_spawnattr_setsigdefault(&at, &dfl);
    static char sh[] = "sh", dash_c[] = "-c";
    char *argv[] = {sh, dash_c, k->command, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, "/bin/sh", &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    close_fd(&in_p[0]);
    close_fd(&err_p[1]);
    if (rc != 0) {
        close_fd(&in_p[1]);
        close_fd(&err_p[0]);
        res->code = RSQL_ERR_BUSY; /* transient: out of descriptors or processes for now */
        snprintf(res->msg, sizeof res->msg, "command '%s': cannot start /bin/sh: %s", cmd,
                 strerror(rc));
        return;
    }

    /* a write to a command that closed its stdin raises SIGPIPE on this thread: block it
       while the command runs and discard it after */
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    exec_run_t r;
    memset(&r, 0, sizeof r);
    supervise(pid, in_p[1], err_p[0], in, len, k->timeout_ms, &r);
    sigset_t pending;
    if (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) &&
        !sigismember(&old, SIGPIPE)) {
        const struct timespec zero = {0, 0};
        sigtimedwait(&pipe_set, NULL, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);

    const char *sep = r.errlen ? ": " : "";
    if (r.timed_out) {
        char d[32];
        /* the row's own failure (permanent): the same command would run as long again */
        res->code = RSQL_ERR_SINK;
        snprintf(res->msg, sizeof res->msg, "command '%s' timed out after %s (killed)", cmd,
                 rsql_opt_format_duration(k->timeout_ms, d, sizeof d));
    } else if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) {
        res->code = RSQL_OK;
    } else if (WIFEXITED(r.status)) {
        res->code = RSQL_ERR_SINK;
        snprintf(res->msg, sizeof res->msg, "command '%s' exited with status %d%s%s", cmd,
                 WEXITSTATUS(r.status), sep, r.errline);
    } else if (WIFSIGNALED(r.status)) {
        res->code = RSQL_ERR_SINK;
        snprintf(res->msg, sizeof res->msg, "command '%s' was killed by signal %d (%s)%s%s", cmd,
                 WTERMSIG(r.status), strsignal(WTERMSIG(r.status)), sep, r.errline);
    } else {
        res->code = RSQL_ERR_SINK;
        snprintf(res->msg, sizeof res->msg, "command '%s' ended with wait status %#x", cmd,
                 (unsigned)r.status);
    }
}

/*
** Run the command once per row, in order, then report the batch (one
** result per row) before returning. Rows are borrowed for the call.
** @locality write thread
*/
static rsql_err_t ex_write(rsql_sink_t *k, uint64_t batch_id, int n, const rsql_sink_row_t *rows,
                           rsql_error_t *err)
{
    if (n > k->results_cap) {
        rsql_sink_result_t *nr = rsql_realloc(k->results, (size_t)n * sizeof *nr);
        if (!nr) {
            return rsql_error_set(err, RSQL_ERR_NOMEM, RSQL_NOPOS, "out of memory");
        }
        k->results = nr;
        k->results_cap = n;
    }
    for (int i = 0; i < n; i++) {
        rsql_error_t e;
        rsql_error_clear(&e);
        rsql_buf_reset(&k->body);
        if (rsql_encode(k->enc, rows[i].values, &k->body, &e) != RSQL_OK || k->body.oom) {
            memset(&k->results[i], 0, sizeof k->results[i]);
            k->results[i].code = e.code ? e.code : RSQL_ERR_NOMEM;
            snprintf(k->results[i].msg, sizeof k->results[i].msg, "cannot encode the row: %.200s",
                     e.code ? e.msg : "out of memory");
            continue;
        }
        rsql_buf_putc(&k->body, '\n');
        run_one(k, k->body.data, k->body.len, &k->results[i]);
    }
    k->deliver(k->deliver_opaque, batch_id, n, k->results);
    return RSQL_OK;
}

static rsql_err_t ex_flush(rsql_sink_t *k, int timeout_ms, rsql_error_t *err)
{
    (void)k;
    (void)timeout_ms;
    (void)err;
    return RSQL_OK; /* write() reports every row before it returns */
}

static const rsql_sink_ops_t exec_sink_ops = {
    .open = ex_open,
    .write = ex_write,
    .flush = ex_flush,
    .stored_positions = NULL,
    .close = ex_close,
};

/* EXPLAIN: one line on the Sink node. */
static void ex_explain(const rsql_explain_t *x)
{
    const exec_conf_t *c = x->conf;
    char d[32];
    if (x->part != RSQL_EXPLAIN_SINK || !c || !c->command) {
        return;
    }
    x->attr(x, "runs", "/bin/sh -c per row, %s on stdin, timeout %s; exit status 0 = written",
            c->format >= 0 ? exec_formats[c->format] : "?",
            rsql_opt_format_duration(c->timeout_ms, d, sizeof d));
}

static const rsql_connector_def_t exec_def = {
    .name = "exec",
    .description = "Runs a shell command for each row, with the row (json or csv) on its "
                   "standard input; the exit status is the row's outcome. A plugin "
                   "(examples/plugins/exec).",
    .caps = RSQL_CAP_SINK,
    .opts = exec_opts,
    .formats = exec_formats,
    .conf_size = sizeof(exec_conf_t),
    .sink = &exec_sink_ops,
    .explain = ex_explain,
};

/* ---- the entry point */

static const rsql_connector_def_t *const exec_connectors[] = {&exec_def, NULL};

static const rsql_plugin_t exec_plugin = {
    .abi_version = RSQL_CONNECTOR_ABI_VERSION,
    .name = "exec",
    .connectors = exec_connectors,
};

RSQL_PLUGIN_EXPORT const rsql_plugin_t *rocketsql_plugin(void)
{
    return &exec_plugin;
}

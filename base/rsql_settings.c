/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The session settings: their one table of rows (key, type, default, range,
 * doc), and the small store behind SET / RESET / SHOW SETTINGS, CREATE JOB
 * (export) and RUN JOB (import).  Values are validated by the options
 * engine (rsql_opt_check_value_as) so messages match the WITH options.
 */
#include "config.h"
#include "base/rsql_settings.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define J RSQL_SETTING_F_JOB
#define ROW(name, type, flags, def, lo, hi, enums, doc) \
    {name, type, flags, def, lo, hi, enums, doc, NULL}
#define SEC INT64_C(1000)
#define MINUTE (60 * SEC)
#define HOUR (60 * MINUTE)

static const char *const tolerance_vals[] = {"none", "all", NULL};
static const char *const restart_vals[] = {"none", "fixed-delay", "exponential-delay", NULL};
static const char *const output_mode_vals[] = {"ORDERED", "ALLOW_UNORDERED", NULL};
static const char *const late_rows_vals[] = {"drop", "dead-letter", NULL};

static const rsql_opt_def_t settings_table[] = {
    ROW("errors.tolerance", RSQL_OPT_ENUM, J, "none", 0, 0, tolerance_vals,
        "What a job does with a record that fails (a body that does not decode, a value or line "
        "a source cannot turn into a row, an expression that fails such as a division by zero or "
        "a bad cast, a sink write that fails with a permanent error or still fails after its "
        "retries). `none`: the job stops, and nothing is acked or committed past the failed "
        "record. `all`: the record goes to the dead-letter destination (`errors.dlq.table`, and "
        "for `rocketmq-grpc` sources optionally the native DLQ) and the job goes on; it is counted "
        "as dead-lettered."),
    ROW("errors.dlq.table", RSQL_OPT_STR, J | RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
        "The catalog table that receives dead-lettered records under `errors.tolerance` = "
        "`all`, and a window aggregation's late rows under `table.exec.late-rows` = "
        "`dead-letter` (under either tolerance). "
        "It must have the columns `raw` (BYTES or VARCHAR: the body as received; for a sqlite "
        "source the row as a JSON object; for an over-long line its first 64 KiB), `stage` "
        "(VARCHAR: decode, eval, sink, or late), `error` (VARCHAR), `source` (VARCHAR: the "
        "record's identity, such as file and byte offset, or topic, lite topic and message id) "
        "and `ts` "
        "(TIMESTAMP(3)); this is checked when the statement is planned. A record is acked or "
        "committed only once its dead-letter row is delivered; that write is retried like a "
        "sink's (`errors.retry.*`), and still failing it fails the job. Unset: tolerated "
        "records are only counted (and, for RocketMQ with `source.dead-letter` = `native`, "
        "forwarded)."),
    ROW("errors.retry.timeout", RSQL_OPT_DURATION, J, "30s", 0, 24 * HOUR, NULL,
        "How long a retriable failure (a timeout, an unavailable broker, a busy database) is "
        "retried, with exponential backoff, before it counts as an error: for a record, the "
        "total time its write is retried, whether the sink refuses it or fails its delivery. "
        "`0` disables retries."),
    ROW("errors.retry.backoff-max", RSQL_OPT_DURATION, J, "5s", 10, 10 * MINUTE, NULL,
        "The longest wait between two retries; the wait starts at 100ms and doubles after "
        "each failed attempt, up to this."),
    ROW("pipeline.queue-capacity", RSQL_OPT_INT, J, "2048", 16, 1000000, NULL,
        "Rows each queue between two pipeline stages (poll, transform, write) holds before the "
        "stage in front of it waits. Bounds a pipeline's memory."),
    ROW("pipeline.batch-size", RSQL_OPT_INT, J, "512", 1, 100000, NULL,
        "Most rows handed from one stage to the next, and to a sink, at once."),
    ROW("pipeline.memory", RSQL_OPT_SIZE, J, "64MB", 0, INT64_C(1) << 40, NULL,
        "Most bytes of records read and not yet written, counted when read: their bodies as "
        "received (or what the source holds for them, when more). Near it the source is asked "
        "for fewer records (reckoned from the records read so far; 64 KB each before any), "
        "past it the source waits, next to the rows' bound of 3 x `pipeline.queue-capacity`. "
        "A poll takes at least one record, so one larger than this still passes. Decoded rows "
        "and outputs are not counted: a pipeline's memory is typically 2-3 times this. Rows a "
        "sink holds for the end of their source transaction do not count (nor against the "
        "rows' bound). `0`: no bound on bytes."),
    ROW("state.flush-interval", RSQL_OPT_DURATION, J, "1s", 10, HOUR, NULL,
        "How often committed source positions (file offsets, rowids) are saved to the catalog "
        "while a job runs; they are also saved when it stops. A crash replays at most this much "
        "(at-least-once)."),
    ROW("sql.preview-limit", RSQL_OPT_INT, 0, "100", 0, INT32_MAX, NULL,
        "Rows a `SELECT` preview shows when it has no `LIMIT`; `0` means no limit (an unbounded "
        "source then runs until Ctrl-C)."),
    ROW("status.interval", RSQL_OPT_DURATION, 0, "1s", 100, HOUR, NULL,
        "How often the live status line of a running statement is refreshed on a terminal."),
    ROW("restart-strategy", RSQL_OPT_ENUM, J, "exponential-delay", 0, 0, restart_vals,
        "What `rocketsql serve` does when a job fails (Flink's restart strategies; a script, "
        "the shell and `rocketsql run` never restart). `none`: the job stays failed. "
        "`fixed-delay`: restart after `restart-strategy.fixed-delay.delay`, at most "
        "`restart-strategy.fixed-delay.attempts` times. `exponential-delay`: restart after a "
        "wait that starts at `restart-strategy.exponential-delay.initial-backoff` and grows by "
        "`backoff-multiplier` up to `max-backoff`, with `jitter-factor` of random spread; a run "
        "that worked for `reset-backoff-threshold` starts the wait over. Each attempt is a row "
        "of `SHOW JOB RUNS` with its error."),
    ROW("restart-strategy.type", RSQL_OPT_ENUM, J, NULL, 0, 0, restart_vals,
        "Flink's newer name of `restart-strategy`: the same setting (either key sets it, and "
        "`rocketsql serve` reads whichever is set). Setting both to different values is an "
        "error."),
    ROW("restart-strategy.fixed-delay.attempts", RSQL_OPT_INT, J, "1", 0, INT32_MAX, NULL,
        "Restarts of a failed job under `fixed-delay` before it stays failed."),
    ROW("restart-strategy.fixed-delay.delay", RSQL_OPT_DURATION, J, "1s", 0, 24 * HOUR, NULL,
        "The wait before each restart under `fixed-delay`."),
    ROW("restart-strategy.exponential-delay.initial-backoff", RSQL_OPT_DURATION, J, "1s", 0,
        24 * HOUR, NULL, "The wait before the first restart under `exponential-delay`."),
    ROW("restart-strategy.exponential-delay.max-backoff", RSQL_OPT_DURATION, J, "1min", 0,
        24 * HOUR, NULL, "The longest wait between two restarts under `exponential-delay`."),
    ROW("restart-strategy.exponential-delay.backoff-multiplier", RSQL_OPT_DOUBLE, J, "1.5", 1,
        100, NULL, "How much longer each wait is than the one before, under `exponential-delay`."),
    ROW("restart-strategy.exponential-delay.jitter-factor", RSQL_OPT_DOUBLE, J, "0.1", 0, 1,
        NULL, "The random spread of each wait (0.1 = up to 10% longer or shorter)."),
    ROW("restart-strategy.exponential-delay.reset-backoff-threshold", RSQL_OPT_DURATION, J,
        "1h", 0, 30 * 24 * HOUR, NULL,
        "A run that worked this long before it failed starts the waits (and the attempts) over."),
    ROW("restart-strategy.exponential-delay.attempts-before-reset-backoff", RSQL_OPT_INT, J,
        "2147483647", 0, INT32_MAX, NULL,
        "Restarts under `exponential-delay` before the job stays failed (counted since the "
        "last reset)."),
    ROW("http.address", RSQL_OPT_STR, RSQL_OPT_F_NONEMPTY, NULL, 0, 0, NULL,
        "`ADDR:PORT` (or `PORT`, on 127.0.0.1): while an `INSERT` or `RUN JOB` of this script or "
        "shell runs, serve `/metrics`, `/healthz`, `/readyz` and `/jobs` for it there, as "
        "`rocketsql serve --http` does (docs/OPERATIONS.md). An address in use fails the "
        "statement before it runs. Unset: no HTTP endpoint."),
    ROW("state.memory", RSQL_OPT_SIZE, J, "64MB", 0, INT64_C(1) << 40, NULL,
        "Most bytes of a statement's state (a deduplication's keys and rows, a GROUP BY's "
        "accumulators) held in memory. Past it, the least recently used entries already saved in the catalog leave memory "
        "and are read back when a row needs them. `0`: hold all of it (read whole when a run "
        "starts)."),
    ROW("table.exec.state.ttl", RSQL_OPT_DURATION, J, "0", 0, 3650 * 24 * HOUR, NULL,
        "How long a statement's state keeps a key after it was last written (Flink's name): a "
        "deduplication forgets a key this long after it kept its row, so a later row of it is "
        "kept again; a GROUP BY forgets a group this long after its last row, so a later row "
        "starts it over. `0` keeps every key for as long as the job's positions are kept. A "
        "window aggregation keeps a window until it is given, whatever this says."),
    ROW("table.exec.source.idle-timeout", RSQL_OPT_DURATION, J, "0", 0, 3650 * 24 * HOUR,
        NULL,
        "A lane of the source (a file, a partition, a queue) that gave no row for this long no "
        "longer holds the watermark of a window aggregation back (Flink's name): the "
        "statement's watermark is the least of its lanes' that are not idle, and a lane is "
        "active again with its next row. `0`: a lane never goes idle."),
    ROW("table.exec.late-rows", RSQL_OPT_ENUM, J, "drop", 0, 0, late_rows_vals,
        "What a window aggregation does with a late row (one whose every window was given "
        "already; never added to them). `drop`: it is dropped and counted "
        "(`rocketsql_records_late_total`, the run's summary). `dead-letter`: it also goes to "
        "`errors.dlq.table` (which must be set) with stage `late`, its record as read and a "
        "message naming its windows and the watermark, whatever `errors.tolerance` says: it is "
        "expected data, not a failure, and never stops the job; its position is committed only "
        "once its dead-letter row is."),
    ROW("table.exec.mini-batch.enabled", RSQL_OPT_BOOL, J, "false", 0, 0, NULL,
        "Group aggregation (`GROUP BY`) gives a group's new result once per mini-batch instead "
        "of once per row (Flink's name): a mini-batch is one batch of rows the pipeline hands "
        "on (at most `table.exec.mini-batch.size`, else `pipeline.batch-size`), so no row waits "
        "for one; each group the batch changed gives its rows with the batch's last row of it. "
        "Fewer, larger writes into the sink for the same final table."),
    ROW("table.exec.mini-batch.allow-latency", RSQL_OPT_DURATION, J, "0", 0, HOUR, NULL,
        "Flink's bound on how long a mini-batch may hold rows. Accepted for Flink's scripts; "
        "rocketsql adds no wait (a mini-batch is a batch the source already handed over), so "
        "any value holds."),
    ROW("table.exec.mini-batch.size", RSQL_OPT_INT, J, "0", 0, 100000, NULL,
        "The most rows of a mini-batch (`table.exec.mini-batch.enabled`): lowers "
        "`pipeline.batch-size` for the statement when smaller. `0`: `pipeline.batch-size`."),
    ROW("state.checkpoint.interval", RSQL_OPT_DURATION, J, "0", 0, HOUR, NULL,
        "How often a statement with state (a deduplication, a GROUP BY) makes a checkpoint: its "
        "state's changes saved in the catalog with the source positions, in one transaction. `0` "
        "(the default): every `state.flush-interval`. A checkpoint is also made when the "
        "changes not yet saved reach half of `state.memory`, and when the job stops."),
    ROW("table.exec.async-lookup.buffer-capacity", RSQL_OPT_INT, J, "1024", 1, 1000000, NULL,
        "The most input rows of a lookup join whose lookups are in flight at once (Flink's "
        "name): the batches read ahead of the one being joined have their keys asked before "
        "its answer comes, on one connection (postgres, pipelined), so a slow round trip "
        "does not stall the stream. `1`: one batch at a time."),
    ROW("table.exec.async-lookup.timeout", RSQL_OPT_DURATION, J, "3min", 0, 24 * HOUR, NULL,
        "The longest one lookup of a batch's keys may take (Flink's name; postgres: the "
        "connection's statement_timeout). Past it the lookup fails as a transient failure: "
        "asked again per `lookup.max-retries`. `0`: no limit."),
    ROW("table.exec.async-lookup.output-mode", RSQL_OPT_ENUM, J, "ORDERED", 0, 0,
        output_mode_vals,
        "Flink's name. `ORDERED`: a lookup join's rows keep the input order. "
        "`ALLOW_UNORDERED` is accepted and changes nothing: lookups in flight are answered in "
        "the order they were asked, so the rows stay in input order at no cost."),
    RSQL_OPT_END,
};

#define N_SETTINGS ((int)(sizeof settings_table / sizeof settings_table[0]) - 1)

struct rsql_settings {
    char *values[N_SETTINGS]; /* owned; NULL = not set */
};

/* The settings rows. */
const rsql_opt_def_t *rsql_settings_defs(void)
{
    return settings_table;
}

/* Number of settings. */
int rsql_settings_count(void)
{
    return N_SETTINGS;
}

/* Two keys of one setting (Flink's old and new names): either sets it, and both set to
   different values is an error. */
static const char *const aliases[][2] = {{"restart-strategy.type", "restart-strategy"}};

/* The other key of key's alias pair, or NULL. */
static const char *alias_of(const char *key)
{
    for (size_t i = 0; key && i < sizeof aliases / sizeof aliases[0]; i++) {
        for (int k = 0; k < 2; k++) {
            if (strcasecmp(aliases[i][k], key) == 0) {
                return aliases[i][1 - k];
            }
        }
    }
    return NULL;
}

static int index_of(const char *key)
{
    for (int i = 0; key && i < N_SETTINGS; i++) {
        if (strcasecmp(settings_table[i].name, key) == 0) {
            return i;
        }
    }
    return -1;
}

/*
** New settings at their defaults (caller destroys), or NULL on OOM.
*/
rsql_settings_t *rsql_settings_new(void)
{
    return rsql_calloc(1, sizeof(rsql_settings_t));
}

/* Free s and its values. NULL-safe. */
void rsql_settings_destroy(rsql_settings_t *s)
{
    if (!s) {
        return;
    }
    for (int i = 0; i < N_SETTINGS; i++) {
        rsql_free(s->values[i]);
    }
    rsql_free(s);
}

/*
** A deep copy of s (caller destroys), or NULL on OOM.
*/
rsql_settings_t *rsql_settings_dup(const rsql_settings_t *s)
{
    rsql_settings_t *c = rsql_settings_new();
    if (!c) {
        return NULL;
    }
    for (int i = 0; i < N_SETTINGS; i++) {
        if (s->values[i]) {
            c->values[i] = rsql_strdup(s->values[i]);
            if (!c->values[i]) {
                rsql_settings_destroy(c);
                return NULL;
            }
        }
    }
    return c;
}

static rsql_err_t unknown_setting(const char *key, rsql_pos_t pos, rsql_error_t *err)
{
    const rsql_opt_def_t *tables[1] = {settings_table};
    char near[128];
    rsql_buf_t head = RSQL_BUF_INIT, list = RSQL_BUF_INIT;
    rsql_buf_printf(&head, "unknown setting '%s'", key ? key : "");
    if (key && rsql_opt_suggest_key(tables, 1, key, near, sizeof near)) {
        rsql_buf_printf(&head, " (did you mean '%s'?)", near);
    }
    rsql_opts__names(tables, 1, &list);
    if (head.oom || list.oom) {
        rsql_error_nomem(err);
    } else {
        rsql_opts__set_listed(err, RSQL_ERR_BAD_SETTING, pos, rsql_buf_str(&head),
                              "valid settings", rsql_buf_str(&list));
    }
    rsql_buf_deinit(&head);
    rsql_buf_deinit(&list);
    return RSQL_ERR_BAD_SETTING;
}

/*
** SET key = value (validated; see rsql_settings.h). On error s is unchanged.
*/
rsql_err_t rsql_settings_set(rsql_settings_t *s, const char *key, const char *value,
                             rsql_pos_t key_pos, rsql_pos_t value_pos, rsql_error_t *err)
{
    int i = index_of(key);
    if (i < 0) {
        return unknown_setting(key, key_pos, err);
    }
    const rsql_opt_def_t *d = &settings_table[i];
    const char *v = value ? value : "";
    rsql_err_t rc = rsql_opt_check_value_as(d, "setting", RSQL_ERR_BAD_SETTING, d->name, v,
                                            value_pos, err);
    if (rc != RSQL_OK) {
        return rc;
    }
    if (d->type == RSQL_OPT_ENUM) {
        for (const char *const *e = d->enum_vals; *e; e++) {
            if (strcasecmp(*e, v) == 0) {
                v = *e;
            }
        }
    }
    int a = index_of(alias_of(d->name));
    if (a >= 0 && s->values[a] && strcasecmp(s->values[a], v) != 0) {
        return rsql_error_set(err, RSQL_ERR_BAD_SETTING, value_pos,
                              "setting '%s' = '%s' conflicts with '%s' = '%s': both name the "
                              "same setting (RESET one of them)",
                              d->name, v, settings_table[a].name, s->values[a]);
    }
    char *copy = rsql_strdup(v);
    if (!copy) {
        return rsql_error_nomem(err);
    }
    rsql_free(s->values[i]);
    s->values[i] = copy;
    return RSQL_OK;
}

/*
** RESET key, or every setting when key is NULL.
*/
rsql_err_t rsql_settings_reset(rsql_settings_t *s, const char *key, rsql_pos_t key_pos,
                               rsql_error_t *err)
{
    if (!key) {
        for (int i = 0; i < N_SETTINGS; i++) {
            rsql_free(s->values[i]);
            s->values[i] = NULL;
        }
        return RSQL_OK;
    }
    int i = index_of(key);
    if (i < 0) {
        return unknown_setting(key, key_pos, err);
    }
    rsql_free(s->values[i]);
    s->values[i] = NULL;
    return RSQL_OK;
}

/* Effective text of key, or NULL (unknown key, or unset without default). */
const char *rsql_settings_get(const rsql_settings_t *s, const char *key)
{
    int i = index_of(key);
    if (i < 0) {
        return NULL;
    }
    if (!s->values[i]) {
        int a = index_of(alias_of(settings_table[i].name));
        if (a >= 0 && s->values[a]) {
            return s->values[a]; /* set under its other name */
        }
    }
    return s->values[i] ? s->values[i] : settings_table[i].def;
}

static int must_index(const char *key, const char *fn)
{
    int i = index_of(key);
    if (i < 0) {
        fprintf(stderr, "%s: no setting '%s'\n", fn, key ? key : "(null)");
        abort();
    }
    return i;
}

static void wrong_type(const char *fn, const rsql_opt_def_t *d)
{
    fprintf(stderr, "%s: setting '%s' is a %s\n", fn, d->name, rsql_opt_type_name(d->type));
    abort();
}

/* INT, SIZE (bytes), DURATION (ms) value of key; 0 when unset without default. */
int64_t rsql_settings_int(const rsql_settings_t *s, const char *key)
{
    int i = must_index(key, __func__);
    const rsql_opt_def_t *d = &settings_table[i];
    const char *v = s->values[i] ? s->values[i] : d->def;
    int64_t out = 0;
    if (d->type != RSQL_OPT_INT && d->type != RSQL_OPT_SIZE && d->type != RSQL_OPT_DURATION) {
        wrong_type(__func__, d);
    }
    if (v) {
        if (d->type == RSQL_OPT_INT) {
            rsql_opt_parse_int(v, &out);
        } else if (d->type == RSQL_OPT_SIZE) {
            rsql_opt_parse_size(v, &out);
        } else {
            rsql_opt_parse_duration(v, &out);
        }
    }
    return out;
}

/* DOUBLE, RATE (/s) or INT value of key; 0 when unset without default. */
double rsql_settings_double(const rsql_settings_t *s, const char *key)
{
    int i = must_index(key, __func__);
    const rsql_opt_def_t *d = &settings_table[i];
    const char *v = s->values[i] ? s->values[i] : d->def;
    double out = 0;
    int64_t n = 0;
    if (d->type != RSQL_OPT_DOUBLE && d->type != RSQL_OPT_RATE && d->type != RSQL_OPT_INT) {
        wrong_type(__func__, d);
    }
    if (!v) {
        return 0;
    }
    if (d->type == RSQL_OPT_DOUBLE) {
        rsql_opt_parse_double(v, &out);
    } else if (d->type == RSQL_OPT_RATE) {
        rsql_opt_parse_rate(v, &out);
    } else {
        rsql_opt_parse_int(v, &n);
        out = (double)n;
    }
    return out;
}

/* The i-th setting for SHOW SETTINGS. */
void rsql_settings_info(const rsql_settings_t *s, int i, rsql_setting_info_t *out)
{
    const rsql_opt_def_t *d = &settings_table[i];
    out->key = d->name;
    out->def = d->def;
    out->is_set = s->values[i] != NULL;
    out->value = s->values[i] ? s->values[i] : d->def;
    out->job = (d->flags & RSQL_SETTING_F_JOB) != 0;
    out->row = d;
}

/*
** The explicitly set settings into out (see rsql_settings.h); returns the
** total count.
*/
int rsql_settings_export(const rsql_settings_t *s, bool job_only, rsql_opt_kv_t *out, int cap)
{
    int n = 0;
    for (int i = 0; i < N_SETTINGS; i++) {
        if (!s->values[i] || (job_only && !(settings_table[i].flags & RSQL_SETTING_F_JOB))) {
            continue;
        }
        if (n < cap) {
            out[n].key = settings_table[i].name;
            out[n].value = s->values[i];
            out[n].key_pos = RSQL_NOPOS;
            out[n].value_pos = RSQL_NOPOS;
        }
        n++;
    }
    return n;
}

/*
** Apply kvs as SETs on a copy, then swap it in: all or nothing.
*/
rsql_err_t rsql_settings_import(rsql_settings_t *s, const rsql_opt_kv_t *kvs, int n,
                                rsql_error_t *err)
{
    rsql_settings_t *tmp = rsql_settings_dup(s);
    if (!tmp) {
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < n; i++) {
        rsql_err_t rc = rsql_settings_set(tmp, kvs[i].key, kvs[i].value, kvs[i].key_pos,
                                          kvs[i].value_pos, err);
        if (rc != RSQL_OK) {
            rsql_settings_destroy(tmp);
            return rc;
        }
    }
    for (int i = 0; i < N_SETTINGS; i++) {
        char *t = s->values[i];
        s->values[i] = tmp->values[i];
        tmp->values[i] = t;
    }
    rsql_settings_destroy(tmp);
    return RSQL_OK;
}

/*
** Markdown: the options table of the settings, then which ones a job keeps.
*/
void rsql_settings_markdown(rsql_buf_t *out)
{
    rsql_opts_markdown(settings_table, out);
    rsql_buf_puts(out, "\nCaptured by `CREATE JOB` (when set in the session that creates the "
                       "job) and restored by `RUN JOB`:");
    bool first = true;
    for (int i = 0; i < N_SETTINGS; i++) {
        if (settings_table[i].flags & RSQL_SETTING_F_JOB) {
            rsql_buf_printf(out, "%s `%s`", first ? "" : ",", settings_table[i].name);
            first = false;
        }
    }
    rsql_buf_puts(out, ". The others only shape the interactive session.\n");
}

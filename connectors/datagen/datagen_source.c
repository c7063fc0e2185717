/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The datagen source (as Flink's): rows generated per column, `random`
 * (fields.<col>.min/.max for numbers, .length for strings and bytes) or
 * `sequence` (.start up to .end; the source ends when a sequence is
 * exhausted), `number-of-rows` of them (else unbounded), paced at
 * `rows-per-second` (0 = unpaced) by sleeping until the next row is due,
 * never spinning.
 *
 * One partition, "datagen"; a record's offset is the number of rows
 * emitted once it is, so a restart resumes with row `offset`. Row i's
 * random values depend only on (seed, i), so with a `seed` a resumed run
 * produces the same rows a run without a stop would have.
 *
 * Threads: poll on the poll thread, wakeup from any thread (mutex +
 * condition variable); offsets are worker-managed (no commit_record).
 */
#include "config.h"
#include "connectors/rsql_conn_io.h"
#include "connectors/datagen/datagen_conf.h"
#include "base/rsql_time.h"
#include "base/rsql_value.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

/* The one partition's name (a record's offset counts the rows generated). */
#define DG_PARTITION "datagen"

typedef struct dg_col {
    rsql_type_t type;
    bool sequence;
    int64_t start, end; /* sequence: inclusive; end = INT64_MAX when unset */
    bool has_min, has_max;
    double dmin, dmax;    /* random DOUBLE */
    int64_t imin, imax;   /* random INT/BIGINT */
    int64_t length;       /* random VARCHAR/BYTES */
} dg_col_t;

struct rsql_source {
    int n;
    dg_col_t *cols;
    int64_t emitted;   /* rows emitted so far (the partition offset) */
    int64_t limit;     /* rows in all (number-of-rows and given sequence ends), INT64_MAX = unbounded */
    int64_t hard_limit; /* limit, or less when a sequence reaches the end of its type first */
    int64_t number_of_rows; /* -1 when unset */
    double rate;       /* rows per second, 0 = unpaced */
    int64_t t0_ms;     /* pacing origin (monotonic) */
    int64_t paced_from; /* emitted at t0 (the resume point) */
    uint64_t seed;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool woken;
};

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (inclusive) without modulo bias worth noticing. */
static int64_t rand_range(uint64_t *st, int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo;
    uint64_t r = splitmix64(st);
    if (span == UINT64_MAX) {
        return (int64_t)r;
    }
    return (int64_t)((uint64_t)lo + r % (span + 1));
}

static double rand_unit(uint64_t *st)
{
    return (double)(splitmix64(st) >> 11) * 0x1.0p-53;
}

/* The number of values from start to end (inclusive), at most INT64_MAX; 0 when end < start. */
static int64_t seq_count(int64_t start, int64_t end)
{
    if (end < start) {
        return 0;
    }
    uint64_t span = (uint64_t)end - (uint64_t)start;
    return span >= (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(span + 1);
}

static rsql_err_t dg_open(const rsql_source_ctx_t *ctx, rsql_source_t **out, rsql_error_t *err)
{
    const rsql_datagen_conf_t *conf = ctx->conf;
    if (!conf || conf->n_cols != ctx->n_columns) {
        return rsql_error_set(err, RSQL_ERR_INTERNAL, RSQL_NOPOS,
                              "datagen: configuration does not match the table's columns");
    }
    /* the planner checked the options against the types already; a direct open checks too */
    for (int i = 0; i < ctx->n_columns; i++) {
        rsql_err_t rc = rsql_datagen__check_column(&conf->cols[i], ctx->column_types[i], NULL, err);
        if (rc != RSQL_OK) {
            return rc;
        }
    }
    rsql_source_t *s = rsql_calloc(1, sizeof *s);
    if (!s || !(s->cols = rsql_calloc((size_t)(ctx->n_columns > 0 ? ctx->n_columns : 1),
                                      sizeof *s->cols))) {
        rsql_free(s);
        return rsql_error_nomem(err);
    }
    s->n = ctx->n_columns;
    s->limit = INT64_MAX;
    s->number_of_rows = -1;
    if (conf->number_of_rows_given) {
        s->number_of_rows = conf->number_of_rows;
        s->limit = s->number_of_rows;
    }
    s->rate = (double)conf->rows_per_second;
    if (conf->seed_given) {
        s->seed = (uint64_t)conf->seed;
    } else {
        int64_t ns = rsql_wall_ns();
        s->seed = (uint64_t)(ns % 1000000000) ^ ((uint64_t)(ns / 1000000000) << 20) ^
                  (uint64_t)getpid();
    }
    s->hard_limit = s->limit;
    for (int i = 0; i < s->n; i++) {
        dg_col_t *c = &s->cols[i];
        const rsql_datagen_col_conf_t *k = &conf->cols[i];
        c->type = ctx->column_types[i];
        c->sequence = k->kind == RSQL_DATAGEN_SEQUENCE;
        int64_t tmin = c->type == RSQL_TYPE_INT ? INT32_MIN : INT64_MIN;
        int64_t tmax = c->type == RSQL_TYPE_INT ? INT32_MAX : INT64_MAX;
        if (c->sequence) {
            c->start = k->start;
            c->end = k->has_end ? k->end : tmax;
            int64_t count = seq_count(c->start, c->end);
            if (k->has_end && count < s->limit) {
                s->limit = count; /* a given end bounds the read (and its total) */
            }
            if (count < s->hard_limit) {
                s->hard_limit = count; /* the type's last value ends it too */
            }
            continue;
        }
        c->has_min = k->has_min;
        c->has_max = k->has_max;
        c->dmin = k->has_min ? k->min : 0;
        c->dmax = k->has_max ? k->max : 1;
        /* INT/BIGINT bounds are whole numbers within the type (checked above) */
        c->imin = k->has_min ? k->imin : tmin;
        c->imax = k->has_max ? k->imax : tmax;
        c->length = k->length;
    }
    if (s->limit < s->hard_limit) {
        s->hard_limit = s->limit;
    }
    for (int i = 0; i < ctx->n_resume; i++) {
        if (strcmp(ctx->resume_partitions[i], DG_PARTITION) == 0 && ctx->resume_offsets[i] > 0) {
            s->emitted = ctx->resume_offsets[i];
        }
    }
    pthread_mutex_init(&s->mu, NULL);
    rsql_cond_init_monotonic(&s->cv);
    s->t0_ms = rsql_now_ms();
    s->paced_from = s->emitted;
    *out = s;
    return RSQL_OK;
}

static const char alnum[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* Fill row (s->n values) for row number idx; strings in arena. */
static rsql_err_t dg_row(rsql_source_t *s, int64_t idx, rsql_arena_t *arena, rsql_value_t *row,
                         rsql_error_t *err)
{
    uint64_t st = s->seed ^ ((uint64_t)idx * UINT64_C(0xD1B54A32D192ED03));
    splitmix64(&st);
    for (int i = 0; i < s->n; i++) {
        const dg_col_t *c = &s->cols[i];
        rsql_value_t *v = &row[i];
        v->type = c->type;
        if (c->sequence) {
            int64_t x = (int64_t)((uint64_t)c->start + (uint64_t)idx); /* idx < its count */
            switch (c->type) {
            case RSQL_TYPE_DOUBLE: v->v.d = (double)x; break;
            case RSQL_TYPE_TIMESTAMP: v->v.ts = x; break;
            case RSQL_TYPE_VARCHAR: {
                char buf[24];
                int k = snprintf(buf, sizeof buf, "%" PRId64, x);
                v->v.s.p = rsql_arena_strndup(arena, buf, (size_t)k);
                v->v.s.len = (size_t)k;
                if (!v->v.s.p) {
                    return rsql_error_nomem(err);
                }
                break;
            }
            default: v->v.i = x; break;
            }
            continue;
        }
        switch (c->type) {
        case RSQL_TYPE_NULL: v->is_null = true; break;
        case RSQL_TYPE_BOOLEAN: v->v.b = splitmix64(&st) & 1; break;
        case RSQL_TYPE_INT:
        case RSQL_TYPE_BIGINT: v->v.i = rand_range(&st, c->imin, c->imax); break;
        case RSQL_TYPE_DOUBLE: {
            double u = rand_unit(&st), span = c->dmax - c->dmin;
            /* when max - min overflows (-1e308 to 1e308), a form that cannot */
            v->v.d = isfinite(span) ? c->dmin + u * span : c->dmin * (1 - u) + c->dmax * u;
            break;
        }
        case RSQL_TYPE_TIMESTAMP: v->v.ts = rsql_wall_ms(); break;
        case RSQL_TYPE_DATE: v->v.i = rsql_wall_ms() / 86400000; break;
        case RSQL_TYPE_DECIMAL: /* DECIMAL(10, 0) within the column's integer range */
            rsql_value_decimal_from_int(rand_range(&st, c->imin, c->imax) % 10000000000LL,
                                        RSQL_DECIMAL_DEFAULT_PRECISION, 0, v, NULL);
            break;
        case RSQL_TYPE_ROW:
        case RSQL_TYPE_ARRAY:
        case RSQL_TYPE_MAP:
        case RSQL_TYPE_INTERVAL: v->is_null = true; break; /* scalar column types only */
        case RSQL_TYPE_VARCHAR:
        case RSQL_TYPE_BYTES: {
            char *p = rsql_arena_alloc(arena, (size_t)c->length + 1);
            if (!p) {
                return rsql_error_nomem(err);
            }
            for (int64_t k = 0; k < c->length; k++) {
                uint64_t r = splitmix64(&st);
                p[k] = c->type == RSQL_TYPE_VARCHAR ? alnum[r % (sizeof alnum - 1)] : (char)r;
            }
            v->v.s.p = p;
            v->v.s.len = (size_t)c->length;
            break;
        }
        }
    }
    return RSQL_OK;
}

/* Sleep until ms (monotonic) or a wakeup; true when woken. */
static bool dg_sleep_until(rsql_source_t *s, int64_t until_ms)
{
    return rsql_io_sleep_until(&s->mu, &s->cv, &s->woken, until_ms);
}

static rsql_err_t dg_poll(rsql_source_t *s, rsql_batch_t *batch, int max, int timeout_ms,
                          bool *eof, rsql_error_t *err)
{
    int64_t deadline = rsql_now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    *eof = false;
    if (s->emitted >= s->hard_limit) {
        *eof = true;
        return RSQL_OK;
    }
    int64_t want = s->hard_limit - s->emitted;
    if (want > max) {
        want = max;
    }
    if (s->rate > 0) {
        for (;;) {
            int64_t now = rsql_now_ms();
            int64_t allowed = (int64_t)((double)(now - s->t0_ms) * s->rate / 1000.0) -
                              (s->emitted - s->paced_from);
            if (allowed > 0) {
                if (allowed < want) {
                    want = allowed;
                }
                break;
            }
            if (now >= deadline) {
                return RSQL_OK; /* timeout */
            }
            /* the next row is due at t0 + (rows paced + 1) / rate */
            int64_t next = s->t0_ms + (int64_t)ceil((double)(s->emitted - s->paced_from + 1) *
                                                    1000.0 / s->rate);
            if (dg_sleep_until(s, next < deadline ? next : deadline)) {
                return RSQL_OK; /* woken: return at once */
            }
        }
    }
    for (int64_t k = 0; k < want; k++) {
        rsql_record_t *r = rsql_batch_add(batch);
        if (!r) {
            break;
        }
        int64_t idx = s->emitted;
        rsql_value_t *row = rsql_arena_alloc(batch->arena, (size_t)(s->n ? s->n : 1) *
                                                               sizeof(rsql_value_t));
        char ident[40];
        int il = snprintf(ident, sizeof ident, "datagen@%" PRId64, idx);
        r->ident = (const char *)rsql_batch_copy(batch, ident, (size_t)il);
        if (!row || !r->ident || dg_row(s, idx, batch->arena, row, err) != RSQL_OK) {
            batch->n--;
            return rsql_error_nomem(err);
        }
        r->partition = 0;
        r->offset = idx + 1;
        r->row = row;
        s->emitted++;
    }
    if (s->emitted >= s->hard_limit) {
        *eof = true;
    }
    return RSQL_OK;
}

static int dg_partition_count(rsql_source_t *s)
{
    (void)s;
    return 1;
}

static const char *dg_partition_name(rsql_source_t *s, uint32_t partition)
{
    (void)s;
    return partition == 0 ? DG_PARTITION : NULL;
}

/* Rows this run will produce (number-of-rows or the sequences' length, less the resume point). */
static int64_t dg_total(rsql_source_t *s)
{
    if (s->limit == INT64_MAX) {
        return -1;
    }
    return s->limit > s->paced_from ? s->limit - s->paced_from : 0;
}

static void dg_wakeup(rsql_source_t *s)
{
    pthread_mutex_lock(&s->mu);
    s->woken = true;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
}

static void dg_close(rsql_source_t *s)
{
    if (!s) {
        return;
    }
    pthread_mutex_destroy(&s->mu);
    pthread_cond_destroy(&s->cv);
    rsql_free(s->cols);
    rsql_free(s);
}

/*
** The datagen source vtable (rsql_io.h). Static.
*/
const rsql_source_ops_t rsql_datagen_source_ops = {
    .open = dg_open,
    .poll = dg_poll,
    .partition_count = dg_partition_count,
    .partition_name = dg_partition_name,
    .commit_record = NULL,
    .committed = NULL,
    .total = dg_total,
    .wakeup = dg_wakeup,
    .close = dg_close,
};

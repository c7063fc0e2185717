/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_window_int: what the window stage's files share (rt_window.c: the stage, its windows and
 * watermarks; rt_window_session.c: SESSION windows, which merge).
 * @locality the transform thread
 */
#ifndef RSQL_RT_WINDOW_INT_H
#define RSQL_RT_WINDOW_INT_H

#include "engine/rt_window.h"
#include "base/rsql_buf.h"

#include <stdatomic.h>

#define KEY_GROUP 3 /* [3][end][start][GROUP BY values]: a window's group, its accumulators */
#define KEY_MARK 2  /* [2][call][the group's key after its tag][value]: a DISTINCT value taken */
#define KEY_LANE 4  /* [4][lane]: a lane's watermark */
#define KEY_END 5   /* [5]: the watermark the input's end moved the statement's to */
#define HEAD 17     /* the tag, end and start */

typedef struct sess_part sess_part_t; /* rt_window_session.c */

/* An open window: the keys of its groups and marks in the state ([u32 length][bytes] each). */
typedef struct win {
    int64_t start, end;
    rsql_buf_t keys;
    int64_t groups;
} win_t;

typedef struct lane {
    bool has;        /* a row gave it a watermark */
    bool known;      /* the source has it (rsql_rt_window_lanes): without a row yet, it holds
                        the watermark back (until table.exec.source.idle-timeout) */
    int64_t wm;      /* the greatest watermark value of its rows */
    int64_t saved;   /* the slice of the watermark saved in the state */
    int64_t seen_ms; /* when its last row came (rsql_now_ms) */
} lane_t;

struct rt_window {
    const rsql_plan_t *plan;
    const rsql_plan_agg_t *a;
    const rsql_plan_window_t *w;
    rt_state_t *state;
    int width; /* the aggregate row: the keys' values, then the calls' results */
    rsql_type_t *key_types;
    const rsql_tdesc_t **key_descs;
    rsql_buf_t key, value, dkey, marks;
    win_t *wins; /* open, by end then start */
    int n_wins, cap_wins;
    lane_t *lanes;
    uint32_t n_lanes;
    int64_t wm; /* the statement's watermark; INT64_MIN: none yet */
    int64_t end_wm; /* KEY_END's: a run that saw its input's end gave the windows up to it */
    int64_t now;     /* the wall clock when the record's batch came (ms) */
    int64_t mono_ms; /* rsql_now_ms then */
    const rsql_batch_t *clock_batch; /* the batch those are of, and its first record's seq */
    uint64_t clock_seq;
    uint64_t rows, windows, results;
    _Atomic int64_t late;
    const rsql_value_t **out; /* the rows a record gives (grown) */
    uint8_t *kinds;
    int n_out, cap_out;
    /* SESSION: the open sessions of each partition (rt_window_session.c) */
    sess_part_t **parts;
    size_t n_parts, cap_parts;
    rsql_buf_t pkey;
};

static inline void put_u64(unsigned char *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < 8; i++) {
        p[i] = (unsigned char)(u >> (8 * i));
    }
}

static inline int64_t get_u64(const unsigned char *p)
{
    uint64_t u = 0;
    for (int i = 0; i < 8; i++) {
        u |= (uint64_t)p[i] << (8 * i);
    }
    return (int64_t)u;
}

/* x mod m, in [0, m) for any x (m > 0). */
static inline int64_t mod_pos(int64_t x, int64_t m)
{
    int64_t r = x % m;
    return r < 0 ? r + m : r;
}

/* The start of the unit of length `len` (aligned on the window's offset) holding t. */
static inline int64_t align(const rsql_plan_window_t *w, int64_t t, int64_t len)
{
    return t - mod_pos(t - w->offset_ms, len);
}

/*
** The windows [s, e) of time t (TUMBLE, HOP, CUMULATE), in turn:
**   for (win_first(w, t, &s, &e); win_more(w, t, s, e); win_next(w, &s, &e)) ...
** HOP: size / slide windows, the one starting last at or before t first; TUMBLE: the one;
** CUMULATE: those of its max_size window ending after t, the shortest first.
*/
static inline void win_first(const rsql_plan_window_t *w, int64_t t, int64_t *s, int64_t *e)
{
    if (w->kind == RSQL_WIN_HOP) {
        *s = align(w, t, w->step_ms);
        *e = *s + w->size_ms;
    } else {
        *s = align(w, t, w->size_ms);
        *e = align(w, t, w->step_ms) + w->step_ms;
    }
}

static inline bool win_more(const rsql_plan_window_t *w, int64_t t, int64_t s, int64_t e)
{
    return w->kind == RSQL_WIN_HOP ? s > t - w->size_ms : e <= s + w->size_ms;
}

static inline void win_next(const rsql_plan_window_t *w, int64_t *s, int64_t *e)
{
    if (w->kind == RSQL_WIN_HOP) {
        *s -= w->step_ms;
        *e = *s + w->size_ms;
    } else {
        *e += w->step_ms;
    }
}

/* Row's window_start, window_end and window_time (its columns col .. col + 2) those of
   window [start, end). */
static inline void set_window(rsql_value_t *row, int col, int64_t start, int64_t end)
{
    row[col] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = start};
    row[col + 1] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = end};
    row[col + 2] = (rsql_value_t){.type = RSQL_TYPE_TIMESTAMP, .v.ts = end - 1};
}

/* g->key: the state key of row's group in window [start, end) ([3][end][start][the GROUP BY
   values], the row's window columns set to it first). */
rsql_err_t rsql_rt_window__key(rt_window_t *g, rsql_value_t *row, int64_t start, int64_t end,
                               rsql_eval_ctx_t *ctx, rsql_error_t *err);

/* Window [start, end), made open when it is not (NULL: out of memory). */
win_t *rsql_rt_window__get(rt_window_t *g, int64_t start, int64_t end);
/* Key (len bytes) into window x's keys (false: out of memory). */
bool rsql_rt_window__note(win_t *x, const void *key, size_t len);
/* The DISTINCT values the row just added took for the first time (g->marks: each a u32
   length and the value's state key) put in the state and noted in window x; false when out
   of memory. */
bool rsql_rt_window__put_marks(rt_window_t *g, win_t *x);

/* Row into the rows the record gives (+I; false: out of memory). */
bool rsql_rt_window__out_add(rt_window_t *g, const rsql_value_t *row);

/*
** A window function's rows without an aggregation (plan->window->rows; rt_window_rows.c):
** each of rec's rows once per window of its event time, its window columns set; rec then
** holds them (+I) and *in is the first (as rsql_rt_window_record).
*/
rsql_err_t rsql_rt_window__rows(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                                rsql_eval_ctx_t *ctx, const rsql_value_t **in, bool *keep,
                                rsql_error_t *err);

/*
** SESSION (rt_window_session.c): row (rsql_plan_row's, its event time t) into the session of
** its partition, merged with the open sessions it overlaps or touches (their accumulators
** added up under the merged session's key, theirs deleted); *late when it merges with none
** and its own [t, t + gap) was given.
*/
rsql_err_t rsql_rt_window__session_add(rt_window_t *g, rsql_batch_t *batch, rsql_record_t *rec,
                                       rsql_value_t *row, int64_t t, rsql_eval_ctx_t *ctx,
                                       bool *late, rsql_error_t *err);
/* A group key of the state (KEY_GROUP) seen at open: its session, into its partition's. */
rsql_err_t rsql_rt_window__session_scan(rt_window_t *g, const unsigned char *key, size_t len);
void rsql_rt_window__session_free(rt_window_t *g);

#endif

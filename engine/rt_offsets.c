/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Worker-managed offsets: the in-flight tracker (rsql_offtrack_*, declared
 * in rsql_pipeline.h) and the worker's periodic save of committable
 * positions to the catalog.
 *
 * The tracker keeps, per lane (a source partition; the rocketmq-grpc
 * source reports each lite topic as one), a ring of the records registered in poll order: their resume
 * offset and whether their outcome completed them. Completing a record pops
 * the completed prefix of the ring and moves the committable position to
 * the offset of the last record popped, so a position never passes a record
 * whose outcome is unknown or FAILED, while tolerated failures (dead
 * letters) complete their position like any other outcome (no stall,
 * cf. KAFKA-14079). A ticket is a per-lane sequence number: the ring slot
 * of ticket k is k - first ticket in the ring.
 * A lane's ring is freed when it empties while more than KEEP_RINGS lanes
 * have one (a source with many lanes, each lite topic one, keeps rings only
 * for the lanes with records in flight); its position stays.
 */
#include "config.h"
#include "engine/pipeline_int.h"
#include "base/rsql_log.h"
#include "base/rsql_time.h"
#include "connectors/rsql_conn_io.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define KEEP_RINGS 64

typedef struct lane_ent {
    int64_t offset;
    char *key; /* the position's text part (rsql_record_t.pos_key), owned; NULL: none */
    bool done;
} lane_ent_t;

typedef struct lane {
    lane_ent_t *ring;
    uint64_t cap, head, count; /* ring slots (a power of two: 64 doubled), index of the oldest,
                                  entries; a slot index is taken modulo cap with & (cap - 1) */
    uint64_t first_ticket;     /* ticket of ring[head] */
    bool has_pos, dirty;
    int64_t pos;
    char *pos_key; /* pos's text part, owned; NULL: none */
} lane_t;

struct rsql_offtrack {
    lane_t *lanes;
    uint32_t n_lanes;
    uint32_t rings; /* lanes with a ring */
};

/* A new empty tracker (caller destroys), NULL on OOM. */
rsql_offtrack_t *rsql_offtrack_new(void)
{
    return rsql_calloc(1, sizeof(rsql_offtrack_t));
}

/* Free t. NULL-safe. */
void rsql_offtrack_destroy(rsql_offtrack_t *t)
{
    if (!t) {
        return;
    }
    for (uint32_t i = 0; i < t->n_lanes; i++) {
        lane_t *l = &t->lanes[i];
        for (uint64_t j = 0; j < l->count; j++) {
            rsql_free(l->ring[(l->head + j) & (l->cap - 1)].key);
        }
        rsql_free(l->ring);
        rsql_free(l->pos_key);
    }
    rsql_free(t->lanes);
    rsql_free(t);
}

static lane_t *lane_get(rsql_offtrack_t *t, uint32_t id, bool create)
{
    if (id < t->n_lanes) {
        return &t->lanes[id];
    }
    if (!create) {
        return NULL;
    }
    uint32_t n = t->n_lanes ? t->n_lanes : 4;
    while (n <= id) {
        n *= 2;
    }
    lane_t *l = rsql_realloc(t->lanes, (size_t)n * sizeof(lane_t));
    if (!l) {
        return NULL;
    }
    memset(l + t->n_lanes, 0, (size_t)(n - t->n_lanes) * sizeof(lane_t));
    t->lanes = l;
    t->n_lanes = n;
    return &t->lanes[id];
}

static bool lane_grow(lane_t *l)
{
    uint64_t cap = l->cap ? l->cap * 2 : 64;
    lane_ent_t *r = rsql_malloc((size_t)cap * sizeof(lane_ent_t));
    if (!r) {
        return false;
    }
    for (uint64_t i = 0; i < l->count; i++) {
        r[i] = l->ring[(l->head + i) & (l->cap - 1)];
    }
    rsql_free(l->ring);
    l->ring = r;
    l->cap = cap;
    l->head = 0;
    return true;
}

/*
** Register a record of lane with resume offset; *ticket identifies it.
*/
rsql_err_t rsql_offtrack_add(rsql_offtrack_t *t, uint32_t lane, int64_t offset,
                             const char *key, uint64_t *ticket)
{
    lane_t *l = lane < t->n_lanes ? &t->lanes[lane] : lane_get(t, lane, true);
    if (!l) {
        return RSQL_ERR_NOMEM;
    }
    if (l->count == l->cap) {
        bool fresh = l->cap == 0;
        if (!lane_grow(l)) {
            return RSQL_ERR_NOMEM;
        }
        t->rings += fresh;
    }
    char *kc = NULL;
    if (key && !(kc = rsql_strdup(key))) {
        return RSQL_ERR_NOMEM;
    }
    l->ring[(l->head + l->count) & (l->cap - 1)] = (lane_ent_t){offset, kc, false};
    *ticket = l->first_ticket + l->count;
    l->count++;
    return RSQL_OK;
}

/*
** Complete the record (lane, ticket); pop the completed prefix. Returns
** true when the committable position advanced.
*/
bool rsql_offtrack_done(rsql_offtrack_t *t, uint32_t lane, uint64_t ticket)
{
    lane_t *l = lane < t->n_lanes ? &t->lanes[lane] : NULL;
    if (!l || ticket < l->first_ticket || ticket - l->first_ticket >= l->count) {
        return false;
    }
    lane_ent_t *e = &l->ring[(l->head + (ticket - l->first_ticket)) & (l->cap - 1)];
    if (e->done) {
        return false;
    }
    e->done = true;
    bool advanced = false;
    while (l->count && l->ring[l->head].done) {
        l->pos = l->ring[l->head].offset;
        if (l->pos_key || l->ring[l->head].key) { /* most sources' positions have no text */
            rsql_free(l->pos_key);
            l->pos_key = l->ring[l->head].key; /* taken */
        }
        l->has_pos = true;
        l->head = (l->head + 1) & (l->cap - 1);
        l->count--;
        l->first_ticket++;
        advanced = true;
    }
    if (advanced) {
        l->dirty = true;
    }
    if (l->count == 0 && t->rings > KEEP_RINGS) {
        rsql_free(l->ring);
        l->ring = NULL;
        l->cap = l->head = 0;
        t->rings--;
    }
    return advanced;
}

/* Take up to max lanes whose position changed since the last take (see rsql_pipeline.h). */
int rsql_offtrack_take_dirty(rsql_offtrack_t *t, uint32_t *lanes, int64_t *offsets, char **keys,
                             int max)
{
    int n = 0;
    for (uint32_t i = 0; i < t->n_lanes && n < max; i++) {
        if (t->lanes[i].dirty) {
            const char *pk = t->lanes[i].pos_key;
            if (keys && (keys[n] = pk ? rsql_strdup(pk) : NULL) == NULL && pk) {
                break; /* out of memory: the lane stays dirty, taken later */
            }
            t->lanes[i].dirty = false;
            lanes[n] = i;
            offsets[n] = t->lanes[i].pos;
            n++;
        }
    }
    return n;
}

/* Mark lane dirty again (its save failed and must be retried). */
void rsql_offtrack_mark_dirty(rsql_offtrack_t *t, uint32_t lane)
{
    if (lane < t->n_lanes && t->lanes[lane].has_pos) {
        t->lanes[lane].dirty = true;
    }
}

/* ---- saving positions (worker) */

/*
** Publish the state's counts (conf.state_stats) to conf.stats: the gauges as they are, the
** counters by what they grew since the last time (so they go on over runs); ckpt_us >= 0: a
** checkpoint transaction just committed in that many us, observed when it wrote changes.
** @locality worker thread
*/
static void state_publish(rsql_pipeline_t *p, int64_t ckpt_us)
{
    rsql_pipeline_stats_t *st = p->conf.stats;
    if (!st || !p->conf.state_stats) {
        return;
    }
    rsql_state_counts_t now = {0}, *was = &p->state_seen;
    p->conf.state_stats(p->conf.state_opaque, &now);
    if (ckpt_us >= 0 && now.checkpoints > was->checkpoints) {
        rsql_latency_observe(&st->state_checkpoint, ckpt_us, now.checkpoints - was->checkpoints);
    }
    atomic_fetch_add(&st->state_checkpoints, now.checkpoints - was->checkpoints);
    atomic_fetch_add(&st->state_reads, now.reads - was->reads);
    atomic_fetch_add(&st->state_evictions, now.evictions - was->evictions);
    atomic_fetch_add(&st->state_waits, now.waits - was->waits);
    atomic_fetch_add(&st->records_late, now.late - was->late);
    atomic_store(&st->state_keys, now.keys);
    atomic_store(&st->state_bytes, now.bytes);
    atomic_store(&st->state_pending, now.pending);
    atomic_store(&st->has_state, true);
    *was = now;
}

/*
** Save the n positions taken (lanes[i] at offs[i], keys[i] its text part or NULL) and the
** state with them in one catalog transaction, then tell the source; *saved says whether it
** was. With a state the positions saved are those its checkpoint says (those of the last seal
** the deliveries reached, maybe none yet): a lane taken further than that is marked dirty
** again once the saving ends (redo[0 .. *n_redo), room for n; *n_redo starts at 0: the
** caller marks them, so that one call's lanes are not taken again by the next in one save).
** A failed save marks the lanes dirty again: RSQL_OK unless final or the error is not
** retriable (err set).
*/
static rsql_err_t save_taken(rsql_pipeline_t *p, int n, const uint32_t *lanes,
                             const int64_t *offs, char *const *keys, bool final, bool *saved,
                             uint32_t *redo, int *n_redo, rsql_error_t *err)
{
    rsql_error_t local;
    rsql_error_clear(&local);
    rsql_err_t rc = RSQL_OK;
    *saved = false;
    /* what is saved: the positions taken, or the state's cut */
    int m = n;
    const uint32_t *s_lanes = lanes;
    const int64_t *s_offs = offs;
    const char *const *s_keys = (const char *const *)keys;
    if (p->conf.cat) {
        int64_t began_ns = rsql_now_ns(), took_us = 0;
        rc = rsql_catalog_begin(p->conf.cat, &local);
        if (rc == RSQL_OK && p->conf.state_checkpoint) { /* the state says what goes with it */
            rsql_state_cut_t cut = {0};
            rc = p->conf.state_checkpoint(p->conf.state_opaque, p->conf.cat, n, lanes, offs,
                                          atomic_load(&p->ticks_done), &cut, &local);
            m = cut.n;
            s_lanes = cut.lanes;
            s_offs = cut.offs;
            s_keys = cut.keys;
            for (int i = 0; rc == RSQL_OK && i < n; i++) { /* taken further than saved */
                int j = 0;
                while (j < m && s_lanes[j] != lanes[i]) {
                    j++;
                }
                if (j == m || s_offs[j] < offs[i]) {
                    redo[(*n_redo)++] = lanes[i];
                }
            }
        }
        rsql_buf_t val = RSQL_BUF_INIT;
        for (int i = 0; rc == RSQL_OK && i < m; i++) {
            rsql_buf_reset(&val);
            rsql_io_position_text(&val, s_offs[i], s_keys[i]);
            const char *name = rsql_pipeline__partition_name(p, s_lanes[i]);
            rc = val.oom ? RSQL_ERR_NOMEM
                         : rsql_catalog_offset_put(p->conf.cat, p->id, name, rsql_buf_str(&val),
                                                   &local);
        }
        rsql_buf_deinit(&val);
        if (rc == RSQL_OK) {
            rc = rsql_catalog_commit(p->conf.cat, &local);
            took_us = (rsql_now_ns() - began_ns) / 1000; /* the checkpoint, to its commit */
        } else {
            rsql_catalog_rollback(p->conf.cat, NULL);
        }
        if (rc == RSQL_OK && p->conf.state_committed) {
            p->conf.state_committed(p->conf.state_opaque); /* the cut's lanes and offsets stay */
            state_publish(p, took_us);
        }
    }
    if (rc != RSQL_OK) {
        *n_redo = 0;
        pthread_mutex_lock(&p->track_lock);
        for (int i = 0; i < n; i++) {
            rsql_offtrack_mark_dirty(p->track, lanes[i]);
        }
        pthread_mutex_unlock(&p->track_lock);
        if (!local.code) {
            rsql_error_set(&local, rc, RSQL_NOPOS, "%s", rsql_err_str(rc));
        }
        if (final || !rsql_error_retriable(&local)) {
            return rsql_error_set(err, rc, RSQL_NOPOS, "saving source positions: %s", local.msg);
        }
        return RSQL_OK;
    }
    *saved = true;
    p->positions_saved += m;
    for (int i = 0; i < m; i++) {
        if (p->conf.src_ops->committed) {
            p->conf.src_ops->committed(p->src, s_lanes[i], s_offs[i]);
        }
    }
    return RSQL_OK;
}

/* rsql_pipeline__save_positions but the state's counts. */
static rsql_err_t save_positions0(rsql_pipeline_t *p, bool final, rsql_error_t *err)
{
    enum { MAXL = 64 };
    uint32_t lanes[MAXL];
    int64_t offs[MAXL];
    char *keys[MAXL];
    uint32_t *redo = NULL; /* lanes taken further than the state let save: dirty again */
    int n_redo = 0, cap_redo = 0;
    if (p->conf.preview || p->conf.src_ops->manages_own_positions) {
        return RSQL_OK;
    }
    rsql_err_t rc = RSQL_OK;
    for (;;) {
        if (p->conf.state_checkpoint && n_redo + MAXL > cap_redo) {
            int cap = cap_redo ? 2 * cap_redo : MAXL;
            uint32_t *g = rsql_realloc(redo, sizeof *g * (size_t)cap);
            if (!g) {
                rc = rsql_error_nomem(err); /* none taken: the lanes stay dirty */
                break;
            }
            redo = g;
            cap_redo = cap;
        }
        pthread_mutex_lock(&p->track_lock);
        int n = rsql_offtrack_take_dirty(p->track, lanes, offs, keys, MAXL);
        pthread_mutex_unlock(&p->track_lock);
        if (n == 0) {
            break;
        }
        bool saved;
        int added = 0;
        rc = save_taken(p, n, lanes, offs, keys, final, &saved, redo + n_redo, &added, err);
        n_redo += added;
        for (int i = 0; i < n; i++) {
            rsql_free(keys[i]);
        }
        if (rc != RSQL_OK || !saved || n < MAXL) {
            break; /* a failed save is tried again at the next interval */
        }
    }
    if (n_redo > 0) {
        pthread_mutex_lock(&p->track_lock);
        for (int i = 0; i < n_redo; i++) {
            rsql_offtrack_mark_dirty(p->track, redo[i]);
        }
        pthread_mutex_unlock(&p->track_lock);
    }
    rsql_free(redo);
    return rc;
}

/*
** Save every position that advanced since the last save to the catalog, in
** one transaction, then tell the source (source.committed). A failed save
** marks the lanes dirty again; with final set the failure is returned
** (err set), otherwise it is retried at the next interval unless it is not
** retriable. Previews save nothing. The state's counts are published after it
** (every flush interval, every checkpoint asked for, and at the end).
** @locality worker thread
*/
rsql_err_t rsql_pipeline__save_positions(rsql_pipeline_t *p, bool final, rsql_error_t *err)
{
    rsql_err_t rc = save_positions0(p, final, err);
    state_publish(p, -1);
    return rc;
}

/* See pipeline_int.h. */
void rsql_pipeline__checkpoint_soon(rsql_pipeline_t *p)
{
    atomic_store(&p->ckpt_wanted, true);
    if (!atomic_exchange(&p->ckpt_queued, true)) {
        /* wakes the worker when the deliveries came before the ask */
        memset(&p->checkpoint_op, 0, sizeof p->checkpoint_op);
        p->checkpoint_op.type = RT_OP_CHECKPOINT;
        rsql_queue_push_urgent(p->wq, &p->checkpoint_op); /* wq is never closed */
    }
}

/* See pipeline_int.h. */
void rsql_pipeline__checkpoint_if_wanted(rsql_pipeline_t *p)
{
    if (!atomic_load_explicit(&p->ckpt_wanted, memory_order_relaxed) || /* most loops */
        !atomic_exchange(&p->ckpt_wanted, false)) {
        return;
    }
    int64_t saved = p->positions_saved;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_pipeline__save_positions(p, false, &e) != RSQL_OK) {
        rsql_pipeline__fail(p, &e, false);
    } else if (p->positions_saved == saved) {
        atomic_store(&p->ckpt_wanted, true); /* none advanced yet: at the next delivery */
    }
}

/* ---- saying where a run resumes */

/*
** A run resumes from n saved positions (names[i] at offs[i]): say so on the status output
** ("resuming NAME where it left off: PART at OFF, ...", with how to start over) and record it
** in the job run (SHOW JOB RUNS: resumed_from). Nothing for n = 0 (from the start).
** @locality worker thread
*/
void rsql_pipeline__resume_note(rsql_pipeline_t *p, int n, const char *const *names,
                                const int64_t *offs, const char *const *keys)
{
    if (n <= 0 || p->resume_noted) {
        return;
    }
    p->resume_noted = true;
    char from[512];
    size_t len = 0;
    from[0] = '\0';
    for (int i = 0; i < n && len < sizeof from; i++) {
        int w = i < 3 ? snprintf(from + len, sizeof from - len, "%s%s at %" PRId64 "%s%.64s%s",
                                 i ? ", " : "", names[i], offs[i],
                                 keys && keys[i] ? " (" : "", keys && keys[i] ? keys[i] : "",
                                 keys && keys[i] ? ")" : "")
                      : snprintf(from + len, sizeof from - len, " and %d more", n - i);
        if (w < 0) {
            break;
        }
        len += (size_t)w;
        if (i >= 3) {
            break;
        }
    }
    const char *name = p->conf.name ? p->conf.name : p->id;
    if (p->conf.status_out) {
        fprintf(p->conf.status_out,
                "resuming %s where it left off: %s (RESET POSITIONS '%s' starts over)\n", name,
                from, name);
        fflush(p->conf.status_out);
    }
    rsql_log(RSQL_LOG_INFO, "runtime", "%s: resuming where it left off: %s", name, from);
    if (p->run_id > 0 && p->conf.cat) {
        rsql_catalog_run_resumed(p->conf.cat, p->run_id, from, NULL);
    }
}

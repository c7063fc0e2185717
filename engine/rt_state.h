/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_state: the keyed state of a stateful statement (a deduplication, an aggregation, a
 * window): bytes by key, in memory for the run, durable in the catalog. The transform thread
 * changes entries in place and says which records it handed on (rsql_rt_state_seen); now and
 * then, between two records, it seals the entries changed since the last seal with the
 * positions of the records seen so far (rsql_rt_state_seal): a seal is the state exactly as
 * of those positions, in every lane at once. The worker writes every seal whose positions its
 * deliveries reached, and saves the last one's positions with them in the same catalog
 * transaction (rsql_rt_state_checkpoint, then rsql_rt_state_committed once it committed).
 * So on disk the state always goes with the positions beside it, whatever the number of
 * lanes: a run killed at any moment resumes from positions whose state is exactly that of
 * the rows before them. A key changed many times between two seals is written once.
 * @locality get, put, del, seen and seal on the transform thread; checkpoint and committed on
 * the worker
 */
#ifndef RSQL_RT_STATE_H
#define RSQL_RT_STATE_H

#include "catalog/rsql_catalog.h"

typedef struct rt_state rt_state_t;

/*
** The state of pipeline (the key its positions are kept under) read from cat; cat NULL (a
** preview) keeps it in memory only. ttl_ms > 0: an entry written longer ago is forgotten
** (table.exec.state.ttl). memory > 0 (state.memory) bounds the bytes held: entries on disk
** leave memory past it and are read back when asked for (not with a catalog in memory, which
** no other connection sees: then, and with memory 0, every entry is held, read at open).
*/
rsql_err_t rsql_rt_state_open(rsql_catalog_t *cat, const char *pipeline, int64_t ttl_ms,
                              int64_t memory, rt_state_t **out, rsql_error_t *err);
void rsql_rt_state_close(rt_state_t *s);
/* rsql_rt_state_open, with scan called for each entry the catalog holds for pipeline (within
   the TTL) while it opens: an operator that must know its keys (a window's) learns them. A
   non-OK return fails the open. */
typedef rsql_err_t (*rt_state_scan_cb)(void *opaque, const void *key, size_t key_len,
                                       const void *value, size_t value_len);
rsql_err_t rsql_rt_state_open_scan(rsql_catalog_t *cat, const char *pipeline, int64_t ttl_ms,
                                   int64_t memory, rt_state_scan_cb scan, void *opaque,
                                   rt_state_t **out, rsql_error_t *err);

/*
** The value of key (valid until the next get or put) with *found true, or *found false when it
** has none (or it expired). An error: the catalog could not be read (RSQL_ERR_UNAVAILABLE
** while it is locked).
*/
rsql_err_t rsql_rt_state_get(rt_state_t *s, const void *key, size_t key_len, int64_t now_ms,
                             const uint8_t **value, size_t *value_len, bool *found,
                             rsql_error_t *err);
/*
** Hints for the keys of a batch, whose memory a row-at-a-time lookup would wait for key by key:
** rsql_rt_state_prefetch(s, h) for each key (h its rsql_rt_state_hash) fetches its slot's cache
** line; then rsql_rt_state_prefetch_entry(s, h) for each fetches its entry (the slot read from
** the cache by then). Neither changes anything, nor reads the catalog.
*/
void rsql_rt_state_prefetch(const rt_state_t *s, uint64_t h);
void rsql_rt_state_prefetch_entry(const rt_state_t *s, uint64_t h);

/* Set key's value (copied). The change goes to the catalog with the next seal. */
rsql_err_t rsql_rt_state_put(rt_state_t *s, const void *key, size_t key_len, const void *value,
                             size_t value_len, int64_t now_ms);

/* Delete key: as rsql_rt_state_put, but the key has no value after it (get finds nothing) and
   the catalog forgets it with the next seal. */
rsql_err_t rsql_rt_state_del(rt_state_t *s, const void *key, size_t key_len, int64_t now_ms);

/*
** The transform thread handed on the record at offset of lane (key its position's text part,
** or NULL): whatever it changed is in the entries. Every record whose outcome completes its
** position is seen, whether it changed the state or not, so that a seal's positions are
** those of every record before it.
*/
rsql_err_t rsql_rt_state_seen(rt_state_t *s, uint32_t lane, int64_t offset, const char *key);

/* The worker wants a seal (every flush interval), for its next checkpoint. Any thread. */
void rsql_rt_state_ask_seal(rt_state_t *s);

/*
** Whether a seal is due: the worker asked for one (rsql_rt_state_ask_seal), or the entries
** changed since the last seal hold a quarter of the bound (state.memory).
*/
bool rsql_rt_state_seal_due(rt_state_t *s);

/*
** Seal the entries changed since the last seal with the positions seen so far; ticks is the
** count of the transform's own records (RSQL_REC_TICK) made before it, whose changes (the
** windows they gave) may go to disk only once that many ticks were delivered. Between two
** records only. Nothing to seal: nothing done.
*/
rsql_err_t rsql_rt_state_seal(rt_state_t *s, uint64_t ticks);

/* The positions a checkpoint saves with the state it wrote: n lanes at offs, keys[i] the
   position's text part or NULL. The state's: lanes and offs valid until the next checkpoint,
   keys until rsql_rt_state_committed (they are the seals'). */
typedef struct rt_state_cut {
    int n;
    const uint32_t *lanes;
    const int64_t *offs;
    const char *const *keys;
} rt_state_cut_t;

/*
** Write into cat (inside the caller's transaction) the changes of every seal, oldest first,
** whose positions the deliveries reached: lanes[i] at offs[i] are the positions of the
** records delivered (those not given stand where an earlier call said), and ticks_done the
** ticks delivered. *cut: the positions to save in the same transaction (the last seal
** written's; n 0 when none is reached yet: then save none). Nothing is forgotten until
** rsql_rt_state_committed: a rolled back transaction writes them again next time.
*/
rsql_err_t rsql_rt_state_checkpoint(rt_state_t *s, rsql_catalog_t *cat, int n,
                                    const uint32_t *lanes, const int64_t *offs,
                                    uint64_t ticks_done, rt_state_cut_t *cut, rsql_error_t *err);
/* The transaction of the last checkpoint committed: its changes are on disk. */
void rsql_rt_state_committed(rt_state_t *s);

/*
** Whether the sealed changes not on disk passed half the bound (state.memory): the caller
** should then seal, hand on the rows it holds (their delivery lets the seals' positions be
** saved), have a checkpoint made, and wait for it (rsql_rt_state_wait) before the next put.
** False with no bound, in memory only, and after a wait that timed out until a checkpoint
** commits (the sink may hold its rows until the end of the run).
*/
bool rsql_rt_state_full(rt_state_t *s);
/* Wait until a checkpoint commits or until_ms (rsql_now_ms's clock); true when the changes not
   on disk are back under half the bound. */
bool rsql_rt_state_wait(rt_state_t *s, int64_t until_ms);

typedef struct rt_state_stats {
    int64_t keys;            /* held */
    int64_t bytes;           /* of keys and values held */
    int64_t pending;         /* changes not yet on disk */
    int64_t checkpoints;     /* transactions that wrote changes */
    int64_t last_checkpoint_us; /* how long the last one took to write */
    int64_t reads;           /* keys looked for in the catalog */
    int64_t evictions;       /* entries that left memory for the bound */
    int64_t peak_bytes;      /* the most held after a change: entries and unsaved changes */
    int64_t waits;           /* waits for a checkpoint (changes past half the bound) */
} rt_state_stats_t;
/* Its counts so far. Any thread (the worker reads them while the transform thread runs:
   each is read as it is, not all at one instant). */
void rsql_rt_state_stats(rt_state_t *s, rt_state_stats_t *out);

/* The hash of the n bytes at p that the state's table uses (8 bytes a step, with a finalizer,
   so that all its bits depend on every byte): for other tables keyed by the same bytes. It is
   never stored: it may differ between builds and machines (byte order). */
uint64_t rsql_rt_state_hash(const void *p, size_t n);

/* For tests: the table without its tags, as where an address does not fit below them. */
void rsql_rt_state__no_tags(rt_state_t *s);

/* "state: K keys in memory (B bytes), C checkpoints" (and the evictions, catalog reads and
   waits when there were any) at buf; the length written (snprintf's, clipped to size). */
size_t rsql_rt_state_describe(rt_state_t *s, char *buf, size_t size);

#endif

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_keyfilter: see rt_keyfilter.h. Each layer is a bit array of some bits a key it was sized
 * for, probed 0.69 times as often per hash (double hashing: h1 + i * h2, both from the one
 * 64-bit hash, each spread over the layer's bits by a multiply): the first 11 bits a key
 * (about 0.5 % false positives when full), each next one twice the keys and a bit a key more
 * (0.3 %, 0.2 %, 0.1 %, ..., 16 bits at most: 0.05 %), so the layers' sum stays under 2 % for
 * many doublings. Adds go into the newest layer; when it is full, the next begins. A test asks
 * every layer.
 * @locality see rt_keyfilter.h
 */
#include "config.h"
#include "engine/rt_keyfilter.h"
#include "base/rsql_mem.h"

#define BITS_PER_KEY 11 /* the first layer's; each next one 1 more, up to MAX_BITS_PER_KEY */
#define MAX_BITS_PER_KEY 16
#define MAX_LAYERS 24

typedef struct layer {
    uint64_t *words;
    uint64_t nbits; /* a multiple of 64 */
    int64_t cap, n; /* keys it is sized for, keys added */
    int probes;
} layer_t;

struct rt_keyfilter {
    layer_t layers[MAX_LAYERS];
    int n_layers;
    bool broken; /* an add failed: every test says "maybe", the layers are freed */
    int64_t bytes, max_bytes;
};

static bool layer_init(rt_keyfilter_t *f, int64_t keys)
{
    if (f->n_layers == MAX_LAYERS) {
        return false;
    }
    int bpk = BITS_PER_KEY + f->n_layers;
    if (bpk > MAX_BITS_PER_KEY) {
        bpk = MAX_BITS_PER_KEY;
    }
    if (keys > (INT64_C(1) << 34)) {
        keys = INT64_C(1) << 34;
    }
    uint64_t nbits = ((uint64_t)keys * (uint64_t)bpk + 63) / 64 * 64;
    if (f->max_bytes > 0 && f->bytes + (int64_t)(nbits / 8) > f->max_bytes) {
        return false;
    }
    layer_t *l = &f->layers[f->n_layers];
    l->words = rsql_calloc(nbits / 64, sizeof *l->words);
    if (!l->words) {
        return false;
    }
    l->nbits = nbits;
    l->cap = (int64_t)(nbits / (uint64_t)bpk);
    l->n = 0;
    l->probes = (bpk * 69 + 50) / 100;
    f->n_layers++;
    f->bytes += (int64_t)(nbits / 8);
    return true;
}

/* See rt_keyfilter.h. */
rt_keyfilter_t *rsql_rt_keyfilter_new(int64_t keys, int64_t max_bytes)
{
    rt_keyfilter_t *f = rsql_calloc(1, sizeof *f);
    if (!f) {
        return NULL;
    }
    f->bytes = (int64_t)sizeof *f;
    f->max_bytes = max_bytes;
    if (!layer_init(f, keys > 0 ? keys : 1) && !(max_bytes > 0 && f->n_layers == 0)) {
        rsql_free(f);
        return NULL;
    }
    f->broken = f->n_layers == 0; /* not even one layer within max_bytes */
    return f;
}

static void free_layers(rt_keyfilter_t *f)
{
    for (int i = 0; i < f->n_layers; i++) {
        rsql_free(f->layers[i].words);
        f->bytes -= (int64_t)(f->layers[i].nbits / 8);
    }
    f->n_layers = 0;
}

/* See rt_keyfilter.h. */
void rsql_rt_keyfilter_free(rt_keyfilter_t *f)
{
    if (f) {
        free_layers(f);
        rsql_free(f);
    }
}

/* Bit i of n, spread over [0, n) by a multiply (no power of two needed). */
static inline uint64_t bit_of(uint64_t x, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)x * n) >> 64);
}

/* The probes' start and step: the low and high halves of a remix of the hash (the state's
   hash already spreads its low bits; the remix spreads the high ones too). */
static void probes(uint64_t hash, uint64_t *h1, uint64_t *h2)
{
    uint64_t h = hash * UINT64_C(0x9e3779b97f4a7c15);
    h ^= h >> 29;
    *h1 = h;
    *h2 = (h >> 32) | (hash << 32) | 1;
}

/* See rt_keyfilter.h. */
bool rsql_rt_keyfilter_add(rt_keyfilter_t *f, uint64_t hash)
{
    if (f->broken) {
        return false;
    }
    layer_t *l = &f->layers[f->n_layers - 1];
    if (l->n >= l->cap) {
        if (!layer_init(f, l->cap * 2)) {
            f->broken = true;
            free_layers(f);
            return false;
        }
        l = &f->layers[f->n_layers - 1];
    }
    uint64_t h1, h2;
    probes(hash, &h1, &h2);
    for (int i = 0; i < l->probes; i++) {
        uint64_t b = bit_of(h1 + (uint64_t)i * h2, l->nbits);
        l->words[b >> 6] |= UINT64_C(1) << (b & 63);
    }
    l->n++;
    return true;
}

/* See rt_keyfilter.h. */
bool rsql_rt_keyfilter_maybe(const rt_keyfilter_t *f, uint64_t hash)
{
    if (f->broken) {
        return true;
    }
    uint64_t h1, h2;
    probes(hash, &h1, &h2);
    for (int k = f->n_layers - 1; k >= 0; k--) {
        const layer_t *l = &f->layers[k];
        int i = 0;
        while (i < l->probes) {
            uint64_t b = bit_of(h1 + (uint64_t)i * h2, l->nbits);
            if (!(l->words[b >> 6] & (UINT64_C(1) << (b & 63)))) {
                break;
            }
            i++;
        }
        if (i == l->probes) {
            return true;
        }
    }
    return false;
}

/* See rt_keyfilter.h. */
int64_t rsql_rt_keyfilter_bytes(const rt_keyfilter_t *f)
{
    return f ? f->bytes : 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_state: bytes read back as a job's state (base/rsql_value_bin.c: a deduplication's kept
 * rows, read from the catalog) through rsql_value_unpack, as the columns of one of a few
 * tables (scalars, DECIMALs, nested ROW, ARRAY and MAP values). Checks: an error is
 * RSQL_ERR_DECODE with a "state: " message, never another code; values read back pack to
 * bytes that read back to the same values (packing them again gives the same bytes), each of
 * its column's type, a MAP's keys never NULL.
 *
 * Input: byte 0 picks the table (mod the count); the rest is the state's bytes.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

static const char *const tables[][6] = {
    {"BIGINT", "VARCHAR", "INT", "TIMESTAMP(3)", NULL},
    {"BOOLEAN", "DOUBLE", "BYTES", "DATE", "DECIMAL(10, 2)", NULL},
    {"DECIMAL(38, 10)", "ROW<a INT, b ARRAY<VARCHAR>>", NULL},
    {"MAP<VARCHAR, ROW<x DOUBLE, y MAP<VARCHAR, BIGINT>>>", "ARRAY<DECIMAL(5, 1)>", NULL},
};
#define N_TABLES ((int)(sizeof tables / sizeof tables[0]))

static void check_types(const rsql_value_t *v, const rsql_tdesc_t *t)
{
    FZ_CHECK(v->type == t->type, "type %d, want %d", (int)v->type, (int)t->type);
    if (v->is_null || !rsql_type_is_nested(t->type)) {
        return;
    }
    const rsql_composite_t *c = v->v.c;
    size_t n = t->type == RSQL_TYPE_MAP ? 2 * (size_t)c->n : (size_t)c->n;
    for (size_t i = 0; i < n; i++) {
        const rsql_tdesc_t *ct = t->type == RSQL_TYPE_ROW     ? t->children[i]
                                 : t->type == RSQL_TYPE_ARRAY ? t->children[0]
                                                              : t->children[i % 2];
        if (t->type == RSQL_TYPE_MAP && i % 2 == 0) {
            FZ_CHECK(!c->items[i].is_null, "a NULL MAP key");
        }
        check_types(&c->items[i], ct);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    const char *const *tab = tables[data[0] % N_TABLES];
    int n = 0;
    rsql_type_t types[6];
    const rsql_tdesc_t *descs[6];
    for (; tab[n]; n++) {
        rsql_error_t e;
        uint32_t off;
        FZ_CHECK(rsql_tdesc_parse(tab[n], strlen(tab[n]), &descs[n], &off, &e) == RSQL_OK,
                 "type %s: %s", tab[n], e.msg);
        types[n] = descs[n]->type;
    }
    rsql_arena_t *a = rsql_arena_new();
    rsql_value_t vals[6], again[6];
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_value_unpack(data + 1, size - 1, n, types, descs, a, vals, &err);
    if (rc != RSQL_OK) {
        FZ_CHECK(rc == RSQL_ERR_DECODE || rc == RSQL_ERR_NOMEM, "code %d: %s", (int)rc, err.msg);
        FZ_CHECK(rc == RSQL_ERR_NOMEM || strncmp(err.msg, "state: ", 7) == 0, "message '%s'",
                 err.msg);
        rsql_arena_destroy(a);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        check_types(&vals[i], descs[i]);
    }
    rsql_buf_t b1 = RSQL_BUF_INIT, b2 = RSQL_BUF_INIT;
    rsql_value_pack(vals, n, &b1);
    rc = rsql_value_unpack((const uint8_t *)b1.data, b1.len, n, types, descs, a, again, &err);
    FZ_CHECK(rc == RSQL_OK, "packed values do not read back: %s", err.msg);
    rsql_value_pack(again, n, &b2);
    FZ_CHECK(b1.len == b2.len && memcmp(b1.data, b2.data, b1.len) == 0,
             "packing what was read back gives other bytes");
    rsql_buf_deinit(&b1);
    rsql_buf_deinit(&b2);
    rsql_arena_destroy(a);
    return 0;
}

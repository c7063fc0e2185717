/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_position: bytes read back as a stored source position (connectors/conn_io.c: the
 * catalog's value or a Kafka positions record, "<offset>[ <text part>]", and the text part
 * of a snapshot position, a key's values as netstrings "<len>:<bytes>,..."). Checks: a text
 * that parses as a position gives it back unchanged when written again; a key's text that
 * parses gives values that, written again, are the same text; nothing reads past the input.
 *
 * Input: the bytes, as the position (not NUL-ended) and as a key's text (up to a NUL).
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "connectors/rsql_conn_io.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* a copy of exactly size bytes, so a read past them is the sanitizer's to catch */
    char *pos = rsql_malloc(size ? size : 1);
    FZ_CHECK(pos != NULL, "out of memory");
    memcpy(pos, data, size);
    int64_t off;
    const char *key;
    if (rsql_io_position_parse(pos, size, &off, &key)) {
        FZ_CHECK(!key || (key > pos && key <= pos + size), "the text part outside the input");
        rsql_buf_t b = RSQL_BUF_INIT;
        char *k = key ? rsql_strndup(key, size - (size_t)(key - pos)) : NULL;
        rsql_io_position_text(&b, off, k);
        /* a text part with a NUL in it is cut there: compare up to it */
        size_t want = k ? (size_t)(key - pos) + strlen(k) : size;
        FZ_CHECK(!b.oom && b.len == want && memcmp(b.data, pos, want) == 0,
                 "position read and written again differs");
        rsql_free(k);
        rsql_buf_deinit(&b);
    }
    rsql_free(pos);

    char *txt = rsql_malloc(size + 1);
    char *buf = rsql_malloc(size + 1);
    FZ_CHECK(txt && buf, "out of memory");
    memcpy(txt, data, size);
    txt[size] = '\0';
    const char *vals[8];
    int n = rsql_io_key_parse(txt, buf, vals, 8);
    FZ_CHECK(n >= -1 && n <= 8, "key count %d", n);
    if (n >= 0) {
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_io_key_text(&b, n, vals);
        FZ_CHECK(!b.oom && b.len == strlen(txt) && memcmp(b.data ? b.data : "", txt, b.len) == 0,
                 "key read and written again differs");
        rsql_buf_deinit(&b);
    }
    rsql_free(txt);
    rsql_free(buf);
    return 0;
}

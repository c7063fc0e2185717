/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_pgoutput: bytes from a PostgreSQL replication connection through the pgoutput decoder
 * (connectors/postgres/pgoutput.c): a CopyData payload through rsql_pgoutput_copy_parse, and
 * a stream of pgoutput messages through one decoder (so Relations enter its cache and later
 * messages use them), every value of every row through rsql_pgoutput_value. Checks: an error
 * is RSQL_ERR_DECODE with a "pgoutput: " message, never another code; XLogData's message is
 * inside the payload; an Insert is one +I row, an Update +U after an optional -U (only with
 * an old tuple or key), a Delete one -D, a key-only row only after 'K'; a row's relation is
 * the one cached under its OID; its count of unchanged values is right and each such value
 * refuses to convert; a value converts to its type OID's type, or NULL, or a decode error;
 * an LSN text that parses formats back to the same LSN.
 *
 * Input: byte 0 bit 0: the rest is one CopyData payload (an XLogData's message then goes
 * through the decoder); otherwise the rest is messages, each a 2-byte big-endian length then
 * that many bytes (the last one takes what is left). Bit 1: the first line is also read as an
 * LSN text.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"
#include "connectors/postgres/pgoutput.h"

static void check_error(rsql_err_t rc, const rsql_error_t *err)
{
    FZ_CHECK(rc == RSQL_ERR_DECODE, "code %d: %s", (int)rc, err->msg);
    FZ_CHECK(strncmp(err->msg, "pgoutput: ", 10) == 0, "message '%s'", err->msg);
}

static void check_row(const rsql_pgoutput_event_t *ev, const rsql_pgoutput_row_t *row,
                      rsql_arena_t *a)
{
    const rsql_pgoutput_rel_t *rel = ev->rel;
    uint16_t unchanged = 0;
    for (uint16_t i = 0; i < rel->n_cols; i++) {
        const rsql_pgoutput_datum_t *dt = &row->cols[i];
        unchanged += dt->kind == 'u';
        rsql_value_t v;
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_err_t rc = rsql_pgoutput_value(&rel->cols[i], dt, a, &v, &err);
        if (dt->kind == 'u') {
            FZ_CHECK(rc == RSQL_ERR_DECODE, "an unchanged value converted");
        }
        if (rc != RSQL_OK) {
            check_error(rc, &err);
            continue;
        }
        FZ_CHECK(v.type == rsql_pgoutput_type(rel->cols[i].type_oid), "type %d for OID %u",
                 (int)v.type, (unsigned)rel->cols[i].type_oid);
        FZ_CHECK(v.is_null == (dt->kind == 'n'), "NULL is %d for kind %c", v.is_null, dt->kind);
    }
    FZ_CHECK(unchanged == row->n_unchanged, "%u unchanged counted %u", unchanged,
             row->n_unchanged);
    FZ_CHECK(!row->key_only || ev->old_tag == 'K', "a key-only row after tag %d", ev->old_tag);
}

static void check_event(const rsql_pgoutput_t *d, const rsql_pgoutput_event_t *ev,
                        rsql_arena_t *a)
{
    switch (ev->type) {
    case 'I':
        FZ_CHECK(ev->n_rows == 1 && ev->rows[0].kind == RSQL_ROW_INSERT, "Insert rows");
        break;
    case 'U':
        FZ_CHECK(ev->n_rows == (ev->old_tag ? 2 : 1), "Update has %d rows", ev->n_rows);
        FZ_CHECK(ev->rows[ev->n_rows - 1].kind == RSQL_ROW_UPDATE_AFTER, "Update's last row");
        FZ_CHECK(ev->n_rows == 1 || ev->rows[0].kind == RSQL_ROW_UPDATE_BEFORE, "Update's -U");
        break;
    case 'D':
        FZ_CHECK(ev->n_rows == 1 && ev->rows[0].kind == RSQL_ROW_DELETE && ev->old_tag,
                 "Delete rows");
        break;
    case 'R': FZ_CHECK(ev->rel && ev->n_rows == 0, "Relation"); break;
    default: FZ_CHECK(ev->n_rows == 0, "rows in a message of type %c", ev->type); break;
    }
    if (ev->rel) {
        FZ_CHECK(rsql_pgoutput_relation(d, ev->rel->oid) == ev->rel, "the cached relation");
    }
    for (int k = 0; k < ev->n_rows; k++) {
        check_row(ev, &ev->rows[k], a);
    }
}

static void decode_one(rsql_pgoutput_t *d, const uint8_t *p, size_t n, rsql_arena_t *a)
{
    rsql_pgoutput_event_t ev;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_pgoutput_decode(d, p, n, &ev, &err);
    if (rc != RSQL_OK) {
        check_error(rc, &err);
        return;
    }
    check_event(d, &ev, a);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    uint8_t mode = fz_byte(&r);
    if (mode & 2) {
        size_t len;
        const uint8_t *s = fz_until(&r, '\n', &len);
        rsql_lsn_t lsn, back;
        if (rsql_pgoutput_lsn_parse((const char *)s, len, &lsn)) {
            char buf[RSQL_LSN_TEXT_MAX];
            size_t k = rsql_pgoutput_lsn_format(lsn, buf);
            FZ_CHECK(rsql_pgoutput_lsn_parse(buf, k, &back) && back == lsn, "LSN %s", buf);
        }
    }
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_arena_t *a = rsql_arena_new();
    FZ_CHECK(d && a, "out of memory");
    if (mode & 1) {
        rsql_pgoutput_copy_t c;
        rsql_error_t err;
        rsql_error_clear(&err);
        rsql_err_t rc = rsql_pgoutput_copy_parse(r.p, r.n, &c, &err);
        if (rc != RSQL_OK) {
            check_error(rc, &err);
        } else if (c.kind == 'w') {
            FZ_CHECK(c.data == r.p + 25 && c.len == r.n - 25, "XLogData's message");
            decode_one(d, c.data, c.len, a);
        } else {
            FZ_CHECK(c.kind == 'k' && r.n >= 18, "keepalive");
        }
    } else {
        while (r.n > 0) {
            size_t hi = fz_byte(&r), lo = fz_byte(&r), len;
            const uint8_t *p = fz_bytes(&r, hi << 8 | lo, &len);
            /* a heap copy of exactly len bytes, so a read past the message is caught */
            uint8_t *m = malloc(len ? len : 1);
            FZ_CHECK(m, "out of memory");
            if (len) {
                memcpy(m, p, len);
            }
            decode_one(d, m, len, a);
            free(m);
        }
    }
    rsql_arena_destroy(a);
    rsql_pgoutput_destroy(d);
    return 0;
}

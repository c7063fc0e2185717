/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgoutput_dump: the test driver of t_pgoutput_peek.sh. Reads the rows of
 * pg_logical_slot_peek_binary_changes (lsn, xid, data as hex; tab-separated, one a line) on
 * stdin, decodes each data through one pgoutput decoder (connectors/postgres/pgoutput.c), and
 * prints one line per event with nothing that changes from run to run (no LSN, xid, OID or
 * time), so the test compares them with what it executed:
 *
 *   BEGIN | COMMIT
 *   RELATION schema.table ident=d id:23:-1:key v:25:-1 ...   (" changed" when redefined)
 *   TYPE schema.name
 *   +I|-U|+U|-D schema.table col=value ...   (a key-only row ("-U key", "-D key") shows its
 *              key columns only; NULL; <unchanged> for an unchanged TOASTed value; a text of
 *              more than 40 bytes as [N bytes: first 8...]; " (N from the old tuple)" after
 *              a +U whose unchanged TOASTed values the old tuple gave)
 *   TRUNCATE schema.a schema.b options=N
 *
 * and checks what holds between messages: a Begin's xid is the peek's xid, a Commit's LSN
 * is the Begin's final LSN, its end LSN (after it) the peek row's LSN, every message
 * between a Begin and a Commit. A decode error prints "ERROR <message>" and exits 1.
 *
 * And the driver of t_pgcdc_snapshot_reader.sh: the postgres-cdc snapshot reader
 * (connectors/postgres/pgcdc_snapshot.c) on the real server, its rows printed as the stream's
 * (+I lines, the same conversion), so the two compare line for line:
 *
 *   pgoutput_dump snapshot CONNINFO NAME|- FETCH [REOPEN] TABLE...
 *
 * NAME: an exported snapshot (- for a fresh one); FETCH: rows per chunk; REOPEN (r<N>): after
 * N rows, continue on a new connection (rsql_pgcdc_snap_reopen); TABLE: schema.table, or
 * schema.table:col,col (those columns), then >k1,k2 (resume after that key) or ! (done
 * before). After each table's rows: "END schema.table key=k1,k2" (its last key). An error
 * prints "ERROR <message>" and exits 1.
 */
#include "config.h"
#include "connectors/postgres/pgcdc_snapshot.h"
#include "connectors/postgres/pgoutput.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/rsql_buf.h"
#include "base/rsql_value.h"

static int hexv(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static void die(const char *what, const char *detail)
{
    printf("ERROR %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static void put_row(const rsql_pgoutput_event_t *ev, const rsql_pgoutput_row_t *row,
                    rsql_arena_t *a)
{
    const rsql_pgoutput_rel_t *rel = ev->rel;
    printf("%s%s %s.%s", rsql_rowkind_short(row->kind), row->key_only ? " key" : "",
           rel->nspname, rel->relname);
    for (uint16_t i = 0; i < rel->n_cols; i++) {
        const rsql_pgoutput_col_t *c = &rel->cols[i];
        if (row->key_only && !(c->flags & RSQL_PGOUTPUT_COL_KEY)) {
            if (row->cols[i].kind != 'n') {
                die("a key-only row has a value outside the key", c->name);
            }
            continue;
        }
        printf(" %s=", c->name);
        if (row->cols[i].kind == 'u') {
            printf("<unchanged>");
            continue;
        }
        rsql_value_t v;
        rsql_error_t err;
        rsql_error_clear(&err);
        if (rsql_pgoutput_value(c, &row->cols[i], a, &v, &err) != RSQL_OK) {
            die("value", err.msg);
        }
        if (v.is_null) {
            printf("NULL");
            continue;
        }
        rsql_buf_t b = RSQL_BUF_INIT;
        rsql_value_format(&v, &b);
        if (b.len > 40) {
            printf("[%zu bytes: %.8s...]", b.len, rsql_buf_str(&b));
        } else {
            printf("%s", rsql_buf_str(&b));
        }
        rsql_buf_deinit(&b);
    }
    if (row->n_filled) {
        printf(" (%u from the old tuple)", (unsigned)row->n_filled);
    }
    printf("\n");
}

/* Split s at commas into v (at most max), in place; returns the count. */
static int split(char *s, char **v, int max)
{
    int n = 0;
    while (s && n < max) {
        v[n++] = s;
        s = strchr(s, ',');
        if (s) {
            *s++ = '\0';
        }
    }
    return n;
}

static int snapshot_main(int argc, char **argv)
{
    if (argc < 6) {
        die("usage: pgoutput_dump snapshot CONNINFO NAME|- FETCH [rN] TABLE...", NULL);
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_pgcdc_snap_t *s = rsql_pgcdc_snap_open(PQconnectdb(argv[2]),
                                                strcmp(argv[3], "-") ? argv[3] : NULL,
                                                strtoll(argv[4], NULL, 10), &err);
    if (!s) {
        die("open", err.msg);
    }
    int first = 5;
    long reopen_after = -1;
    if (argv[5][0] == 'r') {
        reopen_after = strtol(argv[5] + 1, NULL, 10);
        first = 6;
    }
    for (int i = first; i < argc; i++) {
        char *spec = argv[i], *cols[64], *key[16];
        char *resume = strpbrk(spec, ">!");
        bool done = resume && *resume == '!';
        if (resume) {
            *resume++ = '\0';
        }
        char *colon = strchr(spec, ':');
        if (colon) {
            *colon++ = '\0';
        }
        char *dot = strchr(spec, '.');
        if (!dot) {
            die("not schema.table", spec);
        }
        *dot = '\0';
        int n_cols = colon ? split(colon, cols, 64) : 0;
        int n_key = resume && !done ? split(resume, key, 16) : 0;
        if (rsql_pgcdc_snap_add_table(s, spec, dot + 1, n_cols, (const char *const *)cols, n_key,
                                      n_key ? (const char *const *)key : NULL, done,
                                      &err) < 0) {
            die("table", err.msg);
        }
    }
    rsql_arena_t *a = rsql_arena_new();
    long rows = 0;
    for (;;) {
        rsql_pgcdc_snap_row_t r;
        bool end;
        if (rsql_pgcdc_snap_next(s, &r, &end, &err) != RSQL_OK) {
            die("next", err.msg);
        }
        if (end) {
            break;
        }
        if (r.table_end) {
            printf("END %s.%s key=", r.rel->nspname, r.rel->relname);
            for (int k = 0; k < r.n_key; k++) {
                printf("%s%s", k ? "," : "", r.key[k]);
            }
            printf("\n");
            continue;
        }
        rsql_pgoutput_event_t ev = {.type = 'I', .rel = r.rel, .n_rows = 1};
        put_row(&ev, &r.row, a);
        if (++rows == reopen_after && rsql_pgcdc_snap_reopen(s, PQconnectdb(argv[2]), &err)) {
            die("reopen", err.msg);
        }
    }
    rsql_arena_destroy(a);
    rsql_pgcdc_snap_close(s);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "snapshot") == 0) {
        return snapshot_main(argc, argv);
    }
    rsql_pgoutput_t *d = rsql_pgoutput_new();
    rsql_arena_t *a = rsql_arena_new();
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    bool in_txn = false;
    rsql_lsn_t final_lsn = 0;
    uint8_t *msg = NULL;
    while ((got = getline(&line, &cap, stdin)) > 0) {
        line[strcspn(line, "\r\n")] = '\0';
        char *xid_s = strchr(line, '\t'), *hex = xid_s ? strchr(xid_s + 1, '\t') : NULL;
        if (!hex) {
            die("not 'lsn<TAB>xid<TAB>hex'", line);
        }
        *xid_s++ = '\0';
        *hex++ = '\0';
        rsql_lsn_t row_lsn;
        if (!rsql_pgoutput_lsn_parse(line, strlen(line), &row_lsn)) {
            die("not an LSN", line);
        }
        size_t n = strlen(hex) / 2;
        msg = realloc(msg, n ? n : 1);
        for (size_t i = 0; i < n; i++) {
            int hi = hexv(hex[2 * i]), lo = hexv(hex[2 * i + 1]);
            if (hi < 0 || lo < 0) {
                die("not hex", hex);
            }
            msg[i] = (uint8_t)(hi << 4 | lo);
        }
        rsql_pgoutput_event_t ev;
        rsql_error_t err;
        rsql_error_clear(&err);
        if (rsql_pgoutput_decode(d, msg, n, &ev, &err) != RSQL_OK) {
            die("decode", err.msg);
        }
        if (ev.type == 'B' ? in_txn : !in_txn) {
            die(ev.type == 'B' ? "Begin inside a transaction" : "a message outside one", NULL);
        }
        switch (ev.type) {
        case 'B':
            if (strtoul(xid_s, NULL, 10) != ev.xid) {
                die("Begin's xid is not the peek's", xid_s);
            }
            in_txn = true;
            final_lsn = ev.final_lsn;
            printf("BEGIN\n");
            break;
        case 'C':
            if (!in_txn || ev.lsn != final_lsn || ev.end_lsn != row_lsn || ev.end_lsn <= ev.lsn ||
                ev.flags != 0) {
                die("Commit's LSNs do not match its Begin and its row", line);
            }
            in_txn = false;
            printf("COMMIT\n");
            break;
        case 'R':
            printf("RELATION %s.%s ident=%c", ev.rel->nspname, ev.rel->relname,
                   ev.rel->replident);
            for (uint16_t i = 0; i < ev.rel->n_cols; i++) {
                const rsql_pgoutput_col_t *c = &ev.rel->cols[i];
                printf(" %s:%u:%d%s", c->name, (unsigned)c->type_oid, (int)c->typmod,
                       c->flags & RSQL_PGOUTPUT_COL_KEY ? ":key" : "");
            }
            printf("%s\n", ev.changed ? " changed" : "");
            break;
        case 'Y': printf("TYPE %s.%s\n", ev.nspname, ev.name); break;
        case 'O': printf("ORIGIN %s\n", ev.name); break;
        case 'M': printf("MESSAGE %s %u bytes\n", ev.name, (unsigned)ev.len); break;
        case 'T':
            printf("TRUNCATE");
            for (uint32_t i = 0; i < ev.n_relids; i++) {
                const rsql_pgoutput_rel_t *r = rsql_pgoutput_relation(d, ev.relids[i]);
                if (!r) {
                    die("Truncate of a relation that did not come", NULL);
                }
                printf(" %s.%s", r->nspname, r->relname);
            }
            printf(" options=%u\n", (unsigned)ev.flags);
            break;
        default:
            for (int k = 0; k < ev.n_rows; k++) {
                put_row(&ev, &ev.rows[k], a);
            }
            break;
        }
    }
    free(line);
    free(msg);
    rsql_arena_destroy(a);
    rsql_pgoutput_destroy(d);
    return in_txn ? (printf("ERROR the stream ends inside a transaction\n"), 1) : 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * lookup_probe: a test driver of a connector's lookup (rsql_lookup_ops_t;
 * tests/e2e/t_pg_lookup.sh): it opens CONNECTOR's lookup on a table of the given columns,
 * reads keys from standard input, looks all of them up in ONE call, and prints the rows it
 * was given, as text, for the test to compare with psql's.
 *
 *   lookup_probe [--rounds N] [--wait-file PATH] --col NAME TYPE... --key NAME...
 *                CONNECTOR KEY=VALUE... < keys
 *
 * --col NAME TYPE: the table's columns in order (TYPE as in CREATE TABLE: INT, DECIMAL(10, 2),
 * ROW<a INT>); --key NAME: the key columns, in the order a key's values come in.
 * KEY=VALUE: the table's options (connector added). A line of keys: the key's values,
 * TAB-separated, in the output's forms below.
 *
 * Output: a line per row reported, "I<TAB>V1<TAB>V2...", I the key's line (0-based), the
 * values: NULL \N; VARCHAR with \\, \t, \n escaped; BYTES as lowercase hex; BOOLEAN
 * true/false; DOUBLE the shortest %g that reads back; TIMESTAMP "YYYY-MM-DD HH:MM:SS.mmm"
 * (UTC); DATE YYYY-MM-DD; DECIMAL and ROW/ARRAY/MAP as rsql_value_format writes them.
 * With --rounds N the lookup is made N times (each round's rows after a line "round R"),
 * waiting before each round after the first until PATH (--wait-file) exists, then removing
 * it: meanwhile the test may break the connection. A failed lookup prints
 * "lookup_probe: round R: NAME (transient|permanent): message" to standard error; an
 * UNAVAILABLE one is answered as the runtime does, by closing the lookup, opening a new one
 * and asking again (once). Exits 0 when every round succeeded, 1 with the reason otherwise.
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "base/rsql_value.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_COLS 32
#define MAX_OPTS 16
#define MAX_KEYS 4096

static int n_cols;
static const char *col_names[MAX_COLS];
static rsql_type_t col_types[MAX_COLS];
static const rsql_tdesc_t *col_descs[MAX_COLS];

static int die(const char *what)
{
    fprintf(stderr, "lookup_probe: %s\n", what);
    return 1;
}

/* v as the output's text (see the top of the file). */
static void put_value(rsql_buf_t *b, const rsql_value_t *v)
{
    if (v->is_null) {
        rsql_buf_puts(b, "\\N");
        return;
    }
    switch (v->type) {
    case RSQL_TYPE_BOOLEAN: rsql_buf_puts(b, v->v.b ? "true" : "false"); break;
    case RSQL_TYPE_INT:
    case RSQL_TYPE_BIGINT: rsql_buf_printf(b, "%lld", (long long)v->v.i); break;
    case RSQL_TYPE_DOUBLE: {
        char t[64];
        for (int prec = 1; prec <= 17; prec++) {
            snprintf(t, sizeof t, "%.*g", prec, v->v.d);
            if (strtod(t, NULL) == v->v.d) {
                break;
            }
        }
        rsql_buf_puts(b, t);
        break;
    }
    case RSQL_TYPE_VARCHAR:
        for (size_t i = 0; i < v->v.s.len; i++) {
            char c = v->v.s.p[i];
            rsql_buf_puts(b, c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : "");
            if (c != '\\' && c != '\t' && c != '\n') {
                rsql_buf_putc(b, c);
            }
        }
        break;
    case RSQL_TYPE_BYTES:
        for (size_t i = 0; i < v->v.s.len; i++) {
            rsql_buf_printf(b, "%02x", (unsigned char)v->v.s.p[i]);
        }
        break;
    case RSQL_TYPE_TIMESTAMP:
    case RSQL_TYPE_DATE: {
        int64_t ms = v->type == RSQL_TYPE_DATE ? v->v.i * 86400000 : v->v.ts;
        int64_t secs = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000);
        time_t tt = (time_t)secs;
        struct tm tm;
        char out[64];
        gmtime_r(&tt, &tm);
        strftime(out, sizeof out, v->type == RSQL_TYPE_DATE ? "%Y-%m-%d" : "%Y-%m-%d %H:%M:%S",
                 &tm);
        rsql_buf_puts(b, out);
        if (v->type == RSQL_TYPE_TIMESTAMP) {
            rsql_buf_printf(b, ".%03d", (int)(ms - secs * 1000));
        }
        break;
    }
    default: rsql_value_format(v, b); break;
    }
}

/* Field s (n bytes) of a key line as a value of column c, strings in arena. */
static int parse_key(int c, char *s, size_t n, rsql_arena_t *arena, rsql_value_t *v)
{
    rsql_type_t t = col_types[c];
    memset(v, 0, sizeof *v);
    v->type = t;
    if (t == RSQL_TYPE_VARCHAR || t == RSQL_TYPE_BYTES) {
        char *out = rsql_arena_alloc(arena, n + 1);
        size_t m = 0;
        for (size_t i = 0; i < n; i++) {
            if (t == RSQL_TYPE_BYTES) {
                unsigned x = 0;
                if (i + 1 >= n || sscanf(s + i, "%2x", &x) != 1) {
                    return -1;
                }
                out[m++] = (char)x;
                i++;
            } else if (s[i] == '\\' && i + 1 < n) {
                i++;
                out[m++] = s[i] == 't' ? '\t' : s[i] == 'n' ? '\n' : s[i] == '0' ? '\0' : s[i];
            } else {
                out[m++] = s[i];
            }
        }
        v->v.s.p = out;
        v->v.s.len = m;
        return 0;
    }
    if (t == RSQL_TYPE_DECIMAL) { /* at the text's own scale */
        const char *dot = memchr(s, '.', n);
        int scale = dot ? (int)(n - (size_t)(dot - s) - 1) : 0;
        return rsql_value_parse_decimal(s, n, 38, scale, v, NULL) == RSQL_OK ? 0 : -1;
    }
    if (t == RSQL_TYPE_DOUBLE) {
        v->v.d = strtod(s, NULL);
        return 0;
    }
    return rsql_value_parse(t, s, n, arena, v, NULL) == RSQL_OK ? 0 : -1;
}

static rsql_err_t print_row(void *opaque, int key, const rsql_value_t *row)
{
    (void)opaque;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_printf(&b, "%d", key);
    for (int c = 0; c < n_cols; c++) {
        rsql_buf_putc(&b, '\t');
        put_value(&b, &row[c]);
    }
    if (b.oom) {
        rsql_buf_deinit(&b);
        return RSQL_ERR_NOMEM;
    }
    printf("%s\n", rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return RSQL_OK;
}

int main(int argc, char **argv)
{
    int rounds = 1, n_key = 0, key_cols[MAX_COLS], n_opts = 0, a = 1;
    const char *wait_file = NULL, *connector = NULL;
    rsql_opt_kv_t kv[MAX_OPTS];
    for (; a < argc; a++) {
        if (strcmp(argv[a], "--rounds") == 0 && a + 1 < argc) {
            rounds = atoi(argv[++a]);
        } else if (strcmp(argv[a], "--wait-file") == 0 && a + 1 < argc) {
            wait_file = argv[++a];
        } else if (strcmp(argv[a], "--col") == 0 && a + 2 < argc && n_cols < MAX_COLS) {
            col_names[n_cols] = argv[a + 1];
            if (rsql_tdesc_parse(argv[a + 2], strlen(argv[a + 2]), &col_descs[n_cols], NULL,
                                 NULL) != RSQL_OK) {
                return die("bad --col type");
            }
            col_types[n_cols] = col_descs[n_cols]->type;
            n_cols++;
            a += 2;
        } else if (strcmp(argv[a], "--key") == 0 && a + 1 < argc && n_key < MAX_COLS) {
            int c = 0;
            while (c < n_cols && strcmp(col_names[c], argv[a + 1]) != 0) {
                c++;
            }
            if (c == n_cols) {
                return die("--key names no --col given before it");
            }
            key_cols[n_key++] = c;
            a++;
        } else if (!connector) {
            connector = argv[a];
            kv[n_opts++] = (rsql_opt_kv_t){"connector", connector, RSQL_NOPOS, RSQL_NOPOS};
        } else if (strchr(argv[a], '=') && n_opts < MAX_OPTS) {
            char *eq = strchr(argv[a], '=');
            *eq = '\0';
            kv[n_opts++] = (rsql_opt_kv_t){argv[a], eq + 1, RSQL_NOPOS, RSQL_NOPOS};
        } else {
            return die("usage: lookup_probe [--rounds N] [--wait-file PATH] --col NAME TYPE... "
                       "--key NAME... CONNECTOR KEY=VALUE... < keys");
        }
    }
    if (!connector || n_cols == 0 || n_key == 0 || n_key > 4) {
        return die("a connector, --col and --key (at most 4) are required");
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    const rsql_connector_def_t *def = NULL;
    rsql_optset_t *opts = rsql_connector_validate(kv, n_opts, col_names, n_cols, RSQL_NOPOS,
                                                  &def, &err);
    if (!opts) {
        fprintf(stderr, "lookup_probe: options: %s\n", err.msg);
        return 1;
    }
    if (!def->lookup) {
        rsql_optset_destroy(opts);
        return die("the connector has no lookup");
    }
    const rsql_tdesc_t *descs[MAX_COLS];
    for (int c = 0; c < n_cols; c++) {
        descs[c] = rsql_type_is_param(col_types[c]) ? col_descs[c] : NULL;
    }
    rsql_lookup_ctx_t ctx = {.table = "dims",
                             .opts = opts,
                             .conf = rsql_optset_conf(opts, RSQL_CONF_CONNECTOR),
                             .n_columns = n_cols,
                             .column_names = col_names,
                             .column_types = col_types,
                             .column_descs = descs,
                             .n_key = n_key,
                             .key_columns = key_cols};

    /* the keys */
    static rsql_value_t keys[MAX_KEYS * 4];
    rsql_arena_t *arena = rsql_arena_new();
    char line[8192];
    int n = 0;
    while (arena && n < MAX_KEYS && fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        char *p = line;
        for (int k = 0; k < n_key; k++) {
            char *tab = strchr(p, '\t');
            size_t len = tab ? (size_t)(tab - p) : strlen(p);
            if (parse_key(key_cols[k], p, len, arena,
                                       &keys[(size_t)n * (size_t)n_key + (size_t)k]) != 0) {
                fprintf(stderr, "lookup_probe: key line %d: bad value '%.*s'\n", n, (int)len, p);
                rsql_arena_destroy(arena);
                rsql_optset_destroy(opts);
                return 1;
            }
            p = tab ? tab + 1 : p + len;
        }
        n++;
    }

    rsql_lookup_t *lk = NULL;
    int status = 0;
    if (def->lookup->open(&ctx, &lk, &err) != RSQL_OK) {
        fprintf(stderr, "lookup_probe: open: %s (%s): %s\n", rsql_err_name(err.code),
                rsql_error_retriable(&err) ? "transient" : "permanent", err.msg);
        status = 1;
    }
    for (int r = 1; r <= rounds && status == 0; r++) {
        if (r > 1 && wait_file) {
            while (access(wait_file, F_OK) != 0) {
                usleep(20000);
            }
            unlink(wait_file);
        }
        if (rounds > 1) {
            printf("round %d\n", r);
        }
        fflush(stdout);
        for (int attempt = 0; attempt < 2; attempt++) {
            rsql_error_clear(&err);
            if (def->lookup->lookup(lk, n, keys, print_row, NULL, &err) == RSQL_OK) {
                break;
            }
            fprintf(stderr, "lookup_probe: round %d: %s (%s): %s\n", r, rsql_err_name(err.code),
                    rsql_error_retriable(&err) ? "transient" : "permanent", err.msg);
            if (attempt > 0 || err.code != RSQL_ERR_UNAVAILABLE) {
                status = 1;
                break;
            }
            /* as the runtime: rows of the failed call are dropped (none were printed: the
               connection was lost before any came), a new lookup, the same keys again */
            def->lookup->close(lk);
            lk = NULL;
            if (def->lookup->open(&ctx, &lk, &err) != RSQL_OK) {
                fprintf(stderr, "lookup_probe: reopen: %s\n", err.msg);
                status = 1;
                break;
            }
        }
        fflush(stdout);
    }
    if (lk) {
        def->lookup->close(lk);
    }
    rsql_arena_destroy(arena);
    rsql_optset_destroy(opts);
    return status;
}

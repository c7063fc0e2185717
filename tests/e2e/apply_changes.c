/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * apply_changes: a test driver of the sinks that apply a changelog (tests/e2e/t_changes_apply.sh):
 * it opens CONNECTOR's sink on a table (k BIGINT, v VARCHAR, PRIMARY KEY (k)) as a changelog
 * and writes it the changes read from standard input, through the sink's own write / flush,
 * as the runtime would (the planner does not route changelogs to it yet).
 *
 *   apply_changes CONNECTOR KEY=VALUE... < changes
 *
 * A line of changes: "SEQ KIND K V": SEQ the record it belongs to (the rows of one record are
 * consecutive: a -U/+U pair, several changes in one message), KIND +I -U +U -D, K the key, V
 * the value or \N for NULL. KEY=VALUE are the sink table's options (connector added).
 * Environment:
 *   RSQL_AC_BATCH=N      records per write (default 7)
 *   RSQL_AC_OWN=1        the source keeps its own positions: each record carries the identity
 *                        "msg-SEQ" (the sink records them); else its position, partition "p0"
 *                        at offset SEQ, and the driver resumes after the sink's stored one
 *   RSQL_AC_KILL_AFTER=N SIGKILL itself right after the N-th write returned (a crash with
 *                        gathered rows not committed yet); 0 = never
 *   RSQL_AC_CHANGELOG=0  open the sink as an append (no changelog; every row must be +I)
 *   RSQL_AC_KEEP_FIRST=1 with RSQL_AC_CHANGELOG=0: the first row of each key wins
 *                        (rsql_sink_ctx_t.keep_first, a deduplication the sink does)
 *   RSQL_AC_TOLERATE=1   errors.tolerance 'all': rows may fail (counted), the others go on
 * Exits 0 once every row was reported (written, or failed under RSQL_AC_TOLERATE); 1 with the
 * reason on a failure.
 */
#include "config.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_io.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_OPTS 16

typedef struct delivered {
    int64_t rows, failed;
} delivered_t;

static void on_delivery(void *opaque, uint64_t batch_id, int n, const rsql_sink_result_t *res)
{
    delivered_t *d = opaque;
    (void)batch_id;
    for (int i = 0; i < n; i++) {
        if (res[i].code != RSQL_OK) {
            fprintf(stderr, "apply_changes: row failed: %s\n", res[i].msg);
            d->failed++;
        }
    }
    d->rows += n;
}

static int64_t resume_at = -1;

static rsql_err_t on_position(void *opaque, const char *partition, int64_t offset,
                              const char *key)
{
    (void)opaque;
    (void)key;
    if (strcmp(partition, "p0") == 0) {
        resume_at = offset;
    }
    return RSQL_OK;
}

static int kind_of(const char *s)
{
    static const char *const names[] = {"+I", "-U", "+U", "-D"};
    for (int k = 0; k < 4; k++) {
        if (strcmp(s, names[k]) == 0) {
            return k;
        }
    }
    return -1;
}

static int die(const char *what, const rsql_error_t *err)
{
    fprintf(stderr, "apply_changes: %s%s%s\n", what, err ? ": " : "", err ? err->msg : "");
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: apply_changes CONNECTOR KEY=VALUE... < changes\n");
        return 2;
    }
    int batch = getenv("RSQL_AC_BATCH") ? atoi(getenv("RSQL_AC_BATCH")) : 7;
    bool own = getenv("RSQL_AC_OWN") && atoi(getenv("RSQL_AC_OWN"));
    int kill_after = getenv("RSQL_AC_KILL_AFTER") ? atoi(getenv("RSQL_AC_KILL_AFTER")) : 0;
    bool changelog = !getenv("RSQL_AC_CHANGELOG") || atoi(getenv("RSQL_AC_CHANGELOG"));
    bool tolerate = getenv("RSQL_AC_TOLERATE") && atoi(getenv("RSQL_AC_TOLERATE"));
    bool keep_first = getenv("RSQL_AC_KEEP_FIRST") && atoi(getenv("RSQL_AC_KEEP_FIRST"));
    batch = batch > 0 ? batch : 7;

    /* the changes: every row and record kept until the end (rows stay valid until reported) */
    int cap = 1024, n = 0;
    rsql_sink_row_t *rows = calloc((size_t)cap, sizeof *rows);
    int64_t *seqs = calloc((size_t)cap, sizeof *seqs);
    char line[4096];
    while (rows && seqs && fgets(line, sizeof line, stdin)) {
        char kind[8], val[4000];
        long long seq, key;
        if (sscanf(line, "%lld %7s %lld %3999s", &seq, kind, &key, val) != 4 || kind_of(kind) < 0) {
            fprintf(stderr, "apply_changes: bad line: %s", line);
            return 2;
        }
        if (n == cap) {
            cap *= 2;
            rows = realloc(rows, (size_t)cap * sizeof *rows);
            seqs = realloc(seqs, (size_t)cap * sizeof *seqs);
            if (!rows || !seqs) {
                return die("out of memory", NULL);
            }
        }
        rsql_value_t *v = calloc(2, sizeof *v);
        v[0].type = RSQL_TYPE_BIGINT;
        v[0].v.i = key;
        v[1].type = RSQL_TYPE_VARCHAR;
        if (strcmp(val, "\\N") == 0) {
            v[1].is_null = true;
        } else {
            v[1].v.s.p = strdup(val);
            v[1].v.s.len = strlen(val);
        }
        memset(&rows[n], 0, sizeof rows[n]);
        rows[n].values = v;
        rows[n].kind = (uint8_t)kind_of(kind);
        seqs[n++] = seq;
    }
    if (!rows || !seqs) {
        return die("out of memory", NULL);
    }
    /* one record per SEQ, shared by its rows */
    for (int i = 0; i < n; i++) {
        if (i > 0 && seqs[i] == seqs[i - 1]) {
            rows[i].rec = rows[i - 1].rec;
            rows[i].partition_name = rows[i - 1].partition_name;
            continue;
        }
        rsql_record_t *rec = calloc(1, sizeof *rec);
        char *ident = malloc(32);
        snprintf(ident, 32, "msg-%lld", (long long)seqs[i]);
        rec->offset = seqs[i];
        rec->ident = ident;
        rec->kind = rows[i].kind;
        rows[i].rec = rec;
        rows[i].partition_name = own ? NULL : "p0";
    }

    /* the sink */
    rsql_opt_kv_t kv[MAX_OPTS];
    int nkv = 0;
    kv[nkv++] = (rsql_opt_kv_t){"connector", argv[1], RSQL_NOPOS, RSQL_NOPOS};
    for (int a = 2; a < argc && nkv < MAX_OPTS; a++) {
        char *eq = strchr(argv[a], '=');
        if (!eq) {
            return die("an option is KEY=VALUE", NULL);
        }
        *eq = '\0';
        kv[nkv++] = (rsql_opt_kv_t){argv[a], eq + 1, RSQL_NOPOS, RSQL_NOPOS};
    }
    static const char *const names[] = {"k", "v"};
    static const rsql_type_t types[] = {RSQL_TYPE_BIGINT, RSQL_TYPE_VARCHAR};
    static const int key[] = {0};
    const rsql_connector_def_t *def = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_optset_t *opts = rsql_connector_validate(kv, nkv, names, 2, RSQL_NOPOS, &def, &err);
    if (!opts) {
        return die("options", &err);
    }
    char pipeline[256] = "apply-changes"; /* one per table: its positions and ids its own */
    for (int a = 1; a < nkv; a++) {
        if (strcmp(kv[a].key, "table") == 0 || strcmp(kv[a].key, "table-name") == 0) {
            snprintf(pipeline, sizeof pipeline, "apply-changes:%s", kv[a].value);
        }
    }
    delivered_t d = {0, 0};
    rsql_sink_ctx_t ctx = {.table = "t",
                           .pipeline = pipeline,
                           .opts = opts,
                           .conf = rsql_optset_conf(opts, RSQL_CONF_CONNECTOR),
                           .n_columns = 2,
                           .column_names = names,
                           .column_types = types,
                           .deliver = on_delivery,
                           .deliver_opaque = &d,
                           .source_own_positions = own,
                           .n_key = 1,
                           .key_columns = key,
                           .changelog = changelog,
                           .keep_first = keep_first,
                           .tolerate_all = tolerate};
    rsql_sink_t *k = NULL;
    if (def->sink->open(&ctx, &k, &err) != RSQL_OK) {
        return die("open", &err);
    }
    int from = 0;
    if (!own) {
        if (def->sink->stored_positions(k, on_position, NULL, &err) != RSQL_OK) {
            return die("stored positions", &err);
        }
        while (from < n && rows[from].rec->offset <= resume_at) {
            from++; /* committed before: resume after them */
        }
    }
    int64_t sent = 0;
    int writes = 0;
    for (int i = from; i < n;) {
        int e = i, recs = 0;
        while (e < n && (recs < batch || rows[e].rec == rows[e - 1].rec)) {
            recs += e == i || rows[e].rec != rows[e - 1].rec;
            e++;
        }
        rsql_err_t rc;
        for (int tries = 0; (rc = def->sink->write(k, (uint64_t)writes, e - i, rows + i, &err)) !=
                                RSQL_OK;
             tries++) {
            if (!rsql_error_retriable(&err) || tries == 50) {
                return die("write", &err);
            }
            rsql_error_clear(&err);
        }
        sent += e - i;
        i = e;
        if (++writes == kill_after) {
            raise(SIGKILL);
        }
    }
    for (int tries = 0; d.rows < sent; tries++) {
        rsql_error_clear(&err);
        if (def->sink->flush(k, 10000, &err) != RSQL_OK && tries == 50) {
            return die("flush", &err);
        }
    }
    def->sink->close(k);
    rsql_optset_destroy(opts);
    if (d.failed && !tolerate) {
        return die("some rows failed", NULL);
    }
    printf("applied %lld rows from row %d, %lld failed\n", (long long)sent, from,
           (long long)d.failed);
    return 0;
}

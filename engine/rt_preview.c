/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_preview: the sink of a SELECT preview: each row as text cells (rsql_value_format) in a
 * result table, a changelog's rows with their kind first in an "op" column.
 */
#include "config.h"
#include "engine/rt_preview.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_value.h"

#include <stdio.h>
#include <string.h>

typedef struct preview_sink {
    rsql_result_t *res;
    int n;
    bool op; /* a changelog: each row's kind first, in an "op" column */
    rsql_delivery_cb deliver;
    void *opaque;
    rsql_buf_t cell;
} preview_sink_t;

/* handed over through open, which runs on the thread that runs the pipeline: one preview at a
   time per thread (several pipelines may run at once in one process) */
static _Thread_local rsql_result_t *preview_result;

/* See rt_preview.h. */
void rsql_rt_preview_target(rsql_result_t *res)
{
    preview_result = res;
}

static rsql_err_t preview_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    preview_sink_t *s = rsql_calloc(1, sizeof(*s));
    if (!s) {
        return rsql_error_nomem(err);
    }
    s->res = preview_result;
    s->n = ctx->n_columns;
    s->op = ctx->changelog;
    s->deliver = ctx->deliver;
    s->opaque = ctx->deliver_opaque;
    rsql_buf_init(&s->cell);
    *out = (rsql_sink_t *)s;
    return RSQL_OK;
}

static rsql_err_t preview_write(rsql_sink_t *snk, uint64_t batch_id, int n,
                                const rsql_sink_row_t *rows, rsql_error_t *err)
{
    preview_sink_t *s = (preview_sink_t *)snk;
    rsql_sink_result_t *res = rsql_calloc((size_t)(n ? n : 1), sizeof(*res));
    int w = s->n + s->op; /* cells per row */
    char **cells = rsql_calloc((size_t)w + 1, sizeof(char *));
    if (!res || !cells) {
        rsql_free(res);
        rsql_free(cells);
        return rsql_error_nomem(err);
    }
    for (int i = 0; i < n; i++) {
        bool ok = true;
        if (s->op) {
            ok = (cells[0] = rsql_strdup(rsql_rowkind_short(rows[i].kind))) != NULL;
        }
        for (int c = 0; c < s->n; c++) {
            const rsql_value_t *v = &rows[i].values[c];
            cells[c + s->op] = NULL;
            if (v->is_null || v->type == RSQL_TYPE_NULL) {
                continue;
            }
            rsql_buf_reset(&s->cell);
            rsql_value_format(v, &s->cell);
            cells[c + s->op] = rsql_strdup(rsql_buf_str(&s->cell));
            ok = ok && cells[c + s->op] && !s->cell.oom;
        }
        if (!ok || rsql_result_add_row(s->res, (const char *const *)cells) != RSQL_OK) {
            res[i].code = RSQL_ERR_NOMEM;
            snprintf(res[i].msg, sizeof res[i].msg, "out of memory");
        }
        for (int c = 0; c < w; c++) {
            rsql_free(cells[c]);
            cells[c] = NULL;
        }
    }
    rsql_free(cells);
    s->deliver(s->opaque, batch_id, n, res);
    rsql_free(res);
    return RSQL_OK;
}

static void preview_close(rsql_sink_t *snk)
{
    preview_sink_t *s = (preview_sink_t *)snk;
    rsql_buf_deinit(&s->cell);
    rsql_free(s);
}

const rsql_sink_ops_t rsql_rt_preview_ops = {
    .open = preview_open, .write = preview_write, .close = preview_close};


/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_json_path: a SQL/JSON path and a JSON document through the JSON functions' path
 * parser and evaluator (planner/fn_jpath.c, fn_json.c). Promises checked: the parser and
 * evaluator never crash, hang or recurse without bound on any bytes; a value the path reaches
 * prints as JSON that reads back (path $) to the same text; and a path that parses once
 * parses again the same from its own bytes (parsing is a function of the text).
 *
 * Input: the path up to the first 0xff byte, then the document.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_buf.h"
#include "planner/fn_int.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_reader_t r = {data, size};
    size_t pn, dn;
    const char *path = (const char *)fz_until(&r, 0xff, &pn);
    const char *doc = (const char *)fz_bytes(&r, r.n, &dn);
    const char *why = NULL;
    size_t at = 0;
    rsql_jpath_t *p = rsql_jpath_parse(path, pn, &why, &at);
    if (!p) {
        FZ_CHECK(why && at <= pn, "a refused path has a reason and an offset within it");
        return 0;
    }
    rsql_jpath_t *again = rsql_jpath_parse(path, pn, &why, &at);
    FZ_CHECK(again && again->n == p->n && again->strict == p->strict, "parsing is repeatable");
    free(again);
    rsql_buf_t out = RSQL_BUF_INIT;
    rsql_jfound_t f = rsql_json_path_text(p, doc, dn, &out, &why);
    if (f == RSQL_JFOUND_VALUE && !out.oom) {
        rsql_jpath_t *root = rsql_jpath_parse("$", 1, &why, &at);
        FZ_CHECK(root != NULL, "$ parses");
        rsql_buf_t back = RSQL_BUF_INIT;
        rsql_jfound_t g = rsql_json_path_text(root, out.data, out.len, &back, &why);
        FZ_CHECK(g == RSQL_JFOUND_VALUE, "a found value reads back as JSON: %.*s",
                 (int)(out.len > 200 ? 200 : out.len), out.data);
        FZ_CHECK(back.len == out.len && memcmp(back.data, out.data, out.len) == 0,
                 "a found value prints the same after reading it back");
        rsql_buf_deinit(&back);
        free(root);
    } else if (f == RSQL_JFOUND_ERROR) {
        FZ_CHECK(why != NULL, "an error has a reason");
    }
    rsql_buf_deinit(&out);
    free(p);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit tests of base/rsql_error.c's rendering: rsql_error_render prints the
 * one-line form, the source line and a caret that lines up with the error
 * under multi-byte UTF-8 characters, tabs and CRLF line ends, with '~' under
 * the rest of the span (clipped at the end of the line); and rsql_buf's
 * size arithmetic failing cleanly (sticky oom) instead of wrapping around; the one
 * exponential backoff (rsql_backoff: growth, cap, no overflow); and the one quoting of SQL
 * identifiers (rsql_buf_quote_ident and friends: embedded quotes doubled, no NUL written);
 * the one out-of-memory error (rsql_error_nomem); the table printer word-wrapping a
 * description column to a width (rsql_result_print_width: blanks, a word longer than the
 * column cut, UTF-8 counted as characters, TSV never wrapped).
 */
#include "config.h"
#include "base/rsql_error.h"
#include "base/rsql_backoff.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "base/rsql_result.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>

/* Render an error at [off, off+len) of sql with message "bad"; returns malloc'd text. */
static char *render(const char *sql, uint32_t off, uint32_t len)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_error_set(&err, RSQL_ERR_SYNTAX, (rsql_pos_t){off, len}, "bad");
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rsql_error_render(&err, sql, f);
    fclose(f);
    return text;
}

static void expect_render(const char *sql, uint32_t off, uint32_t len, const char *want)
{
    char *got = render(sql, off, len);
    CU_ASSERT_STRING_EQUAL(got, want);
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "\ngot:\n%swant:\n%s", got, want);
    }
    free(got);
}

static void test_core_render_ascii(void)
{
    expect_render("SELEC 1", 0, 5, "1:1: bad\n  SELEC 1\n  ^~~~~\n");
    expect_render("SELECT 1\nFROM x y z", 16, 1, "2:8: bad\n  FROM x y z\n         ^\n");
    /* a zero-length span (end of input) still gets a caret */
    expect_render("SELECT (", 8, 0, "1:9: bad\n  SELECT (\n          ^\n");
    /* a span running past the line is clipped at its end */
    expect_render("a bc\nde", 2, 6, "1:3: bad\n  a bc\n    ^~\n");
    /* no position: the one-line form only */
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_error_set(&err, RSQL_ERR_IO, RSQL_NOPOS, "disk");
    char *text = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&text, &n);
    rsql_error_render(&err, "x", f);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(text, "error: disk\n");
    free(text);
}

static void test_core_render_utf8(void)
{
    /* 'é' and 'ü' are two bytes each: the caret stays under the token */
    const char *sql = "SELECT 'h\xc3\xa9llo', '\xc3\xbc' + FROM t";
    const char *from = strstr(sql, "FROM");
    expect_render(sql, (uint32_t)(from - sql), 4,
                  "1:23: bad\n  SELECT 'h\xc3\xa9llo', '\xc3\xbc' + FROM t\n"
                  "                        ^~~~\n");
    /* the tildes count characters, not bytes */
    expect_render(sql, 7, 8, "1:8: bad\n  SELECT 'h\xc3\xa9llo', '\xc3\xbc' + FROM t\n"
                             "         ^~~~~~~\n");
}

static void test_core_render_tabs_crlf(void)
{
    /* a tab under a tab; the '\r' of a CRLF line end is not printed */
    const char *sql = "CREATE TABLE t (a INT) WITH (\r\n\t'nmber'='3');\r\n";
    const char *key = strstr(sql, "'nmber'");
    expect_render(sql, (uint32_t)(key - sql), 7,
                  "2:2: bad\n  \t'nmber'='3');\n  \t^~~~~~~\n");
    /* an error at the end of a CRLF line: the caret sits where the line ends */
    expect_render(sql, 29, 0, "1:30: bad\n  CREATE TABLE t (a INT) WITH (\n"
                              "  " "                             ^\n");
}

static void test_core_buf_size_overflow(void)
{
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_buf_puts(&b, "abc");
    rsql_buf_append(&b, "x", SIZE_MAX - 2); /* len + n + 1 wraps to 1 */
    CU_ASSERT_TRUE(b.oom);
    CU_ASSERT_EQUAL(b.len, 3);
    CU_ASSERT_STRING_EQUAL(rsql_buf_str(&b), "abc");
    rsql_buf_deinit(&b);
}

/* The arena: aligned, distinct, zeroed when asked; a large piece does not end the block. */
static void test_core_arena(void)
{
    rsql_arena_t *a = rsql_arena_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    unsigned char *prev = NULL;
    for (int i = 0; i < 5000; i++) { /* several blocks */
        size_t n = (size_t)(i % 40);
        unsigned char *p = rsql_arena_alloc_raw(a, n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        CU_ASSERT_EQUAL((uintptr_t)p % 16, 0);
        memset(p, 0xab, n); /* all n bytes are usable */
        if (prev && p > prev) {
            CU_ASSERT_TRUE(p - prev >= 16); /* no overlap with the last piece (>= 1 byte) */
        }
        prev = p;
    }
    unsigned char *x = rsql_arena_alloc_raw(a, 16);
    unsigned char *big = rsql_arena_alloc(a, 100000); /* a block of its own, zeroed */
    unsigned char *y = rsql_arena_alloc_raw(a, 16);
    CU_ASSERT_PTR_NOT_NULL_FATAL(x);
    CU_ASSERT_PTR_NOT_NULL_FATAL(big);
    CU_ASSERT_PTR_NOT_NULL_FATAL(y);
    size_t zero = 0;
    for (size_t i = 0; i < 100000; i++) {
        zero += big[i] == 0;
    }
    CU_ASSERT_EQUAL(zero, 100000);
    memset(big, 0xcd, 100000);
    if (y != x + 16) { /* the current block was full: a new one */
        CU_ASSERT_TRUE(y < big || y >= big + 100000);
    }
    unsigned char *z = rsql_arena_alloc(a, 0); /* 0 bytes: a valid (16-byte) piece */
    CU_ASSERT_PTR_NOT_NULL(z);
    CU_ASSERT_PTR_NULL(rsql_arena_alloc_raw(a, SIZE_MAX));     /* rounding would wrap */
    CU_ASSERT_PTR_NULL(rsql_arena_alloc_raw(a, SIZE_MAX - 20));
    rsql_mem_fail_after(1); /* the next block fails: NULL, nothing else changes */
    CU_ASSERT_PTR_NULL(rsql_arena_alloc_raw(a, 200000));
    rsql_mem_fail_after(0);
    CU_ASSERT_PTR_NOT_NULL(rsql_arena_alloc_raw(a, 8));
    rsql_arena_destroy(a);
    rsql_arena_destroy(NULL);
}

/* Backoff: starts at the first wait, doubles (or grows by the factor), stops at the cap. */
static void test_core_backoff(void)
{
    int64_t w = 0;
    const int64_t want[] = {100, 200, 400, 800, 1600, 3200, 5000, 5000};
    for (int i = 0; i < 8; i++) {
        w = rsql_backoff_next(w, 100, 5000);
        CU_ASSERT_EQUAL(w, want[i]);
        CU_ASSERT_EQUAL(rsql_backoff_nth(100, 2, 5000, i + 1), want[i]);
    }
    CU_ASSERT_EQUAL(rsql_backoff_next(0, 100, 50), 50);             /* cap under the first */
    CU_ASSERT_EQUAL(rsql_backoff_next(INT64_MAX / 2 + 1, 1, INT64_MAX), INT64_MAX); /* saturates */
    CU_ASSERT_EQUAL(rsql_backoff_nth(100, 2, 5000, 0), 100);        /* before any failure */
    CU_ASSERT_EQUAL(rsql_backoff_nth(100, 2, 5000, INT64_MAX), 5000); /* pow -> inf, capped */
    CU_ASSERT_EQUAL(rsql_backoff_nth(1000, 1.5, 60000, 3), 2250);
    CU_ASSERT_EQUAL(rsql_backoff_nth(1000, 1, 60000, 50), 1000);    /* factor 1: fixed */
    CU_ASSERT_EQUAL(rsql_backoff_nth(1000, 0.5, 60000, 5), 1000);   /* never shrinks */
}

/* The text one identifier quoting call appends to an empty buffer (static storage). */
static const char *ident(int how, const char *name, size_t len)
{
    static char out[128];
    rsql_buf_t b = RSQL_BUF_INIT;
    if (how == 0) {
        rsql_buf_quote_ident(&b, name);
    } else if (how == 1) {
        rsql_buf_quote_identn(&b, name, len);
    } else {
        rsql_buf_put_ident(&b, name);
    }
    CU_ASSERT_FALSE(b.oom);
    CU_ASSERT_EQUAL(strlen(rsql_buf_str(&b)), b.len); /* no NUL inside */
    snprintf(out, sizeof out, "%s", rsql_buf_str(&b));
    rsql_buf_deinit(&b);
    return out;
}

/* Identifiers: quotes doubled, plain words bare only where asked, NUL never copied. */
static void test_core_quote_ident(void)
{
    CU_ASSERT_STRING_EQUAL(ident(0, "t", 0), "\"t\"");
    CU_ASSERT_STRING_EQUAL(ident(0, "a\"b", 0), "\"a\"\"b\"");
    CU_ASSERT_STRING_EQUAL(ident(0, "\"", 0), "\"\"\"\"");
    CU_ASSERT_STRING_EQUAL(ident(0, "", 0), "\"\"");
    CU_ASSERT_STRING_EQUAL(ident(0, NULL, 0), "\"\"");
    CU_ASSERT_STRING_EQUAL(ident(1, "s.t", 1), "\"s\"");
    CU_ASSERT_STRING_EQUAL(ident(1, "x\"y", 3), "\"x\"\"y\"");
    CU_ASSERT_STRING_EQUAL(ident(1, "ab\0cd", 5), "\"ab\""); /* stops at the NUL */
    CU_ASSERT_STRING_EQUAL(ident(2, "orders_2", 0), "orders_2");
    CU_ASSERT_STRING_EQUAL(ident(2, "_x", 0), "_x");
    CU_ASSERT_STRING_EQUAL(ident(2, "2x", 0), "\"2x\"");
    CU_ASSERT_STRING_EQUAL(ident(2, "my col", 0), "\"my col\"");
    CU_ASSERT_STRING_EQUAL(ident(2, "a\"b", 0), "\"a\"\"b\"");
    CU_ASSERT_STRING_EQUAL(ident(2, "caf\xc3\xa9", 0), "\"caf\xc3\xa9\"");
    CU_ASSERT_STRING_EQUAL(ident(2, "", 0), "\"\"");
    CU_ASSERT_STRING_EQUAL(ident(2, NULL, 0), "\"\"");
}

/* The out-of-memory error: code, text, returned code, and the first error still wins. */
static void test_core_error_nomem(void)
{
    rsql_error_t err;
    rsql_error_clear(&err);
    CU_ASSERT_EQUAL(rsql_error_nomem(&err), RSQL_ERR_NOMEM);
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_NOMEM);
    CU_ASSERT_STRING_EQUAL(err.msg, "out of memory");
    CU_ASSERT_EQUAL(err.pos.off, RSQL_POS_NONE);
    CU_ASSERT_FALSE(rsql_error_retriable(&err));
    rsql_error_clear(&err);
    rsql_error_set(&err, RSQL_ERR_IO, RSQL_NOPOS, "disk");
    CU_ASSERT_EQUAL(rsql_error_nomem(&err), RSQL_ERR_NOMEM); /* returned, not recorded */
    CU_ASSERT_EQUAL(err.code, RSQL_ERR_IO);
    CU_ASSERT_STRING_EQUAL(err.msg, "disk");
    CU_ASSERT_EQUAL(rsql_error_nomem(NULL), RSQL_ERR_NOMEM);
}

/* r printed at width (table, or TSV when tsv) into a static buffer. */
static const char *printed(const rsql_result_t *r, int width, bool tsv)
{
    static char out[2048];
    FILE *f = fmemopen(out, sizeof out, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    rsql_result_print_width(r, tsv ? RSQL_PRINT_TSV : RSQL_PRINT_TABLE, width, f);
    fclose(f);
    return out;
}

static void test_core_result_wrap(void)
{
    static const char *const cols[] = {"k", "description"};
    rsql_result_t *r = rsql_result_new(RSQL_RESULT_TABLE);
    CU_ASSERT_EQUAL_FATAL(rsql_result_set_cols(r, 2, cols), RSQL_OK);
    const char *a[] = {"a", "caf\xc3\xa9 au lait, served hot: 0123456789012345678901234 end"};
    const char *b[] = {"bb", "short"};
    CU_ASSERT_EQUAL_FATAL(rsql_result_add_row(r, a), RSQL_OK);
    CU_ASSERT_EQUAL_FATAL(rsql_result_add_row(r, b), RSQL_OK);
    /* not marked: one line a row, whatever the width */
    CU_ASSERT_PTR_NOT_NULL(strstr(printed(r, 30, false), "| a  | caf\xc3\xa9 au lait, served hot: "
                                                         "0123456789012345678901234 end |\n"));
    r->wrap_last = true;
    /* too narrow for the table (10): the description keeps 20 characters; "served" ends
       exactly at 20, a 25-digit word is cut */
    CU_ASSERT_STRING_EQUAL(printed(r, 10, false),
                           "+----+----------------------+\n"
                           "| k  | description          |\n"
                           "+----+----------------------+\n"
                           "| a  | caf\xc3\xa9 au lait, served |\n"
                           "|    | hot:                 |\n"
                           "|    | 01234567890123456789 |\n"
                           "|    | 01234 end            |\n"
                           "| bb | short                |\n"
                           "+----+----------------------+\n"
                           "2 rows\n");
    /* 30 wide: 9 for the first column and the rules, 21 for the description */
    CU_ASSERT_PTR_NOT_NULL(strstr(printed(r, 30, false), "| a  | caf\xc3\xa9 au lait, served  |\n"
                                                         "|    | hot:                  |\n"
                                                         "|    | 012345678901234567890 |\n"
                                                         "|    | 1234 end              |\n"));
    /* wide enough: as unmarked */
    CU_ASSERT_PTR_NOT_NULL(strstr(printed(r, 200, false), "| a  | caf\xc3\xa9 au lait, served hot: "
                                                          "0123456789012345678901234 end |\n"));
    /* TSV: never wrapped */
    CU_ASSERT_STRING_EQUAL(printed(r, 30, true),
                           "a\tcaf\xc3\xa9 au lait, served hot: 0123456789012345678901234 end\n"
                           "bb\tshort\n");
    rsql_result_destroy(r);
}

static CU_TestInfo core_tests[] = {
    {"test_core_result_wrap", test_core_result_wrap},
    {"test_core_error_nomem", test_core_error_nomem},
    {"test_core_quote_ident", test_core_quote_ident},
    {"test_core_backoff", test_core_backoff},
    {"test_core_arena", test_core_arena},
    {"test_core_render_ascii", test_core_render_ascii},
    {"test_core_render_utf8", test_core_render_utf8},
    {"test_core_render_tabs_crlf", test_core_render_tabs_crlf},
    {"test_core_buf_size_overflow", test_core_buf_size_overflow},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"core", NULL, NULL, NULL, NULL, core_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"

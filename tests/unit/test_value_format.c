/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit test of rsql_value_format_int (base/rsql_value.c) against printf: every power of ten
 * and its neighbours, both signs, and random values of every magnitude.
 */
#include "config.h"
#include "base/rsql_value.h"

#include <CUnit/CUnit.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void test_value_format_int(void)
{
    char buf[RSQL_VALUE_TEXT_MAX];
    /* as printf prints them: each power of ten and its neighbours (where the digit count
       changes), both signs, and random values of every magnitude */
    int bad = 0;
    uint64_t x = UINT64_C(0x9E3779B97F4A7C15);
    for (int k = 0; k < 100000; k++) {
        int64_t v;
        if (k < 19 * 6) {
            int64_t p10 = 1;
            for (int e = 0; e < k / 6; e++) {
                p10 *= 10;
            }
            v = (p10 + (k % 3) - 1) * (k % 6 < 3 ? 1 : -1);
        } else {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            v = (int64_t)(x >> (x % 64));
            v = (x & 1) ? -v : v;
        }
        char want[32];
        snprintf(want, sizeof want, "%" PRId64, v);
        size_t n = rsql_value_format_int(v, buf);
        if (n != strlen(want) || strcmp(buf, want) != 0) {
            if (bad++ == 0) {
                fprintf(stderr, "\n  format_int(%s) gave %s (%zu)\n", want, buf, n);
            }
        }
    }
    CU_ASSERT_EQUAL(bad, 0);
}

static CU_TestInfo format_tests[] = {
    {"test_value_format_int", test_value_format_int},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"value-format", NULL, NULL, NULL, NULL, format_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"

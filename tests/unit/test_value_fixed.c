/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Unit test of rsql_value_parse_timestamp's one-pass reading of the fixed forms
 * (YYYY-MM-DD HH:MM:SS and .mmm, 'T' or ' ', '.' or ','): it must give what the general
 * parser gives, for valid and invalid texts of those shapes alike. The general parser is
 * reached with the same text and a 'Z' after it (UTC: the same instant, not a fixed form).
 * The text forms themselves are tested in test_value.c.
 */
#include "config.h"
#include "base/rsql_value.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <CUnit/CUnit.h>

/* Random digits in every place (months, days, hours past their ranges; February 29th in and
   out of leap years), 200,000 texts. */
static void test_value_timestamp_fixed(void)
{
    uint64_t x = UINT64_C(0x2545F4914F6CDD1D);
    int diff = 0, valid = 0;
    for (int i = 0; i < 200000; i++) {
        char t[32];
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t r = x;
        int y = (int)(r % 10000), mo = (int)((r >> 14) % 14), d = (int)((r >> 18) % 32),
            h = (int)((r >> 23) % 25), mi = (int)((r >> 28) % 61), sec = (int)((r >> 34) % 61),
            ms = (int)((r >> 40) % 1000);
        if ((r >> 50) % 3 == 0) {
            mo = 2;
            d = 28 + (int)((r >> 52) % 3);
        }
        snprintf(t, sizeof t, "%04d-%02d-%02d%c%02d:%02d:%02d%s", y, mo, d,
                 (r >> 60) & 1 ? 'T' : ' ', h, mi, sec, (r >> 61) & 1 ? "" : ".");
        if (!((r >> 61) & 1)) {
            snprintf(t + strlen(t), sizeof t - strlen(t), "%03d", ms);
        }
        int64_t a = 1, b = 2;
        rsql_err_t ra = rsql_value_parse_timestamp(t, strlen(t), &a, NULL);
        strcat(t, "Z");
        rsql_err_t rb = rsql_value_parse_timestamp(t, strlen(t), &b, NULL);
        diff += ra != rb || (ra == RSQL_OK && a != b);
        valid += ra == RSQL_OK;
    }
    CU_ASSERT_EQUAL(diff, 0);
    CU_ASSERT(valid > 20000 && valid < 190000); /* both kinds were tried */
}

static CU_TestInfo fixed_tests[] = {
    {"test_value_timestamp_fixed", test_value_timestamp_fixed},
    CU_TEST_INFO_NULL,
};

static CU_SuiteInfo suites[] = {
    {"value-timestamp-fixed", NULL, NULL, NULL, NULL, fixed_tests},
    CU_SUITE_INFO_NULL,
};

#include "tests/lib/cu_main.h"

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The shared main() of every CUnit test binary (one binary per module).
 * A test file defines `static CU_SuiteInfo suites[]` (ending with
 * CU_SUITE_INFO_NULL), then includes this header after it:
 *
 *     static CU_TestInfo sql_tests[] = {{"tokenize", test_sql_tokenize}, CU_TEST_INFO_NULL};
 *     static CU_SuiteInfo suites[] = {{"sql", NULL, NULL, NULL, NULL, sql_tests},
 *                                     CU_SUITE_INFO_NULL};
 *     #include "tests/lib/cu_main.h"
 *
 * Exit status follows automake: 0 all passed, 1 a failure, 99 a hard error.
 * RSQL_TEST_FILTER=name runs only the tests whose name contains name.
 */
#ifndef RSQL_CU_MAIN_H
#define RSQL_CU_MAIN_H

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        return 99;
    }
    if (CU_register_suites(suites) != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        CU_cleanup_registry();
        return 99;
    }
    const char *filter = getenv("RSQL_TEST_FILTER");
    if (filter && *filter) {
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext) {
            for (CU_pTest t = s->pTest; t; t = t->pNext) {
                if (!strstr(t->pName, filter)) {
                    CU_set_test_active(t, CU_FALSE);
                }
            }
        }
    }
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
    unsigned run = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    if (run == 0) {
        fprintf(stderr, "no test ran\n");
        return 99;
    }
    return failed ? 1 : 0;
}

#endif

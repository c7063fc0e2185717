/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_parse_gen: compiles the lemon-generated parser (sql/sql_parse.c, made
 * in the build tree from sql_parse.y) under the project's warning flags.
 * lemon's template defines functions without prototypes and has unused
 * locals and signed/unsigned comparisons; those warnings are turned off
 * here, for the generated code only, so --enable-werror still holds for
 * everything else.
 */
#include "config.h"

#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wundef"

#include "sql/sql_parse.c"

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_fmt_maxwell: a body through the maxwell-json decoder and every row it gives through the
 * encoder and back (the checks and the input layout: tests/fuzz/fuzz_fmt_cdc.h).
 */
#include "config.h"

#define FZ_CDC_FORMAT "maxwell-json"
#include "tests/fuzz/fuzz_fmt_cdc.h"

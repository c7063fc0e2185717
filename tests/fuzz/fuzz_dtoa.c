/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_dtoa: 8 bytes as a double's bits through rsql_value_format_double (base/rsql_dtoa.c
 * and its printing fallback). Checks: the text fits RSQL_VALUE_TEXT_MAX and its length is
 * returned; NaN is "NaN", the infinities "Infinity" / "-Infinity"; any other text reads back
 * (strtod) to the same bits, zero's sign included, and has the significant digits of the slow
 * reference ("%.*e" at 1, 2, ... 17 digits, the first that reads back, trailing zeros dropped).
 *
 * Input: up to 8 bytes, little-endian (missing bytes are 0); the rest is ignored.
 */
#include "config.h"
#include "tests/fuzz/fuzz_util.h"

#include "base/rsql_value.h"

#include <math.h>

/* The significant digits of t (no sign, dot, leading or trailing zeros, exponent). */
static int sig_digits(const char *t, char *out)
{
    int n = 0;
    for (const char *p = t; *p && *p != 'e' && *p != 'E'; p++) {
        if (*p >= '0' && *p <= '9' && (n > 0 || *p != '0')) {
            out[n++] = *p;
        }
    }
    while (n > 0 && out[n - 1] == '0') {
        n--;
    }
    out[n] = '\0';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t u = 0;
    for (size_t i = 0; i < 8 && i < size; i++) {
        u |= (uint64_t)data[i] << (8 * i);
    }
    double d;
    memcpy(&d, &u, sizeof d);
    char text[RSQL_VALUE_TEXT_MAX + 8];
    memset(text, 'x', sizeof text);
    size_t n = rsql_value_format_double(d, text);
    FZ_CHECK(n < RSQL_VALUE_TEXT_MAX && text[n] == '\0' && strlen(text) == n, "length %zu", n);
    if (isnan(d)) {
        FZ_CHECK(strcmp(text, "NaN") == 0, "NaN as %s", text);
        return 0;
    }
    if (isinf(d)) {
        FZ_CHECK(strcmp(text, d < 0 ? "-Infinity" : "Infinity") == 0, "inf as %s", text);
        return 0;
    }
    double back = strtod(text, NULL);
    uint64_t b;
    memcpy(&b, &back, sizeof b);
    FZ_CHECK(b == u, "%016llx printed as %s reads back as %016llx", (unsigned long long)u, text,
             (unsigned long long)b);
    char ref[32], got[32], t[64];
    ref[0] = '\0';
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(t, sizeof t, "%.*e", prec - 1, d);
        if (strtod(t, NULL) == d || prec == 17) {
            sig_digits(t, ref);
            break;
        }
    }
    sig_digits(text, got);
    FZ_CHECK(strcmp(got, ref) == 0, "%016llx printed as %s, the shortest rounding has digits %s",
             (unsigned long long)u, text, ref);
    return 0;
}

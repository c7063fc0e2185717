/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fuzz_util: what the libFuzzer targets of tests/fuzz/ share: the entry point's prototype, a
 * reader that takes bytes off the front of an input, and the check that stops a target with a
 * message (abort(), which libFuzzer reports as a crash and keeps the input of). Header-only.
 */
#ifndef RSQL_FUZZ_UTIL_H
#define RSQL_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The front of an input, taken piece by piece; past the end every piece is 0 / empty. */
typedef struct fz_reader {
    const uint8_t *p;
    size_t n;
} fz_reader_t;

static inline uint8_t fz_byte(fz_reader_t *r)
{
    if (r->n == 0) {
        return 0;
    }
    r->n--;
    return *r->p++;
}

/* Up to n bytes (fewer at the end); *len gets how many. */
static inline const uint8_t *fz_bytes(fz_reader_t *r, size_t n, size_t *len)
{
    const uint8_t *p = r->p;
    *len = n < r->n ? n : r->n;
    r->p += *len;
    r->n -= *len;
    return p;
}

/* The bytes up to the next sep (not included; the sep is consumed), or the rest. */
static inline const uint8_t *fz_until(fz_reader_t *r, uint8_t sep, size_t *len)
{
    const uint8_t *p = r->p;
    const uint8_t *e = r->n ? memchr(r->p, sep, r->n) : NULL;
    *len = e ? (size_t)(e - p) : r->n;
    r->p += *len + (e ? 1 : 0);
    r->n -= *len + (e ? 1 : 0);
    return p;
}

/* A heap NUL-terminated copy of p[0..n) (embedded NULs kept); exits when out of memory. */
static inline char *fz_strndup(const void *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s) {
        abort();
    }
    if (n) {
        memcpy(s, p, n);
    }
    s[n] = '\0';
    return s;
}

/* Stop with why (a broken promise of the code under test): libFuzzer keeps the input. */
#define FZ_CHECK(cond, ...)                                                      \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                        \
            fputc('\n', stderr);                                                 \
            abort();                                                             \
        }                                                                        \
    } while (0)

#endif

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * bench/engine/format_double: the cost of rsql_value_format_double per value, for the
 * instruction counts in bench/README.md. Fills N doubles of one kind, then prints each REPS
 * times (default 1) and writes the total text length. Kinds:
 *   bench   the json -> json case of bench/engine/run: score * 2, score = "<i % 997>.<i % 100>"
 *   random  random bit patterns (finite)
 *   unit    uniform in [0, 1) (53 random bits)
 *   int     integers below 10^8
 * Not built by make; from a build directory:
 *
 *   cc -O2 -I. -I.. -o format_double ../bench/engine/format_double.c librocketsql.a -lm -pthread
 *   valgrind --tool=callgrind --toggle-collect=rsql_value_format_double \
 *       ./format_double random 100000          # "Collected" / N = instructions per value
 */
#include "config.h"
#include "base/rsql_value.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state = 12345;

static uint64_t rng(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static double value(const char *kind, long i)
{
    double d;
    if (strcmp(kind, "bench") == 0) {
        char t[32];
        snprintf(t, sizeof t, "%ld.%02ld", i % 997, i % 100);
        return strtod(t, NULL) * 2;
    }
    if (strcmp(kind, "random") == 0) {
        do {
            uint64_t u = rng();
            memcpy(&d, &u, sizeof d);
        } while (d != d || d - d != 0);
        return d;
    }
    if (strcmp(kind, "int") == 0) {
        return (double)(rng() % 100000000);
    }
    return (double)(rng() >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: format_double bench|random|unit|int N [REPS]\n");
        return 2;
    }
    long n = atol(argv[2]);
    int reps = argc > 3 ? atoi(argv[3]) : 1;
    double *v = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!v) {
        return 1;
    }
    for (long i = 0; i < n; i++) {
        v[i] = value(argv[1], i);
    }
    char buf[RSQL_VALUE_TEXT_MAX];
    size_t total = 0;
    for (int r = 0; r < reps; r++) {
        for (long i = 0; i < n; i++) {
            total += rsql_value_format_double(v[i], buf);
        }
    }
    printf("%zu\n", total);
    free(v);
    return 0;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_dtoa: the shortest decimal digits of a double that read back to it, without printf or
 * strtod (rsql_dtoa.c). Used by rsql_value_format_double, which lays the digits out.
 */
#ifndef RSQL_DTOA_H
#define RSQL_DTOA_H

#include <stdbool.h>
#include <stdint.h>

/*
** For a finite, nonzero d (its sign ignored): |d| ~ *digits x 10^*exp10, where *digits has no
** trailing zero and is what rsql_value_format_double has always printed: of the lengths 1, 2,
** ... 17 significant digits (15, 16, 17 for a normal double), the first at which |d| rounded
** to that many digits (to nearest, ties to even) reads back as |d|, that rounding. False, with
** nothing written, in the one case the digits are not computed here: a power of two whose
** shortest text is not its nearest rounding at that length (its rounding interval is narrower
** below than above; a handful of the 2,046 powers of two); the caller then prints and reads back.
*/
bool rsql_dtoa_shortest(double d, uint64_t *digits, int *exp10);

#endif

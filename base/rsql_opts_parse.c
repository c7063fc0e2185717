/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The value parsers of the options engine: booleans, integers, numbers,
 * sizes, durations and rates as users write them in WITH clauses and SET,
 * and their canonical text forms.  Options, session settings and the
 * planner share them, so '20s' means the same everywhere.  Every parser is
 * strict: the whole string must match (no spaces, no trailing junk) and
 * overflow is an error, never a wrapped number.
 *
 * Units (case-insensitive):
 *   durations  ms, s, min, h, d; a bare integer is milliseconds
 *   sizes      B, K/KB/KiB, M/MB/MiB, G/GB/GiB, T/TB/TiB: binary (1KB = 1024 B);
 *              a bare integer is bytes
 *   rates      <number>/s, /min, /h (events per second as a double, > 0)
 */
#include "config.h"
#include "base/rsql_opts.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/*
** Parse "true" or "false" (case-insensitive) into *out.
** Returns RSQL_OK or RSQL_ERR_BAD_OPTION (then *out is untouched).
*/
rsql_err_t rsql_opt_parse_bool(const char *s, bool *out)
{
    if (s && strcasecmp(s, "true") == 0) {
        *out = true;
        return RSQL_OK;
    }
    if (s && strcasecmp(s, "false") == 0) {
        *out = false;
        return RSQL_OK;
    }
    return RSQL_ERR_BAD_OPTION;
}

/*
** Parse a decimal integer with an optional sign ("-12", "+7", "0") into
** *out. No spaces, no other base, no overflow.
*/
rsql_err_t rsql_opt_parse_int(const char *s, int64_t *out)
{
    if (!s) {
        return RSQL_ERR_BAD_OPTION;
    }
    const char *p = s;
    if (*p == '+' || *p == '-') {
        p++;
    }
    if (!isdigit((unsigned char)*p)) {
        return RSQL_ERR_BAD_OPTION;
    }
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE || *end != '\0') {
        return RSQL_ERR_BAD_OPTION;
    }
    *out = (int64_t)v;
    return RSQL_OK;
}

/*
** Parse a finite decimal number ("1", "-0.5", "2.5e3") into *out. NaN,
** infinities, hex floats and spaces are rejected.
*/
rsql_err_t rsql_opt_parse_double(const char *s, double *out)
{
    if (!s) {
        return RSQL_ERR_BAD_OPTION;
    }
    const char *p = s;
    if (*p == '+' || *p == '-') {
        p++;
    }
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) {
        return RSQL_ERR_BAD_OPTION;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        return RSQL_ERR_BAD_OPTION;
    }
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno == ERANGE || *end != '\0' || !isfinite(v)) {
        return RSQL_ERR_BAD_OPTION;
    }
    *out = v;
    return RSQL_OK;
}

/* Leading unsigned digits of s into *v (no overflow); *rest = what follows. */
static bool parse_digits(const char *s, int64_t *v, const char **rest)
{
    int64_t n = 0;
    const char *p = s;
    if (!isdigit((unsigned char)*p)) {
        return false;
    }
    for (; isdigit((unsigned char)*p); p++) {
        int d = *p - '0';
        if (n > (INT64_MAX - d) / 10) {
            return false;
        }
        n = n * 10 + d;
    }
    *v = n;
    *rest = p;
    return true;
}

typedef struct unit {
    const char *name;
    int64_t mult;
} unit_t;

static rsql_err_t parse_with_units(const char *s, const unit_t *units, int64_t *out)
{
    int64_t n;
    const char *rest;
    if (!s || !parse_digits(s, &n, &rest)) {
        return RSQL_ERR_BAD_OPTION;
    }
    if (*rest == '\0') {
        *out = n;
        return RSQL_OK;
    }
    for (const unit_t *u = units; u->name; u++) {
        if (strcasecmp(rest, u->name) == 0) {
            if (n > INT64_MAX / u->mult) {
                return RSQL_ERR_BAD_OPTION;
            }
            *out = n * u->mult;
            return RSQL_OK;
        }
    }
    return RSQL_ERR_BAD_OPTION;
}

#define KIB INT64_C(1024)
static const unit_t size_units[] = {
    {"b", 1},
    {"k", KIB}, {"kb", KIB}, {"kib", KIB},
    {"m", KIB * KIB}, {"mb", KIB * KIB}, {"mib", KIB * KIB},
    {"g", KIB * KIB * KIB}, {"gb", KIB * KIB * KIB}, {"gib", KIB * KIB * KIB},
    {"t", KIB * KIB * KIB * KIB}, {"tb", KIB * KIB * KIB * KIB}, {"tib", KIB * KIB * KIB * KIB},
    {NULL, 0},
};

static const unit_t duration_units[] = {
    {"ms", 1}, {"s", 1000}, {"min", 60000}, {"h", 3600000}, {"d", 86400000}, {NULL, 0},
};

/*
** Parse a size ("512", "512B", "64KB", "4MB", "1GB", "1GiB", "2k") into
** bytes. Units are binary: 1KB = 1024 bytes.
*/
rsql_err_t rsql_opt_parse_size(const char *s, int64_t *bytes)
{
    return parse_with_units(s, size_units, bytes);
}

/*
** Parse a duration ("500ms", "20s", "30min", "1h", "1d"; a bare integer is
** milliseconds) into milliseconds. No fractions, signs or spaces.
*/
rsql_err_t rsql_opt_parse_duration(const char *s, int64_t *ms)
{
    return parse_with_units(s, duration_units, ms);
}

/*
** Parse a rate ("200/s", "12000/min", "5/h", "0.5/s") into events per
** second. The number must be > 0.
*/
rsql_err_t rsql_opt_parse_rate(const char *s, double *per_second)
{
    const char *slash = s ? strchr(s, '/') : NULL;
    if (!slash || slash == s || (size_t)(slash - s) >= 64) {
        return RSQL_ERR_BAD_OPTION;
    }
    char num[64];
    memcpy(num, s, (size_t)(slash - s));
    num[slash - s] = '\0';
    double v;
    if (num[0] == '+' || num[0] == '-' || rsql_opt_parse_double(num, &v) != RSQL_OK || v <= 0) {
        return RSQL_ERR_BAD_OPTION;
    }
    const char *unit = slash + 1;
    double per;
    if (strcasecmp(unit, "s") == 0) {
        per = 1;
    } else if (strcasecmp(unit, "min") == 0) {
        per = 60;
    } else if (strcasecmp(unit, "h") == 0) {
        per = 3600;
    } else {
        return RSQL_ERR_BAD_OPTION;
    }
    *per_second = v / per;
    return RSQL_OK;
}

/*
** The name of a type as the docs and SHOW OPTIONS print it. Static string.
*/
const char *rsql_opt_type_name(rsql_opt_type_t t)
{
    switch (t) {
    case RSQL_OPT_STR: return "string";
    case RSQL_OPT_INT: return "int";
    case RSQL_OPT_BOOL: return "boolean";
    case RSQL_OPT_DOUBLE: return "double";
    case RSQL_OPT_SIZE: return "size";
    case RSQL_OPT_DURATION: return "duration";
    case RSQL_OPT_ENUM: return "enum";
    case RSQL_OPT_CSV: return "list";
    case RSQL_OPT_RATE: return "rate";
    }
    return "?";
}

static const char *format_units(int64_t v, const unit_t *units, int n_units, char *buf,
                                size_t size)
{
    const unit_t *best = &units[0];
    for (int i = 0; i < n_units; i++) {
        if (v != 0 && v % units[i].mult == 0) {
            best = &units[i];
        }
    }
    snprintf(buf, size, "%" PRId64 "%s", v / best->mult, best->name);
    return buf;
}

/*
** Canonical text of a duration in milliseconds: the largest unit of ms, s,
** min, h, d that divides it ("90s", "30min", "0ms"). Returns buf.
*/
const char *rsql_opt_format_duration(int64_t ms, char *buf, size_t size)
{
    return format_units(ms, duration_units, 5, buf, size);
}

/*
** Canonical text of a size in bytes: the largest of B, KB, MB, GB, TB that
** divides it ("512B", "64KB", "1536KB"). Returns buf.
*/
const char *rsql_opt_format_size(int64_t bytes, char *buf, size_t size)
{
    static const unit_t units[] = {
        {"B", 1}, {"KB", KIB}, {"MB", KIB * KIB}, {"GB", KIB * KIB * KIB},
        {"TB", KIB * KIB * KIB * KIB},
    };
    return format_units(bytes, units, 5, buf, size);
}

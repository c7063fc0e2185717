/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_value: the one place where a SQL value becomes text and text becomes
 * a value. The formats (json, csv, raw), CAST and the implicit casts of the
 * evaluator, the binder's TIMESTAMP literals, EXPLAIN, the print sink, the
 * SELECT preview, SHOW JOBS, the sqlite and rocketmq sinks and the
 * dead-letter rows all call these functions, so a text one accepts is accepted by all of them and a value
 * prints the same everywhere. docs/SQL.md ("Text forms of values") is the
 * user's description of the same rules:
 *
 *   BOOLEAN    prints true | false; reads true, false (any case), 1, 0
 *   INT        prints -123; reads [+-]digits within 32 bits
 *   BIGINT     prints -123; reads [+-]digits within 64 bits
 *   DOUBLE     prints the shortest text that reads back to the same double,
 *              always with a '.' or an exponent (1.0, 0.1, 1e+16, 5e-324,
 *              -0.0), and NaN, Infinity, -Infinity; reads a decimal number
 *              (no hex) or those three words (any case, also inf); a finite
 *              text beyond the double range, or that would round to zero,
 *              is out of range
 *   TIMESTAMP  prints YYYY-MM-DD HH:MM:SS.fff (UTC, always 3 fraction
 *              digits; years outside 0000-9999 as -YYYY / +YYYYY); reads
 *              that, a 'T' instead of the space, no seconds or a fraction of
 *              1-9 digits (cut to milliseconds, '.' or ','), a zone Z or
 *              +HH, +HHMM, +HH:MM (converted to UTC), a bare date
 *              (midnight), or a whole number of milliseconds since the epoch
 *   BYTES      prints base64 (RFC 4648, '+' '/' with '=' padding); reads
 *              that or the URL-safe alphabet ('-' '_'), padding optional
 *   VARCHAR    is its own text
 *   DECIMAL    DECIMAL(p, s) prints the plain digits with exactly s
 *              fraction digits (-12.50, 0.05; no exponent); reads
 *              [+-]digits[.digits][e[+-]digits]: more fraction digits than
 *              s round half away from zero, more than p - s integer digits
 *              is "out of range for DECIMAL(p, s)"; never through a double
 *   DATE       prints YYYY-MM-DD (years as TIMESTAMP's); reads that only
 *              (no time of day)
 *   INTERVAL   (DAY TO SECOND(3)) prints +d hh:mm:ss.fff (-1 23:59:59.999; days
 *              as many digits as needed); reads that, the sign optional
 *   ROW, ARRAY, MAP print as JSON text: {"field":value,...}, [v,...],
 *              {"key":value,...}; inside, numbers, booleans and null are
 *              JSON literals, DECIMAL a JSON number with its exact digits,
 *              every other value (TIMESTAMP, DATE, BYTES, DOUBLE NaN and
 *              Infinity) a JSON string of its text form. Only the json
 *              format reads them (connectors/formats/fmt_json.c)
 *
 * CAST between VARCHAR and BYTES is not a text form: it keeps the bytes
 * (BYTES -> VARCHAR only when they are valid UTF-8, rsql_value_utf8_valid).
 *
 * Text read for every type but VARCHAR may have blanks (ASCII white space)
 * around it. Nothing depends on the process locale.
 *
 * Errors are RSQL_ERR_DECODE with a short reason that callers put in their
 * own message: "not an integer", "out of range for INT", "not a number",
 * "out of range for DOUBLE", "not a boolean", "not a timestamp", "out of
 * range for TIMESTAMP(3)", "not base64" (RSQL_ERR_NOMEM: "out of memory").
 * err may be NULL when only the outcome matters (the hot paths).
 */
#ifndef RSQL_VALUE_H
#define RSQL_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_types.h"

/* Room for the text of any BOOLEAN, INT, BIGINT, DOUBLE or TIMESTAMP value, NUL included. */
#define RSQL_VALUE_TEXT_MAX 48

/* ---- text -> value (s is n bytes, need not be NUL-terminated) */

/* BOOLEAN text: true, false (any case), 1, 0. */
rsql_err_t rsql_value_parse_bool(const char *s, size_t n, bool *out, rsql_error_t *err);

/*
** Integer text ([+-]digits) within the range of t: RSQL_TYPE_INT (32-bit),
** else 64-bit (BIGINT, and TIMESTAMP as epoch milliseconds).
*/
rsql_err_t rsql_value_parse_int(rsql_type_t t, const char *s, size_t n, int64_t *out,
                                rsql_error_t *err);

/* DOUBLE text: a decimal number, NaN, Infinity, -Infinity (see the file comment). */
rsql_err_t rsql_value_parse_double(const char *s, size_t n, double *out, rsql_error_t *err);

/*
** True when s is one of the non-finite DOUBLE words (NaN, Infinity,
** -Infinity, inf, any case; no blanks), with the value in *out. For formats
** whose numbers are not text (a JSON string in a DOUBLE column).
*/
bool rsql_value_parse_double_word(const char *s, size_t n, double *out);

/*
** The exact double of the decimal (neg ? -m : m) / 10^frac when it is one
** correctly rounded division (m < 10^15, frac <= 15: what strtod returns for
** that text); false otherwise (then the caller parses the text). For scanners
** that have the digits already (the json decoder).
*/
bool rsql_value_double_exact(uint64_t m, int frac, bool neg, double *out);

/* TIMESTAMP text into milliseconds since 1970-01-01 00:00:00 UTC. */
rsql_err_t rsql_value_parse_timestamp(const char *s, size_t n, int64_t *ms, rsql_error_t *err);

/*
** BYTES text (base64) decoded into memory from arena: *out (*out_len bytes)
** lives as long as arena.
*/
rsql_err_t rsql_value_parse_bytes(const char *s, size_t n, rsql_arena_t *arena,
                                  const uint8_t **out, size_t *out_len, rsql_error_t *err);

/*
** Text s as a value of type t into *out (zeroed first; out->type = t).
** VARCHAR is copied into arena as is; BYTES decoded from base64 into arena;
** RSQL_TYPE_NULL gives a NULL. arena may be NULL for the other types.
*/
rsql_err_t rsql_value_parse(rsql_type_t t, const char *s, size_t n, rsql_arena_t *arena,
                            rsql_value_t *out, rsql_error_t *err);

/*
** rsql_value_parse with the full type: a DECIMAL reads at desc's precision
** and scale (desc NULL: DECIMAL(10, 0)); other types as rsql_value_parse(t).
*/
rsql_err_t rsql_value_parse_as(rsql_type_t t, const rsql_tdesc_t *desc, const char *s, size_t n,
                               rsql_arena_t *arena, rsql_value_t *out, rsql_error_t *err);

/* ---- value -> text */

/* "true" or "false" (static). */
const char *rsql_value_bool_text(bool b);

/*
** The canonical text of an integer, a double or a timestamp into buf (at
** least RSQL_VALUE_TEXT_MAX bytes, NUL-terminated); returns its length.
*/
size_t rsql_value_format_int(int64_t i, char *buf);
size_t rsql_value_format_double(double d, char *buf);
size_t rsql_value_format_timestamp(int64_t ms, char *buf);

/* Append the base64 text of p (n bytes) to out. */
void rsql_value_format_bytes(const uint8_t *p, size_t n, rsql_buf_t *out);

/*
** Append the text of v to out: what rsql_value_parse(v->type, ...) reads
** back to the same value. A NULL value appends nothing (callers choose how
** NULL looks); VARCHAR appends its bytes as they are.
*/
void rsql_value_format(const rsql_value_t *v, rsql_buf_t *out);

/*
** True when s (n bytes) is valid UTF-8 (no overlong forms, surrogates or
** code points past U+10FFFF): the condition for CAST(BYTES AS VARCHAR).
*/
bool rsql_value_utf8_valid(const char *s, size_t n);

/*
** True when a and b are the same value of a key column, as a sink that applies changes by key
** compares them: same type and value (DECIMAL by value, whatever the scales); a NULL, a nested
** value or a DOUBLE NaN never equals anything.
*/
bool rsql_value_same_key(const rsql_value_t *a, const rsql_value_t *b);
/*
** h mixed with v, for hash tables keyed by values compared with rsql_value_same_key: values
** that are the same key mix alike (start from any seed, e.g. 14695981039346656037).
*/
uint64_t rsql_value_key_hash(const rsql_value_t *v, uint64_t h);
/*
** *h = the hash of the key of n values (rsql_value_key_hash of each); false when one of them is
** never the same as any value (NULL, NaN, nested), so the key cannot be found by its hash.
*/
bool rsql_value_keys_hash(const rsql_value_t *key, int n, uint64_t *h);

/*
** *out = v with its string or bytes and its nested values (ROW, ARRAY, MAP) copied into a,
** so it outlives what v points at. RSQL_OK or RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_value_copy(const rsql_value_t *v, rsql_arena_t *a, rsql_value_t *out);

/* ---- values as bytes (rsql_value_bin.c): a job's state */

/*
** Append n values to out as bytes that rsql_value_unpack reads back (the file comment of
** rsql_value_bin.c gives the form). Values that are the same key pack alike.
*/
void rsql_value_pack(const rsql_value_t *vals, int n, rsql_buf_t *out);
/*
** n values of types[i] (descs[i] their full types, or descs NULL for scalars) from the len
** bytes at p, into out (strings and nested values in a). Anything malformed or left over is
** RSQL_ERR_DECODE "state: ...": the bytes are never trusted.
*/
rsql_err_t rsql_value_unpack(const uint8_t *p, size_t len, int n, const rsql_type_t *types,
                             const rsql_tdesc_t *const *descs, rsql_arena_t *a, rsql_value_t *out,
                             rsql_error_t *err);

/* ---- DECIMAL, DATE (rsql_value_exact.c) and JSON text (rsql_value_text.c) */

/*
** DECIMAL text (see the file comment) as a DECIMAL(prec, scale) value into
** *out (zeroed first). Errors: "not a decimal number", "out of range for
** DECIMAL(p, s)".
*/
rsql_err_t rsql_value_parse_decimal(const char *s, size_t n, int prec, int scale,
                                    rsql_value_t *out, rsql_error_t *err);
/* The canonical text of DECIMAL v into buf (RSQL_VALUE_TEXT_MAX bytes); returns its length. */
size_t rsql_value_format_decimal(const rsql_value_t *v, char *buf);
/* An integer as DECIMAL(prec, scale); out of range as rsql_value_parse_decimal. */
rsql_err_t rsql_value_decimal_from_int(int64_t i, int prec, int scale, rsql_value_t *out,
                                       rsql_error_t *err);
/* A DOUBLE as DECIMAL(prec, scale), through its shortest text (exact for that text). */
rsql_err_t rsql_value_decimal_from_double(double d, int prec, int scale, rsql_value_t *out,
                                          rsql_error_t *err);
/* in at another precision and scale (half away from zero when scale shrinks). */
rsql_err_t rsql_value_decimal_rescale(const rsql_value_t *in, int prec, int scale,
                                      rsql_value_t *out, rsql_error_t *err);
/* in's integer part (truncated toward zero) within lo..hi, else "out of range for INT|BIGINT". */
rsql_err_t rsql_value_decimal_to_int(const rsql_value_t *in, int64_t lo, int64_t hi,
                                     int64_t *out, rsql_error_t *err);
/* The double nearest to in (correctly rounded from its text). */
double rsql_value_decimal_to_double(const rsql_value_t *in);
/*
** a op b ('+', '-', '*') exactly, the result at DECIMAL(prec, scale) (from
** rsql_value_decimal_type; a shrunk scale rounds half away from zero).
** RSQL_ERR_EVAL "decimal overflow" when it does not fit.
*/
rsql_err_t rsql_value_decimal_arith(char op, const rsql_value_t *a, const rsql_value_t *b,
                                    int prec, int scale, rsql_value_t *out, rsql_error_t *err);
/*
** a / b exactly at DECIMAL(prec, scale) (from rsql_value_decimal_type('/')),
** the last digit rounded half away from zero (Java's HALF_UP). RSQL_ERR_EVAL
** "division by zero" when b is 0, "decimal overflow" when it does not fit.
*/
rsql_err_t rsql_value_decimal_div(const rsql_value_t *a, const rsql_value_t *b, int prec,
                                  int scale, rsql_value_t *out, rsql_error_t *err);
/* a % b exactly (the sign of a, as Java's BigDecimal.remainder); errors as _div. */
rsql_err_t rsql_value_decimal_mod(const rsql_value_t *a, const rsql_value_t *b, int prec,
                                  int scale, rsql_value_t *out, rsql_error_t *err);
/*
** in rounded to digits fraction digits (negative: to tens, hundreds, ...),
** mode 'r' half away from zero (ROUND), 'f' toward -infinity (FLOOR), 'c'
** toward +infinity (CEIL; both with digits 0), the result at DECIMAL(prec,
** scale) (rsql_value_decimal_round_type); "decimal overflow" when it does
** not fit.
*/
rsql_err_t rsql_value_decimal_round(const rsql_value_t *in, int digits, char mode, int prec,
                                    int scale, rsql_value_t *out, rsql_error_t *err);
/*
** Flink's result type of ROUND(DECIMAL(p, s), digits) (mode 'r'): digits >=
** s keeps (p, s), digits < 0 gives (min(38, 1 + p - s), 0), else (1 + p - s
** + digits, digits); of FLOOR and CEIL ('f', 'c'): (p, 0) when s is 0, else
** (min(38, p - s + 1), 0).
*/
void rsql_value_decimal_round_type(char mode, int p, int s, int digits, int *prec, int *scale);
/* -1, 0, 1 as a <, =, > b (any scales, exact). */
int rsql_value_decimal_cmp(const rsql_value_t *a, const rsql_value_t *b);
/* h mixed with the value of the DECIMAL v, the same for equal values whatever their scales. */
uint64_t rsql_value_decimal_hash(const rsql_value_t *v, uint64_t h);
/*
** The result type of DECIMAL(p1, s1) op DECIMAL(p2, s2), Flink's rules:
** + and -: s = max(s1, s2), p = max(p1 - s1, p2 - s2) + s + 1; *: p = p1 +
** p2, s = s1 + s2; /: s = max(6, s1 + p2 + 1), p = p1 - s1 + s2 + s; %: s =
** max(s1, s2), p = min(p1 - s1, p2 - s2) + s; past 38, p = 38 and s
** shrinks to keep the integer digits
** (but not below min(s, 6)).
*/
void rsql_value_decimal_type(char op, int p1, int s1, int p2, int s2, int *prec, int *scale);

/* DATE text (YYYY-MM-DD) into days since 1970-01-01; "not a date". */
rsql_err_t rsql_value_parse_date(const char *s, size_t n, int64_t *days, rsql_error_t *err);
/*
** A date read by a Java-style pattern (TO_DATE): yyyy (4 digits, or a
** signed year), MM, dd (two digits each; M and d take one or two), any
** other character literal, '...' quoted literal text. false when s does not
** match the pattern or is not a real date.
*/
bool rsql_value_parse_date_pattern(const char *s, size_t n, const char *pat, size_t pat_len,
                                   int64_t *days);
/* The canonical text of a date into buf (RSQL_VALUE_TEXT_MAX bytes); returns its length. */
size_t rsql_value_format_date(int64_t days, char *buf);

/* ---- day-time intervals (rsql_value_interval.c) */

/* The fields of an interval literal's qualifier, largest first: INTERVAL '1' DAY TO SECOND. */
enum { RSQL_IV_DAY, RSQL_IV_HOUR, RSQL_IV_MINUTE, RSQL_IV_SECOND };
/* "DAY", "HOUR", "MINUTE", "SECOND". */
const char *rsql_interval_unit_name(int unit);
/*
** The text of INTERVAL 's' from [TO to] (RSQL_IV_*, from <= to) into *ms: an optional sign,
** then the fields from..to: DAY 'd', HOUR 'h', MINUTE 'm', SECOND 's[.fff]', DAY TO HOUR
** 'd h', DAY TO MINUTE 'd h:m', DAY TO SECOND 'd h:m:s[.fff]', HOUR TO MINUTE 'h:m', HOUR TO
** SECOND 'h:m:s[.fff]', MINUTE TO SECOND 'm:s[.fff]'. The first field takes any size, the
** others their clock range (hours 0 to 23, minutes and seconds 0 to 59); 1 to 9 fraction
** digits, cut to milliseconds. RSQL_ERR_DECODE with *err_off (when not NULL) the offset in s
** of the problem: "expected 'h:m'", "MINUTE field out of range (0 to 59)", "out of range
** for an interval".
*/
rsql_err_t rsql_value_interval_literal(const char *s, size_t n, int from, int to, int64_t *ms,
                                       uint32_t *err_off, rsql_error_t *err);
/* INTERVAL text (+d hh:mm:ss.fff, sign optional) into *ms; "not an interval". */
rsql_err_t rsql_value_parse_interval(const char *s, size_t n, int64_t *ms, rsql_error_t *err);
/* The canonical text of an interval into buf (RSQL_VALUE_TEXT_MAX bytes); returns its length. */
size_t rsql_value_format_interval(int64_t ms, char *buf);
/*
** The SQL literal of an interval in its largest whole unit (INTERVAL '5' SECOND, INTERVAL
** '-2' HOUR, INTERVAL '0.5' SECOND) into buf (RSQL_VALUE_TEXT_MAX bytes); returns its length.
*/
size_t rsql_value_interval_sql(int64_t ms, char *buf);

/* Append s (n bytes) as a JSON string literal, quotes included, to out. */
void rsql_value_json_string(const char *s, size_t n, rsql_buf_t *out);
/* Append v as JSON text (the nested text form above; NULL is null) to out. */
void rsql_value_format_json(const rsql_value_t *v, rsql_buf_t *out);

#endif

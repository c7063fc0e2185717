/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_jpath: SQL/JSON paths as the JSON functions use them: an optional
 * mode word (lax, the default, or strict), '$', then member steps .key,
 * ."key", ['key'], ["key"] and element steps [n] (0-based). Wildcards,
 * filters and ranges are not supported (an error at their offset). A path
 * has at most RSQL_JPATH_MAX_STEPS steps. The parser is a single loop over
 * the bytes: nothing recurses and every index is checked.
 */
#include "config.h"
#include "planner/fn_int.h"

#include <stdlib.h>

static bool blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '$' || c >= 0x80;
}

static rsql_jpath_t *fail(rsql_jpath_t *p, const char *why, size_t at, const char **why_out,
                          size_t *at_out)
{
    free(p);
    *why_out = why;
    *at_out = at;
    return NULL;
}

rsql_jpath_t *rsql_jpath_parse(const char *s, size_t n, const char **why, size_t *at)
{
    size_t size = sizeof(rsql_jpath_t) + n + 1;
    rsql_jpath_t *p = calloc(1, size);
    if (!p) {
        return fail(NULL, "out of memory", 0, why, at);
    }
    p->size = size;
    size_t i = 0, k = 0; /* k: next free byte of keys */
    while (i < n && blank(s[i])) {
        i++;
    }
    if (n - i >= 6 && memcmp(s + i, "strict", 6) == 0 && (n - i == 6 || blank(s[i + 6]))) {
        p->strict = true;
        i += 6;
    } else if (n - i >= 3 && memcmp(s + i, "lax", 3) == 0 && (n - i == 3 || blank(s[i + 3]))) {
        i += 3;
    }
    while (i < n && blank(s[i])) {
        i++;
    }
    if (i >= n || s[i] != '$') {
        return fail(p, "a JSON path starts with $", i, why, at);
    }
    i++;
    for (;;) {
        while (i < n && blank(s[i])) {
            i++;
        }
        if (i >= n) {
            break;
        }
        if (p->n >= RSQL_JPATH_MAX_STEPS) {
            return fail(p, "too many steps in the JSON path", i, why, at);
        }
        rsql_jstep_t *st = &p->steps[p->n];
        size_t start = i;
        char quote = 0;
        if (s[i] == '.') {
            i++;
            if (i < n && s[i] == '"') {
                quote = '"';
            } else {
                size_t b = i;
                while (i < n && word_char((unsigned char)s[i])) {
                    i++;
                }
                if (i == b) {
                    return fail(p, i < n && s[i] == '*' ? "wildcards are not supported"
                                                        : "expected a member name",
                                i, why, at);
                }
                st->kind = RSQL_JSTEP_KEY;
                st->key_off = k;
                memcpy(p->keys + k, s + b, i - b);
                k += i - b;
                p->keys[k++] = 0;
                p->n++;
                continue;
            }
        } else if (s[i] == '[') {
            i++;
            while (i < n && blank(s[i])) {
                i++;
            }
            if (i < n && (s[i] == '\'' || s[i] == '"')) {
                quote = s[i];
            } else if (i < n && s[i] >= '0' && s[i] <= '9') {
                int64_t v = 0;
                while (i < n && s[i] >= '0' && s[i] <= '9') {
                    if (v > (INT64_MAX - 9) / 10) {
                        return fail(p, "array index too large", start, why, at);
                    }
                    v = v * 10 + (s[i++] - '0');
                }
                while (i < n && blank(s[i])) {
                    i++;
                }
                if (i >= n || s[i] != ']') {
                    return fail(p, "expected ]", i, why, at);
                }
                i++;
                st->kind = RSQL_JSTEP_INDEX;
                st->index = v;
                p->n++;
                continue;
            } else {
                return fail(p, i < n && s[i] == '*' ? "wildcards are not supported"
                                                    : "expected an index or a quoted name",
                            i, why, at);
            }
        } else {
            return fail(p, "expected . or [", i, why, at);
        }
        /* a quoted member name at s[i] (quote), \ escapes the next byte */
        i++;
        st->kind = RSQL_JSTEP_KEY;
        st->key_off = k;
        while (i < n && s[i] != quote) {
            if (s[i] == '\\' && i + 1 < n) {
                i++;
            }
            p->keys[k++] = s[i++];
        }
        if (i >= n) {
            return fail(p, "unterminated name", start, why, at);
        }
        p->keys[k++] = 0;
        i++;
        if (s[start] == '[') {
            while (i < n && blank(s[i])) {
                i++;
            }
            if (i >= n || s[i] != ']') {
                return fail(p, "expected ]", i, why, at);
            }
            i++;
        }
        p->n++;
    }
    return p;
}

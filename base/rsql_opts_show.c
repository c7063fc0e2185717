/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * How an option's value is shown: one rule for SHOW CREATE TABLE, EXPLAIN, logs and
 * messages. A reference (`${env:NAME}`, `${file:PATH}`) is shown as written: it says where
 * the value is kept, not the value. An inline value of a SECRET row is "******". An inline
 * value of a URL row (RSQL_OPT_F_URL: a URL or a libpq-style connection string) is shown
 * with every password in it replaced by "******": the password of `scheme://user:PASSWORD@host`
 * and the value of any parameter whose name ends in "password" (`?password=...`,
 * `&sslpassword=...`, or `password='...'` in a key=value connection string). Anything else
 * is shown as written.
 *
 * Entry points: rsql_opt_put_shown (one value of a row), rsql_optset_put_shown (in
 * rsql_opts.c: a value of a validated set) and rsql_opt_mask_url_secrets (the passwords of
 * a URL removed from a library's message that may echo them).
 */
#include "config.h"
#include "base/rsql_opts.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#define MASK "******"

/* Does the parameter name [k, k+n) end in "password" (password, sslpassword)? */
static bool is_password_key(const char *k, size_t n)
{
    static const char tail[] = "password";
    size_t t = sizeof tail - 1;
    return n >= t && strncasecmp(k + n - t, tail, t) == 0;
}

/*
** The password spans of a URL: the userinfo's password (after the first ':' of the userinfo,
** up to the last '@' before the first '/' of the authority: a password holding '@', '?' or
** '#' unencoded is covered whole), and the values of query parameters whose name ends in
** "password" (up to the next '&' or '#'). Calls fn for each span in order.
*/
static void url_spans(const char *s, void (*fn)(size_t at, size_t len, void *arg), void *arg)
{
    const char *auth = strstr(s, "://");
    auth += 3;
    size_t end = strcspn(auth, "/");
    const char *at = NULL;
    for (size_t i = 0; i < end; i++) {
        if (auth[i] == '@') {
            at = auth + i;
        }
    }
    const char *q = auth;
    if (at) {
        const char *colon = memchr(auth, ':', (size_t)(at - auth));
        if (colon && at > colon + 1) {
            fn((size_t)(colon + 1 - s), (size_t)(at - colon - 1), arg);
        }
        q = at + 1;
    }
    q = strchr(q, '?');
    while (q && *q && *q != '#') {
        const char *k = q + 1;
        size_t klen = strcspn(k, "=&#");
        const char *v = k + klen;
        if (*v != '=') {
            q = *v == '&' ? v : NULL;
            continue;
        }
        v++;
        size_t vlen = strcspn(v, "&#");
        if (vlen && is_password_key(k, klen)) {
            fn((size_t)(v - s), vlen, arg);
        }
        q = v[vlen] == '&' ? v + vlen : NULL;
    }
}

/*
** The password spans of a key=value connection string (libpq's: `key = value` separated by
** spaces; a value in single quotes may hold spaces and backslash escapes).
*/
static void kv_spans(const char *s, void (*fn)(size_t at, size_t len, void *arg), void *arg)
{
    const char *p = s;
    for (;;) {
        while (isspace((unsigned char)*p)) {
            p++;
        }
        if (!*p) {
            return;
        }
        const char *k = p;
        while (*p && *p != '=' && !isspace((unsigned char)*p)) {
            p++;
        }
        size_t klen = (size_t)(p - k);
        while (isspace((unsigned char)*p)) {
            p++;
        }
        if (*p != '=') {
            continue; /* not key=value: libpq refuses it; nothing to mask here */
        }
        p++;
        while (isspace((unsigned char)*p)) {
            p++;
        }
        const char *v = p;
        if (*p == '\'') {
            for (p++; *p && *p != '\''; p++) {
                if (*p == '\\' && p[1]) {
                    p++;
                }
            }
            if (*p == '\'') {
                p++;
            }
        } else {
            while (*p && !isspace((unsigned char)*p)) {
                if (*p == '\\' && p[1]) {
                    p++;
                }
                p++;
            }
        }
        if (p > v && is_password_key(k, klen)) {
            fn((size_t)(v - s), (size_t)(p - v), arg);
        }
    }
}

/* Does s start with a URL scheme and "://" (RFC 3986: a letter, then letters, digits, +-.)? */
static bool is_url(const char *s)
{
    if (!isalpha((unsigned char)*s)) {
        return false;
    }
    while (isalnum((unsigned char)*s) || *s == '+' || *s == '-' || *s == '.') {
        s++;
    }
    return strncmp(s, "://", 3) == 0;
}

/* The password spans of a URL, or else of a key=value connection string. */
static void secret_spans(const char *s, void (*fn)(size_t at, size_t len, void *arg), void *arg)
{
    if (is_url(s)) {
        url_spans(s, fn, arg);
    } else {
        kv_spans(s, fn, arg);
    }
}

typedef struct {
    const char *s;
    size_t done; /* bytes of s already written */
    rsql_buf_t *out;
} put_masked_t;

static void put_span(size_t at, size_t len, void *arg)
{
    put_masked_t *m = arg;
    rsql_buf_append(m->out, m->s + m->done, at - m->done);
    rsql_buf_puts(m->out, MASK);
    m->done = at + len;
}

/* See rsql_opts.h. */
void rsql_opt_put_shown(rsql_buf_t *out, const rsql_opt_def_t *def, const char *value)
{
    const char *v = value ? value : "";
    bool secret = def && (def->flags & RSQL_OPT_F_SECRET);
    rsql_opt_ref_t ref;
    rsql_error_t e;
    rsql_error_clear(&e);
    if (rsql_opt_ref_parse(def ? def->name : "", v, secret, RSQL_NOPOS, &ref, &e) == RSQL_OK &&
        ref.kind != RSQL_OPT_REF_NONE) {
        rsql_buf_puts(out, v); /* where the value is kept, not the value */
        return;
    }
    if (secret) {
        rsql_buf_puts(out, MASK);
        return;
    }
    if (!def || !(def->flags & RSQL_OPT_F_URL)) {
        rsql_buf_puts(out, v);
        return;
    }
    put_masked_t m = {v, 0, out};
    secret_spans(v, put_span, &m);
    rsql_buf_puts(out, v + m.done);
}

typedef struct {
    const char *url;
    char *text;
    size_t size;
} mask_in_t;

/* Replace every occurrence of the span in m->text (at most m->size - 1 bytes kept). */
static void mask_span_in(size_t at, size_t len, void *arg)
{
    mask_in_t *m = arg;
    rsql_opt_mask_secret(m->text, m->size, m->url + at, len);
}

/* See rsql_opts.h. */
void rsql_opt_mask_secret(char *text, size_t size, const char *secret, size_t len)
{
    if (!text || !size || !secret || len < RSQL_OPT_MASK_MIN_LEN) {
        return;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    const char *p = text;
    bool any = false;
    for (const char *q = text; *q;) {
        if (strncmp(q, secret, len) == 0) {
            rsql_buf_append(&b, p, (size_t)(q - p));
            rsql_buf_puts(&b, MASK);
            q += len;
            p = q;
            any = true;
        } else {
            q++;
        }
    }
    if (any) {
        rsql_buf_puts(&b, p);
        if (b.oom) {
            text[0] = '\0'; /* nothing rather than the secret */
        } else {
            size_t n = strlen(rsql_buf_str(&b));
            n = n < size ? n : size - 1;
            memcpy(text, rsql_buf_str(&b), n);
            text[n] = '\0';
        }
    }
    rsql_buf_deinit(&b);
}

/* See rsql_opts.h. */
void rsql_opt_mask_url_secrets(char *text, size_t size, const char *url)
{
    if (!text || !url) {
        return;
    }
    mask_in_t m = {url, text, size};
    secret_spans(url, mask_span_in, &m);
}

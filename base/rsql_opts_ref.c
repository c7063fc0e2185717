/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Option values that refer to a secret kept outside the catalog:
 * `${env:NAME}` (an environment variable) and `${file:PATH}` (a file's
 * contents, one trailing newline dropped). The catalog keeps the reference
 * as written; the options engine (rsql_opts.c) resolves it only when asked
 * to (RSQL_OPTSET_RESOLVE, when a job is planned) and never shows the
 * resolved text: not in messages, not in SHOW or EXPLAIN.
 */
#include "config.h"
#include "base/rsql_opts.h"
#include "base/rsql_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A file behind ${file:...} holds one secret or value, not a data set. */
#define REF_FILE_MAX (64 * 1024)

static bool env_name_ok(const char *s, size_t n)
{
    if (n == 0 || (s[0] >= '0' && s[0] <= '9')) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
              c == '_')) {
            return false;
        }
    }
    return true;
}

/* See rsql_opts.h. */
rsql_err_t rsql_opt_ref_parse(const char *key, const char *value, bool secret, rsql_pos_t pos,
                              rsql_opt_ref_t *ref, rsql_error_t *err)
{
    memset(ref, 0, sizeof *ref);
    size_t n = value ? strlen(value) : 0;
    if (n < 3 || strncmp(value, "${", 2) != 0 || value[n - 1] != '}') {
        return RSQL_OK; /* a plain value */
    }
    const char *in = value + 2;
    size_t in_n = n - 3;
    if (in_n > 4 && strncmp(in, "env:", 4) == 0 && env_name_ok(in + 4, in_n - 4)) {
        ref->kind = RSQL_OPT_REF_ENV;
        ref->name = in + 4;
        ref->name_len = in_n - 4;
        return RSQL_OK;
    }
    if (in_n > 5 && strncmp(in, "file:", 5) == 0 && !memchr(in + 5, '}', in_n - 5)) {
        ref->kind = RSQL_OPT_REF_FILE;
        ref->name = in + 5;
        ref->name_len = in_n - 5;
        return RSQL_OK;
    }
    return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                          "invalid reference '%.200s' in option '%s': expected ${env:NAME} (a "
                          "variable name of letters, digits and '_') or ${file:PATH}",
                          secret ? "${******}" : value, key);
}

/* The contents of path (at most REF_FILE_MAX bytes, no NUL), one trailing newline dropped. */
static rsql_err_t read_ref_file(const char *key, const char *path, rsql_pos_t pos, char **out,
                                rsql_error_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "option '%s': cannot read file '%.300s' (${file:...}): %s", key,
                              path, strerror(errno));
    }
    char *buf = rsql_malloc(REF_FILE_MAX + 2);
    if (!buf) {
        fclose(f);
        return rsql_error_nomem(err);
    }
    size_t n = fread(buf, 1, REF_FILE_MAX + 1, f);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    rsql_err_t rc = RSQL_OK;
    if (rerr) {
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                            "option '%s': cannot read file '%.300s' (${file:...}): %s", key, path,
                            strerror(rerr));
    } else if (n > REF_FILE_MAX) {
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                            "option '%s': file '%.300s' (${file:...}) is larger than %d bytes",
                            key, path, REF_FILE_MAX);
    } else if (memchr(buf, '\0', n)) {
        rc = rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                            "option '%s': file '%.300s' (${file:...}) holds a NUL byte", key,
                            path);
    }
    if (rc != RSQL_OK) {
        memset(buf, 0, REF_FILE_MAX + 2);
        rsql_free(buf);
        return rc;
    }
    if (n > 0 && buf[n - 1] == '\n') {
        n--;
        if (n > 0 && buf[n - 1] == '\r') {
            n--;
        }
    }
    buf[n] = '\0';
    *out = buf;
    return RSQL_OK;
}

/* See rsql_opts.h. */
rsql_err_t rsql_opt_ref_resolve(const char *key, const rsql_opt_ref_t *ref, rsql_pos_t pos,
                                char **out, rsql_error_t *err)
{
    *out = NULL;
    char name[4096];
    if (ref->name_len >= sizeof name) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "option '%s': the name in its reference is too long", key);
    }
    memcpy(name, ref->name, ref->name_len);
    name[ref->name_len] = '\0';
    if (ref->kind == RSQL_OPT_REF_FILE) {
        return read_ref_file(key, name, pos, out, err);
    }
    const char *v = getenv(name);
    if (!v) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, pos,
                              "option '%s': environment variable '%s' (${env:%s}) is not set",
                              key, name, name);
    }
    *out = rsql_strdup(v);
    return *out ? RSQL_OK : rsql_error_nomem(err);
}

/* See rsql_opts.h. */
void rsql_opt_ref_free(char *resolved)
{
    if (resolved) {
        memset(resolved, 0, strlen(resolved));
        rsql_free(resolved);
    }
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * slt_runner: runs sqllogictest-style golden files (DuckDB's dialect, the
 * parts rocketsql needs) through the whole engine, each file against a fresh
 * empty catalog in a temporary directory:
 *
 *   statement ok            SQL (up to a blank line) must succeed
 *   statement error         SQL, then "----", then the exact one-line error
 *                           ("line:col: message", positions relative to the
 *                           record's own SQL)
 *   query T                 SQL, then "----", then the exact output lines
 *                           (rows tab-separated, EXPLAIN lines verbatim; the
 *                           table a SELECT preview prints to stdout comes
 *                           first; its status line goes to stderr, unchecked)
 *
 * In a record's SQL, @FIXTURES@ stands for the absolute path of tests/fixtures (found from
 * the golden file's own path, tests/sql/<dir>/<file>.slt): input files of fixed content.
 *
 * Outside records, blank lines separate records and lines starting with '#'
 * are comments; any other line there is a header this runner does not know
 * (a typo such as "statment ok", "query" without types, DuckDB options it
 * does not implement such as "query T rowsort"): it fails, with its line,
 * and its record is skipped, so a misspelt header can never make a record
 * silently not run. `--update` rewrites the expectations in place (review
 * the diff). Exit 0 when every record passed, 1 otherwise (automake's test
 * protocol).
 */
#include "config.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"
#include "session/rsql_session.h"
#include "sql/rsql_sql.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct slt_line {
    char *text;
} slt_line_t;

static char **read_lines(const char *path, int *n_out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return NULL;
    }
    int n = 0, cap = 256;
    char **lines = malloc(sizeof(char *) * (size_t)cap);
    char *line = NULL;
    size_t sz = 0;
    ssize_t len;
    while ((len = getline(&line, &sz, f)) >= 0) {
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) {
            line[--len] = '\0';
        }
        if (n == cap) {
            cap *= 2;
            lines = realloc(lines, sizeof(char *) * (size_t)cap);
        }
        lines[n++] = strdup(line);
    }
    free(line);
    fclose(f);
    *n_out = n;
    return lines;
}

static int is_blank_line(const char *s)
{
    for (; *s; s++) {
        if (*s != ' ' && *s != '\t') {
            return 0;
        }
    }
    return 1;
}

/* "query" and one or more column types (T text, I integer, R real), nothing else. */
static int is_query_header(const char *s)
{
    if (strncmp(s, "query ", 6) != 0 || !s[6]) {
        return 0;
    }
    for (s += 6; *s; s++) {
        if (*s != 'T' && *s != 'I' && *s != 'R') {
            return 0;
        }
    }
    return 1;
}

/*
** Run f(s, sql, out, err) with stdout (fd 1: where a SELECT preview prints
** its rows) going to the file path, then append that file's text to out
** before f's own output. Returns f's code.
*/
static rsql_err_t run_captured(rsql_err_t (*f)(rsql_session_t *, const char *, rsql_buf_t *,
                                               rsql_error_t *),
                               rsql_session_t *s, const char *sql, const char *path,
                               rsql_buf_t *out, rsql_error_t *err)
{
    fflush(stdout);
    int saved = dup(1);
    FILE *cap = fopen(path, "w+");
    if (saved < 0 || !cap || dup2(fileno(cap), 1) < 0) {
        if (cap) {
            fclose(cap);
        }
        if (saved >= 0) {
            close(saved);
        }
        return f(s, sql, out, err);
    }
    rsql_buf_t res = RSQL_BUF_INIT;
    rsql_err_t rc = f(s, sql, &res, err);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(cap);
    char chunk[4096];
    size_t got;
    while ((got = fread(chunk, 1, sizeof(chunk), cap)) > 0) {
        rsql_buf_append(out, chunk, got);
    }
    fclose(cap);
    rsql_buf_append(out, res.data ? res.data : "", res.len);
    rsql_buf_deinit(&res);
    return rc;
}

/* Run all statements of sql; output (TSV) into out; first error into err. */
static rsql_err_t run_sql(rsql_session_t *s, const char *sql, rsql_buf_t *out, rsql_error_t *err)
{
    rsql_parse_t *p = rsql_parse_new(sql, strlen(sql));
    rsql_err_t rc = RSQL_OK;
    for (;;) {
        rsql_stmt_t *st = NULL;
        rc = rsql_parse_next(p, &st, err);
        if (rc != RSQL_OK || !st) {
            break;
        }
        rsql_result_t *res = NULL;
        rc = rsql_session_exec(s, st, sql, &res, err);
        if (rc != RSQL_OK) {
            break;
        }
        char *mem = NULL;
        size_t mem_len = 0;
        FILE *mf = open_memstream(&mem, &mem_len);
        rsql_result_print(res, RSQL_PRINT_TSV, mf);
        fclose(mf);
        rsql_buf_append(out, mem, mem_len);
        free(mem);
        rsql_result_destroy(res);
    }
    rsql_parse_destroy(p);
    return rc;
}

/* sql with every @FIXTURES@ replaced by fixtures (into out). */
static void expand(const char *sql, const char *fixtures, rsql_buf_t *out)
{
    static const char mark[] = "@FIXTURES@";
    for (const char *p = sql, *m; *p; p = m + sizeof mark - 1) {
        if (!(m = strstr(p, mark))) {
            rsql_buf_puts(out, p);
            break;
        }
        rsql_buf_append(out, p, (size_t)(m - p));
        rsql_buf_puts(out, fixtures);
    }
}

int main(int argc, char **argv)
{
    int update = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--update") == 0) {
            update = 1;
        } else {
            path = argv[i];
        }
    }
    if (!path) {
        fprintf(stderr, "usage: slt_runner [--update] FILE.slt\n");
        return 99;
    }
    int n = 0;
    char **lines = read_lines(path, &n);
    if (!lines) {
        return 99;
    }
    char fixtures[4200] = "", up[4096];
    snprintf(up, sizeof up, "%s", path);
    for (int k = 0; k < 3; k++) { /* tests/sql/<dir>/<file>.slt -> tests */
        char *slash = strrchr(up, '/');
        if (slash) {
            *slash = '\0';
        }
    }
    char *abs = realpath(up, NULL);
    snprintf(fixtures, sizeof fixtures, "%s/fixtures", abs ? abs : up);
    free(abs);
    char dir[] = "/tmp/rsql-slt-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 99;
    }
    char catalog[sizeof(dir) + 32];
    snprintf(catalog, sizeof(catalog), "%s/catalog.db", dir);
    setenv("RSQL_TEST_TMPDIR", dir, 1);
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_session_t *s = rsql_session_new(catalog, &err);
    if (!s) {
        fprintf(stderr, "%s: cannot open catalog: %s\n", path, err.msg);
        return 99;
    }

    rsql_buf_t updated = RSQL_BUF_INIT;
    int passed = 0, failed = 0;
    int i = 0;
    while (i < n) {
        const char *l = lines[i];
        int is_ok = strcmp(l, "statement ok") == 0;
        int is_err = strcmp(l, "statement error") == 0;
        int is_query = is_query_header(l);
        if (!is_ok && !is_err && !is_query) {
            if (!is_blank_line(l) && l[0] != '#') {
                /* not a header we know: fail it and skip its record (up to a blank line) */
                failed++;
                fprintf(stderr,
                        "FAIL %s:%d: unknown header line '%s' (expected 'statement ok', "
                        "'statement error' or 'query' and column types such as 'query T')\n",
                        path, i + 1, l);
                while (i < n && !is_blank_line(lines[i])) {
                    rsql_buf_printf(&updated, "%s\n", lines[i]);
                    i++;
                }
                continue;
            }
            rsql_buf_printf(&updated, "%s\n", l);
            i++;
            continue;
        }
        int rec_line = i + 1;
        rsql_buf_printf(&updated, "%s\n", l);
        i++;
        rsql_buf_t sql = RSQL_BUF_INIT;
        while (i < n && !is_blank_line(lines[i]) && strcmp(lines[i], "----") != 0) {
            rsql_buf_printf(&sql, "%s%s", sql.len ? "\n" : "", lines[i]);
            rsql_buf_printf(&updated, "%s\n", lines[i]);
            i++;
        }
        rsql_buf_t expected = RSQL_BUF_INIT;
        int has_sep = i < n && strcmp(lines[i], "----") == 0;
        if (has_sep) {
            i++;
            while (i < n && !is_blank_line(lines[i])) {
                rsql_buf_printf(&expected, "%s\n", lines[i]);
                i++;
            }
        }
        rsql_buf_t out = RSQL_BUF_INIT, run = RSQL_BUF_INIT;
        expand(rsql_buf_str(&sql), fixtures, &run);
        rsql_error_clear(&err);
        char cap_path[sizeof(dir) + 32];
        snprintf(cap_path, sizeof(cap_path), "%s/stdout.txt", dir);
        rsql_err_t rc = is_query ? run_captured(run_sql, s, rsql_buf_str(&run), cap_path, &out, &err)
                                 : run_sql(s, rsql_buf_str(&run), &out, &err);
        char actual_err[1200] = "";
        if (rc != RSQL_OK) {
            rsql_error_format(&err, rsql_buf_str(&run), actual_err, sizeof(actual_err));
        }
        int ok = 0;
        rsql_buf_t actual = RSQL_BUF_INIT;
        if (is_ok) {
            ok = rc == RSQL_OK;
        } else if (is_err) {
            rsql_buf_printf(&actual, "%s\n", actual_err);
            ok = rc != RSQL_OK && has_sep &&
                 strcmp(rsql_buf_str(&actual), rsql_buf_str(&expected)) == 0;
        } else {
            rsql_buf_puts(&actual, rsql_buf_str(&out));
            ok = rc == RSQL_OK && has_sep &&
                 strcmp(rsql_buf_str(&actual), rsql_buf_str(&expected)) == 0;
        }
        if (!is_ok) {
            rsql_buf_puts(&updated, "----\n");
            rsql_buf_puts(&updated, update && (is_query ? rc == RSQL_OK : rc != RSQL_OK)
                                        ? rsql_buf_str(&actual)
                                        : rsql_buf_str(&expected));
        }
        if (ok) {
            passed++;
        } else {
            failed++;
            fprintf(stderr, "FAIL %s:%d: %s\n%s\n", path, rec_line, l, rsql_buf_str(&sql));
            if (is_ok) {
                fprintf(stderr, "  expected success, got: %s\n", actual_err);
            } else if (is_query && rc != RSQL_OK) {
                fprintf(stderr, "  expected output, got error: %s\n", actual_err);
            } else if (is_err && rc == RSQL_OK) {
                fprintf(stderr, "  expected error:\n%s  but it succeeded\n",
                        rsql_buf_str(&expected));
            } else {
                fprintf(stderr, "  expected:\n%s  actual:\n%s", rsql_buf_str(&expected),
                        rsql_buf_str(&actual));
            }
        }
        rsql_buf_deinit(&actual);
        rsql_buf_deinit(&out);
        rsql_buf_deinit(&expected);
        rsql_buf_deinit(&sql);
        rsql_buf_deinit(&run);
    }
    rsql_session_destroy(s);
    if (update) {
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(rsql_buf_str(&updated), f);
            fclose(f);
        }
    }
    rsql_buf_deinit(&updated);
    for (int k = 0; k < n; k++) {
        free(lines[k]);
    }
    free(lines);
    char cmd[sizeof(dir) + 16];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd) != 0) {
        fprintf(stderr, "warning: could not remove %s\n", dir);
    }
    printf("%s: %d passed, %d failed\n", path, passed, failed);
    return failed || (passed == 0) ? 1 : 0;
}

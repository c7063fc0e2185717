/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * `rocketsql apply FILE.sql [--dry-run]`: the catalog's tables and jobs made those of a jobs
 * file (session/rt_apply.c does the work). Prints one line per table or job that differs,
 * then what was done; exit 0 when the catalog matches the file (a second apply of the same
 * file prints "no changes"), 1 when the file has an error (shown with its line and column;
 * the catalog is as it was), 64 for bad usage.
 */
#include "config.h"
#include "cli/cli_int.h"
#include "catalog/rsql_catalog.h"
#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#define EXIT_USAGE 64

/* Apply path (text, len) to catalog_path's catalog; report lines into report. */
static rsql_err_t apply_text(const char *catalog_path, const char *text, size_t len,
                             bool dry_run, rsql_buf_t *report, int counts[3], rsql_error_t *err)
{
    rsql_session_t *s = rsql_session_new(catalog_path, err);
    if (!s) {
        return err->code;
    }
    rsql_err_t rc = rsql_session_apply(s, text, len, dry_run, report, counts, err);
    rsql_session_destroy(s);
    return rc;
}

static void summary(rsql_buf_t *b, const char *path, const int counts[3], bool dry_run)
{
    if (counts[0] + counts[1] + counts[2] == 0) {
        rsql_buf_printf(b, "no changes: the catalog matches %s", path);
    } else {
        rsql_buf_printf(b, "%s%d created, %d changed, %d dropped%s",
                        dry_run ? "dry run: would have " : "applied: ", counts[0], counts[1],
                        counts[2], dry_run ? "; nothing changed" : "");
    }
}

/* See cli_int.h. */
int rsql_apply_main(const char *catalog_path, int argc, char **argv)
{
    bool dry_run = false;
    static const struct option longopts[] = {
        {"dry-run", no_argument, NULL, 'n'},
        {NULL, 0, NULL, 0},
    };
    optind = 0; /* 0: GNU getopt starts over (argv[0] is "apply"), options after FILE too */
    int c;
    while ((c = getopt_long(argc, argv, "n", longopts, NULL)) != -1) {
        if (c != 'n') {
            fprintf(stderr, "usage: rocketsql [--catalog FILE] apply FILE.sql [--dry-run]\n");
            return EXIT_USAGE;
        }
        dry_run = true;
    }
    if (optind + 1 != argc) {
        fprintf(stderr, "usage: rocketsql [--catalog FILE] apply FILE.sql [--dry-run]\n");
        return EXIT_USAGE;
    }
    const char *path = argv[optind];
    size_t len = 0;
    bool usage = false;
    char *text = rsql_cli_read_all(path, &len, &usage, stderr);
    if (!text) {
        return usage ? EXIT_USAGE : 1;
    }
    rsql_buf_t report = RSQL_BUF_INIT;
    int counts[3] = {0, 0, 0};
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = apply_text(catalog_path, text, len, dry_run, &report, counts, &err);
    if (rc == RSQL_OK) {
        summary(&report, path, counts, dry_run);
        printf("%s\n", rsql_buf_str(&report));
    } else {
        if (err.pos.off != RSQL_POS_NONE) {
            fprintf(stderr, "%s:", path);
        }
        rsql_error_render(&err, text, stderr);
        fprintf(stderr, "apply: %s has an error; the catalog was not changed\n", path);
    }
    rsql_buf_deinit(&report);
    rsql_free(text);
    return rc == RSQL_OK ? 0 : 1;
}

/* See cli_int.h. */
bool rsql_apply_logged(const char *catalog_path, const char *path)
{
    size_t len = 0;
    bool usage = false;
    char *text = rsql_cli_read_all(path, &len, &usage, stderr);
    if (!text) {
        rsql_log(RSQL_LOG_ERROR, "apply", "cannot read %s; the catalog was not changed", path);
        return false;
    }
    rsql_buf_t report = RSQL_BUF_INIT;
    int counts[3] = {0, 0, 0};
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = apply_text(catalog_path, text, len, false, &report, counts, &err);
    if (rc == RSQL_OK) {
        /* one log line per change, then the summary */
        const char *p = rsql_buf_str(&report);
        while (*p) {
            const char *nl = strchr(p, '\n');
            int n = nl ? (int)(nl - p) : (int)strlen(p);
            rsql_log(RSQL_LOG_INFO, "apply", "%.*s", n, p);
            p += n + (nl != NULL);
        }
        rsql_buf_reset(&report);
        summary(&report, path, counts, false);
        rsql_log(RSQL_LOG_INFO, "apply", "%s", rsql_buf_str(&report));
    } else {
        char line[sizeof err.msg + 64];
        if (err.pos.off != RSQL_POS_NONE) {
            rsql_error_format(&err, text, line, sizeof line); /* "line:col: message" */
        } else {
            snprintf(line, sizeof line, " %s", err.msg);
        }
        rsql_log(RSQL_LOG_ERROR, "apply", "%s:%s; the catalog was not changed", path, line);
    }
    rsql_buf_deinit(&report);
    rsql_free(text);
    return rc == RSQL_OK;
}

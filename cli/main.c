/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rocketsql: the command line. Runs a script (-f FILE, -e SQL, or stdin when
 * it is not a terminal), a catalog job (`run JOB`, for cron), or the
 * interactive shell. Exit status: 0 done, 1 statement error (that statement
 * did not run), 2 a job failed while running, 64 bad usage (a bad
 * --log-level or $ROCKETSQL_LOG included), 128 + the signal after SIGINT
 * (130) or SIGTERM (143) ended a statement and the script.
 */
#include "config.h"
#include "cli/cli_int.h"
#include "cli/serve_int.h"
#include "catalog/rsql_catalog.h"
#include "connectors/rsql_connector.h"
#include "connectors/rsql_plugin.h"
#include "base/rsql_buf.h"
#include "base/rsql_error.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "session/rsql_session.h"

#include <errno.h>
#include <getopt.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_USAGE 64

static void usage(FILE *f)
{
    fprintf(f,
            "usage: rocketsql [--catalog FILE] [-f FILE | -e SQL]   run a script or one statement\n"
            "       rocketsql [--catalog FILE]                      interactive shell (on a terminal;\n"
            "                                                       else a script from stdin)\n"
            "       rocketsql [--catalog FILE] run JOB [--from-start]\n"
            "                                                       run a catalog job (bounded);\n"
            "                                                       --from-start forgets its saved\n"
            "                                                       positions first\n"
            "       rocketsql [--catalog FILE] apply FILE.sql [--dry-run]\n"
            "                                                       make the catalog's tables and\n"
            "                                                       jobs those of FILE.sql\n"
            "       rocketsql [--catalog FILE] serve [--job NAME ...] [--http ADDR:PORT]\n"
            "                 [--apply FILE.sql] [--http-token-file FILE]\n"
            "                                                       run the catalog's jobs as a\n"
            "                                                       service (docs/OPERATIONS.md)\n"
            "       rocketsql --help | --version\n"
            "\n"
            "options:\n"
            "  -c, --catalog FILE   catalog database (default: $ROCKETSQL_CATALOG, else ./rocketsql.db)\n"
            "  -f, --file FILE      run the statements in FILE ('-' = stdin)\n"
            "  -e, --execute SQL    run the statements in SQL\n"
            "      --tsv            print result rows tab-separated, without headers\n"
            "      --plugin-dir DIR load the connector plugins (*.so) in DIR (repeatable);\n"
            "                       then those of $ROCKETSQL_PLUGIN_PATH (dirs separated by ':')\n"
            "      --list-options=md  print the connector reference (docs/CONNECTORS.md)\n"
            "      --list-errors=md   print the error code reference (docs/ERRORS.md)\n"
            "      --log-level LEVEL  log to stderr up to LEVEL (error, warn, info, debug, trace;\n"
            "                         default: $ROCKETSQL_LOG, else warn)\n"
            "      --log-format FMT   log lines as 'text' (default) or 'json'\n"
            "  -h, --help           this help\n"
            "  -V, --version        print the version\n"
            "\n"
            "exit status: 0 done, 1 statement error, 2 a job failed while running, 64 bad usage,\n"
            "             130 / 143 interrupted by SIGINT / SIGTERM\n");
}

/* run JOB --from-start: forget the job's saved positions (an unknown job is RUN JOB's error). */
static int forget_positions(rsql_session_t *s, const char *job)
{
    rsql_catalog_t *cat = rsql_session_catalog(s);
    rsql_job_def_t *def = NULL;
    rsql_error_t err;
    rsql_error_clear(&err);
    rsql_err_t rc = rsql_catalog_job_get(cat, job, &def, &err);
    int n = 0;
    if (rc == RSQL_OK && def) {
        rc = rsql_catalog_positions_forget(cat, def->name, &n, &err);
        if (rc == RSQL_OK) {
            fprintf(stderr, "forgot the positions of %s (%d saved); this run starts from the "
                            "beginning\n", def->name, n);
        }
    }
    rsql_job_def_free(def);
    if (rc != RSQL_OK) {
        rsql_error_render(&err, NULL, stderr);
        return 1;
    }
    return 0;
}

/* See cli_int.h. */
char *rsql_cli_read_all(const char *path, size_t *len, bool *usage, FILE *errf)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(errf, "rocketsql: cannot open '%s': %s\n", path, strerror(errno));
        *usage = true;
        return NULL;
    }
    rsql_buf_t b = RSQL_BUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        rsql_buf_append(&b, chunk, n);
    }
    int bad = ferror(f);
    if (f != stdin) {
        fclose(f);
    }
    if (bad || b.oom) {
        fprintf(errf, "error: cannot read '%s'\n", path);
        rsql_buf_deinit(&b);
        return NULL;
    }
    *len = b.len;
    return rsql_buf_steal(&b);
}

int main(int argc, char **argv)
{
    const char *catalog_flag = NULL, *file = NULL, *exec_sql = NULL, *list = NULL;
    const char *log_level = NULL, *log_format = NULL;
    bool tsv = false;
    enum { OPT_TSV = 256, OPT_LIST_OPTIONS, OPT_LIST_ERRORS, OPT_LOG_LEVEL, OPT_PLUGIN_DIR,
           OPT_LOG_FORMAT };
#if defined(__GLIBC__) && defined(M_TRIM_THRESHOLD)
    /* The stage threads allocate a batch's parts on one thread and free them on another,
       batch after batch: with glibc's default (128 KiB, adjusted as it goes) each thread's heap
       gives its free top back to the kernel and faults it in again for the next batches
       (bench/README.md "Third round": page faults and system time). Keep up to 4 MiB per
       heap; what is in use stays bounded by the pipeline's limits (bench/rss.sh). */
    mallopt(M_TRIM_THRESHOLD, 4 * 1024 * 1024);
#endif
    static const struct option longopts[] = {
        {"catalog", required_argument, NULL, 'c'},
        {"file", required_argument, NULL, 'f'},
        {"execute", required_argument, NULL, 'e'},
        {"tsv", no_argument, NULL, OPT_TSV},
        {"list-options", required_argument, NULL, OPT_LIST_OPTIONS},
        {"list-errors", required_argument, NULL, OPT_LIST_ERRORS},
        {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
        {"log-format", required_argument, NULL, OPT_LOG_FORMAT},
        {"plugin-dir", required_argument, NULL, OPT_PLUGIN_DIR},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "+c:f:e:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'c': catalog_flag = optarg; break;
        case 'f': file = optarg; break;
        case 'e': exec_sql = optarg; break;
        case OPT_TSV: tsv = true; break;
        case OPT_LOG_LEVEL: log_level = optarg; break;
        case OPT_LOG_FORMAT: log_format = optarg; break;
        case OPT_PLUGIN_DIR: rsql_plugin_load_dir(optarg, stderr); break;
        case OPT_LIST_OPTIONS:
        case OPT_LIST_ERRORS:
            if (strcmp(optarg, "md") != 0) {
                fprintf(stderr, "rocketsql: only 'md' is supported for --%s\n",
                        c == OPT_LIST_OPTIONS ? "list-options" : "list-errors");
                return EXIT_USAGE;
            }
            list = c == OPT_LIST_OPTIONS ? "options" : "errors";
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("rocketsql %s\n", PACKAGE_VERSION); return 0;
        default: usage(stderr); return EXIT_USAGE;
        }
    }
    rsql_error_t err;
    rsql_error_clear(&err);
    if (rsql_log_configure(log_level, getenv(RSQL_LOG_ENV), &err) != RSQL_OK ||
        rsql_log_set_format(log_format, &err) != RSQL_OK) {
        fprintf(stderr, "rocketsql: %s\n", err.msg);
        return EXIT_USAGE;
    }
    /* Before anything looks a connector up: plugins' connectors join the built-ins
       (the --plugin-dir ones are loaded, in order, as they are parsed). */
    rsql_plugin_load_path(getenv("ROCKETSQL_PLUGIN_PATH"), stderr);
    if (list) {
        if (strcmp(list, "errors") == 0) {
            rsql_error_map_markdown(stdout);
        } else {
            rsql_buf_t b = RSQL_BUF_INIT;
            rsql_connector_docs_markdown(&b);
            fputs(rsql_buf_str(&b), stdout);
            rsql_buf_deinit(&b);
        }
        return 0;
    }
    const char *job = NULL;
    bool from_start = false;
    if (optind < argc && strcmp(argv[optind], "serve") == 0) {
        if (file || exec_sql) {
            fprintf(stderr, "rocketsql: choose one of -f, -e, run and serve\n");
            return EXIT_USAGE;
        }
        return rsql_serve_main(rsql_catalog_default_path(catalog_flag), argc - optind,
                               argv + optind);
    }
    if (optind < argc && strcmp(argv[optind], "apply") == 0) {
        if (file || exec_sql) {
            fprintf(stderr, "rocketsql: choose one of -f, -e, run, apply and serve\n");
            return EXIT_USAGE;
        }
        return rsql_apply_main(rsql_catalog_default_path(catalog_flag), argc - optind,
                               argv + optind);
    }
    if (optind < argc) {
        if (strcmp(argv[optind], "run") == 0 && optind + 2 <= argc && optind + 3 >= argc &&
            (optind + 2 == argc || strcmp(argv[optind + 2], "--from-start") == 0)) {
            job = argv[optind + 1];
            from_start = optind + 3 == argc;
        } else {
            fprintf(stderr, "rocketsql: unexpected argument '%s'\n", argv[optind]);
            usage(stderr);
            return EXIT_USAGE;
        }
    }
    if ((file && exec_sql) || (job && (file || exec_sql))) {
        fprintf(stderr, "rocketsql: choose one of -f, -e and run\n");
        usage(stderr);
        return EXIT_USAGE;
    }

    const char *path = rsql_catalog_default_path(catalog_flag);
    rsql_session_t *s = rsql_session_new(path, &err);
    if (!s) {
        rsql_error_render(&err, NULL, stderr);
        return 1;
    }
    rsql_session_set_http_hooks(s, serve__run_http_begin, serve__run_http_end, NULL);
    int status;
    rsql_print_style_t style = tsv ? RSQL_PRINT_TSV : RSQL_PRINT_TABLE;
    if (job) {
        status = from_start ? forget_positions(s, job) : 0;
        if (status == 0) {
            status = rsql_session_run_job(s, job, stdout, stderr);
        }
    } else if (exec_sql) {
        status = rsql_session_run_script(s, exec_sql, style, stdout, stderr);
    } else if (file || !isatty(STDIN_FILENO)) {
        size_t len = 0;
        bool usage_err = false;
        char *text = rsql_cli_read_all(file ? file : "-", &len, &usage_err, stderr);
        if (file && strcmp(file, "-") != 0) {
            rsql_session_set_script_name(s, file);
        }
        status = text ? rsql_session_run_script_n(s, text, len, style, stdout, stderr)
                      : usage_err ? EXIT_USAGE
                                  : 1;
        rsql_free(text);
    } else {
        status = rsql_shell_run(s, path);
    }
    rsql_session_destroy(s);
    return status;
}

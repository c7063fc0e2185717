/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The line drawn in place on a terminal, and the writers that share that terminal (see
 * rsql_term.h). The state is one process-wide record under one mutex: the stream the line is
 * drawn on, its text, and whether a writer cleared it. Two streams are the same terminal when
 * both are terminals of the same device (standard output and standard error of a shell).
 */
#include "config.h"
#include "base/rsql_term.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_mutex_t term_lock = PTHREAD_MUTEX_INITIALIZER;
static FILE *line_out;      /* the stream the line is drawn on; NULL = none */
static char line_text[512]; /* the line drawn */
static bool line_cleared;   /* a writer cleared it, to redraw at write_end */

static void draw0(void)
{
    fprintf(line_out, "\r%s\033[K", line_text);
    fflush(line_out);
}

static void clear0(void)
{
    fputs("\r\033[K", line_out);
    fflush(line_out);
}

/* True when out writes to the terminal the line is drawn on. @locks term_lock held */
static bool same_terminal0(FILE *out)
{
    if (out == line_out) {
        return true;
    }
    int a = fileno(out);
    int b = fileno(line_out);
    struct stat sa, sb;
    if (a < 0 || b < 0 || !isatty(a) || !isatty(b) || fstat(a, &sa) != 0 ||
        fstat(b, &sb) != 0) {
        return false;
    }
    return sa.st_rdev == sb.st_rdev;
}

void rsql_term_line_draw(FILE *f, const char *text)
{
    pthread_mutex_lock(&term_lock);
    line_out = f;
    snprintf(line_text, sizeof line_text, "%s", text);
    line_cleared = false;
    draw0();
    pthread_mutex_unlock(&term_lock);
}

void rsql_term_line_clear(FILE *f)
{
    pthread_mutex_lock(&term_lock);
    if (line_out == f) {
        clear0();
        line_out = NULL;
        line_text[0] = '\0';
    }
    pthread_mutex_unlock(&term_lock);
}

void rsql_term_write_begin(FILE *out)
{
    pthread_mutex_lock(&term_lock);
    line_cleared = false;
    if (line_out && same_terminal0(out)) {
        clear0();
        line_cleared = true;
    }
}

void rsql_term_write_end(void)
{
    if (line_cleared && line_out) {
        draw0();
    }
    line_cleared = false;
    pthread_mutex_unlock(&term_lock);
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_term: the one line drawn in place on a terminal (a run's live status line, redrawn with
 * '\r'), and the writers that share that terminal. Whoever draws such a line draws it here
 * (rsql_term_line_draw) and clears it here (rsql_term_line_clear); anyone else who writes whole
 * lines to a stream (a sink printing rows to standard output) brackets the write with
 * rsql_term_write_begin/rsql_term_write_end: when the drawn line is on the same terminal, it is
 * cleared first and drawn again after the write, so the rows never run into it.
 *
 * One line at a time per process (the last one drawn). Base layer: libc and pthreads only.
 * Every function is thread-safe; begin holds a process-wide lock until end.
 */
#ifndef RSQL_TERM_H
#define RSQL_TERM_H

#include <stdio.h>

/*
** Draw text as the line in place on f ("\r", text, clear to the end of the line), flush, and
** remember it (text is copied, cut at 511 bytes) so that writers to the same terminal can clear
** and redraw it.
*/
void rsql_term_line_draw(FILE *f, const char *text);

/* Clear the line drawn on f, if any, and forget it. */
void rsql_term_line_clear(FILE *f);

/*
** Before writing to out: take the lock and, when a line is drawn on the terminal out writes to,
** clear it. Pair with rsql_term_write_end, which redraws it. Do not call other rsql_term
** functions in between.
*/
void rsql_term_write_begin(FILE *out);

/* After the write begun by rsql_term_write_begin: redraw a line it cleared, release the lock. */
void rsql_term_write_end(void);

#endif

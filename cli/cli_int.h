/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Private to cli/: the interactive shell's entry point, `rocketsql apply` (cli/apply.c, which
 * `serve --apply` uses too), and reading a script file.
 */
#ifndef RSQL_CLI_INT_H
#define RSQL_CLI_INT_H

#include "session/rsql_session.h"

/* Run the interactive shell on the terminal; returns the exit status. */
int rsql_shell_run(rsql_session_t *s, const char *catalog_path);

/*
** Read a whole file (or stdin for "-") into a heap string of *len bytes (NULs kept). A file
** that cannot be opened is bad usage (*usage set), one that cannot be read an error; both
** are told on errf.
*/
char *rsql_cli_read_all(const char *path, size_t *len, bool *usage, FILE *errf);

/* `rocketsql apply FILE.sql [--dry-run]` (argv from "apply"); returns the exit status. */
int rsql_apply_main(const char *catalog_path, int argc, char **argv);

/*
** Apply the jobs file at path to the catalog at catalog_path (rsql_session_apply), telling
** each change and the outcome in log lines (`serve --apply`, at start and on SIGHUP). false
** when the file could not be read or applied: the catalog is then as it was.
*/
bool rsql_apply_logged(const char *catalog_path, const char *path);

#endif

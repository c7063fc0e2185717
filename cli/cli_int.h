/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Private to cli/: the interactive shell's entry point.
 */
#ifndef RSQL_CLI_INT_H
#define RSQL_CLI_INT_H

#include "session/rsql_session.h"

/* Run the interactive shell on the terminal; returns the exit status. */
int rsql_shell_run(rsql_session_t *s, const char *catalog_path);

#endif

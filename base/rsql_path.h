/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_path: small file-system helpers shared by the file-backed sinks.
 */
#ifndef RSQL_PATH_H
#define RSQL_PATH_H

/*
** Create the missing parent directories of path (mode 0755), like
** `mkdir -p "$(dirname path)"`. Returns 0, or an errno value.
*/
int rsql_path_mkdir_parents(const char *path);

#endif

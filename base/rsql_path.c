/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * File-system helpers: creating a sink file's parent directories.
 */
#include "config.h"
#include "base/rsql_path.h"
#include "base/rsql_mem.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

int rsql_path_mkdir_parents(const char *path)
{
    char *p = rsql_strdup(path);
    if (!p) {
        return ENOMEM;
    }
    int rc = 0;
    /* each '/' after the first character ends a parent directory */
    for (char *s = p + 1; *s; s++) {
        if (*s != '/') {
            continue;
        }
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            rc = errno;
            break;
        }
        *s = '/';
    }
    rsql_free(p);
    return rc;
}

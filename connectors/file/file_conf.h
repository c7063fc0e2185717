/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * file_conf: the typed configuration of the filesystem connector, filled
 * when its options are validated (file_opts.c) and read by its data path
 * (file_source.c, file_sink.c) through the source/sink context's conf.
 */
#ifndef RSQL_FILE_CONF_H
#define RSQL_FILE_CONF_H

#include <stdbool.h>
#include <stdint.h>

/* The values of the format row, indexed by rsql_file_conf_t.format. */
extern const char *const rsql_file_formats[];

typedef struct rsql_file_conf {
    const char *path;
    int format; /* index in the format row's values */
    bool follow; /* scan.follow */
    int64_t poll_ms;
    bool sync; /* sink.sync */
    bool header; /* csv.header */
} rsql_file_conf_t;

/*
** The fdatasync the filesystem sink calls at each flush (fdatasync(2)); tests put a failing
** one in its place to see what a failed sync does.
*/
extern int (*rsql_file_fdatasync)(int fd);

#endif

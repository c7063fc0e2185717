/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_conf: typed configuration. An option row that names a field
 * (rsql_opt_def_t.field, written with RSQL_OPT_FIELD) gets its value written
 * into its owner's config struct once, when the options are validated:
 * the given value, else the row's default, parsed by the same code that
 * validated it. Data paths then read struct members; nothing looks an
 * option up by its name after planning, and a default exists only in its
 * row. A value is never changed on the way: if a validated value does not
 * parse again (a programming error), filling fails with RSQL_ERR_INTERNAL.
 *
 * Depends on base/rsql_opts.h only; the registry (connectors/) calls it for
 * connectors and formats.
 */
#ifndef RSQL_CONF_H
#define RSQL_CONF_H

#include <stddef.h>

#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_opts.h"

/*
** Fill conf (size bytes, zeroed by the caller) from set for every row of
** table that has a field: STR/CSV point into set or the table (valid as
** long as set lives), INT/SIZE/DURATION as int64_t (bytes, ms), BOOL,
** DOUBLE/RATE (per second), ENUM as the index of the value in enum_vals.
** A row that is neither given nor has a default leaves its member zero
** (NULL), or -1 for an ENUM. A row's given_field, when set, becomes true when the key was
** given. Returns RSQL_OK, or RSQL_ERR_INTERNAL with err set when a row's
** field lies outside size or a value does not parse.
*/
rsql_err_t rsql_conf_fill(void *conf, size_t size, const rsql_opt_def_t *table,
                          const rsql_optset_t *set, rsql_error_t *err);

/*
** Allocate a zeroed config of size bytes in set's arena, fill it from
** table (rsql_conf_fill) and attach it at slot (rsql_optset_set_conf).
** Returns the config (owned by set) or NULL with err set.
*/
void *rsql_conf_build(rsql_optset_t *set, int slot, size_t size, const rsql_opt_def_t *table,
                      rsql_error_t *err);

#endif

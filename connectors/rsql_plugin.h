/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_plugin: connectors from shared objects. At start-up, before any
 * other thread runs, the command line loads every `*.so` of the
 * directories given with --plugin-dir and in ROCKETSQL_PLUGIN_PATH
 * (conn_plugin.c); each plugin's entry point (RSQL_PLUGIN_ENTRY, see
 * rsql_connector.h) hands its descriptors to the registry
 * (rsql_connector_register, conn_registry.c), which then lists them after
 * the built-ins. A bad plugin is reported and skipped; nothing else
 * changes. Not part of the SDK header: plugins never call this.
 */
#ifndef RSQL_PLUGIN_H
#define RSQL_PLUGIN_H

#include <stdio.h>

#include "connectors/rsql_connector.h"

/*
** The basic checks of a descriptor: a name (lower-case letters, digits,
** '-', '_'), a description, caps with the matching ops (source: open and
** poll; sink: open and write), exactly_once only with stored_positions, an
** option table starting with the 'connector' row, formats only with a
** 'format' option, and only known ones.
** RSQL_ERR_UNSUPPORTED with err saying what is wrong.
*/
rsql_err_t rsql_connector_check_def(const rsql_connector_def_t *def, rsql_error_t *err);

/*
** Register defs (NULL-terminated) after the connectors known so far, all
** of them or none: each passes rsql_connector_check_def and has a name that
** is not taken (RSQL_ERR_EXISTS names the built-in or the plugin that has
** it). origin (the plugin's path) is copied; defs are borrowed for the life
** of the process. Start-up only: not thread-safe, and a list returned by
** rsql_connector_list before the call is not valid after it.
*/
rsql_err_t rsql_connector_register(const rsql_connector_def_t *const *defs, const char *origin,
                                   rsql_error_t *err);

/*
** Load the plugin at path: dlopen it, call its entry point, check the ABI
** version and register its connectors. On failure the plugin is unloaded
** and err says why (without the path). The handle is kept until exit.
*/
rsql_err_t rsql_plugin_load(const char *path, rsql_error_t *err);

/*
** Load every `*.so` file of dir (not starting with '.'), in name order.
** Each failure is one line on errf, "rocketsql: plugin PATH: why" (or
** "rocketsql: plugin directory DIR: why"), and loading goes on. Returns the
** number of plugins loaded.
*/
int rsql_plugin_load_dir(const char *dir, FILE *errf);

/*
** Each directory of path_list (colon-separated, e.g.
** getenv("ROCKETSQL_PLUGIN_PATH"); empty entries skipped; NULL = none),
** as rsql_plugin_load_dir. The command line loads its --plugin-dir
** directories first, so a connector name goes to the first plugin that
** defines it in that order. Returns the number of plugins loaded.
*/
int rsql_plugin_load_path(const char *path_list, FILE *errf);

#endif

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * The plugin loader (rsql_plugin.h): dlopen every `*.so` of the plugin
 * directories, call its RSQL_PLUGIN_ENTRY, check the ABI version it was
 * built with and register its connectors. The plugin sees the SDK's
 * functions because the rocketsql binary exports them (sdk/local.mk);
 * RTLD_NOW makes a plugin that needs anything else fail here, with the
 * missing symbol named, rather than in the middle of a job. Plugins stay
 * loaded until the process exits: the registry points into them.
 *
 * Threads: start-up only, before any other thread runs.
 */
#include "config.h"
#include "connectors/rsql_plugin.h"
#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/*
** Load one plugin (see rsql_plugin.h). The handle is leaked on success on
** purpose: the registry keeps pointers into the plugin until exit.
*/
rsql_err_t rsql_plugin_load(const char *path, rsql_error_t *err)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        size_t plen = strlen(path);
        if (why && strncmp(why, path, plen) == 0 && strncmp(why + plen, ": ", 2) == 0) {
            why += plen + 2; /* dlerror() starts with the path we print anyway */
        }
        return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "cannot load it: %s",
                              why ? why : "unknown dlopen error");
    }
    rsql_err_t rc;
    rsql_plugin_entry_fn entry = (rsql_plugin_entry_fn)dlsym(h, RSQL_PLUGIN_ENTRY);
    const rsql_plugin_t *pl = entry ? entry() : NULL;
    if (!entry) {
        rc = rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                            "no entry point %s() (not a rocketsql plugin?)", RSQL_PLUGIN_ENTRY);
    } else if (!pl) {
        rc = rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "%s() returned NULL",
                            RSQL_PLUGIN_ENTRY);
    } else if (pl->abi_version != RSQL_CONNECTOR_ABI_VERSION) {
        rc = rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS,
                            "built for connector ABI version %d, this rocketsql (%s) has "
                            "version %d: rebuild it against this rocketsql's "
                            "<rocketsql/connector.h>",
                            pl->abi_version, PACKAGE_VERSION, RSQL_CONNECTOR_ABI_VERSION);
    } else {
        rc = rsql_connector_register(pl->connectors, path, err);
    }
    if (rc != RSQL_OK) {
        dlclose(h);
    }
    return rc;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_plugin_name(const char *n)
{
    size_t len = strlen(n);
    return n[0] != '.' && len > 3 && strcmp(n + len - 3, ".so") == 0;
}

/* Load the plugins of dir (see rsql_plugin.h). */
int rsql_plugin_load_dir(const char *dir, FILE *errf)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(errf, "rocketsql: plugin directory %s: %s\n", dir, strerror(errno));
        return 0;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    bool oom = false;
    struct dirent *e;
    while (!oom && (e = readdir(d)) != NULL) {
        if (!is_plugin_name(e->d_name)) {
            continue;
        }
        if (n == cap) {
            size_t ncap = cap ? 2 * cap : 16;
            char **nn = rsql_realloc(names, ncap * sizeof *nn);
            if (!nn) {
                oom = true;
                break;
            }
            names = nn;
            cap = ncap;
        }
        if (!(names[n] = rsql_strdup(e->d_name))) {
            oom = true;
            break;
        }
        n++;
    }
    closedir(d);
    if (oom) {
        fprintf(errf, "rocketsql: plugin directory %s: out of memory\n", dir);
    }
    if (n > 1) {
        qsort(names, n, sizeof *names, by_name);
    }
    size_t dlen = strlen(dir);
    bool slash = dlen > 0 && dir[dlen - 1] == '/';
    int loaded = 0;
    for (size_t i = 0; i < n; i++) {
        rsql_buf_t path = RSQL_BUF_INIT;
        rsql_buf_printf(&path, "%s%s%s", dir, slash ? "" : "/", names[i]);
        rsql_error_t err;
        rsql_error_clear(&err);
        if (path.oom) {
            fprintf(errf, "rocketsql: plugin directory %s: out of memory\n", dir);
        } else if (rsql_plugin_load(rsql_buf_str(&path), &err) == RSQL_OK) {
            loaded++;
        } else {
            fprintf(errf, "rocketsql: plugin %s: %s\n", rsql_buf_str(&path), err.msg);
        }
        rsql_buf_deinit(&path);
        rsql_free(names[i]);
    }
    rsql_free(names);
    return loaded;
}

/* Each directory of a colon-separated list (see rsql_plugin.h). */
int rsql_plugin_load_path(const char *path_list, FILE *errf)
{
    int loaded = 0;
    for (const char *p = path_list; p && *p;) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        if (len > 0) {
            char *dir = rsql_strndup(p, len);
            if (!dir) {
                fprintf(errf, "rocketsql: ROCKETSQL_PLUGIN_PATH: out of memory\n");
                break;
            }
            loaded += rsql_plugin_load_dir(dir, errf);
            rsql_free(dir);
        }
        p = colon ? colon + 1 : p + len;
    }
    return loaded;
}

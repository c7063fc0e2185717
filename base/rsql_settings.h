/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rsql_settings: the session settings behind SET 'key' = 'value', RESET
 * ['key'] and SHOW SETTINGS (errors.tolerance, pipeline.batch-size, ...).
 * They are declared once as rsql_opt_def_t rows (base/rsql_settings.c) and
 * checked by the options engine, with the same messages as WITH options but
 * the noun "setting" and RSQL_ERR_BAD_SETTING.  Settings flagged JOB belong
 * to a pipeline: CREATE JOB captures the explicitly set ones (export) and
 * RUN JOB restores them (import); the others only shape the shell.
 */
#ifndef RSQL_SETTINGS_H
#define RSQL_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rsql_opts.h"

/* A settings row that a job captures (rsql_opt_def_t.flags). */
#define RSQL_SETTING_F_JOB 0x100u

typedef struct rsql_settings rsql_settings_t;

/* New settings, all at their defaults; NULL when out of memory. Caller destroys. */
rsql_settings_t *rsql_settings_new(void);
void rsql_settings_destroy(rsql_settings_t *s); /* NULL-safe */
/* A copy (caller destroys), or NULL when out of memory. */
rsql_settings_t *rsql_settings_dup(const rsql_settings_t *s);

/*
** SET key = value: unknown key -> RSQL_ERR_BAD_SETTING at key_pos
** ("unknown setting 'errors.tolerence' (did you mean 'errors.tolerance'?);
** valid settings: ..."), bad value -> at value_pos ("invalid value 'x' for
** setting 'errors.tolerance': expected one of none, all"). value is copied;
** ENUM values are stored in their declared spelling. On error nothing changes.
*/
rsql_err_t rsql_settings_set(rsql_settings_t *s, const char *key, const char *value,
                             rsql_pos_t key_pos, rsql_pos_t value_pos, rsql_error_t *err);

/* RESET key (back to its default), or every setting when key is NULL. */
rsql_err_t rsql_settings_reset(rsql_settings_t *s, const char *key, rsql_pos_t key_pos,
                               rsql_error_t *err);

/*
** The effective text of key: the value set, else the default; NULL when
** unset without a default or when key is not a setting. Borrowed until the
** next set/reset of key.
*/
const char *rsql_settings_get(const rsql_settings_t *s, const char *key);

/*
** Typed values (given, else default; 0/false when neither). key must be a
** setting of a matching type, else abort (a programming error).
** int: INT, SIZE (bytes), DURATION (ms); double: DOUBLE, RATE (/s), INT.
*/
int64_t rsql_settings_int(const rsql_settings_t *s, const char *key);
double rsql_settings_double(const rsql_settings_t *s, const char *key);

/* ---- SHOW SETTINGS */

typedef struct rsql_setting_info {
    const char *key;
    const char *value; /* effective text, NULL when unset without default */
    const char *def;   /* default text, NULL when none */
    bool is_set;       /* SET explicitly */
    bool job;          /* captured by CREATE JOB */
    const rsql_opt_def_t *row;
} rsql_setting_info_t;

/* Number of settings (rows), in a stable order. */
int rsql_settings_count(void);
/* The i-th setting (0 <= i < count); strings borrowed from s and the table. */
void rsql_settings_info(const rsql_settings_t *s, int i, rsql_setting_info_t *out);
/* The settings rows (a table ending with RSQL_OPT_END). */
const rsql_opt_def_t *rsql_settings_defs(void);

/* ---- CREATE JOB / RUN JOB */

/*
** Fill out[0..cap) with the explicitly set settings (only JOB ones when
** job_only), positions RSQL_NOPOS, and return how many there are (may be
** more than cap). Strings are borrowed from s until its next change.
*/
int rsql_settings_export(const rsql_settings_t *s, bool job_only, rsql_opt_kv_t *out, int cap);

/*
** Apply kvs as SETs, all or nothing (first error wins, s unchanged then).
*/
rsql_err_t rsql_settings_import(rsql_settings_t *s, const rsql_opt_kv_t *kvs, int n,
                                rsql_error_t *err);

/* Markdown table of the settings (for docs/CONNECTORS.md), with a scope column. */
void rsql_settings_markdown(rsql_buf_t *out);

#endif

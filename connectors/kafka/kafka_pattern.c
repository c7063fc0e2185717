/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * kafka_pattern: the kafka source's topic-pattern, a PCRE2 regular expression that a topic's
 * whole name must match (as Java's Matcher.matches(), which Flink uses): checked when the
 * table is created, and matched against the cluster's topics when a read starts.
 */
#include "config.h"
#include "connectors/kafka/kafka_conf.h"
#include "base/rsql_mem.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The compiled pattern, anchored at both ends; NULL with why filled. */
static pcre2_code *compile(const char *pattern, char *why, size_t size)
{
    int code;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_ANCHORED | PCRE2_ENDANCHORED, &code, &off,
                                   NULL);
    if (!re && why) {
        PCRE2_UCHAR msg[120];
        pcre2_get_error_message(code, msg, sizeof msg);
        snprintf(why, size, "not a regular expression: %s at offset %zu", (const char *)msg,
                 (size_t)off);
    }
    return re;
}

rsql_err_t rsql_kafka__pattern_check(const char *pattern, char *why, size_t size)
{
    pcre2_code *re = compile(pattern, why, size);
    if (!re) {
        return RSQL_ERR_BAD_OPTION;
    }
    pcre2_code_free(re);
    return RSQL_OK;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int rsql_kafka__pattern_topics(const char *pattern, const struct rd_kafka_metadata *md,
                               char ***out)
{
    *out = NULL;
    pcre2_code *re = compile(pattern, NULL, 0);
    pcre2_match_data *m = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
    char **names = rsql_calloc((size_t)md->topic_cnt + 1, sizeof *names);
    int n = 0;
    bool failed = !re || !m || !names;
    for (int i = 0; !failed && i < md->topic_cnt; i++) {
        const char *t = md->topics[i].topic;
        if (!t || strncmp(t, "__", 2) == 0 || md->topics[i].err) {
            continue;
        }
        if (pcre2_match(re, (PCRE2_SPTR)t, PCRE2_ZERO_TERMINATED, 0, 0, m, NULL) >= 0) {
            failed = !(names[n++] = rsql_strdup(t));
        }
    }
    pcre2_match_data_free(m);
    pcre2_code_free(re);
    if (failed) {
        for (int i = 0; names && i < n; i++) {
            rsql_free(names[i]);
        }
        rsql_free(names);
        return -1;
    }
    qsort(names, (size_t)n, sizeof *names, by_name);
    *out = names;
    return n;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * plan_explain_int: what the EXPLAIN text's files share (plan_explain.c: the tree, the
 * sources, sinks and lookups; plan_explain_state.c: the steps that keep state).
 */
#ifndef RSQL_PLAN_EXPLAIN_INT_H
#define RSQL_PLAN_EXPLAIN_INT_H

#include "base/rsql_buf.h"
#include "planner/rsql_plan.h"

#include <stddef.h>
#include <stdint.h>

typedef struct explain {
    rsql_buf_t *out;
    const rsql_plan_t *plan;
} explain_t;

/*
** A node line at depth d: "Sink: s" (d = 0), "  ->  Projection" (d = 1), ...
** (PostgreSQL's layout: a child's arrow lines up with its parent's details).
*/
void rsql_plan__x_node(explain_t *x, int d, const char *title);
/* Start a detail line under a node at depth d. */
void rsql_plan__x_attr(explain_t *x, int d, const char *key);
/* ms as a duration's text in buf. */
const char *rsql_plan__x_dur(int64_t ms, char *buf, size_t size);

/* plan_explain_state.c: the nodes of the steps that keep state, at depth d */
void rsql_plan__x_dedup_node(explain_t *x, int d);
void rsql_plan__x_window_rows_node(explain_t *x, int d); /* a window function alone: none */
void rsql_plan__x_agg_node(explain_t *x, int d);

#endif

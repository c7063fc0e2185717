/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rt_preview: the sink of a SELECT preview (rt_preview.c): rows as text cells in a result.
 * @locality the pipeline's threads; the target is per thread
 */
#ifndef RSQL_RT_PREVIEW_H
#define RSQL_RT_PREVIEW_H

#include "base/rsql_result.h"
#include "connectors/rsql_io.h"

/* The preview sink's ops: open takes the result set by rsql_rt_preview_target on its thread. */
extern const rsql_sink_ops_t rsql_rt_preview_ops;
/* The result the next preview sink opened on this thread fills (NULL: none). One preview at a
   time per thread (several pipelines may run at once in one process). */
void rsql_rt_preview_target(rsql_result_t *res);

#endif

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Type names and the implicit (widening) cast rules.
 */
#include "config.h"
#include "base/rsql_types.h"

#include <strings.h>

const char *rsql_type_name(rsql_type_t t)
{
    switch (t) {
    case RSQL_TYPE_NULL: return "NULL";
    case RSQL_TYPE_BOOLEAN: return "BOOLEAN";
    case RSQL_TYPE_INT: return "INT";
    case RSQL_TYPE_BIGINT: return "BIGINT";
    case RSQL_TYPE_DOUBLE: return "DOUBLE";
    case RSQL_TYPE_VARCHAR: return "VARCHAR";
    case RSQL_TYPE_BYTES: return "BYTES";
    case RSQL_TYPE_TIMESTAMP: return "TIMESTAMP(3)";
    }
    return "?";
}

int rsql_type_from_name(const char *name)
{
    static const struct {
        const char *name;
        rsql_type_t t;
    } names[] = {
        {"BOOLEAN", RSQL_TYPE_BOOLEAN}, {"BOOL", RSQL_TYPE_BOOLEAN},
        {"INT", RSQL_TYPE_INT},         {"INTEGER", RSQL_TYPE_INT},
        {"BIGINT", RSQL_TYPE_BIGINT},   {"DOUBLE", RSQL_TYPE_DOUBLE},
        {"VARCHAR", RSQL_TYPE_VARCHAR}, {"STRING", RSQL_TYPE_VARCHAR},
        {"BYTES", RSQL_TYPE_BYTES},     {"TIMESTAMP", RSQL_TYPE_TIMESTAMP},
        {"TIMESTAMP(3)", RSQL_TYPE_TIMESTAMP},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcasecmp(name, names[i].name) == 0) {
            return (int)names[i].t;
        }
    }
    return -1;
}

bool rsql_type_is_numeric(rsql_type_t t)
{
    return t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT || t == RSQL_TYPE_DOUBLE;
}

bool rsql_type_widens(rsql_type_t from, rsql_type_t to)
{
    if (from == to || from == RSQL_TYPE_NULL) {
        return true;
    }
    switch (from) {
    case RSQL_TYPE_INT: return to == RSQL_TYPE_BIGINT || to == RSQL_TYPE_DOUBLE;
    case RSQL_TYPE_BIGINT: return to == RSQL_TYPE_DOUBLE;
    case RSQL_TYPE_VARCHAR: return to == RSQL_TYPE_BYTES;
    default: return false;
    }
}

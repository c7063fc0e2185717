/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * sql_keywords: the keyword table of rocketsql's SQL, sorted by name, and
 * its case-insensitive binary search.  The tokenizer turns every bare word
 * into RSQL_TK_ID or a keyword's token; several spellings may share a token
 * (INT/INTEGER, VARCHAR/STRING, BOOLEAN/BOOL, DESCRIBE/DESC).  Whether a
 * keyword is reserved is decided by the grammar's %fallback list, not here.
 */
#include "config.h"
#include "sql/sql_int.h"

#include <string.h>

/* name (upper case, sorted by strcmp), token */
#define RSQL_SQL_KEYWORDS(X)                                                                 \
    X("ABSENT", ABSENT) X("AND", AND) X("ARRAY", ARRAY) X("AS", AS) X("ASC", ASC)            \
    X("BETWEEN", BETWEEN) X("BIGINT", BIGINT) X("BOOL", BOOLEAN) X("BOOLEAN", BOOLEAN)       \
    X("BY", BY) X("BYTES", BYTES) X("CASE", CASE) X("CAST", CAST) X("CONDITIONAL", CONDITIONAL)          \
    X("CONNECTOR", CONNECTOR) X("CONNECTORS", CONNECTORS) X("CREATE", CREATE)                \
    X("CURRENT_TIMESTAMP", CURRENT_TIMESTAMP) X("DATE", DATE) X("DEC", DECIMAL)              \
    X("DECIMAL", DECIMAL) X("DEFAULT", DEFAULT) X("DESC", DESCRIBE)                          \
    X("DESCRIBE", DESCRIBE) X("DESCRIPTOR", DESCRIPTOR) X("DISTINCT", DISTINCT) X("DOUBLE", DOUBLE) X("DROP", DROP) X("ELSE", ELSE)              \
    X("EMPTY", EMPTY) X("END", END) X("ENFORCED", ENFORCED) X("ERROR", ERROR)                \
    X("ESCAPE", ESCAPE) X("EXISTS", EXISTS) X("EXPLAIN", EXPLAIN) X("FALSE", FALSE)          \
    X("FOR", FOR) X("FROM", FROM) X("GROUP", GROUP) X("HAVING", HAVING) X("IF", IF) X("IN", IN) X("INNER", INNER)                  \
    X("INSERT", INSERT)                                                                      \
    X("INT", INT) X("INTEGER", INT) X("INTERVAL", INTERVAL) X("INTO", INTO) X("IS", IS) X("JOB", JOB)                \
    X("JOBS", JOBS) X("JOIN", JOIN) X("LEFT", LEFT) X("LIKE", LIKE) X("LIMIT", LIMIT) X("MAP", MAP)                          \
    X("METADATA", METADATA) X("NOT", NOT) X("NULL", NULL) X("NUMERIC", DECIMAL)              \
    X("OBJECT", OBJECT) X("OF", OF) X("ON", ON) X("OPTIONS", OPTIONS) X("OR", OR)            \
    X("ORDER", ORDER) X("OUTER", OUTER) X("OVER", OVER) X("PARTITION", PARTITION)            \
    X("POSITIONS", POSITIONS) X("PRIMARY", PRIMARY) X("RESET", RESET)                        \
    X("RETURNING", RETURNING) X("ROW", ROW)                                                  \
    X("RUN", RUN) X("RUNS", RUNS) X("SELECT", SELECT) X("SET", SET)                          \
    X("SETTINGS", SETTINGS) X("SHOW", SHOW) X("STRING", VARCHAR) X("SYSTEM_TIME", SYSTEM_TIME)     \
    X("TABLE", TABLE)                                                                        \
    X("TABLES", TABLES) X("THEN", THEN) X("TIMESTAMP", TIMESTAMP) X("TO", TO) X("TRUE", TRUE)            \
    X("UNCONDITIONAL", UNCONDITIONAL) X("UNKNOWN", UNKNOWN) X("VALUE", VALUE)                \
    X("VARCHAR", VARCHAR) X("VIRTUAL", VIRTUAL) X("WATERMARK", WATERMARK) X("WHEN", WHEN) X("WHERE", WHERE)            \
    X("WITH", WITH) X("WITHOUT", WITHOUT) X("WRAPPER", WRAPPER)

static const char *const keyword_names[] = {
#define RSQL__KW_NAME(name, tok) name,
    RSQL_SQL_KEYWORDS(RSQL__KW_NAME)
#undef RSQL__KW_NAME
};

static const int keyword_codes[] = {
#define RSQL__KW_CODE(name, tok) RSQL_TK_##tok,
    RSQL_SQL_KEYWORDS(RSQL__KW_CODE)
#undef RSQL__KW_CODE
};

#define N_KEYWORDS ((int)(sizeof(keyword_names) / sizeof(keyword_names[0])))

/* strcmp of z[0..n) upper-cased (ASCII) against the NUL-terminated kw. */
static int kw_cmp(const char *z, size_t n, const char *kw)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)z[i];
        if (c >= 'a' && c <= 'z') {
            c = (unsigned char)(c - 'a' + 'A');
        }
        unsigned char k = (unsigned char)kw[i];
        if (k == 0) {
            return 1; /* z is longer */
        }
        if (c != k) {
            return c < k ? -1 : 1;
        }
    }
    return kw[n] == 0 ? 0 : -1;
}

/*
** The token code of the keyword z[0..n) in any case, or RSQL_TK_ID when the
** word is not a keyword.  z is borrowed.
*/
int rsql_sql__keyword_code(const char *z, size_t n)
{
    int lo = 0, hi = N_KEYWORDS - 1;
    if (n > 17) { /* longer than CURRENT_TIMESTAMP */
        return RSQL_TK_ID;
    }
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int c = kw_cmp(z, n, keyword_names[mid]);
        if (c == 0) {
            return keyword_codes[mid];
        }
        if (c < 0) {
            hi = mid - 1;
        } else {
            lo = mid + 1;
        }
    }
    return RSQL_TK_ID;
}

/*
** The keyword names, upper case and sorted; *n (if non-NULL) gets their
** count.  The array is static: the caller frees nothing.
*/
const char *const *rsql_sql_keywords(int *n)
{
    if (n) {
        *n = N_KEYWORDS;
    }
    return keyword_names;
}

/* See rsql_sql.h. */
void rsql_sql_put_ident(rsql_buf_t *b, const char *name)
{
    if (name && rsql_sql__keyword_code(name, strlen(name)) != RSQL_TK_ID) {
        rsql_buf_quote_ident(b, name);
    } else {
        rsql_buf_put_ident(b, name);
    }
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * Type names, the implicit (widening) cast rules, and the interned type
 * descriptors of DECIMAL(p, s), ROW, ARRAY and MAP (rsql_tdesc_*): their
 * text parser (CREATE TABLE, CAST, the catalog) and canonical text.
 */
#include "config.h"
#include "base/rsql_types.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/rsql_buf.h"
#include "base/rsql_mem.h"

const char *rsql_rowkind_short(int kind)
{
    switch (kind) {
    case RSQL_ROW_INSERT: return "+I";
    case RSQL_ROW_UPDATE_BEFORE: return "-U";
    case RSQL_ROW_UPDATE_AFTER: return "+U";
    case RSQL_ROW_DELETE: return "-D";
    case RSQL_ROW_CLEAR: return "-T";
    }
    return "?";
}

bool rsql_rowkind_adds(int kind)
{
    return kind == RSQL_ROW_INSERT || kind == RSQL_ROW_UPDATE_AFTER;
}

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
    case RSQL_TYPE_DECIMAL: return "DECIMAL";
    case RSQL_TYPE_DATE: return "DATE";
    case RSQL_TYPE_ROW: return "ROW";
    case RSQL_TYPE_ARRAY: return "ARRAY";
    case RSQL_TYPE_MAP: return "MAP";
    case RSQL_TYPE_INTERVAL: return "INTERVAL DAY TO SECOND(3)";
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
        {"TIMESTAMP(3)", RSQL_TYPE_TIMESTAMP}, {"DATE", RSQL_TYPE_DATE},
        {"DECIMAL", RSQL_TYPE_DECIMAL}, {"DEC", RSQL_TYPE_DECIMAL},
        {"NUMERIC", RSQL_TYPE_DECIMAL},
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
    return rsql_type_is_integer(t) || t == RSQL_TYPE_DOUBLE;
}

bool rsql_type_is_integer(rsql_type_t t)
{
    return t == RSQL_TYPE_INT || t == RSQL_TYPE_BIGINT;
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

bool rsql_type_is_param(rsql_type_t t)
{
    return t == RSQL_TYPE_DECIMAL || rsql_type_is_nested(t);
}

bool rsql_type_is_nested(rsql_type_t t)
{
    return t == RSQL_TYPE_ROW || t == RSQL_TYPE_ARRAY || t == RSQL_TYPE_MAP;
}

/* ---- interning: one descriptor per canonical text, never freed */

typedef struct interned {
    struct interned *next;
    rsql_tdesc_t d;
} interned_t;

/* More distinct types than any catalog holds; bounds what hostile SQL can make us keep. */
#define MAX_INTERNED 100000

static pthread_mutex_t intern_mu = PTHREAD_MUTEX_INITIALIZER;
static interned_t *intern_list;
static int intern_cnt;

/*
** The interned descriptor equal to proto (whose text is the canonical text);
** proto's arrays are copied. NULL when out of memory or past MAX_INTERNED.
*/
static const rsql_tdesc_t *intern(const rsql_tdesc_t *proto)
{
    const rsql_tdesc_t *found = NULL;
    pthread_mutex_lock(&intern_mu);
    for (interned_t *it = intern_list; it; it = it->next) {
        if (strcmp(it->d.text, proto->text) == 0) {
            found = &it->d;
            break;
        }
    }
    if (!found && intern_cnt < MAX_INTERNED) {
        size_t tlen = strlen(proto->text) + 1;
        size_t names_len = 0;
        for (int i = 0; proto->names && i < proto->n; i++) {
            names_len += strlen(proto->names[i]) + 1;
        }
        size_t arrays = (size_t)proto->n * (sizeof(char *) + sizeof(rsql_tdesc_t *));
        /* plain malloc: kept for the life of the process, outside the allocation-failure hook */
        interned_t *it = malloc(sizeof(*it) + arrays + tlen + names_len);
        if (it) {
            char *mem = (char *)(it + 1);
            const rsql_tdesc_t **kids = (const rsql_tdesc_t **)mem;
            const char **names = (const char **)(mem + (size_t)proto->n * sizeof(rsql_tdesc_t *));
            char *text = mem + arrays;
            char *np = text + tlen;
            it->d = *proto;
            memcpy(text, proto->text, tlen);
            it->d.text = text;
            for (int i = 0; i < proto->n; i++) {
                kids[i] = proto->children[i];
            }
            it->d.children = proto->n ? kids : NULL;
            if (proto->names) {
                for (int i = 0; i < proto->n; i++) {
                    size_t l = strlen(proto->names[i]) + 1;
                    memcpy(np, proto->names[i], l);
                    names[i] = np;
                    np += l;
                }
                it->d.names = names;
            } else {
                it->d.names = NULL;
            }
            it->next = intern_list;
            intern_list = it;
            intern_cnt++;
            found = &it->d;
        }
    }
    pthread_mutex_unlock(&intern_mu);
    return found;
}

const rsql_tdesc_t *rsql_tdesc_scalar(rsql_type_t t)
{
    static const rsql_tdesc_t scalars[] = {
        {RSQL_TYPE_NULL, 0, 0, 0, NULL, NULL, "NULL"},
        {RSQL_TYPE_BOOLEAN, 0, 0, 0, NULL, NULL, "BOOLEAN"},
        {RSQL_TYPE_INT, 0, 0, 0, NULL, NULL, "INT"},
        {RSQL_TYPE_BIGINT, 0, 0, 0, NULL, NULL, "BIGINT"},
        {RSQL_TYPE_DOUBLE, 0, 0, 0, NULL, NULL, "DOUBLE"},
        {RSQL_TYPE_VARCHAR, 0, 0, 0, NULL, NULL, "VARCHAR"},
        {RSQL_TYPE_BYTES, 0, 0, 0, NULL, NULL, "BYTES"},
        {RSQL_TYPE_TIMESTAMP, 0, 0, 0, NULL, NULL, "TIMESTAMP(3)"},
        {RSQL_TYPE_DECIMAL, RSQL_DECIMAL_DEFAULT_PRECISION, 0, 0, NULL, NULL, "DECIMAL(10, 0)"},
        {RSQL_TYPE_DATE, 0, 0, 0, NULL, NULL, "DATE"},
    };
    static const rsql_tdesc_t interval = {RSQL_TYPE_INTERVAL, 0, 0, 0, NULL, NULL,
                                          "INTERVAL DAY TO SECOND(3)"};
    if (t == RSQL_TYPE_INTERVAL) {
        return &interval;
    }
    if ((int)t >= 0 && (size_t)t < sizeof(scalars) / sizeof(scalars[0])) {
        return &scalars[t];
    }
    return NULL;
}

const rsql_tdesc_t *rsql_tdesc_of(rsql_type_t t, const rsql_tdesc_t *desc)
{
    return desc ? desc : rsql_tdesc_scalar(t);
}

const rsql_tdesc_t *rsql_tdesc_decimal(int p, int s)
{
    if (p < 1 || p > RSQL_DECIMAL_MAX_PRECISION || s < 0 || s > p) {
        return NULL;
    }
    if (p == RSQL_DECIMAL_DEFAULT_PRECISION && s == 0) {
        return rsql_tdesc_scalar(RSQL_TYPE_DECIMAL);
    }
    char text[32];
    snprintf(text, sizeof text, "DECIMAL(%d, %d)", p, s);
    rsql_tdesc_t proto = {RSQL_TYPE_DECIMAL, p, s, 0, NULL, NULL, text};
    return intern(&proto);
}

/* Whether name prints bare: an identifier that is not a reserved word of the SQL grammar. */
static bool plain_name(const char *name)
{
    static const char *const reserved[] = {
        "AND", "ARRAY", "AS", "BETWEEN", "CASE", "CAST", "CREATE", "CURRENT_TIMESTAMP", "ELSE",
        "END", "FALSE", "FROM", "IN", "INTO", "IS", "LIKE", "LIMIT", "MAP", "NOT", "NULL",
        "OR", "ROW", "SELECT", "THEN", "TRUE", "WHEN", "WHERE",
    };
    if (!((*name >= 'a' && *name <= 'z') || (*name >= 'A' && *name <= 'Z') || *name == '_')) {
        return false;
    }
    for (const char *p = name; *p; p++) {
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
              (*p >= '0' && *p <= '9'))) {
            return false;
        }
    }
    for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++) {
        if (strcasecmp(name, reserved[i]) == 0) {
            return false;
        }
    }
    return true;
}

/* The interned composite of kind t with children kids (and names for ROW). */
static const rsql_tdesc_t *make_nested(rsql_type_t t, int n, const char *const *names,
                                       const rsql_tdesc_t *const *kids)
{
    rsql_buf_t b;
    rsql_buf_init(&b);
    rsql_buf_puts(&b, t == RSQL_TYPE_ROW ? "ROW<" : t == RSQL_TYPE_ARRAY ? "ARRAY<" : "MAP<");
    for (int i = 0; i < n; i++) {
        if (i) {
            rsql_buf_puts(&b, ", ");
        }
        if (names) {
            if (plain_name(names[i])) {
                rsql_buf_puts(&b, names[i]);
            } else {
                rsql_buf_putc(&b, '"');
                for (const char *p = names[i]; *p; p++) {
                    if (*p == '"') {
                        rsql_buf_putc(&b, '"');
                    }
                    rsql_buf_putc(&b, *p);
                }
                rsql_buf_putc(&b, '"');
            }
            rsql_buf_putc(&b, ' ');
        }
        rsql_buf_puts(&b, kids[i]->text);
    }
    rsql_buf_putc(&b, '>');
    const rsql_tdesc_t *d = NULL;
    if (!b.oom) {
        rsql_buf_putc(&b, '\0');
    }
    if (!b.oom) {
        rsql_tdesc_t proto = {t, 0, 0, n, names, kids, b.data};
        d = intern(&proto);
    }
    rsql_buf_deinit(&b);
    return d;
}

const rsql_tdesc_t *rsql_tdesc_array(const rsql_tdesc_t *elem)
{
    return make_nested(RSQL_TYPE_ARRAY, 1, NULL, &elem);
}

const rsql_tdesc_t *rsql_tdesc_map(const rsql_tdesc_t *value)
{
    const rsql_tdesc_t *kids[2] = {rsql_tdesc_scalar(RSQL_TYPE_VARCHAR), value};
    return make_nested(RSQL_TYPE_MAP, 2, NULL, kids);
}

int rsql_tdesc_field(const rsql_tdesc_t *row, const char *name)
{
    if (!row || row->type != RSQL_TYPE_ROW) {
        return -1;
    }
    for (int i = 0; i < row->n; i++) {
        if (strcasecmp(row->names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

/* ---- the type text parser */

#define MAX_DEPTH 32
#define MAX_FIELDS 1024 /* fields of one ROW; names are cut to 127 bytes */

typedef struct tparse {
    const char *s;
    size_t n, i;
    uint32_t *err_off;
    rsql_error_t *err;
    rsql_err_t rc;
} tparse_t;

static const rsql_tdesc_t *tfail(tparse_t *p, size_t at, rsql_err_t code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static const rsql_tdesc_t *tfail(tparse_t *p, size_t at, rsql_err_t code, const char *fmt, ...)
{
    if (p->rc == RSQL_OK) {
        va_list ap;
        p->rc = code;
        if (p->err_off) {
            *p->err_off = (uint32_t)at;
        }
        va_start(ap, fmt);
        rsql_error_setv(p->err, code, RSQL_NOPOS, fmt, ap);
        va_end(ap);
    }
    return NULL;
}

/* Skip blanks and SQL comments (-- to the end of the line, / * ... * /). */
static void tblank(tparse_t *p)
{
    for (;;) {
        while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' ||
                               p->s[p->i] == '\r' || p->s[p->i] == '\f' || p->s[p->i] == '\v')) {
            p->i++;
        }
        if (p->i + 1 < p->n && p->s[p->i] == '-' && p->s[p->i + 1] == '-') {
            while (p->i < p->n && p->s[p->i] != '\n') {
                p->i++;
            }
        } else if (p->i + 1 < p->n && p->s[p->i] == '/' && p->s[p->i + 1] == '*') {
            size_t j = p->i + 2;
            while (j + 1 < p->n && !(p->s[j] == '*' && p->s[j + 1] == '/')) {
                j++;
            }
            p->i = j + 1 < p->n ? j + 2 : p->n;
        } else {
            return;
        }
    }
}

static bool tpeek(tparse_t *p, char c)
{
    tblank(p);
    return p->i < p->n && p->s[p->i] == c;
}

static bool texpect(tparse_t *p, char c)
{
    if (!tpeek(p, c)) {
        tfail(p, p->i, RSQL_ERR_TYPE, "expected '%c'", c);
        return false;
    }
    p->i++;
    return true;
}

static bool is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (c >= '0' && c <= '9') || (unsigned char)c >= 0x80;
}

/* A bare word into w (truncated to its size); its length (0 = none). */
static size_t tword(tparse_t *p, char *w, size_t size)
{
    tblank(p);
    size_t start = p->i, k = 0;
    while (p->i < p->n && is_word_char(p->s[p->i])) {
        if (k + 1 < size) {
            w[k++] = p->s[p->i];
        }
        p->i++;
    }
    w[k] = 0;
    return p->i - start;
}

/* An unsigned integer of at most 4 digits; -1 when absent or too long. */
static int tint(tparse_t *p)
{
    tblank(p);
    int v = 0, k = 0;
    while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') {
        if (++k > 4) {
            return -1;
        }
        v = v * 10 + (p->s[p->i++] - '0');
    }
    return k ? v : -1;
}

/* A field name: bare, "quoted" or `quoted` (doubled quote = one); into w. false when none. */
static bool tname(tparse_t *p, char *w, size_t size)
{
    tblank(p);
    if (p->i < p->n && (p->s[p->i] == '"' || p->s[p->i] == '`')) {
        char q = p->s[p->i++];
        size_t k = 0;
        for (;;) {
            if (p->i >= p->n) {
                tfail(p, p->i, RSQL_ERR_TYPE, "unterminated field name");
                return false;
            }
            char c = p->s[p->i++];
            if (c == q) {
                if (p->i < p->n && p->s[p->i] == q) {
                    p->i++;
                } else {
                    break;
                }
            }
            if (k + 1 < size) {
                w[k++] = c;
            }
        }
        w[k] = 0;
        return k > 0 || tfail(p, p->i, RSQL_ERR_TYPE, "empty field name");
    }
    if (tword(p, w, size) == 0) {
        tfail(p, p->i, RSQL_ERR_TYPE, "expected a field name");
        return false;
    }
    return true;
}

static const rsql_tdesc_t *ttype(tparse_t *p, int depth);

static const rsql_tdesc_t *tdecimal(tparse_t *p)
{
    int prec = RSQL_DECIMAL_DEFAULT_PRECISION, scale = 0;
    if (tpeek(p, '(')) {
        p->i++;
        size_t at = (tblank(p), p->i);
        prec = tint(p);
        if (prec < 1 || prec > RSQL_DECIMAL_MAX_PRECISION) {
            return tfail(p, at, RSQL_ERR_TYPE, "DECIMAL precision must be between 1 and 38");
        }
        if (tpeek(p, ',')) {
            p->i++;
            at = (tblank(p), p->i);
            scale = tint(p);
            if (scale < 0 || scale > prec) {
                return tfail(p, at, RSQL_ERR_TYPE,
                             "DECIMAL scale must be between 0 and the precision");
            }
        }
        if (!texpect(p, ')')) {
            return NULL;
        }
    }
    return rsql_tdesc_decimal(prec, scale);
}

static const rsql_tdesc_t *trow(tparse_t *p, int depth)
{
    char close = tpeek(p, '(') ? ')' : '>';
    if (!texpect(p, close == ')' ? '(' : '<')) {
        return NULL;
    }
    /* heap, not stack: a ROW nests 32 deep */
    const char **names = rsql_malloc(MAX_FIELDS * sizeof(char *));
    const rsql_tdesc_t **kids = rsql_malloc(MAX_FIELDS * sizeof(rsql_tdesc_t *));
    char *store = rsql_malloc((size_t)MAX_FIELDS * 128);
    const rsql_tdesc_t *d = NULL;
    int n = 0;
    if (!store || !names || !kids) {
        tfail(p, p->i, RSQL_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (;;) {
        if (n == MAX_FIELDS) {
            tfail(p, p->i, RSQL_ERR_TYPE, "a ROW has at most 1024 fields");
            goto done;
        }
        char *w = store + (size_t)n * 128;
        size_t at = (tblank(p), p->i);
        if (!tname(p, w, 128)) {
            goto done;
        }
        for (int j = 0; j < n; j++) {
            if (strcasecmp(names[j], w) == 0) {
                tfail(p, at, RSQL_ERR_TYPE, "duplicate ROW field '%s'", w);
                goto done;
            }
        }
        names[n] = w;
        kids[n] = ttype(p, depth + 1);
        if (!kids[n]) {
            goto done;
        }
        n++;
        if (tpeek(p, ',')) {
            p->i++;
            continue;
        }
        if (!texpect(p, close)) {
            goto done;
        }
        break;
    }
    d = make_nested(RSQL_TYPE_ROW, n, names, kids);
    if (!d) {
        tfail(p, p->i, RSQL_ERR_NOMEM, "out of memory");
    }
done:
    rsql_free(store);
    rsql_free(names);
    rsql_free(kids);
    return d;
}

static const rsql_tdesc_t *ttype(tparse_t *p, int depth)
{
    char w[40];
    tblank(p);
    size_t at = p->i;
    if (depth > MAX_DEPTH) {
        return tfail(p, at, RSQL_ERR_TYPE, "types nest at most 32 deep");
    }
    size_t len = tword(p, w, sizeof w);
    if (len == 0) {
        return tfail(p, at, RSQL_ERR_TYPE, "expected a type");
    }
    if (len >= sizeof w) {
        w[sizeof w - 1] = 0;
        return tfail(p, at, RSQL_ERR_TYPE, "unknown type '%s'", w);
    }
    if (!strcasecmp(w, "DECIMAL") || !strcasecmp(w, "DEC") || !strcasecmp(w, "NUMERIC")) {
        return tdecimal(p);
    }
    if (!strcasecmp(w, "ROW")) {
        return trow(p, depth);
    }
    if (!strcasecmp(w, "ARRAY") || !strcasecmp(w, "MAP")) {
        bool map = w[0] == 'M' || w[0] == 'm';
        const rsql_tdesc_t *k = NULL, *v;
        if (!texpect(p, '<')) {
            return NULL;
        }
        if (map) {
            size_t kat = (tblank(p), p->i);
            if (!(k = ttype(p, depth + 1))) {
                return NULL;
            }
            if (k->type != RSQL_TYPE_VARCHAR) {
                return tfail(p, kat, RSQL_ERR_TYPE, "MAP keys must be VARCHAR, not %s", k->text);
            }
            if (!texpect(p, ',')) {
                return NULL;
            }
        }
        if (!(v = ttype(p, depth + 1)) || !texpect(p, '>')) {
            return NULL;
        }
        const rsql_tdesc_t *d = map ? rsql_tdesc_map(v) : rsql_tdesc_array(v);
        return d ? d : tfail(p, at, RSQL_ERR_NOMEM, "out of memory");
    }
    int t = rsql_type_from_name(w);
    if (t < 0) {
        return tfail(p, at, RSQL_ERR_TYPE, "unknown type '%s'", w);
    }
    if ((t == RSQL_TYPE_VARCHAR || t == RSQL_TYPE_TIMESTAMP) && tpeek(p, '(')) {
        p->i++;
        size_t nat = (tblank(p), p->i);
        int len_or_prec = tint(p);
        if (len_or_prec < 0) {
            return tfail(p, nat, RSQL_ERR_TYPE, "expected a number");
        }
        if (t == RSQL_TYPE_TIMESTAMP && len_or_prec != 3) {
            return tfail(p, nat, RSQL_ERR_TYPE,
                         "TIMESTAMP(%d) is not supported; use TIMESTAMP(3) (millisecond precision)",
                         len_or_prec);
        }
        if (!texpect(p, ')')) {
            return NULL;
        }
    }
    return rsql_tdesc_scalar((rsql_type_t)t);
}

rsql_err_t rsql_tdesc_parse(const char *s, size_t n, const rsql_tdesc_t **out, uint32_t *err_off,
                            rsql_error_t *err)
{
    tparse_t p = {s, n, 0, err_off, err, RSQL_OK};
    const rsql_tdesc_t *d = ttype(&p, 0);
    if (d) {
        tblank(&p);
        if (p.i != n) {
            d = tfail(&p, p.i, RSQL_ERR_TYPE, "unexpected '%c' after the type", s[p.i]);
        }
    }
    if (!d) {
        return p.rc ? p.rc : rsql_error_nomem(err);
    }
    *out = d;
    return RSQL_OK;
}

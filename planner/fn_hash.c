/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * fn_hash: MD5, SHA256, TO_BASE64, FROM_BASE64 and UUID, as in Flink.
 *
 *   MD5(s), SHA256(s)   the digest of s's bytes (VARCHAR or BYTES) as lower-case
 *                       hex VARCHAR; OpenSSL's libcrypto (EVP) computes it
 *   TO_BASE64(s)        base64 (RFC 4648, '=' padding) of s's bytes
 *   FROM_BASE64(s)      the text s decodes to; text that is not base64, or
 *                       bytes that are not UTF-8, is an error of the row
 *   UUID()              a random (version 4, RFC 4122) UUID from OpenSSL's
 *                       RAND_bytes, a new one per call
 * Base64 is base/rsql_value's, the one codec of the BYTES text form.
 */
#include "config.h"
#include "planner/fn_int.h"
#include "base/rsql_value.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

static rsql_err_t bind_bytes_like(rsql_bexpr_t *call, rsql_error_t *err)
{
    rsql_type_t t = call->args[0]->type;
    if (t != RSQL_TYPE_VARCHAR && t != RSQL_TYPE_BYTES && t != RSQL_TYPE_NULL) {
        return rsql_fn_arg_error(call, 0, "VARCHAR or BYTES", err);
    }
    call->type = RSQL_TYPE_VARCHAR;
    return RSQL_OK;
}

rsql_err_t rsql_fn_bind_md5(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                            rsql_error_t *err)
{
    (void)b;
    (void)ast;
    return bind_bytes_like(call, err);
}

rsql_err_t rsql_fn_bind_sha256(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                               rsql_error_t *err)
{
    return rsql_fn_bind_md5(b, call, ast, err);
}

rsql_err_t rsql_fn_bind_to_base64(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                  rsql_error_t *err)
{
    return rsql_fn_bind_md5(b, call, ast, err);
}

rsql_err_t rsql_fn_bind_from_base64(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                                    rsql_error_t *err)
{
    (void)b;
    (void)ast;
    rsql_err_t rc = rsql_fn_want_str(call, 0, 1, err);
    call->type = RSQL_TYPE_VARCHAR;
    return rc;
}

rsql_err_t rsql_fn_bind_uuid(rsql_bind_t *b, rsql_bexpr_t *call, const rsql_expr_t *ast,
                             rsql_error_t *err)
{
    (void)b;
    (void)ast;
    (void)err;
    call->type = RSQL_TYPE_VARCHAR;
    return RSQL_OK;
}

static const char hexd[] = "0123456789abcdef";

static rsql_err_t digest(const rsql_bexpr_t *call, const EVP_MD *md, const rsql_value_t *s,
                         rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    unsigned char d[EVP_MAX_MD_SIZE];
    unsigned int dn = 0;
    if (!EVP_Digest(s->v.s.p ? s->v.s.p : "", s->v.s.len, d, &dn, md, NULL)) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "%s failed in libcrypto",
                              call->func->name);
    }
    char *p;
    if (rsql_fn_out_str(ctx, (size_t)dn * 2, &p, err)) {
        return RSQL_ERR_NOMEM;
    }
    for (unsigned int i = 0; i < dn; i++) {
        p[2 * i] = hexd[d[i] >> 4];
        p[2 * i + 1] = hexd[d[i] & 15];
    }
    out->v.s.p = p;
    out->v.s.len = (size_t)dn * 2;
    return RSQL_OK;
}

rsql_err_t rsql_fn_eval_md5(const rsql_bexpr_t *call, const rsql_value_t *args,
                            rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    return digest(call, EVP_md5(), &args[0], ctx, out, err);
}

rsql_err_t rsql_fn_eval_sha256(const rsql_bexpr_t *call, const rsql_value_t *args,
                               rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    return digest(call, EVP_sha256(), &args[0], ctx, out, err);
}

rsql_err_t rsql_fn_eval_to_base64(const rsql_bexpr_t *call, const rsql_value_t *args,
                                  rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)call;
    rsql_buf_t b = RSQL_BUF_INIT;
    rsql_value_format_bytes((const uint8_t *)args[0].v.s.p, args[0].v.s.len, &b);
    rsql_err_t rc = rsql_fn_out_buf(ctx, &b, out, err);
    rsql_buf_deinit(&b);
    return rc;
}

rsql_err_t rsql_fn_eval_from_base64(const rsql_bexpr_t *call, const rsql_value_t *args,
                                    rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    rsql_arena_t *a = rsql_arena_new();
    if (!a) {
        return rsql_error_nomem(err);
    }
    const uint8_t *d = NULL;
    size_t dn = 0;
    rsql_err_t rc = rsql_value_parse_bytes(args[0].v.s.p, args[0].v.s.len, a, &d, &dn, NULL);
    char *p = NULL;
    if (rc == RSQL_ERR_NOMEM) {
        rsql_error_set(err, rc, RSQL_NOPOS, "out of memory");
    } else if (rc) {
        rc = rsql_error_set(err, RSQL_ERR_EVAL, call->args[0]->pos, "FROM_BASE64: not base64");
    } else if (!rsql_value_utf8_valid((const char *)d, dn)) {
        rc = rsql_error_set(err, RSQL_ERR_EVAL, call->args[0]->pos,
                            "FROM_BASE64: the decoded bytes are not UTF-8 text");
    } else if (!(rc = rsql_fn_out_str(ctx, dn, &p, err)) && dn) {
        memcpy(p, d, dn);
    }
    if (!rc) {
        out->v.s.p = p;
        out->v.s.len = dn;
    }
    rsql_arena_destroy(a);
    return rc;
}

rsql_err_t rsql_fn_eval_uuid(const rsql_bexpr_t *call, const rsql_value_t *args,
                             rsql_eval_ctx_t *ctx, rsql_value_t *out, rsql_error_t *err)
{
    (void)args;
    unsigned char r[16];
    if (RAND_bytes(r, (int)sizeof(r)) != 1) {
        return rsql_error_set(err, RSQL_ERR_EVAL, call->pos, "UUID: no random bytes");
    }
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40); /* version 4 */
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80); /* RFC 4122 variant */
    char *p;
    if (rsql_fn_out_str(ctx, 36, &p, err)) {
        return RSQL_ERR_NOMEM;
    }
    size_t o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            p[o++] = '-';
        }
        p[o++] = hexd[r[i] >> 4];
        p[o++] = hexd[r[i] & 15];
    }
    out->v.s.p = p;
    out->v.s.len = 36;
    return RSQL_OK;
}

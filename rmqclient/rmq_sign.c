/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_sign: the x-mq-date-time header value and the `authorization` header the proxy checks
 * when ACL is on: "MQv2-HMAC-SHA1 Credential=<AK>, SignedHeaders=x-mq-date-time,
 * Signature=<HEX>", the signature being HMAC-SHA1(secret key, date-time string) in hex
 * (OpenSSL HMAC).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "rmqclient/rmq_int.h"

/* See rmq_int.h. */
void rsql_rmq__datetime(time_t t, char out[17])
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 17, "%Y%m%dT%H%M%SZ", &tm);
}

/* See rmq_int.h. */
void rsql_rmq__hmac_sha1_hex(const char *key, const char *msg, char out[41], bool upper)
{
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    HMAC(EVP_sha1(), key, (int)strlen(key), (const unsigned char *)msg, strlen(msg), md,
         &md_len);
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    for (unsigned i = 0; i < md_len && i < 20; i++) {
        out[2 * i] = digits[md[i] >> 4];
        out[2 * i + 1] = digits[md[i] & 15];
    }
    out[40] = '\0';
}

/* See rmq_int.h. */
rsql_err_t rsql_rmq__sign(const char *access_key, const char *secret_key, const char *datetime,
                          char *out, size_t size, rsql_error_t *err)
{
    if (!access_key || !*access_key || !secret_key || !*secret_key) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "RocketMQ signing needs both an access key and a secret key");
    }
    char hex[41];
    rsql_rmq__hmac_sha1_hex(secret_key, datetime, hex, true);
    int n = snprintf(out, size,
                     "MQv2-HMAC-SHA1 Credential=%s, SignedHeaders=x-mq-date-time, Signature=%s",
                     access_key, hex);
    if (n < 0 || (size_t)n >= size) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "RocketMQ access key is too long");
    }
    return RSQL_OK;
}

/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_channel: the client's one gRPC channel: its target, its credentials, its arguments.
 *
 * Target: one endpoint is dialed as written ("host:port", gRPC's dns resolver). Several are
 * all used: gRPC's sockaddr resolver gets every address ("ipv4:a:p,b:q" or "ipv6:..."; names
 * are resolved once, here, with getaddrinfo) and the pick_first LB policy connects to the
 * first address that answers, in order; when that connection fails, the channel goes idle and
 * the next call connects again, to the first address that answers then. Every RPC, the route
 * refresh included, goes over that one connection. (docs/ROCKETMQ-NOTES.md, "Endpoints".)
 *
 * TLS (tls = true): grpc's SSL channel credentials, which always verify: the chain against
 * tls.ca-file (PEM), or gRPC's default roots (GRPC_DEFAULT_SSL_ROOTS_FILE_PATH, else the roots
 * gRPC was installed with, else the system's); the name against tls.server-name
 * (GRPC_SSL_TARGET_NAME_OVERRIDE_ARG) or else the first endpoint's host (DNS or IP SAN).
 * tls.cert-file + tls.key-file: a client certificate for mutual TLS. Files are read once, when
 * the client is made, and bounded.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include <grpc/grpc.h>
#include <grpc/grpc_security.h>

#include "base/rsql_buf.h"
#include "base/rsql_log.h"
#include "base/rsql_mem.h"
#include "rmqclient/rmq_client_int.h"

#define PEM_MAX (1024 * 1024)

/* The whole PEM file at path into *out (NUL-terminated), or an error naming option. */
static rsql_err_t read_pem(const char *option, const char *path, char **out, rsql_error_t *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "option '%s': cannot read '%.300s': %s", option, path,
                              strerror(errno));
    }
    char *buf = rsql_malloc(PEM_MAX + 1);
    size_t n = buf ? fread(buf, 1, PEM_MAX + 1, f) : 0;
    bool bad = buf && (ferror(f) || n > PEM_MAX || n == 0 || !strstr(buf, "-----BEGIN "));
    fclose(f);
    if (!buf) {
        return rsql_error_nomem(err);
    }
    buf[n > PEM_MAX ? PEM_MAX : n] = '\0';
    if (bad || !strstr(buf, "-----BEGIN ")) {
        memset(buf, 0, PEM_MAX + 1);
        rsql_free(buf);
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "option '%s': '%.300s' is not a PEM file (empty, unreadable, over "
                              "1 MiB, or without a '-----BEGIN' line)",
                              option, path);
    }
    *out = buf;
    return RSQL_OK;
}

/* Append the addresses of family *fam of ap to list; how many (0: why says why). */
static int add_addrs(const rmq_addr_t *ap, int *fam, rsql_buf_t *list, rsql_error_t *why)
{
    char host[256];
    size_t hl = strlen(ap->host);
    if (hl >= 2 && ap->host[0] == '[' && ap->host[hl - 1] == ']') {
        snprintf(host, sizeof host, "%.*s", (int)(hl - 2), ap->host + 1);
    } else {
        snprintf(host, sizeof host, "%s", ap->host);
    }
    char port[16];
    snprintf(port, sizeof port, "%d", (int)ap->port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof hints);
    hints.ai_family = *fam;
    hints.ai_socktype = SOCK_STREAM;
    int rc = getaddrinfo(host, port, &hints, &res);
    if (rc != 0) {
        rsql_error_set(why, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS, "cannot resolve '%s': %s", host,
                       gai_strerror(rc));
        return 0;
    }
    int added = 0;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        if (a->ai_family != *fam) {
            continue;
        }
        char ip[INET6_ADDRSTRLEN];
        const void *src = a->ai_family == AF_INET
                              ? (const void *)&((struct sockaddr_in *)a->ai_addr)->sin_addr
                              : (const void *)&((struct sockaddr_in6 *)a->ai_addr)->sin6_addr;
        if (!inet_ntop(a->ai_family, src, ip, sizeof ip)) {
            continue;
        }
        char item[INET6_ADDRSTRLEN + 24];
        snprintf(item, sizeof item, a->ai_family == AF_INET6 ? "[%s]:%d" : "%s:%d", ip,
                 (int)ap->port);
        if (strstr(rsql_buf_str(list), item)) {
            continue; /* the same address twice (a name and its IP) */
        }
        rsql_buf_printf(list, "%s%s", list->len ? "," : "", item);
        added++;
    }
    freeaddrinfo(res);
    if (!added) {
        rsql_error_set(why, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                       "'%s' has no %s address", host,
                       *fam == AF_INET6 ? "IPv6" : "IPv4");
    }
    return added;
}

/*
** The gRPC target of several endpoints: "ipv4:a:p,b:q", or "ipv6:[a]:p,..." when no endpoint
** has an IPv4 address (gRPC's sockaddr resolver takes one family).
*/
static rsql_err_t multi_target(rsql_rmq_client_t *c, rsql_error_t *err)
{
    static const int fams[2] = {AF_INET, AF_INET6};
    rsql_buf_t list = RSQL_BUF_INIT;
    int fam = AF_INET;
    for (int k = 0; k < 2 && list.len == 0 && !list.oom; k++) {
        fam = fams[k];
        for (size_t i = 0; i < c->n_ap; i++) {
            rsql_error_t why;
            rsql_error_clear(&why);
            add_addrs(&c->ap[i], &fam, &list, &why);
        }
    }
    /* one endpoint that cannot be resolved must not stop the others: it is only logged */
    for (size_t i = 0; i < c->n_ap && list.len > 0; i++) {
        rsql_buf_t probe = RSQL_BUF_INIT;
        rsql_error_t why;
        rsql_error_clear(&why);
        int f = fam;
        if (add_addrs(&c->ap[i], &f, &probe, &why) == 0) {
            rsql_log(RSQL_LOG_WARN, "rocketmq", "endpoint %s:%d is not used: %s", c->ap[i].host,
                     (int)c->ap[i].port, why.msg);
        }
        rsql_buf_deinit(&probe);
    }
    if (list.oom) {
        rsql_buf_deinit(&list);
        return rsql_error_nomem(err);
    }
    if (list.len == 0) {
        rsql_buf_deinit(&list);
        return rsql_error_set(err, RSQL_ERR_UNAVAILABLE, RSQL_NOPOS,
                              "RocketMQ endpoints '%s': none can be resolved", c->endpoints);
    }
    char *t = rsql_malloc(list.len + 6);
    if (t) {
        snprintf(t, list.len + 6, "%s:%s", fam == AF_INET6 ? "ipv6" : "ipv4", rsql_buf_str(&list));
    }
    rsql_buf_deinit(&list);
    c->chan_target = t;
    return t ? RSQL_OK : rsql_error_nomem(err);
}

/* See rmq_client_int.h. */
rsql_err_t rsql_rmq__channel_config(rsql_rmq_client_t *c, const rsql_rmq_config_t *conf,
                                    rsql_error_t *err)
{
    if (!conf->tls && (conf->tls_ca_file || conf->tls_server_name || conf->tls_cert_file ||
                       conf->tls_key_file)) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "RocketMQ tls.* options need tls = true");
    }
    if (!conf->tls_cert_file != !conf->tls_key_file) {
        return rsql_error_set(err, RSQL_ERR_BAD_OPTION, RSQL_NOPOS,
                              "RocketMQ tls.cert-file and tls.key-file go together");
    }
    rsql_err_t rc = RSQL_OK;
    if (conf->tls_ca_file) {
        rc = read_pem("tls.ca-file", conf->tls_ca_file, &c->tls_ca_pem, err);
    }
    if (rc == RSQL_OK && conf->tls_cert_file) {
        rc = read_pem("tls.cert-file", conf->tls_cert_file, &c->tls_cert_pem, err);
    }
    if (rc == RSQL_OK && conf->tls_key_file) {
        rc = read_pem("tls.key-file", conf->tls_key_file, &c->tls_key_pem, err);
    }
    if (rc == RSQL_OK && conf->tls_server_name && *conf->tls_server_name) {
        c->tls_server_name = rsql_strdup(conf->tls_server_name);
        rc = c->tls_server_name ? RSQL_OK : rsql_error_nomem(err);
    }
    if (rc == RSQL_OK) {
        if (c->n_ap > 1) {
            rc = multi_target(c, err);
        } else {
            c->chan_target = rsql_strdup(c->target);
            rc = c->chan_target ? RSQL_OK : rsql_error_nomem(err);
        }
    }
    return rc;
}

/* See rmq_client_int.h. */
void rsql_rmq__channel_free(rsql_rmq_client_t *c)
{
    rsql_free(c->chan_target);
    rsql_free(c->tls_server_name);
    rsql_free(c->tls_ca_pem);
    rsql_free(c->tls_cert_pem);
    if (c->tls_key_pem) {
        memset(c->tls_key_pem, 0, strlen(c->tls_key_pem));
        rsql_free(c->tls_key_pem);
    }
}

/* See rmq_client_int.h. */
grpc_channel *rsql_rmq__channel_create(rsql_rmq_client_t *c)
{
    grpc_arg args[9];
    size_t n = 0;
    args[n++] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_KEEPALIVE_TIME_MS,
                           {.integer = 300000}};
    args[n++] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_KEEPALIVE_TIMEOUT_MS,
                           {.integer = 30000}};
    /* bounded: a server cannot make the client buffer more than one message's worth */
    args[n++] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_RECEIVE_MESSAGE_LENGTH,
                           {.integer = rsql_rmq_recv_limit(c->max_body)}};
    args[n++] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS,
                           {.integer = 1000}};
    /* at most 5 s between reconnect attempts: a restarted proxy is found again quickly */
    args[n++] = (grpc_arg){GRPC_ARG_INTEGER, (char *)GRPC_ARG_MAX_RECONNECT_BACKOFF_MS,
                           {.integer = 5000}};
    args[n++] = (grpc_arg){GRPC_ARG_STRING, (char *)GRPC_ARG_LB_POLICY_NAME,
                           {.string = (char *)"pick_first"}};
    if (c->n_ap > 1) {
        /* the :authority (and the name TLS checks) of a list of addresses: the first endpoint */
        args[n++] = (grpc_arg){GRPC_ARG_STRING, (char *)GRPC_ARG_DEFAULT_AUTHORITY,
                               {.string = c->target}};
    }
    if (c->tls && c->tls_server_name) {
        args[n++] = (grpc_arg){GRPC_ARG_STRING, (char *)GRPC_SSL_TARGET_NAME_OVERRIDE_ARG,
                               {.string = c->tls_server_name}};
    }
    grpc_channel_args ca = {n, args};
    grpc_channel_credentials *creds;
    if (c->tls) {
        grpc_ssl_pem_key_cert_pair pair = {c->tls_key_pem, c->tls_cert_pem};
        creds = grpc_ssl_credentials_create(c->tls_ca_pem, c->tls_cert_pem ? &pair : NULL, NULL,
                                            NULL);
    } else {
        creds = grpc_insecure_credentials_create();
    }
    grpc_channel *ch = grpc_channel_create(c->chan_target, creds, &ca);
    grpc_channel_credentials_release(creds);
    return ch;
}

/*
 * SPDX-License-Identifier: Apache-2.0
 *
 * loopback.c: an LD_PRELOAD library that keeps the RocketMQ test servers on
 * loopback. scripts/rocketmq compiles it into its state dir and preloads it
 * into the name server, broker and proxy JVMs (never into anything else).
 *
 * Why: the 5.5.0 proxy binds its gRPC and remoting servers to every interface
 * (NettyServerBuilder.forPort, no bind-address option) and the broker's HA
 * service does the same (new InetSocketAddress(port)); no configuration can
 * change that. So:
 *   - bind() to the wildcard address (0.0.0.0, ::) binds to the loopback
 *     address instead (RSQL_LOOPBACK_ADDR, default 127.0.0.1);
 *   - connect(), sendto() and sendmsg() to an address outside 127.0.0.0/8
 *     (or ::1, ::ffff:127.0.0.0/104) fail with ENETUNREACH, and each refusal
 *     is appended as one line to the file named by RSQL_LOOPBACK_LOG, so a
 *     test can show that nothing tried to leave loopback.
 * Other families (AF_UNIX, netlink) pass through untouched. Calls glibc makes
 * internally (its own DNS resolver) are not seen; the servers get their peers
 * as literal 127.0.0.1 addresses and need no resolver.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef int (*bind_fn)(int, const struct sockaddr *, socklen_t);
typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);
typedef ssize_t (*sendto_fn)(int, const void *, size_t, int, const struct sockaddr *, socklen_t);
typedef ssize_t (*sendmsg_fn)(int, const struct msghdr *, int);

static int loopback_v4(const struct in_addr *a)
{
    return (ntohl(a->s_addr) >> 24) == 127;
}

static int loopback_v6(const struct in6_addr *a)
{
    if (IN6_IS_ADDR_LOOPBACK(a)) {
        return 1;
    }
    return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
}

/* 1 when ADDR may be dialled: loopback, or a family we do not police. */
static int allowed(const struct sockaddr *addr, socklen_t len)
{
    if (addr == NULL) {
        return 1;
    }
    if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        return loopback_v4(&((const struct sockaddr_in *)addr)->sin_addr);
    }
    if (addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        return loopback_v6(&((const struct sockaddr_in6 *)addr)->sin6_addr);
    }
    if (addr->sa_family == AF_UNSPEC) {
        return 1; /* connect(AF_UNSPEC) dissolves a UDP association */
    }
    return addr->sa_family != AF_INET && addr->sa_family != AF_INET6;
}

/* Record one refused destination (best effort, one write per line). */
static void refuse(const char *what, const struct sockaddr *addr, socklen_t len)
{
    const char *path = getenv("RSQL_LOOPBACK_LOG");
    char host[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    char line[160];
    int n, fd, saved = errno;

    if (addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
        port = ntohs(in->sin_port);
    } else if (addr->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
        port = ntohs(in6->sin6_port);
    }
    if (path != NULL && path[0] != '\0') {
        n = snprintf(line, sizeof(line), "pid %ld refused %s to %s port %u\n", (long)getpid(),
                     what, host, port);
        fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        if (fd >= 0) {
            if (n > 0 && write(fd, line, (size_t)n) < 0) {
                /* nothing more to do: the refusal itself still stands */
            }
            close(fd);
        }
    }
    errno = saved;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
    static bind_fn real;
    const char *want = getenv("RSQL_LOOPBACK_ADDR");

    if (real == NULL) {
        real = (bind_fn)dlsym(RTLD_NEXT, "bind");
    }
    if (want == NULL || want[0] == '\0') {
        want = "127.0.0.1";
    }
    if (addr != NULL && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
        if (in->sin_addr.s_addr == htonl(INADDR_ANY)) {
            struct sockaddr_in lo = *in;
            if (inet_pton(AF_INET, want, &lo.sin_addr) != 1) {
                lo.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            }
            return real(fd, (const struct sockaddr *)&lo, sizeof(lo));
        }
    } else if (addr != NULL && addr->sa_family == AF_INET6 &&
               len >= (socklen_t)sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)addr;
        if (IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr)) {
            /* a dual-stack socket: keep IPv4 clients working on the v4-mapped loopback */
            struct sockaddr_in6 lo = *in6;
            struct in_addr v4;
            if (inet_pton(AF_INET, want, &v4) != 1) {
                v4.s_addr = htonl(INADDR_LOOPBACK);
            }
            memset(&lo.sin6_addr, 0, sizeof(lo.sin6_addr));
            lo.sin6_addr.s6_addr[10] = 0xff;
            lo.sin6_addr.s6_addr[11] = 0xff;
            memcpy(&lo.sin6_addr.s6_addr[12], &v4, 4);
            return real(fd, (const struct sockaddr *)&lo, sizeof(lo));
        }
    }
    return real(fd, addr, len);
}

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
    static connect_fn real;

    if (real == NULL) {
        real = (connect_fn)dlsym(RTLD_NEXT, "connect");
    }
    if (!allowed(addr, len)) {
        refuse("connect", addr, len);
        errno = ENETUNREACH;
        return -1;
    }
    return real(fd, addr, len);
}

ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *addr,
               socklen_t len)
{
    static sendto_fn real;

    if (real == NULL) {
        real = (sendto_fn)dlsym(RTLD_NEXT, "sendto");
    }
    if (!allowed(addr, len)) {
        refuse("sendto", addr, len);
        errno = ENETUNREACH;
        return -1;
    }
    return real(fd, buf, n, flags, addr, len);
}

ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
    static sendmsg_fn real;

    if (real == NULL) {
        real = (sendmsg_fn)dlsym(RTLD_NEXT, "sendmsg");
    }
    if (msg != NULL && !allowed((const struct sockaddr *)msg->msg_name, msg->msg_namelen)) {
        refuse("sendmsg", (const struct sockaddr *)msg->msg_name, msg->msg_namelen);
        errno = ENETUNREACH;
        return -1;
    }
    return real(fd, msg, flags);
}

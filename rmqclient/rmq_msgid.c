/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * rmq_msgid: identifiers the client makes up: v1 message ids as the official clients generate
 * them ("01" + MAC + pid + seconds since 2021-01-01 + sequence, 34 uppercase hex chars), request
 * ids (random UUIDs) and the client id "hostname@pid@index@nanotime-base36".
 */
#include "config.h"

#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/rand.h>

#include "rmqclient/rmq_int.h"
#include "base/rsql_time.h"

#define RMQ_EPOCH_2021 1609459200 /* 2021-01-01T00:00:00Z */

static const char hexdig[] = "0123456789ABCDEF";

static void put_hex(char *out, const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hexdig[p[i] >> 4];
        out[2 * i + 1] = hexdig[p[i] & 15];
    }
}

/* See rmq_int.h. */
void rsql_rmq__msgid_format(const uint8_t mac[6], uint32_t pid, uint32_t secs, uint32_t seq,
                            char out[35])
{
    uint8_t b[16];
    b[0] = 0x01;
    memcpy(b + 1, mac, 6);
    b[7] = (uint8_t)(pid >> 8);
    b[8] = (uint8_t)pid;
    b[9] = (uint8_t)(secs >> 24);
    b[10] = (uint8_t)(secs >> 16);
    b[11] = (uint8_t)(secs >> 8);
    b[12] = (uint8_t)secs;
    b[13] = (uint8_t)(seq >> 24);
    b[14] = (uint8_t)(seq >> 16);
    b[15] = (uint8_t)(seq >> 8);
    uint8_t last = (uint8_t)seq;
    put_hex(out, b, 16);
    put_hex(out + 32, &last, 1);
    out[34] = '\0';
}

/* See rmq_int.h. */
uint32_t rsql_rmq__msgid_secs(time_t t)
{
    return t > RMQ_EPOCH_2021 ? (uint32_t)(t - RMQ_EPOCH_2021) : 0;
}

static pthread_once_t mac_once = PTHREAD_ONCE_INIT;
static uint8_t proc_mac[6];
static atomic_uint msg_seq;

/* The first non-zero MAC of /sys/class/net, else random bytes. */
static void mac_init(void)
{
    bool found = false;
    DIR *d = opendir("/sys/class/net");
    struct dirent *de;
    while (d && !found && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || strcmp(de->d_name, "lo") == 0) {
            continue;
        }
        char path[300];
        snprintf(path, sizeof(path), "/sys/class/net/%s/address", de->d_name);
        FILE *f = fopen(path, "r");
        unsigned v[6];
        if (f && fscanf(f, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6 &&
            (v[0] | v[1] | v[2] | v[3] | v[4] | v[5]) != 0) {
            for (int i = 0; i < 6; i++) {
                proc_mac[i] = (uint8_t)v[i];
            }
            found = true;
        }
        if (f) {
            fclose(f);
        }
    }
    if (d) {
        closedir(d);
    }
    if (!found && RAND_bytes(proc_mac, 6) != 1) {
        memset(proc_mac, 0x5a, 6);
    }
    uint32_t start = 0;
    if (RAND_bytes((unsigned char *)&start, sizeof(start)) == 1) {
        atomic_store(&msg_seq, start & 0xffffu);
    }
}

/* See rmq_int.h. */
void rsql_rmq__msgid_new(char out[35])
{
    pthread_once(&mac_once, mac_init);
    uint32_t seq = atomic_fetch_add(&msg_seq, 1u);
    uint32_t secs = rsql_rmq__msgid_secs((time_t)(rsql_wall_ms() / 1000));
    rsql_rmq__msgid_format(proc_mac, (uint32_t)getpid(), secs, seq, out);
}

/* See rmq_int.h. */
void rsql_rmq__uuid(char out[37])
{
    uint8_t b[16];
    if (RAND_bytes(b, sizeof(b)) != 1) {
        uint64_t ns = (uint64_t)(rsql_wall_ns() % 1000000000);
        for (int i = 0; i < 16; i++) {
            b[i] = (uint8_t)(ns >> (i % 8 * 4)) ^ (uint8_t)(i * 37);
        }
    }
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    static const char lo[] = "0123456789abcdef";
    int o = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10) {
            out[o++] = '-';
        }
        out[o++] = lo[b[i] >> 4];
        out[o++] = lo[b[i] & 15];
    }
    out[o] = '\0';
}

static atomic_uint client_index;

/* See rmq_int.h. */
void rsql_rmq__client_id(char *out, size_t size)
{
    char host[256] = "localhost";
    if (gethostname(host, sizeof(host) - 1) != 0) {
        strcpy(host, "localhost");
    }
    host[sizeof(host) - 1] = '\0';
    uint64_t nanos = (uint64_t)rsql_now_ns();
    char b36[16];
    int n = 0;
    do {
        b36[n++] = "0123456789abcdefghijklmnopqrstuvwxyz"[nanos % 36];
        nanos /= 36;
    } while (nanos && n < 15);
    char rev[16];
    for (int i = 0; i < n; i++) {
        rev[i] = b36[n - 1 - i];
    }
    rev[n] = '\0';
    snprintf(out, size, "%s@%d@%u@%s", host, (int)getpid(), atomic_fetch_add(&client_index, 1u),
             rev);
}

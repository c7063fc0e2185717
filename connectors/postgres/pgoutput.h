/* SPDX-License-Identifier: Apache-2.0
 * Copyright 2026 The rocketsql authors
 *
 * pgoutput: PostgreSQL's logical replication stream, decoded without a server. Two layers:
 *
 *   - the CopyBoth framing of a replication connection: a server's XLogData ('w': the start
 *     and end LSNs, the send time, then one pgoutput message) and Primary keepalive ('k': the
 *     server's end of WAL, the time, whether a reply is wanted), and the client's Standby
 *     Status Update ('r': written, flushed and applied LSNs, the time, reply wanted);
 *   - the pgoutput messages of proto_version 1 (Begin, Commit, Origin, Relation, Type,
 *     Insert, Update, Delete, Truncate, and the logical decoding Message), decoded one at a
 *     time by a decoder that keeps the relations by OID, into an event whose rows carry
 *     their kinds: an Insert is +I; an Update -U (only when the server sent the old tuple:
 *     REPLICA IDENTITY FULL, or a changed key) then +U; a Delete -D, from the key or the old
 *     tuple.
 *
 * Values stay as the server's bytes (text, or binary when asked for) until
 * rsql_pgoutput_value turns one into a rocketsql value by the column's type OID. An unchanged
 * TOASTed value ('u': the server does not send it) is flagged on its row: with the old
 * tuple at hand (FULL) the decoder puts the old value in its place; otherwise the caller
 * keeps the sink's value or refuses the row.
 *
 * Nothing here trusts its input: every length is checked against the bytes there are, and a
 * bad message is RSQL_ERR_DECODE naming the byte offset in the message and what was
 * expected ("pgoutput: Update for unknown relation 16403 at byte 1"). Integers are big-endian
 * on the wire; times are microseconds since 2000-01-01 00:00:00 UTC (PostgreSQL's epoch).
 */
#ifndef RSQL_PGOUTPUT_H
#define RSQL_PGOUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/rsql_error.h"
#include "base/rsql_mem.h"
#include "base/rsql_types.h"

/* A WAL position (XLogRecPtr); printed as two hexadecimal halves, "16/B374D848". */
typedef uint64_t rsql_lsn_t;

/* Room for the text of any LSN, NUL included. */
#define RSQL_LSN_TEXT_MAX 20

/* "X/Y" (1 to 8 hex digits each, any case) into *out; false when s is not one. */
bool rsql_pgoutput_lsn_parse(const char *s, size_t n, rsql_lsn_t *out);
/* The text of lsn ("0/16B3748", upper-case hex) into buf; returns its length. */
size_t rsql_pgoutput_lsn_format(rsql_lsn_t lsn, char buf[RSQL_LSN_TEXT_MAX]);
/* A PostgreSQL time (microseconds since 2000-01-01 UTC) as milliseconds since 1970 (floor). */
int64_t rsql_pgoutput_time_ms(int64_t pg_us);

/* ---- CopyBoth framing (the payload of one CopyData message) */

typedef struct rsql_pgoutput_copy {
    char kind;            /* 'w' XLogData, 'k' Primary keepalive */
    rsql_lsn_t start_lsn; /* 'w': where the WAL data of this message starts */
    rsql_lsn_t end_lsn;   /* 'w' and 'k': the server's current end of WAL */
    int64_t time_us;      /* the server's clock at sending (PostgreSQL epoch) */
    bool reply_requested; /* 'k': answer now with a Standby Status Update */
    const uint8_t *data;  /* 'w': the pgoutput message (borrowed from the payload) */
    size_t len;
} rsql_pgoutput_copy_t;

/*
** Parse one CopyData payload p (n bytes) from the server into *out. RSQL_ERR_DECODE for a
** short message or a kind other than 'w' and 'k'.
*/
rsql_err_t rsql_pgoutput_copy_parse(const uint8_t *p, size_t n, rsql_pgoutput_copy_t *out,
                                    rsql_error_t *err);

/* The size of a Standby Status Update. */
#define RSQL_PGOUTPUT_STATUS_LEN 34

/*
** A Standby Status Update into out: the last WAL byte + 1 written, flushed and applied by
** the client, its clock now_us (PostgreSQL epoch), and whether the server should reply at
** once. Returns RSQL_PGOUTPUT_STATUS_LEN.
*/
size_t rsql_pgoutput_status_update(uint8_t out[RSQL_PGOUTPUT_STATUS_LEN], rsql_lsn_t written,
                                   rsql_lsn_t flushed, rsql_lsn_t applied, int64_t now_us,
                                   bool reply);

/* ---- relations */

/* Column flags of a Relation message. */
#define RSQL_PGOUTPUT_COL_KEY 1 /* part of the replica identity (the key) */

typedef struct rsql_pgoutput_col {
    char *name;
    uint8_t flags;
    uint32_t type_oid;
    int32_t typmod; /* -1: none */
} rsql_pgoutput_col_t;

typedef struct rsql_pgoutput_rel {
    uint32_t oid;
    char *nspname; /* "" for pg_catalog */
    char *relname;
    char replident; /* 'd' default (the primary key), 'n' nothing, 'f' full, 'i' an index */
    uint16_t n_cols;
    rsql_pgoutput_col_t *cols;
} rsql_pgoutput_rel_t;

/* ---- values */

typedef struct rsql_pgoutput_datum {
    char kind;           /* 'n' NULL, 'u' unchanged TOASTed (not sent), 't' text, 'b' binary */
    const uint8_t *data; /* 't', 'b': len bytes, borrowed from the message */
    uint32_t len;
} rsql_pgoutput_datum_t;

/*
** The rocketsql type of values of a PostgreSQL type: bool BOOLEAN; int2, int4 INT; int8
** BIGINT; float4, float8 DOUBLE; numeric DECIMAL; date DATE; timestamp, timestamptz
** TIMESTAMP; bytea BYTES; text, varchar, bpchar, name, uuid, json, jsonb and every other
** type VARCHAR (its text).
*/
rsql_type_t rsql_pgoutput_type(uint32_t type_oid);

/*
** The value of column col in d as rsql_pgoutput_type(col->type_oid) into *out (zeroed
** first): 'n' is NULL; text reads as PostgreSQL writes it with DateStyle ISO (bool t/f,
** numeric at its own scale up to DECIMAL(38, s), bytea's hex \x..., timestamptz with its
** zone, converted to UTC). VARCHAR and BYTES are copied into arena. Errors
** (RSQL_ERR_DECODE) name the column and its type: an unchanged TOASTed value, a binary
** value of a type other than bytea, a text that does not read.
*/
rsql_err_t rsql_pgoutput_value(const rsql_pgoutput_col_t *col, const rsql_pgoutput_datum_t *d,
                               rsql_arena_t *arena, rsql_value_t *out, rsql_error_t *err);

/*
** The DECIMAL of numeric's text txt (n bytes), exact, at the text's own scale (up to
** DECIMAL(38, s)); the errors of rsql_value_parse_decimal. Shared by the postgres source.
*/
rsql_err_t rsql_pg__decimal_text(const char *txt, size_t n, rsql_value_t *out, rsql_error_t *err);

/* ---- messages */

/* One row of an Insert, Update or Delete. */
typedef struct rsql_pgoutput_row {
    rsql_rowkind_t kind;
    bool key_only; /* an old key ('K'): the columns outside the key are NULL, not known */
    uint16_t n_unchanged;         /* datums of kind 'u' left in it */
    uint16_t n_filled;            /* +U after 'O': 'u' datums given the old tuple's value */
    const rsql_pgoutput_datum_t *cols; /* rel->n_cols of them */
} rsql_pgoutput_row_t;

typedef struct rsql_pgoutput_event {
    char type; /* the message's first byte: 'B' 'C' 'O' 'R' 'Y' 'I' 'U' 'D' 'T' 'M' */
    /* Begin: final_lsn, time_us (commit time), xid. Commit: lsn (of the commit),
       end_lsn, time_us, flags. Origin: lsn, name. Message: flags (1: transactional), lsn,
       name (the prefix), data/len (the content). */
    rsql_lsn_t lsn, final_lsn, end_lsn;
    int64_t time_us;
    uint32_t xid;
    uint8_t flags;
    const char *name;    /* borrowed from the message */
    const uint8_t *data; /* Message's content */
    uint32_t len;
    /* Relation: rel (now in the cache) and changed (an earlier definition of the same
       OID differs: its names, replica identity, or columns with their key flags, types or
       type modifiers; the server sends a relation again unchanged, e.g. on every new
       connection). Insert, Update, Delete: rel and its rows. */
    const rsql_pgoutput_rel_t *rel;
    bool changed;
    int n_rows;
    rsql_pgoutput_row_t rows[2];
    char old_tag; /* Update, Delete: 'K' (key), 'O' (old tuple) or 0 (none sent) */
    /* Type: type_oid, nspname (borrowed), name. */
    uint32_t type_oid;
    const char *nspname;
    /* Truncate: n_relids OIDs (options: 1 CASCADE, 2 RESTART IDENTITY in flags). */
    uint32_t n_relids;
    const uint32_t *relids;
} rsql_pgoutput_event_t;

typedef struct rsql_pgoutput rsql_pgoutput_t;

/* A decoder with an empty relation cache; NULL when out of memory. */
rsql_pgoutput_t *rsql_pgoutput_new(void);
void rsql_pgoutput_destroy(rsql_pgoutput_t *d);

/*
** Decode one pgoutput message msg (n bytes: the data of an XLogData, or one row of
** pg_logical_slot_peek_binary_changes) into *ev. A Relation message enters the cache
** (replacing the one of the same OID). What ev points at is borrowed from msg and from
** the decoder, valid until the next call and while msg is. Errors: RSQL_ERR_DECODE (the
** decoder is unchanged by the failed message), RSQL_ERR_NOMEM.
*/
rsql_err_t rsql_pgoutput_decode(rsql_pgoutput_t *d, const uint8_t *msg, size_t n,
                                rsql_pgoutput_event_t *ev, rsql_error_t *err);

/* The cached relation of oid, NULL when none came. Valid until its next Relation message. */
const rsql_pgoutput_rel_t *rsql_pgoutput_relation(const rsql_pgoutput_t *d, uint32_t oid);

#endif

# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# tests/e2e/pg_lib.sh: the PostgreSQL preamble of the e2e tests that use the real server of
# scripts/postgres, sourced after lib.sh. Sets PGS (scripts/postgres), RSQL_BUILD_DIR (the
# build tree whose server is used: $RSQL_PG_BUILD_DIR, else $RSQL_BUILDDIR) and PGOPTIONS
# (no NOTICEs), and defines:
#   pg_connect       fails unless the server runs and answers (the tests fail, never skip,
#                    when it cannot be reached); sets URL
#   psql_q SQL       runs SQL in the server's `rocketsql` database, unaligned tuples only
#   pg_create_db DB  (re)creates database DB, empty; pg_drop_db DB drops it
#   pg_db_url DB     the URL of database DB on the same server
#   psql_db DB SQL   psql_q in database DB
#   pg_drop_cdc SCHEMA SLOT [PUB]  drops what a change-data-capture test made, quietly: the
#                    slot SLOT when no walsender holds it, the publication PUB (default
#                    rsql_SLOT, the postgres-cdc source's) and the schema SCHEMA with its tables
# The server's port is scripts/postgres's: $RSQL_PG_PORT (and $RSQL_PG_TLS for the TLS one).
PGS="$RSQL_SRCDIR/scripts/postgres"
export RSQL_BUILD_DIR=${RSQL_PG_BUILD_DIR:-$RSQL_BUILDDIR}
export PGOPTIONS="-c client_min_messages=warning"
PG_BIN=${RSQL_PG_BIN:-/usr/lib/postgresql/15/bin}

psql_q() { "$PGS" psql -tA -c "$1"; }

pg_connect() {
    "$PGS" status >/dev/null || fail "PostgreSQL is not running (scripts/postgres start)"
    URL=$("$PGS" url)
    psql_q "SELECT 1" >/dev/null || fail "psql cannot reach $URL"
}

# the URL of database $1 (the url's path is the database, before any ?query)
pg_db_url() {
    local u q=""
    u=$("$PGS" url)
    case $u in *\?*) q="?${u#*\?}"; u=${u%%\?*} ;; esac
    echo "${u%/*}/$1$q"
}

psql_db() { "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -tA "$(pg_db_url "$1")" -c "$2"; }

pg_drop_cdc() {
    psql_q "SELECT pg_drop_replication_slot('$2') FROM pg_replication_slots
            WHERE slot_name = '$2' AND NOT active" >/dev/null 2>&1 || true
    psql_q "DROP PUBLICATION IF EXISTS ${3:-rsql_$2}; DROP SCHEMA IF EXISTS $1 CASCADE" \
        >/dev/null 2>&1 || true
}

pg_drop_db() { psql_q "DROP DATABASE IF EXISTS $1 WITH (FORCE)" >/dev/null; }

pg_create_db() {
    pg_drop_db "$1"
    psql_q "CREATE DATABASE $1" >/dev/null || fail "cannot create database $1"
}

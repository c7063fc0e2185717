#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# serve_proxy_restart.sh (manual, not in CI: about 2 minutes): ONE `rocketsql serve` process
# with two RocketMQ jobs (to_sqlite: topic -> sqlite; relay: topic -> topic) survives a restart
# of the RocketMQ proxy alone (`scripts/rocketmq restart-proxy`) in the middle of their run with
# no message lost: the case where several clients in one process must each send their Settings
# again (docs/ROCKETMQ-NOTES.md, "Settings after a proxy restart").
# Phase A: N1 messages before serve starts; the proxy is restarted once sqlite has its first
# rows while both jobs still consume; phase B: N2 more, produced after the proxy is back.
# Verification: sqlite holds every id; the Java consumer sees every id on the relay's target;
# no ReceiveMessage answered `"settings" is null` after the jobs caught up.
# Run: export RSQL_RMQ_*_PORT=...; tests/rocketmq/manual/serve_proxy_restart.sh
# Environment: REPO, RMQ, INTEROP, RMQ_ENDPOINT as tests/rocketmq/run sets them (defaults from
# this tree), RSQL_BUILDDIR (the binary's build dir, default <repo>/build).
# Last line: "PASS serve_proxy_restart" or "FAIL serve_proxy_restart: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N1=${N1:-20000}
N2=${N2:-3000}
DOWN=${DOWN:-3} # seconds the proxy stays down (restart-proxy DOWN)
N=$((N1 + N2))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/serve_proxy_restart.XXXXXX")
SPID=""
cleanup() {
    [ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT
die() {
    echo "FAIL serve_proxy_restart: $*"
    [ -f "$WORK/serve.err" ] && grep -iE 'settings|warn|error' "$WORK/serve.err" | tail -15 | sed 's/^/    serve: /'
    exit 1
}
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
P="rsqlspr$(date +%s)$$"
CAT="$WORK/cat.db"
mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}in" normal
mk topic "${P}out" normal
mk group "${P}gs"
mk group "${P}gr"
mk group "${P}v"

produce() { # FIRST_ID COUNT NAME
    cat >"$WORK/$3.sql" <<SQL
CREATE TABLE gen (id BIGINT NOT NULL, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='datagen', 'number-of-rows'='$2', 'seed'='11', 'fields.id.kind'='sequence',
        'fields.id.start'='$1', 'fields.id.end'='$(($1 + $2 - 1))');
CREATE TABLE inp (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in', 'sink.keys-column'='id');
INSERT INTO inp SELECT * FROM gen;
SQL
    "$BIN" --catalog "$WORK/$3.db" -f "$WORK/$3.sql" >"$WORK/$3.out" 2>&1 &&
        grep -q "written=$2 " "$WORK/$3.out" ||
        { tail -3 "$WORK/$3.out"; die "producing $2 messages ($3)"; }
    ok "produced ids $1..$(($1 + $2 - 1))"
}
rows() { sqlite3 -cmd ".timeout 3000" "$WORK/out.db" "select count(distinct id) from out_s" 2>/dev/null || echo 0; }
written() { # JOB: its written count from /jobs
    curl -s --max-time 5 "http://127.0.0.1:$PORT/jobs" | python3 -c 'import json,sys
try: d=json.load(sys.stdin)
except ValueError: print(0); sys.exit()
print(next((j["counts"]["written"] for j in d["jobs"] if j["name"]==sys.argv[1]), 0))' "$1"
}
wait_for() { # SECONDS WHAT CMD...
    local end=$((SECONDS + $1)) what=$2
    shift 2
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || die "timed out waiting for: $what"
        kill -0 "$SPID" 2>/dev/null || die "serve exited while waiting for: $what"
        sleep 0.5
    done
}

produce 0 "$N1" phaseA
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
SRC="'connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in', 'source.invisible-duration'='20s'"
"$BIN" --catalog "$CAT" -e "
CREATE TABLE src_s (id BIGINT, customer VARCHAR, amount DOUBLE) WITH ($SRC, 'source.consumer-group'='${P}gs');
CREATE TABLE src_r (id BIGINT, customer VARCHAR, amount DOUBLE) WITH ($SRC, 'source.consumer-group'='${P}gr');
CREATE TABLE out_s (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='sqlite', 'path'='$WORK/out.db', 'table'='out_s');
CREATE TABLE out_r (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}out', 'sink.keys-column'='id',
        'sink.max-attempts'='30');
CREATE JOB relay AS INSERT INTO out_r SELECT id, customer, amount FROM src_r;
CREATE JOB to_sqlite AS INSERT INTO out_s SELECT id, customer, amount FROM src_s" \
    >"$WORK/setup.out" 2>&1 || { cat "$WORK/setup.out"; die "catalog setup"; }
"$BIN" --catalog "$CAT" --log-level info serve --http "127.0.0.1:$PORT" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SPID=$!
some_rows() { [ "$(rows)" -gt 0 ] 2>/dev/null; }
wait_for 60 "first rows in sqlite" some_rows
at=$(rows)
[ "$at" -lt "$N1" ] || die "sqlite had all of phase A before the restart (make N1 larger)"
t0=$(date +%s)
"$RMQ" restart-proxy "$DOWN" >"$WORK/restart.out" 2>&1 || { tail -5 "$WORK/restart.out"; die "restart-proxy failed"; }
ok "proxy restarted ($(( $(date +%s) - t0 )) s without it) when sqlite had $at of $N1 phase-A rows, relay $(written relay)"
produce "$N1" "$N2" phaseB
all_rows() { [ "$(rows)" = "$N" ]; }
wait_for 180 "every id in sqlite" all_rows
relayed() { [ "$(written relay)" -ge "$N" ] 2>/dev/null; }
wait_for 180 "every message relayed" relayed
ok "to_sqlite: sqlite holds all $N ids; relay wrote $(written relay)"
"$INTEROP" consume --endpoint "$EP" --topic "${P}out" --group "${P}v" --count $((N + 1)) \
    --timeout 10 >"$WORK/verify.out" 2>&1
line=$(grep '^received=' "$WORK/verify.out" | tail -1)
distinct=$(sed -n 's/.* distinct=\([0-9]*\).*/\1/p' <<<"$line")
[ "$distinct" = "$N" ] || die "relay target: $line $(grep '^missing_ids=' "$WORK/verify.out")"
ok "the Java consumer sees all $N ids on the relay's target ($line)"
resent=$(grep -c 'sending them again' "$WORK/serve.err")
nulls=$(grep -c '"settings" is null' "$WORK/serve.err")
ok "client log: $resent Settings re-send(s) after the proxy lost them, $nulls '\"settings\" is null' line(s)"
kill -TERM "$SPID"
wait "$SPID"
rc=$?
SPID=""
[ "$rc" = 0 ] || die "SIGTERM: exit $rc"
echo "PASS serve_proxy_restart"

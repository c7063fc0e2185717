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
# mk, produce, rows, http, written, until_true
. "$REPO/tests/rocketmq/serve_lib.sh"
serve_names

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
until_true 60 "first rows in sqlite" some_rows
at=$(rows)
[ "$at" -lt "$N1" ] || die "sqlite had all of phase A before the restart (make N1 larger)"
t0=$(date +%s)
"$RMQ" restart-proxy "$DOWN" >"$WORK/restart.out" 2>&1 || { tail -5 "$WORK/restart.out"; die "restart-proxy failed"; }
ok "proxy restarted ($(( $(date +%s) - t0 )) s without it) when sqlite had $at of $N1 phase-A rows, relay $(written relay)"
produce "$N1" "$N2" phaseB
all_rows() { [ "$(rows)" = "$N" ]; }
until_true 180 "every id in sqlite" all_rows
relayed() { [ "$(written relay)" -ge "$N" ] 2>/dev/null; }
until_true 180 "every message relayed" relayed
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

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_adaptive_receive.sh: the RocketMQ source's adaptive receive against the real RocketMQ 5.5,
# watched through `rocketsql serve` (/jobs "receive", the rocketsql_source_long_polls gauge).
# One job drains topic ${P}in into a blackhole at the defaults (source.fetch-concurrency 16),
# with a 5 s long-poll await so empty polls come back soon.
#   idle:    one long poll in flight (long_polls 1, in flight 1), the gauge says 1;
#   backlog: N messages produced at once: the polls grow past 1 (never past 16) while they come
#            back full, and every message is read;
#   after:   with the backlog gone the polls come back empty and fall back to 1.
# Environment from tests/rocketmq/run: REPO, RMQ, RMQ_ENDPOINT.
# Last line: "PASS t_adaptive_receive" or "FAIL t_adaptive_receive: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=30000
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_adaptive.XXXXXX")
SPID=""
cleanup() {
    [ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() {
    echo "FAIL t_adaptive_receive: $*"
    [ -n "$SPID" ] && curl -s --max-time 5 "http://127.0.0.1:$PORT/jobs" | sed 's/^/    jobs: /'
    [ -f "$WORK/serve.err" ] && tail -15 "$WORK/serve.err" | sed 's/^/    serve: /'
    exit 1
}
ok() { echo "ok: $* [${SECONDS}s]"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
command -v curl >/dev/null || die "curl is needed"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
P="rsqlad$(date +%s)$$"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
CAT="$WORK/cat.db"
# mk, produce, http, until_true
. "$REPO/tests/rocketmq/serve_lib.sh"

mk topic "${P}in" normal
mk group "${P}gs"
"$BIN" --catalog "$CAT" -e "
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE) WITH ('connector'='rocketmq-grpc',
  'endpoints'='$EP', 'topic'='${P}in', 'source.consumer-group'='${P}gs',
  'source.await-duration'='5s');
CREATE TABLE bh (id BIGINT) WITH ('connector'='blackhole');
CREATE JOB drain AS INSERT INTO bh SELECT id FROM src" >"$WORK/setup.out" 2>&1 ||
    { cat "$WORK/setup.out"; die "catalog setup"; }
"$BIN" --catalog "$CAT" serve --http "127.0.0.1:$PORT" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SPID=$!

# polls: "LONG_POLLS MAX IN_FLIGHT READ" of the job from /jobs ("" while it has none)
polls() {
    http /jobs
    python3 -c 'import json,sys
try: d=json.loads(sys.argv[1])
except ValueError: sys.exit()
for j in d["jobs"]:
    if j["name"]=="drain":
        r=j.get("receive") or {}
        if "long_polls" in r:
            print(r["long_polls"], r["max"], r["in_flight"], j["counts"]["read"])' "$BODY"
}
idle_one() { read -r LP MAX INF _ <<<"$(polls)"; [ "${LP:-}" = 1 ] && [ "${INF:-}" = 1 ]; }
until_true 60 "one long poll in flight while idle" idle_one
[ "$MAX" = 16 ] || die "long_polls_max $MAX, want 16 (the default source.fetch-concurrency)"
gauge() { curl -s --max-time 5 "http://127.0.0.1:$PORT/metrics" |
    awk '/^rocketsql_source_long_polls\{job="drain"\}/ {print $2}'; }
[ "$(gauge)" = 1 ] || die "rocketsql_source_long_polls is '$(gauge)' while idle, want 1"
ok "idle: one long poll in flight, of at most $MAX; the gauge says 1"

# the backlog: N messages at once (a batched producer is faster than one poll drains);
# /jobs is sampled until every message is read, keeping the most polls seen
produce 0 "$N" backlog
PEAK=1
read_all() {
    read -r LP _ _ RD <<<"$(polls)"
    [ "${LP:-0}" -gt "$PEAK" ] 2>/dev/null && PEAK=$LP
    [ "${RD:-0}" -ge "$N" ] 2>/dev/null
}
until_true 120 "all $N messages read" read_all
[ "$PEAK" -gt 1 ] || die "the long polls never grew past 1 under a backlog of $N messages"
[ "$PEAK" -le 16 ] || die "the long polls grew to $PEAK, past source.fetch-concurrency 16"
ok "backlog: all $N read; the long polls grew to $PEAK (at most 16)"

# after: the polls come back empty (5 s each) and halve back to one
until_true 90 "back to one long poll after the backlog" idle_one
ok "after the backlog: one long poll again"

kill -TERM "$SPID"
wait "$SPID" || die "serve exited with $? after SIGTERM"
SPID=""
echo "PASS t_adaptive_receive"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_proxy_restart.sh: rocketsql survives a restart of the RocketMQ proxy (only the proxy:
# `scripts/rocketmq restart-proxy`; namesrv and broker keep running) in the middle of two
# running jobs, and reconnects by itself (gRPC channel, Telemetry stream, settings):
#   job S: topic -> sqlite;   job R: topic -> topic relay (JSON, sink.max-attempts raised so
#   that sends retry through the outage);
# phase A: N1 messages before the jobs start; the proxy is restarted (down >= 3 s) once job S
# has written its first rows, while the jobs still consume; phase B: N2 more messages produced
# only after the proxy is back, which only a reconnected job can receive.
# Verification: sqlite holds every id 0..N1+N2-1; the Java consumer (tests/interop) sees every
# id on the relay's target. Duplicates (at-least-once) are allowed and reported.
# Environment from tests/rocketmq/run: REPO, RMQ, INTEROP, RMQ_ENDPOINT (the proxy restarted is
# the one of $RMQ, i.e. of the RSQL_BUILD_DIR / RSQL_RMQ_*_PORT instance); binary
# $RSQL_BUILDDIR/rocketsql (default <repo>/build).
# Last line: "PASS t_proxy_restart" or "FAIL t_proxy_restart: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N1=${T_PROXY_N1:-20000}
N2=${T_PROXY_N2:-5000}
N=$((N1 + N2))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_proxy_restart.XXXXXX")
JOBS=""
cleanup() {
    for p in $JOBS; do kill -KILL "$p" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_proxy_restart: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
command -v python3 >/dev/null || die "python3 is needed"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
P="rsqlpr$(date +%s)$$"

# mk and produce (datagen -> ${P}in, ids FIRST..FIRST+COUNT-1)
. "$REPO/tests/rocketmq/serve_lib.sh"
mk topic "${P}in" normal
mk topic "${P}out" normal
mk group "${P}gs"
mk group "${P}gr"
mk group "${P}v"

produce 0 "$N1" phaseA

# the idle timeout must outlast the outage plus the receive backoff (at most 30 s)
SRC="'connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in',
        'source.invisible-duration'='20s', 'scan.idle-timeout'='60s'"
cat >"$WORK/s.sql" <<EOF
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ($SRC, 'source.consumer-group'='${P}gs');
CREATE TABLE out_s (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='sqlite', 'path'='$WORK/out.db', 'table'='out_s');
INSERT INTO out_s SELECT id, customer, amount FROM src;
EOF
cat >"$WORK/r.sql" <<EOF
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ($SRC, 'source.consumer-group'='${P}gr');
CREATE TABLE out_r (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}out',
        'sink.keys-column'='id', 'sink.max-attempts'='30');
INSERT INTO out_r SELECT id, customer, amount FROM src;
EOF
"$BIN" --catalog "$WORK/cs.db" -f "$WORK/s.sql" >"$WORK/s.out" 2>&1 &
JS=$!
"$BIN" --catalog "$WORK/cr.db" -f "$WORK/r.sql" >"$WORK/r.out" 2>&1 &
JR=$!
JOBS="$JS $JR"

rows() { sqlite3 -cmd ".timeout 3000" "$WORK/out.db" "select count(*) from out_s" 2>/dev/null || echo 0; }
for _ in $(seq 1 120); do
    [ "$(rows)" -gt 0 ] 2>/dev/null && break
    kill -0 "$JS" 2>/dev/null || break
    sleep 0.5
done
at=$(rows)
[ "$at" -gt 0 ] 2>/dev/null || { tail -5 "$WORK/s.out"; die "job S wrote nothing within 60 s"; }
kill -0 "$JS" 2>/dev/null && kill -0 "$JR" 2>/dev/null || die "a job ended before the restart"

t0=$(date +%s)
"$RMQ" restart-proxy 3 >"$WORK/restart.out" 2>&1 || { tail -5 "$WORK/restart.out"; die "restart-proxy failed"; }
down=$(( $(date +%s) - t0 ))
ok "proxy restarted (${down}s without it) when sqlite had $at of $N1 phase-A rows"
kill -0 "$JS" 2>/dev/null || { tail -5 "$WORK/s.out"; die "job S ended during the proxy restart"; }
kill -0 "$JR" 2>/dev/null || { tail -5 "$WORK/r.out"; die "job R ended during the proxy restart"; }

produce "$N1" "$N2" phaseB

# both jobs end by their idle timeout once everything is through; bounded
t1=$(date +%s)
for j in S R; do
    pid=$JS
    [ "$j" = R ] && pid=$JR
    while kill -0 "$pid" 2>/dev/null && [ $(( $(date +%s) - t1 )) -lt 180 ]; do sleep 1; done
    kill -0 "$pid" 2>/dev/null && die "job $j did not end within 180 s after phase B"
    wait "$pid"
    rc=$?
    out="$WORK/$(tr 'SR' 'sr' <<<"$j").out"
    [ "$rc" = 0 ] || { tail -5 "$out"; die "job $j failed (exit $rc)"; }
    ok "job $j ended: $(grep -o 'read=.*' "$out" | tail -1)"
    grep -iE 'warn|retry' "$out" | head -3 | sed 's/^/    job '"$j"' said: /'
done
JOBS=""

if python3 - "$WORK/out.db" "$N" >"$WORK/check_s.out" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in db.execute("select id from out_s")]
n = int(sys.argv[2])
got = set(ids)
missing = sorted(set(range(n)) - got)
print("sqlite rows=%d distinct=%d missing=%d duplicates=%d unexpected=%d%s" % (
    len(ids), len(got), len(missing), len(ids) - len(got), len(got - set(range(n))),
    (" missing_ids=" + ",".join(map(str, missing[:10]))) if missing else ""))
sys.exit(0 if not missing and got == set(range(n)) else 1)
EOF
then ok "job S (topic -> sqlite): $(cat "$WORK/check_s.out")"
else die "job S lost messages: $(cat "$WORK/check_s.out")"; fi

# the relay's target: ask for N+1 distinct ids so that every duplicate is read (the consumer
# stops 15 s after the last new id); only id N (which never existed) may be missing
"$INTEROP" consume --endpoint "$EP" --topic "${P}out" --group "${P}v" --count $((N + 1)) \
    --timeout 15 >"$WORK/verify.out" 2>&1
line=$(grep '^received=' "$WORK/verify.out" | tail -1)
[ -n "$line" ] || { tail -5 "$WORK/verify.out"; die "the Java consumer printed no tally"; }
distinct=$(sed -n 's/.* distinct=\([0-9]*\).*/\1/p' <<<"$line")
missing_ids=$(grep '^missing_ids=' "$WORK/verify.out" | tail -1)
if [ "$distinct" != "$N" ] || [ "$missing_ids" != "missing_ids=$N" ]; then
    die "job R lost messages: target $line ($missing_ids)"
fi
ok "job R (topic -> topic), Java consumer on the target: $line"
echo "PASS t_proxy_restart"

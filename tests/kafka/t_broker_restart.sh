#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_broker_restart.sh: file -> kafka -> file through a real Kafka that is stopped and started
# again while both relays run; nothing missing. The same two relays as t_broker_restart (P
# follows in.jsonl into a 3-partition topic, R reads it into out.jsonl), both left running:
# the test appends 3 chunks of N/10 lines, waits until R has written part of them, appends 3
# more and at once restarts the broker (scripts/kafka restart: TERM, then start; it is down
# for seconds while those rows are on their way), appends the last 4 chunks, and once
# out.jsonl holds every id stops both with SIGTERM.
# Checks: neither relay exited while the broker was down; out.jsonl holds exactly the ids
# 0..N-1 (duplicates allowed); the group's committed offsets reach the partitions' ends while
# R runs (within T_RESTART_WAIT, 120 s) and are there after the stop.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary
# $RSQL_BUILDDIR/rocketsql (default <repo>/build). T_RESTART_N overrides N (a multiple of 10).
# Last line: "PASS t_broker_restart" or "FAIL t_broker_restart: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_RESTART_N:-60000}
CHUNK=$((N / 10))
WAIT=${T_RESTART_WAIT:-120} # seconds any one awaited event may take
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_restart.XXXXXX")
P_PID=""
R_PID=""
cleanup() {
    [ -z "$P_PID" ] || kill -KILL "$P_PID" 2>/dev/null
    [ -z "$R_PID" ] || kill -KILL "$R_PID" 2>/dev/null
    [ -n "${T_KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_broker_restart: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqlbr$(date +%s)$$"
G="${T}g"
"$KAFKA" topic "$T" 3 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $T"; }

# the input, in chunks: ids 0..N-1
seq 0 $((N - 1)) | awk '{printf "{\"id\":%d,\"customer\":\"c%d\",\"amount\":%d.5}\n", $1, $1 % 97, $1 % 500}' \
    | split -l "$CHUNK" -d -a 2 - "$WORK/chunk."
: >"$WORK/in.jsonl"

# positions saved to the catalog every 100 ms (the default is 1 s), so that a kill lands
# after some were: a restart then resumes from them rather than from the start
cat >"$WORK/p.sql" <<SQL
SET 'state.flush-interval' = '100ms';
CREATE TABLE IF NOT EXISTS src (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='filesystem', 'path'='$WORK/in.jsonl', 'scan.follow'='true',
        'scan.poll-interval'='50ms');
CREATE TABLE IF NOT EXISTS k (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$T',
        'key.format'='json', 'key.fields'='id');
INSERT INTO k SELECT * FROM src;
SQL
cat >"$WORK/r.sql" <<SQL
SET 'state.flush-interval' = '100ms';
CREATE TABLE IF NOT EXISTS k (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$T',
        'properties.group.id'='$G', 'scan.startup.mode'='earliest-offset');
CREATE TABLE IF NOT EXISTS dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='filesystem', 'path'='$WORK/out.jsonl');
INSERT INTO dst SELECT * FROM k;
SQL

start_p() { "$BIN" --catalog "$WORK/p.db" -f "$WORK/p.sql" >"$WORK/p$1.out" 2>&1 & P_PID=$!; }
start_r() { "$BIN" --catalog "$WORK/r.db" -f "$WORK/r.sql" >"$WORK/r$1.out" 2>&1 & R_PID=$!; }
append() { cat "$WORK/chunk.$(printf %02d "$1")" >>"$WORK/in.jsonl"; }
out_lines() { [ -f "$WORK/out.jsonl" ] && wc -l <"$WORK/out.jsonl" || echo 0; }
distinct_ids() { [ -f "$WORK/out.jsonl" ] && sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$WORK/out.jsonl" | sort -un | wc -l || echo 0; }
# wait until COMMAND succeeds, checking that PIDs stay alive; fail after $WAIT s
await() { # WHAT COMMAND...
    local what=$1 t0=$SECONDS
    shift
    until "$@"; do
        for pid in $P_PID $R_PID; do
            kill -0 "$pid" 2>/dev/null || { tail -3 "$WORK"/p*.out "$WORK"/r*.out; die "a relay exited while waiting for $what"; }
        done
        [ $((SECONDS - t0)) -lt "$WAIT" ] || die "no $what within $WAIT s (out.jsonl: $(out_lines) lines)"
        sleep 0.05
    done
}
t0=$SECONDS
start_p 1
start_r 1
for c in 0 1 2; do append "$c"; done
at_least() { [ "$(out_lines)" -ge "$1" ]; }
await "rows of the first chunks in out.jsonl" at_least $((2 * CHUNK + 1))
# three more chunks on their way through both relays as the broker stops
for c in 3 4 5; do append "$c"; done
"$KAFKA" restart >"$WORK/restart.log" 2>&1 || { cat "$WORK/restart.log"; die "restarting the broker"; }
ok "broker restarted ($(grep -o 'up in .*' "$WORK/restart.log")) with out.jsonl at $(out_lines) lines"
for pid in $P_PID $R_PID; do
    kill -0 "$pid" 2>/dev/null || { tail -3 "$WORK"/p*.out "$WORK"/r*.out; die "a relay exited while the broker was down"; }
done
for c in 6 7 8 9; do append "$c"; done
all_ids() { [ "$(distinct_ids)" -ge "$N" ]; }
await "every id in out.jsonl" all_ids
ok "every id through after $((SECONDS - t0)) s"
# the group catches up while R runs: its commits are asynchronous, and after the restart the
# broker first has to load the group's coordinator again
lag_zero() {
    "$KAFKA" groups "$G" >"$WORK/group.out" 2>&1 &&
        [ "$(awk -v t="$T" '$2 == t { s += $6; n++ } END { print n + 0, s + 0 }' "$WORK/group.out")" = "3 0" ]
}
t1=$SECONDS
await "group $G at the partitions' ends" lag_zero
ok "group $G at the partitions' ends $((SECONDS - t1)) s after the last id came through"
for name in P R; do
    pid_var=${name}_PID
    kill -TERM "${!pid_var}"
    wait "${!pid_var}"
    rc=$?
    eval "${name}_PID="
    [ "$rc" = 143 ] || { tail -5 "$WORK"/*.out; die "$name: exit $rc after SIGTERM (expected 143)"; }
done
lines=$(out_lines)
want=$(seq 0 $((N - 1)) | md5sum)
got=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$WORK/out.jsonl" | sort -un | md5sum)
[ "$want" = "$got" ] || die "out.jsonl does not hold exactly the ids 0..$((N - 1))"
ok "out.jsonl: every id 0..$((N - 1)), $lines lines, duplicates=$((lines - N)) (at-least-once)"
"$KAFKA" groups "$G" >"$WORK/group.out" 2>&1 || { cat "$WORK/group.out"; die "describing group $G"; }
lag=$(awk -v t="$T" '$2 == t { s += $6; n++ } END { print n + 0, s + 0 }' "$WORK/group.out")
[ "$lag" = "3 0" ] || { cat "$WORK/group.out"; grep -h "warn\|error" "$WORK"/r*.out | sort | uniq -c | head; die "group $G after the stop: partitions and total lag '$lag' (want '3 0')"; }
ok "group $G: 3 partitions committed to their ends (lag 0) after the stop"
echo "PASS t_broker_restart"

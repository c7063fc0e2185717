#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_kill9_relay.sh: file -> kafka -> file through a real Kafka, each relay SIGKILLed once
# while it runs, nothing missing. Two rocketsql processes, each with its own catalog, run at
# once: P follows in.jsonl (scan.follow) into a 3-partition topic, keyed by id; R reads the
# topic (a consumer group) into out.jsonl. The test appends the input in 10 chunks of N/10
# JSON lines. After chunk 3 is appended and R has written at least one of its rows, R is
# SIGKILLed; after chunk 6, P is. Both start again on their catalogs (P resumes at its
# committed byte position, R at its committed offsets), the rest is appended, and once
# out.jsonl holds every id both are stopped with SIGTERM. Checks: each kill landed on a
# running process (exit 137); out.jsonl holds exactly the ids 0..N-1 (duplicates allowed:
# at-least-once; reported); the Java console consumer finds every id in the topic; the
# group's committed offsets are at the end of each partition after the graceful stop.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary
# $RSQL_BUILDDIR/rocketsql (default <repo>/build). T_KILL9_N overrides N (a multiple of 10).
# Last line: "PASS t_kill9_relay" or "FAIL t_kill9_relay: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_KILL9_N:-60000}
CHUNK=$((N / 10))
WAIT=${T_KILL9_WAIT:-120} # seconds any one awaited event may take
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_kill9.XXXXXX")
P_PID=""
R_PID=""
cleanup() {
    [ -z "$P_PID" ] || kill -KILL "$P_PID" 2>/dev/null
    [ -z "$R_PID" ] || kill -KILL "$R_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_kill9_relay: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqlk9$(date +%s)$$"
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
kill9() { # NAME PID
    kill -KILL "$2"
    wait "$2"
    local rc=$?
    [ "$rc" = 137 ] || die "$1: exit $rc, not killed by SIGKILL"
    ok "SIGKILL landed on the running $1 (exit $rc) with out.jsonl at $(out_lines) lines"
}

t0=$SECONDS
start_p 1
start_r 1
for c in 0 1 2; do append "$c"; done
# R has taken part of chunk 3: past the first chunks, in the middle of its work
at_least() { [ "$(out_lines)" -ge "$1" ]; }
await "rows of the first chunks in out.jsonl" at_least $((2 * CHUNK + 1))
kill9 "relay kafka->file" "$R_PID"; R_PID=""
for c in 3 4 5; do append "$c"; done
kill9 "relay file->kafka" "$P_PID"; P_PID=""
start_p 2
start_r 2
for c in 6 7 8 9; do append "$c"; done
all_ids() { [ "$(distinct_ids)" -ge "$N" ]; }
await "every id in out.jsonl" all_ids
ok "every id through after $((SECONDS - t0)) s"
# graceful stop: each commits what it has and exits 143 (SIGTERM)
for name in P R; do
    pid_var=${name}_PID
    kill -TERM "${!pid_var}"
    wait "${!pid_var}"
    rc=$?
    eval "${name}_PID="
    [ "$rc" = 143 ] || { tail -5 "$WORK"/*.out; die "$name: exit $rc after SIGTERM (expected 143)"; }
done

lines=$(out_lines)
distinct=$(distinct_ids)
want=$(seq 0 $((N - 1)) | md5sum)
got=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$WORK/out.jsonl" | sort -un | md5sum)
[ "$want" = "$got" ] || die "out.jsonl does not hold exactly the ids 0..$((N - 1)) (distinct=$distinct)"
ok "out.jsonl: every id 0..$((N - 1)), $lines lines, duplicates=$((lines - N)) (at-least-once)"

# the topic itself, read by Kafka's own console consumer
"$KAFKA" consume "$T" >"$WORK/topic.out" 2>"$WORK/consume.err" || { tail -5 "$WORK/consume.err"; die "console consumer"; }
tdistinct=$(sed -n 's/^{"id":\([0-9]*\),.*/\1/p' "$WORK/topic.out" | sort -un | wc -l)
tlines=$(wc -l <"$WORK/topic.out")
[ "$tdistinct" = "$N" ] || die "topic $T: $tdistinct distinct ids of $N (Java console consumer)"
ok "topic $T: $tlines records, every id 0..$((N - 1)) (Java console consumer)"

# the group's committed offsets: at each partition's end after the graceful stop
"$KAFKA" groups "$G" >"$WORK/group.out" 2>&1 || { cat "$WORK/group.out"; die "describing group $G"; }
lag=$(awk -v t="$T" '$2 == t { s += $6; n++ } END { print n + 0, s + 0 }' "$WORK/group.out")
[ "$lag" = "3 0" ] || { cat "$WORK/group.out"; die "group $G: partitions and total lag '$lag' (want '3 0')"; }
ok "group $G: 3 partitions committed to their ends (lag 0)"
echo "PASS t_kill9_relay"

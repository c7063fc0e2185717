#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_backlog.sh: serve's rocketsql_source_backlog{unit="messages"} for a Kafka source, against a
# real Kafka. N records are written to a 3-partition topic; a serve job reads it into a file
# sink on a FIFO nobody reads, so once the pipe is full the job stops reading: its backlog is
# then above 0 and at most N less the read counter. Stopped through the control API with the
# FIFO read, the job drains and ends: its run's read count R and its last backlog must then
# be exactly N - R (the partitions' end offsets, as Kafka gives them, less the positions after
# the records handed on), the same in /metrics and /jobs. Started again, it reads the rest:
# the backlog falls to 0 and the output holds the N records, each once.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql.
# Last line: "PASS t_backlog" or "FAIL t_backlog: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_bl.XXXXXX")
SP= CP=
cleanup() {
    [ -n "$SP" ] && kill -9 "$SP" 2>/dev/null
    [ -n "$CP" ] && kill "$CP" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() { echo "FAIL t_backlog: $*"; exit 1; }
ok() { echo "ok: $*"; }
wait_for() { # SECONDS COMMAND...
    local limit=$1 i=0
    shift
    until "$@" >/dev/null 2>&1; do
        i=$((i + 1))
        [ "$i" -lt $((limit * 20)) ] || return 1
        sleep 0.05
    done
}

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
TOPIC="rsqlbl$(date +%s)$$"
"$KAFKA" topic "$TOPIC" 3 >"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $TOPIC"; }
N=60000
python3 -c "
for i in range(1, $N + 1):
    print('{\"id\":%d,\"name\":\"name-%d-padding-padding\"}' % (i, i))" >"$WORK/in.jsonl"
cat >"$WORK/load.sql" <<EOF
CREATE TABLE src (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/in.jsonl');
CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$TOPIC', 'format'='json');
INSERT INTO k SELECT * FROM src;
EOF
"$BIN" --catalog "$WORK/load.db" -f "$WORK/load.sql" >"$WORK/load.out" 2>&1 ||
    { cat "$WORK/load.out"; die "writing $N records"; }

mkfifo "$WORK/out.fifo"
exec 3<>"$WORK/out.fifo"
cat >"$WORK/jobs.sql" <<EOF
CREATE TABLE k (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$TOPIC', 'format'='json',
  'scan.startup.mode'='earliest-offset');
CREATE TABLE out1 (id BIGINT, name VARCHAR) WITH ('connector'='filesystem',
  'path'='$WORK/out.fifo', 'format'='json', 'sink.sync'='false');
CREATE JOB copy AS INSERT INTO out1 SELECT id, name FROM k;
EOF
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
printf 'tok-%s\n' "$RANDOM$RANDOM" >"$WORK/token"
"$BIN" --catalog "$WORK/cat.db" serve --apply "$WORK/jobs.sql" --http "127.0.0.1:$PORT" \
    --http-token-file "$WORK/token" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SP=$!
metric() { curl -s "$URL/metrics" | awk -v n="$1" '$1 ~ "^"n"\\{job=\"copy\"" {print $2}'; }
backlog() { curl -s "$URL/metrics" | awk '/^rocketsql_source_backlog\{job="copy",unit="messages"\}/ {print $2}'; }
stalled() {
    local r1 r2 b
    r1=$(metric rocketsql_records_read_total)
    [ -n "$r1" ] && [ "$r1" -gt 0 ] && [ "$r1" -lt "$N" ] || return 1
    b=$(backlog)
    r2=$(metric rocketsql_records_read_total)
    [ "$r1" = "$r2" ] && [ -n "$b" ] || return 1
    echo "read $r1, backlog $b" >"$WORK/last"
    [ "$b" -gt 0 ] && [ "$b" -le "$((N - r1))" ] || return 1
}
wait_for 90 stalled || die "the stalled job's backlog: $(cat "$WORK/last" 2>/dev/null); $(tail -3 "$WORK/serve.err")"
ok "with the sink blocked, the backlog is above 0 and at most N - read ($(cat "$WORK/last"))"

# stop it, let it drain: the run's last read count and backlog agree exactly
curl -sf -X POST -H "Authorization: Bearer $(cat "$WORK/token")" "$URL/jobs/copy/stop" >/dev/null ||
    die "POST /jobs/copy/stop"
cat <&3 >"$WORK/out.jsonl" &
CP=$!
status() { curl -s "$URL/jobs" | python3 -c 'import sys,json; print(json.load(sys.stdin)["jobs"][0]["status"])'; }
is_stopped() { [ "$(status)" = "stopped" ]; }
wait_for 60 is_stopped || die "the job is $(status) after stop"
line=$("$BIN" --catalog "$WORK/cat.db" --tsv -e "SHOW JOB RUNS copy" | awk -F'\t' '$5 == "interrupted"' | head -1)
R=$(printf '%s\n' "$line" | cut -f6)
B=$(printf '%s\n' "$line" | cut -f12 | python3 -c 'import sys,json; print(json.load(sys.stdin)["backlog_messages"])')
[ "$R" -gt 0 ] && [ "$R" -lt "$N" ] || die "the stopped run read $R of $N"
[ "$B" = "$((N - R))" ] || die "the stopped run read $R of $N, its backlog is $B"
[ "$(backlog)" = "$B" ] || die "the metric says $(backlog), the run $B"
jb=$(curl -s "$URL/jobs" | python3 -c 'import sys,json; print(json.load(sys.stdin)["jobs"][0]["backlog"]["messages"])')
[ "${jb%.0}" = "$B" ] || die "/jobs says backlog $jb, the run $B"
ok "stopped after $R records, the backlog is $B messages = $N - $R (metric and /jobs too)"

curl -sf -X POST -H "Authorization: Bearer $(cat "$WORK/token")" "$URL/jobs/copy/start" >/dev/null ||
    die "POST /jobs/copy/start"
got_all() { [ "$(backlog)" = "0" ] && [ "$(wc -l <"$WORK/out.jsonl")" = "$N" ]; }
wait_for 90 got_all || die "after start: backlog $(backlog), $(wc -l <"$WORK/out.jsonl") lines"
[ "$(python3 -c "import json,sys; print(sorted(json.loads(l)['id'] for l in open('$WORK/out.jsonl')) == list(range(1, $N + 1)))")" = True ] ||
    die "the output is not the $N records, each once"
ok "started again, the job read the rest: the backlog fell to 0 and the output holds the $N records once each"
kill -TERM "$SP"
wait "$SP" || die "serve exited $?"
SP=
echo "PASS t_backlog"

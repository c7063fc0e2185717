#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_backlog.sh: serve's rocketsql_source_backlog (and "backlog" in /jobs) for a file source,
# checked against the input. The job's sink writes to a FIFO that nobody reads, so once its
# pipe is full the job stops reading: its backlog is then above 0 and at most the file's size
# less the offset after the R lines the read counter shows (the source may have read on past
# what the stuck worker last published). The job is then stopped through the control API and
# the FIFO read, so it drains and ends: its run's read count R (SHOW JOB RUNS) and its last
# backlog B must then agree exactly, B = the file's size less the offset after its first R
# lines, computed here from the file, and the output holds those R lines. Started again, the
# job reads the rest: the backlog falls to 0 and the output is the input, line for line.
. "$RSQL_SRCDIR/tests/e2e/lib.sh"
command -v curl >/dev/null || fail "curl is needed"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
N=200000
python3 -c "
import sys
with open('$T/in.jsonl', 'w') as f:
    for i in range(1, $N + 1):
        f.write('{\"id\":%d,\"name\":\"name-%d\"}\n' % (i, i * 7919 % 100003))
"
mkfifo "$T/out.fifo"
exec 3<>"$T/out.fifo" # held open, not read: the sink's writes block once the pipe is full
cat >"$T/jobs.sql" <<EOF
CREATE TABLE src (id BIGINT, name VARCHAR) WITH ('connector' = 'filesystem',
  'path' = '$T/in.jsonl', 'format' = 'json', 'scan.follow' = 'true');
CREATE TABLE out1 (id BIGINT, name VARCHAR) WITH ('connector' = 'filesystem',
  'path' = '$T/out.fifo', 'format' = 'json', 'sink.sync' = 'false');
CREATE JOB copy AS INSERT INTO out1 SELECT id, name FROM src;
EOF
printf 'tok-%s\n' "$RANDOM$RANDOM" >"$T/token"
"$RSQL" --catalog "$CAT" serve --apply "$T/jobs.sql" --http "127.0.0.1:$PORT" \
    --http-token-file "$T/token" >"$T/serve.out" 2>"$T/serve.err" &
SP=$!
e2e_pids="$e2e_pids $SP"

metric() { # NAME: its value for job copy
    curl -s "$URL/metrics" | awk -v n="$1" '$1 ~ "^"n"\\{job=\"copy\"" {print $2}'
}
backlog() { curl -s "$URL/metrics" | awk '/^rocketsql_source_backlog\{job="copy",unit="bytes"\}/ {print $2}'; }
expected_for() { # R: the file's size less the offset after its first R lines
    python3 -c "
import os, sys
r = int(sys.argv[1]); off = 0
with open('$T/in.jsonl', 'rb') as f:
    for i, line in enumerate(f):
        if i == r: break
        off += len(line)
print(os.path.getsize('$T/in.jsonl') - off)" "$1"
}
# stalled: the read count holds still across two scrapes, and the backlog is above 0 and at
# most what it implies
stalled() {
    local r1 r2 b most
    r1=$(metric rocketsql_records_read_total)
    [ -n "$r1" ] && [ "$r1" -gt 0 ] && [ "$r1" -lt "$N" ] || return 1
    b=$(backlog)
    r2=$(metric rocketsql_records_read_total)
    [ "$r1" = "$r2" ] && [ -n "$b" ] || return 1
    most=$(expected_for "$r1")
    echo "read $r1: backlog $b, at most $most" >"$T/last"
    [ "$b" -gt 0 ] && [ "$b" -le "$most" ] || return 1
}
wait_until 60 stalled || fail "the stalled job's backlog: $(cat "$T/last" 2>/dev/null); $(tail -3 "$T/serve.err")"
ok "with the sink blocked, the backlog is above 0 and within what the read count implies ($(cat "$T/last"))"

# stop it, let it drain: the run's last read count and backlog agree exactly
curl -sf -X POST -H "Authorization: Bearer $(cat "$T/token")" "$URL/jobs/copy/stop" >/dev/null ||
    fail "POST /jobs/copy/stop"
cat <&3 >"$T/out.jsonl" &
CP=$!
e2e_pids="$e2e_pids $CP"
status() { curl -s "$URL/jobs" | python3 -c 'import sys,json; print(json.load(sys.stdin)["jobs"][0]["status"])'; }
is_stopped() { [ "$(status)" = "stopped" ]; }
wait_until 60 is_stopped || fail "the job is $(status) after stop"
line=$(runs_tsv copy | awk -F'\t' '$5 == "interrupted"' | head -1)
R=$(printf '%s\n' "$line" | cut -f6)
B=$(printf '%s\n' "$line" | cut -f12 | python3 -c 'import sys,json; print(json.load(sys.stdin)["backlog_bytes"])')
[ "$R" -gt 0 ] && [ "$R" -lt "$N" ] || fail "the stopped run read $R of $N"
same "$B" "$(expected_for "$R")" "the stopped run's backlog (its read count: $R)"
same "$(backlog)" "$B" "the backlog metric of the stopped job"
jb=$(curl -s "$URL/jobs" | python3 -c 'import sys,json; print(json.load(sys.stdin)["jobs"][0]["backlog"]["bytes"])')
same "${jb%.0}" "$B" "/jobs' backlog"
has_lines() { [ "$(wc -l <"$T/out.jsonl")" = "$1" ]; }
wait_until 30 has_lines "$R" || fail "the output has $(wc -l <"$T/out.jsonl") lines, not $R"
ok "stopped after $R records, the backlog is $B bytes: the file's size less the offset after its first $R lines"

curl -sf -X POST -H "Authorization: Bearer $(cat "$T/token")" "$URL/jobs/copy/start" >/dev/null ||
    fail "POST /jobs/copy/start"
all_read() { [ "$(backlog)" = "0" ] && has_lines "$N"; }
wait_until 60 all_read || fail "after start: backlog $(backlog), $(wc -l <"$T/out.jsonl") lines"
python3 - "$T/in.jsonl" "$T/out.jsonl" <<'EOF' || fail "the output is not the input"
import json, sys
a = [json.loads(l) for l in open(sys.argv[1])]
b = [json.loads(l) for l in open(sys.argv[2])]
sys.exit(0 if a == b else 1)
EOF
ok "started again, the job read the rest: the backlog fell to 0 and the output is the input, line for line"
kill -TERM "$SP"
wait_pid "$SP" 30
same "$RC" 0 "serve's exit status"
kill "$CP" 2>/dev/null || true
exec 3>&-
echo PASS

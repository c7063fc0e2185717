#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_window_proctime.sh: window aggregation over processing time (DESCRIPTOR(pt), pt AS
# PROCTIME()) of a followed json-lines file written in bursts: a TUMBLE of 1 s and a HOP of
# 2 s every 1 s, each job in its own process. Whatever the timing:
#   - every window's rows were processed within it (window_start <= MIN(pt), MAX(pt) <
#     window_end): each row went into the windows its processing time selects;
#   - the counts add up to the input (TUMBLE: once per row; HOP: twice) and so do the sums of
#     the ids; no window is given twice;
#   - the windows of the last burst are given while the job still runs, with no row after
#     them and no end of input (the file is followed): by the stage's timer.
. "$(dirname "$0")/lib.sh"

: >events.jsonl
cat >tables.sql <<'SQL'
CREATE TABLE ev (id BIGINT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'events.jsonl', 'scan.follow' = 'true',
        'scan.poll-interval' = '20ms');
CREATE TABLE tumbles (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, s BIGINT,
    first_pt TIMESTAMP(3), last_pt TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'tumbles.jsonl');
CREATE TABLE hops (window_start TIMESTAMP(3), window_end TIMESTAMP(3), n BIGINT, s BIGINT,
    first_pt TIMESTAMP(3), last_pt TIMESTAMP(3))
  WITH ('connector' = 'filesystem', 'path' = 'hops.jsonl');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

"$RSQL" --catalog "$CAT" -e "INSERT INTO tumbles SELECT window_start, window_end, COUNT(*),
    SUM(id), MIN(pt), MAX(pt) FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(pt), INTERVAL '1' SECOND))
    GROUP BY window_start, window_end" >tumble.out 2>tumble.err &
tumble_pid=$!
e2e_pids="$e2e_pids $tumble_pid"
"$RSQL" --catalog "$CAT" -e "INSERT INTO hops SELECT window_start, window_end, COUNT(*),
    SUM(id), MIN(pt), MAX(pt) FROM TABLE(HOP(TABLE ev, DESCRIPTOR(pt), INTERVAL '1' SECOND,
    INTERVAL '2' SECOND)) GROUP BY window_start, window_end" >hop.out 2>hop.err &
hop_pid=$!
e2e_pids="$e2e_pids $hop_pid"

# four bursts of rows, about 0.7 s apart (the pace of the input, not a wait for a result)
N=0
for burst in 1 2 3 4; do
    for i in $(seq 1 50); do
        N=$((N + 1))
        echo "{\"id\": $N}"
    done >>events.jsonl
    sleep 0.7
done
ok "wrote $N rows in 4 bursts"

counted() { # FILE: the rows its windows counted so far
    python3 -c '
import json, sys
print(sum(json.loads(l)["n"] for l in open(sys.argv[1]) if l.strip()))' "$1"
}
# the windows of the last rows: given while the jobs run with no further input (the timer);
# waited for by looking at the sinks, for at most 20 s
for f in tumbles:1 hops:2; do
    file=${f%:*}.jsonl per=${f#*:}
    for _ in $(seq 1 200); do
        [ -s "$file" ] && [ "$(counted "$file")" -ge $((N * per)) ] && break
        sleep 0.1
    done
    got=$(counted "$file")
    [ "$got" -eq $((N * per)) ] ||
        fail "${f%:*}: $got rows counted while the job runs, expected $((N * per))"
    ok "${f%:*}: every window given while the job still runs, no row after the last ($got)"
done
kill -0 "$tumble_pid" && kill -0 "$hop_pid" || fail "a job ended by itself"
kill -INT "$tumble_pid" "$hop_pid"
for j in tumble hop; do
    pid=${j}_pid
    rc=0
    wait "${!pid}" || rc=$?
    [ "$rc" -eq 130 ] || fail "the $j job: exit $rc (130 expected after SIGINT): $(cat $j.err)"
    grep -q "0 windows open" "$j.err" || fail "the $j job left windows open: $(cat $j.err)"
done
ok "both jobs stopped on SIGINT (exit 130), no window left open"

check() { # FILE SIZE_MS PER_ROW
    python3 - "$@" "$N" <<'PY'
import datetime, json, sys
path, size, per, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def ms(s):
    d = datetime.datetime.strptime(s, "%Y-%m-%d %H:%M:%S.%f")
    return int(d.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)
seen, total, ids = set(), 0, 0
for line in open(path):
    e = json.loads(line)
    ws, we, first, last = (ms(e[k]) for k in ("window_start", "window_end", "first_pt", "last_pt"))
    if (ws, we) in seen:
        sys.exit("window %s given twice" % e["window_start"])
    seen.add((ws, we))
    if we - ws != size or ws % 1000:
        sys.exit("window %s .. %s is not one of the function's" % (e["window_start"], e["window_end"]))
    if not (ws <= first <= last < we):
        sys.exit("window %s .. %s took rows processed at %s .. %s" %
                 (e["window_start"], e["window_end"], e["first_pt"], e["last_pt"]))
    total += e["n"]
    ids += e["s"]
if total != n * per or ids != per * n * (n + 1) // 2:
    sys.exit("counted %d rows (ids %d), expected %d (%d)" %
             (total, ids, n * per, per * n * (n + 1) // 2))
print(len(seen))
PY
}
w=$(check tumbles.jsonl 1000 1) || fail "tumbles: $w"
ok "TUMBLE: $w windows, each row in the window of its processing time, counts add up"
w=$(check hops.jsonl 2000 2) || fail "hops: $w"
ok "HOP: $w windows, each row in the two windows of its processing time, counts add up"
echo PASS

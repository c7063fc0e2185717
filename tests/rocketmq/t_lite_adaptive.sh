#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_lite_adaptive.sh: a lite source adapts its client identities to the broker's dispatch
# rounds (rmq_identity.c, rmq_lite_ids.c), against the real broker. The official Java client
# (tests/interop/rmq-interop) produces a backlog of 3,000 messages over 300 lite topics of one
# LITE parent topic before the consumer starts; rocketsql reads it with two identities at the
# start ('source.lite-clients-start' = 2; the rest at the defaults: up to 8, back to 1) through a
# wildcard lite group, a bounded read whose idle timeout (45 s) outlasts the quiet time after
# which extra identities are retired (30 s without a full round). Long polls of 5 s let a
# retiring identity's parked polls come back soon. (At the defaults all 8 start at once:
# t_lite_clients.sh.)
# The job runs under `rocketsql serve` (--log-level trace; it ends by itself, bounded by its idle
# timeout; the wait for it is bounded at 150 s). While it runs, the serve's /metrics gauge
# rocketsql_source_lite_identities is read every 200 ms: it must start at 2, rise to 8 and fall
# back to 1. From the log:
#   - it started with TWO identities: until the first "dispatch round was full" line, every
#     answer came to identity 0 or 1;
#   - the first round was full (an identity popped 100 lite topics at once) and identities were
#     then started, up to the maximum (8 by default: identities 2 to 7);
#   - after the backlog: "back to 1 client identity", then every identity but the first retired,
#     each after the last message it received (no receive of it afterwards);
# and from the sink: every id exactly once, 10 per lite topic.
# Binary: $RSQL_BUILDDIR/rocketsql (default build/rocketsql). A missing broker is a FAILURE.
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
[ -x "$BIN" ] || fail "rocketsql binary $BIN not built"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_lite_adaptive.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
T=$(uniq_name t_litea)
G=$(uniq_name g_litea)
N=3000
K=300
run "$RMQ" topic "$T" lite
run "$RMQ" group "$G" --lite-bind "$T"
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "$T" --count "$N" --type lite \
  --lite-topics "$K" --lite-prefix "la-" --seed 28
expect_line "^sent=$N failed=0$"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run "$BIN" --catalog "$WORK/c.db" -e "
CREATE TABLE src (id BIGINT, lite_topic VARCHAR, lt VARCHAR METADATA FROM 'lite_topic' VIRTUAL)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='$T',
        'source.mode'='lite', 'source.consumer-group'='$G', 'source.await-duration'='5s',
        'source.lite-clients-start'='2',
        'scan.idle-timeout'='45s');
CREATE TABLE out (id BIGINT, lite_topic VARCHAR, lt VARCHAR)
  WITH ('connector'='filesystem', 'path'='$WORK/out.jsonl', 'format'='json');
CREATE JOB drain AS INSERT INTO out SELECT id, lite_topic, lt FROM src"
t0=$(date +%s)
"$BIN" --catalog "$WORK/c.db" --log-level trace serve --http "127.0.0.1:$PORT" \
  >"$WORK/serve.out" 2>"$WORK/job.err" &
SPID=$!
trap 'kill "$SPID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
# every change of the gauge, until the job is finished (bounded: 150 s; serve may not answer
# yet at first)
: >"$WORK/gauge"
state=""
last=""
while :; do
  kill -0 "$SPID" 2>/dev/null || fail "serve exited early: $(tail -3 "$WORK/job.err")"
  [ $(( $(date +%s) - t0 )) -lt 150 ] || fail "the job did not finish within 150 s"
  v=$(curl -s --max-time 2 "http://127.0.0.1:$PORT/metrics" |
      sed -n 's/^rocketsql_source_lite_identities{job="drain"} \([0-9]*\)$/\1/p' || true)
  if [ -n "$v" ] && [ "$v" != "$last" ]; then echo "$v" >>"$WORK/gauge"; last=$v; fi
  state=$(curl -s --max-time 2 "http://127.0.0.1:$PORT/jobs" |
      python3 -c 'import json,sys; print([j["status"] for j in json.load(sys.stdin)["jobs"]][0])' 2>/dev/null || true)
  case $state in finished | failed | stopped) break ;; esac
  sleep 0.2
done
secs=$(( $(date +%s) - t0 ))
kill "$SPID" 2>/dev/null
wait "$SPID" 2>/dev/null || true
grep -v 'rocketmq: rmq-' "$WORK/job.err" | grep -i 'identit\|read=' | tail -20
[ "$state" = finished ] || fail "the job ended $state after ${secs}s"
echo "job finished after ${secs}s (3,000 messages over 300 lite topics, 2 identities at the start, 45s idle timeout)"
gauge=$(paste -sd' ' "$WORK/gauge")
echo "rocketsql_source_lite_identities went: $gauge"
python3 - $gauge <<'PY' || fail "the identities gauge went '$gauge', want 2, up to 8, back to 1"
import sys
g = [int(x) for x in sys.argv[1:]]
top = g.index(max(g)) if g else 0
up, down = g[:top + 1], g[top:]
sys.exit(0 if g and g[0] == 2 and max(g) == 8 and g[-1] == 1 and up == sorted(up)
         and down == sorted(down, reverse=True) else 1)
PY
python3 - "$WORK/out.jsonl" "$WORK/job.err" "$N" "$K" <<'PY' || fail "identities or drain wrong"
import collections, json, re, sys
out, err, n, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
bad = []
ids = collections.Counter()
per_lite = collections.Counter()
for line in open(out):
    r = json.loads(line)
    ids[r["id"]] += 1
    per_lite[r["lt"]] += 1
    if r["lt"] != r["lite_topic"]:
        bad.append("id %s: lite topic %s, body says %s" % (r["id"], r["lt"], r["lite_topic"]))
missing = [i for i in range(n) if ids[i] == 0]
dups = [i for i, c in ids.items() if c > 1]
if missing: bad.append("%d ids missing (e.g. %s)" % (len(missing), missing[:5]))
if dups: bad.append("%d ids duplicated (e.g. %s)" % (len(dups), dups[:5]))
if dict(per_lite) != {"la-%d" % i: n // k for i in range(k)}:
    bad.append("per lite topic counts off")
full_at = back_at = None
started, retired = {}, {}
last_recv = {}
got = collections.Counter()
before_full = set()
for no, line in enumerate(open(err, errors="replace")):
    m = re.search(r"rmq-recv: n=(\d+) at=\d+ client=(\d+)", line)
    if m:
        c, cnt = int(m.group(2)), int(m.group(1))
        if full_at is None:
            before_full.add(c)
        if cnt > 0:
            got[c] += cnt
            last_recv[c] = no
        continue
    if "a dispatch round was full" in line and full_at is None:
        full_at = no
    m = re.search(r"client identity (\d+) started", line)
    if m: started[int(m.group(1))] = no
    m = re.search(r"client identity (\d+) retired", line)
    if m: retired[int(m.group(1))] = no
    if "back to 1 client identity" in line and back_at is None:
        back_at = no
print("received per identity:", dict(sorted(got.items())))
print("started:", sorted(started), "retired:", sorted(retired))
if full_at is None: bad.append("no full dispatch round was reported")
if not before_full or not before_full <= {0, 1}:
    bad.append("answers before the full round came to %s, want {0, 1}" % sorted(before_full))
if sorted(started) != list(range(2, 8)): bad.append("started %s, want identities 2..7" % sorted(started))
if any(no < (full_at or 0) for no in started.values()): bad.append("an identity started before the full round")
if len(got) < 2: bad.append("messages came through %d identity, want more than one" % len(got))
if sum(got.values()) != n: bad.append("%d messages received, want %d" % (sum(got.values()), n))
if back_at is None: bad.append("no 'back to 1 client identity' line")
if sorted(retired) != list(range(1, 8)): bad.append("retired %s, want identities 1..7" % sorted(retired))
for c, no in retired.items():
    if back_at is not None and no < back_at: bad.append("identity %d retired before the shrink" % c)
    if last_recv.get(c, -1) > no: bad.append("identity %d received after it retired" % c)
print("\n".join(bad) if bad else "exact: %d ids once; grew from 2 to %d identities and back to 1"
      % (n, 2 + len(started)))
sys.exit(1 if bad else 0)
PY
echo "PASS t_lite_adaptive"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_throttle.sh: fair per-lite-topic throttling against the real broker
# (scripts/rocketmq), with the official Java client (tests/interop/rmq-interop) as producer.
#   1. fairness (bench/fairness/run, moderate sizes): one hot lite topic at 50x the rate of each
#      of 50 cold ones (25 msgs/s each side) into a sink taking a fixed time per row (40/s).
#      With throttling on, the cold topics' p99 latency stays within 2x of their p99 with the
#      hot topic absent (the baseline p99 is floored at FLOOR_MS so that a very fast baseline
#      does not turn scheduling noise into a failure) while the hot topic keeps making progress
#      (at least a quarter of its throttled rate); with throttling off it is far worse (>= 3x
#      the baseline). Ratios only, no absolute times.
#   2. the valves hold: one lite topic throttled to 1 in flight, 'throttle.defer'='3s',
#      'source.max-invisible-duration'='10s', 'source.max-delivery-attempts'='4'. From the
#      per-message decisions (ROCKETSQL_LOG=trace: "rmq-throttle: admit|valve|defer ... attempt=A
#      ... defer_ms=D"): no message is deferred at or past attempt 4, no deferral exceeds 10 s,
#      every deferral is exactly min(3 s x 2^(A-1), 10 s), the cap and the valve were both
#      exercised, and the broker counted each deferral as an attempt (attempts 2 and 3 seen).
#   3. nothing is lost: in every run each produced message reaches the sink exactly once.
# Binary: $RSQL_BUILDDIR/rocketsql. A broker that cannot be reached is a FAILURE.
# Last line: "PASS t_throttle" or "FAIL t_throttle: <why>".
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RMQ="$REPO/scripts/rocketmq"
JAVA="$REPO/tests/interop/rmq-interop"
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_throttle.XXXXXX")
FLOOR_MS=${RSQL_THROTTLE_FLOOR_MS:-1000}
BG=""
cleanup() {
    for p in $BG; do kill "$p" 2>/dev/null; done
    rm -rf "$WORK"
}
trap cleanup EXIT

failed=""
fail() { failed="$failed; $*"; echo "not ok: $*"; }
die() { echo "FAIL t_throttle: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
command -v python3 >/dev/null || die "python3 is needed"
"$RMQ" start >"$WORK/start.log" 2>&1 || { tail -5 "$WORK/start.log"; die "broker did not start"; }
EP=$("$RMQ" endpoint) || die "no broker endpoint"
P="thr$(date +%s)$$"

# ------------------------------------------------------------------ 1. fairness (+ 3.)
# 50 msgs/s offered in all: at twice that, on a 2-core machine that also runs the broker and
# both Java producers, the broker's answers to the long polls (with the deferred messages
# coming back) fall behind the offered rate whatever the client does, and every scenario's
# latency is the broker's backlog
THROTTLE_RATE=10
"$REPO/bench/fairness/run" --rocketsql "$BIN" --seconds 25 --cold-topics 50 --cold-rate 0.5 \
    --hot-factor 50 --sink-rate 40 --throttle-rate "$THROTTLE_RATE" --defer 200ms \
    --max-invisible 10s >"$WORK/fair.out" 2>&1
cat "$WORK/fair.out"
val() { # scenario key
    grep "^scenario=$1 " "$WORK/fair.out" | sed -n "s/.* $2=\([^ ]*\).*/\1/p" | head -1
}
for s in off on absent; do
    grep -q "^scenario=$s .*cold_p99_ms=" "$WORK/fair.out" || die "fairness scenario '$s' did not run"
    [ "$(val "$s" job_rc)" = 0 ] || fail "fairness '$s': the job failed"
    if [ "$(val "$s" missing)" = 0 ] && [ "$(val "$s" duplicates)" = 0 ] &&
        [ "$(val "$s" unexpected)" = 0 ]; then
        ok "fairness '$s': every message exactly once ($(val "$s" cold_n) cold, $(val "$s" hot_n) hot)"
    else
        fail "fairness '$s': missing=$(val "$s" missing) duplicates=$(val "$s" duplicates)"
    fi
done
if python3 - "$(val absent cold_p99_ms)" "$(val on cold_p99_ms)" "$(val off cold_p99_ms)" \
    "$(val on hot_msgs_per_s)" "$(val on deferred)" "$FLOOR_MS" "$THROTTLE_RATE" <<'EOF'; then
import sys
absent, on, off, hot, deferred, floor, rate = (float(x) for x in sys.argv[1:])
base = max(absent, floor)
print("cold p99: absent=%d ms on=%d ms (%.2fx) off=%d ms (%.2fx); hot on=%.1f msgs/s; deferred=%d"
      % (absent, on, on / base, off, off / base, hot, deferred))
bad = []
if on > 2 * base: bad.append("throttled cold p99 above 2x the baseline")
if off < 3 * base: bad.append("unthrottled cold p99 not far worse (< 3x the baseline)")
if hot < rate / 4: bad.append("hot topic made (almost) no progress while throttled")
if deferred <= 0: bad.append("nothing was deferred")
print("; ".join(bad))
sys.exit(1 if bad else 0)
EOF
    ok "fairness ratios hold"
else
    fail "fairness ratios"
fi

# ------------------------------------------------------------------ 2. valves (+ 3.)
T="${P}v"
G="${P}vg"
NV=30
"$RMQ" topic "$T" lite >>"$WORK/admin.log" 2>&1 &&
    "$RMQ" group "$G" --lite-bind "$T" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "admin"; }
"$JAVA" produce --endpoint "$EP" --topic "$T" --type lite --lite-topics 1 --lite-prefix "${P}hot" \
    --count "$NV" >"$WORK/vp.out" 2>&1 || { tail -3 "$WORK/vp.out"; die "Java produce for the valves"; }
cat >"$WORK/v.sql" <<EOF
CREATE TABLE src (id BIGINT, lite_topic VARCHAR)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='$T', 'source.mode'='lite',
        'source.consumer-group'='$G', 'scan.idle-timeout'='15s',
        'throttle.max-inflight-per-lite-topic'='1', 'throttle.defer'='3s',
        'source.max-invisible-duration'='10s', 'source.max-delivery-attempts'='4');
CREATE TABLE out (id BIGINT, lite_topic VARCHAR)
  WITH ('connector'='filesystem', 'path'='$WORK/v.jsonl', 'format'='json');
INSERT INTO out SELECT id, lite_topic FROM src;
EOF
ROCKETSQL_LOG=trace "$BIN" --catalog "$WORK/v.db" -f "$WORK/v.sql" >"$WORK/v.out" 2>"$WORK/v.err"
rc=$?
grep -v 'rocketmq: rmq-' "$WORK/v.err" | tail -3
[ "$rc" = 0 ] || fail "valve job exit $rc"
if python3 - "$WORK/v.err" "$WORK/v.jsonl" "$NV" <<'EOF'; then
import json, re, sys
dbg, out, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
rx = re.compile(r"rmq-throttle: (\w+) lite=\S+ key=(\S+) id=\S+ attempt=(\d+) born=\d+ defer_ms=(\d+)")
bad, defers, valves, attempts = [], 0, 0, set()
for line in open(dbg, errors="replace"):
    m = rx.search(line)
    if not m:
        continue
    what, key, a, d = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
    attempts.add(a)
    if what == "defer":
        defers += 1
        if a >= 4: bad.append("key %s deferred at attempt %d" % (key, a))
        if d > 10000: bad.append("key %s deferred %d ms > 10s" % (key, d))
        if d != min(3000 * 2 ** (a - 1), 10000): bad.append("key %s attempt %d deferred %d ms" % (key, a, d))
    elif what == "valve":
        valves += 1
        if a < 4: bad.append("valve at attempt %d" % a)
ids = [json.loads(l)["id"] for l in open(out) if l.strip()]
print("decisions: deferred=%d valve=%d attempts seen=%s; rows=%d distinct=%d" % (
    defers, valves, sorted(attempts), len(ids), len(set(ids))))
if 2 not in attempts or 3 not in attempts: bad.append("deferrals were not counted as attempts")
if valves == 0: bad.append("the max-delivery-attempts valve never admitted a message")
if not any(x for x in open(dbg) if "attempt=3 " in x and "defer_ms=10000" in x):
    bad.append("no deferral was capped at 10s")
if sorted(ids) != list(range(n)): bad.append("rows are not every id exactly once")
for b in bad[:10]: print("  " + b)
sys.exit(1 if bad else 0)
EOF
    ok "valves hold: never deferred at/after attempt 4, never longer than 10s; every message once"
else
    fail "valves"
fi

if [ -n "$failed" ]; then
    echo "FAIL t_throttle: ${failed#; }"
    exit 1
fi
echo "PASS t_throttle"

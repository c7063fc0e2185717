#!/usr/bin/env bash
# bench/produce.sh: produce-only throughput of the rocketmq-grpc sink (datagen -> NORMAL topic)
# against the running scripts/rocketmq server, for each sink.batch-size given.
#   bench/produce.sh [-n ROWS] [-i MAX_INFLIGHT] [-l LINGER] BATCH_SIZE...
# Prints one line per run: batch=B inflight=I rows=N seconds=S msg_per_s=R (S is the time
# rocketsql reports for the job: datagen rows sent and confirmed, start-up excluded).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
RMQ=$REPO/scripts/rocketmq
N=50000 INFL=64 LINGER=5ms
while getopts n:i:l: o; do
  case $o in n) N=$OPTARG ;; i) INFL=$OPTARG ;; l) LINGER=$OPTARG ;; *) exit 2 ;; esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || set -- 1 32
EP=$("$RMQ" endpoint)
W=$(mktemp -d /tmp/bench_produce.XXXXXX)
trap 'rm -rf "$W"' EXIT
for B in "$@"; do
  T=bench_produce_$(date +%s)_$$_$B
  "$RMQ" topic "$T" normal >/dev/null
  cat >"$W/p.sql" <<SQL
CREATE TABLE gen (id BIGINT, note VARCHAR) WITH ('connector'='datagen', 'number-of-rows'='$N', 'rows-per-second'='0',
  'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='$N', 'fields.note.length'='100');
CREATE TABLE out (id BIGINT, note VARCHAR) WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP',
  'topic'='$T', 'sink.batch-size'='$B', 'sink.linger'='$LINGER', 'sink.max-inflight'='$INFL');
INSERT INTO out SELECT id, note FROM gen;
SQL
  out=$("$BIN" --catalog "$W/c_$B.db" -f "$W/p.sql" 2>&1)
  el=$(sed -n 's/.*elapsed=\([0-9.]*\)s.*/\1/p' <<<"$out" | tail -1)
  [ -n "$el" ] || { printf '%s\n' "$out" >&2; exit 1; }
  grep -q "written=$N .*failed=0" <<<"$out" || { printf '%s\n' "$out" >&2; exit 1; }
  python3 -c "import sys; n,s=int(sys.argv[1]),float(sys.argv[2]); print('batch=%s inflight=%s rows=%d seconds=%.2f msg_per_s=%d' % (sys.argv[3], sys.argv[4], n, s, n/s))" "$N" "$el" "$B" "$INFL"
done

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_broker_metrics.sh: the broker scripts/rocketmq starts serves its Prometheus exporter (the
# URL `scripts/rocketmq status` prints), with every series docs/ROCKETMQ-NOTES.md §13 lists,
# and those give a consumer group's lag: a group that consumed from a NORMAL topic, then N
# messages sent with nobody reading -> rocketmq_consumer_lag_messages and _ready_messages = N
# for that group and topic (is_retry="false"), the lag latency above 0; then a rocketsql source
# reads and acks all N -> lag, ready and in flight 0. (The gauges are computed at each scrape:
# the polls below wait for the sends and acks to reach the broker's consume queue and offsets.)
. "$(dirname "$0")/lib.sh"
require_server
command -v curl >/dev/null || fail "curl is needed"
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
W=$(mktemp -d /tmp/t_broker_metrics.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$(uniq_name bm)
N=200

URL=$("$RMQ" status | sed -n 's/^broker metrics: //p')
[ -n "$URL" ] || fail "scripts/rocketmq status prints no broker metrics URL"
scrape() { curl -sf --max-time 10 -o "$W/m.txt" "$URL"; }
scrape || fail "the broker's exporter at $URL does not answer"
grep -q '^# TYPE rocketmq_' "$W/m.txt" || fail "no rocketmq_ series at $URL: $(head -5 "$W/m.txt")"
printf 'ok: the exporter answers at %s (%s rocketmq_ families)\n' "$URL" "$(grep -c '^# TYPE rocketmq_' "$W/m.txt")"

# value SERIES: the group's value of SERIES for the topic (not its retry topic); empty if none
value() {
  awk -v s="$1" -v g="consumer_group=\"${P}_g\"" -v t="topic=\"${P}_t\"" '
    index($0, s "{") == 1 && index($0, g) && index($0, t) && index($0, "is_retry=\"false\"") {
      v = $NF; sub(/\.0$/, "", v); print v; exit }' "$W/m.txt"
}
# until_values SECONDS LAG READY INFLIGHT: polls until the group's gauges are those
until_values() {
  local end=$((SECONDS + $1))
  while :; do
    scrape || true
    if [ "$(value rocketmq_consumer_lag_messages)" = "$2" ] &&
       [ "$(value rocketmq_consumer_ready_messages)" = "$3" ] &&
       [ "$(value rocketmq_consumer_inflight_messages)" = "$4" ]; then
      return 0
    fi
    [ "$SECONDS" -lt "$end" ] || fail "after $1 s: lag=$(value rocketmq_consumer_lag_messages) ready=$(value rocketmq_consumer_ready_messages) inflight=$(value rocketmq_consumer_inflight_messages), want $2 $3 $4"
    sleep 0.5
  done
}

run "$RMQ" topic "${P}_t" normal
run "$RMQ" group "${P}_g"
cat >"$W/setup.sql" <<SQL
CREATE TABLE src (id INT, v VARCHAR) WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT',
  'topic'='${P}_t', 'source.consumer-group'='${P}_g', 'scan.idle-timeout'='5s');
CREATE TABLE snk (id INT, v VARCHAR) WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT',
  'topic'='${P}_t');
CREATE TABLE gen (id INT, v VARCHAR) WITH ('connector'='datagen', 'number-of-rows'='$N');
CREATE TABLE bh (id INT, v VARCHAR) WITH ('connector'='blackhole');
SQL
"$BIN" --catalog "$W/c.db" -f "$W/setup.sql" >"$W/setup.out" 2>&1 || fail "setup: $(cat "$W/setup.out")"
rsql_sql() { "$BIN" --catalog "$W/c.db" -e "$1" 2>&1; }

# the group consumes once (nothing there yet), so the broker knows it and its offsets
run rsql_sql "INSERT INTO bh SELECT * FROM src"
expect_line '^read=0 '
run rsql_sql "INSERT INTO snk SELECT * FROM gen"
expect_line "^read=$N written=$N "
until_values 60 "$N" "$N" 0
lat=$(value rocketmq_consumer_lag_latency_milliseconds)
awk -v l="$lat" 'BEGIN { exit !(l > 0) }' || fail "lag latency $lat, want > 0"
qlat=$(value rocketmq_consumer_queueing_latency_milliseconds)
awk -v l="$qlat" 'BEGIN { exit !(l > 0) }' || fail "queueing latency $qlat, want > 0"
echo "ok: $N unread messages: lag $N, ready $N, in flight 0, lag latency ${lat} ms, queueing ${qlat} ms"

# every series the notes document is there
sed -n '/^## 13\./,/^## /p' "$REPO/docs/ROCKETMQ-NOTES.md" | grep '^ *| `rocketmq_' | cut -d'|' -f2 |
  grep -o 'rocketmq_[a-z_]*' | sort -u >"$W/doc.txt"
[ "$(wc -l <"$W/doc.txt")" -ge 5 ] || fail "docs/ROCKETMQ-NOTES.md §13 lists $(wc -l <"$W/doc.txt") series"
while read -r s; do
  grep -q "^$s{" "$W/m.txt" || fail "documented series $s not exported"
done <"$W/doc.txt"
echo "ok: every series of docs/ROCKETMQ-NOTES.md §13 is exported: $(tr '\n' ' ' <"$W/doc.txt")"

run rsql_sql "INSERT INTO bh SELECT * FROM src"
expect_line "^read=$N written=$N "
until_values 60 0 0 0
echo "ok: after a rocketsql source read and acked all $N: lag 0, ready 0, in flight 0"
echo "PASS t_broker_metrics"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_serve.sh: `rocketsql serve` against the real RocketMQ 5.5 with three jobs in one process:
#   to_sqlite: topic -> sqlite (errors.retry.timeout 0, fixed-delay restarts of 500 ms),
#   relay:     topic -> topic (JSON),
#   to_file:   datagen -> file.
# Phase A: N1 messages; /readyz turns 200, /metrics passes `promtool check metrics`.
# SIGHUP drops to_file and adds to_bh (datagen -> blackhole); to_sqlite and relay go on in the
# same run. Phase B is produced while the sqlite file is locked for 7 s (longer than the
# sink's 5 s busy timeout): to_sqlite fails, restarts with its backoff and recovers. Phase C;
# sqlite holds every id, the Java consumer sees every id on the relay's target. Then the proxy
# alone is restarted: /readyz is 503 while it is down and 200 again once every source
# receives again. Last, after SIGTERM (exit 0) the totals of /metrics (scraped once the counts
# stood still) equal those of SHOW JOB RUNS.
# Environment from tests/rocketmq/run: REPO, RMQ, INTEROP, RMQ_ENDPOINT.
# Last line: "PASS t_serve" or "FAIL t_serve: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N1=2000
N2=500
N3=300
N=$((N1 + N2 + N3))
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_serve.XXXXXX")
SPID=""
LOCKPID=""
cleanup() {
    [ -n "$SPID" ] && kill -KILL "$SPID" 2>/dev/null
    [ -n "$LOCKPID" ] && kill -KILL "$LOCKPID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

die() {
    echo "FAIL t_serve: $*"
    [ -n "$SPID" ] && curl -s --max-time 5 "http://127.0.0.1:$PORT/jobs" | sed 's/^/    jobs: /'
    [ -f "$WORK/serve.err" ] && tail -15 "$WORK/serve.err" | sed 's/^/    serve: /'
    [ -n "${T_SERVE_KEEP:-}" ] && cp -r "$WORK" "$T_SERVE_KEEP"
    exit 1
}
ok() { echo "ok: $* [${SECONDS}s]"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
command -v promtool >/dev/null || die "promtool is needed (Debian package prometheus)"
command -v curl >/dev/null || die "curl is needed"
"$RMQ" status >/dev/null 2>&1 || die "RocketMQ is not running ($RMQ status)"
EP=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}
P="rsqlsv$(date +%s)$$"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
CAT="$WORK/cat.db"
# mk, produce, rows, http, written, until_true
. "$REPO/tests/rocketmq/serve_lib.sh"

serve_names

field() { # JOB FIELD (of the last /jobs body)
    python3 -c 'import json,sys
try: d=json.loads(sys.argv[1])
except ValueError: print(""); sys.exit()
for j in d["jobs"]:
    if j["name"]==sys.argv[2]:
        v=j
        for k in sys.argv[3].split("."): v=v[k]
        print(v if v is not None else "")' "$BODY" "$1" "$2"
}

produce 0 "$N1" phaseA
SRC="'connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in',
     'source.invisible-duration'='10s', 'source.renewal-ahead'='3s'"
"$BIN" --catalog "$CAT" -e "
CREATE TABLE src_s (id BIGINT, customer VARCHAR, amount DOUBLE) WITH ($SRC, 'source.consumer-group'='${P}gs');
CREATE TABLE src_r (id BIGINT, customer VARCHAR, amount DOUBLE) WITH ($SRC, 'source.consumer-group'='${P}gr');
CREATE TABLE out_s (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='sqlite', 'path'='$WORK/out.db', 'table'='out_s');
CREATE TABLE out_r (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}out', 'sink.keys-column'='id',
        'sink.max-attempts'='30');
CREATE TABLE gen (a INT, b VARCHAR) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE outf (a INT, b VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/out.json');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole');
SET 'state.flush-interval' = '200ms';
CREATE JOB relay AS INSERT INTO out_r SELECT id, customer, amount FROM src_r;
CREATE JOB to_file AS INSERT INTO outf SELECT a, b FROM gen;
SET 'errors.retry.timeout' = '0';
SET 'restart-strategy' = 'fixed-delay';
SET 'restart-strategy.fixed-delay.attempts' = '100';
SET 'restart-strategy.fixed-delay.delay' = '500ms';
CREATE JOB to_sqlite AS INSERT INTO out_s SELECT id, customer, amount FROM src_s" \
    >"$WORK/setup.out" 2>&1 || { cat "$WORK/setup.out"; die "catalog setup"; }

"$BIN" --catalog "$CAT" --log-level info serve --http "127.0.0.1:$PORT" >"$WORK/serve.out" 2>"$WORK/serve.err" &
SPID=$!
ready() { http /readyz; [ "$CODE" = 200 ]; }
until_true 30 "/readyz 200" ready
written_ge() { http /jobs; [ "$(field "$1" counts.written)" -ge "$2" ] 2>/dev/null; }
until_true 40 "phase A in sqlite" written_ge to_sqlite "$N1"
until_true 40 "phase A relayed" written_ge relay "$N1"
http /metrics
echo "$BODY" >"$WORK/m1.txt"
promtool check metrics <"$WORK/m1.txt" >"$WORK/promtool.out" 2>&1 || die "promtool: $(cat "$WORK/promtool.out")"
grep -q '^rocketsql_records_written_total{job="to_sqlite"} ' "$WORK/m1.txt" || die "no to_sqlite series"
ok "three jobs in one serve; /readyz 200; phase A through; /metrics passes promtool check metrics"

# SIGHUP: drop to_file, add to_bh; the RocketMQ jobs stay in their run
http /jobs
run_s=$(field to_sqlite run_id)
run_r=$(field relay run_id)
"$BIN" --catalog "$CAT" -e "DROP JOB to_file; CREATE JOB to_bh AS INSERT INTO bh SELECT a FROM gen" \
    >"$WORK/hup.out" 2>&1 || die "catalog change: $(cat "$WORK/hup.out")"
kill -HUP "$SPID"
hup_done() { http /jobs; [ "$(field to_bh status)" = running ] && [ -z "$(field to_file status)" ]; }
until_true 20 "SIGHUP applied" hup_done
[ "$(field to_sqlite run_id)" = "$run_s" ] && [ "$(field relay run_id)" = "$run_r" ] ||
    die "a RocketMQ job was restarted by the reload"
ok "SIGHUP: to_bh started, to_file drained and stopped, the RocketMQ jobs untouched"

# phase B while the sqlite file is locked longer than the sink's busy timeout
python3 -c 'import sqlite3,sys,time
db=sqlite3.connect(sys.argv[1], isolation_level=None); db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True); time.sleep(7); db.execute("COMMIT")' "$WORK/out.db" >"$WORK/lock.out" 2>&1 &
LOCKPID=$!
until grep -q locked "$WORK/lock.out" 2>/dev/null; do sleep 0.1; done
produce "$N1" "$N2" phaseB
wait "$LOCKPID"
LOCKPID=""
until_true 60 "phase B relayed" written_ge relay $((N1 + N2))
sqlite_all() { [ "$(rows)" = "$1" ]; }
until_true 60 "sqlite holds phases A and B" sqlite_all $((N1 + N2))
http /jobs
[ "$(field to_sqlite restarts)" -ge 1 ] || die "to_sqlite did not restart: $BODY"
"$BIN" --catalog "$CAT" --tsv -e "SHOW JOB RUNS to_sqlite" >"$WORK/runs_s.txt" 2>&1
awk -F'\t' '$5=="failed" && $11 ~ /lock|busy/ {f=1} END {exit !f}' "$WORK/runs_s.txt" ||
    die "no failed run of to_sqlite with its busy error: $(cat "$WORK/runs_s.txt")"
ok "a locked sqlite sink: to_sqlite failed, restarted ($(field to_sqlite restarts)x) with backoff and recovered"

produce $((N1 + N2)) "$N3" phaseC
until_true 60 "every id in sqlite" sqlite_all "$N"
until_true 60 "every message relayed" written_ge relay "$N"
"$INTEROP" consume --endpoint "$EP" --topic "${P}out" --group "${P}v" --count $((N + 1)) \
    --timeout 8 >"$WORK/verify.out" 2>&1
line=$(grep '^received=' "$WORK/verify.out" | tail -1)
distinct=$(sed -n 's/.* distinct=\([0-9]*\).*/\1/p' <<<"$line")
[ "$distinct" = "$N" ] || die "relay target: $line $(grep '^missing_ids=' "$WORK/verify.out")"
ok "the Java consumer sees all $N ids on the relay's target ($line)"

# the proxy goes down: /readyz 503; it comes back: /readyz 200
"$RMQ" restart-proxy 6 >"$WORK/restart.out" 2>&1 &
RPID=$!
unready() { http /readyz; [ "$CODE" = 503 ]; }
until_true 30 "/readyz 503 while the proxy is down" unready
wait "$RPID" || { tail -5 "$WORK/restart.out"; die "restart-proxy failed"; }
until_true 60 "/readyz 200 once the proxy is back" ready
ok "/readyz: 503 while the proxy was down, 200 again after it returned"

# the counts stand still (nothing more to read): then scrape, and drain
still() {
    http /metrics
    local a=$BODY
    sleep 1
    http /metrics
    [ "$(echo "$a" | grep -E '^rocketsql_records_(read|written)_total\{job="(to_sqlite|relay)"\}')" = \
      "$(echo "$BODY" | grep -E '^rocketsql_records_(read|written)_total\{job="(to_sqlite|relay)"\}')" ]
}
until_true 40 "counts standing still" still
echo "$BODY" >"$WORK/m2.txt"
promtool check metrics <"$WORK/m2.txt" >"$WORK/promtool.out" 2>&1 || die "promtool: $(cat "$WORK/promtool.out")"
# the RocketMQ sources' own series: every message acked (redeliveries may add), none held now,
# each ack request's latency observed; the datagen job acks nothing
mval() { awk -v n="$1{job=\"$2\"}" '$1==n {print $2}' "$WORK/m2.txt"; }
for j in to_sqlite relay; do
    [ "$(mval rocketsql_messages_acked_total "$j")" -ge "$N" ] 2>/dev/null ||
        die "$j acked: $(mval rocketsql_messages_acked_total "$j") < $N"
    [ "$(mval rocketsql_messages_held "$j")" = 0 ] || die "$j held: $(mval rocketsql_messages_held "$j")"
    [ "$(mval rocketsql_ack_latency_seconds_count "$j")" -ge 1 ] 2>/dev/null ||
        die "$j: no ack latency observed"
    grep -q "^rocketsql_invisible_renewals_total{job=\"$j\"} [0-9]" "$WORK/m2.txt" ||
        die "$j: no renewals series"
    grep -q "^rocketsql_messages_deferred_total{job=\"$j\"} 0$" "$WORK/m2.txt" ||
        die "$j: deferred without throttling"
done
[ "$(mval rocketsql_messages_acked_total to_bh)" = 0 ] || die "to_bh (datagen) acked messages"
ok "/metrics: acked >= $N, held 0 and ack latencies for both RocketMQ jobs"
kill -TERM "$SPID"
wait "$SPID"
src=$?
SPID=""
[ "$src" = 0 ] || die "SIGTERM: exit $src"
"$BIN" --catalog "$CAT" --tsv -e "SHOW JOB RUNS" >"$WORK/runs.txt" 2>&1
for j in to_sqlite relay; do
    for c in read:6 written:7; do
        col=${c#*:}
        name=${c%:*}
        m=$(awk -v n="rocketsql_records_${name}_total{job=\"$j\"}" '$1==n {print $2}' "$WORK/m2.txt")
        r=$(awk -F'\t' -v j="$j" -v c="$col" '$2==j {s+=$c} END {print s+0}' "$WORK/runs.txt")
        [ "$m" = "$r" ] || die "$j $name: /metrics $m, SHOW JOB RUNS $r"
    done
done
awk -F'\t' '$5=="running"' "$WORK/runs.txt" | grep -q . && die "a run still running after the drain"
ok "SIGTERM: exit 0; /metrics totals of to_sqlite and relay equal SHOW JOB RUNS"

echo "PASS t_serve"

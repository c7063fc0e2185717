#!/usr/bin/env bash
# rocketsql serve --http under slow clients: 200 connections from one address that each send
# half a request line and wait, and one client that sends its request a byte every 0.5 s.
# /healthz and /readyz (asked from another address) answer within 5 s while they are open; at
# most 16 connections from the one address stay open (the others are closed at once); every
# request that has not brought its headers within 5 s is cut, the dribbling one included
# (it is never idle, so the 10 s idle timeout alone would never close it).
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
PORT=$(free_port)
CLIENTS=""
slow_cleanup() {
    [ -z "$CLIENTS" ] || kill "$CLIENTS" 2>/dev/null || true
    serve_cleanup
}
trap slow_cleanup EXIT

run_rsql -e "
CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole');
CREATE JOB steady AS INSERT INTO bh SELECT a FROM gen"
[ "$RC" = 0 ] || fail "setup: $ERR"
serve_start serve --http "127.0.0.1:$PORT"
ready() { http /readyz; [ "$CODE" = 200 ]; }
until_true 20 "/readyz 200" ready

python3 "$RSQL_SRCDIR/tests/integration/slow_clients.py" "$PORT" 200 127.0.0.2 >"$T/slow.out" 2>&1 &
CLIENTS=$!
connected() { grep -q '^connected ' "$T/slow.out"; }
until_true 300 "the 200 slow connections made" connected
for path in /healthz /readyz; do
    t0=$(date +%s%N)
    http "$path"
    ms=$((($(date +%s%N) - t0) / 1000000))
    [ "$CODE" = 200 ] || fail "$path with 200 slow connections open: '$CODE' after $ms ms ($(head -1 "$T/slow.out"))"
    [ "$ms" -lt 5000 ] || fail "$path took $ms ms"
done
ok "/healthz and /readyz answer at once while 200 slow connections are open ($(head -1 "$T/slow.out"))"

set +e
wait "$CLIENTS"
crc=$?
set -e
CLIENTS=""
[ "$crc" = 0 ] || fail "slow clients: exit $crc: $(cat "$T/slow.out")"
val() { awk -v k="$1" '$1==k {print $2}' "$T/slow.out"; }
open1=$(val open_after_1s)
last=$(val last_closed_s)
drib=$(val dribbler_closed_s)
[ "$open1" -ge 1 ] && [ "$open1" -le 16 ] ||
    fail "connections from one address open after 1 s: $open1 (limit 16): $(cat "$T/slow.out")"
ok "at most 16 connections from one address stay open ($open1)"
python3 -c 'import sys; v=float(sys.argv[1]); sys.exit(0 if 0 <= v <= 8 else 1)' "$last" ||
    fail "the half-request connections were not all closed within 8 s: $(cat "$T/slow.out")"
python3 -c 'import sys; v=float(sys.argv[1]); sys.exit(0 if 4 <= v <= 8 else 1)' "$drib" ||
    fail "the dribbling client was not cut after ~5 s: $(cat "$T/slow.out")"
ok "requests without their headers after 5 s are cut (half lines by ${last}s, the dribbler after ${drib}s)"
http /healthz
[ "$CODE" = 200 ] || fail "/healthz afterwards: $CODE"
kill -TERM "$SPID"
serve_wait_exit
[ "$SRC" = 0 ] || fail "SIGTERM: exit $SRC: $(tail -5 "$T/serve.err")"
ok "the service drains and exits 0"
echo "$n_checks passed, 0 failed"

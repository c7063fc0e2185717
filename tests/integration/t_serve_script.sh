#!/usr/bin/env bash
# SET 'http.address' in a script: while its INSERT runs, the same endpoint as serve --http
# (/jobs, /metrics valid for promtool, /readyz); an address in use fails the statement before
# anything runs (exit 1, nothing read); Ctrl-C (SIGINT) still drains the INSERT as before.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
command -v promtool >/dev/null || fail "promtool is needed (Debian package prometheus; scripts/setup)"
PORT=$(free_port)
run_rsql -e "
CREATE TABLE gen (a INT) WITH ('connector'='datagen', 'rows-per-second'='200');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole')"
[ "$RC" = 0 ] || fail "setup: $ERR"

serve_start -e "SET 'http.address' = '127.0.0.1:$PORT'; INSERT INTO bh SELECT a FROM gen"
writing() { http /jobs; [ "$(job_field 'insert:gen->bh' counts.written)" -gt 0 ] 2>/dev/null; }
until_true 20 "the INSERT's counts on /jobs" writing
http /readyz
[ "$CODE" = 200 ] || fail "/readyz: $CODE"
http /metrics
echo "$BODY" | promtool check metrics >"$T/p.out" 2>&1 || fail "promtool: $(cat "$T/p.out")"
[ -n "$(metric rocketsql_records_written_total 'insert:gen->bh')" ] || fail "no series: $BODY"
ok "SET 'http.address': /jobs, /readyz and /metrics (promtool-valid) of the running INSERT"

set +e
"$RSQL" --catalog "$CAT" -e "SET 'http.address' = '127.0.0.1:$PORT'; INSERT INTO bh SELECT a FROM gen" \
    >"$T/o2" 2>"$T/e2"
rc2=$?
set -e
[ "$rc2" = 1 ] || fail "address in use: exit $rc2 $(cat "$T/e2")"
grep -q "http.address '127.0.0.1:$PORT': cannot listen: Address already in use" "$T/e2" ||
    fail "address in use: $(cat "$T/e2")"
grep -q "read=" "$T/e2" && fail "the INSERT ran although its endpoint did not start: $(cat "$T/e2")"
ok "an address in use fails the statement before it runs"

kill -INT "$SPID"
serve_wait_exit
[ "$SRC" = 130 ] || fail "SIGINT: exit $SRC, want 130 (interrupted): $(cat "$T/serve.err")"
grep -q "^read=[1-9][0-9]* written=[1-9]" "$T/serve.err" || fail "no summary: $(cat "$T/serve.err")"
http /healthz
[ "$CODE" = 000 ] || fail "the endpoint outlived the INSERT: $CODE"
ok "SIGINT drains the INSERT as before (summary, exit 130); the endpoint goes with it"
echo "$n_checks passed, 0 failed"

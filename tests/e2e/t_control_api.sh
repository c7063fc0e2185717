#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_control_api.sh: `rocketsql serve --apply FILE.sql --http ADDR --http-token-file FILE`.
#   1. the jobs file is applied at start; a following file job copies its rows;
#   2. the control API: no Authorization header and a wrong token get 401 (and a log line with
#      the client's address), an unknown job 404, GET 405, a start of a running job 409;
#      stop drains the job (stopped in /jobs, its run ended) and rows appended while it is
#      stopped are not copied, not even after a SIGHUP re-read; start copies them; restart
#      runs it again; the output holds every input row exactly once (compared with the input);
#      each action is a row of SHOW JOB RUNS with who asked;
#   3. SIGHUP applies the edited file (a changed job restarts with its new statement); a file
#      with an error on SIGHUP changes nothing and the job runs on;
#   4. without --http-token-file the control paths do not exist (404); SIGTERM ends a job's
#      open retries at once; a bad jobs file at start exits 1; --http-token-file without
#      --http and an empty token file are bad usage (64).
. "$RSQL_SRCDIR/tests/e2e/lib.sh"
command -v curl >/dev/null || fail "curl is needed"

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
TOKEN="tok-$RANDOM-$RANDOM-$RANDOM"
printf '%s\n' "$TOKEN" >"$T/token"
rows() { # N M: rows N..M appended to the input
    seq "$1" "$2" | awk '{printf "{\"id\":%d,\"name\":\"n%d\"}\n", $1, $1}' >>"$T/in.jsonl"
}
rows 1 10
jobs_file() { # the jobs file, its WHERE as given
    cat >"$T/jobs.sql" <<EOF
CREATE TABLE src (id BIGINT, name VARCHAR) WITH ('connector' = 'filesystem',
  'path' = '$T/in.jsonl', 'format' = 'json', 'scan.follow' = 'true');
CREATE TABLE out1 (id BIGINT, name VARCHAR) WITH ('connector' = 'filesystem',
  'path' = '$T/out.jsonl', 'format' = 'json');
CREATE JOB copy AS INSERT INTO out1 SELECT id, name FROM src WHERE $1;
EOF
}
jobs_file "id > 0"

"$RSQL" --catalog "$CAT" --log-level info serve --apply "$T/jobs.sql" --http "127.0.0.1:$PORT" \
    --http-token-file "$T/token" >"$T/serve.out" 2>"$T/serve.err" &
SP=$!
e2e_pids="$e2e_pids $SP"
out_lines() { [ -f "$T/out.jsonl" ] && wc -l <"$T/out.jsonl" || echo 0; }
has_lines() { [ "$(out_lines)" = "$1" ]; }
wait_until 30 has_lines 10 || fail "the job did not copy 10 rows: $(tail -5 "$T/serve.err")"
logged() { grep -q "$1" "$T/serve.err"; } # the log thread writes lines soon after
wait_until 10 logged "apply: applied: 3 created, 0 changed, 0 dropped" || fail "no apply line: $(cat "$T/serve.err")"
ok "serve --apply created the file's tables and job at start, and the job copied its 10 rows"

status() { curl -s "$URL/jobs" | python3 -c 'import sys,json; print(json.load(sys.stdin)["jobs"][0]["status"])'; }
post() { # VERB [CURL ARGS...]: sets CODE and BODY
    local verb=$1
    shift
    BODY=$(curl -s -o - -w '\n%{http_code}' -X POST "$@" "$URL/jobs/copy/$verb")
    CODE=${BODY##*$'\n'}
    BODY=${BODY%$'\n'*}
}
auth=(-H "Authorization: Bearer $TOKEN")

post stop
same "$CODE" 401 "POST stop without a token"
wait_until 10 logged "control API: POST /jobs/copy/stop from 127.0.0.1 refused: no Authorization header" ||
    fail "no log line for the refused request: $(tail -3 "$T/serve.err")"
post stop -H "Authorization: Bearer ${TOKEN}x"
same "$CODE" 401 "POST stop with a wrong token"
post stop -H "Authorization: Bearer ${TOKEN:0:-1}"
same "$CODE" 401 "POST stop with a token's prefix"
wait_until 10 logged "refused: wrong token" || fail "no log line for the wrong token"
post stop -H "Authorization: Basic $TOKEN"
same "$CODE" 401 "POST stop with a Basic authorization"
same "$(status)" "running" "the job after the refused requests"
ok "requests without the right bearer token are refused (401, logged) and do nothing"

BODY=$(curl -s -w '\n%{http_code}' -X POST "${auth[@]}" "$URL/jobs/nope/stop")
same "${BODY##*$'\n'}" 404 "POST stop of an unknown job"
BODY=$(curl -s -w '\n%{http_code}' "${auth[@]}" "$URL/jobs/copy/stop")
same "${BODY##*$'\n'}" 405 "GET of a control path"
post start "${auth[@]}"
same "$CODE" 409 "start of a running job"
ok "unknown job 404, GET 405, start of a running job 409"

post stop "${auth[@]}"
same "$CODE" 202 "stop"
grep -q '"action":"stop"' <<<"$BODY" || fail "stop's answer: $BODY"
is_stopped() { [ "$(status)" = "stopped" ]; }
wait_until 30 is_stopped || fail "the job is $(status) after stop"
ok "stop drained the job: /jobs says stopped"
rows 11 15
kill -HUP "$SP"
hups() { grep -c "SIGHUP: re-reading the catalog" "$T/serve.err"; }
applied_twice() { [ "$(grep -c "apply: no changes" "$T/serve.err")" -ge 1 ]; }
wait_until 30 applied_twice || fail "the SIGHUP apply did not happen: $(tail -3 "$T/serve.err")"
same "$(status)" "stopped" "the stopped job after a SIGHUP"
same "$(out_lines)" 10 "rows copied while the job is stopped (after a SIGHUP too)"
ok "a stopped job stays stopped across a SIGHUP re-read and copies nothing"

post start "${auth[@]}"
same "$CODE" 202 "start"
wait_until 30 has_lines 15 || fail "after start the output has $(out_lines) rows, not 15"
ok "start ran the job again: it copied the 5 rows appended while it was stopped"

run_id() { curl -s "$URL/jobs" | python3 -c 'import sys,json; print(json.load(sys.stdin)["jobs"][0]["run_id"])'; }
before=$(run_id)
post restart "${auth[@]}"
same "$CODE" 202 "restart"
new_run() { [ "$(run_id)" -gt "$before" ] && [ "$(status)" = "running" ]; }
wait_until 30 new_run || fail "no new run after restart (run $(run_id), $(status))"
rows 16 20
wait_until 30 has_lines 20 || fail "after restart the output has $(out_lines) rows, not 20"
python3 - "$T/in.jsonl" "$T/out.jsonl" <<'EOF' || fail "the output is not the input exactly once"
import json, sys
want = sorted(json.loads(l)["id"] for l in open(sys.argv[1]))
got = sorted(json.loads(l)["id"] for l in open(sys.argv[2]))
sys.exit(0 if want == got else 1)
EOF
ok "restart ran a new run; the output holds every input row exactly once"

actions=$(runs_tsv copy | awk -F'\t' '$5 == "stop" || $5 == "start" || $5 == "restart" {print $5}' | tac | tr '\n' ' ')
same "$actions" "stop start restart " "the actions in SHOW JOB RUNS, oldest first"
runs_tsv copy | awk -F'\t' '$5 == "stop"' | grep -q '"via":"control API","peer":"127.0.0.1"' ||
    fail "the stop row does not say who asked: $(runs_tsv copy)"
ok "each action is a row of SHOW JOB RUNS with who asked"

# 3. SIGHUP applies an edited file: the job restarts with its new statement
jobs_file "id > 18"
before=$(run_id)
kill -HUP "$SP"
changed() { grep -q "apply: ~ job copy: statement changed" "$T/serve.err" && [ "$(run_id)" -gt "$before" ]; }
wait_until 30 changed || fail "the edited file was not applied: $(tail -5 "$T/serve.err")"
rows 21 22
wait_until 30 has_lines 22 || fail "after the change the output has $(out_lines) rows"
ok "SIGHUP applied the edited file and the changed job ran with its new statement"
echo "CREATE TABLE broken (" >>"$T/jobs.sql"
kill -HUP "$SP"
refused() { grep -q "apply: $T/jobs.sql:7:1: incomplete input; the catalog was not changed" "$T/serve.err"; }
wait_until 30 refused || fail "no error for the broken file: $(tail -5 "$T/serve.err")"
same "$(status)" "running" "the job after a broken file"
rows 23 23
wait_until 30 has_lines 23 || fail "the job stopped copying after a broken file"
ok "a broken file on SIGHUP is logged with its place, changes nothing, and the job runs on"

kill -TERM "$SP"
wait_pid "$SP" 30
same "$RC" 0 "serve's exit status after SIGTERM"

# 4. no token: no control API; bad starts
jobs_file "id > 0"
"$RSQL" --catalog "$CAT" serve --http "127.0.0.1:$PORT" >"$T/serve2.out" 2>"$T/serve2.err" &
SP=$!
e2e_pids="$e2e_pids $SP"
up() { curl -sf "$URL/healthz"; }
wait_until 30 up || fail "serve without a token did not answer"
post stop "${auth[@]}"
same "$CODE" 404 "POST stop on a serve without --http-token-file"
kill -TERM "$SP"
wait_pid "$SP" 30
ok "without --http-token-file the control paths do not exist (404)"
# a job whose broker is not there retries its open (errors.retry.timeout, 30 s by default);
# SIGTERM ends those retries at once
cat >"$T/down.sql" <<EOF
CREATE TABLE src (id BIGINT) WITH ('connector' = 'rocketmq-grpc', 'endpoints' = '127.0.0.1:1',
  'topic' = 't', 'source.consumer-group' = 'g');
CREATE TABLE o (id BIGINT) WITH ('connector' = 'blackhole');
CREATE JOB j AS INSERT INTO o SELECT id FROM src;
EOF
"$RSQL" --catalog "$T/down.db" --log-level info serve --apply "$T/down.sql" >"$T/serve3.out" 2>"$T/serve3.err" &
SP=$!
e2e_pids="$e2e_pids $SP"
retrying() { grep -q "source open failed (UNAVAILABLE, transient), retry 1 " "$T/serve3.err"; }
wait_until 30 retrying || fail "the job did not retry its open: $(tail -3 "$T/serve3.err")"
kill -TERM "$SP"
wait_pid "$SP" 5
same "$RC" 0 "serve's exit status after SIGTERM while a job retries its open"
ok "SIGTERM ends a job's open retries at once (within 5 s, not errors.retry.timeout)"
echo "CREATE TABLE broken (" >>"$T/jobs.sql"
rsql serve --apply "$T/jobs.sql"
expect_rc 1 "serve --apply of a broken file"
grep -q "jobs.sql:7:1: incomplete input" <<<"$ERR" || fail "no place in: $ERR"
rsql serve --http-token-file "$T/token"
expect_rc 64 "--http-token-file without --http"
: >"$T/empty"
rsql serve --http "127.0.0.1:$PORT" --http-token-file "$T/empty"
expect_rc 64 "an empty token file"
echo PASS

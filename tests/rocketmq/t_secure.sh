#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_secure.sh: rocketsql against the secured RocketMQ 5.5 (scripts/rocketmq --secure: ACL 2.0
# authentication and authorization on broker and proxy, the proxy's gRPC port TLS-only with the
# CA of scripts/test-certs), with the official Java client (tests/interop/rmq-interop, same
# credentials, TLS) as the independent peer:
#   1. simple mode: Java produces N messages as the allowed user -> rocketsql (source and sink,
#      TLS verified against the CA, secret-key from ${file:...}) relays them -> Java consumes
#      all N from the output topic, as the same user;
#   2. lite mode: rocketsql (datagen) writes N rows to a lite topic (sink.lite-topic) -> Java
#      lite consumer gets all N; Java produces N lite messages on another LITE parent ->
#      rocketsql's lite source (wildcard group) reads all N (secret-key from ${env:...});
#   3. refusals, each at once (no retry: well under the job's 30 s retry budget) with an error
#      that says what was refused, for the sink and for the source: a wrong secret, an unknown
#      user, a user without permission on the topic, a user without permission on the group
#      (source); the Java client is refused the same way with the wrong secret;
#   4. TLS: no CA (gRPC's default roots) -> "not trusted"; a name the certificate does not
#      hold -> says so; plaintext to the TLS-only port fails (UNAVAILABLE, after 2 s of retries);
#   4b. endpoints = a refusing address, then the proxy: works through the second;
#   4c. endpoints = two loopback forwarders (tests/rocketmq/tcp_forward.py) in front of the one
#      proxy: while the Java client produces at a steady rate, rocketsql's source reads through
#      the first; that forwarder is killed mid-run; the job goes on through the second, its
#      periodic route refresh (30 s) included, and the sink gets every id;
#   5. the catalog never holds the secret (it holds the reference).
# The secured instance is started when it is not running, and then stopped at the end. A server that cannot be reached is a FAILURE. Last line: "PASS t_secure" or
# "FAIL t_secure: <why>".
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RMQ="$REPO/scripts/rocketmq"
JAVA="$REPO/tests/interop/rmq-interop"
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_secure.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

failed=""
fail() { failed="$failed; $*"; echo "not ok: $*"; }
die() { echo "FAIL t_secure: $*"; exit 1; }
T0=$(date +%s)
ok() { echo "ok ($(( $(date +%s) - T0 )) s): $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
S=("$RMQ" --secure)
# started here: stopped at the end (the runner manages only the plain instance)
STARTED=0
"${S[@]}" status >/dev/null 2>&1 || STARTED=1
# the failover case's forwarders (their pids in $WORK/*.fwdpid) go too, whatever happens
trap 'for f in "$WORK"/*.fwdpid; do [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null; done; rm -rf "$WORK"; [ "$STARTED" = 0 ] || "${S[@]}" stop >/dev/null 2>&1' EXIT
"${S[@]}" start >"$WORK/start.log" 2>&1 || { tail -5 "$WORK/start.log"; die "secured broker did not start"; }
"${S[@]}" status >"$WORK/status" || die "secured broker not up"
EP=$(sed -n 's/^endpoint: //p' "$WORK/status")
NS=$(sed -n 's/^namesrv: //p' "$WORK/status")
BR=$(sed -n 's/^broker: //p' "$WORK/status")
CA=$(sed -n 's/^tls: enforcing, CA //p' "$WORK/status")
[ -n "$EP" ] && [ -n "$NS" ] && [ -n "$BR" ] && [ -f "$CA" ] || die "no endpoint/CA in: $(cat "$WORK/status")"
P="rsec$(date +%s)$$"
N=${TSEC_N:-200}

# topics, lite groups, users and their policies: one admin JVM for all (the broker creates
# normal consumer groups on first use: autoCreateSubscriptionGroup)
OKS="ok-${P}-s3cret"
cat >"$WORK/admin.txt" <<EOF
updateTopic -n $NS -b $BR -t ${P}in -r 4 -w 4 -a +message.type=NORMAL
updateTopic -n $NS -b $BR -t ${P}out -r 4 -w 4 -a +message.type=NORMAL
updateTopic -n $NS -b $BR -t ${P}x -r 4 -w 4 -a +message.type=NORMAL
updateTopic -n $NS -b $BR -t ${P}f -r 4 -w 4 -a +message.type=NORMAL
updateTopic -n $NS -b $BR -t ${P}l -r 4 -w 4 -a +message.type=LITE
updateTopic -n $NS -b $BR -t ${P}l2 -r 4 -w 4 -a +message.type=LITE
updateSubGroup -n $NS -b $BR -g ${P}lg -o false --attributes +lite.bind.topic=${P}l2,+lite.sub.wildcard=true
updateSubGroup -n $NS -b $BR -g ${P}jlg -o false --attributes +lite.bind.topic=${P}l,+lite.sub.wildcard=true
createUser -n $NS -b $BR -u ${P}ok -p $OKS -t Normal
createAcl -n $NS -b $BR -s User:${P}ok -r Topic:${P}in,Topic:${P}out,Topic:${P}x,Topic:${P}f,Topic:${P}l,Topic:${P}l2 -a Pub,Sub -d Allow
createAcl -n $NS -b $BR -s User:${P}ok -r Group:${P}g,Group:${P}fg,Group:${P}jg,Group:${P}lg,Group:${P}jlg -a Sub -d Allow
createUser -n $NS -b $BR -u ${P}nt -p nt-s3cret -t Normal
createAcl -n $NS -b $BR -s User:${P}nt -r Group:${P}g -a Sub -d Allow
createUser -n $NS -b $BR -u ${P}ng -p ng-s3cret -t Normal
createAcl -n $NS -b $BR -s User:${P}ng -r Topic:${P}in,Topic:${P}out -a Pub,Sub -d Allow
EOF
"${S[@]}" mqadmin-batch "$WORK/admin.txt" >"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "admin batch"; }
want=$(grep -c . "$WORK/admin.txt")
got=$(grep -ci "success" "$WORK/admin.log")
[ "$got" -ge "$want" ] || { cat "$WORK/admin.log"; die "admin batch: $got of $want commands succeeded"; }
ok "topics, groups, 3 users and their policies created ($got commands)"

JSEC=(--tls --access-key "${P}ok" --secret-key "$OKS")
printf '%s\n' "$OKS" >"$WORK/secret"
chmod 600 "$WORK/secret"
conn() { # topic [extra]
    echo "'connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='$1', 'tls'='true', 'tls.ca-file'='$CA'$2"
}
# rsql SQLFILE CATALOG: runs it; stdout+stderr in SQLFILE.out; sets RC and SECS
rsql() {
    local t0
    t0=$(date +%s%N)
    "$BIN" --catalog "$2" -f "$1" >"$1.out" 2>&1
    RC=$?
    SECS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

# Cases 1 and 2 run as background chains (a JVM or two and a rocketsql run each) while 3 and 4
# run in the foreground; each chain's verdict is collected at the end.
# ---------------------------------------------------------------- 1. simple mode relay
case1() {
    "$JAVA" produce --endpoint "$EP" --topic "${P}in" --count "$N" "${JSEC[@]}" >"$WORK/1p.out" 2>&1 ||
        { tail -3 "$WORK/1p.out"; fail "Java produce as ${P}ok"; return; }
    cat >"$WORK/1.sql" <<EOF
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ($(conn "${P}in" ", 'source.consumer-group'='${P}g', 'scan.idle-timeout'='6s', 'access-key'='${P}ok', 'secret-key'='\${file:$WORK/secret}'"));
CREATE TABLE dst (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ($(conn "${P}out" ", 'access-key'='${P}ok', 'secret-key'='\${file:$WORK/secret}', 'sink.keys-column'='id'"));
INSERT INTO dst SELECT id, customer, amount FROM src;
EOF
    rsql "$WORK/1.sql" "$WORK/c1.db"
    if [ "$RC" = 0 ] && grep -q "read=$N written=$N " "$WORK/1.sql.out"; then
        ok "simple: rocketsql relayed $N messages over TLS as ${P}ok"
    else
        tail -3 "$WORK/1.sql.out"; fail "simple relay (rc=$RC)"
    fi
    if grep -q -- "$OKS" "$WORK/c1.db"; then
        fail "the catalog holds the secret"
    else
        ok "the catalog holds the \${file:...} reference, not the secret"
    fi
}
# the Java consumer of the relay's output, started with it
case1_verify() {
    if "$JAVA" consume --endpoint "$EP" --topic "${P}out" --group "${P}jg" --count "$N" --timeout 70 \
        "${JSEC[@]}" >"$WORK/1c.out" 2>&1 && grep -q "received=$N distinct=$N missing=0" "$WORK/1c.out"; then
        ok "simple: the Java client (same user) consumed all $N from ${P}out"
    else
        tail -3 "$WORK/1c.out"; fail "Java consume of the relayed messages"
    fi
}

# ---------------------------------------------------------------- 2. lite mode, both ways
case2_sink() {
    cat >"$WORK/2s.sql" <<EOF
CREATE TABLE gen (id BIGINT NOT NULL, note VARCHAR)
  WITH ('connector'='datagen', 'number-of-rows'='$N', 'fields.id.kind'='sequence',
        'fields.id.start'='0', 'fields.id.end'='$((N - 1))');
CREATE TABLE lsink (id BIGINT, note VARCHAR)
  WITH ($(conn "${P}l" ", 'sink.lite-topic'='k1', 'access-key'='${P}ok', 'secret-key'='\${env:TSEC_SECRET}'"));
INSERT INTO lsink SELECT * FROM gen;
EOF
    TSEC_SECRET=$OKS rsql "$WORK/2s.sql" "$WORK/c2.db"
    if [ "$RC" = 0 ] && grep -q "written=$N " "$WORK/2s.sql.out"; then
        ok "lite: rocketsql wrote $N rows to lite topic k1 of ${P}l"
    else
        tail -3 "$WORK/2s.sql.out"; fail "lite sink (rc=$RC)"
    fi
}
case2_verify() {
    if "$JAVA" consume --endpoint "$EP" --topic "${P}l" --group "${P}jlg" --lite --count "$N" --timeout 70 \
        "${JSEC[@]}" >"$WORK/2c.out" 2>&1 && grep -q "received=$N distinct=$N missing=0" "$WORK/2c.out"; then
        ok "lite: the Java lite consumer got all $N rows rocketsql wrote"
    else
        tail -3 "$WORK/2c.out"; fail "Java lite consume"
    fi
}
case2_source() {
    "$JAVA" produce --endpoint "$EP" --topic "${P}l2" --type lite --lite-topics 5 --lite-prefix j- \
        --count "$N" "${JSEC[@]}" >"$WORK/2p.out" 2>&1 ||
        { tail -3 "$WORK/2p.out"; fail "Java lite produce"; return; }
    cat >"$WORK/2r.sql" <<EOF
CREATE TABLE lsrc (id BIGINT, lite_topic VARCHAR)
  WITH ($(conn "${P}l2" ", 'source.consumer-group'='${P}lg', 'source.mode'='lite', 'scan.idle-timeout'='15s', 'access-key'='${P}ok', 'secret-key'='\${env:TSEC_SECRET}'"));
CREATE TABLE sink2 (id BIGINT, lite_topic VARCHAR)
  WITH ('connector'='filesystem', 'path'='$WORK/lite-out.csv', 'format'='csv');
INSERT INTO sink2 SELECT id, lite_topic FROM lsrc;
EOF
    TSEC_SECRET=$OKS rsql "$WORK/2r.sql" "$WORK/c2r.db"
    local got
    got=$(cut -d, -f1 "$WORK/lite-out.csv" 2>/dev/null | sort -u | grep -c .)
    if [ "$RC" = 0 ] && [ "$got" = "$N" ]; then
        ok "lite: rocketsql's lite source read all $N Java lite messages (5 lite topics)"
    else
        tail -3 "$WORK/2r.sql.out"; fail "lite source (rc=$RC, distinct ids $got of $N)"
    fi
}

# ---------------------------------------------------------------- 4c. the endpoint in use stopped mid-run
FWD="$REPO/tests/rocketmq/tcp_forward.py"
# fwd_start NAME: a forwarder to the proxy, its events in $WORK/NAME.fwd; prints its port
fwd_start() {
    local i port=""
    python3 "$FWD" "$EP" "$WORK/$1.fwd" >"$WORK/$1.fwderr" 2>&1 &
    echo $! >"$WORK/$1.fwdpid"
    for i in $(seq 100); do
        port=$(sed -n 's/^port //p' "$WORK/$1.fwd" 2>/dev/null)
        [ -n "$port" ] && break
        sleep 0.1
    done
    [ -n "$port" ] || { cat "$WORK/$1.fwderr"; return 1; }
    echo "$port"
}
opens() { grep -c '^open ' "$WORK/$1.fwd" 2>/dev/null; }
case4c() {
    local fa fb n=${TSEC_FN:-300} jp bp brc i killed refreshed=0
    fa=$(fwd_start fa) && fb=$(fwd_start fb) || { fail "failover: forwarders did not start"; return; }
    cat >"$WORK/4c.sql" <<EOF
CREATE TABLE fsrc (id BIGINT, customer VARCHAR, amount DOUBLE)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='127.0.0.1:$fa,127.0.0.1:$fb', 'topic'='${P}f', 'tls'='true', 'tls.ca-file'='$CA', 'tls.server-name'='localhost', 'source.consumer-group'='${P}fg', 'source.invisible-duration'='10s', 'scan.idle-timeout'='32s', 'access-key'='${P}ok', 'secret-key'='\${env:TSEC_SECRET}');
CREATE TABLE fout (id BIGINT, customer VARCHAR)
  WITH ('connector'='filesystem', 'path'='$WORK/4c.csv', 'format'='csv');
INSERT INTO fout SELECT id, customer FROM fsrc;
EOF
    # the Java client produces at a steady rate (straight to the proxy), so that messages keep
    # arriving before, during and after the kill
    "$JAVA" produce --endpoint "$EP" --topic "${P}f" --count "$n" --rate 25 "${JSEC[@]}" >"$WORK/4cp.out" 2>&1 &
    jp=$!
    TSEC_SECRET=$OKS "$BIN" --log-level debug --catalog "$WORK/4c.db" -f "$WORK/4c.sql" >"$WORK/4c.sql.out" 2>&1 &
    bp=$!
    # kill the first forwarder once rows have come through it (pick_first: the job uses the first
    # address that answers, the second one has no connection yet)
    killed=0
    for i in $(seq 300); do
        if [ "$(opens fa)" -ge 1 ] && [ -s "$WORK/4c.csv" ]; then killed=1; break; fi
        kill -0 "$bp" 2>/dev/null || break
        sleep 0.1
    done
    if [ "$killed" = 1 ]; then
        local before before_b
        before=$(grep -c . "$WORK/4c.csv")
        before_b=$(opens fb)
        kill "$(cat "$WORK/fa.fwdpid")"
        # refreshes so far went through the first forwarder (a slow start can see one)
        refreshed=$(grep -c "route refreshed" "$WORK/4c.sql.out")
        ok "failover: killed the first forwarder (127.0.0.1:$fa, $(opens fa) connection(s)) after $before rows; the second had $before_b"
        [ "$before_b" = 0 ] || fail "failover: the second forwarder was in use before the kill ($before_b connections)"
    else
        fail "failover: no rows came through the first forwarder (127.0.0.1:$fa, $(opens fa) connections)"
    fi
    wait "$jp" || { tail -3 "$WORK/4cp.out"; fail "failover: Java produce"; }
    wait "$bp"
    brc=$?
    local got
    got=$(cut -d, -f1 "$WORK/4c.csv" 2>/dev/null | sort -u | grep -c .)
    if [ "$brc" = 0 ] && [ "$got" = "$n" ] && grep -q "read=[0-9]* " "$WORK/4c.sql.out"; then
        ok "failover: the job went on through the second forwarder (127.0.0.1:$fb, $(opens fb) connection(s)); the sink got all $n ids"
    else
        tail -5 "$WORK/4c.sql.out"; fail "failover: rc=$brc, distinct ids $got of $n"
    fi
    [ "$killed" = 0 ] || [ "$(opens fb)" -ge 1 ] || fail "failover: no connection through the second forwarder"
    # the periodic route refresh (every 30 s; the job idles 32 s after its last message, so it
    # runs past one after the kill) went through the second one
    if [ "$(grep -c "route refreshed" "$WORK/4c.sql.out")" -gt "$refreshed" ] &&
        ! grep -q "route refresh of client .* failed" "$WORK/4c.sql.out"; then
        ok "failover: the route refresh after the kill went through the second forwarder"
    else
        grep "route refresh" "$WORK/4c.sql.out" | tail -2; fail "failover: no route refresh after the kill"
    fi
    kill "$(cat "$WORK/fb.fwdpid")" 2>/dev/null
}

# each chain reports through its own file (a subshell cannot set $failed)
chain() { # NAME FUNCTIONS...
    local name=$1
    shift
    ( failed=""; for fn in "$@"; do "$fn"; done; printf '%s' "$failed" >"$WORK/$name.failed" ) \
        >"$WORK/$name.log" 2>&1 &
    PIDS="$PIDS $!"
}
case3_java() {
    if "$JAVA" produce --endpoint "$EP" --topic "${P}in" --count 1 --tls --access-key "${P}ok" \
        --secret-key wrong-secret >"$WORK/3j.out" 2>&1; then
        fail "the Java client was not refused with a wrong secret"
    elif grep -q "check signature failed" "$WORK/3j.out"; then
        ok "the Java client is refused the same way: $(grep -m1 -o 'check signature failed' "$WORK/3j.out")"
    else
        tail -3 "$WORK/3j.out"; fail "Java refusal without 'check signature failed'"
    fi
}
PIDS=""
chain c3j case3_java
chain c1 case1
chain c1v case1_verify
chain c2 case2_sink case2_verify
chain c2r case2_source
chain c4c case4c

# ---------------------------------------------------------------- 3. refusals
# refused SIDE USER SECRET WANT: a one-row write (sink) or a read (source) fails with WANT, at
# once: within 10 s of starting the process on a loaded machine, where a retried (transient)
# failure would take the job's 30 s retry budget
refused() {
    local side=$1 user=$2 secret=$3 want=$4 f="$WORK/r$RANDOM.sql"
    if [ "$side" = sink ]; then
        cat >"$f" <<EOF
CREATE TABLE g (id BIGINT NOT NULL) WITH ('connector'='datagen', 'number-of-rows'='1');
CREATE TABLE t (id BIGINT) WITH ($(conn "${P}in" ", 'access-key'='$user', 'secret-key'='\${env:TSEC_SECRET}'"));
INSERT INTO t SELECT * FROM g;
EOF
    else
        cat >"$f" <<EOF
CREATE TABLE t (id BIGINT) WITH ($(conn "${P}in" ", 'source.consumer-group'='${P}g', 'scan.idle-timeout'='5s', 'access-key'='$user', 'secret-key'='\${env:TSEC_SECRET}'"));
SELECT id FROM t;
EOF
    fi
    TSEC_SECRET=$secret rsql "$f" "$f.db"
    if [ "$RC" != 0 ] && grep -qF -- "$want" "$f.out" && [ "$SECS" -lt 10000 ]; then
        ok "$side refused for $user in ${SECS} ms: $(grep -m1 -F -- "$want" "$f.out")"
    else
        tail -3 "$f.out"; fail "$side as $user: rc=$RC after ${SECS} ms, wanted '$want'"
    fi
    grep -qF -- "$secret" "$f.out" && fail "the secret of $user was printed"
}
refused sink "${P}ok" wrong-secret "RocketMQ UNAUTHORIZED (40100): check signature failed"
refused source "${P}ok" wrong-secret "RocketMQ UNAUTHORIZED (40100): check signature failed"
refused sink "${P}nobody" any-secret "RocketMQ UNAUTHORIZED (40100): User:${P}nobody is not found"
refused source "${P}nobody" any-secret "RocketMQ UNAUTHORIZED (40100): User:${P}nobody is not found"
refused sink "${P}nt" nt-s3cret "User:${P}nt has no permission to access Topic:${P}in"
refused source "${P}nt" nt-s3cret "User:${P}nt has no permission to access Topic:${P}in"
refused source "${P}ng" ng-s3cret "User:${P}ng has no permission to access Group:${P}g"
# ---------------------------------------------------------------- 4. TLS
tls_case() { # EXTRA WANT [SETTINGS]
    local f="$WORK/t$RANDOM.sql"
    cat >"$f" <<EOF
CREATE TABLE g (id BIGINT NOT NULL) WITH ('connector'='datagen', 'number-of-rows'='1');
CREATE TABLE t (id BIGINT) WITH ('connector'='rocketmq-grpc', 'endpoints'='$EP', 'topic'='${P}in', $1, 'access-key'='${P}ok', 'secret-key'='\${env:TSEC_SECRET}');
${3:-}
INSERT INTO t SELECT * FROM g;
EOF
    TSEC_SECRET=$OKS rsql "$f" "$f.db"
    if [ "$RC" != 0 ] && grep -qF -- "$2" "$f.out" && [ "$SECS" -lt 10000 ]; then
        ok "TLS refused in ${SECS} ms: $(grep -m1 -F -- "$2" "$f.out" | cut -c1-160)"
    else
        tail -3 "$f.out"; fail "TLS case '$1': rc=$RC after ${SECS} ms, wanted '$2'"
    fi
}
tls_case "'tls'='true'" "TLS: the server's certificate is not trusted"
tls_case "'tls'='true', 'tls.ca-file'='$CA', 'tls.server-name'='mq.wrong.example'" \
    "TLS: the server's certificate does not hold the name 'mq.wrong.example'"
# plaintext to the TLS-only port: the proxy closes the socket, which is what a server that is
# down looks like (UNAVAILABLE, transient), so opening the sink is retried for
# errors.retry.timeout (2 s here; 30 s by default) before the run fails with the status
tls_case "'tls'='false'" "gRPC UNAVAILABLE (14)" "SET 'errors.retry.timeout' = '2s';"

# ---------------------------------------------------------------- 4b. two endpoints, the first down
# (the first endpoint's host, 127.0.0.1, is the name the certificate is checked against)
DEAD=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WORK/4b.sql" <<EOF
CREATE TABLE g (id BIGINT NOT NULL) WITH ('connector'='datagen', 'number-of-rows'='5');
CREATE TABLE t (id BIGINT) WITH ('connector'='rocketmq-grpc', 'endpoints'='127.0.0.1:$DEAD,$EP', 'topic'='${P}x', 'tls'='true', 'tls.ca-file'='$CA', 'access-key'='${P}ok', 'secret-key'='\${env:TSEC_SECRET}');
INSERT INTO t SELECT * FROM g;
EOF
TSEC_SECRET=$OKS rsql "$WORK/4b.sql" "$WORK/4b.db"
if [ "$RC" = 0 ] && grep -q "written=5 " "$WORK/4b.sql.out"; then
    ok "endpoints '127.0.0.1:$DEAD,$EP' (the first refusing): written through the second, TLS verified"
else
    tail -3 "$WORK/4b.sql.out"; fail "two endpoints, the first down (rc=$RC)"
fi

for p in $PIDS; do wait "$p"; done
for c in c3j c1 c1v c2 c2r c4c; do
    cat "$WORK/$c.log"
    failed="$failed$(cat "$WORK/$c.failed" 2>/dev/null)"
done
ok "all cases done"

if [ -n "$failed" ]; then
    echo "FAIL t_secure:${failed#;}"
    exit 1
fi
echo "PASS t_secure"

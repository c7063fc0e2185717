#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pg_tls.sh: the postgres connector's url is used as written: what it sets is not
# overridden by defaults, against a PostgreSQL that accepts only TLS (scripts/postgres with
# RSQL_PG_TLS=1: ssl = on, hostssl lines only, the certificates of scripts/test-certs; started
# here on $RSQL_PG_TLS_PORT when it does not run, and stopped again). Checked:
#   1. `?sslmode=verify-full` with a CA that did not sign the server's certificate: the run
#      fails at once with libpq's message, and without trying again without TLS (as `prefer`,
#      the default that used to override the url's, does); with the right CA but a host name
#      the certificate does not hold, it fails too (`prefer` does not check names: it
#      connected);
#   2. `?sslmode=verify-full` with the right CA, the url given as a reference
#      (`${env:...}`): the rows are read, and SHOW CREATE TABLE
#      shows the reference as written;
#   3. `?sslmode=disable`: refused by the server (no hostnossl line), with its message; the
#      `sslmode` option, when set, overrides the url's (`require` connects);
#   4. `?connect_timeout=2` against a server that never answers: the attempt ends after about
#      2 s (not the 10 s default), with libpq's "timeout expired".
. "$(dirname "$0")/lib.sh"

. "$(dirname "$0")/pg_lib.sh"
export RSQL_PG_TLS=1
tls_started=""
if ! "$PGS" status >/dev/null 2>&1; then
    "$PGS" start || fail "cannot start the TLS-only PostgreSQL (scripts/postgres, RSQL_PG_TLS=1)"
    tls_started=1
fi
URL=$("$PGS" url) # postgresql://USER@localhost:PORT/rocketsql?sslmode=verify-full&sslrootcert=CA
BASE=${URL%%\?*}
CERTS="$RSQL_BUILD_DIR/postgres-tls/certs"
S="t$$"
psql_q "DROP SCHEMA IF EXISTS $S CASCADE; CREATE SCHEMA $S;
        CREATE TABLE $S.src (id bigint, name text);
        INSERT INTO $S.src VALUES (1, 'a'), (2, 'b'), (3, 'c')" >/dev/null ||
    fail "psql cannot reach the TLS-only server at $URL"
hang_pid=""
tls_cleanup() {
    psql_q "DROP SCHEMA IF EXISTS $S CASCADE" >/dev/null 2>&1 || true
    [ -z "$hang_pid" ] || kill "$hang_pid" 2>/dev/null || true
    [ -z "$tls_started" ] || "$PGS" stop || true
}
trap 'tls_cleanup; e2e_cleanup' EXIT
ok "a TLS-only PostgreSQL at $BASE, schema $S"

# t NAME URL [MORE OPTIONS]: a postgres source table NAME on $S.src reached by URL
t() {
    echo "CREATE TABLE $1 (id BIGINT, name STRING) WITH ('connector' = 'postgres',
      'url' = '$2', 'table-name' = '$S.src'${3:+, $3});"
}
cat >tables.sql <<SQL
$(t wrongca "$BASE?sslmode=verify-full&sslrootcert=$CERTS/other-ca.pem")
$(t wrongname "${BASE/@localhost:/@wrongname:}?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=$CERTS/ca.pem")
$(t rightca '${env:RSQL_TLS_URL}')
$(t plain "$BASE?sslmode=disable")
$(t forced "$BASE?sslmode=disable" "'sslmode' = 'require'")
CREATE TABLE out (id BIGINT, name STRING) WITH ('connector' = 'filesystem',
  'path' = 'out.jsonl', 'format' = 'json');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

# ---- 1. verify-full with the wrong CA: libpq's own message, at once (not retried)
start=$(date +%s)
rsql -e "INSERT INTO out SELECT * FROM wrongca"
[ "$RC" != 0 ] || fail "verify-full with a wrong CA connected: $OUT $ERR"
case "$ERR" in *"cannot connect"*"certificate verify failed"*) ok "verify-full with a wrong CA fails with libpq's message" ;;
*) fail "the wrong CA: $ERR" ;; esac
[ $(($(date +%s) - start)) -lt 15 ] || fail "a certificate that does not verify was retried"
ok "it fails at once (permanent)"
case "$ERR" in *"no encryption"*) fail "verify-full fell back to a connection without TLS: $ERR" ;; esac
ok "no attempt without TLS"
rsql -e "INSERT INTO out SELECT * FROM wrongname"
[ "$RC" != 0 ] || fail "verify-full connected to a server whose certificate is not for its name"
case "$ERR" in *"does not match host name \"wrongname\""*) ok "verify-full checks the host name" ;;
*) fail "the wrong host name: $ERR" ;; esac
[ ! -s out.jsonl ] || fail "rows were read over an unverified connection: $(cat out.jsonl)"

# ---- 2. verify-full with the right CA, the url as a reference
RSQL_TLS_URL="$URL" rsql -e "INSERT INTO out SELECT * FROM rightca"
expect_rc 0 "verify-full with the right CA (the url from \${env:RSQL_TLS_URL})"
same "$(sort out.jsonl | tr '\n' '~')" \
    '{"id":1,"name":"a"}~{"id":2,"name":"b"}~{"id":3,"name":"c"}~' "the rows are read"
rsql -e "SHOW CREATE TABLE rightca"
case "$OUT" in *"'url' = '\${env:RSQL_TLS_URL}'"*) ok "SHOW CREATE TABLE shows the reference as written" ;;
*) fail "SHOW CREATE TABLE: $OUT" ;; esac
rm -f out.jsonl

# ---- 3. sslmode=disable in the url is used (the server refuses it); the option overrides it
rsql -e "INSERT INTO out SELECT * FROM plain"
[ "$RC" != 0 ] || fail "sslmode=disable in the url connected: the url's sslmode was overridden"
case "$ERR" in *"no pg_hba.conf entry"*"no encryption"*) ok "sslmode=disable in the url: refused by the TLS-only server" ;;
*) fail "sslmode=disable: $ERR" ;; esac
rsql -e "INSERT INTO out SELECT * FROM forced"
expect_rc 0 "the sslmode option overrides the url's"
same "$(wc -l <out.jsonl)" 3 "the rows are read with sslmode 'require'"

# ---- 4. connect_timeout in the url: a server that takes the connection and never answers
python3 -c '
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
time.sleep(600)' >hang.port &
hang_pid=$!
wait_until 10 test -s hang.port || fail "the silent server did not start"
HPORT=$(cat hang.port)
rsql -e "$(t silent "postgresql://x@127.0.0.1:$HPORT/db?connect_timeout=2&sslmode=disable")"
expect_rc 0 "create the silent table"
start=$(date +%s.%N)
rsql -e "SET 'errors.retry.timeout' = '0'; INSERT INTO out SELECT * FROM silent"
took=$(python3 -c "import sys; print('%.1f' % (float(sys.argv[1]) - float(sys.argv[2])))" \
    "$(date +%s.%N)" "$start")
[ "$RC" != 0 ] || fail "a server that never answers: the run succeeded"
case "$ERR" in *"timeout expired"*) ok "libpq's timeout" ;; *) fail "the silent server: $ERR" ;; esac
python3 -c "import sys; sys.exit(0 if 1.5 <= float(sys.argv[1]) < 8 else 1)" "$took" ||
    fail "connect_timeout=2 in the url took ${took}s (the 10 s default overrides it?)"
ok "connect_timeout=2 in the url: gave up after ${took}s"
echo PASS

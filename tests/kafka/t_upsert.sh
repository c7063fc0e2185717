#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_upsert.sh: the upsert-kafka connector against a real Kafka. Kafka's Java console producer
# writes N keyed changes (T_UPSERT_N, default 3,000) over 200 keys into a 3-partition topic A:
# a JSON value is the key's row, a record without a value (a tombstone) deletes the key. The
# reference, the last state of each key, is computed by awk from the produced lines.
#   1. upsert-kafka A (bounded) -> sqlite table with the PRIMARY KEY: the table equals the
#      reference.
#   2. upsert-kafka A -> upsert-kafka B (value.fields-include EXCEPT_KEY): Kafka's console
#      consumer reads B; the last record of each key (its value, or none: a tombstone) gives
#      the reference again, no value holds the key's column, and B holds tombstones.
#   3. upsert-kafka B (EXCEPT_KEY) -> another sqlite table: the reference again.
#   4. Errors: a changelog key or value format; an upsert-kafka source without a PRIMARY KEY.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary $RSQL_BUILDDIR/rocketsql
# (default <repo>/build). Last line: "PASS t_upsert" or "FAIL t_upsert: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_UPSERT_N:-3000}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_upsert.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

die() { echo "FAIL t_upsert: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
A="rsqlup$(date +%s)$$"
B="${A}b"
for t in "$A" "$B"; do
    "$KAFKA" topic "$t" 3 >>"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $t"; }
done
rsql() { "$BIN" --catalog "$WORK/cat.db" "$@"; }

# the changes: key<TAB>value, every fifth a delete (value NULL: a tombstone)
awk -v n="$N" 'BEGIN { srand(11); for (i = 0; i < n; i++) { k = int(rand() * 200);
    if (rand() < 0.2) printf "{\"id\":%d}\tNULL\n", k;
    else printf "{\"id\":%d}\t{\"id\":%d,\"name\":\"n%d\",\"v\":%d}\n", k, k, i, i } }' >"$WORK/changes"
# the reference: each key's last change, deletes dropped, as id|name|v sorted
ref_of() { # reads key<TAB>value lines (value "NULL" or "null": deleted)
    awk -F'\t' '{ split($1, a, /[:}]/); last[a[2] + 0] = $2 } END { for (k in last) if (last[k] != "NULL" && last[k] != "null") print k "\t" last[k] }' |
        sed 's/\t{"id":[0-9]*,/\t{/' | sed 's/^\([0-9]*\)\t{"name":"\([^"]*\)","v":\([0-9]*\)}$/\1|\2|\3/' | sort
}
ref_of <"$WORK/changes" >"$WORK/expected"
[ "$(wc -l <"$WORK/expected")" -gt 0 ] || die "the reference is empty"
grep -qv '|' "$WORK/expected" && die "the reference has a line that is not id|name|v"
"$KAFKA" produce --keys "$A" <"$WORK/changes" >"$WORK/produce.log" 2>&1 || { tail -5 "$WORK/produce.log"; die "producing"; }
ok "produced $N keyed changes into $A ($(grep -c 'NULL$' "$WORK/changes") tombstones); $(wc -l <"$WORK/expected") keys remain"

cat >"$WORK/tables.sql" <<SQL
CREATE TABLE ua (id BIGINT, name VARCHAR, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='upsert-kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$A',
        'key.format'='json', 'value.format'='json', 'scan.bounded.mode'='latest-offset');
CREATE TABLE ub (id BIGINT, name VARCHAR, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='upsert-kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$B',
        'key.format'='json', 'value.format'='json', 'value.fields-include'='EXCEPT_KEY',
        'scan.bounded.mode'='latest-offset');
CREATE TABLE sa (id BIGINT, name VARCHAR, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='sqlite', 'path'='$WORK/a.db', 'table'='t');
CREATE TABLE sb (id BIGINT, name VARCHAR, v BIGINT, PRIMARY KEY (id) NOT ENFORCED)
  WITH ('connector'='sqlite', 'path'='$WORK/b.db', 'table'='t');
SQL
rsql -f "$WORK/tables.sql" >"$WORK/create.out" 2>&1 || { cat "$WORK/create.out"; die "creating the tables"; }

rsql -e "INSERT INTO sa SELECT * FROM ua" >"$WORK/1.out" 2>&1 || { cat "$WORK/1.out"; die "upsert-kafka -> sqlite"; }
sqlite3 "$WORK/a.db" "SELECT id || '|' || name || '|' || v FROM t" | sort >"$WORK/a.got"
cmp -s "$WORK/expected" "$WORK/a.got" || { diff "$WORK/expected" "$WORK/a.got" | head -5; die "sqlite from $A differs from the reference"; }
ok "upsert-kafka -> sqlite: the table is each key's last state ($(wc -l <"$WORK/a.got") rows)"

rsql -e "INSERT INTO ub SELECT * FROM ua" >"$WORK/2.out" 2>&1 || { cat "$WORK/2.out"; die "upsert-kafka -> upsert-kafka"; }
"$KAFKA" consume --keys "$B" >"$WORK/b.topic" 2>"$WORK/consume.err" || { tail -5 "$WORK/consume.err"; die "console consumer"; }
grep -q '"id"' <(cut -f2 "$WORK/b.topic") && die "a value of $B holds the key's column (EXCEPT_KEY)"
tombs=$(awk -F'\t' '$2 == "null"' "$WORK/b.topic" | wc -l)
[ "$tombs" -gt 0 ] || die "$B holds no tombstone"
# B's values lack the id: put it back from the key for the reference's form
awk -F'\t' '{ if ($2 == "null") print $1 "\t" $2; else { split($1, a, /[:}]/); v = $2; sub(/^{/, "{\"id\":" a[2] ",", v); print $1 "\t" v } }' \
    "$WORK/b.topic" | ref_of >"$WORK/b.got"
cmp -s "$WORK/expected" "$WORK/b.got" || { diff "$WORK/expected" "$WORK/b.got" | head -5; die "the last record of each key of $B differs from the reference"; }
ok "upsert-kafka -> upsert-kafka: $(wc -l <"$WORK/b.topic") records in $B ($tombs tombstones), no key column in a value, each key's last record its last state (Java console consumer)"

rsql -e "INSERT INTO sb SELECT * FROM ub" >"$WORK/3.out" 2>&1 || { cat "$WORK/3.out"; die "upsert-kafka (EXCEPT_KEY) -> sqlite"; }
sqlite3 "$WORK/b.db" "SELECT id || '|' || name || '|' || v FROM t" | sort >"$WORK/sb.got"
cmp -s "$WORK/expected" "$WORK/sb.got" || { diff "$WORK/expected" "$WORK/sb.got" | head -5; die "sqlite from $B differs from the reference"; }
ok "upsert-kafka (EXCEPT_KEY, key from the record key) -> sqlite: each key's last state"

bad() { # WHAT EXPECTED-TEXT SQL...
    local what=$1 want=$2
    shift 2
    rsql -e "$*" >"$WORK/bad.out" 2>&1 && { cat "$WORK/bad.out"; die "$what was accepted"; }
    grep -q "$want" "$WORK/bad.out" || { cat "$WORK/bad.out"; die "$what: the error does not say '$want'"; }
    ok "$what refused: $(grep -m1 "$want" "$WORK/bad.out" | cut -c1-150)"
}
bad "upsert-kafka with a changelog key format" "option 'key.format' must be an insert-only format" \
    "CREATE TABLE x1 (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='upsert-kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$A', 'key.format'='canal-json', 'value.format'='json')"
bad "upsert-kafka with a changelog value format" "must be an insert-only format" \
    "CREATE TABLE x2 (id BIGINT, PRIMARY KEY (id) NOT ENFORCED) WITH ('connector'='upsert-kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$A', 'key.format'='json', 'value.format'='debezium-json')"
rsql -e "CREATE TABLE nokey (id BIGINT, name VARCHAR, v BIGINT) WITH ('connector'='upsert-kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$A', 'key.format'='json', 'value.format'='json', 'scan.bounded.mode'='latest-offset')" >"$WORK/nk.out" 2>&1 ||
    { cat "$WORK/nk.out"; die "creating table nokey"; }
bad "an upsert-kafka source without a PRIMARY KEY" "PRIMARY KEY" "INSERT INTO sa SELECT * FROM nokey"
echo "PASS t_upsert"

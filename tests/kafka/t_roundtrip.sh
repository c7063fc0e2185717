#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_roundtrip.sh: what the kafka connector writes and reads, checked with Kafka's own console
# consumer where it matters. Sinks: keys from key.fields (the Java consumer sees each record's
# key equal to its value's id, and equal keys in one partition), round-robin over 3
# partitions, the 'timestamp' METADATA written. Source: two topics at once ('a;b') with the
# topic, partition, offset, timestamp, timestamp-type and leader-epoch (NULL) METADATA; scan.startup.mode
# specific-offsets, latest-offset and group-offsets (a second table in the same group starts
# where the first one's job committed, and reads only what came after); the headers METADATA
# written, relayed from topic to topic and read back; topic-pattern.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP.
# Last line: "PASS t_roundtrip" or "FAIL t_roundtrip: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_roundtrip.XXXXXX")
trap '[ -n "${T_KEEP:-}" ] || rm -rf "$WORK"' EXIT

die() { echo "FAIL t_roundtrip: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
P="rsqlrt$(date +%s)$$"
A="${P}a"
B="${P}b"
for t in "$A 2" "$B 3"; do
    # shellcheck disable=SC2086
    "$KAFKA" topic $t >>"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $t"; }
done

sql() { # NAME SQL: run it on the one catalog; fail on a non-zero exit
    "$BIN" --catalog "$WORK/c.db" -e "$2" >"$WORK/$1.out" 2>&1
    local rc=$?
    [ "$rc" = 0 ] || { cat "$WORK/$1.out"; die "$1: exit $rc"; }
}
seq 0 99 | awk '{printf "{\"id\":%d,\"name\":\"n%d\"}\n", $1, $1 % 7}' >"$WORK/in.jsonl"
head -10 "$WORK/in.jsonl" >"$WORK/in10.jsonl"

sql write "
CREATE TABLE f (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/in.jsonl');
CREATE TABLE f10 (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/in10.jsonl');
CREATE TABLE ka (id BIGINT, name VARCHAR) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$A', 'key.format'='json', 'key.fields'='id');
CREATE TABLE kb (id BIGINT, name VARCHAR, ts TIMESTAMP(3) METADATA FROM 'timestamp')
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$B',
        'value.format'='json', 'sink.partitioner'='round-robin');
INSERT INTO ka SELECT * FROM f;
INSERT INTO kb SELECT id, name, CAST('2026-01-02 03:04:05.678' AS TIMESTAMP(3)) FROM f10;"
grep -q "written=100 " "$WORK/write.out" && grep -q "written=10 " "$WORK/write.out" ||
    { cat "$WORK/write.out"; die "writing 100 rows to $A and 10 to $B"; }
ok "wrote 100 rows to $A (keyed by id) and 10 to $B (round-robin, timestamp set)"

# keys, as Kafka's console consumer sees them: key {"id":N} with value {"id":N,...}
"$KAFKA" consume --keys "$A" 100 >"$WORK/keys.out" 2>"$WORK/keys.err" || { cat "$WORK/keys.err"; die "console consumer on $A"; }
good=$(awk -F'\t' '{ k = $1; v = $2; sub(/^\{"id":/, "", k); sub(/\}$/, "", k);
                     if (index(v, "{\"id\":" k ",") == 1) n++ } END { print n + 0 }' "$WORK/keys.out")
[ "$good" = 100 ] || { head -3 "$WORK/keys.out"; die "$good of 100 records of $A have the key of their id"; }
ok "every record of $A has key {\"id\":N} equal to its value's id (Java console consumer)"

# both topics, with their metadata
sql read "
CREATE TABLE kab (id BIGINT, name VARCHAR, t VARCHAR METADATA FROM 'topic' VIRTUAL,
  p INT METADATA FROM 'partition' VIRTUAL, o BIGINT METADATA FROM 'offset' VIRTUAL,
  ts TIMESTAMP(3) METADATA FROM 'timestamp' VIRTUAL, tt VARCHAR METADATA FROM 'timestamp-type' VIRTUAL,
  le INT METADATA FROM 'leader-epoch' VIRTUAL)
  WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS', 'topic'='$A; $B',
        'scan.startup.mode'='earliest-offset', 'scan.bounded.mode'='latest-offset');
CREATE TABLE o (id BIGINT, name VARCHAR, t VARCHAR, p INT, o BIGINT, ts TIMESTAMP(3), tt VARCHAR, le INT)
  WITH ('connector'='filesystem', 'path'='$WORK/o.jsonl', 'format'='csv');
INSERT INTO o SELECT * FROM kab;"
[ "$(wc -l <"$WORK/o.jsonl")" = 110 ] || { cat "$WORK/read.out"; die "read $(wc -l <"$WORK/o.jsonl") rows of 110"; }
# per (topic, partition): offsets 0..n-1, each once
awk -F, '{ k = $3 "/" $4; n[k]++; if ($5 + 0 > max[k]) max[k] = $5 + 0; seen[k "@" $5]++ }
         END { for (k in n) if (max[k] != n[k] - 1) bad++; for (s in seen) if (seen[s] > 1) bad++; print bad + 0 }' \
    "$WORK/o.jsonl" | grep -qx 0 || die "offsets per partition are not 0..n-1, each once"
nb=$(awk -F, -v b="$B" '$3 == b' "$WORK/o.jsonl" | wc -l)
[ "$nb" = 10 ] || die "$nb rows of $B (want 10)"
# round-robin over 3 partitions: 4, 3, 3
dist=$(awk -F, -v b="$B" '$3 == b { n[$4]++ } END { print n[0] + 0, n[1] + 0, n[2] + 0 }' "$WORK/o.jsonl")
[ "$dist" = "4 3 3" ] || die "round-robin over $B's partitions gave '$dist' (want '4 3 3')"
ts_ok=$(awk -F, -v b="$B" '$3 == b && $6 == "2026-01-02 03:04:05.678" && $7 == "CreateTime"' "$WORK/o.jsonl" | wc -l)
[ "$ts_ok" = 10 ] || { grep "$B" "$WORK/o.jsonl" | head -3; die "$ts_ok rows of $B with the timestamp written and CreateTime"; }
# leader-epoch: NULL (librdkafka 2.0 gives none), an empty csv field
le=$(awk -F, '$8 != ""' "$WORK/o.jsonl" | wc -l)
[ "$le" = 0 ] || { head -3 "$WORK/o.jsonl"; die "$le rows with a leader-epoch (want NULL)"; }
# the keys of $A spread over both partitions
parts=$(awk -F, -v a="$A" '$3 == a { p[$4]++ } END { print length(p) }' "$WORK/o.jsonl")
[ "$parts" = 2 ] || die "the keys of $A went to $parts partition(s) of 2"
ok "read '$A; $B': 110 rows, offsets 0..n-1 per partition, round-robin 4/3/3, timestamps as written"

# specific-offsets: $B partition 0 from offset 2 (2 of its 4), the others from the start
sql specific "
CREATE TABLE ks (id BIGINT, name VARCHAR) WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS',
  'topic'='$B', 'properties.group.id'='${P}s', 'scan.startup.mode'='specific-offsets',
  'scan.startup.specific-offsets'='partition:0,offset:2', 'scan.bounded.mode'='latest-offset');
CREATE TABLE os (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/os.jsonl');
INSERT INTO os SELECT * FROM ks;"
[ "$(wc -l <"$WORK/os.jsonl")" = 8 ] || die "specific-offsets read $(wc -l <"$WORK/os.jsonl") rows (want 8)"
ok "specific-offsets partition:0,offset:2 on $B: 8 rows"

# latest-offset: nothing, and the bounded read ends
sql latest "
CREATE TABLE kl (id BIGINT, name VARCHAR) WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS',
  'topic'='$A', 'scan.startup.mode'='latest-offset', 'scan.bounded.mode'='latest-offset');
CREATE TABLE ol (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/ol.jsonl');
INSERT INTO ol SELECT * FROM kl;"
grep -q "read=0 " "$WORK/latest.out" || { cat "$WORK/latest.out"; die "latest-offset read rows"; }
ok "latest-offset on $A: 0 rows, ended"

# group-offsets: g1's job commits to the group; a second table in the group (no catalog
# position of its own) starts there
G="${P}g"
sql group1 "
CREATE TABLE kg1 (id BIGINT, name VARCHAR) WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS',
  'topic'='$A', 'properties.group.id'='$G', 'scan.bounded.mode'='latest-offset');
CREATE TABLE og1 (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/og1.jsonl');
INSERT INTO og1 SELECT * FROM kg1;"
[ "$(wc -l <"$WORK/og1.jsonl")" = 100 ] || die "group-offsets (nothing committed yet) read $(wc -l <"$WORK/og1.jsonl") of 100"
"$KAFKA" groups "$G" >"$WORK/g.out" 2>&1
lag=$(awk -v t="$A" '$2 == t { s += $6; n++ } END { print n + 0, s + 0 }' "$WORK/g.out")
[ "$lag" = "2 0" ] || { cat "$WORK/g.out"; die "group $G after the first job: '$lag' (want '2 0')"; }
sql more "INSERT INTO ka SELECT * FROM f10;"
sql group2 "
CREATE TABLE kg2 (id BIGINT, name VARCHAR) WITH ('connector'='kafka', 'properties.bootstrap.servers'='$BS',
  'topic'='$A', 'properties.group.id'='$G', 'scan.bounded.mode'='latest-offset');
CREATE TABLE og2 (id BIGINT, name VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/og2.jsonl');
INSERT INTO og2 SELECT * FROM kg2;"
[ "$(wc -l <"$WORK/og2.jsonl")" = 10 ] || die "the second table in group $G read $(wc -l <"$WORK/og2.jsonl") rows (want the 10 new ones)"
ok "group-offsets: the group committed 100 (lag 0); a second table in it read only the 10 written after"

# equal keys, one partition: ids 0..9 were written twice to $A, each time to the same one
sql again "
CREATE TABLE ka2 (id BIGINT, p INT METADATA FROM 'partition' VIRTUAL) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$A', 'scan.startup.mode'='earliest-offset',
  'scan.bounded.mode'='latest-offset');
CREATE TABLE oa2 (id BIGINT, p INT) WITH ('connector'='filesystem', 'path'='$WORK/oa2.csv', 'format'='csv');
INSERT INTO oa2 SELECT * FROM ka2 WHERE id < 10;"
same=$(awk -F, '{ n[$1]++; p[$1] = p[$1] " " $2 } END { for (i in n) if (n[i] == 2) { split(p[i], a, " "); if (a[1] == a[2]) s++ } print s + 0 }' "$WORK/oa2.csv")
[ "$same" = 10 ] || { sort "$WORK/oa2.csv"; die "$same of the 10 keys written twice stayed in one partition"; }
ok "a key written twice went to the same partition both times (10 of 10)"
# headers: written from a MAP<STRING, BYTES> column (JSON base64), relayed by a kafka source
# into another topic with them, seen by the Java consumer on both, read back as written
H1="${P}h1"
H2="${P}h2"
for t in "$H1" "$H2"; do
    "$KAFKA" topic "$t" 1 >>"$WORK/admin.log" 2>&1 || { cat "$WORK/admin.log"; die "creating topic $t"; }
done
printf '%s\n' '{"id":1,"h":{"trace":"YWJj","empty":null}}' '{"id":2,"h":{}}' '{"id":3}' >"$WORK/h.jsonl"
sql headers "
CREATE TABLE fh (id BIGINT, h MAP<STRING, BYTES>) WITH ('connector'='filesystem', 'path'='$WORK/h.jsonl');
CREATE TABLE kh1 (id BIGINT, h MAP<STRING, BYTES> METADATA FROM 'headers') WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$H1', 'scan.startup.mode'='earliest-offset',
  'scan.bounded.mode'='latest-offset');
CREATE TABLE kh2 (id BIGINT, h MAP<STRING, BYTES> METADATA FROM 'headers') WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic'='$H2', 'scan.startup.mode'='earliest-offset',
  'scan.bounded.mode'='latest-offset');
CREATE TABLE oh (id BIGINT, h MAP<STRING, BYTES>) WITH ('connector'='filesystem', 'path'='$WORK/oh.jsonl');
INSERT INTO kh1 SELECT * FROM fh;
INSERT INTO kh2 SELECT * FROM kh1;
INSERT INTO oh SELECT * FROM kh2;"
for t in "$H1" "$H2"; do
    "$KAFKA" consume --headers "$t" 3 >"$WORK/h.out" 2>"$WORK/h.err" || { cat "$WORK/h.err"; die "console consumer on $t"; }
    printf 'trace:abc,empty:null\t{"id":1}\nNO_HEADERS\t{"id":2}\nNO_HEADERS\t{"id":3}\n' >"$WORK/h.want"
    cmp -s "$WORK/h.out" "$WORK/h.want" || { cat "$WORK/h.out"; die "headers of $t as the Java consumer sees them"; }
done
printf '%s\n' '{"id":1,"h":{"trace":"YWJj","empty":null}}' '{"id":2,"h":{}}' '{"id":3,"h":{}}' >"$WORK/oh.want"
cmp -s "$WORK/oh.jsonl" "$WORK/oh.want" || { cat "$WORK/oh.jsonl"; die "headers read back"; }
ok "headers written, relayed kafka -> kafka, seen by the Java consumer, read back as written"
# topic-pattern: ${P}a and ${P}b (not ${P}h1, ${P}h2), 110 + 10 rows
sql pattern "
CREATE TABLE kp (id BIGINT, name VARCHAR, t VARCHAR METADATA FROM 'topic' VIRTUAL) WITH ('connector'='kafka',
  'properties.bootstrap.servers'='$BS', 'topic-pattern'='${P}[ab]', 'scan.startup.mode'='earliest-offset',
  'scan.bounded.mode'='latest-offset');
CREATE TABLE op (id BIGINT, name VARCHAR, t VARCHAR) WITH ('connector'='filesystem', 'path'='$WORK/op.csv', 'format'='csv');
INSERT INTO op SELECT * FROM kp;"
got=$(awk -F, '{ n[$3]++ } END { for (t in n) print t, n[t] }' "$WORK/op.csv" | sort | tr '\n' ' ')
[ "$got" = "$A 110 $B 10 " ] || die "topic-pattern '${P}[ab]' read '$got' (want '$A 110 $B 10 ')"
ok "topic-pattern '${P}[ab]': $got"
echo "PASS t_roundtrip"

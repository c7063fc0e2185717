#!/usr/bin/env bash
# METADATA columns written to RocketMQ: rocketsql sets tag, keys (ARRAY<STRING>: NULL and empty
# elements left out) and user properties (MAP<STRING, STRING>) per row (a NULL tag falls back
# to sink.tag), the lite topic of a LITE message, and the delivery
# timestamp of a timer message; the official Java client reads each back. A timer message
# arrives no earlier than its delivery timestamp, one whose time is past arrives at once;
# one beyond the broker's maximum delay, and a property whose value is NULL, fail their row
# permanently with the broker's (or rocketsql's) message.
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
W=$(mktemp -d /tmp/t_metadata_write.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$(uniq_name mdw)
run "$RMQ" topic "${P}_n" normal
run "$RMQ" topic "${P}_l" lite
run "$RMQ" topic "${P}_d" delay
run "$RMQ" group "${P}_gn"
run "$RMQ" group "${P}_gl" --lite-bind "${P}_l"
run "$RMQ" group "${P}_gd"
run "$RMQ" group "${P}_gd2"

GEN="CREATE TABLE gen (id BIGINT) WITH ('connector'='datagen', 'number-of-rows'='4',
  'fields.id.kind'='sequence', 'fields.id.start'='1', 'fields.id.end'='4');"
sink() { # NAME TOPIC COLUMNS [OPTIONS]
  echo "CREATE TABLE $1 ($3) WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT',
    'topic'='$2'${4:-});"
}

# ---- tag, keys, properties (NORMAL) and lite topic (LITE); the keys and properties come
# from a JSON body's array and object (ARRAY<STRING>, MAP<STRING, STRING>)
python3 - "$W/in.json" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 5):
        f.write(json.dumps({"id": i, "ks": ["k%d" % i, "", None, "order-%d" % i],
                            "props": {"tenant": "acme", "n": str(i), "q": "a\"b \u00e9"}}) + "\n")
PY
cat >"$W/w.sql" <<SQL
$GEN
CREATE TABLE src (id BIGINT, ks ARRAY<STRING>, props MAP<STRING, STRING>)
  WITH ('connector'='filesystem', 'path'='$W/in.json', 'format'='json');
$(sink out_n "${P}_n" "id BIGINT, tag VARCHAR METADATA, \"keys\" ARRAY<STRING> METADATA, properties MAP<STRING, STRING> METADATA" ", 'sink.tag'='fallback'")
INSERT INTO out_n SELECT id, CASE WHEN id = 1 THEN NULL ELSE 'tag-' || CAST(id AS VARCHAR) END,
  ks, props FROM src;
$(sink out_l "${P}_l" "id BIGINT, lt VARCHAR METADATA FROM 'lite_topic'")
INSERT INTO out_l SELECT id, 'tenant-' || CAST(id % 2 AS VARCHAR) FROM gen;
SQL
run "$BIN" --catalog "$W/c.db" -f "$W/w.sql"
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "${P}_n" --group "${P}_gn" --count 4 \
  --timeout 20 --print-meta
expect_line '^received=4 distinct=4 missing=0 duplicates=0$'
for i in 1 2 3 4; do
  tag=tag-$i
  [ $i = 1 ] && tag=fallback
  expect_line "^meta id=$i topic=${P}_n tag=$tag keys=k$i,order-$i group=- lite=- props=n=$i;q=a\"b é;tenant=acme delivery=- "
done
echo "ok: tag (NULL falls back to sink.tag), keys and properties per row"
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "${P}_l" --group "${P}_gl" --count 4 \
  --timeout 45 --lite --print-meta
expect_line '^received=4 distinct=4 missing=0 duplicates=0$'
for i in 1 2 3 4; do
  expect_line "^meta id=$i .* lite=tenant-$((i % 2)) "
done
echo "ok: the lite topic per row"

# ---- timer messages: two 8 s ahead, one a minute in the past
cat >"$W/d.sql" <<SQL
$GEN
$(sink out_d "${P}_d" "id BIGINT, at TIMESTAMP(3) METADATA FROM 'delivery_timestamp'")
INSERT INTO out_d SELECT id, CAST(CAST(NOW() AS BIGINT) + CASE WHEN id = 3 THEN -60000 ELSE 8000 END
  AS TIMESTAMP) FROM gen WHERE id < 4;
SQL
t0=$(date +%s%3N)
run "$BIN" --catalog "$W/cd.db" -f "$W/d.sql"
t1=$(date +%s%3N)
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "${P}_d" --group "${P}_gd" --count 3 \
  --timeout 30 --print-meta
expect_line '^received=3 distinct=3 missing=0 duplicates=0$'
printf '%s\n' "$OUT" >"$W/d.txt"
# when the broker stored each in the topic's queue (the store_timestamp rocketsql reads): a
# timer message at its delivery time, the past one at once (the Java consumer above may start
# only after the timers fired on a loaded machine, so its receive times cannot tell)
cat >"$W/ds.sql" <<SQL
CREATE TABLE ds (id BIGINT, st TIMESTAMP(3) METADATA FROM 'store_timestamp' VIRTUAL)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_d',
        'source.consumer-group'='${P}_gd2', 'scan.idle-timeout'='4s');
CREATE TABLE dso (id BIGINT, st BIGINT) WITH ('connector'='filesystem', 'path'='$W/ds.json', 'format'='json');
INSERT INTO dso SELECT id, CAST(st AS BIGINT) FROM ds;
SQL
run "$BIN" --catalog "$W/cds.db" -f "$W/ds.sql"
python3 - "$W/d.txt" "$t0" "$t1" "$W/ds.json" <<'PY' || fail "timer messages arrived at the wrong time"
import json, re, sys
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
stored = {r["id"]: r["st"] for r in (json.loads(l) for l in open(sys.argv[4]))}
got = {}
for line in open(sys.argv[1]):
    m = re.match(r"meta id=(\d+) .* delivery=(-|\d+) .* received_ms=(\d+)", line)
    if m:
        got[int(m.group(1))] = (m.group(2), int(m.group(3)))
ok = True
for i in (1, 2):
    d, r = got[i]
    d = int(d) if d != "-" else None
    print("id %d: delivery %s (%+d ms after the INSERT started), received %+d ms and stored "
          "%+d ms after it" % (i, d, (d or 0) - t0, r - (d or 0), stored[i] - (d or 0)))
    ok &= d is not None and t0 + 8000 <= d <= t1 + 8000 and r >= d and stored[i] >= d - 10
d3, r3 = got[3]
print("id 3 (past): delivery %s, stored %d ms after the INSERT ended" % (d3, stored[3] - t1))
ok &= d3 != "-" and int(d3) <= t1 - 59000 and stored[3] <= t1 + 3000
sys.exit(0 if ok else 1)
PY
echo "ok: timer messages arrive no earlier than their delivery timestamp, a past one at once"

# ---- permanent row failures: beyond the broker's maximum delay, bad properties
cat >"$W/far.sql" <<SQL
$GEN
$(sink far "${P}_d" "id BIGINT, at TIMESTAMP(3) METADATA FROM 'delivery_timestamp'")
INSERT INTO far SELECT id, CAST(CAST(NOW() AS BIGINT) + CAST(3456000000 AS BIGINT) AS TIMESTAMP) FROM gen WHERE id = 1;
SQL
rc=0
"$BIN" --catalog "$W/cf.db" -f "$W/far.sql" >"$W/far.out" 2>&1 || rc=$?
cat "$W/far.out"
[ $rc = 2 ] || fail "a delivery timestamp beyond the maximum delay: exit $rc, want 2"
grep -q "send failed: RocketMQ ILLEGAL_DELIVERY_TIME (40012): the max delay time of message is too large" "$W/far.out" ||
  fail "no broker message for a delivery timestamp beyond the maximum delay"
grep -q "filtered=3 dead_lettered=0 failed=1 " "$W/far.out" || fail "not exactly the one row failed"
echo "ok: a delivery timestamp beyond the maximum delay fails its row with the broker's message"
printf '{"id": 1, "props": {"n": null}}\n' >"$W/bad.json"
cat >"$W/bad.sql" <<SQL
CREATE TABLE src (id BIGINT, props MAP<STRING, STRING>)
  WITH ('connector'='filesystem', 'path'='$W/bad.json', 'format'='json');
$(sink badp "${P}_n" "id BIGINT, properties MAP<STRING, STRING> METADATA")
INSERT INTO badp SELECT id, props FROM src;
SQL
rc=0
"$BIN" --catalog "$W/cb.db" -f "$W/bad.sql" >"$W/bad.out" 2>&1 || rc=$?
cat "$W/bad.out"
[ $rc = 2 ] || fail "bad properties: exit $rc, want 2"
grep -q "properties: the value of 'n' is NULL" "$W/bad.out" || fail "no reason for bad properties"
echo "ok: a property whose value is NULL fails its row"

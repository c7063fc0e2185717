#!/usr/bin/env bash
# canal-json end to end from a file: tests/lib/canal_gen.py writes Canal's flat messages for
# a random workload (several rows per statement, updates with "old", deletes, DDL messages
# and another table's changes, blank lines between some), and a statement reads them with
# canal-json.table.include = 'orders'. Every message is read, the DDL and other-table ones
# give no rows (counted as filtered), none fails, and the rows that come out are one per
# inserted or deleted row and two per updated row, values as written.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

cd "$T"
python3 "$RSQL_SRCDIR/tests/lib/canal_gen.py" --ops 1500 --keys 120 --seed 11 --noise \
    --verify --messages msgs.jsonl --state final.csv 2>gen.log || fail "canal_gen: $(cat gen.log)"
ok "canal_gen wrote messages whose replay gives its final table"
want_rows=$(python3 -c '
import json, sys
n = 0
for l in open("msgs.jsonl"):
    m = json.loads(l)
    if not m["isDdl"] and m["table"] == "orders":
        n += len(m["data"]) * (2 if m["type"] == "UPDATE" else 1)
print(n)')
skipped=$(python3 -c '
import json
print(sum(1 for l in open("msgs.jsonl") if json.loads(l)["isDdl"] or json.loads(l)["table"] != "orders"))')
sed -i '100s/^/\n/' msgs.jsonl
run_rsql --tsv -e "CREATE TABLE src (id BIGINT, name VARCHAR, qty INT, price DECIMAL(10, 2), updated TIMESTAMP(3)) WITH ('connector'='filesystem', 'path'='msgs.jsonl', 'format'='canal-json', 'canal-json.table.include'='orders');
CREATE TABLE out (id BIGINT, name VARCHAR, qty INT, price DECIMAL(10, 2), updated TIMESTAMP(3)) WITH ('connector'='filesystem', 'path'='rows.csv', 'format'='csv');
INSERT INTO out SELECT * FROM src;"
[ "$RC" = 0 ] || fail "reading canal-json exited $RC: $ERR"
echo "$OUT$ERR" | grep -q "read=1500 .*filtered=$skipped dead_lettered=0 failed=0" ||
    fail "want read=1500 filtered=$skipped, no failures; got: $OUT $ERR"
ok "1500 messages read, $skipped DDL and other-table messages skipped, none failed"
[ "$(wc -l <rows.csv)" = "$want_rows" ] || fail "want $want_rows rows, got $(wc -l <rows.csv)"
ok "$want_rows rows: one per inserted or deleted row, two per updated row"
# the last message's rows are the last lines, as Canal wrote them (strings to typed values)
last=$(tail -n 1 msgs.jsonl | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())
r = m["data"][-1]
print(",".join("" if r[c] is None else r[c] for c in ["id", "name", "qty", "price", "updated"]))')
[ "$(tail -n 1 rows.csv)" = "$last" ] || fail "last row: got $(tail -n 1 rows.csv), want $last"
ok "values read as written"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_computed.sh: computed columns (name AS expr) and PROCTIME() end to end. 20,000 JSON rows
# (a DECIMAL price, an INT quantity, a note that is sometimes NULL) are read through a table
# whose computed columns are total AS price * qty, label AS UPPER(note) || '#' || id,
# line_no AS line (a METADATA column) and proc_time AS PROCTIME(); the job filters on a
# computed column and writes several into sqlite through a sink table that has a computed
# column of its own (never written). python3 computes the expected rows from the input file on
# its own (decimal arithmetic), and every proc_time lies between the job's start and end.
. "$(dirname "$0")/lib.sh"

N=20000
python3 - "$N" <<'PY'
import json, random, sys
r = random.Random(7)
with open("orders.jsonl", "w") as f:
    for i in range(1, int(sys.argv[1]) + 1):
        note = None if i % 11 == 0 else "n%d-%s" % (i, "abc"[i % 3])
        f.write('{"id":%d,"price":%d.%02d,"qty":%d,"note":%s}\n'
                % (i, r.randint(0, 99), r.randint(0, 99), r.randint(0, 9), json.dumps(note)))
PY
cat >tables.sql <<'SQL'
CREATE TABLE orders (
  id BIGINT, price DECIMAL(6, 2), qty INT, note VARCHAR,
  line BIGINT METADATA VIRTUAL,
  total AS price * qty,
  label AS UPPER(note) || '#' || CAST(id AS VARCHAR),
  line_no AS line,
  proc_time AS PROCTIME()
) WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl');
CREATE TABLE big (id BIGINT, total DECIMAL(20, 2), label VARCHAR, line_no BIGINT,
  seen TIMESTAMP(3), id_x2 AS id * 2)
WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'big');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

# the sqlite sink writes TIMESTAMP(3) as UTC text "YYYY-MM-DD HH:MM:SS.mmm", ordered as text
utc_now() { python3 -c 'import datetime as d; print(d.datetime.now(d.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")[:23])'; }
start=$(utc_now)
rsql -e "INSERT INTO big SELECT id, total, label, line_no, proc_time FROM orders WHERE total > 300"
expect_rc 0 "filter on a computed column, write computed columns"
end=$(utc_now)

sqlite3 -separator '|' out.db "SELECT id, total, coalesce(label, 'NULL'), line_no FROM big ORDER BY id" >got.txt
python3 - <<'PY' >want.txt
import json
from decimal import Decimal
for n, line in enumerate(open("orders.jsonl"), 1):
    o = json.loads(line, parse_float=Decimal)
    total = o["price"] * o["qty"]
    if total > 300:
        label = "NULL" if o["note"] is None else o["note"].upper() + "#" + str(o["id"])
        print("%d|%s|%s|%d" % (o["id"], "%.2f" % total, label, n))
PY
[ -s want.txt ] || fail "the reference selected no row"
cmp -s got.txt want.txt || fail "rows differ from the reference: $(diff got.txt want.txt | head -5)"
ok "every row over 300, its total, label and line, as python computes them ($(wc -l <want.txt) rows)"

same "$(sqlite3 out.db "SELECT count(*) FROM big WHERE seen < '$start' OR seen > '$end' OR seen IS NULL")" 0 \
    "every proc_time lies within the run"
same "$(sqlite3 out.db "SELECT group_concat(name, ',') FROM pragma_table_info('big')")" \
    "id,total,label,line_no,seen" "the sink's computed column is not a column of the sqlite table"

rsql -e "SELECT * FROM orders LIMIT 1"
expect_rc 0 "SELECT * previews the table"
hdr=$(printf '%s\n' "$OUT" | sed -n 2p | tr -d ' ')
same "$hdr" "|id|price|qty|note|line|total|label|line_no|proc_time|" \
    "SELECT * lists the columns as declared, computed ones included"

# a computed column is evaluated once per row: every reference sees the same UUID()
rsql --tsv -e "CREATE TABLE g (id BIGINT, u AS UUID()) WITH ('connector' = 'datagen',
                 'number-of-rows' = '1000', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1');
               SELECT id, u, u FROM g WHERE u > '8' LIMIT 5000"
expect_rc 0 "read a computed UUID() column twice and filter on it"
printf '%s\n' "$OUT" | tail -n +2 >uuids.tsv
python3 - <<'PY' || fail "a computed column differs between its references in one row"
rows = [l.split("\t") for l in open("uuids.tsv").read().splitlines()]
assert 300 < len(rows) < 700, len(rows)            # about half the UUIDs sort after '8'
assert all(r[1] == r[2] and r[1] > "8" for r in rows), [r for r in rows if r[1] != r[2]][:3]
assert len({r[1] for r in rows}) == len(rows)      # one value per row, a new one each row
PY
ok "one UUID() per row, the same at each reference, the filter on that value"

rsql -e "INSERT INTO big (id, id_x2) SELECT id, id FROM orders"
expect_rc 1 "writing a computed column is refused"
case "$ERR" in *"column 'id_x2' of table 'big' is computed (AS id * 2): it cannot be written"*)
    ok "the error names the column and its expression" ;;
*) fail "no such error in: $ERR" ;; esac

echo PASS

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_json_dlq.sh: a json-lines file of 100,000 rows, 2% of them malformed (broken JSON, wrong
# types, non-objects), -> sqlite.
#   1. With errors.tolerance = all and errors.dlq.table = a sqlite table: every good line is in
#      the sink exactly once, every bad line is in the DLQ with its raw text, stage, exact error
#      and source ident (file and byte offset), and the counts of SHOW JOB RUNS add up.
#   2. With errors.tolerance = none, on a fresh catalog and sink: exit status 2, the run is
#      failed with the first bad line's error, and neither committed position (the catalog's
#      offsets, the sink's rocketsql_positions) is past that line; the sink holds exactly the
#      lines before it. After the file is fixed, a rerun resumes and completes: every line in
#      the sink exactly once.
# Expectations are computed by python3 from the generated file; the sink is read with sqlite3.
. "$(dirname "$0")/lib.sh"

python3 - <<'PY'
import json, random
rnd = random.Random(4)
N = 100000
bad = set(rnd.sample(range(1000, N + 1), N // 50))   # line numbers, 1-based; none before 1000
kinds = 14
lines, good, dlq = [], [], []
pos = 0
for n in range(1, N + 1):
    cents = rnd.randint(-100000, 1000000)
    cust = "c%d-%s" % (n % 977, "é\"\\" if n % 101 == 0 else "x")
    if n in bad:
        k = n % kinds
        if k == 0:
            line = '{"id":%d,"customer":"%s","amount":' % (n, "c%d" % n)
            err = "invalid JSON at byte %d: unexpected end of input" % len(line.encode())
        elif k == 1:
            obj = '{"id":%d,"customer":"c","amount":1}' % n
            line = obj + " x"
            err = "invalid JSON at byte %d: unexpected data after the object" % (len(obj) + 1)
        elif k == 2:
            line = '{"id":%d "customer":"c"}' % n
            err = "invalid JSON at byte %d: expected ',' or '}' in an object" % (len('{"id":%d ' % n))
        elif k == 3:
            line = "hello %d" % n
            err = "invalid JSON at byte 0: unexpected character 'h'"
        elif k == 4:
            line = '{"id":"x%d","customer":"c","amount":1}' % n
            err = "field 'id': expected BIGINT, got string \"x%d\"" % n
        elif k == 5:
            line = '{"id":%d,"customer":"c","amount":"12.5"}' % n
            err = "field 'amount': expected DOUBLE, got string \"12.5\""
        elif k == 6:
            line = '{"id":%d.5,"customer":"c","amount":1}' % n
            err = "field 'id': expected BIGINT, got number %d.5" % n
        elif k == 7:
            line = '{"id":true,"customer":"c","amount":1}'
            err = "field 'id': expected BIGINT, got boolean true"
        elif k == 8:
            line = "[%d,2]" % n
            err = "expected a JSON object, got array"
        elif k == 9:
            line = "%d" % n
            err = "expected a JSON object, got number"
        elif k == 10:
            line = '"row %d"' % n
            err = "expected a JSON object, got string"
        elif k == 11:
            line = "null"
            err = "expected a JSON object, got null"
        elif k == 12:
            line = "nope %d" % n             # looks like null, is not JSON
            err = "invalid JSON at byte 0: unexpected character 'n'"
        else:
            line = "[%d,2" % n               # looks like an array, is not JSON
            err = "invalid JSON at byte %d: unexpected end of input" % len(line)
        src = "file:in.jsonl@%d" % pos
        dlq.append({"raw": line, "stage": "decode", "source": src,
                    "error": "decode error at %s line %d: %s" % (src, n, err)})
    else:
        obj = {"id": n, "customer": cust, "amount": cents / 100}
        if n % 13 == 0:
            del obj["customer"]            # a missing field is NULL
        if n % 17 == 0:
            obj["extra"] = [1, {"a": 2}]   # unknown fields are ignored
        line = json.dumps(obj, ensure_ascii=(n % 2 == 0))
        good.append({"id": n, "customer": obj.get("customer"), "amount": "%.2f" % (cents / 100)})
    lines.append(line)
    pos += len(line.encode()) + 1
with open("in.jsonl", "w", encoding="utf-8") as f:
    f.write("\n".join(lines) + "\n")
json.dump(good, open("good.json", "w"))
json.dump(dlq, open("dlq.json", "w"))
first = min(bad)
first_off = sum(len(l.encode()) + 1 for l in lines[:first - 1])
open("first_bad", "w").write("%d %d\n" % (first, first_off))
# the fixed file: same bytes up to the first bad line, every bad line replaced by a good row
fixed = [l if n not in bad else json.dumps({"id": n, "customer": "fixed", "amount": 0})
         for n, l in enumerate(lines, 1)]
with open("fixed.jsonl", "w", encoding="utf-8") as f:
    f.write("\n".join(fixed) + "\n")
PY
read -r FIRST FIRST_OFF <first_bad
ok "generated in.jsonl: 100000 lines, 2000 malformed, the first at line $FIRST (byte $FIRST_OFF)"

tables() { # $1: sink database file
    cat <<SQL
CREATE TABLE src (id BIGINT, customer VARCHAR, amount DOUBLE) WITH (
  'connector' = 'filesystem', 'path' = 'in.jsonl', 'format' = 'json');
CREATE TABLE dst (id BIGINT, customer VARCHAR, amount DOUBLE) WITH (
  'connector' = 'sqlite', 'path' = '$1', 'table' = 'orders');
CREATE TABLE dlq (raw VARCHAR, stage VARCHAR, error VARCHAR, source VARCHAR, ts TIMESTAMP(3))
  WITH ('connector' = 'sqlite', 'path' = '$1', 'table' = 'dead_letters');
SQL
}

# sink_json DB: the sink's rows in id order, as JSON, amounts as text with 2 decimals
sink_json() {
    sqlite3 -json "$1" "SELECT id, customer,
        CASE WHEN amount IS NULL THEN NULL ELSE printf('%.2f', amount) END AS amount
        FROM orders ORDER BY id, rowid;"
}

# compare_rows GOT EXPECTED DESCRIPTION: two JSON arrays of rows are equal
compare_rows() {
    python3 - "$1" "$2" <<'PY' || fail "$3"
import json, sys
got = json.loads(open(sys.argv[1]).read() or "[]")
exp = json.load(open(sys.argv[2]))
if got != exp:
    print("got %d rows, expected %d" % (len(got), len(exp)))
    for i, (g, e) in enumerate(zip(got, exp)):
        if g != e:
            sys.exit("first difference at row %d: got %r, expected %r" % (i, g, e))
    sys.exit("one is a prefix of the other")
PY
    ok "$3"
}

# ---- 1. tolerance all, with a DLQ table --------------------------------------------------
{ tables sink.db; echo "SET 'errors.tolerance' = 'all'; SET 'errors.dlq.table' = 'dlq';"
  echo "INSERT INTO dst SELECT * FROM src;"; } >all.sql
rsql -f all.sql
expect_rc 0 "tolerance all: the run completes"
sink_json sink.db >got.json
compare_rows got.json good.json "every one of the 98000 good lines is in the sink, exactly once"
same "$(sqlite3 sink.db 'SELECT count(*) - count(DISTINCT id) FROM orders')" 0 "no id twice"
sqlite3 -json sink.db "SELECT raw, stage, source, error FROM dead_letters ORDER BY rowid" >dlq_got.json
python3 - <<'PY' || fail "the DLQ differs from the expectation"
import json, sys
got = json.loads(open("dlq_got.json").read() or "[]")
exp = json.load(open("dlq.json"))
key = lambda r: int(r["source"].split("@")[1])
got.sort(key=key)
if len(got) != len(exp):
    print("DLQ rows: got %d, expected %d" % (len(got), len(exp)))
for g, e in zip(got, exp):
    g = {k: g[k] for k in ("raw", "stage", "source", "error")}
    if g != e:
        sys.exit("DLQ row differs: got %r, expected %r" % (g, e))
if len(got) != len(exp):
    sys.exit(1)
PY
ok "every one of the 2000 bad lines is in the DLQ once, with its raw text, stage, error, source"
same "$(sqlite3 sink.db "SELECT count(*) FROM dead_letters WHERE ts NOT LIKE '____-__-__%'")" 0 \
    "every DLQ row has a timestamp"
last_run
same "$R_STATUS" done "status of the tolerant run"
same "$R_READ/$R_WRITTEN/$R_FILTERED/$R_DLQ/$R_FAILED" "100000/98000/0/2000/0" \
    "read/written/filtered/dead-lettered/failed"
same "$((R_WRITTEN + R_FILTERED + R_DLQ + R_FAILED))" "$R_READ" "the counts add up"
case "$ERR" in
*"read=100000 written=98000 filtered=0 dead_lettered=2000 failed=0"*) ok "summary line" ;;
*) fail "no summary line with the counts in: $ERR" ;;
esac

# ---- 2. tolerance none, fresh catalog and sink ---------------------------------------------
CAT="$T/catalog2.db"
{ tables sink2.db; echo "INSERT INTO dst SELECT * FROM src;"; } >none.sql
rsql -f none.sql
expect_rc 2 "tolerance none: the run fails"
last_run
same "$R_STATUS" failed "status of the failed run"
case "$R_ERROR" in
*"file:in.jsonl@$FIRST_OFF"*) ok "the run's error names the first bad line ($R_ERROR)" ;;
*) fail "the run's error does not name file:in.jsonl@$FIRST_OFF: $R_ERROR" ;;
esac
cat_pos=$(sqlite3 "$CAT" "SELECT value FROM offsets WHERE partition = 'in.jsonl'")
sink_pos=$(sqlite3 sink2.db "SELECT \"offset\" FROM rocketsql_positions")
echo "committed: catalog '$cat_pos', sink '$sink_pos', first bad line at byte $FIRST_OFF"
[ -n "$sink_pos" ] || fail "the sink has no committed position"
[ "$sink_pos" -le "$FIRST_OFF" ] || fail "the sink's position $sink_pos is past $FIRST_OFF"
[ -z "$cat_pos" ] || [ "$cat_pos" -le "$FIRST_OFF" ] ||
    fail "the catalog's position $cat_pos is past $FIRST_OFF"
ok "no committed position is past the first bad line"
n_sink=$(sqlite3 sink2.db "SELECT count(*) FROM orders")
n_pos=$(python3 -c "
import sys
pos, n = 0, 0
for line in open('in.jsonl', 'rb'):
    pos += len(line)
    if pos > $sink_pos: break
    n += 1
print(n)")
same "$n_sink" "$n_pos" "the sink holds exactly the lines before its committed position"
[ "$n_sink" -lt "$FIRST" ] || fail "the sink holds $n_sink rows, the first bad line is $FIRST"

cp fixed.jsonl in.jsonl
rsql -e "INSERT INTO dst SELECT * FROM src;"
expect_rc 0 "after fixing the file, the rerun completes"
last_run
echo "rerun: read $R_READ written $R_WRITTEN"
same "$R_STATUS" done "status of the rerun"
[ "$R_READ" -le $((100000 - n_sink)) ] || fail "the rerun read $R_READ rows: it did not resume"
ok "the rerun resumed (read $R_READ rows, not 100000)"
python3 - <<'PY'
import json
good = {r["id"]: r for r in json.load(open("good.json"))}
rows = [good.get(n, {"id": n, "customer": "fixed", "amount": "0.00"}) for n in range(1, 100001)]
json.dump(rows, open("all.json", "w"))
PY
sink_json sink2.db >got2.json
compare_rows got2.json all.json "the sink holds all 100000 lines of the fixed file exactly once"
echo PASS

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_lookup_join.sh: lookup joins (FROM orders AS o [LEFT] JOIN customers FOR SYSTEM_TIME AS OF
# o.proc_time AS c ON c.id = o.cid ...) against a sqlite table, compared with SQLite's own
# join of the same rows: 20,000 orders (some with a NULL customer, some with one that does not
# exist), 1,000 customers (some ids twice: a row finds two), names with quotes; an inner join
# with a condition on the customer and a WHERE on the order, the same as a LEFT join, SELECT *,
# and a customer row changed while a following job runs: the orders read after the change
# find the new row. Then the same joins with a partial cache that evicts all the time, and what
# the cache means: a key held keeps its rows while the table changes, a key that found nothing
# is asked again under cache-missing-key false.
. "$(dirname "$0")/lib.sh"

python3 - <<'PY'
import json, random, sqlite3
r = random.Random(11)
db = sqlite3.connect("dim.db")
db.execute("CREATE TABLE customers (id INTEGER, name TEXT, tier INTEGER)")
rows = []
for i in range(1, 1001):
    rows.append((i, "c%d %s" % (i, "o'neil" if i % 7 == 0 else "x"), r.randint(0, 3)))
    if i % 97 == 0:
        rows.append((i, "twin of %d" % i, r.randint(0, 3)))
db.executemany("INSERT INTO customers VALUES (?, ?, ?)", rows)
db.commit()
ref = sqlite3.connect("ref.db")
ref.execute("CREATE TABLE orders (oid INTEGER, cid INTEGER, amount INTEGER)")
with open("orders.jsonl", "w") as f:
    for oid in range(1, 20001):
        cid = None if oid % 53 == 0 else r.randint(1, 1100)   # 1001..1100: no such customer
        amount = r.randint(1, 500)
        f.write(json.dumps({"oid": oid, "cid": cid, "amount": amount}) + "\n")
        ref.execute("INSERT INTO orders VALUES (?, ?, ?)", (oid, cid, amount))
ref.commit()
ref.execute("ATTACH 'dim.db' AS d")
for name, join in (("inner", "JOIN"), ("left", "LEFT JOIN")):
    q = ("SELECT o.oid, c.id, c.name, c.tier, o.amount FROM orders o %s d.customers c "
         "ON c.id = o.cid AND c.tier > 0 WHERE o.amount > 100 "
         "ORDER BY 1, 2, 3, 4" % join)
    with open("want_%s.txt" % name, "w") as f:
        for row in ref.execute(q):
            f.write("|".join("" if v is None else str(v) for v in row) + "\n")
PY

cat >tables.sql <<'SQL'
CREATE TABLE orders (oid BIGINT, cid INT, amount INT, proc_time AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'orders.jsonl');
CREATE TABLE customers (id INT, name STRING, tier INT)
  WITH ('connector' = 'sqlite', 'path' = 'dim.db', 'table' = 'customers');
CREATE TABLE out_inner (oid BIGINT, cid INT, name STRING, tier INT, amount INT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'out_inner');
CREATE TABLE out_left (oid BIGINT, cid INT, name STRING, tier INT, amount INT)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'out_left');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

got() { sqlite3 -separator '|' out.db "SELECT oid, cid, name, tier, amount FROM $1 ORDER BY 1, 2, 3, 4"; }
rsql -e "INSERT INTO out_inner SELECT o.oid, c.id, c.name, c.tier, o.amount FROM orders AS o
         JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.cid AND c.tier > 0
         WHERE o.amount > 100"
expect_rc 0 "inner lookup join into sqlite"
got out_inner >got_inner.txt
cmp -s got_inner.txt want_inner.txt ||
    fail "inner join differs from SQLite's: $(diff got_inner.txt want_inner.txt | head -5)"
ok "inner join equals SQLite's join of the same rows ($(wc -l <want_inner.txt) rows)"

rsql -e "INSERT INTO out_left SELECT o.oid, c.id, c.name, c.tier, o.amount FROM orders o
         LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time c ON c.id = o.cid AND c.tier > 0
         WHERE o.amount > 100"
expect_rc 0 "LEFT lookup join into sqlite"
got out_left >got_left.txt
cmp -s got_left.txt want_left.txt ||
    fail "LEFT join differs from SQLite's: $(diff got_left.txt want_left.txt | head -5)"
ok "LEFT join equals SQLite's LEFT JOIN of the same rows ($(wc -l <want_left.txt) rows)"
same "$(sqlite3 out.db "SELECT count(*) FROM out_left WHERE name IS NULL")" \
    "$(sqlite3 ref.db "ATTACH 'dim.db' AS d; SELECT count(*) FROM orders o WHERE amount > 100
         AND NOT EXISTS (SELECT 1 FROM d.customers c WHERE c.id = o.cid AND c.tier > 0)")" \
    "the LEFT join kept each order that found no customer once, with NULLs"

rsql --tsv -e "SELECT * FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.proc_time c
               ON c.id = o.cid WHERE o.oid = 97 * 3"
expect_rc 0 "SELECT * of a join"
same "$(printf '%s\n' "$OUT" | cut -f1,2,3,5,6,7 | sort | tr '\n' ';')" \
    "$(python3 -c '
import json, sqlite3
o = [json.loads(l) for l in open("orders.jsonl")][97 * 3 - 1]
d = sqlite3.connect("dim.db")
rows = d.execute("SELECT id, name, tier FROM customers WHERE id = ?", (o["cid"],)).fetchall()
print("".join(sorted("%d\t%d\t%d\t%d\t%s\t%d;" % (o["oid"], o["cid"], o["amount"], i, n, t) for i, n, t in rows)), end="")')" \
    "SELECT * lists the order's columns, its processing time, then the customer's"

# ---- a customer row changed while a following job runs: the orders read after find it
python3 -c '
for i in range(1, 101): print("{\"oid\":%d,\"cid\":5,\"amount\":200}" % i)' >follow.jsonl
cat >follow.sql <<'SQL'
CREATE TABLE forders (oid BIGINT, cid INT, amount INT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'follow.jsonl', 'scan.follow' = 'true',
        'scan.poll-interval' = '50ms');
CREATE TABLE fout (oid BIGINT, name STRING)
  WITH ('connector' = 'sqlite', 'path' = 'fout.db', 'table' = 'fout');
SQL
rsql -f follow.sql
expect_rc 0 "create the follow tables"
"$RSQL" --catalog "$CAT" -e "INSERT INTO fout SELECT o.oid, c.name FROM forders o
    JOIN customers FOR SYSTEM_TIME AS OF o.pt c ON c.id = o.cid" >follow.out 2>follow.err &
fpid=$!
e2e_pids="$fpid"
rows_in() { [ "$(sqlite3 fout.db "SELECT count(*) FROM fout" 2>/dev/null || echo 0)" -ge "$1" ]; }
wait_until 60 rows_in 100 || fail "the first 100 orders were not joined: $(cat follow.err)"
ok "the first 100 orders joined"
sqlite3 dim.db "UPDATE customers SET name = 'renamed' WHERE id = 5"
python3 -c '
for i in range(101, 201): print("{\"oid\":%d,\"cid\":5,\"amount\":200}" % i)' >>follow.jsonl
wait_until 60 rows_in 200 || fail "the next 100 orders were not joined: $(cat follow.err)"
# then one order at a time, customers 5 and 6 in turn: each batch holds one row, and a batch's
# memory is reused once it is written; every order must find its own customer
for i in $(seq 201 220); do
    echo "{\"oid\":$i,\"cid\":$((5 + i % 2)),\"amount\":200}" >>follow.jsonl
    wait_until 30 rows_in $i || fail "order $i was not joined: $(cat follow.err)"
done
kill -TERM "$fpid"
wait "$fpid" 2>/dev/null || true
e2e_pids=""
same "$(sqlite3 fout.db "SELECT count(*) FROM fout WHERE oid <= 100 AND name = 'c5 x'")|$(sqlite3 fout.db "SELECT count(*) FROM fout WHERE oid BETWEEN 101 AND 200 AND name = 'renamed'")" \
    "100|100" "orders before the change found the old row, every order after it the new one"
same "$(sqlite3 fout.db "SELECT count(*) FROM fout WHERE oid > 200 AND name =
         CASE oid % 2 WHEN 0 THEN 'renamed' ELSE 'c6 x' END")" 20 \
    "orders that came one at a time each found their own customer"

# ---- the partial cache: the same joins with a cache of 50 rows (evicting all the time)
cat >cached.sql <<'SQL'
CREATE TABLE ccustomers (id INT, name STRING, tier INT)
  WITH ('connector' = 'sqlite', 'path' = 'dim.db', 'table' = 'customers',
        'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.max-rows' = '50');
CREATE TABLE cout_inner (oid BIGINT, cid INT, name STRING, tier INT, amount INT)
  WITH ('connector' = 'sqlite', 'path' = 'cout.db', 'table' = 'cout_inner');
CREATE TABLE cout_left (oid BIGINT, cid INT, name STRING, tier INT, amount INT)
  WITH ('connector' = 'sqlite', 'path' = 'cout.db', 'table' = 'cout_left');
SQL
rsql -f cached.sql
expect_rc 0 "create the cached tables"
sqlite3 dim.db "UPDATE customers SET name = 'c5 x' WHERE id = 5"
for kind in inner left; do
    join=JOIN; [ $kind = left ] && join="LEFT JOIN"
    rsql -e "INSERT INTO cout_$kind SELECT o.oid, c.id, c.name, c.tier, o.amount FROM orders AS o
             $join ccustomers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.cid AND c.tier > 0
             WHERE o.amount > 100"
    expect_rc 0 "$kind lookup join with a cache"
    sqlite3 -separator '|' cout.db "SELECT oid, cid, name, tier, amount FROM cout_$kind
        ORDER BY 1, 2, 3, 4" >gotc_$kind.txt
    cmp -s gotc_$kind.txt want_$kind.txt ||
        fail "$kind join with a cache differs from SQLite's: $(diff gotc_$kind.txt want_$kind.txt | head -5)"
    case "$ERR" in *"lookup of ccustomers: "*" keys asked in "*"; cache: "*" hits"*) ;;
    *) fail "no lookup summary in the log: $ERR" ;; esac
    ok "$kind join with a cache of 50 rows equals SQLite's join ($(printf '%s\n' "$ERR" |
        grep -o 'cache: [0-9]* hits, [0-9]* misses' | head -1))"
done

# a cached key keeps its rows while the table changes (no expiry); a key that found nothing is
# asked again when cache-missing-key is false, so a row inserted for it is found at once
cat >cfollow.sql <<'SQL'
CREATE TABLE mcustomers (id INT, name STRING, tier INT)
  WITH ('connector' = 'sqlite', 'path' = 'dim.db', 'table' = 'customers',
        'lookup.cache' = 'PARTIAL', 'lookup.partial-cache.cache-missing-key' = 'false');
CREATE TABLE corders (oid BIGINT, cid INT, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'cfollow.jsonl', 'scan.follow' = 'true',
        'scan.poll-interval' = '50ms');
CREATE TABLE cfout (oid BIGINT, name STRING)
  WITH ('connector' = 'sqlite', 'path' = 'cfout.db', 'table' = 'cfout');
SQL
rsql -f cfollow.sql
expect_rc 0 "create the cached follow tables"
echo '{"oid":1,"cid":7}' >cfollow.jsonl
echo '{"oid":2,"cid":5000}' >>cfollow.jsonl
"$RSQL" --catalog "$CAT" -e "INSERT INTO cfout SELECT o.oid, c.name FROM corders o
    LEFT JOIN mcustomers FOR SYSTEM_TIME AS OF o.pt c ON c.id = o.cid" >cfollow.out 2>cfollow.err &
fpid=$!
e2e_pids="$fpid"
crows_in() { [ "$(sqlite3 cfout.db "SELECT count(*) FROM cfout" 2>/dev/null || echo 0)" -ge "$1" ]; }
wait_until 60 crows_in 2 || fail "the first orders were not joined: $(cat cfollow.err)"
sqlite3 dim.db "UPDATE customers SET name = 'seven renamed' WHERE id = 7;
                INSERT INTO customers VALUES (5000, 'new customer', 1)"
echo '{"oid":3,"cid":7}' >>cfollow.jsonl
echo '{"oid":4,"cid":5000}' >>cfollow.jsonl
wait_until 60 crows_in 4 || fail "the next orders were not joined: $(cat cfollow.err)"
kill -TERM "$fpid"
wait "$fpid" 2>/dev/null || true
e2e_pids=""
same "$(sqlite3 cfout.db "SELECT oid || '=' || coalesce(name, 'NULL') FROM cfout ORDER BY oid" | tr '\n' ' ')" \
    "1=c7 o'neil 2=NULL 3=c7 o'neil 4=new customer " \
    "the cached key kept its row; the missing key was asked again and found the new row"

# ---- what is refused, at its place
rsql -e "SELECT o.oid FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.oid c ON c.id = o.cid"
expect_rc 1 "AS OF a column that is not the processing time is refused"
case "$ERR" in *"must name the processing time of 'o'"*) ok "the error says what AS OF needs" ;;
*) fail "unexpected error: $ERR" ;; esac
rsql -e "SELECT o.oid FROM orders o JOIN customers FOR SYSTEM_TIME AS OF o.proc_time c ON c.tier > 1"
expect_rc 1 "a join without a key equality is refused"
echo PASS

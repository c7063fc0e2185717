#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_group_by.sh: group aggregation (GROUP BY with COUNT, SUM, AVG, MIN, MAX, FIRST_VALUE,
# LAST_VALUE, COUNT and SUM of DISTINCT values, and HAVING) of a json-lines file into sqlite tables keyed by the group, compared
# with SQLite's own GROUP BY over the same rows (loaded into a database here):
#   - uninterrupted, every aggregate, NULLs among the values (skipped by every aggregate);
#   - HAVING on a sum that rises and falls: groups enter and leave the result (a group that
#     leaves is deleted from the sink by its -U), with mini-batches of 100 rows (each group
#     gives its rows once per batch);
#   - the same jobs killed with kill -9 at random moments, five kills each that land on a
#     running job, then run to the end: their tables equal the reference;
#   - more lines appended (new groups and old ones), the jobs run again: they resume with
#     their state, so each group's result covers every line;
#   - 200,000 groups with state.memory = 2mb: the accumulators that leave memory are read
#     back from the catalog, and the result still equals the reference;
#   - over a debezium-json changelog (updates moving rows between groups, deletes emptying
#     groups): the keyed table equals SQLite's GROUP BY over the table the changes leave;
#   - a preview of a whole-stream aggregate: its last row is SQLite's.
. "$(dirname "$0")/lib.sh"

N=300000
SEED=${E2E_SEED:-$$}
echo "seed $SEED (E2E_SEED=$SEED reproduces the kill delays and the data)"
gen() { # FROM TO KEYS: lines FROM..TO, keys drawn from KEYS
    python3 - "$1" "$2" "$3" "$SEED" <<'PY'
import json, random, sys
lo, hi, keys, seed = (int(a) for a in sys.argv[1:5])
r = random.Random(seed * 1000003 + lo)
out = sys.stdout
for i in range(lo, hi + 1):
    e = {"id": i, "k": "k%05d" % r.randint(1, keys), "g": r.choice("abc")}
    if r.random() < 0.9:  # else the values are absent: NULL
        e["v"] = r.randint(-200, 300)
        e["d"] = r.randint(-400, 400) / 4.0  # exact in binary: sums do not round
        e["note"] = "n%d" % r.randint(0, 99999)
    out.write(json.dumps(e) + "\n")
PY
}
gen 1 "$N" 3000 >events.jsonl

# the reference: SQLite's GROUP BY over the same lines, loaded into ref.db
QUERY_ALL="SELECT k, g, COUNT(*), COUNT(v), SUM(v), SUM(v) / COUNT(v), MIN(v), MAX(v),
  SUM(d), MIN(note), MAX(note), COUNT(DISTINCT v % 10), SUM(DISTINCT v % 10),
  (SELECT v FROM ev f WHERE f.k = e.k AND f.g = e.g AND f.id % 7 <> 0 AND f.v IS NOT NULL
     ORDER BY id LIMIT 1),
  (SELECT note FROM ev f WHERE f.k = e.k AND f.g = e.g AND f.id % 7 <> 0
     AND f.note IS NOT NULL ORDER BY id DESC LIMIT 1)
  FROM ev e WHERE id % 7 <> 0 GROUP BY k, g ORDER BY k, g"
QUERY_HAVING="SELECT k, SUM(v), COUNT(*) FROM ev GROUP BY k HAVING SUM(v) > 1500 ORDER BY k"
reference() { # FILE: ref_all.txt, ref_having.txt
    rm -f ref.db
    python3 - "$1" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect("ref.db")
db.execute("CREATE TABLE ev (id INTEGER, k TEXT, g TEXT, v INTEGER, d REAL, note TEXT)")
with open(sys.argv[1]) as f:
    db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?, ?, ?)",
                   ((e["id"], e["k"], e["g"], e.get("v"), e.get("d"), e.get("note"))
                    for e in map(json.loads, f)))
db.execute("CREATE INDEX ev_kg ON ev (k, g, id)")
db.commit()
PY
    sqlite3 -separator '|' ref.db "$QUERY_ALL" >ref_all.txt
    sqlite3 -separator '|' ref.db "$QUERY_HAVING" >ref_having.txt
}
reference events.jsonl

cat >tables.sql <<'SQL'
CREATE TABLE events (id BIGINT, k STRING, g STRING, v INT, d DOUBLE, note STRING)
  WITH ('connector' = 'filesystem', 'path' = 'events.jsonl');
CREATE TABLE per_kg (k STRING, g STRING, n BIGINT, n_v BIGINT, sum_v INT, avg_v INT,
    min_v INT, max_v INT, sum_d DOUBLE, min_note STRING, max_note STRING, nd_v BIGINT,
    sd_v INT, first_v INT, last_note STRING, PRIMARY KEY (k, g) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'per_kg');
CREATE TABLE big_sums (k STRING, total INT, n BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'big_sums');
CREATE JOB all_aggs AS INSERT INTO per_kg
  SELECT k, g, COUNT(*), COUNT(v), SUM(v), AVG(v), MIN(v), MAX(v), SUM(d), MIN(note),
         MAX(note), COUNT(DISTINCT v % 10), SUM(DISTINCT v % 10), FIRST_VALUE(v),
         LAST_VALUE(note)
  FROM events WHERE id % 7 <> 0 GROUP BY k, g;
SET 'table.exec.mini-batch.enabled' = 'true';
SET 'table.exec.mini-batch.size' = '100';
CREATE JOB big AS INSERT INTO big_sums
  SELECT k, SUM(v), COUNT(*) FROM events GROUP BY k HAVING SUM(v) > 1500;
SQL
rsql -f tables.sql
expect_rc 0 "create the tables and jobs"
got_all() { sqlite3 -separator '|' out.db "SELECT * FROM per_kg ORDER BY k, g"; }
got_having() { sqlite3 -separator '|' out.db "SELECT * FROM big_sums ORDER BY k"; }
check() { # WHAT: both tables against the reference
    got_all >got.txt
    cmp -s got.txt ref_all.txt ||
        fail "$1: per_kg differs from SQLite's GROUP BY: $(diff got.txt ref_all.txt | head -6)"
    got_having >got.txt
    cmp -s got.txt ref_having.txt ||
        fail "$1: big_sums differs from SQLite's HAVING: $(diff got.txt ref_having.txt | head -6)"
}

# ---- uninterrupted
rsql run all_aggs
expect_rc 0 "every aggregate per (k, g)"
case "$ERR" in *"aggregation: "*" rows gave $(wc -l <ref_all.txt) new groups"*) ;;
*) fail "the summary does not count $(wc -l <ref_all.txt) groups: $ERR" ;; esac
rsql run big
expect_rc 0 "groups whose sum passes 1500"
case "$ERR" in *"written="*" in 3000 mini-batches"*) ;;
*) fail "the summary does not show 3000 mini-batches of 100 rows: $ERR" ;; esac
written=$(printf '%s\n' "$ERR" | sed -n 's/.* written=\([0-9]*\) .*/\1/p' | tail -1)
[ -n "$written" ] && [ "$written" -lt "$N" ] ||
    fail "mini-batches wrote $written rows for $N: no fewer than one per row"
check "uninterrupted"
ok "uninterrupted: $(wc -l <ref_all.txt) groups with every aggregate and $(wc -l <ref_having.txt) past HAVING, as SQLite's"

# ---- each job killed five times from the start, then run to the end
for job in all_aggs big; do
    rsql -e "RESET POSITIONS '$job'"
    expect_rc 0 "$job: start over"
done
sqlite3 out.db "DELETE FROM per_kg; DELETE FROM big_sums; DELETE FROM rocketsql_positions"
kill_loop all_aggs per_kg out.db
kill_loop big big_sums out.db
check "after 5 kills each"
ok "both jobs killed 5 times each: their tables equal SQLite's GROUP BY and HAVING"

# ---- more lines: the jobs resume with their state
gen $((N + 1)) $((N + 30000)) 3500 >>events.jsonl
reference events.jsonl
for job in all_aggs big; do
    rsql run "$job"
    expect_rc 0 "$job: a run over the lines appended"
done
check "after more lines"
ok "resumed with their state: each group covers the old lines and the new ($(wc -l <ref_all.txt) groups)"

# ---- 200,000 groups in 2 MB of state: accumulators leave memory and are read back
python3 - <<'PY'
import json
with open("many.jsonl", "w") as f:
    n = 0
    for rnd in range(2):
        for i in range(200000):
            n += 1
            f.write(json.dumps({"id": n, "k": "u%06d" % ((i * 7919) % 200000), "v": rnd + 1}) + "\n")
PY
rsql -e "SET 'state.memory' = '2mb';
    CREATE TABLE many (id BIGINT, k STRING, v INT)
      WITH ('connector' = 'filesystem', 'path' = 'many.jsonl');
    CREATE TABLE many_sums (k STRING, n BIGINT, s INT, PRIMARY KEY (k) NOT ENFORCED)
      WITH ('connector' = 'sqlite', 'path' = 'many.db', 'table' = 'sums');
    INSERT INTO many_sums SELECT k, COUNT(*), SUM(v) FROM many GROUP BY k"
expect_rc 0 "aggregate 400,000 rows into 200,000 groups with state.memory = 2mb"
same "$(sqlite3 many.db "SELECT count(*), min(n), max(n), min(s), max(s) FROM sums")" \
    "200000|2|2|3|3" "each group counted both its rows (2) and summed them (1 + 2)"
case "$ERR" in *" evicted, "*" looked up in the catalog"*) ;;
*) fail "the summary does not show the state leaving memory: $ERR" ;; esac
ok "200,000 groups in 2 MB: $(printf '%s\n' "$ERR" | grep -o '[0-9]* evicted, [0-9]* looked up in the catalog')"

# ---- over a changelog (debezium-json: inserts, updates that may move a row to another group,
# deletes): each -U and -D is taken out of its group, and a group whose rows are all deleted is
# deleted from the sink; compared with SQLite's GROUP BY over the table the events leave
python3 - "$SEED" <<'PY'
import json, random, sqlite3, sys
r = random.Random(int(sys.argv[1]))
rows, nid = {}, 0
with open("changes.jsonl", "w") as f:
    for _ in range(60000):
        x = r.random()
        if x < 0.45 or len(rows) < 10:
            nid += 1
            a = {"id": nid, "grp": "g%03d" % r.randint(1, 300),
                 "amount": r.choice([None] + [r.randint(-50, 500)] * 9)}
            rows[nid] = a
            f.write(json.dumps({"before": None, "after": a, "op": "c"}) + "\n")
        elif x < 0.8:
            i = r.choice(list(rows))
            b = rows[i]
            a = dict(b, amount=r.randint(-50, 500))
            if r.random() < 0.3:
                a["grp"] = "g%03d" % r.randint(1, 300)
            rows[i] = a
            f.write(json.dumps({"before": b, "after": a, "op": "u"}) + "\n")
        else:
            i = r.choice(list(rows))
            f.write(json.dumps({"before": rows.pop(i), "after": None, "op": "d"}) + "\n")
db = sqlite3.connect("changes_ref.db")
db.execute("CREATE TABLE t (id INTEGER, grp TEXT, amount INTEGER)")
db.executemany("INSERT INTO t VALUES (?, ?, ?)",
               ((a["id"], a["grp"], a["amount"]) for a in rows.values()))
db.commit()
PY
sqlite3 -separator '|' changes_ref.db "SELECT grp, COUNT(*), COUNT(amount), SUM(amount),
    SUM(amount) / COUNT(amount) FROM t GROUP BY grp ORDER BY grp" >ref_changes.txt
rsql -e "CREATE TABLE changes (id BIGINT, grp STRING, amount INT)
      WITH ('connector' = 'filesystem', 'path' = 'changes.jsonl', 'format' = 'debezium-json');
    CREATE TABLE per_grp (grp STRING, n BIGINT, n_amount BIGINT, total INT, mean INT,
        PRIMARY KEY (grp) NOT ENFORCED)
      WITH ('connector' = 'sqlite', 'path' = 'changes.db', 'table' = 'per_grp');
    INSERT INTO per_grp SELECT grp, COUNT(*), COUNT(amount), SUM(amount), AVG(amount)
      FROM changes GROUP BY grp"
expect_rc 0 "GROUP BY over a debezium-json changelog"
sqlite3 -separator '|' changes.db "SELECT * FROM per_grp ORDER BY grp" >got.txt
cmp -s got.txt ref_changes.txt ||
    fail "per_grp differs from SQLite's GROUP BY of the table the changes leave: $(diff got.txt ref_changes.txt | head -6)"
ok "over 60,000 changes: $(wc -l <got.txt) groups as SQLite's GROUP BY of the table they leave"
rsql -e "SELECT grp, MAX(amount) FROM changes GROUP BY grp"
expect_rc 1 "MAX over a changelog is refused"
case "$ERR" in *"MAX(amount) over a changelog is not supported yet"*) ;;
*) fail "MAX over a changelog: $ERR" ;; esac

# ---- a preview of a whole-stream aggregate: its last row is the total
rsql --tsv -e "SET 'sql.preview-limit' = '0';
    SELECT COUNT(*), SUM(v), MIN(v), MAX(v) FROM events WHERE id % 7 <> 0"
expect_rc 0 "a preview of a whole-stream aggregate"
same "$(printf '%s\n' "$OUT" | tail -1 | tr '\t' '|')" \
    "+U|$(sqlite3 -separator '|' ref.db "SELECT COUNT(*), SUM(v), MIN(v), MAX(v) FROM ev WHERE id % 7 <> 0")" \
    "the preview's last row (its kind first)"
# ---- a quiet input: the state is saved with its positions while the job waits for more
python3 -c '
import json
with open("quiet.jsonl", "w") as f:
    for i in range(5000):
        f.write(json.dumps({"id": i, "k": "k%d" % (i % 50)}) + "\n")'
cat >quiet.sql <<'SQL'
CREATE TABLE quiet (id BIGINT, k STRING)
  WITH ('connector' = 'filesystem', 'path' = 'quiet.jsonl', 'scan.follow' = 'true');
CREATE TABLE quiet_out (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
INSERT INTO quiet_out SELECT k, COUNT(*) FROM quiet GROUP BY k;
SQL
"$RSQL" --catalog "$CAT" -f quiet.sql >quiet.out 2>quiet.err &
qpid=$!
e2e_pids="$qpid"
size=$(wc -c <quiet.jsonl)
saved() { # the file's end saved in the catalog, with the 50 keys' state
    [ "$(sqlite3 "$CAT" "SELECT value FROM offsets WHERE pipeline LIKE 'insert:quiet->%'" 2>/dev/null)" = "$size" ] &&
        [ "$(sqlite3 "$CAT" "SELECT count(*) FROM state" 2>/dev/null)" -ge 50 ]
}
wait_until 20 saved || fail "a quiet job did not save the end of its input with its state: $(sqlite3 "$CAT" "SELECT * FROM offsets" 2>&1 | tail -3)"
kill -0 "$qpid" 2>/dev/null || fail "the job following quiet.jsonl ended: $(cat quiet.err)"
kill -INT "$qpid"
wait "$qpid" || true
e2e_pids=""
ok "a GROUP BY waiting on a quiet input saved its state and the input's end ($size) while it waited"

echo PASS

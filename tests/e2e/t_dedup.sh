#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_dedup.sh: deduplication (SELECT ... FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k
# ORDER BY pt [ASC | DESC]) AS rn FROM events WHERE v > 0) WHERE rn = 1) of a json-lines file
# into sqlite, compared with a reference computed here from the same lines (the first and the
# last line of each key among those with v > 0):
#   - uninterrupted: the first row of each key into a table that only appends (so a duplicate
#     would show), the last into a table keyed by k (its -U/+U applied by key);
#   - the same two jobs killed with kill -9 at random moments, five kills each that land on a
#     running job, then run to the end: their keyed tables equal the reference;
#   - more lines appended (new keys and old ones), the jobs run again: they resume with their
#     state, so an old key keeps its first row and its last row is the newest;
#   - 300,000 keys then each again, with state.memory = 2mb: what leaves memory is looked up in
#     the catalog, so every repeat is dropped;
#   - a SELECT preview of the same query (state in memory) gives the same first rows.
. "$(dirname "$0")/lib.sh"

N=1000000
SEED=${E2E_SEED:-$$}
echo "seed $SEED (E2E_SEED=$SEED reproduces the kill delays and the data)"
gen() { # FROM TO: lines FROM..TO of the events, keys drawn from 20,000
    python3 - "$1" "$2" "$SEED" <<'PY'
import json, random, sys
lo, hi, seed = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
r = random.Random(seed * 1000003 + lo)
out = sys.stdout
for i in range(lo, hi + 1):
    k = "k%05d" % r.randint(1, 20000 if lo == 1 else 25000)
    out.write(json.dumps({"id": i, "k": k, "v": r.randint(-20, 500),
                          "note": "it's #%d" % i}) + "\n")
PY
}
gen 1 "$N" >events.jsonl

# reference FILE: "first.txt" and "last.txt", id|k|v|note of each key's first and last line
# with v > 0, sorted by k
reference() {
    python3 - "$1" <<'PY'
import json, sys
first, last = {}, {}
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e["v"] > 0:
        first.setdefault(e["k"], e)
        last[e["k"]] = e
for name, d in (("first.txt", first), ("last.txt", last)):
    with open(name, "w") as f:
        for k in sorted(d):
            e = d[k]
            f.write("%d|%s|%d|%s\n" % (e["id"], e["k"], e["v"], e["note"]))
PY
}
reference events.jsonl

cat >tables.sql <<'SQL'
CREATE TABLE events (id BIGINT, k STRING, v INT, note STRING, pt AS PROCTIME())
  WITH ('connector' = 'filesystem', 'path' = 'events.jsonl');
CREATE TABLE firsts (id BIGINT, k STRING, v INT, note STRING)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'firsts');
CREATE TABLE kfirsts (id BIGINT, k STRING, v INT, note STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'kfirsts');
CREATE TABLE lasts (id BIGINT, k STRING, v INT, note STRING, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'out.db', 'table' = 'lasts');
CREATE JOB keep_first AS INSERT INTO kfirsts SELECT id, k, v, note FROM (SELECT *,
  ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt ASC) AS rn FROM events WHERE v > 0) WHERE rn = 1;
CREATE JOB keep_last AS INSERT INTO lasts SELECT id, k, v, note FROM (SELECT *,
  ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt DESC) AS rn FROM events WHERE v > 0) AS q
  WHERE q.rn = 1;
SQL
rsql -f tables.sql
expect_rc 0 "create the tables and jobs"
got() { sqlite3 -separator '|' out.db "SELECT id, k, v, note FROM $1 ORDER BY k"; }

# ---- uninterrupted, into a table that only appends: each key's first row once
rsql -e "INSERT INTO firsts SELECT id, k, v, note FROM (SELECT *, ROW_NUMBER() OVER
           (PARTITION BY k ORDER BY pt) AS rn FROM events WHERE v > 0) WHERE rn = 1"
expect_rc 0 "keep the first row of each key"
got firsts >got.txt
cmp -s got.txt first.txt || fail "the first rows differ from the reference: $(diff got.txt first.txt | head -5)"
ok "the first row of each key, once each: $(wc -l <first.txt) rows, as the reference"
case "$ERR" in *"deduplication: $(wc -l <first.txt) rows kept"*) ;;
*) fail "the summary does not say how many rows were kept: $ERR" ;; esac

# ---- each job killed five times, then run to the end
kill_loop keep_first kfirsts out.db
got kfirsts >got.txt
cmp -s got.txt first.txt ||
    fail "after 5 kills the first rows differ from the reference: $(diff got.txt first.txt | head -5)"
ok "keep_first, killed 5 times: its keyed table equals the reference ($(wc -l <got.txt) keys)"
kill_loop keep_last lasts out.db
got lasts >got.txt
cmp -s got.txt last.txt ||
    fail "after 5 kills the last rows differ from the reference: $(diff got.txt last.txt | head -5)"
ok "keep_last, killed 5 times: its keyed table equals the reference ($(wc -l <got.txt) keys)"
last_run keep_last
same "$R_STATUS" done "status of keep_last's last run"

# ---- more lines: the jobs resume with their state
gen $((N + 1)) $((N + 50000)) >>events.jsonl
reference events.jsonl
for job in keep_first keep_last; do
    rsql run "$job"
    expect_rc 0 "$job: a run over the lines appended"
done
got kfirsts >got.txt
cmp -s got.txt first.txt ||
    fail "after more lines the first rows differ: $(diff got.txt first.txt | head -5)"
ok "keep_first resumed with its state: old keys kept their first row, new keys got theirs"
got lasts >got.txt
cmp -s got.txt last.txt ||
    fail "after more lines the last rows differ: $(diff got.txt last.txt | head -5)"
ok "keep_last resumed with its state: each key holds its newest row"

# ---- a bound on the state's memory: 300,000 keys, then each again, in 2 MB: entries leave
# memory once saved and are looked up in the catalog, so a key seen long before is still a
# duplicate
python3 - <<'PY'
import json, random
r = random.Random(7)
keys = ["u%06d" % i for i in range(300000)]
again = keys[:]
r.shuffle(again)
with open("many.jsonl", "w") as f:
    n = 0
    for k in keys + again:
        n += 1
        f.write(json.dumps({"id": n, "k": k, "v": 1, "note": ""}) + "\n")
PY
rsql -e "SET 'state.memory' = '2mb';
    CREATE TABLE many (id BIGINT, k STRING, v INT, note STRING, pt AS PROCTIME())
      WITH ('connector' = 'filesystem', 'path' = 'many.jsonl');
    CREATE TABLE many_firsts (id BIGINT, k STRING)
      WITH ('connector' = 'sqlite', 'path' = 'many.db', 'table' = 'firsts');
    INSERT INTO many_firsts SELECT id, k FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k
      ORDER BY pt) AS rn FROM many) WHERE rn = 1"
expect_rc 0 "deduplicate 600,000 rows of 300,000 keys with state.memory = 2mb"
same "$(sqlite3 many.db "SELECT count(*), count(DISTINCT k), min(id), max(id) FROM firsts")" \
    "300000|300000|1|300000" "each key kept once, its first row, none of the repeats"
case "$ERR" in *"state: "*" keys in memory ("*" bytes), "*" evicted, "*" looked up in the catalog"*) ;;
*) fail "the summary does not show the state leaving memory: $ERR" ;; esac
held=$(printf '%s\n' "$ERR" | sed -n 's/.*state: \([0-9]*\) keys in memory (\([0-9]*\) bytes).*/\2/p')
peak=$(printf '%s\n' "$ERR" | sed -n 's/.*at most \([0-9]*\) bytes held.*/\1/p')
ckpts=$(printf '%s\n' "$ERR" | sed -n 's/.* \([0-9]*\) checkpoints.*/\1/p')
# the bound holds while the run goes, not only at its end: checkpoints are asked for when the
# unsaved changes reach half of it, so many are made, and the most held stays near 2 MB
[ -n "$ckpts" ] && [ "$ckpts" -ge 10 ] ||
    fail "the run made $ckpts checkpoints: none was asked for when the state reached its bound: $ERR"
[ -n "$held" ] && [ "$held" -le 2097152 ] ||
    fail "the state held $held bytes in memory at the end, bound 2 MB"
[ -n "$peak" ] && [ "$peak" -le 3145728 ] ||
    fail "the state held up to $peak bytes while the run went, bound 2 MB (half again allowed)"
ok "with 2 MB of state in memory (at most $peak bytes held, $ckpts checkpoints): $(printf '%s\n' "$ERR" |
    grep -o '[0-9]* evicted, [0-9]* looked up in the catalog')"

# ---- a preview: the same first rows, state in memory only
rsql --tsv -e "SET 'sql.preview-limit' = '0';
    SELECT id, k, v, note FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt)
      AS rn FROM events WHERE v > 0) WHERE rn = 1"
expect_rc 0 "a preview of the deduplication"
printf '%s\n' "$OUT" | tr '\t' '|' | LC_ALL=C sort -t '|' -k2,2 >got.txt
cmp -s got.txt first.txt || fail "the preview differs: $(diff got.txt first.txt | head -5)"
ok "the preview gives the same first rows ($(wc -l <got.txt))"

# ---- state.checkpoint.interval: 3,000 rows over 1.5 s (datagen at 2,000 rows/s), checkpoints
# every 100 ms against every state.flush-interval (1s): many more with the former
ckpt_run() { # $1: the SET statement (or nothing), $2: the sink table
    rsql -e "$1
      CREATE TABLE g$2 (k INT, pt AS PROCTIME()) WITH ('connector' = 'datagen',
        'rows-per-second' = '2000', 'number-of-rows' = '3000', 'fields.k.min' = '1',
        'fields.k.max' = '500');
      CREATE TABLE $2 (k INT, PRIMARY KEY (k) NOT ENFORCED)
        WITH ('connector' = 'sqlite', 'path' = '$2.db', 'table' = 'o');
      INSERT INTO $2 SELECT k FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k ORDER BY pt)
        AS rn FROM g$2) WHERE rn = 1"
    expect_rc 0 "deduplicate 3,000 generated rows into $2 ($1)"
    CKPTS=$(printf '%s\n' "$ERR" | sed -n 's/.* \([0-9]*\) checkpoints.*/\1/p' | tail -1)
}
ckpt_run "SET 'state.checkpoint.interval' = '100ms';" ck_fast
fast=$CKPTS
ckpt_run "" ck_slow
slow=$CKPTS
[ -n "$fast" ] && [ -n "$slow" ] && [ "$fast" -ge 5 ] && [ "$slow" -le 3 ] ||
    fail "checkpoints: $fast with state.checkpoint.interval 100ms, $slow with the default 1s"
ok "state.checkpoint.interval 100ms: $fast checkpoints; default (state.flush-interval 1s): $slow"
echo PASS

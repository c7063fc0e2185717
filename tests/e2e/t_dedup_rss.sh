#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_dedup_rss.sh: state.memory bounds the memory of a deduplication, as the kernel sees it.
# A file of 1,000,000 distinct keys, then 200,000 repeats of them, is deduplicated (first row
# of each key) into a sqlite table twice: with state.memory = 8mb and with 0 (all of the state
# in memory, ~90 MB for these keys). The peak RSS of each run is the kernel's
# (getrusage(RUSAGE_CHILDREN).ru_maxrss of a process that only runs rocketsql), never the
# run's own summary. Asserted:
#   - both tables equal the reference computed here from the file (count, distinct keys,
#     min, max and sum of the ids kept: each key's first row);
#   - the bounded run's peak is at least 48 MB below the unbounded one's;
#   - the bounded run's peak is at most that of a stateless run of the same file into the same
#     sink (the baseline) + 2 x 8 MB + 16 MB of slack.
# A memory assertion, not a timing one.
. "$(dirname "$0")/lib.sh"

N=1000000
REPEATS=200000
python3 - "$N" "$REPEATS" <<'PY'
import random, sys
n, repeats = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(7)
with open("events.jsonl", "w") as f:
    for i in range(1, n + 1):
        f.write('{"id":%d,"k":"key-%07d"}\n' % (i, i))
    for i in range(n + 1, n + repeats + 1):
        f.write('{"id":%d,"k":"key-%07d"}\n' % (i, r.randint(1, n)))
PY
# the reference: each key's first row (count, distinct keys, min, max and sum of the ids)
ref=$(python3 - <<'PY'
import json
first = {}
for line in open("events.jsonl"):
    e = json.loads(line)
    first.setdefault(e["k"], e["id"])
ids = first.values()
print("%d|%d|%d|%d|%d" % (len(first), len(set(first)), min(ids), max(ids), sum(ids)))
PY
)
ok "$((N + REPEATS)) lines, reference of the first rows: $ref"

# run NAME MEMORY: one run into NAME.db (MEMORY "" = no deduplication: the baseline); prints
# its peak RSS in kB
run() {
    local name=$1 mem=$2 set="" query="INSERT INTO dst SELECT id, k FROM ev"
    if [ -n "$mem" ]; then
        set="SET 'state.memory' = '$mem';"
        query="INSERT INTO dst SELECT id, k FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k
          ORDER BY pt) AS rn FROM ev) WHERE rn = 1"
    fi
    rm -f "$CAT"
    python3 - "$name.out" "$name.err" "$RSQL" --catalog "$CAT" -e "$set
      CREATE TABLE ev (id BIGINT, k STRING, pt AS PROCTIME())
        WITH ('connector' = 'filesystem', 'path' = 'events.jsonl');
      CREATE TABLE dst (id BIGINT, k STRING)
        WITH ('connector' = 'sqlite', 'path' = '$name.db', 'table' = 't');
      $query" <<'PY' >"$name.rss" || fail "the $name run failed: $(cat "$name.err")"
import resource, subprocess, sys
with open(sys.argv[1], "w") as out, open(sys.argv[2], "w") as err:
    rc = subprocess.run(sys.argv[3:], stdout=out, stderr=err).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(rc)
PY
    cat "$name.rss"
}
table() { sqlite3 "$1.db" "SELECT count(*), count(DISTINCT k), min(id), max(id), sum(id) FROM t"; }

base=$(run base "")
same "$(sqlite3 base.db 'SELECT count(*) FROM t')" "$((N + REPEATS))" "the baseline run's rows"
ok "baseline (no state): every line written, peak RSS $base kB"

bounded=$(run bounded 8mb)
same "$(table bounded)" "$ref" "state.memory = 8mb: the first row of each key"
grep -q ' evicted, ' bounded.err || fail "the bounded run evicted nothing: $(cat bounded.err)"
ok "state.memory = 8mb: the reference's rows, peak RSS $bounded kB"

unbounded=$(run unbounded 0)
same "$(table unbounded)" "$ref" "state.memory = 0: the first row of each key"
grep -q "state: $N keys in memory" unbounded.err || fail "the unbounded run: $(cat unbounded.err)"
ok "state.memory = 0: the reference's rows, peak RSS $unbounded kB"

echo "peak RSS: baseline $base kB, state.memory 8mb $bounded kB, state.memory 0 $unbounded kB"
margin=$((48 * 1024))
[ "$bounded" -le $((unbounded - margin)) ] ||
    fail "the bounded run's peak RSS ($bounded kB) is not 48 MB below the unbounded one's ($unbounded kB)"
ok "bounded $bounded kB <= unbounded $unbounded kB - 48 MB"
limit=$((base + 2 * 8 * 1024 + 16 * 1024))
[ "$bounded" -le "$limit" ] ||
    fail "the bounded run's peak RSS ($bounded kB) is over baseline $base kB + 2 x 8 MB + 16 MB = $limit kB"
ok "bounded $bounded kB <= baseline $base kB + 2 x 8 MB + 16 MB = $limit kB"
echo PASS

#!/usr/bin/env bash
# rocketsql serve's /metrics of a job's state (a deduplication): a running job whose keys cycle
# through 37 values shows 37 keys held once its rows went past them, checkpoints and their
# durations; a bounded job with a small state.memory (5,000 keys, 20,000 rows) shows what left
# memory and was looked up in the catalog, and one checkpoint duration per checkpoint; a
# stateless job has no state series; promtool check metrics passes.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
. "$RSQL_SRCDIR/tests/integration/serve_lib.sh"
command -v promtool >/dev/null || fail "promtool is needed (Debian package prometheus; scripts/setup)"
PORT=$(free_port)

python3 - "$T/ev.jsonl" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(1, 20001):
        f.write(json.dumps({"id": i, "k": "k%05d" % (i % 5000)}) + "\n")
PY
# the reference: what the bounded job keeps, each key's first row
keys_fed=$(python3 -c 'import json,sys; print(len({json.loads(l)["k"] for l in open(sys.argv[1])}))' \
    "$T/ev.jsonl")
[ "$keys_fed" = 5000 ] || fail "the input has $keys_fed keys"

run_rsql -e "
CREATE TABLE gen (a INT, pt AS PROCTIME()) WITH ('connector'='datagen', 'rows-per-second'='500',
  'fields.a.kind'='sequence');
CREATE TABLE gen2 (a INT) WITH ('connector'='datagen', 'rows-per-second'='100');
CREATE TABLE ev (id BIGINT, k STRING, pt AS PROCTIME()) WITH ('connector'='filesystem',
  'path'='$T/ev.jsonl');
CREATE TABLE bh (a INT) WITH ('connector'='blackhole');
CREATE TABLE bh2 (id BIGINT, k STRING) WITH ('connector'='blackhole');
CREATE JOB dedup AS INSERT INTO bh SELECT a FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY a % 37
  ORDER BY pt) AS rn FROM gen) WHERE rn = 1;
CREATE JOB plain AS INSERT INTO bh SELECT a FROM gen2;
SET 'state.memory' = '64kb';
CREATE JOB fin AS INSERT INTO bh2 SELECT id, k FROM (SELECT *, ROW_NUMBER() OVER (PARTITION BY k
  ORDER BY pt) AS rn FROM ev) WHERE rn = 1"
[ "$RC" = 0 ] || fail "setup: $ERR"

serve_start serve --http "127.0.0.1:$PORT"

# the running job: a % 37 of a sequence, so once more than 37 rows were read, 37 keys; a
# checkpoint writes them once the rows of a seal were delivered (within a flush interval or two)
held37() {
    http /metrics
    [ "$(metric rocketsql_records_read_total dedup)" -gt 37 ] 2>/dev/null &&
        [ "$(metric rocketsql_state_keys dedup)" = 37 ] &&
        [ "$(metric rocketsql_state_checkpoints_total dedup)" -ge 1 ] 2>/dev/null
}
until_true 20 "rocketsql_state_keys{job=\"dedup\"} 37, and a checkpoint" held37
echo "$BODY" >"$T/m1.txt"
promtool check metrics <"$T/m1.txt" >"$T/p.out" 2>&1 || fail "promtool check metrics: $(cat "$T/p.out")"
for m in state_keys state_bytes state_pending_changes state_checkpoints_total \
    state_evictions_total state_lookups_total state_checkpoint_waits_total \
    state_checkpoint_duration_seconds_count state_checkpoint_duration_seconds_sum; do
    [ -n "$(metric rocketsql_$m dedup)" ] || fail "no rocketsql_$m for dedup: $BODY"
done
grep -q '^# HELP rocketsql_state_keys ' "$T/m1.txt" && grep -q '^# TYPE rocketsql_state_keys gauge$' "$T/m1.txt" &&
    grep -q '^# TYPE rocketsql_state_checkpoints_total counter$' "$T/m1.txt" &&
    grep -q '^# TYPE rocketsql_state_checkpoint_duration_seconds histogram$' "$T/m1.txt" ||
    fail "HELP/TYPE lines: $(grep 'rocketsql_state' "$T/m1.txt" | grep '^#')"
[ "$(metric rocketsql_state_checkpoints_total dedup)" -ge 1 ] ||
    fail "no checkpoint of dedup's 37 keys: $(grep state "$T/m1.txt")"
[ "$(metric rocketsql_state_checkpoint_duration_seconds_count dedup)" -ge 1 ] ||
    fail "no checkpoint duration: $(grep state "$T/m1.txt")"
[ "$(metric rocketsql_state_bytes dedup)" -gt 0 ] || fail "37 keys in 0 bytes"
[ "$(metric rocketsql_state_evictions_total dedup)" = 0 ] &&
    [ "$(metric rocketsql_state_lookups_total dedup)" = 0 ] ||
    fail "37 keys within 64 MB left memory: $(grep state "$T/m1.txt")"
grep -q '^rocketsql_state_[a-z_]*{job="plain"' "$T/m1.txt" &&
    fail "the stateless job has state series: $(grep 'job="plain"' "$T/m1.txt")"
ok "a running deduplication: rocketsql_state_keys 37 (a % 37, $(metric rocketsql_records_read_total dedup) rows read), $(metric rocketsql_state_checkpoints_total dedup) checkpoints; none for the stateless job; promtool passes"

# still 37 while more rows come: the keys seen, not the rows
r1=$(metric rocketsql_records_read_total dedup)
more() { http /metrics; [ "$(metric rocketsql_records_read_total dedup)" -gt $((r1 + 500)) ]; }
until_true 20 "dedup reads on" more
[ "$(metric rocketsql_state_keys dedup)" = 37 ] || fail "keys after more rows: $(metric rocketsql_state_keys dedup)"
[ "$(metric rocketsql_records_written_total dedup)" = 37 ] ||
    fail "dedup wrote $(metric rocketsql_records_written_total dedup) rows of 37 keys"
ok "more rows of the same keys: still 37 keys, 37 rows written"

# the bounded job with 64 KB of state: what left memory came back from the catalog
fin() { http /jobs; [ "$(job_field fin status)" = finished ]; }
until_true 30 "fin finished" fin
[ "$(job_field fin counts.written)" = "$keys_fed" ] || fail "fin wrote $(job_field fin counts.written)"
http /metrics
echo "$BODY" >"$T/m2.txt"
promtool check metrics <"$T/m2.txt" >"$T/p.out" 2>&1 || fail "promtool check metrics: $(cat "$T/p.out")"
ck=$(metric rocketsql_state_checkpoints_total fin)
[ "$ck" -ge 2 ] || fail "fin made $ck checkpoints with 64 KB of state: $(grep 'job="fin"' "$T/m2.txt")"
[ "$(metric rocketsql_state_checkpoint_duration_seconds_count fin)" = "$ck" ] ||
    fail "one duration per checkpoint: $(grep 'job="fin"' "$T/m2.txt")"
grep -q "^rocketsql_state_checkpoint_duration_seconds_bucket{job=\"fin\",le=\"+Inf\"} $ck\$" "$T/m2.txt" ||
    fail "+Inf bucket: $(grep 'job="fin"' "$T/m2.txt")"
ev=$(metric rocketsql_state_evictions_total fin)
lk=$(metric rocketsql_state_lookups_total fin)
[ "$ev" -gt 0 ] && [ "$lk" -gt 0 ] || fail "5,000 keys in 64 KB: $ev evicted, $lk looked up"
[ -n "$(metric rocketsql_state_checkpoint_waits_total fin)" ] || fail "no waits series for fin"
[ "$(metric rocketsql_state_keys fin)" = 0 ] && [ "$(metric rocketsql_state_pending_changes fin)" = 0 ] ||
    fail "a finished job still holds state: $(grep 'job="fin"' "$T/m2.txt")"
ok "a bounded deduplication with state.memory = 64kb: $ck checkpoints (as many durations), $ev evicted, $lk looked up, $(metric rocketsql_state_checkpoint_waits_total fin) waits; nothing held once it finished"

kill -TERM "$SPID"
serve_wait_exit
[ "$SRC" = 0 ] || fail "SIGTERM: exit $SRC: $(cat "$T/serve.err")"
SPID=""
ok "SIGTERM drains, exit 0"
echo "$n_checks passed, 0 failed"

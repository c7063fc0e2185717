#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_pgcdc_fifo.sh: PostgreSQL -> postgres-cdc -> RocketMQ, debezium-json on a FIFO topic keyed
# by the primary key, read back by the official Java client (tests/interop/rmq-interop).
# Against the PostgreSQL of scripts/postgres (wal_level = logical) and the RocketMQ of
# scripts/rocketmq (the test fails, never skips, without them).
#
# The source table acct (id int PRIMARY KEY, ver bigint, val text; REPLICA IDENTITY FULL)
# gets a seeded random workload (the seed printed, T_PGCDC_SEED repeats it) of many changes
# per key across transactions (inserts, updates, deletes, a statement changing several keys,
# a key changed twice in one transaction, rolled-back transactions); each insert and update
# sets ver from one sequence, so a key's versions grow in commit order, and a trigger writes
# every change into a log table in the same transaction: the reference, read with psql. The
# job is SIGKILLed once mid-workload (once the slot moved on) and started again: delivery is
# at-least-once. Once the slot confirmed the workload's WAL, the Java client reads the topic
# (a FIFO consumer group; every message counted by its message id) and each key's messages
# must be the key's changes from the log (an update: the old row, op "d", then the new one,
# op "c"), in commit order, every one present; a duplicate is allowed only as part of a
# replay (a run of consecutive changes again from an earlier one), at most one replay per key
# and kill. Every message's message group and keys are its row's id.
. "$(dirname "$0")/lib.sh"
require_server
export RSQL_SRCDIR=${RSQL_SRCDIR:-$REPO}
export RSQL_BUILDDIR=${RSQL_BUILDDIR:-$REPO/build}
. "$REPO/tests/e2e/pg_lib.sh"
pg_connect
BIN=$RSQL_BUILDDIR/rocketsql
[ -x "$BIN" ] || fail "rocketsql binary $BIN not built"
SEED=${T_PGCDC_SEED:-$(($(date +%s) % 100000))}
echo "seed $SEED (T_PGCDC_SEED=$SEED repeats the workload)"
KILLS=1
W=$(mktemp -d "${TMPDIR:-/tmp}/t_pgcdc_fifo.XXXXXX")
P=$(uniq_name pgf)
S="pgf$$"
SLOT="rsql_pgf$$"
JOB=""
WLPID=""
cleanup() {
    [ -z "$JOB" ] || kill -9 "$JOB" 2>/dev/null || true
    [ -z "$WLPID" ] || kill "$WLPID" 2>/dev/null || true
    wait 2>/dev/null || true
    local i
    for i in $(seq 1 100); do # the walsender of a killed job lets the slot go
        psql_q "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$SLOT' AND active" \
            2>/dev/null | grep -qx 0 && break
        sleep 0.1
    done
    psql_q "SELECT pg_drop_replication_slot('$SLOT') FROM pg_replication_slots
            WHERE slot_name = '$SLOT'" >/dev/null 2>&1 || true
    psql_q "DROP PUBLICATION IF EXISTS rsql_$SLOT; DROP SCHEMA IF EXISTS $S CASCADE" \
        >/dev/null 2>&1 || true
    rm -rf "$W"
}
trap cleanup EXIT

# ---- the source table, its log, the topic
psql_q "CREATE SCHEMA $S;
  CREATE TABLE $S.acct (id int PRIMARY KEY, ver bigint NOT NULL, val text);
  ALTER TABLE $S.acct REPLICA IDENTITY FULL;
  CREATE SEQUENCE $S.vers;
  CREATE TABLE $S.log (seq bigserial PRIMARY KEY, id int, op text, old_ver bigint, new_ver bigint);
  CREATE FUNCTION $S.logit() RETURNS trigger LANGUAGE plpgsql AS \$\$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      INSERT INTO $S.log (id, op, new_ver) VALUES (NEW.id, 'I', NEW.ver);
    ELSIF TG_OP = 'UPDATE' THEN
      INSERT INTO $S.log (id, op, old_ver, new_ver) VALUES (NEW.id, 'U', OLD.ver, NEW.ver);
    ELSE
      INSERT INTO $S.log (id, op, old_ver) VALUES (OLD.id, 'D', OLD.ver);
    END IF;
    RETURN NULL;
  END \$\$;
  CREATE TRIGGER logit AFTER INSERT OR UPDATE OR DELETE ON $S.acct
    FOR EACH ROW EXECUTE FUNCTION $S.logit()" >/dev/null || fail "cannot create the source table"
run "$RMQ" topic "${P}_t" fifo
run "$RMQ" group "${P}_g" --fifo

cat >"$W/tables.sql" <<SQL
CREATE TABLE src (id INT, ver BIGINT, val STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'postgres-cdc', 'url' = '$URL', 'schema-name' = '$S', 'table-name' = 'acct',
  'slot.name' = '$SLOT', 'scan.startup.mode' = 'latest-offset', 'heartbeat.interval.ms' = '500ms');
CREATE TABLE mq (id INT, ver BIGINT, val STRING, PRIMARY KEY (id) NOT ENFORCED) WITH (
  'connector' = 'rocketmq-grpc', 'endpoints' = '$RMQ_ENDPOINT', 'topic' = '${P}_t',
  'format' = 'debezium-json');
SQL
run "$BIN" --catalog "$W/c.db" -f "$W/tables.sql"
run "$BIN" --catalog "$W/c.db" -e "EXPLAIN INSERT INTO mq SELECT * FROM src"
expect_line "per-key order: guaranteed"
expect_line "$SLOT"

# the workload: python writes transactions (paced), psql runs them
cat >"$W/workload.py" <<'PY'
import random, sys, time
s, seed, segment, txns, rate = sys.argv[1], *map(int, sys.argv[2:6])
r = random.Random(seed * 10 + segment)
keys = 24
state_file = sys.argv[6]
try:
    present = set(map(int, open(state_file).read().split()))
except OSError:
    present = set()
start = time.monotonic()
for i in range(txns):
    tentative = set(present)
    stmts = []
    for _ in range(r.randrange(1, 7)):
        k = r.randrange(keys) if r.random() < 0.9 or not tentative else r.choice(sorted(tentative))
        val = "v%d-%d'%s" % (segment, i, r.choice(["", "x", "\\\\", "\""]))
        val = val.replace("'", "''")
        if r.random() < 0.05:
            stmts.append("UPDATE %s.acct SET ver = nextval('%s.vers') WHERE id %% 5 = %d;"
                         % (s, s, r.randrange(5)))
        elif k not in tentative:
            stmts.append("INSERT INTO %s.acct VALUES (%d, nextval('%s.vers'), '%s');" % (s, k, s, val))
            tentative.add(k)
        elif r.random() < 0.78:
            stmts.append("UPDATE %s.acct SET ver = nextval('%s.vers'), val = '%s' WHERE id = %d;"
                         % (s, s, val, k))
        else:
            stmts.append("DELETE FROM %s.acct WHERE id = %d;" % (s, k))
            tentative.discard(k)
    if r.random() < 0.05:
        sys.stdout.write("BEGIN; %s ROLLBACK;\n" % " ".join(stmts))
    else:
        sys.stdout.write("BEGIN; %s COMMIT;\n" % " ".join(stmts))
        present = tentative
    sys.stdout.flush()
    d = start + (i + 1) / rate - time.monotonic()  # pacing, not waiting for an event
    if d > 0:
        time.sleep(d)
open(state_file, "w").write(" ".join(map(str, sorted(present))))
PY
workload() { # SEGMENT TXNS: in the background (WLPID)
    python3 "$W/workload.py" "$S" "$SEED" "$1" "$2" 80 "$W/present" |
        "$PGS" psql >"$W/wl_$1.out" 2>&1 &
    WLPID=$!
}
wait_workload() {
    wait "$WLPID" || fail "the workload failed: $(tail -3 "$W"/wl_*.out)"
    WLPID=""
}
start_job() {
    "$BIN" --catalog "$W/c.db" --log-level info -e "INSERT INTO mq SELECT * FROM src" \
        >>"$W/job.out" 2>>"$W/job.err" &
    JOB=$!
}
job_alive() { kill -0 "$JOB" 2>/dev/null || fail "the job exited: $(tail -15 "$W/job.err")"; }
flush_lsn() { psql_q "SELECT coalesce(confirmed_flush_lsn::text, '') FROM pg_replication_slots
                      WHERE slot_name = '$SLOT'"; }
# wait_for SECONDS WHAT CMD...: polls CMD (0.1 s) while the job runs; fails naming WHAT
wait_for() {
    local limit=$1 what=$2 i=0
    shift 2
    until "$@"; do
        job_alive
        i=$((i + 1))
        [ "$i" -lt $((limit * 10)) ] || fail "$what: not within ${limit}s (slot at $(flush_lsn))"
        sleep 0.1
    done
}
slot_made() { [ -n "$(flush_lsn)" ]; }
moved_from() { [ "$(flush_lsn)" != "$1" ]; }
caught_up() { [ "$(psql_q "SELECT confirmed_flush_lsn >= '$1' FROM pg_replication_slots
                           WHERE slot_name = '$SLOT'")" = t ]; }

start_job
wait_for 60 "the job creates slot $SLOT" slot_made
echo "ok: slot $SLOT created"

# ---- segment 1, the job SIGKILLed once its slot moved on, then started again; segment 2
workload 1 400
first=$(flush_lsn)
wait_for 60 "the slot moves on" moved_from "$first"
sleep "$(python3 -c "import random; random.seed($SEED); print(random.random())")" # a random moment
job_alive
kill -9 "$JOB"
wait "$JOB" 2>/dev/null || true
echo "ok: the job SIGKILLed mid-workload (slot at $(flush_lsn), from $first)"
start_job
wait_workload
workload 2 400
wait_workload
target=$(psql_q "SELECT pg_current_wal_lsn()")
wait_for 90 "the slot confirms $target (the job sent every change)" caught_up "$target"
echo "ok: the slot confirmed $target"
kill -9 "$JOB"
wait "$JOB" 2>/dev/null || true
JOB=""

# ---- the reference: each key's changes in commit order
psql_q "SELECT id, op, coalesce(old_ver::text, ''), coalesce(new_ver::text, '') FROM $S.log
        ORDER BY seq" >"$W/log.txt"
[ "$(wc -l <"$W/log.txt")" -gt 500 ] || fail "the workload logged only $(wc -l <"$W/log.txt") changes"

# ---- the topic, read by the official Java client: every message (by its message id) until
# 10 s pass without one
"$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "${P}_t" --group "${P}_g" \
    --count 100000000 --id-field @msgid --timeout 10 --print --print-meta \
    >"$W/consumed.txt" 2>"$W/consume.err" || true
grep -q '^received=' "$W/consumed.txt" || fail "the Java consumer failed: $(tail -5 "$W/consume.err")"
grep '^received=' "$W/consumed.txt"

python3 - "$W/log.txt" "$W/consumed.txt" "$KILLS" <<'PY' || fail "the topic does not hold the changes in order"
import json, sys
log, consumed, kills = sys.argv[1], sys.argv[2], int(sys.argv[3])
want = {}
for line in open(log):
    k, op, old, new = line.rstrip("\n").split("|")
    w = want.setdefault(k, [])
    if op in ("U", "D"):
        w.append(("d", int(old)))
    if op in ("I", "U"):
        w.append(("c", int(new)))
got, body, n = {}, None, 0
for line in open(consumed):
    line = line.rstrip("\n")
    if line.startswith("{"):
        body = json.loads(line)
        continue
    if not line.startswith("meta "):
        continue
    meta = dict(f.split("=", 1) for f in line[5:].split(" ") if "=" in f)
    ev, body, n = body, None, n + 1
    if ev is None:
        sys.exit("a message without a body: " + line)
    rows = {"c": [("c", ev["after"])], "r": [("c", ev["after"])], "d": [("d", ev["before"])],
            "u": [("d", ev["before"]), ("c", ev["after"])]}[ev["op"]]
    for op, row in rows:
        key = str(row["id"])
        if meta.get("group") != key or meta.get("keys") != key:
            sys.exit("key %s: message group %s, keys %s" % (key, meta.get("group"), meta.get("keys")))
        got.setdefault(key, []).append((op, int(row["ver"])))
bad = []
dups = replays = 0
for k in sorted(set(want) | set(got), key=int):
    w, g = want.get(k, []), got.get(k, [])
    pos = {c: i for i, c in enumerate(w)}
    seen, prev, jumps = -1, -1, 0
    for c in g:
        if c not in pos:
            bad.append("key %s: %s is no change of the source" % (k, c)); break
        x = pos[c]
        if x > seen + 1:
            bad.append("key %s: %s (change %d) came before change %d %s" % (k, c, x, seen + 1,
                       w[seen + 1])); break
        if x != prev + 1:
            jumps += 1  # a replay starts
        dups += x <= seen
        seen, prev = max(seen, x), x
    else:
        if seen != len(w) - 1:
            bad.append("key %s: only %d of its %d changes (missing %s)" % (k, seen + 1, len(w),
                       w[seen + 1]))
        elif jumps > kills:
            bad.append("key %s: %d replays for %d kill(s): %s" % (k, jumps, kills, g))
    replays += jumps
if bad:
    sys.exit("\n".join(bad[:10]))
print("ok: %d messages, %d keys, %d changes, each key's in commit order, every one present "
      "(%d duplicates in %d replays)" % (n, len(want), sum(map(len, want.values())), dups, replays))
PY
echo "PASS t_pgcdc_fifo"

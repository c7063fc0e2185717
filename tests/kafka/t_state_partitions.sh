#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_state_partitions.sh: stateful jobs over a multi-partition Kafka topic, killed with kill -9,
# end as if never stopped. N JSON events (T_SP_N, default 60,000; {"id","k","v","ts"}, 200
# keys k0..k199 drawn at random, event times about 10 ms apart from 2026-01-01 00:00:00, 30 %
# up to 1.5 s behind the greatest so far) are produced by Kafka's Java console producer into a
# 3-partition topic keyed by id (the default partitioner hashes the id, so every key has rows
# in every partition, and each partition's times increase within the 2 s of the WATERMARK:
# no row is late). Three catalog jobs read the topic bounded (earliest-offset to the end it
# had when the run started), checkpointing every 100 ms (state.flush-interval), each into a
# sqlite table (sink.batch-size 1: a transaction per row, so that a run lasts long enough for
# kills to land in it):
#   - totals: a GROUP BY k (COUNT, SUM, MAX) into a table keyed by k;
#   - totals_mb: the same with table.exec.mini-batch.enabled (a group's rows given by the
#     batch's last record of it);
#   - tumble: a 10 s TUMBLE per key (COUNT, SUM) into a table keyed by (window_start, k).
# The source fetches at most 4 KB per partition at a time (properties.max.partition.fetch.bytes;
# librdkafka's default, 1 MB, hands on long runs of one partition), so that the partitions'
# records interleave in the pipeline and keys change by rows of several lanes between two
# seals. So read, the engine before the state's seals (a change per row, each lane's prefix written)
# failed the GROUP BY after its kills in 4 runs of 4 (counts counted twice); with 1 MB fetches
# in none of 6.
# A fourth job copies (id, partition, offset) into sqlite: the layout is checked (every key in
# the 3 partitions, no row 2 s behind the greatest time before it in its partition). Each
# stateful job (the GROUP BYs first) runs once uninterrupted, then, started over (its table
# emptied, RESET POSITIONS), is SIGKILLed 5 times at random moments after a commit of its sink
# (each kill checked to land on a running process: exit 137; a run that ends first starts over
# with a shorter delay), then runs to its end. Each time its table must equal the reference,
# SQLite's own GROUP BY over the produced events, row for row, and no row may be dropped as
# late. T_SP_SEED (or E2E_SEED) reproduces the data and the kill delays; for diagnosis only:
# T_SP_PARTS (default 3) the partitions (with 1 the windows cannot depend on how the
# partitions' reads interleave), T_SP_BATCH the sinks' sink.batch-size, T_SP_KEEP=1 keeps the
# working directory.
# The TUMBLE also needs every partition to hold the watermark from the start: when only the
# lanes that gave a row counted, a partition whose first record came after another's times
# passed a window's end had its rows for that window dropped as late.
# Environment from tests/kafka/run: REPO, KAFKA, KAFKA_BOOTSTRAP; binary
# $RSQL_BUILDDIR/rocketsql (default <repo>/build). Last line: "PASS t_state_partitions" or
# "FAIL t_state_partitions: <why>".
set -uo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
KAFKA=${KAFKA:-$REPO/scripts/kafka}
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
N=${T_SP_N:-60000}
KILLS=5
BATCH=${T_SP_BATCH:-1}
PARTS=${T_SP_PARTS:-3}
SEED=${T_SP_SEED:-${E2E_SEED:-$$}}
WAIT=60 # seconds any one awaited condition may take
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_kafka_sp.XXXXXX")
PID=""
cleanup() {
    [ -z "$PID" ] || kill -KILL "$PID" 2>/dev/null
    if [ "${T_SP_KEEP:-0}" = 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

die() { echo "FAIL t_state_partitions: $*"; exit 1; }
ok() { echo "ok: $*"; }

[ -x "$BIN" ] || die "rocketsql binary $BIN not built"
command -v python3 >/dev/null || die "python3 is needed"
command -v sqlite3 >/dev/null || die "sqlite3 (the CLI) is needed"
"$KAFKA" status >/dev/null 2>&1 || die "Kafka is not running ($KAFKA status)"
BS=${KAFKA_BOOTSTRAP:-$("$KAFKA" endpoint)}
T="rsqlsp$(date +%s)$$"
echo "seed $SEED (T_SP_SEED=$SEED reproduces the data and the kill delays), topic $T"
cd "$WORK" || die "cd $WORK"
"$KAFKA" topic "$T" "$PARTS" >admin.log 2>&1 || { cat admin.log; die "creating topic $T"; }

# the events, as "id<TAB>json" for the console producer (the key: the id), and ref.db's ev
python3 - "$N" "$SEED" <<'PY' || die "generating the events"
import datetime, json, random, sqlite3, sys
n, seed = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(seed)
cur = 1767225600000  # 2026-01-01 00:00:00 UTC
def text(ms):
    d = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    return d.strftime("%Y-%m-%d %H:%M:%S.") + "%03d" % (ms % 1000)
rows = []
with open("in.txt", "w") as f:
    for i in range(n):
        cur += r.randint(0, 20)
        ts = cur - r.randint(0, 1500) if r.random() < 0.3 else cur
        e = {"id": i, "k": "k%d" % r.randint(0, 199), "v": r.randint(-1000, 1000000), "ts": text(ts)}
        f.write("%d\t%s\n" % (i, json.dumps(e, separators=(",", ":"))))
        rows.append((i, e["k"], e["v"], ts))
db = sqlite3.connect("ref.db")
db.execute("CREATE TABLE ev (id INTEGER, k TEXT, v INTEGER, ms INTEGER)")
db.executemany("INSERT INTO ev VALUES (?, ?, ?, ?)", rows)
db.commit()
PY
"$KAFKA" produce --keys "$T" <in.txt >produce.log 2>&1 || { tail -5 produce.log; die "producing"; }
ok "produced $N events into $T ($PARTS partitions, keyed by id, Java console producer)"

# the references: SQLite's GROUP BY over the events (10 s windows from the epoch milliseconds)
TS="strftime('%Y-%m-%d %H:%M:%f', ws / 1000.0, 'unixepoch')"
TE="strftime('%Y-%m-%d %H:%M:%f', (ws + 10000) / 1000.0, 'unixepoch')"
sqlite3 -separator '|' ref.db "SELECT $TS, $TE, k, COUNT(*), SUM(v) FROM
    (SELECT ms - ms % 10000 AS ws, k, v FROM ev) GROUP BY ws, k ORDER BY ws, k" >ref_tumble.txt
sqlite3 -separator '|' ref.db "SELECT k, COUNT(*), SUM(v), MAX(v) FROM ev GROUP BY k ORDER BY k" \
    >ref_totals.txt
cp ref_totals.txt ref_totals_mb.txt
[ "$(wc -l <ref_totals.txt)" = 200 ] || die "the reference has $(wc -l <ref_totals.txt) keys, not 200"

cat >tables.sql <<SQL
SET 'state.flush-interval' = '100ms';
CREATE TABLE ev (id BIGINT, k STRING, v BIGINT, ts TIMESTAMP(3),
    part INT METADATA FROM 'partition' VIRTUAL, off BIGINT METADATA FROM 'offset' VIRTUAL,
    WATERMARK FOR ts AS ts - INTERVAL '2' SECOND)
  WITH ('connector' = 'kafka', 'properties.bootstrap.servers' = '$BS', 'topic' = '$T',
        'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset',
        'value.format' = 'json', 'properties.max.partition.fetch.bytes' = '4096');
CREATE TABLE win (window_start TIMESTAMP(3), window_end TIMESTAMP(3), k STRING, n BIGINT,
    total BIGINT, PRIMARY KEY (window_start, k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'win.db', 'table' = 'win',
        'sink.batch-size' = '$BATCH');
CREATE TABLE tot (k STRING, n BIGINT, total BIGINT, hi BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'tot.db', 'table' = 'tot',
        'sink.batch-size' = '$BATCH');
CREATE TABLE layout (id BIGINT, part INT, off BIGINT)
  WITH ('connector' = 'sqlite', 'path' = 'layout.db', 'table' = 'layout');
CREATE JOB tumble AS INSERT INTO win
  SELECT window_start, window_end, k, COUNT(*), SUM(v)
  FROM TABLE(TUMBLE(TABLE ev, DESCRIPTOR(ts), INTERVAL '10' SECOND))
  GROUP BY window_start, window_end, k;
CREATE JOB totals AS INSERT INTO tot SELECT k, COUNT(*), SUM(v), MAX(v) FROM ev GROUP BY k;
CREATE TABLE tot_mb (k STRING, n BIGINT, total BIGINT, hi BIGINT, PRIMARY KEY (k) NOT ENFORCED)
  WITH ('connector' = 'sqlite', 'path' = 'tot_mb.db', 'table' = 'tot_mb',
        'sink.batch-size' = '$BATCH');
SET 'table.exec.mini-batch.enabled' = 'true';
CREATE JOB totals_mb AS INSERT INTO tot_mb SELECT k, COUNT(*), SUM(v), MAX(v) FROM ev GROUP BY k;
CREATE JOB layout AS INSERT INTO layout SELECT id, part, off FROM ev;
SQL
"$BIN" --catalog cat.db -f tables.sql >create.out 2>&1 || { tail -5 create.out; die "creating the tables and jobs"; }

# the layout, read by rocketsql itself: every key in every partition, and within each
# partition (in offset order) no event time 2 s or more behind the greatest before it
"$BIN" --catalog cat.db run layout >layout.out 2>&1 || { tail -5 layout.out; die "the layout job"; }
python3 - "$N" "$PARTS" <<'PY' >layout.txt || { cat layout.txt; die "the layout: $(tail -1 layout.txt)"; }
import sqlite3, sys
n, parts = int(sys.argv[1]), int(sys.argv[2])
db = sqlite3.connect("layout.db")
db.execute("ATTACH 'ref.db' AS r")
rows = db.execute("SELECT l.part, l.off, e.k, e.ms FROM layout l JOIN r.ev e ON e.id = l.id "
                  "ORDER BY l.part, l.off").fetchall()
if len(rows) != n:
    sys.exit(print("%d rows copied, not %d" % (len(rows), n)))
keys, top, per = {}, {}, {}
for part, off, k, ms in rows:
    keys.setdefault(k, set()).add(part)
    per[part] = per.get(part, 0) + 1
    if part in top and ms <= top[part] - 2000:
        sys.exit(print("partition %d offset %d: %d ms behind its greatest time" % (part, off, top[part] - ms)))
    top[part] = max(top.get(part, ms), ms)
short = [k for k, p in keys.items() if len(p) != parts]
if len(per) != parts or short:
    sys.exit(print("partitions %s; keys not in every partition: %s" % (sorted(per), short[:5])))
print("rows per partition: %s; each of %d keys in all %d" % (
    ", ".join("%d: %d" % (p, c) for p, c in sorted(per.items())), len(keys), parts))
PY
ok "layout: $(cat layout.txt)"

got() { # JOB: its table as rows
    case $1 in
        tumble) sqlite3 -separator '|' win.db "SELECT * FROM win ORDER BY window_start, k" ;;
        totals) sqlite3 -separator '|' tot.db "SELECT * FROM tot ORDER BY k" ;;
        totals_mb) sqlite3 -separator '|' tot_mb.db "SELECT * FROM tot_mb ORDER BY k" ;;
    esac
}
db_of() { case $1 in tumble) echo win.db ;; totals) echo tot.db ;; totals_mb) echo tot_mb.db ;; esac; }
table_of() { case $1 in tumble) echo win ;; totals) echo tot ;; totals_mb) echo tot_mb ;; esac; }
check() { # JOB WHAT
    got "$1" >"got_$1.txt" 2>&1
    cmp -s "got_$1.txt" "ref_$1.txt" ||
        die "$1, $2: the table differs from SQLite's GROUP BY ($(wc -l <"got_$1.txt") rows, the reference $(wc -l <"ref_$1.txt")): $(diff "got_$1.txt" "ref_$1.txt" | head -6 | tr '\n' ' ')"
}
late_of() { grep -o '[0-9]* late rows dropped' "$1" | tail -1 | cut -d' ' -f1; }
start_over() { # JOB: empty its table, forget its positions and state
    sqlite3 "$(db_of "$1")" "DELETE FROM $(table_of "$1"); DELETE FROM rocketsql_positions" ||
        die "$1: emptying its table"
    "$BIN" --catalog cat.db -e "RESET POSITIONS '$1'" >reset.out 2>&1 || { cat reset.out; die "RESET POSITIONS '$1'"; }
}
sink_pos() { sqlite3 "$(db_of "$1")" "SELECT group_concat(partition || ':' || \"offset\") FROM rocketsql_positions" 2>/dev/null; }

RANDOM=$SEED
for job in totals totals_mb tumble; do
    # uninterrupted
    t0=$(date +%s%N)
    "$BIN" --catalog cat.db run "$job" >"$job-full.out" 2>&1 || { tail -5 "$job-full.out"; die "$job: the uninterrupted run"; }
    full_ms=$((($(date +%s%N) - t0) / 1000000))
    [ -z "$(late_of "$job-full.out")" ] || [ "$(late_of "$job-full.out")" = 0 ] ||
        die "$job: $(late_of "$job-full.out") late rows dropped (none is late)"
    check "$job" "uninterrupted"
    ok "$job: an uninterrupted run ($full_ms ms) equals SQLite's GROUP BY ($(wc -l <"ref_$job.txt") rows)"

    # killed KILLS times at random moments after a commit, then run to the end
    start_over "$job"
    span=$((full_ms / 2))
    landed=0 attempts=0
    while [ "$landed" -lt "$KILLS" ]; do
        attempts=$((attempts + 1))
        [ "$attempts" -le 40 ] || die "$job: could not land $KILLS kills in 40 runs"
        before=$(sink_pos "$job")
        "$BIN" --catalog cat.db run "$job" >"$job-$attempts.out" 2>&1 & PID=$!
        t1=$SECONDS
        # a commit: the sink's positions moved (or the run ended)
        while [ "$(sink_pos "$job")" = "$before" ] && kill -0 "$PID" 2>/dev/null; do
            [ $((SECONDS - t1)) -lt "$WAIT" ] || die "$job: run $attempts committed nothing in $WAIT s: $(tail -3 "$job-$attempts.out")"
            sleep 0.02
        done
        delay=$((RANDOM % (span + 1)))
        sleep "$(printf '%d.%03d' $((delay / 1000)) $((delay % 1000)))"
        kill -KILL "$PID" 2>/dev/null
        { wait "$PID"; } 2>/dev/null; rc=$?
        PID=""
        if [ "$rc" = 137 ]; then
            landed=$((landed + 1))
            ok "$job: kill $landed landed ${delay} ms after a commit: $(sqlite3 "$(db_of "$job")" "SELECT count(*) FROM $(table_of "$job")") rows in its table, the sink at $(sink_pos "$job")"
        elif [ "$rc" = 0 ]; then
            ok "$job: run $attempts ended before its kill (${delay} ms after a commit); starting over with a shorter delay"
            start_over "$job"
            span=$((span / 2))
            [ "$span" -ge 5 ] || span=5
            landed=0
        else
            die "$job: run $attempts exited $rc: $(tail -3 "$job-$attempts.out")"
        fi
    done
    "$BIN" --catalog cat.db run "$job" >"$job-last.out" 2>&1 || { tail -5 "$job-last.out"; die "$job: the last run"; }
    [ -z "$(late_of "$job-last.out")" ] || [ "$(late_of "$job-last.out")" = 0 ] ||
        die "$job: the last run dropped $(late_of "$job-last.out") late rows (none is late)"
    check "$job" "after $KILLS kills"
    ok "$job: after $KILLS kills ($attempts runs) the table equals SQLite's GROUP BY"
done
echo "PASS t_state_partitions"

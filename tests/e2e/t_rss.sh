#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_rss.sh: memory is bounded by configuration, not by input size. The peak RSS (GNU time's
# "Maximum resident set size") of a 1,000,000-row run must be within 2x of a 10,000-row run:
#   1. bench/rss.sh (datagen -> WHERE + projection -> json file, then that file -> sqlite);
#   2. the same pipeline here, with the row counts checked too (SHOW JOB RUNS and the sink),
#      so the big run really moved a million rows;
#   3. large records: 1,500 lines of 100 KB (150 MB) copied file -> file. The rows' bound alone
#      (3 x pipeline.queue-capacity = 3,072 rows) would hold all of them; pipeline.memory
#      bounds their bytes: at '8MB' the peak RSS stays under 80 MB, where with the bound off
#      ('0') it passes 150 MB; both copies equal the input.
# A memory assertion, not a timing one.
. "$(dirname "$0")/lib.sh"

[ -x /usr/bin/time ] || fail "needs GNU time at /usr/bin/time (Debian package time)"

out=$(sh "$RSQL_SRCDIR/bench/rss.sh" "$RSQL" 2>&1) || fail "bench/rss.sh: $out"
echo "$out"
ok "bench/rss.sh: within 2x"

run() { # rows -> peak RSS in kB; checks the counts
    local rows=$1 kept
    rm -f "$CAT" out.json dst.db*
    cat >job.sql <<SQL
CREATE TABLE gen (id BIGINT, name VARCHAR, score DOUBLE) WITH ('connector' = 'datagen',
  'number-of-rows' = '$rows', 'rows-per-second' = '0', 'seed' = '1',
  'fields.id.kind' = 'sequence', 'fields.name.length' = '40');
CREATE TABLE out (id BIGINT, name VARCHAR, score DOUBLE) WITH ('connector' = 'filesystem',
  'path' = 'out.json', 'format' = 'json');
CREATE TABLE dst (id BIGINT, name VARCHAR, score DOUBLE) WITH ('connector' = 'sqlite',
  'path' = 'dst.db', 'table' = 'dst');
INSERT INTO out SELECT id, UPPER(name), score * 2 FROM gen WHERE id % 10 <> 3;
INSERT INTO dst SELECT id, name, score FROM out;
SQL
    /usr/bin/time -f '%M' -o rss.txt "$RSQL" --catalog "$CAT" -f job.sql >run.out 2>run.err ||
        fail "the $rows-row run failed: $(cat run.err)"
    kept=$((rows - rows / 10))
    [ "$(sqlite3 dst.db 'SELECT count(DISTINCT id) FROM dst')" = "$kept" ] ||
        fail "the $rows-row run did not write $kept distinct rows into the sink"
    [ "$(runs_tsv | cut -f5-8 | tr '\t' ' ' | tr '\n' ' ')" = \
        "done $kept $kept 0 done $rows $kept $((rows - kept)) " ] ||
        fail "the $rows-row run's counts: $(runs_tsv)"
    cat rss.txt
}
small=$(run 10000)
ok "10,000 rows moved, peak RSS ${small} kB"
big=$(run 1000000)
ok "1,000,000 rows moved, peak RSS ${big} kB"
[ "$big" -le $((2 * small)) ] || fail "peak RSS ${big} kB is more than twice ${small} kB"
ok "peak RSS of the 1,000,000-row run is within 2x of the 10,000-row run ($big <= 2 x $small kB)"

# ---- 3. large records: pipeline.memory
python3 -c '
import sys
with open(sys.argv[1], "w") as f:
    for i in range(1500):
        f.write("{\"id\":%d,\"body\":\"%s\"}\n" % (i, chr(97 + i % 26) * 100000))' big.json
big_run() { # pipeline.memory -> peak RSS in kB; the copy must equal the input
    rm -f "$CAT" big-out.json
    cat >big.sql <<SQL
SET 'pipeline.memory' = '$1';
CREATE TABLE bin (id BIGINT, body VARCHAR) WITH ('connector' = 'filesystem', 'path' = 'big.json',
  'format' = 'json');
CREATE TABLE bout (id BIGINT, body VARCHAR) WITH ('connector' = 'filesystem',
  'path' = 'big-out.json', 'format' = 'json');
INSERT INTO bout SELECT id, body FROM bin;
SQL
    /usr/bin/time -f '%M' -o rss.txt "$RSQL" --catalog "$CAT" -f big.sql >run.out 2>run.err ||
        fail "the large-record run (pipeline.memory $1) failed: $(cat run.err)"
    cmp -s big.json big-out.json ||
        fail "the large-record copy (pipeline.memory $1) differs from its input"
    cat rss.txt
}
bounded=$(big_run 8MB)
unbounded=$(big_run 0)
ok "1,500 records of 100 KB copied and equal: peak RSS ${bounded} kB with pipeline.memory 8MB, ${unbounded} kB with 0"
[ "$bounded" -lt 80000 ] || fail "peak RSS ${bounded} kB with pipeline.memory 8MB (expected < 80,000)"
[ "$unbounded" -gt 150000 ] ||
    fail "peak RSS ${unbounded} kB without pipeline.memory: the case no longer shows the bound"
ok "pipeline.memory bounds large records: ${bounded} kB < 80,000 kB < 150,000 kB < ${unbounded} kB"
echo PASS

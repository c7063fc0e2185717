#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_rss.sh: memory is bounded by configuration, not by input size. The peak RSS (GNU time's
# "Maximum resident set size") of a 1,000,000-row run must be within 2x of a 10,000-row run:
#   1. bench/rss.sh (datagen -> WHERE + projection -> json file, then that file -> sqlite);
#   2. the same pipeline here, with the row counts checked too (SHOW JOB RUNS and the sink),
#      so the big run really moved a million rows.
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
echo PASS

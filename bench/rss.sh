#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# bench/rss.sh: memory is bounded by configuration, not by input size. Runs the same
# pipeline (datagen -> WHERE + projection -> filesystem json, then that file -> sqlite)
# over 10,000 and over 1,000,000 rows and compares the peak RSS of the two runs (GNU
# time's "Maximum resident set size"). Fails when the big run's peak is more than twice
# the small run's. Not part of `make check` (it takes a while); run it by hand:
#
#   bench/rss.sh [path/to/rocketsql]
set -eu

bin=${1:-./rocketsql}
time_bin=/usr/bin/time
[ -x "$time_bin" ] || { echo "rss.sh: needs GNU time at $time_bin" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

run() { # rows -> prints the peak RSS in kB of the run
    rows=$1
    rm -f "$tmp/cat.db"* "$tmp/out.json" "$tmp/dst.db"*
    cat > "$tmp/job.sql" <<SQL
CREATE TABLE gen (id BIGINT, name VARCHAR, score DOUBLE) WITH ('connector' = 'datagen',
  'number-of-rows' = '$rows', 'rows-per-second' = '0',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '$rows');
CREATE TABLE out (id BIGINT, name VARCHAR, score DOUBLE) WITH ('connector' = 'filesystem',
  'path' = '$tmp/out.json', 'format' = 'json');
CREATE TABLE dst (id BIGINT, name VARCHAR, score DOUBLE) WITH ('connector' = 'sqlite',
  'path' = '$tmp/dst.db', 'table' = 'dst');
INSERT INTO out SELECT id, UPPER(name), score * 2 FROM gen WHERE id % 10 <> 3;
INSERT INTO dst SELECT id, name, score FROM out;
SQL
    "$time_bin" -f '%M' -o "$tmp/rss" "$bin" --catalog "$tmp/cat.db" -f "$tmp/job.sql" \
        >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    cat "$tmp/rss"
}

small=$(run 10000)
big=$(run 1000000)
echo "peak RSS: 10,000 rows ${small} kB, 1,000,000 rows ${big} kB"
if [ "$big" -gt $((2 * small)) ]; then
    echo "rss.sh: FAIL: the 1,000,000-row run needs more than twice the memory" >&2
    exit 1
fi
echo "rss.sh: ok (within 2x)"

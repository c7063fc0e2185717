#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_datagen_filter_file.sh: datagen ('number-of-rows' = '100000', a sequence column and random
# INT, VARCHAR and DOUBLE columns with a fixed seed) -> WHERE + projection (arithmetic, UPPER,
# CASE, CAST) -> filesystem json. The same generator is first dumped, projection-free, to a
# csv file; python3 computes the expected json rows from that dump on its own, and the json
# file must hold exactly those rows, in order. The counts of SHOW JOB RUNS must add up:
# read = written + filtered, nothing dead-lettered or failed.
. "$(dirname "$0")/lib.sh"

N=100000
cat >tables.sql <<SQL
CREATE TABLE gen (id BIGINT, k INT, name VARCHAR, score DOUBLE) WITH (
  'connector' = 'datagen', 'number-of-rows' = '$N', 'rows-per-second' = '0', 'seed' = '20261130',
  'fields.id.kind' = 'sequence', 'fields.id.start' = '1',
  'fields.k.min' = '0', 'fields.k.max' = '99',
  'fields.name.length' = '8',
  'fields.score.min' = '-500', 'fields.score.max' = '500');
CREATE TABLE dump (id BIGINT, k INT, name VARCHAR, score DOUBLE) WITH (
  'connector' = 'filesystem', 'path' = 'dump.csv', 'format' = 'csv');
CREATE TABLE out (id BIGINT, x BIGINT, nm VARCHAR, band VARCHAR, si INT, half DOUBLE) WITH (
  'connector' = 'filesystem', 'path' = 'out.json', 'format' = 'json');
SQL
rsql -f tables.sql
expect_rc 0 "create the tables"

rsql -e "INSERT INTO dump SELECT * FROM gen;"
expect_rc 0 "dump the generator to csv"
same "$(wc -l <dump.csv)" "$N" "the dump holds every generated row"

rsql -e "INSERT INTO out
  SELECT id, id * 3 + k, UPPER(name),
         CASE WHEN k >= 90 THEN 'top' WHEN k >= 50 THEN 'high' ELSE 'low' END,
         CAST(score AS INT), score / 2
  FROM gen WHERE k % 4 <> 1 AND score > -250 AND name NOT LIKE 'a%';"
expect_rc 0 "datagen -> WHERE + projection -> json"

python3 - <<'PY' || fail "the json file differs from the expectation (see above)"
import csv, json, math, sys
exp = []
with open("dump.csv", newline="") as f:
    for r in csv.reader(f):
        i, k, name, score = int(r[0]), int(r[1]), r[2], float(r[3])
        if k % 4 == 1 or not score > -250 or name.startswith("a"):
            continue
        band = "top" if k >= 90 else ("high" if k >= 50 else "low")
        exp.append({"id": i, "x": i * 3 + k, "nm": name.upper(), "band": band,
                    "si": int(math.trunc(score)), "half": score / 2})
got = []
with open("out.json") as f:
    for n, line in enumerate(f, 1):
        try:
            got.append(json.loads(line))
        except ValueError as e:
            sys.exit("out.json line %d is not JSON: %s" % (n, e))
ids = [r[0] for r in csv.reader(open("dump.csv", newline=""))]
if ids != [str(i) for i in range(1, 100001)]:
    sys.exit("the dump's ids are not 1..100000")
if len(got) != len(exp):
    print("rows: got %d, expected %d" % (len(got), len(exp)))
for n, (g, e) in enumerate(zip(got, exp), 1):
    if g != e:
        sys.exit("out.json line %d: got %r, expected %r" % (n, g, e))
if len(got) != len(exp):
    sys.exit(1)
# the filter must really filter, and keep a real share
if not (30000 < len(exp) < 60000):
    sys.exit("unexpected selectivity: %d rows kept" % len(exp))
open("expected_count", "w").write(str(len(exp)))
PY
EXP=$(cat expected_count)
ok "out.json holds exactly the $EXP expected rows, in order"

# run 2 is the projection; columns: run job started ended status read written filtered dlq failed
last_run
same "$R_STATUS" done "status of the run"
same "$R_READ" "$N" "rows read"
same "$R_WRITTEN" "$EXP" "rows written"
same "$((R_WRITTEN + R_FILTERED))" "$R_READ" "read = written + filtered"
same "$R_DLQ/$R_FAILED" "0/0" "dead-lettered/failed"
echo PASS

#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# bench/nested.sh: reading two fields of a 1 KB nested JSON body costs close to reading two
# fields of a 1 KB flat one (the json decoder builds only the columns and
# ROW fields a statement reads). Generates N rows of each body (python3), runs
#   file -> WHERE + projection -> blackhole
# for: flat (two top-level fields of a flat body), nested (two fields two levels down in a
# nested body), and nested-whole (the same statement over the whole ROW column, CAST to
# VARCHAR, which builds every nested value), and prints rows per CPU-second (user + system,
# GNU time) side by side. Not part of `make check`; run it by hand:
#
#   bench/nested.sh [path/to/rocketsql] [rows]      (default 200000 rows)
set -eu

bin=${1:-./rocketsql}
rows=${2:-200000}
time_bin=/usr/bin/time
[ -x "$time_bin" ] || { echo "nested.sh: needs GNU time at $time_bin" >&2; exit 77; }
command -v python3 >/dev/null || { echo "nested.sh: needs python3" >&2; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

python3 - "$tmp" "$rows" <<'PY'
import json, random, sys
d, n = sys.argv[1], int(sys.argv[2])
rnd = random.Random(12)
with open(d + "/flat.json", "w") as flat, open(d + "/nested.json", "w") as nested:
    for i in range(n):
        f = {"id": i, "amount": round(rnd.random() * 1000, 2)}
        for k in range(40):
            f["f%02d" % k] = "v%06d-%s" % (rnd.randrange(10**6), "x" * 8)
        flat.write(json.dumps(f, separators=(",", ":")) + "\n")
        o = {"id": i, "order": {"customer": {"id": i % 977, "name": "c%d" % i, "tier": "gold"},
                                "total": round(rnd.random() * 1000, 2),
                                "items": [{"sku": "s%05d" % rnd.randrange(10**5), "qty": k + 1,
                                           "price": round(rnd.random() * 100, 2),
                                           "tags": ["a", "b", "c"]} for k in range(13)],
                                "notes": {"k%d" % k: "note-%d" % k for k in range(6)}}}
        nested.write(json.dumps(o, separators=(",", ":")) + "\n")
PY
flat_bytes=$(( $(wc -c <"$tmp/flat.json") / rows ))
nested_bytes=$(( $(wc -c <"$tmp/nested.json") / rows ))
FLAT_COLS="id BIGINT, amount DOUBLE"
i=0
while [ $i -lt 40 ]; do FLAT_COLS="$FLAT_COLS, f$(printf %02d $i) VARCHAR"; i=$((i + 1)); done
NESTED_COLS="id BIGINT, \"order\" ROW<customer ROW<id INT, name STRING, tier STRING>,
  total DECIMAL(10, 2), items ARRAY<ROW<sku STRING, qty INT, price DECIMAL(8, 2),
  tags ARRAY<STRING>>>, notes MAP<STRING, STRING>>"

run() { # name columns file select where -> prints rows per CPU-second
    cat >"$tmp/job.sql" <<SQL
CREATE TABLE src ($2) WITH ('connector' = 'filesystem', 'path' = '$tmp/$3', 'format' = 'json');
CREATE TABLE dst (a VARCHAR, b VARCHAR) WITH ('connector' = 'blackhole');
INSERT INTO dst SELECT $4 FROM src WHERE $5;
SQL
    rm -f "$tmp/cat.db"*
    "$time_bin" -f '%U %S' -o "$tmp/cpu" "$bin" --catalog "$tmp/cat.db" -f "$tmp/job.sql" \
        >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
    cat "$tmp/out" "$tmp/err" | grep -q "read=$rows " ||
        { echo "nested.sh: $1 did not read $rows rows" >&2; cat "$tmp/err" >&2; exit 1; }
    awk -v n="$rows" '{ cpu = $1 + $2; if (cpu <= 0) cpu = 0.01; printf "%d", n / cpu }' "$tmp/cpu"
}

flat=$(run flat "$FLAT_COLS" flat.json "CAST(id AS VARCHAR), CAST(amount AS VARCHAR)" "amount >= 0")
nested=$(run nested "$NESTED_COLS" nested.json \
    "CAST(\"order\".customer.id AS VARCHAR), CAST(\"order\".total AS VARCHAR)" "\"order\".total >= 0")
whole=$(run nested-whole "$NESTED_COLS" nested.json \
    "CAST(\"order\" AS VARCHAR), CAST(\"order\".total AS VARCHAR)" "\"order\".total >= 0")
printf '%-14s %10s %14s\n' case body rows/CPU-s
printf '%-14s %8s B %14s\n' flat "$flat_bytes" "$flat"
printf '%-14s %8s B %14s\n' nested "$nested_bytes" "$nested"
printf '%-14s %8s B %14s\n' nested-whole "$nested_bytes" "$whole"
awk -v f="$flat" -v n="$nested" 'BEGIN { printf "nested / flat: %.2f\n", n / f }'

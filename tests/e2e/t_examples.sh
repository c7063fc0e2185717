#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_examples.sh: every examples/NN-*.sql runs, in a fresh directory holding a copy of
# examples/data, and leaves exactly the data of its examples/NN-*.expected:
#   00-local-quickstart: the table big_orders of quickstart-orders.db;
#   01-datagen-to-file: big_orders.json, sorted;
#   02-json-to-sqlite-dlq: the tables orders and dead_letters of shop.db, dumped by the query
#   below (without the dead letters' timestamps, which vary); the script is run twice, and the
#   second run must add nothing (the sink resumes from the position it committed).
. "$(dirname "$0")/lib.sh"

EX="$RSQL_SRCDIR/examples"

# result NAME: prints the data the example left in the working directory
result() {
    case "$1" in
    00-local-quickstart) sqlite3 -header quickstart-orders.db "SELECT * FROM big_orders ORDER BY id;" ;;
    01-datagen-to-file) LC_ALL=C sort big_orders.json ;;
    02-json-to-sqlite-dlq)
        sqlite3 -header shop.db "SELECT * FROM orders ORDER BY id;"
        echo
        sqlite3 -header shop.db "SELECT source, stage, error, raw FROM dead_letters
            ORDER BY CAST(substr(source, instr(source, '@') + 1) AS INTEGER);"
        sqlite3 shop.db "SELECT count(*) FROM dead_letters WHERE ts NOT LIKE '____-__-__ %'" |
            grep -qx 0 || echo "a dead letter without a timestamp"
        ;;
    *) echo "t_examples.sh does not know how to read the result of $1" ;;
    esac
}

n=0
for sql in "$EX"/[0-9][0-9]-*.sql; do
    name=$(basename "$sql" .sql)
    n=$((n + 1))
    [ -f "$EX/$name.expected" ] || fail "$name: no $name.expected"
    rm -rf "$T/ex" && mkdir "$T/ex" && cp -r "$EX/data" "$T/ex/" && cd "$T/ex"
    CAT="$T/ex/demo.db"
    runs=1
    [ "$name" = 02-json-to-sqlite-dlq ] && runs=2
    for i in $(seq "$runs"); do
        rsql -f "$sql"
        expect_rc 0 "$name: run $i"
    done
    result "$name" >result.txt
    if ! diff -u "$EX/$name.expected" result.txt; then
        fail "$name: the result differs from $name.expected"
    fi
    ok "$name: the result equals $name.expected"
    cd "$T"
done
[ "$n" -ge 2 ] || fail "found $n examples, expected at least 2"
echo PASS

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_examples.sh: every examples/NN-*.sql runs, in a fresh directory holding a copy of
# examples/data, twice, and leaves exactly the data of its examples/NN-*.expected; then all of
# them in one directory and catalog, in order and in reverse order, leave the same:
#   00-local-quickstart: the table big_orders of quickstart-orders.db;
#   01-datagen-to-file: big_orders.json, sorted;
#   02-json-to-sqlite-dlq: the tables orders and dead_letters of shop.db, dumped by the query
#   below (without the dead letters' timestamps, which vary);
#   03-orders-by-size: the table totals of sizes.db.
# A second run adds nothing: each INSERT resumes from the position it committed.
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
    03-orders-by-size) sqlite3 -header sizes.db "SELECT * FROM totals ORDER BY size;" ;;
    04-orders-per-5-minutes)
        sqlite3 -header windows.db "SELECT * FROM per_5_minutes ORDER BY window_start;" ;;
    *) echo "t_examples.sh does not know how to read the result of $1" ;;
    esac
}

# check NAME: the data the example left equals its .expected
check() {
    result "$1" >result.txt
    if ! diff -u "$EX/$1.expected" result.txt; then
        fail "$1: the result differs from $1.expected ($2)"
    fi
}

# each on its own, twice: the second run adds nothing (it resumes where the first stopped)
n=0
names=""
for sql in "$EX"/[0-9][0-9]-*.sql; do
    name=$(basename "$sql" .sql)
    names="$names $name"
    n=$((n + 1))
    [ -f "$EX/$name.expected" ] || fail "$name: no $name.expected"
    rm -rf "$T/ex" && mkdir "$T/ex" && cp -r "$EX/data" "$T/ex/" && cd "$T/ex"
    CAT="$T/ex/demo.db"
    for i in 1 2; do
        rsql -f "$sql"
        expect_rc 0 "$name: run $i"
    done
    check "$name" "run twice"
    ok "$name: the result equals $name.expected, after a second run too"
    cd "$T"
done
[ "$n" -ge 2 ] || fail "found $n examples, expected at least 2"

# all in one directory and catalog (the README's tour), in order and then in reverse order
rm -rf "$T/all" && mkdir "$T/all" && cp -r "$EX/data" "$T/all/" && cd "$T/all"
CAT="$T/all/demo.db"
rev=$(echo $names | tr ' ' '\n' | tac | tr '\n' ' ')
for name in $names $rev; do
    rsql -f "$EX/$name.sql"
    expect_rc 0 "$name in a shared catalog"
done
for name in $names; do
    check "$name" "all examples in one catalog, in order and in reverse"
done
ok "the examples share a catalog, run in any order and again"
echo PASS

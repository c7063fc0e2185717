#!/usr/bin/env bash
# SHOW OPTIONS shows the facts docs/CONNECTORS.md shows (ranges, enum values, the secret
# marker, "(empty)" defaults), and a table's description column is
# word-wrapped to the width: $COLUMNS, the terminal's, else 100; --tsv is never wrapped.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

run_rsql --tsv -e "SHOW OPTIONS FOR CONNECTOR 'rocketmq-grpc'"
[ "$RC" = 0 ] || fail "SHOW OPTIONS rocketmq-grpc: $ERR"
printf '%s\n' "$OUT" | grep -q '^rocketmq-grpc	secret-key	.*Secret: shown as `\*\*\*\*\*\*`' ||
    fail "SHOW OPTIONS lacks the secret marker of secret-key: $OUT"
ok "SHOW OPTIONS marks a secret option as the docs do"

run_rsql --tsv -e "SHOW OPTIONS FOR CONNECTOR 'filesystem'"
[ "$RC" = 0 ] || fail "SHOW OPTIONS filesystem: $ERR"
printf '%s\n' "$OUT" | grep -q '^filesystem	scan.poll-interval	source	duration	500ms	no	.* From 10ms to 1h\.$' ||
    fail "SHOW OPTIONS lacks the range of scan.poll-interval: $OUT"
printf '%s\n' "$OUT" | grep -q '^filesystem	format	both	enum	json	no	.* One of: `json`, `csv`, `raw`, `debezium-json`, `canal-json`, `maxwell-json`\.$' ||
    fail "SHOW OPTIONS lacks the values of format: $OUT"
printf '%s\n' "$OUT" | grep -q '^csv	csv.null-literal	both	string	(empty)	no	' ||
    fail "SHOW OPTIONS does not show an empty default as the docs do: $OUT"
n=$(printf '%s\n' "$OUT" | wc -l)
[ "$n" = "$(printf '%s\n' "$OUT" | grep -c '	')" ] || fail "--tsv SHOW OPTIONS has a wrapped row: $OUT"
tsv_path=$(printf '%s\n' "$OUT" | grep '^filesystem	path	' | cut -f7)
[ "${#tsv_path}" -gt 100 ] || fail "the path description is too short to show wrapping: $tsv_path"
ok "SHOW OPTIONS shows ranges, enum values and (empty) defaults; --tsv keeps a row to a line"

# the table: every line within the width (or, when the other columns leave too little
# room, with a description 20 characters wide), the wrapped description reading as the whole
for cols in 60 100 132; do
    set +e
    COLUMNS=$cols "$RSQL" --catalog "$CAT" -e "SHOW OPTIONS FOR CONNECTOR 'filesystem'" >"$T/out" 2>"$T/err"
    RC=$?
    set -e
    [ "$RC" = 0 ] || fail "COLUMNS=$cols SHOW OPTIONS: $(cat "$T/err")"
    pre=$(($(head -1 "$T/out" | sed 's/-*+$//' | wc -c) - 1))
    w=$((pre + 23 > cols ? pre + 23 : cols))
    long=$(awk -v w="$w" 'length($0) > w' "$T/out")
    [ -z "$long" ] || fail "COLUMNS=$cols: lines wider than $w: $long"
    desc=$(awk -F'|' '$3 ~ /^ path / { on = 1 } on && $3 !~ /^ *$/ && $3 !~ /^ path / { on = 0 }
        on { sub(/^ /, "", $8); sub(/ *$/, "", $8); printf "%s%s", sep, $8; sep = " " }' "$T/out")
    [ "$cols" != 132 ] || [ "$(head -1 "$T/out" | wc -c)" = 133 ] ||
        fail "COLUMNS=132: the table does not take the width: $(head -1 "$T/out")"
    [ "$desc" = "$tsv_path" ] || fail "COLUMNS=$cols: the wrapped path description reads
$desc
not
$tsv_path"
done
ok "COLUMNS=60, 100, 132: the table fits (the description at least 20 wide), wrapped at blanks, complete"

set +e
env -u COLUMNS "$RSQL" --catalog "$CAT" -e "SHOW OPTIONS FOR CONNECTOR 'rocketmq-grpc'" >"$T/out" 2>"$T/err" </dev/null
set -e
pre=$(($(head -1 "$T/out" | sed 's/-*+$//' | wc -c) - 1))
w=$((pre + 23 > 100 ? pre + 23 : 100))
long=$(awk -v w="$w" 'length($0) > w' "$T/out")
[ -z "$long" ] || fail "not a terminal, no COLUMNS: lines wider than $w: $long"
[ "$(wc -l <"$T/out")" -gt "$(($(grep -c '^| rocketmq-grpc ' "$T/out") + 5))" ] ||
    fail "not a terminal, no COLUMNS: no description was wrapped: $(cat "$T/out")"
ok "not a terminal and no COLUMNS: SHOW OPTIONS fits 100 columns"

python3 "$RSQL_SRCDIR/tests/integration/pty_width.py" "$RSQL" "$CAT" >"$T/screen" 2>&1 ||
    fail "on a 132-column terminal: $(cat "$T/screen")"
ok "on a terminal (TIOCGWINSZ, no COLUMNS) the shell's table takes the terminal's 132 columns"

echo "$n_checks passed, 0 failed"

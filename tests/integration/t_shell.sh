#!/usr/bin/env bash
# The interactive shell under a pseudo-terminal: a statement typed over two
# lines runs, the up-arrow recalls it, Ctrl-C discards a half-typed
# statement without leaving, non-ASCII input is kept, and a print sink's rows
# never run into the live status line.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
export ROCKETSQL_HISTORY="$T/history"
python3 "$RSQL_SRCDIR/tests/integration/pty_shell.py" "$RSQL" "$CAT" >"$T/screen" 2>&1 ||
    fail "shell session: $(cat "$T/screen")"
ok "two-line statement ran; up-arrow recalled it; Ctrl-C discarded input; UTF-8 kept; rows clear the status line"
grep -q 'CREATE.*t2' "$ROCKETSQL_HISTORY" || fail "history file not written"
ok "history file written"
echo "$n_checks passed, 0 failed"

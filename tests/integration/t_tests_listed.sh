#!/usr/bin/env bash
# Every golden file and integration test in the source tree is listed in
# tests/local.mk (automake needs explicit lists): none is silently skipped.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
cd "$RSQL_SRCDIR"
missing=0
for f in tests/sql/*/*.slt tests/integration/t_*.sh; do
    [ -e "$f" ] || continue
    if ! grep -q "^[[:space:]]*$f\( \\\\\)\?$" tests/local.mk; then
        echo "not listed in tests/local.mk: $f" >&2
        missing=1
    fi
done
[ "$missing" = 0 ] || fail "tests missing from tests/local.mk"
ok "every test file is listed"
echo "$n_checks passed, 0 failed"

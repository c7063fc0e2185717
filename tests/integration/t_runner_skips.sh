#!/usr/bin/env bash
# The end-to-end runner (tests/e2e/run, whose result scripts/test collects) counts a test
# that exits 77 as skipped, prints it with its reason, and closes with
# "N passed, N failed, N skipped"; scripts/test fails a run with skips under CI=true.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"

mkdir -p "$T/e2e"
cp "$RSQL_SRCDIR/tests/e2e/run" "$T/e2e/run"
printf '#!/usr/bin/env bash\nexit 0\n' >"$T/e2e/t_a.sh"
printf '#!/usr/bin/env bash\necho "no widget on this machine"\nexit 77\n' >"$T/e2e/t_b.sh"
set +e
OUT=$(RSQL_BUILDDIR="$RSQL_BUILDDIR" bash "$T/e2e/run" 2>&1)
RC=$?
set -e
echo "$OUT"
[ "$RC" = 0 ] || fail "a skip is not a failure of the runner (exit $RC)"
echo "$OUT" | grep -qx "SKIP t_b: no widget on this machine" || fail "the skip and its reason are printed"
echo "$OUT" | tail -n 1 | grep -qx "1 passed, 0 failed, 1 skipped" || fail "closing line counts the skip"
ok "tests/e2e/run counts and prints a skip"

grep -q 'echo "SKIP: ' "$RSQL_SRCDIR/tests/fuzz/run" || fail "tests/fuzz/run prints the targets it skips"
grep -q 'echo "$passed passed, $failed failed, $skipped skipped"' "$RSQL_SRCDIR/tests/rocketmq/run" ||
    fail "tests/rocketmq/run counts skips"
grep -q 'CI:-}" = true' "$RSQL_SRCDIR/scripts/test" || fail "scripts/test fails skips under CI=true"
ok "the other runners and scripts/test count skips"
echo "$n_checks passed, 0 failed"

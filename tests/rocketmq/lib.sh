# tests/rocketmq/lib.sh: helpers sourced by the tests/rocketmq/t_*.sh tests.
# The runner (tests/rocketmq/run) exports REPO, RMQ, INTEROP and RMQ_ENDPOINT;
# a test run by hand gets the same defaults here.
set -euo pipefail

REPO=${REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
RMQ=${RMQ:-$REPO/scripts/rocketmq}
INTEROP=${INTEROP:-$REPO/tests/interop/rmq-interop}
RMQ_ENDPOINT=${RMQ_ENDPOINT:-$("$RMQ" endpoint)}

# A name no earlier run on a persistent broker has used.
uniq_name() { # PREFIX
  printf '%s_%s_%s_%s\n' "$1" "$(date +%s)" "$$" "$RANDOM"
}

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }

# The broker must be there: a test that cannot reach it fails, never skips.
require_server() {
  "$RMQ" status >/dev/null || fail "RocketMQ is not running ($RMQ status)"
}

# run CMD... : echo the command, run it, keep its stdout in $OUT; fail on non-zero.
run() {
  printf '+ %s\n' "$*"
  local rc=0
  OUT=$("$@") || rc=$?
  printf '%s\n' "$OUT"
  [ "$rc" -eq 0 ] || fail "exit $rc from: $*"
}

# expect_line REGEX : some line of $OUT matches the (extended) regex.
expect_line() {
  grep -Eq -- "$1" <<<"$OUT" || fail "expected a line matching /$1/ in: $OUT"
}

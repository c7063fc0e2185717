#!/usr/bin/env bash
# The log level of rocketsql: `--log-level LEVEL` and $ROCKETSQL_LOG turn on the debug
# lines ("rocketsql: debug: COMPONENT: ..."), the flag wins over the variable, the default
# (warn) prints none, user-facing output (the run summary) is the same at every level, and
# an unknown level is refused as bad usage (exit 64) with a message naming where it came
# from, before any statement runs.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
unset ROCKETSQL_LOG

SQL="CREATE TABLE IF NOT EXISTS t (a INT) WITH ('connector'='datagen', 'number-of-rows'='5');
CREATE TABLE IF NOT EXISTS s (a INT) WITH ('connector'='blackhole');
INSERT INTO s SELECT a FROM t"
START="rocketsql: debug: runtime: pipeline insert:t->s: starting (datagen -> blackhole)"

# each run on a fresh catalog (a second INSERT from datagen would resume after row 5)
fresh() { rm -f "$CAT" "$CAT-wal" "$CAT-shm"; }
# stderr without log lines, timings masked
user_err() {
    echo "$ERR" | grep -v '^rocketsql: [a-z]*: ' | sed "s/elapsed=.* rows\/s/elapsed rate/"
}

fresh; run_rsql -e "$SQL"
[ "$RC" = 0 ] || fail "default level exited $RC: $ERR"
echo "$ERR" | grep -q '^read=5 written=5 ' || fail "no run summary at the default level: $ERR"
echo "$ERR" | grep -q '^rocketsql: debug:' && fail "debug lines at the default level: $ERR"
DEFAULT_OUT=$OUT
DEFAULT_ERR=$(user_err)
ok "default level: the summary, no debug lines"

fresh; run_rsql --log-level debug -e "$SQL"
[ "$RC" = 0 ] || fail "--log-level debug exited $RC: $ERR"
echo "$ERR" | grep -qxF "$START" || fail "--log-level debug: no pipeline start line: $ERR"
END="rocketsql: debug: runtime: pipeline insert:t->s: finished: read=5 written=5 "
echo "$ERR" | grep -qF "$END" || fail "--log-level debug: no pipeline end line: $ERR"
echo "$ERR" | grep -q '^rocketsql: debug: catalog: opened ' || fail "no catalog line: $ERR"
[ "$OUT" = "$DEFAULT_OUT" ] || fail "--log-level debug changed stdout: $OUT"
[ "$(user_err)" = "$DEFAULT_ERR" ] || fail "--log-level debug changed the user-facing stderr: $ERR"
ok "--log-level debug: runtime and catalog debug lines; stdout and summary unchanged"

fresh; ROCKETSQL_LOG=debug run_rsql -e "$SQL"
[ "$RC" = 0 ] || fail "ROCKETSQL_LOG=debug exited $RC: $ERR"
echo "$ERR" | grep -qxF "$START" || fail "ROCKETSQL_LOG=debug: no debug line: $ERR"
fresh; ROCKETSQL_LOG=TRACE run_rsql -e "$SQL"
[ "$RC" = 0 ] || fail "ROCKETSQL_LOG=TRACE exited $RC: $ERR"
echo "$ERR" | grep -qxF "$START" || fail "ROCKETSQL_LOG=TRACE (any case): no debug line: $ERR"
ok "ROCKETSQL_LOG=debug and =TRACE turn the debug lines on"

fresh; ROCKETSQL_LOG=debug run_rsql --log-level warn -e "$SQL"
[ "$RC" = 0 ] || fail "flag over env exited $RC: $ERR"
echo "$ERR" | grep -q '^rocketsql: debug:' &&
    fail "--log-level warn did not win over ROCKETSQL_LOG: $ERR"
fresh; ROCKETSQL_LOG=nonsense run_rsql --log-level error -e "$SQL"
[ "$RC" = 0 ] || fail "a valid flag with a bad ROCKETSQL_LOG exited $RC: $ERR"
fresh; ROCKETSQL_LOG= run_rsql -e "$SQL"
[ "$RC" = 0 ] || fail "an empty ROCKETSQL_LOG exited $RC: $ERR"
ok "the flag wins over ROCKETSQL_LOG; an empty ROCKETSQL_LOG is unset"

run_rsql --log-level loud -e "CREATE TABLE never (a INT) WITH ('connector'='blackhole')"
[ "$RC" = 64 ] || fail "--log-level loud exited $RC, want 64"
EXPECTED="(expected error, warn, info, debug or trace)"
[ "$ERR" = "rocketsql: invalid log level 'loud' for --log-level $EXPECTED" ] ||
    fail "--log-level loud: $ERR"
ROCKETSQL_LOG=verbose run_rsql -e "CREATE TABLE never (a INT) WITH ('connector'='blackhole')"
[ "$RC" = 64 ] || fail "ROCKETSQL_LOG=verbose exited $RC, want 64"
[ "$ERR" = "rocketsql: invalid log level 'verbose' for ROCKETSQL_LOG $EXPECTED" ] ||
    fail "ROCKETSQL_LOG=verbose: $ERR"
run_rsql -e "SHOW TABLES"
echo "$OUT" | grep -q never && fail "a statement ran despite a bad log level: $OUT"
run_rsql --log-level
[ "$RC" = 64 ] || fail "--log-level without a value exited $RC, want 64"
ok "a bad level is bad usage (64) naming --log-level or ROCKETSQL_LOG; nothing runs"

run_rsql --help
echo "$OUT" | grep -q -- '--log-level LEVEL' || fail "--help does not list --log-level: $OUT"
ok "--help lists --log-level"
echo "$n_checks passed, 0 failed"

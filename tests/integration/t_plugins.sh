#!/usr/bin/env bash
# Connector plugins end to end: `make install DESTDIR=...` from the build tree, the example
# exec plugin (examples/plugins/exec) built out of tree against the installed
# <rocketsql/connector.h> only, then loaded by the build tree's rocketsql with --plugin-dir
# and ROCKETSQL_PLUGIN_PATH:
#   - SHOW CONNECTORS, SHOW OPTIONS FOR CONNECTOR 'exec', EXPLAIN and --list-options=md
#     show it like a built-in;
#   - datagen -> exec with errors.tolerance 'all' and a dead-letter table: the command
#     records the rows it accepts and exits 3 for every id that is a multiple of 7; the
#     recorded rows are exactly the expected ones (computed here by awk) and the dead
#     letters exactly the failing ones, with the exit status and the command in the error;
#   - with tolerance 'none' the job stops (exit 2) with the exit status in the error; a
#     timeout and a signal fail a row the same way;
#   - bad plugins (wrong ABI version, no entry point, a connector name taken by a built-in
#     or by an earlier plugin, a descriptor without sink operations, not a shared object)
#     are each refused with one line on stderr naming the file, and the rest still works.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
CC=${RSQL_CC:-cc}

# ---- install, then build the example plugin out of tree against the installed header
unset MAKEFLAGS MFLAGS MAKELEVEL
make -s -C "$RSQL_BUILDDIR" install DESTDIR="$T/inst" >"$T/install.log" 2>&1 ||
    fail "make install DESTDIR=$T/inst failed: $(tail -20 "$T/install.log")"
hdr=$(find "$T/inst" -path '*/include/rocketsql/connector.h' | head -1)
[ -n "$hdr" ] || fail "make install put no include/rocketsql/connector.h under $T/inst"
prefix=${hdr%/include/rocketsql/connector.h}
ok "make install DESTDIR= installs rocketsql/connector.h ($prefix/include)"

cp -R "$RSQL_SRCDIR/examples/plugins/exec" "$T/exec-src"
chmod -R u+w "$T/exec-src"
rm -f "$T/exec-src/exec.so"
make -s -C "$T/exec-src" PREFIX="$prefix" CC="$CC" CFLAGS="-O2 -Wall -Wextra -Werror" \
    >"$T/plugin.log" 2>&1 || fail "building the exec plugin failed: $(cat "$T/plugin.log")"
mkdir "$T/plugins"
cp "$T/exec-src/exec.so" "$T/plugins/exec.so"
ok "examples/plugins/exec builds with its Makefile against the installed header only"
make -s -C "$T/exec-src" clean >/dev/null
make -s -C "$T/exec-src" PREFIX=/nonexistent SDK_INCLUDE="$RSQL_BUILDDIR/sdk" CC="$CC" \
    CFLAGS="-O2 -Wall -Wextra -Werror" >"$T/plugin.log" 2>&1 ||
    fail "building the exec plugin against the build tree failed: $(cat "$T/plugin.log")"
[ -f "$T/exec-src/exec.so" ] || fail "SDK_INCLUDE build left no exec.so"
ok "examples/plugins/exec builds against a build tree's header (SDK_INCLUDE), not installed"

# ---- like a built-in
run_rsql --plugin-dir "$T/plugins" --tsv -e "SHOW CONNECTORS"
[ "$RC" = 0 ] && [ -z "$ERR" ] || fail "SHOW CONNECTORS with the plugin: rc $RC, stderr: $ERR"
echo "$OUT" | tail -1 | grep -q "^exec	sink	json, csv	Runs a shell command" ||
    fail "SHOW CONNECTORS does not list exec last: $OUT"
echo "$OUT" | grep -q "^print	sink" || fail "SHOW CONNECTORS lost the built-ins: $OUT"
ok "SHOW CONNECTORS lists exec after the built-ins"

run_rsql --plugin-dir "$T/plugins" --tsv -e "SHOW OPTIONS FOR CONNECTOR 'exec'"
[ "$RC" = 0 ] || fail "SHOW OPTIONS FOR CONNECTOR 'exec': rc $RC: $ERR"
for row in "exec	connector	both	string		yes" "exec	command	both	string		yes" \
    "exec	format	both	enum	json	no" "exec	timeout	both	duration	30s	no" \
    "csv	csv.field-delimiter"; do
    printf '%s\n' "$OUT" | grep -qF "$row" || fail "SHOW OPTIONS lacks '$row': $OUT"
done
ok "SHOW OPTIONS FOR CONNECTOR 'exec' lists its options and its formats' options"

ROCKETSQL_PLUGIN_PATH="$T/nowhere::$T/plugins" "$RSQL" --list-options=md >"$T/md" 2>"$T/md.err" ||
    fail "--list-options=md failed: $(cat "$T/md.err")"
grep -q '^### `exec`$' "$T/md" || fail "--list-options=md has no exec section"
grep -q '^| `timeout` | duration | `30s` |' "$T/md" || fail "--list-options=md lacks exec's rows"
[ "$(cat "$T/md.err")" = "rocketsql: plugin directory $T/nowhere: No such file or directory" ] ||
    fail "ROCKETSQL_PLUGIN_PATH with a missing directory: $(cat "$T/md.err")"
ok "ROCKETSQL_PLUGIN_PATH loads it too (--list-options=md documents it); a missing dir is one line"

# ---- a pipeline: datagen -> exec, tolerance all, dead letters
N=200
cat >"$T/accept.sh" <<SH
read -r line
id=\${line#*\\"id\\":}
id=\${id%%,*}
if [ \$((id % 7)) -eq 0 ]; then
    echo "id \$id is a multiple of 7" >&2
    exit 3
fi
printf '%s\n' "\$line" >>"$T/delivered"
SH
cat >"$T/setup.sql" <<SQL
CREATE TABLE gen (id BIGINT NOT NULL) WITH ('connector'='datagen', 'number-of-rows'='$N',
  'rows-per-second'='0', 'fields.id.kind'='sequence', 'fields.id.start'='1');
CREATE TABLE hook (id BIGINT, triple BIGINT, tag STRING) WITH ('connector'='exec',
  'command'='sh $T/accept.sh', 'timeout'='10s');
CREATE TABLE dead (raw STRING, stage STRING, error STRING, source STRING, ts TIMESTAMP(3))
  WITH ('connector'='filesystem', 'path'='$T/dead.json', 'format'='json');
SQL
# a fresh catalog with the tables (datagen resumes where the last run of a pipeline ended)
fresh_catalog() {
    CAT="$T/$1.db"
    run_rsql --plugin-dir "$T/plugins" -f "$T/setup.sql"
    [ "$RC" = 0 ] || fail "CREATE TABLE ... 'connector'='exec': rc $RC: $ERR"
}
fresh_catalog all
q="INSERT INTO hook SELECT id, id * 3, 'row-' || CAST(id AS STRING) FROM gen"

run_rsql --plugin-dir "$T/plugins" -e "EXPLAIN $q"
[ "$RC" = 0 ] || fail "EXPLAIN: rc $RC: $ERR"
echo "$OUT" | grep -q '^  connector: exec$' || fail "EXPLAIN lacks the exec sink: $OUT"
echo "$OUT" | grep -q '^  runs: /bin/sh -c per row, json on stdin, timeout 10s' ||
    fail "EXPLAIN lacks the plugin's own line: $OUT"
ok "EXPLAIN shows the exec sink, with the line its explain hook adds"

run_rsql --plugin-dir "$T/plugins" -e "SET 'errors.tolerance'='all'; SET 'errors.dlq.table'='dead'; $q"
[ "$RC" = 0 ] || fail "INSERT with tolerance all: rc $RC: $ERR"
bad=$((N / 7))
echo "$ERR" | grep -q "read=$N written=$((N - bad)) filtered=0 dead_lettered=$bad failed=0" ||
    fail "summary: $ERR"
awk -v n=$N 'BEGIN { for (i = 1; i <= n; i++) if (i % 7)
    printf "{\"id\":%d,\"triple\":%d,\"tag\":\"row-%d\"}\n", i, 3 * i, i }' >"$T/want_delivered"
diff -u "$T/want_delivered" "$T/delivered" >"$T/diff" ||
    fail "the command recorded other rows than expected: $(head -20 "$T/diff")"
python3 - "$T/dead.json" "$N" "sh $T/accept.sh" >"$T/dlq_check" 2>&1 <<'PY' ||
import json, sys
path, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3]
rows = [json.loads(l) for l in open(path)]
got = sorted(json.loads(r["raw"])["id"] for r in rows)
want = [i for i in range(1, n + 1) if i % 7 == 0]
assert got == want, "dead-lettered ids %s, want %s" % (got, want)
for r in rows:
    i = json.loads(r["raw"])["id"]
    assert r["stage"] == "sink", r
    assert r["source"] == "datagen@%d" % (i - 1), r
    assert r["error"] == ("sink error at datagen@%d: command '%s' exited with status 3: "
                          "id %d is a multiple of 7" % (i - 1, cmd, i)), r["error"]
PY
    fail "dead letters: $(cat "$T/dlq_check")"
ok "tolerance all: exactly the $((N - bad)) expected rows delivered, exactly the $bad failing ones dead-lettered"

# ---- tolerance none: the job stops with the exit status in the error
rm -f "$T/delivered"
fresh_catalog none
run_rsql --plugin-dir "$T/plugins" -e "SET 'errors.tolerance'='none'; $q"
[ "$RC" = 2 ] || fail "INSERT with tolerance none exited $RC, want 2: $ERR"
echo "$ERR" | grep -qF "error: sink error at datagen@6: command 'sh $T/accept.sh' exited with status 3: id 7 is a multiple of 7" ||
    fail "tolerance none: $ERR"
head -6 "$T/delivered" | cmp -s - <(head -6 "$T/want_delivered") ||
    fail "tolerance none: the rows before the failure: $(cat "$T/delivered")"
ok "tolerance none: the job fails (exit 2) with the command's exit status in the error"

cat >"$T/more.sql" <<SQL
CREATE TABLE slow (id BIGINT) WITH ('connector'='exec', 'command'='sleep 30', 'timeout'='300ms');
CREATE TABLE killed (id BIGINT) WITH ('connector'='exec', 'command'='kill -KILL \$\$', 'format'='csv');
SQL
run_rsql --plugin-dir "$T/plugins" -f "$T/more.sql"
[ "$RC" = 0 ] || fail "CREATE slow, killed: $ERR"
start=$(date +%s)
run_rsql --plugin-dir "$T/plugins" -e "INSERT INTO slow SELECT id FROM gen WHERE id = 1"
[ "$RC" = 2 ] && echo "$ERR" | grep -qF "command 'sleep 30' timed out after 300ms (killed)" ||
    fail "timeout: rc $RC: $ERR"
[ $(($(date +%s) - start)) -lt 10 ] || fail "the timed-out command was not killed in time"
run_rsql --plugin-dir "$T/plugins" -e "INSERT INTO killed SELECT id FROM gen WHERE id = 1"
[ "$RC" = 2 ] && echo "$ERR" | grep -qF "command 'kill -KILL \$\$' was killed by signal 9" ||
    fail "signal: rc $RC: $ERR"
ok "a command past its timeout is killed, one killed by a signal fails its row"

# ---- bad plugins are refused, each with its file's name; the rest works
cat >"$T/bad.c" <<'C'
#include <rocketsql/connector.h>
#ifndef NO_ENTRY
static rsql_err_t b_open(const rsql_sink_ctx_t *ctx, rsql_sink_t **out, rsql_error_t *err)
{
    (void)ctx;
    (void)out;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "never opened");
}
static rsql_err_t b_write(rsql_sink_t *k, uint64_t id, int n, const rsql_sink_row_t *rows,
                          rsql_error_t *err)
{
    (void)k, (void)id, (void)n, (void)rows;
    return rsql_error_set(err, RSQL_ERR_UNSUPPORTED, RSQL_NOPOS, "never written");
}
static const rsql_sink_ops_t b_ops = {.open = b_open, .write = b_write};
static const rsql_opt_def_t b_opts[] = {RSQL_CONN_ROW_CONNECTOR(NAME), RSQL_OPT_END};
static const rsql_connector_def_t b_def = {
    .name = NAME, .description = "A bad plugin.", .caps = RSQL_CAP_SINK, .opts = b_opts,
#ifndef NO_OPS
    .sink = &b_ops,
#endif
};
static const rsql_connector_def_t *const b_list[] = {&b_def, NULL};
static const rsql_plugin_t b_plugin = {ABI, NAME, b_list};
RSQL_PLUGIN_EXPORT const rsql_plugin_t *rocketsql_plugin(void)
{
    (void)b_ops;
    return &b_plugin;
}
#else
int not_a_plugin(void);
int not_a_plugin(void)
{
    return 42;
}
#endif
C
build_bad() { # FILE CFLAGS...
    local f=$1
    shift
    "$CC" -std=c11 -Wall -Wextra -Werror -fPIC -shared -I"$prefix/include" -o "$T/plugins/$f" \
        "$@" "$T/bad.c" 2>"$T/cc.err" || fail "building $f: $(cat "$T/cc.err")"
}
build_bad abi.so -DNAME='"wrongabi"' -DABI='RSQL_CONNECTOR_ABI_VERSION + 1'
build_bad noentry.so -DNO_ENTRY
build_bad builtin.so -DNAME='"print"' -DABI=RSQL_CONNECTOR_ABI_VERSION
build_bad taken.so -DNAME='"exec"' -DABI=RSQL_CONNECTOR_ABI_VERSION # after exec.so
build_bad noops.so -DNAME='"noops"' -DABI=RSQL_CONNECTOR_ABI_VERSION -DNO_OPS
echo "not an ELF file" >"$T/plugins/text.so"
touch "$T/plugins/.hidden.so" "$T/plugins/readme.txt"
run_rsql --plugin-dir "$T/plugins" --tsv -e "SHOW CONNECTORS"
[ "$RC" = 0 ] || fail "SHOW CONNECTORS with bad plugins: rc $RC: $ERR"
P="rocketsql: plugin $T/plugins"
want=$(cat <<W
$P/abi.so: built for connector ABI version $(($(sed -n 's/^#define RSQL_CONNECTOR_ABI_VERSION //p' "$hdr") + 1)), this rocketsql ($("$RSQL" --version | cut -d' ' -f2)) has version $(sed -n 's/^#define RSQL_CONNECTOR_ABI_VERSION //p' "$hdr"): rebuild it against this rocketsql's <rocketsql/connector.h>
$P/builtin.so: connector 'print' is already defined (built in)
$P/noentry.so: no entry point rocketsql_plugin() (not a rocketsql plugin?)
$P/noops.so: connector 'noops' is a sink without sink operations (open, write)
$P/taken.so: connector 'exec' is already defined by plugin $T/plugins/exec.so
W
)
got=$(echo "$ERR" | grep -v "/text.so: ")
[ "$got" = "$want" ] || fail "refusals:$(diff <(echo "$want") <(echo "$got"))"
echo "$ERR" | grep -q "^$P/text.so: cannot load it: .*" || fail "a file that is not a shared object: $ERR"
[ "$(echo "$ERR" | wc -l)" = 6 ] || fail "want one line per bad plugin: $ERR"
echo "$OUT" | tail -1 | grep -q "^exec	sink" || fail "exec is gone with the bad plugins: $OUT"
for name in wrongabi noops; do
    echo "$OUT" | grep -q "^$name	" && fail "refused connector $name is listed: $OUT"
done
[ "$(echo "$OUT" | grep -c '^print	')" = 1 ] || fail "print listed twice: $OUT"
ok "wrong ABI, no entry point, a taken name (built-in, earlier plugin), no ops, not an ELF: refused, named"

rm -f "$T/delivered" "$T/dead.json"
fresh_catalog again
run_rsql --plugin-dir "$T/plugins" -e "SET 'errors.tolerance'='all'; SET 'errors.dlq.table'='dead'; $q"
[ "$RC" = 0 ] || fail "INSERT next to bad plugins: rc $RC: $ERR"
diff -q "$T/want_delivered" "$T/delivered" >/dev/null || fail "INSERT next to bad plugins: rows differ"
ok "the exec pipeline still delivers exactly the expected rows next to the refused plugins"

echo "$n_checks passed, 0 failed"

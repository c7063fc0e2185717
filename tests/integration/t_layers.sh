#!/usr/bin/env bash
# The layers of README.md's Layout hold, in the source and in the objects: a folder includes
# only the headers of the folders listed before it (never one after), the rocketmq connector
# includes no header of the RocketMQ client but its public one (rmqclient/rmq_client.h), and no
# object of a lower folder calls a function (or reads a variable) defined in a higher one.
# Inside a folder, the files of each chain in CHAINS call one way: a file calls none before it.
set -e
. "$RSQL_SRCDIR/tests/integration/lib.sh"
LAYERS="base sql catalog rmqclient connectors planner engine session cli"
CHAINS="engine/rt_pipeline engine/rt_outcomes engine/rt_batch
connectors/postgres/pg_sink connectors/postgres/pg_copy connectors/postgres/pg_applied connectors/postgres/pg_conn"

rank() {
    local i=0 l
    for l in $LAYERS; do
        [ "$l" = "$1" ] && { echo $i; return; }
        i=$((i + 1))
    done
    echo -1
}

# 1. includes, from the source tree
bad=0
for dir in $LAYERS; do
    r=$(rank "$dir")
    while IFS= read -r f; do
        for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
            top=${inc%%/*}
            [ "$top" = "$inc" ] && continue
            t=$(rank "$top")
            if [ "$t" -gt "$r" ]; then
                echo "${f#"$RSQL_SRCDIR"/} includes \"$inc\", a layer above it" >&2
                bad=1
            fi
            if [ "$top" = rmqclient ] && [ "$dir" != rmqclient ] &&
                [ "$inc" != rmqclient/rmq_client.h ]; then
                echo "${f#"$RSQL_SRCDIR"/} includes \"$inc\", private to the RocketMQ client" >&2
                bad=1
            fi
        done
    done < <(find "$RSQL_SRCDIR/$dir" -name '*.[ch]')
done
[ "$bad" = 0 ] || fail "an include crosses the layers"
ok "each folder includes only the headers of the layers under it"

# 2. symbols, from the objects of the build tree
command -v nm >/dev/null || fail "no nm"
for dir in $LAYERS; do
    # the objects of the sources there are (not those a moved or deleted source left behind)
    find "$RSQL_BUILDDIR/$dir" -name '*.o' 2>/dev/null | LC_ALL=C sort |
        while IFS= read -r o; do
            rel=${o#"$RSQL_BUILDDIR"/}
            base=${rel##*/}
            src=${rel%/*}/${base#*-} # a program's objects are named <program>-<source>.o
            if [ -f "$RSQL_SRCDIR/${rel%.o}.c" ] || [ -f "$RSQL_SRCDIR/${src%.o}.c" ]; then
                echo "$o"
            fi
        done >"$T/objs.$dir"
    [ -s "$T/objs.$dir" ] || fail "no objects under $RSQL_BUILDDIR/$dir (build first)"
    xargs nm -g --defined-only <"$T/objs.$dir" | awk 'NF == 3 { print $3 }' |
        LC_ALL=C sort -u >"$T/def.$dir"
done
bad=0
for dir in $LAYERS; do
    r=$(rank "$dir")
    while IFS= read -r o; do
        nm -u "$o" | awk '{ print $2 }' | LC_ALL=C sort -u >"$T/und"
        for up in $LAYERS; do
            [ "$(rank "$up")" -gt "$r" ] || continue
            for s in $(LC_ALL=C comm -12 "$T/und" "$T/def.$up"); do
                echo "${o#"$RSQL_BUILDDIR"/} uses $s, defined in $up/" >&2
                bad=1
            done
        done
    done <"$T/objs.$dir"
done
[ "$bad" = 0 ] || fail "a lower layer calls up"
ok "no object calls a function of a layer above it"

# 3. chains of files, from the objects of the build tree
bad=0
while IFS= read -r chain; do
    before=""
    for f in $chain; do
        o="$RSQL_BUILDDIR/$f.o"
        [ -f "$o" ] || fail "no object $f.o (build first)"
        nm -u "$o" | awk '{ print $2 }' | LC_ALL=C sort -u >"$T/und"
        for b in $before; do
            nm -g --defined-only "$RSQL_BUILDDIR/$b.o" | awk 'NF == 3 { print $3 }' |
                LC_ALL=C sort -u >"$T/def"
            for s in $(LC_ALL=C comm -12 "$T/und" "$T/def"); do
                echo "$f.o uses $s, defined in $b.c (before it in its chain)" >&2
                bad=1
            done
        done
        before="$before $f"
    done
done <<<"$CHAINS"
[ "$bad" = 0 ] || fail "a file calls back up its chain"
ok "the files of each chain call one way"
echo "$n_checks passed, 0 failed"

#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Copyright 2026 The rocketsql authors
#
# t_client.sh: the rocketsql RocketMQ gRPC client (rmqclient/) against the real broker
# (scripts/rocketmq), with the official Java client (tests/interop/rmq-interop) as the peer:
#   1. 1000 NORMAL messages sent by our client are all consumed by the Java client;
#   2. 1000 sent by the Java client are received and acked by ours: every id once, nothing comes
#      back after the acks;
#   3. ChangeInvisibleDuration returns a new handle; an ack with it acks, the old one does not;
#   4. FIFO send with message groups; received complete and in order per group;
#   5. LITE: send to a LITE parent with lite topics, receive through a wildcard lite group, ack
#      with the lite topic;
#   6. a missing topic gives non-retriable TOPIC_NOT_FOUND; an oversized body a non-retriable
#      MESSAGE_BODY_TOO_LARGE.
# The probe program is $RMQ_PROBE, else $RSQL_BUILDDIR/tests/rocketmq/rmq_client_probe.
# A broker that cannot be reached is a FAILURE, not a skip. Last line: "PASS t_client" or
# "FAIL t_client: <why>".
set -uo pipefail

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
RMQ="$REPO/scripts/rocketmq"
JAVA="$REPO/tests/interop/rmq-interop"
PROBE=${RMQ_PROBE:-${RSQL_BUILDDIR:-$REPO/build}/tests/rocketmq/rmq_client_probe}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/t_client.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

failed=""
fail() { failed="$failed; $*"; echo "not ok: $*"; }
die() { echo "FAIL t_client: $*"; exit 1; }

[ -x "$PROBE" ] || die "probe program $PROBE not built"
"$RMQ" start >"$WORK/start.log" 2>&1 || { tail -5 "$WORK/start.log"; die "broker did not start"; }
EP=$("$RMQ" endpoint) || die "no broker endpoint"
P="rsqlc$(date +%s)$$"

mk() { "$RMQ" "$@" >>"$WORK/admin.log" 2>&1 || { tail -5 "$WORK/admin.log"; die "scripts/rocketmq $*"; }; }
mk topic "${P}a" normal
mk topic "${P}b" normal
mk topic "${P}c" normal
mk topic "${P}f" fifo
mk topic "${P}l" lite
mk group "${P}ga"
mk group "${P}gb"
mk group "${P}gc"
mk group "${P}gf" --fifo
mk group "${P}gl" --lite-bind "${P}l"

# 1. ours → Java
if "$PROBE" produce --endpoint "$EP" --topic "${P}a" --count 1000 --batch 16 >"$WORK/1p.out" 2>"$WORK/1p.err"; then
    echo "ok: our client sent $(grep -c '^id ' "$WORK/1p.out") messages"
    if "$JAVA" consume --endpoint "$EP" --topic "${P}a" --group "${P}ga" --count 1000 --timeout 60 \
        >"$WORK/1c.out" 2>&1; then
        echo "ok: Java consumer: $(grep 'received=' "$WORK/1c.out" | tail -1)"
    else
        tail -5 "$WORK/1c.out"; fail "Java consumer did not get our 1000 messages"
    fi
else
    cat "$WORK/1p.err"; fail "produce 1000 with our client"
fi

# 2. Java → ours
if "$JAVA" produce --endpoint "$EP" --topic "${P}b" --count 1000 >"$WORK/2p.out" 2>&1; then
    if "$PROBE" consume --endpoint "$EP" --topic "${P}b" --group "${P}gb" --count 1000 --timeout 90 \
        >"$WORK/2c.out" 2>"$WORK/2c.err"; then
        echo "ok: our consumer: $(grep '^received' "$WORK/2c.out"), $(grep '^repoll' "$WORK/2c.out")"
    else
        tail -5 "$WORK/2c.err"; grep -v '^id ' "$WORK/2c.out"
        fail "our consumer did not receive+ack the Java client's 1000 messages exactly once"
    fi
else
    tail -5 "$WORK/2p.out"; fail "Java produce 1000"
fi

# 3. change invisible
if "$PROBE" change --endpoint "$EP" --topic "${P}c" --group "${P}gc" >"$WORK/3.out" 2>"$WORK/3.err"; then
    echo "ok: change-invisible: $(tr '\n' ';' <"$WORK/3.out")"
else
    cat "$WORK/3.out" "$WORK/3.err"; fail "change-invisible"
fi

# 4. FIFO
if "$PROBE" fifo --endpoint "$EP" --topic "${P}f" --group "${P}gf" --count 200 --group-count 8 \
    >"$WORK/4.out" 2>"$WORK/4.err"; then
    echo "ok: $(grep '^fifo' "$WORK/4.out")"
else
    tail -3 "$WORK/4.err"; grep '^fifo' "$WORK/4.out"; fail "FIFO send/receive in order"
fi

# 5. LITE
if "$PROBE" produce --endpoint "$EP" --topic "${P}l" --count 200 --lite-count 10 >"$WORK/5p.out" 2>"$WORK/5p.err" &&
   "$PROBE" consume --endpoint "$EP" --topic "${P}l" --group "${P}gl" --count 200 --lite --lite-type push \
       --timeout 60 >"$WORK/5c.out" 2>"$WORK/5c.err"; then
    echo "ok: lite: $(grep '^received' "$WORK/5c.out"), $(grep '^repoll' "$WORK/5c.out")"
else
    tail -3 "$WORK/5p.err" "$WORK/5c.err"; grep -v '^id ' "$WORK/5c.out"; fail "LITE wildcard receive"
fi

# 6. errors
if "$PROBE" errors --endpoint "$EP" --topic "${P}c" --missing "${P}missing" >"$WORK/6.out" 2>"$WORK/6.err"; then
    sed 's/^/ok: /' "$WORK/6.out"
else
    cat "$WORK/6.out" "$WORK/6.err"; fail "error mapping (missing topic / oversized body)"
fi

if [ -n "$failed" ]; then
    echo "FAIL t_client:${failed#;}"
    exit 1
fi
echo "PASS t_client"

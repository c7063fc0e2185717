#!/usr/bin/env bash
# 10,000 messages to a NORMAL topic with the official Java client, all received
# back once through a SimpleConsumer group: none missing, none doubled.
. "$(dirname "$0")/lib.sh"
require_server
T=$(uniq_name t_normal)
G=$(uniq_name g_normal)
N=10000
run "$RMQ" topic "$T" normal
run "$RMQ" group "$G"
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "$T" --count "$N" --type normal --seed 7
expect_line "^sent=$N failed=0$"
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "$T" --group "$G" --count "$N" --timeout 30
expect_line "^received=$N distinct=$N missing=0 duplicates=0$"

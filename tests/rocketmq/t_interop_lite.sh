#!/usr/bin/env bash
# 10,000 messages spread over 100 lite topics under one LITE parent topic,
# all received once through ONE wildcard lite group (lite.bind.topic +
# lite.sub.wildcard) with no per-lite-topic subscription.
. "$(dirname "$0")/lib.sh"
require_server
T=$(uniq_name t_lite)
G=$(uniq_name g_lite)
N=10000
K=100
run "$RMQ" topic "$T" lite
run "$RMQ" group "$G" --lite-bind "$T"
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "$T" --count "$N" --type lite \
  --lite-topics "$K" --lite-prefix "lt-" --seed 11
expect_line "^sent=$N failed=0$"
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "$T" --group "$G" --count "$N" --lite --timeout 45
expect_line "^received=$N distinct=$N missing=0 duplicates=0$"

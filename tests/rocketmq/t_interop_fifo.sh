#!/usr/bin/env bash
# FIFO topic + orderly group: 4,000 messages in 16 message groups; every
# message arrives once and, per message group, in send order (id increasing).
. "$(dirname "$0")/lib.sh"
require_server
T=$(uniq_name t_fifo)
G=$(uniq_name g_fifo)
N=4000
run "$RMQ" topic "$T" fifo
run "$RMQ" group "$G" --fifo
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "$T" --count "$N" --type fifo --groups 16 --seed 5
expect_line "^sent=$N failed=0$"
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "$T" --group "$G" --count "$N" --timeout 30 \
  --check-order-field id --group-field group
expect_line "^received=$N distinct=$N missing=0 duplicates=0 order_violations=0$"

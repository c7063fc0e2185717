#!/usr/bin/env bash
# scripts/rocketmq itself: start on a running server is a no-op, status prints
# the endpoint, topic/group creation is idempotent and sets what it should.
. "$(dirname "$0")/lib.sh"
require_server

t0=$(date +%s)
run "$RMQ" start
[ $(( $(date +%s) - t0 )) -le 5 ] || fail "start on a running server took more than 5 s"

run "$RMQ" status
expect_line "^endpoint: ${RMQ_ENDPOINT//./\\.}$"
expect_line ": up$"
run "$RMQ" endpoint
expect_line "^${RMQ_ENDPOINT//./\\.}$"

TN=$(uniq_name h_normal); TF=$(uniq_name h_fifo); TL=$(uniq_name h_lite)
run "$RMQ" topic "$TN" normal
run "$RMQ" topic "$TN" normal          # again: idempotent
run "$RMQ" topic "$TF" fifo
run "$RMQ" topic "$TL" lite
run "$RMQ" route "$TN"; expect_line "accept=\[NORMAL\]"
run "$RMQ" route "$TF"; expect_line "accept=\[FIFO\]"
run "$RMQ" route "$TL"; expect_line "accept=\[LITE\]"

GN=$(uniq_name h_g); GF=$(uniq_name h_gfifo); GL=$(uniq_name h_glite)
run "$RMQ" group "$GN"
run "$RMQ" group "$GF" --fifo
run "$RMQ" group "$GL" --lite-bind "$TL"
run "$RMQ" group "$GL" --lite-bind "$TL"   # again: idempotent
run "$RMQ" mqadmin getConsumerConfig -g "$GF"
expect_line "consumeMessageOrderly +=  true"
run "$RMQ" mqadmin getConsumerConfig -g "$GL"
expect_line "lite.bind.topic=$TL"
expect_line "lite.sub.wildcard=true"
expect_line "consumeMessageOrderly +=  false"

# bad input is refused
if "$RMQ" topic "$(uniq_name h_bad)" weird 2>/dev/null; then fail "topic with type 'weird' was accepted"; fi
if "$RMQ" group 'bad name' 2>/dev/null; then fail "group 'bad name' was accepted"; fi

run "$RMQ" logs proxy
expect_line "proxy"

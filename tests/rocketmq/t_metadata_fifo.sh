#!/usr/bin/env bash
# A FIFO job routes by a METADATA column: a FIFO topic (the official Java client, 4 message
# groups) -> rocketsql -> a FIFO topic whose message group is the source message's group read
# as metadata ('routed-' || message_group: metadata in, metadata out). The Java consumer sees
# every message once, in order per group, each with its routed group.
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
W=$(mktemp -d /tmp/t_metadata_fifo.XXXXXX)
trap 'rm -rf "$W"' EXIT
P=$(uniq_name mdf)
run "$RMQ" topic "${P}_f2" fifo
run "$RMQ" topic "${P}_f3" fifo
run "$RMQ" group "${P}_gf2" --fifo
run "$RMQ" group "${P}_gf3" --fifo
N=400
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "${P}_f2" --count $N --type fifo --groups 4
expect_line "^sent=$N failed=0\$"
cat >"$W/route.sql" <<SQL
CREATE TABLE fin (id BIGINT, "group" VARCHAR, mg VARCHAR METADATA FROM 'message_group' VIRTUAL)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_f2',
        'source.consumer-group'='${P}_gf2', 'scan.idle-timeout'='4s');
CREATE TABLE fout (id BIGINT, "group" VARCHAR, message_group VARCHAR METADATA)
  WITH ('connector'='rocketmq-grpc', 'endpoints'='$RMQ_ENDPOINT', 'topic'='${P}_f3');
INSERT INTO fout SELECT id, "group", 'routed-' || mg FROM fin;
SQL
run "$BIN" --catalog "$W/c2.db" -f "$W/route.sql"
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "${P}_f3" --group "${P}_gf3" --count $N \
  --timeout 20 --check-order-field id --group-field group --print-meta
expect_line "^received=$N distinct=$N missing=0 duplicates=0 order_violations=0\$"
printf '%s\n' "$OUT" >"$W/consumed.txt"
python3 - "$W/consumed.txt" "$N" <<'PY' || fail "a routed message has the wrong message group"
import re, sys
n = 0
for line in open(sys.argv[1]):
    m = re.match(r"meta id=(\d+) .* group=(\S+) ", line)
    if m:
        n += 1
        if m.group(2) != "routed-g%d" % (int(m.group(1)) % 4):
            print("bad: " + line)
            sys.exit(1)
sys.exit(0 if n == int(sys.argv[2]) else 1)
PY
echo "ok: a FIFO job routes by the message_group metadata, in order per group"

#!/usr/bin/env bash
# examples/route-by-tag.sql end to end: the official Java client sends 30 paid and 10 refund
# orders (tag, user property source=shop-<n>); the example routes the paid ones into the lite
# topics orders-<customer> with tag, keys (the body's refs array) and properties from
# METADATA columns; the Java client, through a wildcard lite group, receives exactly the 30
# paid orders, each in the lite topic of its customer with tag paid, keys "order-<id>" and
# "<customer>" and its property.
. "$(dirname "$0")/lib.sh"
require_server
BIN=${RSQL_BUILDDIR:-$REPO/build}/rocketsql
W=$(mktemp -d /tmp/t_example_route.XXXXXX)
trap 'rm -rf "$W"' EXIT
R=$(uniq_name r)
sed -e "s/'rt_\([A-Za-z0-9_]*\)'/'rt_\1_$R'/g" -e "s/'127\.0\.0\.1:8081'/'$RMQ_ENDPOINT'/g" \
  "$REPO/examples/route-by-tag.sql" >"$W/route.sql"
run "$RMQ" topic "rt_orders_$R" normal
run "$RMQ" topic "rt_tenant_orders_$R" lite
run "$RMQ" group "rt_router_$R"
run "$RMQ" group "rt_check_$R" --lite-bind "rt_tenant_orders_$R"
python3 - "$W" <<'PY'
import json, sys
w = sys.argv[1]
with open(w + "/paid.jsonl", "w") as f:
    for i in range(30):
        f.write(json.dumps({"id": i, "customer": "c%d" % (i % 3), "amount": i + 0.5,
                            "refs": ["order-%d" % i, "c%d" % (i % 3)]}) + "\n")
with open(w + "/refund.jsonl", "w") as f:
    for i in range(10):
        f.write(json.dumps({"id": 100 + i, "customer": "c%d" % (i % 3), "amount": -1.0,
                            "refs": []}) + "\n")
PY
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "rt_orders_$R" --file "$W/paid.jsonl" \
  --tag paid --props source=shop
expect_line '^sent=30 failed=0$'
run "$INTEROP" produce --endpoint "$RMQ_ENDPOINT" --topic "rt_orders_$R" --file "$W/refund.jsonl" \
  --tag refund --props source=shop
expect_line '^sent=10 failed=0$'
run bash -c '"$1" --catalog "$2" -f "$3" 2>&1' _ "$BIN" "$W/c.db" "$W/route.sql" # (summary: stderr)
expect_line '^read=40 written=30 filtered=10 dead_lettered=0 failed=0 '
run "$INTEROP" consume --endpoint "$RMQ_ENDPOINT" --topic "rt_tenant_orders_$R" --group "rt_check_$R" \
  --count 30 --timeout 45 --lite --print-meta
expect_line '^received=30 distinct=30 missing=0 duplicates=0$'
for i in $(seq 0 29); do
  c=c$((i % 3))
  # (the broker adds INNER_MULTI_DISPATCH to a lite message; the Java client shows it)
  expect_line "^meta id=$i topic=rt_tenant_orders_$R tag=paid keys=$c,order-$i group=- lite=orders-$c props=(INNER_MULTI_DISPATCH=[^;]*;)?source=shop-$i "
done
echo "ok: 30 paid orders routed by tag into per-customer lite topics, tag/keys/properties set"

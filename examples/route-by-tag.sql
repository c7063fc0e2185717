-- rocketsql example: route orders by their tag into per-customer lite topics, with METADATA
-- columns on both sides (docs/SQL.md, "METADATA columns"):
--   the source reads each order's tag, user properties and store time from the message
--   (VIRTUAL: read only); the job keeps the paid ones, and the sink sends each to the lite
--   topic orders-<customer> under the LITE parent topic rt_tenant_orders, with the same
--   tag, the order's references (a JSON array in the body) as its keys and the properties
--   carried through.
--
-- tests/rocketmq/t_example_route_by_tag.sh runs it against a local RocketMQ 5.5
-- (scripts/rocketmq), after the official Java client produced paid and refund orders, and
-- checks with the Java client what arrived in which lite topic. Like examples/quickstart.sql
-- it runs a copy in which the endpoint is the local proxy's and every rt_* name carries a
-- run id. By hand, against a broker on 127.0.0.1:8081 with the NORMAL topic rt_orders, the
-- LITE topic rt_tenant_orders and the consumer group rt_router:
--
--   rocketsql --catalog route.db -f examples/route-by-tag.sql
--
-- An order: {"id": 17, "customer": "c2", "amount": 7310.55, "refs": ["order-17", "c2"]};
-- tag paid or refund.

CREATE TABLE orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  refs ARRAY<STRING>,                                 -- from the body, as the fields above
  tag STRING METADATA VIRTUAL,                        -- the message's tag
  props MAP<STRING, STRING> METADATA FROM 'properties' VIRTUAL,  -- its user properties
  stored TIMESTAMP(3) METADATA FROM 'store_timestamp' VIRTUAL
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'rt_orders',
  'source.consumer-group' = 'rt_router',
  'scan.idle-timeout' = '5s'
);

CREATE TABLE tenant_orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  stored TIMESTAMP(3),
  lite_topic STRING METADATA,   -- written: the lite topic of each message
  tag STRING METADATA,                     -- written: its tag
  "keys" ARRAY<STRING> METADATA,           -- written: its keys
  properties MAP<STRING, STRING> METADATA  -- written: its user properties
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'rt_tenant_orders'
);

INSERT INTO tenant_orders
SELECT id, customer, amount, stored,
       'orders-' || customer, tag, refs, props
FROM orders
WHERE tag = 'paid';

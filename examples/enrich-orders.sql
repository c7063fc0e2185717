-- Enrich RocketMQ orders with their customer from PostgreSQL (a lookup join).
--
-- JSON orders arrive on the topic en_orders, each with the id of its customer. Every order is
-- sent on to the topic en_enriched_orders with the customer's name and tier added, read from
-- the PostgreSQL table en_customers as that table is when the order is processed: that is
-- what FOR SYSTEM_TIME AS OF o.proc_time says (Flink's lookup join; docs/SQL.md, "Joins with a
-- database table"). An order whose customer is not in the table (or that has no customer id)
-- goes on with customer and tier NULL, because of LEFT JOIN; with JOIN it would be dropped.
--
--   an order:          {"id": 17, "customer_id": 2, "amount": 731.55}
--   what is sent on:   {"id":17,"customer_id":2,"amount":731.55,"customer":"Grace","tier":"silver"}
--
-- Try it with the local servers of the tests (a RocketMQ proxy on 127.0.0.1:8081, the
-- PostgreSQL of `scripts/postgres start`; `scripts/postgres url` prints its URL: use it below
-- if it differs):
--
--   1. the customers, in PostgreSQL:
--        scripts/postgres psql -c "CREATE TABLE en_customers (id integer PRIMARY KEY,
--            name text, tier text);
--          INSERT INTO en_customers VALUES (1, 'Ada', 'gold'), (2, 'Grace', 'silver')"
--   2. the two topics, the job's consumer group and one to look at what it sends (made before
--      the job sends anything, so that it reads the topic from its first message):
--        scripts/rocketmq topic en_orders normal
--        scripts/rocketmq topic en_enriched_orders normal
--        scripts/rocketmq group en_enrich
--        scripts/rocketmq group en_check
--   3. a few orders, one JSON object a line in orders.jsonl, sent with the official Java
--      client the tests use (or any producer):
--        tests/interop/rmq-interop produce --endpoint 127.0.0.1:8081 --topic en_orders \
--            --file orders.jsonl
--   4. the job (it ends 10 s after the last order, 'scan.idle-timeout'; without that option it
--      runs until stopped):
--        rocketsql --catalog enrich.db -f examples/enrich-orders.sql
--   5. what it sent, printed by the Java client (through the consumer group en_check):
--        tests/interop/rmq-interop consume --endpoint 127.0.0.1:8081 \
--            --topic en_enriched_orders --group en_check --count 3 --print
--
-- Delivery into a RocketMQ topic is at-least-once: an order is acked on en_orders only once
-- its enriched message was sent, so if rocketsql stops before an ack (killed, a lost
-- connection) the order is delivered to it again and sent on a second time. Consumers of
-- en_enriched_orders should treat the order id (also the message key here) as the identity.
-- EXPLAIN below prints the plan, with the LookupJoin and the delivery.
--
-- tests/rocketmq/t_pg_example_enrich.sh runs a copy of this file (the endpoint, topic, group,
-- table and URL of the local servers) and compares what the Java client receives with psql's
-- join of the same orders and customers.

-- the orders; proc_time is computed, not in the message: the time each order is processed
CREATE TABLE orders (
  id BIGINT NOT NULL,
  customer_id INT,
  amount DECIMAL(10, 2),
  proc_time AS PROCTIME()
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'en_orders',
  'source.consumer-group' = 'en_enrich',
  'scan.idle-timeout' = '10s'
);

-- the customers, read by key (customers.id) for each batch of orders: one query for the
-- distinct customer ids of the batch. The partial cache keeps what a customer id found for a
-- minute, so a busy customer is not asked for again and again; a change to the table is seen
-- at the latest a minute later ('lookup.cache' = 'NONE', the default, asks every time).
CREATE TABLE customers (
  id INT,
  name STRING,
  tier STRING
) WITH (
  'connector' = 'postgres',
  'url' = 'postgresql://rsqlpg@127.0.0.1:54329/rocketsql',
  'table-name' = 'en_customers',
  'lookup.cache' = 'PARTIAL',
  'lookup.partial-cache.max-rows' = '10000',
  'lookup.partial-cache.expire-after-write' = '1min'
);

-- the enriched orders, JSON messages keyed by the order id
CREATE TABLE enriched_orders (
  id BIGINT NOT NULL,
  customer_id INT,
  amount DECIMAL(10, 2),
  customer STRING,
  tier STRING
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'en_enriched_orders',
  'sink.keys-column' = 'id'
);

EXPLAIN INSERT INTO enriched_orders
SELECT o.id, o.customer_id, o.amount, c.name AS customer, c.tier
FROM orders AS o
LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.customer_id;

INSERT INTO enriched_orders
SELECT o.id, o.customer_id, o.amount, c.name AS customer, c.tier
FROM orders AS o
LEFT JOIN customers FOR SYSTEM_TIME AS OF o.proc_time AS c ON c.id = o.customer_id;

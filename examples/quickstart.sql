-- rocketsql quickstart: JSON orders on a RocketMQ topic -> filter and projection ->
--   (1) a FIFO topic, one message group per customer (so each customer's orders stay in order)
--   (2) a SQLite table.
--
-- scripts/quickstart runs this end to end against a local RocketMQ 5.5 (scripts/rocketmq):
-- it creates the topics and consumer groups, produces 1000 sample orders with the official Java
-- client (tests/interop/rmq-interop), runs this file and shows what arrived. Because SQL has no
-- variables, it runs a copy of this file in which the endpoint is the local proxy's and every
-- qs_* topic/group name carries a run id (so each run starts from fresh topics and groups).
-- By hand, against a broker on 127.0.0.1:8081 that has the topics and groups below:
--
--   rocketsql --catalog quickstart.db -f examples/quickstart.sql
--
-- An order: {"id": 17, "customer": "c42", "amount": 7310.55, "note": "..."}.
-- Both jobs read the same topic with their own consumer group and end after 5 s without a new
-- message ('scan.idle-timeout'); without it they would run until stopped.

CREATE TABLE orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  note STRING
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'qs_orders',
  'source.consumer-group' = 'qs_to_fifo',
  'scan.idle-timeout' = '5s'
);

-- the same topic for the second job, read by a second consumer group
CREATE TABLE orders_again (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  note STRING
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'qs_orders',
  'source.consumer-group' = 'qs_to_sqlite',
  'scan.idle-timeout' = '5s'
);

-- FIFO topic: message group = customer, message key = id, tag 'big'
CREATE TABLE big_orders_by_customer (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'qs_big_orders_by_customer',
  'sink.message-group-column' = 'customer',
  'sink.keys-column' = 'id',
  'sink.tag' = 'big'
);

CREATE TABLE big_orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE
) WITH (
  'connector' = 'sqlite',
  'path' = 'quickstart-orders.db',
  'table' = 'big_orders'
);

EXPLAIN INSERT INTO big_orders_by_customer
  SELECT id, UPPER(customer) AS customer, amount FROM orders WHERE amount >= 5000;

-- job 1: the big orders to the FIFO topic
INSERT INTO big_orders_by_customer
  SELECT id, UPPER(customer) AS customer, amount FROM orders WHERE amount >= 5000;

-- job 2: the same orders into SQLite
INSERT INTO big_orders
  SELECT id, UPPER(customer) AS customer, amount FROM orders_again WHERE amount >= 5000;

SELECT id, customer, amount FROM big_orders LIMIT 10;
SHOW JOB RUNS;

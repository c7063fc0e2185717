-- A bridge from Kafka to RocketMQ: JSON orders from the Kafka topic 'orders' into the
-- RocketMQ topic 'orders_large', only the orders of 100 or more, as a smaller JSON body.
--
-- Each Kafka record is keyed by its order id (the key as plain text, read as the column
-- order_key with key.format 'raw') and holds the order as JSON in its value
-- (value.fields-include 'EXCEPT_KEY': the value holds the other columns). The RocketMQ
-- message gets the Kafka key as its message key (sink.keys-column), so it can be looked up
-- by the order id there too.
--
-- No consumer group: this one job reads every partition, and keeps its position in each
-- (offset + 1, committed only up to the first record not yet confirmed by RocketMQ) in the
-- catalog. Run again on the same catalog, it resumes there, whatever scan.startup.mode
-- says; after a crash it sends again at most what was not committed (at-least-once: a
-- consumer may see a message twice, never miss one). It runs until stopped (Ctrl-C or
-- SIGTERM: it commits what RocketMQ confirmed and exits).
--
-- Locally, with the servers of scripts/kafka (127.0.0.1:19092) and scripts/rocketmq (proxy
-- on 127.0.0.1:8081), as the README's tour shows:
--
--   scripts/kafka topic orders 3
--   scripts/rocketmq topic orders_large normal
--   rocketsql --catalog bridge.db -f examples/kafka-to-rocketmq.sql

CREATE TABLE IF NOT EXISTS kafka_orders (
  order_key STRING,      -- the record key: the order id as text
  id BIGINT,
  customer STRING,
  amount DOUBLE,
  note STRING,
  kafka_partition INT METADATA FROM 'partition' VIRTUAL,
  kafka_offset BIGINT METADATA FROM 'offset' VIRTUAL
) WITH (
  'connector' = 'kafka',
  'properties.bootstrap.servers' = '127.0.0.1:19092',
  'topic' = 'orders',
  'scan.startup.mode' = 'earliest-offset',
  'key.format' = 'raw',
  'key.fields' = 'order_key',
  'value.fields-include' = 'EXCEPT_KEY',
  'value.format' = 'json'
);

CREATE TABLE IF NOT EXISTS orders_large (
  order_key STRING,
  id BIGINT,
  customer STRING,
  amount DOUBLE,
  source STRING
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'orders_large',
  'format' = 'json',
  'sink.keys-column' = 'order_key',
  'sink.tag' = 'large'
);

-- the message key is order_key; the body {"order_key":..,"id":..,"customer":..,"amount":..,
-- "source":"orders/<partition>@<offset>"}: where in Kafka the order came from
INSERT INTO orders_large
SELECT order_key, id, UPPER(customer), amount,
       CONCAT('orders/', CAST(kafka_partition AS STRING), '@', CAST(kafka_offset AS STRING))
FROM kafka_orders
WHERE amount >= 100;

-- PostgreSQL changes, read by logical replication, published to a RocketMQ FIFO topic as
-- Debezium JSON change events, one message group per order id.
--
-- The postgres-cdc source reads public.orders once (a snapshot, as +I) and then every
-- insert, update and delete from the replication slot rsql_orders_to_mq (created when
-- missing, never dropped: drop it with SELECT pg_drop_replication_slot('rsql_orders_to_mq')
-- when the job is gone). Each change becomes one debezium-json message in the message group
-- of its id, so a consumer sees each order's changes in the order PostgreSQL committed them.
-- Delivery is at-least-once: the slot confirms, and a restart resumes after, only what
-- RocketMQ confirmed; after a kill the changes of a transaction that was partly sent are
-- sent again (a consumer applying them by id converges).
--
-- The server: wal_level = logical (scripts/postgres sets it), a role with LOGIN
-- REPLICATION, the CREATE privilege on the database and the ownership of public.orders (to
-- create the publication rsql_rsql_orders_to_mq FOR TABLE public.orders; or have an owner
-- create it). docs/CDC.md says more. The topic is a FIFO topic (locally: scripts/rocketmq
-- topic orders_changes fifo).
--
-- Against a proxy on 127.0.0.1:8081 and the PostgreSQL of `scripts/postgres start`:
--
--   rocketsql --catalog cdc.db -f examples/postgres-cdc-to-rocketmq.sql
--
-- (it runs until stopped: Ctrl-C, or CREATE JOB ... and rocketsql serve).

CREATE TABLE IF NOT EXISTS orders_cdc (
  id BIGINT,
  customer STRING,
  amount DECIMAL(10, 2),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'postgres-cdc',
  'hostname' = '127.0.0.1',
  'port' = '54329',
  'database-name' = 'rocketsql',
  'schema-name' = 'public',
  'table-name' = 'orders',
  'slot.name' = 'rsql_orders_to_mq',
  'scan.startup.mode' = 'initial'
);

CREATE TABLE IF NOT EXISTS orders_changes (
  id BIGINT,
  customer STRING,
  amount DECIMAL(10, 2),
  PRIMARY KEY (id) NOT ENFORCED
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'orders_changes',
  'format' = 'debezium-json',
  'sink.message-group-column' = 'id'
);

EXPLAIN INSERT INTO orders_changes SELECT * FROM orders_cdc;

INSERT INTO orders_changes SELECT * FROM orders_cdc;

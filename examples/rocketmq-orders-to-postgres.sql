-- RocketMQ orders -> PostgreSQL, exactly once.
--
-- JSON orders on a RocketMQ topic; the ones over 100 go to a PostgreSQL table, each exactly
-- once: the postgres sink records every applied message's id in the same transaction as its
-- row, so a message delivered again (rocketsql killed before its ack, a proxy restart) is
-- acked without being written twice. EXPLAIN says so. Against a broker on 127.0.0.1:8081 with
-- the topic eo_orders and the consumer group eo_to_pg, and the PostgreSQL of
-- `scripts/postgres start`:
--
--   rocketsql --catalog eo.db -f examples/rocketmq-orders-to-postgres.sql
--
-- tests/rocketmq/t_pg_example.sh runs a copy of this file (its endpoint, names and URL those
-- of the local servers), kills it with SIGKILL mid-run, runs it again, and checks the table
-- with psql. An order: {"id": 17, "customer": "c42", "amount": 731.55}.

CREATE TABLE IF NOT EXISTS orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'eo_orders',
  'source.consumer-group' = 'eo_to_pg',
  'source.invisible-duration' = '10s',
  'scan.idle-timeout' = '10s'
);

CREATE TABLE IF NOT EXISTS big_orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE
) WITH (
  'connector' = 'postgres',
  'url' = 'postgresql://rsqlpg@127.0.0.1:54329/rocketsql',
  'table-name' = 'eo_big_orders'
);

EXPLAIN INSERT INTO big_orders SELECT id, customer, amount FROM orders WHERE amount > 100;
INSERT INTO big_orders SELECT id, customer, amount FROM orders WHERE amount > 100;

-- Example 0: the local quickstart, no broker needed: generated orders -> filter/projection ->
-- SQLite. (examples/quickstart.sql is the same pipeline on RocketMQ; scripts/quickstart runs it.)
--
--   cd some/dir && rocketsql --catalog demo.db -f 00-local-quickstart.sql
--
-- datagen makes 1000 orders (ids 1..1000, amounts 1..500, seed 42, so always the same ones);
-- the orders over 100 go to the table big_orders of quickstart-orders.db, customer upper-cased.
-- The expected content of big_orders is 00-local-quickstart.expected.
CREATE TABLE orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '1000',
  'seed' = '42',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.id.end' = '1000',
  'fields.amount.min' = '1',
  'fields.amount.max' = '500'
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

SHOW TABLES;
DESCRIBE orders;
EXPLAIN INSERT INTO big_orders SELECT id, UPPER(customer), amount FROM orders WHERE amount > 100;
INSERT INTO big_orders SELECT id, UPPER(customer), amount FROM orders WHERE amount > 100;
SELECT * FROM big_orders LIMIT 5;
SHOW JOB RUNS;

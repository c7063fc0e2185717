-- Example 0: the local quickstart, no broker needed: generated orders -> filter/projection ->
-- SQLite. (examples/quickstart.sql is the same pipeline on RocketMQ; scripts/quickstart runs it.)
--
--   cd some/dir && rocketsql --catalog demo.db -f 00-local-quickstart.sql
--
-- datagen makes 1000 orders (ids 1..1000, amounts 1..500, seed 42, so always the same ones);
-- the orders over 100 go to the table big_orders of quickstart-orders.db, customer upper-cased.
-- The expected content of big_orders is 00-local-quickstart.expected.
--
-- The tables are qs_orders and qs_big_orders, so the examples share a catalog in any order.
-- Run again, the script changes nothing: the INSERT resumes where it stopped (after the
-- 1000 rows; it says so) and writes no row twice. RESET POSITIONS 'insert:qs_orders->qs_big_orders'
-- would start it over (docs/SQL.md, "Where a run resumes").
CREATE TABLE IF NOT EXISTS qs_orders (
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

CREATE TABLE IF NOT EXISTS qs_big_orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE
) WITH (
  'connector' = 'sqlite',
  'path' = 'quickstart-orders.db',
  'table' = 'big_orders'
);

SHOW TABLES;
DESCRIBE qs_orders;
EXPLAIN INSERT INTO qs_big_orders SELECT id, UPPER(customer), amount FROM qs_orders WHERE amount > 100;
INSERT INTO qs_big_orders SELECT id, UPPER(customer), amount FROM qs_orders WHERE amount > 100;
SELECT * FROM qs_big_orders LIMIT 5;
SHOW JOB RUNS;

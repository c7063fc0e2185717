-- Example 3: roll a stream up: the orders of a JSON-lines file counted and summed by size,
-- into a SQLite table that always holds the totals so far.
--
--   cd some/dir && cp -r path/to/examples/data . && rocketsql --catalog demo.db -f 03-orders-by-size.sql
--
-- GROUP BY keeps one row per group up to date: each order updates its group's COUNT, SUM and
-- MAX, and the sink, keyed by the group (PRIMARY KEY ... NOT ENFORCED), replaces that row.
-- The groups' totals are the job's state, saved in the catalog with the file position, so a
-- second run (or a run after kill -9) adds nothing twice. data/orders.jsonl has 3 bad lines:
-- with errors.tolerance = 'all' they are skipped (logged), as example 2 shows with a
-- dead-letter table. The expected result is 03-orders-by-size.expected. The tables are
-- sizes_*, so the examples share a catalog in any order.

SET 'errors.tolerance' = 'all';

CREATE TABLE IF NOT EXISTS sizes_orders_file (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/orders.jsonl',
  'format' = 'json'
);

CREATE TABLE IF NOT EXISTS sizes_totals (
  size STRING,
  orders BIGINT,
  total DOUBLE,
  biggest DOUBLE,
  PRIMARY KEY (size) NOT ENFORCED
) WITH (
  'connector' = 'sqlite',
  'path' = 'sizes.db',
  'table' = 'totals'
);

INSERT INTO sizes_totals
SELECT CASE WHEN amount >= 100 THEN 'large' ELSE 'small' END, COUNT(*), SUM(amount),
       MAX(amount)
FROM sizes_orders_file
GROUP BY CASE WHEN amount >= 100 THEN 'large' ELSE 'small' END;

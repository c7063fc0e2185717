-- Example 2: copy a JSON-lines file into SQLite, sending the lines that do not fit to a
-- dead-letter table instead of stopping.
--
--   cd some/dir && cp -r path/to/examples/data . && rocketsql --catalog demo.db -f 02-json-to-sqlite-dlq.sql
--
-- data/orders.jsonl has 10 lines; 3 of them are bad: an amount that is not a number, a line
-- cut short, and an array instead of an object. A missing field (line 6 has no customer) is
-- NULL, an unknown field (line 9's "note") is ignored. Good rows go to the table orders of
-- shop.db; with errors.tolerance = 'all' each bad line goes to dead_letters with its raw text,
-- the stage that failed, the error and where it came from (file and byte offset). The SQLite
-- sink commits its rows together with the file position, so running the script again copies
-- nothing twice. The expected result is 02-json-to-sqlite-dlq.expected (both tables, without
-- the dead letters' timestamps). The tables are shop_*, so the examples share a catalog in
-- any order.

CREATE TABLE IF NOT EXISTS shop_orders_file (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/orders.jsonl',
  'format' = 'json'
);

CREATE TABLE IF NOT EXISTS shop_orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  ts TIMESTAMP(3)
) WITH (
  'connector' = 'sqlite',
  'path' = 'shop.db',
  'table' = 'orders'
);

CREATE TABLE IF NOT EXISTS shop_dead_letters (
  raw STRING,          -- the line as read
  stage STRING,        -- decode, eval or sink
  error STRING,
  source STRING,       -- file:<path>@<byte offset>
  ts TIMESTAMP(3)      -- when it was dead-lettered
) WITH (
  'connector' = 'sqlite',
  'path' = 'shop.db',
  'table' = 'dead_letters'
);

SET 'errors.tolerance' = 'all';
SET 'errors.dlq.table' = 'shop_dead_letters';

INSERT INTO shop_orders SELECT * FROM shop_orders_file;

SHOW JOB RUNS;

-- Example 1: generate rows, keep some, reshape them, write them to a JSON-lines file.
--
--   cd some/empty/dir && rocketsql --catalog demo.db -f 01-datagen-to-file.sql
--
-- datagen makes 20 orders: ids 1..20 in sequence, a random customer code and amount
-- (a fixed seed, so every run makes the same rows). The INSERT keeps orders of 100 or more
-- that are not from the 'test' shard, and writes one JSON object per line to
-- big_orders.json in the working directory (the file is created, and appended
-- to). The expected result is 01-datagen-to-file.expected (the file, sorted).
--
-- The tables are gen_orders and gen_big_orders, so the examples share a catalog in any
-- order. Run again, the script appends nothing: the INSERT resumes after the 20 rows it read
-- (it says so); RESET POSITIONS 'insert:gen_orders->gen_big_orders' would start it over.

CREATE TABLE IF NOT EXISTS gen_orders (
  id BIGINT NOT NULL,
  customer STRING,
  amount INT
) WITH (
  'connector' = 'datagen',
  'number-of-rows' = '20',
  'rows-per-second' = '0',          -- as fast as the pipeline takes them
  'seed' = '7',
  'fields.id.kind' = 'sequence',
  'fields.id.start' = '1',
  'fields.customer.length' = '4',
  'fields.amount.min' = '1',
  'fields.amount.max' = '500'
);

CREATE TABLE IF NOT EXISTS gen_big_orders (
  id BIGINT,
  customer STRING,
  amount_cents BIGINT,
  size STRING
) WITH (
  'connector' = 'filesystem',
  'path' = 'big_orders.json',
  'format' = 'json'
);

INSERT INTO gen_big_orders
SELECT id,
       UPPER(customer),
       CAST(amount AS BIGINT) * 100,
       CASE WHEN amount >= 400 THEN 'large' ELSE 'medium' END
FROM gen_orders
WHERE amount >= 100 AND id % 10 <> 0;

SHOW JOB RUNS;

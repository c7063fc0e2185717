-- Example 4: windows over event time: the orders of a JSON-lines file counted and summed per
-- five minutes of their own time (ts), into a SQLite table with one row per window.
--
--   cd some/dir && cp -r path/to/examples/data . && rocketsql --catalog demo.db -f 04-orders-per-5-minutes.sql
--
-- TUMBLE cuts the time into windows of five minutes; the WATERMARK says rows may come up to
-- a minute out of order, so a window's row is written once the orders seen are a minute past
-- its end (and, at the file's end, every window still open). Each window is written once:
-- the sink could append as well as upsert. The open windows are the job's state, saved in the
-- catalog with the file position, so a second run (or a run after kill -9) writes nothing
-- twice. data/orders.jsonl has 3 bad lines, skipped with errors.tolerance = 'all'. The
-- expected result is 04-orders-per-5-minutes.expected. The tables are windows_*, so the
-- examples share a catalog in any order.

SET 'errors.tolerance' = 'all';

CREATE TABLE IF NOT EXISTS windows_orders_file (
  id BIGINT NOT NULL,
  customer STRING,
  amount DOUBLE,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' MINUTE
) WITH (
  'connector' = 'filesystem',
  'path' = 'data/orders.jsonl',
  'format' = 'json'
);

CREATE TABLE IF NOT EXISTS windows_per_5_minutes (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  orders BIGINT,
  total DOUBLE,
  biggest DOUBLE,
  PRIMARY KEY (window_start) NOT ENFORCED
) WITH (
  'connector' = 'sqlite',
  'path' = 'windows.db',
  'table' = 'per_5_minutes'
);

INSERT INTO windows_per_5_minutes
SELECT window_start, window_end, COUNT(*), SUM(amount), MAX(amount)
FROM TABLE(TUMBLE(TABLE windows_orders_file, DESCRIPTOR(ts), INTERVAL '5' MINUTE))
GROUP BY window_start, window_end;

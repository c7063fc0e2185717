-- Per-customer totals of every minute of RocketMQ orders, kept in PostgreSQL (a window
-- aggregation over event time).
--
-- JSON orders arrive on the topic pm_orders, each with the time it was placed (ts). Each
-- minute of that time (a TUMBLE window) and each customer get one row in the PostgreSQL table
-- pm_per_minute: how many orders, how many with an amount, their sum, the smallest and the
-- largest (docs/SQL.md, "Windows").
--
--   an order:   {"id": 17, "customer": "c07", "amount": 731, "ts": "2026-03-01 12:04:05.678"}
--   its row:    2026-03-01 12:04:00 | 2026-03-01 12:05:00 | c07 | 12 | 11 | 5210 | 31 | 918
--
-- A RocketMQ consumer group spreads its messages over all the processes that read through it,
-- one message at a time, and keeps no position a job could save state with. So no process
-- holds a window: each order adds its own part to the row of its minute and customer in the
-- table (COUNT and SUM added, MIN and MAX kept), in the same transaction that records the
-- message as applied, and the message is acked only after that commit. Run this file in one
-- process or in several (each with its own catalog) through the same group: the table is the
-- same, exactly once, even when a process is killed (its messages come back to the group
-- after their invisible duration, and those already applied are acked, not added again). The
-- row of a minute is its total so far; it is final once no order of that minute can come
-- (orders later than the WATERMARK's hour are dropped as late, and counted).
--
-- Try it with the local servers of the tests (a RocketMQ proxy on 127.0.0.1:8081, the
-- PostgreSQL of `scripts/postgres start`; `scripts/postgres url` prints its URL: use it below
-- if it differs):
--
--   1. the table, in PostgreSQL, keyed by the window and the customer:
--        scripts/postgres psql -c "CREATE TABLE pm_per_minute (window_start timestamp(3),
--            window_end timestamp(3), customer text, orders bigint, with_amount bigint,
--            total bigint, smallest integer, largest integer,
--            PRIMARY KEY (window_start, customer))"
--   2. the topic and the job's consumer group:
--        scripts/rocketmq topic pm_orders normal
--        scripts/rocketmq group pm_windows
--   3. orders, one JSON object a line in orders.jsonl, sent with the official Java client the
--      tests use (or any producer):
--        tests/interop/rmq-interop produce --endpoint 127.0.0.1:8081 --topic pm_orders \
--            --file orders.jsonl
--   4. the job, in one shell or several (it ends 15 s after the last order,
--      'scan.idle-timeout'; without that option it runs until stopped):
--        rocketsql --catalog per-minute-1.db -f examples/orders-per-minute.sql
--   5. the totals:
--        scripts/postgres psql -c "SELECT * FROM pm_per_minute ORDER BY 1, 3"
--
-- tests/rocketmq/t_pg_window_scale.sh runs a copy of this file (the endpoint, topic, group,
-- table and URL of the local servers) in three processes, kills them five times, and compares
-- the table with PostgreSQL's own GROUP BY over the same orders.

CREATE TABLE IF NOT EXISTS pm_orders (
  id BIGINT,
  customer STRING,
  amount INT,
  ts TIMESTAMP(3),
  WATERMARK FOR ts AS ts - INTERVAL '1' HOUR
) WITH (
  'connector' = 'rocketmq-grpc',
  'endpoints' = '127.0.0.1:8081',
  'topic' = 'pm_orders',
  'source.consumer-group' = 'pm_windows',
  'scan.idle-timeout' = '15s'
);

CREATE TABLE IF NOT EXISTS pm_per_minute (
  window_start TIMESTAMP(3),
  window_end TIMESTAMP(3),
  customer STRING,
  orders BIGINT,
  with_amount BIGINT,
  total BIGINT,
  smallest INT,
  largest INT,
  PRIMARY KEY (window_start, customer) NOT ENFORCED
) WITH (
  'connector' = 'postgres',
  'url' = 'postgresql://rsqlpg@127.0.0.1:54329/rocketsql',
  'table-name' = 'pm_per_minute'
);

INSERT INTO pm_per_minute
SELECT window_start, window_end, customer, COUNT(*), COUNT(amount), SUM(amount), MIN(amount),
       MAX(amount)
FROM TABLE(TUMBLE(TABLE pm_orders, DESCRIPTOR(ts), INTERVAL '1' MINUTE))
GROUP BY window_start, window_end, customer;

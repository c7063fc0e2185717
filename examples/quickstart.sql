-- rocketsql quickstart (local part): generated orders -> filter/projection -> sqlite.
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
  'path' = 'build/quickstart-orders.db',
  'table' = 'big_orders'
);

SHOW TABLES;
DESCRIBE orders;
EXPLAIN INSERT INTO big_orders SELECT id, UPPER(customer), amount FROM orders WHERE amount > 100;
INSERT INTO big_orders SELECT id, UPPER(customer), amount FROM orders WHERE amount > 100;
SELECT * FROM big_orders LIMIT 5;
SHOW JOB RUNS;

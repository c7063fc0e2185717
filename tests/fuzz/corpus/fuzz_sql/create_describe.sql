CREATE TABLE g (id INT, name VARCHAR, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'fields.id.kind' = 'sequence', 'fields.id.start' = '1', 'fields.id.end' = '10', 'fields.name.length' = '5', 'number-of-rows' = '3');
DESCRIBE g;
SHOW CREATE TABLE g;
EXPLAIN INSERT INTO t_sqlite SELECT id, id * 2, 1.5, TRUE, name, ts, CAST(name AS BYTES) FROM g;
SHOW TABLES;

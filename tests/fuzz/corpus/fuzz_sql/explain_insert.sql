EXPLAIN INSERT INTO t_print SELECT a, b, c, d, e, f, g FROM t_datagen WHERE a > 1 AND e LIKE 'x%';

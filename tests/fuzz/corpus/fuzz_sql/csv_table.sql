CREATE TABLE c (a INT, b VARCHAR) WITH ('connector' = 'filesystem', 'path' = '/tmp/c.csv', 'format' = 'csv', 'csv.field-delimiter' = ';', 'csv.quote-character' = '', 'csv.null-literal' = 'NULL');
EXPLAIN INSERT INTO c (b, a) SELECT COALESCE(e, 'n'), CAST(b AS INT) FROM t_datagen WHERE NOT d OR a IN (1, 2, 3);
SHOW OPTIONS FOR CONNECTOR 'rocketmq-grpc';
SHOW CONNECTORS;

CREATE TABLE q (id BIGINT, tag VARCHAR METADATA, k VARCHAR METADATA FROM 'keys', born TIMESTAMP(3) METADATA FROM 'born_timestamp' VIRTUAL) WITH ('connector'='rocketmq-grpc', 'endpoints'='h:1', 'topic'='t');
DESCRIBE q; SHOW METADATA FOR CONNECTOR 'rocketmq-grpc';
CREATE TABLE f (a INT, p VARCHAR METADATA FROM 'path' VIRTUAL, ln BIGINT METADATA FROM 'line' VIRTUAL) WITH ('connector'='filesystem', 'path'='x.json');
EXPLAIN SELECT ln, a FROM f WHERE p LIKE '%x';

CREATE TABLE bad (b BOOLEAN) WITH ('connector'='datagen', 'fields.b.kind'='sequence');
CREATE TABLE i (a INT) WITH ('connector'='datagen', 'fields.a.min'='5.5', 'fields.a.max'='5.9');
SELECT a FROM i LIMIT 1;

CREATE TABLE f (body VARCHAR, key VARCHAR, value INT, position INT, ts TIMESTAMP(3)) WITH ('connector' = 'datagen', 'number-of-rows' = '3');
EXPLAIN SELECT JSON_VALUE(body, '$.a[0].b' RETURNING INT DEFAULT -1 ON EMPTY ERROR ON ERROR), JSON_QUERY(body, 'strict $["k"]' NULL ON EMPTY), JSON_EXISTS(body, '$.x' UNKNOWN ON ERROR), JSON_OBJECT(KEY 'key' VALUE value, 'p' VALUE position ABSENT ON NULL), JSON_ARRAY(key, JSON_ARRAY(value) NULL ON NULL) FROM f;
EXPLAIN SELECT POSITION(key IN body), EXTRACT(WEEK FROM ts), TIMESTAMPADD(MONTH, value, ts), TIMESTAMPDIFF(DAY, ts, NOW()), DATE_FORMAT(ts, 'yyyy-MM-dd ''T'' HH'), TO_TIMESTAMP(body, 'yyyyMMdd'), UNIX_TIMESTAMP(), FROM_UNIXTIME(value) FROM f WHERE REGEXP(body, '^(a|b)+$') AND IF(value > 1, key, body) IS NOT NULL;
EXPLAIN SELECT REGEXP_EXTRACT(body, '(x)(y)?', 2), REGEXP_REPLACE(body, '\s+', '$0'), REPLACE(body, 'a', 'b'), SPLIT_INDEX(body, ',', 1), LPAD(key, 4, '0'), RPAD(key, 4, ' '), MD5(body), SHA256(body), TO_BASE64(body), FROM_BASE64(body), UUID(), IFNULL(key, 'x') FROM f;
SELECT JSON_VALUE(body, '$[' ) FROM f;
SELECT REGEXP(body, '(') FROM f;

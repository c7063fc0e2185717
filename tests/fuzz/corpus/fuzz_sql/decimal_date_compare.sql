CREATE TABLE n (id INT, p DECIMAL(10, 2), q DECIMAL(38, 38), d DATE, e TIMESTAMP(3), o ROW<a INT, t ARRAY<STRING>, m MAP<STRING, INT>>) WITH ('connector'='datagen');
SELECT p / q, p % q, p / 0, p % CAST(1 AS DOUBLE), ABS(p), ROUND(p, 1), ROUND(q, -40), ROUND(p, id), FLOOR(q), CEIL(p), CEILING(p) FROM n;
SELECT o = o, o.t <> o.t, o.m IN (o.m), o < o, o.t = o.m, NULLIF(o.t, o.t), CASE o WHEN o THEN 1 END FROM n;
SELECT DATE_FORMAT(d, 'yyyy'), EXTRACT(YEAR FROM d), EXTRACT(HOUR FROM d), TIMESTAMPADD(DAY, 1, d), TIMESTAMPADD(HOUR, 1, d), TIMESTAMPDIFF(DAY, d, e), d < e, e BETWEEN d AND d FROM n;

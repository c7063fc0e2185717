CREATE TABLE n (id INT, p DECIMAL(10, 2), d DATE, o ROW<a INT, b ROW<c STRING>, tags ARRAY<STRING>, m MAP<STRING, INT>>) WITH ('connector'='datagen');
DESCRIBE n;
SHOW CREATE TABLE n;
SELECT o.b.c, o.tags[1], o.m['k'], CARDINALITY(o.tags), p * p + 1, -p, CAST(o AS VARCHAR), TO_DATE('01/02/2024', 'dd/MM/yyyy'), COALESCE(p, 1), CASE WHEN p > 1 THEN p ELSE 2 END FROM n WHERE d = CAST('2024-01-01' AS DATE);
CREATE TABLE x (r ROW(a ARRAY<MAP<STRING, ROW<"q" DECIMAL(3,1)>>>, `b` DATE)) WITH ('connector'='blackhole');

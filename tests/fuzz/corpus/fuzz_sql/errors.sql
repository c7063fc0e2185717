SELEC * FORM t;
SELECT (((a FROM t_datagen;
SELECT 'unterminated

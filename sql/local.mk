# sql/

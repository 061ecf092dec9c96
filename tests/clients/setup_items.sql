-- The table every client check reads (../shared/tools/sql/README.md §3).
DROP TABLE IF EXISTS items;
CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL, price NUMERIC(10,2));
INSERT INTO items VALUES (1, 'one', 0.50), (2, 'two', 1.50), (3, 'three', 2.50);

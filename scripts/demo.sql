-- The demo dataset scripts/start.sh loads into a new database.
create table items (id integer primary key, name varchar(40) not null, price numeric(10,2));
insert into items values (1, 'one', 0.50), (2, 'two', 1.50), (3, 'three', 2.50);
create table orders (order_id integer primary key, item_id integer not null, quantity integer not null, ordered date not null);
insert into orders values
  (100, 1, 3, date '2026-01-05'), (101, 2, 1, date '2026-01-06'),
  (102, 1, 7, date '2026-02-11'), (103, 3, 2, date '2026-03-01');
create index orders_item on orders (item_id) include (quantity);

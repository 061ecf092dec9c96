-- client_queries.sql — every SQL text of ../shared/tools/sql/CLIENT_QUERIES.md
-- (what psql, psycopg 3, pgJDBC 42.7.4, psqlODBC/pyodbc and unixODBC isql send),
-- verbatim, one block per text after a `-- @@ <client> <n>` line; a block may
-- hold several statements (psqlODBC sends three in one Query).
-- Parsed by test_sql_clients; the catalog tests run them against pg_catalog.

-- @@ psql: `psql -c "select id, name from items where id = 2"` #1
select id, name from items where id = 2

-- @@ psql: `\dt` #1
SELECT n.nspname as "Schema",
  c.relname as "Name",
  CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view' WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table' WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index' END as "Type",
  pg_catalog.pg_get_userbyid(c.relowner) as "Owner"
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
     LEFT JOIN pg_catalog.pg_am am ON am.oid = c.relam
WHERE c.relkind IN ('r','p','')
      AND n.nspname <> 'pg_catalog'
      AND n.nspname !~ '^pg_toast'
      AND n.nspname <> 'information_schema'
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 1,2;

-- @@ psql: `\d items` #1
SELECT c.oid,
  n.nspname,
  c.relname
FROM pg_catalog.pg_class c
     LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE c.relname OPERATOR(pg_catalog.~) '^(items)$' COLLATE pg_catalog.default
  AND pg_catalog.pg_table_is_visible(c.oid)
ORDER BY 2, 3;

-- @@ psql: `\d items` #2
SELECT c.relchecks, c.relkind, c.relhasindex, c.relhasrules, c.relhastriggers, c.relrowsecurity, c.relforcerowsecurity, false AS relhasoids, c.relispartition, '', c.reltablespace, CASE WHEN c.reloftype = 0 THEN '' ELSE c.reloftype::pg_catalog.regtype::pg_catalog.text END, c.relpersistence, c.relreplident, am.amname
FROM pg_catalog.pg_class c
 LEFT JOIN pg_catalog.pg_class tc ON (c.reltoastrelid = tc.oid)
LEFT JOIN pg_catalog.pg_am am ON (c.relam = am.oid)
WHERE c.oid = '16824';

-- @@ psql: `\d items` #3
SELECT a.attname,
  pg_catalog.format_type(a.atttypid, a.atttypmod),
  (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
   FROM pg_catalog.pg_attrdef d
   WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
  a.attnotnull,
  (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
   WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
  a.attidentity,
  a.attgenerated
FROM pg_catalog.pg_attribute a
WHERE a.attrelid = '16824' AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum;

-- @@ psql: `\d items` #4
SELECT c2.relname, i.indisprimary, i.indisunique, i.indisclustered, i.indisvalid, pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
  pg_catalog.pg_get_constraintdef(con.oid, true), contype, condeferrable, condeferred, i.indisreplident, c2.reltablespace
FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
  LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
WHERE c.oid = '16824' AND c.oid = i.indrelid AND i.indexrelid = c2.oid
ORDER BY i.indisprimary DESC, c2.relname;

-- @@ psql: `\d items` #5
SELECT pol.polname, pol.polpermissive,
  CASE WHEN pol.polroles = '{0}' THEN NULL ELSE pg_catalog.array_to_string(array(select rolname from pg_catalog.pg_roles where oid = any (pol.polroles) order by 1),',') END,
  pg_catalog.pg_get_expr(pol.polqual, pol.polrelid),
  pg_catalog.pg_get_expr(pol.polwithcheck, pol.polrelid),
  CASE pol.polcmd
    WHEN 'r' THEN 'SELECT'
    WHEN 'a' THEN 'INSERT'
    WHEN 'w' THEN 'UPDATE'
    WHEN 'd' THEN 'DELETE'
    END AS cmd
FROM pg_catalog.pg_policy pol
WHERE pol.polrelid = '16824' ORDER BY 1;

-- @@ psql: `\d items` #6
SELECT oid, stxrelid::pg_catalog.regclass, stxnamespace::pg_catalog.regnamespace::pg_catalog.text AS nsp, stxname,
pg_catalog.pg_get_statisticsobjdef_columns(oid) AS columns,
  'd' = any(stxkind) AS ndist_enabled,
  'f' = any(stxkind) AS deps_enabled,
  'm' = any(stxkind) AS mcv_enabled,
stxstattarget
FROM pg_catalog.pg_statistic_ext
WHERE stxrelid = '16824'
ORDER BY nsp, stxname;

-- @@ psql: `\d items` #7
SELECT pubname
     , NULL
     , NULL
FROM pg_catalog.pg_publication p
     JOIN pg_catalog.pg_publication_namespace pn ON p.oid = pn.pnpubid
     JOIN pg_catalog.pg_class pc ON pc.relnamespace = pn.pnnspid
WHERE pc.oid ='16824' and pg_catalog.pg_relation_is_publishable('16824')
UNION
SELECT pubname
     , pg_get_expr(pr.prqual, c.oid)
     , (CASE WHEN pr.prattrs IS NOT NULL THEN
         (SELECT string_agg(attname, ', ')
           FROM pg_catalog.generate_series(0, pg_catalog.array_upper(pr.prattrs::pg_catalog.int2[], 1)) s,
                pg_catalog.pg_attribute
          WHERE attrelid = pr.prrelid AND attnum = prattrs[s])
        ELSE NULL END) FROM pg_catalog.pg_publication p
     JOIN pg_catalog.pg_publication_rel pr ON p.oid = pr.prpubid
     JOIN pg_catalog.pg_class c ON c.oid = pr.prrelid
WHERE pr.prrelid = '16824'
UNION
SELECT pubname
     , NULL
     , NULL
FROM pg_catalog.pg_publication p
WHERE p.puballtables AND pg_catalog.pg_relation_is_publishable('16824')
ORDER BY 1;

-- @@ psql: `\d items` #8
SELECT c.oid::pg_catalog.regclass
FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhparent AND i.inhrelid = '16824'
  AND c.relkind != 'p' AND c.relkind != 'I'
ORDER BY inhseqno;

-- @@ psql: `\d items` #9
SELECT c.oid::pg_catalog.regclass, c.relkind, inhdetachpending, pg_catalog.pg_get_expr(c.relpartbound, c.oid)
FROM pg_catalog.pg_class c, pg_catalog.pg_inherits i
WHERE c.oid = i.inhrelid AND i.inhparent = '16824'
ORDER BY pg_catalog.pg_get_expr(c.relpartbound, c.oid) = 'DEFAULT', c.oid::pg_catalog.regclass::pg_catalog.text;

-- @@ psycopg 3 (`clients/psycopg_check.py`: plain query, `%s` parameter, `prepare=True`, commit) #1
BEGIN

-- @@ psycopg 3 (`clients/psycopg_check.py`: plain query, `%s` parameter, `prepare=True`, commit) #2
select id, name, price from items order by id

-- @@ psycopg 3 (`clients/psycopg_check.py`: plain query, `%s` parameter, `prepare=True`, commit) #3
select name from items where id = $1

-- @@ psycopg 3 (`clients/psycopg_check.py`: plain query, `%s` parameter, `prepare=True`, commit) #4
select count(*) from items where price > $1

-- @@ psycopg 3 (`clients/psycopg_check.py`: plain query, `%s` parameter, `prepare=True`, commit) #5
COMMIT

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #1
select 1 + 1 as two

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #2
select id, name from items where id = $1

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #3
SELECT c.oid, a.attnum, a.attname, c.relname, n.nspname, a.attnotnull OR (t.typtype = 'd' AND t.typnotnull), a.attidentity != '' OR pg_catalog.pg_get_expr(d.adbin, d.adrelid) LIKE '%nextval(%' FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON (c.relnamespace = n.oid) JOIN pg_catalog.pg_attribute a ON (c.oid = a.attrelid) JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid) LEFT JOIN pg_catalog.pg_attrdef d ON (d.adrelid = a.attrelid AND d.adnum = a.attnum) JOIN (SELECT 16824 AS oid , 1 AS attnum UNION ALL SELECT 16824, 2) vals ON (c.oid = vals.oid AND a.attnum = vals.attnum)

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #4
select id, name from items where id = $1

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #5
select id, name from items where id = $1

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #6
select id, name from items where id = $1

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #7
select id, name from items where id = $1

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #8
SELECT NULL AS TABLE_CAT, n.nspname AS TABLE_SCHEM, c.relname AS TABLE_NAME,  CASE n.nspname ~ '^pg_' OR n.nspname = 'information_schema'  WHEN true THEN CASE  WHEN n.nspname = 'pg_catalog' OR n.nspname = 'information_schema' THEN CASE c.relkind   WHEN 'r' THEN 'SYSTEM TABLE'   WHEN 'v' THEN 'SYSTEM VIEW'   WHEN 'i' THEN 'SYSTEM INDEX'   ELSE NULL   END  WHEN n.nspname = 'pg_toast' THEN CASE c.relkind   WHEN 'r' THEN 'SYSTEM TOAST TABLE'   WHEN 'i' THEN 'SYSTEM TOAST INDEX'   ELSE NULL   END  ELSE CASE c.relkind   WHEN 'r' THEN 'TEMPORARY TABLE'   WHEN 'p' THEN 'TEMPORARY TABLE'   WHEN 'i' THEN 'TEMPORARY INDEX'   WHEN 'S' THEN 'TEMPORARY SEQUENCE'   WHEN 'v' THEN 'TEMPORARY VIEW'   ELSE NULL   END  END  WHEN false THEN CASE c.relkind  WHEN 'r' THEN 'TABLE'  WHEN 'p' THEN 'PARTITIONED TABLE'  WHEN 'i' THEN 'INDEX'  WHEN 'P' then 'PARTITIONED INDEX'  WHEN 'S' THEN 'SEQUENCE'  WHEN 'v' THEN 'VIEW'  WHEN 'c' THEN 'TYPE'  WHEN 'f' THEN 'FOREIGN TABLE'  WHEN 'm' THEN 'MATERIALIZED VIEW'  ELSE NULL  END  ELSE NULL  END  AS TABLE_TYPE, d.description AS REMARKS,  '' as TYPE_CAT, '' as TYPE_SCHEM, '' as TYPE_NAME, '' AS SELF_REFERENCING_COL_NAME, '' AS REF_GENERATION  FROM pg_catalog.pg_namespace n, pg_catalog.pg_class c  LEFT JOIN pg_catalog.pg_description d ON (c.oid = d.objoid AND d.objsubid = 0  and d.classoid = 'pg_class'::regclass)  WHERE c.relnamespace = n.oid  AND n.nspname LIKE 'public' AND c.relname LIKE '%' AND (false  OR ( c.relkind = 'r' AND n.nspname !~ '^pg_' AND n.nspname <> 'information_schema' )  OR ( c.relkind = 'v' AND n.nspname <> 'pg_catalog' AND n.nspname <> 'information_schema' ) )  ORDER BY TABLE_TYPE,TABLE_SCHEM,TABLE_NAME

-- @@ pgJDBC 42.7.4 (`jdbc-smoke`: connect, Statement, PreparedStatement x6, getTables, getColumns) #9
SELECT * FROM (SELECT n.nspname,c.relname,a.attname,a.atttypid,a.attnotnull OR (t.typtype = 'd' AND t.typnotnull) AS attnotnull,a.atttypmod,a.attlen,t.typtypmod,row_number() OVER (PARTITION BY a.attrelid ORDER BY a.attnum) AS attnum, nullif(a.attidentity, '') as attidentity,nullif(a.attgenerated, '') as attgenerated,pg_catalog.pg_get_expr(def.adbin, def.adrelid) AS adsrc,dsc.description,t.typbasetype,t.typtype  FROM pg_catalog.pg_namespace n  JOIN pg_catalog.pg_class c ON (c.relnamespace = n.oid)  JOIN pg_catalog.pg_attribute a ON (a.attrelid=c.oid)  JOIN pg_catalog.pg_type t ON (a.atttypid = t.oid)  LEFT JOIN pg_catalog.pg_attrdef def ON (a.attrelid=def.adrelid AND a.attnum = def.adnum)  LEFT JOIN pg_catalog.pg_description dsc ON (c.oid=dsc.objoid AND a.attnum = dsc.objsubid)  LEFT JOIN pg_catalog.pg_class dc ON (dc.oid=dsc.classoid AND dc.relname='pg_class')  LEFT JOIN pg_catalog.pg_namespace dn ON (dc.relnamespace=dn.oid AND dn.nspname='pg_catalog')  WHERE c.relkind in ('r','p','v','f','m') and a.attnum > 0 AND NOT a.attisdropped  AND n.nspname LIKE 'public' AND c.relname LIKE 'items') c WHERE true  AND attname LIKE '%' ORDER BY nspname,c.relname,attnum

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #1
SET DateStyle = 'ISO';SET extra_float_digits = 2;show transaction_isolation

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #2
select oid, typbasetype from pg_type where typname = 'lo'

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #3
select id, name, price from items order by id

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #4
select n.nspname, c.relname, a.attname, a.atttypid, t.typname, a.attnum, a.attlen, a.atttypmod, a.attnotnull, c.relhasrules, c.relkind, c.oid, pg_get_expr(d.adbin, d.adrelid), case t.typtype when 'd' then t.typbasetype else 0 end, t.typtypmod, 0, attidentity, c.relhassubclass from (((pg_catalog.pg_class c inner join pg_catalog.pg_namespace n on n.oid = c.relnamespace and c.oid = 16824) inner join pg_catalog.pg_attribute a on (not a.attisdropped) and a.attnum > 0 and a.attrelid = c.oid) inner join pg_catalog.pg_type t on t.oid = a.atttypid) left outer join pg_attrdef d on a.atthasdef and d.adrelid = a.attrelid and d.adnum = a.attnum order by n.nspname, c.relname, attnum

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #5
select name from items where id = $1

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #6
DEALLOCATE "_PLAN0x55ef0fd77720"

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #7
select relname, nspname, relkind from pg_catalog.pg_class c, pg_catalog.pg_namespace n where relkind in ('r', 'v', 'm', 'f', 'p') and nspname like 'public' and nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'pg_temp_1') and n.oid = relnamespace order by nspname, relname

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #8
select current_schema()

-- @@ psqlODBC via pyodbc (`clients/pyodbc_check.py`: connect, plain query, `?` parameter, `cursor.tables()`, `cursor.columns()`) #9
select n.nspname, c.relname, a.attname, a.atttypid, t.typname, a.attnum, a.attlen, a.atttypmod, a.attnotnull, c.relhasrules, c.relkind, c.oid, pg_get_expr(d.adbin, d.adrelid), case t.typtype when 'd' then t.typbasetype else 0 end, t.typtypmod, 0, attidentity, c.relhassubclass from (((pg_catalog.pg_class c inner join pg_catalog.pg_namespace n on n.oid = c.relnamespace and c.relname like 'items' and n.nspname like 'public') inner join pg_catalog.pg_attribute a on (not a.attisdropped) and a.attnum > 0 and a.attrelid = c.oid) inner join pg_catalog.pg_type t on t.oid = a.atttypid) left outer join pg_attrdef d on a.atthasdef and d.adrelid = a.attrelid and d.adnum = a.attnum order by n.nspname, c.relname, attnum

-- @@ unixODBC `isql` (psqlODBC): `select id, name from items where id = 2` #1
SET DateStyle = 'ISO';SET extra_float_digits = 2;show transaction_isolation

-- @@ unixODBC `isql` (psqlODBC): `select id, name from items where id = 2` #2
select oid, typbasetype from pg_type where typname = 'lo'

-- @@ unixODBC `isql` (psqlODBC): `select id, name from items where id = 2` #3
select id, name from items where id = 2

-- @@ unixODBC `isql` (psqlODBC): `select id, name from items where id = 2` #4
DEALLOCATE "_PLAN0x560a40eaf6e0"

-- @@ unixODBC `isql`: `help` and `help items` #1
SET DateStyle = 'ISO';SET extra_float_digits = 2;show transaction_isolation

-- @@ unixODBC `isql`: `help` and `help items` #2
select oid, typbasetype from pg_type where typname = 'lo'

-- @@ unixODBC `isql`: `help` and `help items` #3
select relname, nspname, relkind from pg_catalog.pg_class c, pg_catalog.pg_namespace n where relkind in ('r', 'v', 'm', 'f', 'p') and nspname not in ('pg_catalog', 'information_schema', 'pg_toast', 'pg_temp_1') and n.oid = relnamespace order by nspname, relname

-- @@ unixODBC `isql`: `help` and `help items` #4
select current_schema()

-- @@ unixODBC `isql`: `help` and `help items` #5
select n.nspname, c.relname, a.attname, a.atttypid, t.typname, a.attnum, a.attlen, a.atttypmod, a.attnotnull, c.relhasrules, c.relkind, c.oid, pg_get_expr(d.adbin, d.adrelid), case t.typtype when 'd' then t.typbasetype else 0 end, t.typtypmod, 0, attidentity, c.relhassubclass from (((pg_catalog.pg_class c inner join pg_catalog.pg_namespace n on n.oid = c.relnamespace and c.relname like 'items' and n.nspname like 'public') inner join pg_catalog.pg_attribute a on (not a.attisdropped) and a.attnum > 0 and a.attrelid = c.oid) inner join pg_catalog.pg_type t on t.oid = a.atttypid) left outer join pg_attrdef d on a.atthasdef and d.adrelid = a.attrelid and d.adnum = a.attnum order by n.nspname, c.relname, attnum

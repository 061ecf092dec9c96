#!/usr/bin/env python3
"""ALTER TABLE through the wire (issue 11, item 3), as PostgreSQL 15 answers:

  sqlstates   42701 a column that exists (ADD, RENAME), 42703 an unknown
              column (DROP, ALTER, RENAME, SET NOT NULL, a key column),
              42P07 a name taken (RENAME TO, a constraint's index), 42P01
              an unknown table, 23502 NULLs (ADD … NOT NULL, SET NOT NULL,
              ADD PRIMARY KEY), 23505 duplicates (ADD PRIMARY KEY, ADD
              UNIQUE), 42804 a type without assignment cast, 42P16 a
              second primary key and DROP NOT NULL of a key column, 42704
              an unknown constraint; the session goes on after each
  messages    PostgreSQL's words for those, with 23505's DETAIL "Key (a)=(1)
              is duplicated." and 42804's HINT "You might need to specify
              "USING a::integer"."
  catalog     after each kind of action: information_schema.columns
              (names, positions, types, nullability, defaults),
              pg_attribute, pg_index / pg_constraint of the key and of a
              unique constraint, pg_class after RENAME TO, and psql's \\d
              output (the same text PostgreSQL's psql prints)
  rollback    BEGIN; several ALTERs; ROLLBACK leaves the catalog views and
              every row exactly as they were
  online      (Cadenza) while a rewrite of 100 000 rows runs, another
              session reads the old rows without waiting; a write from
              another session is refused with 40001 until the ALTER ends
  2BP01       dropping a serial column whose sequence another table's
              default uses (DETAIL, HINT), CASCADE then drops that default
  0A000       (Cadenza) dropping a table's last column (PostgreSQL allows
              tables without columns; Cadenza has none)

Usage: regress_alter.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import shutil
import subprocess
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402


def connect(dsn):
    return psycopg.connect(dsn, autocommit=True)


def err_of(c, sql):
    """(sqlstate, message, detail, hint) of sql; ("ok", …) when it passed."""
    try:
        c.execute(sql)
        return ("ok", "", "", "")
    except psycopg.Error as ex:
        d = ex.diag
        return (d.sqlstate, d.message_primary or "", d.message_detail or "", d.message_hint or "")


def sqlstates(dsn):
    c = connect(dsn)
    for s in ["DROP TABLE IF EXISTS ra_t, ra_u, ra_n, ra_d",
              "CREATE TABLE ra_t (a int, b text, c int)",
              "INSERT INTO ra_t VALUES (1, 'x', NULL), (2, 'y', 2)",
              "CREATE TABLE ra_u (x int)",
              "CREATE TABLE ra_d (a int, b int)",
              "INSERT INTO ra_d VALUES (1, 1), (1, 2), (2, NULL)",
              "CREATE TABLE ra_n (a int, b int)",
              "INSERT INTO ra_n VALUES (NULL, 1)"]:
        c.execute(s)
    cases = [
        ("add existing column", "ALTER TABLE ra_t ADD COLUMN b int", "42701",
         'column "b" of relation "ra_t" already exists', None, None),
        ("rename to existing column", "ALTER TABLE ra_t RENAME COLUMN a TO b", "42701",
         'column "b" of relation "ra_t" already exists', None, None),
        ("drop unknown column", "ALTER TABLE ra_t DROP COLUMN z", "42703",
         'column "z" of relation "ra_t" does not exist', None, None),
        ("type of unknown column", "ALTER TABLE ra_t ALTER COLUMN z TYPE int", "42703",
         'column "z" of relation "ra_t" does not exist', None, None),
        ("rename unknown column", "ALTER TABLE ra_t RENAME COLUMN z TO y", "42703",
         'column "z" does not exist', None, None),
        ("set not null of unknown column", "ALTER TABLE ra_t ALTER z SET NOT NULL", "42703",
         'column "z" of relation "ra_t" does not exist', None, None),
        ("key of unknown column", "ALTER TABLE ra_t ADD PRIMARY KEY (z)", "42703",
         'column "z" of relation "ra_t" does not exist', None, None),
        ("rename to taken table name", "ALTER TABLE ra_t RENAME TO ra_u", "42P07",
         'relation "ra_u" already exists', None, None),
        ("constraint name taken", "ALTER TABLE ra_t ADD CONSTRAINT ra_u UNIQUE (a)", "42P07",
         'relation "ra_u" already exists', None, None),
        ("unknown table", "ALTER TABLE ra_nosuch ADD COLUMN x int", "42P01",
         'relation "ra_nosuch" does not exist', None, None),
        ("not null column without default", "ALTER TABLE ra_t ADD COLUMN z int NOT NULL", "23502",
         'column "z" of relation "ra_t" contains null values', None, None),
        ("set not null over a NULL", "ALTER TABLE ra_t ALTER COLUMN c SET NOT NULL", "23502",
         'column "c" of relation "ra_t" contains null values', None, None),
        ("primary key over a NULL", "ALTER TABLE ra_n ADD PRIMARY KEY (a)", "23502",
         'column "a" of relation "ra_n" contains null values', None, None),
        ("primary key over duplicates", "ALTER TABLE ra_d ADD PRIMARY KEY (a)", "23505",
         'could not create unique index "ra_d_pkey"', "Key (a)=(1) is duplicated.", None),
        ("unique over duplicates", "ALTER TABLE ra_d ADD CONSTRAINT ra_d_u UNIQUE (a)", "23505",
         'could not create unique index "ra_d_u"', "Key (a)=(1) is duplicated.", None),
        ("composite key over duplicates",
         "ALTER TABLE ra_d ADD CONSTRAINT ra_d_k PRIMARY KEY (b, a)", "23502",
         'column "b" of relation "ra_d" contains null values', None, None),
        ("text to integer without USING", "ALTER TABLE ra_t ALTER COLUMN b TYPE int", "42804",
         'column "b" cannot be cast automatically to type integer', None,
         'You might need to specify "USING b::integer".'),
        ("drop unknown constraint", "ALTER TABLE ra_t DROP CONSTRAINT ra_nope", "42704",
         'constraint "ra_nope" of relation "ra_t" does not exist', None, None),
    ]
    for name, sql, want, msg, detail, hint in cases:
        st, m, d, h = err_of(c, sql)
        ok = st == want and m == msg and (detail is None or d == detail) and (hint is None or h == hint)
        check("sqlstate " + name, ok, "%s %r detail %r hint %r" % (st, m, d, h))
        check("session alive after " + name, checks.answers(c), "no answer")
    c.execute("ALTER TABLE ra_t ADD PRIMARY KEY (a)")
    for name, sql, want, msg in [
            ("a second primary key", "ALTER TABLE ra_t ADD PRIMARY KEY (c)", "42P16",
             'multiple primary keys for table "ra_t" are not allowed'),
            ("drop not null of a key column", "ALTER TABLE ra_t ALTER COLUMN a DROP NOT NULL",
             "42P16", 'column "a" is in a primary key')]:
        st, m, _, _ = err_of(c, sql)
        check("sqlstate " + name, st == want and m == msg, "%s %r" % (st, m))
    # nothing changed by the failed statements
    rows = c.execute("SELECT a, b, c FROM ra_t ORDER BY a").fetchall()
    check("failed ALTERs changed no row", rows == [(1, "x", None), (2, "y", 2)], repr(rows))
    c.execute("DROP TABLE ra_t, ra_u, ra_n, ra_d")
    c.close()


def columns(c, table):
    return c.execute(
        "SELECT column_name, ordinal_position, data_type, is_nullable, column_default "
        "FROM information_schema.columns WHERE table_name = %s ORDER BY ordinal_position",
        (table,)).fetchall()


def attrs(c, table):
    return c.execute(
        "SELECT a.attname, a.attnum, a.attnotnull FROM pg_attribute a JOIN pg_class r "
        "ON a.attrelid = r.oid WHERE r.relname = %s AND a.attnum > 0 AND NOT a.attisdropped "
        "ORDER BY a.attname", (table,)).fetchall()


def cons(c, table):
    return c.execute(
        "SELECT co.conname, co.contype FROM pg_constraint co JOIN pg_class r "
        "ON co.conrelid = r.oid WHERE r.relname = %s AND co.contype IN ('p', 'u') "
        "ORDER BY co.conname", (table,)).fetchall()


def psql_d(dsn, table):
    exe = shutil.which("psql")
    if not exe:
        return None
    r = subprocess.run([exe, "-X", "-d", dsn, "-c", "\\d " + table], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, timeout=60)
    return r.stdout.decode(errors="replace")


PSQL_D = """                       Table "public.ra_c"
 Column |         Type          | Collation | Nullable | Default 
--------+-----------------------+-----------+----------+---------
 id     | bigint                |           | not null | 
 name   | character varying(20) |           |          | 
 qty    | integer               |           | not null | 0
Indexes:
    "ra_c_pk" PRIMARY KEY, btree (id)

"""


def catalog(dsn):
    c = connect(dsn)
    c.execute("DROP TABLE IF EXISTS ra_c, ra_c2")
    c.execute("CREATE TABLE ra_c (id int, name text, junk int, qty int)")
    c.execute("INSERT INTO ra_c VALUES (2, 'b', 0, 5), (1, 'a', 0, 6)")
    c.execute("ALTER TABLE ra_c DROP COLUMN junk")
    # (PostgreSQL keeps a dropped column's number, Cadenza renumbers the
    # columns after it: positions are compared in order only)
    got = [r[:1] + r[2:] for r in columns(c, "ra_c")]
    check("catalog after DROP COLUMN: information_schema.columns",
          got == [("id", "integer", "YES", None), ("name", "text", "YES", None),
                  ("qty", "integer", "YES", None)], repr(got))
    c.execute("ALTER TABLE ra_c ADD CONSTRAINT ra_c_pk PRIMARY KEY (id), ALTER qty SET NOT NULL, "
              "ALTER qty SET DEFAULT 0, ALTER COLUMN id TYPE bigint")
    got = [r[:1] + r[2:] for r in columns(c, "ra_c")]
    check("catalog after ADD PRIMARY KEY, SET NOT NULL, SET DEFAULT, TYPE",
          got == [("id", "bigint", "NO", None), ("name", "text", "YES", None),
                  ("qty", "integer", "NO", "0")], repr(got))
    got = [(r[0], r[2]) for r in attrs(c, "ra_c")]
    check("catalog: pg_attribute", got == [("id", True), ("name", False), ("qty", True)],
          repr(got))
    c.execute("ALTER TABLE ra_c ALTER name TYPE varchar(20)")
    got = [r for r in cons(c, "ra_c") if r[1] == "p"]
    check("catalog: pg_constraint of the key", got == [("ra_c_pk", "p")], repr(got))
    got = c.execute("SELECT i.indisprimary, i.indisunique FROM pg_index i JOIN pg_class r "
                    "ON i.indexrelid = r.oid WHERE r.relname = 'ra_c_pk'").fetchall()
    check("catalog: pg_index of the key", got == [(True, True)], repr(got))
    out = psql_d(dsn, "ra_c")
    if out is not None:
        check("psql \\d after the ALTERs", out == PSQL_D, "got:\n" + out)
    c.execute("ALTER TABLE ra_c ADD UNIQUE (name)")
    got = c.execute("SELECT indexname FROM pg_indexes WHERE tablename = 'ra_c' "
                    "ORDER BY 1").fetchall()
    check("catalog: the unique constraint's index", got == [("ra_c_name_key",), ("ra_c_pk",)],
          repr(got))
    c.execute("ALTER TABLE ra_c RENAME TO ra_c2")
    got = c.execute("SELECT relname FROM pg_class WHERE relname IN ('ra_c', 'ra_c2')").fetchall()
    check("catalog: pg_class after RENAME TO", got == [("ra_c2",)], repr(got))
    c.execute("ALTER TABLE ra_c2 DROP CONSTRAINT ra_c_pk")
    got = [r for r in cons(c, "ra_c2") if r[1] == "p"]
    check("catalog: the key dropped", got == [], repr(got))
    got = columns(c, "ra_c2")[0]
    check("catalog: its column stays NOT NULL", got[3] == "NO", repr(got))
    c.execute("DROP TABLE ra_c2")
    c.close()


def snapshot(c, table):
    return (columns(c, table), attrs(c, table), cons(c, table),
            c.execute("SELECT * FROM %s ORDER BY 1" % table).fetchall(),
            c.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s ORDER BY 1",
                      (table,)).fetchall())


def rollback(dsn):
    c = connect(dsn)
    c.execute("DROP TABLE IF EXISTS ra_r")
    c.execute("CREATE TABLE ra_r (id int PRIMARY KEY, v text UNIQUE, n numeric(8,2) DEFAULT 1.5)")
    c.execute("INSERT INTO ra_r SELECT g, 'v' || g, g / 4.0 FROM generate_series(1, 3000) g")
    c.execute("CREATE INDEX ra_r_n ON ra_r (n)")
    before = snapshot(c, "ra_r")
    c.execute("BEGIN")
    c.execute("ALTER TABLE ra_r DROP COLUMN v, ADD COLUMN w int DEFAULT 3")
    c.execute("ALTER TABLE ra_r ALTER n TYPE float8, DROP CONSTRAINT ra_r_pkey")
    c.execute("ALTER TABLE ra_r RENAME COLUMN id TO ident")
    c.execute("INSERT INTO ra_r VALUES (1, 2.0, 4)")
    c.execute("ROLLBACK")
    after = snapshot(c, "ra_r")
    check("rollback restores the table exactly", before == after,
          "first difference in part %s" % [i for i in range(len(before)) if before[i] != after[i]])
    st, _, _, _ = err_of(c, "INSERT INTO ra_r VALUES (1, 'again', 0)")
    check("rollback: the key refuses a duplicate again", st == "23505", st)
    # a savepoint undone inside a block
    c.execute("BEGIN")
    c.execute("ALTER TABLE ra_r ADD COLUMN s int DEFAULT 1")
    c.execute("SAVEPOINT sp")
    c.execute("ALTER TABLE ra_r DROP COLUMN s, DROP COLUMN v")
    c.execute("ROLLBACK TO SAVEPOINT sp")
    got = [r[0] for r in columns(c, "ra_r")]
    c.execute("COMMIT")
    check("rollback to a savepoint keeps the ALTER before it", got == ["id", "v", "n", "s"],
          repr(got))
    got = c.execute("SELECT count(*), sum(s) FROM ra_r").fetchone()
    check("and its rows", tuple(got) == (3000, 3000), repr(got))
    c.execute("DROP TABLE ra_r")
    c.close()


def online(dsn, kind):
    if kind != "cadenza":
        return
    c = connect(dsn)
    c.execute("DROP TABLE IF EXISTS ra_o")
    c.execute("CREATE TABLE ra_o (id int, v text)")
    c.execute("INSERT INTO ra_o SELECT g, repeat('x', 50) FROM generate_series(1, 100000) g")
    done = {}

    def alter():
        with connect(dsn) as a:
            a.execute("BEGIN")
            a.execute("ALTER TABLE ra_o ADD PRIMARY KEY (id), ADD COLUMN w int DEFAULT 1")
            done["altered"] = time.time()
            time.sleep(1.0)  # the block stays open: writers still refused
            a.execute("COMMIT")
            done["committed"] = time.time()

    th = threading.Thread(target=alter)
    th.start()
    while "altered" not in done and th.is_alive():
        time.sleep(0.01)
    t0 = time.time()
    n = c.execute("SELECT count(*) FROM ra_o").fetchone()[0]
    waited = time.time() - t0
    check("online: a reader is not blocked by an open ALTER",
          n == 100000 and "committed" not in done, "%d rows, %.2f s" % (n, waited))
    st, m, _, _ = err_of(c, "INSERT INTO ra_o VALUES (0, 'w')")
    check("online: a writer is refused with 40001 until the ALTER ends",
          st == "40001" and "committed" not in done, "%s %s" % (st, m))
    th.join()
    cols = [r[0] for r in columns(c, "ra_o")]
    check("online: after the commit the new version", cols == ["id", "v", "w"], repr(cols))
    c.execute("INSERT INTO ra_o VALUES (0, 'w', 2)")
    c.execute("DROP TABLE ra_o")
    c.close()


def unsupported(dsn, kind):
    if kind != "cadenza":
        return
    c = connect(dsn)
    c.execute("DROP TABLE IF EXISTS ra_s")
    c.execute("CREATE TABLE ra_s (a int)")
    st, m, _, _ = err_of(c, "ALTER TABLE ra_s DROP COLUMN a")
    check("0A000 dropping the last column (no tables without columns)",
          st == "0A000" and "without columns" in m, "%s %r" % (st, m))
    check("session alive after 0A000", checks.answers(c), "no answer")
    c.execute("DROP TABLE ra_s")
    c.close()


def dependents(dsn):
    """A serial column whose sequence another default uses: 2BP01, then
    CASCADE drops those defaults (PostgreSQL's words)."""
    c = connect(dsn)
    c.execute("DROP TABLE IF EXISTS ra_dt, ra_du")
    c.execute("CREATE TABLE ra_dt (id serial, a int)")
    c.execute("CREATE TABLE ra_du (x int DEFAULT nextval('ra_dt_id_seq'))")
    st, m, d, h = err_of(c, "ALTER TABLE ra_dt DROP COLUMN id")
    check("2BP01 dropping a serial column whose sequence another default uses",
          st == "2BP01" and m == "cannot drop column id of table ra_dt because other objects depend on it"
          and d == "default value for column x of table ra_du depends on sequence ra_dt_id_seq"
          and h == "Use DROP ... CASCADE to drop the dependent objects too.",
          "%s %r %r %r" % (st, m, d, h))
    c.execute("ALTER TABLE ra_dt DROP COLUMN id CASCADE")
    got = c.execute("SELECT column_default FROM information_schema.columns "
                    "WHERE table_name = 'ra_du'").fetchall()
    check("CASCADE drops the other default", got == [(None,)], repr(got))
    got = c.execute("SELECT count(*) FROM pg_class WHERE relname = 'ra_dt_id_seq'").fetchone()[0]
    check("and the sequence", got == 0, repr(got))
    c.execute("DROP TABLE ra_dt, ra_du")
    c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    for part in (sqlstates, catalog, rollback, dependents):
        try:
            part(a.dsn)
        except Exception as ex:  # noqa: BLE001 - report and go on
            check(part.__name__, False, "%s: %s" % (type(ex).__name__, ex))
    for part in (online, unsupported):
        try:
            part(a.dsn, a.kind)
        except Exception as ex:  # noqa: BLE001
            check(part.__name__, False, "%s: %s" % (type(ex).__name__, ex))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

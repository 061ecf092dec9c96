#!/usr/bin/env python3
"""Regression (issue 9, items 1-3, 5): tables stored column-wise from SQL.
WITH (layout = column | row) on CREATE TABLE and its errors (PostgreSQL's
22023 wording for an unknown parameter or value, 0A000 for what the
column layout cannot hold yet); the layout shown by pg_class.reloptions,
pg_indexes.indexdef and EXPLAIN's scan line; a column table and a row table given the same
rows, inserts (VALUES, INSERT … SELECT, COPY), updates (of the key too),
deletes, ON CONFLICT, a foreign key into the column table and a
secondary index answer every query alike (ranges, point lookups,
predicates pushed to the compressed runs, descending orders, a table
without primary key); another session never sees an uncommitted change
and sees the committed value meanwhile; pg_relation_size counts the
column tree's run pages. Long values (rows over 2 KB): TEXT and BYTEA
values of 0 B to 2 MB (BYTEA starting with the mark byte 0xFF), rows of
many mid-sized strings, selected, searched (pushed and not), updated
(another column, the long one, long to short and back), deleted, rolled
back and hidden from another session while uncommitted, answer as in a
row table.
Usage: regress_column.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import io
import os
import random
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

QUERIES = [
    "SELECT * FROM {t} ORDER BY id",
    "SELECT count(*), sum(qty), min(name), max(name), sum(price) FROM {t}",
    "SELECT id, name FROM {t} WHERE id = 77",
    "SELECT id FROM {t} WHERE id BETWEEN 100 AND 180 ORDER BY id",
    "SELECT id FROM {t} WHERE id > 1900 ORDER BY id",
    "SELECT id, qty FROM {t} WHERE qty = 3 ORDER BY id",
    "SELECT id FROM {t} WHERE qty IN (1, 5, 7) AND price >= 50 ORDER BY id",
    "SELECT id FROM {t} WHERE name < 'n3' ORDER BY id",
    "SELECT id FROM {t} WHERE note IS NULL ORDER BY id",
    "SELECT id FROM {t} WHERE note IS NOT NULL AND flag ORDER BY id",
    "SELECT id FROM {t} WHERE qty NOT IN (2, 4) ORDER BY id",
    "SELECT id, name FROM {t} ORDER BY id DESC LIMIT 5",
    "SELECT qty, count(*) FROM {t} GROUP BY qty ORDER BY qty",
    "SELECT id FROM {t} WHERE d < date '2021-01-01' ORDER BY id",
]


def differences(cur, queries):
    """The queries whose answers on rg_col differ from rg_row's."""
    bad = []
    for q in queries:
        cur.execute(q.format(t="rg_col"))
        got = cur.fetchall()
        cur.execute(q.format(t="rg_row"))
        want = cur.fetchall()
        if got != want:
            bad.append("%s: %d rows vs %d" % (q, len(got), len(want)))
    return bad


def same_answers(cur, label):
    bad = differences(cur, QUERIES)
    check("column table answers as the row table (%s)" % label, not bad, "; ".join(bad[:3]))


DOC_QUERIES = [
    "SELECT id, title, length(body), md5(body), length(blob), md5(blob), v FROM {t} ORDER BY id",
    "SELECT id FROM {t} ORDER BY id",
    "SELECT id, title FROM {t} WHERE body = repeat('ab', 2500) ORDER BY id",
    "SELECT id FROM {t} WHERE body LIKE '%zz%' ORDER BY id",
    "SELECT id FROM {t} WHERE body > 'ab' AND body < 'ac' ORDER BY id",
    "SELECT id FROM {t} WHERE title = 't3' OR title IN ('t5', 't7') ORDER BY id",
    "SELECT id FROM {t} WHERE blob = '\\xff00ff'::bytea ORDER BY id",
    "SELECT id, md5(blob) FROM {t} WHERE blob >= '\\xff'::bytea AND blob < '\\xff80'::bytea ORDER BY id",
    "SELECT id, s1, s2, s3, s4, s5, s6, s7, s8 FROM {t} ORDER BY id",
    "SELECT count(*), sum(length(body)), max(title) FROM {t}",
    "SELECT id, md5(body) FROM {t} WHERE id IN (2, 5, 9) ORDER BY id",
]


def same_docs(cur, label):
    bad = []
    for q in DOC_QUERIES:
        cur.execute(q.format(t="rg_coldoc"))
        got = cur.fetchall()
        cur.execute(q.format(t="rg_rowdoc"))
        want = cur.fetchall()
        if got != want or not want and "count" in q:
            bad.append("%s: %d rows vs %d %r" % (q, len(got), len(want), (got[:2], want[:2])))
    check("column table with long values answers as the row table (%s)" % label, not bad,
          "; ".join(bad[:2])[:600])


def long_values(c, cur, dsn):
    for t in ("rg_coldoc", "rg_rowdoc"):
        cur.execute("DROP TABLE IF EXISTS %s" % t)
    cols = ("id int PRIMARY KEY, title text, body text, blob bytea, v varchar(10), "
            "s1 text, s2 text, s3 text, s4 text, s5 text, s6 text, s7 text, s8 text")
    cur.execute("CREATE TABLE rg_coldoc (%s) WITH (layout = column)" % cols)
    cur.execute("CREATE TABLE rg_rowdoc (%s) WITH (layout = row)" % cols)
    rnd = random.Random(11)
    rows = []
    sizes = [0, 10, 999, 1000, 1001, 1900, 5000, 100000, 2000000]
    for i, n in enumerate(sizes * 2):
        body = "".join(rnd.choice("abz") for _ in range(min(n, 3000)))
        body = (body * (n // 3000 + 1))[:n] if n > 3000 else body
        if i == 4:
            body = "ab" * 2500
        blob = bytes([0xFF]) + bytes(rnd.randrange(256) for _ in range(n % 3000 + i))
        if i == 6:
            blob = b"\xff\x00\xff"
        mids = ["m%d-" % i + "q" * 290] * 8 if i % 3 == 0 else ["s%d" % i] * 8
        rows.append((i, "t%d" % i, body, blob, "v%d" % i, *mids))
    ins = "INSERT INTO %s VALUES (" + ", ".join(["%%s"] * 13) + ")"
    for t in ("rg_coldoc", "rg_rowdoc"):
        cur.executemany(ins % t, rows[:9])
        cur.execute("INSERT INTO %s SELECT id + 100, title, body, blob, v, s1, s2, s3, s4, s5, s6, "
                    "s7, s8 FROM %s WHERE id < 9" % (t, t))
        cur.executemany(ins % t, rows[9:])
    same_docs(cur, "inserted")
    cur.execute("SELECT count(*) FROM rg_coldoc WHERE length(body) > 1000")
    check("rows over 2 KB stored in a column table", cur.fetchone()[0] > 0)
    for t in ("rg_coldoc", "rg_rowdoc"):
        cur.execute("UPDATE %s SET title = title || 'x' WHERE id %% 2 = 0" % t)
        cur.execute("UPDATE %s SET body = 'short' WHERE id = 7" % t)
        cur.execute("UPDATE %s SET body = repeat('zz', 40000) WHERE id = 1" % t)
        cur.execute("UPDATE %s SET body = body || 'tail' WHERE id = 8" % t)
        cur.execute("UPDATE %s SET id = id + 1000 WHERE id = 106" % t)
        cur.execute("DELETE FROM %s WHERE id IN (5, 105)" % t)
        cur.execute("CREATE INDEX %s_title ON %s (title) INCLUDE (v)" % (t, t))
    same_docs(cur, "updated, deleted, indexed")
    # a rolled-back transaction and another session's uncommitted change
    with psycopg.connect(dsn) as w:
        w.execute("UPDATE rg_coldoc SET body = repeat('y', 300000) WHERE id = 2")
        w.execute("INSERT INTO rg_coldoc (id, title, body) VALUES (500, 'new', repeat('n', 9000))")
        w.execute("DELETE FROM rg_coldoc WHERE id = 3")
        cur.execute("SELECT id, md5(body) FROM rg_coldoc WHERE id IN (2, 3, 500) ORDER BY id")
        seen = cur.fetchall()
        cur.execute("SELECT id, md5(body) FROM rg_rowdoc WHERE id IN (2, 3, 500) ORDER BY id")
        want = cur.fetchall()
        check("another session's uncommitted long values stay hidden", seen == want,
              repr((seen, want)))
        w.rollback()
    same_docs(cur, "after a rollback")
    st = checks.error_fields(c, "INSERT INTO rg_coldoc (id, title) VALUES (900, repeat('k', 2000))"
                                " ON CONFLICT DO NOTHING")
    st2 = checks.error_fields(c, "INSERT INTO rg_rowdoc (id, title) VALUES (900, repeat('k', 2000))"
                                 " ON CONFLICT DO NOTHING")
    check("a long indexed key fails alike (54000)", st[0] == st2[0] == "54000", repr((st, st2)))
    for t in ("rg_coldoc", "rg_rowdoc"):
        cur.execute("DROP TABLE %s" % t)


IX_QUERIES = [
    "SELECT name, qty FROM {t} WHERE name = 'n5' ORDER BY 1, 2",
    "SELECT name, qty FROM {t} WHERE name BETWEEN 'n10' AND 'n12' ORDER BY 1, 2",
    "SELECT id, name FROM {t} WHERE name >= 'n98' ORDER BY name, id",
    "SELECT name FROM {t} WHERE name < 'n1' ORDER BY name DESC, id DESC LIMIT 7",
    "SELECT id, f FROM {t} WHERE f > 2990 ORDER BY f",
    "SELECT id, price FROM {t} WHERE d = date '2020-03-03' ORDER BY id",
    "SELECT count(*) FROM {t} WHERE name > 'n5'",
    "SELECT a.id, b.qty FROM {t} a JOIN {t} b ON a.name = b.name WHERE a.id < 40 ORDER BY 1, 2",
    "SELECT name, qty, price, note FROM {t} WHERE name > 'n97' ORDER BY name, qty, price, note",
]


def same_ix(cur, label):
    bad = differences(cur, IX_QUERIES)
    check("column-wise secondary indexes answer as row ones (%s)" % label, not bad,
          "; ".join(bad[:3]))


def column_indexes(c, cur, dsn):
    """CREATE INDEX … WITH (layout = column): non-unique with INCLUDE,
    unique, on a date; kept by inserts, updates, deletes, rollbacks and
    savepoints; shown in pg_indexes, \\d's catalog and EXPLAIN."""
    for t, w in (("rg_col", "WITH (layout = column)"), ("rg_row", "")):
        cur.execute("UPDATE %s SET f = id * 1.5" % t)
        cur.execute("CREATE INDEX %s_name ON %s (name) INCLUDE (qty, price, note) %s" % (t, t, w))
        cur.execute("CREATE UNIQUE INDEX %s_f ON %s (f) %s" % (t, t, w))
        cur.execute("CREATE INDEX %s_d ON %s (d) %s" % (t, t, w))
    cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'rg_col' "
                "AND indexname IN ('rg_col_name', 'rg_col_f') ORDER BY 1")
    got = cur.fetchall()
    check("pg_indexes shows a column-wise secondary index",
          got == [("rg_col_f", "CREATE UNIQUE INDEX rg_col_f ON public.rg_col USING btree (f) "
                               "WITH (layout=column)"),
                  ("rg_col_name", "CREATE INDEX rg_col_name ON public.rg_col USING btree (name) "
                                  "INCLUDE (qty, price, note) WITH (layout=column)")], repr(got))
    cur.execute("SELECT c.relname, c.reloptions FROM pg_class c WHERE c.relname IN "
                "('rg_col_name', 'rg_row_name') ORDER BY 1")
    got = cur.fetchall()
    check("pg_class.reloptions of a column index (psql \\d)",
          got == [("rg_col_name", ["layout=column"]), ("rg_row_name", None)], repr(got))
    cur.execute("SELECT pg_relation_size('rg_col_name') > 0, pg_indexes_size('rg_col') > "
                "pg_relation_size('rg_col_pkey')")
    got = cur.fetchone()
    check("column index sizes are counted", got == (True, True), repr(got))
    same_ix(cur, "built")
    st = checks.error_fields(c, "INSERT INTO rg_col SELECT id + 20000, name, qty, price, flag, "
                                "note, d, f FROM rg_col WHERE id = 9")
    check("a duplicate in a unique column index is 23505", st[0] == "23505", repr(st))
    for t in ("rg_col", "rg_row"):
        cur.execute("INSERT INTO %s SELECT id + 30000, name || 'i', qty, price, flag, note, d, "
                    "f + 1000 FROM %s WHERE id %% 5 = 0" % (t, t))
        cur.execute("UPDATE %s SET name = name || 'u', qty = qty + 1 WHERE id %% 9 = 1" % t)
        cur.execute("UPDATE %s SET f = f + 5000 WHERE id %% 13 = 2" % t)
        cur.execute("DELETE FROM %s WHERE id %% 17 = 4" % t)
        cur.execute("INSERT INTO %s VALUES (44444, 'n5', 1, 2, true, null, '2020-03-03', 99.5) "
                    "ON CONFLICT (f) DO UPDATE SET name = 'f-conflict'" % t)
        cur.execute("INSERT INTO %s VALUES (44445, 'n5', 1, 2, true, null, '2020-03-03', 99.5) "
                    "ON CONFLICT (f) DO UPDATE SET name = 'f-conflict'" % t)
        cur.execute("BEGIN")
        cur.execute("UPDATE %s SET name = 'n5' WHERE id < 100" % t)
        cur.execute("SAVEPOINT s")
        cur.execute("DELETE FROM %s WHERE name = 'n5' AND id > 2" % t)
        cur.execute("ROLLBACK TO SAVEPOINT s")
        cur.execute("INSERT INTO %s SELECT id + 60000, 'sp', qty, price, flag, note, d, f + 9000 "
                    "FROM %s WHERE id < 50" % (t, t))
        cur.execute("ROLLBACK")
    same_ix(cur, "after writes, ON CONFLICT, savepoints and rollbacks")
    with psycopg.connect(dsn) as w:
        w.execute("UPDATE rg_col SET name = 'zz-uncommitted' WHERE id = 10")
        w.execute("INSERT INTO rg_col VALUES (55555, 'zz-new', 1, 2, true, null, '2020-03-03', 7777.5)")
        cur.execute("SELECT count(*) FROM rg_col WHERE name >= 'zz'")
        n = cur.fetchone()[0]
        check("another session's uncommitted index entries stay hidden", n == 0, repr(n))
        w.rollback()
    cur.execute("EXPLAIN SELECT name, qty FROM rg_col WHERE name = 'n5'")
    plan = "\n".join(r[0] for r in cur.fetchall())
    check("EXPLAIN reads the column index and says so",
          "rg_col_name" in plan and "column-wise" in plan, plan)
    same_answers(cur, "with column indexes")
    # a covering scan of a column index returning INCLUDE strings row after row
    cur.execute("CREATE TABLE rg_colinc (k int PRIMARY KEY, g int, name varchar(20)) "
                "WITH (layout = column)")
    cur.execute("INSERT INTO rg_colinc SELECT x, x % 7, 'n' || x FROM generate_series(0, 999) x")
    cur.execute("CREATE INDEX rg_colinc_g ON rg_colinc (g, k) INCLUDE (name)")
    cur.execute("EXPLAIN SELECT k, name FROM rg_colinc WHERE g = 0 AND k > 970 ORDER BY k")
    plan = "\n".join(r[0] for r in cur.fetchall())
    cur.execute("SELECT k, name FROM rg_colinc WHERE g = 0 AND k > 970 ORDER BY k")
    got = cur.fetchall()
    check("INCLUDE strings of a column index (covering scan)",
          "rg_colinc_g column-wise" in plan and
          got == [(k, "n%d" % k) for k in range(971, 1000) if k % 7 == 0], repr((got, plan)))
    cur.execute("DROP TABLE rg_colinc")
    for t in ("rg_col", "rg_row"):
        cur.execute("DROP INDEX %s_f" % t)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    if a.kind != "cadenza":
        return checks.skip("the layout storage parameter is Cadenza's (PostgreSQL rejects it)")
    with psycopg.connect(a.dsn, autocommit=True) as c:
        cur = c.cursor()
        for t in ("rg_colref", "rg_col", "rg_row", "rg_colnk", "rg_colbad"):
            cur.execute("DROP TABLE IF EXISTS %s" % t)

        # ---- the clause and its errors
        st = checks.error_fields(c, "CREATE TABLE rg_colbad (a int) WITH (fillfactor = 10)")
        check("unknown parameter is 22023", st[:2] == ("22023", 'unrecognized parameter "fillfactor"'),
              repr(st))
        st = checks.error_fields(c, "CREATE TABLE rg_colbad (a int) WITH (layout = diagonal)")
        check("bad layout is 22023",
              st[:2] == ("22023", 'invalid value for enum option "layout": diagonal'), repr(st))
        st = checks.error_fields(c, "CREATE TABLE rg_colbad (a int) WITH (layout = row, layout = row)")
        check("repeated parameter is 22023", st[0] == "22023", repr(st))
        st = checks.error_fields(c, "CREATE TABLE rg_colbad (a interval) WITH (layout = column)")
        check("interval column in a column table is 0A000", st[0] == "0A000", repr(st))

        cols = ("id int PRIMARY KEY, name text NOT NULL, qty int, price numeric(10,2), "
                "flag boolean, note varchar(20), d date, f float8")
        cur.execute("CREATE TABLE rg_col (%s) WITH (layout = column)" % cols)
        cur.execute("CREATE TABLE rg_row (%s) WITH (layout = row)" % cols)
        cur.execute("SELECT relname, reloptions FROM pg_class "
                    "WHERE relname IN ('rg_col', 'rg_row', 'rg_col_pkey') ORDER BY relname")
        got = cur.fetchall()
        check("pg_class.reloptions shows the layout",
              got == [("rg_col", ["layout=column"]), ("rg_col_pkey", ["layout=column"]),
                      ("rg_row", None)], repr(got))
        cur.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'rg_col_pkey'")
        got = cur.fetchone()[0]
        check("pg_indexes.indexdef shows WITH (layout=column)",
              got == "CREATE UNIQUE INDEX rg_col_pkey ON public.rg_col USING btree (id) "
                     "WITH (layout=column)", got)

        cur.execute("EXPLAIN SELECT name FROM rg_col WHERE qty = 3")
        got = "\n".join(r[0] for r in cur.fetchall())
        check("EXPLAIN's scan line says column-wise",
              "Scan  rg_col column-wise pushed: qty = 3" in got, got)
        cur.execute("EXPLAIN SELECT name FROM rg_row WHERE qty = 3")
        got = "\n".join(r[0] for r in cur.fetchall())
        check("EXPLAIN's scan line of a row table", "column-wise" not in got, got)

        # ---- the same rows into both
        rnd = random.Random(9)
        rows = []
        for i in range(1, 1501):
            rows.append((i, "n%d" % rnd.randrange(1000), rnd.randrange(8),
                         "%d.%02d" % (rnd.randrange(100), rnd.randrange(100)),
                         rnd.random() < 0.5, None if rnd.random() < 0.3 else "x%d" % (i % 7),
                         "2020-%02d-%02d" % (rnd.randrange(1, 13), rnd.randrange(1, 29)),
                         rnd.random() * 100))
        for t in ("rg_col", "rg_row"):
            cur.executemany("INSERT INTO %s VALUES (%%s, %%s, %%s, %%s, %%s, %%s, %%s, %%s)" % t,
                            rows[:300])
            # from the table itself: the statement does not meet its own rows
            cur.execute("INSERT INTO %s SELECT id + 300, name, qty, price, flag, note, d, f "
                        "FROM %s" % (t, t))
            buf = io.StringIO()
            for r in rows[600:]:
                buf.write("\t".join("\\N" if v is None else ("t" if v is True else "f" if v is False
                                                              else str(v)) for v in r) + "\n")
            with cur.copy("COPY %s FROM STDIN" % t) as cp:
                cp.write(buf.getvalue())
        same_answers(cur, "after inserts and COPY")

        for t in ("rg_col", "rg_row"):
            cur.execute("UPDATE %s SET qty = qty + 1, note = 'u' WHERE id %% 7 = 0" % t)
            cur.execute("UPDATE %s SET id = id + 5000 WHERE id BETWEEN 50 AND 60" % t)
            cur.execute("DELETE FROM %s WHERE id %% 11 = 3" % t)
            cur.execute("INSERT INTO %s VALUES (1, 'dup', 0, 0, true, null, '2020-01-01', 0) "
                        "ON CONFLICT (id) DO UPDATE SET name = 'conflict'" % t)
            cur.execute("INSERT INTO %s VALUES (3, 'dup', 0, 0, true, null, '2020-01-01', 0) "
                        "ON CONFLICT DO NOTHING" % t)
            cur.execute("CREATE INDEX %s_qty ON %s (qty)" % (t, t))
        same_answers(cur, "after updates, deletes, ON CONFLICT and an index")
        st = checks.error_fields(c, "INSERT INTO rg_col VALUES (2, 'x', 0, 0, true, null, "
                                    "'2020-01-01', 0)")
        check("duplicate key in a column table is 23505",
              st[:2] == ("23505", 'duplicate key value violates unique constraint "rg_col_pkey"'),
              repr(st))
        st = checks.error_fields(c, "INSERT INTO rg_col (id) VALUES (99999)")
        check("NOT NULL in a column table is 23502", st[0] == "23502", repr(st))

        # ---- a foreign key into the column table
        cur.execute("CREATE TABLE rg_colref (r int REFERENCES rg_col (id)) WITH (layout = column)")
        cur.execute("INSERT INTO rg_colref VALUES (1), (2)")
        st = checks.error_fields(c, "INSERT INTO rg_colref VALUES (99998)")
        check("foreign key probe into a column table", st[0] == "23503", repr(st))

        # ---- no primary key (hidden row ids)
        cur.execute("CREATE TABLE rg_colnk (a int, b text) WITH (layout = column)")
        cur.execute("INSERT INTO rg_colnk SELECT g % 5, 'v' || g FROM generate_series(1, 300) g")
        cur.execute("DELETE FROM rg_colnk WHERE a = 0")
        cur.execute("UPDATE rg_colnk SET b = 'w' WHERE a = 1")
        cur.execute("SELECT a, count(*), min(b) FROM rg_colnk GROUP BY a ORDER BY a")
        got = cur.fetchall()
        check("a column table without primary key", got == [(1, 60, "w"), (2, 60, "v102"),
                                                            (3, 60, "v103"), (4, 60, "v104")],
              repr(got))

        # ---- another session's uncommitted changes
        with psycopg.connect(a.dsn) as w:
            w.execute("UPDATE rg_col SET name = 'uncommitted' WHERE id = 2")
            w.execute("INSERT INTO rg_col VALUES (77777, 'new', 1, 1, true, null, '2020-01-01', 1)")
            w.execute("DELETE FROM rg_col WHERE id = 4")
            cur.execute("SELECT name FROM rg_col WHERE id = 2")
            n2 = cur.fetchone()[0]
            cur.execute("SELECT count(*) FROM rg_col WHERE id IN (4, 77777)")
            n = cur.fetchone()[0]
            cur.execute("SELECT count(*) FROM rg_col WHERE name = 'uncommitted'")
            pushed = cur.fetchone()[0]
            check("uncommitted changes stay out of a column scan",
                  n2 != "uncommitted" and n == 1 and pushed == 0, repr((n2, n, pushed)))
            w.rollback()
        same_answers(cur, "after another session's rollback")
        column_indexes(c, cur, a.dsn)

        # ---- long values (the row layout's limits, out of line)
        long_values(c, cur, a.dsn)

        # ---- sizes: the run pages count
        cur.execute("SELECT pg_relation_size('rg_col'), pg_total_relation_size('rg_col')")
        size, total = cur.fetchone()
        cur.execute("INSERT INTO rg_col SELECT g, md5(g::text) || md5((g * 7)::text), 1, 1, "
                    "true, null, '2020-01-01', 1 FROM generate_series(100000, 104000) g")
        cur.execute("SELECT pg_relation_size('rg_col')")
        grown = cur.fetchone()[0]
        check("pg_relation_size counts run pages", 0 < size <= total and grown > size + 8192 * 10,
              repr((size, total, grown)))

        for t in ("rg_colref", "rg_col", "rg_row", "rg_colnk"):
            cur.execute("DROP TABLE %s" % t)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

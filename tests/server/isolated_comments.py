#!/usr/bin/env python3
"""isolated_comments — COMMENT ON (issue 11 item 6) kept in the catalog:
PostgreSQL's SQLSTATE and words for each error, psql's `\\d+` showing the
column descriptions as PostgreSQL's does, and the descriptions kept across
a clean restart and a kill -9 (a committed COMMENT survives, one of a
transaction open at the kill does not). The script runs on both.

Usage: isolated_comments.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import subprocess
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, sqlstate_of  # noqa: E402

SETUP = [
    "CREATE TABLE ic_t (id integer PRIMARY KEY, name text, CONSTRAINT ic_chk CHECK (id > 0))",
    "CREATE INDEX ic_i ON ic_t (name)",
    "CREATE VIEW ic_v AS SELECT id, name FROM ic_t",
    "CREATE SEQUENCE ic_s",
    "COMMENT ON TABLE ic_t IS 'the table'",
    "COMMENT ON COLUMN ic_t.id IS 'the key'",
    "COMMENT ON COLUMN ic_t.name IS 'a name'",
    "COMMENT ON VIEW ic_v IS 'the view'",
    "COMMENT ON INDEX ic_i IS 'the index'",
    "COMMENT ON SEQUENCE ic_s IS 'the sequence'",
    "COMMENT ON CONSTRAINT ic_chk ON ic_t IS 'positive'",
]

ALL = ("SELECT obj_description('ic_t'::regclass, 'pg_class'), col_description('ic_t'::regclass, 1), "
       "col_description('ic_t'::regclass, 2), obj_description('ic_v'::regclass, 'pg_class'), "
       "obj_description('ic_i'::regclass, 'pg_class'), obj_description('ic_s'::regclass, 'pg_class'), "
       "(SELECT d.description FROM pg_description d JOIN pg_constraint c ON c.oid = d.objoid "
       "WHERE c.conname = 'ic_chk')")
WANT = ("the table", "the key", "a name", "the view", "the index", "the sequence", "positive")

ERRORS = [
    ("COMMENT ON TABLE ic_nosuch IS 'x'", "42P01", 'relation "ic_nosuch" does not exist'),
    ("COMMENT ON TABLE ic_v IS 'x'", "42809", '"ic_v" is not a table'),
    ("COMMENT ON VIEW ic_t IS 'x'", "42809", '"ic_t" is not a view'),
    ("COMMENT ON INDEX ic_t IS 'x'", "42809", '"ic_t" is not an index'),
    ("COMMENT ON SEQUENCE ic_t IS 'x'", "42809", '"ic_t" is not a sequence'),
    ("COMMENT ON COLUMN ic_t.nosuch IS 'x'", "42703", 'column "nosuch" of relation "ic_t" does not exist'),
    ("COMMENT ON CONSTRAINT nosuch ON ic_t IS 'x'", "42704",
     'constraint "nosuch" for table "ic_t" does not exist'),
    ("COMMENT ON SCHEMA ic_nosuch IS 'x'", "3F000", 'schema "ic_nosuch" does not exist'),
    ("TRUNCATE ic_v", "42809", '"ic_v" is not a table'),
    ("TRUNCATE ic_nosuch", "42P01", 'relation "ic_nosuch" does not exist'),
]

DPLUS = """\
                                          Table "public.ic_t"
 Column |  Type   | Collation | Nullable | Default | Storage  | Compression | Stats target | Description 
--------+---------+-----------+----------+---------+----------+-------------+--------------+-------------
 id     | integer |           | not null |         | plain    |             |              | the key
 name   | text    |           |          |         | extended |             |              | a name
Indexes:
    "ic_t_pkey" PRIMARY KEY, btree (id)
    "ic_i" btree (name)
Check constraints:
    "ic_chk" CHECK (id > 0)
Access method: heap
"""


def comments(dsn):
    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as c:
        return tuple(c.execute(ALL).fetchone())


def psql_dplus(srv):
    env = dict(os.environ, **{k: v for k, v in srv.env().items() if k.startswith("PG")})
    r = subprocess.run(["psql", "-X", "-c", "\\d+ ic_t"], env=env, capture_output=True, text=True,
                       timeout=60)
    return r.stdout + r.stderr


def main():
    args = checks.isolated_args()
    srv = checks.isolated_server(args, "comments", both=True)
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as c:
            for sql in SETUP:
                c.execute(sql)
            for sql, want, words in ERRORS:
                st, msg, _ = sqlstate_of(c, sql)
                check("%s: %s" % (sql, want), st == want and msg == words, "%s %s" % (st, msg))
            check("the session answers after", checks.answers(c))
        got = comments(srv.dsn())
        check("the descriptions", got == WANT, repr(got))
        out = psql_dplus(srv)
        norm = lambda t: [line.strip() for line in t.strip().splitlines()]  # noqa: E731
        check("psql \\d+ shows the column descriptions as PostgreSQL's", norm(out) == norm(DPLUS), out)
    with checks.running(srv):
        got = comments(srv.dsn())
        check("the descriptions after a clean restart", got == WANT, repr(got))
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as c:
            c.execute("COMMENT ON TABLE ic_t IS 'committed before the kill'")
            c2 = psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10)
            c2.execute("BEGIN")
            c2.execute("COMMENT ON COLUMN ic_t.name IS 'never committed'")
            srv.kill9()
            try:
                c2.close()
            except psycopg.Error:
                pass
    with checks.running(srv):
        got = comments(srv.dsn())
        want = ("committed before the kill",) + WANT[1:]
        check("after kill -9: the committed COMMENT kept, the open one gone", got == want, repr(got))
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as c:
            c.execute("DROP VIEW ic_v")
            c.execute("DROP TABLE ic_t")
            c.execute("DROP SEQUENCE ic_s")
            n = c.execute("SELECT count(*) FROM pg_description d JOIN pg_class r ON r.oid = d.objoid "
                          "WHERE r.relname LIKE 'ic%'").fetchone()[0]
            check("dropped objects leave no descriptions", n == 0, repr(n))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

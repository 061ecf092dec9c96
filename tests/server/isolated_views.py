#!/usr/bin/env python3
"""Views survive a restart and a crash (issue 11, item 2).

A table, plain views (a view of a view, one WITH CHECK OPTION, a grouped
one), a materialized view (populated) and one WITH NO DATA are made;
after a clean restart every view answers as before (and the check option,
the dependency rule and the unpopulated state still hold). Then, in one
session, a view is created and committed, and in another a view is
created inside a transaction left open; the server is killed with
SIGKILL: after the restart the committed view exists and answers, the
uncommitted one does not, a committed temporary view of a session the
crash ended is gone with its pg_temp schema (Cadenza), and a REFRESH
committed before the crash is
kept. Runs against PostgreSQL 15 too (--kind postgres), the reference.

Usage: isolated_views.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SETUP = [
    "CREATE TABLE iv_t (a int PRIMARY KEY, b text, c int)",
    "INSERT INTO iv_t SELECT g, 'r' || g, g % 3 FROM generate_series(1, 100) g",
    "CREATE VIEW iv_v AS SELECT a, b FROM iv_t WHERE a > 90",
    "CREATE VIEW iv_vv (x) AS SELECT a FROM iv_v WHERE a < 95",
    "CREATE VIEW iv_chk AS SELECT a, c FROM iv_t WHERE c = 1 WITH CHECK OPTION",
    "CREATE VIEW iv_g AS SELECT c, count(*) AS n FROM iv_t GROUP BY c",
    "CREATE MATERIALIZED VIEW iv_m AS SELECT c, sum(a) AS s FROM iv_t GROUP BY c",
    "CREATE MATERIALIZED VIEW iv_mn AS SELECT a FROM iv_t WITH NO DATA",
]

QUERIES = [
    ("SELECT a, b FROM iv_v ORDER BY a", "view"),
    ("SELECT x FROM iv_vv ORDER BY x", "view of a view"),
    ("SELECT count(*) FROM iv_chk", "check-option view"),
    ("SELECT c, n FROM iv_g ORDER BY c", "grouped view"),
    ("SELECT c, s FROM iv_m ORDER BY c", "materialized view"),
    ("SELECT v.a, g.n FROM iv_v v JOIN iv_g g ON g.c = v.a % 3 ORDER BY v.a",
     "views joined"),
]


def answers(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        return {q: c.execute(q).fetchall() for q, _ in QUERIES}


def state(c, sql):
    return checks.sqlstate_of(c, sql)[0]


def main():
    args = checks.isolated_args()
    srv = checks.isolated_server(args, "views", both=True)
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for s in SETUP:
                c.execute(s)
        before = answers(srv.dsn())
        srv.stop()
        srv.start()
        after = answers(srv.dsn())
        for q, what in QUERIES:
            check("restart: %s answers as before" % what, before[q] == after[q],
                  "%r vs %r" % (before[q], after[q]))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            check("restart: check option still holds",
                  state(c, "INSERT INTO iv_chk VALUES (1000, 2)") == "44000")
            check("restart: the dependency rule still holds",
                  state(c, "DROP TABLE iv_t") == "2BP01")
            check("restart: unpopulated still unpopulated",
                  state(c, "SELECT * FROM iv_mn") == "55000")
            c.execute("INSERT INTO iv_chk VALUES (1000, 1)")
            c.execute("REFRESH MATERIALIZED VIEW iv_mn")
            c.execute("CREATE VIEW iv_committed AS SELECT a FROM iv_t WHERE a = 1000")
        before = answers(srv.dsn())
        # a view made in a transaction still open when the server dies
        # a committed temporary view of a session the crash ends (first:
        # the open transaction below holds the DDL lock)
        tmp_c = psycopg.connect(srv.dsn(), autocommit=True)
        tmp_c.execute("CREATE TEMP VIEW tmpiv_v AS SELECT 1 AS one")
        open_c = psycopg.connect(srv.dsn())
        open_c.execute("CREATE VIEW iv_uncommitted AS SELECT 1 AS one")
        srv.kill9()
        for conn in (open_c, tmp_c):
            try:
                conn.close()
            except psycopg.Error:
                pass
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            got = c.execute("SELECT a FROM iv_committed").fetchall()
            check("crash: a committed view exists and answers", got == [(1000,)], got)
            check("crash: an uncommitted view is gone",
                  state(c, "SELECT * FROM iv_uncommitted") == "42P01")
            n = c.execute("SELECT count(*) FROM iv_mn").fetchone()[0]
            check("crash: a committed REFRESH is kept", n == 101, n)
            after = answers(srv.dsn())
            for q, what in QUERIES:
                check("crash: %s answers as before" % what, before[q] == after[q],
                      "%r vs %r" % (before[q], after[q]))
            names = sorted(r[0] for r in c.execute(
                "SELECT viewname FROM pg_views WHERE viewname LIKE 'iv_%'").fetchall())
            check("crash: pg_views", names == ["iv_chk", "iv_committed", "iv_g", "iv_v", "iv_vv"],
                  names)
            if args.kind == "cadenza":  # PostgreSQL clears a dead session's pg_temp lazily
                n = c.execute("SELECT count(*) FROM pg_views WHERE viewname = 'tmpiv_v'").fetchone()[0]
                check("crash: a temporary view of a session the crash ended is gone (cadenza)",
                      n == 0, n)
                n = c.execute("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'"
                              ).fetchone()[0]
                check("crash: its pg_temp schema too (cadenza)", n == 0, n)
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""isolated_sqlfeat — the rest of the query language (issue 8, item 6:
WITH RECURSIVE, LATERAL, DISTINCT ON, GROUPING SETS) ends with the right
SQLSTATE, stays within MaxQueryMem and stops on cancel.

A server with a small MaxQueryMem (32M): every invalid form of the four
features gets PostgreSQL's SQLSTATE (checked against PostgreSQL 15 with
--kind postgres); an infinite UNION ALL recursion streams in bounded
memory until statement_timeout or a cancel request stops it (57014, well
within 2.5 s); on Cadenza an infinite UNION recursion (whose set of rows
seen grows) and grouping sets over an input past the budget end with
53200, and the server answers after each.

Usage: isolated_sqlfeat.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import sys
import threading

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import answers, check, sqlstate_of  # noqa: E402

QUERY_MEM = 32 << 20
LIMIT_S = 2.5

SETUP = [
    "DROP TABLE IF EXISTS sf_t",
    "CREATE TABLE sf_t (id INTEGER PRIMARY KEY, g INTEGER, v INTEGER)",
    "INSERT INTO sf_t VALUES (1, 1, 10), (2, 1, 20), (3, 2, 30)",
]

ERRORS = [
    ("recursive: not UNION", "WITH RECURSIVE t(n) AS (SELECT n FROM t) SELECT * FROM t", "42P19"),
    ("recursive: reference in the non-recursive term",
     "WITH RECURSIVE t(n) AS (SELECT n FROM t UNION ALL SELECT 1) SELECT * FROM t", "42P19"),
    ("recursive: two references",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT a.n FROM t a, t b) SELECT * FROM t",
     "42P19"),
    ("recursive: reference in a subquery",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT 1 WHERE EXISTS (SELECT 1 FROM t)) "
     "SELECT * FROM t", "42P19"),
    ("recursive: reference in an outer join",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT s.id FROM sf_t s LEFT JOIN t ON t.n = s.id) "
     "SELECT * FROM t", "42P19"),
    ("recursive: reference right of EXCEPT",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (SELECT 5 EXCEPT SELECT n + 1 FROM t)) "
     "SELECT * FROM t", "42P19"),
    ("recursive: reference in INTERSECT ALL",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL (SELECT n + 1 FROM t INTERSECT ALL SELECT 5)) "
     "SELECT * FROM t", "42P19"),
    ("recursive: aggregate in the recursive term",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT count(*) FROM t) SELECT * FROM t", "42P19"),
    ("recursive: ORDER BY", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t "
     "ORDER BY 1) SELECT * FROM t", "0A000"),
    ("recursive: LIMIT", "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t "
     "LIMIT 3) SELECT * FROM t", "0A000"),
    ("recursive: a wider type in the recursive term",
     "WITH RECURSIVE t(n) AS (SELECT CAST(1 AS INTEGER) UNION ALL SELECT CAST(n AS BIGINT) + 1 "
     "FROM t) SELECT * FROM t", "42804"),
    ("recursive: too many column names",
     "WITH RECURSIVE t(n, m) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t WHERE n < 3) "
     "SELECT * FROM t", "42P10"),
    ("recursive: terms of different widths",
     "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n, n FROM t) SELECT * FROM t", "42601"),
    ("recursive: mutual recursion",
     "WITH RECURSIVE a(n) AS (SELECT n FROM b), b(n) AS (SELECT n FROM a) SELECT * FROM a",
     "0A000"),
    ("recursive: self-reference without RECURSIVE",
     "WITH t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT * FROM t", "42P01"),
    ("recursive: invalid and unreferenced",
     "WITH RECURSIVE t(n) AS (SELECT n FROM t) SELECT 1", "42P19"),
    ("distinct on: not the leftmost ORDER BY",
     "SELECT DISTINCT ON (g) g, id FROM sf_t ORDER BY id, g", "42P10"),
    ("distinct on: ORDER BY without it", "SELECT DISTINCT ON (g) g, id FROM sf_t ORDER BY id",
     "42P10"),
    ("distinct on: a position out of range", "SELECT DISTINCT ON (5) g FROM sf_t", "42P10"),
    ("distinct on: unknown column", "SELECT DISTINCT ON (nosuch) g FROM sf_t", "42703"),
    ("grouping sets: a column outside the sets",
     "SELECT g, v, count(*) FROM sf_t GROUP BY ROLLUP (g)", "42803"),
    ("grouping: argument not grouped",
     "SELECT GROUPING(v) FROM sf_t GROUP BY ROLLUP (g)", "42803"),
    ("grouping: in WHERE",
     "SELECT g FROM sf_t WHERE GROUPING(g) = 0 GROUP BY ROLLUP (g)", "42803"),
    ("grouping: without GROUP BY", "SELECT GROUPING(g) FROM sf_t", "42803"),
    ("grouping: inside an aggregate",
     "SELECT sum(GROUPING(g)) FROM sf_t GROUP BY ROLLUP (g)", "42803"),
    ("cube: more than 12 elements",
     "SELECT count(*) FROM sf_t GROUP BY CUBE (id, g, v, id + 1, id + 2, id + 3, id + 4, id + 5, "
     "id + 6, id + 7, id + 8, id + 9, id + 10)", "54011"),
    ("lateral: a sibling without LATERAL", "SELECT * FROM sf_t c, (SELECT c.g) s", "42P01"),
    ("lateral: a later item", "SELECT * FROM LATERAL (SELECT d.id) s, sf_t d", "42P01"),
    ("lateral: unknown column", "SELECT * FROM sf_t c, LATERAL (SELECT c.nosuch) s", "42703"),
]

INFINITE = "WITH RECURSIVE t(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM t) SELECT count(*) FROM t"


def main():
    a = checks.isolated_args()
    srv = checks.isolated_server(a, "sqlfeat", {"MaxQueryMem": QUERY_MEM}, both=True)
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as conn:
            for s in SETUP:
                conn.execute(s)
            for name, sql, want in ERRORS:
                state, msg, _ = sqlstate_of(conn, sql)
                check("%s: %s" % (name, want), state == want, "%s %s" % (state, msg))
                check("session answers after: %s" % name, answers(conn), "no answer")
            # an infinite UNION ALL recursion streams: only the timeout stops it
            conn.execute("SET statement_timeout = '1s'")
            state, msg, secs = sqlstate_of(conn, INFINITE)
            check("infinite recursion ends with 57014 at statement_timeout (%.2f s)" % secs,
                  state == "57014" and secs < LIMIT_S, "%s %s after %.2f s" % (state, msg, secs))
            conn.execute("SET statement_timeout = 0")
            timer = threading.Timer(1.0, conn.cancel)
            timer.start()
            state, msg, secs = sqlstate_of(conn, INFINITE)
            timer.cancel()
            check("infinite recursion ends with 57014 on cancel (%.2f s)" % secs,
                  state == "57014" and secs < LIMIT_S, "%s %s after %.2f s" % (state, msg, secs))
            check("session answers after the cancel", answers(conn), "no answer")
            if a.kind != "postgres":
                conn.execute("SET statement_timeout = '60s'")
                # UNION keeps every row seen: past 32 MB that is 53200
                state, msg, secs = sqlstate_of(conn, "WITH RECURSIVE t(n) AS (SELECT 1 UNION "
                                                     "SELECT n + 1 FROM t) SELECT count(*) FROM t")
                check("an infinite UNION recursion ends with 53200 (%.2f s)" % secs,
                      state == "53200", "%s %s" % (state, msg))
                check("session answers after the UNION recursion", answers(conn), "no answer")
                state, msg, secs = sqlstate_of(
                    conn, "SELECT g, count(*) FROM (SELECT x % 3 AS g, md5(x::text) AS m "
                          "FROM generate_series(1, 2000000) x) s GROUP BY ROLLUP (g, m)")
                check("grouping sets over an input past MaxQueryMem end with 53200 (%.2f s)" % secs,
                      state == "53200", "%s %s" % (state, msg))
                check("session answers after the grouping sets", answers(conn), "no answer")
                state, msg, secs = sqlstate_of(conn, "WITH RECURSIVE t(n) AS (SELECT 1 UNION "
                                                     "SELECT n + 1 FROM t WHERE n < 20000) "
                                                     "SELECT count(*) FROM t")
                check("a UNION recursion within the budget answers", state == "result",
                      "%s %s" % (state, msg))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""isolated_cte — a WITH query computed once (issue 8: a CTE named twice
is one worktable every reference reads) stays within the query's memory.

A server with a small MaxQueryMem (32M): a WITH query named twice whose
rows (200,000 of 1 kB) are far past the budget ends with 53200 (the
worktable is charged to MaxQueryMem; it does not spill) and the session
answers after; the same query over rows within the budget answers right,
also with a per-row subquery re-reading the worktable; at ThreadsPerQuery
= 2 the body of a WITH query named twice runs once (a nextval in it is
called once per row of it) while its group-by runs in parallel.
PostgreSQL's tuplestore spills, so there the large query answers.

Usage: isolated_cte.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, sqlstate_of  # noqa: E402

QUERY_MEM = 32 << 20

BIG = ("WITH s AS (SELECT g, repeat('x', 1000) AS pad FROM generate_series(1, 200000) AS t(g)) "
       "SELECT count(*), sum(length(a.pad)) FROM s a JOIN s b ON a.g = b.g")
SMALL = BIG.replace("200000", "5000")


def main():
    a = checks.isolated_args()
    srv = checks.isolated_server(a, "cte", {"MaxQueryMem": QUERY_MEM, "ThreadsPerQuery": 2,
                                            "ParallelMinRows": 1}, both=True)
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as conn:
            conn.execute("SET statement_timeout = '60s'")
            state, msg, secs = sqlstate_of(conn, BIG)
            if a.kind == "postgres":
                check("a worktable past work_mem spills (PostgreSQL)", state == "result", state)
            else:
                check("a worktable past MaxQueryMem ends with 53200 (%.2f s)" % secs,
                      state == "53200", "%s %s" % (state, msg))
            got = conn.execute("SELECT 1 + 1").fetchone()[0]
            check("the session answers after", got == 2, repr(got))
            got = conn.execute(SMALL).fetchone()
            check("a worktable within the budget answers", tuple(got) == (5000, 5000 * 1000), repr(got))
            q = ("WITH s AS (SELECT g % 100 AS k, count(*) AS n FROM generate_series(1, 20000) AS t(g) "
                 "GROUP BY g % 100) SELECT count(*) FROM s a "
                 "WHERE a.n = (SELECT b.n FROM s b WHERE b.k = a.k)")
            got = conn.execute(q).fetchone()[0]
            check("a per-row subquery re-reads the worktable", got == 100, repr(got))
            conn.execute("DROP TABLE IF EXISTS icte_t")
            conn.execute("DROP SEQUENCE IF EXISTS icte_s")
            conn.execute("CREATE TABLE icte_t (id integer PRIMARY KEY, k integer)")
            conn.execute("INSERT INTO icte_t SELECT g, g % 10 FROM generate_series(1, 50000) AS t(g)")
            conn.execute("CREATE SEQUENCE icte_s")
            q = ("WITH s AS (SELECT k, count(*) AS n, nextval('icte_s') AS v FROM icte_t GROUP BY k) "
                 "SELECT count(*), sum(a.n) FROM s a JOIN s b ON a.v = b.v")
            got = conn.execute(q).fetchone()
            calls = conn.execute("SELECT currval('icte_s')").fetchone()[0]
            check("at 2 threads the body named twice runs once", tuple(got) == (10, 50000) and calls == 10,
                  "%r, nextval called %r times" % (got, calls))
            conn.execute("DROP SEQUENCE icte_s")
            conn.execute("DROP TABLE icte_t")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

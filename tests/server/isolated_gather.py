#!/usr/bin/env python3
"""Parallel plans (exec op_gather.c, sql opt_par.c): a server of its
own with ThreadsPerQuery = 2, a table above the planner's threshold
(100k rows), then

  plans     EXPLAIN shows `Gather  (workers planned=1)` over a scan → filter, and
            partial / final group-bys around it for GROUP BY and plain
            aggregates, also over a derived table that drives its block
            (its Gather taken up by the block); none for count(DISTINCT …)
            (a Gather below one group-by) and none at ThreadsPerQuery = 1
  settings  max_parallel_workers_per_gather: ThreadsPerQuery - 1 by
            default, 0 plans no Gather, a bad value 22023, RESET, and 1
            plans a Gather on a server started with ThreadsPerQuery = 1
  answers   the same queries give the same answers as the same server
            restarted with ThreadsPerQuery = 1 (aggregates of every kind
            merged, no rows, HAVING, an error in a worker)

Cadenza only (PostgreSQL plans its own parallel queries).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan, rows  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None

ROWS = 200000

QUERIES = {
    "plain aggregates": "SELECT count(*), count(s), sum(v), min(v), max(v), avg(v), "
                        "round(avg(f)::numeric, 6), sum(n), avg(n), sum(g), avg(g), "
                        "min(s), max(s), bool_and(v >= 0), bool_or(v > 100000) "
                        "FROM gt_t WHERE g <> 3",
    "group by": "SELECT g, count(*), sum(v), avg(v), min(s), max(s), sum(n), avg(n), "
                "round(sum(f)::numeric, 3) FROM gt_t GROUP BY g ORDER BY g",
    "group by expression": "SELECT v % 5 AS k, count(*), sum(id) FROM gt_t WHERE id > 1000 "
                           "GROUP BY v % 5 ORDER BY 1",
    "no rows": "SELECT count(*), sum(v), avg(v), max(s), avg(n) FROM gt_t WHERE v < 0",
    "no rows grouped": "SELECT g, count(*) FROM gt_t WHERE v < 0 GROUP BY g",
    "having": "SELECT g, sum(v) FROM gt_t GROUP BY g HAVING count(*) > 15384 ORDER BY g",
    "filter rows": "SELECT id, v, s FROM gt_t WHERE v % 1000 = 7 ORDER BY id",
    "count distinct": "SELECT count(DISTINCT g), count(*) FROM gt_t",
    "limit": "SELECT count(*) FROM (SELECT id FROM gt_t WHERE g = 5 LIMIT 10) x",
    # a derived table planned in parallel drives its block: one Gather
    # under the block's group-by (opt_par.c op_gather_inner / op_gather_lift)
    "derived group by": "SELECT k, y, sum(a), count(*) FROM (SELECT g AS k, s || '-' AS y, "
                        "v * 2 - id AS a FROM gt_t WHERE v % 7 <> 0) d GROUP BY k, y "
                        "ORDER BY k, y",
    "derived aggregate": "SELECT count(*), sum(a), max(y) FROM (SELECT v + 1 AS a, s AS y "
                         "FROM gt_t WHERE g < 7) d",
    # rows and strings handed from workers through the Gather's slots to
    # a window function above it on the session's thread
    "strings through the gather": "SELECT id, s, row_number() OVER (ORDER BY id) FROM gt_t "
                                  "WHERE v % 50 = 1 ORDER BY id",
}


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("Cadenza's parallel plans")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    srv = checks.isolated_server(args, "gather", {"ThreadsPerQuery": 2})
    try:
        srv.start()
        answers = {}
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("CREATE TABLE gt_t (id integer PRIMARY KEY, g integer, v bigint, "
                      "f float8, n numeric(12,2), s text)")
            c.execute("INSERT INTO gt_t SELECT i, i %% 13, i * 7 %% 100003, i / 3.0, "
                      "(i %% 1000) / 7.0, CASE WHEN i %% 11 = 0 THEN NULL ELSE 'x' || (i %% 97) END "
                      "FROM generate_series(1, %d) i" % ROWS)
            p = plan(c, QUERIES["group by"])
            check("plans: group by has Gather (workers planned=1)", "Gather  (workers planned=1)" in p, p)
            check("plans: partial and final group-bys",
                  "partial 1 keys" in p and "final 1 keys" in p, p)
            p = plan(c, QUERIES["plain aggregates"])
            check("plans: plain aggregates partial / final",
                  "Gather" in p and "partial 0 keys" in p and "final 0 keys" in p, p)
            p = plan(c, QUERIES["filter rows"])
            check("plans: Gather over scan and filter", "Gather" in p and "partial" not in p, p)
            p = plan(c, QUERIES["count distinct"])
            check("plans: DISTINCT aggregate not merged", "partial" not in p, p)
            p = plan(c, QUERIES["derived group by"])
            check("plans: a derived table's Gather goes to its block",
                  p.count("Gather") == 1 and ("partial 2 keys" in p or "partitioned 2 keys" in p), p)
            p = plan(c, QUERIES["derived aggregate"])
            check("plans: derived table under partial / final aggregates",
                  p.count("Gather") == 1 and "partial 0 keys" in p, p)
            check("settings: max_parallel_workers_per_gather is ThreadsPerQuery - 1",
                  rows(c, "SHOW max_parallel_workers_per_gather") == ("rows", [("1",)]))
            two = rows(c, QUERIES["derived group by"])
            c.execute("SET max_parallel_workers_per_gather = 0")
            p = plan(c, QUERIES["group by"])
            check("settings: no Gather with max_parallel_workers_per_gather 0", "Gather" not in p, p)
            one = rows(c, QUERIES["derived group by"])
            check("settings: the same answer on one thread", one == two and one[0] == "rows",
                  "2 threads %r\n1 thread %r" % (two, one))
            check("settings: a bad value is 22023",
                  rows(c, "SET max_parallel_workers_per_gather = -1")[:2] == ("error", "22023"))
            c.execute("RESET max_parallel_workers_per_gather")
            check("settings: RESET gives ThreadsPerQuery - 1 again",
                  rows(c, "SHOW max_parallel_workers_per_gather") == ("rows", [("1",)]))
            p = plan(c, "SELECT count(*) FROM gt_t WHERE id < 50")
            check("plans: a key range is still split (or not parallel)", "Scan" in p, p)
            for name, sql in QUERIES.items():
                answers[name] = rows(c, sql)
            answers["error in a worker"] = rows(c, "SELECT sum(1 / (v - 77777)) FROM gt_t")
            ea = plan(c, "SELECT sum(1 / (v - 77777)) FROM gt_t")
            check("plans: the erring query is parallel", "Gather" in ea, ea)
        srv.stop()
        srv.extra_ini["Parameters"]["ThreadsPerQuery"] = "1"
        srv._write_ini()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            p = plan(c, QUERIES["group by"])
            check("plans: no Gather at ThreadsPerQuery 1", "Gather" not in p, p)
            c.execute("SET max_parallel_workers_per_gather = 1")
            p = plan(c, QUERIES["group by"])
            check("settings: a session asks for a worker at ThreadsPerQuery 1",
                  "Gather  (workers planned=1)" in p, p)
            c.execute("SET max_parallel_workers_per_gather = 0")
            for name, sql in QUERIES.items():
                one = rows(c, sql)
                check("answers: " + name, one == answers[name] and one[0] == "rows",
                      "2 threads %r\n1 thread %r" % (answers[name], one))
            one = rows(c, "SELECT sum(1 / (v - 77777)) FROM gt_t")
            check("answers: error in a worker", one == answers["error in a worker"] == ("error", "22012"),
                  "2 threads %r, 1 thread %r" % (answers["error in a worker"], one))
            check("the server serves after the parallel error",
                  rows(c, "SELECT count(*) FROM gt_t") == ("rows", [(ROWS,)]))
    except Exception as ex:
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}\n{srv.log_tail()}")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Parallel plans (exec op_gather.c, sql opt_par.c): a server of its
own with ThreadsPerQuery = 2, a table above the planner's threshold
(100k rows), then

  plans     EXPLAIN shows `Gather  (workers planned=1)` over a scan → filter, and
            partial / final group-bys around it for GROUP BY and plain
            aggregates; none for count(DISTINCT …) (a Gather below one
            group-by) and none at ThreadsPerQuery = 1
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

#!/usr/bin/env python3
"""Parallel Sort (exec op_sort.c's parallel mode over a drained Gather;
opt opt_par.c's opt_par_sort; sql_bind_query.c decides): a server of its
own with ThreadsPerQuery = 2 and ParallelMinRows = 1, then

  plans     ORDER BY over a large block that is neither grouped nor
            windowed nor DISTINCT, whose select list is free of
            subqueries and volatile functions, is a `Parallel Sort` over
            a Gather (also with LIMIT: each thread keeps its first rows);
            the other cases keep a Sort above the Gather, and
            ThreadsPerQuery = 1 has no Parallel Sort
  answers   the same queries give the same rows in the same order as the
            same server restarted with ThreadsPerQuery = 1 (every ORDER BY
            here is total, so the order is the answer): integer, text,
            float and two-column keys, DESC, NULLS FIRST / LAST, an
            expression key, a key not in the select list, LIMIT / OFFSET,
            no rows
  memory    rows 4x MaxQueryMem sort (each thread writes sorted runs to
            temporary files, the runs and the rows held are merged) with
            the same answer as one thread
  errors    an error raised in either thread is the query's (22012); a
            cancel and a statement_timeout during a long parallel sort stop
            it within 100 ms (57014); the server serves after them

Cadenza only (PostgreSQL plans its own parallel queries).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan, rows, stop_latency  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None

ROWS = 200000

SETUP = [
    "CREATE TABLE ps_f (id bigint PRIMARY KEY, k bigint, t text, x double precision, g integer)",
    "INSERT INTO ps_f SELECT i, CASE WHEN i %% 17 = 0 THEN NULL ELSE i * 7919 %% 5003 END, "
    "CASE WHEN i %% 13 = 0 THEN NULL ELSE 't' || (i * 31 %% 4001) END, (i %% 1000) / 8.0, i %% 7 "
    "FROM generate_series(1, %d) i" % ROWS,
    # 300-byte rows: 200 000 of them are about 4x the 16 MB MaxQueryMem
    "CREATE TABLE ps_pad (id bigint, k bigint, pad text)",
    "INSERT INTO ps_pad SELECT i, i * 7919 %% 100003, repeat('p', 300) || i "
    "FROM generate_series(1, %d) i" % ROWS,
]

QUERIES = {
    "int key": "SELECT id, k FROM ps_f WHERE g <> 3 ORDER BY k, id",
    "int key desc nulls last": "SELECT k, id, t FROM ps_f ORDER BY k DESC NULLS LAST, id DESC",
    "text key nulls first": "SELECT t, id FROM ps_f WHERE k < 2000 ORDER BY t NULLS FIRST, id",
    "text key desc": "SELECT t, k, id FROM ps_f WHERE g = 2 ORDER BY t DESC, id",
    "float and int keys": "SELECT x, g, id FROM ps_f ORDER BY x DESC, g, id",
    "expression key": "SELECT id, k FROM ps_f WHERE g < 3 ORDER BY k * -2 + g, id",
    "key not selected": "SELECT id FROM ps_f WHERE g = 1 ORDER BY t, id",
    "limit": "SELECT id, k, t FROM ps_f ORDER BY k DESC, id LIMIT 25",
    "limit offset": "SELECT id, t FROM ps_f WHERE k IS NOT NULL ORDER BY t, id LIMIT 40 OFFSET 30000",
    "no rows": "SELECT id FROM ps_f WHERE k < 0 ORDER BY id",
}
PARALLEL = ["int key", "text key nulls first", "expression key", "key not selected", "limit"]
SERIAL = {
    "grouped": "SELECT k, count(*) FROM ps_f GROUP BY k ORDER BY k",
    "distinct": "SELECT DISTINCT g FROM ps_f ORDER BY g",
    "window": "SELECT id, row_number() OVER (ORDER BY id) FROM ps_f ORDER BY k, id",
    "volatile select list": "SELECT id, random() FROM ps_f ORDER BY k, id",
    "subquery in select list": "SELECT id, (SELECT max(g) FROM ps_f f2 WHERE f2.id = ps_f.k) "
                               "FROM ps_f ORDER BY k, id",
}
SPILL = "SELECT id, pad FROM ps_pad ORDER BY k, pad"
ERROR = "SELECT id, 10 / (g - 5) FROM ps_f ORDER BY k, id"
LONG_SETUP = [
    "CREATE TABLE ps_big (id bigint, k bigint, t text)",
    "INSERT INTO ps_big SELECT i, i::bigint * 7919 % 1000003, 't' || (i % 4000) "
    "FROM generate_series(1, 1000000) i",
]
# LIKE with `_` runs the general matcher: seconds of work on both threads
LONG = ("SELECT id, k FROM ps_big WHERE repeat(t, 600) NOT LIKE '%q_q%q_q%' "
        "ORDER BY k, id")


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("Cadenza's parallel plans")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    srv = checks.isolated_server(args, "parsort", {"ThreadsPerQuery": 2, "ParallelMinRows": 1,
                                                  "MaxQueryMem": "16M", "VectorSize": 256})
    try:
        srv.start()
        answers = {}
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for s in SETUP:
                c.execute(s)
            for name in PARALLEL:
                p = plan(c, QUERIES[name])
                check("plans: %s is a Parallel Sort over a Gather" % name,
                      "Parallel Sort" in p and "Gather" in p.split("Parallel Sort", 1)[1], p)
            for name, sql in SERIAL.items():
                p = plan(c, sql)
                check("plans: %s keeps a serial sort" % name, "Parallel Sort" not in p, p)
            for name, sql in QUERIES.items():
                answers[name] = rows(c, sql)
            check("answers: the limit query has its rows", answers["limit"][0] == "rows" and
                  len(answers["limit"][1]) == 25, repr(answers["limit"])[:300])
            p = plan(c, SPILL)
            check("plans: the large sort is a Parallel Sort", "Parallel Sort" in p, p)
            answers["spill"] = rows(c, SPILL)
            check("memory: a sort 4x MaxQueryMem finishes",
                  answers["spill"][0] == "rows" and len(answers["spill"][1]) == ROWS,
                  repr(answers["spill"])[:300])
            check("errors: a division by zero in a worker is the query's",
                  rows(c, ERROR) == ("error", "22012"), repr(rows(c, ERROR))[:300])
            for s in LONG_SETUP:
                c.execute(s)
            p = plan(c, LONG)
            check("plans: the long sort is a Parallel Sort", "Parallel Sort" in p, p)
            for how in ("cancel", "timeout"):
                state, lat = stop_latency(srv.dsn(), LONG, how)
                check("errors: %s stops a parallel sort within 100 ms" % how,
                      state == "57014" and lat < 0.1, "%s after %.3f s" % (state, lat))
            check("errors: the server serves after them",
                  rows(c, "SELECT count(*) FROM ps_f") == ("rows", [(ROWS,)]))
        srv.stop()
        srv.extra_ini["Parameters"]["ThreadsPerQuery"] = "1"
        srv._write_ini()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            p = plan(c, QUERIES["int key"])
            check("plans: no Parallel Sort at ThreadsPerQuery 1", "Parallel Sort" not in p, p)
            for name in list(QUERIES) + ["spill"]:
                one = rows(c, SPILL if name == "spill" else QUERIES[name])
                check("answers: " + name, one[0] == "rows" and one == answers[name],
                      "2 threads %r\n1 thread %r" % (str(answers[name])[:1000], str(one)[:1000]))
    except Exception as ex:
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}\n{srv.log_tail()}")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

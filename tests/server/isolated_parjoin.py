#!/usr/bin/env python3
"""Parallel joins (exec op_gather.c, op_join_share.c; sql sql_plan_par.c):
a server of its own with ThreadsPerQuery = 2 and a 200 000-row fact table
joined to smaller ones, then

  plans     EXPLAIN shows a Gather over the join pipeline (hash joins,
            semi / anti joins, a grouped IN subquery with a Gather of its
            own); EXPLAIN ANALYZE says how many workers were launched
  answers   the same queries give the same answers as the same server
            restarted with ThreadsPerQuery = 1: inner joins of three
            tables grouped, semi and anti joins, a grouped uncorrelated
            IN subquery, a build large enough to have its own Gather
  errors    an error raised for one row in whichever thread reads it is
            the query's (22012, not 57014); a value past MaxQueryMem made
            in a worker fails with 53200; the server serves after both
  spill     a build past the memory a join may hold makes the Gather run
            on one thread (EXPLAIN ANALYZE says so) with the right answer
  cancel    a parallel join running for seconds stops within 100 ms of a
            cancel request and of its statement_timeout (57014)

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
    "CREATE TABLE pj_f (id integer PRIMARY KEY, k integer, g integer, v bigint, s text)",
    "INSERT INTO pj_f SELECT i, i %% 6000, i %% 13, i * 7 %% 100003, "
    "CASE WHEN i %% 11 = 0 THEN NULL ELSE 'x' || (i %% 97) END "
    "FROM generate_series(1, %d) i" % ROWS,
    "CREATE TABLE pj_d (k integer PRIMARY KEY, grp integer, name text)",
    "INSERT INTO pj_d SELECT i, i % 17, 'n' || i FROM generate_series(0, 4999) i",
    "CREATE TABLE pj_e (grp integer, label text)",
    "INSERT INTO pj_e SELECT i, 'g' || i FROM generate_series(0, 15) i",
    "CREATE TABLE pj_f2 (id integer, g integer, v bigint, pad text)",
    "INSERT INTO pj_f2 SELECT i, i %% 13, i, repeat('p', 200) FROM generate_series(1, %d) i" % ROWS,
]

QUERIES = {
    "three tables grouped": "SELECT e.label, count(*), sum(f.v), min(d.name), max(f.s) "
                            "FROM pj_f f JOIN pj_d d ON f.k = d.k JOIN pj_e e ON d.grp = e.grp "
                            "GROUP BY e.label ORDER BY 1",
    "join rows": "SELECT f.id, d.name, f.s FROM pj_f f JOIN pj_d d ON f.k = d.k "
                 "WHERE f.v % 1000 = 7 ORDER BY f.id",
    "join residual": "SELECT count(*), sum(f.v) FROM pj_f f JOIN pj_d d ON f.k = d.k "
                     "AND f.g < d.grp",
    "semi join": "SELECT count(*), sum(v) FROM pj_f f WHERE EXISTS "
                 "(SELECT 1 FROM pj_d d WHERE d.k = f.k AND d.grp = 3)",
    "anti join": "SELECT count(*), sum(v) FROM pj_f f WHERE NOT EXISTS "
                 "(SELECT 1 FROM pj_d d WHERE d.k = f.k)",
    "not in": "SELECT count(*) FROM pj_f f WHERE f.k NOT IN (SELECT k FROM pj_d WHERE grp <> 4)",
    "grouped in subquery": "SELECT count(*), sum(v) FROM pj_f f WHERE f.k IN "
                           "(SELECT k FROM pj_f GROUP BY k HAVING sum(v) > 1700000)",
    "large build": "SELECT count(*), sum(a.v + b.v), min(b.g) FROM pj_f a JOIN pj_f2 b "
                   "ON a.k = b.id",
    "no rows": "SELECT count(*), sum(f.v) FROM pj_f f JOIN pj_d d ON f.k = d.k WHERE f.v < 0",
    "join limit": "SELECT count(*) FROM (SELECT f.id FROM pj_f f JOIN pj_d d ON f.k = d.k "
                  "WHERE d.grp = 5 LIMIT 10) x",
}
# "large build" and "three tables grouped" must be parallel for the test to mean anything
PARALLEL = ["three tables grouped", "join rows", "semi join", "anti join", "grouped in subquery",
            "large build"]

ERR_ZERO = "SELECT sum(1 / (f.v - 77777)) FROM pj_f f JOIN pj_d d ON f.k = d.k"
ERR_MEM = ("SELECT count(*) FROM pj_f f JOIN pj_d d ON f.k = d.k WHERE length(repeat(d.name, "
           "CASE WHEN f.id = 123457 THEN 200000000 ELSE 1 END)) > 0")
# the build (pj_f2 with its 200-byte pads) passes half of MaxQueryMem
SPILL = "SELECT count(*), sum(a.v + b.v), max(b.pad) FROM pj_f a JOIN pj_f2 b ON a.id = b.id"
LONG = "SELECT count(*) FROM pj_f a JOIN pj_f2 b ON a.g = b.g"


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("Cadenza's parallel plans")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    srv = checks.isolated_server(args, "parjoin", {"ThreadsPerQuery": 2, "MaxQueryMem": "64M"})
    try:
        srv.start()
        answers = {}
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for s in SETUP:
                c.execute(s)
            for name in PARALLEL:
                p = plan(c, QUERIES[name])
                check("plans: %s under a Gather" % name,
                      "Gather  (workers planned=1)" in p and "Join" in p.split("Gather", 1)[1], p)
            p = plan(c, QUERIES["grouped in subquery"])
            check("plans: the grouped IN subquery has its own Gather", p.count("Gather") >= 2, p)
            p = plan(c, QUERIES["three tables grouped"], analyze=True)
            check("plans: EXPLAIN ANALYZE shows the workers launched",
                  "workers launched=1" in p or "workers launched=0" in p, p)
            for name, sql in QUERIES.items():
                answers[name] = rows(c, sql)
            ea = plan(c, ERR_ZERO)
            check("plans: the erring join is parallel", "Gather" in ea, ea)
            answers["error in a worker"] = rows(c, ERR_ZERO)
            check("errors: an error in one thread is the query's",
                  answers["error in a worker"] == ("error", "22012"), repr(answers["error in a worker"]))
            em = plan(c, ERR_MEM)
            check("plans: the memory-hungry join is parallel", "Gather" in em, em)
            got = rows(c, ERR_MEM)
            check("errors: MaxQueryMem passed in a worker is 53200", got == ("error", "53200"), repr(got))
            check("errors: the server serves after them",
                  rows(c, "SELECT count(*) FROM pj_f") == ("rows", [(ROWS,)]))
            sp = plan(c, SPILL, analyze=True)
            answers["spill"] = rows(c, SPILL)
            check("spill: a spilling build runs on one thread", "a build spills" in sp, sp)
            for how in ("cancel", "timeout"):
                state, lat = stop_latency(srv.dsn(), LONG, how)
                check("cancel: %s stops the parallel join within 100 ms" % how,
                      state == "57014" and lat < 0.1, "%s after %.3f s" % (state, lat))
            check("cancel: the server serves after them",
                  rows(c, "SELECT count(*) FROM pj_f2") == ("rows", [(ROWS,)]))
        srv.stop()
        srv.extra_ini["Parameters"]["ThreadsPerQuery"] = "1"
        srv._write_ini()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            p = plan(c, QUERIES["three tables grouped"])
            check("plans: no Gather at ThreadsPerQuery 1", "Gather" not in p, p)
            for name, sql in QUERIES.items():
                one = rows(c, sql)
                check("answers: " + name, one == answers[name] and one[0] == "rows",
                      "2 threads %r\n1 thread %r" % (answers[name], one))
            one = rows(c, SPILL)
            check("answers: spilled build", one == answers["spill"] and one[0] == "rows",
                  "2 threads %r\n1 thread %r" % (answers["spill"], one))
            one = rows(c, ERR_ZERO)
            check("answers: error in a worker", one == answers["error in a worker"],
                  "2 threads %r, 1 thread %r" % (answers["error in a worker"], one))
    except Exception as ex:
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}\n{srv.log_tail()}")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The parallel phases after the scans (exec op_join_pbuild.c,
op_hashagg_par.c, op_gather.c's drain; opt opt_par.c): a server of its
own with ThreadsPerQuery = 2 and ParallelMinRows = 1, then

  plans     a large build side's Gather is drained into a table built by
            both threads; a group-by of many groups is `partitioned`
            (no partial phase), one of few groups a `final` one, both
            under a `Parallel Merge`; EXPLAIN ANALYZE counts the rows of
            every thread
  answers   the same queries give the same answers as the same server
            restarted with ThreadsPerQuery = 1: builds with duplicate and
            NULL keys (integer, text, two columns; inner, semi, anti,
            left), group-bys of many and of few groups over integer,
            text and two-column keys with NULL keys and NULL arguments
            (count, sum, avg, min, max, bool_and / bool_or), HAVING over
            them, a group-by below a join, empty inputs
  memory    a build past half of MaxQueryMem runs on one thread (the
            parallel build gives up: `a build spills`); a group-by whose
            partitioned rows pass the memory goes on in temporary files,
            right answers
  cancel    a cancel and a statement_timeout during a parallel build and
            during a partitioned group-by stop it within 100 ms (57014),
            and the server serves after them

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
    # a fact table: k has duplicates (6 rows a value) and NULLs, t text keys
    "CREATE TABLE pm_f (id bigint PRIMARY KEY, k bigint, t text, g integer, v bigint, "
    "x double precision, b boolean)",
    "INSERT INTO pm_f SELECT i, CASE WHEN i %% 17 = 0 THEN NULL ELSE i %% 33000 END, "
    "CASE WHEN i %% 13 = 0 THEN NULL ELSE 't' || (i %% 4000) END, i %% 7, "
    "CASE WHEN i %% 5 = 0 THEN NULL ELSE i * 7 %% 100003 END, (i %% 1000) / 8.0, i %% 3 = 0 "
    "FROM generate_series(1, %d) i" % ROWS,
    # a large build side: duplicate and NULL keys, both key kinds
    "CREATE TABLE pm_b (id bigint, k bigint, t text, w bigint)",
    "INSERT INTO pm_b SELECT i, CASE WHEN i %% 11 = 0 THEN NULL ELSE i %% 40000 END, "
    "CASE WHEN i %% 9 = 0 THEN NULL ELSE 't' || (i %% 5000) END, i "
    "FROM generate_series(1, %d) i" % (ROWS // 2),
    "CREATE TABLE pm_pad (id bigint, k bigint, pad text)",
    "INSERT INTO pm_pad SELECT i, i %% 90000, repeat('p', 300) || i FROM generate_series(1, %d) i"
    % ROWS,
]

QUERIES = {
    "build int dup/null keys": "SELECT count(*), sum(f.v), sum(b.w), count(b.t) "
                               "FROM pm_f f JOIN pm_b b ON f.k = b.k",
    "build text keys": "SELECT count(*), sum(b.w), min(f.t), max(b.t) "
                       "FROM pm_f f JOIN pm_b b ON f.t = b.t WHERE f.g = 3",
    "build two keys": "SELECT count(*), sum(b.w) FROM pm_f f JOIN pm_b b "
                      "ON f.k = b.k AND f.t = b.t",
    "build semi": "SELECT count(*), sum(v) FROM pm_f f WHERE EXISTS "
                  "(SELECT 1 FROM pm_b b WHERE b.k = f.k AND b.w % 2 = 0)",
    "build anti": "SELECT count(*), sum(v) FROM pm_f f WHERE NOT EXISTS "
                  "(SELECT 1 FROM pm_b b WHERE b.t = f.t)",
    "build left": "SELECT count(*), count(b.w), sum(b.w) FROM pm_f f LEFT JOIN pm_b b "
                  "ON f.k = b.k",
    "build no rows": "SELECT count(*) FROM pm_f f JOIN pm_b b ON f.k = b.k WHERE b.w < 0",
    "many groups int": "SELECT k, count(*), count(v), sum(v), avg(v), min(t), max(x), "
                       "bool_and(b), bool_or(b) FROM pm_f GROUP BY k ORDER BY k NULLS FIRST",
    "many groups text": "SELECT t, count(*), sum(v), avg(x) FROM pm_f GROUP BY t "
                        "ORDER BY t NULLS FIRST",
    "many groups two keys": "SELECT k, g, count(*), sum(v) FROM pm_f GROUP BY k, g "
                            "ORDER BY k NULLS FIRST, g",
    "many groups having": "SELECT k, sum(v) FROM pm_f GROUP BY k HAVING sum(v) > 330000 "
                          "ORDER BY k",
    "many groups counted": "SELECT count(*), sum(c), sum(s) FROM "
                           "(SELECT id % 150000 AS m, count(*) c, sum(v) s FROM pm_f GROUP BY 1) q",
    "few groups": "SELECT g, count(*), count(v), sum(v), avg(v), min(t), max(t), bool_or(b) "
                  "FROM pm_f GROUP BY g ORDER BY g",
    "few groups null key": "SELECT k IS NULL, count(*), sum(v) FROM pm_f GROUP BY 1 ORDER BY 1",
    "grouped join": "SELECT b.k % 100, count(*), sum(f.v) FROM pm_f f JOIN pm_b b ON f.k = b.k "
                    "GROUP BY 1 ORDER BY 1",
    "group in subquery": "SELECT count(*), sum(v) FROM pm_f WHERE k IN "
                         "(SELECT k FROM pm_f GROUP BY k HAVING sum(v) > 300000)",
    "groups of nothing": "SELECT k, count(*) FROM pm_f WHERE v < 0 GROUP BY k",
}
# must be parallel in the new ways for the test to mean anything
PBUILD = ["build int dup/null keys", "build text keys", "build two keys", "grouped join"]
DIRECT = ["many groups int", "many groups two keys", "many groups having", "groups of nothing"]
FINAL = ["few groups", "many groups text", "grouped join"]

SPILL_BUILD = "SELECT count(*), max(b.pad) FROM pm_f f JOIN pm_pad b ON f.id = b.id"
SPILL_GROUP = "SELECT count(*), sum(length(p)) FROM (SELECT id, min(pad) p FROM pm_pad GROUP BY id) q"
# seconds of work in the phases the threads run apart (a million rows,
# each tested against a pattern; a batch takes milliseconds): the build
# of a join, the rows of a partitioned group-by
LONG_SETUP = [
    "CREATE TABLE pm_big (id bigint, k bigint, t text)",
    "INSERT INTO pm_big SELECT i, i % 200000, 't' || (i % 4000) FROM generate_series(1, 1000000) i",
]
# LIKE with `_` runs the general matcher (a pattern without one is a few
# memmem calls): seconds of work on both threads, whatever the machine
LONG_BUILD = ("SELECT count(*) FROM pm_big a JOIN pm_big b ON a.k = b.id "
              "WHERE repeat(b.t, 600) NOT LIKE '%q_q%q_q%'")
LONG_GROUP = ("SELECT count(*) FROM (SELECT k, max(t) FROM pm_big "
              "WHERE repeat(t, 600) NOT LIKE '%q_q%q_q%' GROUP BY k) q")


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("Cadenza's parallel plans")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    # VectorSize 256: a batch's work (the long queries') stays well below
    # the 100 ms a cancel may take, and stored chunks (1024 rows) are
    # returned in slices
    srv = checks.isolated_server(args, "parmerge", {"ThreadsPerQuery": 2, "ParallelMinRows": 1,
                                                   "MaxQueryMem": "64M", "VectorSize": 256})
    try:
        srv.start()
        answers = {}
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for s in SETUP:
                c.execute(s)
            for name in PBUILD:
                p = plan(c, QUERIES[name])
                check("plans: %s has a Gather on its build side" % name,
                      p.count("Gather") >= 2 and "Join" in p, p)
            for name in DIRECT:
                p = plan(c, QUERIES[name])
                check("plans: %s is partitioned without a partial phase" % name,
                      "Parallel Merge" in p and "partitioned" in p and "partial" not in p, p)
            for name in FINAL:
                p = plan(c, QUERIES[name])
                check("plans: %s merges partial groups by partition" % name,
                      "Parallel Merge" in p and "partial" in p, p)
            p = plan(c, QUERIES["many groups int"], analyze=True)
            check("plans: EXPLAIN ANALYZE counts every thread's rows",
                  "Partitions  (by group key hash)  (rows=%d)" % ROWS in p, p)
            p = plan(c, QUERIES["build int dup/null keys"], analyze=True)
            check("plans: EXPLAIN ANALYZE of a parallel build",
                  "workers launched=1" in p or "workers launched=0" in p, p)
            for name, sql in QUERIES.items():
                answers[name] = rows(c, sql)
            sp = plan(c, SPILL_BUILD, analyze=True)
            check("memory: a build past its memory runs on one thread", "a build spills" in sp, sp)
            answers["spill build"] = rows(c, SPILL_BUILD)
            answers["spill group"] = rows(c, SPILL_GROUP)
            check("memory: a partitioned group-by past the memory finishes",
                  answers["spill group"] == ("rows", [(ROWS, ROWS * 300 + sum(
                      len(str(i)) for i in range(1, ROWS + 1)))]), repr(answers["spill group"]))
            for s in LONG_SETUP:
                c.execute(s)
            p = plan(c, LONG_BUILD)
            check("plans: the long build is a parallel one", p.count("Gather") >= 2, p)
            p = plan(c, LONG_GROUP)
            check("plans: the long group-by is partitioned", "partitioned" in p, p)
            for what, sql in (("a parallel build", LONG_BUILD), ("a partitioned group-by", LONG_GROUP)):
                for how in ("cancel", "timeout"):
                    state, lat = stop_latency(srv.dsn(), sql, how)
                    check("cancel: %s stops %s within 100 ms" % (how, what),
                          state == "57014" and lat < 0.1, "%s after %.3f s" % (state, lat))
            check("cancel: the server serves after them",
                  rows(c, "SELECT count(*) FROM pm_b") == ("rows", [(ROWS // 2,)]))
        srv.stop()
        srv.extra_ini["Parameters"]["ThreadsPerQuery"] = "1"
        srv._write_ini()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            p = plan(c, QUERIES["many groups int"])
            check("plans: no Parallel Merge at ThreadsPerQuery 1", "Parallel Merge" not in p, p)
            for name, sql in QUERIES.items():
                one = rows(c, sql)
                same = one == answers[name]
                if not same and one[0] == answers[name][0] == "rows" and len(one[1]) == len(
                        answers[name][1]):
                    # float averages may differ in the last digits (summed in another order)
                    same = all(all(a == b or (isinstance(a, float) and abs(a - b) <= 1e-9 * abs(b))
                                   for a, b in zip(r1, r2))
                               for r1, r2 in zip(sorted(one[1], key=repr),
                                                 sorted(answers[name][1], key=repr)))
                check("answers: " + name, same and one[0] == "rows",
                      "2 threads %r\n1 thread %r" % (str(answers[name])[:2000], str(one)[:2000]))
            for name, sql in (("spill build", SPILL_BUILD), ("spill group", SPILL_GROUP)):
                one = rows(c, sql)
                check("answers: " + name, one == answers[name] and one[0] == "rows",
                      "2 threads %r\n1 thread %r" % (answers[name], one))
    except Exception as ex:
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}\n{srv.log_tail()}")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

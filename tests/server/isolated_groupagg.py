#!/usr/bin/env python3
"""The streaming group-by (exec op_groupagg.c, opt opt_group.c): a GROUP BY
whose input comes in an index's order starting with the group keys runs
without a hash table, and in a parallel block on every thread over a scan
split on group boundaries (no final merge). A server of its own with
ThreadsPerQuery = 2, then

  plans     EXPLAIN shows `Gather` over `GroupAggregate` over the scan
            `split by N key columns` for GROUP BY the primary key's
            leading columns (one of two, both, text and numeric keys, a
            key range, an equality-bound column then the next), HAVING
            below the Gather; a hash group-by for keys out of index
            order, DISTINCT aggregates and min / max of text; at
            ThreadsPerQuery = 1 a GroupAggregate and no Gather, and no
            Sort for ORDER BY the keys (the groups come in key order)
  answers   the same queries give the same answers as the same server
            restarted with ThreadsPerQuery = 1 and MaxQueryMem = 8M, and
            as the hash group-by (the same query grouping by `key + 0`,
            which no index orders): groups spanning many pages, one-row
            groups, NULL group keys (a derived table sorted by a
            nullable column), NUMERIC 1.0 and 1.00 in one group, every
            aggregate kind with NULL arguments, no rows, HAVING, LIMIT
  memory    a group-by of 200 000 groups under MaxQueryMem = 8M (one
            thread) holds a batch's groups, not all (EXPLAIN ANALYZE
            memory), and writes no temporary file

Cadenza only (PostgreSQL plans its own parallel queries).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None

ROWS = 200000

SETUP = [
    # groups of 1 to 12 rows, one of 20 000 rows (many pages); v with NULLs
    "CREATE TABLE ga_f (k bigint, n integer, v bigint, x numeric(12,2), f float8, b boolean, "
    "s text, PRIMARY KEY (k, n))",
    "INSERT INTO ga_f SELECT CASE WHEN i <= 20000 THEN 7 ELSE i / ((i %% 12) + 1) * 13 END, i, "
    "CASE WHEN i %% 9 = 0 THEN NULL ELSE i * 7 %% 100003 END, (i %% 1000) / 7.0, i / 4.0, "
    "i %% 3 = 0, 's' || (i %% 500) FROM generate_series(1, %d) i" % ROWS,
    # text keys of varying length, groups spanning pages
    "CREATE TABLE ga_t (s text, n integer, v bigint, PRIMARY KEY (s, n))",
    "INSERT INTO ga_t SELECT 'grp-' || repeat('z', i %% 40) || (i %% 301), i, i %% 1000 "
    "FROM generate_series(1, %d) i" % ROWS,
    # NUMERIC keys: 1.0 and 1.00 are one group
    "CREATE TABLE ga_n (x numeric, n integer, v bigint, PRIMARY KEY (x, n))",
    "INSERT INTO ga_n SELECT CASE i %% 3 WHEN 0 THEN (i %% 700)::numeric(10,1) "
    "WHEN 1 THEN (i %% 700)::numeric(10,2) ELSE (i %% 700)::numeric END, i, i "
    "FROM generate_series(1, %d) i" % ROWS,
]

# name -> (query, what its plan must show at 2 threads: "stream" / "hash",
#          the same query through the hash group-by: keys no index orders)
QUERIES = {
    "leading key": ("SELECT k, count(*), count(v), sum(v), avg(v), min(v), max(v), sum(x), "
                    "avg(x), min(f), max(f), bool_and(b), bool_or(b) FROM ga_f GROUP BY k", "stream",
                    "SELECT k + 0, count(*), count(v), sum(v), avg(v), min(v), max(v), sum(x), "
                    "avg(x), min(f), max(f), bool_and(b), bool_or(b) FROM ga_f GROUP BY k + 0"),
    "leading key having": ("SELECT k, sum(v) FROM ga_f GROUP BY k HAVING sum(v) > 1500000", "stream",
                           "SELECT k + 0, sum(v) FROM ga_f GROUP BY k + 0 HAVING sum(v) > 1500000"),
    "whole key": ("SELECT n, k, count(*), sum(v) FROM ga_f GROUP BY k, n", "stream",
                  "SELECT n + 0, k + 0, count(*), sum(v) FROM ga_f GROUP BY k + 0, n + 0"),
    "key and more": ("SELECT k, n, s, count(*) FROM ga_f GROUP BY k, n, s", "stream",
                     "SELECT k + 0, n, s, count(*) FROM ga_f GROUP BY k + 0, n, s"),
    "key range": ("SELECT k, count(*), sum(v) FROM ga_f WHERE k BETWEEN 7 AND 90000 GROUP BY k",
                  "stream", "SELECT k + 0, count(*), sum(v) FROM ga_f WHERE k BETWEEN 7 AND 90000 "
                  "GROUP BY k + 0"),
    "filtered": ("SELECT k, count(*), max(v) FROM ga_f WHERE v % 3 = 1 GROUP BY k", "stream",
                 "SELECT k + 0, count(*), max(v) FROM ga_f WHERE v % 3 = 1 GROUP BY k + 0"),
    "fixed then next": ("SELECT n, count(*) FROM ga_f WHERE k = 7 GROUP BY k, n", "stream",
                        "SELECT n + 0, count(*) FROM ga_f WHERE k = 7 GROUP BY k + 0, n + 0"),
    "no rows": ("SELECT k, count(*), sum(v) FROM ga_f WHERE v < 0 GROUP BY k", "stream",
                "SELECT k + 0, count(*), sum(v) FROM ga_f WHERE v < 0 GROUP BY k + 0"),
    "text key": ("SELECT s, count(*), sum(v), min(n) FROM ga_t GROUP BY s", "stream",
                 "SELECT s || '', count(*), sum(v), min(n) FROM ga_t GROUP BY s || ''"),
    "numeric groups": ("SELECT count(*), sum(c) FROM (SELECT x, count(*) c FROM ga_n GROUP BY x) q",
                       "stream",
                       "SELECT count(*), sum(c) FROM (SELECT x + 0, count(*) c FROM ga_n GROUP BY x + 0) q"),
    "numeric key": ("SELECT x::numeric(10,2)::text, count(*), sum(v) FROM ga_n GROUP BY x", "stream",
                    "SELECT (x + 0)::numeric(10,2)::text, count(*), sum(v) FROM ga_n GROUP BY x + 0"),
    "in subquery": ("SELECT count(*), sum(v) FROM ga_f WHERE k IN "
                    "(SELECT k FROM ga_f GROUP BY k HAVING count(*) > 10)", "stream",
                    "SELECT count(*), sum(v) FROM ga_f WHERE k IN "
                    "(SELECT k + 0 FROM ga_f GROUP BY k + 0 HAVING count(*) > 10)"),
    "ordered limit": ("SELECT k, count(*), sum(v) FROM ga_f GROUP BY k ORDER BY k LIMIT 7", "stream",
                      "SELECT k + 0, count(*), sum(v) FROM ga_f GROUP BY k + 0 ORDER BY 1 LIMIT 7"),
    "second key only": ("SELECT n % 100, count(*) FROM ga_f GROUP BY n % 100", "hash", None),
    "distinct aggregate": ("SELECT k, count(DISTINCT v) FROM ga_f GROUP BY k", "hash", None),
    "min of text": ("SELECT k, min(s) FROM ga_f GROUP BY k", "hash", None),
}

# the NULL-key table: a derived table sorted on a nullable column (NULLs
# last, 1250 of them: more than a batch)
NULLS = [
    "CREATE TABLE ga_u (id integer PRIMARY KEY, u integer, v bigint)",
    "INSERT INTO ga_u SELECT i, CASE WHEN i % 4 = 0 THEN NULL ELSE i END, i FROM "
    "generate_series(1, 5000) i",
]


def rows(c, sql):
    return checks.rows(c, sql, ordered=False)


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("Cadenza's streaming group-by")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    srv = checks.isolated_server(args, "groupagg", {"ThreadsPerQuery": 2, "MaxQueryMem": "64M"})
    try:
        srv.start()
        answers = {}
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for s in SETUP + NULLS:
                c.execute(s)
            for name, (sql, kind, hsql) in QUERIES.items():
                p = plan(c, sql)
                if kind == "stream":
                    ok = ("GroupAggregate" in p and "HashAggregate" not in p.split("GroupAggregate")[1]
                          and re.search(r"Gather[^\n]*\n\s*-> (Filter[^\n]*\n\s*-> )?GroupAggregate", p)
                          and "split by" in p)
                    if name == "no rows":
                        ok = "GroupAggregate" in p
                else:
                    ok = "HashAggregate" in p and "GroupAggregate" not in p
                check("plans: %s (%s)" % (name, kind), bool(ok), p)
                answers[name] = rows(c, sql)
                if hsql:
                    h = rows(c, hsql)
                    check("answers: %s as the hash group-by" % name,
                          answers[name] == h and h[0] == "rows",
                          "stream %r\nhash %r" % (answers[name][1][:5], h[1][:5]))
            p = plan(c, QUERIES["leading key having"][0])
            check("plans: HAVING tested below the Gather",
                  re.search(r"Gather[^\n]*\n\s*-> Filter[^\n]*\n\s*-> GroupAggregate", p) is not None, p)
            p = plan(c, QUERIES["key range"][0])
            check("plans: a key range split by 1 key column", "split by 1 key column" in p, p)
            p = plan(c, QUERIES["fixed then next"][0])
            check("plans: an equality-bound column then the next: split by 2 key columns",
                  "split by 2 key columns" in p or "Gather" not in p, p)
            # NULL keys grouped together (the index's order puts them last)
            nq = "SELECT u, count(*), sum(v) FROM (SELECT u, v FROM ga_u ORDER BY u) q GROUP BY u"
            p = plan(c, nq)
            check("plans: NULL keys in a sorted derived table stream", "GroupAggregate" in p, p)
            answers["null keys"] = rows(c, nq)
            check("answers: NULL keys as the hash group-by",
                  answers["null keys"] == rows(c, nq.replace("GROUP BY u", "GROUP BY u + 0")
                                               .replace("SELECT u, count", "SELECT u + 0, count")),
                  repr(answers["null keys"][1][-3:]))
            check("answers: NULL keys one group",
                  (None, 1250, sum(range(4, 5001, 4))) in answers["null keys"][1],
                  repr(answers["null keys"][1][-3:]))
        srv.stop()
        srv.extra_ini["Parameters"]["ThreadsPerQuery"] = "1"
        srv.extra_ini["Parameters"]["MaxQueryMem"] = "8M"
        srv._write_ini()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            p = plan(c, QUERIES["leading key"][0])
            check("plans: GroupAggregate without Gather at ThreadsPerQuery 1",
                  "GroupAggregate" in p and "Gather" not in p and "split by" not in p, p)
            p = plan(c, QUERIES["ordered limit"][0])
            check("plans: GROUP BY k ORDER BY k LIMIT needs no sort on one thread",
                  "GroupAggregate" in p and "Sort" not in p, p)
            for name, (sql, _, _) in QUERIES.items():
                one = rows(c, sql)
                check("answers: %s as at 1 thread" % name, one == answers[name],
                      "2 threads %r\n1 thread %r" % (answers[name][1][:5], one[1][:5]))
            nq = "SELECT u, count(*), sum(v) FROM (SELECT u, v FROM ga_u ORDER BY u) q GROUP BY u"
            check("answers: NULL keys as at 1 thread", rows(c, nq) == answers["null keys"])
            # memory: 200 000 groups, a batch's held
            ea = plan(c, "SELECT count(*), sum(c) FROM (SELECT k, n, count(*) c FROM ga_f "
                         "GROUP BY k, n) q", analyze=True)
            mem = [int(m) for m in re.findall(r"GroupAggregate[^\n]*memory=(\d+) kB", ea)]
            check("memory: the streaming group-by holds a batch's groups",
                  mem and max(mem) < 2048 and "HashAggregate" not in ea.split("GroupAggregate")[1], ea)
            tmp = os.path.join(srv.folder, "cadenza-temp")
            check("memory: no temporary file left",
                  not os.path.isdir(tmp) or not os.listdir(tmp), repr(os.listdir(tmp)) if os.path.isdir(tmp) else "")
    except Exception as ex:
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}\n{srv.log_tail()}")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

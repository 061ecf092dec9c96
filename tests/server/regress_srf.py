#!/usr/bin/env python3
"""The SQLSTATEs around set-returning functions in a select list,
composite values and the integers' bit operators (issue 11 item 8), as
PostgreSQL 15 gives them, the session alive after each:

  srf       in WHERE, JOIN ON, HAVING, CASE, COALESCE, VALUES, UPDATE … SET,
            an aggregate's argument 0A000; a step of 0 22023; unnest(integer) 42883;
            (Cadenza) in GROUP BY, nested calls 0A000 (PostgreSQL runs them)
  record    (integer).x 42809; a field the record lacks 42703
  bits      numeric & integer, text & integer, integer << bigint 42883;
            smallint results overflowing as smallint 22003 (the result
            types); unknown & unknown 42725
  arrays    array_agg results described as arrays (psycopg gives lists),
            in text and in binary results (array_send's layout)

Usage: regress_srf.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, answers, state  # noqa: E402


def expect(conn, name, sql, want):
    st, msg = state(conn, sql)
    check(name, st == want and answers(conn), f"got {st} ({msg}), want {want}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    cz = a.kind == "cadenza"
    c = psycopg.connect(a.dsn, autocommit=True)
    c.execute("DROP TABLE IF EXISTS rsrf_t")
    c.execute("CREATE TABLE rsrf_t (id int PRIMARY KEY, n int)")
    c.execute("INSERT INTO rsrf_t VALUES (1, 2), (2, 3)")
    try:
        # ---- set-returning functions
        expect(c, "srf: in WHERE 0A000", "SELECT id FROM rsrf_t WHERE generate_series(1, n) > 1", "0A000")
        expect(c, "srf: in JOIN ON 0A000",
               "SELECT 1 FROM rsrf_t a JOIN rsrf_t b ON a.id = generate_series(1, 2)", "0A000")
        expect(c, "srf: in HAVING 0A000",
               "SELECT n FROM rsrf_t GROUP BY n HAVING generate_series(1, n) > 1", "0A000")
        expect(c, "srf: in VALUES 0A000", "VALUES (generate_series(1, 2))", "0A000")
        expect(c, "srf: in UPDATE SET 0A000", "UPDATE rsrf_t SET n = generate_series(1, 2)", "0A000")
        expect(c, "srf: in an aggregate's argument 0A000",
               "SELECT sum(generate_series(1, n)) FROM rsrf_t", "0A000")
        expect(c, "srf: in CASE 0A000", "SELECT CASE WHEN id > 1 THEN generate_series(1, n) END FROM rsrf_t",
               "0A000")
        expect(c, "srf: in COALESCE 0A000", "SELECT coalesce(generate_series(1, n), 0) FROM rsrf_t", "0A000")
        expect(c, "srf: in a scalar subquery inside CASE",
               "SELECT CASE WHEN id > 1 THEN (SELECT max(g) FROM (SELECT generate_series(1, 3) AS g) s) END "
               "FROM rsrf_t", "result")
        expect(c, "srf: step 0 22023", "SELECT generate_series(1, 5, 0)", "22023")
        expect(c, "srf: unnest(integer) 42883", "SELECT unnest(1)", "42883")
        expect(c, "srf: in the select list", "SELECT id, generate_series(1, n) FROM rsrf_t", "result")
        rows = c.execute("SELECT id, generate_series(1, n), unnest(ARRAY['a', 'b']) FROM rsrf_t "
                         "ORDER BY 1, 2").fetchall()
        check("srf: lockstep rows", rows == [(1, 1, "a"), (1, 2, "b"), (2, 1, "a"), (2, 2, "b"), (2, 3, None)],
              rows)
        if cz:
            expect(c, "srf: in GROUP BY 0A000 (cadenza)",
                   "SELECT generate_series(1, 2) FROM rsrf_t GROUP BY generate_series(1, 2)", "0A000")
            expect(c, "srf: nested 0A000 (cadenza)", "SELECT generate_series(1, generate_series(1, 3))",
                   "0A000")
        # ---- composite values
        expect(c, "record: (integer).x 42809", "SELECT (1).x", "42809")
        expect(c, "record: no such field 42703",
               "SELECT (information_schema._pg_expandarray(ARRAY[1])).y", "42703")
        # ---- bit operators
        expect(c, "bits: numeric & integer 42883", "SELECT 1.5 & 1", "42883")
        expect(c, "bits: text & integer 42883", "SELECT 'a'::text & 1", "42883")
        expect(c, "bits: integer << bigint 42883", "SELECT 1 << 2::bigint", "42883")
        expect(c, "bits: smallint & smallint is smallint 22003",
               "SELECT (32767::smallint & 32767::smallint) + 1::smallint", "22003")
        expect(c, "bits: smallint << is smallint 22003", "SELECT (16384::smallint << 1) - 1::smallint",
               "22003")
        expect(c, "bits: smallint & integer is integer", "SELECT (32767::smallint & 32767) + 1::smallint",
               "result")
        expect(c, "bits: unknown & unknown 42725", "SELECT '1' & '2'", "42725")
        # ---- arrays as a client sees them
        got = c.execute("SELECT array_agg(n ORDER BY n DESC), array_agg(id::text ORDER BY n DESC) "
                        "FROM rsrf_t").fetchone()
        check("arrays: array_agg arrives as lists", got == ([3, 2], ["2", "1"]), got)
        # binary results (array_send's layout), as pgJDBC asks for int4[] once prepared
        cur = c.cursor(binary=True)
        cur.execute("SELECT array_agg(n ORDER BY n DESC), array_agg(CASE WHEN id = 1 THEN NULL ELSE 'a b' END "
                    "ORDER BY n DESC), array_agg(n > 2 ORDER BY n DESC), ARRAY[[1, 2], [3, 4]], "
                    "ARRAY[]::int[], ARRAY[1::bigint, NULL] FROM rsrf_t")
        got = cur.fetchone()
        check("arrays: binary results", got == ([3, 2], ["a b", None], [True, False], [[1, 2], [3, 4]], [],
                                                  [1, None]), got)
    finally:
        c.execute("DROP TABLE IF EXISTS rsrf_t")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Window functions (issue 8, item 6) through the wire, as PostgreSQL 15
answers: the SQLSTATE of every frame and window error (the answers are in
tests/sql/window_frames.test), statement_timeout landing inside one long
partition (a sliding float sum re-aggregates its frame at every row:
minutes of work between two batches when left alone), and a sliding max
whose extreme leaves at every row answering at once (Cadenza only:
PostgreSQL rescans that frame at every row).

Usage: regress_window.py --dsn DSN --kind cadenza|postgres
Prints PASS/FAIL lines and "N passed, N failed"; exit 0 when none failed.
"""
import argparse
import os
import sys
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

T = "rw_win"
SETUP = [
    "DROP TABLE IF EXISTS %s" % T,
    "CREATE TABLE %s (id INTEGER PRIMARY KEY, p INTEGER, o INTEGER, s TEXT)" % T,
    "INSERT INTO %s VALUES (1, 1, 1, 'a'), (2, 1, 2, 'b'), (3, 2, NULL, NULL)" % T,
]

CASES = [
    ("negative ROWS offset", "SELECT sum(o) OVER (ORDER BY id ROWS BETWEEN -1 PRECEDING AND CURRENT ROW) FROM %s", "22013"),
    ("negative ROWS end offset", "SELECT sum(o) OVER (ORDER BY id ROWS BETWEEN CURRENT ROW AND -2 FOLLOWING) FROM %s", "22013"),
    ("negative GROUPS offset", "SELECT sum(o) OVER (ORDER BY o GROUPS -1 PRECEDING) FROM %s", "22013"),
    ("negative RANGE offset", "SELECT sum(o) OVER (ORDER BY o RANGE BETWEEN -1 PRECEDING AND CURRENT ROW) FROM %s", "22013"),
    ("negative RANGE offset as a parameter-free expression", "SELECT sum(o) OVER (ORDER BY o RANGE BETWEEN 1 - 3 PRECEDING AND CURRENT ROW) FROM %s", "22013"),
    ("NULL ROWS offset", "SELECT sum(o) OVER (ROWS NULL PRECEDING) FROM %s", "22004"),
    ("RANGE offset with two ORDER BY columns", "SELECT sum(o) OVER (ORDER BY o, id RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM %s", "42P20"),
    ("RANGE offset without ORDER BY", "SELECT sum(o) OVER (RANGE BETWEEN CURRENT ROW AND 1 FOLLOWING) FROM %s", "42P20"),
    ("RANGE offset over text", "SELECT sum(o) OVER (ORDER BY s RANGE BETWEEN 1 PRECEDING AND CURRENT ROW) FROM %s", "0A000"),
    ("RANGE numeric offset over an integer", "SELECT sum(o) OVER (ORDER BY o RANGE BETWEEN 1.5 PRECEDING AND CURRENT ROW) FROM %s", "0A000"),
    ("frame start UNBOUNDED FOLLOWING", "SELECT sum(o) OVER (ROWS BETWEEN UNBOUNDED FOLLOWING AND CURRENT ROW) FROM %s", "42P20"),
    ("frame end UNBOUNDED PRECEDING", "SELECT sum(o) OVER (ROWS BETWEEN CURRENT ROW AND UNBOUNDED PRECEDING) FROM %s", "42P20"),
    ("current row to a preceding row", "SELECT sum(o) OVER (ROWS BETWEEN CURRENT ROW AND 1 PRECEDING) FROM %s", "42P20"),
    ("following row to the current row", "SELECT sum(o) OVER (ROWS BETWEEN 1 FOLLOWING AND CURRENT ROW) FROM %s", "42P20"),
    ("a column in a ROWS offset", "SELECT sum(o) OVER (ROWS id PRECEDING) FROM %s", "42P10"),
    ("ntile(0)", "SELECT ntile(0) OVER () FROM %s", "22014"),
    ("nth_value(x, 0)", "SELECT nth_value(id, 0) OVER () FROM %s", "22016"),
    ("an undefined window", "SELECT sum(o) OVER w FROM %s", "42704"),
    ("overriding PARTITION BY", "SELECT sum(o) OVER (w PARTITION BY id) FROM %s WINDOW w AS (PARTITION BY p)", "42P20"),
    ("overriding ORDER BY", "SELECT sum(o) OVER (w ORDER BY id) FROM %s WINDOW w AS (ORDER BY o)", "42P20"),
    ("copying a window with a frame", "SELECT sum(o) OVER (w ORDER BY id) FROM %s WINDOW w AS (PARTITION BY p ROWS 1 PRECEDING)", "42P20"),
    ("a window defined twice", "SELECT id FROM %s WINDOW w AS (ORDER BY id), w AS (ORDER BY o)", "42P20"),
    ("a window function without OVER", "SELECT row_number() FROM %s", "42809"),
    ("a window function in WHERE", "SELECT id FROM %s WHERE row_number() OVER () > 1", "42P20"),
    ("a window function in HAVING", "SELECT p FROM %s GROUP BY p HAVING rank() OVER () > 1", "42P20"),
    ("a window function in an aggregate", "SELECT sum(row_number() OVER ()) FROM %s", "42803"),
    ("a window function in a window definition", "SELECT row_number() OVER (ORDER BY rank() OVER ()) FROM %s", "42P20"),
    ("nested window functions", "SELECT sum(rank() OVER ()) OVER () FROM %s", "42P20"),
    ("FILTER on a plain function", "SELECT lower(s) FILTER (WHERE true) FROM %s", "42809"),
    ("FILTER on a non-aggregate window function", "SELECT row_number() FILTER (WHERE true) OVER () FROM %s", "0A000"),
    ("DISTINCT in a window aggregate", "SELECT count(DISTINCT o) OVER () FROM %s", "0A000"),
    ("OVER on a plain function", "SELECT lower(s) OVER () FROM %s", "42809"),
    ("an ungrouped column under a window", "SELECT p, rank() OVER (ORDER BY o) FROM %s GROUP BY p", "42803"),
]

SLOW = ("sliding float sum (re-aggregated at every row)",
        "SELECT count(m) FROM (SELECT sum(g::float8) OVER (ORDER BY g ROWS BETWEEN 200000 "
        "PRECEDING AND CURRENT ROW) AS m FROM generate_series(1, 400000) AS s(g)) t")
FAST = ("sliding max whose extreme leaves at every row (a monotonic queue)",
        "SELECT count(m), sum(m) FROM (SELECT max(-g) OVER (ORDER BY g ROWS BETWEEN 100000 "
        "PRECEDING AND CURRENT ROW) AS m FROM generate_series(1, 300000) AS s(g)) t")
LIMIT_S = 2.5


def fast_sum():
    """sum over g of max(-k) for k in [g - 100000, g]: -(g - 100000) once
    the frame is full, -1 before."""
    return sum(-1 if g <= 100001 else -(g - 100000) for g in range(1, 300001))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        for s in SETUP:
            conn.execute(s)
        for name, sql, want in CASES:
            state = None
            try:
                conn.execute(sql % T).fetchall()
            except psycopg.Error as ex:
                state = ex.diag.sqlstate
            check("%s: %s" % (name, want), state == want, "got %s" % state)
        conn.execute("DROP TABLE %s" % T)
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        conn.execute("SET statement_timeout = '1s'")
        t0 = time.time()
        state = "result"
        try:
            conn.execute(SLOW[1]).fetchall()
        except psycopg.Error as ex:
            state = ex.diag.sqlstate
        secs = time.time() - t0
        check("statement_timeout 1s: %s ends with 57014 in %.1f s" % (SLOW[0], secs),
              state == "57014" and secs < LIMIT_S, "%s after %.1f s" % (state, secs))
        check("session usable after the timeout",
              conn.execute("SELECT 1").fetchone()[0] == 1, "select 1 failed")
    if args.kind != "postgres":
        # PostgreSQL rescans such a frame at every row (minutes); Cadenza's
        # queue answers in well under the time limit
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            conn.execute("SET statement_timeout = '5s'")
            t0 = time.time()
            try:
                row = conn.execute(FAST[1]).fetchone()
            except psycopg.Error as ex:
                row = (ex.diag.sqlstate, None)
            secs = time.time() - t0
            ok = row[0] == 300000 and row[1] == fast_sum()
            check("%s: right answer in %.1f s" % (FAST[0], secs), ok, "got %r" % (row,))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""statement_timeout and cancel requests land promptly inside long scalar
work (issue 7, defect 4): each statement below runs for many seconds when
left alone; under `SET statement_timeout = '1s'` it must end with 57014
within about two seconds, and a CancelRequest (psycopg's conn.cancel()
from another thread) likewise.

Usage: regress_interrupt.py --dsn DSN --kind cadenza|postgres
Prints PASS/FAIL lines and "N passed, N failed"; exit 0 when none failed.
"""
import argparse
import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

LIMIT_S = 2.5  # 1 s timeout plus slack for a loaded two-core machine

STATEMENTS = [
    ("scalar functions over many rows",
     "SELECT count(*) FROM generate_series(1, 50000000) g WHERE md5(g::text) LIKE '%abc%'"),
    ("string building per row",
     "SELECT sum(length(lpad(g::text, 3000, 'xy'))) FROM generate_series(1, 20000000) g"),
    ("sort comparisons",
     "SELECT count(*) FROM (SELECT md5(g::text) AS m FROM generate_series(1, 3000000) g "
     "ORDER BY m OFFSET 1) s"),
    ("nested expressions",
     "SELECT count(*) FROM generate_series(1, 50000000) g WHERE "
     "upper(lower(upper(lower(g::text || 'abc')))) = 'X'"),
]

# Regular expressions (PCRE2): each runs for minutes in one match call or
# one statement when left alone (exponential backtracking below the match
# limit from every start position, or a back-reference pattern), so only a
# check inside the match (PCRE2 callouts, pgcat_regex.c) can stop it in time.
# PostgreSQL's engine answers these at once (a result there).
REGEX_LIMIT_S = 1.5  # 1 s timeout; the check inside a match lands within ms
REGEX_STATEMENTS = [
    ("regex: (a+)+$ over one long subject",
     "SELECT repeat(repeat('a', 18) || 'b', 5000) ~ '(a+)+$'"),
    ("regex: back-reference pattern over one long subject",
     "SELECT (repeat(repeat('ab', 8) || 'x', 2000) || 'd') ~ '((a|b)*)*\\1yd'"),
    ("regex: regexp_replace g over one long subject",
     "SELECT length(regexp_replace(repeat(repeat('a', 18) || 'b', 5000), '(a+)+$', 'x', 'g'))"),
    ("regex: (a+)+$ over many rows",
     "SELECT count(*) FROM generate_series(1, 1000000) g WHERE (repeat('a', 19) || 'b' || g) ~ '(a+)+$'"),
]

BIG_VALUES = [
    ("repeat to 300 MB", "SELECT length(repeat('x', 300000000))"),
    ("lpad to 300 MB", "SELECT length(lpad('', 300000000, 'xy'))"),
]


def run_timed(conn, sql):
    """The SQLSTATE the statement ends with ("result" when it succeeds)
    and the seconds it took."""
    t0 = time.time()
    state = "result"
    try:
        conn.execute(sql).fetchall()
    except psycopg.Error as ex:
        state = ex.diag.sqlstate
    return state, time.time() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    for name, sql in STATEMENTS:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            conn.execute("SET statement_timeout = '1s'")
            t0 = time.time()
            state = None
            try:
                conn.execute(sql).fetchall()
            except psycopg.Error as ex:
                state = ex.diag.sqlstate
            secs = time.time() - t0
            check("statement_timeout 1s: %s ends with 57014 in %.1f s" % (name, secs),
                  state == "57014" and secs < LIMIT_S,
                  "SQLSTATE %s after %.1f s" % (state, secs))
            alive = conn.execute("SELECT 1").fetchone()[0] == 1
            check("session usable after the timeout (%s)" % name, alive, "select 1 failed")

    for name, sql in REGEX_STATEMENTS:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            conn.execute("SET statement_timeout = '1s'")
            state, secs = run_timed(conn, sql)
            want = ("57014", "result") if args.kind == "postgres" else ("57014",)
            check("statement_timeout 1s: %s ends with 57014 in %.2f s" % (name, secs),
                  state in want and secs < REGEX_LIMIT_S, "%s after %.2f s" % (state, secs))
            alive = conn.execute("SELECT 1").fetchone()[0] == 1
            check("session usable after the timeout (%s)" % name, alive, "select 1 failed")

    # A catastrophic pattern that passes PCRE2's match limit from one start
    # position ends at once with 54001 naming the limit, no timeout needed.
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        t0 = time.time()
        state, msg = "result", ""
        try:
            conn.execute("SELECT (repeat('a', 40) || 'b') ~ '(a+)+$'").fetchall()
        except psycopg.Error as ex:
            state, msg = ex.diag.sqlstate, ex.diag.message_primary or ""
        secs = time.time() - t0
        if args.kind == "postgres":
            check("(a+)+$ on 40 a's answers (postgres)", state == "result", state)
        else:
            check("(a+)+$ on 40 a's ends with 54001 naming the match limit in %.2f s" % secs,
                  state == "54001" and "match limit" in msg and secs < REGEX_LIMIT_S,
                  "%s %r after %.2f s" % (state, msg, secs))

    # One call building one long value (seconds of work in one function
    # call before the fix): a result or 57014, either within the limit.
    for name, sql in BIG_VALUES:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            conn.execute("SET statement_timeout = '1s'")
            t0 = time.time()
            state = "result"
            try:
                conn.execute(sql).fetchall()
            except psycopg.Error as ex:
                state = ex.diag.sqlstate
            secs = time.time() - t0
            check("statement_timeout 1s: %s ends in %.1f s (%s)" % (name, secs, state),
                  state in ("result", "57014", "53200", "54000") and secs < LIMIT_S,
                  "%s after %.1f s" % (state, secs))

    for name, sql in STATEMENTS[:2]:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            timer = threading.Timer(1.0, conn.cancel)
            t0 = time.time()
            state = None
            timer.start()
            try:
                conn.execute(sql).fetchall()
            except psycopg.Error as ex:
                state = ex.diag.sqlstate
            secs = time.time() - t0
            timer.cancel()
            check("cancel request after 1 s: %s ends with 57014 in %.1f s" % (name, secs),
                  state == "57014" and secs < LIMIT_S,
                  "SQLSTATE %s after %.1f s" % (state, secs))

    for name, sql in REGEX_STATEMENTS[:2]:
        with psycopg.connect(args.dsn, autocommit=True) as conn:
            timer = threading.Timer(1.0, conn.cancel)
            timer.start()
            state, secs = run_timed(conn, sql)
            timer.cancel()
            want = ("57014", "result") if args.kind == "postgres" else ("57014",)
            check("cancel request after 1 s: %s ends with 57014 in %.2f s" % (name, secs),
                  state in want and secs < REGEX_LIMIT_S, "%s after %.2f s" % (state, secs))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

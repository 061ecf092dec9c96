#!/usr/bin/env python3
"""isolated_regex — regular expressions end with a clear error, never a
crash or a runaway (issue 7: no statement takes the server past its
limits).

A server with a small MaxQueryMem (32M) runs patterns whose PCRE2 match
heap (its backtracking frames: one per iteration of a repeated group)
grows with the subject: past the query's budget they must end with 53200
(the heap is charged to MaxQueryMem), below it with a result. Then the
errors each pattern class gets, with PostgreSQL's SQLSTATEs: 2201B for an
invalid pattern or a PCRE2-only construct, 22023 for a bad flag, 0A000 for
the basic/extended syntaxes, 54001 naming the limit for a match past the
backtracking limits; the session and server keep working after each.

Usage: isolated_regex.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, sqlstate_of  # noqa: E402

QUERY_MEM = 32 << 20

# (name, statement, SQLSTATE wanted from Cadenza; PostgreSQL's when it differs)
ERRORS = [
    ("unbalanced parenthesis", "SELECT 'a' ~ '('", "2201B", "2201B"),
    ("repetition bound past 255", "SELECT 'a' ~ 'a{256}'", "2201B", "2201B"),
    ("unknown escape", "SELECT 'a' ~ '\\q'", "2201B", "2201B"),
    ("possessive quantifier (PCRE2 only)", "SELECT 'a' ~ 'a++'", "2201B", "2201B"),
    ("callout (PCRE2 only)", "SELECT 'a' ~ '(?C1)a'", "2201B", "2201B"),
    ("verb (PCRE2 only)", "SELECT 'a' ~ '(*LIMIT_MATCH=1)a'", "2201B", "2201B"),
    ("back-reference to a later group", "SELECT 'a' ~ '\\1(a)'", "2201B", "2201B"),
    ("groups nested past the limit",
     "SELECT 'a' ~ (repeat('(', 5000) || 'a' || repeat(')', 5000))", "2201B", None),
    ("bad flag", "SELECT regexp_like('a', 'a', 'z')", "22023", "22023"),
    ("global flag where none applies", "SELECT regexp_match('a', 'a', 'g')", "22023", "22023"),
    ("start 0", "SELECT regexp_count('a', 'a', 0)", "22023", "22023"),
    ("basic POSIX syntax", "SELECT regexp_like('a', 'a', 'b')", "0A000", None),
    ("variable-length lookbehind", "SELECT 'ab' ~ '(?<=a+)b'", "2201B", None),
    ("catastrophic backtracking", "SELECT (repeat('a', 40) || 'b') ~ '(a+)+$'", "54001", None),
]


def main():
    a = checks.isolated_args()
    srv = checks.isolated_server(a, "regex", {"MaxQueryMem": QUERY_MEM}, both=True)
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as conn:
            conn.execute("SET statement_timeout = '30s'")
            if a.kind != "postgres":
                # ~120 bytes of frame per iteration of the group: 400,000
                # iterations need ~50 MB, past the 32 MB budget
                state, msg, secs = sqlstate_of(conn, "SELECT repeat('ab', 200000) ~ '^(a|b)*$'")
                check("a match heap past MaxQueryMem ends with 53200 (%.2f s)" % secs,
                      state == "53200", "%s %s" % (state, msg))
                state, msg, secs = sqlstate_of(conn, "SELECT repeat('ab', 20000) ~ '^(a|b)*$'")
                check("the same pattern within the budget answers", state == "result",
                      "%s %s" % (state, msg))
            for name, sql, cz_state, pg_state in ERRORS:
                want = pg_state if a.kind == "postgres" else cz_state
                state, msg, secs = sqlstate_of(conn, sql)
                if want is None:
                    check("%s answers (PostgreSQL)" % name, state == "result", state)
                else:
                    check("%s: %s" % (name, want), state == want, "%s %s" % (state, msg))
                if a.kind != "postgres" and want == "54001":
                    check("%s names the limit" % name, "limit" in msg, msg)
                    check("%s ends in under 1.5 s" % name, secs < 1.5, "%.2f s" % secs)
                alive = conn.execute("SELECT 'ab' ~ '^(ab)$'").fetchone()[0] is True
                check("session matches after: %s" % name, alive, "no answer")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

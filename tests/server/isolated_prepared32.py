#!/usr/bin/env python3
"""One prepared statement executed at once from 32 sessions (issue 8,
acceptance: "one prepared statement executed at once from 32 sessions gives
correct answers"). A server of its own with ThreadsPerQuery = 2, so that
the sessions also compete for the server's query workers (MaxQueryThreads)
and a Gather's workers run the same plan as other sessions' executions.

Each of 32 sessions prepares the same statements server-side (psycopg's
prepare=True: Parse once, then Bind/Execute), all wait at a barrier, then
execute them at the same instant, several rounds with parameters of their
own:

  aggregate   a parallel group-by over 150 000 rows (Gather, partial and
              final aggregation) under a parameter; the expected rows are
              computed here from the formula that generated the data
  join        a hash join with a group-by and ORDER BY … LIMIT
  subquery    a correlated scalar subquery and an IN subquery
  update      UPDATE … WHERE k = $1 RETURNING on rows of the session's own
              (its changes and only its changes come back)
For join and subquery the expected rows are the same statement's answer
run alone on one session before the concurrent part. Every session's every
answer must equal the expected one; the server must stay up.
With --kind postgres the same checks run on PostgreSQL 15.
"""
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None

SESSIONS = 32
ROUNDS = 4
ROWS = 150000

AGG_Q = ("SELECT a %% 7, count(*), sum(b), min(c), max(c) FROM p32_t "
         "WHERE a >= %s GROUP BY a %% 7 ORDER BY 1")
JOIN_Q = ("SELECT u.g, count(*), sum(t.b) FROM p32_t t JOIN p32_u u ON t.b = u.k "
          "WHERE t.a < %s GROUP BY u.g ORDER BY 2 DESC, 1 LIMIT 5")
SUB_Q = ("SELECT u.k, (SELECT count(*) FROM p32_t t WHERE t.b = u.k AND t.a < %s) "
         "FROM p32_u u WHERE u.k IN (SELECT b FROM p32_t WHERE a %% 1000 = 3) "
         "ORDER BY u.k LIMIT 40")
UPD_Q = "UPDATE p32_s SET v = v + 1 WHERE k = %s RETURNING k, v"


def setup(c):
    c.execute("CREATE TABLE p32_t (a integer, b integer, c text)")
    c.execute("INSERT INTO p32_t SELECT g, g % 1000, 'c' || (g % 97) "
              f"FROM generate_series(1, {ROWS}) g")
    c.execute("CREATE TABLE p32_u (k integer PRIMARY KEY, g integer)")
    c.execute("INSERT INTO p32_u SELECT g, g % 13 FROM generate_series(0, 999) g")
    c.execute("CREATE TABLE p32_s (k integer PRIMARY KEY, v integer)")
    c.execute(f"INSERT INTO p32_s SELECT g, 0 FROM generate_series(0, {SESSIONS - 1}) g")
    c.execute("ANALYZE")


def agg_expected(lo):
    """The aggregate's answer from the data's formula (a = g, b = g % 1000,
    c = 'c' || g % 97), as text, ORDER BY a % 7."""
    groups = {}
    for a in range(max(lo, 1), ROWS + 1):
        g = groups.setdefault(a % 7, [0, 0, None, None])
        c = "c%d" % (a % 97)
        g[0] += 1
        g[1] += a % 1000
        g[2] = c if g[2] is None or c < g[2] else g[2]
        g[3] = c if g[3] is None or c > g[3] else g[3]
    return [(str(k), str(v[0]), str(v[1]), v[2], v[3]) for k, v in sorted(groups.items())]


def text_rows(rows):
    return [tuple(None if v is None else str(v) for v in r) for r in rows]


def param(sid, rnd, span):
    """The session's lower bound in round rnd: one of 8 values, so that
    sessions share statements' answers and the expected ones are few."""
    return span * (1 + (sid + rnd) % 8) // 9


def main():
    args = checks.isolated_args()
    if psycopg is None:
        return checks.skip("psycopg is not installed")
    srv = checks.isolated_server(args, "prepared32", both=True,
                                 params={"ThreadsPerQuery": 2, "MaxQueryThreads": 4})
    with checks.running(srv):
        c0 = psycopg.connect(srv.dsn(), autocommit=True)
        setup(c0)
        expect = {}
        lows = sorted({param(s, r, ROWS) for s in range(SESSIONS) for r in range(ROUNDS)})
        for lo in lows:
            expect[("agg", lo)] = agg_expected(lo)
            expect[("join", lo)] = text_rows(c0.execute(JOIN_Q, (lo,)).fetchall())
            expect[("sub", lo)] = text_rows(c0.execute(SUB_Q, (lo,)).fetchall())
        if args.kind == "cadenza":
            plan = "\n".join(r[0] for r in c0.execute(
                "EXPLAIN " + AGG_Q.replace("%%", "%").replace("%s", "1")).fetchall())
            check("aggregate runs under a Gather", "Gather" in plan, plan)
        # The aggregate checked alone first: a wrong plan shows here plainly.
        lo = lows[0]
        got = text_rows(c0.execute(AGG_Q, (lo,)).fetchall())
        check("aggregate alone", got == expect[("agg", lo)],
              "got %r, expected %r" % (got[:2], expect[("agg", lo)][:2]))

        barrier = threading.Barrier(SESSIONS)
        wrong = []
        errors = []
        lock = threading.Lock()

        def session(sid):
            try:
                with psycopg.connect(srv.dsn(), autocommit=True) as c:
                    for rnd in range(ROUNDS):
                        lo = param(sid, rnd, ROWS)
                        barrier.wait(timeout=120)
                        for name, q in (("agg", AGG_Q), ("join", JOIN_Q), ("sub", SUB_Q)):
                            got = text_rows(c.execute(q, (lo,), prepare=True).fetchall())
                            if got != expect[(name, lo)]:
                                with lock:
                                    wrong.append((sid, rnd, name, got[:3],
                                                  expect[(name, lo)][:3]))
                        got = text_rows(c.execute(UPD_Q, (sid,), prepare=True).fetchall())
                        if got != [(str(sid), str(rnd + 1))]:
                            with lock:
                                wrong.append((sid, rnd, "update", got, [(sid, rnd + 1)]))
            except Exception as ex:  # noqa: BLE001 - reported as a failed check
                with lock:
                    errors.append("session %d: %s" % (sid, ex))
                barrier.abort()

        threads = [threading.Thread(target=session, args=(i,)) for i in range(SESSIONS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=600)
        check("32 sessions ran", not errors and not any(t.is_alive() for t in threads),
              "; ".join(errors[:3]) or "a session did not finish")
        check("32 sessions' answers", not wrong,
              "%d wrong, first: %r" % (len(wrong), wrong[:1]))
        final = c0.execute("SELECT count(*), sum(v) FROM p32_s").fetchone()
        check("updates all applied", tuple(final) == (SESSIONS, SESSIONS * ROUNDS),
              "got %r" % (tuple(final),))
        check("server still answers", checks.answers(c0))
        c0.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""INSERT … ON CONFLICT through the wire (issue 8, item 6), as PostgreSQL 15
answers under read committed:

  sqlstates   21000 a row affected twice by one DO UPDATE, 42P10 a target
              no unique index matches, 42601 DO UPDATE without a target,
              42704 an unknown constraint, 23505 a conflict on another
              unique index than the arbiter, 42703 an unknown column; the
              session goes on working after each
  wait        a session upserting a key another session's open transaction
              inserted waits for it, then updates that row (commit) or
              inserts its own (rollback): never 23505
  counters    8 connections each upsert counters (`n = n + 1`) on the same
              few keys, one key or several (ascending) per statement, on
              the primary key and on a unique index of a table without
              one; every proposal that succeeded is counted exactly once in
              the final rows (no lost update, no duplicate row) and no
              statement fails with 23505 or 40001
  nothing     8 connections DO NOTHING-insert the same keys: each key once,
              the RETURNING rows of all sessions add up to the keys

Usage: regress_upsert.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import random
import sys
import threading
import time

import psycopg
from psycopg import pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SQLSTATE = pq.DiagnosticField.SQLSTATE
SESSIONS = 8
KEYS = 6
ROUNDS = 60


def run(conn, sql):
    """(sqlstate or None, rows) of one statement in simple protocol."""
    r = conn.pgconn.exec_(sql.encode())
    st = r.error_field(SQLSTATE)
    if st:
        return st.decode(), []
    rows = [tuple(r.get_value(i, j) for j in range(r.nfields)) for i in range(r.ntuples)]
    return None, rows


def sqlstates(dsn):
    c = psycopg.connect(dsn, autocommit=True)
    for s in ["DROP TABLE IF EXISTS rup_s",
              "CREATE TABLE rup_s (k INTEGER PRIMARY KEY, v INTEGER, tag TEXT UNIQUE)",
              "INSERT INTO rup_s VALUES (1, 1, 'a'), (2, 2, 'b')"]:
        run(c, s)
    cases = [
        ("twice", "INSERT INTO rup_s VALUES (3, 0, 'c'), (3, 0, 'd') "
                  "ON CONFLICT (k) DO UPDATE SET v = excluded.v", "21000"),
        ("twice existing", "INSERT INTO rup_s VALUES (1, 0, 'c'), (1, 0, 'd') "
                           "ON CONFLICT (k) DO UPDATE SET v = excluded.v", "21000"),
        ("no arbiter", "INSERT INTO rup_s VALUES (3, 0, 'c') ON CONFLICT (v) DO NOTHING", "42P10"),
        ("no target", "INSERT INTO rup_s VALUES (3, 0, 'c') ON CONFLICT DO UPDATE SET v = 1",
         "42601"),
        ("unknown constraint", "INSERT INTO rup_s VALUES (3, 0, 'c') "
                               "ON CONFLICT ON CONSTRAINT rup_nope DO NOTHING", "42704"),
        ("other index", "INSERT INTO rup_s VALUES (3, 0, 'a') "
                        "ON CONFLICT (k) DO UPDATE SET v = 0", "23505"),
        ("unknown column", "INSERT INTO rup_s VALUES (3, 0, 'c') "
                           "ON CONFLICT (k) DO UPDATE SET nosuch = 0", "42703"),
    ]
    for name, sql, want in cases:
        st, _ = run(c, sql)
        check("sqlstate %s" % name, st == want, "got %s, want %s" % (st, want))
        st, rows = run(c, "SELECT count(*) FROM rup_s")
        check("sqlstate %s: nothing kept, session alive" % name,
              st is None and rows == [(b"2",)], "%s %s" % (st, rows))
    run(c, "DROP TABLE rup_s")
    c.close()


def waits(dsn):
    a = psycopg.connect(dsn, autocommit=True)
    b = psycopg.connect(dsn, autocommit=True)
    run(a, "DROP TABLE IF EXISTS rup_w")
    run(a, "CREATE TABLE rup_w (k INTEGER PRIMARY KEY, n INTEGER)")
    for outcome in ("COMMIT", "ROLLBACK"):
        run(a, "DELETE FROM rup_w")
        run(a, "BEGIN")
        st, _ = run(a, "INSERT INTO rup_w VALUES (1, 1) ON CONFLICT (k) DO UPDATE SET n = rup_w.n + 1")
        res = {}

        def other():
            res["r"] = run(b, "INSERT INTO rup_w VALUES (1, 1) ON CONFLICT (k) "
                              "DO UPDATE SET n = rup_w.n + 10 RETURNING n")
        t = threading.Thread(target=other)
        t.start()
        time.sleep(0.5)
        check("wait %s: the second session waits" % outcome, t.is_alive(), "it did not wait")
        run(a, outcome)
        t.join(20)
        want = b"11" if outcome == "COMMIT" else b"1"
        got = res.get("r")
        check("wait %s: then updates or inserts" % outcome,
              got is not None and got[0] is None and got[1] == [(want,)], "got %s" % (got,))
        st, rows = run(a, "SELECT n FROM rup_w")
        check("wait %s: one row" % outcome, rows == [(want,)], "rows %s" % rows)
    run(a, "DROP TABLE rup_w")
    a.close()
    b.close()


def counters(dsn, table, create, conflict, value_of):
    setup = psycopg.connect(dsn, autocommit=True)
    run(setup, "DROP TABLE IF EXISTS %s" % table)
    run(setup, create)
    counts = [[0] * KEYS for _ in range(SESSIONS)]
    errors = []

    def worker(w):
        rnd = random.Random(w)
        c = psycopg.connect(dsn, autocommit=True)
        for _ in range(ROUNDS):
            if rnd.random() < 0.5:
                keys = [rnd.randrange(KEYS)]
            else:
                keys = sorted(rnd.sample(range(KEYS), rnd.randrange(2, KEYS + 1)))
            vals = ", ".join("(%s, 1)" % value_of(k) for k in keys)
            st, rows = run(c, "INSERT INTO %s VALUES %s ON CONFLICT (%s) "
                              "DO UPDATE SET n = %s.n + excluded.n RETURNING n"
                           % (table, vals, conflict, table))
            if st is None and len(rows) == len(keys):
                for k in keys:
                    counts[w][k] += 1
            else:
                errors.append(st or "%d rows for %d keys" % (len(rows), len(keys)))
        c.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    bad = [e for e in errors if e != "40P01"]
    check("counters %s: no statement failed (40P01 aside)" % table, not bad,
          "%d failed: %s" % (len(bad), sorted(set(bad))))
    st, rows = run(setup, "SELECT %s, n FROM %s" % (conflict, table))
    got = {r[0].decode(): int(r[1]) for r in rows}
    want = {value_of(k).strip("'"): sum(counts[w][k] for w in range(SESSIONS))
            for k in range(KEYS) if sum(counts[w][k] for w in range(SESSIONS)) > 0}
    check("counters %s: one row per key, every success counted once" % table,
          st is None and len(rows) == len(got) and got == want,
          "rows %s, want %s" % (sorted(got.items()), sorted(want.items())))
    run(setup, "DROP TABLE %s" % table)
    setup.close()


def nothing(dsn):
    setup = psycopg.connect(dsn, autocommit=True)
    run(setup, "DROP TABLE IF EXISTS rup_n")
    run(setup, "CREATE TABLE rup_n (k INTEGER PRIMARY KEY, w INTEGER)")
    returned = [0] * SESSIONS
    errors = []

    def worker(w):
        c = psycopg.connect(dsn, autocommit=True)
        for base in range(0, 200, 10):
            vals = ", ".join("(%d, %d)" % (k, w) for k in range(base, base + 10))
            st, rows = run(c, "INSERT INTO rup_n VALUES %s ON CONFLICT DO NOTHING RETURNING k" % vals)
            if st:
                errors.append(st)
            returned[w] += len(rows)
        c.close()

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(SESSIONS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    bad = [e for e in errors if e != "40P01"]
    check("nothing: no statement failed", not bad, "%s" % sorted(set(bad)))
    st, rows = run(setup, "SELECT count(*), count(DISTINCT k) FROM rup_n")
    check("nothing: each key once", rows == [(b"200", b"200")], "rows %s" % rows)
    check("nothing: the sessions' RETURNING rows add up", sum(returned) == 200 or errors,
          "returned %d" % sum(returned))
    run(setup, "DROP TABLE rup_n")
    setup.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    sqlstates(args.dsn)
    waits(args.dsn)
    counters(args.dsn, "rup_pk", "CREATE TABLE rup_pk (k INTEGER PRIMARY KEY, n INTEGER)", "k",
             lambda k: "%d" % k)
    counters(args.dsn, "rup_ix", "CREATE TABLE rup_ix (name TEXT UNIQUE, n INTEGER)", "name",
             lambda k: "'key%d'" % k)
    nothing(args.dsn)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

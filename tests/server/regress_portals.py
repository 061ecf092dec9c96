#!/usr/bin/env python3
"""Portals of one prepared statement, fetched interleaved (issue 8, item
1: one plan runs in many executions at once). Through the extended
protocol (raw messages, as libpq cannot Execute a named portal with a row
limit):

  interleaved  two portals bound from one named statement (a hash join, a
               sort, a correlated scalar subquery; another with a hash
               aggregate) with different parameters, fetched a few rows at
               a time in turn, each give exactly the rows the same query
               gives alone
  bind_later   a third portal bound while the first two are suspended
               mid-way gives its full answer too, and so do they
  sql_cursors  two SQL cursors over one query, fetched in turn inside a
               block, give their full answers
  dml_limit    an INSERT … RETURNING executed with a row limit of 2, then
               Sync: the statement ran to its end (every row inserted, as
               PostgreSQL runs a writing portal whole at its first Execute),
               also when the portal is closed in an open block that commits
Usage: regress_portals.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402
import fuzz  # noqa: E402
import psycopg  # noqa: E402

P = "rportal_"
m, cs = fuzz.msg, fuzz.cstr

JOIN_Q = (f"SELECT t.a, t.c, u.k, (SELECT count(*) FROM {P}v v WHERE v.n = t.a % 10) "
          f"FROM {P}t t JOIN {P}u u ON t.a = u.a WHERE t.c >= $1 ORDER BY t.a, u.k")
AGG_Q = (f"SELECT t.b, count(*), sum(u.k), (SELECT max(v.d) FROM {P}v v WHERE v.g = t.b) "
         f"FROM {P}t t JOIN {P}u u ON t.a = u.a WHERE t.c >= $1 GROUP BY t.b ORDER BY t.b")


def raw_login(dsn):
    kw = dict(p.split("=", 1) for p in dsn.split())
    return fuzz.login(kw.get("host", "127.0.0.1"), int(kw.get("port", "5432")), kw["user"],
                      kw.get("password", ""), kw.get("dbname", kw["user"]))


def setup(cur):
    for t in ("t", "u", "v"):
        cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
    cur.execute(f"CREATE TABLE {P}t (a integer, b text, c integer)")
    cur.execute(f"CREATE TABLE {P}u (a integer, k integer)")
    cur.execute(f"CREATE TABLE {P}v (n integer, g text, d text)")
    cur.execute(f"INSERT INTO {P}t SELECT g, 'b' || (g % 9), (g * 37) % 1000 "
                f"FROM generate_series(1, 600) g")
    cur.execute(f"INSERT INTO {P}u SELECT g % 400, g FROM generate_series(1, 900) g")
    cur.execute(f"INSERT INTO {P}v SELECT g % 10, 'b' || (g % 7), 'd' || g "
                f"FROM generate_series(1, 50) g")


def expected(cur, q, param):
    cur.execute(q.replace("%", "%%").replace("$1", "%s"), (param,))
    return [tuple(None if v is None else str(v) for v in r) for r in cur.fetchall()]


def read_until(s, stops):
    """Messages until one whose type is in stops: (rows, that type, error)."""
    rows = []
    while True:
        t, body = s.read_msg()
        if t == b"D":
            (n,) = struct.unpack("!h", body[:2])
            off, row = 2, []
            for _ in range(n):
                (ln,) = struct.unpack("!i", body[off:off + 4])
                off += 4
                row.append(None if ln < 0 else body[off:off + ln].decode())
                off += max(ln, 0)
            rows.append(tuple(row))
        elif t == b"E":
            return rows, t, fuzz.error_fields(body)
        elif t in stops:
            return rows, t, None


def bind(s, portal, stmt, param):
    s.send(m(b"B", cs(portal) + cs(stmt) + struct.pack("!hh", 0, 1) +
             struct.pack("!i", len(param)) + param.encode() + struct.pack("!h", 0)) + m(b"H"))
    _, t, err = read_until(s, (b"2",))
    return t == b"2", err


def fetch(s, portal, n):
    """One Execute of n rows: (rows, done, error)."""
    s.send(m(b"E", cs(portal) + struct.pack("!i", n)) + m(b"H"))
    rows, t, err = read_until(s, (b"s", b"C"))
    return rows, t == b"C", err


def interleave(s, portals, got, step, rounds=None):
    """Fetches step rows of each unfinished portal in turn (at most rounds
    turns when given); returns an error text or None."""
    turn = 0
    while any(not d for d in portals.values()) and (rounds is None or turn < rounds):
        for p in portals:
            if portals[p]:
                continue
            rows, done, err = fetch(s, p, step)
            if err:
                return "portal %s: %r" % (p, err)
            got[p].extend(rows)
            portals[p] = done
        turn += 1
    return None


def test_interleaved(dsn, cur):
    want = {"j1": expected(cur, JOIN_Q, 100), "j2": expected(cur, JOIN_Q, 700),
            "g1": expected(cur, AGG_Q, 0), "g2": expected(cur, AGG_Q, 500)}
    check("setup_nontrivial", all(len(w) >= 5 for w in want.values()) and want["j1"] != want["j2"],
          "expected row counts %s" % {k: len(v) for k, v in want.items()})
    s = raw_login(dsn)
    try:
        s.send(m(b"P", cs(P + "sj") + cs(JOIN_Q) + struct.pack("!hi", 1, 23)) +
               m(b"P", cs(P + "sg") + cs(AGG_Q) + struct.pack("!hi", 1, 23)) + m(b"H"))
        _, t1, e1 = read_until(s, (b"1",))
        _, t2, e2 = read_until(s, (b"1",))
        if not check("parse", t1 == b"1" and t2 == b"1", "%r %r" % (e1, e2)):
            return
        binds = [("j1", "sj", "100"), ("j2", "sj", "700"), ("g1", "sg", "0"), ("g2", "sg", "500")]
        ok = all(bind(s, p, P + st, v)[0] for p, st, v in binds)
        if not check("bind_two_portals_each", ok, "a Bind failed"):
            return
        got = {p: [] for p, _, _ in binds}
        done = {p: False for p in got}
        # a few turns first, then a third portal of the join bound mid-way
        err = interleave(s, done, got, 7, rounds=3)
        check("interleaved_no_error", err is None, err or "")
        ok3, e3 = bind(s, "j3", P + "sj", "300")
        check("bind_later", ok3, "%r" % (e3,))
        got["j3"], done["j3"] = [], False
        want["j3"] = expected(cur, JOIN_Q, 300)
        err = interleave(s, done, got, 5)
        check("interleaved_rest_no_error", err is None, err or "")
        for p in ("j1", "j2", "g1", "g2"):
            check("interleaved_%s_full_answer" % p, got[p] == want[p],
                  "got %d rows, want %d; first difference at %s" % (len(got[p]), len(want[p]),
                                                                   first_diff(got[p], want[p])))
        check("bind_later_full_answer", got["j3"] == want["j3"],
              "got %d rows, want %d" % (len(got["j3"]), len(want["j3"])))
        s.send(m(b"S"))
        read_until(s, (b"Z",))
    finally:
        s.close()


def first_diff(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return "row %d: %r vs %r" % (i, x, y)
    return "row %d (one ends)" % min(len(a), len(b))


def test_sql_cursors(conn, cur):
    q = JOIN_Q.replace("$1", "200")
    want = expected(cur, JOIN_Q, 200)
    with conn.transaction():
        c2 = conn.cursor()
        c2.execute(f"DECLARE {P}c1 CURSOR FOR {q}")
        c2.execute(f"DECLARE {P}c2 CURSOR FOR {q}")
        got = {1: [], 2: []}
        done = {1: False, 2: False}
        while not all(done.values()):
            for i in (1, 2):
                if done[i]:
                    continue
                c2.execute(f"FETCH 6 FROM {P}c{i}")
                rows = [tuple(None if v is None else str(v) for v in r) for r in c2.fetchall()]
                got[i].extend(rows)
                done[i] = len(rows) < 6
    check("sql_cursors_interleaved", got[1] == want and got[2] == want,
          "got %d and %d rows, want %d" % (len(got[1]), len(got[2]), len(want)))


def test_dml_limit(dsn, cur):
    cur.execute(f"DROP TABLE IF EXISTS {P}w")
    cur.execute(f"CREATE TABLE {P}w (a integer)")
    s = raw_login(dsn)
    try:
        for label, block in (("implicit transaction", False), ("block, portal closed", True)):
            cur.execute(f"DELETE FROM {P}w")
            if block:
                s.send(m(b"Q", cs("BEGIN")))
                read_until(s, (b"Z",))
            s.send(m(b"P", cs("") + cs(f"INSERT INTO {P}w SELECT g FROM generate_series(1, 50) g "
                                       f"RETURNING a") + struct.pack("!h", 0)) +
                   m(b"B", cs("") + cs("") + struct.pack("!hhh", 0, 0, 0)) +
                   m(b"E", cs("") + struct.pack("!i", 2)) +
                   (m(b"C", b"P" + cs("")) if block else b"") + m(b"S"))
            rows, t, err = read_until(s, (b"Z",))
            if block:
                s.send(m(b"Q", cs("COMMIT")))
                read_until(s, (b"Z",))
            n = cur.execute(f"SELECT count(*) FROM {P}w").fetchone()[0]
            check("dml_limit (%s): 2 rows returned, all 50 inserted" % label,
                  err is None and len(rows) == 2 and n == 50,
                  "rows %d inserted %d error %r" % (len(rows), n, err))
    finally:
        s.close()
        cur.execute(f"DROP TABLE IF EXISTS {P}w")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    conn = psycopg.connect(a.dsn, autocommit=True)
    cur = conn.cursor()
    setup(cur)
    try:
        test_interleaved(a.dsn, cur)
        test_sql_cursors(conn, cur)
        test_dml_limit(a.dsn, cur)
    finally:
        for t in ("t", "u", "v"):
            cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
        conn.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

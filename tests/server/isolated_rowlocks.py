#!/usr/bin/env python3
"""isolated_rowlocks — row locks of SELECT … FOR UPDATE / FOR SHARE,
lock_timeout and deadlocks with concurrent clients (issue 11 item 6), the
same answers as PostgreSQL 15 (the script runs on both).

- FOR UPDATE: a second FOR UPDATE and an UPDATE of the row wait until the
  holder commits; NOWAIT fails at once with 55P03 "could not obtain lock
  on row in relation …"; SKIP LOCKED leaves the held rows out; a plain
  SELECT never waits.
- FOR SHARE: two sessions share a row, an UPDATE waits for both, a FOR
  UPDATE NOWAIT fails; two sharers that both update deadlock (40P01).
- After a wait the row is checked again (read committed): a row the
  holder changed so that WHERE no longer holds is left out, a row it
  changed otherwise is returned as changed, a deleted row is left out.
- Savepoints: ROLLBACK TO releases the row locks taken after the
  savepoint (FOR UPDATE, FOR SHARE, an UPDATE's, a DELETE's): another
  session's NOWAIT gets them; those taken before it stay (55P03), also
  after a ROLLBACK TO a savepoint taken after them; RELEASE SAVEPOINT
  keeps them.
- Strengths: every pair of FOR KEY SHARE / SHARE / NO KEY UPDATE /
  UPDATE, and an UPDATE that keeps the key, one that changes it, and a
  DELETE against each held strength, conflict exactly as in PostgreSQL's
  table; a foreign key check (an INSERT of a referencing row) takes KEY
  SHARE: the parent row's non-key update goes on, its delete waits.
- The job queue: 4 workers `SELECT … FOR UPDATE SKIP LOCKED LIMIT 1`,
  mark the job done and commit, until the queue is empty: every job done
  exactly once, none by two workers.
- lock_timeout: a wait longer than it fails with 55P03 "canceling
  statement due to lock timeout" after about that long (SET, and the
  server's [Parameters] LockTimeout default on Cadenza); statement_timeout
  still ends a lock wait (57014); a deadlock of two sessions is 40P01 for
  one, the other goes on.

Usage: isolated_rowlocks.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, sqlstate_of  # noqa: E402

JOBS = 200
WORKERS = 4


def connect(dsn, **kw):
    return psycopg.connect(dsn, autocommit=True, connect_timeout=10, **kw)


class Bg:
    """A statement run on another thread: its rows or its SQLSTATE, and
    whether it is still running (waiting for a lock)."""

    def __init__(self, conn, sql):
        self.conn, self.sql = conn, sql
        self.rows = self.state = None
        self.t = threading.Thread(target=self.run, daemon=True)
        self.t.start()

    def run(self):
        try:
            cur = self.conn.execute(self.sql)
            self.rows = cur.fetchall() if cur.description else cur.rowcount
            self.state = "ok"
        except psycopg.Error as ex:
            self.state = ex.diag.sqlstate

    def waiting(self, secs=0.4):
        self.t.join(secs)
        return self.t.is_alive()

    def done(self, secs=10):
        self.t.join(secs)
        return not self.t.is_alive()


def setup(c):
    c.execute("DROP TABLE IF EXISTS rl_t")
    c.execute("CREATE TABLE rl_t (id integer PRIMARY KEY, st text, v integer)")
    c.execute("INSERT INTO rl_t SELECT g, 'new', g FROM generate_series(1, 10) AS t(g)")


def for_update(dsn):
    with connect(dsn) as a, connect(dsn) as b:
        setup(a)
        a.execute("BEGIN")
        got = a.execute("SELECT id, v FROM rl_t WHERE id = 1 FOR UPDATE").fetchall()
        check("FOR UPDATE returns the row", got == [(1, 1)], repr(got))
        got = b.execute("SELECT v FROM rl_t WHERE id = 1").fetchall()
        check("a plain SELECT does not wait for the lock", got == [(1,)], repr(got))
        b.execute("BEGIN")
        st, msg, _ = sqlstate_of(b, "SELECT * FROM rl_t WHERE id = 1 FOR UPDATE NOWAIT")
        check("NOWAIT on a locked row: 55P03", st == "55P03" and
              msg == 'could not obtain lock on row in relation "rl_t"', "%s %s" % (st, msg))
        b.execute("ROLLBACK")
        b.execute("BEGIN")
        got = b.execute("SELECT id FROM rl_t WHERE id <= 3 ORDER BY id FOR UPDATE SKIP LOCKED").fetchall()
        check("SKIP LOCKED leaves the locked row out", got == [(2,), (3,)], repr(got))
        st, _, _ = sqlstate_of(b, "SELECT * FROM rl_t WHERE id = 2 FOR UPDATE NOWAIT")
        check("the locking session's own lock is no conflict", st == "result", st)
        b.execute("ROLLBACK")
        w = Bg(b, "UPDATE rl_t SET v = v + 100 WHERE id = 1")
        check("an UPDATE waits for a FOR UPDATE lock", w.waiting(), w.state)
        a.execute("COMMIT")
        check("… and goes on once the holder commits", w.done() and w.state == "ok", w.state)
        got = a.execute("SELECT v FROM rl_t WHERE id = 1").fetchone()[0]
        check("… its change applied", got == 101, repr(got))
        # FOR UPDATE waits for FOR UPDATE
        a.execute("BEGIN")
        a.execute("SELECT * FROM rl_t WHERE id = 2 FOR NO KEY UPDATE")
        b.execute("BEGIN")
        w = Bg(b, "SELECT v FROM rl_t WHERE id = 2 FOR UPDATE")
        check("FOR UPDATE waits for FOR NO KEY UPDATE", w.waiting(), w.state)
        a.execute("ROLLBACK")
        check("… and gets the row after a rollback", w.done() and w.rows == [(2,)], repr(w.rows))
        b.execute("COMMIT")


def for_share(dsn):
    with connect(dsn) as a, connect(dsn) as b, connect(dsn) as c:
        setup(a)
        a.execute("BEGIN")
        b.execute("BEGIN")
        ga = a.execute("SELECT id FROM rl_t WHERE id = 3 FOR SHARE").fetchall()
        gb = b.execute("SELECT id FROM rl_t WHERE id = 3 FOR SHARE NOWAIT").fetchall()
        check("two sessions hold FOR SHARE at once", ga == gb == [(3,)], "%r %r" % (ga, gb))
        st, msg, _ = sqlstate_of(c, "SELECT * FROM rl_t WHERE id = 3 FOR UPDATE NOWAIT")
        check("FOR UPDATE NOWAIT of a shared row: 55P03", st == "55P03", "%s %s" % (st, msg))
        w = Bg(c, "UPDATE rl_t SET v = 0 WHERE id = 3")
        check("an UPDATE waits for the sharers", w.waiting(), w.state)
        a.execute("COMMIT")
        check("… still waits for the second", w.waiting(), w.state)
        b.execute("COMMIT")
        check("… and goes on when both ended", w.done() and w.state == "ok", w.state)
        # two sharers that both update: a deadlock, one of them 40P01
        a.execute("BEGIN")
        b.execute("BEGIN")
        a.execute("SELECT * FROM rl_t WHERE id = 4 FOR SHARE")
        b.execute("SELECT * FROM rl_t WHERE id = 4 FOR SHARE")
        wa = Bg(a, "UPDATE rl_t SET v = 1 WHERE id = 4")
        wa.waiting(0.3)
        wb = Bg(b, "UPDATE rl_t SET v = 2 WHERE id = 4")
        ok = wa.done() and wb.done()
        states = sorted([wa.state, wb.state])
        check("two sharers updating: one 40P01, the other updates", ok and states == ["40P01", "ok"],
              repr(states))
        a.execute("ROLLBACK")
        b.execute("ROLLBACK")


def recheck(dsn):
    with connect(dsn) as a, connect(dsn) as b:
        setup(a)
        cases = [
            ("UPDATE rl_t SET v = 50 WHERE id = 5", "SELECT id, v FROM rl_t WHERE v = 5 FOR UPDATE", [],
             "a row changed so that WHERE fails is left out"),
            ("UPDATE rl_t SET st = 'x' WHERE id = 6",
             "SELECT id, st, v * 2 FROM rl_t WHERE v = 6 FOR UPDATE", [(6, "x", 12)],
             "a row changed otherwise comes as changed"),
            ("DELETE FROM rl_t WHERE id = 7", "SELECT id FROM rl_t WHERE id BETWEEN 7 AND 8 FOR UPDATE",
             [(8,)], "a deleted row is left out"),
            ("UPDATE rl_t SET v = v + 1 WHERE id = 9",
             "SELECT id, v FROM rl_t WHERE id = 9 FOR SHARE", [(9, 10)],
             "FOR SHARE sees the committed change"),
        ]
        for change, query, want, name in cases:
            a.execute("BEGIN")
            a.execute(change)
            b.execute("BEGIN")
            w = Bg(b, query)
            waited = w.waiting(0.3)
            a.execute("COMMIT")
            ok = w.done() and w.rows == want
            check("after a wait, %s" % name, waited and ok, "%s %r" % (w.state, w.rows))
            b.execute("COMMIT")


def queue(dsn):
    with connect(dsn) as c:
        c.execute("DROP TABLE IF EXISTS rl_q")
        c.execute("CREATE TABLE rl_q (id integer PRIMARY KEY, done_by integer, n integer DEFAULT 0)")
        c.execute("INSERT INTO rl_q (id) SELECT g FROM generate_series(1, %d) AS t(g)" % JOBS)
    taken = [[] for _ in range(WORKERS)]
    errors = []

    def worker(k):
        try:
            with connect(dsn) as w:
                while True:
                    with w.transaction():
                        row = w.execute("SELECT id FROM rl_q WHERE done_by IS NULL ORDER BY id "
                                        "FOR UPDATE SKIP LOCKED LIMIT 1").fetchone()
                        if row is None:
                            return
                        time.sleep(0.002)  # the work: others meanwhile take other rows
                        w.execute("UPDATE rl_q SET done_by = %s, n = n + 1 WHERE id = %s", (k, row[0]))
                    taken[k].append(row[0])
        except psycopg.Error as ex:
            errors.append("%s %s" % (ex.diag.sqlstate, ex))

    ts = [threading.Thread(target=worker, args=(k,), daemon=True) for k in range(WORKERS)]
    t0 = time.time()
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    secs = time.time() - t0
    alls = [j for t in taken for j in t]
    check("job queue: %d workers drain %d jobs without errors (%.1f s)" % (WORKERS, JOBS, secs),
          not errors and not any(t.is_alive() for t in ts), "; ".join(errors[:3]))
    check("job queue: every job taken exactly once", sorted(alls) == list(range(1, JOBS + 1)),
          "%d taken, %d distinct" % (len(alls), len(set(alls))))
    check("job queue: more than one worker got jobs", sum(1 for t in taken if t) > 1,
          repr([len(t) for t in taken]))
    with connect(dsn) as c:
        got = c.execute("SELECT count(*), sum(n), count(DISTINCT done_by) FROM rl_q").fetchone()
        check("job queue: each row updated once", got[0] == JOBS and got[1] == JOBS, repr(got))
        c.execute("DROP TABLE rl_q")


def timeouts(dsn, kind):
    with connect(dsn) as a, connect(dsn) as b:
        setup(a)
        a.execute("BEGIN")
        a.execute("SELECT * FROM rl_t WHERE id = 1 FOR UPDATE")
        b.execute("SET lock_timeout = '300ms'")
        for sql in ("UPDATE rl_t SET v = 0 WHERE id = 1", "SELECT * FROM rl_t WHERE id = 1 FOR SHARE",
                    "DELETE FROM rl_t WHERE id = 1"):
            st, msg, secs = sqlstate_of(b, sql)
            check("lock_timeout 300ms: %s → 55P03 after %.2f s" % (sql.split()[0], secs),
                  st == "55P03" and msg == "canceling statement due to lock timeout" and
                  0.25 <= secs < 2.0, "%s %s %.2f" % (st, msg, secs))
        got = b.execute("SHOW lock_timeout").fetchone()[0]
        check("SHOW lock_timeout", got == "300ms", repr(got))
        b.execute("SET lock_timeout = 0")
        b.execute("SET statement_timeout = '300ms'")
        st, msg, secs = sqlstate_of(b, "UPDATE rl_t SET v = 0 WHERE id = 1")
        check("statement_timeout still ends a lock wait (57014, %.2f s)" % secs,
              st == "57014" and secs < 2.0, "%s %s" % (st, msg))
        b.execute("SET statement_timeout = 0")
        st, msg, _ = sqlstate_of(b, "SET lock_timeout = 'soon'")
        check("a bad lock_timeout: 22023", st == "22023", "%s %s" % (st, msg))
        a.execute("ROLLBACK")
        # a deadlock: 40P01 for one of two sessions, the other goes on
        a.execute("BEGIN")
        b.execute("BEGIN")
        a.execute("SELECT * FROM rl_t WHERE id = 1 FOR UPDATE")
        b.execute("SELECT * FROM rl_t WHERE id = 2 FOR UPDATE")
        wa = Bg(a, "SELECT * FROM rl_t WHERE id = 2 FOR UPDATE")
        wa.waiting(0.3)
        wb = Bg(b, "UPDATE rl_t SET v = 7 WHERE id = 1")
        ok = wa.done() and wb.done()
        states = sorted([wa.state, wb.state])
        check("deadlock through FOR UPDATE: one 40P01, the other goes on",
              ok and states == ["40P01", "ok"], repr(states))
        a.execute("ROLLBACK")
        b.execute("ROLLBACK")
        a.execute("DROP TABLE rl_t")


ERRORS = [
    ("SELECT DISTINCT st FROM rl_t FOR UPDATE", "0A000", "FOR UPDATE is not allowed with DISTINCT clause"),
    ("SELECT st FROM rl_t GROUP BY st FOR SHARE", "0A000", "FOR SHARE is not allowed with GROUP BY clause"),
    ("SELECT count(*) FROM rl_t FOR NO KEY UPDATE", "0A000",
     "FOR NO KEY UPDATE is not allowed with aggregate functions"),
    ("SELECT id, rank() OVER (ORDER BY v) FROM rl_t FOR KEY SHARE", "0A000",
     "FOR KEY SHARE is not allowed with window functions"),
    ("SELECT id FROM rl_t UNION SELECT id FROM rl_t FOR UPDATE", "0A000",
     "FOR UPDATE is not allowed with UNION/INTERSECT/EXCEPT"),
    ("VALUES (1) FOR SHARE", "0A000", "FOR SHARE cannot be applied to VALUES"),
    ("SELECT * FROM rl_t a LEFT JOIN rl_t b ON a.id = b.v FOR UPDATE", "0A000",
     "FOR UPDATE cannot be applied to the nullable side of an outer join"),
    ("SELECT * FROM rl_t FOR UPDATE OF x", "42P01",
     'relation "x" in FOR UPDATE clause not found in FROM clause'),
]


def errors(dsn):
    with connect(dsn) as c:
        setup(c)
        for sql, want, words in ERRORS:
            st, msg, _ = sqlstate_of(c, sql)
            check("%s: %s" % (sql, want), st == want and msg == words, "%s %s" % (st, msg))
        check("the session answers after", checks.answers(c))


def savepoints(dsn):
    with connect(dsn) as a, connect(dsn) as b:
        setup(a)
        nowait = "SELECT id FROM rl_t WHERE id = %d FOR UPDATE NOWAIT"
        a.execute("BEGIN")
        a.execute("SELECT id FROM rl_t WHERE id = 1 FOR UPDATE")
        a.execute("UPDATE rl_t SET v = 100 WHERE id = 2")
        a.execute("SAVEPOINT s1")
        a.execute("SELECT id FROM rl_t WHERE id = 3 FOR UPDATE")
        a.execute("SELECT id FROM rl_t WHERE id = 4 FOR SHARE")
        a.execute("UPDATE rl_t SET v = 500 WHERE id = 5")
        a.execute("DELETE FROM rl_t WHERE id = 6")
        a.execute("UPDATE rl_t SET v = 200 WHERE id = 2")  # locked before s1
        a.execute("ROLLBACK TO SAVEPOINT s1")
        for k in (3, 4, 5, 6):
            b.execute("BEGIN")
            st, _, _ = sqlstate_of(b, nowait % k)
            check("ROLLBACK TO releases the lock taken after the savepoint (row %d)" % k,
                  st == "result", st)
            b.execute("ROLLBACK")
        for k in (1, 2):
            b.execute("BEGIN")
            st, _, _ = sqlstate_of(b, nowait % k)
            check("a lock taken before the savepoint stays (row %d)" % k, st == "55P03", st)
            b.execute("ROLLBACK")
        # a savepoint after the locks: rolling back to it keeps them
        a.execute("SAVEPOINT s2")
        a.execute("SELECT id FROM rl_t WHERE id = 7 FOR UPDATE")
        a.execute("SAVEPOINT s3")
        a.execute("ROLLBACK TO SAVEPOINT s3")
        a.execute("RELEASE SAVEPOINT s2")
        b.execute("BEGIN")
        st, _, _ = sqlstate_of(b, nowait % 7)
        check("ROLLBACK TO a later savepoint and RELEASE keep the lock", st == "55P03", st)
        b.execute("ROLLBACK")
        # a waiter gets the row when the savepoint is rolled back
        a.execute("SAVEPOINT s4")
        a.execute("UPDATE rl_t SET v = 800 WHERE id = 8")
        w = Bg(b, "UPDATE rl_t SET v = v + 1 WHERE id = 8")
        waited = w.waiting()
        a.execute("ROLLBACK TO SAVEPOINT s4")
        check("a writer waiting for a row locked after the savepoint goes on at ROLLBACK TO",
              waited and w.done(5) and w.state == "ok", "%s %s" % (waited, w.state))
        a.execute("COMMIT")
        got = a.execute("SELECT id, v FROM rl_t WHERE id IN (2, 5, 6, 8) ORDER BY id").fetchall()
        check("… and the committed rows are those before the savepoint",
              got == [(2, 100), (5, 5), (6, 6), (8, 9)], got)


STRENGTHS = ("KEY SHARE", "SHARE", "NO KEY UPDATE", "UPDATE")
# PostgreSQL's conflict table: held -> the strengths and writes it blocks
BLOCKS = {
    "KEY SHARE": {"UPDATE", "key update", "delete"},
    "SHARE": {"NO KEY UPDATE", "UPDATE", "update", "key update", "delete"},
    "NO KEY UPDATE": {"SHARE", "NO KEY UPDATE", "UPDATE", "update", "key update", "delete"},
    "UPDATE": {"KEY SHARE", "SHARE", "NO KEY UPDATE", "UPDATE", "update", "key update",
               "delete"},
}


def outcome(conn, sql):
    """"result" or the SQLSTATE of sql (a write too)."""
    try:
        conn.execute(sql)
        return "result"
    except psycopg.Error as ex:
        return ex.diag.sqlstate


def strengths(dsn):
    writes = {"update": "UPDATE rl_t SET v = v + 1 WHERE id = 1",
              "key update": "UPDATE rl_t SET id = 100 WHERE id = 1",
              "delete": "DELETE FROM rl_t WHERE id = 1"}
    with connect(dsn) as a, connect(dsn) as b:
        setup(a)
        b.execute("SET lock_timeout = '150ms'")
        for held in STRENGTHS:
            a.execute("BEGIN")
            a.execute("SELECT id FROM rl_t WHERE id = 1 FOR " + held)
            for asked in STRENGTHS + tuple(writes):
                sql = writes.get(asked) or "SELECT id FROM rl_t WHERE id = 1 FOR %s NOWAIT" % asked
                b.execute("BEGIN")
                st = outcome(b, sql)
                b.execute("ROLLBACK")
                want = "55P03" if asked in BLOCKS[held] else "result"
                check("FOR %s held: %s %s" % (held, asked, "waits" if want != "result" else "goes on"),
                      st == want, st)
            a.execute("ROLLBACK")
        # a foreign key check takes KEY SHARE on the parent row
        a.execute("DROP TABLE IF EXISTS rl_child")
        a.execute("DROP TABLE IF EXISTS rl_parent")
        a.execute("CREATE TABLE rl_parent (id integer PRIMARY KEY, v integer)")
        a.execute("CREATE TABLE rl_child (id integer PRIMARY KEY, pid integer REFERENCES rl_parent)")
        a.execute("INSERT INTO rl_parent VALUES (1, 1), (2, 2)")
        a.execute("BEGIN")
        a.execute("INSERT INTO rl_child VALUES (1, 1)")
        b.execute("BEGIN")
        st = outcome(b, "UPDATE rl_parent SET v = v + 1 WHERE id = 1")
        b.execute("ROLLBACK")
        check("a foreign key check's KEY SHARE lets the parent's non-key update through",
              st == "result", st)
        b.execute("BEGIN")
        st = outcome(b, "DELETE FROM rl_parent WHERE id = 1")
        b.execute("ROLLBACK")
        check("… and makes the parent's delete wait", st == "55P03", st)
        a.execute("ROLLBACK")
        a.execute("DROP TABLE rl_child")
        a.execute("DROP TABLE rl_parent")


def ini_default(args):
    srv = checks.isolated_server(args, "rowlocks_ini", {"LockTimeout": 250})
    with checks.running(srv):
        with connect(srv.dsn()) as a, connect(srv.dsn()) as b:
            setup(a)
            got = b.execute("SHOW lock_timeout").fetchone()[0]
            check("[Parameters] LockTimeout 250 is the sessions' lock_timeout", got == "250ms", repr(got))
            b.execute("SET lock_timeout = '2s'")
            b.execute("RESET lock_timeout")
            got = b.execute("SHOW lock_timeout").fetchone()[0]
            check("RESET lock_timeout goes back to LockTimeout", got == "250ms", repr(got))
            a.execute("BEGIN")
            a.execute("UPDATE rl_t SET v = 0 WHERE id = 1")
            st, _, secs = sqlstate_of(b, "SELECT * FROM rl_t WHERE id = 1 FOR UPDATE")
            check("… and a wait past it is 55P03 (%.2f s)" % secs, st == "55P03" and secs < 2.0, st)
            a.execute("ROLLBACK")


def main():
    args = checks.isolated_args()
    srv = checks.isolated_server(args, "rowlocks", both=True)
    with checks.running(srv):
        dsn = srv.dsn()
        errors(dsn)
        for_update(dsn)
        for_share(dsn)
        recheck(dsn)
        savepoints(dsn)
        strengths(dsn)
        queue(dsn)
        timeouts(dsn, args.kind)
    if args.kind == "cadenza":
        ini_default(args)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Concurrency test: N client connections (default 32) run mixed inserts,
updates, deletes and selects for a while (default 60 s) against any
PostgreSQL-protocol server; at the end the tables must equal what the
committed operations imply.

Tables (dropped and made fresh):
  cc_counter(k INTEGER PRIMARY KEY, v BIGINT)   K keys, every v starts at 0
  cc_log(w INTEGER, seq INTEGER, val INTEGER, PRIMARY KEY (w, seq))
Each worker (one connection, its own thread) loops over random operations:
  inc      autocommit UPDATE cc_counter SET v = v + 1 WHERE k = ?
  txn      BEGIN; 1-3 increments of random keys (random order, so deadlocks
           can happen); INSERT of a log row; COMMIT, or ROLLBACK one time in 8
  insert   autocommit INSERT INTO cc_log VALUES (w, seq, val)
  delete   autocommit DELETE of one of its own committed log rows
  read     SELECT v of a key: never smaller than what this worker saw before
           (increments only; read committed sees every earlier commit)
  count    SELECT count(*) of its own log rows: equals its committed rows
  scan     SELECT sum(v) FROM cc_counter: never smaller than its last scan
A worker records an operation only when its COMMIT (or the autocommit
statement) returned. Errors allowed: serialization failure (40001) and
deadlock (40P01): the transaction is rolled back, counted, and not
recorded. Any other error, a lost connection or a failed check fails the
test. At the end: every counter equals the number of committed increments
of its key, and cc_log holds exactly the committed, not deleted rows.
Exit status 0 on success; prints a summary line.
"""
import argparse
import random
import sys
import threading
import time

import psycopg
from psycopg import errors

RETRYABLE = ("40001", "40P01")


class Worker(threading.Thread):
    def __init__(self, wid, dsn, keys, deadline, seed):
        super().__init__(name="w%d" % wid, daemon=True)
        self.wid, self.dsn, self.keys, self.deadline = wid, dsn, keys, deadline
        self.rng = random.Random(seed)
        self.inc = [0] * keys          # committed increments per key
        self.rows = {}                 # committed log rows: seq -> val
        self.seq = 0
        self.seen = [0] * keys         # highest v read per key
        self.last_sum = 0
        self.ops = {}
        self.retries = {c: 0 for c in RETRYABLE}
        self.error = None

    def count(self, op):
        self.ops[op] = self.ops.get(op, 0) + 1

    def run(self):
        try:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                self.conn = conn
                while time.monotonic() < self.deadline and self.error is None:
                    self.step()
        except Exception as e:  # noqa: BLE001 - anything else is a failure
            if self.error is None:
                self.error = "%s: %s: %s" % (self.name, type(e).__name__, e)

    def step(self):
        c, r = self.conn, self.rng
        op = r.choices(["inc", "txn", "insert", "delete", "read", "count", "scan"],
                       [25, 20, 20, 5, 15, 10, 5])[0]
        try:
            if op == "inc":
                k = r.randrange(self.keys)
                cur = c.execute("UPDATE cc_counter SET v = v + 1 WHERE k = %s", (k,))
                if cur.rowcount != 1:
                    self.error = "%s: increment of key %d updated %d rows" % (self.name, k, cur.rowcount)
                    return
                self.inc[k] += 1
            elif op == "txn":
                ks = [r.randrange(self.keys) for _ in range(r.randint(1, 3))]
                self.seq += 1
                seq, val = self.seq, r.randrange(1000000)
                c.execute("BEGIN")
                try:
                    for k in ks:
                        c.execute("UPDATE cc_counter SET v = v + 1 WHERE k = %s", (k,))
                    c.execute("INSERT INTO cc_log VALUES (%s, %s, %s)", (self.wid, seq, val))
                    if r.randrange(8) == 0:
                        c.execute("ROLLBACK")
                        op = "txn_rollback"
                    else:
                        c.execute("COMMIT")
                        for k in ks:
                            self.inc[k] += 1
                        self.rows[seq] = val
                except errors.Error:
                    if c.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                        c.execute("ROLLBACK")
                    raise
            elif op == "insert":
                self.seq += 1
                val = r.randrange(1000000)
                c.execute("INSERT INTO cc_log VALUES (%s, %s, %s)", (self.wid, self.seq, val))
                self.rows[self.seq] = val
            elif op == "delete":
                if not self.rows:
                    return
                seq = r.choice(list(self.rows))
                cur = c.execute("DELETE FROM cc_log WHERE w = %s AND seq = %s", (self.wid, seq))
                if cur.rowcount != 1:
                    self.error = "%s: delete of its row %d deleted %d rows" % (self.name, seq, cur.rowcount)
                    return
                del self.rows[seq]
            elif op == "read":
                k = r.randrange(self.keys)
                row = c.execute("SELECT v FROM cc_counter WHERE k = %s", (k,)).fetchone()
                v = int(row[0])
                if v < self.seen[k] or v < self.inc[k]:
                    self.error = ("%s: key %d read %d after having seen %d (own increments %d)"
                                  % (self.name, k, v, self.seen[k], self.inc[k]))
                    return
                self.seen[k] = v
            elif op == "count":
                n = int(c.execute("SELECT count(*) FROM cc_log WHERE w = %s", (self.wid,)).fetchone()[0])
                if n != len(self.rows):
                    self.error = "%s: sees %d own log rows, committed %d" % (self.name, n, len(self.rows))
                    return
            elif op == "scan":
                s = c.execute("SELECT sum(v) FROM cc_counter").fetchone()[0]
                s = int(s or 0)
                if s < self.last_sum:
                    self.error = "%s: sum(v) went down from %d to %d" % (self.name, self.last_sum, s)
                    return
                self.last_sum = s
            self.count(op)
        except errors.Error as e:
            state = getattr(e, "sqlstate", None)
            if state in RETRYABLE:
                self.retries[state] += 1
                return
            raise


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--keys", type=int, default=64)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    print("concurrency: %d clients, %.0f s, %d keys, seed %d" % (a.clients, a.seconds, a.keys, seed))
    with psycopg.connect(a.dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS cc_counter")
        c.execute("DROP TABLE IF EXISTS cc_log")
        c.execute("CREATE TABLE cc_counter (k INTEGER PRIMARY KEY, v BIGINT NOT NULL)")
        c.execute("CREATE TABLE cc_log (w INTEGER, seq INTEGER, val INTEGER, PRIMARY KEY (w, seq))")
        c.execute("INSERT INTO cc_counter VALUES " + ", ".join("(%d, 0)" % k for k in range(a.keys)))
    deadline = time.monotonic() + a.seconds
    ws = [Worker(i, a.dsn, a.keys, deadline, seed + i) for i in range(a.clients)]
    t0 = time.monotonic()
    for w in ws:
        w.start()
    # one deadline for all: a worker stuck in a statement (a server that
    # stopped answering) must not stall the test
    end = deadline + 120
    for w in ws:
        w.join(max(0.0, end - time.monotonic()))
    dt = time.monotonic() - t0
    failures = [w.error for w in ws if w.error]
    hung = [w.name for w in ws if w.is_alive()]
    if hung:
        failures.append("%d workers still inside a statement %.0f s after the end (server stalled?): %s"
                        % (len(hung), dt - a.seconds, " ".join(hung)))
    ops = {}
    for w in ws:
        for k, v in w.ops.items():
            ops[k] = ops.get(k, 0) + v
    retries = {s: sum(w.retries[s] for w in ws) for s in RETRYABLE}
    if not hung:
        want_v = [sum(w.inc[k] for w in ws) for k in range(a.keys)]
        want_rows = {(w.wid, s): v for w in ws for s, v in w.rows.items()}
        with psycopg.connect(a.dsn, autocommit=True) as c:
            got_v = dict((int(k), int(v)) for k, v in c.execute("SELECT k, v FROM cc_counter"))
            got_rows = {(int(w), int(s)): int(v) for w, s, v in c.execute("SELECT w, seq, val FROM cc_log")}
        if sorted(got_v) != list(range(a.keys)):
            failures.append("cc_counter has keys %s" % sorted(got_v)[:20])
        bad = [(k, got_v.get(k), want_v[k]) for k in range(a.keys) if got_v.get(k) != want_v[k]]
        if bad:
            failures.append("%d counters differ from the committed increments (key, got, want): %s"
                            % (len(bad), bad[:10]))
        missing = [r for r in want_rows if r not in got_rows]
        extra = [r for r in got_rows if r not in want_rows]
        wrong = [r for r in want_rows if r in got_rows and got_rows[r] != want_rows[r]]
        if missing or extra or wrong:
            failures.append("cc_log: %d committed rows missing %s, %d rows never committed %s, %d wrong values"
                            % (len(missing), missing[:5], len(extra), extra[:5], len(wrong)))
        print("final state: %d increments in %d counters, %d log rows"
              % (sum(want_v), a.keys, len(want_rows)))
    total = sum(ops.values())
    print("operations: %d in %.1f s (%.0f/s): %s" % (total, dt, total / dt if dt else 0,
          ", ".join("%s %d" % kv for kv in sorted(ops.items()))))
    print("serialization failures 40001: %d, deadlocks 40P01: %d" % (retries["40001"], retries["40P01"]))
    if total == 0:
        failures.append("no operation completed")
    for f in failures:
        print("FAIL:", f)
    print("CONCURRENCY TEST %s" % ("PASSED" if not failures else "FAILED"))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())

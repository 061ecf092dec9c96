#!/usr/bin/env python3
"""Every acknowledged commit survives kill -9 while many commit at once
(issue 11, item 7: the write path; txn/README.md, "Group commit").

Each cycle: 24 clients insert single rows in autocommit (extended protocol,
a prepared INSERT, as pgbench -M prepared does), so that commits share log
flushes; 2 more clients insert 2,000 wide rows per statement (a commit
record of about half a megabyte, which the log writes straight from the
committer's memory, between the small ones' groups). A client notes a row
or batch as *in doubt* before the statement goes out and as *acknowledged*
when the answer came. The server is killed with SIGKILL at a random moment
and restarted (the log then ends in preallocated zeros or a torn group).

After each restart:
  - every acknowledged row and batch is there;
  - nothing is there that was never sent;
  - a batch is wholly there or wholly absent;
  - in-doubt rows found become acknowledged (they must stay in later
    cycles), those not found are forgotten.
A final clean restart checks everything once more.

With --kind postgres the same runs against PostgreSQL 15 (the reference).
Usage: isolated_commitcrash.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import os
import random
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SMALL = 24
BIG = 2
BATCH = 2000
ROUNDS = 5


class Client(checks.KillClient):
    def __init__(self, dsn, killing, base, big):
        super().__init__(dsn, killing)
        self.k, self.big = base, big
        self.acked, self.doubt = [], []

    def step(self, conn):
        k = self.k
        self.doubt.append(k)
        if self.big:
            conn.execute("INSERT INTO cc_big SELECT g, %s, repeat('w', 200) FROM "
                         "generate_series(%s::bigint, %s::bigint) g",
                         (k, k, k + BATCH - 1), prepare=True)
        else:
            conn.execute("INSERT INTO cc_row VALUES (%s, %s)", (k, k % 1000), prepare=True)
        self.doubt.pop()
        self.acked.append(k)
        self.k += BATCH if self.big else 1


def setup(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS cc_row, cc_big")
        c.execute("CREATE TABLE cc_row (k BIGINT PRIMARY KEY, v INTEGER)")
        c.execute("CREATE TABLE cc_big (k BIGINT PRIMARY KEY, b BIGINT, pad TEXT)")


def verify(dsn, label, rows, batches):
    """rows, batches: the acknowledged keys (batches by first key). Returns
    the keys present, or None when the check itself failed."""
    with psycopg.connect(dsn, autocommit=True) as c:
        have = set(r[0] for r in c.execute("SELECT k FROM cc_row"))
        groups = {b: n for b, n in c.execute("SELECT b, count(*) FROM cc_big GROUP BY b")}
    lost = sorted(rows - have)
    check("%s: %d acknowledged single-row commits present" % (label, len(rows)), not lost,
          "%d lost, e.g. %s" % (len(lost), lost[:5]))
    lost_b = sorted(b for b in batches if groups.get(b) != BATCH)
    check("%s: %d acknowledged %d-row commits whole" % (label, len(batches), BATCH),
          not lost_b, "lost or partial: %s" % [(b, groups.get(b)) for b in lost_b[:5]])
    partial = sorted((b, n) for b, n in groups.items() if n != BATCH)
    check("%s: no partial batch" % label, not partial, repr(partial[:5]))
    return have, set(groups)


def main():
    args = checks.isolated_args()
    rounds = int(os.environ.get("CZ_COMMITCRASH_ROUNDS", ROUNDS))
    srv = checks.isolated_server(args, "commitcrash", both=True)
    rng = random.Random(int(os.environ.get("CZ_SEED", time.time())))
    rows, batches = set(), set()
    next_base = 1
    srv.start()
    try:
        setup(srv.dsn())
        for cycle in range(rounds):
            killing = threading.Event()
            clients = []
            for i in range(SMALL + BIG):
                big = i >= SMALL
                clients.append(Client(srv.dsn(), killing, next_base, big))
                next_base += 10_000_000
            checks.kill_cycle(srv, clients, killing, 1.0 + rng.random() * 2.5, "cycle %d" % cycle)
            n_small = sum(len(t.acked) for t in clients if not t.big)
            n_big = sum(len(t.acked) for t in clients if t.big)
            check("cycle %d: commits acknowledged before the kill (%d rows, %d batches)"
                  % (cycle, n_small, n_big), n_small > 0, "none")
            for t in clients:
                (batches if t.big else rows).update(t.acked)
            srv.start()
            have, have_b = verify(srv.dsn(), "cycle %d" % cycle, rows, batches)
            # nothing that was never sent; in-doubt rows found are kept
            sent = set(rows)
            sent_b = set(batches)
            for t in clients:
                (sent_b if t.big else sent).update(t.doubt)
            ghosts = sorted(have - sent)
            check("cycle %d: no row that was never sent" % cycle, not ghosts, repr(ghosts[:5]))
            ghosts_b = sorted(have_b - sent_b)
            check("cycle %d: no batch that was never sent" % cycle, not ghosts_b, repr(ghosts_b[:5]))
            for t in clients:
                for k in t.doubt:
                    if (k in have_b) if t.big else (k in have):
                        (batches if t.big else rows).add(k)
        srv.stop()
        srv.start()
        verify(srv.dsn(), "after a clean restart", rows, batches)
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("DROP TABLE cc_row, cc_big")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

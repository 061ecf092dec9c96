#!/usr/bin/env python3
"""Sequences survive kill -9 without repeating a value (issue 11, item 1).

Each cycle: 6 clients take values as fast as they can — nextval of a plain
sequence (CACHE 1), of one with CACHE 20, and INSERT … RETURNING id into a
table with a bigserial key and one with an identity key, some inside
transactions that roll back — noting every value the server answered;
then the server is killed with SIGKILL at a random moment and restarted.
After each restart every value any client ever received (acknowledged,
before any crash) must never come again: the clients of the next cycle
check each new value against all earlier ones. After the last cycle the
tables' keys are checked distinct and a clean restart is made too.

With --kind postgres the same runs against PostgreSQL 15 (the reference).
Usage: isolated_seqcrash.py --kind cadenza|postgres --binary PATH --dir DIR
       [--rounds N]
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

CLIENTS = 6
ROUNDS = 5
SOURCES = ("seq1", "seq20", "serial", "ident")


class Client(checks.KillClient):
    def __init__(self, dsn, killing, rng):
        super().__init__(dsn, killing)
        self.rng = rng
        self.got = {k: [] for k in SOURCES}

    def step(self, conn):
        r = self.rng.random()
        if r < 0.3:
            v = conn.execute("SELECT nextval('sc_seq1')").fetchone()[0]
            self.got["seq1"].append(v)
        elif r < 0.55:
            v = conn.execute("SELECT nextval('sc_seq20')").fetchone()[0]
            self.got["seq20"].append(v)
        elif r < 0.75:
            v = conn.execute("INSERT INTO sc_serial (note) VALUES ('x') RETURNING id").fetchone()[0]
            self.got["serial"].append(v)
        elif r < 0.9:
            v = conn.execute("INSERT INTO sc_ident (note) VALUES ('x') RETURNING id").fetchone()[0]
            self.got["ident"].append(v)
        else:
            # values taken in a transaction that rolls back are used up too
            conn.execute("BEGIN")
            v = conn.execute("SELECT nextval('sc_seq1')").fetchone()[0]
            self.got["seq1"].append(v)
            conn.execute("ROLLBACK")


def setup(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS sc_serial, sc_ident")
        c.execute("DROP SEQUENCE IF EXISTS sc_seq1, sc_seq20")
        c.execute("CREATE SEQUENCE sc_seq1")
        c.execute("CREATE SEQUENCE sc_seq20 CACHE 20")
        c.execute("CREATE TABLE sc_serial (id bigserial PRIMARY KEY, note text)")
        c.execute("CREATE TABLE sc_ident (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY,"
                  " note text)")


def main():
    args = checks.isolated_args()
    rounds = int(os.environ.get("CZ_SEQCRASH_ROUNDS", ROUNDS))
    srv = checks.isolated_server(args, "seqcrash", both=True)
    rng = random.Random(int(os.environ.get("CZ_SEED", time.time())))
    seen = {k: set() for k in SOURCES}
    srv.start()
    try:
        setup(srv.dsn())
        for cycle in range(rounds):
            killing = threading.Event()
            clients = [Client(srv.dsn(), killing, random.Random(rng.random()))
                       for _ in range(CLIENTS)]
            checks.kill_cycle(srv, clients, killing, 0.5 + rng.random() * 2.0, "cycle %d" % cycle)
            repeats = []
            n = 0
            for t in clients:
                for k in SOURCES:
                    for v in t.got[k]:
                        n += 1
                        if v in seen[k]:
                            repeats.append("%s %d" % (k, v))
                        seen[k].add(v)
            check("cycle %d: %d values, none repeated" % (cycle, n), not repeats and n > 0,
                  "%d values, repeated: %s" % (n, ", ".join(repeats[:8])))
            srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for tb in ("sc_serial", "sc_ident"):
                row = c.execute("SELECT count(*), count(DISTINCT id) FROM %s" % tb).fetchone()
                check("%s keys distinct after %d crashes" % (tb, rounds), row[0] == row[1],
                      repr(row))
            before = c.execute("SELECT nextval('sc_seq1')").fetchone()[0]
        check("nextval after the crashes is new", before not in seen["seq1"], repr(before))
        seen["seq1"].add(before)
        srv.stop()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            after = c.execute("SELECT nextval('sc_seq1')").fetchone()[0]
            check("nextval after a clean restart is new and larger",
                  after not in seen["seq1"] and after > before, "%r after %r" % (after, before))
            c.execute("DROP TABLE sc_serial, sc_ident")
            c.execute("DROP SEQUENCE sc_seq1, sc_seq20")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Large transactions stream their redo (txn/README.md, "Streamed redo"):
with [Parameters] LogStreamBytes = 64K, a COPY, an INSERT ... SELECT and a
table rewrite (ALTER ... TYPE) whose redo passes the limit many times
commit, roll back (whole and to a savepoint), and survive kill -9 before
and after their commit: every acknowledged row is there, none of an
unacknowledged or rolled-back one.

Checks that the log was written before the commit (the log file grows
while the transaction is open; with streaming off it would not), and the
same statements against PostgreSQL 15 with --kind postgres (the reference:
the same answers, no log check).
Usage: isolated_bigtxn.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

N = 20000            # rows per big statement: about 2 MB of redo, 30 limits
PAD = "p" * 60


def copy_rows(conn, table, first, n):
    with conn.cursor().copy("COPY %s (k, b, pad) FROM STDIN" % table) as cp:
        for k in range(first, first + n):
            cp.write_row((k, k % 97, PAD))


def keys(conn, table):
    return set(r[0] for r in conn.execute("SELECT k FROM %s" % table))


def log_size(srv):
    """Where the log's records end: its last non-zero byte (the file is
    preallocated with zeros ahead of the records)."""
    if srv.kind != "cadenza":
        return None
    with open(os.path.join(srv.folder, "cadenza.trx"), "rb") as f:
        data = f.read()
    return len(data.rstrip(b"\0"))


def b_of(k):
    """bt_dst's b of key k: copied from bt_src's row k, or k - N."""
    return (k if k < N else k - N) % 97


def col_type(conn):
    return conn.execute("SELECT data_type FROM information_schema.columns "
                        "WHERE table_name = 'bt_dst' AND column_name = 'b'").fetchone()[0]


def expect(conn, table, want, label):
    have = keys(conn, table)
    check(label, have == want, "%d rows, %d expected; missing e.g. %s, extra e.g. %s"
          % (len(have), len(want), sorted(want - have)[:3], sorted(have - want)[:3]))


def main():
    args = checks.isolated_args()
    srv = checks.isolated_server(args, "bigtxn", params={"LogStreamBytes": "64K"}, both=True)
    cadenza = srv.kind == "cadenza"
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("DROP TABLE IF EXISTS bt_src, bt_dst")
            for t in ("bt_src", "bt_dst"):
                c.execute("CREATE TABLE %s (k BIGINT PRIMARY KEY, b INTEGER, pad TEXT)" % t)
            c.execute("CREATE INDEX bt_dst_b ON bt_dst (b)")  # a non-unique tree too

            # COPY in autocommit: commits
            s0 = log_size(srv)
            copy_rows(c, "bt_src", 0, N)
            src = set(range(N))
            expect(c, "bt_src", src, "COPY of %d rows committed" % N)

            # COPY in a transaction: the log grows before the commit; ROLLBACK
            c.execute("BEGIN")
            s1 = log_size(srv)
            copy_rows(c, "bt_src", N, N)
            if cadenza:
                grew = log_size(srv) - s1
                check("the open transaction's redo is in the log before its commit",
                      grew > N * 40, "log grew by %d bytes (from %d after the first COPY, %d at start)"
                      % (grew, s1, s0))
            c.execute("ROLLBACK")
            expect(c, "bt_src", src, "COPY rolled back: none of its rows")

            # INSERT ... SELECT, committed, into a table with an index
            c.execute("INSERT INTO bt_dst SELECT k, b, pad FROM bt_src")
            dst = set(src)
            expect(c, "bt_dst", dst, "INSERT ... SELECT of %d rows committed" % N)
            n_b = c.execute("SELECT count(*) FROM bt_dst WHERE b = 5").fetchone()[0]
            check("the index answers for the committed rows", n_b == sum(1 for k in dst if b_of(k) == 5),
                  repr(n_b))

            # streamed work rolled back to a savepoint, then committed
            c.execute("BEGIN")
            c.execute("INSERT INTO bt_dst SELECT k + %s, b, pad FROM bt_src" % N)
            c.execute("SAVEPOINT s")
            c.execute("UPDATE bt_dst SET b = b + 1000, pad = 'changed'")
            c.execute("DELETE FROM bt_dst WHERE k % 3 = 0")
            c.execute("INSERT INTO bt_dst SELECT k + %s, b, pad FROM bt_src" % (3 * N))
            c.execute("ROLLBACK TO SAVEPOINT s")
            c.execute("DELETE FROM bt_dst WHERE k < 100")
            c.execute("COMMIT")
            dst |= set(range(N, 2 * N))
            dst -= set(range(100))
            expect(c, "bt_dst", dst, "savepoint: the rows before it and after the rollback")
            bad = c.execute("SELECT count(*) FROM bt_dst WHERE b >= 1000 OR pad <> %s",
                            (PAD,)).fetchone()[0]
            check("savepoint: the undone updates are gone", bad == 0, repr(bad))

            # a table rewrite (ALTER ... TYPE) streams its new rows too
            c.execute("BEGIN")
            s2 = log_size(srv)
            c.execute("ALTER TABLE bt_dst ALTER COLUMN b TYPE BIGINT")
            if cadenza:
                check("a table rewrite's rows are in the log before its commit",
                      log_size(srv) - s2 > N * 40, "log grew by %d bytes" % (log_size(srv) - s2))
            c.execute("ROLLBACK")
            check("rewrite rolled back: the column type is back", col_type(c) == "integer",
                  col_type(c))
            expect(c, "bt_dst", dst, "rewrite rolled back: the rows unchanged")

        if not cadenza:
            return checks.summary()

        # kill -9 with a streamed transaction open (its statements acknowledged,
        # no COMMIT sent), right after a committed one
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            copy_rows(c, "bt_src", 2 * N, N)  # acknowledged: must survive
            src |= set(range(2 * N, 3 * N))
            open_conn = psycopg.connect(srv.dsn(), autocommit=True)
            open_conn.execute("BEGIN")
            copy_rows(open_conn, "bt_src", 3 * N, N)
            open_conn.execute("INSERT INTO bt_dst SELECT k + %s, b, pad FROM bt_src WHERE k < %s"
                              % (10 * N, N))
            open_conn.execute("UPDATE bt_src SET pad = 'uncommitted' WHERE k < %s" % N)
        srv.kill9()
        try:
            open_conn.close()
        except psycopg.Error:
            pass
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            expect(c, "bt_src", src, "kill -9 with a streamed transaction open: committed rows only")
            expect(c, "bt_dst", dst, "kill -9: the open transaction's INSERT ... SELECT absent")
            bad = c.execute("SELECT count(*) FROM bt_src WHERE pad <> %s", (PAD,)).fetchone()[0]
            check("kill -9: the open transaction's UPDATE absent", bad == 0, repr(bad))

        # kill -9 while a COPY runs: the unacknowledged COPY is absent whole
        state = {"done": False, "err": None}

        def copier():
            try:
                with psycopg.connect(srv.dsn(), autocommit=True) as c2:
                    copy_rows(c2, "bt_src", 5 * N, 5 * N)
                    state["done"] = True
            except psycopg.Error as ex:
                state["err"] = str(ex)

        th = threading.Thread(target=copier, daemon=True)
        size0 = log_size(srv)
        th.start()
        deadline = time.time() + 60
        while time.time() < deadline and log_size(srv) - size0 < 2 * 1024 * 1024 and th.is_alive():
            time.sleep(0.02)
        srv.kill9()
        th.join(30)
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            have = keys(c, "bt_src")
            new = have - src
            if state["done"]:  # acknowledged before the kill: all of it
                check("kill -9 after the COPY's commit: all of it", new == set(range(5 * N, 10 * N)),
                      "%d of %d rows" % (len(new), 5 * N))
            else:  # in doubt: its commit may have been durable, never half of it
                check("kill -9 during a streamed COPY: all or none of it (%s)"
                      % (state["err"] or "no answer"),
                      new in (set(), set(range(5 * N, 10 * N))) and src <= have,
                      "%d of its rows present" % len(new))
                src = have

            # kill -9 right after acknowledged streamed commits
            c.execute("INSERT INTO bt_src SELECT k + %s, b, pad FROM bt_src WHERE k < %s" % (20 * N, N))
            src |= set(range(20 * N, 21 * N))
            c.execute("ALTER TABLE bt_dst ALTER COLUMN b TYPE BIGINT")
        srv.kill9()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            expect(c, "bt_src", src, "kill -9 after an acknowledged INSERT ... SELECT: all of it")
            check("kill -9 after an acknowledged table rewrite: the new type", col_type(c) == "bigint",
                  col_type(c))
            expect(c, "bt_dst", dst, "kill -9 after an acknowledged table rewrite: every row")
            n_b = c.execute("SELECT count(*) FROM bt_dst WHERE b = 5").fetchone()[0]
            check("kill -9 after a table rewrite: its rebuilt index answers",
                  n_b == sum(1 for k in dst if b_of(k) == 5), repr(n_b))
            c.execute("DROP TABLE bt_src, bt_dst")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

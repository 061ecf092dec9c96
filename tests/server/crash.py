#!/usr/bin/env python3
"""Crash test: a ledger workload with checked invariants, the server killed
with SIGKILL at random moments (and during CHECKPOINT, COPY, CREATE INDEX
and DROP TABLE), restarted, and everything acknowledged checked after each
restart.

The test starts its own server (tests/server/srvctl.py: cadenza, or
postgres as the reference) in a folder of its own, so it can kill and
restart it.

The ledger (always running, every cycle)
  cr_acct(id INTEGER PRIMARY KEY, bal BIGINT)     N accounts, B each at start
  cr_xfer(id BIGINT PRIMARY KEY, src, dst, amt)   the journal; index on src
Workers (own connection and thread each) run transfers: bal -= amt on src,
bal += amt on dst, one journal row with a client-made unique id, as one
transaction sent in one of these ways:
  simple     BEGIN / UPDATE / UPDATE / INSERT / COMMIT, one Query each
  multi      the same five statements in one Query message
  implicit   UPDATE; UPDATE; INSERT in one Query message (implicit block)
  extended   Parse/Bind/Execute for every statement, some prepared
  pipeline   extended, all five statements pipelined before one Sync
  savepoint  part of it undone with ROLLBACK TO SAVEPOINT (a ghost journal
             row and ghost updates, sometimes after an error), the rest in
             a released savepoint, then COMMIT
  rollback   a whole ghost transfer ended by ROLLBACK
A worker notes a transfer as *in doubt* just before the message that
commits it goes out, and as *acknowledged* when the answer came. 40001 and
40P01 roll the transfer back (it must then be absent).

After each restart:
  - the balances sum to N * B;
  - every acknowledged transfer is in the journal, unchanged;
  - nothing else is, except the in-doubt transfers of the cycle (a ghost,
    an aborted transfer, or one whose commit was never sent is an error);
  - every balance equals B plus the journal's credits minus its debits
    (so an in-doubt transfer is wholly present or wholly absent);
  - the journal's index on src gives what a scan of the journal gives.
The in-doubt transfers found become acknowledged ("doubts resolved").

Kill moments, one per cycle (--rounds cycles, a shuffled mix):
  random       after a random run of the workload
  ckpt-after   right after a CHECKPOINT returned
  ckpt-during  during a CHECKPOINT that follows a batch of inserts into
               cr_fill (so it has pages to write)
  copy         during a big COPY cr_copy FROM STDIN: after the restart the
               table has all rows or none (none when CopyDone was never
               sent, all when the COPY was acknowledged)
  index        during CREATE INDEX cr_big_k on the big table cr_big while
               a writer inserts into it (40001 refusals allowed): the index
               is complete and gives what a scan gives, or it does not
               exist and a new CREATE INDEX of the same name works
  drop         during DROP TABLE cr_drop (a table with a secondary index,
               in the checkpoint image), followed by the CHECKPOINT that
               frees its pages, a CREATE TABLE of the same name and an
               insert: each step whole or not at all, in order; when the
               table is gone, CREATE TABLE of the same name works
Every object's acknowledged state is checked again after every later
restart, and once more after a final clean restart.
Exit status 0 when everything holds.
"""
import argparse
import collections
import logging
import os
import random
import shutil
import sys
import tempfile
import threading
import time

import psycopg
from psycopg import ClientCursor, errors as pgerr

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import srvctl  # noqa: E402

INITIAL = 10000          # balance of each account at start
RETRY = (pgerr.SerializationFailure, pgerr.DeadlockDetected)
MODES = [("simple", 20), ("multi", 12), ("implicit", 10), ("extended", 20),
         ("pipeline", 10), ("savepoint", 20), ("rollback", 8)]


class Failure(Exception):
    """A broken invariant found while checking."""


def big_row(i):
    """Row i of cr_big, cr_copy and cr_drop's bulk content."""
    return i, (i * 7919) % 1000, "r%08d" % i


def bulk_sums(ids):
    """(count, sum id, sum k, sum length(v)) of the bulk rows with these ids."""
    n = s_id = s_k = s_len = 0
    for i in ids:
        _, k, v = big_row(i)
        n += 1; s_id += i; s_k += k; s_len += len(v)
    return n, s_id, s_k, s_len


def copy_data(lo, hi):
    return "".join("%d\t%d\t%s\n" % big_row(i) for i in range(lo, hi))


# -- the ledger workers ----------------------------------------------------
class Worker(threading.Thread):
    def __init__(self, wid, dsn, rng, seq, n_acct, killing):
        super().__init__(name="w%d" % wid, daemon=True)
        self.wid, self.dsn, self.rng, self.seq = wid, dsn, rng, seq
        self.n_acct, self.killing = n_acct, killing
        self.acked = []           # transfers acknowledged in this cycle
        self.doubt = None         # (id, src, dst, amt): commit sent, no answer
        self.ghosts = set()       # ids written and undone: must never appear
        self.unsent = set()       # ids whose commit was never sent (aborted)
        self.retries = 0          # 40001/40P01
        self.modes = collections.Counter()
        self.error = None
        self.connected = threading.Event()

    def new_id(self):
        self.seq += 1
        return self.wid * 1000000000 + self.seq

    def run(self):
        try:
            conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
        except Exception as e:  # noqa: BLE001
            if not self.killing.is_set():
                self.error = "%s: connect: %s" % (self.name, e)
            self.connected.set()
            return
        self.connected.set()
        names, weights = zip(*MODES)
        cur_id = None
        try:
            while not self.killing.is_set():
                src, dst = self.rng.sample(range(1, self.n_acct + 1), 2)
                t = (self.new_id(), src, dst, self.rng.randint(1, 500))
                cur_id = t[0]
                mode = self.rng.choices(names, weights)[0]
                try:
                    done = getattr(self, "tx_" + mode)(conn, t)
                except RETRY:
                    self.retries += 1
                    done = False
                    self.doubt = None
                    self.rollback(conn)
                self.modes[mode] += 1
                if done:
                    self.acked.append(t)
                    self.doubt = None
                else:
                    self.unsent.add(t[0])
                cur_id = None
        except (psycopg.OperationalError, psycopg.InterfaceError) as e:
            if cur_id is not None and self.doubt is None:
                self.unsent.add(cur_id)
            if not self.killing.is_set():
                self.error = "%s: connection lost before the kill: %s" % (self.name, e)
        except Failure as e:
            self.error = "%s: %s" % (self.name, e)
        except Exception as e:  # noqa: BLE001
            if not self.killing.is_set():
                self.error = "%s: %s: %s" % (self.name, type(e).__name__, e)
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass

    @staticmethod
    def rollback(conn):
        if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
            conn.execute("ROLLBACK")

    @staticmethod
    def check_one(cur, what):
        if cur.rowcount != 1:
            raise Failure("%s touched %s rows, not 1" % (what, cur.rowcount))

    @staticmethod
    def stmts(t):
        """The transfer's statements, lower account first (fewer deadlocks)."""
        xid, src, dst, amt = t
        ups = sorted([(src, -amt), (dst, amt)])
        return ([("UPDATE cr_acct SET bal = bal + %s WHERE id = %s", (d, a)) for a, d in ups]
                + [("INSERT INTO cr_xfer (id, src, dst, amt) VALUES (%s, %s, %s, %s)", t)])

    def tx_simple(self, conn, t):
        cc = ClientCursor(conn)
        cc.execute("BEGIN")
        for q, p in self.stmts(t):
            cc.execute(q, p)
            self.check_one(cc, "simple transfer")
        self.doubt = t
        cc.execute("COMMIT")
        return True

    def tx_multi(self, conn, t, implicit=False):
        cc = ClientCursor(conn)
        body = "; ".join(cc.mogrify(q, p) for q, p in self.stmts(t))
        sql = body if implicit else "BEGIN; " + body + "; COMMIT"
        self.doubt = t
        cc.execute(sql)
        return True

    def tx_implicit(self, conn, t):
        return self.tx_multi(conn, t, implicit=True)

    def tx_extended(self, conn, t):
        cur = conn.cursor(binary=True)   # binary: Parse/Bind/Execute even without parameters
        prep = self.rng.random() < 0.5
        cur.execute("BEGIN")
        for q, p in self.stmts(t):
            cur.execute(q, p, prepare=prep)
            self.check_one(cur, "extended transfer")
        self.doubt = t
        cur.execute("COMMIT")
        return True

    def tx_pipeline(self, conn, t):
        # prepare=False: psycopg 3 marks a statement prepared in a pipeline
        # before the server answered its Parse, so an error earlier in the
        # same pipeline (the Parse is then skipped) leaves it naming a
        # statement that does not exist (26000 on every later use; the
        # same against PostgreSQL)
        try:
            with conn.pipeline():
                curs = [conn.cursor(binary=True) for _ in range(3)]
                conn.cursor(binary=True).execute("BEGIN", prepare=False)
                for c, (q, p) in zip(curs, self.stmts(t)):
                    c.execute(q, p, prepare=False)
                self.doubt = t
                conn.cursor(binary=True).execute("COMMIT", prepare=False)
        except RETRY:
            raise
        except psycopg.errors.PipelineAborted:
            raise pgerr.SerializationFailure("pipeline aborted")
        for c in curs:
            self.check_one(c, "pipelined transfer")
        return True

    def ghost_updates(self, ex, t):
        """Writes inside a savepoint that is then rolled back."""
        g = self.new_id()
        self.ghosts.add(g)
        a = self.rng.randint(1, self.n_acct)
        ex("UPDATE cr_acct SET bal = bal + %s WHERE id = %s", (self.rng.randint(1, 900), a))
        ex("INSERT INTO cr_xfer (id, src, dst, amt) VALUES (%s, %s, %s, %s)", (g, a, t[1], 7))

    def tx_savepoint(self, conn, t):
        cur = ClientCursor(conn) if self.rng.random() < 0.5 else conn.cursor(binary=True)
        ex = cur.execute
        s = self.stmts(t)
        ex("BEGIN")
        ex(*s[0])
        self.check_one(cur, "savepoint transfer")
        ex("SAVEPOINT a")
        self.ghost_updates(ex, t)
        if self.rng.random() < 0.3:
            try:
                ex("SELECT 1 / (%s - %s)", (3, 3))
                raise Failure("1/0 did not fail")
            except pgerr.DivisionByZero:
                pass
        ex("ROLLBACK TO SAVEPOINT a")
        ex("SAVEPOINT b")
        for q, p in s[1:]:
            ex(q, p)
            self.check_one(cur, "savepoint transfer")
        ex("RELEASE SAVEPOINT b")
        self.doubt = t
        ex("COMMIT")
        return True

    def tx_rollback(self, conn, t):
        self.ghosts.add(t[0])
        conn.execute("BEGIN")
        for q, p in self.stmts(t):
            conn.execute(q, p)
        conn.execute("ROLLBACK")
        return False


class Ledger:
    """The acknowledged state of the ledger and its check."""

    def __init__(self, n_acct):
        self.n_acct = n_acct
        self.acked = {}          # id -> (src, dst, amt)
        self.ghosts = set()
        self.seq = collections.defaultdict(int)

    def setup(self, c):
        c.execute("CREATE TABLE cr_acct (id INTEGER PRIMARY KEY, bal BIGINT NOT NULL)")
        c.execute("CREATE TABLE cr_xfer (id BIGINT PRIMARY KEY, src INTEGER NOT NULL, "
                  "dst INTEGER NOT NULL, amt INTEGER NOT NULL)")
        c.execute("CREATE INDEX cr_xfer_src ON cr_xfer (src)")
        c.execute("INSERT INTO cr_acct SELECT g, %d FROM generate_series(1, %d) g"
                  % (INITIAL, self.n_acct))

    def check(self, c, doubts, unsent, kind):
        """doubts: id -> transfer; unsent: ids never committed. Returns
        (errors, committed doubts, absent doubts)."""
        errs = []
        bal = dict(c.execute("SELECT id, bal FROM cr_acct").fetchall())
        jour = {r[0]: tuple(r[1:]) for r in c.execute("SELECT id, src, dst, amt FROM cr_xfer")}
        if len(bal) != self.n_acct:
            errs.append("%d accounts, not %d" % (len(bal), self.n_acct))
        total = sum(bal.values())
        if total != self.n_acct * INITIAL:
            errs.append("balances sum to %d, not %d" % (total, self.n_acct * INITIAL))
        for xid, t in self.acked.items():
            if xid not in jour:
                errs.append("acknowledged transfer %d %s lost" % (xid, t))
            elif jour[xid] != t:
                errs.append("transfer %d is %s, acknowledged %s" % (xid, jour[xid], t))
        found = 0
        for xid, t in jour.items():
            if xid in self.acked:
                continue
            if xid in doubts and tuple(doubts[xid][1:]) == t:
                found += 1
                continue
            why = ("rolled back" if xid in self.ghosts else
                   "its commit never sent or refused" if xid in unsent else "never sent")
            errs.append("transfer %d %s is present but was %s" % (xid, t, why))
        want = {i: INITIAL for i in range(1, self.n_acct + 1)}
        for src, dst, amt in jour.values():
            want[src] = want.get(src, INITIAL) - amt
            want[dst] = want.get(dst, INITIAL) + amt
        bad = [(i, bal.get(i), w) for i, w in want.items() if bal.get(i) != w]
        for i, got, w in bad[:5]:
            errs.append("account %d: balance %s, the journal says %d (a transfer half applied)"
                        % (i, got, w))
        if len(bad) > 5:
            errs.append("... %d accounts differ from the journal" % len(bad))
        # the secondary index on src against the scan
        by_src = collections.Counter(t[0] for t in jour.values())
        errs += check_index(c, kind, "cr_xfer", "src", "cr_xfer_src",
                            {s: (n, None) for s, n in by_src.items()}, with_sum=False)
        for xid in doubts:
            if xid in jour:
                self.acked[xid] = jour[xid]
        return errs, found, len(doubts) - found


def check_index(c, kind, table, col, index, expect, with_sum=True):
    """The index on table(col) must exist, be used for a range query, and
    give per value of col the same (count, sum id) as a scan does and as
    expect says ({value: (count, sum id or None)})."""
    errs = []
    sel = "SELECT %s, count(*)%s FROM %s WHERE %%s >= -2147483647 GROUP BY %s" % (
        col, ", sum(id)" if with_sum else "", table, col)
    # both planners would scan the table for a range this wide: forbid it
    c.execute("SET enable_seqscan = off")
    try:
        plan = "\n".join(r[0] for r in c.execute("EXPLAIN " + sel % col))
        if index not in plan:
            errs.append("%s: the range query does not use index %s:\n%s" % (table, index, plan))
        by_ix = {r[0]: (r[1], r[2] if with_sum else None) for r in c.execute(sel % col)}
        by_scan = {r[0]: (r[1], r[2] if with_sum else None)
                   for r in c.execute(sel % ("%s + 0" % col))}
    finally:
        c.execute("RESET enable_seqscan")
    if by_ix != by_scan:
        diff = sorted(k for k in set(by_ix) | set(by_scan) if by_ix.get(k) != by_scan.get(k))
        errs.append("index %s differs from a scan of %s for %d values of %s, e.g. %s: "
                    "index %s, scan %s" % (index, table, len(diff), col, diff[0],
                                           by_ix.get(diff[0]), by_scan.get(diff[0])))
    if expect is not None and by_scan != expect:
        diff = sorted(k for k in set(expect) | set(by_scan) if expect.get(k) != by_scan.get(k))
        errs.append("%s differs from what was acknowledged for %d values of %s, e.g. %s: "
                    "table %s, acknowledged %s" % (table, len(diff), col, diff[0],
                                                   by_scan.get(diff[0]), expect.get(diff[0])))
    return errs


def table_exists(c, name):
    return c.execute("SELECT count(*) FROM pg_tables WHERE tablename = %s",
                     (name,)).fetchone()[0] == 1


def index_exists(c, name):
    return c.execute("SELECT count(*) FROM pg_indexes WHERE indexname = %s",
                     (name,)).fetchone()[0] == 1


def table_sums(c, table):
    return tuple(int(x or 0) for x in c.execute(
        "SELECT count(*), sum(id), sum(k), sum(length(v)) FROM %s" % table).fetchone())


# -- the operations a kill interrupts ----------------------------------------
class Job(threading.Thread):
    """A sequence of steps on its own connection; records which step was
    sent and which acknowledged, so that the check knows what may be
    there."""

    def __init__(self, dsn, killing, steps):
        super().__init__(daemon=True)
        self.dsn, self.killing, self.steps = dsn, killing, steps
        self.sent = -1            # index of the last step whose commit went out
        self.acked = -1           # index of the last acknowledged step
        self.progress = ""
        self.error = None
        self.t_start = self.t_end = None

    def run(self):
        try:
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=10) as conn:
                self.t_start = time.monotonic()
                for i, (name, fn) in enumerate(self.steps):
                    fn(self, conn, i)
                    self.acked = i
                self.t_end = time.monotonic()
        except (psycopg.OperationalError, psycopg.InterfaceError) as e:
            if not self.killing.is_set():
                self.error = "connection lost before the kill: %s" % e
        except Exception as e:  # noqa: BLE001
            if not self.killing.is_set():
                self.error = "%s: %s" % (type(e).__name__, e)

    def send(self, conn, i, sql):
        self.sent = i
        conn.execute(sql)

    def where(self):
        """Which step the kill interrupted, for the cycle line."""
        if self.acked == len(self.steps) - 1:
            return "after %s returned" % self.steps[-1][0]
        i = self.acked + 1
        state = "sent" if self.sent >= i else "not sent"
        return "%s %s%s" % (self.steps[i][0], state, self.progress)


class BigWriter(threading.Thread):
    """Autocommit inserts into cr_big while CREATE INDEX runs."""

    def __init__(self, dsn, killing, rng, next_id):
        super().__init__(daemon=True)
        self.dsn, self.killing, self.rng, self.next_id = dsn, killing, rng, next_id
        self.acked = []
        self.doubt = None
        self.refused = 0
        self.error = None

    def run(self):
        try:
            with psycopg.connect(self.dsn, autocommit=True, connect_timeout=10) as conn:
                while not self.killing.is_set():
                    r = (self.next_id, self.rng.randrange(1000), "w%d" % self.next_id)
                    self.next_id += 1
                    self.doubt = r
                    try:
                        conn.execute("INSERT INTO cr_big VALUES (%s, %s, %s)", r)
                    except RETRY:   # Cadenza refuses writes while an index is built
                        self.refused += 1
                        self.doubt = None
                        time.sleep(0.005)
                        continue
                    self.acked.append(r)
                    self.doubt = None
                    time.sleep(0.005)
        except (psycopg.OperationalError, psycopg.InterfaceError) as e:
            if not self.killing.is_set():
                self.error = "cr_big writer: connection lost before the kill: %s" % e
        except Exception as e:  # noqa: BLE001
            if not self.killing.is_set():
                self.error = "cr_big writer: %s: %s" % (type(e).__name__, e)


class Objects:
    """cr_copy, cr_big (+ index cr_big_k), cr_drop, cr_fill: their
    acknowledged state, the jobs a kill interrupts, and their checks."""

    def __init__(self, kind, n_big, n_copy, n_drop, n_fill):
        self.kind = kind
        self.n_big, self.n_copy, self.n_drop, self.n_fill = n_big, n_copy, n_drop, n_fill
        self.copy = None          # None: no cr_copy; else its row count (0 or n_copy)
        self.big_extra = []       # rows inserted into cr_big after the load
        self.big_index = False    # cr_big_k exists
        self.drop = None          # None, "old" (n_drop bulk rows, index), "new" (rows below)
        self.drop_new_rows = 0
        self.fill = 0             # rows in cr_fill (batches of n_fill)
        self.est = {}             # seconds an uninterrupted job took

    # -- set-up -----------------------------------------------------------
    def copy_in(self, conn, table, n, job=None, pace=0.0):
        """COPY the bulk rows 1..n into table. pace: spread the sending
        over this many seconds, so that a kill lands before CopyDone as
        often as after it."""
        t0 = time.monotonic()
        with conn.cursor() as cur:
            with cur.copy("COPY %s FROM STDIN" % table) as cp:
                step = 5000
                for lo in range(1, n + 1, step):
                    hi = min(lo + step, n + 1)
                    cp.write(copy_data(lo, hi))
                    if job is not None:
                        job.progress = " (%d of %d rows written)" % (hi - 1, n)
                    ahead = t0 + pace * (hi - 1) / n - time.monotonic()
                    if ahead > 0:
                        time.sleep(ahead)
                if job is not None:
                    job.sent = job.acked + 1    # CopyDone goes out when the block ends
                    job.progress = " (CopyDone sent)"

    def setup(self, c):
        c.execute("CREATE TABLE cr_big (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, "
                  "v VARCHAR(40) NOT NULL)")
        t0 = time.monotonic()
        self.copy_in(c, "cr_big", self.n_big)
        self.est["copy_row"] = (time.monotonic() - t0) / self.n_big
        t0 = time.monotonic()
        c.execute("CREATE INDEX cr_big_k ON cr_big (k)")
        self.est["index"] = time.monotonic() - t0
        self.big_index = True
        c.execute("CREATE TABLE cr_fill (id INTEGER PRIMARY KEY, b INTEGER NOT NULL, "
                  "v VARCHAR(40) NOT NULL)")
        t0 = time.monotonic()
        c.execute("CHECKPOINT")
        self.est["checkpoint"] = time.monotonic() - t0
        self.est["drop"] = self.est["checkpoint"] + 0.05

    # -- jobs -------------------------------------------------------------
    def prepare_copy(self, c):
        c.execute("DROP TABLE IF EXISTS cr_copy")
        c.execute("CREATE TABLE cr_copy (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, "
                  "v VARCHAR(40) NOT NULL)")
        self.copy = 0

        est = self.est["copy_row"] * self.n_copy

        def step(job, conn, i):
            self.copy_in(conn, "cr_copy", self.n_copy, job, pace=0.6 * est)
        return [("COPY", step)], est * 1.2

    def prepare_index(self, c):
        c.execute("DROP INDEX IF EXISTS cr_big_k")
        self.big_index = False

        def step(job, conn, i):
            job.send(conn, i, "CREATE INDEX cr_big_k ON cr_big (k)")
        return [("CREATE INDEX", step)], self.est["index"]

    def prepare_drop(self, c):
        c.execute("DROP TABLE IF EXISTS cr_drop")
        self.drop = None
        c.execute("CREATE TABLE cr_drop (id INTEGER PRIMARY KEY, k INTEGER NOT NULL, "
                  "v VARCHAR(40) NOT NULL)")
        c.execute("CREATE INDEX cr_drop_k ON cr_drop (k)")
        self.drop, self.drop_new_rows = "old", 0
        self.copy_in(c, "cr_drop", self.n_drop)
        c.execute("CHECKPOINT")   # the table is in the image: its pages are freed by the next one

        def sql(q):
            return lambda job, conn, i: job.send(conn, i, q)
        return [("DROP TABLE", sql("DROP TABLE cr_drop")),
                ("CHECKPOINT", sql("CHECKPOINT")),
                ("CREATE TABLE", sql("CREATE TABLE cr_drop (id INTEGER PRIMARY KEY, "
                                     "note VARCHAR(20))")),
                ("INSERT", sql("INSERT INTO cr_drop VALUES (1, 'new')"))], self.est["drop"]

    def fill_batch(self, c):
        lo = self.fill + 1
        c.execute("INSERT INTO cr_fill SELECT g, %d, 'f' || g FROM generate_series(%d, %d) g"
                  % (lo // self.n_fill, lo, lo + self.n_fill - 1))
        self.fill += self.n_fill

    # -- after a restart ----------------------------------------------------
    def resolve(self, what, job, writer):
        """Fold what the interrupted job did into the known state: returns
        the states the check may accept."""
        ok = {}
        if what == "copy":
            done = job.acked >= 0
            ok["copy"] = {self.n_copy} if done else ({0, self.n_copy} if job.sent >= 0 else {0})
        elif what == "index":
            ok["index"] = {True} if job.acked >= 0 else ({True, False} if job.sent >= 0 else {False})
            if writer is not None:
                ok["big_doubt"] = writer.doubt
                self.big_extra += writer.acked
        elif what == "drop":
            # states after step i: old, gone, gone (checkpoint), new empty, new 1 row
            after = ["old", "gone", "gone", "new0", "new1"]
            states = {after[job.acked + 1]}
            if job.sent > job.acked:
                states.add(after[job.sent + 1])
            ok["drop"] = states
        return ok

    def check(self, c, ok):
        errs = []
        # cr_copy: exactly all or none of the COPY
        if self.copy is not None:
            if not table_exists(c, "cr_copy"):
                errs.append("cr_copy (acknowledged CREATE TABLE) is missing")
            else:
                got = table_sums(c, "cr_copy")
                allowed = ok.get("copy", {self.copy})
                match = [n for n in allowed if got == bulk_sums(range(1, n + 1))]
                if not match:
                    errs.append("cr_copy holds %s (count, sum id, sum k, sum length): "
                                "expected the sums of %s rows" % (got, " or ".join(
                                    str(n) for n in sorted(allowed))))
                else:
                    self.copy = match[0]
        # cr_big and its index
        base = list(range(1, self.n_big + 1))
        doubt = ok.get("big_doubt")
        if doubt is not None:
            n = c.execute("SELECT count(*) FROM cr_big WHERE id = %s", (doubt[0],)).fetchone()[0]
            if n:
                self.big_extra.append(doubt)
        got = table_sums(c, "cr_big")
        extra = self.big_extra
        want = tuple(a + b for a, b in zip(bulk_sums(base), (
            len(extra), sum(r[0] for r in extra), sum(r[1] for r in extra),
            sum(len(r[2]) for r in extra))))
        if got != want:
            errs.append("cr_big holds %s (count, sum id, sum k, sum length), acknowledged %s"
                        % (got, want))
        exists = index_exists(c, "cr_big_k")
        self.index_found = exists
        allowed = ok.get("index", {self.big_index})
        if exists not in allowed:
            errs.append("index cr_big_k %s after its CREATE INDEX was acknowledged"
                        % ("is missing" if not exists else "exists (never created)"))
        expect = collections.defaultdict(lambda: [0, 0])
        for i in base:
            k = big_row(i)[1]
            expect[k][0] += 1; expect[k][1] += i
        for r in extra:
            expect[r[1]][0] += 1; expect[r[1]][1] += r[0]
        expect = {k: tuple(v) for k, v in expect.items()}
        if not exists and "index" in ok:
            # a new CREATE INDEX of the same name must work
            c.execute("CREATE INDEX cr_big_k ON cr_big (k)")
            exists = True
        self.big_index = exists
        if exists:
            errs += check_index(c, self.kind, "cr_big", "k", "cr_big_k", expect)
        # cr_drop: whole old table, gone, or the new one
        if "drop" in ok:
            allowed = ok["drop"]
        elif self.drop is None:
            allowed = {"gone"}
        else:
            allowed = {"old" if self.drop == "old" else "new%d" % self.drop_new_rows}
        state = "gone"
        if table_exists(c, "cr_drop"):
            n = c.execute("SELECT count(*) FROM cr_drop").fetchone()[0]
            state = "old" if n == self.n_drop else "new%d" % n
        self.drop_found = state
        if state not in allowed:
            errs.append("cr_drop is %s after the kill; acknowledged: %s"
                        % (state, " or ".join(sorted(allowed))))
        elif state == "old":
            got = table_sums(c, "cr_drop")
            if got != bulk_sums(range(1, self.n_drop + 1)):
                errs.append("cr_drop holds %s, not its %d rows" % (got, self.n_drop))
            if not index_exists(c, "cr_drop_k"):
                errs.append("cr_drop is whole but its index cr_drop_k is gone")
            else:
                exp = collections.Counter(big_row(i)[1] for i in range(1, self.n_drop + 1))
                errs += check_index(c, self.kind, "cr_drop", "k", "cr_drop_k",
                                    {k: (n, None) for k, n in exp.items()}, with_sum=False)
            self.drop = "old"
        elif self.drop is not None or "drop" in ok:
            if index_exists(c, "cr_drop_k"):
                errs.append("index cr_drop_k survived the DROP TABLE of cr_drop")
            if state == "gone":
                # CREATE TABLE of the same name must work
                c.execute("CREATE TABLE cr_drop (id INTEGER PRIMARY KEY, note VARCHAR(20))")
                c.execute("INSERT INTO cr_drop VALUES (1, 'again')")
                state = "new1"
            self.drop, self.drop_new_rows = "new", int(state[3:])
        # cr_fill: every acknowledged batch
        got = c.execute("SELECT count(*), sum(id) FROM cr_fill").fetchone()
        want = (self.fill, self.fill * (self.fill + 1) // 2)
        if (got[0], int(got[1] or 0)) != want:
            errs.append("cr_fill holds (count, sum id) %s, acknowledged %s" % (tuple(got), want))
        return errs


# -- the driver ----------------------------------------------------------------
def schedule(rounds, rng):
    """The cycles' kill moments: a fixed mix, shuffled."""
    if rounds < 6:
        kinds = ["random", "copy", "index", "drop", "ckpt-during"][:rounds]
    else:
        kinds = []
        for k, div in (("copy", 9), ("index", 9), ("drop", 9),
                       ("ckpt-during", 12), ("ckpt-after", 12)):
            kinds += [k] * max(1, rounds // div)
        kinds += ["random"] * (rounds - len(kinds))
    rng.shuffle(kinds)
    return kinds


class Stats:
    def __init__(self):
        self.transfers = self.other = self.committed = self.absent = self.retries = 0
        self.modes = collections.Counter()


def run_cycle(no, kind, srv, dsn, a, rng, ledger, objs, stats):
    killing = threading.Event()
    ws = [Worker(w, dsn, random.Random(rng.randrange(1 << 30)), ledger.seq[w], a.accounts, killing)
          for w in range(a.clients)]
    for w in ws:
        w.start()
    for w in ws:
        w.connected.wait(30)
    run_s = rng.uniform(a.min_run, a.max_run)
    job = writer = None
    what = ""
    with psycopg.connect(dsn, autocommit=True) as c:
        if kind == "random":
            time.sleep(run_s)
            what = "after %.2f s of transfers" % run_s
        elif kind == "ckpt-after":
            time.sleep(run_s / 2)
            t0 = time.monotonic()
            c.execute("CHECKPOINT")
            stats.other += 1
            objs.est["checkpoint"] = time.monotonic() - t0
            wait = rng.uniform(0, 0.03)
            time.sleep(wait)
            what = "%.3f s after a CHECKPOINT (took %.3f s) returned" % (wait, objs.est["checkpoint"])
        elif kind == "ckpt-during":
            time.sleep(run_s / 3)
            objs.fill_batch(c)
            stats.other += 1
            job = Job(dsn, killing, [("CHECKPOINT", lambda j, conn, i: j.send(conn, i, "CHECKPOINT"))])
            est = max(objs.est["checkpoint"], 0.02)
        else:
            steps, est = getattr(objs, "prepare_" + kind)(c)
            job = Job(dsn, killing, steps)
            if kind == "index" and a.index_writer:
                writer = BigWriter(dsn, killing, random.Random(rng.randrange(1 << 30)),
                                   objs.n_big + 1 + len(objs.big_extra) + 1000000 * no)
                writer.start()
        if job is not None:
            job.start()
            wait = rng.uniform(0.01, est * 1.1 + 0.02)
            time.sleep(wait)
    if job is not None:
        what = "%.3f s into %s: %s" % (wait, kind, job.where())
    killing.set()
    srv.kill9()
    for t in ws + [x for x in (job, writer) if x is not None]:
        t.join(30)
    errs = [w.error for w in ws if w.error]
    errs += ["%s did not stop after the kill" % w.name for w in ws if w.is_alive()]
    if job is not None:
        if job.error:
            errs.append("%s: %s" % (kind, job.error))
        if job.t_end is not None and kind in ("drop", "ckpt-during"):
            objs.est["drop" if kind == "drop" else "checkpoint"] = job.t_end - job.t_start
    if writer is not None and writer.error:
        errs.append(writer.error)
    acked = sum(len(w.acked) for w in ws)
    stats.transfers += acked
    stats.retries += sum(w.retries for w in ws)
    for w in ws:
        stats.modes.update(w.modes)
        ledger.seq[w.wid] = w.seq
        ledger.ghosts |= w.ghosts
        for t in w.acked:
            ledger.acked[t[0]] = t[1:]
    if job is not None:
        stats.other += job.acked + 1
    if writer is not None:
        stats.other += len(writer.acked)
    doubts = {w.doubt[0]: w.doubt for w in ws if w.doubt}
    unsent = set().union(*(w.unsent for w in ws))
    ok = objs.resolve(kind, job, writer) if job is not None and kind != "ckpt-during" else {}
    t0 = time.monotonic()
    try:
        srv.start(timeout=180)
    except Exception as e:  # noqa: BLE001
        return ["restart failed: %s" % e], what, acked, None
    restart_s = time.monotonic() - t0
    if errs:
        return errs, what, acked, restart_s
    with psycopg.connect(dsn, autocommit=True) as c:
        lerrs, found, absent = ledger.check(c, doubts, unsent, srv.kind)
        errs += lerrs
        errs += objs.check(c, ok)
    stats.committed += found
    stats.absent += absent
    if kind == "copy":
        what += " -> cr_copy has %d rows" % objs.copy
    elif kind == "index":
        what += " -> cr_big_k %s" % ("there" if objs.index_found else "absent, created again")
        if writer is not None:
            what += " (writer: %d rows acknowledged, %d refused)" % (len(writer.acked), writer.refused)
    elif kind == "drop":
        what += " -> cr_drop %s" % {"old": "whole", "gone": "gone"}.get(
            objs.drop_found, "re-created with %s rows" % objs.drop_found[3:])
    what += "; %d transfers acknowledged, %d in doubt (%d there)" % (acked, len(doubts), found)
    return errs, what, acked, restart_s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", choices=["cadenza", "postgres"], default="cadenza")
    ap.add_argument("--binary", help="the cadenza binary (default build/binsrc/cadenza/cadenza)")
    ap.add_argument("--dir", help="server folder (default: a new temp folder, removed on success)")
    ap.add_argument("--rounds", type=int, default=36, help="kill cycles")
    ap.add_argument("--clients", type=int, default=8, help="ledger workers")
    ap.add_argument("--accounts", type=int, default=500)
    ap.add_argument("--big-rows", type=int, default=200000, help="rows of cr_big (CREATE INDEX)")
    ap.add_argument("--copy-rows", type=int, default=200000, help="rows of the killed COPY")
    ap.add_argument("--drop-rows", type=int, default=50000, help="rows of the dropped table")
    ap.add_argument("--fill-rows", type=int, default=20000, help="rows inserted before ckpt-during")
    ap.add_argument("--min-run", type=float, default=0.3, help="shortest workload before a kill (s)")
    ap.add_argument("--max-run", type=float, default=2.5, help="longest workload before a kill (s)")
    ap.add_argument("--index-writer", action=argparse.BooleanOptionalAction, default=True,
                    help="insert into cr_big while CREATE INDEX runs (default on)")
    ap.add_argument("--seed", type=int)
    ap.add_argument("--layout", choices=["row", "column"],
                    help="the server's [Parameters] DefaultLayout (cadenza): the ledger's tables "
                         "column-wise with column")
    a = ap.parse_args()
    # psycopg warns when a pipeline cannot end because the server was killed
    logging.getLogger("psycopg").setLevel(logging.ERROR)
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    folder = a.dir or tempfile.mkdtemp(prefix="cz-crash-")
    print("crash: %s, %d cycles, %d clients, %d accounts, seed %d, folder %s"
          % (a.kind, a.rounds, a.clients, a.accounts, seed, folder), flush=True)
    t_all = time.monotonic()
    extra = {"Parameters": {"DefaultLayout": a.layout}} if a.layout and a.kind == "cadenza" else None
    srv = srvctl.Server(a.kind, folder, binary=a.binary, buffers=1000, extra_ini=extra)
    failures = []
    stats = Stats()
    cycles = 0
    try:
        srv.start()
        dsn = srv.dsn()
        ledger = Ledger(a.accounts)
        objs = Objects(a.kind, a.big_rows, a.copy_rows, a.drop_rows, a.fill_rows)
        with psycopg.connect(dsn, autocommit=True) as c:
            for t in ("cr_acct", "cr_xfer", "cr_big", "cr_copy", "cr_drop", "cr_fill"):
                c.execute("DROP TABLE IF EXISTS " + t)
            ledger.setup(c)
            objs.setup(c)
        print("set-up: %.1f s (COPY %.1f us/row, CREATE INDEX %.2f s, CHECKPOINT %.3f s)"
              % (time.monotonic() - t_all, objs.est["copy_row"] * 1e6, objs.est["index"],
                 objs.est["checkpoint"]), flush=True)
        for no, kind in enumerate(schedule(a.rounds, rng), 1):
            errs, what, acked, restart_s = run_cycle(no, kind, srv, dsn, a, rng, ledger, objs, stats)
            cycles += 1
            print("cycle %d/%d %s: killed %s; restart %s: %s"
                  % (no, a.rounds, kind, what,
                     "%.2f s" % restart_s if restart_s is not None else "failed",
                     "ok" if not errs else "%d errors" % len(errs)), flush=True)
            for e in errs[:10]:
                print("   ", e)
            failures += ["cycle %d (%s): %s" % (no, kind, e) for e in errs]
            if errs:
                break
        if not failures:
            # a clean shutdown and start must keep everything too
            srv.stop()
            srv.start(timeout=180)
            with psycopg.connect(dsn, autocommit=True) as c:
                errs = ledger.check(c, {}, set(), a.kind)[0] + objs.check(c, {})
            print("clean restart: %s" % ("ok" if not errs else "%d errors" % len(errs)))
            failures += ["clean restart: %s" % e for e in errs]
        if stats.transfers == 0:
            failures.append("no transfer was acknowledged in any cycle")
        print("totals: %d cycles, %d transfers acknowledged (%d in the journal), "
              "%d other statements acknowledged, doubts resolved: %d committed, %d absent; "
              "%d retried after 40001/40P01; modes %s"
              % (cycles, stats.transfers, len(ledger.acked), stats.other, stats.committed,
                 stats.absent, stats.retries,
                 " ".join("%s=%d" % kv for kv in sorted(stats.modes.items()))))
    except Exception as e:  # noqa: BLE001
        failures.append("%s: %s" % (type(e).__name__, e))
    finally:
        srv.stop()
    print("time: %.1f s" % (time.monotonic() - t_all))
    if failures:
        print(srv.log_tail(40))
        for f in failures[:20]:
            print("FAIL:", f)
    elif not a.dir:
        shutil.rmtree(folder, ignore_errors=True)
    print("CRASH TEST %s" % ("PASSED" if not failures else "FAILED"))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())

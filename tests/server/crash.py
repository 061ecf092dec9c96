#!/usr/bin/env python3
"""Crash test: a client workload logs every commit the server acknowledged;
the server is killed with SIGKILL at random moments (several rounds) and
restarted; after each restart every acknowledged commit must be there, and
nothing that was never sent, and no half of a transaction.

The test starts its own server (tests/server/srvctl.py: cadenza, or
postgres as the reference) in a folder of its own, so it can kill and
restart it.

Tables:
  cr_log(w INTEGER, seq INTEGER, val INTEGER, PRIMARY KEY (w, seq))
  cr_counter(w INTEGER PRIMARY KEY, n BIGINT)   one row per worker
Each worker (own connection and thread) loops over
  single   autocommit INSERT of (w, seq, val)
  pair     BEGIN; INSERT (w, seq, val); UPDATE cr_counter SET n = n + 1
           WHERE w = me; COMMIT
  update   autocommit UPDATE cr_log SET val = ? WHERE (w, seq) = one of its
           rows known to be present
A worker notes the operation it is about to run (in doubt), runs it and,
once the server acknowledged it, records it as committed. At the kill the
in-doubt operation of each worker may or may not have happened.

After each restart, for each worker:
  - every acknowledged row is present with its acknowledged value;
  - every present row is acknowledged or is the worker's one in-doubt
    insert; a row's value is its acknowledged value or the in-doubt
    update's;
  - n equals the number of present rows written by `pair` (atomicity).
The state found becomes the known state of the next round.
Exit status 0 when every round holds.
"""
import argparse
import os
import random
import shutil
import sys
import tempfile
import threading
import time

import psycopg

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import srvctl  # noqa: E402


class Worker(threading.Thread):
    def __init__(self, wid, dsn, rng, state):
        super().__init__(name="w%d" % wid, daemon=True)
        self.wid, self.dsn, self.rng = wid, dsn, rng
        self.st = state               # dict: rows {seq: (val, kind)}, next_seq
        self.doubt = None             # (op, seq, val) in flight at the crash
        self.acked = 0
        self.stop = False
        self.error = None
        self.connected = threading.Event()

    def run(self):
        try:
            conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
        except Exception as e:  # noqa: BLE001
            self.error = "%s: connect: %s" % (self.name, e)
            self.connected.set()
            return
        self.connected.set()
        rows = self.st["rows"]
        try:
            while not self.stop:
                r = self.rng.random()
                if r < 0.45 or (r < 0.6 and not rows):
                    seq = self.st["next_seq"]; self.st["next_seq"] += 1
                    val = self.rng.randrange(1 << 30)
                    self.doubt = ("single", seq, val)
                    conn.execute("INSERT INTO cr_log VALUES (%s, %s, %s)", (self.wid, seq, val))
                    rows[seq] = (val, "single")
                elif r < 0.85:
                    seq = self.st["next_seq"]; self.st["next_seq"] += 1
                    val = self.rng.randrange(1 << 30)
                    self.doubt = ("pair", seq, val)
                    conn.execute("BEGIN")
                    conn.execute("INSERT INTO cr_log VALUES (%s, %s, %s)", (self.wid, seq, val))
                    conn.execute("UPDATE cr_counter SET n = n + 1 WHERE w = %s", (self.wid,))
                    conn.execute("COMMIT")
                    rows[seq] = (val, "pair")
                else:
                    seq = self.rng.choice(list(rows))
                    val = self.rng.randrange(1 << 30)
                    self.doubt = ("update", seq, val)
                    cur = conn.execute("UPDATE cr_log SET val = %s WHERE w = %s AND seq = %s",
                                       (val, self.wid, seq))
                    if cur.rowcount != 1:
                        self.error = "%s: update of present row %d touched %d rows" % (self.name, seq, cur.rowcount)
                        self.doubt = None
                        return
                    rows[seq] = (val, rows[seq][1])
                self.doubt = None
                self.acked += 1
        except Exception:  # noqa: BLE001 - the server went away: the in-doubt op stays
            pass
        finally:
            try:
                conn.close()
            except Exception:  # noqa: BLE001
                pass


def verify(dsn, workers_state, doubts):
    """Compare the database with the acknowledged state; return (errors,
    new state). doubts: wid -> in-doubt op or None."""
    errs = []
    with psycopg.connect(dsn, autocommit=True) as c:
        got = {}
        for w, s, v in c.execute("SELECT w, seq, val FROM cr_log"):
            got.setdefault(int(w), {})[int(s)] = int(v)
        counters = {int(w): int(n) for w, n in c.execute("SELECT w, n FROM cr_counter")}
    new_state = {}
    for wid, st in workers_state.items():
        rows, doubt = st["rows"], doubts.get(wid)
        have = got.pop(wid, {})
        new_rows = {}
        for seq, (val, kind) in rows.items():
            if seq not in have:
                errs.append("worker %d: acknowledged row %d (%s) lost" % (wid, seq, kind))
                continue
            ok_vals = {val}
            if doubt and doubt[0] == "update" and doubt[1] == seq:
                ok_vals.add(doubt[2])
            if have[seq] not in ok_vals:
                errs.append("worker %d: row %d has value %d, acknowledged %d"
                            % (wid, seq, have[seq], val))
            new_rows[seq] = (have[seq], kind)
        for seq, val in have.items():
            if seq in rows:
                continue
            if doubt and doubt[0] in ("single", "pair") and doubt[1] == seq and doubt[2] == val:
                new_rows[seq] = (val, doubt[0])
            else:
                errs.append("worker %d: row %d (value %d) was never sent or acknowledged"
                            % (wid, seq, val))
        pairs = sum(1 for v, k in new_rows.values() if k == "pair")
        if counters.get(wid) != pairs:
            errs.append("worker %d: counter %s but %d pair rows present (a transaction half applied)"
                        % (wid, counters.get(wid), pairs))
        new_state[wid] = {"rows": new_rows, "next_seq": st["next_seq"]}
    for wid in got:
        errs.append("rows of unknown worker %d" % wid)
    return errs, new_state


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kind", choices=["cadenza", "postgres"], default="cadenza")
    ap.add_argument("--binary", help="the cadenza binary (default build/binsrc/cadenza/cadenza)")
    ap.add_argument("--dir", help="server folder (default: a new temp folder, removed on success)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--min-run", type=float, default=0.5, help="shortest workload before a kill (s)")
    ap.add_argument("--max-run", type=float, default=4.0, help="longest workload before a kill (s)")
    ap.add_argument("--seed", type=int)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    folder = a.dir or tempfile.mkdtemp(prefix="cz-crash-")
    print("crash: %s, %d rounds, %d clients, seed %d, folder %s"
          % (a.kind, a.rounds, a.clients, seed, folder))
    srv = srvctl.Server(a.kind, folder, binary=a.binary, buffers=1000)
    failures = []
    try:
        srv.start()
        dsn = srv.dsn()
        with psycopg.connect(dsn, autocommit=True) as c:
            c.execute("DROP TABLE IF EXISTS cr_log")
            c.execute("DROP TABLE IF EXISTS cr_counter")
            c.execute("CREATE TABLE cr_log (w INTEGER, seq INTEGER, val INTEGER, PRIMARY KEY (w, seq))")
            c.execute("CREATE TABLE cr_counter (w INTEGER PRIMARY KEY, n BIGINT NOT NULL)")
            c.execute("INSERT INTO cr_counter VALUES " +
                      ", ".join("(%d, 0)" % w for w in range(a.clients)))
        state = {w: {"rows": {}, "next_seq": 1} for w in range(a.clients)}
        total_acked = 0
        for rnd in range(1, a.rounds + 1):
            ws = [Worker(w, dsn, random.Random(rng.randrange(1 << 30)), state[w])
                  for w in range(a.clients)]
            for w in ws:
                w.start()
            for w in ws:
                w.connected.wait(30)
            run_s = rng.uniform(a.min_run, a.max_run)
            time.sleep(run_s)
            srv.kill9()
            for w in ws:
                w.join(30)
            errs = [w.error for w in ws if w.error]
            errs += ["%s did not stop after the kill" % w.name for w in ws if w.is_alive()]
            acked = sum(w.acked for w in ws)
            total_acked += acked
            doubts = {w.wid: w.doubt for w in ws}
            t0 = time.monotonic()
            try:
                srv.start(timeout=180)
            except Exception as e:  # noqa: BLE001
                failures.append("round %d: restart failed: %s" % (rnd, e))
                break
            restart_s = time.monotonic() - t0
            if not errs:
                errs, state = verify(dsn, state, doubts)
            rows = sum(len(s["rows"]) for s in state.values())
            print("round %d: killed after %.2f s, %d commits acknowledged, restart %.2f s, %d rows present: %s"
                  % (rnd, run_s, acked, restart_s, rows, "ok" if not errs else "%d errors" % len(errs)))
            for e in errs[:10]:
                print("   ", e)
            failures += ["round %d: %s" % (rnd, e) for e in errs]
            if errs:
                break
        if not failures:
            # a clean shutdown and start must keep everything too
            srv.stop()
            srv.start(timeout=180)
            errs, state = verify(dsn, state, {})
            print("clean restart: %s" % ("ok" if not errs else "%d errors" % len(errs)))
            failures += ["clean restart: %s" % e for e in errs]
        if total_acked == 0:
            failures.append("no commit was acknowledged in any round")
        print("acknowledged commits over all rounds: %d" % total_acked)
    except Exception as e:  # noqa: BLE001
        failures.append("%s: %s" % (type(e).__name__, e))
    finally:
        srv.stop()
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

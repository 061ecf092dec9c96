"""The PASS/FAIL tally of the server test scripts (regress_*.py,
isolated_*.py): each check prints `PASS name` or `FAIL name: why` at once
(so a hung script still shows how far it got), and summary() prints the
closing `N passed, N failed` line run.sh reads and gives the exit status.
Below, what the isolated_*.py scripts share: their arguments, their
server in a fresh folder, started and always stopped, a statement's
SQLSTATE, a session's liveness, a value's peak while a statement runs."""
import argparse
import contextlib
import os
import sys
import threading
import time

passed = 0
failed = 0


def check(name, ok, why=""):
    """Records one check; returns ok so callers can branch on it."""
    global passed, failed
    if ok:
        passed += 1
        print("PASS %s" % name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))
    sys.stdout.flush()
    return ok


def summary():
    """Prints the closing line; the exit status: 0 when nothing failed."""
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


def isolated_args():
    """The arguments run.sh gives an isolated_*.py script."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    return ap.parse_args()


def skip(why):
    """Nothing of the script applies (e.g. to PostgreSQL): says why, counts
    nothing; the exit status for main()."""
    print("SKIP %s" % why)
    return summary()


# ---- what the isolated_*.py scripts share --------------------------------

def isolated_server(args, name, params=None, both=False, **kw):
    """The server of an isolated_*.py script, in the folder args.dir/name,
    emptied first: PostgreSQL when both is set and args.kind is postgres
    (a script whose checks run there too), else Cadenza at args.binary
    with params as its [Parameters] and kw for srvctl.Server (buffers,
    extra_ini, wrapper). Not started: see running()."""
    import shutil
    import srvctl
    folder = os.path.abspath(os.path.join(args.dir, name))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    if both and args.kind == "postgres":
        return srvctl.Server("postgres", folder)
    if params:
        ini = dict(kw.pop("extra_ini", None) or {})
        ini["Parameters"] = dict(ini.get("Parameters", {}),
                                 **{k: str(v) for k, v in params.items()})
        kw["extra_ini"] = ini
    return srvctl.Server("cadenza", folder, binary=args.binary, **kw)


@contextlib.contextmanager
def running(srv, **start):
    """srv started for the with block and stopped after it, however it ends."""
    srv.start(**start)
    try:
        yield srv
    finally:
        srv.stop()


def sqlstate_of(conn, sql):
    """Runs sql to the end: ("result" or the SQLSTATE, the primary message,
    seconds taken)."""
    import psycopg
    t0 = time.time()
    try:
        conn.execute(sql).fetchall()
        return "result", "", time.time() - t0
    except psycopg.Error as ex:
        return ex.diag.sqlstate, ex.diag.message_primary or "", time.time() - t0


def answers(conn):
    """Whether the session still answers a query."""
    import psycopg
    try:
        return conn.execute("SELECT 1").fetchone()[0] == 1
    except psycopg.Error:
        return False


class Peak:
    """The largest value sample() gives while the with block runs, sampled
    every interval seconds on a thread (sample() returning None ends it:
    the thing watched is gone)."""

    def __init__(self, sample, interval):
        self.sample = sample
        self.interval = interval
        self.peak = 0
        self.stop = False
        self.t = threading.Thread(target=self.run, daemon=True)

    def run(self):
        while not self.stop:
            v = self.sample()
            if v is None:
                return
            self.peak = max(self.peak, v)
            time.sleep(self.interval)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *a):
        self.stop = True
        self.t.join()

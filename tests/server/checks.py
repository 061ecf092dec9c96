"""The PASS/FAIL tally of the server test scripts (regress_*.py,
isolated_*.py): each check prints `PASS name` or `FAIL name: why` at once
(so a hung script still shows how far it got), and summary() prints the
closing `N passed, N failed` line run.sh reads and gives the exit status.
Below, what the isolated_*.py scripts share: their arguments, their
server in a fresh folder, started and always stopped, a statement's
SQLSTATE, a query's rows or SQLSTATE, its plan, how fast a cancel or a
statement_timeout stops it, a session's liveness, a value's peak while a
statement runs, and clients run while the server is killed with -9."""
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


def state(conn, sql):
    """"result" or the SQLSTATE of sql, and the primary message."""
    import psycopg
    try:
        cur = conn.execute(sql)
        if cur.description:
            cur.fetchall()
        return "result", ""
    except psycopg.Error as ex:
        return ex.diag.sqlstate, ex.diag.message_primary or ""


def error_fields(conn, sql):
    """(SQLSTATE, primary message, DETAIL, HINT) of sql, or ("ok", "",
    None, None) when it runs."""
    import psycopg
    try:
        conn.execute(sql)
        return ("ok", "", None, None)
    except psycopg.Error as ex:
        d = ex.diag
        return (d.sqlstate, d.message_primary, d.message_detail, d.message_hint)


def rows(conn, sql, ordered=True):
    """("rows", sql's rows as tuples) or ("error", its SQLSTATE); with
    ordered=False the rows are sorted (by repr), for comparing the answers
    of a query without ORDER BY."""
    import psycopg
    try:
        got = [tuple(r) for r in conn.execute(sql).fetchall()]
    except psycopg.Error as ex:
        return ("error", ex.sqlstate)
    return ("rows", got if ordered else sorted(got, key=repr))


def plan(conn, sql, analyze=False, params=None):
    """The EXPLAIN [ANALYZE] of sql (with its parameters) as one text; conn
    is a connection or a cursor."""
    return "\n".join(r[0] for r in conn.execute(("EXPLAIN ANALYZE " if analyze else "EXPLAIN ") +
                                                sql, params).fetchall())


def stop_latency(dsn, sql, how, after=1.5):
    """Runs sql (seconds of work) on a connection of its own; after `after`
    seconds cancels it (how = "cancel") or lets statement_timeout stop it
    (how = "timeout"). Returns (its SQLSTATE or "finished", seconds from
    the stop to the error)."""
    import psycopg
    with psycopg.connect(dsn, autocommit=True) as c:
        if how == "timeout":
            c.execute("SET statement_timeout = %d" % int(after * 1000))
        box = {}

        def run():
            box["t0"] = time.monotonic()
            try:
                c.execute(sql).fetchall()
                box["state"] = "finished"
            except psycopg.Error as ex:
                box["state"] = ex.sqlstate
            box["end"] = time.monotonic()

        th = threading.Thread(target=run)
        th.start()
        time.sleep(after)
        stop = time.monotonic()
        if how == "cancel":
            c.cancel()
        th.join(60)
        if how == "timeout":
            stop = box["t0"] + after
        return box.get("state"), box.get("end", stop + 60) - stop


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


class KillClient(threading.Thread):
    """A client of a crash test: repeats self.step(conn) on one autocommit
    connection until killing is set; an error before that is self.error.
    Subclasses keep what step acknowledged (and what was in doubt when the
    server died) for the checks after the restart."""

    def __init__(self, dsn, killing):
        super().__init__(daemon=True)
        self.dsn, self.killing = dsn, killing
        self.error = None

    def step(self, conn):
        raise NotImplementedError

    def run(self):
        import psycopg
        try:
            conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=10)
        except psycopg.Error as ex:
            if not self.killing.is_set():
                self.error = "connect: %s" % ex
            return
        try:
            while not self.killing.is_set():
                self.step(conn)
        except psycopg.Error as ex:
            if not self.killing.is_set():
                self.error = "%s" % ex
        finally:
            try:
                conn.close()
            except psycopg.Error:
                pass


def kill_cycle(srv, clients, killing, seconds, label):
    """Starts the KillClients, lets them run for `seconds`, kills the
    server with -9 under them, waits for them and checks they ran."""
    for t in clients:
        t.start()
    time.sleep(seconds)
    killing.set()
    srv.kill9()
    for t in clients:
        t.join(30)
    errs = [t.error for t in clients if t.error]
    check("%s: clients ran" % label, not errs, "; ".join(errs[:3]))

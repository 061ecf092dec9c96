#!/usr/bin/env python3
"""Every file a server writes is locked (issue 7).

A first server runs on a striped database (two stripe files) with its own
transaction log. A second server, started from another folder with its own
pid file and error log, must refuse to start, with a message naming the
file and saying it is in use, when it shares with the first:

  log        only the transaction log (its own database file is new)
  stripe     only the second stripe file (its first stripe and log are new)
  database   the whole database (its own log)

and must leave nothing behind (no database or log file it would have
created) while the first keeps serving. Then the first is killed with
SIGKILL and started again at once over the same files: the kernel dropped
its locks with the process, so the restart succeeds and has the data.

--kind postgres: skipped (these are Cadenza's own files).
"""
import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402
import srvctl  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None


def count(srv):
    with psycopg.connect(srv.dsn(), connect_timeout=10, autocommit=True) as c:
        return c.execute("select count(*) from lk_t").fetchone()[0]


def second(folder, binary, db_lines, log_path):
    """Starts a server in folder with the given database lines ([Database]
    DatabaseFile or [Striping] StripeN) and log; returns (exit status or
    "RUNNING", output and error log)."""
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    stripes = [ln for ln in db_lines if ln.startswith("Stripe")]
    files = [ln for ln in db_lines if not ln.startswith("Stripe")]
    ini = (["[Striping]"] + stripes if stripes else []) + ["[Database]"] + files + [
                                       "TransactionFile = %s" % log_path,
                                       "ErrorLogFile = second.log",
                                       "[Parameters]",
                                       "ServerPort = %d" % srvctl.free_port(),
                                       "ListenAddress = 127.0.0.1",
                                       "DBAPassword = pw-second",
                                       "PidFile = second.pid",
                                       "NumberOfBuffers = 500"]
    with open(os.path.join(folder, "second.ini"), "w") as f:
        f.write("\n".join(ini) + "\n")
    p = subprocess.Popen([binary, "-c", "second.ini", "-f"], cwd=folder,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT)
    try:
        out, _ = p.communicate(timeout=30)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
        rc = "RUNNING"
    text = out.decode(errors="replace")
    log = os.path.join(folder, "second.log")
    if os.path.exists(log):
        text += open(log, errors="replace").read()
    return rc, text


def refused(name, rc, text, what, path):
    check("%s_refused" % name, rc not in (0, "RUNNING", "TIMEOUT"),
          "exit %s: %s" % (rc, text[-300:]))
    check("%s_message" % name, "in use" in text and what in text and path in text,
          "no clear message naming %s %s: %s" % (what, path, text[-300:]))


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the locks on the database, stripes and log are Cadenza's")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    base = os.path.abspath(args.dir)
    srv = checks.isolated_server(args, "locks")
    folder = srv.folder
    s1 = os.path.join(folder, "first.s1")
    s2 = os.path.join(folder, "first.s2")
    trx = os.path.join(folder, "cadenza.trx")
    srv.extra_ini = {"Striping": {"Stripe1": s1, "Stripe2": s2}}
    try:
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("create table lk_t (id int primary key, v text)")
            c.execute("insert into lk_t select g, 'v' || g from generate_series(1, 300) g")
        other = os.path.join(base, "locks-second")

        rc, text = second(other, args.binary, ["DatabaseFile = own.db"], trx)
        refused("same_log", rc, text, "transaction log", trx)
        check("same_log_no_database_left", not os.path.exists(os.path.join(other, "own.db")),
              "the refused server created own.db")

        rc, text = second(other, args.binary,
                          ["Stripe1 = own.s1", "Stripe2 = %s" % s2], os.path.join(other, "own.trx"))
        refused("same_stripe", rc, text, "database stripe", s2)
        check("same_stripe_no_log_left", not os.path.exists(os.path.join(other, "own.trx")),
              "the refused server left own.trx")

        rc, text = second(other, args.binary,
                          ["Stripe1 = %s" % s1, "Stripe2 = %s" % s2], os.path.join(other, "own.trx"))
        refused("same_database", rc, text, "database file", s1)

        check("first_unharmed", srv.alive() and count(srv) == 300, "first server lost or changed")

        # a stale lock: the process is gone, the kernel released its locks
        srv.kill9()
        try:
            srv.start(timeout=60)
            ok, why = True, ""
        except RuntimeError as e:
            ok, why = False, str(e)[-400:]
        check("restart_after_kill9_not_blocked", ok, why)
        if ok:
            check("data_after_restart", count(srv) == 300, "rows lost")
    except Exception as e:  # a step that cannot go on is one failure
        check("locks", False, "%s: %s" % (type(e).__name__, e))
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

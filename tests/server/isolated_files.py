#!/usr/bin/env python3
"""The server's own files and its death (issue 7, defects 6 and 9).

Own servers, because it aims COPY at the server's files, sends it fatal
signals and starts two servers on one folder:

  own_files   COPY TO/FROM each of the server's own files (database, stripe,
              transaction log, ini, error log, pid file, TLS certificate and
              key) by absolute path, "..", "//" and "." spellings, a symlink
              and a hard link inside DirsAllowed: 42501 and the file
              unchanged; a relative path is refused too; devices, FIFOs and
              /proc files are refused (42501) without hanging; a normal COPY
              inside DirsAllowed still works; after a CHECKPOINT and a
              restart the database is intact.
  pg_sleep    ends at once on statement_timeout and on a cancel request.
  crash       a statement sleeps in pg_sleep on one connection; SIGSEGV (then
              SIGFPE) to the server: the log holds the signal, a backtrace and
              that statement; the exit status is the signal's; a restart at
              once in the same folder (the dead server's pid file still
              there, its process not yet reaped) starts and has the data.
  pid file    a pid file naming a live process that is not a server does not
              stop a start; a second server with the same pid file, or the
              same database, is refused while the first runs, and the first
              is unharmed.

--kind postgres skips what is Cadenza's own (ini, pid file lock, crash log).
"""
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402
import srvctl  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None


def digest(path):
    with open(path, "rb") as f:
        data = f.read()
    return len(data), hashlib.sha256(data).hexdigest(), data


def sqlstate_of(conn, sql, timeout=20):
    """Runs sql; returns None on success, else the SQLSTATE (or 'TIMEOUT',
    or the exception's text when it has none)."""
    box = {}

    def run():
        try:
            conn.execute(sql)
            box["r"] = None
        except psycopg.Error as e:
            box["r"] = e.sqlstate or ("no sqlstate: %s" % e)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        return "TIMEOUT"
    return box["r"]


def connect(srv):
    return psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10)


# -- defect 6 -----------------------------------------------------------------

def make_tls(folder):
    crt, key = os.path.join(folder, "server.crt"), os.path.join(folder, "server.key")
    r = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
                        "-subj", "/CN=localhost", "-days", "2", "-keyout", key, "-out", crt],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (crt, key) if r.returncode == 0 else (None, None)


def test_own_files(args):
    srv = checks.isolated_server(args, "own")
    folder = srv.folder
    io = os.path.join(folder, "io")
    os.makedirs(io)
    stripe = os.path.join(folder, "cadenza-2.db")
    params = {"DirsAllowed": "%s, /dev/null, /proc/self" % folder}
    crt, key = make_tls(folder) if shutil.which("openssl") else (None, None)
    if crt:
        params.update({"SSLCertificate": crt, "SSLPrivateKey": key})
    srv.extra_ini = {"Parameters": params,
                     "Striping": {"Stripe1": os.path.join(folder, "cadenza.db"), "Stripe2": stripe}}
    srv.start()
    try:
        c = connect(srv)
        c.execute("create table fz_t (a int, b text)")
        c.execute("insert into fz_t select g, 'row ' || g from generate_series(1, 500) g")
        c.execute("checkpoint")
        own = ["cadenza.db", "cadenza-2.db", "cadenza.trx", "cadenza.ini", "cadenza.log",
               "cadenza.pid"]
        if crt:
            own += ["server.crt", "server.key"]
        else:
            print("(no openssl: the TLS files are not checked)")
        for f in own:
            name = f.replace(".", "_")
            p = os.path.join(folder, f)
            sym = os.path.join(io, "sym-" + f)
            hard = os.path.join(io, "hard-" + f)
            os.symlink(p, sym)
            os.link(p, hard)
            spellings = {"abs": p, "dotdot": os.path.join(io, "..", f),
                         "slashes": folder + "//./" + f, "symlink": sym, "hardlink": hard}
            for how, path in spellings.items():
                before = digest(p)
                for direction in ("to", "from"):
                    sql = "copy fz_t %s '%s'" % (direction, path.replace("'", "''"))
                    st = sqlstate_of(c, sql)
                    after = digest(p)
                    if f == "cadenza.log":
                        # the log grows as the server logs: it must only grow
                        same = after[0] >= before[0] and after[2][:before[0]] == before[2]
                    else:
                        same = after[:2] == before[:2]
                    check("copy_%s_%s_%s" % (direction, name, how), st == "42501" and same,
                          "sqlstate %s, file %s (size %d -> %d)"
                          % (st, "unchanged" if same else "CHANGED", before[0], after[0]))
            # relative: refused as in PostgreSQL (42602), and harmless
            before = digest(p)
            st = sqlstate_of(c, "copy fz_t to '%s'" % f)
            same = f == "cadenza.log" or digest(p)[:2] == before[:2]
            check("copy_to_%s_relative" % name, st in ("42501", "42602") and same,
                  "sqlstate %s, file %s" % (st, "unchanged" if same else "CHANGED"))
        n = c.execute("select count(*) from fz_t").fetchone()[0]
        check("table_unchanged_by_refused_copies", n == 500, "count %s" % n)

        # not regular files: refused, and without hanging on a FIFO
        fifo = os.path.join(io, "fifo")
        os.mkfifo(fifo)
        for direction in ("to", "from"):
            st = sqlstate_of(c, "copy fz_t %s '%s'" % (direction, fifo), timeout=10)
            if st == "TIMEOUT":  # release the server's blocked open
                fd = os.open(fifo, (os.O_RDONLY if direction == "to" else os.O_WRONLY)
                             | os.O_NONBLOCK)
                time.sleep(1)
                os.close(fd)
            check("copy_%s_fifo_refused" % direction, st == "42501", "sqlstate %s" % st)
        st = sqlstate_of(c, "copy fz_t to '/dev/null'")
        check("copy_to_device_refused", st == "42501", "sqlstate %s" % st)
        st = sqlstate_of(c, "copy fz_t from '/proc/self/status'")
        check("copy_from_proc_refused", st == "42501", "sqlstate %s" % st)
        st = sqlstate_of(c, "copy fz_t to '/proc/self/comm'")
        check("copy_to_proc_refused", st == "42501", "sqlstate %s" % st)

        # the ordinary use still works: a new file, an existing one rewritten
        out = os.path.join(io, "out.csv")
        with open(out, "w") as f:
            f.write("x" * 100000)
        st = sqlstate_of(c, "copy fz_t to '%s' (format csv)" % out)
        size = os.path.getsize(out)
        check("copy_to_file_in_dirs_allowed", st is None and 0 < size < 100000,
              "sqlstate %s, size %d" % (st, size))
        c.execute("create table fz_u (a int, b text)")
        st = sqlstate_of(c, "copy fz_u from '%s' (format csv)" % out)
        n = c.execute("select count(*) from fz_u").fetchone()[0]
        check("copy_from_file_in_dirs_allowed", st is None and n == 500,
              "sqlstate %s, rows %s" % (st, n))
        new = os.path.join(io, "new.txt")
        st = sqlstate_of(c, "copy fz_t to '%s'" % new)
        check("copy_to_new_file", st is None and os.path.getsize(new) > 0, "sqlstate %s" % st)

        # not a superuser: refused before anything else
        c.execute("create user fz_user password 'fz_pw_1'")
        try:
            with psycopg.connect(srv.dsn(user="fz_user", password="fz_pw_1"),
                                 autocommit=True) as u:
                st = sqlstate_of(u, "copy fz_t to '%s'" % new)
        except psycopg.Error as e:
            st = "login failed: %s" % e
        check("copy_file_needs_superuser", st == "42501", "sqlstate %s" % st)

        c.execute("checkpoint")
        c.close()
        srv.stop()
        srv.start()
        with connect(srv) as c2:
            n = c2.execute("select count(*), sum(a) from fz_t").fetchone()
        check("database_intact_after_restart", tuple(n) == (500, 125250), "got %s" % (n,))
    finally:
        srv.stop()


# -- defect 9 -----------------------------------------------------------------

def wait_dead(pid, timeout=20):
    """Until the process is a zombie or gone, without reaping it: the
    stale pid file case of the issue (a parent that has not waited yet)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with open("/proc/%d/stat" % pid) as f:
                if f.read().split(") ")[-1][:1] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def test_pg_sleep(srv):
    """pg_sleep, which the crash test sleeps in, ends on statement_timeout
    and on a cancel request at once (57014)."""
    with connect(srv) as c:
        t0 = time.time()
        c.execute("select pg_sleep(0.3)")
        check("pg_sleep_sleeps", time.time() - t0 >= 0.29, "%.3f s" % (time.time() - t0))
        c.execute("set statement_timeout = 300")
        t0 = time.time()
        st = sqlstate_of(c, "select pg_sleep(30)")
        took = time.time() - t0
        check("pg_sleep_honours_statement_timeout", st == "57014" and took < 3,
              "sqlstate %s after %.1f s" % (st, took))
        c.execute("set statement_timeout = 0")
        timer = threading.Timer(0.5, c.cancel)
        timer.start()
        t0 = time.time()
        st = sqlstate_of(c, "select pg_sleep(30)")
        took = time.time() - t0
        timer.join()
        check("pg_sleep_honours_cancel", st == "57014" and took < 3,
              "sqlstate %s after %.1f s" % (st, took))
        n = c.execute("select 1").fetchone()[0]
        check("session_goes_on_after_cancel", n == 1, "got %s" % n)


def test_crash(srv, sig, tag):
    """srv runs; it runs again (restarted) when this returns, if it could."""
    folder = srv.folder
    proc, pid = srv.proc, srv.pid
    marker = "fz-crash-marker-%s-%d" % (tag, os.getpid())
    c = connect(srv)
    c.execute("create table if not exists fz_c (a int)")
    c.execute("insert into fz_c values (1), (2), (3)")
    before = c.execute("select count(*) from fz_c").fetchone()[0]
    log = srv.log_path()
    log_start = os.path.getsize(log)

    sleeper = connect(srv)
    box = {}

    def sleep_stmt():
        try:
            sleeper.execute("select pg_sleep(60), '%s'" % marker)
            box["r"] = "returned"
        except Exception as e:  # the server dies under it
            box["r"] = str(e)
    t = threading.Thread(target=sleep_stmt, daemon=True)
    t.start()
    time.sleep(1.0)
    os.kill(pid, sig)
    dead = wait_dead(pid)
    check("%s_server_died" % tag, dead, "still running 20 s after the signal")
    with open(log, "rb") as f:
        f.seek(log_start)
        text = f.read().decode(errors="replace")
    name = {signal.SIGSEGV: "SIGSEGV", signal.SIGFPE: "SIGFPE"}[sig]
    check("%s_log_names_signal" % tag,
          ("signal %d" % sig) in text and name in text, "log: %r" % text[-500:])
    frames = [ln for ln in text.splitlines() if "[0x" in ln]
    check("%s_log_has_backtrace" % tag, "backtrace" in text and len(frames) >= 2,
          "%d frames in %r" % (len(frames), text[-500:]))
    check("%s_log_has_statement" % tag, marker in text and "pg_sleep" in text,
          "marker not in %r" % text[-800:])

    # restart at once: the dead server's pid file is still there and its
    # process not reaped yet
    pid_file = os.path.join(folder, "cadenza.pid")
    stale = os.path.exists(pid_file)
    try:
        srv.start(timeout=30)
        started = True
        why = ""
    except RuntimeError as e:
        started, why = False, str(e)[-600:]
        srv.proc = proc  # the dead one, reaped below
    check("%s_restart_over_stale_pid_file" % tag, started,
          "(pid file %s) %s" % ("present" if stale else "absent", why))
    rc = proc.wait(timeout=10)
    if not started:
        srv.pid = srv.proc = None
    check("%s_exit_status_is_signal" % tag, rc == -sig, "exit status %s" % rc)
    if started:
        with connect(srv) as c3:
            after = c3.execute("select count(*) from fz_c").fetchone()[0]
        check("%s_data_after_restart" % tag, after == before, "%s rows, %s before" % (after, before))
    t.join(5)
    for conn in (c, sleeper):
        try:
            conn.close()
        except Exception:
            pass


def run_second(folder, ini_name, ini_text, binary):
    with open(os.path.join(folder, ini_name), "w") as f:
        f.write(ini_text)
    try:
        r = subprocess.run([binary, "-c", ini_name, "-f"], cwd=folder, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=30)
        return r.returncode, r.stdout.decode(errors="replace")
    except subprocess.TimeoutExpired as e:
        return "TIMEOUT", (e.output or b"").decode(errors="replace")


def test_pid_file(args, srv):
    folder = srv.folder
    # srv runs (started by test_crash): a second server on the same folder
    ini = open(os.path.join(folder, "cadenza.ini")).read()
    port = srvctl.free_port()
    ini2 = ini.replace("ServerPort = %d" % srv.port, "ServerPort = %d" % port)
    pid_file = os.path.join(folder, "cadenza.pid")
    pid_before = open(pid_file).read()
    rc, out = run_second(folder, "second.ini", ini2, args.binary)
    check("second_server_same_pid_file_refused", rc not in (0, "TIMEOUT") and srv.alive(),
          "exit %s, first alive %s: %s" % (rc, srv.alive(), out[-300:]))
    check("second_server_left_pid_file_alone", open(pid_file).read() == pid_before,
          "pid file now %r" % open(pid_file).read())
    ini3 = ini2.replace("PidFile = cadenza.pid", "PidFile = other.pid")
    rc, out = run_second(folder, "third.ini", ini3, args.binary)
    check("second_server_same_database_refused", rc not in (0, "TIMEOUT") and srv.alive(),
          "exit %s: %s" % (rc, out[-300:]))
    with connect(srv) as c:
        n = c.execute("select count(*) from fz_c").fetchone()[0]
    check("first_server_unharmed", n > 0, "count %s" % n)
    srv.stop()
    # a pid file naming a live process that is no server (this test)
    with open(pid_file, "w") as f:
        f.write("%d\n" % os.getpid())
    try:
        srv.start(timeout=30)
        ok, why = True, ""
    except RuntimeError as e:
        ok, why = False, str(e)[-400:]
    check("start_over_pid_file_of_other_live_process", ok, why)
    srv.stop()
    check("pid_file_removed_on_clean_stop", not os.path.exists(pid_file), "still there")


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the server's own files, its crash log and its pid file are Cadenza's")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
    else:
        os.makedirs(args.dir, exist_ok=True)
        try:
            test_own_files(args)
        except Exception as e:  # a step that cannot go on is one failure
            check("own_files", False, "%s: %s" % (type(e).__name__, e))
        srv = checks.isolated_server(args, "crash")
        try:
            srv.start()
            test_pg_sleep(srv)
            test_crash(srv, signal.SIGSEGV, "sigsegv")
            if srv.alive():
                test_crash(srv, signal.SIGFPE, "sigfpe")
            if srv.alive():
                test_pid_file(args, srv)
        except Exception as e:
            check("crash", False, "%s: %s" % (type(e).__name__, e))
        finally:
            srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

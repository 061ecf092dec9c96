#!/usr/bin/env python3
"""Start and stop a database server for the server tests and benchmarks.

Two kinds of server speak the same protocol to the same harnesses:
  cadenza   binsrc/cadenza/cadenza -c cadenza.ini -f, in a folder with a
            generated ini (small buffer pool, DBAPassword, scram-sha-256)
  postgres  a PostgreSQL 15 cluster (initdb in the folder, scram-sha-256),
            the reference the tests are validated against
Both get the superuser `dba` with a generated password and a database
`cztest` (Cadenza serves one database under any name; PostgreSQL gets one
created), on a free 127.0.0.1 port.

Library: Server(kind, folder, binary=..., wrapper=[...]).start(); .kill9();
.start() again (recovery); .stop(); .dsn(); .env(); .log_tail(). wrapper is
an argv prefix that execs the server (prlimit, taskset); .wrapper may be
changed between stop() and start().
CLI (used by lib.sh):
  srvctl.py start KIND FOLDER [--binary PATH] [--buffers N]
      starts the server detached, waits until it accepts, writes
      FOLDER/server.env (shell assignments: PGHOST PGPORT PGUSER PGPASSWORD
      PGDATABASE SRV_PID SRV_KIND SRV_LOG) and prints it
  srvctl.py stop FOLDER       SIGTERM, then SIGKILL after 30 s, by PID
  srvctl.py log FOLDER [N]    the last N lines of the server's logs

The server runs in its own process group whose id is its PID; kill9()
signals that group and the server's child processes (PostgreSQL's backends
have groups of their own), so they go down with the postmaster (a real
crash), and nothing else is ever signalled.
"""
import argparse
import os
import pwd
import secrets
import shlex
import signal
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
PG_BIN = os.environ.get("PG_BIN", "/usr/lib/postgresql/15/bin")
DBNAME = "cztest"
USER = "dba"


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def _connect_ok(dsn):
    """True when a full connection with authentication succeeds."""
    try:
        import psycopg
    except ImportError:  # no driver: a TCP accept must do
        return None
    try:
        with psycopg.connect(dsn, connect_timeout=5, autocommit=True) as c:
            c.execute("select 1").fetchone()
        return True
    except Exception:
        return False


class Server:
    def __init__(self, kind, folder, binary=None, buffers=2000, password=None,
                 port=None, extra_ini=None, pg_conf=None, wrapper=None):
        if kind not in ("cadenza", "postgres"):
            raise ValueError("kind must be cadenza or postgres")
        self.kind = kind
        self.folder = os.path.abspath(folder)
        self.binary = binary or os.path.join(TOP, "build", "binsrc", "cadenza", "cadenza")
        self.buffers = buffers
        self.password = password or "pw" + secrets.token_hex(8)
        self.port = port or free_port()
        self.extra_ini = extra_ini or {}
        self.pg_conf = pg_conf or {}
        # argv prefix that execs the server (e.g. ["prlimit", "--as=N", "--"]):
        # it must exec, not fork, so that the PID stays the server's
        self.wrapper = list(wrapper or [])
        self.proc = None
        self.pid = None
        self.created = False
        os.makedirs(self.folder, exist_ok=True)
        self.out_path = os.path.join(self.folder, "server.out")

    # -- connection data -------------------------------------------------
    def dsn(self, **over):
        kw = dict(host="127.0.0.1", port=str(self.port), user=USER,
                  password=self.password, dbname=DBNAME)
        kw.update({k: str(v) for k, v in over.items()})
        return " ".join("%s=%s" % (k, v) for k, v in kw.items())

    def env(self):
        return {"PGHOST": "127.0.0.1", "PGPORT": str(self.port), "PGUSER": USER,
                "PGPASSWORD": self.password, "PGDATABASE": DBNAME,
                "SRV_PID": str(self.pid or ""), "SRV_KIND": self.kind,
                "SRV_LOG": self.log_path()}

    def log_path(self):
        if self.kind == "cadenza":
            return os.path.join(self.folder, "cadenza.log")
        return os.path.join(self.folder, "pg.log")

    # -- set-up ------------------------------------------------------------
    def _write_ini(self):
        ini = {
            "Database": {"DatabaseFile": "cadenza.db", "TransactionFile": "cadenza.trx",
                         "ErrorLogFile": "cadenza.log"},
            "Parameters": {"ServerPort": str(self.port), "ListenAddress": "127.0.0.1",
                           "DBAPassword": self.password,
                           "Authentication": "scram-sha-256",
                           "PidFile": "cadenza.pid",
                           "NumberOfBuffers": str(self.buffers),
                           "MaxDirtyBuffers": str(self.buffers * 3 // 4),
                           "CheckpointInterval": "60",
                           # server-side COPY files get a folder of their
                           # own, as the sample ini: never the database's
                           "DirsAllowed": "io"},
        }
        os.makedirs(os.path.join(self.folder, "io"), exist_ok=True)
        for sec, kv in self.extra_ini.items():
            ini.setdefault(sec, {}).update(kv)
        with open(os.path.join(self.folder, "cadenza.ini"), "w") as f:
            f.write("; generated by tests/server/srvctl.py\n")
            for sec, kv in ini.items():
                f.write("[%s]\n" % sec)
                for k, v in kv.items():
                    f.write("%s = %s\n" % (k, v))

    def _pg_user(self):
        """PostgreSQL refuses to run as root: run it as `postgres` then."""
        if os.geteuid() != 0:
            return None
        return pwd.getpwnam("postgres")

    def _pg_initdb(self):
        data = os.path.join(self.folder, "pgdata")
        pw = self._pg_user()
        pwfile = os.path.join(self.folder, "pwfile")
        with open(pwfile, "w") as f:
            f.write(self.password + "\n")
        if pw:
            for p in (self.folder, pwfile):
                os.chown(p, pw.pw_uid, pw.pw_gid)
        cmd = [os.path.join(PG_BIN, "initdb"), "-D", data, "--username=" + USER,
               "--pwfile=" + pwfile, "--auth=scram-sha-256", "--encoding=UTF8",
               "--locale=C", "-N"]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           user=pw.pw_uid if pw else None, group=pw.pw_gid if pw else None)
        os.unlink(pwfile)
        if r.returncode != 0:
            raise RuntimeError("initdb failed:\n" + r.stdout.decode(errors="replace"))
        conf = {"port": str(self.port), "listen_addresses": "'127.0.0.1'",
                "unix_socket_directories": "'%s'" % self.folder,
                "max_connections": "200", "shared_buffers": "128MB",
                "fsync": "on", "synchronous_commit": "on",
                "logging_collector": "off"}
        conf.update(self.pg_conf)
        with open(os.path.join(data, "postgresql.conf"), "a") as f:
            for k, v in conf.items():
                f.write("%s = %s\n" % (k, v))

    # -- life cycle --------------------------------------------------------
    def start(self, timeout=90):
        """Start (creating the database the first time), wait until a client
        can log in; raise with the log's tail when it does not come up."""
        if self.kind == "cadenza":
            if not os.access(self.binary, os.X_OK):
                raise RuntimeError("no server binary at %s" % self.binary)
            if not self.created:
                self._write_ini()
            cmd = [self.binary, "-c", "cadenza.ini", "-f"]
            user = group = None
        else:
            if not self.created:
                self._pg_initdb()
            pw = self._pg_user()
            cmd = [os.path.join(PG_BIN, "postgres"), "-D", os.path.join(self.folder, "pgdata")]
            user, group = (pw.pw_uid, pw.pw_gid) if pw else (None, None)
        out = open(self.out_path, "ab")
        if self.kind == "postgres" and user is not None:
            os.chown(self.out_path, user, group)
        cmd = self.wrapper + cmd
        self.proc = subprocess.Popen(cmd, cwd=self.folder, stdin=subprocess.DEVNULL,
                                     stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True, user=user, group=group)
        out.close()
        self.pid = self.proc.pid
        with open(os.path.join(self.folder, "server.pid"), "w") as f:
            f.write("%d\n" % self.pid)
        deadline = time.time() + timeout
        # PostgreSQL: connect to the maintenance database first, create ours.
        first_db = "postgres" if (self.kind == "postgres" and not self.created) else DBNAME
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("server exited with status %s during start:\n%s"
                                   % (self.proc.returncode, self.log_tail()))
            ok = _connect_ok(self.dsn(dbname=first_db))
            if ok is None:
                ok = self._tcp_ok()
            if ok:
                break
            if time.time() > deadline:
                self.kill9()
                raise RuntimeError("server did not accept within %d s:\n%s"
                                   % (timeout, self.log_tail()))
            time.sleep(0.2)
        if self.kind == "postgres" and not self.created:
            import psycopg
            with psycopg.connect(self.dsn(dbname="postgres"), autocommit=True) as c:
                c.execute("create database " + DBNAME)
        self.created = True
        return self

    def _tcp_ok(self):
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
            return True
        except OSError:
            return False

    def alive(self):
        if self.proc is not None:
            return self.proc.poll() is None
        return _pid_alive(self.pid)

    def kill9(self):
        """A crash: SIGKILL to the server's process group and to its child
        processes (PostgreSQL's backends call setsid(), so they are not in
        the postmaster's group; one that outlives it keeps the shared
        memory and the restart fails), then reap it."""
        if self.pid is None:
            return
        children = _children(self.pid)
        _killpg(self.pid, signal.SIGKILL)
        for c in children:
            try:
                os.kill(c, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if self.proc is not None:
            self.proc.wait()
        else:
            _wait_gone(self.pid, 30)
        for c in children:
            _wait_gone(c, 30)
        self.pid = None
        self.proc = None

    def stop(self, timeout=30):
        """Clean shutdown (SIGTERM; PostgreSQL: fast shutdown), SIGKILL when
        it does not finish within timeout seconds. Returns the exit status
        (None when it had to be killed or was not started by us)."""
        if self.pid is None:
            return None
        pid = self.pid
        try:
            os.kill(pid, signal.SIGINT if self.kind == "postgres" else signal.SIGTERM)
        except ProcessLookupError:
            pass
        rc = None
        if self.proc is not None:
            try:
                rc = self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                _killpg(pid, signal.SIGKILL)
                self.proc.wait()
        elif not _wait_gone(pid, timeout):
            _killpg(pid, signal.SIGKILL)
            _wait_gone(pid, 10)
        self.pid = None
        self.proc = None
        return rc

    def log_tail(self, n=60):
        lines = []
        for p in (self.out_path, self.log_path()):
            if os.path.exists(p):
                with open(p, "rb") as f:
                    txt = f.read().decode(errors="replace").splitlines()
                lines.append("==> %s <==" % p)
                lines.extend(txt[-n:])
        return "\n".join(lines)


def _killpg(pid, sig):
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
    except PermissionError:
        os.kill(pid, sig)


def _children(pid):
    """The PIDs whose parent is pid (from /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                fields = f.read().rsplit(") ", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            out.append(int(d))
    return out


def _pid_alive(pid):
    if not pid:
        return False
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(") ")[-1][:1] != "Z"
    except OSError:
        return False


def _wait_gone(pid, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not _pid_alive(pid):
            return True
        time.sleep(0.1)
    return not _pid_alive(pid)


# -- CLI -------------------------------------------------------------------
def _write_env(srv):
    path = os.path.join(srv.folder, "server.env")
    with open(path, "w") as f:
        for k, v in srv.env().items():
            f.write("%s=%s\n" % (k, shlex.quote(v)))
    return path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("start")
    s.add_argument("kind", choices=["cadenza", "postgres"])
    s.add_argument("folder")
    s.add_argument("--binary")
    s.add_argument("--buffers", type=int, default=2000)
    s.add_argument("--port", type=int)
    s.add_argument("--timeout", type=int, default=90)
    s.add_argument("--pg-conf", action="append", default=[], metavar="KEY=VALUE")
    s.add_argument("--param", action="append", default=[], metavar="KEY=VALUE",
                   help="a [Parameters] key of cadenza.ini (e.g. VectorSize=1)")
    t = sub.add_parser("stop")
    t.add_argument("folder")
    t.add_argument("--timeout", type=int, default=30)
    lg = sub.add_parser("log")
    lg.add_argument("folder")
    lg.add_argument("n", nargs="?", type=int, default=60)
    a = ap.parse_args(argv)
    if a.cmd == "start":
        conf = dict(kv.split("=", 1) for kv in a.pg_conf)
        params = dict(kv.split("=", 1) for kv in a.param)
        srv = Server(a.kind, a.folder, binary=a.binary, buffers=a.buffers, port=a.port,
                     pg_conf=conf, extra_ini={"Parameters": params} if params else None)
        try:
            srv.start(timeout=a.timeout)
        except Exception as e:
            print("srvctl: %s" % e, file=sys.stderr)
            return 1
        # The server outlives this process: forget the Popen object so that
        # its destructor does not complain; stop goes by server.env's PID.
        srv.proc = None
        with open(_write_env(srv)) as f:
            sys.stdout.write(f.read())
        return 0
    env = {}
    path = os.path.join(a.folder, "server.env")
    if os.path.exists(path):
        for line in open(path):
            k, _, v = line.rstrip("\n").partition("=")
            env[k] = shlex.split(v)[0] if v else ""
    if a.cmd == "log":
        srv = Server(env.get("SRV_KIND", "cadenza"), a.folder, port=1)
        print(srv.log_tail(a.n))
        return 0
    if not env.get("SRV_PID"):
        return 0
    srv = Server(env["SRV_KIND"], a.folder, port=int(env["PGPORT"]))
    srv.pid = int(env["SRV_PID"])
    rc = srv.stop(timeout=a.timeout)
    os.unlink(path)
    print("stopped pid %s (%s)" % (env["SRV_PID"],
                                   "exit %s" % rc if rc is not None else "gone"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

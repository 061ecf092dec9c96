#!/usr/bin/env python3
"""Regression (issue 7, defects 7 and 11): connection slots and TLS.

Own servers (small limits so that the checks are quick):
  lock-out      20 silent TCP connections (never a startup packet) do not
                keep the superuser out: the bounded startup queue
                (MaxStartupConnections) drops its oldest; a silent client
                and one sending a byte a second are closed after
                StartupTimeout, not AuthenticationTimeout
  reserve       SuperuserReservedConnections: non-superusers get 53300
                "reserved" while the superuser still gets in, and everyone
                53300 "too many clients" at MaxClientConnections
  threads       ServerThreads clients running COPY … TO STDOUT that never
                read, plus slow-drip clients, leave SELECT 1 answered
  TLS           RequireSSL = yes: sslmode=disable refused with 28000,
                sslmode=require accepted (self-signed certificate made by
                `openssl req` here); RequireSSL = remote: loopback plaintext
                accepted, plaintext to a non-loopback address of this
                machine refused (skipped when it has none); RequireSSL
                without a certificate: the server does not start
Usage: isolated_net.py --kind cadenza|postgres --binary PATH --dir FOLDER
"""
import os
import socket
import struct
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import checks  # noqa: E402
from checks import check  # noqa: E402
from fuzz import Closed, cstr, login, msg, startup_packet  # noqa: E402

try:
    import psycopg
except ImportError:  # noqa: E722
    psycopg = None


def try_connect(srv, **kw):
    """(connection or None, sqlstate or '', message)."""
    try:
        c = psycopg.connect(srv.dsn(**kw), connect_timeout=8, autocommit=True)
        c.execute("select 1").fetchone()
        return c, "", ""
    except psycopg.Error as e:
        st = getattr(e, "sqlstate", None) or ""
        if not st:  # a FATAL at startup: libpq keeps only the text
            txt = str(e)
            for code in ("53300", "28000", "28P01"):
                if code in txt:
                    st = code
            if "too many clients" in txt or "reserved for" in txt:
                st = "53300"
            if "no pg_hba.conf entry" in txt:
                st = "28000"
        return None, st, str(e).strip().splitlines()[-1] if str(e).strip() else ""


def closed_within(s, seconds):
    """Seconds until the server closes s (recv gives EOF), or None."""
    t0 = time.monotonic()
    s.settimeout(seconds)
    try:
        while True:
            d = s.recv(4096)
            if not d:
                return time.monotonic() - t0
    except socket.timeout:
        return None
    except OSError:
        return time.monotonic() - t0


def lockout_checks(a):
    srv = checks.isolated_server(a, "slots", {
        "MaxClientConnections": 4, "SuperuserReservedConnections": 2, "MaxStartupConnections": 6,
        "StartupTimeout": 2, "AuthenticationTimeout": 30, "ServerThreads": 2})
    srv.start()
    try:
        silent = [socket.create_connection(("127.0.0.1", srv.port)) for _ in range(20)]
        time.sleep(0.3)
        c, st, m = try_connect(srv)
        check("20 silent connections: the superuser still logs in", c is not None, "%s %s" % (st, m))
        if c:
            c.close()
        t = closed_within(silent[0], 1.5)
        check("the oldest silent connection was dropped for newer ones", t is not None,
              "still open")
        for s in silent:
            s.close()
        time.sleep(0.5)
        s = socket.create_connection(("127.0.0.1", srv.port))
        t = closed_within(s, 8)
        check("a silent client is closed after StartupTimeout (2 s), not AuthenticationTimeout (30 s)",
              t is not None and t < 4.5, "closed after %s s" % t)
        s.close()
        # a byte a second: the deadline runs from connect, not from the last byte
        s = socket.create_connection(("127.0.0.1", srv.port))
        pkt = startup_packet([("user", "dba"), ("database", "cztest")])
        t0 = time.monotonic()
        gone = None
        for b in pkt[:-1]:
            try:
                s.send(bytes([b]))
            except OSError:
                gone = time.monotonic() - t0
                break
            s.settimeout(1.0)
            try:
                if s.recv(100) == b"":
                    gone = time.monotonic() - t0
                    break
            except socket.timeout:
                pass
            except OSError:
                gone = time.monotonic() - t0
                break
            if time.monotonic() - t0 > 8:
                break
        check("a slow-drip client (a byte a second) is closed after StartupTimeout",
              gone is not None and gone < 5, "closed after %s s" % gone)
        s.close()

        # superuser reserve: 4 slots, 2 kept for superusers
        admin, st, m = try_connect(srv)
        admin.execute("create role net_u1 login password 'pw_u1'")
        u1, st1, m1 = try_connect(srv, user="net_u1", password="pw_u1")
        u2, st2, m2 = try_connect(srv, user="net_u1", password="pw_u1")
        check("non-superuser: the slots up to the reserve are usable", u1 is not None, m1)
        check("non-superuser refused with 53300 when only reserved slots are left",
              u2 is None and st2 == "53300" and "reserved" in m2, "%s %s" % (st2, m2))
        d2, st3, m3 = try_connect(srv)
        d3, st4, m4 = try_connect(srv)
        check("the superuser gets the reserved slots", d2 is not None and d3 is not None,
              "%s %s" % (m3, m4))
        d4, st5, m5 = try_connect(srv)
        check("past MaxClientConnections even the superuser gets 53300 too many clients",
              d4 is None and st5 == "53300" and "too many clients" in m5, "%s %s" % (st5, m5))
        for x in (u1, u2, d2, d3, d4):
            if x:
                x.close()
        time.sleep(0.5)
        u3, st6, m6 = try_connect(srv, user="net_u1", password="pw_u1")
        check("slots come back when sessions end", u3 is not None, m6)
        if u3:
            u3.close()
        admin.execute("drop role net_u1")
        admin.close()
    finally:
        srv.stop()


def thread_checks(a):
    srv = checks.isolated_server(a, "threads", {"ServerThreads": 2})
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("create table net_big (a integer, b varchar(200))")
            c.execute("insert into net_big select i, repeat('x', 150) from generate_series(1, 150000) i")
        hogs = []
        for _ in range(2):
            h = login("127.0.0.1", srv.port, "dba", srv.password, "cztest")
            h.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            h.send(msg(b"Q", cstr("COPY net_big TO STDOUT")))
            hogs.append(h)
        drips = []
        for _ in range(4):
            d = login("127.0.0.1", srv.port, "dba", srv.password, "cztest")
            d.send(b"Q" + struct.pack("!i", 100) + b"SEL")  # a Query that never completes
            drips.append(d)
        time.sleep(2.0)  # the COPYs fill the socket buffers and wait on their clients
        t0 = time.monotonic()
        c, st, m = try_connect(srv)
        ok = c is not None
        if ok:
            c.execute("select 1").fetchone()
            c.close()
        dt = time.monotonic() - t0
        check("2 COPY TO STDOUT clients that do not read and 4 slow-drip clients leave "
              "ServerThreads = 2 serving others", ok and dt < 5, "%s after %.1f s" % (m, dt))
        for h in hogs + drips:
            h.close()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("drop table net_big")
    finally:
        srv.stop()


def make_cert(folder):
    os.makedirs(folder, exist_ok=True)
    crt, key = os.path.join(folder, "server.crt"), os.path.join(folder, "server.key")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=localhost", "-keyout", key, "-out", crt],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return crt, key


def other_address():
    """A non-loopback IPv4 address of this machine, or None."""
    try:
        out = subprocess.run(["hostname", "-I"], stdout=subprocess.PIPE, text=True).stdout.split()
    except OSError:
        return None
    for ip in out:
        if "." in ip and not ip.startswith("127."):
            return ip
    return None


def tls_checks(a):
    crt, key = make_cert(os.path.join(a.dir, "cert"))
    srv = checks.isolated_server(a, "tls", {"SSLCertificate": crt, "SSLPrivateKey": key,
                                            "RequireSSL": "yes"})
    # srvctl's readiness probe connects with the default sslmode (prefer)
    srv.start()
    try:
        c, st, m = try_connect(srv, sslmode="disable")
        check("RequireSSL = yes: a plaintext client is refused with 28000",
              c is None and st == "28000" and "no encryption" in m, "%s %s" % (st, m))
        c, st, m = try_connect(srv, sslmode="require")
        check("RequireSSL = yes: sslmode=require is accepted", c is not None, m)
        if c:
            c.close()
    finally:
        srv.stop()

    srv = checks.isolated_server(a, "tls-remote", {"SSLCertificate": crt, "SSLPrivateKey": key,
                                                   "RequireSSL": "remote", "ListenAddress": "*"})
    srv.start()
    try:
        c, st, m = try_connect(srv, sslmode="disable")
        check("RequireSSL = remote: plaintext over loopback is accepted", c is not None, m)
        if c:
            c.close()
        ip = other_address()
        if ip is None:
            print("SKIP RequireSSL = remote from a non-loopback address: this machine has none")
        else:
            c, st, m = try_connect(srv, host=ip, sslmode="disable")
            check("RequireSSL = remote: plaintext to %s (not loopback) is refused with 28000" % ip,
                  c is None and st == "28000", "%s %s" % (st, m))
            c, st, m = try_connect(srv, host=ip, sslmode="require")
            check("RequireSSL = remote: TLS to %s is accepted" % ip, c is not None, m)
            if c:
                c.close()
    finally:
        srv.stop()

    srv = checks.isolated_server(a, "tls-nocert", {"RequireSSL": "yes"})
    try:
        srv.start(timeout=15)
        check("RequireSSL without a certificate: the server does not start", False, "it started")
        srv.stop()
    except RuntimeError as e:
        check("RequireSSL without a certificate: the server does not start, saying why",
              "RequireSSL" in str(e), str(e)[-300:])
        srv.stop()


def main():
    a = checks.isolated_args()
    if a.kind != "cadenza":
        return checks.skip("isolated_net: Cadenza's ini keys (MaxStartupConnections, StartupTimeout, "
                           "RequireSSL); PostgreSQL has superuser_reserved_connections and hostssl instead")
    if psycopg is None:
        print("FAIL psycopg: not installed (set CZ_VENV)")
        print("0 passed, 1 failed")
        return 1
    os.makedirs(a.dir, exist_ok=True)
    for part in (lockout_checks, thread_checks, tls_checks):
        try:
            part(a)
        except Exception as e:  # noqa: BLE001
            check(part.__name__, False, "%s: %s" % (type(e).__name__, e))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

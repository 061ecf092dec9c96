#!/usr/bin/env python3
"""Bad-input test: a raw-socket client sends malformed PostgreSQL v3
protocol traffic to a server; each case must end in an ErrorResponse or a
closed connection (never a hang), while a second, normal connection keeps
answering `SELECT 1` and the server stays up.

Cases (each on a fresh connection):
  startup phase   garbage startup packets, huge / tiny lengths, unknown
                  protocol versions, unterminated or missing parameters,
                  invalid UTF-8 in user and database, truncated packets,
                  SSLRequest followed by garbage, bogus CancelRequest,
                  wrong password, broken SASL messages
  after login     unknown message types, huge and tiny message lengths,
                  invalid UTF-8 in Query and Bind, unterminated strings,
                  Parse/Bind/Execute/Describe/Close with bad counts, names
                  and kinds, wrong binary parameter lengths, FunctionCall,
                  random bytes
  random          --random N mutations (bit flips, truncation, length
                  changes, spliced bytes) of a valid extended-query
                  exchange, seeded
  hostile peers   idle connections that never finish the startup, and a
                  client that asks for a large result and never reads it,
                  held open for the whole run
Usage: fuzz.py --host H --port P --user U --password PW --dbname D
               [--pid SERVER_PID] [--random N] [--seed S]
Exit status 0 when every case passed; prints one line per case.
"""
import argparse
import base64
import hashlib
import hmac
import os
import random
import socket
import struct
import sys
import time

CASE_TIMEOUT = 15.0


# -- a minimal protocol client ----------------------------------------------
def msg(t, body=b""):
    return t + struct.pack("!i", len(body) + 4) + body


def cstr(s):
    return (s.encode() if isinstance(s, str) else s) + b"\0"


def startup_packet(params, version=196608):
    body = struct.pack("!i", version) + b"".join(cstr(k) + cstr(v) for k, v in params) + b"\0"
    return struct.pack("!i", len(body) + 4) + body


class Closed(Exception):
    pass


class Conn:
    def __init__(self, host, port, timeout=CASE_TIMEOUT):
        self.s = socket.create_connection((host, port), timeout=timeout)
        self.buf = b""

    def send(self, data):
        try:
            self.s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            raise Closed()

    def shut_wr(self):
        try:
            self.s.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _fill(self, n):
        while len(self.buf) < n:
            try:
                d = self.s.recv(65536)
            except ConnectionResetError:
                raise Closed()
            if not d:
                raise Closed()
            self.buf += d

    def read_byte(self):
        self._fill(1)
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def read_msg(self):
        self._fill(5)
        t = self.buf[:1]
        (n,) = struct.unpack("!i", self.buf[1:5])
        if n < 4 or n > (1 << 30):
            raise RuntimeError("server sent a message of length %d" % n)
        self._fill(1 + n)
        body = self.buf[5:1 + n]
        self.buf = self.buf[1 + n:]
        return t, body

    def close(self):
        try:
            self.s.close()
        except OSError:
            pass


def error_fields(body):
    f = {}
    for part in body.split(b"\0"):
        if part:
            f[chr(part[0])] = part[1:].decode("utf-8", "replace")
    return f


def login(host, port, user, password, dbname, wrong_password=False):
    """Startup + authentication (trust, cleartext, MD5 or SCRAM-SHA-256);
    returns the connection after the first ReadyForQuery."""
    c = Conn(host, port)
    c.send(startup_packet([("user", user), ("database", dbname), ("application_name", "fuzz")]))
    pw = password + ("x" if wrong_password else "")
    nonce = base64.b64encode(os.urandom(18)).decode()
    first_bare = "n=,r=" + nonce
    salted = auth_msg = None
    while True:
        t, body = c.read_msg()
        if t == b"E":
            raise RuntimeError("login failed: %s" % error_fields(body))
        if t == b"Z":
            return c
        if t != b"R":
            continue
        (code,) = struct.unpack("!i", body[:4])
        if code == 0:
            continue
        if code == 3:
            c.send(msg(b"p", cstr(pw)))
        elif code == 5:
            inner = hashlib.md5((pw + user).encode()).hexdigest()
            outer = hashlib.md5(inner.encode() + body[4:8]).hexdigest()
            c.send(msg(b"p", cstr("md5" + outer)))
        elif code == 10:
            mechs = body[4:].split(b"\0")
            if b"SCRAM-SHA-256" not in mechs:
                raise RuntimeError("no SCRAM-SHA-256 in %r" % mechs)
            cf = ("n,," + first_bare).encode()
            c.send(msg(b"p", cstr("SCRAM-SHA-256") + struct.pack("!i", len(cf)) + cf))
        elif code == 11:
            server_first = body[4:].decode()
            attrs = dict(kv.split("=", 1) for kv in server_first.split(","))
            salted = hashlib.pbkdf2_hmac("sha256", pw.encode(), base64.b64decode(attrs["s"]),
                                         int(attrs["i"]))
            final_wo = "c=biws,r=" + attrs["r"]
            auth_msg = ",".join([first_bare, server_first, final_wo]).encode()
            ckey = hmac.new(salted, b"Client Key", hashlib.sha256).digest()
            sig = hmac.new(hashlib.sha256(ckey).digest(), auth_msg, hashlib.sha256).digest()
            proof = bytes(a ^ b for a, b in zip(ckey, sig))
            c.send(msg(b"p", (final_wo + ",p=" + base64.b64encode(proof).decode()).encode()))
        elif code == 12:
            skey = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
            want = base64.b64encode(hmac.new(skey, auth_msg, hashlib.sha256).digest()).decode()
            if body[4:].decode() != "v=" + want:
                raise RuntimeError("server signature does not verify")
        else:
            raise RuntimeError("unsupported authentication code %d" % code)


def outcome(c, until_ready=False):
    """Read until ErrorResponse, close or (until_ready) ReadyForQuery.
    Returns 'error:<SQLSTATE>', 'closed', 'ready' or 'timeout'."""
    try:
        while True:
            t, body = c.read_msg()
            if t == b"E":
                return "error:" + error_fields(body).get("C", "?")
            if t == b"Z" and until_ready:
                return "ready"
    except Closed:
        return "closed"
    except socket.timeout:
        return "timeout"
    except RuntimeError as e:
        if t_is_v2_error(c):
            return "error:(protocol 2 format)"
        return "bad-reply:%s" % e


def t_is_v2_error(c):
    """A server refusing protocol 2.0 may answer in that protocol's format:
    'E' and a NUL-terminated message, no length."""
    return c.buf[:1] == b"E" and (b"\0" in c.buf or len(c.buf) > 5)


def simple_query_ok(c, sql="SELECT 1", want=b"1"):
    c.send(msg(b"Q", cstr(sql)))
    rows, err = [], None
    while True:
        t, body = c.read_msg()
        if t == b"D":
            (n,) = struct.unpack("!h", body[:2])
            if n >= 1:
                (ln,) = struct.unpack("!i", body[2:6])
                rows.append(body[6:6 + ln] if ln >= 0 else None)
        elif t == b"E":
            err = error_fields(body)
        elif t == b"Z":
            break
    return err is None and rows == [want]


# -- the cases --------------------------------------------------------------
def startup_cases(a):
    u, d = a.user, a.dbname
    good = startup_packet([("user", u), ("database", d)])
    cases = []

    def raw(name, data, shut=True):
        cases.append((name, data, shut))

    rng = random.Random(a.seed)
    raw("garbage startup", bytes(rng.randrange(256) for _ in range(64)))
    raw("startup length 0x7fffffff", struct.pack("!ii", 0x7FFFFFFF, 196608), shut=False)
    raw("startup length -1", struct.pack("!ii", -1, 196608), shut=False)
    raw("startup length 4", struct.pack("!i", 4), shut=False)
    raw("startup length 7", struct.pack("!i", 7) + b"\0\0\0", shut=False)
    raw("protocol version 9.9", startup_packet([("user", u)], version=(9 << 16) | 9))
    raw("protocol version 2.0", startup_packet([("user", u)], version=2 << 16))
    raw("unterminated parameter list", struct.pack("!i", len(good) - 1) + good[4:-1], shut=False)
    body = struct.pack("!i", 196608) + b"user\0" + u.encode()  # value not terminated
    raw("unterminated parameter value", struct.pack("!i", len(body) + 4) + body, shut=False)
    raw("no user parameter", startup_packet([("database", d)]))
    raw("invalid UTF-8 user", startup_packet([("user", b"\xff\xfe\xc3("), ("database", d)]))
    raw("invalid UTF-8 database", startup_packet([("user", u), ("database", b"db\xc0\xaf")]))
    raw("truncated startup", good[: len(good) // 2])
    raw("startup length beyond the data", struct.pack("!i", 5000) + good[4:])
    raw("SSLRequest then garbage", struct.pack("!ii", 8, 80877103) + b"\x16\x03\x01garbage!" * 4)
    raw("GSSENCRequest", struct.pack("!ii", 8, 80877104))
    raw("CancelRequest with a bogus key", struct.pack("!iiii", 16, 80877102, 12345, 67890))
    raw("CancelRequest too short", struct.pack("!iii", 12, 80877102, 1), shut=False)
    raw("10000 startup parameters",
        startup_packet([("user", u)] + [("p%d" % i, "v") for i in range(10000)]))
    return cases


def after_login_cases(a):
    """(name, bytes to send after login, allowed 'ignored' outcome)."""
    rng = random.Random(a.seed + 1)
    P = msg(b"P", cstr("s1") + cstr("SELECT $1::integer + 1") + struct.pack("!h", 0))
    S = msg(b"S")
    cases = [
        ("unknown message type 'z'", msg(b"z", b"hello"), False),
        ("unknown message type 0x00", msg(b"\0", b""), False),
        ("message length 0x7fffffff", b"Q" + struct.pack("!i", 0x7FFFFFFF) + b"SELECT 1", False),
        ("message length -5", b"Q" + struct.pack("!i", -5), False),
        ("message length 2", b"Q" + struct.pack("!i", 2) + b"xx", False),
        ("Query with invalid UTF-8", msg(b"Q", cstr(b"SELECT '\xff\xfe\xc3('")), False),
        ("Query with an overlong UTF-8 encoding", msg(b"Q", cstr(b"SELECT '\xc0\xaf'")), False),
        ("Query with a lone surrogate", msg(b"Q", cstr(b"SELECT '\xed\xa0\x80'")), False),
        ("Query not NUL-terminated", msg(b"Q", b"SELECT 1"), False),
        ("Query with a NUL inside", msg(b"Q", b"SELECT 1\0garbage\0"), False),
        ("Query truncated", (b"Q" + struct.pack("!i", 200) + b"SELECT 1"), False),
        ("Query of 2 MB garbage", msg(b"Q", cstr(bytes(rng.randrange(1, 256) for _ in range(1 << 21)))), False),
        ("Parse with 65535 parameter types and no data",
         msg(b"P", cstr("") + cstr("SELECT 1") + struct.pack("!h", -1)), False),
        ("Parse with a negative parameter count",
         msg(b"P", cstr("") + cstr("SELECT 1") + struct.pack("!h", -3)) + S, False),
        ("Parse without query string", msg(b"P", cstr("x")) + S, False),
        ("Parse of invalid SQL", msg(b"P", cstr("") + cstr("SELEC 1") + struct.pack("!h", 0)) + S, False),
        ("Bind to a missing statement",
         msg(b"B", cstr("") + cstr("nosuch") + struct.pack("!hhh", 0, 0, 0)) + S, False),
        ("Bind with too few parameters",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hhh", 0, 0, 0)) + S, False),
        ("Bind with more values than declared",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hh", 0, 3) +
                 b"".join(struct.pack("!i", 1) + b"1" for _ in range(3)) + struct.pack("!h", 0)) + S, False),
        ("Bind with a value length past the message",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hhi", 0, 1, 100000) + b"12") + S, False),
        ("Bind with a value length of -7",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hhi", 0, 1, -7) + struct.pack("!h", 0)) + S, False),
        ("Bind with invalid UTF-8 text",
         msg(b"P", cstr("s2") + cstr("SELECT $1::text") + struct.pack("!h", 0)) +
         msg(b"B", cstr("") + cstr("s2") + struct.pack("!hhi", 0, 1, 3) + b"\xff\xfe\xc3" +
             struct.pack("!h", 0)) + msg(b"E", cstr("") + struct.pack("!i", 0)) + S, False),
        ("Bind binary integer of 2 bytes",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hhhi", 1, 1, 1, 2) + b"\0\1" +
                 struct.pack("!h", 0)) + msg(b"E", cstr("") + struct.pack("!i", 0)) + S, False),
        ("Bind with format code 7",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hhhi", 1, 7, 1, 1) + b"1" +
                 struct.pack("!h", 0)) + msg(b"E", cstr("") + struct.pack("!i", 0)) + S, False),
        ("Bind text '12x' for an integer",
         P + msg(b"B", cstr("") + cstr("s1") + struct.pack("!hhi", 0, 1, 3) + b"12x" +
                 struct.pack("!h", 0)) + msg(b"E", cstr("") + struct.pack("!i", 0)) + S, False),
        ("Execute of a missing portal", msg(b"E", cstr("nosuch") + struct.pack("!i", 0)) + S, False),
        ("Describe of kind 'X'", msg(b"D", b"X" + cstr("s1")) + S, False),
        ("Describe of a missing statement", msg(b"D", b"S" + cstr("nosuch")) + S, False),
        ("Close of kind 'Q'", msg(b"C", b"Q" + cstr("s1")) + S, False),
        ("FunctionCall", msg(b"F", struct.pack("!ihhih", 1598, 0, 1, 1, 0) + b"x" + struct.pack("!h", 0)) + S, False),
        ("password message after login", msg(b"p", cstr("again")) + S, False),
        ("CopyData outside COPY", msg(b"d", b"1\t2\n") + S, True),
        ("CopyDone outside COPY", msg(b"c") + S, True),
        ("CopyFail outside COPY", msg(b"f", cstr("no")) + S, True),
        ("random bytes", bytes(rng.randrange(256) for _ in range(300)), False),
    ]
    return cases


def valid_exchange():
    return (msg(b"P", cstr("fz") + cstr("SELECT $1::integer * 2, 'abc'") + struct.pack("!hi", 1, 23)) +
            msg(b"B", cstr("p") + cstr("fz") + struct.pack("!hhhi", 1, 1, 1, 4) + struct.pack("!i", 21) +
                struct.pack("!hh", 1, 1)) +
            msg(b"D", b"P" + cstr("p")) + msg(b"E", cstr("p") + struct.pack("!i", 0)) +
            msg(b"C", b"S" + cstr("fz")) + msg(b"Q", cstr("SELECT 1; SELECT 'x'")) + msg(b"S"))


def mutate(data, rng):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        k = rng.randrange(5)
        if k == 0 and b:  # bit flips
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif k == 1 and b:  # truncate
            del b[rng.randrange(len(b)):]
        elif k == 2 and len(b) > 5:  # rewrite a length field at a random spot
            i = rng.randrange(len(b) - 4)
            b[i:i + 4] = struct.pack("!i", rng.choice([0, 3, 4, 65536, 0x3FFFFFFF, -1, rng.randrange(1 << 31)]))
        elif k == 3:  # splice random bytes
            i = rng.randrange(len(b) + 1)
            b[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
        elif k == 4 and b:  # drop a run
            i = rng.randrange(len(b))
            del b[i:i + rng.randint(1, 8)]
    return bytes(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--host", default=os.environ.get("PGHOST", "127.0.0.1"))
    ap.add_argument("--port", type=int, default=int(os.environ.get("PGPORT", "5480")))
    ap.add_argument("--user", default=os.environ.get("PGUSER", "dba"))
    ap.add_argument("--password", default=os.environ.get("PGPASSWORD", ""))
    ap.add_argument("--dbname", default=os.environ.get("PGDATABASE", "cztest"))
    ap.add_argument("--pid", type=int, default=int(os.environ.get("SRV_PID") or 0))
    ap.add_argument("--random", type=int, default=300)
    ap.add_argument("--seed", type=int)
    a = ap.parse_args()
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    print("fuzz: %s:%d, seed %d" % (a.host, a.port, a.seed))
    H, PT = a.host, a.port
    passed = failed = 0

    def report(name, ok, detail):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
        print("%s %-50s %s" % ("PASS" if ok else "FAIL", name, detail))

    side = login(H, PT, a.user, a.password, a.dbname)

    def side_ok():
        try:
            return simple_query_ok(side)
        except Exception:  # noqa: BLE001
            return False

    # hostile peers held open for the whole run
    idle = [Conn(H, PT) for _ in range(4)]
    idle[1].send(struct.pack("!i", 100))          # a startup packet that never completes
    hog = login(H, PT, a.user, a.password, a.dbname)
    hog.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    wide = "x" * 1000
    setup = login(H, PT, a.user, a.password, a.dbname)
    for sql in ("DROP TABLE IF EXISTS fz_wide", "CREATE TABLE fz_wide (id INTEGER PRIMARY KEY, pad VARCHAR(1000))",
                "INSERT INTO fz_wide VALUES " + ", ".join("(%d, '%s')" % (i, wide) for i in range(200))):
        setup.send(msg(b"Q", cstr(sql)))
        r = outcome(setup, until_ready=True)
        if r != "ready":
            report("set-up: " + sql[:40], False, r)
    setup.close()
    hog.send(msg(b"Q", cstr("SELECT a.id, a.pad, b.pad FROM fz_wide a, fz_wide b")))
    time.sleep(0.5)
    t0 = time.monotonic()
    report("side connection while a client does not read", side_ok(), "%.2f s" % (time.monotonic() - t0))

    # wrong password and broken SASL
    try:
        login(H, PT, a.user, a.password, a.dbname, wrong_password=True)
        report("wrong password", False, "login succeeded")
    except RuntimeError as e:
        report("wrong password", "28P01" in str(e) or "28000" in str(e), str(e)[:80])
    except Closed:
        report("wrong password", True, "closed")

    for name, data, first in (
            ("SASL: unknown mechanism", cstr("SCRAM-MD4") + struct.pack("!i", 4) + b"n,,x", True),
            ("SASL: garbage client-first", cstr("SCRAM-SHA-256") + struct.pack("!i", 8) + b"\xff\xfe\0junk", True),
            ("SASL: length past the message", cstr("SCRAM-SHA-256") + struct.pack("!i", 9999) + b"n,,n=,r=x", True)):
        c = Conn(H, PT)
        try:
            c.send(startup_packet([("user", a.user), ("database", a.dbname)]))
            t, body = c.read_msg()
            if t == b"R" and struct.unpack("!i", body[:4])[0] == 10:
                c.send(msg(b"p", data))
                c.shut_wr()
                r = outcome(c)
                report(name, r.startswith("error") or r == "closed", r)
            else:
                report(name, True, "server does not ask for SASL (%r)" % t)
        except Closed:
            report(name, True, "closed")
        finally:
            c.close()

    for name, data, shut in startup_cases(a):
        c = Conn(H, PT, timeout=3 if not shut else CASE_TIMEOUT)
        try:
            c.send(data)
            if shut:
                c.shut_wr()
            if name.startswith("SSLRequest") or name.startswith("GSSENC"):
                try:
                    c._fill(1)
                except Closed:
                    pass
                if c.buf[:1] in (b"N", b"G", b"S"):
                    c.buf = c.buf[1:]
                    c.shut_wr()
            r = outcome(c)
            if r == "timeout" and not shut:
                # the server may wait for the rest of a packet it has no
                # reason to reject yet: then a half-close must end it
                c.shut_wr()
                c.s.settimeout(CASE_TIMEOUT)
                r = outcome(c) + " (after half-close)"
        except Closed:
            r = "closed"
        finally:
            c.close()
        ok = r.startswith("error") or r.startswith("closed")
        report(name, ok and side_ok(), r if side_ok() else r + "; side connection FAILED")

    for name, data, ignored_ok in after_login_cases(a):
        try:
            c = login(H, PT, a.user, a.password, a.dbname)
        except Exception as e:  # noqa: BLE001
            report(name, False, "login failed: %s" % e)
            continue
        try:
            c.s.settimeout(3)
            c.send(data)
            r = outcome(c, until_ready=True)
            if r == "timeout":
                c.shut_wr()
                c.s.settimeout(CASE_TIMEOUT)
                r = outcome(c, until_ready=True) + " (after half-close)"
        except Closed:
            r = "closed"
        finally:
            c.close()
        ok = r.startswith("error") or r.startswith("closed") or (ignored_ok and r == "ready")
        s_ok = side_ok()
        report(name, ok and s_ok, r + ("" if s_ok else "; side connection FAILED"))

    # random mutations of a valid exchange
    rng = random.Random(a.seed + 2)
    base = valid_exchange()
    bad = []
    t0 = time.monotonic()
    for i in range(a.random):
        data = mutate(base, rng)
        try:
            c = login(H, PT, a.user, a.password, a.dbname)
        except Exception as e:  # noqa: BLE001
            bad.append("case %d: login failed: %s" % (i, e))
            break
        c.s.settimeout(10)
        r = "?"
        try:
            c.send(data)
            c.shut_wr()
            while True:  # anything may come back; it must end in a close
                c.read_msg()
        except Closed:
            r = "closed"
        except socket.timeout:
            r = "timeout"
        except RuntimeError as e:
            r = "bad reply: %s" % e
        finally:
            c.close()
        if r != "closed":
            bad.append("case %d: %s (%s)" % (i, r, data[:60]))
        if i % 25 == 0 and not side_ok():
            bad.append("case %d: side connection stopped answering" % i)
            break
    report("%d random mutations" % a.random, not bad,
           "%.1f s%s" % (time.monotonic() - t0, "; " + "; ".join(bad[:3]) if bad else ""))

    # the hostile peers are still there; the hog must not have stalled anybody
    report("side connection at the end", side_ok(), "")
    for c in idle + [hog]:
        c.close()
    try:
        c = login(H, PT, a.user, a.password, a.dbname)
        report("fresh connection at the end", simple_query_ok(c), "")
        c.send(msg(b"Q", cstr("DROP TABLE fz_wide")))
        outcome(c, until_ready=True)
        c.close()
    except Exception as e:  # noqa: BLE001
        report("fresh connection at the end", False, str(e))
    if a.pid:
        alive = os.path.exists("/proc/%d" % a.pid)
        if alive:
            with open("/proc/%d/stat" % a.pid) as f:
                alive = f.read().split(") ")[-1][:1] != "Z"
        report("server process %d alive" % a.pid, alive, "")
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

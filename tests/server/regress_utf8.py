#!/usr/bin/env python3
"""Regression (issue 7, defect 8): text that is not valid UTF-8 is an
ERROR for the statement, never the end of the session.

Raw bytes on a raw socket (fuzz.py's client), so the server sees exactly
what a client with a wrong client_encoding would send:
  simple Query   SELECT '\\xff' -> ERROR 22021 "... 0xff", ReadyForQuery,
                 the session answers again; inside BEGIN the block fails
                 (25P02 after it), as PostgreSQL's
  extended       Parse with bad text, Bind with a bad text parameter: one
                 22021 ERROR, the rest skipped up to Sync, ReadyForQuery,
                 the session answers again
  COPY FROM STDIN  bad bytes in the data: 22021 for the COPY, nothing
                 loaded, session kept; a character split across two
                 CopyData messages is fine
Usage: regress_utf8.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402
from fuzz import Closed, cstr, error_fields, login, msg  # noqa: E402


def replies(c):
    """Messages up to ReadyForQuery: [(type, body)], or None when closed."""
    out = []
    try:
        while True:
            t, body = c.read_msg()
            out.append((t, body))
            if t == b"Z":
                return out
    except Closed:
        return None


def errors(rs):
    return [error_fields(b) for t, b in rs or [] if t == b"E"]


def status(rs):
    return rs[-1][1][:1].decode() if rs else "closed"


def send(c, data):
    try:
        c.send(data)
        return True
    except Closed:
        return False


def query(c, sql):
    if not send(c, msg(b"Q", cstr(sql))):
        return None
    return replies(c)


def alive(c):
    rs = query(c, "SELECT 1")
    return rs is not None and not errors(rs) and any(t == b"D" for t, _ in rs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    kv = dict(p.split("=", 1) for p in a.dsn.split())
    conn = lambda: login(kv.get("host", "127.0.0.1"), int(kv.get("port", 5432)),  # noqa: E731
                         kv.get("user", "dba"), kv.get("password", ""), kv.get("dbname", "cztest"))
    c = conn()
    c.s.settimeout(20)
    want_msg = 'invalid byte sequence for encoding "UTF8": 0xff'

    # simple query
    send(c, msg(b"Q", b"SELECT '\xff'\0"))
    rs = replies(c)
    es = errors(rs)
    check("simple: SELECT '\\xff' is ERROR 22021, connection kept",
          rs is not None and len(es) == 1 and es[0].get("S") == "ERROR" and es[0].get("C") == "22021"
          and es[0].get("M") == want_msg and status(rs) == "I",
          "closed" if rs is None else str(es))
    if rs is None:
        c = conn()
        c.s.settimeout(20)
    check("simple: the session answers after it", alive(c))

    query(c, "BEGIN")
    send(c, msg(b"Q", b"SELECT 'a\xc3\x28'\0"))
    rs = replies(c)
    es = errors(rs)
    check("simple in a block: 22021 and the block fails",
          rs is not None and [e.get("C") for e in es] == ["22021"] and status(rs) == "E"
          and es[0].get("M", "").endswith("0xc3 0x28"), "%s status %s" % (es, status(rs)))
    rs = query(c, "SELECT 1")
    check("simple in a block: next statement 25P02",
          [e.get("C") for e in errors(rs)] == ["25P02"], str(errors(rs)))
    query(c, "ROLLBACK")
    check("simple in a block: session answers after ROLLBACK", alive(c))
    if not alive(c):
        c = conn()
        c.s.settimeout(20)

    # extended: Parse with bad text
    send(c, msg(b"P", cstr("") + b"SELECT '\xff'\0" + struct.pack("!h", 0)) +
           msg(b"B", cstr("") + cstr("") + struct.pack("!hhh", 0, 0, 0)) +
           msg(b"E", cstr("") + struct.pack("!i", 0)) + msg(b"S"))
    rs = replies(c)
    es = errors(rs)
    check("extended: Parse with bad text is one 22021 ERROR up to Sync",
          rs is not None and [e.get("C") for e in es] == ["22021"] and es[0].get("M") == want_msg
          and status(rs) == "I" and not any(t in (b"1", b"2", b"D") for t, _ in rs),
          "closed" if rs is None else "%s %s" % (es, [t for t, _ in rs]))
    if rs is None:
        c = conn()
        c.s.settimeout(20)
    check("extended: the session answers after it", alive(c))

    # extended: Bind with a bad text parameter
    send(c, msg(b"P", cstr("") + cstr("SELECT $1::text") + struct.pack("!h", 0)) +
           msg(b"B", cstr("") + cstr("") + struct.pack("!hhi", 0, 1, 2) + b"\xffx" + struct.pack("!h", 0)) +
           msg(b"E", cstr("") + struct.pack("!i", 0)) + msg(b"S"))
    rs = replies(c)
    es = errors(rs)
    check("extended: Bind with a bad text parameter is 22021 ERROR",
          rs is not None and [e.get("C") for e in es] == ["22021"] and status(rs) == "I",
          "closed" if rs is None else str(es))
    if rs is None:
        c = conn()
        c.s.settimeout(20)
    check("extended: the session answers after the Bind error", alive(c))

    # COPY FROM STDIN
    tab = "net_utf8_%d" % os.getpid()
    query(c, "DROP TABLE IF EXISTS " + tab)
    query(c, "CREATE TABLE %s (a integer, b text)" % tab)
    send(c, msg(b"Q", cstr("COPY %s FROM STDIN" % tab)))
    try:
        t, _ = c.read_msg()
    except Closed:
        t = b"closed"
    if t == b"G":
        send(c, msg(b"d", b"1\tok\n") + msg(b"d", b"2\tb\xffad\n") + msg(b"c"))
        rs = replies(c)
        es = errors(rs)
        check("COPY FROM STDIN with bad bytes: 22021 for the COPY, session kept",
              rs is not None and [e.get("C") for e in es] == ["22021"] and status(rs) == "I"
              and es[0].get("M", "").startswith(want_msg), "closed" if rs is None else str(es))
        if rs is None:
            c = conn()
            c.s.settimeout(20)
        rs = query(c, "SELECT count(*) FROM " + tab)
        rows = [b for t, b in rs or [] if t == b"D"]
        check("COPY FROM STDIN with bad bytes: nothing loaded",
              len(rows) == 1 and rows[0].endswith(b"0"), str(rows))
    else:
        replies(c)
        check("COPY FROM STDIN starts", False, "got %r" % t)
    # a two-byte character split across CopyData messages is valid
    send(c, msg(b"Q", cstr("COPY %s FROM STDIN" % tab)))
    try:
        t, _ = c.read_msg()
    except Closed:
        t = b"closed"
    if t == b"G":
        send(c, msg(b"d", b"3\tcaf\xc3") + msg(b"d", b"\xa9\n") + msg(b"c"))
        rs = replies(c)
        check("COPY FROM STDIN: a character split across CopyData messages loads",
              rs is not None and not errors(rs), str(errors(rs)))
        rs = query(c, "SELECT b FROM %s WHERE a = 3" % tab)
        rows = [b for t, b in rs or [] if t == b"D"]
        check("COPY FROM STDIN: the split character is stored whole",
              len(rows) == 1 and rows[0].endswith("café".encode()), str(rows))
    else:
        replies(c)
        check("COPY FROM STDIN starts (split)", False, "got %r" % t)
    query(c, "DROP TABLE " + tab)
    check("session usable at the end", alive(c))
    c.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

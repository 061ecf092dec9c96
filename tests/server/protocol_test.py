#!/usr/bin/env python3
"""Wire-protocol features a client relies on, checked against any
PostgreSQL-protocol server with psycopg 3 and a raw-socket client:
  - binary and text results agree for the common types; binary parameters
  - parameter type inference (untyped string parameters)
  - row limits on Execute (PortalSuspended, then the rest)
  - several statements in one Query message
  - transaction status in ReadyForQuery (idle, in transaction, failed)
  - ParameterStatus at startup, NoticeResponse
  - COPY FROM STDIN / TO STDOUT, text and CSV, with NULLs and escapes
  - CancelRequest of a long query (57014), the session goes on
Usage: protocol_test.py --dsn DSN. Prints PASS/FAIL per check and
"N passed, N failed"; exit status 0 when all pass."""
import argparse
import csv
import datetime
import decimal
import io
import os
import struct
import sys
import threading
import time

import psycopg
from psycopg import pq

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fuzz  # noqa: E402  (the raw protocol client)

passed = failed = 0


def report(name, ok, detail=""):
    global passed, failed
    passed, failed = passed + bool(ok), failed + (not ok)
    print("%s %-50s %s" % ("PASS" if ok else "FAIL", name, detail))


def check(name, fn):
    try:
        ok, detail = fn()
    except Exception as e:  # noqa: BLE001
        ok, detail = False, "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    report(name, ok, detail)


TYPES_SQL = """SELECT CAST(-12 AS SMALLINT), CAST(123456 AS INTEGER), CAST(-9000000000 AS BIGINT),
  CAST(1.5 AS REAL), CAST(-2.25 AS DOUBLE PRECISION), CAST(12345.678 AS NUMERIC(10,3)),
  CAST('text' AS TEXT), CAST('vc' AS VARCHAR(10)), true, false, DATE '2024-02-29',
  TIMESTAMP '2001-02-03 04:05:06.789', CAST('\\x00ff' AS BYTEA), CAST(NULL AS INTEGER),
  CAST(-0.5 AS NUMERIC), CAST(0 AS NUMERIC(6,2))"""

EXPECTED = [-12, 123456, -9000000000, 1.5, -2.25, decimal.Decimal("12345.678"), "text", "vc",
            True, False, datetime.date(2024, 2, 29), datetime.datetime(2001, 2, 3, 4, 5, 6, 789000),
            b"\x00\xff", None, decimal.Decimal("-0.5"), decimal.Decimal("0.00")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    a = ap.parse_args()
    conn = psycopg.connect(a.dsn, autocommit=True)
    conn.execute("DROP TABLE IF EXISTS pt_t")
    conn.execute("CREATE TABLE pt_t (id INTEGER PRIMARY KEY, s SMALLINT, b BIGINT, d DOUBLE PRECISION, "
                 "r REAL, n NUMERIC(12,4), v VARCHAR(20), f BOOLEAN, dt DATE, ts TIMESTAMP, bt BYTEA)")

    def text_results():
        row = conn.execute(TYPES_SQL, binary=False).fetchone()
        return list(row) == EXPECTED, "" if list(row) == EXPECTED else repr(row)

    def binary_results():
        cur = conn.cursor(binary=True)
        row = cur.execute(TYPES_SQL).fetchone()
        fmts = {cur.pgresult.fformat(i) for i in range(cur.pgresult.nfields)}
        ok = list(row) == EXPECTED and fmts == {1}
        return ok, "" if ok else "formats %s, row %r" % (fmts, row)

    def binary_params():
        vals = (1, -7, 2 ** 40, 0.125, -3.5, decimal.Decimal("-12.3456"), "héllo", True,
                datetime.date(1999, 12, 31), datetime.datetime(2020, 1, 2, 3, 4, 5, 600000), b"\x01\x00\x02")
        conn.execute("INSERT INTO pt_t VALUES (%b, %b, %b, %b, %b, %b, %b, %b, %b, %b, %b)", vals)
        got = conn.execute("SELECT * FROM pt_t WHERE id = %b", (1,), binary=True).fetchone()
        return tuple(got) == vals, "" if tuple(got) == vals else repr(got)

    def text_params():
        vals = (2, 5, 7, 1.0, 2.0, decimal.Decimal("1.5"), "x'y\"z\\", False,
                datetime.date(2000, 1, 1), datetime.datetime(2000, 1, 1), b"\\'")
        conn.execute("INSERT INTO pt_t VALUES (%t, %t, %t, %t, %t, %t, %t, %t, %t, %t, %t)", vals)
        got = conn.execute("SELECT * FROM pt_t WHERE id = %t", (2,)).fetchone()
        return tuple(got) == vals, "" if tuple(got) == vals else repr(got)

    def inference():
        # untyped (unknown) parameters: the server infers their types from
        # the context: an integer column, a varchar comparison, arithmetic
        c = conn.pgconn
        r = c.exec_params(b"SELECT id, v FROM pt_t WHERE id = $1 AND v = $2", [b"2", b"x'y\"z\\"], [0, 0])
        ok1 = r.status == pq.ExecStatus.TUPLES_OK and r.ntuples == 1
        r2 = c.prepare(b"pt_inf", b"SELECT $1 + 1, $2 || 'x' FROM pt_t WHERE id = $3", None)
        d = c.describe_prepared(b"pt_inf")
        ptypes = [d.param_type(i) for i in range(d.nparams)]
        ok2 = r2.status == pq.ExecStatus.COMMAND_OK and ptypes[0] in (20, 21, 23) and ptypes[1] in (25, 1043) \
            and ptypes[2] == 23
        c.exec_(b"DEALLOCATE pt_inf")
        return ok1 and ok2, "rows %s, parameter types %s" % (r.ntuples, ptypes)

    def row_limits():
        s = raw_login(a.dsn)
        m, cs = fuzz.msg, fuzz.cstr
        conn.execute("INSERT INTO pt_t (id) VALUES (10), (11), (12), (13), (14)")
        s.send(m(b"P", cs("") + cs("SELECT id FROM pt_t WHERE id >= 10 ORDER BY id") + struct.pack("!h", 0)) +
               m(b"B", cs("pf") + cs("") + struct.pack("!hhh", 0, 0, 0)) +
               m(b"E", cs("pf") + struct.pack("!i", 2)) + m(b"E", cs("pf") + struct.pack("!i", 2)) +
               m(b"E", cs("pf") + struct.pack("!i", 0)) + m(b"S"))
        seq = []
        while True:
            t, body = s.read_msg()
            if t == b"D":
                (ln,) = struct.unpack("!i", body[2:6])
                seq.append(body[6:6 + ln].decode())
            elif t in (b"s", b"C", b"E"):
                seq.append(t.decode())
            elif t == b"Z":
                break
        s.close()
        want = ["10", "11", "s", "12", "13", "s", "14", "C"]
        return seq == want, "got %s" % seq

    def multi_statement():
        c = conn.pgconn
        c.send_query(b"SELECT 1; SELECT 'two', 2; INSERT INTO pt_t (id) VALUES (20)")
        res = []
        while True:
            r = c.get_result()
            if r is None:
                break
            res.append((r.status, r.ntuples, r.command_status))
        ok = [x[0] for x in res] == [pq.ExecStatus.TUPLES_OK, pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK] \
            and res[2][2] == b"INSERT 0 1"
        return ok, repr(res)

    def txn_status():
        T = pq.TransactionStatus
        got = [conn.info.transaction_status]
        conn.execute("BEGIN")
        got.append(conn.info.transaction_status)
        try:
            conn.execute("SELECT 1 / 0")
        except psycopg.Error:
            pass
        got.append(conn.info.transaction_status)
        conn.execute("ROLLBACK")
        got.append(conn.info.transaction_status)
        want = [T.IDLE, T.INTRANS, T.INERROR, T.IDLE]
        return got == want, "got %s" % [g.name for g in got]

    def parameter_status():
        p = conn.info.parameter_status
        want = {"server_version": None, "client_encoding": "UTF8", "DateStyle": "ISO, MDY",
                "integer_datetimes": "on", "standard_conforming_strings": "on"}
        bad = {k: p(k) for k, v in want.items() if p(k) is None or (v and p(k) != v)}
        return not bad, "missing or wrong: %s" % bad if bad else "server_version %s" % p("server_version")

    def notice():
        got = []
        conn.add_notice_handler(lambda d: got.append((d.severity_nonlocalized or d.severity, d.sqlstate)))
        conn.execute("COMMIT")  # outside a transaction block: a WARNING 25P01
        return bool(got) and got[0][1] == "25P01", "notices %s" % got

    def copy_text():
        conn.execute("DROP TABLE IF EXISTS pt_copy")
        conn.execute("CREATE TABLE pt_copy (id INTEGER PRIMARY KEY, t VARCHAR(40), n NUMERIC(8,2), d DATE)")
        data = ("1\tplain\t1.50\t2024-01-02\n"
                "2\ttab\\there\t-3.00\t\\N\n"
                "3\tback\\\\slash\\nnewline\t\\N\t1999-12-31\n"
                "4\t\t0.00\t2000-02-29\n")
        with conn.cursor().copy("COPY pt_copy FROM STDIN") as cp:
            cp.write(data)
        rows = conn.execute("SELECT id, t, n, d FROM pt_copy ORDER BY id").fetchall()
        want = [(1, "plain", decimal.Decimal("1.50"), datetime.date(2024, 1, 2)),
                (2, "tab\there", decimal.Decimal("-3.00"), None),
                (3, "back\\slash\nnewline", None, datetime.date(1999, 12, 31)),
                (4, "", decimal.Decimal("0.00"), datetime.date(2000, 2, 29))]
        out = b""
        with conn.cursor().copy("COPY pt_copy TO STDOUT") as cp:
            for chunk in cp:
                out += bytes(chunk)
        lines = sorted(out.decode().splitlines(keepends=True))
        ok = rows == want and "".join(lines) == data
        return ok, "" if ok else "rows %r, out %r" % (rows, out)

    def copy_csv():
        conn.execute("DELETE FROM pt_copy")
        data = ('1,"quoted, comma",1.25,2024-03-04\n'
                '2,"with ""quotes""",,\n'
                '3,"multi\nline",2.00,2001-01-01\n'
                '4,"",3.00,2001-01-02\n')
        with conn.cursor().copy("COPY pt_copy FROM STDIN (FORMAT csv)") as cp:
            cp.write(data)
        rows = conn.execute("SELECT id, t, n, d FROM pt_copy ORDER BY id").fetchall()
        want = [(1, "quoted, comma", decimal.Decimal("1.25"), datetime.date(2024, 3, 4)),
                (2, 'with "quotes"', None, None),
                (3, "multi\nline", decimal.Decimal("2.00"), datetime.date(2001, 1, 1)),
                (4, "", decimal.Decimal("3.00"), datetime.date(2001, 1, 2))]
        out = b""
        with conn.cursor().copy("COPY pt_copy TO STDOUT (FORMAT csv)") as cp:
            for chunk in cp:
                out += bytes(chunk)
        # the same records back (any order); a NULL is an unquoted empty
        # field, an empty string a quoted one
        back = sorted(csv.reader(io.StringIO(out.decode(), newline="")), key=lambda r: int(r[0]))
        sent = list(csv.reader(io.StringIO(data, newline="")))
        ok = rows == want and back == sent and ',"",' in out.decode() and out.decode().count(",,") == 1
        return ok, "" if ok else "rows %r, out %r" % (rows, out)

    def copy_error():
        # a bad row fails the whole COPY (22P02), nothing is loaded
        conn.execute("DELETE FROM pt_copy")
        try:
            with conn.cursor().copy("COPY pt_copy FROM STDIN") as cp:
                cp.write("1\ta\t1.00\t2024-01-01\nx\tb\t2.00\t2024-01-01\n")
            return False, "COPY of a bad row succeeded"
        except psycopg.Error as e:
            n = conn.execute("SELECT count(*) FROM pt_copy").fetchone()[0]
            return e.sqlstate == "22P02" and n == 0, "sqlstate %s, %d rows loaded" % (e.sqlstate, n)

    def cancel():
        conn.execute("DROP TABLE IF EXISTS pt_big")
        conn.execute("CREATE TABLE pt_big (k INTEGER)")
        conn.execute("INSERT INTO pt_big VALUES " + ", ".join("(%d)" % i for i in range(1000)))
        c2 = psycopg.connect(a.dsn, autocommit=True)
        t = threading.Timer(1.0, c2.cancel)
        t.start()
        t0 = time.monotonic()
        try:
            c2.execute("SELECT count(*) FROM pt_big a, pt_big b, pt_big c WHERE a.k + b.k + c.k = -1")
            state = "finished"
        except psycopg.Error as e:
            state = e.sqlstate
        dt = time.monotonic() - t0
        t.join()
        ok_after = c2.execute("SELECT 7").fetchone()[0] == 7
        c2.close()
        conn.execute("DROP TABLE pt_big")
        return state == "57014" and ok_after, "%s after %.1f s, session usable: %s" % (state, dt, ok_after)

    check("text results of the common types", text_results)
    check("binary results of the common types", binary_results)
    check("binary parameters of the common types", binary_params)
    check("text parameters with quotes and backslashes", text_params)
    check("parameter type inference", inference)
    check("row limits on Execute (PortalSuspended)", row_limits)
    check("several statements in one Query", multi_statement)
    check("transaction status in ReadyForQuery", txn_status)
    check("ParameterStatus at startup", parameter_status)
    check("NoticeResponse (COMMIT outside a block)", notice)
    check("COPY FROM STDIN / TO STDOUT, text format", copy_text)
    check("COPY FROM STDIN / TO STDOUT, CSV format", copy_csv)
    check("COPY with a bad row loads nothing", copy_error)
    check("CancelRequest of a long query", cancel)
    for t in ("pt_t", "pt_copy"):
        conn.execute("DROP TABLE IF EXISTS " + t)
    conn.close()
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


def raw_login(dsn):
    kw = dict(p.split("=", 1) for p in dsn.split())
    return fuzz.login(kw.get("host", "127.0.0.1"), int(kw.get("port", "5432")), kw["user"],
                      kw.get("password", ""), kw.get("dbname", kw["user"]))


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Regression (issue 8, item 6): INTERVAL on the wire as PostgreSQL sends
and receives it. Through psycopg, in text and in binary: the type OID
(1186) and typmod of result columns, the values of both forms (the
binary is interval_send's int64 µs, int32 days, int32 months), Python
timedeltas sent as parameters in both formats, a prepared statement with
an interval parameter, COPY text in and out, and the exact bytes of the
binary form of a value with all three parts.
Usage: regress_interval.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import datetime
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

TD = datetime.timedelta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    with psycopg.connect(a.dsn, autocommit=True) as c:
        cur = c.cursor()
        q = ("SELECT interval '1 day 02:03:04.5', interval '-3 days', "
             "timestamp '2020-03-01' - timestamp '2020-01-01', "
             "CAST('1 day 1.25 s' AS interval day to second(1)), interval '1 mon'::text")
        want = (TD(days=1, seconds=7384.5), TD(days=-3), TD(days=60), TD(days=1, seconds=1.3),
                "1 mon")
        for binary in (False, True):
            form = "binary" if binary else "text"
            cur.execute(q, binary=binary)
            row = cur.fetchone()
            check("values in %s" % form, row == want, repr(row))
            oids = [d.type_code for d in cur.description]
            check("type oids in %s" % form, oids == [1186, 1186, 1186, 1186, 25], repr(oids))
        # typmod of a column: interval day to second(1) is (0x1c08 << 16) | 1
        mods = [d.internal_size for d in cur.description]
        check("interval's length is 16", mods[:4] == [16, 16, 16, 16], repr(mods))
        cur.execute("SELECT CAST('1 day' AS interval day to second(1))")
        check("typmod of interval day to second(1)",
              cur.pgresult.fmod(0) == ((0x1c08 << 16) | 1), repr(cur.pgresult.fmod(0)))
        # exact binary bytes of 1 mon 2 days 00:00:03
        cur.execute("SELECT interval '1 mon 2 days 3 s'", binary=True)
        raw = cur.pgresult.get_value(0, 0)
        check("binary bytes are interval_send's",
              bytes(raw) == bytes.fromhex("00000000002dc6c0" "00000002" "00000001"), repr(raw))
        cur.execute("DROP TABLE IF EXISTS rg_iv")
        cur.execute("CREATE TABLE rg_iv (i int PRIMARY KEY, x interval)")
        try:
            cur.execute("INSERT INTO rg_iv VALUES (%s, %s), (%s, %s)",
                        (1, TD(days=3, seconds=5, microseconds=7), 2, TD(days=-1, seconds=60)))
            cur.execute("INSERT INTO rg_iv VALUES (%b, %b)", (3, TD(hours=50)))
            cur.execute("SELECT i, x FROM rg_iv ORDER BY i", binary=True)
            got = cur.fetchall()
            check("timedelta parameters in text and binary",
                  got == [(1, TD(days=3, seconds=5, microseconds=7)), (2, TD(days=-1, seconds=60)),
                          (3, TD(days=2, seconds=7200))], repr(got))
            cur.execute("SELECT i FROM rg_iv WHERE x > %s ORDER BY i", (TD(days=1),), prepare=True)
            cur.execute("SELECT i FROM rg_iv WHERE x > %s ORDER BY i", (TD(days=2, hours=3),),
                        prepare=True)
            got = cur.fetchall()
            check("a prepared statement with an interval parameter", got == [(1,)], repr(got))
            with cur.copy("COPY rg_iv TO STDOUT") as cp:
                out = b"".join(bytes(b) for b in cp)
            check("COPY TO text", out == b"1\t3 days 00:00:05.000007\n2\t-1 days +00:01:00\n"
                  b"3\t2 days 02:00:00\n", repr(out))
            with cur.copy("COPY rg_iv FROM STDIN") as cp:
                cp.write(b"4\t1 year 2 mons\n5\t\\N\n6\tP1DT2H\n")
            cur.execute("SELECT i, x::text FROM rg_iv WHERE i > 3 ORDER BY i")
            got = cur.fetchall()
            check("COPY FROM text", got == [(4, "1 year 2 mons"), (5, None), (6, "1 day 02:00:00")],
                  repr(got))
            try:
                with cur.copy("COPY rg_iv FROM STDIN") as cp:
                    cp.write(b"7\tsoon\n")
                check("COPY FROM a bad interval fails", False, "no error")
            except psycopg.Error as e:
                check("COPY FROM a bad interval fails", e.sqlstate == "22007", e.sqlstate)
        finally:
            cur.execute("DROP TABLE IF EXISTS rg_iv")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Time zones through a real driver (issue 11, item 5): the binary wire
forms of timestamptz, time and timetz are PostgreSQL's byte for byte
(int64 µs since 2000-01-01 UTC; int64 µs since midnight; int64 µs and an
int32 zone in seconds west of UTC), values sent in binary by psycopg come
back unchanged in binary and in text, the TimeZone setting reaches the
client as ParameterStatus, and psycopg's loaders read every value
(aware datetimes in the session's zone).

Usage: regress_timezone.py --dsn DSN --kind cadenza|postgres
Prints PASS/FAIL lines and "N passed, N failed"; exit 0 when none failed.
"""
import argparse
import datetime as dt
import os
import struct
import sys
from zoneinfo import ZoneInfo

import psycopg
from psycopg.adapt import Loader
from psycopg.pq import Format

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

PG_EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.timezone.utc)
OIDS = {"timestamptz": 1184, "time": 1083, "timetz": 1266}


class RawBinary(Loader):
    format = Format.BINARY

    def load(self, data):
        return bytes(data)


class RawText(Loader):
    def load(self, data):
        return bytes(data).decode()


def us_since_2000(v):
    d = v - PG_EPOCH
    return (d.days * 86400 + d.seconds) * 1000000 + d.microseconds


# (SQL literal, its binary form as PostgreSQL sends it)
def expected_binary():
    rows = []
    for lit, val in [
        ("2024-07-01 12:00:00+00", dt.datetime(2024, 7, 1, 12, tzinfo=dt.timezone.utc)),
        ("2024-03-31 02:30:00 Europe/Berlin",
         dt.datetime(2024, 3, 31, 1, 30, tzinfo=dt.timezone.utc)),
        ("2024-10-27 02:30:00+01", dt.datetime(2024, 10, 27, 1, 30, tzinfo=dt.timezone.utc)),
        ("1999-12-31 23:59:59.999999+00",
         dt.datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc)),
        ("2060-07-01 12:00:00+05:30",
         dt.datetime(2060, 7, 1, 6, 30, tzinfo=dt.timezone.utc)),
    ]:
        rows.append(("timestamptz", lit, struct.pack(">q", us_since_2000(val))))
    rows.append(("timestamptz", "infinity", struct.pack(">q", 2**63 - 1)))
    rows.append(("timestamptz", "-infinity", struct.pack(">q", -2**63)))
    for lit, us in [("12:34:56.789", 45296789000), ("00:00", 0), ("24:00:00", 86400000000)]:
        rows.append(("time", lit, struct.pack(">q", us)))
    for lit, us, west in [("12:00+05:30", 43200000000, -19800), ("23:59:59.5-03:30", 86399500000, 12600),
                          ("00:00+00", 0, 0), ("12:00+05:30:15", 43200000000, -19815)]:
        rows.append(("timetz", lit, struct.pack(">qi", us, west)))
    return rows


def same_value(tname, got, v):
    # instants compare by their POSIX time (an ambiguous local time with
    # fold=1 compares unequal across zones in Python); timetz by time and offset
    if tname == "timestamptz":
        return got.timestamp() == v.timestamp()
    if tname == "timetz":
        return got.replace(tzinfo=None) == v.replace(tzinfo=None) and got.utcoffset() == v.utcoffset()
    return got == v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    conn = psycopg.connect(args.dsn, autocommit=True)
    cur = conn.cursor()

    # the setting as ParameterStatus, as PostgreSQL reports it
    cur.execute("SET TIME ZONE 'europe/berlin'")
    check("ParameterStatus TimeZone after SET",
          conn.info.parameter_status("TimeZone") == "Europe/Berlin",
          repr(conn.info.parameter_status("TimeZone")))
    cur.execute("SET TIME ZONE 5")
    check("ParameterStatus TimeZone of a numeric zone",
          conn.info.parameter_status("TimeZone") == "<+05>-05",
          repr(conn.info.parameter_status("TimeZone")))
    cur.execute("SET TIME ZONE 'UTC'")

    # the binary forms of the server's values
    raw = conn.cursor(binary=True)
    for name in OIDS.values():
        raw.adapters.register_loader(name, RawBinary)
    for tname, lit, want in expected_binary():
        raw.execute("SELECT '%s'::%s" % (lit, tname))
        got = raw.fetchone()[0]
        check("binary %s '%s'" % (tname, lit), got == want, "%r != %r" % (got, want))

    # psycopg's binary parameters read by the server, sent back in binary
    # (psycopg's loaders) and in text
    berlin = ZoneInfo("Europe/Berlin")
    values = [
        ("timestamptz", dt.datetime(2024, 3, 31, 3, 30, tzinfo=berlin)),
        ("timestamptz", dt.datetime(2024, 10, 27, 2, 30, fold=1, tzinfo=berlin)),
        ("timestamptz", dt.datetime(2100, 7, 1, 12, 0, 0, 123456, tzinfo=dt.timezone.utc)),
        ("time", dt.time(12, 34, 56, 789000)),
        ("timetz", dt.time(12, 0, tzinfo=dt.timezone(dt.timedelta(hours=5, minutes=30)))),
        ("timetz", dt.time(23, 59, 59, tzinfo=dt.timezone(dt.timedelta(hours=-3, minutes=-30)))),
    ]
    for zone in ("UTC", "Europe/Berlin", "America/St_Johns"):
        cur.execute("SET TIME ZONE '%s'" % zone)
        bcur = conn.cursor(binary=True)
        for tname, v in values:
            bcur.execute("SELECT %%b::%s" % tname, (v,))
            got = bcur.fetchone()[0]
            ok = same_value(tname, got, v)
            check("binary round trip %s %s in %s" % (tname, v, zone), ok, "%r != %r" % (got, v))
            cur.execute("SELECT %%b::%s" % tname, (v,))
            got = cur.fetchone()[0]
            ok = same_value(tname, got, v)
            check("text of a binary %s %s in %s" % (tname, v, zone), ok, "%r != %r" % (got, v))
        # timestamptz in text is shown in the session's zone
        cur.execute("SELECT '2024-07-01 12:00+00'::timestamptz")
        got = cur.fetchone()[0]
        check("text timestamptz is an instant in %s" % zone,
              got == dt.datetime(2024, 7, 1, 12, tzinfo=dt.timezone.utc)
              and got.utcoffset() == dt.datetime(2024, 7, 1, 12, tzinfo=dt.timezone.utc)
              .astimezone(ZoneInfo(zone)).utcoffset(), repr(got))

    # a table of the three types, written in binary (COPY-free path) and read back
    cur.execute("SET TIME ZONE 'Asia/Kolkata'")
    cur.execute("DROP TABLE IF EXISTS tzreg_t")
    cur.execute("CREATE TABLE tzreg_t (id int PRIMARY KEY, a timestamptz, b time, c timetz)")
    bcur = conn.cursor(binary=True)
    rows = [(i, dt.datetime(2024, 1 + i % 12, 1 + i % 28, i % 24, tzinfo=berlin),
             dt.time(i % 24, i % 60), dt.time(i % 24, tzinfo=dt.timezone(dt.timedelta(hours=i % 14))))
            for i in range(50)]
    bcur.executemany("INSERT INTO tzreg_t VALUES (%b, %b, %b, %b)", rows)
    bcur.execute("SELECT id, a, b, c FROM tzreg_t ORDER BY id")
    got = bcur.fetchall()
    same = len(got) == len(rows) and all(
        g[0] == r[0] and g[1].timestamp() == r[1].timestamp() and g[2] == r[2] and g[3].utcoffset() == r[3].utcoffset()
        and g[3].replace(tzinfo=None) == r[3].replace(tzinfo=None) for g, r in zip(got, rows))
    check("a table of timestamptz, time, timetz round-trips in binary", same)
    tcur = conn.cursor()
    tcur.adapters.register_loader(1184, RawText)
    tcur.execute("SELECT a FROM tzreg_t WHERE id = 7")
    got = tcur.fetchone()[0]
    check("text timestamptz in Asia/Kolkata", got == "2024-08-08 10:30:00+05:30", repr(got))
    cur.execute("DROP TABLE tzreg_t")
    conn.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

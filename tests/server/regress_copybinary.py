#!/usr/bin/env python3
"""Regression (issue 11, item 6): COPY … (FORMAT binary) in PostgreSQL's
binary format, byte for byte, on the stage's server (Cadenza or
PostgreSQL 15 itself).

- COPY TO STDOUT of a table holding every type Cadenza stores (bool,
  smallint, integer, bigint, real, double precision with NaN and
  infinities, numeric with and without typmod, char(n), varchar, text with
  tabs and non-ASCII, bytea, date (BC too), timestamp and timestamptz
  (infinities), time (24:00), timetz (-12 and +14 zones), interval, NULLs)
  gives exactly the bytes PostgreSQL 15 gives (GOLDEN, taken from
  PostgreSQL 15 with TimeZone UTC); each column alone too, through
  COPY (query).
- COPY FROM STDIN of those bytes loads the same rows (their text COPY
  equal to the source's).
- psycopg's binary copy: write_row with set_types into a table, then
  rows() with set_types out of it: the same Python values.
- Bad input, each with PostgreSQL's SQLSTATE and words, the table left as
  it was and the session answering: a wrong signature, the OIDs flag,
  unknown critical flags, a missing header length, a short extension, a
  wrong field count, a negative field size, a tuple cut short, data after
  the trailer, an int4 of 3 and of 5 bytes, invalid UTF-8 and a NUL in
  text, a varchar too long, a numeric with a bad sign word.
- COPY FROM of several tuples in one message and of one tuple cut across
  messages; an empty file is a bad signature.
Usage: regress_copybinary.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import datetime
import decimal
import os
import struct
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

DDL = 'CREATE TABLE cb_t (id int PRIMARY KEY, b bool, i2 smallint, i8 bigint, f4 real, f8 double precision,\n n numeric, n2 numeric(10,3), c char(5), vc varchar(20), t text, by bytea, d date, ts timestamp, tstz timestamptz,\n tm time, tmtz timetz, iv interval)'

ROWS = "INSERT INTO cb_t VALUES\n (1, true, -32768, 9223372036854775807, 1.5, '-2.25e300', 12345.6789, 1.5, 'ab', 'héllo', E'tab\\there', '\\x00ff10', '2024-02-29', '2001-02-03 04:05:06.789', '2001-02-03 04:05:06+02', '23:59:59.999999', '12:00:00+05:30', '1 year 2 mons 3 days 04:05:06.5'),\n (2, false, 0, -1, 'NaN', 'Infinity', -12345678901234567890.12345, -0.001, '', '', '', '', '4713-01-01 BC', '-infinity', 'infinity', '00:00', '00:00-12', '-1 day -00:00:01'),\n (3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),\n (4, true, 32767, 0, '-Infinity', 0.1, 0.000000001, 9999999.999, 'abcde', 'x', repeat('ü', 100), '\\x', '1999-12-31', '2000-01-01 00:00:00', '1970-01-01 00:00:00+00', '24:00:00', '01:02:03.5+14', '0')"

GOLDEN = bytes.fromhex(
    "5047434f50590aff0d0a000000000000000000001200000004000000010000000101000000028000000000087fffffff"
    "ffffffff000000043fc0000000000008fe4ae0c41900844f0000000e0003000100000004000109291a850000000c0002"
    "000000000003000113880000000561622020200000000668c3a96c6c6f0000000874616209686572650000000300ff10"
    "00000004000022790000000800001f5def466a880000000800001f5c4213188000000008000000141dd75fff0000000c"
    "0000000a0eebb000ffffb2a800000010000000036c9361a0000000030000000e00120000000400000002000000010000"
    "000002000000000008ffffffffffffffff000000047fc00000000000087ff00000000000000000001600070004400000"
    "0504d2162e23340d801ed204d213880000000a0001ffff40000003000a00000005202020202000000000000000000000"
    "000000000004ffda97cd000000088000000000000000000000087fffffffffffffff0000000800000000000000000000"
    "000c00000000000000000000a8c000000010fffffffffff0bdc0ffffffff0000000000120000000400000003ffffffff"
    "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"
    "ffffffffffffffffffffffffffffffff001200000004000000040000000101000000027fff0000000800000000000000"
    "0000000004ff800000000000083fb999999999999a0000000a0001fffd0000000903e80000000e000300010000000303"
    "e7270f27060000000561626364650000000178000000c8c3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3"
    "bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3"
    "bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3"
    "bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3"
    "bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bcc3bc0000000000000004ffffffff0000000800"
    "0000000000000000000008fffca2fec4c8200000000008000000141dd760000000000c00000000ddf019e0ffff3b2000"
    "00001000000000000000000000000000000000ffff"
)

SIG = b"PGCOPY\n\xff\r\n\x00"
HEAD = SIG + struct.pack("!ii", 0, 0)


def copy_out(c, sql):
    out = bytearray()
    with c.cursor().copy(sql) as cp:
        for b in cp:
            out += b
    return bytes(out)


def copy_in(c, sql, chunks):
    """(SQLSTATE or "ok", message)."""
    try:
        with c.cursor().copy(sql) as cp:
            for ch in chunks:
                cp.write(ch)
        return "ok", ""
    except psycopg.Error as ex:
        return ex.diag.sqlstate, ex.diag.message_primary or ""


def tup(*fields):
    """A tuple: field count, then each field (None = NULL)."""
    b = struct.pack("!h", len(fields))
    for f in fields:
        b += struct.pack("!i", -1) if f is None else struct.pack("!i", len(f)) + f
    return b


TRAILER = struct.pack("!h", -1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    with psycopg.connect(a.dsn, autocommit=True) as c:
        c.execute("SET TimeZone = 'UTC'")
        for t in ("rcb_t", "rcb_u", "rcb_e", "rcb_p"):
            c.execute("DROP TABLE IF EXISTS %s" % t)
        c.execute(DDL.replace("cb_t", "rcb_t"))
        c.execute(ROWS.replace("cb_t", "rcb_t"))
        got = copy_out(c, "COPY rcb_t TO STDOUT (FORMAT binary)")
        where = next((i for i in range(min(len(got), len(GOLDEN))) if got[i] != GOLDEN[i]),
                     min(len(got), len(GOLDEN)))
        check("COPY TO STDOUT (FORMAT binary): PostgreSQL 15's bytes", got == GOLDEN,
              "%d bytes against %d, first difference at %d: %r" % (len(got), len(GOLDEN), where,
                                                               got[where:where + 24]))
        cols = [r[0] for r in c.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'rcb_t' "
            "ORDER BY ordinal_position")]
        text = copy_out(c, "COPY rcb_t TO STDOUT")
        c.execute(DDL.replace("cb_t", "rcb_u"))
        st, msg = copy_in(c, "COPY rcb_u FROM STDIN (FORMAT binary)", [GOLDEN])
        check("COPY FROM STDIN (FORMAT binary) of those bytes", st == "ok", "%s %s" % (st, msg))
        check("… the same rows (text COPY equal)", copy_out(c, "COPY rcb_u TO STDOUT") == text,
              "differs")
        for col in cols:
            one = copy_out(c, "COPY (SELECT %s FROM rcb_u ORDER BY id) TO STDOUT (FORMAT binary)" % col)
            ok = one.startswith(HEAD) and one.endswith(TRAILER) and len(one) > len(HEAD) + 2
            check("COPY (SELECT %s …) TO STDOUT (FORMAT binary) is well formed" % col, ok, repr(one[:40]))
        # the same bytes in one-byte messages: tuples cut anywhere
        c.execute("TRUNCATE rcb_u")
        st, msg = copy_in(c, "COPY rcb_u FROM STDIN (FORMAT binary)",
                          [GOLDEN[i:i + 1] for i in range(len(GOLDEN))])
        check("the bytes one at a time", st == "ok" and copy_out(c, "COPY rcb_u TO STDOUT") == text,
              "%s %s" % (st, msg))
        psycopg_copy(c)
        errors(c)
        # a column list and defaults
        c.execute("CREATE TABLE rcb_p (id integer PRIMARY KEY, v text DEFAULT 'dflt', n integer)")
        st, msg = copy_in(c, "COPY rcb_p (n, id) FROM STDIN (FORMAT binary)",
                          [HEAD + tup(struct.pack("!i", 7), struct.pack("!i", 1)) + TRAILER])
        got = c.execute("SELECT id, v, n FROM rcb_p").fetchall()
        check("a column list; the others get their DEFAULT", st == "ok" and got == [(1, "dflt", 7)],
              "%s %s %r" % (st, msg, got))
        for t in ("rcb_t", "rcb_u", "rcb_e", "rcb_p"):
            c.execute("DROP TABLE IF EXISTS %s" % t)
    return checks.summary()


def psycopg_copy(c):
    c.execute("CREATE TABLE rcb_e (id integer PRIMARY KEY, b boolean, n numeric(12,4), f float8, "
              "t text, by bytea, d date, ts timestamp, iv interval)")
    types = ["int4", "bool", "numeric", "float8", "text", "bytea", "date", "timestamp", "interval"]
    rows = [
        (1, True, decimal.Decimal("12.3400"), 1.5, "héllo\tthere", b"\x00\x01\xff",
         datetime.date(2024, 2, 29), datetime.datetime(2001, 2, 3, 4, 5, 6, 789000),
         datetime.timedelta(days=3, seconds=5, microseconds=7)),
        (2, None, None, None, None, None, None, None, None),
        (3, False, decimal.Decimal("-0.0001"), -1e-300, "", b"", datetime.date(1, 1, 1),
         datetime.datetime(9999, 12, 31, 23, 59, 59), datetime.timedelta(0)),
    ]
    try:
        with c.cursor().copy("COPY rcb_e FROM STDIN (FORMAT binary)") as cp:
            cp.set_types(types)
            for r in rows:
                cp.write_row(r)
        back = []
        with c.cursor().copy("COPY rcb_e TO STDOUT (FORMAT binary)") as cp:
            cp.set_types(types)
            back = sorted(cp.rows(), key=lambda r: r[0])
        check("psycopg's binary copy: write_row in, rows() out, the same values", back == rows,
              repr(back))
    except psycopg.Error as ex:
        check("psycopg's binary copy", False, "%s %s" % (ex.diag.sqlstate, ex))


def errors(c):
    c.execute("TRUNCATE rcb_u")
    c.execute("INSERT INTO rcb_u (id) VALUES (100)")
    # (name, data, SQLSTATE, message) for COPY rcb_u (id, i2, vc, t, n) FROM STDIN (FORMAT binary)
    i4 = struct.pack("!i", 1)
    ok = [i4, struct.pack("!h", 2), b"v", b"t", None]
    cases = [
        ("an empty input", b"", "22P04", "COPY file signature not recognized"),
        ("a wrong signature", b"PGCOPY\n\xff\r\n\x01" + HEAD[11:] + TRAILER, "22P04",
         "COPY file signature not recognized"),
        ("the OIDs flag", SIG + struct.pack("!ii", 1 << 16, 0) + TRAILER, "22P04",
         "invalid COPY file header (WITH OIDS)"),
        ("an unknown critical flag", SIG + struct.pack("!ii", 1 << 17, 0) + TRAILER, "22P04",
         "unrecognized critical flags in COPY file header"),
        ("no header length", SIG + struct.pack("!i", 0), "22P04",
         "invalid COPY file header (missing length)"),
        ("a short header extension", SIG + struct.pack("!ii", 0, 10) + b"abc", "22P04",
         "invalid COPY file header (wrong length)"),
        ("a wrong field count", HEAD + tup(i4) + TRAILER, "22P04", "row field count is 1, expected 5"),
        ("a negative field size", HEAD + struct.pack("!hi", 5, -2) + TRAILER, "22P04",
         "invalid field size"),
        ("a tuple cut short", HEAD + tup(*ok)[:-3], "22P04", "unexpected EOF in COPY data"),
        ("data after the trailer", HEAD + TRAILER + tup(*ok), "22P04",
         "received copy data after EOF marker"),
        ("an int4 of 3 bytes", HEAD + tup(b"\0\0\1", *ok[1:]) + TRAILER, "08P01",
         "insufficient data left in message"),
        ("an int4 of 5 bytes", HEAD + tup(b"\0\0\0\1\0", *ok[1:]) + TRAILER, "22P03",
         "incorrect binary data format"),
        ("invalid UTF-8 in text", HEAD + tup(i4, ok[1], ok[2], b"a\xff", None) + TRAILER, "22021",
         'invalid byte sequence for encoding "UTF8": 0xff'),
        ("a NUL in text", HEAD + tup(i4, ok[1], ok[2], b"a\x00b", None) + TRAILER, "22021",
         'invalid byte sequence for encoding "UTF8": 0x00'),
        ("a varchar(20) of 21 characters", HEAD + tup(i4, ok[1], b"x" * 21, ok[3], None) + TRAILER,
         "22001", "value too long for type character varying(20)"),
        ("a numeric with a bad sign", HEAD + tup(i4, ok[1], ok[2], ok[3],
                                                struct.pack("!hhhh", 1, 0, 0x1234, 0) + b"\0\1")
         + TRAILER, "22P03", "invalid sign in external \"numeric\" value"),
    ]
    for name, data, want, words in cases:
        # a good tuple first: it must not stay
        body = data if not data.startswith(HEAD) else HEAD + tup(struct.pack("!i", 7), *ok[1:]) + data[len(HEAD):]
        st, msg = copy_in(c, "COPY rcb_u (id, i2, vc, t, n) FROM STDIN (FORMAT binary)", [body])
        n = c.execute("SELECT count(*), min(id) FROM rcb_u").fetchone()
        check("bad input, %s: %s" % (name, want), st == want and msg == words and n == (1, 100),
              "%s %r, table %r" % (st, msg, n))
    check("the session answers after", checks.answers(c))
    # several good tuples in one message, a header extension skipped
    data = SIG + struct.pack("!ii", 0, 3) + b"xyz" + b"".join(
        tup(struct.pack("!i", k), None, b"v%d" % k, None, None) for k in range(1, 4)) + TRAILER
    st, msg = copy_in(c, "COPY rcb_u (id, i2, vc, t, n) FROM STDIN (FORMAT binary)", [data])
    got = c.execute("SELECT id, vc FROM rcb_u WHERE id < 100 ORDER BY id").fetchall()
    check("a header extension skipped, three tuples",
          st == "ok" and got == [(1, "v1"), (2, "v2"), (3, "v3")], "%s %s %r" % (st, msg, got))
    # no trailer: the data ends at a tuple's end (PostgreSQL takes that)
    st, msg = copy_in(c, "COPY rcb_u (id, i2, vc, t, n) FROM STDIN (FORMAT binary)",
                      [HEAD + tup(struct.pack("!i", 9), None, None, None, None)])
    check("no trailer after the last tuple", st == "ok", "%s %s" % (st, msg))


if __name__ == "__main__":
    sys.exit(main())

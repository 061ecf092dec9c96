#!/usr/bin/env python3
"""Errors carry the right SQLSTATE: each statement below must fail with the
given code (PostgreSQL 15's), through the simple and the extended protocol
(psycopg), and the session must go on working afterwards. A syntax error
must also carry a position (the P field) pointing into the statement.
Usage: sqlstate_test.py --dsn DSN. Prints PASS/FAIL per check and
"N passed, N failed"; exit status 0 when all pass."""
import argparse
import sys

import psycopg

SETUP = [
    "DROP TABLE IF EXISTS ss_a",
    "DROP TABLE IF EXISTS ss_b",
    "DROP TABLE IF EXISTS ss_nnd",
    "CREATE TABLE ss_nnd (a INTEGER UNIQUE NULLS NOT DISTINCT, b INTEGER)",
    "INSERT INTO ss_nnd VALUES (NULL, NULL), (5, NULL)",
    "CREATE TABLE ss_a (id INTEGER PRIMARY KEY, name VARCHAR(5) NOT NULL, n SMALLINT)",
    "INSERT INTO ss_a VALUES (1, 'one', 1), (2, 'two', 2)",
]

CASES = [
    ("syntax error", "SELEC 1", "42601"),
    ("syntax error at the end", "SELECT 1 +", "42601"),
    ("undefined table", "SELECT * FROM ss_nosuch", "42P01"),
    ("undefined column", "SELECT nosuch FROM ss_a", "42703"),
    ("undefined function", "SELECT ss_nosuch_fn(1)", "42883"),
    ("operator does not exist", "SELECT 1 FROM ss_a WHERE name = 1", "42883"),
    ("ambiguous column", "SELECT id FROM ss_a a, ss_a b", "42702"),
    ("duplicate table", "CREATE TABLE ss_a (x INTEGER)", "42P07"),
    ("unique violation", "INSERT INTO ss_a VALUES (1, 'dup', 0)", "23505"),
    # json_object / jsonb_object of text arrays (issue 11)
    ("json_object of an odd array", "SELECT json_object('{a,1,b}')", "2202E"),
    ("json_object of three columns", "SELECT json_object('{{a,1,2},{b,2,3}}')", "2202E"),
    ("json_object of three dimensions", "SELECT json_object('{{{a,1}}}')", "2202E"),
    ("json_object with a NULL key", "SELECT json_object('{NULL,1}')", "22004"),
    ("json_object of mismatched arrays", "SELECT json_object('{a,b}', '{1}')", "2202E"),
    ("json_object of two-dimensional keys", "SELECT json_object('{{a}}', '{{1}}')", "2202E"),
    ("jsonb_object with a NULL key", "SELECT jsonb_object('{a,NULL}'::text[], '{1,2}')", "22004"),
    ("json_object of a malformed array", "SELECT json_object('{a,1')", "22P02"),
    # jsonpath (issue 11): strict mode's structural errors, a result that
    # is no boolean, an unknown variable, a malformed path
    ("jsonpath strict: a missing key", "SELECT jsonb_path_query('{\"a\":1}', 'strict $.b')", "2203A"),
    ("jsonpath strict: a key of a number",
     "SELECT jsonb_path_query_first('{\"a\":1}', 'strict $.a.b')", "2203A"),
    ("jsonpath strict: a subscript out of bounds", "SELECT jsonb_path_query('[1]', 'strict $[5]')",
     "22033"),
    ("jsonpath strict: [*] of a number", "SELECT jsonb_path_query('1', 'strict $[*]')", "22039"),
    ("jsonb_path_match of a number", "SELECT jsonb_path_match('{\"a\":1}', '$.a')", "22038"),
    ("jsonpath: an unknown variable",
     "SELECT jsonb_path_query('{\"a\":1}', '$ ? (@.a > $x)', '{\"y\":1}')", "42704"),
    ("jsonpath: an unknown variable even when silent",
     "SELECT jsonb_path_exists('{\"a\":1}', '$ ? (@.a > $x)', '{}', true)", "42704"),
    ("jsonpath: a malformed path", "SELECT jsonb_path_exists('{}', '$.a[')", "42601"),
    ("unique violation of NULLS NOT DISTINCT", "INSERT INTO ss_nnd VALUES (NULL, 2)", "23505"),
    ("NULLS NOT DISTINCT constraint over duplicate NULLs",
     "ALTER TABLE ss_nnd ADD CONSTRAINT ss_nnd_b UNIQUE NULLS NOT DISTINCT (b)", "23505"),
    ("not null violation", "INSERT INTO ss_a VALUES (3, NULL, 0)", "23502"),
    ("division by zero", "SELECT 1 / 0", "22012"),
    ("division by zero in a row", "SELECT id / (n - n) FROM ss_a", "22012"),
    ("integer out of range", "SELECT 2147483647 + 1", "22003"),
    ("smallint out of range", "UPDATE ss_a SET n = 40000 WHERE id = 1", "22003"),
    ("invalid integer text", "SELECT CAST('x1' AS INTEGER)", "22P02"),
    ("string too long", "INSERT INTO ss_a VALUES (4, 'toolong', 0)", "22001"),
    ("invalid date", "SELECT DATE '2023-02-30'", "22008"),
    ("grouping error", "SELECT name, count(*) FROM ss_a", "42803"),
    ("datatype mismatch in WHERE", "SELECT * FROM ss_a WHERE 1", "42804"),
    ("drop of a missing table", "DROP TABLE ss_nosuch", "42P01"),
    ("insert of too many values", "INSERT INTO ss_a VALUES (5, 'x', 1, 2)", "42601"),
    # issue 7 (expressions): the SQLSTATEs PostgreSQL gives
    ("sub-arrays of other dimensions", "SELECT ARRAY[ARRAY[1],ARRAY[1,2]]", "2202E"),
    ("a NULL beside a sub-array", "SELECT ARRAY[ARRAY[1,2], NULL]", "2202E"),
    ("seven array dimensions", "SELECT ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[ARRAY[1]]]]]]]",
     "54000"),
    ("a ragged array literal", "SELECT '{{1,2},{3}}'::int[]", "22P02"),
    ("past the last date", "SELECT DATE '5874897-12-31' + 1", "22008"),
    ("before the first date", "SELECT DATE '4714-11-24 BC' - 1", "22008"),
    ("IS UNKNOWN of an integer", "SELECT 1 IS UNKNOWN", "42804"),
    ("integer minimum divided by -1", "SELECT (-2147483648)::int4 / (-1)::int4", "22003"),
    ("smallint minimum divided by -1", "SELECT (-32768)::int2 / (-1)::int2", "22003"),
    # issue 11 (time zones): PostgreSQL 15's codes
    ("an unknown TimeZone", "SET TIME ZONE 'Foo/Bar'", "22023"),
    ("a TimeZone interval with days", "SET TIME ZONE INTERVAL '1 day'", "22023"),
    ("AT TIME ZONE an unknown zone", "SELECT now() AT TIME ZONE 'Foo/Bar'", "22023"),
    ("an unknown zone in timestamptz input", "SELECT '2024-01-01 00:00 Foo/Bar'::timestamptz",
     "22023"),
    ("a word that is no zone in timestamptz input",
     "SELECT '2024-01-01 00:00 Foobar'::timestamptz", "22007"),
    ("a zone offset past 15 hours", "SELECT '2024-01-01 00:00+16'::timestamptz", "22009"),
    ("a timetz offset past 15 hours", "SELECT '12:00+16'::timetz", "22009"),
    ("a time past 24:00", "SELECT '25:00'::time", "22008"),
    ("invalid time text", "SELECT 'abc'::time", "22007"),
    ("extract of a date field from a time", "SELECT extract(day FROM time '12:00')", "0A000"),
    ("extract of an unknown unit from a time", "SELECT extract(foo FROM time '12:00')", "22023"),
    ("extract of timezone from a timestamp",
     "SELECT extract(timezone FROM timestamp '2024-07-01')", "0A000"),
    ("an interval zone with months", "SELECT now() AT TIME ZONE interval '1 month'", "22023"),
    ("make_timestamptz with an unsigned offset",
     "SELECT make_timestamptz(2024, 7, 1, 12, 0, 0, '5')", "22023"),
    # issue 8 (interval): PostgreSQL's codes for its input, range and operators
    ("invalid interval text", "SELECT interval 'soon'", "22007"),
    ("an interval field given twice", "SELECT '1 day 2 days'::interval", "22007"),
    ("an interval field out of range", "SELECT interval '2147483648 days'", "22015"),
    ("an interval time field out of range", "SELECT interval '1:60'", "22015"),
    ("an interval out of range", "SELECT interval '178956971 years'", "22008"),
    ("interval arithmetic out of range",
     "SELECT interval '-2147483648 days' - interval '1 day'", "22008"),
    ("interval times NaN", "SELECT interval '1 day' * 'nan'::float8", "22008"),
    ("timestamp plus interval out of range",
     "SELECT timestamp '294276-12-01' + interval '1 month'", "22008"),
    ("infinite timestamps subtracted", "SELECT timestamp 'infinity' - timestamp '2020-01-01'",
     "22008"),
    ("interval divided by zero", "SELECT interval '1 day' / 0", "22012"),
    ("week of an interval", "SELECT extract(week FROM interval '1 day')", "0A000"),
    ("unknown unit of an interval", "SELECT date_part('foo', interval '1 day')", "22023"),
    ("integer plus interval", "SELECT 1 + interval '1 day'", "42883"),
    ("integer cast to interval", "SELECT 1::interval", "42846"),
]


def privileges(dsn, c, report):
    """CREATE USER, GRANT, REVOKE: a new user logs in with its password,
    reads what it was granted, gets 42501 for the rest."""
    for s in ("DROP USER IF EXISTS ss_user", "CREATE USER ss_user WITH PASSWORD 'ss_pw_1'",
              "GRANT SELECT ON ss_a TO ss_user"):
        c.execute(s)
    kw = dict(p.split("=", 1) for p in dsn.split())
    kw.update(user="ss_user", password="ss_pw_1")
    udsn = " ".join("%s=%s" % kv for kv in kw.items())
    try:
        with psycopg.connect(udsn, autocommit=True) as u:
            n = u.execute("SELECT count(*) FROM ss_a").fetchone()[0]
            report("granted SELECT works for the new user", n == 2, "count %s" % n)
            for name, sql in (("INSERT without a grant", "INSERT INTO ss_a VALUES (9, 'x', 0)"),
                              ("CREATE USER by a non-superuser", "CREATE USER ss_other")):
                try:
                    u.execute(sql)
                    got = "no error"
                except psycopg.Error as e:
                    got = e.sqlstate
                report(name, got == "42501", "got %s" % got)
            c.execute("REVOKE SELECT ON ss_a FROM ss_user")
            try:
                u.execute("SELECT count(*) FROM ss_a")
                got = "no error"
            except psycopg.Error as e:
                got = e.sqlstate
            report("SELECT after REVOKE", got == "42501", "got %s" % got)
    except psycopg.OperationalError as e:
        report("login of a new user", False, str(e).strip()[:100])
    try:
        psycopg.connect(udsn.replace("ss_pw_1", "wrong"), autocommit=True).close()
        got = "logged in"
    except psycopg.Error as e:
        got = e.sqlstate or "refused"
    report("new user with a wrong password", got in ("28P01", "refused"), "got %s" % got)
    c.execute("DROP USER ss_user")


def search_path(c, report):
    """search_path: CREATE with no schema to create in (3F000), in
    pg_catalog (42501), a bare name found in no schema of the path (42P01),
    a default naming an unknown sequence (42P01), each with its message."""
    cases = [
        ("spath_nosuch", "CREATE TABLE ss_sp (x int)", "3F000",
         "no schema has been selected to create in"),
        ("spath_nosuch", "CREATE VIEW ss_sp AS SELECT 1 AS one", "3F000",
         "no schema has been selected to create in"),
        ("spath_nosuch", "CREATE SEQUENCE ss_sp", "3F000",
         "no schema has been selected to create in"),
        ("''", "CREATE TABLE ss_sp (x int)", "3F000", "no schema has been selected to create in"),
        ("spath_nosuch", "SELECT * FROM ss_a", "42P01", 'relation "ss_a" does not exist'),
        ("spath_nosuch", "ALTER TABLE ss_a ADD COLUMN y int", "42P01",
         'relation "ss_a" does not exist'),
        ("pg_catalog, public", "CREATE TABLE ss_sp (x int)", "42501",
         'permission denied to create "pg_catalog.ss_sp"'),
        ("public", "CREATE TABLE ss_sp (x int DEFAULT nextval('ss_nosuch_seq'))", "42P01",
         'relation "ss_nosuch_seq" does not exist'),
    ]
    for path, sql, want, msg in cases:
        c.execute("SET search_path = %s" % path)
        try:
            c.execute(sql)
            got, text = "no error", ""
        except psycopg.Error as e:
            got, text = e.sqlstate, e.diag.message_primary
        c.execute("RESET search_path")
        report("search_path %s: %s" % (path, sql), got == want and text == msg,
               "got %s %r" % (got, text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    a = ap.parse_args()
    passed = failed = 0

    def report(name, ok, detail=""):
        nonlocal passed, failed
        passed, failed = passed + ok, failed + (not ok)
        print("%s %-50s %s" % ("PASS" if ok else "FAIL", name, detail))

    with psycopg.connect(a.dsn, autocommit=True) as c:
        for s in SETUP:
            c.execute(s)
        for proto in ("simple", "extended"):
            for name, sql, want in CASES:
                try:
                    if proto == "simple":
                        # psycopg sends a statement without parameters as a
                        # simple Query when asked not to prepare it
                        c.pgconn.send_query(sql.encode())
                        res = None
                        while True:
                            r = c.pgconn.get_result()
                            if r is None:
                                break
                            res = r
                        if res is not None and res.status == psycopg.pq.ExecStatus.FATAL_ERROR:
                            got = (res.error_field(psycopg.pq.DiagnosticField.SQLSTATE) or b"").decode()
                        else:
                            got = "no error"
                    else:
                        c.execute(sql, prepare=False, binary=False)
                        got = "no error"
                except psycopg.Error as e:
                    got = e.sqlstate or "?"
                report("%s %s" % (proto, name), got == want,
                       "got %s, want %s" % (got, want) if got != want else want)
                ok = c.execute("SELECT 41 + 1").fetchone()[0] == 42
                if not ok:
                    report("%s session usable after %s" % (proto, name), False)
        # the position of a syntax error: 1-based character offset of the
        # offending token ("SELEC" at 1; FROM in "SELECT (1 FROM ss_a" at 11)
        for sql, pos in (("SELEC 1", 1), ("SELECT (1 FROM ss_a", 11)):
            try:
                c.execute(sql)
                report("position of the error in %r" % sql, False, "no error")
            except psycopg.Error as e:
                got = e.diag.statement_position
                report("position of the error in %r" % sql, got == str(pos),
                       "P=%s, want %d" % (got, pos))
        # an error inside a transaction block: 25P02 until ROLLBACK
        c.execute("BEGIN")
        try:
            c.execute("SELECT 1 / 0")
        except psycopg.Error:
            pass
        try:
            c.execute("SELECT 1")
            got = "no error"
        except psycopg.Error as e:
            got = e.sqlstate
        report("statement in a failed transaction", got == "25P02", "got %s" % got)
        c.execute("ROLLBACK")
        report("session usable after ROLLBACK", c.execute("SELECT 1").fetchone()[0] == 1)
        privileges(a.dsn, c, report)
        search_path(c, report)
        c.execute("DROP TABLE ss_a")
        c.execute("DROP TABLE ss_nnd")
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

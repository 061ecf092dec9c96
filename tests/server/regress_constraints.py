#!/usr/bin/env python3
"""CHECK, FOREIGN KEY and UNIQUE constraints through the wire (issue 11,
item 4), as PostgreSQL 15 answers:

  errors      SQLSTATE, message and DETAIL of each violation and DDL error:
              23514 "new row for relation … violates check constraint …" /
              "Failing row contains (…)", 23503 both forms ("insert or
              update on table …" / "Key (p)=(5) is not present in table …",
              "update or delete on table … on table …" / "… is still
              referenced from table …"), MATCH FULL's mixed NULLs, a
              deferred violation at COMMIT, 42830, 42804, 42703, 2BP01 for
              DROP TABLE, 0A000 for TRUNCATE, 42P10, 42809 / 42704 for SET
              CONSTRAINTS; the session alive after each
  copy        COPY FROM STDIN with one row violating a foreign key or a
              CHECK fails whole (no row stays)
  catalog     pg_constraint (contype, conkey, confkey, actions, match,
              deferrable), pg_get_constraintdef, information_schema
              table_constraints, key_column_usage, referential_constraints,
              check_constraints, constraint_column_usage
  psql        \\d of a referencing and a referenced table: "Check
              constraints:", "Foreign-key constraints:", "Referenced by:"
              exactly as PostgreSQL 15's psql prints them
  concurrency two sessions: a child inserted while another transaction
              deletes its parent waits and then fails (23503) or, when the
              delete rolls back, succeeds; a parent deleted while another
              transaction inserts a child waits, then fails; no orphan

Usage: regress_constraints.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import shutil
import subprocess
import sys
import threading
import time

import psycopg
from psycopg import pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

F = pq.DiagnosticField


def run(conn, sql):
    """(sqlstate, message, detail) of sql, or (None, None, None)."""
    try:
        with conn.cursor() as cur:
            cur.execute(sql)
        return None, None, None
    except psycopg.Error as ex:
        d = ex.diag
        if not conn.autocommit:
            conn.rollback()
        return d.sqlstate, d.message_primary, d.message_detail


def alive(conn):
    with conn.cursor() as cur:
        cur.execute("SELECT 1")
        return cur.fetchone()[0] == 1


def rows(conn, sql):
    with conn.cursor() as cur:
        cur.execute(sql)
        return [tuple(r) for r in cur.fetchall()]


ANY = object()  # a DETAIL not compared (23505's key values: the table layer's)

SETUP = [
    "DROP TABLE IF EXISTS rc_c, rc_p, rc_m, rc_t CASCADE",
    "CREATE TABLE rc_p (id INTEGER PRIMARY KEY, code TEXT UNIQUE)",
    "CREATE TABLE rc_c (id INTEGER PRIMARY KEY, p INTEGER REFERENCES rc_p ON DELETE CASCADE, "
    "code TEXT REFERENCES rc_p (code) DEFERRABLE INITIALLY DEFERRED, "
    "v INTEGER CONSTRAINT v_pos CHECK (v > 0), UNIQUE (p, v))",
    "CREATE TABLE rc_m (a INTEGER, b TEXT, FOREIGN KEY (a, b) REFERENCES rc_m2 (a, b) MATCH FULL)",
    "INSERT INTO rc_p VALUES (1, 'a'), (2, 'b')",
    "INSERT INTO rc_c VALUES (1, 1, 'a', 5)",
]

ERRORS = [
    ("check", "INSERT INTO rc_c VALUES (2, 1, NULL, -3)", "23514",
     'new row for relation "rc_c" violates check constraint "v_pos"',
     "Failing row contains (2, 1, null, -3)."),
    ("check on update", "UPDATE rc_c SET v = 0 WHERE id = 1", "23514",
     'new row for relation "rc_c" violates check constraint "v_pos"',
     "Failing row contains (1, 1, a, 0)."),
    ("fk insert", "INSERT INTO rc_c VALUES (2, 5, NULL, 1)", "23503",
     'insert or update on table "rc_c" violates foreign key constraint "rc_c_p_fkey"',
     'Key (p)=(5) is not present in table "rc_p".'),
    ("fk update", "UPDATE rc_c SET p = 7 WHERE id = 1", "23503",
     'insert or update on table "rc_c" violates foreign key constraint "rc_c_p_fkey"',
     'Key (p)=(7) is not present in table "rc_p".'),
    ("fk parent update", "UPDATE rc_p SET code = 'z' WHERE id = 1", "23503",
     'update or delete on table "rc_p" violates foreign key constraint "rc_c_code_fkey" on table "rc_c"',
     'Key (code)=(a) is still referenced from table "rc_c".'),
    ("unique two columns", "INSERT INTO rc_c VALUES (3, 1, NULL, 5)", "23505",
     'duplicate key value violates unique constraint "rc_c_p_v_key"', ANY),
    ("drop referenced", "DROP TABLE rc_p", "2BP01",
     "cannot drop table rc_p because other objects depend on it",
     "constraint rc_c_p_fkey on table rc_c depends on table rc_p\n"
     "constraint rc_c_code_fkey on table rc_c depends on table rc_p"),
    ("truncate referenced", "TRUNCATE rc_p", "0A000",
     "cannot truncate a table referenced in a foreign key constraint",
     'Table "rc_c" references "rc_p".'),
    ("no primary key", "CREATE TABLE rc_t (a INTEGER REFERENCES rc_c (v))", "42830",
     'there is no unique constraint matching given keys for referenced table "rc_c"', None),
    ("column count", "CREATE TABLE rc_t (a INTEGER, FOREIGN KEY (a) REFERENCES rc_c (p, v))", "42830",
     "number of referencing and referenced columns for foreign key disagree", None),
    ("types", "CREATE TABLE rc_t (a DATE REFERENCES rc_p)", "42804",
     'foreign key constraint "rc_t_a_fkey" cannot be implemented',
     'Key columns "a" and "id" are of incompatible types: date and integer.'),
    ("unknown column", "CREATE TABLE rc_t (a INTEGER, FOREIGN KEY (b) REFERENCES rc_p)", "42703",
     'column "b" referenced in foreign key constraint does not exist', None),
    ("set null list", "CREATE TABLE rc_t (a INTEGER, b INTEGER, FOREIGN KEY (a) REFERENCES rc_p "
     "ON DELETE SET NULL (b))", "42P10",
     'column "b" referenced in ON DELETE SET action must be part of foreign key', None),
    ("check not boolean", "CREATE TABLE rc_t (a INTEGER CHECK (a + 1))", "42804",
     "argument of CHECK must be type boolean, not type integer", None),
    ("check subquery", "CREATE TABLE rc_t (a INTEGER CHECK (a > (SELECT 1)))", "0A000",
     "cannot use subquery in check constraint", None),
    ("set constraints unknown", "SET CONSTRAINTS nosuch DEFERRED", "42704",
     'constraint "nosuch" does not exist', None),
    ("set constraints not deferrable", "SET CONSTRAINTS rc_c_p_fkey DEFERRED", "42809",
     'constraint "rc_c_p_fkey" is not deferrable', None),
]


def check_errors(conn):
    for name, sql, state, msg, detail in ERRORS:
        got = run(conn, sql)
        if detail is ANY:
            got = got[:2] + (ANY,)
        check(f"error {name}", got == (state, msg, detail),
              f"{sql}: got {got}, want {(state, msg, detail)}")
    check("error session alive", alive(conn))
    # MATCH FULL with some NULLs
    run(conn, "DROP TABLE IF EXISTS rc_m")
    run(conn, "CREATE TABLE rc_m (a INTEGER, b TEXT, FOREIGN KEY (a, b) REFERENCES rc_m (a, b) MATCH FULL, "
              "UNIQUE (a, b))")
    got = run(conn, "INSERT INTO rc_m VALUES (1, NULL)")
    check("error match full", got == ("23503",
                                      'insert or update on table "rc_m" violates foreign key constraint "rc_m_a_b_fkey"',
                                      "MATCH FULL does not allow mixing of null and nonnull key values."),
          f"got {got}")
    run(conn, "DROP TABLE rc_m")
    # a deferred violation is reported by COMMIT
    conn.autocommit = False
    with conn.cursor() as cur:
        cur.execute("INSERT INTO rc_c VALUES (4, 2, 'nope', 1)")
    try:
        conn.commit()
        got = (None, None, None)
    except psycopg.Error as ex:
        got = (ex.diag.sqlstate, ex.diag.message_primary, ex.diag.message_detail)
        conn.rollback()
    conn.autocommit = True
    check("error deferred at commit", got == ("23503",
                                              'insert or update on table "rc_c" violates foreign key constraint "rc_c_code_fkey"',
                                              'Key (code)=(nope) is not present in table "rc_p".'),
          f"got {got}")
    check("deferred commit rolled back", rows(conn, "SELECT count(*) FROM rc_c WHERE id = 4") == [(0,)])


def check_copy(conn):
    for name, data, state in (("fk", "10\t1\t\\N\t1\n11\t9\t\\N\t1\n12\t2\t\\N\t1\n", "23503"),
                              ("check", "10\t1\t\\N\t1\n11\t2\t\\N\t-1\n", "23514")):
        try:
            with conn.cursor() as cur:
                with cur.copy("COPY rc_c FROM STDIN") as cp:
                    cp.write(data)
            got = None
        except psycopg.Error as ex:
            got = ex.diag.sqlstate
        check(f"copy {name} fails whole", got == state and
              rows(conn, "SELECT count(*) FROM rc_c WHERE id >= 10") == [(0,)], f"got {got}")
    with conn.cursor() as cur:
        with cur.copy("COPY rc_c FROM STDIN") as cp:
            cp.write("10\t1\t\\N\t1\n11\t2\tb\t2\n")
    check("copy good rows", rows(conn, "SELECT count(*) FROM rc_c WHERE id >= 10") == [(2,)])
    run(conn, "DELETE FROM rc_c WHERE id >= 10")


def check_catalog(conn):
    got = rows(conn, """
        SELECT conname, contype, conkey::text, confkey::text, confupdtype, confdeltype, confmatchtype,
               condeferrable, condeferred, pg_get_constraintdef(c.oid)
          FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
         WHERE r.relname IN ('rc_c', 'rc_p') AND contype <> 'c' ORDER BY conname""")
    want = [
        ("rc_c_code_fkey", "f", "{3}", "{2}", "a", "a", "s", True, True,
         "FOREIGN KEY (code) REFERENCES rc_p(code) DEFERRABLE INITIALLY DEFERRED"),
        ("rc_c_p_fkey", "f", "{2}", "{1}", "a", "c", "s", False, False,
         "FOREIGN KEY (p) REFERENCES rc_p(id) ON DELETE CASCADE"),
        ("rc_c_p_v_key", "u", "{2,4}", None, " ", " ", " ", False, False, "UNIQUE (p, v)"),
        ("rc_c_pkey", "p", "{1}", None, " ", " ", " ", False, False, "PRIMARY KEY (id)"),
        ("rc_p_code_key", "u", "{2}", None, " ", " ", " ", False, False, "UNIQUE (code)"),
        ("rc_p_pkey", "p", "{1}", None, " ", " ", " ", False, False, "PRIMARY KEY (id)"),
    ]
    check("pg_constraint", got == want, f"got {got}")
    got = rows(conn, """SELECT conname, conkey::text, pg_get_constraintdef(c.oid, true) FROM pg_constraint c
                         WHERE conrelid = 'rc_c'::regclass AND contype = 'c'""")
    check("pg_constraint check", got == [("v_pos", "{4}", "CHECK (v > 0)")], f"got {got}")
    got = rows(conn, """SELECT constraint_name, constraint_type, is_deferrable, initially_deferred
                          FROM information_schema.table_constraints
                         WHERE table_name = 'rc_c' AND constraint_name NOT LIKE '%not_null' ORDER BY 1""")
    want = [("rc_c_code_fkey", "FOREIGN KEY", "YES", "YES"), ("rc_c_p_fkey", "FOREIGN KEY", "NO", "NO"),
            ("rc_c_p_v_key", "UNIQUE", "NO", "NO"), ("rc_c_pkey", "PRIMARY KEY", "NO", "NO"),
            ("v_pos", "CHECK", "NO", "NO")]
    check("information_schema.table_constraints", got == want, f"got {got}")
    got = rows(conn, """SELECT constraint_name, column_name, ordinal_position, position_in_unique_constraint
                          FROM information_schema.key_column_usage WHERE table_name = 'rc_c' ORDER BY 1, 3""")
    want = [("rc_c_code_fkey", "code", 1, 1), ("rc_c_p_fkey", "p", 1, 1), ("rc_c_p_v_key", "p", 1, None),
            ("rc_c_p_v_key", "v", 2, None), ("rc_c_pkey", "id", 1, None)]
    check("information_schema.key_column_usage", got == want, f"got {got}")
    got = rows(conn, """SELECT constraint_name, unique_constraint_name, match_option, update_rule, delete_rule
                          FROM information_schema.referential_constraints
                         WHERE constraint_name LIKE 'rc_c%' ORDER BY 1""")
    want = [("rc_c_code_fkey", "rc_p_code_key", "NONE", "NO ACTION", "NO ACTION"),
            ("rc_c_p_fkey", "rc_p_pkey", "NONE", "NO ACTION", "CASCADE")]
    check("information_schema.referential_constraints", got == want, f"got {got}")
    got = rows(conn, """SELECT constraint_name FROM information_schema.check_constraints
                         WHERE constraint_name = 'v_pos'""")
    check("information_schema.check_constraints", got == [("v_pos",)], f"got {got}")
    got = rows(conn, """SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage
                         WHERE constraint_name IN ('rc_c_p_fkey', 'v_pos', 'rc_c_p_v_key') ORDER BY 3, 2""")
    want = [("rc_p", "id", "rc_c_p_fkey"), ("rc_c", "p", "rc_c_p_v_key"), ("rc_c", "v", "rc_c_p_v_key"),
            ("rc_c", "v", "v_pos")]
    check("information_schema.constraint_column_usage", got == want, f"got {got}")


# pgJDBC's DatabaseMetaData.getImportedKeys / getExportedKeys (42.x:
# PgDatabaseMetaData.getImportedExportedKeys), the filter its last line
JDBC_KEYS = """SELECT NULL::text AS PKTABLE_CAT, pkn.nspname AS PKTABLE_SCHEM, pkc.relname AS PKTABLE_NAME,
 pka.attname AS PKCOLUMN_NAME, NULL::text AS FKTABLE_CAT, fkn.nspname AS FKTABLE_SCHEM,
 fkc.relname AS FKTABLE_NAME, fka.attname AS FKCOLUMN_NAME, pos.n AS KEY_SEQ,
 CASE con.confupdtype  WHEN 'c' THEN 0 WHEN 'n' THEN 2 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1
 WHEN 'a' THEN 3 ELSE NULL END AS UPDATE_RULE, CASE con.confdeltype  WHEN 'c' THEN 0 WHEN 'n' THEN 2
 WHEN 'd' THEN 4 WHEN 'r' THEN 1 WHEN 'p' THEN 1 WHEN 'a' THEN 3 ELSE NULL END AS DELETE_RULE,
 con.conname AS FK_NAME, pkic.relname AS PK_NAME, CASE  WHEN con.condeferrable AND con.condeferred THEN 5
 WHEN con.condeferrable THEN 6 ELSE 7 END AS DEFERRABILITY
 FROM  pg_catalog.pg_namespace pkn, pg_catalog.pg_class pkc, pg_catalog.pg_attribute pka,
 pg_catalog.pg_namespace fkn, pg_catalog.pg_class fkc, pg_catalog.pg_attribute fka,
 pg_catalog.pg_constraint con,  pg_catalog.generate_series(1, 32) pos(n),  pg_catalog.pg_class pkic
 WHERE pkn.oid = pkc.relnamespace AND pkc.oid = pka.attrelid AND pka.attnum = con.confkey[pos.n]
 AND con.confrelid = pkc.oid  AND fkn.oid = fkc.relnamespace AND fkc.oid = fka.attrelid
 AND fka.attnum = con.conkey[pos.n] AND con.conrelid = fkc.oid  AND con.contype = 'f'
 AND (pkic.relkind = 'i' OR pkic.relkind = 'I') AND pkic.oid = con.conindid  AND %s
 ORDER BY %s"""


def check_jdbc(conn):
    want = [("rc_p", "code", "rc_c", "code", 1, 3, 3, "rc_c_code_fkey", "rc_p_code_key", 5),
            ("rc_p", "id", "rc_c", "p", 1, 3, 0, "rc_c_p_fkey", "rc_p_pkey", 7)]
    for name, where, order in (
            ("getImportedKeys", "fkn.nspname = 'public' AND fkc.relname = 'rc_c'",
             "pkn.nspname,pkc.relname, con.conname,pos.n"),
            ("getExportedKeys", "pkn.nspname = 'public' AND pkc.relname = 'rc_p'",
             "fkn.nspname,fkc.relname, con.conname,pos.n")):
        got = [(r[2], r[3], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13])
               for r in rows(conn, JDBC_KEYS % (where, order))]
        if name == "getExportedKeys":
            want = sorted(want, key=lambda r: r[7])
        check(f"pgJDBC {name}", got == want, f"got {got}")


PSQL_C = """                Table "public.rc_c"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 id     | integer |           | not null | 
 p      | integer |           |          | 
 code   | text    |           |          | 
 v      | integer |           |          | 
Indexes:
    "rc_c_pkey" PRIMARY KEY, btree (id)
    "rc_c_p_v_key" UNIQUE CONSTRAINT, btree (p, v)
Check constraints:
    "v_pos" CHECK (v > 0)
Foreign-key constraints:
    "rc_c_code_fkey" FOREIGN KEY (code) REFERENCES rc_p(code) DEFERRABLE INITIALLY DEFERRED
    "rc_c_p_fkey" FOREIGN KEY (p) REFERENCES rc_p(id) ON DELETE CASCADE

"""

PSQL_P = """                Table "public.rc_p"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 id     | integer |           | not null | 
 code   | text    |           |          | 
Indexes:
    "rc_p_pkey" PRIMARY KEY, btree (id)
    "rc_p_code_key" UNIQUE CONSTRAINT, btree (code)
Referenced by:
    TABLE "rc_c" CONSTRAINT "rc_c_code_fkey" FOREIGN KEY (code) REFERENCES rc_p(code) DEFERRABLE INITIALLY DEFERRED
    TABLE "rc_c" CONSTRAINT "rc_c_p_fkey" FOREIGN KEY (p) REFERENCES rc_p(id) ON DELETE CASCADE

"""


def check_psql(dsn):
    psql = shutil.which("psql")
    if not psql:
        check("psql \\d", False, "psql not found")
        return
    for table, want in (("rc_c", PSQL_C), ("rc_p", PSQL_P)):
        r = subprocess.run([psql, "-X", "-d", dsn, "-c", f"\\d {table}"], capture_output=True, text=True,
                           timeout=60)
        check(f"psql \\d {table}", r.returncode == 0 and r.stdout == want,
              f"rc {r.returncode} {r.stderr!r}\n{r.stdout}")


def waits_then(dsn, holder_sql, holder_end, waiter_sql, want_state):
    """The holder runs holder_sql in an open transaction; the waiter's
    statement must block until the holder ends (holder_end), then give
    want_state (None: success)."""
    holder = psycopg.connect(dsn)
    waiter = psycopg.connect(dsn, autocommit=True)
    out = {}
    try:
        with holder.cursor() as cur:
            cur.execute(holder_sql)

        def go():
            out["r"] = run(waiter, waiter_sql)
            out["t"] = time.monotonic()

        th = threading.Thread(target=go)
        th.start()
        time.sleep(0.7)
        blocked = th.is_alive()
        end = time.monotonic()
        if holder_end == "commit":
            holder.commit()
        else:
            holder.rollback()
        th.join(30)
        return blocked and not th.is_alive() and out["t"] >= end and out["r"][0] == want_state, out.get("r")
    finally:
        holder.close()
        waiter.close()


def check_concurrency(conn, dsn):
    run(conn, "DELETE FROM rc_c")
    run(conn, "INSERT INTO rc_p VALUES (20, 't20'), (21, 't21'), (22, 't22')")
    ok, r = waits_then(dsn, "DELETE FROM rc_p WHERE id = 20", "commit",
                       "INSERT INTO rc_c VALUES (20, 20, NULL, 1)", "23503")
    check("child insert waits for the parent delete, then fails", ok, f"got {r}")
    ok, r = waits_then(dsn, "DELETE FROM rc_p WHERE id = 21", "rollback",
                       "INSERT INTO rc_c VALUES (21, 21, NULL, 1)", None)
    check("child insert waits for a parent delete that rolls back, then succeeds", ok, f"got {r}")
    # the other order: the child first; rc_m2's key has a NO ACTION reference
    run(conn, "DROP TABLE IF EXISTS rc_k, rc_kp")
    run(conn, "CREATE TABLE rc_kp (id INTEGER PRIMARY KEY)")
    run(conn, "CREATE TABLE rc_k (id INTEGER PRIMARY KEY, p INTEGER REFERENCES rc_kp)")
    run(conn, "INSERT INTO rc_kp VALUES (1), (2)")
    ok, r = waits_then(dsn, "INSERT INTO rc_k VALUES (1, 1)", "commit", "DELETE FROM rc_kp WHERE id = 1", "23503")
    check("parent delete waits for the child insert, then fails", ok, f"got {r}")
    ok, r = waits_then(dsn, "INSERT INTO rc_k VALUES (2, 2)", "rollback", "DELETE FROM rc_kp WHERE id = 2", None)
    check("parent delete waits for a child insert that rolls back, then succeeds", ok, f"got {r}")
    orphans = rows(conn, "SELECT count(*) FROM rc_k WHERE p NOT IN (SELECT id FROM rc_kp)")
    orphans += rows(conn, "SELECT count(*) FROM rc_c WHERE p NOT IN (SELECT id FROM rc_p)")
    check("no orphan", orphans == [(0,), (0,)], f"got {orphans}")
    run(conn, "DROP TABLE rc_k, rc_kp")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    conn = psycopg.connect(args.dsn, autocommit=True)
    for sql in SETUP:
        if "rc_m2" in sql:
            continue
        st, msg, _ = run(conn, sql)
        if st:
            check(f"setup {sql[:40]}", False, f"{st} {msg}")
    check_errors(conn)
    check_copy(conn)
    check_catalog(conn)
    check_jdbc(conn)
    check_psql(args.dsn)
    check_concurrency(conn, args.dsn)
    run(conn, "DROP TABLE IF EXISTS rc_c, rc_p, rc_m, rc_t CASCADE")
    conn.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Sequences through the wire (issue 11, item 1), as PostgreSQL 15 answers:

  sqlstates   55000 currval / lastval before nextval, 2200H past MAXVALUE /
              MINVALUE, 22003 setval out of bounds, 22023 bad options
              (INCREMENT 0, MINVALUE >= MAXVALUE, START outside, CACHE 0,
              AS text), 42P01 an unknown sequence, 42809 a table given as a
              sequence, 42P07 a taken name, 428C9 a value for a GENERATED
              ALWAYS column (insert and update), 2BP01 dropping a sequence
              a default uses; the session goes on working after each
  catalog     pg_class relkind 'S', pg_sequence, pg_sequences (last_value),
              information_schema.sequences, information_schema.columns'
              identity columns, pg_attribute.attidentity,
              pg_attrdef / pg_get_expr of a serial, pg_depend ownership,
              pg_get_serial_sequence
  concurrent  8 sessions call nextval (CACHE 1 and CACHE 10) and insert
              into a serial table at once, half of them sometimes inside a
              transaction block, while CHECKPOINTs run: every value is
              distinct, without cache exactly 1..N, and nothing hangs
  rollback    a value taken in a rolled-back transaction is not given again

Usage: regress_sequences.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys
import threading

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SESSIONS = 8
PER_SESSION = 300


def connect(dsn):
    return psycopg.connect(dsn, autocommit=True)


def sqlstates(dsn):
    c = connect(dsn)
    setup = [
        "DROP TABLE IF EXISTS rsq_t, rsq_g",
        "DROP SEQUENCE IF EXISTS rsq_s, rsq_lim, rsq_neg",
        "CREATE SEQUENCE rsq_s",
        "CREATE SEQUENCE rsq_lim MAXVALUE 2",
        "CREATE SEQUENCE rsq_neg INCREMENT -1 MINVALUE -2",
        "CREATE TABLE rsq_t (id serial PRIMARY KEY, v text)",
        "CREATE TABLE rsq_g (id int GENERATED ALWAYS AS IDENTITY, v text)",
    ]
    for s in setup:
        c.execute(s)
    # a fresh session: nothing defined yet
    c2 = connect(dsn)
    cases = [
        ("currval before nextval", "SELECT currval('rsq_s')", "55000"),
        ("lastval before nextval", "SELECT lastval()", "55000"),
    ]
    for name, sql, want in cases:
        got, msg, _ = checks.sqlstate_of(c2, sql)
        check("sqlstate " + name, got == want, "%s %s" % (got, msg))
    c2.close()
    c.execute("SELECT nextval('rsq_lim'), nextval('rsq_lim'), nextval('rsq_neg'), nextval('rsq_neg')")
    cases = [
        ("past MAXVALUE", "SELECT nextval('rsq_lim')", "2200H"),
        ("past MINVALUE", "SELECT nextval('rsq_neg')", "2200H"),
        ("setval out of bounds", "SELECT setval('rsq_lim', 3)", "22003"),
        ("INCREMENT 0", "CREATE SEQUENCE rsq_x INCREMENT 0", "22023"),
        ("MINVALUE >= MAXVALUE", "CREATE SEQUENCE rsq_x MINVALUE 5 MAXVALUE 5", "22023"),
        ("START below MINVALUE", "CREATE SEQUENCE rsq_x MINVALUE 5 START 1", "22023"),
        ("START above MAXVALUE", "CREATE SEQUENCE rsq_x MAXVALUE 5 START 6", "22023"),
        ("CACHE 0", "CREATE SEQUENCE rsq_x CACHE 0", "22023"),
        ("AS text", "CREATE SEQUENCE rsq_x AS text", "22023"),
        ("MAXVALUE beyond smallint", "CREATE SEQUENCE rsq_x AS smallint MAXVALUE 40000", "22023"),
        ("RESTART above MAXVALUE", "ALTER SEQUENCE rsq_lim RESTART 10", "22023"),
        ("unknown sequence", "SELECT nextval('rsq_nosuch')", "42P01"),
        ("drop unknown sequence", "DROP SEQUENCE rsq_nosuch", "42P01"),
        ("alter unknown sequence", "ALTER SEQUENCE rsq_nosuch RESTART", "42P01"),
        ("a table is not a sequence", "SELECT nextval('rsq_t')", "42809"),
        ("drop a table as a sequence", "DROP SEQUENCE rsq_t", "42809"),
        ("name taken", "CREATE SEQUENCE rsq_t", "42P07"),
        ("sequence name taken by table", "CREATE TABLE rsq_s (x int)", "42P07"),
        ("value for GENERATED ALWAYS", "INSERT INTO rsq_g VALUES (1, 'a')", "428C9"),
        ("update of GENERATED ALWAYS", "UPDATE rsq_g SET id = 1", "428C9"),
        ("drop a sequence a default uses", "DROP SEQUENCE rsq_t_id_seq", "2BP01"),
        ("identity on text", "CREATE TABLE rsq_x (a text GENERATED ALWAYS AS IDENTITY)", "22023"),
        ("repeated option", "CREATE SEQUENCE rsq_x START 1 START 2", "42601"),
        ("serial is no type for a cast", "SELECT 1::serial", "42704"),
        ("bigserial is no sequence type", "CREATE SEQUENCE rsq_x AS bigserial", "42704"),
        ("serial with a default", "CREATE TABLE rsq_x (a serial DEFAULT 1)", "42601"),
    ]
    for name, sql, want in cases:
        got, msg, _ = checks.sqlstate_of(c, sql)
        check("sqlstate " + name, got == want, "%s %s" % (got, msg))
        check("alive after " + name, checks.answers(c))
    c.close()


def catalog(dsn):
    c = connect(dsn)
    row = c.execute("SELECT relkind FROM pg_class WHERE relname = 'rsq_t_id_seq'").fetchone()
    check("pg_class relkind S", row and row[0] == "S", repr(row))
    row = c.execute(
        "SELECT s.seqstart, s.seqincrement, s.seqmax, s.seqmin, s.seqcache, s.seqcycle,"
        " format_type(s.seqtypid, NULL) FROM pg_sequence s JOIN pg_class c ON c.oid = s.seqrelid"
        " WHERE c.relname = 'rsq_neg'").fetchone()
    check("pg_sequence", row == (-1, -1, -1, -2, 1, False, "bigint"), repr(row))
    c.execute("SELECT setval('rsq_s', 41)")
    row = c.execute("SELECT data_type::text, start_value, min_value, max_value, increment_by,"
                    " cycle, cache_size, last_value FROM pg_sequences"
                    " WHERE sequencename = 'rsq_s'").fetchone()
    check("pg_sequences", row == ("bigint", 1, 1, 9223372036854775807, 1, False, 1, 41),
          repr(row))
    row = c.execute("SELECT last_value FROM pg_sequences WHERE sequencename = 'rsq_t_id_seq'"
                    ).fetchone()
    check("pg_sequences last_value NULL before use", row == (None,), repr(row))
    row = c.execute("SELECT data_type, start_value, minimum_value, maximum_value, increment,"
                    " cycle_option FROM information_schema.sequences"
                    " WHERE sequence_name = 'rsq_t_id_seq'").fetchone()
    check("information_schema.sequences",
          row == ("integer", "1", "1", "2147483647", "1", "NO"), repr(row))
    row = c.execute("SELECT a.attidentity FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid"
                    " WHERE c.relname = 'rsq_g' AND a.attname = 'id'").fetchone()
    check("attidentity", row == ("a",), repr(row))
    row = c.execute("SELECT is_identity, identity_generation, column_default, identity_start,"
                    " identity_increment, identity_maximum, identity_minimum, identity_cycle"
                    " FROM information_schema.columns"
                    " WHERE table_name = 'rsq_g' AND column_name = 'id'").fetchone()
    check("information_schema.columns identity",
          row == ("YES", "ALWAYS", None, "1", "1", "2147483647", "1", "NO"), repr(row))
    row = c.execute("SELECT is_identity, column_default FROM information_schema.columns"
                    " WHERE table_name = 'rsq_t' AND column_name = 'id'").fetchone()
    check("information_schema.columns serial",
          row == ("NO", "nextval('rsq_t_id_seq'::regclass)"), repr(row))
    row = c.execute("SELECT pg_get_expr(d.adbin, d.adrelid) FROM pg_attrdef d"
                    " JOIN pg_class c ON c.oid = d.adrelid WHERE c.relname = 'rsq_t'").fetchone()
    check("serial default", row == ("nextval('rsq_t_id_seq'::regclass)",), repr(row))
    n = c.execute("SELECT count(*) FROM pg_attrdef d JOIN pg_class c ON c.oid = d.adrelid"
                  " WHERE c.relname = 'rsq_g'").fetchone()[0]
    check("no pg_attrdef row for an identity", n == 0, repr(n))
    rows = c.execute(
        "SELECT s.relname, t.relname, d.refobjsubid, d.deptype FROM pg_depend d"
        " JOIN pg_class s ON s.oid = d.objid JOIN pg_class t ON t.oid = d.refobjid"
        " WHERE d.classid = 'pg_class'::regclass AND d.refclassid = 'pg_class'::regclass"
        " AND s.relname IN ('rsq_t_id_seq', 'rsq_g_id_seq') ORDER BY 1").fetchall()
    check("pg_depend ownership",
          rows == [("rsq_g_id_seq", "rsq_g", 1, "i"), ("rsq_t_id_seq", "rsq_t", 1, "a")],
          repr(rows))
    row = c.execute("SELECT pg_get_serial_sequence('rsq_t', 'id'),"
                    " pg_get_serial_sequence('rsq_g', 'id'),"
                    " pg_get_serial_sequence('rsq_t', 'v')").fetchone()
    check("pg_get_serial_sequence", row == ("public.rsq_t_id_seq", "public.rsq_g_id_seq", None),
          repr(row))
    c.close()


def concurrent(dsn):
    c = connect(dsn)
    c.execute("DROP TABLE IF EXISTS rsq_c")
    c.execute("DROP SEQUENCE IF EXISTS rsq_c1, rsq_c10")
    c.execute("CREATE SEQUENCE rsq_c1")
    c.execute("CREATE SEQUENCE rsq_c10 CACHE 10")
    c.execute("CREATE TABLE rsq_c (id bigserial PRIMARY KEY, s int)")
    got = {"rsq_c1": [], "rsq_c10": [], "ins": []}
    errors = []
    lock = threading.Lock()

    def worker(k):
        try:
            w = connect(dsn)
            mine = {"rsq_c1": [], "rsq_c10": [], "ins": []}
            for i in range(PER_SESSION):
                block = k % 2 == 1 and i % 5 == 0  # inside a transaction block too
                if block:
                    w.execute("BEGIN")
                a, b = w.execute("SELECT nextval('rsq_c1'), nextval('rsq_c10')").fetchone()
                mine["rsq_c1"].append(a)
                mine["rsq_c10"].append(b)
                if i % 3 == 0:
                    mine["ins"].append(w.execute(
                        "INSERT INTO rsq_c (s) VALUES (%s) RETURNING id", (k,)).fetchone()[0])
                if block:
                    w.execute("COMMIT")
            w.close()
            with lock:
                for key in got:
                    got[key].extend(mine[key])
        except Exception as ex:  # noqa: BLE001
            errors.append(repr(ex))

    done = threading.Event()

    def checkpointer():
        # checkpoints while values are logged ahead (from sessions with and
        # without a transaction of their own): none may hang
        try:
            w = connect(dsn)
            while not done.is_set():
                try:
                    w.execute("CHECKPOINT")
                except psycopg.errors.InsufficientPrivilege:
                    return
                done.wait(0.05)
            w.close()
        except Exception as ex:  # noqa: BLE001
            errors.append("checkpoint: %r" % ex)

    cp = threading.Thread(target=checkpointer)
    cp.start()
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(SESSIONS)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    done.set()
    cp.join(30)
    check("concurrent sessions ended", not any(t.is_alive() for t in ts) and not cp.is_alive())
    check("concurrent sessions ran", not errors, "; ".join(errors[:3]))
    n = SESSIONS * PER_SESSION
    v1 = got["rsq_c1"]
    check("concurrent nextval distinct", len(set(v1)) == len(v1) == n, "%d of %d" % (len(set(v1)), n))
    check("concurrent nextval without cache is 1..N", sorted(v1) == list(range(1, n + 1)),
          "min %s max %s" % (min(v1 or [0]), max(v1 or [0])))
    v10 = got["rsq_c10"]
    check("concurrent nextval with CACHE 10 distinct", len(set(v10)) == len(v10) == n,
          "%d of %d" % (len(set(v10)), n))
    ins = got["ins"]
    rows = c.execute("SELECT count(*), count(DISTINCT id) FROM rsq_c").fetchone()
    check("concurrent serial inserts distinct", len(set(ins)) == len(ins) and
          rows == (len(ins), len(ins)), "%r %d" % (rows, len(ins)))
    c.execute("DROP TABLE rsq_c")
    c.execute("DROP SEQUENCE rsq_c1, rsq_c10")
    c.close()


def rollback(dsn):
    c = psycopg.connect(dsn)
    c.execute("DROP SEQUENCE IF EXISTS rsq_r")
    c.commit()
    c.execute("CREATE SEQUENCE rsq_r")
    c.commit()
    a = c.execute("SELECT nextval('rsq_r')").fetchone()[0]
    c.rollback()
    b = c.execute("SELECT nextval('rsq_r')").fetchone()[0]
    c.commit()
    other = connect(dsn)
    d = other.execute("SELECT nextval('rsq_r')").fetchone()[0]
    check("rolled-back value not given again", (a, b, d) == (1, 2, 3), repr((a, b, d)))
    other.execute("DROP SEQUENCE rsq_r")
    other.close()
    c.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    sqlstates(args.dsn)
    catalog(args.dsn)
    concurrent(args.dsn)
    rollback(args.dsn)
    c = connect(args.dsn)
    c.execute("DROP TABLE IF EXISTS rsq_t, rsq_g")
    c.execute("DROP SEQUENCE IF EXISTS rsq_s, rsq_lim, rsq_neg")
    c.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

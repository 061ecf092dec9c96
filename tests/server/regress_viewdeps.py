#!/usr/bin/env python3
"""Views kept by OID and column number, and ALTER … OWNER TO (issue 11,
items 1 and 4 of the DDL leftovers), as PostgreSQL 15 answers:

  deps      DROP COLUMN of a column a view uses 2BP01 with PostgreSQL's
            DETAIL (each view using it, then the views over those) and
            HINT; ALTER COLUMN TYPE of one 0A000 with the DETAIL naming
            the view's rule; DROP COLUMN … CASCADE: the NOTICE "drop
            cascades to N other objects" with its DETAIL, the views gone,
            the others answering; all inside a block, which ROLLBACK
            undoes
  renames   a view over a table whose column and name were renamed still
            answers; pg_views / information_schema.views show the new
            names (Cadenza; PostgreSQL shows its deparsed form); the
            renames survive a ROLLBACK (the old names come back)
  owner     ALTER TABLE / VIEW / MATERIALIZED VIEW / SEQUENCE … OWNER TO
            another role as a superuser: pg_class.relowner, pg_tables,
            pg_views, pg_sequences show it, a table's serial sequence
            follows it; a sequence linked to a table 0A000 with DETAIL;
            ROLLBACK undoes it; the new owner may then ALTER and DROP; a
            role that is not the owner 42501 "must be owner of table …";
            the owner giving it to a role it is no member of 42501 "must
            be member of role …"; an unknown role 42704
  temp      CREATE TEMP VIEW lives in a pg_temp schema; a view reading it
            is temporary with PostgreSQL's NOTICE, in a non-temporary
            schema 42P16, a materialized view over it 0A000; another
            session does not find it; the session's end drops it

Usage: regress_viewdeps.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys
import time

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, error_fields as err  # noqa: E402


def connect(dsn):
    return psycopg.connect(dsn, autocommit=True)


SETUP = [
    "DROP VIEW IF EXISTS vd_v2, vd_v, vd_star, vd_other CASCADE",
    "DROP TABLE IF EXISTS vd_t, vd_t2 CASCADE",
    "DROP MATERIALIZED VIEW IF EXISTS vd_m",
    "DROP SEQUENCE IF EXISTS vd_seq",
    "DROP TABLE IF EXISTS vd_own CASCADE",
    "DROP ROLE IF EXISTS vd_r1",
    "DROP ROLE IF EXISTS vd_r2",
    "CREATE TABLE vd_t (a int PRIMARY KEY, b text, c int, d int)",
    "INSERT INTO vd_t VALUES (1, 'x', 10, 100), (2, 'y', 20, 200)",
    "CREATE VIEW vd_v AS SELECT a, b, c FROM vd_t WHERE c > 5",
    "CREATE VIEW vd_v2 AS SELECT a, c FROM vd_v",
    "CREATE VIEW vd_star AS SELECT * FROM vd_t",
    "CREATE VIEW vd_other AS SELECT a, d FROM vd_t",
]
CLEANUP = [
    "DROP VIEW IF EXISTS vd_v2, vd_v, vd_star, vd_other CASCADE",
    "DROP TABLE IF EXISTS vd_t, vd_t2 CASCADE",
    "DROP MATERIALIZED VIEW IF EXISTS vd_m",
    "DROP SEQUENCE IF EXISTS vd_seq",
    "DROP TABLE IF EXISTS vd_own CASCADE",
    "DROP ROLE IF EXISTS vd_r1",
    "DROP ROLE IF EXISTS vd_r2",
]


def deps(c):
    st = err(c, "ALTER TABLE vd_t DROP COLUMN c")
    check("DROP COLUMN used by views 2BP01", st[0] == "2BP01", st)
    check("2BP01 message", st[1] == "cannot drop column c of table vd_t because other objects "
          "depend on it", st)
    want = ("view vd_v depends on column c of table vd_t\nview vd_v2 depends on view vd_v\n"
            "view vd_star depends on column c of table vd_t")
    check("2BP01 DETAIL: each view using it, then those over them", st[2] == want,
          "%r\n-- want --\n%r" % (st[2], want))
    check("2BP01 HINT", st[3] == "Use DROP ... CASCADE to drop the dependent objects too.", st)
    st = err(c, "ALTER TABLE vd_t ALTER COLUMN c TYPE bigint")
    check("ALTER TYPE of a used column 0A000", st[0] == "0A000" and
          st[1] == "cannot alter type of a column used by a view or rule", st)
    check("0A000 DETAIL names the view's rule",
          st[2] == 'rule _RETURN on view vd_v depends on column "c"', st)
    rows = c.execute("SELECT a, c FROM vd_v2 ORDER BY a").fetchall()
    check("the views answer after the refusals", rows == [(1, 10), (2, 20)], rows)
    # CASCADE in a block, rolled back, then for real
    notices = []
    c.add_notice_handler(lambda d: notices.append((d.message_primary, d.message_detail)))
    c.execute("BEGIN")
    c.execute("ALTER TABLE vd_t DROP COLUMN c CASCADE")
    n = c.execute("SELECT count(*) FROM pg_views WHERE viewname IN ('vd_v', 'vd_v2', 'vd_star')"
                  ).fetchone()[0]
    check("CASCADE drops the views using the column and those over them", n == 0, n)
    rows = c.execute("SELECT * FROM vd_other ORDER BY a").fetchall()
    check("a view not using the column answers", rows == [(1, 100), (2, 200)], rows)
    c.execute("ROLLBACK")
    want = ("drop cascades to 3 other objects",
            "drop cascades to view vd_v\ndrop cascades to view vd_v2\n"
            "drop cascades to view vd_star")
    check("CASCADE's NOTICE and DETAIL", want in notices, repr(notices))
    rows = c.execute("SELECT a, c FROM vd_v2 ORDER BY a").fetchall()
    check("ROLLBACK brings the views back", rows == [(1, 10), (2, 20)], rows)


def renames(c, cz):
    c.execute("BEGIN")
    c.execute("ALTER TABLE vd_t RENAME COLUMN c TO cc")
    c.execute("ALTER TABLE vd_t RENAME TO vd_t2")
    rows = c.execute("SELECT * FROM vd_v2 ORDER BY a").fetchall()
    check("a view of a view over a renamed table and column answers", rows == [(1, 10), (2, 20)],
          rows)
    cols = c.execute("SELECT column_name FROM information_schema.columns WHERE table_name = "
                     "'vd_v' ORDER BY ordinal_position").fetchall()
    check("the view keeps its column names", cols == [("a",), ("b",), ("c",)], cols)
    if cz:
        d = c.execute("SELECT definition FROM pg_views WHERE viewname = 'vd_v'").fetchone()[0]
        want = " SELECT a, b, cc AS c FROM vd_t2 WHERE cc > 5;"
        check("pg_views shows the new names (cadenza)", d == want, "%r want %r" % (d, want))
        d = c.execute("SELECT view_definition FROM information_schema.views WHERE "
                      "table_name = 'vd_v'").fetchone()[0]
        check("information_schema.views shows the new names (cadenza)", d == want, d)
    c.execute("ROLLBACK")
    rows = c.execute("SELECT * FROM vd_v ORDER BY a").fetchall()
    check("after ROLLBACK the old names read again", rows == [(1, 'x', 10), (2, 'y', 20)], rows)
    if cz:
        d = c.execute("SELECT definition FROM pg_views WHERE viewname = 'vd_v'").fetchone()[0]
        check("after ROLLBACK the text is as written (cadenza)",
              d == " SELECT a, b, c FROM vd_t WHERE c > 5;", d)


def owner_of(c, rel):
    r = c.execute("SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = %s",
                  (rel,)).fetchone()
    return r[0] if r else None


def owner(c, dsn):
    me = c.execute("SELECT current_user").fetchone()[0]
    c.execute("CREATE ROLE vd_r1 LOGIN PASSWORD 'vd_pw_1'")
    c.execute("CREATE ROLE vd_r2 LOGIN PASSWORD 'vd_pw_2'")
    c.execute("CREATE TABLE vd_own (id serial PRIMARY KEY, v int)")
    c.execute("CREATE SEQUENCE vd_seq")
    c.execute("CREATE MATERIALIZED VIEW vd_m AS SELECT 1 AS x")
    st = err(c, "ALTER TABLE vd_own OWNER TO vd_nosuch")
    check("unknown role 42704", st[0] == "42704" and st[1] == 'role "vd_nosuch" does not exist',
          st)
    c.execute("BEGIN")
    c.execute("ALTER TABLE vd_own OWNER TO vd_r1")
    check("in the block the table has its new owner", owner_of(c, "vd_own") == "vd_r1",
          owner_of(c, "vd_own"))
    c.execute("ROLLBACK")
    check("ROLLBACK gives it back", owner_of(c, "vd_own") == me, owner_of(c, "vd_own"))
    for sql in ("ALTER TABLE vd_own OWNER TO vd_r1", "ALTER VIEW vd_other OWNER TO vd_r1",
                "ALTER MATERIALIZED VIEW vd_m OWNER TO vd_r2", "ALTER SEQUENCE vd_seq OWNER TO vd_r2"):
        st = err(c, sql)
        check(sql, st[0] == "ok", st)
    got = [owner_of(c, r) for r in ("vd_own", "vd_own_id_seq", "vd_other", "vd_m", "vd_seq")]
    check("pg_class.relowner: table, its serial sequence, view, matview, sequence",
          got == ["vd_r1", "vd_r1", "vd_r1", "vd_r2", "vd_r2"], got)
    r = c.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'vd_own'").fetchone()
    check("pg_tables.tableowner", r == ("vd_r1",), r)
    r = c.execute("SELECT viewowner FROM pg_views WHERE viewname = 'vd_other'").fetchone()
    check("pg_views.viewowner", r == ("vd_r1",), r)
    r = c.execute("SELECT sequenceowner FROM pg_sequences WHERE sequencename = 'vd_seq'").fetchone()
    check("pg_sequences.sequenceowner", r == ("vd_r2",), r)
    st = err(c, "ALTER SEQUENCE vd_own_id_seq OWNER TO vd_r2")
    check("a sequence linked to a table 0A000",
          st[0] == "0A000" and st[1] == 'cannot change owner of sequence "vd_own_id_seq"' and
          st[2] == 'Sequence "vd_own_id_seq" is linked to table "vd_own".', st)
    kw = conninfo_to_dict(dsn)
    kw.update(user="vd_r1", password="vd_pw_1")
    u = connect(make_conninfo(**kw))
    try:
        st = err(u, "ALTER TABLE vd_own ADD COLUMN w int")
        check("the new owner may ALTER its table", st[0] == "ok", st)
        st = err(u, "ALTER SEQUENCE vd_seq OWNER TO vd_r1")
        check("not the owner 42501", st[0] == "42501" and
              st[1] == "must be owner of sequence vd_seq", st)
        st = err(u, "ALTER TABLE vd_own OWNER TO vd_r2")
        check("the owner, no member of the new role 42501",
              st[0] == "42501" and st[1] == 'must be member of role "vd_r2"', st)
        st = err(u, "ALTER TABLE vd_own OWNER TO vd_r1")
        check("naming the owner it has succeeds", st[0] == "ok", st)
        st = err(u, "DROP VIEW vd_other")
        check("the new owner may DROP its view", st[0] == "ok", st)
    finally:
        u.close()
    c.execute(f'ALTER TABLE vd_own OWNER TO "{me}"')
    c.execute(f'ALTER MATERIALIZED VIEW vd_m OWNER TO "{me}"')
    c.execute(f'ALTER SEQUENCE vd_seq OWNER TO "{me}"')


def temp(c, dsn):
    notices = []
    a = connect(dsn)
    a.add_notice_handler(lambda d: notices.append((d.severity_nonlocalized, d.message_primary)))
    b = connect(dsn)
    try:
        a.execute("CREATE TEMP VIEW vd_tmp AS SELECT 1 AS one")
        a.execute("CREATE VIEW vd_tmp2 AS SELECT one FROM vd_tmp")
        check("a view reading a temporary view: NOTICE",
              ("NOTICE", 'view "vd_tmp2" will be a temporary view') in notices, repr(notices))
        st = err(a, "CREATE VIEW public.vd_tmp3 AS SELECT one FROM vd_tmp")
        check("one in a non-temporary schema 42P16", st[0] == "42P16" and
              st[1] == "cannot create temporary relation in non-temporary schema", st)
        st = err(a, "CREATE TEMP VIEW public.vd_tmp4 AS SELECT 1")
        check("TEMP in a non-temporary schema 42P16", st[0] == "42P16", st)
        st = err(a, "CREATE MATERIALIZED VIEW vd_tmpm AS SELECT one FROM vd_tmp")
        check("a materialized view over one 0A000", st[0] == "0A000" and
              st[1] == "materialized views must not use temporary tables or views", st)
        sch = a.execute("SELECT schemaname FROM pg_views WHERE viewname = 'vd_tmp'").fetchone()
        check("it lives in a pg_temp schema", sch is not None and sch[0].startswith("pg_temp"),
              sch)
        st = err(b, "SELECT * FROM vd_tmp")
        check("another session does not find it by name 42P01", st[0] == "42P01", st)
    finally:
        a.close()
    n = None
    for _ in range(50):  # the server ends the session after the client left
        n = b.execute("SELECT count(*) FROM pg_views WHERE viewname IN ('vd_tmp', 'vd_tmp2')"
                      ).fetchone()[0]
        if n == 0:
            break
        time.sleep(0.1)
    check("the session's end drops its temporary views", n == 0, n)
    b.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    c = connect(args.dsn)
    try:
        for s in SETUP:
            c.execute(s)
        deps(c)
        renames(c, args.kind == "cadenza")
        owner(c, args.dsn)
        temp(c, args.dsn)
    finally:
        for s in CLEANUP:
            try:
                c.execute(s)
            except psycopg.Error:
                pass
        c.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Views through the wire (issue 11, item 2), as PostgreSQL 15 answers:

  sqlstates   42P16 CREATE OR REPLACE that drops, renames or retypes a
              column; 42P07 a taken name; 42809 OR REPLACE of a table,
              DROP VIEW of a table, DROP TABLE of a view; 2BP01 DROP TABLE /
              DROP VIEW of what a view reads; 55000 writing a view that is
              not updatable and reading an unpopulated materialized view;
              44000 a row outside a view WITH CHECK OPTION; 42P01 an
              unknown view; 42501 without privileges
  messages    2BP01's text, DETAIL (every dependent, each on what it reads)
              and HINT; 42809's HINT; 55000's DETAIL and HINT
  privileges  a user with SELECT on the view only reads through it (the
              view's owner's privileges read its table), not the table,
              also where a derived table of the view has a correlated
              subquery over another table (decorrelated when the
              enclosing block is planned, under the view's owner);
              without SELECT on the view 42501 "permission denied for view"
  merged      EXPLAIN of a query over a simple view is the plan of the same
              query written over its table (the view's table joins the
              outer block's join search; no separate subquery)
  psql        \\dv, \\d view, \\d+ view, \\dm, \\d matview print as
              PostgreSQL 15's psql shows them (the definition compared
              without its line breaks: PostgreSQL prints its own deparsed
              form, Cadenza the text as written — written here in
              PostgreSQL's form)

Usage: regress_views.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, error_fields as err  # noqa: E402


def connect(dsn):
    return psycopg.connect(dsn, autocommit=True)


SETUP = [
    "DROP VIEW IF EXISTS rv_v2, rv_v, rv_g, rv_c CASCADE",
    "DROP MATERIALIZED VIEW IF EXISTS rv_m",
    "DROP TABLE IF EXISTS rv_t, rv_t2 CASCADE",
    "CREATE TABLE rv_t (a int PRIMARY KEY, b text)",
    "CREATE TABLE rv_t2 (a int, c int)",
    "INSERT INTO rv_t VALUES (1, 'x'), (2, 'y'), (3, 'z')",
    "INSERT INTO rv_t2 VALUES (2, 20), (3, 30), (3, 31)",
    "CREATE VIEW rv_v AS SELECT rv_t.a, rv_t.b FROM rv_t WHERE rv_t.a > 1",
    "CREATE VIEW rv_v2 AS SELECT rv_v.a FROM rv_v",
    "CREATE VIEW rv_g AS SELECT a, count(*) AS n FROM rv_t2 GROUP BY a",
    "CREATE VIEW rv_c AS SELECT a, b FROM rv_t WHERE a < 10 WITH CHECK OPTION",
    "CREATE MATERIALIZED VIEW rv_m AS SELECT rv_t.a FROM rv_t WITH NO DATA",
]

CLEANUP = [
    "DROP VIEW IF EXISTS rv_v2, rv_v, rv_g, rv_c CASCADE",
    "DROP MATERIALIZED VIEW IF EXISTS rv_m",
    "DROP TABLE IF EXISTS rv_t, rv_t2 CASCADE",
]


def sqlstates(c):
    cases = [
        ("replace drops a column", "CREATE OR REPLACE VIEW rv_v AS SELECT a FROM rv_t", "42P16"),
        ("replace renames a column",
         "CREATE OR REPLACE VIEW rv_v AS SELECT a, b AS bb FROM rv_t", "42P16"),
        ("replace retypes a column",
         "CREATE OR REPLACE VIEW rv_v AS SELECT a::bigint AS a, b FROM rv_t", "42P16"),
        ("replace appends a column",
         "CREATE OR REPLACE VIEW rv_v AS SELECT rv_t.a, rv_t.b FROM rv_t WHERE rv_t.a > 1", "ok"),
        ("name taken", "CREATE VIEW rv_t AS SELECT 1", "42P07"),
        ("replace a table", "CREATE OR REPLACE VIEW rv_t AS SELECT 1", "42809"),
        ("drop view of a table", "DROP VIEW rv_t", "42809"),
        ("drop table of a view", "DROP TABLE rv_v", "42809"),
        ("drop a table views read", "DROP TABLE rv_t", "2BP01"),
        ("drop a view views read", "DROP VIEW rv_v", "2BP01"),
        ("drop an unknown view", "DROP VIEW rv_none", "42P01"),
        ("insert into a grouped view", "INSERT INTO rv_g VALUES (1, 1)", "55000"),
        ("update a grouped view", "UPDATE rv_g SET n = 1", "55000"),
        ("delete from a grouped view", "DELETE FROM rv_g", "55000"),
        ("read an unpopulated materialized view", "SELECT * FROM rv_m", "55000"),
        ("insert outside the check option", "INSERT INTO rv_c VALUES (11, 'q')", "44000"),
        ("update outside the check option", "UPDATE rv_c SET a = 12 WHERE a = 1", "44000"),
        ("insert into a materialized view", "INSERT INTO rv_m VALUES (1)", "42809"),
        ("select from an unknown view", "SELECT * FROM rv_none", "42P01"),
    ]
    for name, sql, want in cases:
        got = err(c, sql)[0]
        check("sqlstate %s" % name, got == want, "%s: got %s, want %s" % (sql, got, want))
    check("session answers after the errors", checks.answers(c))


def messages(c):
    st, msg, detail, hint = err(c, "DROP TABLE rv_t")
    check("2BP01 message", msg == "cannot drop table rv_t because other objects depend on it", msg)
    lines = sorted((detail or "").split("\n"))
    want = sorted(["view rv_v depends on table rv_t", "view rv_v2 depends on view rv_v",
                   "view rv_c depends on table rv_t",
                   "materialized view rv_m depends on table rv_t"])
    check("2BP01 detail lists every dependent", lines == want, repr(detail))
    check("2BP01 hint", hint == "Use DROP ... CASCADE to drop the dependent objects too.",
          repr(hint))
    st, msg, detail, hint = err(c, "DROP VIEW rv_v")
    check("2BP01 on a view", msg == "cannot drop view rv_v because other objects depend on it"
          and detail == "view rv_v2 depends on view rv_v", "%r %r" % (msg, detail))
    st, msg, detail, hint = err(c, "DROP VIEW rv_t")
    check("42809 text and hint", msg == '"rv_t" is not a view'
          and hint == "Use DROP TABLE to remove a table.", "%r %r" % (msg, hint))
    st, msg, detail, hint = err(c, "DROP TABLE rv_v")
    check("42809 on DROP TABLE", msg == '"rv_v" is not a table'
          and hint == "Use DROP VIEW to remove a view.", "%r %r" % (msg, hint))
    st, msg, detail, hint = err(c, "INSERT INTO rv_g VALUES (1, 1)")
    check("55000 text, detail and hint", msg == 'cannot insert into view "rv_g"'
          and detail == "Views containing GROUP BY are not automatically updatable."
          and hint == "To enable inserting into the view, provide an INSTEAD OF INSERT trigger "
                      "or an unconditional ON INSERT DO INSTEAD rule.",
          "%r %r %r" % (msg, detail, hint))
    st, msg, detail, hint = err(c, "SELECT * FROM rv_m")
    check("55000 unpopulated text", msg == 'materialized view "rv_m" has not been populated', msg)
    st, msg, detail, hint = err(c, "INSERT INTO rv_c VALUES (11, 'q')")
    check("44000 text", msg == 'new row violates check option for view "rv_c"', msg)
    st, msg, detail, hint = err(c, "CREATE OR REPLACE VIEW rv_v AS SELECT a, b AS bb FROM rv_t")
    check("42P16 rename text", msg == 'cannot change name of view column "b" to "bb"', msg)
    # CASCADE in a transaction that rolls back: the NOTICE, and nothing gone
    notices = []
    c.add_notice_handler(lambda d: notices.append(d.message_primary))
    c.execute("BEGIN")
    c.execute("DROP VIEW rv_v CASCADE")
    c.execute("ROLLBACK")
    check("cascade notice", notices == ["drop cascades to view rv_v2"], repr(notices))
    check("rolled back drop keeps the views",
          c.execute("SELECT count(*) FROM rv_v2").fetchone()[0] == 2)
    # several dependents: one NOTICE whose DETAIL lists them (a field, as
    # PostgreSQL sends it, not part of the message)
    notices.clear()
    c.add_notice_handler(lambda d: notices.append(d.message_detail))
    c.execute("BEGIN")
    c.execute("DROP TABLE rv_t CASCADE")
    c.execute("ROLLBACK")
    check("cascade notice for several objects",
          notices[:1] == ["drop cascades to 4 other objects"]
          and sorted((notices[1] or "").split("\n")) ==
          sorted(["drop cascades to view rv_v", "drop cascades to view rv_v2",
                  "drop cascades to view rv_c", "drop cascades to materialized view rv_m"]),
          repr(notices))


def privileges(c, dsn):
    c.execute("DROP ROLE IF EXISTS rv_user")
    c.execute("CREATE ROLE rv_user LOGIN PASSWORD 'rv_pw_1'")
    c.execute("CREATE VIEW rv_vd AS SELECT x FROM (SELECT a AS x FROM rv_t WHERE EXISTS "
              "(SELECT 1 FROM rv_t2 WHERE rv_t2.a = rv_t.a)) d")
    try:
        c.execute("GRANT SELECT ON rv_v TO rv_user")
        c.execute("GRANT SELECT ON rv_vd TO rv_user")
        kw = conninfo_to_dict(dsn)
        kw.update(user="rv_user", password="rv_pw_1")
        u = connect(make_conninfo(**kw))
        try:
            rows = u.execute("SELECT a FROM rv_v ORDER BY a").fetchall()
            check("select through the view with SELECT on it only", rows == [(2,), (3,)], rows)
            try:
                rows = u.execute("SELECT x FROM rv_vd ORDER BY x").fetchall()
            except psycopg.Error as e:
                rows = (e.sqlstate, str(e))
            check("a derived table's correlated subquery reads under the view's owner",
                  rows == [(2,), (3,)], rows)
            st = err(u, "SELECT * FROM rv_t2")
            check("the subquery's table itself is refused", st[0] == "42501", st)
            st = err(u, "SELECT * FROM rv_t")
            check("the table itself is refused", st[0] == "42501", st)
            st = err(u, "SELECT * FROM rv_v2")
            check("a view without the grant is refused",
                  st[0] == "42501" and st[1] == "permission denied for view rv_v2", st)
            st = err(u, "INSERT INTO rv_v VALUES (9, 'n')")
            check("writing needs INSERT on the view", st[0] == "42501", st)
            c.execute("GRANT INSERT ON rv_v TO rv_user")
            st = err(u, "INSERT INTO rv_v VALUES (9, 'n')")
            check("INSERT on the view writes the table", st[0] == "ok", st)
            c.execute("DELETE FROM rv_t WHERE a = 9")
        finally:
            u.close()
    finally:
        c.execute("REVOKE ALL ON rv_v FROM rv_user")
        c.execute("DROP VIEW rv_vd")
        c.execute("DROP ROLE IF EXISTS rv_user")


def plan(c, sql):
    return [r[0] for r in c.execute("EXPLAIN " + sql).fetchall()]


def merged(c, kind):
    # the same query over the view and over its table: the same plan
    pairs = [
        ("SELECT v.a, t2.c FROM rv_v v JOIN rv_t2 t2 ON v.a = t2.a",
         "SELECT rv_t.a, t2.c FROM rv_t JOIN rv_t2 t2 ON rv_t.a = t2.a WHERE rv_t.a > 1"),
        ("SELECT t2.c FROM rv_t2 t2, rv_v2 v WHERE v.a = t2.a AND t2.c > 20",
         "SELECT t2.c FROM rv_t2 t2, rv_t WHERE rv_t.a = t2.a AND t2.c > 20 AND rv_t.a > 1"),
    ]
    for i, (over_view, over_table) in enumerate(pairs):
        pv, pt = plan(c, over_view), plan(c, over_table)
        if kind == "postgres":
            # PostgreSQL names the scans by alias; compare the node shapes
            norm = (lambda p: [re.sub(r"\(cost.*", "", re.sub(r" on \w+( \w+)?", "", ln)).strip()
                               for ln in p if "Cond" not in ln and "Filter" not in ln])
            pv, pt = norm(pv), norm(pt)
        else:
            pv = [re.sub(r"\(estimated.*", "", ln) for ln in pv]
            pt = [re.sub(r"\(estimated.*", "", ln) for ln in pt]
        check("merged view %d: plan as over its table" % (i + 1), pv == pt,
              "\n%s\n-- vs --\n%s" % ("\n".join(pv), "\n".join(pt)))
        rv = sorted(c.execute(over_view).fetchall())
        rt = sorted(c.execute(over_table).fetchall())
        check("merged view %d: same rows" % (i + 1), rv == rt, "%r vs %r" % (rv, rt))


PSQL_EXPECT = {
    "\\dv": """      List of relations
 Schema | Name | Type | Owner 
--------+------+------+-------
 public | rv_c  | view | {o}
 public | rv_g  | view | {o}
 public | rv_v  | view | {o}
 public | rv_v2 | view | {o}
(4 rows)
""",
    "\\d rv_v": """                View "public.rv_v"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 a      | integer |           |          | 
 b      | text    |           |          | 
""",
    "\\d+ rv_v": """                             View "public.rv_v"
 Column |  Type   | Collation | Nullable | Default | Storage  | Description 
--------+---------+-----------+----------+---------+----------+-------------
 a      | integer |           |          |         | plain    | 
 b      | text    |           |          |         | extended | 
View definition:
 SELECT rv_t.a,
    rv_t.b
   FROM rv_t
  WHERE rv_t.a > 1;
""",
    "\\dm": """             List of relations
 Schema | Name |       Type        | Owner 
--------+------+-------------------+-------
 public | rv_m | materialized view | {o}
(1 row)
""",
    "\\d rv_m": """          Materialized view "public.rv_m"
 Column |  Type   | Collation | Nullable | Default 
--------+---------+-----------+----------+---------
 a      | integer |           |          | 
""",
}


def norm_psql(text, cmd):
    """psql's output with the table widths and, for a view's definition,
    the line breaks taken out (PostgreSQL deparses; see the docstring)."""
    lines = [ln.rstrip() for ln in text.strip("\n").split("\n")]
    out, in_def = [], False
    for ln in lines:
        if in_def:
            out[-1] += " " + ln.strip()
            continue
        if ln == "View definition:":
            out.append(ln)
            out.append("")
            in_def = True
            continue
        ln = re.sub(r"-{2,}", "-", ln)
        ln = re.sub(r" {2,}", " ", ln)
        out.append(ln.strip())
    return [ln.strip() for ln in out]


def psql_output(c, dsn):
    psql = shutil.which("psql")
    if not psql:
        check("psql found", False, "no psql on PATH")
        return
    owner = c.execute("SELECT current_user").fetchone()[0]
    kw = conninfo_to_dict(dsn)
    env = dict(os.environ, PGHOST=kw.get("host", ""), PGPORT=str(kw.get("port", "")),
               PGUSER=kw.get("user", ""), PGPASSWORD=kw.get("password", ""),
               PGDATABASE=kw.get("dbname", ""))
    for cmd, want in PSQL_EXPECT.items():
        r = subprocess.run([psql, "-X", "-c", cmd], env=env, capture_output=True, text=True,
                           timeout=60)
        got = norm_psql(r.stdout, cmd)
        exp = norm_psql(want.replace("{o}", owner), cmd)
        # only the views of this script (\dv lists every view of the database)
        if cmd in ("\\dv", "\\dm"):
            keep = lambda ls: [ln for ln in ls if "|" not in ln or " rv_" in ln or "Schema" in ln]
            got = [ln for ln in keep(got) if not ln.startswith("(")]
            exp = [ln for ln in keep(exp) if not ln.startswith("(")]
        check("psql %s as PostgreSQL 15's" % cmd, r.returncode == 0 and got == exp,
              "rc %d stderr %s\n%s\n-- want --\n%s" % (r.returncode, r.stderr.strip(),
                                                      "\n".join(got), "\n".join(exp)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    c = connect(args.dsn)
    try:
        for s in SETUP:
            c.execute(s)
        sqlstates(c)
        messages(c)
        privileges(c, args.dsn)
        merged(c, args.kind)
        psql_output(c, args.dsn)
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

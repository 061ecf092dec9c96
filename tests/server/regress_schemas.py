#!/usr/bin/env python3
"""regress_schemas: issue 11 item 8 — schemas and schema privileges as
PostgreSQL 15 answers them through the wire, under a role that is not a
superuser: USAGE needed to read a table of a schema (42501 "permission
denied for schema x"), CREATE to make a table, view or sequence in it,
GRANT … WITH GRANT OPTION letting the grantee grant on, REVOKE taking it
back, has_schema_privilege, pg_namespace.nspacl in aclitem text, the owner
of CREATE SCHEMA AUTHORIZATION, CREATE SCHEMA without CREATEDB (42501),
DROP SCHEMA's 2BP01 with DETAIL and HINT and CASCADE's NOTICE, RENAME.

Usage: regress_schemas.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, error_fields as err  # noqa: E402


def connect(dsn):
    return psycopg.connect(dsn, autocommit=True)


CLEANUP = [
    "DROP SCHEMA IF EXISTS rs_a CASCADE",
    "DROP SCHEMA IF EXISTS rs_b CASCADE",
    "DROP SCHEMA IF EXISTS rs_c CASCADE",
    "DROP SCHEMA IF EXISTS rs_u1 CASCADE",
    "DROP TABLE IF EXISTS rs_pub",
    "DROP TABLE IF EXISTS rs_ser",
    "DROP SEQUENCE IF EXISTS rs_seq",
    "DROP ROLE IF EXISTS rs_u1",
    "DROP ROLE IF EXISTS rs_u2",
]


def as_user(dsn, user, pw):
    kw = conninfo_to_dict(dsn)
    kw.update(user=user, password=pw)
    return connect(make_conninfo(**kw))


def one(c, sql):
    return c.execute(sql).fetchone()


def privileges(c, dsn):
    me = one(c, "SELECT current_user")[0]
    c.execute("CREATE ROLE rs_u1 LOGIN PASSWORD 'rs_pw_1'")
    c.execute("CREATE ROLE rs_u2 LOGIN PASSWORD 'rs_pw_2'")
    c.execute("CREATE SCHEMA rs_a")
    c.execute("CREATE TABLE rs_a.t (id int PRIMARY KEY, v text)")
    c.execute("INSERT INTO rs_a.t VALUES (1, 'one')")
    c.execute("CREATE VIEW rs_a.v AS SELECT id FROM rs_a.t")
    c.execute("GRANT SELECT ON rs_a.t, rs_a.v TO rs_u1, rs_u2")
    r = one(c, "SELECT nspacl FROM pg_namespace WHERE nspname = 'rs_a'")
    check("a new schema's nspacl is NULL (the owner alone)", r == (None,), r)
    u1 = as_user(dsn, "rs_u1", "rs_pw_1")
    u2 = as_user(dsn, "rs_u2", "rs_pw_2")
    try:
        for sql in ("SELECT * FROM rs_a.t", "SELECT * FROM rs_a.v", "INSERT INTO rs_a.t VALUES (2, 'x')"):
            st = err(u1, sql)
            check(f"without USAGE: {sql}", st[:2] == ("42501", "permission denied for schema rs_a"), st)
        st = err(u1, "CREATE TABLE rs_a.n (a int)")
        check("without CREATE: CREATE TABLE", st[:2] == ("42501", "permission denied for schema rs_a"), st)
        r = one(u1, "SELECT has_schema_privilege('rs_a', 'USAGE'), has_schema_privilege('rs_a', 'CREATE')")
        check("has_schema_privilege before the GRANT", r == (False, False), r)
        c.execute("GRANT USAGE ON SCHEMA rs_a TO rs_u1 WITH GRANT OPTION")
        r = one(c, "SELECT nspacl::text FROM pg_namespace WHERE nspname = 'rs_a'")
        check("nspacl after GRANT … WITH GRANT OPTION",
              r == (f"{{{me}=UC/{me},rs_u1=U*/{me}}}",), r)
        r = one(u1, "SELECT * FROM rs_a.t")
        check("with USAGE the granted table reads", r == (1, "one"), r)
        r = one(u1, "SELECT * FROM rs_a.v")
        check("and the view", r == (1,), r)
        st = err(u1, "CREATE VIEW rs_a.w AS SELECT 1 AS x")
        check("USAGE is not CREATE: CREATE VIEW",
              st[:2] == ("42501", "permission denied for schema rs_a"), st)
        st = err(u1, "CREATE SEQUENCE rs_a.s")
        check("nor CREATE SEQUENCE", st[:2] == ("42501", "permission denied for schema rs_a"), st)
        st = err(u2, "SELECT * FROM rs_a.t")
        check("rs_u2 still without USAGE", st[:2] == ("42501", "permission denied for schema rs_a"), st)
        st = err(u2, "GRANT USAGE ON SCHEMA rs_a TO rs_u2")
        check("GRANT without the grant option 42501",
              st[:2] == ("42501", "permission denied for schema rs_a"), st)
        st = err(u1, "GRANT USAGE ON SCHEMA rs_a TO rs_u2")
        check("the grant option lets rs_u1 grant USAGE", st[0] == "ok", st)
        r = one(u2, "SELECT count(*) FROM rs_a.t")
        check("rs_u2 reads after rs_u1's GRANT", r == (1,), r)
        warned = []
        u1.add_notice_handler(lambda d: warned.append((d.severity_nonlocalized, d.message_primary)))
        st = err(u1, "GRANT CREATE ON SCHEMA rs_a TO rs_u2")
        r = one(c, "SELECT has_schema_privilege('rs_u2', 'rs_a', 'CREATE')")
        check("no grant option for CREATE: a WARNING, nothing granted",
              st[0] == "ok" and warned == [("WARNING", 'no privileges were granted for "rs_a"')] and
              r == (False,), (st, warned, r))
        c.execute("GRANT CREATE ON SCHEMA rs_a TO rs_u1")
        st = err(u1, "CREATE TABLE rs_a.n (a int)")
        check("with CREATE: CREATE TABLE", st[0] == "ok", st)
        r = one(c, "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE relname = 'n'")
        check("the table belongs to its maker", r == ("rs_u1",), r)
        r = one(u1, "SELECT has_schema_privilege('rs_a', 'CREATE'), "
                    "has_schema_privilege('rs_u2', 'rs_a', 'USAGE'), "
                    "has_schema_privilege('rs_u1', 'rs_a', 'USAGE WITH GRANT OPTION'), "
                    "has_schema_privilege('rs_u2', 'rs_a', 'USAGE WITH GRANT OPTION, CREATE')")
        check("has_schema_privilege forms", r == (True, True, True, False), r)
        c.execute("REVOKE GRANT OPTION FOR USAGE ON SCHEMA rs_a FROM rs_u1 CASCADE")
        c.execute("REVOKE USAGE ON SCHEMA rs_a FROM rs_u2")
        st = err(u2, "SELECT * FROM rs_a.t")
        check("REVOKE USAGE: 42501 again", st[:2] == ("42501", "permission denied for schema rs_a"), st)
        r = one(u1, "SELECT has_schema_privilege('rs_a', 'USAGE'), "
                    "has_schema_privilege('rs_a', 'USAGE WITH GRANT OPTION')")
        check("REVOKE GRANT OPTION FOR keeps the privilege", r == (True, False), r)
        st = err(u1, "CREATE SCHEMA rs_c")
        check("CREATE SCHEMA without CREATE on the database 42501",
              st[0] == "42501" and st[1].startswith("permission denied for database "), st)
        st = err(u1, "DROP SCHEMA rs_a")
        check("DROP SCHEMA by a non-owner 42501",
              st[:2] == ("42501", "must be owner of schema rs_a"), st)
        st = err(u1, "ALTER SCHEMA rs_a RENAME TO rs_z")
        check("RENAME by a non-owner 42501", st[:2] == ("42501", "must be owner of schema rs_a"), st)
        st = err(u1, "CREATE TABLE rs_pub (a int)")
        check("public: no CREATE for PUBLIC in PostgreSQL 15",
              st[:2] == ("42501", "permission denied for schema public"), st)
        r = one(u1, "SELECT has_schema_privilege('public', 'USAGE'), has_schema_privilege('public', 'CREATE')")
        check("public: USAGE for everyone", r == (True, False), r)
    finally:
        u1.close()
        u2.close()
    c.execute("CREATE SCHEMA AUTHORIZATION rs_u1")
    r = one(c, "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'rs_u1'")
    check("CREATE SCHEMA AUTHORIZATION r: schema r owned by r", r == ("rs_u1",), r)
    c.execute("CREATE SCHEMA IF NOT EXISTS rs_b AUTHORIZATION rs_u2")
    r = one(c, "SELECT pg_get_userbyid(nspowner) FROM pg_namespace WHERE nspname = 'rs_b'")
    check("CREATE SCHEMA … AUTHORIZATION", r == ("rs_u2",), r)
    u2 = as_user(dsn, "rs_u2", "rs_pw_2")
    try:
        st = err(u2, "CREATE TABLE rs_b.mine (a int)")
        check("the owner creates in its schema", st[0] == "ok", st)
    finally:
        u2.close()


def sequences(c, dsn):
    """GRANT … ON SEQUENCE and the sequence functions' checks."""
    me = one(c, "SELECT current_user")[0]
    c.execute("CREATE SEQUENCE rs_seq")
    c.execute("CREATE TABLE rs_ser (id serial PRIMARY KEY, v int)")
    c.execute("GRANT INSERT, SELECT ON rs_ser TO rs_u1")
    u1 = as_user(dsn, "rs_u1", "rs_pw_1")
    try:
        for sql in ("SELECT nextval('rs_seq')", "SELECT setval('rs_seq', 5)",
                    "INSERT INTO rs_ser (v) VALUES (1)"):
            st = err(u1, sql)
            check(f"no sequence privilege: {sql}",
                  st[0] == "42501" and st[1].startswith("permission denied for sequence "), st)
        c.execute("GRANT USAGE ON SEQUENCE rs_seq, rs_ser_id_seq TO rs_u1")
        r = one(c, "SELECT relacl::text FROM pg_class WHERE relname = 'rs_seq'")
        check("relacl of a sequence (rwU)", r == (f"{{{me}=rwU/{me},rs_u1=U/{me}}}",), r)
        r = one(u1, "SELECT nextval('rs_seq'), currval('rs_seq')")
        check("USAGE: nextval and currval", r == (1, 1), r)
        st = err(u1, "INSERT INTO rs_ser (v) VALUES (1)")
        check("USAGE on the serial's sequence: INSERT", st[0] == "ok", st)
        st = err(u1, "SELECT setval('rs_seq', 5)")
        check("setval needs UPDATE", st[:2] == ("42501", "permission denied for sequence rs_seq"), st)
        c.execute("GRANT ALL ON SEQUENCE rs_seq TO rs_u1 WITH GRANT OPTION")
        r = one(c, "SELECT relacl::text FROM pg_class WHERE relname = 'rs_seq'")
        check("GRANT ALL … WITH GRANT OPTION", r == (f"{{{me}=rwU/{me},rs_u1=r*w*U*/{me}}}",), r)
        r = one(u1, "SELECT setval('rs_seq', 5)")
        check("UPDATE: setval", r == (5,), r)
        c.execute("REVOKE ALL ON SEQUENCE rs_seq FROM rs_u1")
        st = err(u1, "SELECT nextval('rs_seq')")
        check("REVOKE ALL: 42501 again", st[:2] == ("42501", "permission denied for sequence rs_seq"), st)
        st = err(c, "GRANT INSERT ON SEQUENCE rs_seq TO rs_u1")
        check("GRANT INSERT ON SEQUENCE 0LP01",
              st[:2] == ("0LP01", "invalid privilege type INSERT for sequence"), st)
    finally:
        u1.close()


def ddl(c):
    st = err(c, "CREATE SCHEMA rs_a")
    check("duplicate 42P06", st[:2] == ("42P06", 'schema "rs_a" already exists'), st)
    st = err(c, "CREATE SCHEMA pg_mine")
    check("pg_ prefix 42939", st[:3] == ("42939", 'unacceptable schema name "pg_mine"',
                                         'The prefix "pg_" is reserved for system schemas.'), st)
    st = err(c, "DROP SCHEMA rs_nosuch")
    check("unknown 3F000", st[:2] == ("3F000", 'schema "rs_nosuch" does not exist'), st)
    st = err(c, "DROP SCHEMA rs_a")
    check("DROP SCHEMA with objects 2BP01, DETAIL and HINT",
          st == ("2BP01", "cannot drop schema rs_a because other objects depend on it",
                 "table rs_a.t depends on schema rs_a\nview rs_a.v depends on schema rs_a\n"
                 "table rs_a.n depends on schema rs_a",
                 "Use DROP ... CASCADE to drop the dependent objects too."), st)
    st = err(c, "GRANT SELECT ON SCHEMA rs_a TO rs_u1")
    check("GRANT SELECT ON SCHEMA 0LP01",
          st[:2] == ("0LP01", "invalid privilege type SELECT for schema"), st)
    c.execute("ALTER SCHEMA rs_a RENAME TO rs_c")
    r = one(c, "SELECT count(*) FROM rs_c.t")
    check("RENAME: the objects follow", r == (1,), r)
    notices = []
    c.add_notice_handler(lambda d: notices.append((d.message_primary, d.message_detail)))
    c.execute("DROP SCHEMA rs_c CASCADE")
    c.remove_notice_handler(c.notice_handlers[-1]) if hasattr(c, "notice_handlers") else None
    check("CASCADE's NOTICE lists what it drops",
          notices == [("drop cascades to 3 other objects",
                       "drop cascades to table rs_c.t\ndrop cascades to view rs_c.v\n"
                       "drop cascades to table rs_c.n")], notices)
    r = one(c, "SELECT count(*) FROM pg_namespace WHERE nspname = 'rs_c'")
    check("the schema is gone", r == (0,), r)
    st = err(c, "SELECT * FROM rs_c.t")
    check("and its table", st[0] == "42P01", st)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    c = connect(args.dsn)
    try:
        for s in CLEANUP:
            c.execute(s)
        privileges(c, args.dsn)
        sequences(c, args.dsn)
        ddl(c)
    finally:
        c2 = connect(args.dsn)
        for s in CLEANUP:
            try:
                c2.execute(s)
            except psycopg.Error:
                pass
        c2.close()
        c.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

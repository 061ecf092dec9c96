#!/usr/bin/env python3
"""Schemas and their privileges survive a restart and a crash (issue 11,
item 8).

A schema owned by another role, a table in it, USAGE granted WITH GRANT
OPTION, CREATE on public, a table grant, a renamed schema and a dropped one
are committed; after a clean restart pg_namespace (names, owners, nspacl)
and relacl are as before. Then one session commits a GRANT and another
leaves a CREATE SCHEMA, a GRANT and a REVOKE in an open transaction; the
server is killed with SIGKILL: after the restart the committed GRANT is
there and the open transaction's changes are not. Runs against PostgreSQL
15 too (--kind postgres), the reference.

Usage: isolated_schemas.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SETUP = [
    "CREATE ROLE is_r",
    "CREATE SCHEMA is_a AUTHORIZATION is_r",
    "CREATE TABLE is_a.t (id int PRIMARY KEY, v text)",
    "INSERT INTO is_a.t VALUES (1, 'one')",
    "GRANT USAGE ON SCHEMA is_a TO PUBLIC",
    "GRANT ALL ON SCHEMA is_a TO is_r WITH GRANT OPTION",
    "GRANT CREATE ON SCHEMA public TO is_r",
    "GRANT SELECT ON is_a.t TO is_r WITH GRANT OPTION",
    "CREATE SCHEMA is_old",
    "ALTER SCHEMA is_old RENAME TO is_new",
    "CREATE SCHEMA is_gone",
    "DROP SCHEMA is_gone",
]

STATE = ("SELECT nspname, pg_get_userbyid(nspowner), nspacl::text FROM pg_namespace "
         "WHERE nspname LIKE 'is\\_%' OR nspname = 'public' ORDER BY 1")
RELACL = "SELECT relname, relacl::text FROM pg_class WHERE relname = 't' AND relacl IS NOT NULL"


def snapshot(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        return c.execute(STATE).fetchall(), c.execute(RELACL).fetchall()


def main():
    args = checks.isolated_args()
    srv = checks.isolated_server(args, "schemas", both=True)
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for s in SETUP:
                c.execute(s)
        before = snapshot(srv.dsn())
        names = [r[0] for r in before[0]]
        check("set up: the schemas", names == ["is_a", "is_new", "public"], names)
        srv.stop()
        srv.start()
        after = snapshot(srv.dsn())
        check("restart: pg_namespace (names, owners, nspacl) as before", before[0] == after[0],
              "%r vs %r" % (before[0], after[0]))
        check("restart: relacl as before", before[1] == after[1], "%r vs %r" % (before[1], after[1]))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("GRANT USAGE ON SCHEMA is_new TO is_r")
        committed = snapshot(srv.dsn())
        open_c = psycopg.connect(srv.dsn())
        open_c.execute("CREATE SCHEMA is_uncommitted")
        open_c.execute("GRANT CREATE ON SCHEMA is_new TO PUBLIC")
        open_c.execute("REVOKE USAGE ON SCHEMA is_a FROM PUBLIC")
        srv.kill9()
        try:
            open_c.close()
        except psycopg.Error:
            pass
        srv.start()
        after = snapshot(srv.dsn())
        check("crash: the committed GRANT is kept, the open transaction's changes gone",
              committed == after, "%r vs %r" % (committed, after))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            r = c.execute("SELECT has_schema_privilege('is_r', 'is_new', 'USAGE'), "
                          "has_schema_privilege('is_r', 'is_new', 'CREATE'), "
                          "has_schema_privilege('is_r', 'is_a', 'CREATE WITH GRANT OPTION')").fetchone()
            check("crash: has_schema_privilege", r == (True, False, True), r)
            r = c.execute("SELECT * FROM is_a.t").fetchall()
            check("crash: the schema's table answers", r == [(1, "one")], r)
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

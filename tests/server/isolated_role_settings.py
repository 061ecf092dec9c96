#!/usr/bin/env python3
"""isolated_role_settings — ALTER ROLE / DATABASE … SET (issue 11 item 1)
applied when a session starts, in PostgreSQL's precedence: ALTER ROLE ALL
below ALTER DATABASE below ALTER ROLE below ALTER ROLE … IN DATABASE, the
startup packet's options over them all, each RESET uncovering the next;
PostgreSQL's SQLSTATE and words for each error and refusal (a role
without CREATEROLE altering another role, a superuser, every role, the
database); the settings kept across a clean restart and a kill -9 (a
committed ALTER survives, one of a transaction open at the kill does not).
The script runs on both.

Usage: isolated_role_settings.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import sys

import psycopg
from psycopg.conninfo import make_conninfo

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, sqlstate_of  # noqa: E402

DB = "cztest"


def as_role(srv, role, options=None):
    kw = {"user": role, "password": "rs_pw"}
    if options:
        kw["options"] = options
    return make_conninfo(srv.dsn(), **kw)


def shown(dsn, name):
    with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as c:
        return c.execute("SHOW %s" % name).fetchone()[0]


ERRORS = [
    ("ALTER ROLE rs_nosuch SET search_path = x", "42704", 'role "rs_nosuch" does not exist'),
    ("ALTER ROLE rs_u IN DATABASE rs_nodb SET search_path = x", "3D000",
     'database "rs_nodb" does not exist'),
    ("ALTER DATABASE rs_nodb SET search_path = x", "3D000", 'database "rs_nodb" does not exist'),
    ("ALTER ROLE rs_u SET rs_nosuch = 1", "42704", 'unrecognized configuration parameter "rs_nosuch"'),
    ("ALTER ROLE rs_u RESET rs_nosuch", "42704", 'unrecognized configuration parameter "rs_nosuch"'),
    ("ALTER ROLE rs_u SET statement_timeout = 'soon'", "22023",
     'invalid value for parameter "statement_timeout": "soon"'),
    ("ALTER ROLE rs_u SET TimeZone = 'Mars/Olympus'", "22023",
     'invalid value for parameter "TimeZone": "Mars/Olympus"'),
    ("ALTER ROLE rs_u SET server_version = '1'", "55P02", 'parameter "server_version" cannot be changed'),
]

# what rs_u (no CREATEROLE) may not do, and may
REFUSED = [
    ("ALTER ROLE rs_v SET statement_timeout = '7s'", "42501", "permission denied"),
    ("ALTER ROLE %s SET statement_timeout = '7s'", "42501", "must be superuser to alter superusers"),
    ("ALTER ROLE ALL SET statement_timeout = '7s'", "42501",
     "must be superuser to alter settings globally"),
    ("ALTER DATABASE cztest SET statement_timeout = '7s'", "42501", "must be owner of database cztest"),
    ("ALTER ROLE rs_u SET search_path = rs_own", "result", ""),
    ("ALTER ROLE CURRENT_USER SET search_path = rs_own2", "result", ""),
]


def main():
    args = checks.isolated_args()
    srv = checks.isolated_server(args, "role_settings", both=True)
    with checks.running(srv):
        u, v = as_role(srv, "rs_u"), as_role(srv, "rs_v")
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as c:
            me = c.execute("SELECT current_user").fetchone()[0]
            c.execute("CREATE ROLE rs_u LOGIN PASSWORD 'rs_pw'")
            c.execute("CREATE ROLE rs_v LOGIN PASSWORD 'rs_pw'")
            c.execute("ALTER ROLE ALL SET statement_timeout = '11s'")
            c.execute("ALTER DATABASE %s SET statement_timeout = '12s'" % DB)
            c.execute("ALTER ROLE rs_u SET statement_timeout = '13s'")
            c.execute("ALTER ROLE rs_u IN DATABASE %s SET statement_timeout = '14s'" % DB)
            c.execute("ALTER ROLE rs_u SET TimeZone = 'Asia/Kolkata'")
            c.execute("ALTER ROLE rs_u SET search_path = rs_a, \"RS b\"")
            check("the altering session keeps its own value", shown(srv.dsn(), "statement_timeout")
                  == "12s", shown(srv.dsn(), "statement_timeout"))
            check("role in database over role, database and all",
                  shown(u, "statement_timeout") == "14s", shown(u, "statement_timeout"))
            check("the role's other settings", (shown(u, "TimeZone"), shown(u, "search_path"))
                  == ("Asia/Kolkata", 'rs_a, "RS b"'), repr((shown(u, "TimeZone"),
                                                              shown(u, "search_path"))))
            check("another role: the database's", shown(v, "statement_timeout") == "12s",
                  shown(v, "statement_timeout"))
            opt = as_role(srv, "rs_u", "-c statement_timeout=15s -c TimeZone=UTC")
            check("the startup packet's options over all of them",
                  (shown(opt, "statement_timeout"), shown(opt, "TimeZone")) == ("15s", "UTC"),
                  repr((shown(opt, "statement_timeout"), shown(opt, "TimeZone"))))
            steps = [("ALTER ROLE rs_u IN DATABASE %s RESET statement_timeout" % DB, "13s"),
                     ("ALTER ROLE rs_u RESET statement_timeout", "12s"),
                     ("ALTER DATABASE %s RESET ALL" % DB, "11s"),
                     ("ALTER ROLE ALL RESET statement_timeout", "0")]
            for sql, want in steps:
                c.execute(sql)
                got = shown(u, "statement_timeout")
                check("after %s: %s" % (sql, want), got == want, got)
            for sql, want, words in ERRORS:
                st, msg, _ = sqlstate_of(c, sql)
                check("%s: %s" % (sql, want), st == want and msg == words, "%s %s" % (st, msg))
            check("the session answers after", checks.answers(c))
        with psycopg.connect(u, autocommit=True, connect_timeout=10) as c:
            for sql, want, words in REFUSED:
                sql = sql.replace("%s", me)
                if want == "result":  # a command without rows: fetchall would raise
                    try:
                        c.execute(sql)
                        st, msg = "result", ""
                    except psycopg.Error as ex:
                        st, msg = ex.diag.sqlstate, ex.diag.message_primary
                else:
                    st, msg, _ = sqlstate_of(c, sql)
                check("as rs_u: %s: %s" % (sql, want), st == want and msg == words,
                      "%s %s" % (st, msg))
        check("a role's own ALTER applies at its next start", shown(u, "search_path") == "rs_own2",
              shown(u, "search_path"))
    with checks.running(srv):
        u = as_role(srv, "rs_u")
        check("kept across a clean restart", shown(u, "TimeZone") == "Asia/Kolkata",
              shown(u, "TimeZone"))
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as c:
            c.execute("ALTER ROLE rs_u SET TimeZone = 'America/St_Johns'")
            c2 = psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10)
            c2.execute("BEGIN")
            c2.execute("ALTER ROLE rs_u SET search_path = rs_never")
            srv.kill9()
            try:
                c2.close()
            except psycopg.Error:
                pass
    with checks.running(srv):
        u = as_role(srv, "rs_u")
        got = (shown(u, "TimeZone"), shown(u, "search_path"))
        check("after kill -9: the committed ALTER kept, the open one gone",
              got == ("America/St_Johns", "rs_own2"), repr(got))
        with psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10) as c:
            c.execute("DROP ROLE rs_u")
            c.execute("DROP ROLE rs_v")
            n = c.execute("SELECT count(*) FROM pg_db_role_setting").fetchone()[0]
            check("dropped roles leave no settings", n == 0, repr(n))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The SQLSTATEs of what pg_dump and its restore scripts send (issue 11
item 8), as PostgreSQL 15 gives them, the session alive after each:

  lock      LOCK TABLE outside a block 25P01, an unknown table 42P01, a
            mode that is no mode 42601; (Cadenza) SHARE and stronger modes
            and NOWAIT 0A000 — it cannot hold off other sessions' writes —
            while ACCESS SHARE makes a concurrent DDL wait until COMMIT
  owner     ALTER … OWNER TO an unknown role 42704, of an unknown table
            42P01, of an unknown schema 3F000, by a role that is not the
            owner 42501; the owner it has succeeds; a superuser gives it to
            another role (pg_tables shows it), whose owner cannot give it to
            a role it is no member of (42501)
  identity  ADD GENERATED … AS IDENTITY on a nullable column, a column
            with a default, an identity column 55000, a text column 22023,
            an unknown column 42703
  misc      ORDER BY in a non-aggregate's arguments 42809; (Cadenza) two
            aggregates with different ORDER BY in one query level 0A000;
            set_config of an unknown time zone 22023

Usage: regress_dump_tools.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, answers, state  # noqa: E402


def expect(conn, name, sql, want, block=False):
    """sql's outcome is want; block: run inside BEGIN … ROLLBACK."""
    if block:
        conn.execute("BEGIN")
    st, msg = state(conn, sql)
    if block:
        conn.execute("ROLLBACK")
    check(name, st == want and answers(conn), f"got {st} ({msg}), want {want}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    cz = a.kind == "cadenza"
    c = psycopg.connect(a.dsn, autocommit=True)
    for s in ["DROP TABLE IF EXISTS rdt_t", "DROP ROLE IF EXISTS rdt_other"]:
        c.execute(s)
    c.execute("CREATE TABLE rdt_t (id int NOT NULL, n int, d int DEFAULT 1, s text NOT NULL)")
    c.execute("CREATE ROLE rdt_other LOGIN PASSWORD 'rdt_pw_1'")
    try:
        # ---- LOCK
        expect(c, "lock: outside a block 25P01", "LOCK TABLE rdt_t IN ACCESS SHARE MODE", "25P01")
        expect(c, "lock: unknown table 42P01", "LOCK TABLE rdt_nosuch", "42P01", block=True)
        expect(c, "lock: no such mode 42601", "LOCK TABLE rdt_t IN ODD MODE", "42601", block=True)
        if cz:
            for mode in ["SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"]:
                expect(c, f"lock: {mode} 0A000 (cadenza)", f"LOCK TABLE rdt_t IN {mode} MODE",
                       "0A000", block=True)
            expect(c, "lock: the default mode (ACCESS EXCLUSIVE) 0A000 (cadenza)", "LOCK rdt_t",
                   "0A000", block=True)
            expect(c, "lock: NOWAIT 0A000 (cadenza)", "LOCK TABLE rdt_t IN ACCESS SHARE MODE NOWAIT",
                   "0A000", block=True)
        expect(c, "lock: ACCESS SHARE in a block", "LOCK TABLE rdt_t IN ACCESS SHARE MODE",
               "result", block=True)
        # ACCESS SHARE holds off a concurrent ALTER until the lock's COMMIT
        c2 = psycopg.connect(a.dsn, autocommit=True)
        c.execute("BEGIN")
        c.execute("LOCK TABLE rdt_t IN ACCESS SHARE MODE")
        done = {}

        def alter():
            t0 = time.time()
            try:
                c2.execute("ALTER TABLE rdt_t ADD COLUMN extra int")
                done["ok"] = True
            except psycopg.Error as ex:
                done["err"] = ex.diag.sqlstate
            done["t"] = time.time() - t0
        th = threading.Thread(target=alter)
        th.start()
        time.sleep(1.0)
        waiting = "t" not in done
        c.execute("COMMIT")
        th.join(30)
        check("lock: ACCESS SHARE makes a concurrent ALTER TABLE wait until COMMIT",
              waiting and done.get("ok"), done)
        c2.close()

        # ---- OWNER TO
        expect(c, "owner: unknown role 42704", "ALTER TABLE rdt_t OWNER TO rdt_nosuch_role", "42704")
        expect(c, "owner: unknown table 42P01", "ALTER TABLE rdt_nosuch OWNER TO CURRENT_USER",
               "42P01")
        expect(c, "owner: unknown schema 3F000", "ALTER SCHEMA rdt_nosuch OWNER TO CURRENT_USER",
               "3F000")
        expect(c, "owner: the owner it has", "ALTER TABLE rdt_t OWNER TO CURRENT_USER", "result")
        expect(c, "owner: ALTER TABLE IF EXISTS of none", "ALTER TABLE IF EXISTS rdt_nosuch OWNER TO "
               "CURRENT_USER", "result")
        dsn2 = a.dsn
        for part in dsn2.split():
            if part.startswith("user=") or part.startswith("password="):
                dsn2 = dsn2.replace(part, "")
        o = psycopg.connect(dsn2 + " user=rdt_other password=rdt_pw_1", autocommit=True)
        expect(o, "owner: by a role that is not the owner 42501",
               "ALTER TABLE rdt_t OWNER TO rdt_other", "42501")
        o.close()
        me = c.execute("SELECT current_user").fetchone()[0]
        expect(c, "owner: another role (superuser)", "ALTER TABLE rdt_t OWNER TO rdt_other", "result")
        owner = c.execute("SELECT tableowner FROM pg_tables WHERE tablename = 'rdt_t'").fetchone()
        check("owner: pg_tables shows the new owner", owner == ("rdt_other",), owner)
        o = psycopg.connect(dsn2 + " user=rdt_other password=rdt_pw_1", autocommit=True)
        expect(o, "owner: the owner giving it to a role it is no member of 42501",
               f'ALTER TABLE rdt_t OWNER TO "{me}"', "42501")
        expect(o, "owner: the owner naming itself", "ALTER TABLE rdt_t OWNER TO rdt_other", "result")
        o.close()
        expect(c, "owner: given back", f'ALTER TABLE rdt_t OWNER TO "{me}"', "result")

        # ---- ADD GENERATED … AS IDENTITY
        expect(c, "identity: a nullable column 55000",
               "ALTER TABLE rdt_t ALTER COLUMN n ADD GENERATED ALWAYS AS IDENTITY", "55000")
        c.execute("ALTER TABLE rdt_t ALTER COLUMN d SET NOT NULL")
        expect(c, "identity: a column with a default 55000",
               "ALTER TABLE rdt_t ALTER COLUMN d ADD GENERATED ALWAYS AS IDENTITY", "55000")
        expect(c, "identity: a text column 22023",
               "ALTER TABLE rdt_t ALTER COLUMN s ADD GENERATED ALWAYS AS IDENTITY", "22023")
        expect(c, "identity: an unknown column 42703",
               "ALTER TABLE rdt_t ALTER COLUMN nosuch ADD GENERATED ALWAYS AS IDENTITY", "42703")
        expect(c, "identity: added", "ALTER TABLE rdt_t ALTER COLUMN id ADD GENERATED ALWAYS AS "
               "IDENTITY (SEQUENCE NAME rdt_t_id_named)", "result")
        expect(c, "identity: an identity column already 55000",
               "ALTER TABLE rdt_t ALTER COLUMN id ADD GENERATED BY DEFAULT AS IDENTITY", "55000")
        expect(c, "identity: GENERATED ALWAYS refuses a value 428C9",
               "INSERT INTO rdt_t (id, d, s) VALUES (5, 1, 'x')", "428C9")

        # ---- the rest
        expect(c, "ORDER BY in a non-aggregate's arguments 42809",
               "SELECT lower('A' ORDER BY 1)", "42809")
        if cz:
            expect(c, "different ORDER BY in two aggregates 0A000 (cadenza)",
                   "SELECT array_agg(id ORDER BY id), array_agg(n ORDER BY n) FROM rdt_t", "0A000")
        expect(c, "ORDER BY in an aggregate's arguments",
               "SELECT count(id ORDER BY id), array_agg(n ORDER BY id) FROM rdt_t", "result")
        expect(c, "set_config: an unknown time zone 22023",
               "SELECT set_config('TimeZone', 'Nowhere/Nothing', false)", "22023")
        expect(c, "set_config: a setting takes effect",
               "SELECT set_config('application_name', 'rdt', false)", "result")
        v = c.execute("SHOW application_name").fetchone()[0]
        check("set_config: SHOW sees it", v == "rdt", v)
    finally:
        c.execute("DROP TABLE IF EXISTS rdt_t")
        c.execute("DROP ROLE IF EXISTS rdt_other")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

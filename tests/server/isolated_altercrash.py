#!/usr/bin/env python3
"""ALTER TABLE is all or nothing across kill -9 (issue 11, item 3).

A table of ROWS rows with a secondary index is altered by statements that
rewrite every row (ADD PRIMARY KEY, ALTER COLUMN TYPE, ADD COLUMN with a
DEFAULT, DROP COLUMN, DROP CONSTRAINT of the key); while one runs the
server is killed with SIGKILL at a random moment (some kills fall during
the rewrite, some during the commit, some after it), then restarted.
After each restart the table must be exactly the old version or exactly
the new one — its columns (information_schema), its key (pg_indexes),
every row (count and sums of every column), its index agreeing with the
rows (lookups through the index against a scan), and writable — and the
new one whenever the ALTER was acknowledged before the kill. A last
round restarts cleanly and checks the same.

With --kind postgres the same runs against PostgreSQL 15 (the reference).
Usage: isolated_altercrash.py --kind cadenza|postgres --binary PATH --dir DIR
       (CZ_ALTERCRASH_ROWS, CZ_ALTERCRASH_ROUNDS, CZ_SEED to vary)
"""
import os
import random
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

ROWS = int(os.environ.get("CZ_ALTERCRASH_ROWS", 150000))

# (statement, the columns after it, the key after it, what it does to a row)
STEPS = [
    ("ALTER TABLE ac_t ADD PRIMARY KEY (id)", ["id", "k", "v", "pad"], "ac_t_pkey"),
    ("ALTER TABLE ac_t ALTER COLUMN k TYPE bigint", ["id", "k", "v", "pad"], "ac_t_pkey"),
    ("ALTER TABLE ac_t ADD COLUMN w int DEFAULT 5", ["id", "k", "v", "pad", "w"], "ac_t_pkey"),
    ("ALTER TABLE ac_t DROP COLUMN pad", ["id", "k", "v", "w"], "ac_t_pkey"),
    ("ALTER TABLE ac_t DROP CONSTRAINT ac_t_pkey, ALTER COLUMN v TYPE varchar(40)",
     ["id", "k", "v", "w"], None),
    ("ALTER TABLE ac_t ADD CONSTRAINT ac_t_k2 PRIMARY KEY (k, id)", ["id", "k", "v", "w"], "ac_t_k2"),
]


def setup(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS ac_t")
        c.execute("CREATE TABLE ac_t (id int, k int, v text, pad text)")
        # rows in no key order, so that the new primary key sorts them
        c.execute("INSERT INTO ac_t SELECT (g * 7919) %% %d, g %% 1000, 'v' || g, repeat('x', g %% 40) "
                  "FROM generate_series(1, %d) g" % (ROWS, ROWS))
        c.execute("CREATE INDEX ac_t_k ON ac_t (k)")


def state(dsn):
    """(columns, key index name or None, row figures) of the table now."""
    with psycopg.connect(dsn, autocommit=True, connect_timeout=20) as c:
        cols = [r[0] for r in c.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'ac_t' "
            "ORDER BY ordinal_position").fetchall()]
        idx = [r[0] for r in c.execute(
            "SELECT indexname FROM pg_indexes WHERE tablename = 'ac_t'").fetchall()]
        key = [i for i in idx if i != "ac_t_k"]
        figs = c.execute("SELECT count(*), sum(id), sum(k), count(DISTINCT v), sum(length(v)) "
                         "FROM ac_t").fetchone()
        extra = {}
        if "pad" in cols:
            extra["pad"] = c.execute("SELECT sum(length(pad)) FROM ac_t").fetchone()[0]
        if "w" in cols:
            extra["w"] = c.execute("SELECT count(*), sum(w) FROM ac_t").fetchone()
        return cols, (key[0] if key else None), "ac_t_k" in idx, tuple(figs), extra


def index_agrees(dsn, rng):
    """Lookups of a few k values (through the index) against a scan
    that cannot use it."""
    with psycopg.connect(dsn, autocommit=True) as c:
        for k in rng.sample(range(1000), 5):
            a = c.execute("SELECT count(*), sum(id) FROM ac_t WHERE k = %d" % k).fetchone()
            b = c.execute("SELECT count(*), sum(id) FROM ac_t WHERE k + 0 = %d" % k).fetchone()
            if tuple(a) != tuple(b):
                return False, "k=%d: index %r, scan %r" % (k, a, b)
        return True, ""


def writable(dsn):
    with psycopg.connect(dsn, autocommit=True) as c:
        cols = [r[0] for r in c.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'ac_t' "
            "ORDER BY ordinal_position").fetchall()]
        vals = {"id": "-1", "k": "-1", "v": "'probe'", "pad": "''", "w": "0"}
        c.execute("INSERT INTO ac_t (%s) VALUES (%s)" % (", ".join(cols),
                                                        ", ".join(vals[x] for x in cols)))
        n = c.execute("DELETE FROM ac_t WHERE id = -1").rowcount
        return n == 1


def run_alter(dsn, sql, out):
    try:
        with psycopg.connect(dsn, autocommit=True, connect_timeout=10) as c:
            c.execute(sql)
            out["acked"] = True
    except psycopg.Error as ex:
        out["error"] = str(ex).splitlines()[0]


def main():
    args = checks.isolated_args()
    rounds = int(os.environ.get("CZ_ALTERCRASH_ROUNDS", 10))
    srv = checks.isolated_server(args, "altercrash", both=True, buffers=20000)
    rng = random.Random(int(os.environ.get("CZ_SEED", time.time())))
    srv.start()
    try:
        setup(srv.dsn())
        base = state(srv.dsn())
        old = base
        step = 0
        expect_figs = base[3]
        for cycle in range(rounds):
            sql, new_cols, new_key = STEPS[step % len(STEPS)]
            # how long the statement takes when not killed, to aim inside it
            out = {}
            th = threading.Thread(target=run_alter, args=(srv.dsn(), sql, out), daemon=True)
            t0 = time.time()
            th.start()
            time.sleep(rng.uniform(0.05, 0.5) if cycle % 3 else rng.uniform(0.3, 3.0))
            srv.kill9()
            th.join(30)
            waited = time.time() - t0
            srv.start()
            cols, key, has_k, figs, extra = state(srv.dsn())
            is_old = cols == old[0] and key == old[1]
            is_new = cols == new_cols and key == new_key
            check("cycle %d (%s, killed after %.2f s%s): the table is the old or the new one"
                  % (cycle, sql, waited, ", acknowledged" if out.get("acked") else ""),
                  (is_old or is_new) and not (out.get("acked") and not is_new),
                  "columns %r key %r; old %r %r, new %r %r" % (cols, key, old[0], old[1],
                                                              new_cols, new_key))
            check("cycle %d: every row there" % cycle, figs == expect_figs,
                  "%r, expected %r" % (figs, expect_figs))
            if "w" in cols:
                check("cycle %d: the added column's default in every row" % cycle,
                      tuple(extra["w"]) == (ROWS, 5 * ROWS), repr(extra["w"]))
            check("cycle %d: the secondary index is there" % cycle, has_k, "ac_t_k missing")
            ok, why = index_agrees(srv.dsn(), rng)
            check("cycle %d: the index agrees with the rows" % cycle, ok, why)
            check("cycle %d: the table takes writes" % cycle, writable(srv.dsn()), "probe row")
            if is_new and not is_old:
                old = (cols, key)
                step += 1
            else:
                old = (cols, key)
        srv.stop()
        srv.start()
        cols, key, has_k, figs, extra = state(srv.dsn())
        check("after a clean restart: every row there", figs == expect_figs, repr(figs))
        ok, why = index_agrees(srv.dsn(), rng)
        check("after a clean restart: the index agrees with the rows", ok, why)
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("DROP TABLE ac_t")
    except Exception as ex:  # noqa: BLE001 - report, never hang
        check("altercrash", False, "%s: %s\n%s" % (type(ex).__name__, ex, srv.log_tail(20)))
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

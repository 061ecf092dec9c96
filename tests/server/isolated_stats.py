#!/usr/bin/env python3
"""Statistics across restarts (catalog/README.md "Statistics"): saved beside
the database at every checkpoint and at shutdown, loaded at start.

  restart   after a clean restart pg_class.reltuples is the row count and
            pg_stats still has n_distinct and null_frac (without ANALYZE),
            and a frequent and a rare literal of an indexed column still
            get different plans
  crash     rows inserted after the last checkpoint, then kill -9: after
            recovery reltuples is roughly right (the count is taken again
            from the primary tree's shape: within 25%), pg_stats is still
            there, and the plans still tell the literals apart
  missing   with the statistics file removed the server starts, counts
            rows from the trees (roughly), and ANALYZE gives the distinct
            estimates back

Own server: it restarts and kills it. Cadenza only (PostgreSQL keeps its
statistics its own way).
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

try:
    import psycopg
except ImportError:  # pragma: no cover
    psycopg = None


def q1(c, sql):
    return c.execute(sql).fetchone()[0]


def plan(c, sql):
    return "\n".join(r[0] for r in c.execute("EXPLAIN " + sql).fetchall())


def ndv(c, col):
    r = c.execute("SELECT n_distinct FROM pg_stats WHERE tablename = 'st_f' AND attname = %s",
                  (col,)).fetchone()
    return r[0] if r else None


def near(x, want, frac):
    return x is not None and abs(x - want) <= want * frac


def check_state(c, tag, rows, tol):
    n = q1(c, "SELECT reltuples FROM pg_class WHERE relname = 'st_f'")
    check(f"{tag}: reltuples", near(n, rows, tol), f"{n}, want {rows}")
    g = ndv(c, "grp")
    check(f"{tag}: pg_stats n_distinct kept", g is not None and abs(g - 40) <= 3, repr(g))
    nf = c.execute("SELECT null_frac FROM pg_stats WHERE tablename = 'st_f' "
                   "AND attname = 'opt'").fetchone()
    check(f"{tag}: pg_stats null_frac kept", nf is not None and abs(nf[0] - 0.5) < 0.03, repr(nf))
    rare = plan(c, "SELECT * FROM st_f WHERE kind = 'rare'")
    common = plan(c, "SELECT * FROM st_f WHERE kind = 'common'")
    check(f"{tag}: rare and frequent literals planned apart",
          "using st_f_kind" in rare and "using st_f_kind" not in common, rare + "\n---\n" + common)


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the statistics file and its recovery are Cadenza's")
    if psycopg is None:
        check("psycopg", False, "psycopg is not installed (CZ_VENV)")
        return checks.summary()
    srv = checks.isolated_server(args, "stats")
    folder = srv.folder
    try:
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("CREATE TABLE st_f (id integer PRIMARY KEY, kind text, grp integer, opt integer)")
            c.execute("CREATE INDEX st_f_kind ON st_f (kind)")
            c.execute("INSERT INTO st_f SELECT g, CASE WHEN g % 500 = 0 THEN 'rare' ELSE 'common' END, "
                      "g % 40, CASE WHEN g % 2 = 0 THEN NULL ELSE g END "
                      "FROM generate_series(1, 10000) g")
            check_state(c, "before restart", 10000, 0)
        srv.stop()
        check("restart: the statistics file is written",
              os.path.exists(os.path.join(folder, "cadenza.db.stats")))
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            check_state(c, "restart", 10000, 0)
            c.execute("CHECKPOINT")
            c.execute("INSERT INTO st_f SELECT g, 'common', g % 40, NULL "
                      "FROM generate_series(10001, 12000) g")
        srv.kill9()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            check_state(c, "crash", 12000, 0.25)
            check("crash: the rows are there", q1(c, "SELECT count(*) FROM st_f") == 12000)
        srv.stop()
        os.unlink(os.path.join(folder, "cadenza.db.stats"))
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            n = q1(c, "SELECT reltuples FROM pg_class WHERE relname = 'st_f'")
            check("missing: reltuples from the tree", near(n, 12000, 0.25), repr(n))
            check("missing: no distinct estimate before ANALYZE", ndv(c, "grp") is None,
                  repr(ndv(c, "grp")))
            c.execute("ANALYZE st_f")
            check("missing: ANALYZE gives it back", ndv(c, "grp") == 40, repr(ndv(c, "grp")))
            check("missing: exact count after ANALYZE",
                  q1(c, "SELECT reltuples FROM pg_class WHERE relname = 'st_f'") == 12000)
    except Exception as ex:  # a server that did not start, a failed query
        check("no unexpected error", False, f"{type(ex).__name__}: {ex}\n{srv.log_tail()}")
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

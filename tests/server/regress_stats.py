#!/usr/bin/env python3
"""Statistics kept as data changes, and the plans they make (issue 8,
items 2 and 3; catalog/README.md "Statistics"):

  rows       pg_class.reltuples follows INSERT, DELETE, COPY and UPDATE
             without ANALYZE; a rolled-back INSERT and one rolled back to
             a savepoint leave it about right; the join planner's estimate
             of a table follows it too
  pg_stats   null_frac, avg_width and n_distinct (negative when a fraction
             of the rows, as PostgreSQL) without ANALYZE, and after it
  skew       a column with an index, one value on 99.9% of the rows and one
             on 0.1%: the rare literal reads the index (and looks the other
             table up by key in a join); the frequent one scans the table
             (and hash-joins), unless enable_seqscan is off; the answers
             are right either way
  group      a grouped derived table is estimated at its groups (the
             distinct values of its key), not a fixed 1000
  analyze    ANALYZE t, ANALYZE, VACUUM ANALYZE t; an unknown table is
             42P01; after deletes ANALYZE brings n_distinct back down
--kind postgres runs the ANALYZE and pg_stats checks only (PostgreSQL
fills pg_stats at ANALYZE; the plans and live counts are Cadenza's).
Usage: regress_stats.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import io
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan as explain  # noqa: E402
import psycopg  # noqa: E402

P = "rstat_"


def one(cur, sql):
    cur.execute(sql)
    return cur.fetchone()[0]



def reltuples(cur, t):
    return one(cur, f"SELECT reltuples FROM pg_class WHERE relname = '{P}{t}'")


def col_stats(cur, t):
    cur.execute(f"SELECT attname, null_frac, avg_width, n_distinct FROM pg_stats "
                f"WHERE tablename = '{P}{t}' ORDER BY attname")
    return {r[0]: r[1:] for r in cur.fetchall()}


def est(plan, pattern):
    """The estimated rows on the first EXPLAIN line matching pattern."""
    for line in plan.splitlines():
        if re.search(pattern, line):
            m = re.search(r"estimated rows=(\d+)", line)
            return int(m.group(1)) if m else None
    return None


def near(x, want, tol):
    return x is not None and abs(x - want) <= tol


def setup(cur):
    cur.execute(f"CREATE TABLE {P}f (id integer PRIMARY KEY, kind text, grp integer, "
                f"opt integer, name varchar(20))")
    cur.execute(f"CREATE INDEX {P}f_kind ON {P}f (kind)")
    cur.execute(f"CREATE TABLE {P}d (id integer PRIMARY KEY, label text)")
    # 20000 rows: kind 'common' on all but 20 ('rare'); grp 50 values;
    # opt NULL on a quarter of the rows
    cur.execute(f"INSERT INTO {P}f SELECT g, CASE WHEN g % 1000 = 0 THEN 'rare' ELSE 'common' END, "
                f"g % 50, CASE WHEN g % 4 = 0 THEN NULL ELSE g END, 'n' || g "
                f"FROM generate_series(1, 20000) g")
    cur.execute(f"INSERT INTO {P}d SELECT g, 'd' || g FROM generate_series(0, 49) g")


def check_rows(cur):
    check("rows: after INSERT", reltuples(cur, "f") == 20000, repr(reltuples(cur, "f")))
    check("rows: the other table", reltuples(cur, "d") == 50, repr(reltuples(cur, "d")))
    cur.execute(f"DELETE FROM {P}f WHERE id > 19000")
    check("rows: after DELETE", reltuples(cur, "f") == 19000, repr(reltuples(cur, "f")))
    cur.execute("BEGIN")
    cur.execute(f"INSERT INTO {P}f SELECT g, 'x', 1, 1, 'x' FROM generate_series(30001, 30500) g")
    cur.execute("ROLLBACK")
    check("rows: a rolled-back INSERT is not counted", reltuples(cur, "f") == 19000,
          repr(reltuples(cur, "f")))
    cur.execute("BEGIN")
    cur.execute(f"INSERT INTO {P}f VALUES (40000, 'common', 1, 1, 'y')")
    cur.execute("SAVEPOINT s")
    cur.execute(f"INSERT INTO {P}f SELECT g, 'x', 1, 1, 'x' FROM generate_series(30001, 31000) g")
    cur.execute("ROLLBACK TO SAVEPOINT s")
    cur.execute("COMMIT")
    # the count is taken again from the tree's shape: roughly right
    check("rows: rollback to a savepoint leaves it roughly right",
          near(reltuples(cur, "f"), 19001, 19001 * 0.2), repr(reltuples(cur, "f")))
    cur.execute(f"DELETE FROM {P}f WHERE id = 40000")
    cur.execute(f"ANALYZE {P}f")
    check("rows: exact again after ANALYZE", reltuples(cur, "f") == 19000, repr(reltuples(cur, "f")))
    buf = io.StringIO()
    for g in range(50000, 51000):
        buf.write(f"{g}\tcommon\t{g % 50}\t{g}\tc{g}\n")
    with cur.copy(f"COPY {P}f FROM STDIN") as cp:
        cp.write(buf.getvalue())
    check("rows: after COPY", reltuples(cur, "f") == 20000, repr(reltuples(cur, "f")))
    cur.execute(f"UPDATE {P}f SET grp = grp + 1 WHERE id >= 50000")
    check("rows: UPDATE keeps the count", reltuples(cur, "f") == 20000, repr(reltuples(cur, "f")))
    cur.execute(f"DELETE FROM {P}f WHERE id >= 50000")
    # the join planner's estimate of the table follows the count
    q = f"SELECT count(*) FROM {P}f f, {P}d d WHERE f.grp = d.id"
    before = explain(cur, q)
    cur.execute(f"INSERT INTO {P}d SELECT g, 'd' || g FROM generate_series(50, 4999) g")
    after = explain(cur, q)
    check("rows: the planner's estimate follows inserts",
          est(before, rf"Scan  {P}d") == 50 and est(after, rf"Scan  {P}d") == 5000,
          before + "\n---\n" + after)
    cur.execute(f"DELETE FROM {P}d WHERE id >= 50")


def check_pg_stats(cur, analyzed):
    st = col_stats(cur, "f")
    tag = "after ANALYZE" if analyzed else "kept current"
    check(f"pg_stats ({tag}): every column", sorted(st) == ["grp", "id", "kind", "name", "opt"],
          repr(st))
    if sorted(st) != ["grp", "id", "kind", "name", "opt"]:
        return
    check(f"pg_stats ({tag}): unique column n_distinct -1", near(st["id"][2], -1, 0.05), repr(st["id"]))
    check(f"pg_stats ({tag}): grp has 50 distinct values", near(st["grp"][2], 50, 3), repr(st["grp"]))
    check(f"pg_stats ({tag}): kind has 2 distinct values", near(st["kind"][2], 2, 0.5), repr(st["kind"]))
    check(f"pg_stats ({tag}): opt a quarter NULL", near(st["opt"][0], 0.25, 0.02), repr(st["opt"]))
    check(f"pg_stats ({tag}): opt's distinct values a fraction of the rows",
          near(st["opt"][2], -0.75, 0.08), repr(st["opt"]))
    check(f"pg_stats ({tag}): no NULL in kind", st["kind"][0] == 0, repr(st["kind"]))
    check(f"pg_stats ({tag}): name's width", 3 <= st["name"][1] <= 8, repr(st["name"]))


def check_skew(cur):
    rare = explain(cur, f"SELECT * FROM {P}f WHERE kind = 'rare'")
    common = explain(cur, f"SELECT * FROM {P}f WHERE kind = 'common'")
    check("skew: the rare literal reads the index", f"using {P}f_kind" in rare, rare)
    check("skew: the frequent literal scans the table", f"using {P}f_kind" not in common, common)
    cur.execute("SET enable_seqscan = off")
    forced = explain(cur, f"SELECT * FROM {P}f WHERE kind = 'common'")
    cur.execute("RESET enable_seqscan")
    check("skew: enable_seqscan = off keeps the index", f"using {P}f_kind" in forced, forced)
    check("skew: answers", one(cur, f"SELECT count(*) FROM {P}f WHERE kind = 'rare'") == 19 and
          one(cur, f"SELECT count(*) FROM {P}f WHERE kind = 'common'") == 18981)
    q = (f"SELECT d.label, f.opt FROM {P}f f, {P}d d WHERE f.grp = d.id AND f.kind = '%s'")
    jr, jc = explain(cur, q % "rare"), explain(cur, q % "common")
    check("skew: the rare literal's join looks the other table up", "LookupJoin" in jr, jr)
    check("skew: the frequent literal's join hashes", "HashJoin" in jc and "LookupJoin" not in jc, jc)
    check("skew: the estimates are the range's", est(jr, f"using {P}f_kind") == 19, jr)
    cur.execute(q % "rare")
    check("skew: join answers", len(cur.fetchall()) == 19)


def check_group(cur):
    q = (f"SELECT * FROM (SELECT grp, count(*) AS n FROM {P}f GROUP BY grp) g, {P}d d "
         f"WHERE g.grp = d.id")
    plan = explain(cur, q)
    # the sketch also saw the values of rows deleted since: about 50
    check("group: a grouped derived table counts its groups",
          near(est(plan, "HashAggregate"), 50, 5), plan)
    cur.execute(q)
    check("group: answers", len(cur.fetchall()) == 50)


def check_analyze(cur, kind):
    for stmt in (f"ANALYZE {P}f", f"ANALYZE {P}f, {P}d", f"VACUUM ANALYZE {P}d", "ANALYZE"):
        try:
            cur.execute(stmt)
            check(f"analyze: {stmt.replace(P, '')}", True)
        except psycopg.Error as ex:
            check(f"analyze: {stmt}", False, str(ex))
    try:
        cur.execute(f"ANALYZE {P}nosuch")
        check("analyze: unknown table is 42P01", False, "no error")
    except psycopg.Error as ex:
        check("analyze: unknown table is 42P01", ex.sqlstate == "42P01", ex.sqlstate)
    if kind != "cadenza":
        return
    # deletes leave the sketch with values no row has: ANALYZE corrects it
    cur.execute(f"CREATE TABLE {P}g (id integer PRIMARY KEY, v integer)")
    cur.execute(f"INSERT INTO {P}g SELECT g, g FROM generate_series(1, 5000) g")
    cur.execute(f"DELETE FROM {P}g WHERE id > 100")
    cur.execute(f"UPDATE {P}g SET v = id % 5")
    drift = col_stats(cur, "g")["v"][2]
    cur.execute(f"ANALYZE {P}g")
    fixed = col_stats(cur, "g")["v"][2]
    check("analyze: corrects n_distinct after deletes and updates", near(fixed, 5, 0.5) and
          (drift is None or drift != fixed), f"{drift} -> {fixed}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        cur = conn.cursor()
        tables = ("f", "d", "g")
        for t in tables:
            cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
        setup(cur)
        steps = [("analyze", lambda: check_analyze(cur, args.kind)),
                 ("pg_stats after ANALYZE", lambda: check_pg_stats(cur, True))]
        if args.kind == "cadenza":
            steps = [("pg_stats kept current", lambda: check_pg_stats(cur, False)),
                     ("rows", lambda: check_rows(cur)),
                     ("skew", lambda: check_skew(cur)),
                     ("group", lambda: check_group(cur))] + steps
        try:
            for name, step in steps:
                try:
                    step()
                except psycopg.Error as ex:
                    check(f"{name}: no error", False, f"{ex.sqlstate}: {ex}")
                    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
                        conn.rollback()
        finally:
            for t in tables:
                cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

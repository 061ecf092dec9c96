#!/usr/bin/env python3
"""Sorts the plan leaves out because an index's order gives them
(exec/op_order.c, opt/README.md "Orders"), read from EXPLAIN, and the
answers beside the same query forced to sort:

  pk        ORDER BY the primary key (with LIMIT, OFFSET, a key range):
            no Sort; the LIMIT stops the scan
  prefix    `WHERE grp = 3 ORDER BY id` over an index on grp: the index
            range is in primary-key order, no Sort; `ORDER BY grp, id`
            too (grp is constant)
  unique    ORDER BY the primary key then anything: no Sort
  index     ORDER BY an indexed column with a small constant LIMIT and no
            condition reads that index in order, no Sort; with a large
            LIMIT, a condition on another column or NULLS FIRST the table
            is scanned and sorted
  backward  ORDER BY … DESC with a LIMIT reads the primary key or an index
            backward (NULLs first, as DESC wants): the key, a key range,
            an equality-bound index, a filter on another column over the
            primary key; DESC NULLS LAST, mixed directions and DESC without
            a LIMIT sort
  kept      ORDER BY a column no index orders, and a composite key's
            second column alone: a Sort
  merge     two tables joined on the first columns of their primary keys
            merge their scans (MergeJoin, with the other key pairs and
            conditions as its residual), its output in key order (ORDER BY
            the key with a LIMIT above it has no Sort); joined on other
            columns, a hash join (when ThreadsPerQuery is 1, as here)
Cadenza only (the plans are ours).
Usage: regress_order.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan as explain  # noqa: E402
import psycopg  # noqa: E402

P = "rord_"



def rows(cur, sql):
    cur.execute(sql)
    return cur.fetchall()


def setup(cur):
    cur.execute(f"CREATE TABLE {P}t (id integer PRIMARY KEY, grp integer, name text, v integer)")
    cur.execute(f"INSERT INTO {P}t SELECT g, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 13 END, "
                f"'n' || lpad((g * 7919 % 5000)::text, 5, '0'), g % 5 FROM generate_series(1, 5000) g")
    cur.execute(f"CREATE INDEX {P}t_grp ON {P}t (grp)")
    cur.execute(f"CREATE INDEX {P}t_name ON {P}t (name)")
    cur.execute(f"CREATE TABLE {P}c (a integer, b text, c integer, PRIMARY KEY (a, b))")
    cur.execute(f"INSERT INTO {P}c SELECT g % 10, 'k' || (g % 37), g FROM generate_series(1, 370) g")


def same_as_sorted(cur, label, q, forced):
    """q's answer equals the one of `forced`, the same query made to sort
    (its ORDER BY keys wrapped in expressions no index gives)."""
    a, b = rows(cur, q), rows(cur, forced)
    check("answers: " + label, a == b and len(a) > 0, "%r vs %r" % (a[:5], b[:5]))


def no_sort(label, plan, also=None):
    check(label, "Sort" not in plan and (also is None or also in plan), plan)


def sorts(label, plan):
    check(label, "Sort" in plan, plan)


def check_pk(cur):
    q = f"SELECT id, grp FROM {P}t ORDER BY id LIMIT 5 OFFSET 1022"
    no_sort("pk: ORDER BY the primary key with LIMIT / OFFSET has no Sort", explain(cur, q))
    same_as_sorted(cur, "pk order, offset past a batch", q,
                   f"SELECT id, grp FROM {P}t ORDER BY id + 0 LIMIT 5 OFFSET 1022")
    q = f"SELECT id FROM {P}t WHERE id > 4990 ORDER BY id"
    no_sort("pk: a key range in key order has no Sort", explain(cur, q))
    same_as_sorted(cur, "pk range", q, f"SELECT id FROM {P}t WHERE id > 4990 ORDER BY id + 0")


def check_prefix(cur):
    q = f"SELECT id, grp FROM {P}t WHERE grp = 3 ORDER BY id LIMIT 7"
    no_sort("prefix: grp = 3 ORDER BY id reads the grp index in primary-key order, no Sort",
            explain(cur, q), f"using {P}t_grp")
    same_as_sorted(cur, "prefix", q, f"SELECT id, grp FROM {P}t WHERE grp = 3 ORDER BY id + 0 LIMIT 7")
    q = f"SELECT id, grp FROM {P}t WHERE grp = 3 ORDER BY grp, id"
    no_sort("prefix: ORDER BY the constant column, then the key, no Sort", explain(cur, q))
    same_as_sorted(cur, "prefix with the constant column", q,
                   f"SELECT id, grp FROM {P}t WHERE grp = 3 ORDER BY grp + 0, id + 0")
    q = f"SELECT a, b, c FROM {P}c WHERE a = 4 ORDER BY b"
    no_sort("prefix: a composite key's second column once the first is fixed, no Sort",
            explain(cur, q))
    same_as_sorted(cur, "composite key, first column fixed", q,
                   f"SELECT a, b, c FROM {P}c WHERE a = 4 ORDER BY b || ''")


def check_unique(cur):
    q = f"SELECT id, name FROM {P}t ORDER BY id, name LIMIT 3"
    no_sort("unique: ORDER BY the primary key then another column, no Sort", explain(cur, q))
    same_as_sorted(cur, "key then another column", q,
                   f"SELECT id, name FROM {P}t ORDER BY id + 0, name || '' LIMIT 3")


def check_index(cur):
    q = f"SELECT grp, id FROM {P}t ORDER BY grp LIMIT 5"
    no_sort("index: ORDER BY an indexed column with a small LIMIT reads the index, no Sort",
            explain(cur, q), f"using {P}t_grp")
    same_as_sorted(cur, "index order", q, f"SELECT grp, id FROM {P}t ORDER BY grp + 0, id LIMIT 5")
    q = f"SELECT name, id FROM {P}t ORDER BY name LIMIT 4 OFFSET 2500"
    no_sort("index: a text index in order with OFFSET, no Sort", explain(cur, q), f"using {P}t_name")
    same_as_sorted(cur, "text index order", q,
                   f"SELECT name, id FROM {P}t ORDER BY name || '' LIMIT 4 OFFSET 2500")
    q = f"SELECT grp, id FROM {P}t ORDER BY grp, id LIMIT 4 OFFSET 4280"
    no_sort("index: the NULLs of an indexed column come last, as ASC wants", explain(cur, q))
    same_as_sorted(cur, "NULLs last from the index", q,
                   f"SELECT grp, id FROM {P}t ORDER BY grp + 0, id + 0 LIMIT 4 OFFSET 4280")
    sorts("index: a LIMIT of 50000 scans and sorts",
          explain(cur, f"SELECT grp, id FROM {P}t ORDER BY grp LIMIT 50000"))
    sorts("index: a condition on another column scans and sorts",
          explain(cur, f"SELECT grp, id FROM {P}t WHERE v = 2 ORDER BY grp LIMIT 5"))
    q = f"SELECT grp, id FROM {P}t ORDER BY grp NULLS FIRST, id LIMIT 4"
    sorts("index: NULLS FIRST sorts", explain(cur, q))
    same_as_sorted(cur, "NULLS FIRST", q,
                   f"SELECT grp, id FROM {P}t ORDER BY grp + 0 NULLS FIRST, id LIMIT 4")


def backward(label, plan):
    check(label, "Sort" not in plan and "backward" in plan, plan)


def check_backward(cur):
    q = f"SELECT id, grp FROM {P}t ORDER BY id DESC LIMIT 5 OFFSET 1020"
    backward("backward: ORDER BY the key DESC reads the table backward", explain(cur, q))
    same_as_sorted(cur, "key DESC", q, f"SELECT id, grp FROM {P}t ORDER BY id + 0 DESC LIMIT 5 OFFSET 1020")
    q = f"SELECT id FROM {P}t WHERE id < 1030 AND id >= 1000 ORDER BY id DESC LIMIT 40"
    backward("backward: a key range read backward", explain(cur, q))
    same_as_sorted(cur, "key range DESC", q,
                   f"SELECT id FROM {P}t WHERE id < 1030 AND id >= 1000 ORDER BY id + 0 DESC LIMIT 40")
    q = f"SELECT id, grp FROM {P}t WHERE grp = 3 ORDER BY id DESC LIMIT 6"
    backward("backward: an equality-bound index read backward", explain(cur, q))
    same_as_sorted(cur, "equality-bound index DESC", q,
                   f"SELECT id, grp FROM {P}t WHERE grp = 3 ORDER BY id + 0 DESC LIMIT 6")
    q = f"SELECT grp, id FROM {P}t ORDER BY grp DESC, id DESC LIMIT 5 OFFSET 712"
    backward("backward: an indexed column DESC, NULLs first", explain(cur, q))
    same_as_sorted(cur, "indexed column DESC across the NULLs", q,
                   f"SELECT grp, id FROM {P}t ORDER BY grp + 0 DESC, id + 0 DESC LIMIT 5 OFFSET 712")
    q = f"SELECT id, v FROM {P}t WHERE v = 2 ORDER BY id DESC LIMIT 4"
    backward("backward: a filter on another column over the key read backward", explain(cur, q))
    same_as_sorted(cur, "filtered key DESC", q,
                   f"SELECT id, v FROM {P}t WHERE v = 2 ORDER BY id + 0 DESC LIMIT 4")
    sorts("backward: DESC NULLS LAST sorts",
          explain(cur, f"SELECT grp, id FROM {P}t ORDER BY grp DESC NULLS LAST LIMIT 3"))
    sorts("backward: mixed directions sort",
          explain(cur, f"SELECT grp, id FROM {P}t ORDER BY grp DESC, id LIMIT 3"))
    sorts("backward: DESC without a LIMIT sorts",
          explain(cur, f"SELECT id FROM {P}t WHERE id > 4000 ORDER BY id DESC"))


def check_kept(cur):
    sorts("kept: ORDER BY a column no index orders",
          explain(cur, f"SELECT id, v FROM {P}t ORDER BY v LIMIT 3"))
    sorts("kept: a composite key's second column alone",
          explain(cur, f"SELECT a, b FROM {P}c ORDER BY b LIMIT 3"))
    sorts("kept: ORDER BY an expression of the key",
          explain(cur, f"SELECT id FROM {P}t ORDER BY -id LIMIT 3"))


def check_merge(cur):
    cur.execute(f"CREATE TABLE {P}l (id integer, ln integer, q integer, PRIMARY KEY (id, ln))")
    cur.execute(f"INSERT INTO {P}l SELECT g / 3, g % 3, g FROM generate_series(0, 15000) g "
                f"WHERE (g / 3) % 4 <> 1")
    q = f"SELECT count(*), sum(q), sum(v) FROM {P}t JOIN {P}l ON {P}l.id = {P}t.id"
    p = explain(cur, q)
    check("merge: two tables on their keys' first columns merge", "MergeJoin" in p and "HashJoin" not in p, p)
    same_as_sorted(cur, "merge join", q, q.replace(f"{P}l.id = {P}t.id", f"{P}l.id + 0 = {P}t.id"))
    q = f"SELECT {P}t.id, ln, q FROM {P}t JOIN {P}l ON {P}l.id = {P}t.id WHERE q > 5 ORDER BY {P}t.id LIMIT 5"
    p = explain(cur, q)
    check("merge: ORDER BY the key with a LIMIT above a merge join has no Sort",
          "MergeJoin" in p and "Sort" not in p, p)
    cur.execute(q)
    got = cur.fetchall()
    check("answers: LIMIT above a merge join", [r[0] for r in got] == sorted(r[0] for r in got) and len(got) == 5,
          repr(got))
    p = explain(cur, f"SELECT count(*) FROM {P}t JOIN {P}l ON {P}l.q = {P}t.id")
    check("merge: a join on other columns hashes", "MergeJoin" not in p and "HashJoin" in p, p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    if args.kind != "cadenza":
        return checks.skip("the plans checked are Cadenza's")
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        cur = conn.cursor()
        for t in ("t", "c", "l"):
            cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
        setup(cur)
        try:
            check_pk(cur)
            check_prefix(cur)
            check_unique(cur)
            check_index(cur)
            check_backward(cur)
            check_kept(cur)
            check_merge(cur)
        finally:
            for t in ("t", "c", "l"):
                cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

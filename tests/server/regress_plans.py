#!/usr/bin/env python3
"""Plans the join planner picks (issue 8, "Plans"), read from EXPLAIN:

  skew      a frequent literal and a rare one of the same column give
            different join methods: the rare one few rows, looked up by
            key in the other table; the frequent one many rows, probing a
            hash table built on the smaller table
  order     a selective table is joined first whatever the FROM order, and
            the written order does not change the plan's shape
  q19       a join condition written inside every branch of an OR becomes
            a hash join (no nested loop), and the answer is the OR's
  chain     chains and stars of 20, 40 and 64 tables (and a chain of 30
            written as JOIN … ON) plan in well under a second — the
            server's CPU time for the EXPLAIN when its pid is known
            ($SRV_PID), else the wall clock — and have no nested-loop
            join (no cross product)
  transitive equivalence classes: `a.k = b.id AND a.k = 7` keys b's
            scan by the constant (b = 7); `a.k = b.k AND b.k = c.k` with
            a and c tiny and b large joins a and c by their implied
            equality, not by a cross product; answers as written
  answers   each query above answers the same rows as the same query with
            the tables in the opposite order
  semi      correlated EXISTS / IN become semi joins, NOT EXISTS and an
            uncorrelated NOT IN (null-aware) anti joins; a subquery joined
            by its correlation runs no per-row subplan, and answers as the
            same query written with a join / count
  full      FULL JOIN on an equality is a hash join, its table built on the
            smaller side (tables and derived tables, either written first)
  unique    equalities covering a unique index of two columns find one
            row each (the join's estimate is the other side's rows, not
            the product of the columns' separate selectivities: TPC-H Q9)
  outer     an ON conjunct on a LEFT JOIN's nullable side filters that
            side's scan, not the joined pairs, and the hash table is built
            on the smaller, preserved side (a RIGHT hash join: TPC-H Q13);
            the same for RIGHT JOIN
  probe     a few rows joined to a large table through the leading column
            of its index probe the index per row (an index nested loop,
            TPC-H Q19's part -> lineitem); many rows hash-join
  build     an inner hash join builds its table on the side with fewer rows:
            a few rows joined so far are built on and a large table's scan
            probes them (TPC-H Q18), whichever order the joins take
  scalar    a correlated min() subquery that joins a table without a
            key or index (hashed again on every run) is grouped once and
            joined, even for a few hundred outer rows (TPC-H Q2)
  lookagg   a correlated count() / sum() subquery over one table whose
            index its correlation leads, for a few hundred outer rows, is
            an Index Lookup Aggregate (TPC-H Q17, Q20): no per-row run,
            count() of a key without rows 0 (NULL keys too); many outer
            rows group the table once and hash-join it; answers as the
            LEFT JOIN / GROUP BY form. An uncorrelated IN over a unique
            column is an inner join: a few subquery rows probe the outer
            table's index (TPC-H Q20's parts then partsupp)
  cte       a WITH query named twice is computed once (one scan of its
            table under the first `CTE Scan`, both references CTE Scans;
            EXPLAIN ANALYZE: the table read once), also when the second
            reference is a scalar subquery (TPC-H Q15); named once, or
            NOT MATERIALIZED, it is inlined (no CTE Scan); MATERIALIZED
            named once is a CTE Scan; answers as the inlined form
Cadenza only (the plans are ours; PostgreSQL prints its own EXPLAIN).
Usage: regress_plans.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan as explain  # noqa: E402
import psycopg  # noqa: E402

P = "rplan_"
TABLES = ("fact", "dim", "pair", "line", "so", "si", "sd", "big", "small", "ta", "tb", "tc", "ord", "item",
          "cust", "lo")



def rows(cur, sql):
    cur.execute(sql)
    return sorted(cur.fetchall(), key=repr)


def setup(cur):
    cur.execute(f"CREATE TABLE {P}fact (id integer PRIMARY KEY, kind text, dim integer, amount integer)")
    cur.execute(f"CREATE TABLE {P}dim (id integer PRIMARY KEY, name text)")
    # 20000 facts: kind 'common' on all but 20 rows, which are 'rare'
    cur.execute(f"INSERT INTO {P}fact SELECT g, CASE WHEN g % 1000 = 0 THEN 'rare' ELSE 'common' END, "
                f"g % 2000, g % 7 FROM generate_series(1, 20000) g")
    cur.execute(f"INSERT INTO {P}dim SELECT g, 'd' || g FROM generate_series(0, 1999) g")


def check_skew(cur):
    q = (f"SELECT d.name, f.amount FROM {P}fact f, {P}dim d "
         f"WHERE f.dim = d.id AND f.kind = '%s'")
    rare, common = explain(cur, q % "rare"), explain(cur, q % "common")
    check("skew: the rare literal looks the other table up by key",
          "LookupJoin" in rare and "HashJoin" not in rare, rare)
    check("skew: the frequent literal hash-joins", "HashJoin" in common and "LookupJoin" not in common,
          common)
    check("skew: the plans differ", rare != common, rare)
    swapped = (f"SELECT d.name, f.amount FROM {P}dim d, {P}fact f "
               f"WHERE f.dim = d.id AND f.kind = 'rare'")
    check("answers: rare literal, either FROM order", rows(cur, q % "rare") == rows(cur, swapped))
    check("answers: rare literal has 20 rows", len(rows(cur, q % "rare")) == 20)


def check_order(cur):
    a = f"SELECT count(*) FROM {P}dim d, {P}fact f WHERE f.dim = d.id AND d.name = 'd7'"
    b = f"SELECT count(*) FROM {P}fact f, {P}dim d WHERE f.dim = d.id AND d.name = 'd7'"
    pa, pb = explain(cur, a), explain(cur, b)
    check("order: the written order does not change the plan's joins",
          [l.strip() for l in pa.splitlines() if "Join" in l] ==
          [l.strip() for l in pb.splitlines() if "Join" in l], pa + "\n---\n" + pb)
    check("order: no nested loop", "NestedLoop" not in pa, pa)
    check("answers: either FROM order", rows(cur, a) == rows(cur, b) == [(10,)], repr(rows(cur, a)))


def check_or(cur):
    q = (f"SELECT count(*), sum(f.amount) FROM {P}fact f, {P}dim d WHERE "
         f"(f.dim = d.id AND f.kind = 'rare' AND d.name LIKE 'd1%%') OR "
         f"(f.dim = d.id AND f.amount = 3 AND d.id < 50)")
    p = explain(cur, q)
    check("q19: a join key inside every OR branch makes a join without a nested loop",
          "NestedLoop" not in p and ("HashJoin" in p or "LookupJoin" in p), p)
    # the same answer computed without the factored form (a UNION of the branches)
    u = (f"SELECT count(*), sum(amount) FROM (SELECT f.id, f.amount FROM {P}fact f, {P}dim d "
         f"WHERE f.dim = d.id AND f.kind = 'rare' AND d.name LIKE 'd1%%' UNION "
         f"SELECT f.id, f.amount FROM {P}fact f, {P}dim d WHERE f.dim = d.id AND f.amount = 3 "
         f"AND d.id < 50) s")
    check("answers: OR with factored join key", rows(cur, q) == rows(cur, u),
          "%r vs %r" % (rows(cur, q), rows(cur, u)))


def check_semi(cur):
    ex = (f"SELECT count(*) FROM {P}dim d WHERE EXISTS "
          f"(SELECT 1 FROM {P}fact f WHERE f.dim = d.id AND f.kind = 'rare')")
    p = explain(cur, ex)
    check("semi: correlated EXISTS is a semi join", "SemiJoin" in p, p)
    check("why: EXPLAIN names the decorrelated EXISTS on its join",
          any("SemiJoin" in l and "(decorrelated EXISTS)" in l for l in p.splitlines()), p)
    check("answers: EXISTS as a semi join", rows(cur, ex) == [(2,)], repr(rows(cur, ex)))
    nex = ex.replace("WHERE EXISTS", "WHERE NOT EXISTS")
    p = explain(cur, nex)
    check("semi: correlated NOT EXISTS is an anti join", "AntiJoin" in p, p)
    check("why: EXPLAIN names the decorrelated NOT EXISTS on its join",
          any("AntiJoin" in l and "(decorrelated NOT EXISTS)" in l for l in p.splitlines()), p)
    check("answers: NOT EXISTS as an anti join", rows(cur, nex) == [(1998,)], repr(rows(cur, nex)))
    inq = f"SELECT count(*) FROM {P}dim d WHERE d.id IN (SELECT f.dim FROM {P}fact f WHERE f.amount = 3)"
    p = explain(cur, inq)
    check("semi: IN (subquery) is a semi join", "SemiJoin" in p, p)
    join = (f"SELECT count(DISTINCT d.id) FROM {P}dim d, {P}fact f "
            f"WHERE d.id = f.dim AND f.amount = 3")
    check("answers: IN as a semi join", rows(cur, inq) == rows(cur, join), repr(rows(cur, inq)))
    nin = inq.replace(" IN (", " NOT IN (")
    p = explain(cur, nin)
    check("semi: uncorrelated NOT IN is a null-aware anti join", "AntiJoin" in p and "null-aware" in p, p)
    check("why: EXPLAIN names the decorrelated NOT IN", "(decorrelated NOT IN)" in p, p)
    check("answers: NOT IN", rows(cur, nin)[0][0] == 2000 - rows(cur, join)[0][0], repr(rows(cur, nin)))
    # a subquery probing an index per row: per row for few outer rows, a semi join for many
    few = (f"SELECT count(*) FROM {P}fact f WHERE f.kind = 'rare' AND "
           f"EXISTS (SELECT 1 FROM {P}dim d WHERE d.id = f.dim)")
    p = explain(cur, few)
    check("semi: few outer rows probe the subquery's key, a batch at a time",
          f"Index Lookup Semi Join  {P}dim using" in p and "HashSemiJoin" not in p, p)
    check("answers: EXISTS by index lookup", rows(cur, few) == [(20,)], repr(rows(cur, few)))
    many = few.replace("f.kind = 'rare'", "f.kind = 'common'")
    p = explain(cur, many)
    check("semi: many outer rows hash the subquery once", "HashSemiJoin" in p and "Index Lookup" not in p, p)
    check("answers: EXISTS as a semi join over a key", rows(cur, many) == [(19980,)], repr(rows(cur, many)))
    # an aggregate in the subquery keeps the per-row path (and its answer)
    agg = (f"SELECT count(*) FROM {P}dim d WHERE EXISTS (SELECT 1 FROM {P}fact f WHERE f.dim = d.id "
           f"GROUP BY f.dim HAVING count(*) > 9)")
    p = explain(cur, agg)
    check("semi: a grouped subquery stays per row", "SemiJoin" not in p, p)
    check("why: EXPLAIN says the filter runs its subquery per row",
          any(l.lstrip("-> ").startswith("Filter") and "(SubPlan (per row))" in l
              for l in p.splitlines()) and "decorrelated" not in p, p)
    # a correlated NOT IN keeps its NULL rules per outer row
    cnin = (f"SELECT count(*) FROM {P}dim d WHERE d.id NOT IN "
            f"(SELECT f.dim FROM {P}fact f WHERE f.amount = d.id)")
    p = explain(cur, cnin)
    check("why: a correlated NOT IN stays per row", "(SubPlan (per row))" in p and "AntiJoin" not in p, p)
    check("answers: grouped EXISTS", rows(cur, agg) == [(2000,)], repr(rows(cur, agg)))


def check_full(cur):
    q = (f"SELECT count(*), count(f.id), count(d.id), sum(f.id), sum(d.id) FROM {P}fact f "
         f"FULL JOIN {P}dim d ON f.dim = d.id AND f.amount = 3 AND d.id < 1000")
    p = explain(cur, q)
    check("full: FULL JOIN on an equality hash-joins", "HashJoin  full" in p, p)
    nl = q.replace("f.dim = d.id", "f.dim + 0 = d.id")
    pn = explain(cur, nl)
    check("full: without a column equality it is a nested loop", "NestedLoopJoin  full" in pn, pn)
    check("answers: FULL JOIN by hash and by nested loop", rows(cur, q) == rows(cur, nl),
          "%r vs %r" % (rows(cur, q), rows(cur, nl)))
    # the hash table on the smaller side (dim, 2000 rows against 20000),
    # whichever side is written first; a derived side by its estimate
    for q in (f"SELECT count(*), count(f.id), count(d.id) FROM {P}dim d FULL JOIN {P}fact f "
              f"ON f.dim = d.id",
              f"SELECT count(*), count(f.id), count(d.id) FROM {P}fact f FULL JOIN {P}dim d "
              f"ON f.dim = d.id",
              f"SELECT count(*), count(f.id), count(d.id) FROM (SELECT dim, id FROM {P}fact "
              f"WHERE amount >= 0) f FULL JOIN (SELECT id FROM {P}dim) d ON f.dim = d.id"):
        p = explain(cur, q)
        lines = [x.strip() for x in p.splitlines()]
        scans = [x for x in lines if x.startswith("-> Scan")]
        check("full: the hash table is built on the smaller side (the dim scan is the "
              "join's second input)", "HashJoin  full" in p and scans and "dim" in scans[-1], p)
        check("answers: FULL JOIN built on either side", rows(cur, q) == [(20000, 20000, 20000)],
              repr(rows(cur, q)))


def est_rows(line):
    import re
    m = re.search(r"estimated rows=(\d+)", line)
    return int(m.group(1)) if m else -1


def check_unique(cur):
    cur.execute(f"CREATE TABLE {P}pair (a integer, b integer, v integer)")
    cur.execute(f"CREATE UNIQUE INDEX {P}pair_ab ON {P}pair (a, b)")
    cur.execute(f"CREATE TABLE {P}line (id integer PRIMARY KEY, a integer, b integer)")
    # a has 20000 values, b 1000: independence would give 20000 * 20000 / 2e7 = 20 rows
    cur.execute(f"INSERT INTO {P}pair SELECT g, g % 1000, g % 13 FROM generate_series(0, 19999) g")
    cur.execute(f"INSERT INTO {P}line SELECT g, (g * 7) % 20000, ((g * 7) % 20000) % 1000 "
                f"FROM generate_series(0, 19999) g")
    q = f"SELECT count(*), sum(p.v) FROM {P}line l, {P}pair p WHERE l.a = p.a AND l.b = p.b"
    p = explain(cur, q)
    joins = [est_rows(x) for x in p.splitlines() if "Join" in x]
    check("unique: a join on a two-column unique index is estimated at the other side's rows",
          joins and joins[0] >= 5000, p)
    got = rows(cur, q)
    check("answers: join on a two-column unique index", got[0][0] == 20000, repr(got))


def check_outer(cur):
    q = (f"SELECT count(*), count(f.id), sum(f.amount) FROM {P}dim d LEFT JOIN {P}fact f "
         f"ON f.dim = d.id AND f.kind = 'rare'")
    p = explain(cur, q)
    scan = [x for x in p.splitlines() if f"Scan  {P}fact" in x]
    check("outer: the nullable side's own ON conjunct is tested by its scan",
          scan and "kind = 'rare'" in scan[0] and "filter" not in p, p)
    check("outer: the hash table is built on the smaller, preserved side", "HashJoin  right" in p, p)
    derived = (f"SELECT count(*), count(f.id), sum(f.amount) FROM {P}dim d LEFT JOIN "
               f"(SELECT * FROM {P}fact WHERE kind = 'rare') f ON f.dim = d.id")
    got = rows(cur, q)
    check("answers: LEFT JOIN with the condition pushed", got == rows(cur, derived) and got[0][:2] == (2018, 20),
          "%r vs %r" % (got, rows(cur, derived)))
    r = (f"SELECT count(*), count(f.id), sum(f.amount) FROM {P}fact f RIGHT JOIN {P}dim d "
         f"ON f.dim = d.id AND f.kind = 'rare'")
    pr = explain(cur, r)
    check("outer: RIGHT JOIN too", "HashJoin  right" in pr and "filter" not in pr, pr)
    check("answers: RIGHT JOIN with the condition pushed", rows(cur, r) == got, repr(rows(cur, r)))
    cols = (f"SELECT d.name, f.kind FROM {P}dim d LEFT JOIN {P}fact f ON f.dim = d.id AND f.amount = 2 "
            f"AND d.id < 3 ORDER BY 1, 2")
    check("answers: LEFT JOIN columns after the swap",
          rows(cur, cols) == rows(cur, cols.replace("f.amount = 2", "f.amount + 0 = 2")),
          repr(rows(cur, cols)[:5]))


def check_probe(cur):
    cur.execute(f"CREATE TABLE {P}big (id integer PRIMARY KEY, grp integer, val integer)")
    cur.execute(f"CREATE INDEX {P}big_grp ON {P}big (grp)")
    cur.execute(f"CREATE TABLE {P}small (id integer PRIMARY KEY, name text)")
    cur.execute(f"INSERT INTO {P}big SELECT g, g % 1000, g % 97 FROM generate_series(0, 49999) g")
    cur.execute(f"INSERT INTO {P}small SELECT g, 'n' || (g % 100) FROM generate_series(0, 999) g")
    q = (f"SELECT count(*), sum(b.val) FROM {P}small s, {P}big b "
         f"WHERE b.grp = s.id AND s.name = 'n7' AND b.val > 3")
    p = explain(cur, q)
    check("probe: few rows probe the large table's index, a batch of keys at a time",
          f"Index Lookup Join  {P}big using {P}big_grp (grp = " in p and "HashJoin" not in p
          and "Lateral" not in p, p)
    many = q.replace(" AND s.name = 'n7'", "")
    pm = explain(cur, many)
    check("probe: many rows hash-join instead", "HashJoin" in pm and "Lateral" not in pm
          and "Index Lookup" not in pm, pm)
    plain = q.replace("b.grp = s.id", "b.grp + 0 = s.id")
    got = rows(cur, q)
    check("answers: index nested loop", got == rows(cur, plain) and got[0][0] == 480,
          "%r vs %r" % (got, rows(cur, plain)))
    check("answers: hash join of the same", rows(cur, many) == rows(cur, many.replace("b.grp = s.id", "b.grp + 0 = s.id")))
    # a NULL key value finds nothing
    cur.execute(f"INSERT INTO {P}small VALUES (-1, 'n7')")
    cur.execute(f"INSERT INTO {P}big VALUES (-5, NULL, 50)")
    got = rows(cur, q)
    check("answers: index nested loop with NULL keys", got == rows(cur, plain), repr(got))


def check_index_join(cur):
    """Index lookup joins of decorrelated EXISTS / NOT EXISTS (TPC-H Q4,
    Q21, Q22's shapes) on a primary key prefix and a secondary index,
    chosen for few outer rows against a large table, not for many."""
    cur.execute(f"CREATE TABLE {P}ord (id integer PRIMARY KEY, cust integer, day integer)")
    cur.execute(f"CREATE TABLE {P}item (ord integer, line integer, supp integer, late integer, "
                f"PRIMARY KEY (ord, line))")
    cur.execute(f"CREATE INDEX {P}ord_cust ON {P}ord (cust)")
    cur.execute(f"INSERT INTO {P}ord SELECT g, g % 3000, g % 365 FROM generate_series(1, 20000) g")
    cur.execute(f"INSERT INTO {P}item SELECT g / 4 + 1, g % 4, g % 13, g % 3 FROM generate_series(0, 79999) g")
    cur.execute(f"CREATE TABLE {P}cust (id integer PRIMARY KEY, seg integer)")
    cur.execute(f"INSERT INTO {P}cust SELECT g, g % 50 FROM generate_series(0, 3999) g")
    q4 = (f"SELECT count(*) FROM {P}ord o WHERE o.day = 7 AND EXISTS "
          f"(SELECT * FROM {P}item i WHERE i.ord = o.id AND i.late > 0)")
    p = explain(cur, q4)
    check("index join: EXISTS over a key prefix is an index lookup semi join",
          f"Index Lookup Semi Join  {P}item using" in p and "(ord = $" in p and "filter" in p
          and "HashSemiJoin" not in p, p)
    plain = q4.replace("i.ord = o.id", "i.ord = o.id + 0")
    got = rows(cur, q4)
    check("answers: index lookup semi join", got == rows(cur, plain) and got[0][0] > 0,
          "%r vs %r" % (got, rows(cur, plain)))
    q21 = (f"SELECT count(*) FROM {P}item a WHERE a.ord < 300 AND a.late = 2 AND EXISTS "
           f"(SELECT * FROM {P}item b WHERE b.ord = a.ord AND b.supp <> a.supp) AND NOT EXISTS "
           f"(SELECT * FROM {P}item c WHERE c.ord = a.ord AND c.supp <> a.supp AND c.late = 0 AND c.line < a.line)")
    p = explain(cur, q21)
    check("index join: EXISTS and NOT EXISTS with residuals probe the key prefix",
          f"Index Lookup Semi Join  {P}item" in p and f"Index Lookup Anti Join  {P}item" in p, p)
    plain = q21.replace("b.ord = a.ord", "b.ord = a.ord + 0").replace("c.ord = a.ord", "c.ord = a.ord + 0")
    got = rows(cur, q21)
    check("answers: index lookup semi and anti joins", got == rows(cur, plain) and got[0][0] > 0,
          "%r vs %r" % (got, rows(cur, plain)))
    q22 = (f"SELECT count(*) FROM {P}cust c WHERE c.seg = 3 AND NOT EXISTS "
           f"(SELECT * FROM {P}ord o WHERE o.cust = c.id)")
    p = explain(cur, q22)
    check("index join: NOT EXISTS over a secondary index is an index lookup anti join",
          f"Index Lookup Anti Join  {P}ord using {P}ord_cust (cust = $" in p, p)
    plain = q22.replace("o.cust = c.id", "o.cust = c.id + 0")
    got = rows(cur, q22)
    check("answers: index lookup anti join", got == rows(cur, plain) and got[0][0] > 0,
          "%r vs %r" % (got, rows(cur, plain)))
    many = (f"SELECT count(*) FROM {P}item i WHERE EXISTS (SELECT * FROM {P}cust c WHERE c.seg = i.supp)")
    p = explain(cur, many)
    check("index join: many outer rows against a small table hash it", "Index Lookup" not in p, p)
    inner = (f"SELECT count(*), sum(i.supp) FROM {P}ord o, {P}item i WHERE i.ord = o.id AND o.day = 7")
    p = explain(cur, inner)
    check("index join: a few rows join a large table by a key prefix",
          f"Index Lookup Join  {P}item using" in p and "HashJoin" not in p, p)
    got = rows(cur, inner)
    check("answers: index lookup inner join",
          got == rows(cur, inner.replace("i.ord = o.id", "i.ord = o.id + 0")), repr(got))
    for t in ("ord", "item", "cust"):
        cur.execute(f"DROP TABLE {P}{t}")


def hash_build_side(plan):
    """The build (second) input's subtree of the first HashJoin in plan."""
    lines = plan.split("\n")
    for i, ln in enumerate(lines):
        if "HashJoin" not in ln:
            continue
        depth = len(ln) - len(ln.lstrip())
        kids = [j for j in range(i + 1, len(lines))
                if len(lines[j]) - len(lines[j].lstrip()) == depth + 2]
        end = next((j for j in range(i + 1, len(lines))
                    if len(lines[j]) - len(lines[j].lstrip()) <= depth), len(lines))
        return "\n".join(lines[kids[1]:end]) if len(kids) > 1 else ""
    return ""


def check_build(cur):
    # fact.dim has no index: a hash join either way; 5 dim rows, 20000 facts
    q = (f"SELECT d.name, sum(f.amount) FROM {P}fact f, {P}dim d, {P}dim e "
         f"WHERE f.dim = d.id AND d.id = e.id AND e.id < 5 GROUP BY d.name")
    p = explain(cur, q)
    build = hash_build_side(p)
    check("build: the hash table is built on the few joined rows, the large table probes",
          build and f"{P}fact" not in build and "Scan" in build, p)
    got = rows(cur, q)
    plain = (f"SELECT d.name, sum(f.amount) FROM {P}dim d JOIN {P}fact f ON f.dim + 0 = d.id "
             f"WHERE d.id < 5 GROUP BY d.name")
    check("answers: hash join built on the joined rows", got == rows(cur, plain) and len(got) == 5,
          "%r vs %r" % (got, rows(cur, plain)))


def check_scalar(cur):
    cur.execute(f"CREATE TABLE {P}so (id integer PRIMARY KEY, k integer)")
    cur.execute(f"CREATE TABLE {P}si (id integer PRIMARY KEY, k integer, v integer)")
    cur.execute(f"CREATE INDEX {P}si_k ON {P}si (k)")
    cur.execute(f"CREATE TABLE {P}sd (id integer, name text)")  # no key, no index: hashed per run
    cur.execute(f"INSERT INTO {P}so SELECT g, (g * 7) % 3000 FROM generate_series(0, 299) g")
    cur.execute(f"INSERT INTO {P}si SELECT g, g % 3000, (g * 31) % 50 FROM generate_series(0, 29999) g")
    cur.execute(f"INSERT INTO {P}sd SELECT g, 'n' || g FROM generate_series(0, 2999) g")
    q = (f"SELECT count(*) FROM {P}so o WHERE 5 > (SELECT min(i.v) FROM {P}si i, {P}sd d "
         f"WHERE i.k = o.k AND d.id = i.k AND d.name <> 'none')")
    p = explain(cur, q)
    check("scalar: a min() subquery hashing a table per run is grouped once and joined",
          "HashAggregate  1 keys" in p, p)
    check("why: EXPLAIN names the decorrelated scalar subquery", "(decorrelated scalar subquery)" in p, p)
    g = (f"SELECT count(*) FROM {P}so o, (SELECT i.k, min(i.v) m FROM {P}si i, {P}sd d "
         f"WHERE d.id = i.k AND d.name <> 'none' GROUP BY i.k) g WHERE g.k = o.k AND 5 > g.m")
    got = rows(cur, q)
    check("answers: grouped scalar subquery", got == rows(cur, g) and got[0][0] > 0,
          "%r vs %r" % (got, rows(cur, g)))
    # many outer rows: joined on any plan; the comparison reads the
    # subquery's value, a column past the block's row (it once read garbage)
    cur.execute(f"INSERT INTO {P}so SELECT g, (g * 7) % 3000 FROM generate_series(300, 29999) g")
    got = rows(cur, q)
    check("answers: grouped scalar subquery over many outer rows",
          got == rows(cur, g) and got[0][0] == 3000, "%r vs %r" % (got, rows(cur, g)))


def check_lookagg(cur):
    """After check_scalar: si has 30000 rows indexed on k (0..2999)."""
    cur.execute(f"CREATE TABLE {P}lo (id integer PRIMARY KEY, k integer, q integer)")
    cur.execute(f"INSERT INTO {P}lo SELECT g, CASE WHEN g % 37 = 0 THEN NULL ELSE (g * 13) % 3500 END, g % 300 "
                f"FROM generate_series(0, 299) g")
    cnt = f"SELECT count(*), sum(id) FROM {P}lo o WHERE (SELECT count(*) FROM {P}si i WHERE i.k = o.k) = %d"
    cnt_j = (f"SELECT count(*), sum(o.id) FROM {P}lo o LEFT JOIN (SELECT k, count(*) c FROM {P}si GROUP BY k) g "
             f"ON g.k = o.k WHERE coalesce(g.c, 0) = %d")
    p = explain(cur, cnt % 0)
    check("lookagg: count() per outer row is an Index Lookup Aggregate", "Index Lookup Aggregate" in p, p)
    for n in (0, 10):
        got = rows(cur, cnt % n)
        check(f"answers: count() = {n} by index lookup aggregate", got == rows(cur, cnt_j % n) and got[0][0] > 0,
              "%r vs %r" % (got, rows(cur, cnt_j % n)))
    sm = f"SELECT count(*), sum(id) FROM {P}lo o WHERE o.q < (SELECT 0.5 * sum(i.v) FROM {P}si i WHERE i.k = o.k)"
    sm_j = (f"SELECT count(*), sum(o.id) FROM {P}lo o, (SELECT k, 0.5 * sum(v) s FROM {P}si GROUP BY k) g "
            f"WHERE g.k = o.k AND o.q < g.s")
    p = explain(cur, sm)
    check("lookagg: sum() for a few outer rows is an Index Lookup Aggregate",
          "Index Lookup Aggregate" in p and "HashAggregate  1 keys" not in p, p)
    got = rows(cur, sm)
    check("answers: sum() by index lookup aggregate", got == rows(cur, sm_j) and got[0][0] > 0,
          "%r vs %r" % (got, rows(cur, sm_j)))
    inq = f"SELECT count(*), sum(i.v) FROM {P}si i WHERE i.k IN (SELECT id FROM {P}so WHERE id < 20)"
    p = explain(cur, inq)
    check("lookagg: IN over a primary key with few rows probes the outer table's index",
          "Index Lookup Join" in p and "Semi" not in p, p)
    inj = f"SELECT count(*), sum(i.v) FROM {P}si i, {P}so s WHERE i.k = s.id AND s.id < 20"
    got = rows(cur, inq)
    check("answers: IN over a primary key as an inner join", got == rows(cur, inj) and got[0][0] == 200,
          "%r vs %r" % (got, rows(cur, inj)))
    many = sm.replace(f"{P}lo o", f"{P}so o").replace("o.q", "o.id % 300")
    p = explain(cur, many)
    check("lookagg: sum() for many outer rows groups the table once", "HashAggregate  1 keys" in p
          and "Index Lookup Aggregate" not in p, p)


def server_cpu():
    """The shared server's CPU time in seconds (user + system), or None
    when its pid is not known here (another machine, PostgreSQL)."""
    pid = os.environ.get("SRV_PID")
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, TypeError):
        return None


def planning_time(cur, sql):
    """EXPLAIN's cost to the server: CPU seconds when measurable (the
    machine may be loaded; CPU time is what planning itself spends), else
    wall-clock seconds. Returns (plan text, seconds, what was measured)."""
    c0, t0 = server_cpu(), time.time()
    p = explain(cur, sql)
    c1, t1 = server_cpu(), time.time()
    if c0 is not None and c1 is not None:
        return p, c1 - c0, "CPU"
    return p, t1 - t0, "wall"


def check_transitive(cur):
    cur.execute(f"CREATE TABLE {P}ta (id integer PRIMARY KEY, k integer)")
    cur.execute(f"CREATE TABLE {P}tb (id integer PRIMARY KEY, k integer)")
    cur.execute(f"CREATE TABLE {P}tc (id integer PRIMARY KEY, k integer)")
    cur.execute(f"INSERT INTO {P}ta SELECT g, g % 50 FROM generate_series(1, 2000) g")
    cur.execute(f"INSERT INTO {P}tb SELECT g, g % 50 FROM generate_series(1, 20000) g")
    cur.execute(f"INSERT INTO {P}tc SELECT g, g % 50 FROM generate_series(1, 2000) g")
    q = f"SELECT count(*) FROM {P}ta a, {P}fact f, {P}dim d WHERE a.k = f.dim AND f.dim = d.id AND a.k = 7"
    p = explain(cur, q)
    check("transitive: a.k = d.id and a.k = 7 key d's scan by 7",
          f"{P}dim d (lookup on 1 key column)" in p, p)
    got = rows(cur, q)
    want = rows(cur, f"SELECT count(*) FROM {P}ta a, {P}fact f, {P}dim d WHERE a.k = 7 AND f.dim = 7 AND d.id = 7")
    check("answers: transitive constant", got == want and got[0][0] > 0, "%r vs %r" % (got, want))
    # a and c filtered to one row each, b large: a x c is one row as a cross
    # product too, but the implied a.k = c.k makes it a join
    q = (f"SELECT count(*) FROM {P}ta a, {P}tb b, {P}tc c "
         f"WHERE a.k = b.k AND b.k = c.k AND a.id = 7 AND c.id = 57")
    p = explain(cur, q)
    check("transitive: a.k = b.k and b.k = c.k join a and c without a cross product",
          "NestedLoop" not in p, p)
    got = rows(cur, q)
    want = rows(cur, f"SELECT count(*) FROM {P}tb b WHERE b.k = 7")
    check("answers: transitive join", got == want and got[0][0] > 0, "%r vs %r" % (got, want))
    for t in ("ta", "tb", "tc"):
        cur.execute(f"DROP TABLE {P}{t}")


def check_many(cur, n, star, explicit=False):
    names = [f"{P}m{i}" for i in range(n)]
    for i, t in enumerate(names):
        cur.execute(f"DROP TABLE IF EXISTS {t}")
        cur.execute(f"CREATE TABLE {t} (a{i} integer PRIMARY KEY, b{i} integer, x{i} text)")
        cur.execute(f"INSERT INTO {t} SELECT g, g % 10, 'v' || g FROM generate_series(0, 9) g")
    # chain: b(i) = a(i+1); star: b0... every table joins the first one
    conds = [(f"b0 = a{i}" if star else f"b{i - 1} = a{i}") for i in range(1, n)] + ["a0 = 3"]
    # list the tables so that neighbours in the FROM list have no condition between them
    order = names[::2] + names[1::2]
    if explicit:  # the same as JOIN … ON, each ON holding the conditions its items allow
        placed, sql, seen = set(), "SELECT count(*) FROM " + order[0], {order[0]}
        for t in order[1:]:
            seen.add(t)
            mine = [c for c in conds if c not in placed and
                    all(f"{P}m{x[1:]}" in seen for x in c.replace("=", " ").split() if x[0] in "ab")]
            placed.update(mine)
            sql += f" JOIN {t} ON " + (" AND ".join(mine) if mine else "true")
    else:
        sql = "SELECT count(*) FROM " + ", ".join(order) + " WHERE " + " AND ".join(conds)
    p, took, what = planning_time(cur, sql)
    kind = ("star" if star else "chain") + (" of JOINs" if explicit else "")
    check(f"{kind} of {n} tables plans in under a second ({took:.2f} s {what})", took < 1.0)
    check(f"{kind} of {n} tables has no cross product", "NestedLoop" not in p, p[:2000])
    got = rows(cur, sql)
    check(f"{kind} of {n} tables answers one row", got == [(1,)], repr(got))
    for t in names:
        cur.execute(f"DROP TABLE {t}")


def check_cte(cur):
    body = f"SELECT dim, sum(amount) AS t FROM {P}fact GROUP BY dim"
    two = f"WITH s AS ({body}) SELECT count(*) FROM s a JOIN s b ON a.dim = b.dim + 1 AND a.t > b.t"
    p = explain(cur, two)
    check("cte: named twice, both references scan one worktable",
          p.count("CTE Scan  on s") == 2 and p.count(f"Scan  {P}fact") == 1, p)
    cur.execute("EXPLAIN ANALYZE " + two)
    pa = "\n".join(r[0] for r in cur.fetchall())
    scans = [ln for ln in pa.splitlines() if f"Scan  {P}fact" in ln]
    check("cte: EXPLAIN ANALYZE reads the table once",
          len(scans) == 1 and "(rows=20000)" in scans[0] and pa.count("(rows=2000)") >= 2, pa)
    q15 = f"WITH s AS ({body}) SELECT dim FROM s WHERE t = (SELECT max(t) FROM s)"
    p = explain(cur, q15)
    check("cte: FROM and a scalar subquery share the worktable (TPC-H Q15)",
          p.count("CTE Scan  on s") == 1, p)
    one = f"WITH s AS ({body}) SELECT count(*) FROM s WHERE t > 20"
    p = explain(cur, one)
    check("cte: named once it is inlined", "CTE Scan" not in p, p)
    nm = two.replace("AS (", "AS NOT MATERIALIZED (", 1)
    p = explain(cur, nm)
    check("cte: NOT MATERIALIZED is inlined at each reference",
          "CTE Scan" not in p and p.count(f"Scan  {P}fact") == 2, p)
    m = one.replace("AS (", "AS MATERIALIZED (", 1)
    p = explain(cur, m)
    check("cte: MATERIALIZED named once is a CTE Scan", p.count("CTE Scan  on s") == 1, p)
    inl = (f"SELECT count(*) FROM ({body}) a JOIN ({body}) b ON a.dim = b.dim + 1 AND a.t > b.t")
    check("answers: CTE named twice as inlined", rows(cur, two) == rows(cur, inl) == rows(cur, nm),
          "%r %r" % (rows(cur, two), rows(cur, inl)))
    check("answers: CTE named once, MATERIALIZED or not", rows(cur, one) == rows(cur, m),
          "%r %r" % (rows(cur, one), rows(cur, m)))
    inl15 = f"SELECT dim FROM ({body}) s WHERE t = (SELECT max(t) FROM ({body}) s2)"
    check("answers: Q15's shape", rows(cur, q15) == rows(cur, inl15), repr(rows(cur, q15)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    if args.kind != "cadenza":
        return checks.skip("the plans checked are Cadenza's")
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        cur = conn.cursor()
        for t in TABLES:
            cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
        setup(cur)
        try:
            check_skew(cur)
            check_order(cur)
            check_or(cur)
            check_semi(cur)
            check_full(cur)
            check_unique(cur)
            check_outer(cur)
            check_probe(cur)
            check_index_join(cur)
            check_build(cur)
            check_scalar(cur)
            check_lookagg(cur)
            check_cte(cur)
            check_transitive(cur)
            check_many(cur, 20, False)
            check_many(cur, 20, True)
            check_many(cur, 40, False)
            check_many(cur, 40, True)
            check_many(cur, 64, False)
            check_many(cur, 64, True)
            check_many(cur, 30, False, explicit=True)
        finally:
            for t in TABLES:
                cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

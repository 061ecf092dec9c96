#!/usr/bin/env python3
"""isolated_spill — hash join, GROUP BY and ORDER BY past MaxQueryMem spill
to temporary files and answer as they do in memory.

Issue 8, item 5. Its own server with a small MaxQueryMem (SMALL_MEM) and a
MaxTempSpace (TEMP_LIMIT); tables whose hash table, groups and sort rows
are each several times MaxQueryMem. Checked:

- a hash join (inner and LEFT, NULL keys on both sides), a GROUP BY
  (count, sum, min/max of text, string_agg, count(DISTINCT), a NULL
  group) and an ORDER BY (two keys, DESC, duplicates: the sort is stable)
  each complete under SMALL_MEM with files appearing in the temporary
  folder while they run, and return exactly what the same statements
  return after a restart with MaxQueryMem = 1G (the sort also against
  the order computed here); the temporary folder is empty after each;
- RIGHT, FULL, SEMI and ANTI hash joins (residual conditions, NULL keys,
  NOT IN with and without a NULL on the right), a DISTINCT and a UNION spill and
  answer what is computed here from the tables' rows;
- a statement far past every limit (a cross product sorted: more temporary
  bytes than MaxTempSpace) fails with 53400 and the server keeps serving,
  its files gone;
- a cancel request and statement_timeout during a spill stop the statement
  within CANCEL_BOUND seconds (57014), its files gone;
- with MaxServerQueryMem below three statements' MaxQueryMem, three
  sessions spilling at once each answer right or get 53200, and the
  server stays up;
- at start the server removes spill files an earlier server left in the
  folder (and nothing else).

Usage: isolated_spill.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

ROWS = 300000
SMALL_MEM = "6M"
SMALL_BYTES = 6 << 20
TEMP_LIMIT = "256M"
CANCEL_BOUND = 0.5   # seconds from the cancel to the error (the issue: 100 ms in the server)
TIMEOUT_MS = 120000

JOIN_SQL = ("select a.id, a.j, b.id, b.w from sp_a a left join sp_b b on a.j = b.j")
INNER_SQL = ("select count(*), sum(a.id), sum(b.id), max(b.w), min(b.w) "
             "from sp_a a join sp_b b on a.j = b.j")
# Groups of two rows, and one NULL group of 300 (a single group's string_agg
# text is one value: it has to fit in memory).
GROUP_SQL = ("select case when a.id % 1000 = 0 then null else a.id / 2 end as g, count(*), "
             "sum(a.id), min(a.w), max(a.w), string_agg(a.w, ','), count(distinct a.id % 3), "
             "count(a.j) from sp_a a group by 1")
SORT_SQL = "select substr(w, 1, 4) as p, id, w from sp_a order by p desc, j"
# The other hash join kinds, each answering one row of aggregates (the
# answers computed here from the tables' rows, kinds_want).
KIND_SQL = (
    # the planner may build this as a LEFT join of sp_b (either side spills)
    ("right join", "select count(*), count(a.id), count(b.id), sum(a.id), sum(b.id), "
     "max(b.w) from sp_a a right join sp_b b on a.j = b.j", "HashJoin"),
    ("full join", "select count(*), count(a.id), count(b.id), sum(a.id), sum(b.id), "
     "max(a.w), max(b.w) from sp_a a full join sp_b b on a.j = b.j", "HashJoin  full"),
    ("semi join", "select count(*), sum(a.id) from sp_a a where exists "
     "(select 1 from sp_b b where b.j = a.j and b.w > a.w)", "HashSemiJoin"),
    ("anti join", "select count(*), sum(a.id) from sp_a a where not exists "
     "(select 1 from sp_b b where b.j = a.j and b.w > a.w)", "HashAntiJoin"),
    ("not in, a NULL inside", "select count(*) from sp_a a where a.j not in "
     "(select b.j from sp_b b where b.w > 'b')", "HashAntiJoin"),
    ("not in", "select count(*), sum(a.id) from sp_a a where a.j not in "
     "(select b.j from sp_b b where b.j is not null and b.w > 'b')", "HashAntiJoin"),
    # DISTINCT over 900000 rows, 600000 distinct (sp_a's twice), NULLs equal
    ("distinct", "select count(*), count(j), sum(j), max(w), min(w), sum(length(w)) from "
     "(select distinct j, w from (select j, w from sp_a union all select j, w from sp_b "
     "union all select j, w from sp_a) u) s", "Distinct"),
    # UNION (DISTINCT over UNION ALL): the same rows
    ("union", "select count(*), count(j), sum(j), max(w), min(w), sum(length(w)) from "
     "(select j, w from sp_a union select j, w from sp_b union select j, w from sp_a) s",
     "Distinct"),
)


def kinds_want(base, brows):
    """What KIND_SQL answers, computed from (id, j, w) rows of sp_a, sp_b."""
    bj, aj = {}, {}
    for bid, j, w in brows:
        if j is not None:
            bj.setdefault(j, []).append((bid, w))
    for aid, j, w in base:
        if j is not None:
            aj.setdefault(j, []).append((aid, w))
    pairs = [(aid, aw, bid, bw) for aid, j, aw in base if j is not None
             for bid, bw in bj.get(j, ())]
    a_un = [(aid, aw) for aid, j, aw in base if j is None or j not in bj]
    b_un = [(bid, bw) for bid, j, bw in brows if j is None or j not in aj]
    right = (len(pairs) + len(b_un), len(pairs), len(pairs) + len(b_un),
             sum(p[0] for p in pairs) or None, sum(p[2] for p in pairs) + sum(b[0] for b in b_un),
             max([p[3] for p in pairs] + [b[1] for b in b_un]))
    full = (len(pairs) + len(a_un) + len(b_un), len(pairs) + len(a_un), len(pairs) + len(b_un),
            sum(p[0] for p in pairs) + sum(a[0] for a in a_un),
            sum(p[2] for p in pairs) + sum(b[0] for b in b_un),
            max([p[1] for p in pairs] + [a[1] for a in a_un]),
            max([p[3] for p in pairs] + [b[1] for b in b_un]))
    semi_ids = {aid for aid, aw, bid, bw in pairs if bw > aw}
    semi = (len(semi_ids), sum(semi_ids) or None)
    anti_ids = [aid for aid, _j, _w in base if aid not in semi_ids]
    anti = (len(anti_ids), sum(anti_ids) or None)
    bset = {j for _bid, j, _w in brows if j is not None}
    notin = [aid for aid, j, _w in base if j is not None and j not in bset]
    dist = set((j, w) for _i, j, w in base) | set((j, w) for _i, j, w in brows)
    distinct = (len(dist), sum(1 for j, _w in dist if j is not None),
                sum(j for j, _w in dist if j is not None), max(w for _j, w in dist),
                min(w for _j, w in dist), sum(len(w) for _j, w in dist))
    return {"distinct": distinct, "union": distinct, "right join": right, "full join": full, "semi join": semi, "anti join": anti,
            "not in, a NULL inside": (0,), "not in": (len(notin), sum(notin) or None)}


def run_kinds(c, srv, want):
    """KIND_SQL under the small MaxQueryMem: hash joins, spilled, right."""
    for name, sql, node in KIND_SQL:
        plan = "\n".join(r[0] for r in c.execute("explain " + sql).fetchall())
        check("%s: the plan has a %s" % (name, node), node in plan, plan)
        t0 = time.time()
        with checks.Peak(lambda: len(temp_files(srv)), 0.01) as fw:
            try:
                row, err = tuple(c.execute(sql).fetchone()), None
            except Exception as ex:  # noqa: BLE001
                row, err = None, "%s %s" % (getattr(ex, "sqlstate", ""), str(ex).splitlines()[0])
        print("# %-22s %6.1f s, most files at once %d%s"
              % (name, time.time() - t0, fw.peak, ", " + err if err else ""))
        check("%s past MaxQueryMem answers" % name, err is None, err or "")
        # NOT IN over a right side with a NULL key is decided from the right
        # side alone, before the left one is partitioned (it still spills
        # the right side: the NULL comes late).
        check("%s past MaxQueryMem spilled (temporary files seen)" % name, fw.peak > 0,
              "no file seen")
        check("%s past MaxQueryMem: the computed answer" % name, row == want[name],
              "%s, want %s" % (row, want[name]))
    check("no temporary file left after the join kinds", temp_files(srv) == [],
          str(temp_files(srv)))


FAR_SQL = ("select count(*) from (select a.w || b.w as x from sp_a a, sp_a b "
           "where b.id < 60 order by x) s")
CANCEL_SQL = ("select count(*) from (select a.w || b.w as x from sp_a a, sp_a b "
              "where b.id < 40 order by x) s")


def connect(srv):
    import psycopg
    c = psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10)
    c.execute("set statement_timeout = %d" % TIMEOUT_MS)
    return c


def temp_dir(srv):
    return os.path.join(srv.folder, "cadenza-temp")


def temp_files(srv):
    try:
        return [f for f in os.listdir(temp_dir(srv)) if f.endswith(".spill")]
    except OSError:
        return []


def alive(srv):
    try:
        with connect(srv) as c:
            return c.execute("select 1").fetchone()[0] == 1
    except Exception:
        return False


def load(c):
    c.execute("drop table if exists sp_a")
    c.execute("drop table if exists sp_b")
    # j: every fourth NULL; w: 40 bytes, its first 4 characters repeat
    # (duplicate sort keys), not in id order.
    c.execute("create table sp_a(id integer primary key, j integer, w varchar(60))")
    c.execute("insert into sp_a select i, case when i %% 4 = 0 then null else i end, "
              "lpad(((i::bigint * 7919) %% 1000003)::text, 40, 'x') "
              "from generate_series(1, %d) i"
              % ROWS)
    c.execute("create table sp_b(id integer primary key, j integer, w varchar(60))")
    c.execute("insert into sp_b select i, case when i %% 5 = 0 then null else i * 2 end, "
              "'b' || lpad(i::text, 39, 'y') from generate_series(1, %d) i" % ROWS)


def run_all(c, srv, label):
    """The three statements; returns their answers and the files seen."""
    out = {}
    for name, sql in (("join", JOIN_SQL), ("inner join", INNER_SQL), ("group by", GROUP_SQL),
                      ("sort", SORT_SQL)):
        t0 = time.time()
        # the most spill files seen at once, sampled every 10 ms
        with checks.Peak(lambda: len(temp_files(srv)), 0.01) as fw:
            try:
                rows = c.execute(sql).fetchall()
                err = None
            except Exception as ex:  # noqa: BLE001
                rows, err = None, "%s %s" % (getattr(ex, "sqlstate", ""), str(ex).splitlines()[0])
        print("# %-10s %-8s %6.1f s, %d rows, most files at once %d%s"
              % (name, label, time.time() - t0, len(rows or []), fw.peak,
                 ", " + err if err else ""))
        out[name] = (rows, err, fw.peak)
    return out


def main():
    a = checks.isolated_args()
    if a.kind != "cadenza":
        return checks.skip("spilling: MaxQueryMem, TempDirectory and MaxTempSpace are Cadenza's")
    import psycopg
    srv = checks.isolated_server(a, "spill", {"MaxQueryMem": SMALL_MEM, "MaxTempSpace": TEMP_LIMIT})
    try:
        srv.start()
        check("the temporary folder is made beside the database", os.path.isdir(temp_dir(srv)),
              temp_dir(srv))
        with connect(srv) as c:
            load(c)
            plan = "\n".join(r[0] for r in c.execute("explain " + JOIN_SQL).fetchall())
            check("the join is a hash join", "HashJoin" in plan, plan)
            small = run_all(c, srv, SMALL_MEM)
        for name, (rows, err, most) in small.items():
            check("%s past MaxQueryMem answers" % name, err is None, err or "")
            check("%s past MaxQueryMem spilled (temporary files seen)" % name, most > 0,
                  "no file seen")
        check("no temporary file left after them", temp_files(srv) == [], str(temp_files(srv)))

        # The sort's order computed here: p descending (C collation), then j
        # ascending with NULLs last.
        with connect(srv) as c:
            base = c.execute("select id, j, w from sp_a").fetchall()
        want = sorted(base, key=lambda r: (r[1] is None, r[1] if r[1] is not None else 0))
        want = sorted(want, key=lambda r: r[2][:4].encode(), reverse=True)
        got = small["sort"][0]
        check("sort past MaxQueryMem: the computed order",
              got is not None and [(r[1], r[2]) for r in got] == [(r[0], r[2]) for r in want],
              "differs")
        # The join computed here too: LEFT, NULL keys never match.
        bj = {}
        with connect(srv) as c:
            for bid, j, w in c.execute("select id, j, w from sp_b").fetchall():
                if j is not None:
                    bj.setdefault(j, []).append((bid, w))
        want_join = []
        for aid, j, _w in base:
            m = bj.get(j) if j is not None else None
            if m:
                want_join.extend((aid, j, bid, w) for bid, w in m)
            else:
                want_join.append((aid, j, None, None))
        got = small["join"][0]
        check("LEFT hash join past MaxQueryMem: the computed rows",
              got is not None and sorted(got, key=repr) == sorted(want_join, key=repr), "differs")

        # RIGHT, FULL, SEMI, ANTI and NOT IN hash joins spill too.
        with connect(srv) as c:
            brows = c.execute("select id, j, w from sp_b").fetchall()
            run_kinds(c, srv, kinds_want(base, brows))

        # Far past every limit: MaxTempSpace.
        with connect(srv) as c:
            try:
                c.execute(FAR_SQL).fetchall()
                outcome = "a result"
            except psycopg.Error as ex:
                outcome = getattr(ex, "sqlstate", None)
        check("a statement past MaxTempSpace fails with 53400", outcome == "53400", str(outcome))
        check("the server serves after it", alive(srv))
        check("its temporary files are gone", temp_files(srv) == [], str(temp_files(srv)))

        # Cancel and statement_timeout during a spill.
        with connect(srv) as c:
            state = {}

            def worker():
                try:
                    c.execute(CANCEL_SQL).fetchall()
                    state["outcome"] = "a result"
                except psycopg.Error as ex:
                    state["outcome"] = getattr(ex, "sqlstate", None)
                state["end"] = time.time()

            t = threading.Thread(target=worker)
            started = time.time()
            t.start()
            deadline = time.time() + 30
            while not temp_files(srv) and time.time() < deadline and t.is_alive():
                time.sleep(0.01)
            spilling = bool(temp_files(srv))
            spill_after = time.time() - started
            time.sleep(0.3)
            t0 = time.time()
            c.cancel()
            t.join(30)
            lat = state.get("end", time.time()) - t0
            print("# cancel: the statement ended %.3f s after the cancel request" % lat)
            check("cancel during a spill: 57014", spilling and state.get("outcome") == "57014",
                  "spilling %s, outcome %s" % (spilling, state.get("outcome")))
            check("cancel during a spill ends it within %.1f s" % CANCEL_BOUND, lat <= CANCEL_BOUND,
                  "%.3f s" % lat)
            check("after the cancel its temporary files are gone", temp_files(srv) == [],
                  str(temp_files(srv)))
            # the timeout falls as the cancel did, 0.3 s into the spill: a
            # fixed one can meet MaxTempSpace first on a fast machine (53400)
            timeout_s = round(spill_after + 0.3, 3)
            c.execute("set statement_timeout = %d" % int(timeout_s * 1000))
            t0 = time.time()
            try:
                c.execute(CANCEL_SQL).fetchall()
                outcome = "a result"
            except psycopg.Error as ex:
                outcome = getattr(ex, "sqlstate", None)
            took = time.time() - t0
            print("# statement_timeout %.3f s: ended after %.3f s" % (timeout_s, took))
            check("statement_timeout during a spill: 57014 in time",
                  outcome == "57014" and took < timeout_s + CANCEL_BOUND, "%s after %.3f s"
                  % (outcome, took))
            check("after the timeout its temporary files are gone", temp_files(srv) == [],
                  str(temp_files(srv)))
            check("the session goes on", c.execute("select 2").fetchone()[0] == 2)
        srv.stop()

        # Leftovers of an earlier server are removed at start (ours only).
        with open(os.path.join(temp_dir(srv), "cz-1-7.spill"), "w") as f:
            f.write("left by a crash")
        with open(os.path.join(temp_dir(srv), "keep.txt"), "w") as f:
            f.write("not ours")
        # The same statements in memory.
        srv.extra_ini = {"Parameters": {"MaxQueryMem": "1G"}}
        srv.created = False
        srv.start()
        check("a spill file left behind is removed at start", temp_files(srv) == [],
              str(temp_files(srv)))
        check("other files in the folder are kept",
              os.path.exists(os.path.join(temp_dir(srv), "keep.txt")))
        with connect(srv) as c:
            big = run_all(c, srv, "1G")
        for name in small:
            s_rows, b_rows = small[name][0], big[name][0]
            if name in ("sort", "inner join"):
                same = s_rows == b_rows
            else:  # a hash join's and a group-by's row order is not defined
                same = s_rows is not None and b_rows is not None and \
                    sorted(s_rows, key=repr) == sorted(b_rows, key=repr)
            check("%s: spilled answer equals the in-memory one" % name, same,
                  "%s vs %s rows" % (len(s_rows or []), len(b_rows or [])))
        check("in memory, nothing spilled", all(v[2] == 0 for v in big.values()),
              str({k: v[2] for k, v in big.items()}))
        # Each statement's state in memory is at least 4 times SMALL_MEM
        # (EXPLAIN ANALYZE's memory of its materialising operator).
        with connect(srv) as c:
            for name, sql, op in (("join", JOIN_SQL, "HashJoin"), ("group by", GROUP_SQL,
                                                                   "HashAggregate"),
                                  ("sort", SORT_SQL, "Sort")):
                lines = [r[0] for r in c.execute("explain analyze " + sql).fetchall()]
                kb = [int(m.group(1)) for ln in lines if ("-> " + op) in ln
                      for m in [re.search(r"memory=(\d+) kB", ln)] if m]
                check("%s in memory holds at least 4 x MaxQueryMem" % name,
                      kb and kb[0] * 1024 >= 4 * SMALL_BYTES, "\n".join(lines))
        srv.stop()

        # All queries together: MaxServerQueryMem below three queries' limits.
        srv.extra_ini = {"Parameters": {"MaxQueryMem": "16M", "MaxServerQueryMem": "24M",
                                        "MaxTempSpace": TEMP_LIMIT}}
        srv.created = False
        srv.start()
        results = {}

        def session(name, sql):
            try:
                with connect(srv) as c:
                    results[name] = ("rows", c.execute(sql).fetchall())
            except psycopg.Error as ex:
                results[name] = (getattr(ex, "sqlstate", None), None)
            except Exception as ex:  # noqa: BLE001
                results[name] = (str(ex), None)

        ts = [threading.Thread(target=session, args=(n, q))
              for n, q in (("inner join", INNER_SQL), ("group by", GROUP_SQL), ("sort", SORT_SQL))]
        for t in ts:
            t.start()
        for t in ts:
            t.join(300)
        for name, (kind, rows) in sorted(results.items()):
            print("# MaxServerQueryMem 24M, %s: %s" % (name, kind))
            if kind == "rows":
                exp = big[name][0]
                ok = rows == exp if name != "group by" else \
                    sorted(rows, key=repr) == sorted(exp, key=repr)
                check("three sessions under MaxServerQueryMem: %s answers right" % name, ok,
                      "differs")
            else:
                check("three sessions under MaxServerQueryMem: %s answers or gets 53200" % name,
                      kind == "53200", str(kind))
        check("three sessions under MaxServerQueryMem: all ended", len(results) == 3,
              str(sorted(results)))
        check("the server serves after them", alive(srv))
        check("no temporary file left after them", temp_files(srv) == [], str(temp_files(srv)))
        srv.stop()
    finally:
        try:
            srv.stop()
        except Exception:  # noqa: BLE001
            pass
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

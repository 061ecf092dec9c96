#!/usr/bin/env python3
"""isolated_memlimit — no statement grows the server past its limits.

Issue 7, defects 2 and 5. The server runs under an address-space limit
(prlimit --as, which execs the server so the limit is the server's own) a
little above what it needs: the address space of the idle server, plus its
buffer pool (NumberOfBuffers * 8 KB), plus MaxQueryMem, plus a stated
margin (MARGIN: jemalloc's per-thread caches and arenas, the 32 MB
emergency reserve, thread stacks of the sessions, a budget overshoot of
one batch). Statements that build huge values, huge IN sets, huge arrays
and exploding joins must each end with a result or 53200 (54000 for a
single value over the 1 GB cap), the server must stay up and answer, and
some seconds after the last query its resident size must be back near
its idle size (RSS_TOLERANCE above the RSS after loading the table, which
includes the buffer pool's pages). And while each statement runs, its
peak resident size must stay within what MaxQueryMem allows (peak_bound):
the address-space limit only catches an overshoot past the margin, this
catches one past the budget, as when a growth step that could not fail
(a hash table doubling, a chunk of rows, a copied string) took the query
past MaxQueryMem between two checks.

Hash joins, GROUP BY, ORDER BY, DISTINCT and UNION past the limit spill to temporary files
(issue 8; isolated_spill.py checks their answers): here they must return a
result within the same peak bound.

Then the reproductions of the issue one by one, with a smaller limit
(MaxQueryMem = 32M), each ending in 53200 (a result for those that spill)
and the server alive; and once
more with MaxQueryMem far above the address space left (SYSTEM_ROOM), so
that malloc itself fails: still 53200, and the server alive.

Usage: isolated_memlimit.py --kind cadenza|postgres --binary PATH --dir DIR
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

ROWS = 200000                  # the table the statements read
BUFFERS = 2000                 # NumberOfBuffers: 16 MB of pages
MAX_QUERY_MEM = 128 << 20      # MaxQueryMem of the main run
MARGIN = 384 << 20             # address space above idle + pool + MaxQueryMem
RSS_TOLERANCE = 48 << 20       # RSS after the storm may exceed the loaded RSS by this
# Peak RSS while a statement runs may exceed the loaded RSS by MaxQueryMem
# times PEAK_FACTOR plus PEAK_ALLOWANCE. The budget counts the chunks its
# arenas hold, header included; RSS also holds what the allocator keeps
# around them (size-class rounding of the chunks, a chunk freed by a
# doubling table that is dirty until the decay tick): the factor, a
# quarter. The allowance is what no budget counts and does not grow with
# the data: the session's parse and plan arenas, the wire buffers, the
# client's result rows, one batch of fixed-size operator allocations made
# after the last check; a few MB here (the smallest statements peak 10 MB
# above idle), 16 MB stated. An unchecked growth step (a hash table of
# millions of rows doubling) is tens of MB: past the bound.
PEAK_FACTOR = 1.25
PEAK_ALLOWANCE = 16 << 20
SMALL_QUERY_MEM = 32 << 20     # the regression run
SYSTEM_ROOM = 320 << 20        # the last run: address space for queries, MaxQueryMem 64G
TIMEOUT_MS = 30000             # statement_timeout: a runaway is a failure, not a hang


class Done(Exception):
    """The rest does not apply (sanitizer build)."""


def report(ok, name, why=""):
    """check() with the outcome first, as this file's calls read."""
    return check(name, ok, why)


def status_kb(pid, field):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def sanitized(binary):
    """AddressSanitizer reserves terabytes of address space and keeps freed
    memory in quarantine: no address-space limit and no RSS check then."""
    import subprocess
    try:
        out = subprocess.run(["ldd", binary], capture_output=True, text=True).stdout
    except OSError:
        return False
    return "libasan" in out


def connect(srv):
    import psycopg
    c = psycopg.connect(srv.dsn(), autocommit=True, connect_timeout=10)
    c.execute("set statement_timeout = %d" % TIMEOUT_MS)
    return c


def alive(srv):
    try:
        with connect(srv) as c:
            return c.execute("select 1").fetchone()[0] == 1
    except Exception:
        return False


def create_chain(c, n=24):
    """Issue 7's 24 tables tK(aK integer primary key, bK integer, xK
    varchar(40)) of 10 rows each."""
    for k in range(1, n + 1):
        c.execute("drop table if exists t%d" % k)
        c.execute("create table t%d(a%d integer primary key, b%d integer, x%d varchar(40))"
                  % (k, k, k, k))
        c.execute("insert into t%d select i, 1 + (i * 7) %% 10, 'x' || i from "
                  "generate_series(1, 10) i" % k)


def chain_query(n=24):
    """All xK, the chain aK+1 = bK plus a1 = 10, the odd tables listed
    first so that several follow each other with no condition between
    them: the planner's cross products feed lookup joins."""
    order = list(range(1, n + 1, 2)) + list(range(2, n + 1, 2))
    cols = ", ".join("x%d" % k for k in range(1, n + 1))
    conds = ["a%d = b%d" % (k + 1, k) for k in range(1, n)] + ["a1 = 10"]
    return "select %s from %s where %s" % (cols, ", ".join("t%d" % k for k in order),
                                           " and ".join(conds))


# (name, SQL, outcomes accepted: SQLSTATEs, "result" where the statement
# may fit the limit; the others need more than MaxQueryMem by construction)
STORM = [
    ("repeat per row", "select max(length(repeat(v, 100000))) from big", {"53200"}),
    ("repeat 1e9", "select length(repeat('x', 1000000000))", {"53200"}),
    ("repeat over 1 GB", "select length(repeat('xy', 1000000000))", {"54000"}),
    ("lpad 1e9", "select length(lpad('x', 1000000000, 'ab'))", {"53200"}),
    ("concat 1 GB", "select length(repeat('x', 600000000) || repeat('y', 600000000))",
     {"53200", "54000"}),
    ("concat per row", "select max(length(v || repeat(g, 300) || v)) from big",
     {"result", "53200"}),
    ("bytea as text", "select length(repeat('x', 60000000)::bytea::text)", {"53200"}),
    ("string_agg", "select length(string_agg(repeat(v, 200), ',')) from big", {"53200"}),
    ("ARRAY(subquery)", "select length(array(select repeat(v, 200) from big)::text)",
     {"53200"}),
    ("IN subquery set",
     "select count(*) from big where v in (select a.v || b.g from big a, big b where b.id < 30)",
     {"53200"}),
    ("nested arrays",
     "select length(" + "array[" * 12 + "repeat('x', 1000000)" + "]" * 12 + "::text)",
     {"result", "53200", "54000"}),
    ("40 nested ARRAY[]", "select length(" + "array[" * 40 + "'x'" + "]" * 40 + "::text)",
     {"53200", "54000"}),
    ("cross product distinct",
     "select count(distinct a.v || b.v) from big a, big b where b.id < 100", {"53200"}),
    # Top-k keeps 2k rows at a time (trims give the old rows back): a
    # result within MaxQueryMem, however long the input.
    ("cross product top-k",
     "select a.v, b.v from big a, big b where b.id < 15 order by a.v || b.v desc limit 5",
     {"result"}),
    # The 24 tables: the planner may order the joins so that nothing
    # explodes (a result) or build the cross products (53200).
    ("24-table chain", None, {"result", "53200"}),
    # Every materialising operator past MaxQueryMem, each growing by
    # doubling tables and chunks of rows: 53200 within the peak bound, or,
    # for those that spill to temporary files (hash join, GROUP BY, ORDER
    # BY: isolated_spill.py checks their answers), a result within it.
    ("hash join build side",
     "select count(*) from big a join (select x.id * 64 + y.id as k2 from big x, big y "
     "where y.id < 20) s on a.k = s.k2", {"result", "53200"}),
    ("GROUP BY many groups",
     "select count(*) from (select a.v || b.g as w, count(*), max(b.v) from big a, big b "
     "where b.id < 12 group by 1) s", {"result"}),
    ("count(DISTINCT) per group",
     "select count(*) from (select a.g, count(distinct a.v || b.v) from big a, big b "
     "where b.id < 40 group by a.g) s", {"53200"}),
    ("ORDER BY huge set",
     "select count(*), max(w) from (select a.v || b.v as w from big a, big b where b.id < 12 "
     "order by w) s", {"result"}),
    ("DISTINCT huge set",
     "select count(*) from (select distinct a.v || b.v from big a, big b where b.id < 40) s",
     {"result"}),
    ("UNION huge set",
     "select count(*) from (select a.v || b.v from big a, big b where b.id < 40 "
     "union select v from big) s", {"result"}),
    ("EXCEPT huge set",
     "select count(*) from (select v from big except "
     "select a.v || b.v from big a, big b where b.id < 40) s", {"53200"}),
    # The window's input is sorted (and the sort spills), but the window
    # operator holds its whole input and does not spill yet: 53200, cleanly.
    ("window partition",
     "select max(r) from (select row_number() over (partition by a.g order by a.v || b.v) r "
     "from big a, big b where b.id < 5) s", {"53200"}),
    ("string_agg of huge values",
     "select length(string_agg(repeat(v, 100000), ',')) from big", {"53200"}),
    ("scalar subquery of a huge value",
     "select length((select repeat('x', 100000000) || repeat('y', 100000000)))",
     {"53200"}),
    # max over ever longer strings keeps one copy, not one per new maximum
    # (20,000 values of 1..20,000 bytes: 200 MB if all were kept).
    ("max of growing strings",
     "select length(max(repeat('x', id))) from big where id <= 20000", {"result"}),
]


def peak_bound(loaded_rss, max_query_mem):
    """The most resident memory a statement may take the server to."""
    return loaded_rss + int(max_query_mem * PEAK_FACTOR) + PEAK_ALLOWANCE


def run_one(srv, c, name, sql, ok_states, limit=None, loaded=None):
    """Runs sql (a string, or a function of the connection), checks its
    outcome, that the server answers after it and, given MaxQueryMem
    (limit), that its peak RSS stayed within peak_bound of the server's
    idle-with-data RSS: the RSS after loading the data, or the RSS just
    before the statement when lower (what the load left dirty may have
    gone back to the system since)."""
    import psycopg
    bound = None
    if limit is not None:
        before = (status_kb(srv.pid, "VmRSS") or 0) * 1024
        bound = peak_bound(min(loaded, before) if before else loaded, limit)
    t0 = time.time()
    # the server's VmRSS every 20 ms while the statement runs
    with checks.Peak(lambda: status_kb(srv.pid, "VmRSS"), 0.02) as pk:
        try:
            if callable(sql):
                sql(c)
            else:
                c.execute(sql).fetchall()
            outcome, ok = "a result", "result" in ok_states
        except psycopg.Error as ex:
            st = getattr(ex, "sqlstate", None)
            outcome, ok = "%s %s" % (st, str(ex).splitlines()[0]), st in ok_states
        except Exception as ex:  # the connection died
            outcome, ok = "%s" % ex, False
    peak = pk.peak * 1024
    print("# %-32s %5.1f s  peak RSS %4d MB%s  -> %s"
          % (name, time.time() - t0, peak >> 20,
             " (bound %d)" % (bound >> 20) if bound is not None else "", outcome[:80]))
    report(ok, "%s ends with %s" % (name, " or ".join(sorted(ok_states))), outcome)
    report(alive(srv), "%s: server answers after it" % name, "no answer")
    if bound is not None:
        report(peak <= bound, "%s: peak RSS within MaxQueryMem's bound" % name,
               "%d MB > %d MB" % (peak >> 20, bound >> 20))
    return ok


def copy_long_record(c):
    """COPY FROM with one record of 300 MB that never ends: the pending
    input grows with it and must meet MaxQueryMem."""
    piece = b"y" * (1 << 20)
    with c.cursor().copy("copy memcopy (b) from stdin") as cp:
        for _ in range(300):
            cp.write(piece)


def copy_huge_default(c):
    """COPY FROM into a table whose DEFAULT is a 200 MB value: evaluated
    when the COPY starts, it must count against MaxQueryMem."""
    with c.cursor().copy("copy memdefault (a) from stdin") as cp:
        cp.write(b"1\n")


def main():
    a = checks.isolated_args()
    if a.kind != "cadenza":
        return checks.skip("memory limits: MaxQueryMem and the server's address-space limit are "
                           "Cadenza's")
    if not shutil.which("prlimit"):
        return checks.skip("memory limits: no prlimit")
    srv = checks.isolated_server(a, "memlimit", {"MaxQueryMem": MAX_QUERY_MEM}, buffers=BUFFERS)
    t_start = time.time()
    try:
        # The idle server's address space, without a limit.
        srv.start()
        idle_vm = status_kb(srv.pid, "VmSize") * 1024
        idle_rss = status_kb(srv.pid, "VmRSS") * 1024
        srv.stop()
        limit = idle_vm + BUFFERS * 8192 + MAX_QUERY_MEM + MARGIN
        print("# idle: VmSize %d MB, VmRSS %d MB; address-space limit %d MB "
              "(idle + pool %d MB + MaxQueryMem %d MB + margin %d MB)"
              % (idle_vm >> 20, idle_rss >> 20, limit >> 20, (BUFFERS * 8192) >> 20,
                 MAX_QUERY_MEM >> 20, MARGIN >> 20))
        asan = sanitized(srv.binary)
        if asan:
            print("# sanitizer build: no address-space limit, no RSS checks")
        else:
            srv.wrapper = ["prlimit", "--as=%d" % limit, "--"]
        srv.start()
        report(status_kb(srv.pid, "VmSize") is not None, "server runs under prlimit --as")
        with connect(srv) as c:
            c.execute("drop table if exists big")
            c.execute("create table big(id integer primary key, v varchar(20), "
                      "g varchar(20), k integer)")
            c.execute("insert into big select i, 'v' || i, 'g' || (i %% 7), i %% 1000 from "
                      "generate_series(1, %d) i" % ROWS)
            c.execute("drop table if exists memcopy")
            c.execute("create table memcopy(a integer, b text)")
            c.execute("drop table if exists memdefault")
            c.execute("create table memdefault(a integer, b text default "
                      "repeat('x', 200000000))")
            c.execute("select count(*), max(length(v)) from big").fetchall()
            create_chain(c)
        time.sleep(2)
        loaded_rss = status_kb(srv.pid, "VmRSS") * 1024
        print("# loaded: VmRSS %d MB" % (loaded_rss >> 20))
        if not asan:
            print("# peak bound: idle-with-data RSS + MaxQueryMem %d MB * %.2f + %d MB"
                  % (MAX_QUERY_MEM >> 20, PEAK_FACTOR, PEAK_ALLOWANCE >> 20))
        storm = STORM + [("COPY FROM one long record", copy_long_record, {"53200"}),
                         ("COPY FROM huge default", copy_huge_default, {"53200"})]
        for name, sql, states in storm:
            if not srv.alive():
                report(False, "%s: server up before it" % name, "server gone")
                break
            with connect(srv) as c:
                run_one(srv, c, name, sql or chain_query(), states,
                        None if asan else MAX_QUERY_MEM, loaded_rss)
        # Defect 5: memory goes back after the work is done.
        time.sleep(5)
        after = status_kb(srv.pid, "VmRSS")
        report(after is not None, "server is up after the storm", "server gone")
        if after is not None and not asan:
            after *= 1024
            print("# RSS %d MB five seconds after the last query (loaded %d MB, "
                  "tolerance %d MB)" % (after >> 20, loaded_rss >> 20, RSS_TOLERANCE >> 20))
            report(after <= loaded_rss + RSS_TOLERANCE, "RSS back near its idle size",
                   "%d MB > %d MB + %d MB" % (after >> 20, loaded_rss >> 20,
                                              RSS_TOLERANCE >> 20))
        log = open(srv.log_path()).read()
        report("could not allocate" not in log or "emergency reserve" in log,
               "no allocation failure aborted", log[-500:])
        srv.stop()

        # The reproductions with a smaller limit: each one 53200.
        srv.extra_ini = {"Parameters": {"MaxQueryMem": str(SMALL_QUERY_MEM)}}
        srv.created = False  # rewrite the ini; the database stays
        srv.start()
        with connect(srv) as c:  # the table's pages in the pool, as before the storm
            c.execute("select count(*), max(length(v)) from big").fetchall()
        time.sleep(1)
        small_loaded = status_kb(srv.pid, "VmRSS") * 1024
        small = [
            ("repeat per row (32M)", "select max(length(repeat(v, 100000))) from big"),
            ("repeat 1e9 (32M)", "select length(repeat('x', 1000000000))"),
            ("IN subquery set (32M)",
             "select count(*) from big where v in "
             "(select a.v || b.g from big a, big b where b.id < 30)"),
            ("24-table chain (32M)", chain_query()),
            # These three spill to temporary files now: a result, within the bound.
            ("GROUP BY many groups (32M)",
             "select count(*) from (select a.v || b.g as w, count(*) from big a, big b "
             "where b.id < 8 group by 1) s"),
            ("ORDER BY huge set (32M)",
             "select count(*), max(w) from (select a.v || b.v as w from big a, big b "
             "where b.id < 6 order by w) s"),
            ("DISTINCT huge set (32M)",
             "select count(*) from (select distinct a.v || b.v from big a, big b "
             "where b.id < 10) s"),
        ]
        for name, sql in small:
            with connect(srv) as c:
                spills = any(k in name for k in ("GROUP BY", "ORDER BY", "DISTINCT"))
                ok = {"result", "53200"} if "chain" in name else \
                    {"result"} if spills else {"53200"}
                run_one(srv, c, name, sql, ok, None if asan else SMALL_QUERY_MEM, small_loaded)
        # A prepared statement's cached plan runs again after a run that
        # failed with 53200 (its operator state was released, not kept).
        import psycopg
        with connect(srv) as c:
            # EXCEPT does not spill: the middle run still meets MaxQueryMem.
            q = ("select count(*), max(w) from (select a.v || b.v as w from big a, big b "
                 "where b.id <= %s except select 'x') s")
            first = c.execute(q, (1,), prepare=True).fetchall()
            try:
                c.execute(q, (30,), prepare=True).fetchall()
                mid = "a result"
            except psycopg.Error as ex:
                mid = getattr(ex, "sqlstate", None)
            again = c.execute(q, (1,), prepare=True).fetchall()
            report(mid == "53200" and first == again and first[0][0] > 0,
                   "prepared statement: result, 53200, the same result again",
                   "%r / %r / %r" % (first, mid, again))
        srv.stop()
        if asan:
            raise Done()

        # The system refuses before MaxQueryMem does (a limit far above the
        # address space left): the failed malloc must fail the query with
        # 53200 (the emergency reserve lets the infallible paths get there),
        # never abort the server.
        srv.extra_ini = {"Parameters": {"MaxQueryMem": "64G"}}
        srv.created = False
        srv.wrapper = ["prlimit", "--as=%d" % (idle_vm + BUFFERS * 8192 + SYSTEM_ROOM), "--"]
        srv.start()
        for name, sql in [("repeat per row (system)", small[0][1]),
                          ("IN subquery set (system)", small[2][1]),
                          ("24-table chain (system)", small[3][1]),
                          ("repeat per row again (system)", small[0][1])]:
            with connect(srv) as c:
                run_one(srv, c, name, sql, {"result", "53200"})
        log = open(srv.log_path()).read()
        report("emergency reserve" in log or "could not allocate" in log,
               "the system's refusals are logged", log[-300:])
        with connect(srv) as c:
            c.execute("drop table big")
            c.execute("drop table memcopy")
            c.execute("drop table memdefault")
            for k in range(1, 25):
                c.execute("drop table t%d" % k)
    except Done:
        pass
    except Exception as ex:
        report(False, "memory-limit run", "%s\n%s" % (ex, srv.log_tail() if srv.pid else ""))
    finally:
        if srv.pid and srv.alive():
            srv.stop()
    print("# total %.0f s" % (time.time() - t_start))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

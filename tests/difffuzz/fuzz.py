"""The differential fuzzer's driver: rounds of (random schema, queries on
both servers, comparison), a minimized reproduction of each difference.

Design notes: odd rounds use the simple query protocol, even rounds
the extended one. Everything is a function of the seed — round r's schema of
random.Random("S:r"), its query k of random.Random("S:r:k") — so that
`--seed S` replays a run and a reported (round, query) pair names one
query. A round makes its tables on both servers, runs its queries, drops
the tables. A query PostgreSQL does not finish in the timeout is skipped
(too big to be a test, not a difference). A difference is shrunk (query,
then rows) and printed with the statements that recreate its tables;
differences with the same signature and Cadenza message are reported once
in the closing list, with a count.
"""
import random
import re
import time

from . import compare, known, schema, shrink
from .gen import Features, Gen

QUERIES_PER_ROUND = 40
SHRINK_SECONDS = 60      # per difference, for the query and the rows together


class Difference:
    def __init__(self, where, reason, sql, cz, pg, tables):
        self.where, self.reason, self.sql, self.cz, self.pg = where, reason, sql, cz, pg
        self.tables = tables
        self.small_sql = sql
        self.small_tables = tables
        self.small_cz, self.small_pg = cz, pg
        self.count = 1
        self.flaky = False        # did not recur when run again

    def key(self):
        msg = self.small_cz.message or "" if self.small_cz.kind == "error" else ""
        msg = re.sub(r"\d+", "N", msg)
        return (self.reason, self.small_cz.signature(), self.small_pg.signature(),
                self.small_cz.sqlstate, msg)

    def report(self, out):
        out("=" * 72)
        out("DIFFERENCE (%s) at %s%s" % (self.reason, self.where,
                                          " — did not recur when run again" if self.flaky else ""))
        out("-- tables:")
        for t in self.small_tables:
            for s in t.script():
                out(s + ";")
        out("-- query:")
        out(self.small_sql + ";")
        out("-- cadenza:    " + self.small_cz.brief())
        out("-- postgresql: " + self.small_pg.brief())
        if self.small_sql != self.sql:
            out("-- unminimized query: " + self.sql)
        out("=" * 72)


def signature(reason, cz, pg):
    return (reason, cz.signature(), pg.signature(),
            cz.sqlstate if cz.kind == "error" else None)


def tables_in(sql, tables):
    return [t for t in tables if re.search(r"\b%s\b" % re.escape(t.name), sql)]


class Fuzzer:
    def __init__(self, subject, reference, seed, features=None, out=print,
                 shrink_budget=300, row_budget=150, verbose=False):
        self.cz, self.pg = subject, reference
        self.seed = seed
        self.features = features or Features()
        self.out = out
        self.shrink_budget = shrink_budget
        self.row_budget = row_budget
        self.verbose = verbose
        self.stats = dict(queries=0, rows=0, nonempty=0, both_error=0, pg_timeout=0, known=0,
                          differences=0, crashes=0, cz_seconds=0.0, pg_seconds=0.0)
        self.slowest = (0.0, "")
        self.known_seen = {}
        self.diffs = {}           # key -> Difference (first seen)

    # ---- schema --------------------------------------------------------------

    def make(self, tables, engines=None):
        for e in engines or (self.cz, self.pg):
            stmts = []
            for t in tables:
                stmts.extend(t.script())
            e.script(stmts)

    def drop(self, tables):
        for e in (self.cz, self.pg):
            try:
                e.script(["DROP TABLE IF EXISTS %s" % t.name for t in tables])
            except Exception:
                e.recover()

    # ---- one query ------------------------------------------------------------

    def both(self, sql):
        cz = self.cz.run(sql)
        pg = self.pg.run(sql)
        return cz, pg

    def judge(self, q, sql=None):
        """(reason or None, cz outcome, pg outcome)."""
        sql = sql or q.sql()
        cz, pg = self.both(sql)
        if pg.kind == "timeout" or pg.kind == "lost":
            return "skip", cz, pg
        return compare.agree(cz, pg, q.ordering()), cz, pg

    def run_round(self, r, nqueries, deadline):
        rng = random.Random("%s:%d" % (self.seed, r))
        tables = schema.random_schema(rng, r)
        # odd rounds through the simple query protocol, even ones extended
        self.cz.simple = self.pg.simple = bool(r % 2)
        self.make(tables)
        done = 0
        try:
            for k in range(nqueries):
                if deadline and time.time() > deadline:
                    break
                qrng = random.Random("%s:%d:%d" % (self.seed, r, k))
                q = Gen(qrng, tables, self.features).query()
                self.one(q, tables, "seed %s round %d query %d" % (self.seed, r, k))
                done += 1
        finally:
            self.drop(tables)
        return done

    def one(self, q, tables, where):
        sql = q.sql()
        reason, cz, pg = self.judge(q, sql)
        self.stats["queries"] += 1
        self.stats["cz_seconds"] += cz.seconds
        self.stats["pg_seconds"] += pg.seconds
        if cz.seconds > self.slowest[0]:
            self.slowest = (cz.seconds, sql)
        if self.verbose:
            self.out("-- %s: %s [%s %.2fs / %s %.2fs]" % (where, sql, cz.kind, cz.seconds,
                                                      pg.kind, pg.seconds))
            if cz.kind == "error" or pg.kind == "error":
                self.out("--   cadenza: %s\n--   postgresql: %s" % (cz.brief(2), pg.brief(2)))
        if reason == "skip":
            self.stats["pg_timeout"] += 1
            return
        if cz.kind == "lost":
            self.stats["crashes"] += 1
            self.make(tables, [self.cz])
        if reason is None:
            if cz.kind == "error":
                self.stats["both_error"] += 1
            else:
                self.stats["rows"] += 1
                self.stats["nonempty"] += bool(pg.rows)
            return
        k = known.classify(cz, pg, sql)
        if k:
            self.stats["known"] += 1
            self.known_seen[k] = self.known_seen.get(k, 0) + 1
            return
        self.stats["differences"] += 1
        d = Difference(where, reason, sql, cz, pg, tables_in(sql, tables))
        self.minimize(d, q, tables)
        key = d.key()
        if key in self.diffs:
            self.diffs[key].count += 1
            self.out("(difference at %s is like an earlier one: %s)" % (where, d.small_sql[:200]))
            return
        self.diffs[key] = d
        d.report(self.out)

    # ---- minimizing -----------------------------------------------------------

    def minimize(self, d, q, tables):
        want = signature(d.reason, d.cz, d.pg)
        budget = self.shrink_budget if d.cz.kind not in ("timeout", "lost") else 25
        last = {}
        # a time budget too: a difference must not hold the stage for long
        until = time.time() + SHRINK_SECONDS

        def keeps(cand):
            if time.time() > until:
                return False
            sql = cand.sql()
            reason, cz, pg = self.judge(cand, sql)
            if cz.kind == "lost":
                self.make(tables, [self.cz])
            if reason in (None, "skip") or known.classify(cz, pg, sql):
                return False
            if signature(reason, cz, pg) != want:
                return False
            last["q"], last["cz"], last["pg"] = cand, cz, pg
            return True
        if not keeps(q):
            # not again on a second run (a crash from elsewhere, a race):
            # reported as it was, not shrunk
            d.flaky = True
            return
        small, _ = shrink.shrink_query(q, keeps, budget)
        if "q" in last:
            d.small_sql, d.small_cz, d.small_pg = small.sql(), last["cz"], last["pg"]
            q = small
        used = tables_in(d.small_sql, tables)
        if not used or d.cz.kind in ("timeout",):
            d.small_tables = used
            return

        def keeps_rows(cand_tables):
            if time.time() > until:
                return False
            self.make(cand_tables)
            reason, cz, pg = self.judge(q, d.small_sql)
            if cz.kind == "lost":
                self.make(cand_tables, [self.cz])
            if reason in (None, "skip") or known.classify(cz, pg, d.small_sql):
                return False
            if signature(reason, cz, pg) != want:
                return False
            last["cz"], last["pg"] = cz, pg
            return True
        try:
            small_tables = shrink.shrink_rows(used, keeps_rows, self.row_budget)
            # the outcomes of the smallest data, for the report
            self.make(small_tables)
            reason, cz, pg = self.judge(q, d.small_sql)
            if reason not in (None, "skip"):
                d.small_tables, d.small_cz, d.small_pg = small_tables, cz, pg
            else:
                d.small_tables = used
        finally:
            self.make(used)

    # ---- the run ----------------------------------------------------------------

    def run(self, nqueries, seconds=None):
        deadline = time.time() + seconds if seconds else None
        r = 0
        left = nqueries
        while left > 0:
            if deadline and time.time() > deadline:
                break
            left -= self.run_round(r, min(QUERIES_PER_ROUND, left), deadline)
            r += 1
        self.stats["crashes"] = self.cz.crashes
        return self.stats

    def summary(self):
        s = self.stats
        self.out("difffuzz seed %s: %d queries: %d agreed with rows (%d not empty), %d both "
                 "failed, %d skipped (PostgreSQL timed out), %d known differences, %d differences "
                 "(%d distinct), %d server deaths"
                 % (self.seed, s["queries"], s["rows"], s["nonempty"], s["both_error"], s["pg_timeout"],
                    s["known"], s["differences"], len(self.diffs), s["crashes"]))
        self.out("  time: subject %.1f s, postgresql %.1f s; slowest on the subject %.2f s: %s"
                 % (s["cz_seconds"], s["pg_seconds"], self.slowest[0], self.slowest[1][:300]))
        for name, n in sorted(self.known_seen.items()):
            self.out("  known %-12s x%d: %s" % (name, n, known.EXCLUDED.get(name, "")))
        for d in self.diffs.values():
            self.out("  difference x%d: %s; cadenza %s; %s" % (
                d.count, d.reason, d.small_cz.brief(3)[:160], d.small_sql[:300]))


#!/usr/bin/env python3
"""isolated_difffuzz — random queries on Cadenza and on PostgreSQL 15,
answers compared (issue 8, "a differential SQL fuzzer").

Starts a Cadenza server and a PostgreSQL 15 server of its own (srvctl),
then rounds of random small tables and random queries over them (joins,
outer joins, subqueries correlated or not, aggregates, NULLs, set
operations, window functions, CTEs: tests/difffuzz/gen.py), each run on
both and compared (tests/difffuzz/compare.py). A difference is shrunk to
a small reproduction — the tables' CREATE and INSERT statements and the
query — printed in the log and counted as a failure, unless it is one of
the known differences listed with their reasons in
tests/difffuzz/known.py. Seeded: the same --seed gives the same queries.

The default is the short run of the test stage (a fixed seed, 500
queries, at most 80 s). The long run is the same script with more
queries, e.g.
  isolated_difffuzz.py --binary build/binsrc/cadenza/cadenza --dir /tmp/df \\
      --queries 5000 --seed 7
(--seconds 0 lifts the time limit; --enable any_all
turns on constructs Cadenza does not have yet; --dsn-cadenza/--dsn-postgres
use running servers instead of starting them.)

With --kind postgres the subject is a second PostgreSQL: the run then
checks the fuzzer itself (a difference there is a query whose answer is
not determined by the data).

Usage: isolated_difffuzz.py --kind cadenza|postgres --binary PATH --dir FOLDER
                            [--queries N] [--seed S] [--seconds T] [--enable LIST]
Prints PASS/FAIL lines and `N passed, N failed`; exit 0 when none failed.
"""
import argparse
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, ".."))
import checks  # noqa: E402
from checks import check  # noqa: E402
from difffuzz import known  # noqa: E402
from difffuzz.engines import Engine  # noqa: E402
from difffuzz.fuzz import Fuzzer  # noqa: E402
from difffuzz.gen import Features  # noqa: E402

SHORT_QUERIES = 500
SHORT_SECONDS = 80
SHORT_SEED = "20261126"
MIN_ANSWERED = 0.6    # at least this share of the queries must return rows on both
MIN_NONEMPTY = 0.3    # and at least this share of those a row or more


def self_check():
    """The comparison must be able to fail: a wrong value, a lost row, a
    wrong order under a total ORDER BY and a wrong type are differences;
    equal numerics of other scales and doubles within the tolerance are
    not."""
    from difffuzz.compare import Outcome, agree

    def rows(rs, types=(23, 1700, 701)):
        return Outcome("rows", rows=rs, types=list(types))
    base = [("1", "1.50", "0.5"), ("2", None, "1e10")]
    cases = [
        ("a wrong value", rows([("1", "1.50", "0.5"), ("3", None, "1e10")]), (([], False)), True),
        ("a lost row", rows(base[:1]), ([], False), True),
        ("a wrong order", rows(base[::-1]), ([0, 1, 2], True), True),
        ("a wrong type", rows(base, (20, 1700, 701)), ([], False), True),
        ("an error for rows", Outcome("error", sqlstate="XX000", message="x"), ([], False), True),
        ("numerics equal by value", rows([("1", "1.5", "0.5"), ("2", None, "1e10")]),
         ([], False), False),
        ("doubles within the tolerance", rows([("1", "1.50", "0.5000000000001"),
                                               ("2", None, "10000000000")]), ([], False), False),
        ("any order without ORDER BY", rows(base[::-1]), ([], False), False),
    ]
    ok = all((agree(other, rows(base), ordering) is not None) == differs
             for _, other, ordering, differs in cases)
    bad = [name for name, other, ordering, differs in cases
           if (agree(other, rows(base), ordering) is not None) != differs]
    check("comparison self-check", ok, "misjudged: " + ", ".join(bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--queries", type=int, default=SHORT_QUERIES)
    ap.add_argument("--seed", default=SHORT_SEED)
    ap.add_argument("--seconds", type=float, default=None,
                    help="stop after this long (default %d s for the short run, "
                         "none when --queries is given; 0: none)" % SHORT_SECONDS)
    ap.add_argument("--enable", default="", help="comma list of gen.Features flags: %s"
                    % ", ".join(sorted(known.EXCLUDED)))
    ap.add_argument("--dsn-cadenza")
    ap.add_argument("--dsn-postgres")
    ap.add_argument("--timeout-ms", type=int, default=10000)
    ap.add_argument("--verbose", action="store_true", help="print every query and outcome")
    ap.add_argument("--ini", action="append", default=[], metavar="KEY=VALUE",
                    help="a [Parameters] setting of the Cadenza server (e.g. VectorSize=3)")
    a = ap.parse_args()
    seconds = a.seconds
    if seconds is None:
        seconds = SHORT_SECONDS if a.queries == SHORT_QUERIES else 0
    feats = Features(**{f: True for f in a.enable.split(",") if f})
    self_check()
    if a.dir and os.path.isdir(a.dir) and not (a.dsn_cadenza and a.dsn_postgres):
        shutil.rmtree(a.dir)
    subject = reference = None
    try:
        try:
            ini = dict(kv.split("=", 1) for kv in a.ini) if a.kind == "cadenza" else {}
            subject = Engine("subject", a.kind, dsn=a.dsn_cadenza, binary=a.binary,
                             folder=os.path.join(a.dir, "subject"), timeout_ms=a.timeout_ms,
                             ini=ini)
            reference = Engine("postgres", "postgres", dsn=a.dsn_postgres,
                               folder=os.path.join(a.dir, "postgres"), timeout_ms=a.timeout_ms)
        except Exception as e:
            check("servers start", False, str(e)[:500])
            return checks.summary()
        check("servers start", True)
        fz = Fuzzer(subject, reference, a.seed, feats, verbose=a.verbose)
        print("difffuzz: seed %s, %d queries%s; excluded: %s" % (
            a.seed, a.queries, ", at most %g s" % seconds if seconds else "",
            "; ".join("%s (%s)" % (k, v) for k, v in sorted(known.EXCLUDED.items())
                      if not getattr(feats, k))))
        print("difffuzz: not in the grammar: %s (tests/difffuzz/known.py says why)"
              % ", ".join(sorted(known.NOT_IN_GRAMMAR)))
        sys.stdout.flush()
        st = fz.run(a.queries, seconds or None)
        fz.summary()
        for d in fz.diffs.values():
            check("difference %s" % d.where, False, "%s (x%d): %s" % (
                d.reason, d.count, d.small_sql[:200]))
        check("no server deaths", st["crashes"] == 0, "%d deaths" % st["crashes"])
        # a fuzzer whose queries all fail or all come back empty compares
        # nothing: that is a failure of the test, not a pass
        judged = st["queries"] - st["known"]
        answered = st["rows"] / max(1, judged)
        check("queries answered on both", answered >= MIN_ANSWERED,
              "only %.0f%% of %d queries (not counting known differences) returned rows on both"
              % (100 * answered, judged))
        nonempty = st["nonempty"] / max(1, st["rows"])
        check("answers not empty", nonempty >= MIN_NONEMPTY,
              "only %.0f%% of %d answers had a row" % (100 * nonempty, st["rows"]))
        check("differences", st["differences"] == 0,
              "%d differences, %d distinct (reproductions above)" % (st["differences"], len(fz.diffs)))
    finally:
        for e in (subject, reference):
            if e is not None:
                e.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

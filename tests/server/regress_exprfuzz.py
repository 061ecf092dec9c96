#!/usr/bin/env python3
"""Expression fuzzer: every scalar function (pg_proc) and operator
(pg_operator) the server registers, called with extreme and odd arguments.

The functions and operators come from the server's own catalogs, so a new
function is fuzzed without changing this file. Arguments are drawn from
pools per argument type: 0, -1, the limits of smallint/integer/bigint,
NULL, empty and multi-megabyte strings, invalid UTF-8 (through bytea and
E'' escapes), NaN and infinities, extreme dates and timestamps, NUMERICs
of huge and tiny scale, arrays (also nested), and nested calls of other
functions; some statements nest one function or ARRAY[...] deeply.

Each statement is a batch of calls (one select-list entry per call); a
batch that fails is retried one call at a time, so that every call ends
in a result or an ERROR with a SQLSTATE. After every batch a side
connection checks that the server answers `select 1`. A closed
connection, a missing SQLSTATE or a dead server is a failure; so is a
call that the 3 s statement_timeout cancels more than 2 s late (a loop
without a cancel check); one cancelled on time is an answer. Seeded and
reproducible: the seed is printed (`--seed S` replays a run).

Usage: regress_exprfuzz.py --dsn DSN --kind cadenza|postgres
                           [--seed S] [--calls N] [--seconds T]
Prints PASS/FAIL lines and "N passed, N failed"; exit 0 when none failed.
Against PostgreSQL it is skipped: its thousands of catalog functions
include ones that act on the server (pg_terminate_backend, lo_*, ...).
"""
import argparse
import os
import random
import sys
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

# Functions that act on the server or the session rather than computing a
# value (or sleep): calling them at random would test the fuzzer, not the
# functions. Matched as substrings of the name.
STATEMENT_TIMEOUT_S = 3
CANCEL_SLACK_S = 2  # a timeout's cancel must end the call within this much more
SKIP_NAME_PARTS = ("sleep", "terminate", "cancel_backend", "reload_conf", "rotate",
                   "read_file", "read_binary", "ls_dir", "stat_file", "advisory",
                   "set_config", "lo_", "pg_notify", "txid_", "pg_switch", "checkpoint",
                   "ld_dir", "loader_run")

INT_POOL = ["0", "-1", "1", "2", "7", "100", "32767", "(-32768)", "2147483647",
            "(-2147483647)", "(-2147483648)", "9223372036854775807",
            "(-9223372036854775807)", "(-9223372036854775807 - 1)", "NULL"]
INT2_POOL = ["0::int2", "(-1)::int2", "32767::int2", "(-32768)::int2", "NULL::int2"]
INT8_POOL = ["0::int8", "(-1)::int8", "9223372036854775807::int8",
             "(-9223372036854775807 - 1)::int8", "4294967296::int8", "NULL::int8"]
NUM_POOL = ["0::numeric", "1.5", "-1.5", "0.5", "-0.5", "2.5",
            "99999999999999999999999999999999999999",
            "-99999999999999999999999999999999999999",
            "0.00000000000000000000000000000000000001",
            "9999999999999999999.9999999999999999999",
            "1e37::numeric", "123456789.123456789", "NULL::numeric"]
FLOAT_POOL = ["'NaN'::float8", "'Infinity'::float8", "'-Infinity'::float8",
              "1e308::float8", "(-1e308)::float8", "5e-324::float8", "(-0.0)::float8",
              "0.5::float8", "1e19::float8", "(-1e19)::float8", "9.3e18::float8",
              "'NaN'::float4", "3.4e38::float4", "NULL::float8"]
TEXT_POOL = ["''", "'a'", "' '", "'abc'", "'héllo wörld'", "'日本語'", "'%'", "'_'",
             "'\\'", "'(((('", "'[a-'", "'.*.*.*.*.*.*.*.*x'", "'(a|aa)*b'",
             "'1'", "'-1'", "'2147483648'", "'NaN'", "'infinity'", "'epoch'",
             "'2000-01-01'", "'{}'", "'{1,2,3}'", "'{{1,2},{3,4}}'", "'{\"a\",NULL}'",
             "'day'", "'year'", "'microseconds'", "'YYYY-MM-DD HH24:MI:SS'", "'hex'",
             "'base64'", "'escape'", "'UTF8'", "'LATIN1'",
             "E'\\\\x41\\\\x00'", "E'\\x01\\x02'", "E'\\u00e9'", "E'\\xff'",
             "convert_from('\\xff'::bytea, 'UTF8')", "convert_from('\\xc3'::bytea, 'UTF8')",
             "repeat('x', 1000)", "repeat('é', 100000)", "repeat('ab', 1000000)",
             "repeat('x', 3000000)", "NULL::text"]
BYTEA_POOL = ["''::bytea", "'\\x00'::bytea", "'\\xff'::bytea", "'\\xc3'::bytea",
              "'\\xdeadbeef'::bytea", "decode(repeat('ff', 100000), 'hex')", "NULL::bytea"]
BOOL_POOL = ["true", "false", "NULL::boolean"]
DATE_POOL = ["'infinity'::date", "'-infinity'::date", "'5874897-12-31'::date",
             "'4714-11-24 BC'::date", "'2000-02-29'::date", "'1970-01-01'::date",
             "current_date", "NULL::date"]
TS_POOL = ["'infinity'::timestamp", "'-infinity'::timestamp",
           "'294276-12-31 23:59:59.999999'::timestamp", "'4714-11-24 00:00:00 BC'::timestamp",
           "'2000-01-01 00:00:00'::timestamp", "now()", "NULL::timestamp",
           "'294276-12-31 23:59:59.999999'::timestamptz"]
ARRAY_POOL = ["ARRAY[1,2,3]", "'{}'::int[]", "ARRAY[NULL::int]", "ARRAY['a','b']",
              "ARRAY[ARRAY[1,2],ARRAY[3,4]]", "ARRAY[ARRAY[ARRAY[1]]]",
              "ARRAY[2147483647, -2147483648]", "ARRAY[1.5, NULL]", "'{{1},{2}}'::int[]",
              "NULL::int[]"]

# PostgreSQL type OIDs (pg_proc.proargtypes) to pools.
POOLS = {
    21: INT2_POOL + INT_POOL[:6], 23: INT_POOL, 20: INT8_POOL + INT_POOL,
    26: INT_POOL, 1700: NUM_POOL + INT_POOL[:5], 701: FLOAT_POOL + NUM_POOL[:4],
    700: FLOAT_POOL, 25: TEXT_POOL, 1043: TEXT_POOL, 1042: TEXT_POOL, 19: TEXT_POOL,
    18: TEXT_POOL[:6], 16: BOOL_POOL, 17: BYTEA_POOL, 1082: DATE_POOL,
    1114: TS_POOL, 1184: TS_POOL, 1083: TEXT_POOL[:8],
}
ALL_VALUES = sorted({v for p in POOLS.values() for v in p} | set(ARRAY_POOL))


class RawLoader(psycopg.adapt.Loader):
    """Results are checked for arriving, not decoded: Python's date and
    Decimal cannot hold every value a server may rightly return."""

    def load(self, data):
        return bytes(data)


RAW_OIDS = (16, 17, 18, 19, 20, 21, 23, 25, 26, 700, 701, 1042, 1043, 1082, 1083, 1114,
            1184, 1186, 1700, 1000, 1005, 1007, 1009, 1016, 1021, 1022, 1115, 1182, 1231)


class Fuzz:
    def __init__(self, dsn, rng):
        self.dsn = dsn
        self.rng = rng
        self.calls = 0
        self.errors = {}
        self.failures = []
        self.slow = []
        self.cancelled = []
        self.examples = {}
        self.conn = None
        self.side = psycopg.connect(dsn, autocommit=True)
        self.side.execute("SET statement_timeout = '10s'")

    def connect(self):
        """False when the server does not accept a connection any more."""
        if self.conn is not None and not self.conn.closed:
            return True
        try:
            self._connect()
            return True
        except psycopg.Error as ex:
            self.failures.append("cannot connect: %s" % str(ex).strip()[:200])
            self.conn = None
            return False

    def _connect(self):
        if self.conn is None or self.conn.closed:
            self.conn = psycopg.connect(self.dsn, autocommit=True)
            for oid in RAW_OIDS:
                self.conn.adapters.register_loader(oid, RawLoader)
            # every argument is bounded (a few MB): a call running this long is a
            # defect (as the nested ARRAY[...] that grew 4x per level)
            self.conn.execute("SET statement_timeout = '%ds'" % STATEMENT_TIMEOUT_S)

    def alive(self):
        try:
            return self.side.execute("select 1").fetchone()[0] == 1
        except psycopg.Error:
            return False

    def run_one(self, expr):
        """One call: a result or an ERROR with a SQLSTATE; else a failure."""
        if not self.connect():
            return False
        self.calls += 1
        t0 = time.time()
        try:
            self.conn.execute("select " + expr).fetchall()
            return True
        except psycopg.errors.QueryCanceled:
            # Cancelled by statement_timeout: fine when the cancel landed on
            # time (a nested string builder may legitimately grow past any
            # timeout); a cancel that arrives late means a loop that does
            # not check for it (defect 4) or work that cannot be stopped.
            secs = time.time() - t0
            self.errors["57014"] = self.errors.get("57014", 0) + 1
            if secs > STATEMENT_TIMEOUT_S + CANCEL_SLACK_S:
                self.slow.append("%.1f s: %s" % (secs, expr[:200]))
            else:
                self.cancelled.append(expr[:200])
            return True
        except psycopg.Error as ex:
            state = getattr(ex.diag, "sqlstate", None)
            if self.conn.closed or state is None:
                self.failures.append("%s: connection lost or no SQLSTATE (%s)" %
                                     (expr[:300], str(ex).strip()[:200]))
                self.conn = None
                return False
            self.errors[state] = self.errors.get(state, 0) + 1
            self.examples.setdefault(state, "%s -> %s" % (expr[:150], str(ex).strip()[:150]))
            return True

    def run_batch(self, exprs):
        """Several calls in one statement; on an error each alone."""
        if not self.connect():
            return False
        try:
            self.conn.execute("select " + ", ".join(exprs)).fetchall()
            self.calls += len(exprs)
            ok = True
        except psycopg.Error:
            if self.conn.closed:
                self.conn = None
            ok = True
            for x in exprs:
                ok = self.run_one(x) and ok
                if self.conn is None and not self.alive():
                    break
        if not self.alive():
            self.failures.append("server stopped answering after: select %s" %
                                 ", ".join(exprs)[:600])
            return False
        return ok


def arg_for(rng, oid, funcs, depth):
    if depth > 0 and rng.random() < 0.15:
        return call_expr(rng, rng.choice(funcs), funcs, depth - 1)
    pool = POOLS.get(oid)
    if pool is None:
        pool = ARRAY_POOL if oid in (1007, 1009, 1016, 1231, 1005, 1021, 1022) else ALL_VALUES
    return rng.choice(pool)


def call_expr(rng, f, funcs, depth=2):
    name, argtypes, variadic = f
    n = len(argtypes)
    if variadic:
        n = max(0, n - 1) + rng.randint(0, 4)
    args = []
    for k in range(n):
        oid = argtypes[min(k, len(argtypes) - 1)] if argtypes else 2276
        args.append(arg_for(rng, oid, funcs, depth))
    return '%s(%s)' % (quote_ident(name), ", ".join(args))


def quote_ident(name):
    if name.replace("_", "a").isalnum() and name.islower() and not name[0].isdigit():
        return name
    return '"%s"' % name.replace('"', '""')


def op_expr(rng, op):
    name, kind = op
    # operands of one type most of the time, so that most calls resolve
    pool = rng.choice(list(POOLS.values()) + [ARRAY_POOL]) if rng.random() < 0.7 else ALL_VALUES
    if kind == "l":
        return "(%s %s)" % (name, rng.choice(pool))
    return "(%s %s %s)" % (rng.choice(pool), name, rng.choice(pool))


def deep_expr(rng, funcs):
    """Deep nesting: one unary function, parentheses, operators or ARRAY."""
    depth = rng.choice([8, 30, 100, 300])
    kind = rng.randrange(4)
    if kind == 0:
        unary = [f for f in funcs if len(f[1]) == 1 and not f[2]]
        name = quote_ident(rng.choice(unary)[0])
        return name + "(" * 1 + ("%s(" % name) * (depth - 1) + rng.choice(ALL_VALUES) + ")" * depth
    if kind == 1:
        return "(" * depth + rng.choice(INT_POOL[:8]) + ")" * depth
    if kind == 2:
        return " + ".join(rng.choice(INT_POOL[:8]) for _ in range(depth))
    d = rng.choice([2, 3, 6, 7, 10, 40])
    inner = rng.choice(["1", "NULL", "'x'", "1.5", "repeat('y', 1000)"])
    return "ARRAY[" * d + inner + "]" * d


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--calls", type=int, default=3000)
    ap.add_argument("--seconds", type=float, default=100.0)
    ap.add_argument("--verbose", action="store_true", help="one example call per SQLSTATE")
    args = ap.parse_args()
    if args.kind != "cadenza":
        print("SKIP exprfuzz: PostgreSQL's catalog functions include ones that act on the server")
        print("0 passed, 0 failed")
        return 0
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print("exprfuzz seed %d (replay with --seed %d)" % (seed, seed), flush=True)
    rng = random.Random(seed)
    fz = Fuzz(args.dsn, rng)
    rows = fz.side.execute(
        "select proname, proargtypes::text, pronargs from pg_proc order by oid").fetchall()
    funcs = []
    for name, argtext, nargs in rows:
        if any(p in name for p in SKIP_NAME_PARTS):
            continue
        argtypes = [int(t) for t in (argtext or "").split()] if argtext else []
        funcs.append((name, argtypes, False))
    ops = fz.side.execute("select oprname, oprkind::text from pg_operator order by oid").fetchall()
    check("catalog lists functions (%d) and operators (%d)" % (len(funcs), len(ops)),
          len(funcs) > 50 and len(ops) > 10, "pg_proc / pg_operator look empty")
    start = time.time()
    # Every function and every operator at least once with each pool's edge values.
    work = []
    for f in funcs:
        for _ in range(3):
            work.append(call_expr(rng, f, funcs, depth=0))
    for op in ops:
        for _ in range(6):
            work.append(op_expr(rng, op))
    rng.shuffle(work)
    while len(work) < args.calls:
        r = rng.random()
        if r < 0.6:
            work.append(call_expr(rng, rng.choice(funcs), funcs, depth=2))
        elif r < 0.85:
            work.append(op_expr(rng, rng.choice(ops)))
        else:
            work.append(deep_expr(rng, funcs))
    i = 0
    dead = False
    while i < len(work) and time.time() - start < args.seconds:
        n = rng.randint(1, 4)
        if not fz.run_batch(work[i:i + n]):
            if not fz.alive():
                dead = True
                break
        i += n
    secs = time.time() - start
    print("exprfuzz: %d calls in %.1f s, errors by SQLSTATE: %s" %
          (fz.calls, secs, ", ".join("%s=%d" % kv for kv in sorted(fz.errors.items()))),
          flush=True)
    check("every call gave a result or an ERROR with a SQLSTATE", not fz.failures,
          "%d bad calls; first: %s" % (len(fz.failures), fz.failures[0] if fz.failures else ""))
    if args.verbose:
        for state, ex in sorted(fz.examples.items()):
            print("  %s e.g. %s" % (state, ex.replace("\n", " ")))
    for f in fz.failures[:20]:
        print("  bad call: %s" % f)
    for f in fz.cancelled[:5]:
        print("  cancelled on time by the %d s statement_timeout: %s" % (STATEMENT_TIMEOUT_S, f))
    for f in fz.slow[:20]:
        print("  cancel arrived late (57014 after %s" % f.replace(": ", "): ", 1))
    check("server alive after %d calls (seed %d)" % (fz.calls, seed), not dead and fz.alive(),
          "the server stopped answering")
    check("every call ended within %d s of the %d s statement_timeout"
          % (CANCEL_SLACK_S, STATEMENT_TIMEOUT_S), not fz.slow,
          "%d calls ended late" % len(fz.slow))
    check("at least 2000 calls made", fz.calls >= min(2000, args.calls),
          "only %d calls in %.0f s" % (fz.calls, secs))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

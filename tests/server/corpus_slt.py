#!/usr/bin/env python3
"""The sqllogictest corpus (every *.test under ../shared/data/slt, found at
run time so that new files are picked up) against a running server, through
../shared/tools/sql/slt.py with its default engine name (postgresql: the
files' `skipif postgresql` guards are PostgreSQL's differences, and
Cadenza answers as PostgreSQL does). Each file is one check: it passes when
every failing record is one where PostgreSQL 15 itself disagrees with the
file (tests/sql/slt_pg_differences.tsv, matched by file and statement
text). Prints PASS/FAIL per file and the closing `N passed, N failed`.

Usage: corpus_slt.py --dsn DSN --slt PATH/slt.py --corpus DIR [--protocol P]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DIFFS = os.path.join(HERE, "..", "sql", "slt_pg_differences.tsv")


def known_differences():
    known = set()
    for line in open(DIFFS, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        f, _line, sql, _why = line.rstrip("\n").split("\t", 3)
        known.add((f, sql))
    return known


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--slt", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--protocol", default="simple")
    ap.add_argument("--timeout", type=int, default=60)
    a = ap.parse_args()
    a.slt = os.path.abspath(a.slt)
    files = sorted(os.path.relpath(os.path.join(d, f), a.corpus)
                   for d, _, fs in os.walk(a.corpus) for f in fs if f.endswith(".test"))
    known = known_differences()
    for f in files:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            r = subprocess.run([sys.executable, a.slt, "--dsn", a.dsn, "--protocol", a.protocol,
                                "--timeout", str(a.timeout), "--max-failures-per-file", "100000",
                                "--json", out.name, "-q", f],
                               cwd=a.corpus, capture_output=True, text=True)
            try:
                fails = json.load(open(out.name))
            except ValueError:
                checks.check(f, False, "no result from slt.py (exit %d): %s"
                             % (r.returncode, (r.stderr or r.stdout)[-300:]))
                continue
        unexpected = [x for x in fails if (x["file"], x["sql"]) not in known]
        checks.check(f, not unexpected, "; ".join(
            "line %s %s: %s" % (x["line"], x["kind"], (x.get("error") or "").split("\n")[0]
                                or "got %s expected %s" % (x.get("got"), x.get("expected")))
            for x in unexpected[:5]))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

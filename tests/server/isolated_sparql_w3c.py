#!/usr/bin/env python3
"""The W3C SPARQL 1.1 and 1.0 test suites against the HTTP endpoint, in the
default suite (issue 10, "Tests"): the harness
../shared/tools/sparql-w3c/run_w3c.py runs unchanged (the store emptied
with DROP ALL, each test's data loaded with INSERT DATA, the query or
update sent over the SPARQL 1.1 Protocol), one suite per server, both at
once, on servers with [SPARQL] DefaultGraph = store, as the tests assume. The pass count of each
folder and of each suite is printed and checked against the floor kept in
tests/sparql/w3c_floor.txt: a count below its floor fails, so a fix
elsewhere cannot hide a regression in one folder.

When more tests pass, raise the floor with
  isolated_sparql_w3c.py --binary build/binsrc/cadenza/cadenza --dir /tmp/w3c --raise-floor
which rewrites the file with each count that went up (never down) and
says which; commit the file with the fix.

Usage: isolated_sparql_w3c.py --kind cadenza|postgres --binary PATH --dir DIR [--raise-floor]
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import sparqlkit  # noqa: E402
from checks import check  # noqa: E402

FLOOR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sparql", "w3c_floor.txt")
SUITES = ("sparql11", "sparql10")


def read_floor(path):
    """{(suite, folder): passed}; folder "total" is the suite's total."""
    floor = {}
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if line:
                floor[(line[0], line[1])] = int(line[2])
    return floor


def write_floor(path, floor, header):
    with open(path, "w") as f:
        f.write(header)
        for suite in SUITES:
            keys = sorted(k for k in floor if k[0] == suite and k[1] != "total")
            f.write("%s total %d\n" % (suite, floor[(suite, "total")]))
            for k in keys:
                f.write("%s %s %d\n" % (k[0], k[1], floor[k]))


def floor_header(path):
    with open(path) as f:
        return "".join(line for line in f if line.startswith("#"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--raise-floor", action="store_true",
                    help="rewrite tests/sparql/w3c_floor.txt with the counts that went up")
    args = ap.parse_args()
    if args.kind != "cadenza":
        return checks.skip("the SPARQL endpoint is Cadenza's own")
    if not os.path.isdir(os.path.join(sparqlkit.SHARED, "tools", "sparql-w3c")):
        return checks.skip("no W3C harness in %s/tools/sparql-w3c (CZ_SHARED names the shared folder)"
                           % sparqlkit.SHARED)
    try:
        run_w3c = sparqlkit.w3c_harness()
    except ImportError as ex:
        return checks.skip("the W3C harness needs rdflib and requests (scripts/install-deps.sh): %s" % ex)
    # the two suites at once, each against a server of its own (the
    # harness empties the store before every test): half the wall time
    # on two cores
    runs = []
    got = {}
    try:
        for suite in SUITES:
            srv, port = sparqlkit.http_server(args, "w3c_" + suite, sparql={
                "MaxQueryExecutionTime": "20", "AllowUpdate": "yes", "DefaultGraph": "store"})
            srv.start()
            url = "http://127.0.0.1:%d/sparql" % port
            out = os.path.join(srv.folder, "%s.json" % suite)
            log = open(os.path.join(srv.folder, "harness.out"), "w+")
            proc = subprocess.Popen([sys.executable, run_w3c.__file__, "--query-url", url, "--update-url", url,
                                     "--suite", suite, "--timeout", "20", "--json", out, "--label", "cadenza http",
                                     "-v"], stdout=log, stderr=subprocess.STDOUT)
            runs.append((suite, srv, proc, out, log))
        for suite, srv, proc, out, log in runs:
            try:
                rc = proc.wait(timeout=800)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = "timeout"
            log.seek(0)
            sys.stdout.write(log.read())
            log.close()
            check("%s: the server is alive after the suite" % suite, srv.alive())
            srv.stop()
            if not check("%s: the harness ran to the end" % suite, rc == 0 and os.path.exists(out), "exit %s" % rc):
                continue
            with open(out) as f:
                report = json.load(f)
            for folder, r in report["summary"].items():
                got[(suite, folder.split("/", 1)[-1])] = r["passed"]
            got[(suite, "total")] = report["totals"]["passed"]
            print("%s: %d of %d passed" % (suite, report["totals"]["passed"], report["totals"]["total"]))
    finally:
        for run in runs:
            if run[2].poll() is None:
                run[2].kill()
            run[1].stop()
    floor = read_floor(FLOOR)
    for key in sorted(floor, key=lambda k: (k[0], k[1] != "total", k[1])):
        n = got.get(key)
        check("%s %s: %s passed, floor %d" % (key[0], key[1], n, floor[key]),
              n is not None and n >= floor[key], "below the floor in %s" % FLOOR)
    if args.raise_floor and got:
        raised = dict(floor)
        for key, n in got.items():
            if n > raised.get(key, -1):
                print("floor %s %s: %s -> %d" % (key[0], key[1], floor.get(key, "none"), n))
                raised[key] = n
        write_floor(FLOOR, raised, floor_header(FLOOR))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs the W3C SPARQL test harness (../shared/tools/sparql-w3c/run_w3c.py)
against Cadenza's HTTP endpoint, unchanged: the harness empties the store
with DROP ALL and loads each test's data with INSERT DATA over HTTP, sends
the query or update, and judges every answer. The server runs with
[SPARQL] DefaultGraph = store (a query's default graph is the store's own,
as the tests assume) and AllowUpdate = yes. Arguments after -- go to the
harness (--suite, --folders, -v, --json, ...). Needs rdflib and requests
(the harness's own needs).

Not part of a test stage (minutes); a tool:
  sparql_w3c_http.py --binary build/binsrc/cadenza/cadenza --dir /tmp/x -- --suite all -v
"""
import argparse
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import srvctl  # noqa: E402

SHARED = os.environ.get("CZ_SHARED") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared"))
sys.path.insert(0, os.path.join(SHARED, "tools", "sparql-w3c"))
import run_w3c  # noqa: E402


def main():
    argv = sys.argv[1:]
    rest = []
    if "--" in argv:
        i = argv.index("--")
        argv, rest = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", required=True)
    args = ap.parse_args(argv)
    folder = os.path.abspath(os.path.join(args.dir, "w3c-http"))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    port = srvctl.free_port()
    srv = srvctl.Server("cadenza", os.path.join(folder, "srv"), binary=os.path.abspath(args.binary))
    srv.extra_ini = {"HTTPServer": {"ServerPort": "127.0.0.1:%d" % port},
                     "SPARQL": {"MaxQueryExecutionTime": "20", "AllowUpdate": "yes",
                                "DefaultGraph": "store"}}
    srv.start()
    try:
        url = "http://127.0.0.1:%d/sparql" % port
        rc = run_w3c.main(["--query-url", url, "--update-url", url, "--json",
                           os.path.join(folder, "results.json"), "--label", "cadenza http"] + rest)
    finally:
        srv.stop()
    return rc


if __name__ == "__main__":
    sys.exit(main())

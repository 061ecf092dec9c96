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
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sparqlkit  # noqa: E402


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
    run_w3c = sparqlkit.w3c_harness()
    srv, port = sparqlkit.http_server(args, "w3c-http", sparql={"MaxQueryExecutionTime": "20",
                                                                "AllowUpdate": "yes", "DefaultGraph": "store"})
    srv.start()
    try:
        url = "http://127.0.0.1:%d/sparql" % port
        rc = run_w3c.main(["--query-url", url, "--update-url", url, "--json",
                           os.path.join(srv.folder, "results.json"), "--label", "cadenza http"] + rest)
    finally:
        srv.stop()
    return rc


if __name__ == "__main__":
    sys.exit(main())

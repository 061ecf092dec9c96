#!/usr/bin/env python3
"""Runs the W3C SPARQL test harness (../shared/tools/sparql-w3c/run_w3c.py)
against Cadenza's HTTP endpoint, with the test data loaded through SQL.

The harness loads each test's data with SPARQL Update (INSERT DATA) or the
Graph Store Protocol and empties the store with DROP ALL; neither exists
yet, so this wrapper starts a server (srvctl, [HTTPServer] on a free port),
replaces the harness's Endpoint.clear and Endpoint.load by SQL — DELETE
from pg_rdf's quad tables, the triples written as an N-Quads file and
loaded with ld_dir / rdf_loader_run — and runs the harness unchanged
otherwise: every query goes over HTTP, every answer is judged by the
harness. Arguments after -- go to the harness (--suite, --folders, -v,
--json, ...). Needs rdflib and requests (the harness's own needs).

Not part of a test stage (minutes); a tool:
  sparql_w3c_http.py --binary build/binsrc/cadenza/cadenza --dir /tmp/x -- --suite all -v
"""
import argparse
import os
import shutil
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import srvctl  # noqa: E402

SHARED = os.environ.get("CZ_SHARED") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared"))
sys.path.insert(0, os.path.join(SHARED, "tools", "sparql-w3c"))
import run_w3c  # noqa: E402


class SqlStore:
    """Empties and loads the store over the SQL port."""

    def __init__(self, dsn, folder):
        self.c = psycopg.connect(dsn, autocommit=True)
        self.folder = folder
        self.n = 0

    def clear(self):
        for t in ("rdf_quad", "rdf_quad_sp", "rdf_quad_op", "rdf_quad_gs"):
            self.c.execute("DELETE FROM pg_rdf.%s" % t)

    def load(self, default_triples, named):
        self.n += 1
        name = "t%d.nq" % self.n
        path = os.path.join(self.folder, name)
        with open(path, "w", encoding="utf-8") as f:
            for g, triples in [(None, default_triples)] + list(named.items()):
                for t in triples:
                    f.write("%s %s %s%s .\n" % (run_w3c.nt_term(t[0]), run_w3c.nt_term(t[1]),
                                                run_w3c.nt_term(t[2]), "" if g is None else " <%s>" % g))
        self.c.execute("SELECT ld_dir(%s, %s)", (self.folder, name))
        self.c.execute("SELECT rdf_loader_run()")
        st = self.c.execute("SELECT ll_state, ll_error FROM pg_rdf.rdf_load_list WHERE ll_file = %s",
                            (path,)).fetchone()
        os.unlink(path)
        if not st or st[0] != 2 or st[1]:
            raise run_w3c.EndpointError("loading the test data through SQL failed: %r" % (st,))


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
    data = os.path.join(folder, "data")
    os.makedirs(data)
    port = srvctl.free_port()
    srv = srvctl.Server("cadenza", os.path.join(folder, "srv"), binary=os.path.abspath(args.binary))
    srv.extra_ini = {"Parameters": {"DirsAllowed": data},
                     "HTTPServer": {"ServerPort": "127.0.0.1:%d" % port},
                     "SPARQL": {"MaxQueryExecutionTime": "20", "AllowUpdate": "yes"}}
    srv.start()
    try:
        store = SqlStore(srv.dsn(), data)
        run_w3c.Endpoint.clear = lambda self, loaded_graphs=(): store.clear()
        run_w3c.Endpoint.load = lambda self, default_triples, named: store.load(default_triples, named)
        url = "http://127.0.0.1:%d/sparql" % port
        rc = run_w3c.main(["--query-url", url, "--update-url", url, "--json",
                           os.path.join(folder, "results.json"), "--label", "cadenza http"] + rest)
    finally:
        srv.stop()
    return rc


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""LUBM(10) correctness (issue 10, Tests "LUBM(10)"): loads
../shared/data/lubm10/lubm10.nt.gz with the bulk loader (ld_dir +
rdf_loader_run) and runs the 26 queries of ../shared/data/lubm/queries
(lubm14 q01-q14 and the Wukong basic q1-q12) as `SPARQL …` statements,
comparing each row count with expected-counts.tsv (counts without
inference, agreed by Oxigraph and Virtuoso); then LUBM's 14 queries again
under `DEFINE input:inference` with tests/data/lubm/univ-bench-subset.ttl
(the part of univ-bench.owl the README names) as the rule set, each count
against the README's table "Counts with inference" (LUBM(10) column).
Prints the load time and each query's time, so a slow load or a slow
query shows in the log.

Without the shared data the script skips and says so.

Usage: isolated_lubm.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import csv
import os
import sys
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SHARED = os.environ.get("CZ_SHARED") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared"))
LUBM_DIR = os.path.join(SHARED, "data", "lubm10")
QUERIES = os.path.join(SHARED, "data", "lubm", "queries")
EXPECTED = os.path.join(SHARED, "data", "lubm", "expected-counts.tsv")
DISTINCT_TRIPLES = 1272577  # README: two of them have the relative subject <>


def expected_counts():
    with open(EXPECTED) as f:
        return [(r["query"], int(r["rows_without_inference"]))
                for r in csv.DictReader(f, delimiter="\t")]


ONTOLOGY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "lubm",
                        "univ-bench-subset.ttl")
RULE_SET = "urn:cadenza:lubm:univ-bench"
LUBM_README = os.path.join(SHARED, "data", "lubm", "README.md")


def counts_with_inference():
    """The README's table "Counts with inference": (query, LUBM(10) rows)."""
    out = []
    with open(LUBM_README) as f:
        for line in f:
            cells = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(cells) == 4 and cells[0].startswith("lubm14/q"):
                out.append((cells[0], int(cells[1].replace(",", ""))))
    return out


def ontology_insert():
    """tests/data/lubm/univ-bench-subset.ttl as one INSERT DATA into the
    rule set's graph (its Turtle is also SPARQL's triples syntax)."""
    prefixes, body = [], []
    with open(ONTOLOGY) as f:
        for line in f:
            if line.startswith("@prefix"):
                prefixes.append("PREFIX " + line[len("@prefix"):].strip().rstrip(".").strip())
            elif not line.lstrip().startswith("#"):
                body.append(line)
    return "SPARQL %s INSERT DATA { GRAPH <%s> { %s } }" % ("\n".join(prefixes), RULE_SET, "".join(body))


def query_text(name):
    with open(os.path.join(QUERIES, name + ".rq")) as f:
        return f.read()


def count_rows(c, text):
    """The number of solutions of a SPARQL query, and the seconds it took."""
    t0 = time.monotonic()
    cur = c.execute("SPARQL " + text)
    n = 0
    while True:
        rows = cur.fetchmany(10000)
        if not rows:
            break
        n += len(rows)
    return n, time.monotonic() - t0


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("SPARQL is Cadenza's own")
    if not os.path.exists(os.path.join(LUBM_DIR, "lubm10.nt.gz")) or not os.path.exists(EXPECTED):
        return checks.skip("no LUBM(10) data under %s" % SHARED)
    srv = checks.isolated_server(args, "lubm", buffers=20000,
                                 extra_ini={"Parameters": {"DirsAllowed": LUBM_DIR}})
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            t0 = time.monotonic()
            c.execute("SELECT ld_dir(%s, 'lubm10.nt.gz', NULL)", (LUBM_DIR,))
            files = c.execute("SELECT rdf_loader_run()").fetchone()[0]
            took = time.monotonic() - t0
            n = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
            print("load: %d quads in %.1f s (%.0f triples/s)" % (n, took, n / max(took, 1e-9)))
            check("LUBM(10) loads: one file, every distinct triple once",
                  files == 1 and DISTINCT_TRIPLES - 2 <= n <= DISTINCT_TRIPLES,
                  "files %r quads %r" % (files, n))
            for name, want in expected_counts():
                try:
                    got, secs = count_rows(c, query_text(name))
                except psycopg.Error as ex:
                    check("%s: runs" % name, False, "%s %s" % (ex.sqlstate, ex))
                    continue
                print("%s: %d rows in %.3f s" % (name, got, secs))
                check("%s without inference: %d rows" % (name, want), got == want, "got %d" % got)
            # plans: a pattern joined on its subject is probed per row
            # through PSOG with its predicate as the key's first column
            # (opt README "Index lookup joins"), not read whole for a hash
            # join — Wukong q4: 41 professors of a department, then their
            # name, e-mail and telephone, out of 100,000s of quads each
            plan = "\n".join(r[0] for r in c.execute(
                "EXPLAIN SPARQL " + query_text("wukong/q4")).fetchall())
            probes = [ln for ln in plan.split("\n")
                      if "Index Lookup Join  rdf_quad using rdf_quad_pkey (p = " in ln and ", s = $" in ln]
            check("wukong/q4: its three subject-joined patterns are index lookups on (p, s)",
                  len(probes) >= 3 and "HashJoin" not in plan, plan)
            # a variable predicate with a constant object (q10) or subject
            # and object (q11): the (o, p) / (s, p) projection, then
            # rdf_quad by key, never a scan of every quad
            for name in ("wukong/q10", "wukong/q11"):
                plan = "\n".join(r[0] for r in c.execute(
                    "EXPLAIN SPARQL " + query_text(name)).fetchall())
                scans = [ln for ln in plan.split("\n") if "Scan  rdf_quad q" in ln]
                check("%s: no scan of rdf_quad (projection, then lookups)" % name,
                      not scans and "rdf_quad_" in plan, plan)
            # with inference: the rule set of the ontology part the README
            # describes, each count the README's "with inference" one
            c.execute(ontology_insert())
            for name, want in counts_with_inference():
                try:
                    got, secs = count_rows(c, 'DEFINE input:inference "%s" ' % RULE_SET + query_text(name))
                except psycopg.Error as ex:
                    check("%s with inference: runs" % name, False, "%s %s" % (ex.sqlstate, ex))
                    continue
                print("%s with inference: %d rows in %.3f s" % (name, got, secs))
                check("%s with inference: %d rows" % (name, want), got == want, "got %d" % got)
            check("the server still answers", c.execute("SELECT 1").fetchone() == (1,))
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

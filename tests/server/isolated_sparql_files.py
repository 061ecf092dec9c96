#!/usr/bin/env python3
"""The SPARQL regression files, tests/sparql/*.test (format:
tests/sparql/README.md), through both ways in: the HTTP endpoint (SPARQL
1.1 Protocol, JSON results and N-Triples graphs) and SQL (`SPARQL …` over
the PostgreSQL protocol). Each file starts from an empty store (SPARQL
DROP ALL); its data records are loaded with the bulk loader (TriG files in
DirsAllowed) as they come. Every query must give the file's answer both
ways; every query not marked no-oxigraph must also give it in Oxigraph
(pyoxigraph, the same data, the union of all graphs as the default graph,
as Cadenza's); an error record must be refused with its HTTP status and
its SQLSTATE, and the server must answer afterwards.

Usage: isolated_sparql_files.py --kind cadenza|postgres --binary PATH --dir DIR [FILE.test ...]
"""
import argparse
import collections
import glob
import json
import os
import re
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import sparqlfile  # noqa: E402
import sparqlkit  # noqa: E402
from checks import check  # noqa: E402
from sparqlfile import show  # noqa: E402

FILES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sparql")


def select_answer(names, rows, want_names):
    """rows (tuples in names' order) as tuples in want_names' order; None
    when the variables differ."""
    if sorted(names) != sorted(want_names):
        return None
    idx = [names.index(n) for n in want_names]
    return [tuple(r[i] for i in idx) for r in rows]


def same(rec, got):
    """Whether got (in the expect's shape) is the record's answer; with a
    message when not."""
    want = rec.expect
    form = rec.form()
    if form == "ASK":
        return got == want, "got %r want %r" % (got, want)
    if form in ("CONSTRUCT", "DESCRIBE"):
        # a graph is a set of triples (blank nodes all alike: write
        # answers whose blank nodes are told apart by their other terms)
        g = collections.Counter(set(got))
        w = collections.Counter(set(want))
        ground = [t for t in got if ("bnode",) not in t]
        if len(ground) != len(set(ground)):
            return False, "a triple twice: %s" % [" ".join(map(show, t)) for t, n in
                                                 collections.Counter(ground).items() if n > 1]
        return g == w, "missing %s; extra %s" % (
            [" ".join(map(show, t)) for t in (w - g)], [" ".join(map(show, t)) for t in (g - w)])
    names, rows = want
    if got is None:
        return False, "other variables"
    gnames, grows = got
    grows = select_answer(gnames, grows, names)
    if grows is None:
        return False, "variables %s, want %s" % (gnames, names)
    if rec.ordered:
        ok = grows == rows
    else:
        ok = collections.Counter(grows) == collections.Counter(rows)
    if ok:
        return True, ""
    fmt = lambda rs: "\n        ".join(" ".join(map(show, r)) for r in rs)  # noqa: E731
    return False, "\n      got:\n        %s\n      want:\n        %s" % (fmt(grows), fmt(rows))


def via_http(h, rec):
    """The answer over HTTP in the expect's shape; raises on an error status."""
    form = rec.form()
    accept = "application/n-triples" if form in ("CONSTRUCT", "DESCRIBE") else "application/sparql-results+json"
    st, hd, body = h.post_form({"query": rec.text}, accept=accept)
    if st != 200:
        raise RuntimeError("HTTP %d: %s" % (st, body[:300]))
    if form in ("CONSTRUCT", "DESCRIBE"):
        return [tuple(sparqlfile.parse_terms(x)) for x in body.split("\n") if x.strip()]
    res = json.loads(body)
    if form == "ASK":
        return res["boolean"]
    names = res["head"]["vars"]
    return names, [tuple(sparqlfile.term_from_json(b.get(n)) for n in names) for b in res["results"]["bindings"]]


def via_sql(conn, rec):
    """The answer of `SPARQL …` in the expect's shape."""
    cur = conn.execute("SPARQL " + rec.text)
    rows = cur.fetchall()
    form = rec.form()
    if form == "ASK":
        return rows[0][0] if len(rows) == 1 else rows
    if form in ("CONSTRUCT", "DESCRIBE"):
        return [tuple(sparqlfile.term_from_nt(v) for v in r) for r in rows]
    names = [d.name for d in cur.description]
    return names, [tuple(sparqlfile.term_from_nt(v) for v in r) for r in rows]


def has_from(text):
    """Whether a query names its dataset (FROM or FROM NAMED outside IRIs
    and strings)."""
    return re.search(r"\bFROM\b", re.sub(r'<[^>]*>|"[^"]*"', "", text), re.I) is not None


def via_oxigraph(store, rec):
    # the union default graph is Cadenza's default, as Virtuoso's; a
    # query's FROM replaces it (Oxigraph's option would override FROM)
    res = store.query(rec.text, use_default_graph_as_union=not has_from(rec.text))
    form = rec.form()
    if form == "ASK":
        return bool(res)
    if form in ("CONSTRUCT", "DESCRIBE"):
        return [tuple(sparqlfile.term_from_oxigraph(x) for x in (t.subject, t.predicate, t.object)) for t in res]
    names = [v.value for v in res.variables]
    return names, [tuple(sparqlfile.term_from_oxigraph(s[n]) for n in names) for s in res]


def run_file(path, conn, h, srv, ox):
    name = os.path.basename(path)
    try:
        records = sparqlfile.read_file(path)
    except sparqlfile.FormatError as ex:
        check("%s: the file reads" % name, False, str(ex))
        return
    conn.execute("SPARQL DROP ALL")
    store = ox.Store() if ox else None
    stem = os.path.splitext(name)[0]
    for rec in records:
        where = "%s:%d" % (name, rec.line)
        if rec.kind == "data":
            fname = "%s_%d.trig" % (stem, rec.line)
            try:
                sparqlkit.load_files(conn, srv.rdfdata, {fname: rec.text}, fname)
                errs = conn.execute("SELECT ll_file, ll_error FROM pg_rdf.rdf_load_list WHERE ll_error IS NOT NULL "
                                    "AND ll_file LIKE %s", ("%" + fname,)).fetchall()
                check("%s: data loads" % where, not errs, repr(errs))
            except psycopg.Error as ex:
                check("%s: data loads" % where, False, str(ex))
            if store is not None:
                store.load(input=rec.text, format=ox.RdfFormat.TRIG)
            continue
        if rec.kind == "error":
            st, hd, body = h.post_form({"query": rec.text})
            check("%s: HTTP %d" % (where, rec.http), st == rec.http, "HTTP %d: %s" % (st, body[:300]))
            state = checks.sqlstate_of(conn, "SPARQL " + rec.text)
            check("%s: SQLSTATE %s" % (where, rec.sqlstate), state[0] == rec.sqlstate, repr(state[:2]))
            continue
        for how, run in (("HTTP", lambda: via_http(h, rec)), ("SQL", lambda: via_sql(conn, rec))):
            try:
                ok, why = same(rec, run())
            except (RuntimeError, psycopg.Error, ValueError, sparqlfile.FormatError) as ex:
                ok, why = False, "%s: %s" % (type(ex).__name__, ex)
            if rec.xfail:
                # a known defect, kept in view: the check turns red when it
                # is fixed, so that the mark goes and the answer is held
                check("%s: %s answer still wrong (xfail: a known defect, see the file)" % (where, how), not ok,
                      "the answer is right now: remove xfail from %s" % where)
                if not ok:
                    print("XFAIL %s: %s answer: %s" % (where, how, " ".join(why.split())[:200]))
                continue
            check("%s: %s answer" % (where, how), ok, why)
        if store is not None and rec.oxigraph:
            try:
                ok, why = same(rec, via_oxigraph(store, rec))
            except (SyntaxError, ValueError, OSError) as ex:
                ok, why = False, "%s: %s" % (type(ex).__name__, ex)
            check("%s: Oxigraph's answer is the file's" % where, ok, why)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    ap.add_argument("files", nargs="*", help="tests/sparql files to run (default: all)")
    args = ap.parse_args()
    if args.kind != "cadenza":
        return checks.skip("SPARQL is Cadenza's own")
    try:
        import pyoxigraph as ox
    except ImportError:
        ox = None
        check("pyoxigraph is installed (scripts/install-deps.sh): the answers are compared with Oxigraph's",
              False, "no pyoxigraph in %s" % sys.executable)
    files = args.files or sorted(glob.glob(os.path.join(FILES, "*.test")))
    srv, port = sparqlkit.http_server(args, "sparql_files", sparql={"MaxQueryExecutionTime": "30"})
    h = sparqlkit.Http(port)
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True) as conn:
            for path in files:
                run_file(path, conn, h, srv, ox)
            check("SQL still answers", checks.answers(conn))
        st, hd, body = h.get("ASK { }")
        check("the endpoint still answers", st == 200 and "true" in body, "%d %s" % (st, body[:200]))
    sparqlkit.no_crash_logged(srv)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Runs the W3C SPARQL 1.1 Update evaluation tests (mf:UpdateEvaluationTest
of every sparql11 folder's manifest) through `SPARQL …` statements over
the PostgreSQL protocol: the store emptied (DROP ALL), the test's data
loaded with `SPARQL LOAD <file://…> [INTO GRAPH <label>]`, the request
run, and then every graph of the store compared with the expected result
graphs (isomorphic, so blank nodes match up to renaming; a graph the
result does not list must be empty). A test whose result is an error
(none in the suite today) would pass on any error. Prints counts per
folder, and each failing test with why.

The W3C harness (../shared/tools/sparql-w3c) needs the HTTP endpoint; this
is the stand-in. Not part of a test stage (a minute or two); a tool:
  sparql_w3c_update.py --binary build/binsrc/cadenza/cadenza --dir /tmp/x [--only FOLDER]
"""
import argparse
import os
import shutil
import sys

import psycopg
import rdflib
from rdflib.compare import isomorphic

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import srvctl  # noqa: E402
from sparqlkit import W3C_DATA as W3C, w3c_local as local, w3c_manifests  # noqa: E402

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
UT = rdflib.Namespace("http://www.w3.org/2009/sparql/tests/test-update#")


def graphs(g, node, fdir):
    """{graph label ('' default): [files]} of an action or result node."""
    out = {}
    if node is None:
        return out
    for d in g.objects(node, UT.data):
        out.setdefault("", []).append(local(d, fdir))
    for gd in g.objects(node, UT.graphData):
        label = g.value(gd, rdflib.RDFS.label)
        f = g.value(gd, UT.graph)
        if label is not None and f is not None:
            out.setdefault(str(label), []).append(local(f, fdir))
    return out


def tests(only):
    for _suite, folder, fdir, g in w3c_manifests(("sparql11",), only):
        for t in g.subjects(rdflib.RDF.type, MF.UpdateEvaluationTest):
            action = g.value(t, MF.action)
            result = g.value(t, MF.result)
            req = g.value(action, UT.request)
            if req is None:
                continue
            expect_error = result is not None and g.value(result, UT.result) is not None and \
                str(g.value(result, UT.result)).endswith("failure")
            yield folder, str(t), local(req, fdir), graphs(g, action, fdir), graphs(g, result, fdir), expect_error


def store(c):
    out = {}
    for gr, s, p, o in c.execute("SELECT rdf_term(g), rdf_term(s), rdf_term(p), rdf_term(o) "
                                 "FROM pg_rdf.rdf_quad").fetchall():
        out.setdefault(gr[1:-1] if gr else "", []).append("%s %s %s ." % (s, p, o))
    return out


def compare(got, want_files):
    for label in sorted(set(got) | set(want_files)):
        a = rdflib.Graph()
        a.parse(data="\n".join(got.get(label, [])), format="nt")
        b = rdflib.Graph()
        for f in want_files.get(label, []):
            b.parse(f, format="turtle", publicID="file://" + f)
        if not isomorphic(a, b):
            return "graph %r: got %d triples, want %d" % (label or "default", len(a), len(b))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--only")
    args = ap.parse_args()
    folder = os.path.abspath(os.path.join(args.dir, "w3cupdate"))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    srv = srvctl.Server("cadenza", folder, binary=args.binary, buffers=4000,
                        extra_ini={"Parameters": {"DirsAllowed": os.path.realpath(W3C)}})
    srv.start()
    counts = {}
    failures = []
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for fold, name, req, before, after, expect_error in tests(args.only):
                cnt = counts.setdefault(fold, [0, 0])
                why = None
                try:
                    c.execute("SPARQL DROP ALL")
                    for label, files in before.items():
                        for f in files:
                            into = " INTO GRAPH <%s>" % label if label else ""
                            c.execute("SPARQL LOAD <file://%s>%s" % (os.path.realpath(f), into))
                    text = open(req, encoding="utf-8").read()
                    try:
                        c.execute("SPARQL BASE <file://%s> %s" % (os.path.realpath(req), text))
                        if expect_error:
                            why = "no error"
                    except psycopg.Error as ex:
                        if not expect_error:
                            why = "%s %s" % (ex.sqlstate, str(ex).splitlines()[0])
                    if why is None and not expect_error:
                        why = compare(store(c), after)
                except psycopg.Error as ex:
                    why = "setup: %s %s" % (ex.sqlstate, str(ex).splitlines()[0])
                if why:
                    failures.append("%s %s: %s" % (fold, name.rsplit("#", 1)[-1], why))
                    cnt[1] += 1
                else:
                    cnt[0] += 1
    finally:
        srv.stop()
    for f in failures:
        print("FAIL", f)
    tp = tf = 0
    for fold in sorted(counts):
        p, f = counts[fold]
        tp, tf = tp + p, tf + f
        print("%-16s %3d passed %3d failed" % (fold, p, f))
    print("update evaluation: %d passed, %d failed of %d" % (tp, tf, tp + tf))
    return 0


if __name__ == "__main__":
    sys.exit(main())

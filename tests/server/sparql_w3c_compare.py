#!/usr/bin/env python3
"""Runs the W3C SPARQL evaluation tests that the SQL-side SPARQL compiler
can take (one default-graph data file, a SELECT, ASK or CONSTRUCT query) through
`SPARQL …` statements over the PostgreSQL protocol, and compares each
answer with rdflib's on the same data (values in N-Triples form, rows as
variable-value sets, a multiset of rows; blank nodes compared as "_:"; a
CONSTRUCT graph isomorphic to rdflib's). The W3C harness
(../shared/tools/sparql-w3c) needs the HTTP endpoint, which does not
exist yet; this is the stand-in. Prints counts: same as rdflib, different
(listed), refused with 0A000, other errors (listed), skipped.

Not part of a test stage (it takes minutes); a tool:
  sparql_w3c_compare.py --binary build/binsrc/cadenza/cadenza --dir /tmp/x [--only FOLDER]
"""
import argparse
import os
import shutil
import sys

import psycopg
import rdflib
import rdflib.compare

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import srvctl  # noqa: E402
from sparqlkit import w3c_local as local, w3c_manifests  # noqa: E402

rdflib.NORMALIZE_LITERALS = False
MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
XSD_STRING = "^^<http://www.w3.org/2001/XMLSchema#string>"


def tests():
    for suite, folder, fdir, g in w3c_manifests():
        for t in g.subjects(rdflib.RDF.type, MF.QueryEvaluationTest):
            action = g.value(t, MF.action)
            if action is None:
                continue
            q = g.value(action, QT.query)
            datas = list(g.objects(action, QT.data))
            named = list(g.objects(action, QT.graphData))
            yield suite, folder, str(t), q and local(q, fdir), [local(d, fdir) for d in datas], named


def norm(v):
    if v is None:
        return None
    if v.startswith("_:"):
        return "_:"
    if v.endswith(XSD_STRING):
        return v[:-len(XSD_STRING)]
    return v


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--only")
    args = ap.parse_args()
    folder = os.path.abspath(os.path.join(args.dir, "w3c"))
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    data = os.path.join(folder, "data")
    os.makedirs(data)
    srv = srvctl.Server("cadenza", os.path.join(folder, "srv"), binary=os.path.abspath(args.binary))
    srv.extra_ini = {"Parameters": {"DirsAllowed": data}}
    counts = {"same": 0, "different": 0, "0A000": 0, "error": 0, "skipped": 0}
    notes = []
    srv.start()
    try:
        c = psycopg.connect(srv.dsn(), autocommit=True)
        for n, (suite, fold, name, qfile, datas, named) in enumerate(tests()):
            if args.only and fold != args.only:
                continue
            if not qfile or len(datas) != 1 or named or not datas[0].endswith(".ttl"):
                counts["skipped"] += 1
                continue
            copy = os.path.join(data, "t%d.ttl" % n)
            shutil.copy(datas[0], copy)
            base = "file://" + copy
            with open(qfile, encoding="utf-8") as f:
                qtext = "BASE <%s>\n%s" % (base, f.read())
            try:
                gr = rdflib.Graph()
                gr.parse(copy, format="turtle", publicID=base)
                res = gr.query(qtext)
                if res.type == "ASK":
                    want = [(bool(res.askAnswer),)]
                elif res.type == "CONSTRUCT":
                    want = res.graph
                elif res.type == "SELECT":
                    names = [str(v) for v in res.vars]
                    want = [tuple(sorted((k, norm(v.n3())) for k, v in zip(names, row) if v is not None))
                            for row in res]
                else:
                    counts["skipped"] += 1
                    continue
            except Exception:  # rdflib cannot: nothing to compare with
                counts["skipped"] += 1
                continue
            c.execute("DELETE FROM pg_rdf.rdf_quad")
            c.execute("SELECT ld_dir(%s, %s)", (data, os.path.basename(copy)))
            c.execute("SELECT rdf_loader_run()")
            st = c.execute("SELECT ll_state, ll_error FROM pg_rdf.rdf_load_list WHERE ll_file = %s",
                           (copy,)).fetchone()
            if not st or st[0] != 2 or st[1]:
                counts["skipped"] += 1
                continue
            try:
                cur = c.execute("SPARQL " + qtext)
                got = cur.fetchall()
                cols = [d.name for d in cur.description]
            except psycopg.Error as ex:
                key = "0A000" if ex.sqlstate == "0A000" else "error"
                counts[key] += 1
                if key == "error":
                    notes.append("ERROR %s/%s: %s %s" % (suite, fold, name, ex))
                else:
                    notes.append("REFUSED %s/%s: %s %s" % (suite, fold, name, str(ex).splitlines()[0]))
                continue
            if res.type == "CONSTRUCT":
                # rows (s, p, o) in N-Triples form: the same graph up to blank node names
                gg = rdflib.Graph()
                try:
                    gg.parse(data="".join("%s %s %s .\n" % tuple(r) for r in got), format="nt")
                    same = rdflib.compare.isomorphic(gg, want)
                except Exception as ex:  # not N-Triples: a difference to list
                    same = False
                    got = [("unparsable", str(ex))]
                if same:
                    counts["same"] += 1
                else:
                    counts["different"] += 1
                    notes.append("DIFF %s/%s: %s got %r want %r" % (suite, fold, name, sorted(got, key=repr)[:8],
                                                                   sorted(tuple(t.n3() for t in tr) for tr in want)[:8]))
                continue
            if cols == ["ask"]:
                got = [tuple(r) for r in got]
            else:
                # "?unit": the placeholder column of a solution without variables
                got = [tuple(sorted((k, norm(v)) for k, v in zip(cols, r) if v is not None and k != "?unit"))
                       for r in got]
            if sorted(got, key=repr) == sorted(want, key=repr):
                counts["same"] += 1
            else:
                counts["different"] += 1
                notes.append("DIFF %s/%s: %s got %r want %r" % (suite, fold, name, sorted(got, key=repr)[:8], sorted(want, key=repr)[:8]))
    finally:
        srv.stop()
    for line in notes:
        print(line)
    print(" ".join("%s=%d" % kv for kv in counts.items()))
    return 1 if counts["error"] or counts["different"] else 0


if __name__ == "__main__":
    sys.exit(main())

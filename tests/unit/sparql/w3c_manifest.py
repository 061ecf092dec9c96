#!/usr/bin/env python3
"""Lists the SPARQL texts of the W3C test suites for test_sparql_w3c.

Usage: w3c_manifest.py DATA_DIR   (DATA_DIR holds sparql10/ and sparql11/)

Reads every folder's manifest.ttl (the tests its mf:entries list) and prints
one tab-separated line per SPARQL text to parse:

    expect  mode  category  folder  file  base-iri  test-iri

expect: pos (must parse) or neg (must be refused); mode: query or update
(update for the Update test types and for any .ru file);
category: the test type, with "/query" or "/request" for the texts of
evaluation tests. The base IRI is the one the W3C harness gives the file.
"""
import os
import sys

try:
    import rdflib
    from rdflib.collection import Collection
except ImportError:
    print("w3c_manifest.py: rdflib is not installed (scripts/install-deps.sh puts it in the venv)",
          file=sys.stderr)
    sys.exit(3)

MF = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#")
QT = rdflib.Namespace("http://www.w3.org/2001/sw/DataAccess/tests/test-query#")
UT = rdflib.Namespace("http://www.w3.org/2009/sparql/tests/test-update#")
BASES = {"sparql11": "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/",
         "sparql10": "http://www.w3.org/2001/sw/DataAccess/tests/data-r2/"}
SYNTAX = {"PositiveSyntaxTest": ("pos", "query"), "PositiveSyntaxTest11": ("pos", "query"),
          "NegativeSyntaxTest": ("neg", "query"), "NegativeSyntaxTest11": ("neg", "query"),
          "PositiveUpdateSyntaxTest11": ("pos", "update"),
          "NegativeUpdateSyntaxTest11": ("neg", "update")}


def local(path_iri, folder_dir):
    """The file a manifest IRI names (rdflib resolved it against the manifest's file: IRI)."""
    s = str(path_iri)
    if s.startswith("file://"):
        s = s[len("file://"):]
    if os.path.exists(s):
        return s
    return os.path.join(folder_dir, os.path.basename(s))


def main():
    data = sys.argv[1]
    if not os.path.isdir(os.path.join(data, "sparql11")):
        print("w3c_manifest.py: no W3C test data in " + data, file=sys.stderr)
        return 4
    rows = 0
    for suite in ("sparql10", "sparql11"):
        sdir = os.path.join(data, suite)
        for folder in sorted(os.listdir(sdir)):
            fdir = os.path.join(sdir, folder)
            mpath = os.path.join(fdir, "manifest.ttl")
            if not os.path.isfile(mpath):
                continue
            g = rdflib.Graph()
            g.parse(mpath, format="turtle", publicID="file://" + os.path.abspath(mpath))
            for man in g.subjects(rdflib.RDF.type, MF.Manifest):
                for lst in g.objects(man, MF.entries):
                    for t in Collection(g, lst):
                        for ty in g.objects(t, rdflib.RDF.type):
                            name = str(ty).split("#")[-1]
                            action = g.value(t, MF.action)
                            if action is None:
                                continue
                            if name in SYNTAX:
                                expect, mode = SYNTAX[name]
                                files = [(action, name)]
                            elif name == "QueryEvaluationTest":
                                expect, mode = "pos", "query"
                                files = [(q, name + "/query") for q in g.objects(action, QT.query)]
                            elif name == "UpdateEvaluationTest":
                                expect, mode = "pos", "update"
                                files = [(q, name + "/request") for q in g.objects(action, UT.request)]
                            else:
                                continue
                            for f, cat in files:
                                path = local(f, fdir)
                                # a few Negative/PositiveSyntaxTest11 entries are updates (.ru)
                                if path.endswith(".ru"):
                                    mode = "update"
                                base = BASES[suite] + folder + "/" + os.path.basename(path)
                                print("\t".join([expect, mode, cat, suite + "/" + folder, path, base, str(t)]))
                                rows += 1
    if rows == 0:
        print("no tests found under " + data, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

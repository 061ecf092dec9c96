#!/usr/bin/env python3
"""SPARQL 1.1 Update inside SQL (issue 10, item 4): `SPARQL INSERT DATA { … }`
and every other operation, each request one transaction.

A sequence of update requests runs against the server and, on the same
data, against rdflib's own Update implementation (a Dataset whose default
graph is its own, as the standard says); after each request the whole
store (every graph, compared up to blank-node renaming) must equal
rdflib's, and the statement's row (inserted, deleted) the quads that
changed. Then: blank nodes of INSERT templates fresh per solution,
errors (CREATE of a graph with quads, ADD from an empty graph, LOAD
outside DirsAllowed or of another scheme, a malformed file) with SILENT
and without, atomicity (a request whose last operation fails leaves
nothing; inside BEGIN … ROLLBACK), the extended protocol, privileges (a
user without INSERT / DELETE on the quad table), two concurrent updaters,
and isql-cz.

Usage: isolated_sparql_update.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import os
import random
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import sparqlkit  # noqa: E402
from checks import check  # noqa: E402

PFX = ("PREFIX ex: <http://example.org/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "
       "PREFIX foaf: <http://xmlns.com/foaf/0.1/> ")
EX = "http://example.org/"
RDFLIB_DEFAULT = "urn:x-cadenza-test:default"
LOAD_TTL = """@prefix ex: <http://example.org/> .
ex:loaded ex:p "from a file" ; ex:q [ ex:r 1 ] .
"""

# (name, request, (inserted, deleted) or None when rdflib decides)
STEPS = [
    ("insert data", """INSERT DATA {
        ex:alice a foaf:Person ; foaf:name "Alice" ; ex:age 42 ; foaf:knows ex:bob .
        ex:bob a foaf:Person ; foaf:name "Bob"@en ; ex:age 17 ; ex:height 1.8 .
        ex:carol a foaf:Person ; foaf:name "Carol" ; ex:born "1990-01-02"^^xsd:date ;
                 ex:note "x"^^ex:custom ; ex:nick "01"^^xsd:integer .
        GRAPH ex:g1 { ex:alice ex:likes ex:tea . ex:bob ex:likes ex:coffee . }
        GRAPH ex:g2 { ex:carol ex:likes ex:tea . }
      }""", (16, 0)),
    ("insert data again: nothing new", "INSERT DATA { ex:alice ex:age 42 . GRAPH ex:g1 { ex:alice ex:likes ex:tea } }",
     (0, 0)),
    ("insert data with a blank node", "INSERT DATA { ex:dave ex:address _:a . _:a ex:city \"Oslo\" }", (2, 0)),
    ("delete data, one absent, one of unknown terms",
     'DELETE DATA { ex:bob ex:height 1.8 . ex:bob ex:age 99 . ex:nobody ex:nothing "never" . '
     'GRAPH ex:g2 { ex:carol ex:likes ex:tea } GRAPH ex:nograph { ex:a ex:b ex:c } }', (0, 2)),
    ("delete/insert where", "DELETE { ?s foaf:name ?n } INSERT { ?s ex:label ?n } WHERE { ?s foaf:name ?n }",
     (3, 3)),
    ("insert where with a filter",
     "INSERT { ?s ex:adult true } WHERE { ?s ex:age ?a FILTER(?a > 18) }", (1, 0)),
    ("insert where into a graph variable",
     "INSERT { GRAPH ?g { ?s ex:seen ?g } } WHERE { GRAPH ?g { ?s ex:likes ?o } }", (2, 0)),
    ("where reads the default graph only",
     "INSERT { ?s ex:copied ?o } WHERE { ?s ex:likes ?o }", (0, 0)),
    ("with: template and where in one graph",
     "WITH ex:g1 DELETE { ?s ex:likes ex:coffee } INSERT { ?s ex:likes ex:water } WHERE { ?s ex:likes ex:coffee }",
     (1, 1)),
    ("using: where over a graph, template into the default graph",
     "INSERT { ?s ex:drinks ?o } USING ex:g1 WHERE { ?s ex:likes ?o }", (2, 0)),
    ("using named",
     "INSERT { ?s ex:inGraph ?g } USING NAMED ex:g1 WHERE { GRAPH ?g { ?s ex:likes ex:tea } }", (1, 0)),
    ("delete template with an unbound variable is skipped",
     "DELETE { ?s ex:height ?h . ?s ex:mark ex:m } INSERT { ?s ex:mark ex:m } "
     "WHERE { ?s a foaf:Person OPTIONAL { ?s ex:height ?h } }", (3, 0)),
    ("insert of a literal subject is skipped",
     "INSERT { ?o ex:backlink ?s } WHERE { ?s ex:label ?o }", (0, 0)),
    ("an aggregate's count in a template",
     "INSERT { ex:stats ex:people ?n } WHERE { SELECT (COUNT(*) AS ?n) WHERE { ?s a foaf:Person } }", (1, 0)),
    ("computed terms in the templates",
     'DELETE { ?s ex:age ?a } INSERT { ?s ex:age ?b ; ex:tag ?t } '
     'WHERE { ?s ex:age ?a BIND(?a + 1 AS ?b) BIND(CONCAT("p-", STR(?a)) AS ?t) }', (4, 2)),
    ("a computed term deleted, one the store never held skipped",
     'DELETE { ?s ex:tag ?t . ?s ex:tag ?u } WHERE { ?s ex:age ?a '
     'BIND(CONCAT("p-", STR(?a - 1)) AS ?t) BIND(CONCAT("never-", STR(?a)) AS ?u) }', (0, 2)),
    ("delete where", "DELETE WHERE { ?s ex:mark ex:m }", (0, 3)),
    ("delete where in a graph", "DELETE WHERE { GRAPH ex:g1 { ?s ex:seen ?g } }", (0, 2)),
    ("two operations in one request",
     "INSERT DATA { ex:x ex:p 1 } ; DELETE DATA { ex:x ex:p 1 } ; INSERT DATA { ex:x ex:p 2 }", (2, 1)),
    ("add", "ADD ex:g1 TO ex:g3", (2, 0)),
    ("add an emptied graph to the default graph", "ADD ex:g2 TO DEFAULT", (0, 0)),
    ("copy replaces the target", "INSERT DATA { GRAPH ex:g4 { ex:old ex:p ex:o } } ; COPY ex:g1 TO ex:g4", None),
    ("move", "MOVE ex:g3 TO ex:g5", None),
    ("copy a graph to itself", "COPY ex:g1 TO ex:g1", (0, 0)),
    ("add from a graph never seen", "ADD ex:neverseen TO ex:g1", (0, 0)),
    ("copy default to a graph", "COPY DEFAULT TO ex:g6", None),
    ("create a graph that does not exist", "CREATE GRAPH ex:newgraph", (0, 0)),
    ("create silent of a graph with quads", "CREATE SILENT GRAPH ex:g1", (0, 0)),
    ("clear graph", "CLEAR GRAPH ex:g6", None),
    ("clear of an empty graph", "CLEAR GRAPH ex:neverthere", (0, 0)),
    ("drop silent graph", "DROP SILENT GRAPH ex:g5", None),
    ("clear default", "INSERT DATA { GRAPH ex:g7 { ex:a ex:b ex:c } } ; CLEAR DEFAULT", (1, 20)),
    ("drop named", "INSERT DATA { ex:keep ex:p ex:o } ; DROP NAMED", None),
    ("drop all", "INSERT DATA { GRAPH ex:g8 { ex:a ex:b ex:c } } ; DROP ALL", None),
]

# Steps where rdflib departs from the standard: the SQL to ask instead and
# its answer, or None: the store is unchanged (rdflib's store is then set
# to ours).
RDFLIB_DEPARTS = {
    # rdflib's GRAPH ?g also matches its default graph
    "using named": ("SPARQL " + PFX + "SELECT ?s ?g WHERE { ?s ex:inGraph ?g }",
                    "GRAPH ?g ranges over the USING NAMED graphs",
                    [("<http://example.org/alice>", "<http://example.org/g1>")]),
    # rdflib has no CREATE
    "create a graph that does not exist": None,
    "create silent of a graph with quads": None,
    # rdflib inserts triples with a literal subject
    "insert of a literal subject is skipped": ("SPARQL " + PFX + "SELECT ?s WHERE { ?s ex:backlink ?o }",
                                               "no backlink", []),
    # rdflib's CLEAR DEFAULT empties every graph
    "clear default": ("SELECT g = 0, count(*) > 0 FROM pg_rdf.rdf_quad GROUP BY g = 0",
                      "the named graphs stay", [(False, True)]),
}


def dump(c):
    """The store as {graph: set of N-Triples lines}, default graph ''."""
    out = {}
    for g, s, p, o in c.execute("SELECT rdf_term(g), rdf_term(s), rdf_term(p), rdf_term(o) "
                                "FROM pg_rdf.rdf_quad").fetchall():
        out.setdefault(g or "", []).append("%s %s %s ." % (s, p, o))
    return out


def rdflib_store():
    """rdflib's store for updates: its Dataset cannot run INSERT DATA with
    GRAPH (rdflib 7.6), so a ConjunctiveGraph whose default graph is its
    own (not the union), and USING names graphs of the store (rdflib would
    fetch them from the web)."""
    import warnings
    import rdflib
    import rdflib.plugins.sparql
    rdflib.plugins.sparql.SPARQL_LOAD_GRAPHS = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # one identifier for the graph and its default context: INSERT DATA
        # writes to the former, the WHERE reads the latter
        ds = rdflib.ConjunctiveGraph(identifier=rdflib.URIRef(RDFLIB_DEFAULT))
    ds.default_union = False
    return ds


def rdflib_reset(ds, store):
    """ds made to hold store (a dump())."""
    import rdflib
    ds.remove((None, None, None, None))
    for g, lines in store.items():
        ctx = ds.default_context if g == "" else ds.get_context(rdflib.URIRef(g[1:-1]))
        ctx.parse(data="\n".join(lines), format="nt")


def rdflib_dump(ds):
    out = {}
    default = ds.default_context.identifier
    for s, p, o, g in ds.quads((None, None, None, None)):
        gid = g.identifier if hasattr(g, "identifier") else g
        key = "" if gid is None or gid == default else gid.n3()
        out.setdefault(key, []).append("%s %s %s ." % (s.n3(), p.n3(), o.n3()))
    return out


def same_store(got, want):
    """Every graph of both the same up to blank-node renaming; why not."""
    import rdflib
    from rdflib.compare import isomorphic
    keys = set(k for k in got if got[k]) | set(k for k in want if want[k])
    for k in sorted(keys):
        a, b = rdflib.Graph(), rdflib.Graph()
        a.parse(data="\n".join(got.get(k, [])), format="nt")
        b.parse(data="\n".join(want.get(k, [])), format="nt")
        if not isomorphic(a, b):
            return False, "graph %r: got %r want %r" % (k, sorted(got.get(k, [])), sorted(want.get(k, [])))
    return True, ""


def count_quads(c):
    return c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("SPARQL is Cadenza's own")
    try:
        import rdflib
    except ImportError:
        return checks.skip("rdflib is not installed (scripts/install-deps.sh)")
    srv = sparqlkit.rdf_server(args, "sparql_update", files={
        "load.ttl": LOAD_TTL,
        "bad.ttl": "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:a ex:b <bad iri> .\n"})
    data = srv.rdfdata
    ds = rdflib_store()
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for name, req, counts in STEPS:
                try:
                    row = c.execute("SPARQL " + PFX + req).fetchone()
                except psycopg.Error as ex:
                    check("%s: runs" % name, False, "%s %s" % (ex.sqlstate, ex))
                    continue
                before = rdflib_dump(ds)
                if name in RDFLIB_DEPARTS:
                    rdflib_reset(ds, dump(c))
                    check("%s: (inserted, deleted) = %r" % (name, counts), tuple(row) == counts, repr(row))
                    if RDFLIB_DEPARTS[name]:
                        got = c.execute(RDFLIB_DEPARTS[name][0]).fetchall()
                        check("%s: %s" % (name, RDFLIB_DEPARTS[name][1]), got == RDFLIB_DEPARTS[name][2],
                              repr(got))
                    else:
                        check("%s: the store is unchanged" % name, same_store(dump(c), before)[0])
                    continue
                ds.update(PFX + req)
                ok, why = same_store(dump(c), rdflib_dump(ds))
                check("%s: the store equals rdflib's" % name, ok, why)
                if counts is None:
                    n_before = sum(len(v) for v in before.values())
                    n_after = sum(len(v) for v in rdflib_dump(ds).values())
                    check("%s: inserted - deleted is the change in size" % name,
                          row[0] - row[1] == n_after - n_before, "%r, %d -> %d" % (row, n_before, n_after))
                else:
                    check("%s: (inserted, deleted) = %r" % (name, counts), tuple(row) == counts, repr(row))

            # blank nodes of an INSERT template: fresh per solution
            c.execute("SPARQL " + PFX + "INSERT DATA { ex:p1 a ex:P . ex:p2 a ex:P . ex:p3 a ex:P }")
            c.execute("SPARQL " + PFX + "INSERT { ?s ex:tag _:t . _:t ex:of ?s } WHERE { ?s a ex:P }")
            got = c.execute("SPARQL " + PFX + "SELECT (COUNT(DISTINCT ?t) AS ?n) WHERE { ?s ex:tag ?t . ?t ex:of ?s }"
                            ).fetchone()
            check("a template's blank node is a new node per solution", got[0].startswith('"3"'), repr(got))
            c.execute("SPARQL " + PFX + "INSERT { ?s ex:tag2 _:t } WHERE { ?s a ex:P }")
            got = c.execute("SPARQL " + PFX + "SELECT (COUNT(*) AS ?n) WHERE { ?s ex:tag ?t . ?s ex:tag2 ?t }"
                            ).fetchone()
            check("... and new in each request", got[0].startswith('"0"'), repr(got))
            c.execute("SPARQL " + PFX + "DROP ALL")

            # LOAD
            row = c.execute("SPARQL LOAD <file://%s> INTO GRAPH <%sgl>" % (os.path.join(data, "load.ttl"), EX)
                            ).fetchone()
            check("LOAD INTO GRAPH: 3 quads", tuple(row) == (3, 0), repr(row))
            got = c.execute("SPARQL " + PFX + "SELECT ?o WHERE { GRAPH ex:gl { ex:loaded ex:p ?o } }").fetchall()
            check("... in that graph", got == [('"from a file"',)], repr(got))
            row = c.execute("SPARQL LOAD <file://%s>" % os.path.join(data, "load.ttl")).fetchone()
            check("LOAD into the default graph", tuple(row) == (3, 0), repr(row))
            c.execute("SPARQL DROP ALL")
            for name, req, state in [
                ("LOAD outside DirsAllowed", "LOAD <file:///etc/hostname>", "42501"),
                ("LOAD of an http IRI", "LOAD <http://example.org/data.ttl>", "0A000"),
                ("LOAD of a missing file", "LOAD <file://%s/none.ttl>" % data, None),
                ("LOAD of a malformed file", "LOAD <file://%s/bad.ttl>" % data, "22P02"),
                ("CREATE of a graph with quads",
                 "INSERT DATA { GRAPH ex:cg { ex:a ex:b ex:c } } ; CREATE GRAPH ex:cg", "42710"),
                ("a literal as a graph name", "ADD 'g' TO ex:g1", "42601"),
                ("syntax error", "INSERT DATA { ex:a ex:b }", "42601"),
                ("a variable in INSERT DATA", "INSERT DATA { ex:a ex:b ?x }", "42601"),
            ]:
                n0 = count_quads(c)
                st = checks.state(c, "SPARQL " + PFX + "INSERT DATA { ex:first ex:op 1 } ; " + req)
                check("%s: %s" % (name, state or "an error"), st[0] != "result" and (state is None or st[0] == state),
                      repr(st))
                check("%s: the request's first operation is undone" % name, count_quads(c) == n0,
                      "%d -> %d" % (n0, count_quads(c)))
                silent = req.replace("LOAD ", "LOAD SILENT ").replace("CREATE GRAPH", "CREATE SILENT GRAPH").replace(
                    "ADD ", "ADD SILENT ")
                if silent != req and state != "42601":
                    st = checks.state(c, "SPARQL " + PFX + silent)
                    check("%s with SILENT: no error" % name, st[0] == "result", repr(st))
                    c.execute("SPARQL DROP ALL")
            n = count_quads(c)
            check("a malformed file's quads are not kept under SILENT either", n == 0, repr(n))
            for name, req in [("EXPLAIN of an update", "EXPLAIN SPARQL INSERT DATA { <a:b> <a:c> 1 }"),
                              ("DEFINE sql:text of an update", "SPARQL DEFINE sql:text CLEAR ALL")]:
                st = checks.state(c, req)
                check("%s: 0A000" % name, st[0] == "0A000", repr(st))

            # transactions
            c.autocommit = False
            c.execute("SPARQL " + PFX + "INSERT DATA { ex:t ex:p 1 }")
            c.execute("SPARQL " + PFX + "INSERT DATA { ex:t ex:p 2 }")
            check("in a block the update sees the block's own earlier updates",
                  len(c.execute("SPARQL " + PFX + "SELECT ?o WHERE { ex:t ex:p ?o }").fetchall()) == 2)
            c.rollback()
            c.autocommit = True
            check("ROLLBACK undoes the block's updates", count_quads(c) == 0, repr(count_quads(c)))
            c.autocommit = False
            c.execute("SPARQL " + PFX + "INSERT DATA { ex:t ex:p 1 }")
            try:
                c.execute("SPARQL " + PFX + "CREATE GRAPH ex:x ; INSERT DATA { GRAPH ex:x { ex:a ex:b ex:c } } ;"
                          " CREATE GRAPH ex:x")
                check("a failing update in a block: an error", False, "none")
            except psycopg.Error as ex:
                check("a failing update in a block: 42710", ex.sqlstate == "42710", str(ex))
            st = checks.state(c, "SELECT 1")
            check("... the block is failed (25P02)", st[0] == "25P02", repr(st))
            c.rollback()
            c.autocommit = True
            check("... and ROLLBACK leaves nothing", count_quads(c) == 0, repr(count_quads(c)))

            # the extended protocol
            row = c.execute("SPARQL " + PFX + "INSERT DATA { ex:e ex:p 1 }", prepare=True).fetchone()
            check("extended protocol: a prepared update", tuple(row) == (1, 0), repr(row))
            rows = [c.execute("SPARQL " + PFX + "DELETE { ex:e ?p ?o } INSERT { ex:e ?p 7 } WHERE { ex:e ?p ?o }",
                              prepare=True).fetchone() for _ in range(3)]
            check("... run again and again, each run reads the store anew",
                  [tuple(r) for r in rows] == [(1, 1), (1, 1), (1, 1)], repr(rows))
            c.execute("SPARQL " + PFX + "DELETE DATA { ex:e ex:p 7 } ; INSERT DATA { ex:e ex:p 1 }")
            cur = c.execute("SPARQL " + PFX + "DELETE DATA { ex:e ex:p 1 }")
            check("the result's columns are inserted, deleted",
                  [d.name for d in cur.description] == ["inserted", "deleted"], repr(cur.description))
            check("... and the row", cur.fetchone() == (0, 1))

            # privileges
            c.execute("CREATE USER su_user PASSWORD 'pw'")
            c.execute("GRANT USAGE ON SCHEMA pg_rdf TO su_user")
            c.execute("GRANT SELECT ON pg_rdf.rdf_quad, pg_rdf.rdf_iri, pg_rdf.rdf_prefix, pg_rdf.rdf_literal "
                      "TO su_user")
            c.execute("SPARQL " + PFX + "INSERT DATA { ex:priv ex:p 1 }")
        with psycopg.connect(srv.dsn(user="su_user", password="pw"), autocommit=True) as u:
            st = checks.state(u, "SPARQL " + PFX + "INSERT DATA { ex:priv ex:p 2 }")
            check("INSERT DATA without INSERT on rdf_quad: 42501", st[0] == "42501", repr(st))
            st = checks.state(u, "SPARQL " + PFX + "DELETE DATA { ex:priv ex:p 1 }")
            check("DELETE DATA without DELETE on rdf_quad: 42501", st[0] == "42501", repr(st))
            st = checks.state(u, "SPARQL " + PFX + "CLEAR ALL")
            check("CLEAR without DELETE on rdf_quad: 42501", st[0] == "42501", repr(st))
            st = checks.state(u, "SPARQL LOAD <file://%s>" % os.path.join(data, "load.ttl"))
            check("LOAD by a user who is not a superuser: 42501", st[0] == "42501", repr(st))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("GRANT INSERT, DELETE ON pg_rdf.rdf_quad TO su_user")
        with psycopg.connect(srv.dsn(user="su_user", password="pw"), autocommit=True) as u:
            row = u.execute("SPARQL " + PFX + "DELETE { ex:priv ex:p ?o } INSERT { ex:priv ex:q ?o } "
                            "WHERE { ex:priv ex:p ?o }").fetchone()
            check("with the privileges granted: a modify runs", tuple(row) == (1, 1), repr(row))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            check("the store after the privilege checks", count_quads(c) == 1, repr(count_quads(c)))
            c.execute("SPARQL DROP ALL")

        # two updaters at once: each inserts its own quads and replaces a
        # shared quad (read by its WHERE), in serializable transactions: every
        # request goes through (retried on 40001 / 40P01), and the shared
        # quad stays one
        errors = []
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("SPARQL " + PFX + "INSERT DATA { ex:shared ex:last ex:nobody }")

        def updater(k):
            try:
                with psycopg.connect(srv.dsn()) as w:
                    w.isolation_level = psycopg.IsolationLevel.SERIALIZABLE
                    for i in range(25):
                        req = (PFX + "INSERT DATA { ex:w%d ex:item %d } ; "
                               "DELETE { ex:shared ex:last ?x } INSERT { ex:shared ex:last ex:w%d } "
                               "WHERE { ex:shared ex:last ?x }" % (k, i, k))
                        for attempt in range(100):
                            try:
                                w.execute("SPARQL " + req)
                                w.commit()
                                break
                            except psycopg.Error as ex:
                                w.rollback()
                                if ex.sqlstate not in ("40001", "40P01"):
                                    raise
                                # back off a random while, so the two do not
                                # collide again in lockstep
                                time.sleep(random.random() * 0.02 * min(attempt + 1, 10))
                        else:
                            errors.append("worker %d: request %d never went through" % (k, i))
            except Exception as ex:  # noqa: BLE001 - reported as a check
                errors.append("worker %d: %s" % (k, ex))

        threads = [threading.Thread(target=updater, args=(k,)) for k in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(300)
        check("two concurrent updaters: no error", not errors, repr(errors[:3]))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            items = c.execute("SPARQL " + PFX + "SELECT (COUNT(*) AS ?n) WHERE { ?w ex:item ?i }").fetchone()
            check("... every item of both is there", items[0].startswith('"50"'), repr(items))
            last = c.execute("SPARQL " + PFX + "SELECT ?w WHERE { ex:shared ex:last ?w }").fetchall()
            check("... and exactly one shared quad", len(last) == 1, repr(last))

        script = ("SPARQL " + PFX + "INSERT DATA {\n  ex:isql ex:p \"a;b\" ;\n    ex:q 1 }\n;\n"
                  "SPARQL " + PFX + "SELECT ?o WHERE { ex:isql ex:p ?o };\n")
        r = sparqlkit.run_isql(args, srv, script)
        if r is not None:
            check("isql-cz runs a SPARQL update with ';' inside its braces",
                  r.returncode == 0 and '"a;b"' in r.stdout and "2" in r.stdout,
                  "rc %d out %r err %r" % (r.returncode, r.stdout, r.stderr))
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

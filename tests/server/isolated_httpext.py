#!/usr/bin/env python3
"""The rest of the HTTP server (issue 10, item 6; libsrc/net/hs_*.c):
ResultSetMaxRows, JSON-LD graph results, the Graph Store HTTP Protocol at
/sparql-graph-crud and /metrics.

Starts a server with [HTTPServer] ServerPort on a free 127.0.0.1 port and
[SPARQL] ResultSetMaxRows = 5, loads a small Turtle file and checks over
HTTP (the standard library's client):

- a result longer than the cap is cut at 5 rows and says so: the header
  X-SPARQL-MaxRows, JSON's "truncated": true, XML's cz:truncated element
  (rdflib still reads both); a result of exactly 5 rows or fewer carries
  neither; CONSTRUCT is cut too; ASK is not affected;
- CONSTRUCT and DESCRIBE as application/ld+json, read by rdflib's JSON-LD
  parser (and pyld when installed) into the same graph as the Turtle
  answer: IRIs, blank nodes, language tags, datatypes, rdf:type;
- the Graph Store Protocol: PUT (201 new, 204 replacing), GET (Turtle,
  N-Triples, JSON-LD, HEAD), POST (adds), DELETE (204, then 404), the
  default graph (?default), errors (400 without or with two graph names
  or a relative IRI, 400 naming the line of a malformed body, 415 for
  another Content-Type, 405 with Allow), updates without credentials 401,
  a user without the privilege 403, an update is all or nothing;
- HTTP Digest ([HTTPServer] DigestRealm): the 401 offers Basic and
  Digest; a user whose password was set under the realm authenticates
  (nonce counts go on), wrong passwords, tampered responses, unknown users
  and roles without LOGIN are 401; dba, whose password was set at
  bootstrap, cannot until ALTER ROLE … PASSWORD (Basic still works); a
  Digest user runs with its own privileges (403); curl --digest; the hash
  survives a restart and ALTER ROLE without a password, PASSWORD NULL
  drops it;
- /metrics in the Prometheus text format: every sample line parses, the
  query, update, Graph Store and error counters and the latency histogram
  move with the requests made, buffer hits, sessions and dirty pages are
  there; POST is 405.

Usage: isolated_httpext.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import http.client
import json
import os
import re
import sys
import time
import urllib.parse
import xml.etree.ElementTree as ET

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import sparqlkit  # noqa: E402
import srvctl  # noqa: E402
from checks import check  # noqa: E402

TTL = """@prefix ex: <http://example.org/> .
ex:alice a ex:Person ; ex:name "Alice" ; ex:age 42 ; ex:knows ex:bob, ex:carol ; ex:home _:h .
ex:bob a ex:Person ; ex:name "Bob"@en ; ex:age 17 .
ex:carol a ex:Person ; ex:name "Carol" ; ex:age 30.5 .
_:h ex:city "Zürich" .
"""
PFX = "PREFIX ex: <http://example.org/> "
CAP = 5
GSP = "/sparql-graph-crud"


class Http(sparqlkit.Http):
    """sparqlkit's client with the Graph Store Protocol's requests."""

    def query(self, q, accept=None):
        h = {"Accept": accept} if accept else {}
        return self.req("GET", "/sparql?query=" + urllib.parse.quote(q), headers=h)

    def gsp(self, method, graph=None, body=None, ctype="text/turtle", accept=None):
        path = GSP + ("?graph=" + urllib.parse.quote(graph, safe="") if graph else "?default")
        h = {}
        if body is not None:
            h["Content-Type"] = ctype
        if accept:
            h["Accept"] = accept
        return self.req(method, path, body.encode() if body is not None else None, h)


def graph_of(body, fmt):
    import rdflib
    g = rdflib.Graph()
    g.parse(data=body, format=fmt)
    return g


def maxrows_checks(h):
    q = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
    st, hd, body = h.query(q, "application/sparql-results+json")
    doc = json.loads(body) if st == 200 else {}
    rows = doc.get("results", {}).get("bindings", [])
    check("ResultSetMaxRows: a longer SELECT is cut at the cap, JSON says so",
          st == 200 and len(rows) == CAP and doc.get("truncated") is True and doc.get("maxRows") == CAP,
          "%d %s" % (st, body[:400]))
    check("ResultSetMaxRows: the X-SPARQL-MaxRows header", hd.get("x-sparql-maxrows") == str(CAP), repr(hd))
    st, hd, body = h.query(q, "application/sparql-results+xml")
    ok = st == 200 and hd.get("x-sparql-maxrows") == str(CAP)
    if ok:
        root = ET.fromstring(body)
        ns = "{http://www.w3.org/2005/sparql-results#}"
        res = root.findall("%sresults/%sresult" % (ns, ns))
        cut = root.find("{urn:cadenza:results}truncated")
        ok = len(res) == CAP and cut is not None and cut.get("maxRows") == str(CAP)
    check("ResultSetMaxRows: XML cut, with the cz:truncated element", ok, "%d %s" % (st, body[:600]))
    try:
        from rdflib.query import Result
        import io
        r = Result.parse(io.BytesIO(body.encode()), format="xml")
        check("rdflib still reads the cut XML result", len(list(r)) == CAP, repr(list(r)))
        st, hd, jb = h.query(q, "application/sparql-results+json")
        r = Result.parse(io.BytesIO(jb.encode()), format="json")
        check("rdflib still reads the cut JSON result", len(list(r)) == CAP, repr(list(r)))
    except ImportError:
        pass
    st, hd, body = h.query(q, "text/csv")
    check("ResultSetMaxRows: CSV has the cap's rows and the header",
          st == 200 and len(body.strip().splitlines()) == CAP + 1 and hd.get("x-sparql-maxrows") == str(CAP),
          "%d %r %r" % (st, body, hd))
    for name, qq, n in [("exactly the cap", q + " LIMIT %d" % CAP, CAP),
                        ("fewer rows", PFX + "SELECT ?s WHERE { ?s a ex:Person }", 3)]:
        st, hd, body = h.query(qq, "application/sparql-results+json")
        doc = json.loads(body) if st == 200 else {}
        check("ResultSetMaxRows: %s is not cut" % name,
              st == 200 and len(doc["results"]["bindings"]) == n and "truncated" not in doc
              and "x-sparql-maxrows" not in hd, "%d %s %s" % (st, hd, body[:300]))
    st, hd, body = h.query("CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o }", "application/n-triples")
    check("ResultSetMaxRows: a CONSTRUCT is cut too, with the header",
          st == 200 and len(body.strip().splitlines()) == CAP and hd.get("x-sparql-maxrows") == str(CAP),
          "%d %s %s" % (st, hd, body))
    st, hd, body = h.query("ASK { ?s ?p ?o }")
    check("ResultSetMaxRows: ASK as ever", st == 200 and json.loads(body).get("boolean") is True
          and "x-sparql-maxrows" not in hd, "%d %s" % (st, body))


def jsonld_checks(h, dba):
    import rdflib
    from rdflib.compare import isomorphic
    # the cap is 5: keep to graphs of at most 5 triples here
    qs = [("CONSTRUCT", PFX + "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = ex:alice && ?p != ex:knows) }"),
          ("literals", PFX + "CONSTRUCT { ?s ex:name ?n ; ex:age ?a } WHERE { ?s ex:name ?n ; ex:age ?a "
                             "FILTER(?s != ex:alice) }"),
          ("DESCRIBE", PFX + "DESCRIBE ex:bob")]
    for name, q in qs:
        st, hd, ttl = h.query(q, "text/turtle")
        st2, hd2, body = h.query(q, "application/ld+json")
        ok = st == 200 and st2 == 200 and hd2.get("content-type", "").startswith("application/ld+json")
        detail = "%d %d %s" % (st, st2, body[:600])
        if ok:
            want = graph_of(ttl, "turtle")
            got = graph_of(body, "json-ld")
            ok = len(want) > 0 and isomorphic(want, got)
            detail += "\nwant %s\ngot %s" % (sorted(want), sorted(got))
        check("JSON-LD (%s): rdflib reads the same graph as the Turtle answer" % name, ok, detail)
    st, hd, body = h.query(PFX + "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(?s = ex:alice && ?p != ex:knows) }",
                           "application/ld+json")
    doc = json.loads(body) if st == 200 else None
    check("JSON-LD is expanded form: an array of node objects with full IRIs",
          isinstance(doc, list) and doc and all("@id" in n for n in doc)
          and any("http://example.org/name" in n for n in doc), body[:400])
    try:
        from pyld import jsonld
        nq = jsonld.to_rdf(doc, {"format": "application/n-quads"})
        check("pyld turns the JSON-LD into the triples", nq.count("\n") == len(graph_of(body, "json-ld")), nq)
    except ImportError:
        pass
    st, hd, body = h.query(PFX + "CONSTRUCT { ?s ?p ?o } WHERE { ?s ?p ?o FILTER(false) }", "application/ld+json")
    check("JSON-LD of an empty graph: []", st == 200 and json.loads(body) == [], "%d %s" % (st, body))
    st, hd, body = h.query(PFX + "SELECT * WHERE { ?s ?p ?o }", "application/ld+json")
    check("JSON-LD for a SELECT: 406", st == 406, "%d %s" % (st, body))


def gsp_checks(h, dba, port, conn):
    g = "http://example.org/gsp/g1"
    body1 = '@prefix ex: <http://example.org/> .\nex:x ex:p "one" ; ex:q ex:y .\n'
    st, hd, body = h.gsp("PUT", g, body1)
    check("GSP: PUT without credentials: 401", st == 401 and "www-authenticate" in hd, "%d %s" % (st, body))
    st, hd, body = dba.gsp("PUT", g, body1)
    check("GSP: PUT of a new graph: 201", st == 201, "%d %s" % (st, body))
    st, hd, body = h.gsp("GET", g, accept="application/n-triples")
    got = graph_of(body, "nt") if st == 200 else []
    check("GSP: GET gives the graph's triples", st == 200 and len(got) == 2
          and '"one"' in body and "<http://example.org/y>" in body, "%d %s" % (st, body))
    st, hd, body = h.gsp("GET", g)
    check("GSP: GET as Turtle by default", st == 200 and hd.get("content-type", "").startswith("text/turtle")
          and len(graph_of(body, "turtle")) == 2, "%d %s %s" % (st, hd, body))
    st, hd, body = h.gsp("GET", g, accept="application/ld+json")
    check("GSP: GET as JSON-LD", st == 200 and len(graph_of(body, "json-ld")) == 2, "%d %s" % (st, body))
    st, hd, body = h.gsp("HEAD", g)
    check("GSP: HEAD: 200 without a body", st == 200 and body == "", "%d %r" % (st, body))
    st, hd, body = h.query(PFX + "SELECT ?o WHERE { GRAPH <%s> { ex:x ex:p ?o } }" % g)
    check("GSP: the PUT graph is what a query sees", st == 200 and '"one"' in body, "%d %s" % (st, body))
    st, hd, body = dba.gsp("PUT", g, "<http://example.org/z> <http://example.org/p> \"two\" .\n",
                           ctype="application/n-triples")
    st2, hd2, b2 = h.gsp("GET", g, accept="application/n-triples")
    check("GSP: PUT again replaces the graph: 204", st == 204 and st2 == 200 and len(graph_of(b2, "nt")) == 1
          and '"two"' in b2, "%d %s / %s" % (st, body, b2))
    st, hd, body = dba.gsp("POST", g, "@prefix ex: <http://example.org/> . ex:z ex:p [ ex:q 3 ] .")
    st2, hd2, b2 = h.gsp("GET", g, accept="application/n-triples")
    check("GSP: POST adds (a blank node too): 204", st == 204 and len(graph_of(b2, "nt")) == 3,
          "%d %s / %s" % (st, body, b2))
    st, hd, body = dba.gsp("POST", g, "@prefix ex: <http://example.org/> .\nex:a ex:b ex:c .\nex:a ex:b .\n")
    st2, hd2, b2 = h.gsp("GET", g, accept="application/n-triples")
    check("GSP: a malformed body: 400 naming the line, nothing added",
          st == 400 and ":3:" in body and len(graph_of(b2, "nt")) == 3,
          "%d %s / %s" % (st, body, b2))
    st, hd, body = dba.gsp("PUT", g, "{}", ctype="application/json")
    check("GSP: another Content-Type: 415", st == 415, "%d %s" % (st, body))
    st, hd, body = dba.gsp("DELETE", g)
    check("GSP: DELETE: 204", st == 204, "%d %s" % (st, body))
    st, hd, body = h.gsp("GET", g)
    check("GSP: GET of a deleted graph: 404", st == 404, "%d %s" % (st, body))
    st, hd, body = dba.gsp("DELETE", g)
    check("GSP: DELETE of a missing graph: 404", st == 404, "%d %s" % (st, body))
    # the default graph: the store's own (g = 0), not the union (the loaded
    # file is in it: 13 triples, more than the cap)
    st, hd, body = h.gsp("GET", None, accept="application/n-triples")
    check("GSP: GET ?default is the loaded file's triples (cut at the cap)",
          st == 200 and len(graph_of(body, "nt")) == CAP and hd.get("x-sparql-maxrows") == str(CAP),
          "%d %s %s" % (st, hd, body))
    st, hd, body = dba.gsp("PUT", "http://example.org/gsp/g2", "<http://example.org/e> <http://example.org/p> 1 .")
    check("GSP: PUT of a second graph: 201", st == 201, "%d %s" % (st, body))
    st, hd, body = dba.gsp("DELETE", None)
    st2, hd2, b2 = h.gsp("GET", None, accept="application/n-triples")
    check("GSP: DELETE ?default empties the default graph: 204, then an empty 200",
          st == 204 and st2 == 200 and b2.strip() == "", "%d %s / %d %s" % (st, body, st2, b2))
    st, hd, body = dba.gsp("POST", None, "<http://example.org/d> <http://example.org/p> <http://example.org/o> .",
                           ctype="application/n-triples")
    st2, hd2, b2 = h.gsp("GET", None, accept="application/n-triples")
    check("GSP: POST to ?default adds to the default graph, no named graph's triples in it",
          st == 204 and st2 == 200 and len(graph_of(b2, "nt")) == 1 and "<http://example.org/d>" in b2,
          "%d %s / %s" % (st, body, b2))
    st, hd, body = h.query("ASK { GRAPH <http://example.org/gsp/g2> { <http://example.org/e> ?p ?o } }")
    check("GSP: ... and the named graph is still there", st == 200 and json.loads(body)["boolean"] is True,
          "%d %s" % (st, body))
    for name, path in [("no graph named", GSP), ("two graphs named", GSP + "?default&graph=http%3A%2F%2Fa%2Fb"),
                       ("a relative IRI", GSP + "?graph=rel%2Fpath"), ("an IRI with a space", GSP + "?graph=http%3A%2F%2Fa%20b")]:
        st, hd, body = h.req("GET", path)
        check("GSP: %s: 400" % name, st == 400, "%d %s" % (st, body))
    st, hd, body = dba.req("PATCH", GSP + "?default", b"", {"Content-Type": "text/turtle"})
    check("GSP: PATCH: 405 with Allow", st == 405 and "PUT" in hd.get("allow", ""), "%d %s" % (st, hd))
    conn.execute("CREATE ROLE gspreader LOGIN PASSWORD 'gr3ad'")
    conn.execute("GRANT USAGE ON SCHEMA pg_rdf TO gspreader")
    conn.execute("GRANT SELECT ON pg_rdf.rdf_quad, pg_rdf.rdf_iri, pg_rdf.rdf_prefix, pg_rdf.rdf_literal "
                 "TO gspreader")
    # DELETE but not INSERT: a PUT's DROP would run, its INSERT DATA not
    conn.execute("GRANT DELETE ON pg_rdf.rdf_quad TO gspreader")
    rd = Http(port, "gspreader", "gr3ad")
    st, hd, body = rd.gsp("GET", "http://example.org/gsp/g2", accept="application/n-triples")
    check("GSP: a reader may GET", st == 200 and "<http://example.org/e>" in body, "%d %s" % (st, body))
    st, hd, body = rd.gsp("PUT", "http://example.org/gsp/g2", "<http://example.org/f> <http://example.org/p> 1 .")
    st2, hd2, b2 = h.gsp("GET", "http://example.org/gsp/g2", accept="application/n-triples")
    check("GSP: PUT by a user without INSERT: 403, the graph as it was (its DROP undone: one transaction)",
          st == 403 and "42501" in body and "<http://example.org/e>" in b2 and "<http://example.org/f>" not in b2,
          "%d %s / %s" % (st, body, b2))


REALM = "Cadenza test realm"


def digest_challenge(hd):
    """The Digest challenge's parameters of a 401's WWW-Authenticate
    headers (http.client joins repeated headers with ", ")."""
    h = hd.get("www-authenticate", "")
    i = h.find("Digest ")
    if i < 0:
        return None
    return dict(re.findall(r'(\w+)="?([^",]*)"?', h[i + 7:]))


def digest_req(port, method, path, user, password, body=None, headers=None, nc=1, tamper=None, ch=None):
    """A request with Digest credentials (RFC 7616, MD5, qop=auth) computed
    here from the server's challenge: a first request for the 401, then
    the answer. Returns (status, headers, body, challenge)."""
    import hashlib
    h = Http(port)
    if ch is None:
        st, hd, b = h.req(method, path, body, headers)
        ch = digest_challenge(hd)
        if st != 401 or not ch:
            return st, hd, b, None
    md5 = lambda t: hashlib.md5(t.encode()).hexdigest()  # noqa: E731
    ha1 = md5("%s:%s:%s" % (user, ch["realm"], password))
    ha2 = md5("%s:%s" % (method, path))
    cnonce = "0a4f113b"
    ncs = "%08x" % nc
    resp = md5("%s:%s:%s:%s:auth:%s" % (ha1, ch["nonce"], ncs, cnonce, ha2))
    if tamper:
        resp = tamper(resp)
    auth = ('Digest username="%s", realm="%s", nonce="%s", uri="%s", algorithm=MD5, qop=auth, nc=%s, '
            'cnonce="%s", response="%s", opaque="%s"' % (user, ch["realm"], ch["nonce"], path, ncs, cnonce,
                                                         resp, ch.get("opaque", "")))
    hh = dict(headers or {})
    hh["Authorization"] = auth
    st, hd, b = h.req(method, path, body, hh)
    return st, hd, b, ch


def digest_checks(h, port, pw, conn):
    upd = "/sparql"
    form = ("update=" + urllib.parse.quote(PFX + "INSERT DATA { ex:dg ex:p ex:o }")).encode()
    fh = {"Content-Type": "application/x-www-form-urlencoded"}
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    c.request("POST", upd, form, fh)
    resp = c.getresponse()
    st, body = resp.status, resp.read()
    chals = resp.msg.get_all("WWW-Authenticate") or []
    c.close()
    hd = {"www-authenticate": ", ".join(chals)}
    ch = digest_challenge(hd)
    check("Digest: a 401 offers Basic and Digest (MD5, qop auth, our realm), two WWW-Authenticate headers",
          st == 401 and "Basic " in hd.get("www-authenticate", "") and ch and ch.get("realm") == REALM
          and "auth" in ch.get("qop", "") and ch.get("nonce") and len(chals) == 2, "%d %r" % (st, chals))
    st, hd, body = h.req("GET", "/sparql-auth?query=ASK%7B%7D")
    check("/sparql-auth without credentials: 401", st == 401 and digest_challenge(hd), "%d %s" % (st, body))
    conn.execute("CREATE ROLE digester LOGIN SUPERUSER PASSWORD 'd1gest'")
    st, hd, body, ch = digest_req(port, "POST", upd, "digester", "d1gest", form, fh)
    check("Digest: an update by a user whose password was set under the realm",
          st == 200 and "1 quads inserted" in body, "%d %s" % (st, body))
    st2, hd2, body2, _ = digest_req(port, "POST", upd, "digester", "d1gest", form, fh, nc=2, ch=ch)
    check("Digest: the same nonce with the next nonce count", st2 == 200, "%d %s" % (st2, body2))
    st, hd, body, _ = digest_req(port, "POST", upd, "digester", "wrong", form, fh)
    check("Digest: a wrong password: 401 with a fresh challenge",
          st == 401 and "28P01" in body and digest_challenge(hd), "%d %s %r" % (st, body, hd))
    st, hd, body, _ = digest_req(port, "POST", upd, "digester", "d1gest", form, fh,
                                 tamper=lambda x: ("0" if x[0] != "0" else "1") + x[1:])
    check("Digest: a tampered response: 401", st == 401, "%d %s" % (st, body))
    st, hd, body, _ = digest_req(port, "POST", upd, "nobody", "d1gest", form, fh)
    check("Digest: an unknown user: 401", st == 401 and "28P01" in body, "%d %s" % (st, body))
    st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=ASK%7B%7D", "dba", pw)
    check("Digest: dba, whose password was set before the realm (at bootstrap), cannot use it: 401",
          st == 401, "%d %s" % (st, body))
    st, hd, body = Http(port, "dba", pw).req("POST", upd, form, fh)
    check("Digest: ... but Basic still works for dba", st == 200, "%d %s" % (st, body))
    conn.execute("ALTER ROLE dba PASSWORD %s" % "'" + pw.replace("'", "''") + "'")
    st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=ASK%7B%7D", "dba", pw)
    check("Digest: after ALTER ROLE … PASSWORD it can", st == 200 and "true" in body, "%d %s" % (st, body))
    conn.execute("CREATE ROLE dreader LOGIN PASSWORD 'r3ad'")
    st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=" + urllib.parse.quote(PFX + "SELECT * { ?s ?p ?o }"),
                                 "dreader", "r3ad")
    check("Digest: a user runs with its own privileges (no SELECT on the store: 403)",
          st == 403 and "42501" in body, "%d %s" % (st, body))
    conn.execute("ALTER ROLE dreader NOLOGIN")
    st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=ASK%7B%7D", "dreader", "r3ad")
    check("Digest: a role that may not log in: 401", st == 401, "%d %s" % (st, body))
    st, hd, body, _ = digest_req(port, "PUT", GSP + "?graph=" + urllib.parse.quote("http://example.org/dg", safe=""),
                                 "digester", "d1gest", b"<http://example.org/a> <http://example.org/b> 1 .",
                                 {"Content-Type": "text/turtle"})
    check("Digest: a Graph Store PUT", st == 201, "%d %s" % (st, body))
    import subprocess
    r = subprocess.run(["curl", "-sS", "--digest", "-u", "digester:d1gest", "-H", "Accept: application/n-triples",
                        "http://127.0.0.1:%d%s-auth?graph=%s" % (port, GSP, urllib.parse.quote("http://example.org/dg", safe=""))],
                       capture_output=True, text=True, timeout=60)
    check("Digest: curl --digest reads the graph (/sparql-graph-crud-auth)", r.returncode == 0 and "<http://example.org/a>" in r.stdout,
          r.stdout + r.stderr)


SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})? (-?[0-9.e+-]+|\+Inf|NaN)$')


def metrics(h):
    st, hd, body = h.req("GET", "/metrics")
    vals = {}
    bad = []
    for line in body.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            bad.append(line)
            continue
        vals[m.group(1) + (m.group(2) or "")] = float(m.group(3))
    return st, hd, vals, bad, body


def metrics_checks(h, dba):
    st, hd, v0, bad, body = metrics(h)
    check("/metrics: 200 text/plain version 0.0.4, every sample line parses",
          st == 200 and "version=0.0.4" in hd.get("content-type", "") and not bad and v0, "%d %s %s" % (st, hd, bad))
    for name in ["cadenza_sparql_queries_total", "cadenza_sparql_updates_total", "cadenza_sparql_errors_total",
                 "cadenza_http_requests_total", "cadenza_buffer_hits_total", "cadenza_buffer_misses_total",
                 "cadenza_buffer_readahead_pages_read_total", "cadenza_buffers_dirty", "cadenza_sessions",
                 "cadenza_sparql_request_duration_seconds_count",
                 'cadenza_sparql_request_duration_seconds_bucket{le="+Inf"}']:
        check("/metrics has %s" % name, name in v0, body[:2000])
    check("/metrics: the buffer pool has been used", v0.get("cadenza_buffer_hits_total", 0) > 0, repr(v0))
    check("/metrics: the # TYPE lines", "# TYPE cadenza_sparql_request_duration_seconds histogram" in body
          and "# TYPE cadenza_sparql_queries_total counter" in body, body[:1500])
    for _ in range(3):
        h.query("ASK { ?s ?p ?o }")
    h.query("SELECT * WHERE { ?s ?p }")  # 400
    dba.req("POST", "/sparql", ("update=" + urllib.parse.quote(PFX + "INSERT DATA { ex:m ex:m ex:m }")).encode(),
            {"Content-Type": "application/x-www-form-urlencoded"})
    dba.gsp("GET", None, accept="application/n-triples")
    h.req("GET", "/")
    h.req("GET", "/app.js")
    # a request is counted when the server has finished it, which may be a
    # moment after the client read its answer: wait for the counts to come
    deadline = time.time() + 10
    while True:
        st, hd, v1, bad, body = metrics(h)

        def d(k):
            return v1.get(k, 0) - v0.get(k, 0)
        if (d("cadenza_sparql_request_duration_seconds_count") >= 6 and d("cadenza_http_requests_total") >= 9) \
                or time.time() > deadline:
            break
        time.sleep(0.1)
    check("/metrics: 4 queries, 1 update, 1 Graph Store request, 1 error counted",
          d("cadenza_sparql_queries_total") == 4 and d("cadenza_sparql_updates_total") == 1
          and d("cadenza_sparql_graph_store_requests_total") == 1 and d("cadenza_sparql_errors_total") == 1,
          repr({k: d(k) for k in v1 if d(k)}))
    hist = d("cadenza_sparql_request_duration_seconds_count")
    inf = d('cadenza_sparql_request_duration_seconds_bucket{le="+Inf"}')
    buckets = [v1[k] for k in v1 if k.startswith("cadenza_sparql_request_duration_seconds_bucket")]
    check("/metrics: the histogram counts the 6 requests, buckets cumulative",
          hist == 6 and inf == 6 and buckets == sorted(buckets) and d("cadenza_sparql_request_duration_seconds_sum") > 0,
          "%r %r %r" % (hist, inf, buckets))
    check("/metrics: the HTTP request and error counters moved (the page's files are no errors)",
          d("cadenza_http_requests_total") >= 9 and d("cadenza_http_errors_total") == 1, repr(v1))
    st, hd, body = h.req("POST", "/metrics", b"", {"Content-Type": "text/plain"})
    check("/metrics: POST is 405", st == 405 and "GET" in hd.get("allow", ""), "%d %s" % (st, hd))


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the HTTP endpoint is Cadenza's own")
    try:
        import rdflib  # noqa: F401
    except ImportError:
        return checks.skip("rdflib is not installed (scripts/install-deps.sh)")
    srv = checks.isolated_server(args, "httpext", buffers=2000)
    data = os.path.join(srv.folder, "rdfdata")
    os.makedirs(data)
    port = srvctl.free_port()
    srv.extra_ini = {"Parameters": {"DirsAllowed": data},
                     "HTTPServer": {"ServerPort": "127.0.0.1:%d" % port, "DigestRealm": REALM},
                     "SPARQL": {"ResultSetMaxRows": str(CAP), "AllowUpdate": "authenticated"}}
    with open(os.path.join(data, "a.ttl"), "w") as f:
        f.write(TTL)
    srv.start()
    h = Http(port)
    dba = Http(port, "dba", srv.password)
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("SELECT ld_dir(%s, '*')", (data,))
            c.execute("SELECT rdf_loader_run()")
            n = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
            check("the data is loaded", n > CAP, repr(n))
            maxrows_checks(h)
            jsonld_checks(h, dba)
            metrics_checks(h, dba)
            gsp_checks(h, dba, port, c)
            digest_checks(h, port, srv.password, c)
            check("SQL still answers", checks.answers(c))
        check("the server is alive", srv.alive())
        # the Digest hash is kept with the role: it survives a restart,
        # and ALTER ROLE … PASSWORD without a realm would drop it
        srv.stop()
        srv.start()
        st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=ASK%7B%7D", "digester", "d1gest")
        check("Digest: after a restart the role's hash is still there", st == 200 and "true" in body,
              "%d %s" % (st, body))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("ALTER ROLE digester NOLOGIN")
            c.execute("ALTER ROLE digester LOGIN")
            st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=ASK%7B%7D", "digester", "d1gest")
            check("Digest: ALTER ROLE without a password keeps the hash", st == 200, "%d %s" % (st, body))
            c.execute("ALTER ROLE digester PASSWORD NULL")
            st, hd, body, _ = digest_req(port, "GET", "/sparql-auth?query=ASK%7B%7D", "digester", "d1gest")
            check("Digest: PASSWORD NULL drops it: 401", st == 401, "%d %s" % (st, body))
    finally:
        srv.stop()
    log = srv.log_tail(400)
    check("no crash in the server log", "fatal signal" not in log.lower() and "backtrace" not in log.lower(),
          log[-2000:])
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""The SPARQL 1.1 Protocol endpoint (issue 10, item 6; libsrc/net/hs_*.c).

Starts a server with [HTTPServer] ServerPort on a free 127.0.0.1 port,
loads a small Turtle and TriG file with the bulk loader, and checks over
HTTP (the standard library's client and raw sockets, nothing that could
hide a protocol fault):

- GET ?query=, POST form-encoded and POST application/sparql-query give
  the same answers as rdflib on the same data, in each results format
  (JSON, XML, CSV, TSV), each parsed back; ASK in JSON and XML; content
  negotiation (default JSON, q values, aliases, 406);
- default-graph-uri / named-graph-uri replace the query's dataset;
- errors: a syntax error is 400 with line and column, an unsupported
  feature 501 with its message, 404, 405, 413, 415, a GET update 400, a
  request with neither query nor update 400;
- HTTP Basic against the catalog's users: an update without credentials
  is 401 (AllowUpdate = authenticated), with dba's password it reaches
  the compiler (501: no Update compiler yet); wrong passwords, unknown
  users, roles without LOGIN and malformed headers are 401; a user
  without SELECT on the store gets 403;
- malformed HTTP bytes, a huge header, a silent client (closed after
  ConnectionTimeout), a client trickling its headers a byte at a time
  (slowloris: closed after RequestTimeout), a client that goes away in the middle of a
  streamed result, 12 concurrent clients, several requests on one
  keep-alive connection;
- a 40,000-row result streams whole (chunked, no cap); gzip when asked;
- MaxQueryExecutionTime stops a runaway query with 503;
- the query page at / and /sparql (text/html, no external resources);
- after all of it the server still answers over HTTP and SQL.

Usage: isolated_http.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import base64
import csv
import http.client
import io
import json
import os
import re
import socket
import sys
import threading
import time
import urllib.parse
import xml.etree.ElementTree as ET

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import sparqlkit  # noqa: E402
from checks import check  # noqa: E402

TTL = """@prefix ex: <http://example.org/> .
ex:alice a ex:Person ; ex:name "Alice" ; ex:age 42 ; ex:knows ex:bob, ex:carol ; ex:note "a \\"quoted\\"\\nline, with comma" .
ex:bob a ex:Person ; ex:name "Bob"@en ; ex:age 17 ; ex:knows ex:carol .
ex:carol a ex:Person ; ex:name "Carol" ; ex:age 30.5 ; ex:home _:h .
_:h ex:city "Zürich" .
ex:dave a ex:Robot ; ex:name "Dave" ; ex:age 42 .
"""
TRIG = """@prefix ex: <http://example.org/> .
ex:g1 { ex:alice ex:likes ex:tea . ex:bob ex:likes ex:coffee . }
ex:g2 { ex:carol ex:likes ex:tea . }
"""
PFX = "PREFIX ex: <http://example.org/> "
BIG = 40000
XSD_STRING = "^^<http://www.w3.org/2001/XMLSchema#string>"

QUERIES = [
    ("bgp", "SELECT ?s ?n WHERE { ?s a ex:Person ; ex:name ?n }"),
    ("optional", "SELECT ?s ?a WHERE { ?s a ex:Person OPTIONAL { ?s ex:age ?a FILTER(?a > 20) } }"),
    ("bnode and unicode", "SELECT ?c WHERE { ex:carol ex:home ?h . ?h ex:city ?c }"),
    ("escapes", "SELECT ?n WHERE { ex:alice ex:note ?n }"),
    ("union unbound", "SELECT ?x ?y WHERE { { ?x a ex:Robot } UNION { ?y ex:age 17 } }"),
    ("count group", "SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s ex:knows ?o } GROUP BY ?s"),
]


def nt(t):
    """An rdflib term in N-Triples form, blank nodes as "_:" (labels are
    the store's own)."""
    import rdflib
    if t is None:
        return None
    if isinstance(t, rdflib.BNode):
        return "_:"
    if isinstance(t, rdflib.Literal):
        s = lit_nt(str(t))
        if t.language:
            return s + "@" + t.language
        if t.datatype and str(t.datatype) != "http://www.w3.org/2001/XMLSchema#string":
            return s + "^^<%s>" % t.datatype
        return s
    return t.n3()


def plain(t):
    """The CSV form of an rdflib term: the bare value."""
    if t is None:
        return ""
    if isinstance(t, __import__("rdflib").BNode):
        return "_:"
    return str(t)


def json_term(b):
    v = b["value"]
    if b["type"] == "uri":
        return "<%s>" % v
    if b["type"] == "bnode":
        return "_:"
    s = json.dumps(v, ensure_ascii=False)
    if "xml:lang" in b:
        return "%s@%s" % (s, b["xml:lang"])
    if b.get("datatype") and b["datatype"] != "http://www.w3.org/2001/XMLSchema#string":
        return "%s^^<%s>" % (s, b["datatype"])
    return s


def lit_nt(v):
    """A lexical form quoted as N-Triples (as json.dumps, for the values in
    this data)."""
    return json.dumps(v, ensure_ascii=False)


def parse_json(body, names):
    j = json.loads(body)
    return [tuple(json_term(b[n]) if n in b else None for n in names)
            for b in j["results"]["bindings"]], j["head"]["vars"]


NS = "{http://www.w3.org/2005/sparql-results#}"


def parse_xml(body, names):
    root = ET.fromstring(body)
    vars_ = [v.get("name") for v in root.iter(NS + "variable")]
    rows = []
    for res in root.iter(NS + "result"):
        got = {}
        for b in res.findall(NS + "binding"):
            t = b[0]
            if t.tag == NS + "uri":
                got[b.get("name")] = "<%s>" % t.text
            elif t.tag == NS + "bnode":
                got[b.get("name")] = "_:"
            else:
                s = lit_nt(t.text or "")
                lang = t.get("{http://www.w3.org/XML/1998/namespace}lang")
                dt = t.get("datatype")
                if lang:
                    s += "@" + lang
                elif dt and dt != "http://www.w3.org/2001/XMLSchema#string":
                    s += "^^<%s>" % dt
                got[b.get("name")] = s
        rows.append(tuple(got.get(n) for n in names))
    return rows, vars_


def parse_csv(body, names):
    r = list(csv.reader(io.StringIO(body, newline="")))
    rows = [tuple("_:" if v.startswith("_:") else v for v in row) for row in r[1:]]
    return rows, r[0]


def parse_tsv(body, names):
    lines = body.split("\n")
    assert lines[-1] == "", "TSV ends with a line end"
    head = [h[1:] for h in lines[0].split("\t")]
    rows = []
    for ln in lines[1:-1]:
        rows.append(tuple(None if v == "" else ("_:" if v.startswith("_:") else v.replace("\\t", "\t"))
                          for v in ln.split("\t")))
    return rows, head


FORMATS = [
    ("json", "application/sparql-results+json", parse_json, nt),
    ("xml", "application/sparql-results+xml", parse_xml, nt),
    ("csv", "text/csv", parse_csv, plain),
    ("tsv", "text/tab-separated-values", parse_tsv, nt),
]


Http = sparqlkit.Http
raw = sparqlkit.raw


def protocol_checks(h, ds):
    for name, q in QUERIES:
        res = ds.query(PFX + q)
        names = [str(v) for v in res.vars]
        for fname, mt, parse, conv in FORMATS:
            want = sorted((tuple(conv(v) for v in row) for row in res), key=repr)
            if fname == "csv":
                want = sorted((tuple(conv(v) for v in row) for row in res), key=repr)
            for how in ("get", "form", "direct"):
                if how == "get":
                    st, hd, body = h.get(PFX + q, mt)
                elif how == "form":
                    st, hd, body = h.post_form({"query": PFX + q}, mt)
                else:
                    st, hd, body = h.post_direct(PFX + q, mt)
                if st != 200:
                    check("%s %s %s: 200" % (name, fname, how), False, "%d %s" % (st, body[:300]))
                    continue
                ok_ct = hd.get("content-type", "").split(";")[0] == mt
                try:
                    got, vars_ = parse(body, names)
                except Exception as ex:  # a body that does not parse is the failure
                    check("%s %s %s: parses" % (name, fname, how), False, "%s: %r" % (ex, body[:300]))
                    continue
                if fname == "csv":
                    got = [tuple(v for v in r) for r in got]
                check("%s %s %s: same rows as rdflib" % (name, fname, how),
                      ok_ct and vars_ == names and sorted(got, key=repr) == want,
                      "ct %s vars %r got %r want %r" % (hd.get("content-type"), vars_,
                                                        sorted(got, key=repr), want))
    # ASK
    for q, want in (("ASK { ex:alice ex:knows ex:bob }", True), ("ASK { ex:bob ex:knows ex:alice }", False)):
        st, hd, body = h.get(PFX + q)
        check("ASK %s in JSON" % want, st == 200 and json.loads(body) == {"head": {}, "boolean": want},
              "%d %s" % (st, body))
        st, hd, body = h.post_form({"query": PFX + q}, "application/sparql-results+xml")
        b = ET.fromstring(body).find(NS + "boolean") if st == 200 else None
        check("ASK %s in XML" % want, b is not None and b.text == str(want).lower(), "%d %s" % (st, body))
    # no variables: one empty solution (the compiler's "?unit" column is not a variable)
    for q in ("SELECT * {}", "SELECT * { GRAPH ex:g1 {} }"):
        st, hd, body = h.get(PFX + q)
        j = json.loads(body) if st == 200 else None
        check("%s: one empty solution" % q, j == {"head": {"vars": []}, "results": {"bindings": [{}]}},
              "%d %s" % (st, body))
    st, hd, body = h.req("GET", "/sparql?query=ASK+%7B+%7D")
    check("'+' in a query string is a space", st == 200 and "true" in body, "%d %s" % (st, body))
    st, hd, body = h.get("SELECT ?s WHERE { ?s <p> ?o }")
    check("relative IRIs resolve against the request's IRI", st == 200, "%d %s" % (st, body))
    # negotiation
    q = PFX + "SELECT ?n WHERE { ex:dave ex:name ?n }"
    for accept, want in [(None, "application/sparql-results+json"),
                         ("*/*", "application/sparql-results+json"),
                         ("text/*", "text/csv"),
                         ("application/json", "application/sparql-results+json"),
                         ("text/csv;q=0.5, application/sparql-results+xml;q=0.9", "application/sparql-results+xml"),
                         ("text/html, application/xhtml+xml, application/xml;q=0.9, */*;q=0.8",
                          "application/sparql-results+xml"),
                         ("text/tab-separated-values, */*;q=0.1", "text/tab-separated-values")]:
        st, hd, body = h.get(q, accept)
        check("Accept %s gives %s" % (accept, want),
              st == 200 and hd.get("content-type", "").split(";")[0] == want, "%d %s" % (st, hd))
    st, hd, body = h.get(q, "image/png")
    check("Accept image/png: 406 naming what is offered", st == 406 and "text/csv" in body, "%d %s" % (st, body))
    st, hd, body = h.get(q, "text/csv;q=0")
    check("Accept text/csv;q=0 only: 406", st == 406, "%d %s" % (st, body))
    # dataset parameters
    q = PFX + "SELECT ?s WHERE { ?s ex:likes ?o }"
    st, hd, body = h.get(q, extra="&default-graph-uri=" + urllib.parse.quote("http://example.org/g2"))
    got = parse_json(body, ["s"])[0] if st == 200 else body
    check("default-graph-uri restricts the default graph", got == [("<http://example.org/carol>",)], repr(got))
    st, hd, body = h.post_form([("query", PFX + "SELECT ?s FROM ex:g2 WHERE { ?s ex:likes ?o }"),
                                ("default-graph-uri", "http://example.org/g1")])
    got = sorted(parse_json(body, ["s"])[0]) if st == 200 else body
    check("default-graph-uri replaces the query's FROM",
          got == [("<http://example.org/alice>",), ("<http://example.org/bob>",)], repr(got))
    st, hd, body = h.post_form([("query", PFX + "SELECT ?g ?s WHERE { GRAPH ?g { ?s ex:likes ex:tea } }"),
                                ("named-graph-uri", "http://example.org/g2")])
    got = parse_json(body, ["g", "s"])[0] if st == 200 else body
    check("named-graph-uri names the graphs GRAPH ?g ranges over",
          got == [("<http://example.org/g2>", "<http://example.org/carol>")], repr(got))


def auth_checks(h, port, pw, conn):
    """HTTP Basic against the catalog's users; updates need a user."""
    upd = {"update": PFX + "INSERT DATA { ex:a ex:b ex:c }"}
    st, hd, body = h.post_form(upd)
    check("an update without credentials: 401 asking for Basic",
          st == 401 and hd.get("www-authenticate", "").startswith("Basic "), "%d %s %s" % (st, hd, body))
    dba = Http(port, "dba", pw)
    st, hd, body = dba.post_form(upd)
    check("an update as dba: one quad inserted",
          st == 200 and "1 quads inserted, 0 deleted" in body, "%d %s" % (st, body))
    st, hd, body = dba.post_direct(PFX + "INSERT DATA { ex:a ex:b ex:c }", ctype="application/sparql-update")
    check("the same update body as dba: nothing new", st == 200 and "0 quads inserted" in body,
          "%d %s" % (st, body))
    st, hd, body = h.get(PFX + "ASK { ex:a ex:b ex:c }")
    check("a query sees the update", st == 200 and json.loads(body).get("boolean") is True,
          "%d %s" % (st, body))
    st, hd, body = dba.post_direct(PFX + "DELETE WHERE { ?s ex:b ?o }", ctype="application/sparql-update")
    check("a DELETE WHERE: one quad deleted", st == 200 and "0 quads inserted, 1 deleted" in body,
          "%d %s" % (st, body))
    st, hd, body = dba.post_form([("update", PFX + "INSERT { ex:u ex:v ?o } WHERE { ?s ex:likes ?o }"),
                                  ("using-graph-uri", "http://example.org/nowhere")])
    check("using-graph-uri is the WHERE's dataset (an empty graph: nothing inserted)",
          st == 200 and "0 quads inserted" in body, "%d %s" % (st, body))
    st, hd, body = dba.post_form([("update", PFX + "WITH ex:g INSERT { ex:u ex:v ?o } WHERE { ?s ex:likes ?o }"),
                                  ("using-graph-uri", "http://example.org/g2")])
    check("using-graph-uri with WITH in the update: 400", st == 400 and "42601" in body,
          "%d %s" % (st, body))
    st, hd, body = dba.post_form({"update": PFX + "INSERT DATA { ex:a ex:b }"})
    check("an update with a syntax error: 400 naming the line", st == 400 and "42601" in body,
          "%d %s" % (st, body))
    st, hd, body = dba.post_direct("SELECT * WHERE { ?s ?p ?o }", ctype="application/sparql-update")
    check("a query sent as an update: 400", st == 400 and "42601" in body, "%d %s" % (st, body))
    for name, hh in [("a wrong password", Http(port, "dba", pw + "x")),
                     ("an unknown user", Http(port, "nobody", pw))]:
        st, hd, body = hh.post_form(upd)
        check("%s: 401" % name, st == 401 and "28P01" in body, "%d %s" % (st, body))
        st, hd, body = hh.get("ASK {}")
        check("%s on a query: 401" % name, st == 401, "%d %s" % (st, body))
    for name, value in [("Basic that is no base64", "Basic !!!!"), ("Basic without a colon",
                        "Basic " + base64.b64encode(b"dba").decode()), ("another scheme", "Bearer abc"),
                        ("Basic and nothing", "Basic ")]:
        st, hd, body = h.req("GET", "/sparql?query=ASK%7B%7D", headers={"Authorization": value})
        check("%s: 401" % name, st == 401, "%d %s" % (st, body))
    st, hd, body = dba.get("ASK {}")
    check("a query as dba", st == 200 and "true" in body, "%d %s" % (st, body))
    # a user of one's own: a query runs with that user's privileges
    conn.execute("CREATE ROLE reader LOGIN PASSWORD 'r3ad'")
    rd = Http(port, "reader", "r3ad")
    st, hd, body = rd.get(PFX + "SELECT ?s WHERE { ?s a ex:Person }")
    check("a user without SELECT on the store: 403 (42501)", st == 403 and "42501" in body,
          "%d %s" % (st, body))
    conn.execute("CREATE ROLE nologin PASSWORD 'n0'")
    st, hd, body = Http(port, "nologin", "n0").get("ASK {}")
    check("a role that may not log in: 401", st == 401, "%d %s" % (st, body))


def construct_checks(h):
    """CONSTRUCT and DESCRIBE as N-Triples and Turtle, read back by rdflib."""
    import rdflib
    q = PFX + "CONSTRUCT { ?o ex:likedBy ?s } WHERE { ?s ex:likes ?o }"
    st, hd, body = h.get(PFX + "SELECT ?s ?o WHERE { ?s ex:likes ?o }")
    want = {(o, s) for s, o in parse_json(body, ["s", "o"])[0]} if st == 200 else set()
    for accept, fmt in [("application/n-triples", "nt"), ("text/turtle", "turtle")]:
        st, hd, body = h.post_form({"query": q}, accept=accept)
        got = set()
        if st == 200:
            g = rdflib.Graph()
            g.parse(data=body, format=fmt)
            got = {(t[0].n3(), t[2].n3()) for t in g}
        check("CONSTRUCT as %s: the template over every solution" % accept,
              st == 200 and hd.get("content-type", "").startswith(accept) and got == want and want,
              "%d %r %r" % (st, sorted(got), sorted(want)))
    st, hd, body = h.post_form({"query": q}, accept="application/sparql-results+json")
    check("CONSTRUCT asking for a solutions format: 406", st == 406, "%d %s" % (st, body))
    st, hd, body = h.get(PFX + "DESCRIBE ex:alice", accept="application/n-triples")
    check("DESCRIBE: the resource's triples", st == 200 and "<http://example.org/alice>" in body,
          "%d %s" % (st, body))


def error_checks(h, port):
    st, hd, body = h.get("SELECT ?s WHERE {\n  ?s ?p }")
    check("syntax error: 400 with line and column", st == 400 and "42601" in body and "line 2" in body,
          "%d %s" % (st, body))
    st, hd, body = h.post_form({"query": PFX + "SELECT ?s WHERE { SERVICE <http://example.org/x> { ?s ?p ?o } }"})
    check("unsupported feature: 501 with the message", st == 501 and "not supported" in body,
          "%d %s" % (st, body))
    construct_checks(h)
    st, hd, body = h.req("GET", "/sparql?update=" + urllib.parse.quote("CLEAR ALL"))
    check("update by GET: 400", st == 400 and "POST" in body, "%d %s" % (st, body))
    st, hd, body = h.post_form({"foo": "bar"})
    check("no query: 400", st == 400, "%d %s" % (st, body))
    st, hd, body = h.post_form([("query", "ASK {}"), ("query", "ASK {}")])
    check("two queries: 400", st == 400, "%d %s" % (st, body))
    st, hd, body = h.req("GET", "/nothing")
    check("unknown path: 404", st == 404, "%d %s" % (st, body))
    st, hd, body = h.req("PUT", "/sparql", b"x", {"Content-Type": "text/plain"})
    check("PUT: 405 with Allow", st == 405 and "GET" in hd.get("allow", ""), "%d %s %s" % (st, hd, body))
    st, hd, body = h.req("DELETE", "/sparql")
    check("DELETE: 405", st == 405, "%d %s" % (st, body))
    st, hd, body = h.post_direct("ASK {}", ctype="text/plain")
    check("unknown Content-Type: 415", st == 415, "%d %s" % (st, body))
    st, hd, body = h.req("POST", "/sparql", b"query=ASK%7B%7D")
    check("POST without Content-Type: 415", st == 415, "%d %s" % (st, body))
    big = "ASK { } #" + "x" * (80 * 1024)
    st, hd, body = h.post_direct(big)
    check("a body over MaxBodySize: 413", st == 413 and "MaxBodySize" in body, "%d %s" % (st, body[:200]))
    # the same without Content-Length: chunked upload
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    s.sendall(b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    got = b""
    for _ in range(20):  # 80 KB: the rest is dropped, 413 comes at the end
        s.sendall(b"1000\r\n" + b"#" * 4096 + b"\r\n")
    s.sendall(b"0\r\n\r\n")
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            got += b
            if b"\r\n\r\n" in got:
                break
    except OSError:
        pass
    s.close()
    check("a chunked body over MaxBodySize: 413", got.startswith(b"HTTP/1.1 413"), repr(got[:200]))
    # one that goes on far past it is cut off
    s = socket.create_connection(("127.0.0.1", port), timeout=15)
    s.sendall(b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    cut = False
    try:
        for _ in range(2000):  # 8 MB, or until the server has closed
            s.sendall(b"1000\r\n" + b"#" * 4096 + b"\r\n")
        cut = s.recv(100) == b""
    except OSError:
        cut = True
    s.close()
    check("an endless chunked body is cut off", cut)
    st, hd, body = h.post_direct("SELECT ?s WHERE { ?s ?p \x00 }")
    check("a NUL byte in the query: 400", st == 400, "%d %s" % (st, body))
    st, hd, body = h.req("POST", "/sparql", b"ASK { <http://x/\xff> ?p ?o }",
                         {"Content-Type": "application/sparql-query"})
    check("invalid UTF-8 in the query: 400", st == 400, "%d %s" % (st, body))


def malformed_checks(port, timeout_s, request_s):
    for name, data in [
        ("garbage request line", b"GARBAGE\r\n\r\n"),
        ("binary bytes", bytes(range(256)) + b"\r\n\r\n"),
        ("no Host in HTTP/1.1", b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\n\r\n"),
        ("bad header line", b"GET / HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n"),
        ("bad chunk size", b"POST /sparql HTTP/1.1\r\nHost: x\r\nContent-Type: application/sparql-query\r\n"
                           b"Transfer-Encoding: chunked\r\n\r\nzz\r\nASK {}\r\n0\r\n\r\n"),
        ("Content-Length and body disagree", b"POST /sparql HTTP/1.1\r\nHost: x\r\n"
                                            b"Content-Type: application/sparql-query\r\n"
                                            b"Content-Length: -5\r\n\r\nASK {}"),
    ]:
        got = raw(port, data, wait=timeout_s + 5)
        check("%s: an HTTP error or a close" % name,
              got == b"" or got.startswith(b"HTTP/1.1 4") or got.startswith(b"HTTP/1.0 4"), repr(got[:120]))
    got = raw(port, b"GET /sparql HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * (200 * 1024) + b"\r\n\r\n",
              wait=timeout_s + 5)
    check("a 200 KB header: refused (431 or close)",
          got == b"" or got.startswith(b"HTTP/1.1 431") or got.startswith(b"HTTP/1.1 4"), repr(got[:120]))
    # slowloris: part of a request, then silence
    t0 = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout_s + 20)
    s.sendall(b"GET /sparql HTTP/1.1\r\nHost: x\r\n")
    try:
        b = s.recv(100)
    except (ConnectionResetError, socket.timeout):
        b = None
    waited = time.time() - t0
    s.close()
    check("a silent client is closed after ConnectionTimeout", b is not None and waited < timeout_s + 10,
          "got %r after %.1f s" % (b, waited))
    # slowloris proper: a byte every half second keeps the connection
    # active, but the request must be whole within RequestTimeout
    t0 = time.time()
    s = socket.create_connection(("127.0.0.1", port), timeout=60)
    closed = False
    try:
        for i in range(200):
            s.sendall(b"GET /sparql HTTP/1.1\r\nHost: x\r\nX-Slow: " if i == 0 else b"a")
            time.sleep(0.5)
    except OSError:
        closed = True
    waited = time.time() - t0
    s.close()
    check("a client trickling its headers is closed after RequestTimeout", closed and waited < request_s + 5,
          "closed %s after %.1f s" % (closed, waited))


def stream_checks(h, port, timeout_s):
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("POST", "/sparql", urllib.parse.urlencode(
        {"query": PFX + "SELECT ?s ?o WHERE { ?s ex:big ?o }"}),
        {"Content-Type": "application/x-www-form-urlencoded", "Accept": "text/tab-separated-values"})
    r = c.getresponse()
    body = r.read().decode()
    lines = body.split("\n")
    check("a %d-row result streams whole, chunked" % BIG,
          r.status == 200 and r.getheader("Transfer-Encoding") == "chunked" and len(lines) == BIG + 2
          and len(set(lines[1:-1])) == BIG,
          "%d %s lines %d" % (r.status, r.getheaders(), len(lines)))
    c.close()
    # gzip: the same bytes, compressed, for a streamed and for a short result
    import gzip
    for q, accept in ((PFX + "SELECT ?s ?o WHERE { ?s ex:big ?o }", "text/tab-separated-values"),
                      (PFX + "SELECT ?s ?n WHERE { ?s ex:name ?n }", "application/sparql-results+json")):
        got = {}
        for enc in ("identity", "gzip;q=0.8, br;q=0.1"):
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            c.request("GET", "/sparql?query=" + urllib.parse.quote(q),
                      headers={"Accept": accept, "Accept-Encoding": enc})
            r = c.getresponse()
            raw_body = r.read()
            got[enc] = (r.status, r.getheader("Content-Encoding"), raw_body)
            c.close()
        plain_st, plain_ce, plain_body = got["identity"]
        gz_st, gz_ce, gz_body = got["gzip;q=0.8, br;q=0.1"]
        try:
            unz = gzip.decompress(gz_body)
        except Exception as ex:  # a body that does not inflate is the failure
            unz = repr(ex).encode()
        check("gzip when asked (%s): the same bytes compressed" % accept,
              plain_st == gz_st == 200 and plain_ce is None and gz_ce == "gzip" and unz == plain_body
              and len(gz_body) < len(plain_body),
              "%s %s %s %d/%d" % (plain_st, gz_st, gz_ce, len(gz_body), len(plain_body)))
    st, hd, body = h.req("GET", "/sparql?query=" + urllib.parse.quote("ASK {}"),
                         headers={"Accept-Encoding": "gzip;q=0, *"})
    check("gzip;q=0 refuses gzip", st == 200 and "content-encoding" not in hd, repr(hd))
    # a client that leaves in the middle of a stream
    for _ in range(3):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        q = urllib.parse.quote(PFX + "SELECT ?s ?o WHERE { ?s ex:big ?o }")
        s.sendall(("GET /sparql?query=%s HTTP/1.1\r\nHost: x\r\nAccept: application/sparql-results+xml\r\n\r\n"
                   % q).encode())
        s.recv(1000)
        s.close()
    st, hd, body = h.get(PFX + "ASK { ex:alice ex:knows ex:bob }")
    check("the server serves after clients left mid-stream", st == 200 and "true" in body, "%d %s" % (st, body))
    # keep-alive: several requests on one connection
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    c.connect()
    sock = c.sock
    oks = 0
    for i in range(6):
        st, hd, body = h.req("GET", "/sparql?query=" + urllib.parse.quote(
            PFX + "SELECT ?n WHERE { ex:dave ex:name ?n }"), conn=c)
        oks += st == 200 and '"Dave"' in body
        if i == 2:  # an error answer keeps the connection too
            st, hd, body = h.req("GET", "/sparql?query=nonsense", conn=c)
            oks += st == 400
    check("keep-alive: 7 answers on one connection", oks == 7 and c.sock is sock, "oks %d" % oks)
    c.close()
    # the streamed path on a keep-alive connection: a big result, then another request
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    st1, _, b1 = h.req("GET", "/sparql?query=" + urllib.parse.quote(PFX + "SELECT ?o WHERE { ?s ex:big ?o }"),
                       headers={"Accept": "text/csv"}, conn=c)
    sock = c.sock
    st2, _, b2 = h.req("GET", "/sparql?query=" + urllib.parse.quote(PFX + "ASK { ex:dave a ex:Robot }"), conn=c)
    check("keep-alive after a chunked result", st1 == 200 and len(b1.split("\r\n")) == BIG + 2
          and st2 == 200 and "true" in b2 and c.sock is sock, "%d %d" % (st1, st2))
    c.close()


def concurrency_checks(h):
    errors = []
    q = PFX + "SELECT ?s ?n WHERE { ?s a ex:Person ; ex:name ?n }"

    def client(k):
        try:
            for i in range(8):
                fmt = FORMATS[(k + i) % 4]
                st, hd, body = h.post_form({"query": q}, fmt[1])
                if st != 200 or len(fmt[2](body, ["s", "n"])[0]) != 3:
                    errors.append("client %d: %d %s" % (k, st, body[:100]))
        except Exception as ex:  # any failure of a client is the test's failure
            errors.append("client %d: %r" % (k, ex))

    ts = [threading.Thread(target=client, args=(k,)) for k in range(12)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    check("12 concurrent clients, 96 queries, all answered right", not errors, "; ".join(errors[:5]))


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the HTTP endpoint is Cadenza's own")
    try:
        import rdflib
    except ImportError:
        return checks.skip("rdflib is not installed (scripts/install-deps.sh)")
    timeout_s = 3
    request_s = 5
    srv, port = sparqlkit.http_server(args, "http", http={"ConnectionTimeout": str(timeout_s),
                                                          "RequestTimeout": str(request_s),
                                                          "MaxBodySize": "64K", "MaxHeaderSize": "32K"},
                                      sparql={"MaxQueryExecutionTime": "10", "AllowUpdate": "authenticated"})
    data = srv.rdfdata
    with open(os.path.join(data, "a.ttl"), "w") as f:
        f.write(TTL)
    with open(os.path.join(data, "b.trig"), "w") as f:
        f.write(TRIG)
    with open(os.path.join(data, "big.nt"), "w") as f:
        for i in range(BIG):
            f.write('<http://example.org/b%d> <http://example.org/big> "%d" .\n' % (i, i))
    ds = rdflib.Dataset(default_union=True)
    ds.parse(data=TTL, format="turtle")
    ds.parse(data=TRIG, format="trig")
    srv.start()
    h = Http(port)
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("SELECT ld_dir(%s, '*')", (data,))
            c.execute("SELECT rdf_loader_run()")
            n = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
            check("the data is loaded", n > BIG, repr(n))
        st, hd, body = h.req("GET", "/")
        check("GET / is the query page", st == 200 and hd.get("content-type", "").startswith("text/html")
              and "<textarea" in body, "%d %s" % (st, hd))
        srcs = re.findall(r'(?:src|href)="([^"]*)"', body)
        check("the page loads nothing from elsewhere (isolated_webpage.py: in a browser)",
              "https://" not in body and srcs and all(u.startswith("/") and not u.startswith("//") for u in srcs),
              repr(srcs))
        st, hd, body = h.req("GET", "/sparql", headers={"Accept": "text/html"})
        check("GET /sparql without a query is the page", st == 200 and "<textarea" in body, "%d" % st)
        protocol_checks(h, ds)
        error_checks(h, port)
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            auth_checks(h, port, srv.password, c)
        malformed_checks(port, timeout_s, request_s)
        stream_checks(h, port, timeout_s)
        concurrency_checks(h)
        t0 = time.time()
        st, hd, body = h.post_form({"query": PFX + "SELECT (COUNT(*) AS ?n) WHERE "
                                    "{ ?a ex:big ?b . ?c ex:big ?d . ?e ex:big ?f }"})
        took = time.time() - t0
        check("MaxQueryExecutionTime stops a runaway query: 503",
              st == 503 and "MaxQueryExecutionTime" in body and 9 < took < 40,
              "%d %s after %.1f s" % (st, body, took))
        st, hd, body = h.get(PFX + "ASK { ex:alice ex:knows ex:bob }")
        check("the endpoint still answers", st == 200 and "true" in body, "%d %s" % (st, body))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            check("SQL still answers", checks.answers(c))
        check("the server is alive", srv.alive())
    finally:
        srv.stop()
    sparqlkit.no_crash_logged(srv)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

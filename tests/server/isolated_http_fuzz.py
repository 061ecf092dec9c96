#!/usr/bin/env python3
"""HTTP robustness of the SPARQL endpoint beyond isolated_http.py (issue 10,
"Tests": many connections at once; a random SPARQL-text fuzzer finds no
crash):

- many connections at once: 3 x MaxClientConnections sockets opened
  together, each sending a query; every one is answered (200, or 503
  when the server is full) or closed, none hangs, and the server answers
  at once afterwards;
- the fuzzer, for --seconds (30 in the default run; `run.sh --only
  httpfuzz` runs it for $CZ_HTTPFUZZ_SECONDS, default 600): queries made
  by mutating the valid queries of tests/sparql/*.test along the grammar
  (half the time a term replaced by another of its kind — variable,
  IRI, literal, function, aggregate, comparison — so that many stay
  valid and reach the compiler and executor; else tokens dropped, repeated, swapped, replaced by other keywords,
  operators, variables, IRIs and literals of the language, brackets
  unbalanced, groups nested deeply, huge numbers and strings, bad
  escapes and UTF-8) and plain random bytes, sent as GET, form POST and
  direct POST, some on keep-alive connections, some with the client
  leaving before the answer. Every request must get a whole HTTP answer
  with a status the protocol allows (200, 400, 406, 413, 414, 415, 431,
  501, 503, or 500 naming a resource limit, SQLSTATE class 53 or 54,
  e.g. 53200 past MaxQueryMem — never another 500 or another code), and the server must serve
  queries and SQL afterwards with no crash in its log. Requests answered
  500 or not at all are written to DIR/http_fuzz/failures.txt.

Usage: isolated_http_fuzz.py --kind cadenza|postgres --binary PATH --dir DIR
       [--seconds N] [--seed N]
"""
import argparse
import glob
import http.client
import os
import random
import re
import socket
import sys
import threading
import time
import urllib.parse

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
import sparqlfile  # noqa: E402
import sparqlkit  # noqa: E402
from checks import check  # noqa: E402

ALLOWED = {200, 400, 406, 413, 414, 415, 431, 501, 503}
MAX_CLIENTS = 30

KEYWORDS = ["SELECT", "DISTINCT", "REDUCED", "WHERE", "OPTIONAL", "UNION", "MINUS", "FILTER", "BIND", "AS",
            "VALUES", "UNDEF", "GRAPH", "FROM", "NAMED", "SERVICE", "SILENT", "EXISTS", "NOT", "IN", "ASK",
            "CONSTRUCT", "DESCRIBE", "ORDER", "BY", "ASC", "DESC", "GROUP", "HAVING", "LIMIT", "OFFSET",
            "COUNT", "SUM", "AVG", "MIN", "MAX", "SAMPLE", "GROUP_CONCAT", "SEPARATOR", "PREFIX", "BASE",
            "a", "true", "false", "STR", "LANG", "REGEX", "REPLACE", "SUBSTR", "CONCAT", "IF", "COALESCE",
            "BNODE", "IRI", "STRDT", "STRLANG", "YEAR", "NOW", "RAND", "MD5", "SHA512", "UUID", "isIRI",
            "sameTerm", "langMatches", "INSERT", "DELETE", "DATA", "LOAD", "CLEAR", "DROP", "DEFINE"]
PUNCT = ["{", "}", "(", ")", "[", "]", ".", ";", ",", "*", "+", "?", "/", "|", "^", "!", "=", "!=", "<", ">",
         "<=", ">=", "&&", "||", "-", "^^", "@en", "#", "\\", "\"", "'", "$x", "?", ":"]
TERMS = ["?s", "?p", "?o", "?x", "?unused", "ex:alice", "ex:knows", "ex:nosuch", "<http://example.org/a>",
         "<>", "<http://[::1", "_:b", "[]", "\"x\"", "\"x\"@en", "\"1\"^^xsd:integer", "\"x\"^^<bad iri>",
         "1", "-0", "1.5", "1e308", "1e-400", "99999999999999999999999999999999999999",
         "\"\\u0000\"", "\"\\uD800\"", "'''a\nb'''", "\"é\"", "nope:x", "xsd:integer", "()"]
# replacements of the same kind keep a query valid more often, so that it
# reaches the compiler and the executor, not only the parser
SAME_KIND = [
    (re.compile(r"^[?$]\w+$"), ["?s", "?p", "?o", "?x", "?y", "?n", "?a", "?unbound"]),
    (re.compile(r"^(ex:\w*|<http[^>]*>)$"), ["ex:alice", "ex:bob", "ex:knows", "ex:name", "ex:age", "ex:g1",
                                              "ex:nosuch", "<http://example.org/carol>", "ex:likes"]),
    (re.compile(r'^(".*"|\d[\d.eE+-]*)$'), ['"Alice"', '""', '"x"@en', "0", "-1", "42", "30.5", "1e0", "true",
                                            '"2020-01-01"^^xsd:date', '"abc"^^xsd:integer']),
    (re.compile(r"^(STR|LANG|UCASE|LCASE|STRLEN|ABS|CEIL|FLOOR|ROUND|isIRI|isLiteral|isBlank|BOUND|"
                r"DATATYPE|MD5|SHA1|YEAR|isNumeric)$", re.I),
     ["STR", "LANG", "UCASE", "STRLEN", "ABS", "ROUND", "isIRI", "isLiteral", "BOUND", "DATATYPE", "MD5",
      "YEAR", "isNumeric", "ENCODE_FOR_URI", "BNODE", "IRI"]),
    (re.compile(r"^(COUNT|SUM|AVG|MIN|MAX|SAMPLE)$", re.I), ["COUNT", "SUM", "AVG", "MIN", "MAX", "SAMPLE"]),
    (re.compile(r"^(=|!=|<|>|<=|>=)$"), ["=", "!=", "<", ">", "<=", ">="]),
    (re.compile(r"^(OPTIONAL|MINUS)$"), ["OPTIONAL", "MINUS"]),
    (re.compile(r"^(ASC|DESC)$"), ["ASC", "DESC"]),
]
TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|<[^>\s]*>|[?$]\w+|\w+:\w*|\w+|&&|\|\||[!<>]=|\^\^|\S')


def seed_queries():
    """The queries of tests/sparql/*.test (prologue included)."""
    out = []
    for path in sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sparql",
                                              "*.test"))):
        for rec in sparqlfile.read_file(path):
            if rec.kind in ("query", "error"):
                out.append(rec.text)
    return out or ["SELECT * WHERE { ?s ?p ?o }"]


def mutate(rng, q):
    """A query changed along the grammar, one to four times."""
    toks = TOKEN.findall(q)
    for _ in range(rng.choice([1, 1, 1, 2, 3, 4])):
        if not toks:
            toks = [rng.choice(KEYWORDS)]
        i = rng.randrange(len(toks))
        if rng.random() < 0.5:
            kinds = [alts for pat, alts in SAME_KIND if pat.match(toks[i])]
            if kinds:
                toks[i] = rng.choice(kinds[0])
                continue
        op = rng.randrange(10)
        if op == 0:
            del toks[i]
        elif op == 1:
            toks.insert(i, toks[i])
        elif op == 2:
            j = rng.randrange(len(toks))
            toks[i], toks[j] = toks[j], toks[i]
        elif op == 3:
            toks[i] = rng.choice(KEYWORDS)
        elif op == 4:
            toks[i] = rng.choice(PUNCT)
        elif op == 5:
            toks[i] = rng.choice(TERMS)
        elif op == 6:  # deep nesting around one token
            n = rng.choice([10, 100, 2000])
            br = rng.choice([("{", "}"), ("(", ")"), ("[", "]")])
            toks[i] = br[0] * n + toks[i] + br[1] * n
        elif op == 7:  # a long run of one token
            toks.insert(i, " ".join([rng.choice(TERMS + PUNCT)] * rng.choice([50, 1000, 20000])))
        elif op == 8:  # cut the text short
            toks = toks[:i]
        else:  # a token of another query's
            toks.insert(i, rng.choice(TOKEN.findall(rng.choice(SEEDS)) or ["?x"]))
    return " ".join(toks)


def random_bytes(rng):
    n = rng.choice([1, 10, 100, 5000])
    return bytes(rng.randrange(256) for _ in range(n))


def one_request(rng, port, body, keep):
    """Sends body as a query one of three ways; the status, or None when
    the server closed without a whole answer."""
    how = rng.randrange(3)
    c = keep or http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        if how == 0:
            q = urllib.parse.quote(body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass"))
            c.request("GET", "/sparql?query=" + q)
        elif how == 1:
            raw = body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass")
            c.request("POST", "/sparql", b"query=" + urllib.parse.quote_from_bytes(raw).encode(),
                      {"Content-Type": "application/x-www-form-urlencoded"})
        else:
            c.request("POST", "/sparql", body if isinstance(body, bytes) else
                      body.encode("utf-8", "surrogatepass"), {"Content-Type": "application/sparql-query"})
        r = c.getresponse()
        answer = r.read()
        if r.status == 500 and re.match(rb"5[34][0-9A-Z]{3}: ", answer):
            return "500 (%s)" % answer[:5].decode()  # a resource limit, named
        if r.status not in ALLOWED:
            LAST_ANSWER[0] = answer[:300]
        return r.status
    except (http.client.HTTPException, OSError):
        return None
    finally:
        if keep is None:
            c.close()


def fuzz(port, seconds, seed, folder):
    rng = random.Random(seed)
    t_end = time.time() + seconds
    n = 0
    statuses = {}
    bad = []
    keep = None
    while time.time() < t_end:
        if rng.random() < 0.1:
            body = random_bytes(rng)
        else:
            body = mutate(rng, rng.choice(SEEDS))
        if rng.random() < 0.05:  # a client that leaves before the answer
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=5)
                q = urllib.parse.quote(body if isinstance(body, bytes) else body.encode("utf-8", "surrogatepass"))
                s.sendall(("GET /sparql?query=%s HTTP/1.1\r\nHost: x\r\n\r\n" % q).encode())
                s.close()
            except OSError:
                pass
            continue
        if keep is None and rng.random() < 0.3:
            keep = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        st = one_request(rng, port, body, keep)
        if keep is not None and st is None:
            # the server may close a keep-alive connection after an
            # error: the request again on a fresh one must be answered
            keep.close()
            keep = None
            st = one_request(rng, port, body, None)
        elif keep is not None and rng.random() < 0.1:
            keep.close()
            keep = None
        n += 1
        statuses[st] = statuses.get(st, 0) + 1
        if st not in ALLOWED and not str(st).startswith("500 (5"):
            bad.append((st, body, LAST_ANSWER[0] if st else b""))
    if keep is not None:
        keep.close()
    with open(os.path.join(folder, "failures.txt"), "w") as f:
        for st, body, answer in bad:
            f.write("%s\t%r\t%r\n" % (st, body, answer))
    return n, statuses, bad


def many_connections(port, n):
    """n sockets opened at once, each sending a query: the statuses (None
    for a close without an answer), and the number still waiting after
    60 s."""
    q = urllib.parse.quote("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    socks = []
    for _ in range(n):
        try:
            socks.append(socket.create_connection(("127.0.0.1", port), timeout=60))
        except OSError:
            socks.append(None)
    results = [None] * n
    done = [False] * n

    def talk(i):
        s = socks[i]
        if s is None:
            done[i] = True
            return
        try:
            s.sendall(("GET /sparql?query=%s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % q).encode())
            got = b""
            while True:
                b = s.recv(65536)
                if not b:
                    break
                got += b
            m = re.match(rb"HTTP/1\.[01] (\d{3})", got)
            results[i] = int(m.group(1)) if m else None
        except OSError:
            results[i] = None
        finally:
            s.close()
            done[i] = True

    ts = [threading.Thread(target=talk, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    return results, sum(1 for d in done if not d)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    if args.kind != "cadenza":
        return checks.skip("the HTTP endpoint is Cadenza's own")
    seed = args.seed if args.seed is not None else random.randrange(1 << 30)
    print("seed %d (--seed %d repeats the requests, not their timing)" % (seed, seed))
    global SEEDS
    SEEDS = seed_queries()
    srv, port = sparqlkit.http_server(args, "http_fuzz", http={"MaxClientConnections": str(MAX_CLIENTS),
                                                               "ConnectionTimeout": "5", "RequestTimeout": "10",
                                                               "MaxBodySize": "1M"},
                                      sparql={"MaxQueryExecutionTime": "5"}, params={"MaxQueryMem": "64M"})
    with checks.running(srv):
        with psycopg.connect(srv.dsn(), autocommit=True) as conn:
            sparqlkit.load_files(conn, srv.rdfdata, {"fuzz.trig": FUZZ_DATA})
        h = sparqlkit.Http(port)
        results, waiting = many_connections(port, 3 * MAX_CLIENTS)
        counts = {}
        for r in results:
            counts[r] = counts.get(r, 0) + 1
        check("%d connections at once: each answered 200 or 503, or closed; none left hanging (%s)"
              % (3 * MAX_CLIENTS, counts), waiting == 0 and set(counts) <= {200, 503, None}
              and counts.get(200, 0) > 0, "%d waiting, %r" % (waiting, counts))
        st, hd, body = h.get("ASK { ?s ?p ?o }")
        check("the endpoint answers right after", st == 200 and "true" in body, "%d %s" % (st, body[:200]))
        n, statuses, bad = fuzz(port, args.seconds, seed, srv.folder)
        print("fuzzer: %d requests in %.0f s, statuses %s" % (n, args.seconds, sorted(
            statuses.items(), key=lambda kv: str(kv[0]))))
        check("fuzzer: every one of %d requests answered with an allowed status" % n, not bad,
              "%d not: %s (all in %s)" % (len(bad), "; ".join("%s %r: %r" % (s, b[:150], a)
                                                             for s, b, a in bad[:5]),
                                         os.path.join(srv.folder, "failures.txt")))
        check("fuzzer: some mutated queries were valid (200) and some refused (400)",
              statuses.get(200, 0) > 0 and statuses.get(400, 0) > 0, repr(statuses))
        st, hd, body = h.get("PREFIX ex: <http://example.org/> ASK { ex:alice ex:knows ex:bob }")
        check("the endpoint still answers", st == 200 and "true" in body, "%d %s" % (st, body[:200]))
        with psycopg.connect(srv.dsn(), autocommit=True) as conn:
            check("SQL still answers", checks.answers(conn))
        check("the server is alive", srv.alive())
    sparqlkit.no_crash_logged(srv)
    return checks.summary()


FUZZ_DATA = """@prefix ex: <http://example.org/> .
ex:alice a ex:Person ; ex:name "Alice" ; ex:age 42 ; ex:knows ex:bob, ex:carol .
ex:bob a ex:Person ; ex:name "Bob"@en ; ex:age 17 ; ex:knows ex:carol .
ex:carol a ex:Person ; ex:name "Carol" ; ex:age 30.5 ; ex:next ex:alice .
ex:g1 { ex:alice ex:likes ex:tea . ex:tea ex:likes ex:milk . }
"""
SEEDS = []
LAST_ANSWER = [b""]

if __name__ == "__main__":
    sys.exit(main())

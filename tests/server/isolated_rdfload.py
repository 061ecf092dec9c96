#!/usr/bin/env python3
"""The RDF store's tables and bulk loader (issue 10, items 1-2): ld_dir and
rdf_loader_run through SQL on a server whose DirsAllowed holds a data
folder of its own and a slice of ../shared/data's LUBM(10).

Checks: the store's tables exist in a new database; files of every syntax
(N-Triples, N-Quads gzip, Turtle with relative IRIs, TriG) load, each
triple once; each syntax plain and gzip loads whole, and malformed at
line 4 names file and line and leaves none of its triples, as does a
truncated gzip stream (format_checks); the quads decode back (rdf_term, and a plain SQL join over
rdf_quad, rdf_iri and rdf_prefix) to exactly the N-Triples written; W3C SPARQL test data (Turtle) decodes to
graphs isomorphic to rdflib's reading of the same files;
a malformed file stops with file and line in rdf_load_list and leaves no
triple, or with skip mode loses only its bad line; paths outside
DirsAllowed and non-superusers get 42501; four loaders in parallel take
different files and give one id per term; after kill -9 and a restart
everything committed is there, decodes the same, and new terms get new
ids.

Usage: isolated_rdfload.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import gzip
import os
import subprocess
import sys
import threading

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SHARED = os.environ.get("CZ_SHARED") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared"))
LUBM = os.path.join(SHARED, "data", "lubm10", "lubm10.nt.gz")
W3C = os.path.join(SHARED, "data", "w3c-sparql", "sparql11")
W3C_DIRS = ("functions", "aggregates", "property-path")
EX = "http://example.org/"
LONG = "x" * 1500
BIG = 150000  # lines of the file a kill -9 interrupts (several seconds of loading)

# Canonical N-Triples (what the decoder writes back): IRIs, blank nodes,
# plain, language-tagged, typed, inline (integer, decimal, double, boolean,
# date, dateTime) and non-canonical literals, a long literal and a long IRI.
XSD = "http://www.w3.org/2001/XMLSchema#"
A_NT = [l.replace("EX/", EX).replace("XSD/", XSD) for l in [
    '<EX/a> <EX/p> <EX/b> .',
    '<EX/a> <EX/name> "Alice" .',
    '<EX/a> <EX/name> "Alicia"@es .',
    '<EX/a> <EX/age> "42"^^<XSD/integer> .',
    '<EX/a> <EX/age> "042"^^<XSD/integer> .',
    '<EX/a> <EX/h> "1.5"^^<XSD/decimal> .',
    '<EX/a> <EX/h> "1.5E0"^^<XSD/double> .',
    '<EX/a> <EX/ok> "true"^^<XSD/boolean> .',
    '<EX/a> <EX/d> "2024-02-29"^^<XSD/date> .',
    '<EX/a> <EX/d> "2024-02-29T10:00:00Z"^^<XSD/dateTime> .',
    '<EX/a> <EX/t> "odd"^^<EX/dt> .',
    '<EX/a> <EX/q> "say \\"hi\\"\\nthere" .',
    '<EX/a> <EX/long> "' + LONG + '" .',
    '<EX/a> <EX/long> <EX/' + "i" * 1200 + '> .',
]]
BAD_NT = [l.replace("EX/", EX) for l in [
    '<EX/bad1> <EX/p> <EX/b> .',
    '<EX/bad2> <EX/p> <EX/b> .',
    '<EX/bad3> <EX/p> "unterminated .',
    '<EX/bad4> <EX/p> <EX/b> .',
]]


def write(path, lines, gz=False):
    data = ("\n".join(lines) + "\n").encode()
    with (gzip.open(path, "wb") if gz else open(path, "wb")) as f:
        f.write(data)


def graph_nt(c, graph):
    """The triples of graph (an IRI) as N-Triples lines, through rdf_term."""
    rows = c.execute(
        "SELECT rdf_term(s) || ' ' || rdf_term(p) || ' ' || rdf_term(o) || ' .' FROM pg_rdf.rdf_quad"
        " WHERE g = (SELECT i.id FROM pg_rdf.rdf_iri i JOIN pg_rdf.rdf_prefix x ON x.id = i.prefix"
        "            WHERE x.ns || i.local = %s)", (graph,)).fetchall()
    return [r[0] for r in rows]


def load_list(c):
    return {r[0]: r[1:] for r in c.execute(
        "SELECT ll_file, ll_state, ll_error, ll_triples, ll_bad FROM pg_rdf.rdf_load_list")}


# Every syntax, plain and gzip, well-formed and malformed at line 4 (after
# three good triples): (extension, good lines, bad line, triples of the
# good file). FG in N-Quads / TriG lines is a graph of the file's own
# (the same quad in two files is stored once).
FORMATS = [
    ("nt", ['<%sfa> <%sp> "1" .' % (EX, EX), '<%sfb> <%sp> _:x .' % (EX, EX),
            '<%sfc> <%sp> "c"@en .' % (EX, EX), '<%sfd> <%sp> <%sfa> .' % (EX, EX, EX)],
     '<%sfd> <%sp> <%sfa .' % (EX, EX, EX), 4),
    ("nq", ['<%sfa> <%sp> "1" <FG> .' % (EX, EX), '<%sfb> <%sp> _:x <FG> .' % (EX, EX),
            '<%sfc> <%sp> "c"@en .' % (EX, EX), '<%sfd> <%sp> <%sfa> <FG> .' % (EX, EX, EX)],
     '<%sfd> <%sp> <%sfa> <FG> <%sfh> .' % (EX, EX, EX, EX), 4),
    ("ttl", ['@prefix ex: <%s> .' % EX, 'ex:fa ex:p "1" ;', '  ex:q ex:fb , [ ex:r 2 ] .',
             'ex:fc ex:p """multi\nline""" .'],
     'ex:fd ex:p ex:fa ex:fb .', 5),
    ("trig", ['@prefix ex: <%s> .' % EX, '<FG> { ex:fa ex:p "1" . ex:fb ex:p _:x . }', 'ex:fc ex:p 1.5 .',
              '{ ex:fd ex:p ex:fa . }'],
     '<FG> { ex:fd ex:p . }', 4),
]


def format_checks(c, data):
    """Each syntax plain and gzip: the good file loads whole; the file with a
    malformed line 4 stops with its file and line named and leaves none of
    its triples; a truncated gzip stream is an error too."""
    folder = os.path.join(data, "formats")
    os.makedirs(folder)
    for ext, good, bad, triples in FORMATS:
        for gz in (False, True):
            name = "f_%s.%s%s" % ("gz" if gz else "plain", ext, ".gz" if gz else "")
            for prefix, lines in (("good_", good), ("bad_", good[:3] + [bad] + good[3:])):
                own = "<%sfmt/%s%s/g>" % (EX, prefix, name)
                write(os.path.join(folder, prefix + name), [x.replace("<FG>", own) for x in lines], gz=gz)
    for prefix in ("good_", "bad_"):
        for ext, good, bad, triples in FORMATS:
            for gz in (False, True):
                name = prefix + "f_%s.%s%s" % ("gz" if gz else "plain", ext, ".gz" if gz else "")
                path = os.path.join(folder, name)
                graph = EX + "fmt/" + name
                before = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
                c.execute("SELECT ld_dir(%s, %s, %s)", (folder, name, graph))
                c.execute("SELECT rdf_loader_run()")
                row = load_list(c).get(path)
                after = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
                if prefix == "good_":
                    check("%s loads: %d triples" % (name, triples),
                          row is not None and row[0] == 2 and row[1] is None and row[2] == triples
                          and after - before == triples, "%r, %d quads added" % (row, after - before))
                else:
                    check("%s: the error names the file and line 4, no quad of it committed" % name,
                          row is not None and row[0] == 2 and row[1] and "%s:4:" % name in row[1]
                          and after == before, "%r, %d quads added" % (row, after - before))
    # a gzip stream cut in the middle: an error, nothing of it
    with open(os.path.join(folder, "good_f_gz.nt.gz"), "rb") as f:
        whole = f.read()
    cut = gzip.compress(("\n".join('<%scut%d> <%sp> "%d" .' % (EX, i, EX, i) for i in range(20000)) + "\n")
                        .encode())
    with open(os.path.join(folder, "cut.nt.gz"), "wb") as f:
        f.write(cut[:len(cut) // 2])
    before = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
    c.execute("SELECT ld_dir(%s, 'cut.nt.gz', %s)", (folder, EX + "fmt/cut"))
    c.execute("SELECT rdf_loader_run()")
    row = load_list(c).get(os.path.join(folder, "cut.nt.gz"))
    after = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
    check("a truncated gzip file: an error naming it, no quad of it committed",
          row is not None and row[0] == 2 and row[1] and "cut.nt.gz" in row[1] and after == before and whole,
          "%r, %d quads added" % (row, after - before))


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the RDF store is Cadenza's own")
    base = os.path.abspath(os.path.join(args.dir, "rdfload"))
    srv = checks.isolated_server(args, "rdfload", buffers=8000)
    data = os.path.join(srv.folder, "rdfdata")
    srv.extra_ini = {"Parameters": {"DirsAllowed": "%s, %s" % (data, W3C)}}
    os.makedirs(os.path.join(data, "one"))
    os.makedirs(os.path.join(data, "bad"))
    os.makedirs(os.path.join(data, "par"))
    os.makedirs(os.path.join(data, "lubm"))
    write(os.path.join(data, "one", "a.nt"), A_NT)
    write(os.path.join(data, "one", "q.nq.gz"),
          ['<%sq1> <%sp> "in g2" <%sg2> .' % (EX, EX, EX),
           '_:n1 <%sp> _:n2 <%sg2> .' % (EX, EX)], gz=True)
    write(os.path.join(data, "one", "r.ttl"),
          ['@prefix ex: <%s> .' % EX, '<> ex:p ex:b .', '<x> ex:p "rel" .'])
    write(os.path.join(data, "one", "t.trig"),
          ['@prefix ex: <%s> .' % EX, 'ex:g3 { ex:t1 ex:p 7 . }'])
    write(os.path.join(data, "bad", "stop.nt"), BAD_NT)
    write(os.path.join(data, "bad", "skip.nt"), [l.replace("bad", "skp") for l in BAD_NT])
    # four files sharing most of their terms, for parallel loaders
    par = set()
    for f in range(8):
        lines = ['<%ss%d> <%sp%d> <%so%d> .' % (EX, (i * 7 + f) % 300, EX, i % 5, EX, i % 40)
                 for i in range(3000)]
        par.update(lines)
        write(os.path.join(data, "par", "p%d.nt" % f), lines)
    lubm_lines = []
    with gzip.open(LUBM, "rt") as f:
        for line in f:
            if len(lubm_lines) >= 20000:
                break
            if not line.startswith("<>"):
                lubm_lines.append(line.rstrip("\n"))
    write(os.path.join(data, "lubm", "part.nt.gz"), lubm_lines, gz=True)

    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            n = c.execute("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                          " WHERE nspname = 'pg_rdf' AND relname IN ('rdf_quad', 'rdf_iri',"
                          " 'rdf_prefix', 'rdf_literal', 'rdf_quad_sp', 'rdf_quad_op',"
                          " 'rdf_quad_gs', 'rdf_load_list', 'rdf_quad_pogs')").fetchone()[0]
            check("the store's tables are made with the database", n == 9, repr(n))
            check("rdf_quad starts empty",
                  c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0] == 0)

            added = c.execute("SELECT ld_dir(%s, '*', %s)",
                              (os.path.join(data, "one"), EX + "g1")).fetchone()[0]
            check("ld_dir lists the four files", added == 4, repr(added))
            again = c.execute("SELECT ld_dir(%s, '*', %s)",
                              (os.path.join(data, "one"), EX + "g1")).fetchone()[0]
            check("ld_dir lists a file once", again == 0, repr(again))
            files = c.execute("SELECT rdf_loader_run()").fetchone()[0]
            check("rdf_loader_run takes the waiting files", files == 4, repr(files))
            ll = load_list(c)
            a_row = ll.get(os.path.join(data, "one", "a.nt"))
            check("a.nt done, no error, its triples counted",
                  a_row == (2, None, len(A_NT), 0), repr(a_row))
            bad_states = {k: v for k, v in ll.items() if v[0] != 2 or v[1]}
            check("every file of one/ done without error", not bad_states, repr(bad_states))

            got = sorted(graph_nt(c, EX + "g1"))
            want = sorted(A_NT + ['<file://%s/one/r.ttl> <%sp> <%sb> .' % (data, EX, EX),
                                  '<file://%s/one/x> <%sp> "rel" .' % (data, EX)])
            check("graph g1 decodes to exactly the N-Triples loaded (rdf_term)", got == want,
                  "missing %r extra %r" % (sorted(set(want) - set(got))[:3],
                                           sorted(set(got) - set(want))[:3]))
            g2 = sorted(graph_nt(c, EX + "g2"))
            check("N-Quads (gzip) keep their graph, blank nodes two distinct ones",
                  len(g2) == 2 and g2[1].startswith("_:") and
                  g2[1].split()[0] != g2[1].split()[2], repr(g2))
            g3 = graph_nt(c, EX + "g3")
            check("TriG graph blocks, inline integers",
                  g3 == ['<%st1> <%sp> "7"^^<http://www.w3.org/2001/XMLSchema#integer> .'
                         % (EX, EX)], repr(g3))
            joined = sorted(r[0] for r in c.execute(
                "SELECT x.ns || i.local FROM pg_rdf.rdf_quad q JOIN pg_rdf.rdf_iri i ON i.id = q.s"
                " JOIN pg_rdf.rdf_prefix x ON x.id = i.prefix"
                " WHERE q.p = (SELECT i2.id FROM pg_rdf.rdf_iri i2 JOIN pg_rdf.rdf_prefix x2"
                "              ON x2.id = i2.prefix WHERE x2.ns || i2.local = %s)",
                (EX + "name",)))
            check("a plain SQL join over the dictionaries names the subjects",
                  joined == [EX + "a", EX + "a"], repr(joined))
            lit = c.execute("SELECT count(*) FROM pg_rdf.rdf_literal WHERE lex = 'Alicia'"
                            " AND lang = 'es'").fetchone()[0]
            check("language-tagged literals in rdf_literal", lit == 1, repr(lit))
            inl = c.execute("SELECT count(*) FROM pg_rdf.rdf_literal WHERE lex IN ('42', 'true',"
                            " '2024-02-29')").fetchone()[0]
            check("inline values never reach the literal dictionary", inl == 0, repr(inl))
            proj = c.execute(
                "SELECT (SELECT count(*) FROM (SELECT DISTINCT s, p FROM pg_rdf.rdf_quad) d),"
                " (SELECT count(*) FROM pg_rdf.rdf_quad_sp),"
                " (SELECT count(*) FROM (SELECT DISTINCT o, p FROM pg_rdf.rdf_quad) d),"
                " (SELECT count(*) FROM pg_rdf.rdf_quad_op),"
                " (SELECT count(*) FROM (SELECT DISTINCT g, s FROM pg_rdf.rdf_quad) d),"
                " (SELECT count(*) FROM pg_rdf.rdf_quad_gs)").fetchone()
            check("the projections hold the distinct pairs",
                  proj[0] == proj[1] and proj[2] == proj[3] and proj[4] == proj[5], repr(proj))

            format_checks(c, data)
            # malformed input: stop mode, then skip mode
            c.execute("SELECT ld_dir(%s, 'stop.nt', %s)", (os.path.join(data, "bad"), EX + "gb"))
            c.execute("SELECT rdf_loader_run()")
            row = load_list(c)[os.path.join(data, "bad", "stop.nt")]
            check("a malformed line stops its file: error names file and line 3",
                  row[0] == 2 and row[1] and "22P02" in row[1] and "stop.nt:3:" in row[1] and
                  row[2] == 0, repr(row))
            n = c.execute("SELECT count(*) FROM pg_rdf.rdf_iri WHERE local IN ('bad1', 'bad2')"
                          " AND id IN (SELECT s FROM pg_rdf.rdf_quad)").fetchone()[0]
            check("nothing of the stopped file is in rdf_quad", n == 0, repr(n))
            c.execute("SELECT ld_dir(%s, 'skip.nt', %s)", (os.path.join(data, "bad"), EX + "gs"))
            c.execute("SELECT rdf_loader_run(true)")
            row = load_list(c)[os.path.join(data, "bad", "skip.nt")]
            check("skip mode: the file loads without its bad line (ll_bad 1)",
                  row[0] == 2 and row[1] is None and row[2] == 3 and row[3] == 1, repr(row))

            # the file gate
            for sql, what in (("SELECT ld_dir('/etc', '*', NULL)", "outside DirsAllowed"),
                              ("SELECT ld_dir('relative/dir', '*', NULL)", "a relative path")):
                st = checks.state(c, sql)
                check("ld_dir of %s is refused" % what, st[0] in ("42501", "42602"), repr(st))
            c.execute("CREATE USER rl_user PASSWORD 'pw'")
            os.makedirs(os.path.join(data, "wait"))
            write(os.path.join(data, "wait", "w.nt"), A_NT[:1])
            c.execute("SELECT ld_dir(%s, '*', %s)", (os.path.join(data, "wait"), EX + "gw"))
        with psycopg.connect(srv.dsn(user="rl_user", password="pw"), autocommit=True) as u:
            st = checks.state(u, "SELECT ld_dir(%r, '*', NULL)" % os.path.join(data, "one"))
            check("ld_dir by a user who is not a superuser: 42501", st[0] == "42501", repr(st))
            st = checks.state(u, "SELECT rdf_loader_run()")
            check("rdf_loader_run by a user who is not a superuser: 42501", st[0] == "42501",
                  repr(st))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            waiting = c.execute("SELECT count(*) FROM pg_rdf.rdf_load_list WHERE ll_state = 0"
                                ).fetchone()[0]
            check("... and the waiting file stays waiting", waiting == 1, repr(waiting))
        with psycopg.connect(srv.dsn(user="rl_user", password="pw"), autocommit=True) as u:
            st = checks.state(u, "SELECT rdf_term(s) FROM (VALUES (1::int8)) v(s)")
            check("rdf_term without SELECT on the dictionaries: 42501", st[0] == "42501",
                  repr(st))

        # W3C test data (Turtle: manifests and data files), each file in a
        # graph of its own, compared with rdflib's reading of the same file
        import rdflib
        from rdflib.compare import isomorphic
        w3c_files = sorted(os.path.join(W3C, d, f) for d in W3C_DIRS
                           for f in os.listdir(os.path.join(W3C, d)) if f.endswith(".ttl"))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for i, path in enumerate(w3c_files):
                c.execute("SELECT ld_dir(%s, %s, %s)", (os.path.dirname(path),
                                                        os.path.basename(path), EX + "w%d" % i))
            c.execute("SELECT rdf_loader_run()")
            ll = load_list(c)
            differ = []
            for i, path in enumerate(w3c_files):
                row = ll.get(os.path.realpath(path))
                ref = rdflib.Graph()
                try:
                    ref.parse(path, format="turtle", publicID="file://" + os.path.realpath(path))
                except Exception:  # noqa: BLE001 - a file rdflib refuses: we must refuse it too
                    ref = None
                if ref is None:
                    if not row or not row[1]:
                        differ.append("%s: rdflib refuses it, we loaded it" % path)
                    continue
                # RDF 1.1: "a"^^xsd:string is the simple literal "a" (rdflib
                # keeps the datatype; the store writes the one term as "a")
                norm = rdflib.Graph()
                for t in ref:
                    norm.add(tuple(rdflib.Literal(str(x)) if isinstance(x, rdflib.Literal) and
                                   x.datatype == rdflib.XSD.string else x for x in t))
                ref = norm
                ours = rdflib.Graph()
                ours.parse(data="\n".join(graph_nt(c, EX + "w%d" % i)) + "\n", format="nt")
                if not row or row[1] or row[2] != len(ref) or not isomorphic(ours, ref):
                    differ.append("%s: %r, %d triples, rdflib %d" % (path, row, len(ours), len(ref)))
            check("%d W3C Turtle files: each graph isomorphic to rdflib's reading" % len(w3c_files),
                  len(w3c_files) > 20 and not differ, "; ".join(differ[:4]))

        # parallel loaders over files sharing their terms
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("SELECT ld_dir(%s, '*.nt', %s)", (os.path.join(data, "par"), EX + "gp"))
            c.execute("SELECT ld_dir(%s, '*', %s)", (os.path.join(data, "lubm"), EX + "lubm"))
        took, errs = [], []

        def loader():
            try:
                with psycopg.connect(srv.dsn(), autocommit=True) as lc:
                    took.append(lc.execute("SELECT rdf_loader_run()").fetchone()[0])
            except Exception as ex:  # noqa: BLE001 - reported as a check
                errs.append(repr(ex))
        ts = [threading.Thread(target=loader) for _ in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        check("four parallel loaders take the 9 files between them, each once",
              not errs and sum(took) == 9, "took %r errors %r" % (took, errs))
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            ll = load_list(c)
            bad = {k: v for k, v in ll.items() if "/par/" in k and (v[0] != 2 or v[1])}
            check("every parallel file done without error", not bad, repr(bad))
            got = set(graph_nt(c, EX + "gp"))
            check("the parallel graph holds each distinct triple once",
                  got == par and len(graph_nt(c, EX + "gp")) == len(par),
                  "%d of %d" % (len(got), len(par)))
            dup = c.execute("SELECT count(*) FROM (SELECT prefix, local FROM pg_rdf.rdf_iri"
                            " GROUP BY prefix, local HAVING count(*) > 1) d").fetchone()[0]
            check("one id per IRI after concurrent encoding", dup == 0, repr(dup))
            lubm = graph_nt(c, EX + "lubm")
            check("the LUBM(10) slice: every distinct triple, decoded as written",
                  len(lubm) == len(set(lubm_lines)) and set(lubm) == set(lubm_lines),
                  "%d of %d" % (len(lubm), len(set(lubm_lines))))
            before = c.execute("SELECT count(*), max(id) FROM pg_rdf.rdf_iri").fetchone()
            nquads = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
            g1 = sorted(graph_nt(c, EX + "g1"))

        # kill -9 in the middle of a load, restart: everything committed is
        # there, nothing of the interrupted file, which waits again
        big = os.path.join(data, "big")
        os.makedirs(big)
        write(os.path.join(big, "big.nt"),
              ['<%sk%d> <%sp%d> "v%d" .' % (EX, i, EX, i % 7, i) for i in range(BIG)])
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("SELECT ld_dir(%s, '*', %s)", (big, EX + "gk"))
        bt = threading.Thread(target=loader)
        bt.start()
        seen = 0
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for _ in range(600):
                seen = c.execute("SELECT ll_triples FROM pg_rdf.rdf_load_list WHERE ll_file = %s",
                                 (os.path.join(big, "big.nt"),)).fetchone()[0]
                if seen > 0:
                    break
                threading.Event().wait(0.05)
        check("the load list shows progress while a file loads", 0 < seen < BIG, repr(seen))
        srv.kill9()
        bt.join()
        srv.start()
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            after = c.execute("SELECT count(*), max(id) FROM pg_rdf.rdf_iri").fetchone()
            n2 = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
            check("after kill -9 mid-load: every committed quad, none of the interrupted file",
                  n2 == nquads, "%r before, %r after" % (nquads, n2))
            check("after kill -9: the dictionaries kept every committed entry",
                  after[0] >= before[0] and after[1] >= before[1], "%r / %r" % (before, after))
            row = load_list(c)[os.path.join(big, "big.nt")]
            check("the interrupted file waits again (state 0, no triples)",
                  row[0] == 0 and row[2] == 0, repr(row))
            c.execute("SELECT rdf_loader_run()")
            row = load_list(c)[os.path.join(big, "big.nt")]
            nk = len(graph_nt(c, EX + "gk"))
            check("the interrupted file then loads in full",
                  row[0] == 2 and row[1] is None and row[2] == BIG and nk == BIG,
                  "%r, %d quads" % (row, nk))
            check("after kill -9: graph g1 decodes the same", sorted(graph_nt(c, EX + "g1")) == g1)
            write(os.path.join(data, "one", "new.nt"), ['<%snewterm> <%sp> "n" .' % (EX, EX)])
            c.execute("SELECT ld_dir(%s, 'new.nt', %s)", (os.path.join(data, "one"), EX + "g1"))
            c.execute("SELECT rdf_loader_run()")
            nid = c.execute("SELECT i.id FROM pg_rdf.rdf_iri i WHERE local = 'newterm'").fetchone()
            check("a new term after the restart gets a new id", nid and nid[0] > after[1],
                  "%r after %r" % (nid, after))
        # the command-line form with its progress display
        cli = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.binary))),
                           "rdf-load", "rdf-load")
        cdir = os.path.join(data, "cli")
        os.makedirs(cdir)
        for i in range(3):
            write(os.path.join(cdir, "c%d.nt" % i), ['<%sc%d> <%sp> "%d" .' % (EX, i, EX, j)
                                                     for j in range(100)])
        write(os.path.join(cdir, "zbad.nt"), BAD_NT)
        env = dict(os.environ, **{k: v for k, v in srv.env().items() if k.startswith("PG")})
        r = subprocess.run([cli, "-j", "2", "-g", EX + "gc", cdir], env=env,
                           capture_output=True, text=True, timeout=300)
        last = r.stdout.replace("\r", "\n").strip().splitlines()[-1] if r.stdout.strip() else ""
        check("rdf-load: 300 triples, files 4/4 done, the bad one failed, exit 1",
              r.returncode == 1 and last.startswith("300 triples,") and
              "files 4/4 done (1 failed)" in last and "zbad.nt:3:" in r.stderr,
              "rc %d out %r err %r" % (r.returncode, last, r.stderr[-300:]))
    finally:
        srv.stop()
    column_layout(args, data, lubm_lines)
    del base
    return checks.summary()


def column_layout(args, data, lubm_lines):
    """[SPARQL] QuadLayout = column: rdf_quad's trees (PSOG, POGS) and the
    projections are column trees; the same files load to the same quads, read back by
    scans and joins of rdf_quad and its projections."""
    srv = checks.isolated_server(args, "rdfload_column", buffers=8000, extra_ini={
        "Parameters": {"DirsAllowed": data}, "SPARQL": {"QuadLayout": "column"}})
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            opts = c.execute("SELECT c.relname, c.reloptions FROM pg_class c"
                             " JOIN pg_namespace n ON n.oid = c.relnamespace"
                             " WHERE nspname = 'pg_rdf' AND relname IN ('rdf_quad', 'rdf_quad_pogs',"
                             " 'rdf_quad_sp', 'rdf_iri') ORDER BY 1").fetchall()
            check("QuadLayout = column: rdf_quad, its POGS index and the projections are "
                  "column-wise, the dictionaries row-wise",
                  opts == [("rdf_iri", None), ("rdf_quad", ["layout=column"]),
                           ("rdf_quad_pogs", ["layout=column"]),
                           ("rdf_quad_sp", ["layout=column"])], repr(opts))
            c.execute("SELECT ld_dir(%s, '*', %s)", (os.path.join(data, "lubm"), EX + "lubm"))
            c.execute("SELECT ld_dir(%s, '*', %s)", (os.path.join(data, "par"), EX + "gp"))
            c.execute("SELECT rdf_loader_run()")
            lubm = graph_nt(c, EX + "lubm")
            check("column layout: the LUBM(10) slice, every distinct triple decoded as written",
                  len(lubm) == len(set(lubm_lines)) and set(lubm) == set(lubm_lines),
                  "%d of %d" % (len(lubm), len(set(lubm_lines))))
            # the same count through the primary tree and through the index
            ps = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad q JOIN pg_rdf.rdf_quad_sp sp"
                           " ON q.p = sp.p AND q.s = sp.s").fetchone()[0]
            po = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad q JOIN pg_rdf.rdf_quad_op op"
                           " ON q.p = op.p AND q.o = op.o").fetchone()[0]
            n = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
            check("column layout: every quad joins its (s, p) and (o, p) projection pairs",
                  ps == n and po == n and n == len(set(lubm_lines)) + len(
                      graph_nt(c, EX + "gp")), "%d %d %d" % (ps, po, n))
    finally:
        srv.stop()
    bad = checks.isolated_server(args, "rdfload_badlayout", extra_ini={
        "SPARQL": {"QuadLayout": "diagonal"}})
    try:
        bad.start(timeout=30)
        started = True
    except Exception:  # noqa: BLE001 — a refused start is what is checked
        started = False
    finally:
        bad.stop()
    log = open(bad.log_path()).read() if os.path.exists(bad.log_path()) else ""
    log += open(bad.out_path).read() if os.path.exists(bad.out_path) else ""
    check("QuadLayout = diagonal: the server refuses to start, naming the key",
          not started and "QuadLayout must be row or column" in log, log[-300:])


if __name__ == "__main__":
    sys.exit(main())

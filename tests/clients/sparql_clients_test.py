#!/usr/bin/env python3
"""The README's SPARQL examples (issue 10, item 8), run as written against
a Cadenza of its own with the demo knowledge graph scripts/start.sh loads
(scripts/demo/load.sh, the same script).

The examples live in tests/clients/sparql/ and the README shows them
verbatim (checked here first, so the README cannot drift from what runs):
curl (curl_example.sh), isql-cz (isql_example.sql, `SPARQL SELECT …`),
Python with rdflib's SPARQLStore (rdflib_example.py) and Java with Apache
Jena's RDFConnection (jena/, built with Maven into $CZ_BUILD/sparql-jena
and kept there, so Maven Central is asked once). Each must print the five
composers with the most works that rdflib computes from the same file.
The web page at / is the query page (isolated_webpage.py drives it in a
browser). The examples name http://127.0.0.1:8890 (the sample ini's
port); here that address is replaced by the test server's.

Usage: sparql_clients_test.py [--build DIR]   (default $CZ_BUILD, else build/)
"""
import argparse
import csv
import io
import os
import shutil
import subprocess
import sys
import urllib.request

TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(TOP, "tests", "server"))
import checks  # noqa: E402
import srvctl  # noqa: E402
from checks import check  # noqa: E402

EX = os.path.join(TOP, "tests", "clients", "sparql")
KG = os.path.join(TOP, "scripts", "demo", "composers.ttl")
DEFAULT = "127.0.0.1:8890"
QUERY = """PREFIX schema: <http://schema.org/>
SELECT ?composer (COUNT(?work) AS ?works) WHERE {
  ?c schema:name ?composer . ?work schema:composer ?c
} GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5"""


def expected():
    import rdflib
    g = rdflib.Graph()
    g.parse(KG, format="turtle")
    return [(str(r[0]), int(r[1])) for r in g.query(QUERY)]


def pairs(text):
    """(name, count) of each "name<TAB>count" line."""
    out = []
    for line in text.splitlines():
        if "\t" in line:
            n, c = line.rsplit("\t", 1)
            if c.strip().isdigit():
                out.append((n.strip(), int(c)))
    return out


def read(name):
    with open(os.path.join(EX, name), encoding="utf-8") as f:
        return f.read()


def readme_checks():
    with open(os.path.join(TOP, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    for name in ["curl_example.sh", "isql_example.sql", "rdflib_example.py",
                 "jena/src/main/java/example/JenaExample.java"]:
        check("README shows tests/clients/sparql/%s as it is" % name, read(name).strip() in readme, name)
    pom = read("jena/pom.xml")
    check("README names the Jena artifact the example builds with",
          "jena-rdfconnection" in readme and "5.2.0" in pom and "5.2.0" in readme, "")


def run(cmd, timeout=300, **kw):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
        return r.returncode, r.stdout, r.stderr
    except (OSError, subprocess.TimeoutExpired) as ex:
        return -1, "", str(ex)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("CZ_BUILD", os.path.join(TOP, "build")))
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    try:
        want = expected()
    except ImportError:
        return checks.skip("rdflib is not installed (scripts/install-deps.sh)")
    check("rdflib's answer on the demo file has five rows", len(want) == 5, repr(want))
    readme_checks()
    folder = os.path.join(build, "server-tests", "sparql-clients")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(os.path.join(folder, "io"))
    http_port = srvctl.free_port()
    addr = "127.0.0.1:%d" % http_port
    srv = srvctl.Server("cadenza", os.path.join(folder, "server"),
                        binary=os.path.join(build, "binsrc", "cadenza", "cadenza"),
                        extra_ini={"Parameters": {"DirsAllowed": os.path.join(folder, "io")},
                                   "HTTPServer": {"ServerPort": addr}})
    isql = os.path.join(build, "binsrc", "isql", "isql-cz")
    srv.start()
    try:
        rc, out, err = run([os.path.join(TOP, "scripts", "demo", "load.sh"), isql, str(srv.port), srv.password,
                            os.path.join(folder, "io")])
        check("scripts/demo/load.sh loads the demo graph", rc == 0, out + err)
        # curl
        cmd = read("curl_example.sh").replace(DEFAULT, addr)
        rc, out, err = run(["sh", "-c", cmd])
        rows = list(csv.reader(io.StringIO(out)))
        got = [(r[0], int(r[1])) for r in rows[1:] if len(r) == 2 and r[1].isdigit()]
        check("curl: the README's query, as CSV", rc == 0 and rows[:1] == [["composer", "works"]] and got == want,
              "%r %s" % (got, out + err))
        # isql-cz
        rc, out, err = run([isql, "-q", str(srv.port), "dba", srv.password, "-b",
                            "-f", os.path.join(EX, "isql_example.sql")])
        lines = [ln for ln in out.splitlines() if any(n in ln for n, _ in want)]
        ok = rc == 0 and len(lines) == 5 and all(n in ln and str(c) in ln for (n, c), ln in zip(want, lines))
        check("isql-cz: SPARQL SELECT … from the README", ok, out + err)
        # Python, rdflib's SPARQLStore
        py = os.environ.get("TB_PY") or sys.executable
        rc, out, err = run([py, os.path.join(EX, "rdflib_example.py"), "http://%s/sparql" % addr])
        check("Python (rdflib SPARQLStore): the README's example", rc == 0 and pairs(out) == want,
              "%r %s" % (pairs(out), out + err))
        # Java, Jena's RDFConnection (Maven Central, once)
        jb = os.path.join(build, "sparql-jena")
        jar = os.path.join(jb, "cadenza-jena-example-1.0.jar")
        src = os.path.join(EX, "jena", "src", "main", "java", "example", "JenaExample.java")
        if not os.path.exists(jar) or os.path.getmtime(jar) < os.path.getmtime(src):
            os.makedirs(jb, exist_ok=True)
            rc, out, err = run(["mvn", "-q", "-B", "-f", os.path.join(EX, "jena", "pom.xml"),
                                "-Dexample.buildDir=" + jb, "package", "dependency:copy-dependencies",
                                "-DoutputDirectory=" + os.path.join(jb, "lib")], timeout=900)
            check("Java: the Jena example builds with Maven", rc == 0, (out + err)[-3000:])
        rc, out, err = run(["java", "-cp", jar + os.pathsep + os.path.join(jb, "lib", "*"),
                            "example.JenaExample", "http://%s/sparql" % addr], timeout=120)
        check("Java (Jena RDFConnection): the README's example", rc == 0 and pairs(out) == want,
              "%r %s" % (pairs(out), (out + err)[-3000:]))
        # the web page
        with urllib.request.urlopen("http://%s/" % addr, timeout=30) as r:
            page = r.read().decode()
            ctype = r.headers.get("Content-Type", "")
        check("the web page at / (the URL start.sh prints)", ctype.startswith("text/html") and "<textarea" in page,
              ctype)
        check("the server is alive", srv.alive())
    finally:
        srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

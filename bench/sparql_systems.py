"""The RDF stores the SPARQL benchmarks compare (bench/lubm, bench/bsbm):
how each is started in a folder of its own on free 127.0.0.1 ports,
loaded with one N-Triples file into one graph, sized, queried and stopped.

Each system is a class with load(), size(), rows(query), endpoint (the
URL of its SPARQL HTTP endpoint, None when it has none) and stop().
rows() answers with the row count of the query's TSV result, so a wrong
answer shows next to its time. The data file is loaded into the named
graph `graph`; queries over HTTP take it as their default graph
(default-graph-uri), so both servers answer over the same dataset.

Figures go to reports, never into assertions: the machine is shared.
"""
import gzip
import glob
import os
import subprocess
import sys
import time
import urllib.parse
import urllib.request


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            p = os.path.join(root, f)
            if not os.path.islink(p):
                total += os.path.getsize(p)
    return total


def tsv_rows(text):
    """The number of solutions in a SPARQL TSV answer (its first line is the header)."""
    return max(0, len(text.rstrip("\n").split("\n")) - 1) if text.strip() else 0


def http_query(endpoint, q, graph, accept="text/tab-separated-values", timeout=600):
    """The text of q's answer at a SPARQL endpoint, graph as its default graph."""
    form = {"query": q}
    if graph:
        form["default-graph-uri"] = graph
    req = urllib.request.Request(endpoint, data=urllib.parse.urlencode(form).encode(),
                                 headers={"Accept": accept})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.read().decode()


class Cadenza:
    """binsrc/cadenza/cadenza through tests/server/srvctl.py, its [HTTPServer]
    on a free port; loaded with rdf-load (2 loaders) and a checkpoint."""
    name = "cadenza"

    def __init__(self, top, build, work, data, graph):
        sys.path.insert(0, os.path.join(top, "tests", "server"))
        import psycopg
        import srvctl
        self.build = build
        self.data = data
        self.graph = graph
        self.http = srvctl.free_port()
        self.endpoint = "http://127.0.0.1:%d/sparql" % self.http
        self.srv = srvctl.Server("cadenza", os.path.join(work, "cadenza"),
                                 binary=os.path.join(build, "binsrc", "cadenza", "cadenza"),
                                 buffers=60000,
                                 extra_ini={"Parameters": {"DirsAllowed": os.path.dirname(data)},
                                            "HTTPServer": {"ServerPort": "127.0.0.1:%d" % self.http},
                                            "SPARQL": {"MaxQueryExecutionTime": "600"}})
        self.srv.start()
        self.c = psycopg.connect(self.srv.dsn(), autocommit=True)

    def load(self):
        env = dict(os.environ, **self.srv.env())
        subprocess.run([os.path.join(self.build, "binsrc", "rdf-load", "rdf-load"), "-j", "2",
                        "-g", self.graph, "-m", os.path.basename(self.data),
                        os.path.dirname(self.data)], check=True, env=env,
                       stdout=subprocess.DEVNULL)
        n = self.c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
        self.c.execute("CHECKPOINT")
        return n

    def size(self):
        return float(self.c.execute(
            "SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
            " JOIN pg_namespace s ON s.oid = c.relnamespace"
            " WHERE s.nspname = 'pg_rdf' AND c.relkind = 'r'").fetchone()[0] or 0)

    def rows(self, q):
        return tsv_rows(http_query(self.endpoint, q, self.graph))

    def sql(self, text):
        """The rows of one SQL statement (EXPLAIN ANALYZE of a SPARQL query)."""
        return self.c.execute(text).fetchall()

    def stop(self):
        self.c.close()
        self.srv.stop()


class Virtuoso:
    """virtuoso-t from Debian's virtuoso-opensource, in a folder of its own
    with free ports; loaded with ld_dir + rdf_loader_run + checkpoint
    through isql-vt, queried over HTTP /sparql."""
    name = "virtuoso"

    def __init__(self, top, build, work, data, graph):
        sys.path.insert(0, os.path.join(top, "tests", "server"))
        import srvctl
        self.dir = os.path.join(work, "virtuoso")
        os.makedirs(self.dir)
        self.data = data
        self.graph = graph
        self.port, self.http = srvctl.free_port(), srvctl.free_port()
        self.endpoint = "http://127.0.0.1:%d/sparql" % self.http
        with open(os.path.join(self.dir, "virtuoso.ini"), "w") as f:
            f.write(VIRTUOSO_INI.format(dir=self.dir, port=self.port, http=self.http,
                                        data=os.path.dirname(data)))
        self.proc = subprocess.Popen(["virtuoso-t", "-f", "-c", "virtuoso.ini"], cwd=self.dir,
                                     stdout=open(os.path.join(self.dir, "out.log"), "w"),
                                     stderr=subprocess.STDOUT)
        for _ in range(120):
            if self._isql("SELECT 1;", check=False).returncode == 0:
                break
            time.sleep(1)
        else:
            raise RuntimeError("virtuoso did not start: see %s/out.log" % self.dir)

    def _isql(self, sql, check=True):
        return subprocess.run(["isql-vt", str(self.port), "dba", "dba"], input=sql, text=True,
                              capture_output=True, check=check)

    def load(self):
        self._isql("ld_dir('%s', '%s', '%s');\nrdf_loader_run();\ncheckpoint;\n"
                   % (os.path.dirname(self.data), os.path.basename(self.data), self.graph))
        return int(http_query(self.endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }",
                              self.graph).split("\n")[1])

    def size(self):
        return sum(os.path.getsize(p) for p in glob.glob(os.path.join(self.dir, "*.db")))

    def rows(self, q):
        return tsv_rows(http_query(self.endpoint, q, self.graph))

    def stop(self):
        self._isql("shutdown;", check=False)
        try:
            self.proc.wait(60)
        except subprocess.TimeoutExpired:
            self.proc.kill()


VIRTUOSO_INI = """[Database]
DatabaseFile = {dir}/virtuoso.db
ErrorLogFile = {dir}/virtuoso.log
TransactionFile = {dir}/virtuoso.trx
xa_persistent_file = {dir}/virtuoso.pxa
[TempDatabase]
DatabaseFile = {dir}/virtuoso-temp.db
TransactionFile = {dir}/virtuoso-temp.trx
[Parameters]
ServerPort = 127.0.0.1:{port}
DirsAllowed = ., {data}, /usr/share/virtuoso-opensource-7/vad
NumberOfBuffers = 340000
MaxDirtyBuffers = 250000
ThreadsPerQuery = 2
[HTTPServer]
ServerPort = 127.0.0.1:{http}
ServerRoot = {dir}
ServerThreads = 10
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 600
MaxQueryCostEstimationTime = 600
"""


class Oxigraph:
    """pyoxigraph's on-disk Store, in process (no endpoint); the file read
    with the Turtle parser and base IRI graph (LUBM has 20 lines with the
    relative subject <>, which strict N-Triples refuses), into the store's
    default graph (queried alone, so the same dataset as the others)."""
    name = "oxigraph"
    endpoint = None

    def __init__(self, top, build, work, data, graph):
        import pyoxigraph
        self.ox = pyoxigraph
        self.dir = os.path.join(work, "oxigraph")
        self.data = data
        self.graph = graph
        self.store = pyoxigraph.Store(self.dir)

    def load(self):
        opener = gzip.open if self.data.endswith(".gz") else open
        with opener(self.data, "rb") as f:
            self.store.bulk_load(f, format=self.ox.RdfFormat.TURTLE, base_iri=self.graph)
        self.store.optimize()
        return len(self.store)

    def size(self):
        self.store.flush()
        return du(self.dir)

    def rows(self, q):
        return sum(1 for _ in self.store.query(q))

    def stop(self):
        del self.store


SYSTEMS = {"cadenza": Cadenza, "virtuoso": Virtuoso, "oxigraph": Oxigraph}

#!/usr/bin/env python3
"""The driver of bench/lubm/run.sh: loads one LUBM N-Triples file into each
system, measures load seconds and bytes per triple, runs every query of
../shared/data/lubm/queries (lubm14, wukong) 1 + RUNS times (the first run
warms, the median of the others is reported, with the row count so a
wrong answer shows next to its time), and prints a table with ratios to
Cadenza (> 1: the other system is slower).

Each system is one class with load(), size(), rows(query) and stop():
rows() is the query client — every system is queried over its SPARQL HTTP
endpoint, TSV results (Cadenza's [HTTPServer] on a free port; Oxigraph in
process, it has no server here).
"""
import argparse
import glob
import gzip
import os
import shutil
import statistics
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


class Cadenza:
    name = "cadenza"

    def __init__(self, a, work, data):
        sys.path.insert(0, os.path.join(a.top, "tests", "server"))
        import psycopg
        import srvctl
        self.psycopg = psycopg
        self.build = a.build
        self.data = data
        self.http = srvctl.free_port()
        self.srv = srvctl.Server("cadenza", os.path.join(work, "cadenza"),
                                 binary=os.path.join(a.build, "binsrc", "cadenza", "cadenza"),
                                 buffers=60000,
                                 extra_ini={"Parameters": {"DirsAllowed": os.path.dirname(data)},
                                            "HTTPServer": {"ServerPort": "127.0.0.1:%d" % self.http}})
        self.srv.start()
        self.c = psycopg.connect(self.srv.dsn(), autocommit=True)

    def load(self):
        env = dict(os.environ, **self.srv.env())
        # the data file alone, whatever else its folder holds
        subprocess.run([os.path.join(self.build, "binsrc", "rdf-load", "rdf-load"), "-j", "2",
                        "-m", os.path.basename(self.data), os.path.dirname(self.data)],
                       check=True, env=env,
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
        """The row count of q's TSV answer over HTTP /sparql."""
        body = urllib.parse.urlencode({"query": q}).encode()
        req = urllib.request.Request("http://127.0.0.1:%d/sparql" % self.http, data=body,
                                     headers={"Accept": "text/tab-separated-values"})
        with urllib.request.urlopen(req, timeout=600) as r:
            text = r.read().decode()
        return max(0, len(text.rstrip("\n").split("\n")) - 1) if text.strip() else 0

    def stop(self):
        self.c.close()
        self.srv.stop()


class Virtuoso:
    """virtuoso-t from Debian's virtuoso-opensource, in a folder of its own
    with free ports; loaded with ld_dir + rdf_loader_run + checkpoint
    through isql-vt, queried over HTTP /sparql (TSV results)."""
    name = "virtuoso"

    def __init__(self, a, work, data):
        sys.path.insert(0, os.path.join(a.top, "tests", "server"))
        import srvctl
        self.dir = os.path.join(work, "virtuoso")
        os.makedirs(self.dir)
        self.data = data
        self.port, self.http = srvctl.free_port(), srvctl.free_port()
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
        self._isql("ld_dir('%s', '%s', 'http://lubm.example/');\nrdf_loader_run();\ncheckpoint;\n"
                   % (os.path.dirname(self.data), os.path.basename(self.data)))
        return int(self._http("SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }").split("\n")[1])

    def size(self):
        return sum(os.path.getsize(p) for p in glob.glob(os.path.join(self.dir, "*.db")))

    def _http(self, q):
        """The TSV answer of q over HTTP, with the loaded graph as the default graph."""
        body = urllib.parse.urlencode({"query": q, "default-graph-uri": "http://lubm.example/"}).encode()
        req = urllib.request.Request("http://127.0.0.1:%d/sparql" % self.http, data=body,
                                     headers={"Accept": "text/tab-separated-values"})
        with urllib.request.urlopen(req, timeout=600) as r:
            return r.read().decode()

    def rows(self, q):
        text = self._http(q)
        return max(0, len(text.rstrip("\n").split("\n")) - 1) if text.strip() else 0

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
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 600
MaxQueryCostEstimationTime = 600
"""


class Oxigraph:
    """pyoxigraph's on-disk Store; the file read with the Turtle parser and a
    base IRI (the data has 20 lines with the relative subject <>, which
    strict N-Triples refuses), as the reference counts were made."""
    name = "oxigraph"

    def __init__(self, a, work, data):
        import pyoxigraph
        self.ox = pyoxigraph
        self.dir = os.path.join(work, "oxigraph")
        self.data = data
        self.store = pyoxigraph.Store(self.dir)

    def load(self):
        opener = gzip.open if self.data.endswith(".gz") else open
        with opener(self.data, "rb") as f:
            self.store.bulk_load(f, format=self.ox.RdfFormat.TURTLE, base_iri="http://lubm.example/")
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--systems", default="cadenza,virtuoso,oxigraph")
    a = ap.parse_args()
    shared = os.environ.get("CZ_SHARED") or os.path.join(os.path.dirname(a.top), "shared")
    data = os.environ.get("CZ_LUBM_FILE") or os.path.join(shared, "data", "lubm10", "lubm10.nt.gz")
    runs = int(os.environ.get("CZ_BENCH_RUNS", "5"))
    qdir = os.path.join(shared, "data", "lubm", "queries")
    queries = [(os.path.relpath(p, qdir)[:-3], open(p).read())
               for d in ("lubm14", "wukong")
               for p in sorted(glob.glob(os.path.join(qdir, d, "*.rq")),
                               key=lambda p: int("".join(ch for ch in os.path.basename(p) if ch.isdigit())))]
    work = os.path.join(a.build, "bench-lubm")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    print("data %s, %d runs per query after one warm-up; load average %s"
          % (data, runs, open("/proc/loadavg").read().split()[:3]))
    names = [s for s in a.systems.split(",") if s]
    loads, times = {}, {}
    for name in names:
        t0 = time.monotonic()
        sysobj = SYSTEMS[name](a, work, data)
        try:
            t1 = time.monotonic()
            n = sysobj.load()
            secs = time.monotonic() - t1
            size = sysobj.size()
            loads[name] = (n, secs, size)
            print("%-9s load: %d triples in %.1f s = %.0f triples/s, %.1f bytes/triple (start %.1f s)"
                  % (name, n, secs, n / secs if secs else 0, size / n if n else 0, t1 - t0), flush=True)
            for qname, q in queries if runs > 0 else []:
                try:
                    count = sysobj.rows(q)
                    ts = []
                    for _ in range(runs):
                        s = time.monotonic()
                        sysobj.rows(q)
                        ts.append(time.monotonic() - s)
                    times[name, qname] = (count, statistics.median(ts))
                except Exception as ex:  # noqa: BLE001 - a failed query is a table entry
                    times[name, qname] = (None, None)
                    print("%-9s %s: %s" % (name, qname, str(ex).splitlines()[0][:200]), flush=True)
        finally:
            sysobj.stop()
    print()
    if runs > 0:
        print("%-11s" % "query" + "".join("%22s" % ("%s rows / ms" % n) for n in names)
              + "".join("%12s" % ("%s/cz" % n[:3]) for n in names if n != "cadenza"))
    for qname, _ in queries if runs > 0 else []:
        line = "%-11s" % qname
        for n in names:
            c, t = times.get((n, qname), (None, None))
            line += "%22s" % ("error" if t is None else "%d / %.1f" % (c, t * 1000))
        base = times.get(("cadenza", qname), (None, None))[1]
        for n in names:
            if n == "cadenza":
                continue
            t = times.get((n, qname), (None, None))[1]
            line += "%12s" % ("-" if not t or not base else "%.2f" % (t / base))
        print(line)
    if "cadenza" in loads:
        cn, cs, cb = loads["cadenza"]
        for n in names:
            if n != "cadenza" and n in loads:
                on, os_, ob = loads[n]
                print("load rate %s/cadenza %.2f, bytes per triple %s/cadenza %.2f"
                      % (n, (on / os_) / (cn / cs), n, (ob / on) / (cb / cn)))


if __name__ == "__main__":
    main()

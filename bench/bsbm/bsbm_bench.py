#!/usr/bin/env python3
"""The driver of bench/bsbm/run.sh: the BSBM explore mix against each
system's SPARQL endpoint, run by the official Java test driver (built by
bench/bsbm/build-driver.sh outside the tree); this script only
orchestrates: starts each system (bench/sparql_systems.py, as LUBM),
loads the data, checks its answers, calls the driver and turns its XML
results into one table.

Per system, one after the other (so they never share the machine):
  1. start, load the N-Triples file into graph GRAPH (seconds, triples);
  2. a qualification run (the driver's -q: 15 mixes, fixed seed, results
     kept) whose answers are compared with Virtuoso's run for the very same
     parameters by the driver's Qualification tool (row counts and
     values); DESCRIBE (9) and CONSTRUCT (12) are left out of it — the
     driver parses their answers as RDF/XML, which Cadenza does not write —
     and checked here instead: the triple count of each for a few offers
     and reviews, Cadenza against Virtuoso (same_graph);
  3. per client count (1 and 4): -w WARMUP mixes, then -runs RUNS mixes
     (-mt N for N clients); QMpH and per query average seconds read from
     the driver's -o XML.
Then a table: QMpH and each query's average for both, and the ratio
virtuoso/cadenza (> 1: Cadenza is faster), plus the qualification summary.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sparql_systems import SYSTEMS, http_query  # noqa: E402 - bench/ is not a package

GRAPH = "http://bsbm.example/"
EXPLORE = [1, 2, 3, 4, 5, 7, 8, 9, 10, 11, 12]
GRAPH_QUERIES = (9, 12)
BSBM_VOCAB = "http://www4.wiwiss.fu-berlin.de/bizer/bsbm/v01/vocabulary/"


class Driver:
    """The BSBM Java test driver and qualification tool of a BSBM-Local
    build (target/*.jar and target/dependency/*.jar)."""

    def __init__(self, home, work, tddata, queries):
        self.cp = os.pathsep.join([os.path.join(home, "target", "*"),
                                   os.path.join(home, "target", "dependency", "*")])
        self.work = work
        self.tddata = tddata
        # Use case files name their query folder; the qualification one is a
        # copy of the explore queries with the graph queries ignored.
        self.explore_ucf = self._usecase("explore", queries, "")
        self.qual_ucf = self._usecase("qualify", queries, " ".join(map(str, GRAPH_QUERIES)))

    def _usecase(self, name, queries, ignore):
        qdir = os.path.join(self.work, "queries-" + name)
        shutil.copytree(queries, qdir)
        with open(os.path.join(qdir, "ignoreQueries.txt"), "w") as f:
            f.write(ignore + "\n")
        ucf = os.path.join(self.work, name + ".txt")
        with open(ucf, "w") as f:
            f.write("querymix=%s\n" % qdir)
        return ucf

    def _java(self, cls, args, log):
        with open(log, "w") as out:
            r = subprocess.run(["java", "-Xmx1g", "-cp", self.cp, cls] + args, cwd=self.work,
                               stdout=out, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise RuntimeError("%s failed (exit %d): see %s" % (cls, r.returncode, log))

    def qualify(self, system):
        """The driver's -q run against system; the path of its qualification file."""
        qf = os.path.join(self.work, "%s.qual" % system.name)
        self._java("benchmark.testdriver.TestDriver",
                   ["-q", "-qf", qf, "-idir", self.tddata, "-ucf", self.qual_ucf,
                    "-dg", GRAPH, system.endpoint],
                   os.path.join(self.work, "%s-qualify.log" % system.name))
        return qf

    def compare(self, correct, test, name):
        """Per query (correct, total) of test's answers against correct's."""
        log = os.path.join(self.work, "qualification-%s.txt" % name)
        self._java("benchmark.qualification.Qualification", ["-ql", log, correct, test],
                   os.path.join(self.work, "qualification-%s.log" % name))
        text = open(log).read()
        per = {}
        for m in re.finditer(r"Query (\d+): correct/total executions: (\d+)/(\d+)", text):
            per[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
        return per, log

    def run(self, system, clients, warmup, runs, timeout_s):
        """QMpH and {query: (average seconds, average results, timeouts)} of
        one measured run with clients clients."""
        xml = os.path.join(self.work, "%s-%d.xml" % (system.name, clients))
        args = ["-runs", str(runs), "-w", str(warmup), "-idir", self.tddata,
                "-ucf", self.explore_ucf, "-dg", GRAPH, "-o", xml, "-t", str(timeout_s * 1000)]
        if clients > 1:
            args += ["-mt", str(clients)]
        self._java("benchmark.testdriver.TestDriver", args + [system.endpoint],
                   os.path.join(self.work, "%s-%d.log" % (system.name, clients)))
        root = ET.parse(xml).getroot()
        qmph = float(root.find("querymix/qmph").text)
        per = {}
        for q in root.findall("queries/query"):
            n = int(q.get("nr"))
            if int(q.find("executecount").text) > 0:
                per[n] = (float(q.find("aqet").text), float(q.find("avgresults").text),
                          int(q.find("timeoutcount").text))
        return qmph, per


def graph_probes(system, count=5):
    """Instances of explore queries 9 (DESCRIBE) and 12 (CONSTRUCT): the
    first count reviews and offers of the data, in IRI order, so every
    system gets the same ones."""
    q9 = open(os.path.join(system.queries, "query9.txt")).read()
    q12 = open(os.path.join(system.queries, "query12.txt")).read()
    probes = []
    for cls, tmpl, param, qn in (("http://purl.org/stuff/rev#Review", q9, "%ReviewXYZ%", 9),
                                 (BSBM_VOCAB + "Offer", q12, "%OfferXYZ%", 12)):
        text = http_query(system.endpoint, "SELECT ?x WHERE { ?x a <%s> } ORDER BY ?x LIMIT %d"
                          % (cls, count), GRAPH)
        for cell in text.split("\n")[1:]:
            # Cadenza writes <iri>, as TSV should; Virtuoso a quoted string.
            iri = cell.strip().strip('"<>')
            if iri:
                probes.append((qn, iri, tmpl.replace(param, "<%s>" % iri)))
    return probes


def triples(system, q):
    """The triples of a CONSTRUCT or DESCRIBE answer (N-Triples), as a set
    of (s, p, o) texts (Virtuoso separates terms by tabs, Cadenza by spaces)."""
    text = http_query(system.endpoint, q, GRAPH, accept="application/n-triples")
    out = set()
    for line in text.split("\n"):
        line = line.strip()
        if line and not line.startswith("#"):
            s, p, o = line.split(None, 2)
            out.add((s, p, o.rstrip(" \t.")))
    return frozenset(out)


def same_graph(qn, reference, test):
    """Whether test's answer to graph query qn is the reference's. DESCRIBE's
    description is the service's choice (SPARQL 1.1 section 16.4): Cadenza
    gives the resource's subject triples, Virtuoso those and the triples
    that have it as object; so for 9 test must be the reference's triples
    on test's subjects, and not empty when the reference is not."""
    if isinstance(reference, str) or isinstance(test, str):
        return False
    if qn == 9:
        subjects = {t[0] for t in test}
        return bool(test) == bool(reference) and test == {t for t in reference if t[0] in subjects}
    return test == reference


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--top", required=True)
    ap.add_argument("--build", required=True)
    ap.add_argument("--systems", default="virtuoso,cadenza")
    ap.add_argument("--driver", required=True, help="the BSBM-Local build (bench/bsbm/build-driver.sh)")
    ap.add_argument("--data", required=True, help="the N-Triples file (.nt or .nt.gz)")
    ap.add_argument("--tddata", required=True, help="its parameter pools: a folder or a .tar.gz of one")
    ap.add_argument("--queries", required=True, help="the explore query templates")
    ap.add_argument("--clients", default="1,4")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--timeout", type=int, default=60, help="seconds a query may take")
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or os.path.join(a.build, "bench-bsbm")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    tddata = a.tddata
    if tddata.endswith(".tar.gz"):
        with tarfile.open(tddata) as t:
            t.extractall(work)
            tddata = os.path.join(work, t.getnames()[0].split("/")[0])
    driver = Driver(a.driver, work, tddata, a.queries)
    names = [s for s in a.systems.split(",") if s]
    # Virtuoso first: its qualification run is the reference.
    names.sort(key=lambda n: n != "virtuoso")
    clients = [int(c) for c in a.clients.split(",")]
    print("data %s, %d warm-up + %d measured mixes per client count %s; load average %s"
          % (a.data, a.warmup, a.runs, clients, " ".join(open("/proc/loadavg").read().split()[:3])),
          flush=True)
    loads, quals, results, probes = {}, {}, {}, {}
    for name in names:
        try:
            run_system(name, a, work, driver, clients, loads, quals, results, probes)
        except Exception as ex:  # noqa: BLE001 - one system's failure leaves the others' figures
            print("%-9s failed: %s" % (name, ex), flush=True)
    report(names, clients, driver, loads, quals, results, probes)


def run_system(name, a, work, driver, clients, loads, quals, results, probes):
    """Start, load, qualify and time one system; its figures into the dicts."""
    t0 = time.monotonic()
    s = SYSTEMS[name](a.top, a.build, work, a.data, GRAPH)
    s.queries = a.queries
    try:
        t1 = time.monotonic()
        n = s.load()
        secs = time.monotonic() - t1
        loads[name] = (n, secs)
        print("%-9s load: %d triples in %.1f s = %.0f triples/s (start %.1f s)"
              % (name, n, secs, n / secs if secs else 0, t1 - t0), flush=True)
        quals[name] = driver.qualify(s)
        probes[name] = {}
        for qn, iri, q in graph_probes(s):
            try:
                probes[name][qn, iri] = triples(s, q)
            except Exception as ex:  # noqa: BLE001 - a failed probe is a report line
                probes[name][qn, iri] = "error: %s" % str(ex).splitlines()[0][:120]
        for c in clients:
            results[name, c] = driver.run(s, c, a.warmup, a.runs, a.timeout)
            print("%-9s %d client(s): %.1f QMpH (load average %s)"
                  % (name, c, results[name, c][0],
                     " ".join(open("/proc/loadavg").read().split()[:3])), flush=True)
    finally:
        s.stop()


def report(names, clients, driver, loads, quals, results, probes):
    print()
    if "virtuoso" in quals:
        for name in names:
            if name == "virtuoso" or name not in quals:
                continue
            per, log = driver.compare(quals["virtuoso"], quals[name], name)
            bad = {q: v for q, v in per.items() if v[0] != v[1]}
            print("qualification %s against virtuoso (%s): %s" % (
                name, log, "all %d answers equal" % sum(v[1] for v in per.values()) if not bad else
                "; ".join("Q%d %d/%d correct" % (q, v[0], v[1]) for q, v in sorted(bad.items()))))
            diff = [(k, v, probes[name].get(k)) for k, v in sorted(probes["virtuoso"].items())
                    if not same_graph(k[0], v, probes[name].get(k))]
            print("graph queries 9, 12 (%d instances): %s" % (
                len(probes["virtuoso"]), "all equal" if not diff else "; ".join(
                    "Q%d %s: virtuoso %s triples, %s %s" % (
                        k[0], k[1], v if isinstance(v, str) else len(v), name,
                        w if isinstance(w, str) or w is None else len(w)) for k, v, w in diff)))
    base = "cadenza" if "cadenza" in names else names[0]
    others = [n for n in names if n != base]
    for c in clients:
        print()
        print("%d client(s)" % c)
        head = "%-8s" % "" + "".join("%16s" % n for n in [base] + others) \
            + "".join("%12s" % ("%s/%s" % (n[:3], base[:2])) for n in others)
        print(head)
        line = "%-8s" % "QMpH"
        for n in [base] + others:
            line += "%16s" % ("%.0f" % results[n, c][0] if (n, c) in results else "-")
        for n in others:
            ok = (n, c) in results and (base, c) in results and results[n, c][0]
            # QMpH is a rate: base/other > 1 means the base is faster.
            line += "%12s" % ("%.2f" % (results[base, c][0] / results[n, c][0]) if ok else "-")
        print(line)
        for q in EXPLORE:
            line = "%-8s" % ("Q%d ms" % q)
            for n in [base] + others:
                v = results.get((n, c), (0, {}))[1].get(q)
                line += "%16s" % ("-" if v is None else "%.2f%s" % (v[0] * 1000, " T%d" % v[2] if v[2] else ""))
            for n in others:
                b = results.get((base, c), (0, {}))[1].get(q)
                o = results.get((n, c), (0, {}))[1].get(q)
                line += "%12s" % ("%.2f" % (o[0] / b[0]) if b and o and b[0] else "-")
            print(line)
    for n in names:
        if n in loads:
            print("load %s: %d triples, %.1f s" % (n, loads[n][0], loads[n][1]))
    print("load average at the end %s" % " ".join(open("/proc/loadavg").read().split()[:3]))


if __name__ == "__main__":
    main()

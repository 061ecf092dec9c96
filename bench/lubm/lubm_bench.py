#!/usr/bin/env python3
"""The driver of bench/lubm/run.sh: loads one LUBM N-Triples file into each
system, measures load seconds and bytes per triple, runs every query of
../shared/data/lubm/queries (lubm14, wukong) 1 + RUNS times (the first run
warms, the median of the others is reported, with the row count so a
wrong answer shows next to its time), and prints a table with ratios to
Cadenza (> 1: the other system is slower).

The systems (their start, load, query client and stop) are the classes of
bench/sparql_systems.py, shared with bench/bsbm: Cadenza and Virtuoso are
queried over their SPARQL HTTP endpoints (TSV results), Oxigraph in
process.
"""
import argparse
import glob
import os
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from sparql_systems import SYSTEMS  # noqa: E402 - bench/ is not a package

GRAPH = "http://lubm.example/"


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
        sysobj = SYSTEMS[name](a.top, a.build, work, data, GRAPH)
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

#!/usr/bin/env python3
"""TPC-H side by side (bench/tpch/run.sh runs this): Cadenza at
ThreadsPerQuery 1 and 2, PostgreSQL 15 with max_parallel_workers_per_gather
0 and 2, DuckDB at 1 and 2 threads, all on the same CSV files in one run.
Prints one table: per query each system's median of --runs warm runs, the
ratios Cadenza/PostgreSQL and Cadenza/DuckDB (1 thread each), the sum and
the geometric mean; load times; Cadenza with VectorSize = 1 on Q1, Q3, Q9
(--vector1); and every system's answers against DuckDB's
(compare_results.py). Asserts nothing.

A query past --timeout (statement_timeout; DuckDB has none) is reported as
`>T`; sums and geometric means then count it as T and are marked `>`.
"""
import argparse
import json
import math
import os
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TOP, "tests", "server"))
import srvctl  # noqa: E402
import tpchlib  # noqa: E402


def log(msg):
    print(msg, flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sf", type=float, default=1.0)
    ap.add_argument("--data", default=None, help="CSV folder (default build/tpch-sf<SF>)")
    ap.add_argument("--dir", required=True, help="scratch folder (servers, results, logs)")
    ap.add_argument("--binary", required=True)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--only", default=None)
    ap.add_argument("--systems", default="cadenza,postgres,duckdb")
    ap.add_argument("--threads", default="1,2", help="Cadenza ThreadsPerQuery settings")
    ap.add_argument("--vector1", action="store_true", help="also Cadenza VectorSize=1 on Q1,Q3,Q9")
    ap.add_argument("--buffers", type=int, default=262144, help="Cadenza NumberOfBuffers (8 KB)")
    ap.add_argument("--cz-param", action="append", default=[], metavar="KEY=VALUE",
                    help="another Cadenza [Parameters] key, e.g. MaxQueryMem=8G (repeatable)")
    ap.add_argument("--pg-shared-buffers", default="2GB")
    a = ap.parse_args()
    systems = a.systems.split(",")
    work = os.path.abspath(a.dir)
    os.makedirs(work, exist_ok=True)
    results = os.path.join(work, "results")
    data = os.path.abspath(a.data or os.path.join(TOP, "build", "tpch-sf" + tpchlib.sf_name(a.sf)))
    gen_s = tpchlib.ensure_data(a.sf, data, log)
    loads, runs, notes = {}, {}, []
    run = dict(timeout=a.timeout, runs=a.runs, warmup=a.warmup, only=a.only)

    if "duckdb" in systems:
        db = os.path.join(data, "tpch.duckdb")
        log("DuckDB: load")
        loads["DuckDB"] = tpchlib.load_duckdb(data, db, 2, work)
        for t in (1, 2):
            log("DuckDB %d thread(s): queries" % t)
            runs["duck-t%d" % t] = tpchlib.run_queries("duckdb", "duckdb-t%d" % t, results, work,
                                                       db=db, threads=t, **run)

    if "postgres" in systems:
        srv = srvctl.Server("postgres", os.path.join(work, "pg"), pg_conf={
            "max_parallel_workers_per_gather": "0", "shared_buffers": a.pg_shared_buffers,
            "work_mem": "256MB", "maintenance_work_mem": "1GB", "effective_cache_size": "8GB",
            "max_wal_size": "8GB", "checkpoint_timeout": "30min", "synchronous_commit": "off"})
        try:
            srv.start()
            log("PostgreSQL: load")
            loads["PostgreSQL"] = tpchlib.load_pg(srv.dsn(), data, work, "pg",
                                                 client_copy=not tpchlib.others_can_read(data))
            for w in (0, 2):
                log("PostgreSQL %d workers per gather: queries" % w)
                dsn = srv.dsn() + " options='-c max_parallel_workers_per_gather=%d'" % w
                runs["pg-w%d" % w] = tpchlib.run_queries("pg", "pg-w%d" % w, results, work,
                                                         dsn=dsn, **run)
        finally:
            srv.stop()

    if "cadenza" in systems:
        threads = [int(t) for t in a.threads.split(",")]
        has_tpq = tpchlib.source_has("ThreadsPerQuery")
        has_vs = tpchlib.source_has("VectorSize")
        if not has_tpq:
            notes.append("ThreadsPerQuery is not built yet: Cadenza ran once, at its default")
            threads = threads[:1]
        extra = dict(kv.split("=", 1) for kv in a.cz_param)
        if extra:
            notes.append("Cadenza ran with " + ", ".join("%s = %s" % kv for kv in extra.items()))
        params = lambda t: dict(extra, **({"ThreadsPerQuery": t} if has_tpq else {}))  # noqa: E731
        srv = tpchlib.cadenza_server(os.path.join(work, "cadenza"), a.binary, data, a.buffers,
                                     params(threads[0]))
        try:
            srv.start()
            log("Cadenza: load")
            ld = tpchlib.load_pg(srv.dsn(), data, work, "cadenza", indexes=False)
            steps, subst = tpchlib.add_indexes(srv.dsn(), log)
            ld["steps_s"].update(steps)
            ld["index_total_s"] = round(sum(v for k, v in steps.items() if k.startswith("index")), 3)
            ld["total_s"] = round(ld["total_s"] + sum(steps.values()), 3)
            loads["Cadenza"] = ld
            notes += subst
            for i, t in enumerate(threads):
                if i > 0:
                    tpchlib.restart_with(srv, params(t))
                log("Cadenza ThreadsPerQuery %d: queries" % t)
                runs["cz-t%d" % t] = tpchlib.run_queries("pg", "cadenza-t%d" % t, results, work,
                                                         dsn=srv.dsn(), **run)
            if a.vector1:
                if has_vs:
                    tpchlib.restart_with(srv, dict(params(1), VectorSize=1))
                    log("Cadenza VectorSize 1: Q1, Q3, Q9")
                    r1 = dict(run, only="1,3,9")
                    runs["cz-vs1"] = tpchlib.run_queries("pg", "cadenza-vs1", results, work,
                                                         dsn=srv.dsn(), **r1)
                else:
                    notes.append("VectorSize is not an ini key of this build: no VectorSize=1 run")
        finally:
            srv.stop()

    report(a, runs, loads, notes, gen_s, results, work)


def fmt(v, timeout):
    if v is None:
        return "-"
    if v == "T":
        return ">%g" % timeout
    if v == "E":
        return "error"
    return "%.3f" % v


def times(rq, timeout):
    """{qNN: seconds, 'T' (timed out), 'E' (failed otherwise: the errors
    are listed under the table), or None (not run)}"""
    out = {}
    for q, r in (rq or {}).get("queries", {}).items():
        err = r.get("error") or ""
        if r.get("median_s") is not None:
            out[q] = r["median_s"]
        else:
            out[q] = "T" if ("timeout" in err or "canceling" in err) else "E"
    return out


def report(a, runs, loads, notes, gen_s, results, work):
    cols = [("cz-t1", "Cadenza 1t"), ("cz-t2", "Cadenza 2t"), ("pg-w0", "PG 0w"),
            ("pg-w2", "PG 2w"), ("duck-t1", "DuckDB 1t"), ("duck-t2", "DuckDB 2t")]
    cols = [c for c in cols if c[0] in runs]
    tab = {k: times(runs[k], a.timeout) for k, _ in cols}
    qs = sorted(set(q for t in tab.values() for q in t))
    lines = ["", "# TPC-H SF %s: median of %d warm runs (s); timeout %g s"
             % (tpchlib.sf_name(a.sf), a.runs, a.timeout), ""]
    head = "| query | " + " | ".join(n for _, n in cols)
    ratio = []
    if "cz-t1" in tab and "pg-w0" in tab:
        ratio.append(("pg-w0", "Cadenza/PG"))
    if "cz-t1" in tab and "duck-t1" in tab:
        ratio.append(("duck-t1", "Cadenza/DuckDB"))
    head += "".join(" | " + n for _, n in ratio) + " |"
    lines += [head, "|---" * (1 + len(cols) + len(ratio)) + "|"]

    def val(k, q):
        v = tab[k].get(q)
        return a.timeout if v in ("T", "E") else v

    for q in qs:
        row = "| %s | " % q.upper() + " | ".join(fmt(tab[k].get(q), a.timeout) for k, _ in cols)
        for k, _ in ratio:
            c, o = val("cz-t1", q), val(k, q)
            gt = ">" if tab["cz-t1"].get(q) in ("T", "E") else ""
            row += " | " + ("%s%.1fx" % (gt, c / o) if c is not None and o else "-")
        lines.append(row + " |")
    for what in ("sum", "geomean"):
        row = "| **%s** | " % what
        cells = []
        agg = {}
        for k, _ in cols:
            vs = [val(k, q) for q in qs if tab[k].get(q) is not None]
            over = any(tab[k].get(q) in ("T", "E") for q in qs)
            if not vs:
                cells.append("-")
                continue
            x = sum(vs) if what == "sum" else math.exp(sum(math.log(max(v, 1e-4)) for v in vs) / len(vs))
            agg[k] = x
            cells.append("%s%.3f" % (">" if over else "", x))
        row += " | ".join(cells)
        for k, _ in ratio:
            row += " | " + ("%.1fx" % (agg["cz-t1"] / agg[k]) if "cz-t1" in agg and agg.get(k) else "-")
        lines.append(row + " |")
    errs = ["- %s %s: %s" % (name, q.upper(), runs[k]["queries"][q]["error"])
            for k, name in cols for q in qs if tab[k].get(q) == "E"]
    if errs:
        lines += ["", "failed queries (counted as the timeout in sums and ratios, marked >):"] + errs
    if "cz-vs1" in runs:
        vs1 = times(runs["cz-vs1"], a.timeout)
        lines += ["", "## Cadenza VectorSize = 1 against the default (1 thread)", "",
                  "| query | VectorSize 1 | default | ratio |", "|---|---|---|---|"]
        for q in sorted(vs1):
            d = tab.get("cz-t1", {}).get(q)
            v = vs1[q]
            r = "%.1fx" % (v / d) if isinstance(v, float) and isinstance(d, float) and d else "-"
            lines.append("| %s | %s | %s | %s |" % (q.upper(), fmt(v, a.timeout), fmt(d, a.timeout), r))
    lines += ["", "## Load (s)", "", "| system | copy | keys and indexes | total |", "|---|---|---|---|"]
    for name, ld in loads.items():
        lines.append("| %s | %.2f | %.2f | %.2f |" % (name, ld.get("copy_total_s", 0),
                                                    ld.get("index_total_s", 0), ld.get("total_s", 0)))
    if gen_s:
        lines.append("\ndata generation (tpchgen-cli): %.1f s" % gen_s)
    if "duck-t1" in runs:
        lines += ["", "## Answers against DuckDB 1 thread (compare_results.py)", ""]
        ref = os.path.join(results, "duckdb-t1")
        for k, label in (("duck-t2", "duckdb-t2"), ("pg-w0", "pg-w0"), ("pg-w2", "pg-w2"),
                         ("cz-t1", "cadenza-t1"), ("cz-t2", "cadenza-t2"), ("cz-vs1", "cadenza-vs1")):
            if k not in runs:
                continue
            cmp = tpchlib.compare(ref, os.path.join(results, label), work)
            if k == "cz-vs1":
                cmp = {q: v for q, v in cmp.items() if q in ("q01", "q03", "q09")}
            bad = sorted(q for q, (ok, _, _) in cmp.items() if not ok)
            lines.append("- %s: %d of %d same%s" % (label, len(cmp) - len(bad), len(cmp),
                                                    (" — differ or missing: " + ", ".join(
                                                        "%s (%s)" % (q, cmp[q][1]) for q in bad))
                                                    if bad else ""))
    load = open("/proc/loadavg").read().split()[:3]
    lines += ["", "load average at the end: %s" % " ".join(load)]
    if notes:
        lines += ["", "notes:"] + ["- " + n for n in notes]
    text = "\n".join(lines) + "\n"
    print(text)
    with open(os.path.join(work, "report.md"), "w") as f:
        f.write(text)
    with open(os.path.join(work, "report.json"), "w") as f:
        json.dump({"sf": a.sf, "runs": runs, "loads": loads, "notes": notes}, f, indent=1)
    log("report: %s" % os.path.join(work, "report.md"))


if __name__ == "__main__":
    t0 = time.time()
    main()
    log("bench time: %.0f s" % (time.time() - t0))

#!/usr/bin/env python3
"""TPC-H answers (group `tpch` of run.sh, not among its default groups yet):
the 22 queries at a small scale factor (default 0.1) must return exactly
DuckDB's answers on the same data (compare_results.py: same, or only
float-vs-decimal rounding in the last digit), at each ThreadsPerQuery
setting (default 1 and 2; passed to the server only where its source reads
the key).

  tpch_test.py --kind cadenza|postgres --binary PATH --dir FOLDER
               [--sf 0.1] [--data DIR] [--timeout 60] [--threads 1,2] [--only 1,6]
               [--layout row|column]

Starts its own server (Cadenza with its COPY folder allowed to read the
data; or PostgreSQL 15, where the same checks validate the harness); data
from tpchgen-cli, cached in --data (default BUILD/tpch-sf<SF>, beside
--dir's build folder); DuckDB's answers from the same CSV files. Every
query runs once under statement_timeout --timeout, so a query too slow
fails as timed out and the script ends. Prints `PASS tpch_qNN_tT` or
`FAIL tpch_qNN_tT: why` per query and setting (with the time on both
systems on a `#` line), then `N passed, N failed`.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import checks  # noqa: E402
import srvctl  # noqa: E402
import tpchlib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza", choices=["cadenza", "postgres"])
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    ap.add_argument("--sf", type=float, default=0.1)
    ap.add_argument("--data", default=None)
    ap.add_argument("--timeout", type=float, default=60, help="statement_timeout per query (s)")
    ap.add_argument("--threads", default="1,2", help="ThreadsPerQuery settings (Cadenza)")
    ap.add_argument("--only", default=None, help="comma list of query numbers")
    ap.add_argument("--layout", default=None, choices=["row", "column"],
                    help="the server's [Parameters] DefaultLayout (Cadenza)")
    a = ap.parse_args()
    work = os.path.abspath(a.dir)
    os.makedirs(work, exist_ok=True)
    data = os.path.abspath(a.data or os.path.join(os.path.dirname(os.path.dirname(work)),
                                                  "tpch-sf" + tpchlib.sf_name(a.sf)))
    results = os.path.join(work, "results")
    wanted = ["q%02d" % int(q) for q in a.only.split(",")] if a.only else \
        ["q%02d" % q for q in range(1, 23)]

    try:
        tpchlib.ensure_data(a.sf, data)
        db = os.path.join(data, "tpch.duckdb")
        if not tpchlib.duckdb_cached(data, db):
            tpchlib.load_duckdb(data, db, 2, work)
        ref = tpchlib.run_queries("duckdb", "duckdb", results, work, db=db, threads=1,
                                  runs=1, warmup=0, only=a.only)
    except Exception as e:  # no data or no DuckDB: nothing can be checked
        checks.check("tpch_reference", False, str(e))
        return checks.summary()

    if a.kind == "postgres":
        settings = [("pg", {})]
    else:
        threads = [int(t) for t in a.threads.split(",")]
        if tpchlib.source_has("ThreadsPerQuery"):
            # above one thread every block that can runs in parallel, not
            # only those whose driving table passes the default 100 000 rows
            # (at SF 0.1 part, partsupp and customer are smaller)
            minrows = {"ParallelMinRows": 1} if tpchlib.source_has("ParallelMinRows") else {}
            settings = [("t%d" % t, dict({"ThreadsPerQuery": t}, **(minrows if t > 1 else {})))
                        for t in threads]
        else:
            print("# ThreadsPerQuery is not built yet: one run with the server's default")
            settings = [("t1", {})]
        if a.layout:
            settings = [(name, dict(params, DefaultLayout=a.layout)) for name, params in settings]

    srv = None
    try:
        if a.kind == "cadenza":
            srv = tpchlib.cadenza_server(os.path.join(work, "server"), a.binary, data, 20000,
                                         settings[0][1])
        else:
            srv = srvctl.Server("postgres", os.path.join(work, "server"),
                                pg_conf={"max_parallel_workers_per_gather": "0",
                                         "shared_buffers": "256MB", "work_mem": "64MB"})
        srv.start()
        # PostgreSQL runs as its own user, which may not read our folder
        tpchlib.load_pg(srv.dsn(), data, work, a.kind, indexes=a.kind == "postgres",
                        client_copy=a.kind == "postgres" and not tpchlib.others_can_read(data))
        if a.kind == "cadenza":
            # the keys and indexes of the PostgreSQL baseline (a correlated
            # EXISTS over lineitem without them scans it per outer row)
            _, subst = tpchlib.add_indexes(srv.dsn(), log=lambda m: None)
            for n in subst:
                print("# " + n)
        for i, (name, params) in enumerate(settings):
            if i > 0:
                tpchlib.restart_with(srv, params)
            label = "%s-%s" % (a.kind, name)
            got = tpchlib.run_queries("pg", label, results, work, dsn=srv.dsn(),
                                      timeout=a.timeout, runs=1, warmup=0, only=a.only)
            cmp = tpchlib.compare(os.path.join(results, "duckdb"), os.path.join(results, label), work)
            for q in wanted:
                r = got["queries"].get(q, {})
                d = ref["queries"].get(q, {})
                print("# %s %s: %s s (DuckDB %s s)" % (
                    q, name, "%.3f" % r["median_s"] if r.get("median_s") is not None else "-",
                    "%.3f" % d["median_s"] if d.get("median_s") is not None else "-"))
                ok, status, detail = cmp.get(q, (False, "no answer", ""))
                if r.get("error"):
                    why = r["error"]
                    if "timeout" in why or "canceling" in why:
                        why = "too slow: over %g s (%s)" % (a.timeout, why)
                    checks.check("tpch_%s_%s" % (q, name), False, why)
                else:
                    checks.check("tpch_%s_%s" % (q, name), ok, "%s %s" % (status, detail))
    except Exception as e:
        checks.check("tpch_run", False, "%s\n%s" % (e, srv.log_tail(20) if srv else ""))
    finally:
        if srv:
            srv.stop()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())

"""TPC-H per-query times of one Cadenza binary at a small scale factor
(bench/scan/run.sh --tpch): loads the data (tests/server/tpchlib.py, the
test's own loader and indexes), then runs each of the 22 queries RUNS
times after a warm-up and prints the median wall time and the median CPU
time the server process spent (steadier than wall time on a shared
machine). Asserts nothing: tests/server/run.sh --only tpch checks answers.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "server"))
import tpchlib  # noqa: E402
import psycopg  # noqa: E402


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--sf", default="0.1")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    os.makedirs(a.dir, exist_ok=True)
    tpchlib.ensure_data(float(a.sf), a.data)
    srv = tpchlib.cadenza_server(os.path.join(a.dir, "server"), a.binary, a.data, 20000, {})
    srv.start()
    try:
        tpchlib.load_pg(srv.dsn(), a.data, a.dir, "cadenza", indexes=False)
        tpchlib.add_indexes(srv.dsn(), log=lambda m: None)
        qdir = tpchlib.tool("queries") if hasattr(tpchlib, "tool") else None
        tot_w = tot_c = 0.0
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            for n in range(1, 23):
                sql = open(os.path.join(qdir, "q%02d.sql" % n)).read()
                c.execute(sql).fetchall()
                ws, cs = [], []
                for _ in range(a.runs):
                    c0 = cpu(srv.pid)
                    t = time.perf_counter()
                    c.execute(sql).fetchall()
                    ws.append(time.perf_counter() - t)
                    cs.append(cpu(srv.pid) - c0)
                w, cp = statistics.median(ws), statistics.median(cs)
                tot_w += w
                tot_c += cp
                print("Q%-2d wall %7.3f s  cpu %7.3f s" % (n, w, cp), flush=True)
        print("sum wall %.3f s  cpu %.3f s" % (tot_w, tot_c))
    finally:
        srv.stop()


if __name__ == "__main__":
    main()

"""Scan rates of the table layer through the wire (bench/scan/run.sh).

Loads one 16-column table (integers, numerics, dates, char and varchar,
shaped like TPC-H's lineitem) and times three queries whose cost is the
scan, each the median of RUNS warm runs (each run REPEAT executions),
printing rows scanned per second; with --postgres the same for PostgreSQL
15 (one backend, no parallel workers: the yardstick):
  full      every column of every row (aggregates over all 16 columns)
  q6        a Q6-like filtered scan (date range, BETWEEN, <) summing a product
  narrow    2 of the 16 columns
Also prints the CPU time per query of the process that ran it (Cadenza's
server, PostgreSQL's backend; the machine is shared: CPU time is steadier
than wall time). Asserts nothing.
"""
import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tests", "server"))
import srvctl  # noqa: E402
import psycopg  # noqa: E402

QUERIES = {
    "full": "SELECT count(*), sum(c1), sum(c2), sum(c3), sum(c4), sum(c5), sum(c6), "
            "max(c7), max(c8), max(c9), max(c10), max(c11), max(c12), max(c13), "
            "max(c14), max(c15), max(c16) FROM scanb",
    "q6": "SELECT sum(c6 * c7) FROM scanb WHERE c11 >= DATE '1994-01-01' "
          "AND c11 < DATE '1995-01-01' AND c7 BETWEEN 0.05 AND 0.07 AND c5 < 24",
    "narrow": "SELECT sum(c2), max(c14) FROM scanb",
}

LOAD = """
CREATE TABLE scanb (
  c1 bigint PRIMARY KEY, c2 integer NOT NULL, c3 integer NOT NULL, c4 integer NOT NULL,
  c5 numeric(15,2) NOT NULL, c6 numeric(15,2) NOT NULL, c7 numeric(15,2) NOT NULL,
  c8 numeric(15,2) NOT NULL, c9 char(1) NOT NULL, c10 char(1) NOT NULL,
  c11 date NOT NULL, c12 date NOT NULL, c13 date NOT NULL, c14 char(25) NOT NULL,
  c15 char(10) NOT NULL, c16 varchar(44) NOT NULL)
"""

INSERT = """
INSERT INTO scanb SELECT g, g % 200000, g % 10000, g % 7,
  (g % 50) + 1, (g % 100000) / 10.0 + 900, (g % 11) / 100.0, (g % 9) / 100.0,
  CASE WHEN g % 3 = 0 THEN 'A' ELSE 'N' END, CASE WHEN g % 2 = 0 THEN 'O' ELSE 'F' END,
  DATE '1992-01-01' + (g % 2500), DATE '1992-02-01' + (g % 2500),
  DATE '1992-03-01' + (g % 2500), 'DELIVER IN PERSON', 'TRUCK',
  'comment number ' || g
FROM generate_series(LO, HI) AS t(g)
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--rows", type=int, default=1000000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=4,
                    help="executions per timed run (CPU time is counted in 10 ms ticks)")
    ap.add_argument("--postgres", action="store_true",
                    help="also time PostgreSQL 15 (one backend, no parallel workers)")
    args = ap.parse_args()
    kinds = ["cadenza"] + (["postgres"] if args.postgres else [])
    for kind in kinds:
        if kind == "cadenza":
            srv = srvctl.Server("cadenza", os.path.join(args.dir, "cz"), binary=args.binary,
                                buffers=60000)
        else:
            srv = srvctl.Server("postgres", os.path.join(args.dir, "pg"),
                                pg_conf={"shared_buffers": "512MB",
                                         "max_parallel_workers_per_gather": "0"})
        srv.start()
        try:
            _run(kind, srv, args)
        finally:
            srv.stop()


def _run(kind, srv, args):
    with psycopg.connect(srv.dsn(), autocommit=True) as c:
        t0 = time.time()
        c.execute(LOAD)
        step = 100000
        for lo in range(1, args.rows + 1, step):
            c.execute(INSERT.replace("LO", str(lo)).replace("HI", str(min(lo + step - 1, args.rows))))
        if kind == "postgres":
            c.execute("VACUUM ANALYZE scanb")
            # the process that runs this connection's queries
            pid = c.execute("SELECT pg_backend_pid()").fetchone()[0]
        else:
            pid = srv.pid if hasattr(srv, "pid") else None
        print(f"{kind}: load {args.rows} rows in {time.time() - t0:.1f} s")
        for name, sql in QUERIES.items():
            c.execute(sql).fetchall()  # warm
            walls, cpus = [], []
            for _ in range(args.runs):
                cpu0 = _cpu(pid)
                t = time.perf_counter()
                for _ in range(args.repeat):
                    c.execute(sql).fetchall()
                walls.append((time.perf_counter() - t) / args.repeat)
                if pid:
                    cpus.append((_cpu(pid) - cpu0) / args.repeat)
            w = statistics.median(walls)
            line = f"{kind:8s} {name:8s} {args.rows / w / 1e6:8.2f} M rows/s  wall {w:.3f} s"
            if cpus:
                cp = statistics.median(cpus)
                line += f"  cpu {cp:.3f} s ({args.rows / cp / 1e6:.2f} M rows/s of cpu)"
            print(line, flush=True)
        if kind == "cadenza":
            print(c.execute("EXPLAIN " + QUERIES["q6"]).fetchall())


def _cpu(pid):
    if not pid:
        return 0.0
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


if __name__ == "__main__":
    main()

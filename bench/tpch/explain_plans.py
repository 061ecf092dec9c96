#!/usr/bin/env python3
"""EXPLAIN of the 22 TPC-H queries at ThreadsPerQuery 1 and 2, for
comparing the plans of two builds (diff the outputs).

  explain_plans.py --binary BUILD/binsrc/cadenza/cadenza --dir FOLDER
                   [--data BUILD/tpch-sf0.1] [--threads 1,2] > plans.txt

The server and its database live in FOLDER; a database loaded once (with
the keys and indexes tpch_test.py adds) is reused by later runs, so two
builds explain against the same data and statistics. At 2 threads
ParallelMinRows is 1, as in tpch_test.py. Estimated costs and rows are
printed as EXPLAIN prints them; run-time figures are not (no ANALYZE).
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(TOP, "tests", "server"))
import tpchlib  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    import psycopg
    work = os.path.abspath(a.dir)
    os.makedirs(work, exist_ok=True)
    loaded = os.path.join(work, ".loaded")
    threads = [int(t) for t in a.threads.split(",")]

    def params(t):
        return dict({"ThreadsPerQuery": t}, **({"ParallelMinRows": 1} if t > 1 else {}))

    srv = tpchlib.cadenza_server(os.path.join(work, "server"), os.path.abspath(a.binary),
                                 os.path.abspath(a.data), 20000,
                                 params(threads[0]))
    # the database keeps the password it was made with
    pwfile = os.path.join(work, ".password")
    if os.path.exists(pwfile):
        srv.password = open(pwfile).read().strip()
    else:
        open(pwfile, "w").write(srv.password)
    srv.start()
    try:
        if not os.path.exists(loaded):
            tpchlib.load_pg(srv.dsn(), a.data, work, "cadenza", indexes=False)
            tpchlib.add_indexes(srv.dsn(), log=lambda m: None)
            open(loaded, "w").close()
        for i, t in enumerate(threads):
            if i > 0:
                tpchlib.restart_with(srv, params(t))
            with psycopg.connect(srv.dsn(), autocommit=True) as con:
                for q in range(1, 23):
                    text = open(os.path.join(tpchlib.TOOLS, "queries", "q%02d.sql" % q)).read()
                    text = text.strip().rstrip(";")
                    print("== q%02d threads=%d" % (q, t))
                    try:
                        for row in con.execute("EXPLAIN " + text).fetchall():
                            print(row[0])
                    except psycopg.Error as e:
                        print("ERROR " + str(e).splitlines()[0])
    finally:
        srv.stop()


if __name__ == "__main__":
    sys.exit(main())

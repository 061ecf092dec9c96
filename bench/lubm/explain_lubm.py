#!/usr/bin/env python3
"""EXPLAIN ANALYZE of LUBM / Wukong queries on LUBM(10) in Cadenza: loads
../shared/data/lubm10/lubm10.nt.gz as tests/server/isolated_lubm.py does,
then for each query named (as in ../shared/data/lubm/queries, e.g.
wukong/q1 lubm14/q02) warms it three times, prints its EXPLAIN ANALYZE
(estimated against actual rows per operator, SPARQL compile, planning and
execution times) and the mean of 10 more runs. For studying join orders
and per-query fixed costs (issue 10 item 3); figures go to reports, never
into assertions.

Usage: explain_lubm.py --binary BUILD/binsrc/cadenza/cadenza --dir WORKDIR
       [--kind cadenza] QUERY...
"""
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "tests", "server"))
import checks  # noqa: E402
import isolated_lubm as lubm  # noqa: E402
import psycopg  # noqa: E402


def main():
    queries = [a for a in sys.argv[1:] if "/" in a and not a.startswith(("-", "/", "."))]
    sys.argv = [a for a in sys.argv if a not in queries]
    args = checks.isolated_args()
    if not queries:
        sys.exit("name at least one query, e.g. wukong/q1")
    srv = checks.isolated_server(args, "lubm_explain", buffers=20000,
                                 extra_ini={"Parameters": {"DirsAllowed": lubm.LUBM_DIR}})
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            t0 = time.monotonic()
            c.execute("SELECT ld_dir(%s, 'lubm10.nt.gz', NULL)", (lubm.LUBM_DIR,))
            c.execute("SELECT rdf_loader_run()")
            print("load %.1f s" % (time.monotonic() - t0), flush=True)
            for name in queries:
                text = lubm.query_text(name)
                for _ in range(3):
                    lubm.count_rows(c, text)
                print("=====", name)
                for row in c.execute("EXPLAIN ANALYZE SPARQL " + text).fetchall():
                    print(row[0])
                t0 = time.monotonic()
                for _ in range(10):
                    lubm.count_rows(c, text)
                print("mean of 10: %.2f ms" % ((time.monotonic() - t0) * 100), flush=True)
    finally:
        srv.stop()


if __name__ == "__main__":
    main()

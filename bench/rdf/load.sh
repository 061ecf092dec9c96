#!/bin/sh
# Load rate and bytes per triple of the RDF bulk loader on LUBM(10)
# (../shared/data/lubm10, about 1.3 M triples in one gzip N-Triples file).
# Starts a server of its own in BUILD/bench-rdf-load (DirsAllowed = the
# data folder), loads with binsrc/rdf-load (its progress display shows),
# then prints triples, seconds, triples/s and the bytes the store's tables
# and indexes take per triple (pg_total_relation_size over schema pg_rdf, after
# a checkpoint), then the same per table and index tree. Figures go to
# reports, never into assertions: the machine is shared, so say how loaded
# it was.
#
# Usage: bench/rdf/load.sh [BUILD_DIR] [LOADERS]   (defaults: build, 2)
# Environment: CZ_VENV (Python venv with psycopg; default BUILD/venv),
# CZ_SHARED (default ../shared), CZ_RDF_DATA (a folder of RDF files instead
# of LUBM(10)).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
loaders=${2:-2}
shared=${CZ_SHARED:-$top/../shared}
data=${CZ_RDF_DATA:-$shared/data/lubm10}
venv=${CZ_VENV:-$build/venv}
py=$venv/bin/python
work=$build/bench-rdf-load
rm -rf "$work"
mkdir -p "$work"
"$py" "$top/tests/server/srvctl.py" start cadenza "$work" --binary "$build/binsrc/cadenza/cadenza" \
  --buffers 60000 --param "DirsAllowed=$data" > "$work/server.env.out"
set -a
. "$work/server.env"
set +a
trap '"$py" "$top/tests/server/srvctl.py" stop "$work" >/dev/null' EXIT
start=$(date +%s.%N)
"$build/binsrc/rdf-load/rdf-load" -j "$loaders" -g "http://lubm.example/" "$data"
end=$(date +%s.%N)
"$py" - "$start" "$end" <<'PYEOF'
import sys
import psycopg
start, end = float(sys.argv[1]), float(sys.argv[2])
with psycopg.connect(autocommit=True) as c:
    n = c.execute("SELECT count(*) FROM pg_rdf.rdf_quad").fetchone()[0]
    c.execute("CHECKPOINT")
    size = c.execute("SELECT sum(pg_total_relation_size(c.oid)) FROM pg_class c"
                     " JOIN pg_namespace s ON s.oid = c.relnamespace"
                     " WHERE s.nspname = 'pg_rdf' AND c.relkind = 'r'").fetchone()[0] or 0
    parts = c.execute("SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c"
                      " JOIN pg_namespace s ON s.oid = c.relnamespace"
                      " WHERE s.nspname = 'pg_rdf' AND c.relkind IN ('r', 'i')"
                      " ORDER BY 2 DESC").fetchall()
secs = end - start
print("triples %d  seconds %.1f  triples/s %.0f  bytes/triple %.1f (tables and indexes of schema pg_rdf)"
      % (n, secs, n / secs if secs else 0, size / n if n else 0))
# where the bytes go: each table's primary tree and each index tree
print("  ".join("%s %.1f" % (name, sz / n) for name, sz in parts if n and sz))
PYEOF

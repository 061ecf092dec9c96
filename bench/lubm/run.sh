#!/bin/sh
# LUBM side by side (issue 10, Benchmarks): Cadenza, Virtuoso 7 (Debian's
# virtuoso-opensource, installed here through apt when missing) and
# Oxigraph (pyoxigraph, installed into the venv when missing), in one run
# on one machine: load rate and bytes per triple of LUBM(10) (or any
# N-Triples file given by CZ_LUBM_FILE, e.g. a LUBM(50) made with
# bench/lubm/gen_lubm.sh through the lubm-uba generator), then each LUBM and Wukong query's median of 5 warm
# runs and a table of ratios. The driver is bench/lubm/lubm_bench.py; each
# system's query client is one function there (Cadenza and Virtuoso over
# their SPARQL HTTP endpoints, Oxigraph in process).
# Figures go to reports, never into assertions: the machine is shared, so
# say how loaded it was.
#
# Usage: bench/lubm/run.sh [BUILD_DIR] [SYSTEMS]   (defaults: build,
#        cadenza,virtuoso,oxigraph)
# Environment: CZ_VENV (Python venv with psycopg; default BUILD/venv),
# CZ_SHARED (default ../shared), CZ_LUBM_FILE, CZ_BENCH_RUNS (5; 0 = the
# loads only, no queries).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
systems=${2:-cadenza,virtuoso,oxigraph}
venv=${CZ_VENV:-$build/venv}
py=$venv/bin/python
case ",$systems," in
  *,virtuoso,*)
    if ! command -v virtuoso-t >/dev/null 2>&1; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq virtuoso-opensource
    fi ;;
esac
case ",$systems," in
  *,oxigraph,*)
    "$py" -c 'import pyoxigraph' 2>/dev/null || "$venv/bin/pip" install -q pyoxigraph ;;
esac
exec "$py" "$top/bench/lubm/lubm_bench.py" --top "$top" --build "$build" --systems "$systems"

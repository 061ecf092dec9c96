#!/bin/sh
# BSBM side by side (issue 10, Benchmarks): the explore mix of the Berlin
# SPARQL Benchmark against Cadenza and Virtuoso 7 (Debian's
# virtuoso-opensource, installed here through apt when missing) in one run
# on one machine, each over its SPARQL HTTP endpoint, driven by the
# official Java test driver: load seconds, a qualification (every answer of
# 15 mixes compared with Virtuoso's), then with 1 and 4 clients the query
# mixes per hour (QMpH) and each query's average time, and their ratios.
# The driver is bench/bsbm/bsbm_bench.py (orchestration only; the systems
# are bench/sparql_systems.py, shared with bench/lubm).
# Figures go to reports, never into assertions: the machine is shared, so
# say how loaded it was.
#
# Usage: bench/bsbm/run.sh [BUILD_DIR] [SYSTEMS]   (defaults: build,
#        virtuoso,cadenza)
# Environment:
#   CZ_BSBM_DRIVER  a BSBM-Local checkout built by bench/bsbm/build-driver.sh
#                   (required)
#   CZ_BSBM_FILE    N-Triples file (default ../shared/data/bsbm/bsbm_1m.nt.gz);
#   CZ_BSBM_TDDATA  its parameter pools, folder or .tar.gz (default
#                   ../shared/data/bsbm/td_data_1m.tar.gz): for the 10M set
#                   the generator's -fn and -dir outputs
#   CZ_BSBM_CLIENTS (1,4), CZ_BSBM_WARMUP (20), CZ_BSBM_RUNS (100),
#   CZ_VENV (Python venv with psycopg; default BUILD/venv), CZ_SHARED
#   (default ../shared).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build=$top/$build ;; esac
systems=${2:-virtuoso,cadenza}
venv=${CZ_VENV:-$build/venv}
shared=${CZ_SHARED:-$(dirname "$top")/shared}
: "${CZ_BSBM_DRIVER:?set CZ_BSBM_DRIVER to a BSBM-Local checkout built by bench/bsbm/build-driver.sh}"
case ",$systems," in
  *,virtuoso,*)
    if ! command -v virtuoso-t >/dev/null 2>&1; then
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq virtuoso-opensource
    fi ;;
esac
exec "$venv/bin/python" "$top/bench/bsbm/bsbm_bench.py" --top "$top" --build "$build" \
  --systems "$systems" --driver "$CZ_BSBM_DRIVER" \
  --data "${CZ_BSBM_FILE:-$shared/data/bsbm/bsbm_1m.nt.gz}" \
  --tddata "${CZ_BSBM_TDDATA:-$shared/data/bsbm/td_data_1m.tar.gz}" \
  --queries "$shared/data/bsbm/queries/explore" \
  --clients "${CZ_BSBM_CLIENTS:-1,4}" --warmup "${CZ_BSBM_WARMUP:-20}" --runs "${CZ_BSBM_RUNS:-100}"

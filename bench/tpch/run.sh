#!/bin/sh
# TPC-H benchmark: Cadenza (ThreadsPerQuery 1 and 2), PostgreSQL 15
# (max_parallel_workers_per_gather 0 and 2) and DuckDB (1 and 2 threads),
# started and measured by this script on this machine in one run, on the
# same data: load times, each query's median of 3 warm runs, the sum and
# the geometric mean, each query's ratio Cadenza/PostgreSQL and
# Cadenza/DuckDB, and every system's answers against DuckDB's. Prints a
# table (also written to DIR/report.md); asserts nothing.
#
# Data: tpchgen-cli (the venv's, scripts/install-deps.sh), generated once
# per scale factor into build/tpch-sf<SF> (outside git) and reused. The
# tools are the shared ones, ../shared/tools/sql/tpch/ (load.py,
# run_tpch.py, compare_results.py), called in place.
#
# Usage: bench/tpch/run.sh [options]
#   --sf N            scale factor (default 1)
#   --timeout S       statement_timeout per query, s (default 300): a
#                     hopeless query is reported as >S, not waited for
#   --runs N          timed runs per query, the median reported (default 3)
#   --warmup N        untimed runs before them (default 1)
#   --only LIST       some queries only, e.g. 1,6,17
#   --systems LIST    cadenza,postgres,duckdb (default all three)
#   --vector1         also Cadenza with VectorSize = 1 on Q1, Q3, Q9
#   --cz-param K=V    another Cadenza [Parameters] key (repeatable), e.g.
#                     MaxQueryMem=8G: at SF 1 the default 1G stops Q3, Q5,
#                     Q7, Q8, Q9, Q18 and Q21 with 53200 until joins spill
#   --binary PATH     the cadenza binary (default: an optimised build in
#                     build-bench/, made first)
#   --dir DIR         scratch folder (default: a temp folder, kept: the
#                     report and the per-system JSON are in it)
# Environment: CZ_VENV (default build/venv), CZ_SHARED (default ../shared).
set -u
cd "$(dirname "$0")/../.."
top=$(pwd)
binary=""
dir=""
args=""
systems=cadenza,postgres,duckdb
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --systems) systems=$2; args="$args --systems $2"; shift 2 ;;
    --sf|--timeout|--runs|--warmup|--only) args="$args $1 $2"; shift 2 ;;
    --vector1) args="$args --vector1"; shift ;;
    --cz-param) args="$args --cz-param $2"; shift 2 ;;
    *) echo "bench/tpch/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

venv=${CZ_VENV:-build/venv}
CZ_VENV=$venv ./scripts/install-deps.sh || exit 1
case ",$systems," in
  *,cadenza,*)
    if [ -z "$binary" ]; then
      [ -x configure ] || autoreconf -fi
      mkdir -p build-bench
      (cd build-bench && { [ -f Makefile ] || "$top/configure" -q; } &&
         make -s -j"$(nproc)" binsrc/cadenza/cadenza >make-tpch-bench.out 2>&1) ||
        { echo "build failed:"; tail -n 30 build-bench/make-tpch-bench.out; exit 1; }
      binary=$top/build-bench/binsrc/cadenza/cadenza
    fi ;;
esac
[ -n "$dir" ] || dir=$(mktemp -d /tmp/cz-tpch-bench.XXXXXX)
mkdir -p "$dir"
chmod 755 "$dir"
echo "scratch folder: $dir"
PYTHONDONTWRITEBYTECODE=1
export PYTHONDONTWRITEBYTECODE
# shellcheck disable=SC2086
exec "$venv/bin/python3" "$top/bench/tpch/tpch_bench.py" --dir "$dir" \
  --binary "${binary:-none}" $args

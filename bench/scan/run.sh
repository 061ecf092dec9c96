#!/bin/sh
# Scan benchmark: rows scanned per second by Cadenza for a full scan of a
# 16-column table, a Q6-like filtered scan and a scan of 2 of its 16
# columns (bench/scan/scan_bench.py says what each query is). Prints
# figures; asserts nothing.
#
# Usage: bench/scan/run.sh [--binary PATH] [--rows N] [--runs N] [--dir DIR] [--postgres]
#   --binary PATH   the cadenza binary (default build/binsrc/cadenza/cadenza)
#   --rows N        rows of the table (default 1000000)
#   --runs N        timed runs per query, the median printed (default 3)
#   --dir DIR       scratch folder (default: a temp folder, removed)
#   --postgres      also time PostgreSQL 15 on the same data (the yardstick)
# Environment: CZ_VENV (default build/venv): the venv with psycopg.
set -u
cd "$(dirname "$0")/../.."
top=$(pwd)
binary=$top/build/binsrc/cadenza/cadenza
rows=1000000
runs=3
dir=""
pg=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --postgres) pg=--postgres; shift ;;
    *) echo "scan/run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
venv=${CZ_VENV:-$top/build/venv}
keep=1
if [ -z "$dir" ]; then
  dir=$(mktemp -d)
  chmod 755 "$dir"  # PostgreSQL runs as its own user when we are root
  keep=0
fi
"$venv/bin/python3" bench/scan/scan_bench.py --binary "$binary" --dir "$dir" \
  --rows "$rows" --runs "$runs" $pg
rc=$?
[ $keep = 0 ] && rm -rf "$dir"
exit $rc

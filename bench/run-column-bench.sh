#!/bin/sh
# Builds an optimised Cadenza in build-bench/ and prints the per-codec
# figures of libsrc/column (bytes per value, encode, decode and predicate
# speed) on 10 M-value columns.
# Usage: bench/run-column-bench.sh [column_bench options, e.g. -n 1000000 -s 4096]
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
[ -x configure ] || autoreconf -fi
mkdir -p build-bench
cd build-bench
[ -f Makefile ] || "$top/configure" -q
make -s -j2 bench/column_bench
./bench/column_bench "$@"

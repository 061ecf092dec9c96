#!/bin/sh
# Builds an optimised Cadenza in build-bench/ and runs the storage engine
# benchmark against SQLite on the same machine in the same run.
# Usage: bench/run-bt-bench.sh [bt_bench options, e.g. -n 10000000 -d /tmp/cz-bench]
set -e
cd "$(dirname "$0")/.."
top=$(pwd)
./scripts/install-deps.sh
[ -x configure ] || autoreconf -fi
mkdir -p build-bench
cd build-bench
[ -f Makefile ] || "$top/configure" -q
make -s -j"$(nproc)" bench/bt_bench
./bench/bt_bench "$@"

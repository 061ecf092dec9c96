#!/bin/sh
# LUBM(N) N-Triples through the UBA generator (Rob Vesse's rewrite of the
# Lehigh generator, GitHub rvesse/lubm-uba; Java and Maven), built by the
# user outside this repository: no generator code lives here.
# The options are the ones of ../shared/data/lubm10 (see its README):
# N-Triples, partial consolidation (one file per university), the
# univ-bench ontology IRI, seed 0, start index 0. The per-university files
# are concatenated in University0..N-1 order and gzipped into one file,
# so LUBM(10) made this way is byte for byte the shared LUBM(10) (md5 of
# the uncompressed stream 56bfe9580b1f82f11f87e4db6fc69f91), and the first
# ten universities of any larger N are that same data.
#
# Usage: bench/lubm/gen_lubm.sh UBA_DIR N OUT.nt.gz
#   UBA_DIR  a checkout of lubm-uba after `mvn package` (has target/lubm-uba.jar)
# Then:  CZ_LUBM_FILE=OUT.nt.gz bench/lubm/run.sh build cadenza,virtuoso
#        (CZ_BENCH_RUNS=0 measures the loads only).
set -eu
[ $# -eq 3 ] || { echo "usage: $0 UBA_DIR N OUT.nt.gz" >&2; exit 2; }
jar=$(cd "$1" && pwd)/target/lubm-uba.jar
n=$2
out=$3
[ -f "$jar" ] || { echo "$0: $jar missing: run mvn package in $1 first" >&2; exit 1; }
case "$n" in ''|*[!0-9]*) echo "$0: N must be a number of universities" >&2; exit 2 ;; esac
parts=$(mktemp -d "${TMPDIR:-/tmp}/lubm-parts.XXXXXX")
trap 'rm -rf "$parts"' EXIT
# The generator writes its log.txt into the current folder: run it in parts.
(cd "$parts" && java ${JAVA_OPTS:-} -jar "$jar" -u "$n" --format NTRIPLES --consolidate Partial \
  --onto http://swat.cse.lehigh.edu/onto/univ-bench.owl -o "$parts" -q >/dev/null)
i=0
while [ "$i" -lt "$n" ]; do
  f=$parts/University$i.nt
  [ -f "$f" ] || { echo "$0: generator wrote no $f" >&2; exit 1; }
  cat "$f"
  i=$((i + 1))
done | gzip -6 > "$out.tmp"
mv "$out.tmp" "$out"
echo "$out: $(gzip -dc "$out" | wc -l) lines"

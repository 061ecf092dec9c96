#!/bin/sh
# Runs the test programs of one build folder and prints a closing line
# "N passed, N failed". Usage: run-tests.sh BUILD_DIR [unit|all]
#   unit: tests/unit only (the sanitizer build); all (default): unit tests,
#   then the system tests under tests/ (crash, larger-than-memory, concurrency).
# Each program is one CMocka group or one system test; it passes when it
# exits 0. Output of each program goes to BUILD_DIR/test-logs/<name>.log and
# is shown when it fails.
#
# Unit programs run CZ_TEST_JOBS at a time (default: the CPUs; each has its
# own temporary folder, cz_test_tmpdir), the ones named in
# tests/unit/slow-first.txt first so that the longest do not start last.
# System tests run one at a time: they measure memory and time under load.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)

if [ "${1:-}" = "--one" ]; then # --one BUILD_DIR PROG: one program, one line
  build=$2
  prog=$3
  logs="$build/test-logs"
  name=$(echo "$prog" | sed "s|^$build/||; s|/|_|g")
  start=$(date +%s)
  if timeout 1200 "$prog" >"$logs/$name.log" 2>&1; then
    echo "PASS $name ($(($(date +%s) - start))s)"
  else
    rc=$?
    echo "FAIL $name (exit $rc, $(($(date +%s) - start))s)"
  fi
  exit 0
fi

build=${1:?usage: run-tests.sh BUILD_DIR [unit|all]}
mode=${2:-all}
logs="$build/test-logs"
mkdir -p "$logs"
jobs=${CZ_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
results="$logs/results.txt"
: >"$results"

unit=$(find "$build/tests/unit" -type f -name 'test_*' -perm -u+x ! -name '*.o' 2>/dev/null | sort)
slow=""
if [ -f "$top/tests/unit/slow-first.txt" ]; then
  for s in $(grep -v '^#' "$top/tests/unit/slow-first.txt"); do
    for p in $unit; do
      case "$p" in */"$s") slow="$slow $p" ;; esac
    done
  done
fi
ordered=$slow
for p in $unit; do
  case " $slow " in *" $p "*) ;; *) ordered="$ordered $p" ;; esac
done
printf '%s\n' $ordered | xargs -r -n 1 -P "$jobs" "$0" --one "$build" | tee -a "$results"

if [ "$mode" = all ]; then
  for p in $(find "$build/tests" -path "$build/tests/unit" -prune -o -type f -name 'test_*' \
               -perm -u+x ! -name '*.o' -print 2>/dev/null | sort); do
    "$0" --one "$build" "$p" | tee -a "$results"
  done
fi

failed_names=$(sed -n 's/^FAIL \([^ ]*\) .*/\1/p' "$results")
for n in $failed_names; do
  echo "last lines of $logs/$n.log:"
  tail -n 30 "$logs/$n.log" | sed 's/^/    /'
done
passed=$(grep -c '^PASS ' "$results")
failed=$(grep -c '^FAIL ' "$results")
[ -n "$failed_names" ] && echo "failed:" $failed_names
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

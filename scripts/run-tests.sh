#!/bin/sh
# Runs the test programs of one build folder and prints a closing line
# "N passed, N failed". Usage: run-tests.sh BUILD_DIR [unit|all]
#   unit: tests/unit only (the sanitizer build); all (default): unit tests,
#   then the system tests under tests/ (crash, larger-than-memory, concurrency).
# Each program is one CMocka group or one system test; it passes when it
# exits 0. Output of each program goes to BUILD_DIR/test-logs/<name>.log and
# is shown when it fails.
set -u
build=${1:?usage: run-tests.sh BUILD_DIR [unit|all]}
mode=${2:-all}
logs="$build/test-logs"
mkdir -p "$logs"
passed=0
failed=0
failed_names=""

run_one() {
  prog=$1
  name=$(echo "$prog" | sed "s|^$build/||; s|/|_|g")
  start=$(date +%s)
  if timeout 1200 "$prog" >"$logs/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "PASS $name ($(( $(date +%s) - start ))s)"
  else
    rc=$?
    failed=$((failed + 1))
    failed_names="$failed_names $name"
    echo "FAIL $name (exit $rc, $(( $(date +%s) - start ))s) — last lines of $logs/$name.log:"
    tail -n 30 "$logs/$name.log" | sed 's/^/    /'
  fi
}

progs=$(find "$build/tests/unit" -type f -name 'test_*' -perm -u+x 2>/dev/null | sort)
if [ "$mode" = all ]; then
  progs="$progs $(find "$build/tests" -path "$build/tests/unit" -prune -o -type f -name 'test_*' -perm -u+x -print 2>/dev/null | sort)"
fi
for p in $progs; do
  case "$p" in *.o|*.log) continue ;; esac
  run_one "$p"
done
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

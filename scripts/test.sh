#!/bin/sh
# The one command that installs what is needed, builds Cadenza and runs every
# test (see README.md). Run as root on Debian 12 from the repository root.
#   1. system packages (scripts/install-deps.sh)
#   2. release build with -Werror in build/, all tests, then the server
#      tests against build/binsrc/cadenza/cadenza (tests/server/run.sh)
#   3. ASan+UBSan build in build-asan/, unit tests and the SQL files through the server
# Ends with "N passed, N failed" over both builds; exit status 0 when all pass.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
./scripts/install-deps.sh || { echo "0 passed, 1 failed"; exit 1; }
autoreconf -fi >/dev/null 2>&1 || { autoreconf -fi; echo "0 passed, 1 failed"; exit 1; }
jobs=$(nproc 2>/dev/null || echo 2)

build_in() { # dir, configure flags...
  dir=$1; shift
  mkdir -p "$dir" && cd "$dir" &&
    "$top/configure" -q "$@" >configure.out 2>&1 &&
    make -s -j"$jobs" >make.out 2>&1
  rc=$?
  cd "$top"
  if [ $rc -ne 0 ]; then
    echo "build in $dir failed:"; tail -n 40 "$dir/configure.out" "$dir/make.out" 2>/dev/null
  fi
  return $rc
}

total_p=0; total_f=0
summarize() { # the runner's last line "N passed, N failed"
  line=$(tail -n 1 "$1")
  total_p=$((total_p + $(echo "$line" | sed -n 's/^\([0-9]*\) passed.*/\1/p')))
  total_f=$((total_f + $(echo "$line" | sed -n 's/.*, \([0-9]*\) failed$/\1/p')))
}

if build_in build --enable-werror; then
  ./scripts/run-tests.sh build all | tee build/test-summary.txt
  summarize build/test-summary.txt
  # the server through the wire: SQL files, corpus, clients, concurrency,
  # bad input, crash (tests/server/run.sh)
  ./tests/server/run.sh build | tee build/server-test-summary.txt
  summarize build/server-test-summary.txt
else
  total_f=$((total_f + 1))
fi
if build_in build-asan --enable-werror --enable-sanitizers --enable-debug; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ./scripts/run-tests.sh build-asan unit | tee build-asan/test-summary.txt
  summarize build-asan/test-summary.txt
  # The SQL regression files through a sanitized server (STYLE.md: the
  # sanitizer build runs the unit and SQL tests).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ./tests/server/run.sh build-asan --only sql | tee build-asan/server-test-summary.txt
  summarize build-asan/server-test-summary.txt
else
  total_f=$((total_f + 1))
fi
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]

#!/bin/sh
# The server test stage: starts a server, runs the SQL regression files,
# the sqllogictest corpus files, the client checks, the concurrency and
# bad-input tests against it, stops it cleanly, then runs the crash test
# (which starts and kills servers of its own). Prints PASS/FAIL per test
# and a closing line "N passed, N failed"; exit status 0 when all pass.
#
# Usage: tests/server/run.sh [BUILD_DIR] [options]
#   BUILD_DIR           build folder holding binsrc/cadenza/cadenza (default build)
#   --target KIND       cadenza (default) or postgres: the same tests against
#                       a PostgreSQL 15 cluster, the reference they are
#                       written to
#   --seconds N         concurrency test duration (default 60, $CZ_CONCURRENCY_SECONDS)
#   --crash-rounds N    kill -9 cycles of the crash test (default 36)
#   --quick             10 s concurrency, 6 crash cycles, no corpus files
#   --only LIST         comma list of groups: sql,corpus,clients,protocol,isql,
#                       regress,fuzz,concurrency,sqlvariants,isolated,tpch,crash
#                       (sqlvariants: tests/sql/*.test again on servers with
#                       VectorSize = 1 and with ThreadsPerQuery = 2 and
#                       ParallelMinRows = 1; tpch:
#                       TPC-H SF 0.1 answers against DuckDB's,
#                       tests/server/tpch_test.py; data cached in
#                       BUILD_DIR/tpch-sf0.1; $CZ_TPCH_TIMEOUT s per query,
#                       default 60); also difffuzz, which no default run
#                       includes: the differential fuzzer's long run (its
#                       short run is in isolated); and httpfuzz, the SPARQL
#                       HTTP fuzzer's long run ($CZ_HTTPFUZZ_SECONDS,
#                       default 600; 30 s of it are in isolated)
#   --layout row|column the shared server's (and the sqlvariants servers')
#                       [Parameters] DefaultLayout: --layout column runs the
#                       suite on column tables (tables that cannot be
#                       column-wise, INTERVAL columns, stay row)
#   --difffuzz-queries N, --difffuzz-seed S
#                       the long run's size (default 5000) and seed (default 1)
# Environment: CZ_VENV (Python venv with psycopg and pyodbc, default
# build/venv, made by scripts/install-deps.sh), CZ_SHARED (default ../shared).
# Logs: BUILD_DIR/server-tests/logs/<test>.log, the server's in
# BUILD_DIR/server-tests/server/.
set -u
CZ_TOP=$(cd "$(dirname "$0")/../.." && pwd)
build=build
case "${1:-}" in -*|"") ;; *) build=$1; shift ;; esac
case "$build" in /*) ;; *) build=$(pwd)/$build ;; esac
CZ_BUILD=$build
target=cadenza
secs=${CZ_CONCURRENCY_SECONDS:-60}
rounds=36
corpus=1
only=sql,corpus,clients,protocol,isql,regress,fuzz,concurrency,sqlvariants,isolated,tpch,crash
dfq=5000
dfs=1
layout=""
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --crash-rounds) rounds=$2; shift 2 ;;
    --quick) secs=10; rounds=6; corpus=0; shift ;;
    --only) only=$2; shift 2 ;;
    --difffuzz-queries) dfq=$2; shift 2 ;;
    --difffuzz-seed) dfs=$2; shift 2 ;;
    --layout)
      case "$2" in row|column) layout=$2 ;; *) echo "run.sh: --layout row|column" >&2; exit 2 ;; esac
      shift 2 ;;
    *) echo "run.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
PYTHONDONTWRITEBYTECODE=1
export CZ_TOP CZ_BUILD PYTHONDONTWRITEBYTECODE
. "$CZ_TOP/tests/server/lib.sh"

work=$build/server-tests
logs=$work/logs
rm -rf "$work"
mkdir -p "$logs"
passed=0
failed=0
failed_names=""
want() { case ",$only," in *",$1,"*) return 0 ;; esac; return 1; }

# run_test NAME TIMEOUT_S COMMAND...: PASS when the command exits 0
run_test() {
  name=$1; limit=$2; shift 2
  start=$(date +%s)
  if timeout "$limit" "$@" >"$logs/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "PASS $name ($(( $(date +%s) - start ))s)"
  else
    rc=$?
    failed=$((failed + 1))
    failed_names="$failed_names $name"
    echo "FAIL $name (exit $rc, $(( $(date +%s) - start ))s) — last lines of $logs/$name.log:"
    tail -n 25 "$logs/$name.log" | cut -c 1-300 | sed 's/^/    /'
  fi
}

# run_counted NAME TIMEOUT_S COMMAND...: a script with PASS/FAIL lines of
# its own and a closing "N passed, N failed"; its counts join ours (a
# non-zero exit without a failed check counts as one failure)
run_counted() {
  name=$1; limit=$2; shift 2
  start=$(date +%s)
  timeout "$limit" "$@" >"$logs/$name.log" 2>&1
  rc=$?
  line=$(tail -n 1 "$logs/$name.log")
  p=$(echo "$line" | sed -n 's/^\([0-9]*\) passed, [0-9]* failed$/\1/p')
  f=$(echo "$line" | sed -n 's/^[0-9]* passed, \([0-9]*\) failed$/\1/p')
  if [ -z "$p" ] || { [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; }; then p=${p:-0}; f=$(( ${f:-0} + 1 )); fi
  passed=$((passed + p)); failed=$((failed + f))
  if [ "$f" -eq 0 ]; then
    echo "PASS $name: $p checks ($(( $(date +%s) - start ))s)"
  else
    failed_names="$failed_names $name"
    echo "FAIL $name: $p passed, $f failed (exit $rc, $(( $(date +%s) - start ))s) — from $logs/$name.log:"
    grep -E '^FAIL' "$logs/$name.log" | head -n 25 | cut -c 1-300 | sed 's/^/    /'
    tail -n 3 "$logs/$name.log" | cut -c 1-300 | sed 's/^/    /'
  fi
}

finish() {
  if [ "$failed" -gt 0 ] && [ -n "$SRV_DIR" ] && [ -d "$SRV_DIR" ]; then
    echo "server log (last lines):"
    srv_log 40 2>/dev/null | cut -c 1-300 | sed 's/^/    /'
  fi
  srv_stop
  [ -n "$failed_names" ] && echo "failed:$failed_names"
  echo "$passed passed, $failed failed"
  [ "$failed" -eq 0 ]
  exit $?
}

if [ "$target" = cadenza ] && [ ! -x "$build/binsrc/cadenza/cadenza" ]; then
  echo "FAIL server_start — no server binary at $build/binsrc/cadenza/cadenza"
  failed=1
  finish
fi
slt="$CZ_SHARED/tools/sql/slt.py"
engine=postgresql
[ "$target" = cadenza ] && engine=cadenza

layout_param=""
[ -n "$layout" ] && [ "$target" = cadenza ] && layout_param="--param DefaultLayout=$layout"

server_up() {
  if ! srv_start "$target" "$work/server" $layout_param >"$logs/server_start.log" 2>&1; then
    failed=$((failed + 1))
    failed_names="$failed_names server_start"
    echo "FAIL server_start — last lines of $logs/server_start.log:"
    tail -n 30 "$logs/server_start.log" | sed 's/^/    /'
    return 1
  fi
  echo "server: $target pid $SRV_PID on port $PGPORT ($SRV_DIR)"
}

if want sql || want corpus || want clients || want protocol || want isql || want regress ||
   want concurrency || want fuzz; then
  server_up || finish
  dsn=$(srv_dsn)

  if want sql; then
    for f in "$CZ_TOP"/tests/sql/*.test; do
      b=$(basename "$f" .test)
      for proto in simple extended; do
        run_test "sql_${b}_$proto" 300 "$TB_PY" "$slt" --dsn "$dsn" --protocol $proto \
          --engine $engine --timeout 30 "$f"
      done
    done
  fi
  if want corpus && [ "$corpus" = 1 ]; then
    # every file of the corpus (new ones too), each record answered as the
    # file says or, where PostgreSQL 15 itself disagrees with the file, as
    # listed in tests/sql/slt_pg_differences.tsv (tests/server/corpus_slt.py);
    # the extended protocol on select1 (the same records, bound and described)
    run_counted slt_corpus 2400 "$TB_PY" "$CZ_TOP/tests/server/corpus_slt.py" --dsn "$dsn" \
      --slt "$slt" --corpus "$CZ_SHARED/data/slt"
    run_test slt_select1_extended 900 "$TB_PY" "$slt" --dsn "$dsn" --protocol extended \
      --timeout 60 "$CZ_SHARED/data/slt/select1.test"
  fi
  if want clients; then
    run_test client_setup_items 60 psql -X -q -v ON_ERROR_STOP=1 -f "$CZ_TOP/tests/clients/setup_items.sql"
    run_test client_psql 120 "$CZ_TOP/tests/clients/psql_test.sh"
    run_test client_psycopg 120 "$CZ_TOP/tests/clients/psycopg_test.sh"
    run_test client_jdbc 600 "$CZ_TOP/tests/clients/jdbc_test.sh"
    run_counted client_jdbc_meta 300 "$CZ_TOP/tests/clients/jdbc_meta_test.sh"
    run_counted client_sqlalchemy 300 "$TB_PY" "$CZ_TOP/tests/clients/sqlalchemy_test.py"
    # pg_dump round trips on servers of its own (Cadenza → Cadenza,
    # PostgreSQL 15 → Cadenza): tests/clients/pgdump_test.sh
    run_test client_pgdump 300 "$CZ_TOP/tests/clients/pgdump_test.sh"
    run_test client_pyodbc 120 "$CZ_TOP/tests/clients/odbc_test.sh" pyodbc
    run_test client_unixodbc_isql 120 "$CZ_TOP/tests/clients/odbc_test.sh" isql
    # the README's SPARQL examples (curl, isql-cz, rdflib, Jena via Maven
    # like client_jdbc) on the demo knowledge graph, a server of its own
    run_counted client_sparql 900 "$TB_PY" "$CZ_TOP/tests/clients/sparql_clients_test.py"
  fi
  if want protocol; then
    run_counted protocol 300 "$TB_PY" "$CZ_TOP/tests/server/protocol_test.py" --dsn "$dsn"
    run_counted sqlstate 300 "$TB_PY" "$CZ_TOP/tests/server/sqlstate_test.py" --dsn "$dsn"
  fi
  if want isql && [ -x "$CZ_TOP/tests/server/isql_test.sh" ]; then
    # isql-cz's own checks (the isql helper's script)
    CZ_HOST=$PGHOST CZ_PORT=$PGPORT CZ_USER=$PGUSER CZ_PASSWORD=$PGPASSWORD CZ_DATABASE=$PGDATABASE
    export CZ_HOST CZ_PORT CZ_USER CZ_PASSWORD CZ_DATABASE
    run_counted isql 300 "$CZ_TOP/tests/server/isql_test.sh"
  fi
  if want regress; then
    # regression checks against the shared server, one script per class of
    # defect: tests/server/regress_*.py --dsn DSN --kind KIND, each printing
    # PASS/FAIL lines and "N passed, N failed"
    for t in "$CZ_TOP"/tests/server/regress_*.py; do
      [ -f "$t" ] || continue
      run_counted "$(basename "$t" .py)" 600 "$TB_PY" "$t" --dsn "$dsn" --kind "$target"
    done
  fi
  if want fuzz; then
    run_counted bad_input 600 "$TB_PY" "$CZ_TOP/tests/server/fuzz.py" --random 300
  fi
  # last against this server: a server that stalls under load would take
  # the tests after it down too
  if want concurrency; then
    run_test concurrency $((secs + 300)) "$TB_PY" "$CZ_TOP/tests/server/concurrency.py" \
      --dsn "$dsn" --clients 32 --seconds "$secs"
  fi
  # the server survived all of it and shuts down cleanly on SIGTERM
  # (PostgreSQL: SIGINT, fast shutdown)
  run_test server_clean_shutdown 120 sh -c '
    kill -0 "$SRV_PID" || { echo "server $SRV_PID is gone"; exit 1; }
    kill -'"$( [ "$target" = postgres ] && echo INT || echo TERM )"' "$SRV_PID"
    i=0
    while kill -0 "$SRV_PID" 2>/dev/null && ! grep -q "^State:.*Z" /proc/$SRV_PID/status 2>/dev/null; do
      i=$((i + 1)); [ $i -gt 600 ] && { echo "still running 60 s after SIGTERM"; exit 1; }
      sleep 0.1
    done
    echo "stopped after $((i / 10)) s"'
  srv_stop
fi

if want sqlvariants && [ "$target" = cadenza ]; then
  # the SQL files on a server of one-row batches (every operator's batch
  # boundaries) and on one of two threads per query
  for v in VectorSize=1 ThreadsPerQuery=2; do
    # at two threads every block over a table of any size gets its
    # parallel plan (ParallelMinRows), not only those over 100 000 rows
    extra=""
    [ "$v" = ThreadsPerQuery=2 ] && extra="--param ParallelMinRows=1"
    # shellcheck disable=SC2086
    if srv_start cadenza "$work/server-$v" --param "$v" $extra $layout_param >"$logs/server_$v.log" 2>&1; then
      vdsn=$(srv_dsn)
      for f in "$CZ_TOP"/tests/sql/*.test; do
        run_test "sql_$(basename "$f" .test)_$v" 300 "$TB_PY" "$slt" --dsn "$vdsn" \
          --engine cadenza --timeout 30 "$f"
      done
      srv_stop
    else
      failed=$((failed + 1)); failed_names="$failed_names server_$v"
      echo "FAIL server_$v — see $logs/server_$v.log"
    fi
  done
fi

if want isolated; then
  # tests that start (and limit, kill or misconfigure) servers of their own:
  # tests/server/isolated_*.py --kind KIND --binary PATH --dir FOLDER
  for t in "$CZ_TOP"/tests/server/isolated_*.py; do
    [ -f "$t" ] || continue
    n=$(basename "$t" .py)
    run_counted "$n" 900 "$TB_PY" "$t" --kind "$target" \
      --binary "$build/binsrc/cadenza/cadenza" --dir "$work/$n"
  done
fi
if want difffuzz; then
  # the differential fuzzer's long run: Cadenza against PostgreSQL 15 on
  # $dfq random queries (about 25 queries a second on this machine)
  run_counted difffuzz_long $((dfq / 5 + 600)) "$TB_PY" "$CZ_TOP/tests/server/isolated_difffuzz.py" \
    --kind "$target" --binary "$build/binsrc/cadenza/cadenza" --dir "$work/difffuzz_long" \
    --queries "$dfq" --seed "$dfs" --seconds 0
fi
if want httpfuzz; then
  # the SPARQL-text and random-byte fuzzer over HTTP for longer than the
  # isolated group's 30 s (tests/server/isolated_http_fuzz.py)
  hfs=${CZ_HTTPFUZZ_SECONDS:-600}
  run_counted httpfuzz_long $((hfs + 600)) "$TB_PY" "$CZ_TOP/tests/server/isolated_http_fuzz.py" \
    --kind "$target" --binary "$build/binsrc/cadenza/cadenza" --dir "$work/httpfuzz_long" --seconds "$hfs"
fi
if want tpch; then
  # the 22 TPC-H queries at SF 0.1 against DuckDB's answers, at
  # ThreadsPerQuery 1 and 2 (about a minute on 2 cores, data generation
  # and load included)
  run_counted tpch 5400 "$TB_PY" "$CZ_TOP/tests/server/tpch_test.py" --kind "$target" \
    --binary "$build/binsrc/cadenza/cadenza" --dir "$work/tpch" \
    --data "$build/tpch-sf0.1" --timeout "${CZ_TPCH_TIMEOUT:-60}" ${layout:+--layout "$layout"}
fi
if want crash; then
  # the ledger under kill -9, kills during CHECKPOINT, COPY, CREATE INDEX and
  # DROP TABLE (about 2 minutes for 36 cycles on 2 cores)
  run_test crash 900 "$TB_PY" "$CZ_TOP/tests/server/crash.py" --kind "$target" \
    --binary "$build/binsrc/cadenza/cadenza" --rounds "$rounds" --dir "$work/crash" \
    ${layout:+--layout "$layout"}
  if [ "$target" = cadenza ] && [ "$layout" != column ]; then
    # the same with column tables, 8 cycles (one kill during a COPY among
    # them, whose replay goes through the column trees' batch path; about
    # 30 s on 2 cores): issue 9
    run_test crash_column 600 "$TB_PY" "$CZ_TOP/tests/server/crash.py" --kind "$target" \
      --binary "$build/binsrc/cadenza/cadenza" --rounds 8 --dir "$work/crash_column" \
      --layout column
  fi
fi
finish

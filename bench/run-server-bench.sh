#!/bin/sh
# Server benchmark over the wire: Cadenza against PostgreSQL 15 from Debian,
# both started by this script on this machine, measured in the same run
# with the same client (Debian's pgbench, -n -M prepared, custom scripts):
#   point select       SELECT v, pad FROM bench_kv WHERE k = $1 (random k)
#   single-row insert  INSERT INTO bench_ins VALUES ($1, $2), autocommit
#                      (random 63-bit keys into a primary key)
# with 1, 8 and 32 clients, then bulk COPY FROM STDIN (psql \copy, text
# format) of the same file into an empty table with a primary key, as rows
# per second of wall clock and per second of the server's CPU time
# (process, threads and child processes: robust on a loaded machine).
# Prints a table of figures and ratios; asserts nothing.
#
# Both servers are durable per commit: Cadenza flushes its log at commit
# (group commit); PostgreSQL runs with fsync = on, synchronous_commit = on.
#
# Usage: bench/run-server-bench.sh [options]
#   --binary PATH     the cadenza binary (default: an optimised build in
#                     build-bench/, made first)
#   --seconds N       seconds per pgbench run (default 10)
#   --clients LIST    client counts (default "1 8 32")
#   --rows N          rows of bench_kv (default 100000)
#   --copy-rows N     rows of the COPY test (default 1000000)
#   --only KIND       cadenza or postgres: one side only
#   --dir DIR         scratch folder (default: a temp folder, removed)
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
binary=""
secs=10
clients="1 8 32"
rows=100000
copy_rows=1000000
only=""
dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --binary) binary=$2; shift 2 ;;
    --seconds) secs=$2; shift 2 ;;
    --clients) clients=$2; shift 2 ;;
    --rows) rows=$2; shift 2 ;;
    --copy-rows) copy_rows=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "run-server-bench.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
kinds="cadenza postgres"
[ -n "$only" ] && kinds=$only

./scripts/install-deps.sh || exit 1
if [ -z "$binary" ] && [ "$only" != postgres ]; then
  [ -x configure ] || autoreconf -fi
  mkdir -p build-bench
  (cd build-bench && { [ -f Makefile ] || "$top/configure" -q; } &&
     make -s -j"$(nproc)" binsrc/cadenza/cadenza >make-server-bench.out 2>&1) ||
    { echo "build failed:"; tail -n 30 build-bench/make-server-bench.out; exit 1; }
  binary=$top/build-bench/binsrc/cadenza/cadenza
fi
CZ_TOP=$top
CZ_BUILD=$top/build-bench
export CZ_TOP CZ_BUILD
. "$top/tests/server/lib.sh"
PGBENCH=$(command -v pgbench || echo /usr/lib/postgresql/15/bin/pgbench)

keep=1
if [ -z "$dir" ]; then dir=$(mktemp -d /tmp/cz-server-bench.XXXXXX); keep=0; fi
mkdir -p "$dir"
chmod 755 "$dir"
res=$dir/results.txt
: >"$res"
started=""
cleanup() {
  for k in $started; do
    tb_py "$top/tests/server/srvctl.py" stop "$dir/$k" >/dev/null 2>&1
  done
  [ "$keep" = 0 ] && rm -rf "$dir"
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM

cat >"$dir/select.sql" <<EOF
\set k random(1, $rows)
SELECT v, pad FROM bench_kv WHERE k = :k;
EOF
cat >"$dir/insert.sql" <<'EOF'
\set k random(1, 9000000000000000000)
\set v random(1, 1000000)
INSERT INTO bench_ins VALUES (:k, :v);
EOF
# the same data for both: bench_kv's rows and the COPY file (text format)
awk -v n="$rows" 'BEGIN { for (i = 1; i <= n; i++) printf "%d\t%d\tpad-%090d\n", i, (i * 7919) % 1000003, i }' \
  >"$dir/kv.tsv"
awk -v n="$copy_rows" 'BEGIN { srand(42); for (i = 1; i <= n; i++) printf "%d\t%d\tname-%d-%06d\n", i, int(rand() * 1000000), i % 977, i }' \
  >"$dir/copy.tsv"

now() { date +%s.%N; }
record() { echo "$1|$2|$3|$4" >>"$res"; }  # test, clients, kind, figure

use() { set -a; . "$dir/$1/server.env"; set +a; }

# CPU seconds the server has used so far: the process (its threads, and
# its reaped children: PostgreSQL's ended backends) plus its live children
# (PostgreSQL's WAL writer, checkpointer, ...). Robust where wall-clock
# rates are not: on a loaded machine both servers wait for the CPU.
srv_cpu() {
  { cat "/proc/$1/stat"; for c in $(ps -o pid= --ppid "$1"); do cat "/proc/$c/stat" 2>/dev/null; done; } |
    awk -v main="$1" -v hz="$(getconf CLK_TCK)" '{
      sub(/^.*\) /, "")  # past the command name: field 1 is the state
      t += $12 + $13; if (NR == 1) t += $14 + $15
    } END { printf "%.2f", t / hz }'
}

# start both servers and load the same data; they stay up side by side and
# the runs alternate between them, so that a change in the machine's load
# or disk speed during the run hits both alike
up=""
for kind in $kinds; do
  if [ "$kind" = cadenza ]; then
    opts="--binary $binary --buffers 65536"
  else
    opts="--pg-conf shared_buffers=512MB --pg-conf max_wal_size=4GB --pg-conf checkpoint_timeout=30min"
  fi
  # shellcheck disable=SC2086
  if ! tb_py "$top/tests/server/srvctl.py" start "$kind" "$dir/$kind" $opts >"$dir/$kind.start" 2>&1; then
    echo "$kind did not start:"; cat "$dir/$kind.start"; continue
  fi
  started="$started $kind"
  use "$kind"
  if ! psql -X -q -v ON_ERROR_STOP=1 \
    -c "DROP TABLE IF EXISTS bench_kv" -c "DROP TABLE IF EXISTS bench_ins" -c "DROP TABLE IF EXISTS bench_copy" \
    -c "CREATE TABLE bench_kv (k INTEGER PRIMARY KEY, v INTEGER, pad VARCHAR(100))" \
    -c "CREATE TABLE bench_ins (k BIGINT PRIMARY KEY, v INTEGER)" \
    -c "CREATE TABLE bench_copy (k INTEGER PRIMARY KEY, v INTEGER, name VARCHAR(40))" \
    -c "\\copy bench_kv FROM '$dir/kv.tsv'" >"$dir/$kind.setup" 2>&1; then
    echo "$kind: set-up failed:"; cat "$dir/$kind.setup"; continue
  fi
  [ "$kind" = postgres ] && psql -X -q -c "VACUUM ANALYZE bench_kv" >/dev/null 2>&1
  up="$up $kind"
  echo "$kind: pid $SRV_PID, port $PGPORT, bench_kv loaded"
done

for test in select insert; do
  for c in $clients; do
    for kind in $up; do
      use "$kind"
      j=$c; [ "$j" -gt 4 ] && j=4
      "$PGBENCH" -n -M prepared -f "$dir/$test.sql" -c "$c" -j "$j" -T "$secs" \
        >"$dir/$kind.$test.$c.out" 2>&1
      tps=$(sed -n 's/^tps = \([0-9.]*\) .*without initial connection time.*/\1/p' "$dir/$kind.$test.$c.out")
      [ -n "$tps" ] && tps=$(printf "%.0f" "$tps")
      fails=$(sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p' "$dir/$kind.$test.$c.out")
      if [ -z "$tps" ]; then
        echo "$kind $test x$c: pgbench failed:"; tail -n 5 "$dir/$kind.$test.$c.out" | sed 's/^/    /'
        tps=-
      else
        echo "$kind $test x$c: $tps tps${fails:+ ($fails failed)}"
      fi
      record "$test" "$c" "$kind" "$tps"
    done
  done
done
for kind in $up; do
  use "$kind"
  sleep 1
  c0=$(srv_cpu "$SRV_PID")
  t0=$(now)
  if psql -X -q -v ON_ERROR_STOP=1 -c "\\copy bench_copy FROM '$dir/copy.tsv'" >"$dir/$kind.copy" 2>&1; then
    t1=$(now)
    sleep 1  # PostgreSQL's backend ends and is reaped (its CPU time then counts)
    c1=$(srv_cpu "$SRV_PID")
    n=$(psql -X -A -t -c "SELECT count(*) FROM bench_copy" 2>/dev/null)
    rate=$(echo "$t0 $t1 $copy_rows" | awk '{ printf "%.0f", $3 / ($2 - $1) }')
    cpu=$(echo "$c0 $c1 $copy_rows" | awk '$2 > $1 { printf "%.0f", $3 / ($2 - $1); exit } { print "-" }')
    echo "$kind copy: $copy_rows rows in $(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }') s = $rate rows/s, server CPU $(echo "$c0 $c1" | awk '{ printf "%.2f", $2 - $1 }') s = $cpu rows per CPU second (count $n)"
    [ "$n" = "$copy_rows" ] || rate="$rate?"
  else
    echo "$kind copy failed:"; tail -n 5 "$dir/$kind.copy" | sed 's/^/    /'; rate=-; cpu=-
  fi
  record copy - "$kind" "$rate"
  record copycpu - "$kind" "$cpu"
done
for kind in $started; do
  tb_py "$top/tests/server/srvctl.py" stop "$dir/$kind" >/dev/null 2>&1
done
started=""

echo
echo "Server benchmark: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "pgbench -n -M prepared, $secs s per run, bench_kv $rows rows, COPY $copy_rows rows"
printf '%-20s %8s %14s %14s %8s\n' test clients cadenza postgres ratio
for test in select insert copy copycpu; do
  case $test in select) label="point select tps" ;; insert) label="insert tps" ;; copy) label="COPY rows/s" ;;
    copycpu) label="COPY rows/CPU-s" ;; esac
  cl=$clients; case $test in copy*) cl=- ;; esac
  for c in $cl; do
    cz=$(awk -F'|' -v t=$test -v c="$c" '$1 == t && $2 == c && $3 == "cadenza" { print $4 }' "$res")
    pg=$(awk -F'|' -v t=$test -v c="$c" '$1 == t && $2 == c && $3 == "postgres" { print $4 }' "$res")
    ratio=$(echo "${cz:--} ${pg:--}" | awk '$1 + 0 > 0 && $2 + 0 > 0 { printf "%.2fx", $1 / $2; exit } { print "-" }')
    printf '%-20s %8s %14s %14s %8s\n' "$label" "$c" "${cz:--}" "${pg:--}" "$ratio"
  done
done
echo "(ratio = cadenza / postgres; higher is better for Cadenza)"

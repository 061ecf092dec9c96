# tests/server/lib.sh — sourced by the server test scripts (POSIX sh).
#
#   srv_start KIND FOLDER [srvctl options]
#       KIND cadenza (binsrc/cadenza/cadenza of $CZ_BUILD) or postgres (a
#       PostgreSQL 15 cluster, the reference). Starts it on a free 127.0.0.1
#       port in FOLDER with a generated configuration, waits until a client
#       can log in, exports PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE
#       SRV_PID SRV_KIND SRV_LOG and SRV_DIR, and arranges (trap) that it is
#       stopped by PID when the shell exits.
#   srv_stop       stops it (SIGTERM, SIGKILL after 30 s); idempotent
#   srv_alive      true while its PID runs
#   srv_log [N]    prints the last N lines of its logs (on failure)
#   srv_dsn        the libpq connection string of the server
#   tb_py, $TB_PY  the Python of the project venv (build/venv, $CZ_VENV)
#
# Needs: CZ_TOP (repository root), CZ_BUILD (build folder); set by the caller
# or defaulted here.

: "${CZ_TOP:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${CZ_BUILD:=$CZ_TOP/build}"
: "${CZ_VENV:=$CZ_TOP/build/venv}"
: "${CZ_SHARED:=$CZ_TOP/../shared}"
export CZ_TOP CZ_BUILD CZ_VENV CZ_SHARED

if [ -x "$CZ_VENV/bin/python3" ]; then TB_PY=$CZ_VENV/bin/python3; else TB_PY=python3; fi
tb_py() { "$TB_PY" "$@"; }

SRV_DIR=""
srv_start() {
  kind=$1; SRV_DIR=$2; shift 2
  mkdir -p "$SRV_DIR"
  tb_py "$CZ_TOP/tests/server/srvctl.py" start "$kind" "$SRV_DIR" \
    --binary "$CZ_BUILD/binsrc/cadenza/cadenza" "$@" >"$SRV_DIR/start.out" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    cat "$SRV_DIR/start.out" >&2
    return $rc
  fi
  set -a
  . "$SRV_DIR/server.env"
  set +a
  export SRV_DIR
  trap 'srv_stop' EXIT
  trap 'srv_stop; exit 130' INT TERM
  return 0
}

srv_stop() {
  if [ -n "$SRV_DIR" ] && [ -f "$SRV_DIR/server.env" ]; then
    tb_py "$CZ_TOP/tests/server/srvctl.py" stop "$SRV_DIR" >/dev/null 2>&1
  fi
}

srv_alive() {
  [ -n "${SRV_PID:-}" ] && kill -0 "$SRV_PID" 2>/dev/null &&
    ! grep -q '^State:.*Z' "/proc/$SRV_PID/status" 2>/dev/null
}

srv_log() {
  tb_py "$CZ_TOP/tests/server/srvctl.py" log "$SRV_DIR" "${1:-60}"
}

srv_dsn() {
  echo "host=$PGHOST port=$PGPORT user=$PGUSER password=$PGPASSWORD dbname=$PGDATABASE"
}

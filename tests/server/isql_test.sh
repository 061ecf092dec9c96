#!/bin/sh
# isql_test.sh — runs scripts through isql-cz against a running server and
# checks what it prints and its exit status. Prints "N passed, N failed" and
# exits non-zero when a check failed.
#
# Environment: CZ_HOST (default 127.0.0.1), CZ_PORT (default 5480), CZ_USER
# (default dba), CZ_PASSWORD (may be empty under trust authentication),
# CZ_DATABASE (default: the server's default, the user name);
# ISQL_CZ = the client to test, else $CZ_BUILD/binsrc/isql/isql-cz, else
# build/binsrc/isql/isql-cz of this checkout, else isql-cz on the PATH.
# Uses only core SQL (tables, INSERT, SELECT, errors), so it runs against
# Cadenza and PostgreSQL alike; its tables are named isql_t_<pid>.
set -u
host=${CZ_HOST:-127.0.0.1}
port=${CZ_PORT:-5480}
user=${CZ_USER:-dba}
password=${CZ_PASSWORD:-}
database=${CZ_DATABASE:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -n "${ISQL_CZ:-}" ]; then
  isql=$ISQL_CZ
elif [ -n "${CZ_BUILD:-}" ] && [ -x "$CZ_BUILD/binsrc/isql/isql-cz" ]; then
  isql=$CZ_BUILD/binsrc/isql/isql-cz
elif [ -x "$top/build/binsrc/isql/isql-cz" ]; then
  isql=$top/build/binsrc/isql/isql-cz
else
  isql=$(command -v isql-cz || true)
fi
if [ -z "$isql" ] || [ ! -x "$isql" ]; then
  echo "isql_test: isql-cz not found (set ISQL_CZ or CZ_BUILD)"
  echo "0 passed, 1 failed"
  exit 1
fi

tmp=$(mktemp -d /tmp/isql-test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
t=isql_t_$$
passed=0
failed=0

# The Virtuoso form: host:port user password, then the given arguments.
run() {
  if [ -n "$database" ]; then set -- -d "$database" "$@"; fi
  "$isql" -w "$host:$port" "$user" "$password" "$@" >"$tmp/out" 2>"$tmp/err"
  echo $? >"$tmp/rc"
}

# The option form with the password in the environment.
run_opts() {
  if [ -n "$database" ]; then set -- -d "$database" "$@"; fi
  PGPASSWORD=$password "$isql" -w -h "$host" -p "$port" -U "$user" "$@" >"$tmp/out" 2>"$tmp/err"
  echo $? >"$tmp/rc"
}

last_ok=0 # whether the last check passed: must_* refine only a passing one

pass() {
  passed=$((passed + 1))
  last_ok=1
  echo "PASS $1"
}

fail() {
  failed=$((failed + 1))
  last_ok=0
  echo "FAIL $1: $2"
  echo "  --- stdout:"; sed 's/^/  | /' "$tmp/out"
  echo "  --- stderr:"; sed 's/^/  | /' "$tmp/err"
}

# check NAME RC [grep -E patterns that stdout must match …]
check() {
  name=$1 want=$2
  shift 2
  got=$(cat "$tmp/rc")
  if [ "$got" != "$want" ]; then
    fail "$name" "exit status $got, expected $want"
    return
  fi
  for pat in "$@"; do
    if ! grep -qE -- "$pat" "$tmp/out"; then
      fail "$name" "stdout lacks /$pat/"
      return
    fi
  done
  pass "$name"
}

# must_err NAME PATTERN: stderr must match too (call after a passing check).
must_err() {
  if [ $last_ok = 1 ] && ! grep -qE -- "$2" "$tmp/err"; then
    passed=$((passed - 1))
    echo "  (the PASS above is withdrawn)"
    fail "$1" "stderr lacks /$2/"
  fi
}

# must_not NAME PATTERN: stdout must not match.
must_not() {
  if [ $last_ok = 1 ] && grep -qE -- "$2" "$tmp/out"; then
    passed=$((passed - 1))
    echo "  (the PASS above is withdrawn)"
    fail "$1" "stdout has /$2/"
  fi
}

# --- 0. the server answers at all (else one failure, not a page of them) ---
run -q -c "select 1;"
if [ "$(cat "$tmp/rc")" != 0 ]; then
  echo "isql_test: cannot run a statement on $host:$port as $user:"
  sed 's/^/  | /' "$tmp/err"
  echo "0 passed, 1 failed"
  exit 1
fi

# --- 1. a script file: DDL, DML, an aligned table, exact output --------------
cat >"$tmp/a.sql" <<EOF
-- isql-cz server test
SET TIMING OFF;
create table $t (id integer primary key, name varchar(20));
insert into $t values (1, 'one'), (2, NULL),
  (3, 'it''s; three');
select id, name from $t order by id;
EOF
run "$tmp/a.sql"
cat >"$tmp/want" <<'EOF'
Done.

Done.

id  name
--  -----------
 1  one
 2  NULL
 3  it's; three

3 Rows.

EOF
if [ "$(cat "$tmp/rc")" = 0 ] && cmp -s "$tmp/out" "$tmp/want"; then
  pass "script_file_exact_output"
else
  fail "script_file_exact_output" "exit $(cat "$tmp/rc") or output differs: $(diff "$tmp/want" "$tmp/out" | tr '\n' ' ')"
fi

# --- 2. timing is printed per statement by default ---------------------------
run -c "select count(*) as n from $t;"
check "timing_per_statement" 0 '^1 Rows\. -- [0-9]+ msec\.$' '^ *3$'

# --- 3. an error: message, SQLSTATE, line, caret; later statements still run -
printf 'SET TIMING OFF;\nselect 1 as a;\nselect *\n  from isql_no_such_%s;\nselect 2 as b;\n' $$ >"$tmp/e.sql"
run "$tmp/e.sql"
check "error_continues_and_exit_1" 1 '^1 Rows\.$' '^b$'
must_err "error_continues_and_exit_1" '^\*\*\* Error 42P01: '
# Line 4 when the server sends the error's position, else the statement's 3.
must_err "error_continues_and_exit_1" "^at line [34] of file .*e\.sql:?$"

# --- 4. -b, SET ERRORS EXIT: stop at the first error -------------------------
run -b "$tmp/e.sql"
check "stop_on_error_option" 1 '^a$'
must_not "stop_on_error_option" '^b$'
printf 'SET ERRORS EXIT;\n' | cat - "$tmp/e.sql" >"$tmp/e2.sql"
run "$tmp/e2.sql"
check "stop_on_error_command" 1 '^a$'
must_not "stop_on_error_command" '^b$'

# --- 5. errors with positions from the server --------------------------------
run -c "select 1/0;"
check "division_by_zero" 1
must_err "division_by_zero" '^\*\*\* Error 22012: '
run -c "selec 1;"
check "syntax_error_with_caret" 1
must_err "syntax_error_with_caret" '^\*\*\* Error 42601: '
must_err "syntax_error_with_caret" '^\^$'

# --- 6. the option form, repeated -c, EXEC=, stdin ---------------------------
run_opts -q -c "SET TIMING OFF; select 10 as x;" -c "select 20 as y;"
check "option_form_two_c" 0 '^ *x$' '^10$' '^ *y$' '^20$'
run "EXEC=SET TIMING OFF; select 30 as z"
check "virtuoso_exec_argument" 0 '^ *z$' '^30$'
printf 'SET TIMING OFF;\nselect 40 as w\n' | run
check "stdin_last_statement_without_semicolon" 0 '^ *w$' '^40$'

# --- 7. client commands ------------------------------------------------------
run -c "ECHOLN 'hello; world'; SET ECHO ON; SET TIMING OFF; select 5 as v; SET MAXROWS 1; select id from $t order by id;"
check "client_commands" 0 '^hello; world$' '^select 5 as v;$' '^\.\.\. 2 more rows not shown' '^3 Rows\.$'
must_not "client_commands" '^ 2$'
run -c "exit 3; select 99 as never;"
check "exit_status_from_exit" 3
must_not "exit_status_from_exit" 'never'
run -c "SET TIMING maybe;"
check "bad_client_command" 1
must_err "bad_client_command" 'ON or OFF'
run -c "select 'unterminated;"
check "unterminated_string" 1
must_err "unterminated_string" 'unterminated quoted string'

# --- 8. quiet: no "Done." lines ----------------------------------------------
run -q -c "update $t set name = 'x' where id = 2;"
check "quiet_has_no_done" 0
must_not "quiet_has_no_done" 'Done'

# --- 9. COPY through the client ----------------------------------------------
printf 'SET TIMING OFF;\ncopy %s from stdin;\n10\tcopied\n\\.\nselect name from %s where id = 10;\ncopy %s to stdout;\n' \
  "$t" "$t" "$t" >"$tmp/c.sql"
run -q "$tmp/c.sql"
check "copy_in_and_out" 0 '^copied$' '^10.copied$'

# --- 10. connection failures exit 2 ------------------------------------------
"$isql" -w -h "$host" -p 1 -U "$user" -c "select 1;" >"$tmp/out" 2>"$tmp/err"
echo $? >"$tmp/rc"
check "connection_refused_exit_2" 2
must_err "connection_refused_exit_2" 'cannot connect'
if [ -n "$password" ]; then
  right=$password
  password=wrong-$right
  run -c "select 1;" </dev/null
  password=$right
  check "wrong_password_exit_2" 2
  must_err "wrong_password_exit_2" 'cannot connect'
fi

run -q -c "drop table $t;"
check "cleanup" 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]

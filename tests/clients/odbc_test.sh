#!/bin/sh
# psqlODBC through unixODBC against the server in $PG*: pyodbc
# (../shared/tools/sql/clients/pyodbc_check.py: query, ? parameter,
# SQLTables, SQLColumns) and unixODBC's own isql (a query and SQLColumns
# through `help items`). odbcinst.ini and odbc.ini are generated in a temp
# folder (ODBCSYSINI/ODBCINI), never in /etc. Needs the items table.
# Usage: odbc_test.sh [pyodbc|isql|all]   (default all)
set -u
which=${1:-all}
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CZ_VENV:=$top/build/venv}"
: "${CZ_SHARED:=$top/../shared}"
py=$CZ_VENV/bin/python3; [ -x "$py" ] || py=python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
drv=$(dpkg -L odbc-postgresql 2>/dev/null | grep '/psqlodbcw\.so$' | head -n 1)
[ -n "$drv" ] || drv=/usr/lib/x86_64-linux-gnu/odbc/psqlodbcw.so
if [ ! -f "$drv" ]; then echo "odbc: psqlODBC driver not found ($drv)"; exit 1; fi
cat >"$dir/odbcinst.ini" <<EOI
[PostgreSQL Unicode]
Description=PostgreSQL ODBC driver (Unicode)
Driver=$drv
Debug=0
CommLog=0
EOI
for dsn in cz_pyodbc cz_isql; do
  cat >>"$dir/odbc.ini" <<EOI
[$dsn]
Driver     = PostgreSQL Unicode
Servername = $PGHOST
Port       = $PGPORT
Database   = $PGDATABASE
Username   = $PGUSER
Password   = $PGPASSWORD
SSLmode    = disable

EOI
done
export ODBCSYSINI="$dir" ODBCINI="$dir/odbc.ini"
fails=0
if [ "$which" = isql ]; then :
elif "$py" "$CZ_SHARED/tools/sql/clients/pyodbc_check.py" cz_pyodbc >"$dir/pyodbc.out" 2>&1 &&
   grep -q '^PYODBC CHECK PASSED$' "$dir/pyodbc.out" &&
   grep -q "SQLColumns:.*'price'" "$dir/pyodbc.out"; then
  echo "pyodbc: ok"
else
  echo "pyodbc: FAILED"; fails=$((fails + 1))
fi
[ "$which" = isql ] || cat "$dir/pyodbc.out"
[ "$which" = pyodbc ] && exit $fails
printf 'select id, name from items where id = 2\nhelp items\n' |
  isql -v cz_isql -b >"$dir/isql.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -Eq '^\| 2 +\| two +\|' "$dir/isql.out" &&
   grep -Eq '\| *price *\|' "$dir/isql.out" && ! grep -q '^\[' "$dir/isql.out"; then
  echo "isql: ok"
else
  echo "isql: FAILED (exit $rc)"; cut -c 1-200 "$dir/isql.out"; fails=$((fails + 1))
fi
[ "$fails" -eq 0 ]

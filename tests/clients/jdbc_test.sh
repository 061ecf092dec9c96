#!/bin/sh
# pgJDBC against the server in $PG*: builds ../shared/tools/sql/jdbc-smoke
# with Maven into $CZ_BUILD/jdbc-smoke (outside shared/; kept between runs so
# the jar and pgJDBC are fetched once) and runs smoke.JdbcSmoke (connect,
# Statement, PreparedStatement x6 incl. the switch to a named server
# statement, getTables, getColumns). Needs the items table.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CZ_BUILD:=$top/build}"
: "${CZ_SHARED:=$top/../shared}"
out=$CZ_BUILD/jdbc-smoke
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac
mkdir -p "$out"
if [ ! -f "$out/jdbc-smoke-1.0.jar" ] || [ ! -d "$out/lib" ]; then
  mvn -q -B -f "$CZ_SHARED/tools/sql/jdbc-smoke/pom.xml" -Dsmoke.buildDir="$out" \
      package dependency:copy-dependencies -DoutputDirectory="$out/lib" >"$out/mvn.log" 2>&1 ||
    { echo "jdbc: maven build failed"; tail -n 30 "$out/mvn.log"; exit 1; }
fi
java -cp "$out/jdbc-smoke-1.0.jar:$out/lib/*" smoke.JdbcSmoke \
  "jdbc:postgresql://$PGHOST:$PGPORT/$PGDATABASE" "$PGUSER" "$PGPASSWORD" >"$out/run.out" 2>&1
rc=$?
cat "$out/run.out"
[ $rc -eq 0 ] && grep -q '^JDBC SMOKE PASSED$' "$out/run.out"

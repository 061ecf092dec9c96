#!/bin/sh
# pgJDBC's DatabaseMetaData (getTables, getColumns, getImportedKeys,
# getExportedKeys, getPrimaryKeys, getIndexInfo) against the server in
# $PG*: JdbcMeta.java run in Java's source-file mode with the pgJDBC jar
# jdbc_test.sh fetches into $CZ_BUILD/jdbc-smoke/lib (fetched here the same
# way when missing). Makes jm_* tables and drops them.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CZ_BUILD:=$top/build}"
: "${CZ_SHARED:=$top/../shared}"
out=$CZ_BUILD/jdbc-smoke
case "$out" in /*) ;; *) out=$(pwd)/$out ;; esac
mkdir -p "$out"
if [ ! -d "$out/lib" ]; then
  mvn -q -B -f "$CZ_SHARED/tools/sql/jdbc-smoke/pom.xml" -Dsmoke.buildDir="$out" \
      package dependency:copy-dependencies -DoutputDirectory="$out/lib" >"$out/mvn.log" 2>&1 ||
    { echo "jdbc: maven build failed"; tail -n 30 "$out/mvn.log"; exit 1; }
fi
kind=postgres
psql -X -A -t -c 'SELECT version()' 2>/dev/null | grep -q cadenza && kind=cadenza
exec java -cp "$out/lib/*" "$top/tests/clients/JdbcMeta.java" \
  "jdbc:postgresql://$PGHOST:$PGPORT/$PGDATABASE" "$PGUSER" "$PGPASSWORD" "$kind"

#!/bin/sh
# psycopg 3 against the server in $PG*: ../shared/tools/sql/clients/psycopg_check.py
# (plain query, parameters, prepared statement, transaction). Needs the items
# table. Uses the project venv's Python ($CZ_VENV, default build/venv).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CZ_VENV:=$top/build/venv}"
: "${CZ_SHARED:=$top/../shared}"
py=$CZ_VENV/bin/python3; [ -x "$py" ] || py=python3
"$py" "$CZ_SHARED/tools/sql/clients/psycopg_check.py" \
  "host=$PGHOST port=$PGPORT user=$PGUSER password=$PGPASSWORD dbname=$PGDATABASE application_name=psycopg-check" \
  | tee /dev/stderr | grep -q '^PSYCOPG CHECK PASSED$'

#!/bin/sh
# The second README command: installs what is needed, builds Cadenza in
# build/, and starts the server on a default database in ./demo/ (port 5480,
# user dba, password from demo/cadenza.ini) with a small demo table and the
# demo knowledge graph (scripts/demo/composers.ttl) loaded, the SPARQL
# endpoint and query page on 127.0.0.1:8890.
# Run as root on Debian 12 from the repository root. Stop the server with
#   kill $(cat demo/cadenza.pid)
# Options: PORT=n to listen elsewhere, HTTP_PORT=n for the SPARQL endpoint;
# FOREGROUND=1 to stay in the foreground.
set -eu
cd "$(dirname "$0")/.."
top=$(pwd)
port=${PORT:-5480}
http_port=${HTTP_PORT:-8890}
./scripts/install-deps.sh
[ -x configure ] || autoreconf -fi >/dev/null
mkdir -p build
if [ ! -f build/Makefile ]; then
  (cd build && "$top/configure" -q)
fi
echo "building in build/ (log: build/make.out) ..."
if ! make -C build -j"$(nproc 2>/dev/null || echo 2)" >build/make.out 2>&1; then
  tail -n 40 build/make.out
  echo "the build failed; see build/make.out"
  exit 1
fi

mkdir -p demo demo/io
if [ ! -f demo/cadenza.ini ]; then
  sed -e "/^\[Parameters\]/,/^\[/s/^ServerPort .*/ServerPort         = $port/" \
      -e "/^\[HTTPServer\]/,/^\[/s/^ServerPort .*/ServerPort         = $http_port/" \
      -e "s|^DirsAllowed .*|DirsAllowed        = $top/demo/io|" \
      -e "s|^DatabaseFile .*|DatabaseFile    = $top/demo/cadenza.db|" \
      -e "s|^TransactionFile .*|TransactionFile = $top/demo/cadenza.trx|" \
      -e "s|^ErrorLogFile .*|ErrorLogFile    = $top/demo/cadenza.log|" \
      -e "s|^PidFile .*|PidFile            = $top/demo/cadenza.pid|" \
      ini/cadenza.ini >demo/cadenza.ini
fi
port=$(sed -n '/^\[Parameters\]/,/^\[/s/^ServerPort *= *//p' demo/cadenza.ini)
http_port=$(sed -n '/^\[HTTPServer\]/,/^\[/s/^ServerPort *= *//p' demo/cadenza.ini)
[ -n "$http_port" ] || http_port="PORT (set [HTTPServer] ServerPort in demo/cadenza.ini)"
password=$(sed -n 's/^DBAPassword *= *//p' demo/cadenza.ini)

# The server holds an flock on its pid file while it runs; a file left by a
# crash is not locked (flock(1) tells; without it, kill -0 guesses).
server_runs() {
  [ -f demo/cadenza.pid ] || return 1
  if command -v flock >/dev/null 2>&1; then
    ! flock -n demo/cadenza.pid true
  else
    kill -0 "$(cat demo/cadenza.pid)" 2>/dev/null
  fi
}
if server_runs; then
  echo "Cadenza already runs (pid $(cat demo/cadenza.pid))."
else
  fresh=0
  [ -f demo/cadenza.db ] || fresh=1
  if [ "${FOREGROUND:-0}" = 1 ]; then
    echo "Starting in the foreground; load scripts/demo.sql with isql-cz from another shell."
    exec build/binsrc/cadenza/cadenza -c demo/cadenza.ini -f
  fi
  build/binsrc/cadenza/cadenza -c demo/cadenza.ini
  i=0
  until build/binsrc/isql/isql-cz -q "$port" dba "$password" -c "select 1;" >/dev/null 2>&1; do
    i=$((i + 1))
    if [ $i -gt 100 ]; then echo "the server did not start; see demo/cadenza.log"; exit 1; fi
    sleep 0.1
  done
  if [ $fresh = 1 ]; then
    build/binsrc/isql/isql-cz -q "$port" dba "$password" scripts/demo.sql
    # the demo knowledge graph (scripts/demo/composers.ttl) for SPARQL
    scripts/demo/load.sh build/binsrc/isql/isql-cz "$port" "$password" "$top/demo/io"
  fi
fi
cat <<MSG

Cadenza is running on 127.0.0.1:$port (database folder: demo/, log: demo/cadenza.log;
COPY … TO/FROM '$top/demo/io/<file>' for server-side files).
Connect with:
  build/binsrc/isql/isql-cz $port dba $password
  psql "host=127.0.0.1 port=$port user=dba password=$password dbname=demo"
Try:  select * from items;

SPARQL over HTTP, on a small knowledge graph of composers (scripts/demo/composers.ttl):
  the query page:   http://127.0.0.1:$http_port/
  the endpoint:     http://127.0.0.1:$http_port/sparql
  a sample query:
    PREFIX schema: <http://schema.org/>
    SELECT ?composer (COUNT(?work) AS ?works) WHERE {
      ?c schema:name ?composer . ?work schema:composer ?c
    } GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5
  with curl:
    curl -G http://127.0.0.1:$http_port/sparql -H 'Accept: text/csv' --data-urlencode 'query=PREFIX schema: <http://schema.org/> SELECT ?composer (COUNT(?work) AS ?works) WHERE { ?c schema:name ?composer . ?work schema:composer ?c } GROUP BY ?composer ORDER BY DESC(?works) ?composer LIMIT 5'
  in isql-cz: SPARQL PREFIX schema: <http://schema.org/> SELECT ?name WHERE { ?c schema:name ?name } LIMIT 5;
  (README.md "The first five minutes": Python and Java too)
Stop: kill \$(cat demo/cadenza.pid)
MSG

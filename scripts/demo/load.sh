#!/bin/sh
# Loads the demo knowledge graph (composers.ttl, next to this script) into
# the graph <http://example.org/cadenza/demo> of a running server, as
# scripts/start.sh does on a new database (and tests/clients/
# sparql_clients_test.py, so that the README's examples run on the same
# data). The file is copied into a folder of the server's DirsAllowed,
# since the loader reads only there.
# Usage: load.sh ISQL-CZ PORT PASSWORD DIRS-ALLOWED-FOLDER
set -eu
isql=$1 port=$2 password=$3 dir=$4
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir/demo-kg"
cp "$here/composers.ttl" "$dir/demo-kg/"
dir=$(cd "$dir/demo-kg" && pwd)
"$isql" -q "$port" dba "$password" -c \
  "select ld_dir('$dir', 'composers.ttl', 'http://example.org/cadenza/demo'); select rdf_loader_run();" \
  >/dev/null

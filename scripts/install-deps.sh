#!/bin/sh
# Installs the system packages Cadenza's build, tests and benchmarks need,
# then the Python packages of the server tests into a project virtual
# environment (build/venv, or $CZ_VENV). Debian 12, as root; safe to run
# again (apt-get and pip skip what is installed).
#   build:   compiler, autotools, bison/flex, jemalloc, cmocka, openssl, libpq,
#            PCRE2 (regular expressions), serd + zlib (the RDF parsers of
#            libsrc/rdf, plain or gzip), tzdata (the time zone database the
#            server reads from /usr/share/zoneinfo), libmicrohttpd (the HTTP
#            server of the SPARQL endpoint)
#   clients: psql + pgbench (postgresql-client), unixODBC (isql) + psqlODBC,
#            JDK 17 + Maven (pgJDBC smoke test), python3-venv
#   tests:   chromium (headless: tests/server/isolated_webpage.py drives the
#            query page through it)
#   bench:   postgresql-15, the reference server of bench/run-server-bench.sh
#            and bench/tpch/run.sh
set -e
cd "$(dirname "$0")/.."
PKGS="build-essential autoconf automake libtool pkg-config \
      libjemalloc-dev libcmocka-dev libsqlite3-dev libssl-dev zlib1g-dev libpcre2-dev libserd-dev libmicrohttpd-dev libutf8proc-dev \
      bison flex python3 libpq-dev tzdata \
      python3-venv python3-pip postgresql-client postgresql-15 \
      unixodbc odbc-postgresql maven default-jdk-headless chromium"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  # postgresql-15's post-install creates a default cluster; the tests and
  # benchmarks start their own clusters in scratch folders and never use it.
  apt-get install -y -q --no-install-recommends $missing
fi

# Python packages for tests/ and bench/: psycopg 3 (slt.py, the client,
# concurrency and crash tests), pyodbc (the ODBC client check), duckdb (the
# reference answers and times of the TPC-H test and bench/tpch) and
# tpchgen-cli (the TPC-H data generator, a command in the venv's bin/) and
# rdflib (reads the W3C SPARQL test manifests, tests/unit/sparql/),
# requests (the W3C SPARQL harness over HTTP) and
# SQLAlchemy 2 (tests/clients/sqlalchemy_test.py: reflection and the ORM
# through the psycopg dialect).
venv=${CZ_VENV:-build/venv}
py=/usr/bin/python3
[ -x "$py" ] || py=python3
if [ ! -x "$venv/bin/python3" ]; then
  mkdir -p "$(dirname "$venv")"
  "$py" -m venv "$venv"
fi
if ! "$venv/bin/python3" -c 'import psycopg, pyodbc, duckdb' >/dev/null 2>&1 ||
   [ ! -x "$venv/bin/tpchgen-cli" ]; then
  "$venv/bin/pip" install -q --disable-pip-version-check "psycopg[binary]" pyodbc \
    duckdb tpchgen-cli
fi
if ! "$venv/bin/python3" -c 'import rdflib' >/dev/null 2>&1; then
  "$venv/bin/pip" install -q --disable-pip-version-check rdflib
fi
# owlrl: the RDFS/OWL-RL closure tests/server/isolated_inference.py
# compares inference at query time with
if ! "$venv/bin/python3" -c 'import owlrl' >/dev/null 2>&1; then
  "$venv/bin/pip" install -q --disable-pip-version-check owlrl
fi
# requests: the W3C SPARQL harness (../shared/tools/sparql-w3c), which
# tests/server/sparql_w3c_http.py runs against the HTTP endpoint
if ! "$venv/bin/python3" -c 'import requests' >/dev/null 2>&1; then
  "$venv/bin/pip" install -q --disable-pip-version-check requests
fi
# pyoxigraph: a second SPARQL engine the tests/sparql files' answers are
# checked against (tests/server/isolated_sparql_files.py)
if ! "$venv/bin/python3" -c 'import pyoxigraph' >/dev/null 2>&1; then
  "$venv/bin/pip" install -q --disable-pip-version-check pyoxigraph
fi
if ! "$venv/bin/python3" -c 'import sqlalchemy, sys; sys.exit(sqlalchemy.__version__ < "2")' \
    >/dev/null 2>&1; then
  "$venv/bin/pip" install -q --disable-pip-version-check "sqlalchemy>=2,<3"
fi

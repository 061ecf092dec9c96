#!/bin/sh
# Installs the system packages Cadenza's build, tests and benchmarks need.
# Debian 12, as root; safe to run again (apt-get skips what is installed).
set -e
PKGS="build-essential autoconf automake libtool pkg-config \
      libjemalloc-dev libcmocka-dev libsqlite3-dev libssl-dev zlib1g-dev \
      bison flex python3 libpq-dev"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends $missing
fi

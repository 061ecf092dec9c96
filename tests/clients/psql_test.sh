#!/bin/sh
# psql against the server in $PGHOST/$PGPORT/$PGUSER/$PGPASSWORD/$PGDATABASE:
# \d items, \dt, \l, \du and a query must succeed and show what the catalog
# holds. Needs the items table (setup_items.sql). Exit 0 when all hold.
set -u
fails=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
check() { # name, extra psql flags ("" for none), command, patterns (ERE)...
  name=$1; flags=$2; cmd=$3; shift 3
  # shellcheck disable=SC2086
  if ! psql -X -v ON_ERROR_STOP=1 -P pager=off $flags -c "$cmd" >"$out/$name" 2>&1; then
    echo "psql $name: exit status non-zero"; cat "$out/$name"; fails=$((fails + 1)); return
  fi
  for pat in "$@"; do
    if ! grep -Eq -- "$pat" "$out/$name"; then
      echo "psql $name: no line matches /$pat/"; cat "$out/$name"; fails=$((fails + 1)); return
    fi
  done
  echo "psql $name: ok"
}
check describe "" '\d items' 'Table "public\.items"' \
  '^ *id +\| integer +\|.*not null' '^ *name +\| character varying\(40\) +\|.*not null' \
  '^ *price +\| numeric\(10,2\)' 'PRIMARY KEY'
check list_tables "" '\dt' 'public +\| items +\| table'
check list_databases "" '\l' 'List of databases' '^ *[^ |]+ +\| +[^ |]+ +\| +UTF8 +\|'
check list_roles "" '\du' 'List of roles' '^ *dba +\|.*Superuser'
check query "-A -t" 'select id, name, price from items where id = 2' '^2\|two\|1\.50$'
check query_where "-A -t" 'select name from items where price > 1 order by id' '^two$' '^three$'
[ "$fails" -eq 0 ]

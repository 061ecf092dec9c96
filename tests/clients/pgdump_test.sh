#!/bin/sh
# pg_dump round trips (issue 11 item 8). Starts its own servers with
# tests/server/srvctl.py (Cadenza from $CZ_BUILD, PostgreSQL 15), so it
# does not touch the stage's shared server:
#  1. Cadenza → pg_dump (plain script, COPY data) → psql -v ON_ERROR_STOP=1
#     into a fresh Cadenza: every table's rows, information_schema.columns,
#     table_constraints, key_column_usage, views (and their rows),
#     sequences (definition and state), pg_indexes are the same, and the
#     restored serial / identity keys go on where the source's were.
#  2. PostgreSQL 15 → pg_dump, both COPY and --inserts → psql -v
#     ON_ERROR_STOP=1 into a fresh Cadenza: the same data, columns,
#     constraints, sequences' states and views' rows as PostgreSQL's.
# The schema is pgdump_app.sql. Exit 0 when all hold.
#
# Comments are dumped and restored (compared through pg_description), and
# so are privileges: plain pg_dump, as a user runs it, writes the GRANTs on
# schemas, tables, views and sequences; pg_namespace.nspacl,
# pg_class.relacl and information_schema.table_privileges are compared
# (between the two Cadenza databases whole; with PostgreSQL, the
# non-owners' items and rows: PostgreSQL's owner holds more table rights,
# and its public schema belongs to pg_database_owner). The roles the dump
# names are the cluster's, made on every server before a load (roles.sql),
# as pg_dumpall --globals-only would.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
: "${CZ_BUILD:=$top/build}"
: "${CZ_VENV:=$CZ_BUILD/venv}"
py=$CZ_VENV/bin/python3
[ -x "$py" ] || py=python3
bin=$CZ_BUILD/binsrc/cadenza/cadenza
pgbin=/usr/lib/postgresql/15/bin
work=$(mktemp -d)
chmod 755 "$work"  # PostgreSQL runs as its own user when started by root
fails=0
servers=""
cleanup() {
  for d in $servers; do "$py" "$top/tests/server/srvctl.py" stop "$d" >/dev/null 2>&1; done
  rm -rf "$work"
}
trap cleanup EXIT

start() { # kind name: a server in $work/name, its environment in $work/name/server.env
  "$py" "$top/tests/server/srvctl.py" start "$1" "$work/$2" ${3:+--binary "$3"} >"$work/$2.start" 2>&1 ||
    { echo "pgdump: cannot start $1 ($2)"; cat "$work/$2.start"; exit 1; }
  servers="$servers $work/$2"
}
on() { # name command...: run with that server's PG* variables
  srv=$1; shift
  ( . "$work/$srv/server.env"; export PGHOST PGPORT PGUSER PGPASSWORD PGDATABASE; "$@" )
}
check() { # name ok-flag why
  if [ "$2" = 0 ]; then echo "PASS $1"; else echo "FAIL $1: $3"; fails=$((fails + 1)); fi
}

# What both sides must agree on, one query per line, each printed unaligned.
# Names of NOT NULL constraints carry OIDs (<nsp>_<rel>_<attnum>_not_null),
# which differ between databases: left out.
cat >"$work/compare.sql" <<'EOF'
SELECT * FROM public.customer ORDER BY id;
SELECT * FROM public.product ORDER BY id;
SELECT * FROM public.orders ORDER BY id;
SELECT * FROM public.order_line ORDER BY order_id, line;
SELECT * FROM public.customer_orders ORDER BY order_id;
SELECT * FROM public.big_orders ORDER BY order_id;
SELECT table_name, column_name, ordinal_position, data_type, is_nullable, character_maximum_length, numeric_precision, numeric_scale, is_identity, identity_generation FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, 3;
SELECT table_name, constraint_name, constraint_type FROM information_schema.table_constraints WHERE table_schema = 'public' AND constraint_name NOT LIKE '%_not_null' ORDER BY 1, 2;
SELECT constraint_name, table_name, column_name, ordinal_position FROM information_schema.key_column_usage WHERE table_schema = 'public' ORDER BY 1, 4;
SELECT table_name FROM information_schema.views WHERE table_schema = 'public' ORDER BY 1;
SELECT sequence_name, data_type, start_value, minimum_value, maximum_value, increment, cycle_option FROM information_schema.sequences WHERE sequence_schema = 'public' ORDER BY 1;
SELECT 'customer_id_seq', last_value, is_called FROM public.customer_id_seq;
SELECT 'orders_id_seq', last_value, is_called FROM public.orders_id_seq;
SELECT 'product_id_seq', last_value, is_called FROM public.product_id_seq;
SELECT 'invoice_seq', last_value, is_called FROM public.invoice_seq;
SELECT 'spare_seq', last_value, is_called FROM public.spare_seq;
SELECT indexname FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1;
SELECT * FROM public.order_notes ORDER BY id;
SELECT c.relname, i.indisunique, i.indnullsnotdistinct FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' ORDER BY 1;
SELECT c.relname, d.objsubid, d.description FROM pg_description d JOIN pg_class c ON c.oid = d.objoid JOIN pg_namespace n ON n.oid = c.relnamespace WHERE d.classoid = 'pg_class'::regclass AND n.nspname = 'public' ORDER BY 1, 2;
SELECT * FROM archive.old_orders ORDER BY id;
SELECT * FROM archive.noted ORDER BY id;
SELECT nspname, replace(array_to_string(nspacl, ','), 'dba=UC/dba,', '') FROM pg_namespace WHERE nspname = 'archive';
SELECT n.nspname, c.relname, replace(replace(replace(array_to_string(c.relacl, ','), 'dba=arwdDxt/dba,', ''), 'dba=arwd/dba,', ''), 'dba=rwU/dba,', '') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'archive') AND c.relacl IS NOT NULL ORDER BY 1, 2;
SELECT grantor, grantee, table_schema, table_name, privilege_type, is_grantable, with_hierarchy FROM information_schema.table_privileges WHERE table_schema IN ('public', 'archive') AND grantee <> 'dba' ORDER BY 1, 2, 3, 4, 5;
SELECT has_schema_privilege('app_reader', 'archive', 'USAGE'), has_schema_privilege('app_reader', 'archive', 'CREATE'), has_schema_privilege('app_writer', 'archive', 'CREATE WITH GRANT OPTION'), has_schema_privilege('app_writer', 'public', 'CREATE'), has_schema_privilege('app_reader', 'public', 'CREATE');
EOF
cat >"$work/roles.sql" <<'EOF'
CREATE ROLE app_reader;
CREATE ROLE app_writer;
EOF
# The catalog text Cadenza keeps as written (defaults, view and index
# definitions): equal between two Cadenza databases, PostgreSQL prints
# its own deparsed form.
cat >"$work/compare_cz.sql" <<'EOF'
SELECT table_name, column_name, column_default FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1, ordinal_position;
SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1;
SELECT nspname, nspacl FROM pg_namespace WHERE nspname IN ('public', 'archive') ORDER BY 1;
SELECT c.relname, c.relacl FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname IN ('public', 'archive') AND c.relacl IS NOT NULL ORDER BY 1;
EOF
# After a restore, keys go on where they were.
cat >"$work/next.sql" <<'EOF'
INSERT INTO public.customer (email, name) VALUES ('n@x.org', 'New') RETURNING id;
INSERT INTO public.product (sku, price) VALUES ('SKU00099', 1) RETURNING id;
SELECT nextval('public.invoice_seq'), nextval('public.spare_seq');
EOF

snapshot() { # server file-prefix: the comparison queries' answers
  on "$1" psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 -f "$work/compare.sql" >"$work/$2.cmp" 2>&1
}

start cadenza src "$bin"
start cadenza dst "$bin"
start postgres pg
start cadenza fromcopy "$bin"
start cadenza frominserts "$bin"

for srv in src dst pg fromcopy frominserts; do
  on "$srv" psql -X -q -v ON_ERROR_STOP=1 -f "$work/roles.sql" >"$work/roles_$srv.out" 2>&1
  check "the roles on $srv" $? "$(tail -3 "$work/roles_$srv.out")"
done

# ---- 1. Cadenza → pg_dump → Cadenza ----------------------------------------
on src psql -X -q -v ON_ERROR_STOP=1 -f "$top/tests/clients/pgdump_app.sql" >"$work/load.out" 2>&1
check "load the application schema into Cadenza" $? "$(tail -5 "$work/load.out")"
on src "$pgbin/pg_dump" -f "$work/cz.sql" >"$work/dump.out" 2>&1
check "pg_dump of a Cadenza database" $? "$(tail -5 "$work/dump.out")"
on dst psql -X -q -v ON_ERROR_STOP=1 -f "$work/cz.sql" >"$work/restore.out" 2>&1
check "the dump restores into a fresh Cadenza with psql -v ON_ERROR_STOP=1" $? \
  "$(grep -m3 -A2 ERROR "$work/restore.out")"
snapshot src src
snapshot dst dst
diff "$work/src.cmp" "$work/dst.cmp" >"$work/d1" 2>&1
check "restored data, columns, constraints, views, sequences, indexes equal the source's" $? \
  "$(head -20 "$work/d1")"
on src psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 -f "$work/compare_cz.sql" >"$work/src.cz" 2>&1
on dst psql -X -q -A -t -F '|' -v ON_ERROR_STOP=1 -f "$work/compare_cz.sql" >"$work/dst.cz" 2>&1
diff "$work/src.cz" "$work/dst.cz" >"$work/d2" 2>&1
check "restored defaults, index definitions, nspacl and relacl equal the source's" $? "$(head -20 "$work/d2")"
on src psql -X -q -A -t -v ON_ERROR_STOP=1 -f "$work/next.sql" >"$work/src.next" 2>&1
on dst psql -X -q -A -t -v ON_ERROR_STOP=1 -f "$work/next.sql" >"$work/dst.next" 2>&1
cmp -s "$work/src.next" "$work/dst.next" && grep -q . "$work/src.next"
check "serial, identity and sequences go on where the source's were" $? \
  "source: $(tr '\n' ' ' <"$work/src.next") restored: $(tr '\n' ' ' <"$work/dst.next")"
# a second dump of the restored database is the first one (modulo the
# psql \restrict key pg_dump 15.14+ writes at random)
on dst "$pgbin/pg_dump" -f "$work/cz2.sql" >/dev/null 2>&1
on src psql -X -q -v ON_ERROR_STOP=1 -c "SELECT 1" >/dev/null 2>&1
grep -v '^\\\(un\)\?restrict ' "$work/cz.sql" >"$work/cz.a"
grep -v '^\\\(un\)\?restrict ' "$work/cz2.sql" >"$work/cz2.a"
# the restored database took the rows next.sql added: compare the schema part
sed '/^COPY /,/^\\\.$/d; /pg_catalog.setval/d' "$work/cz.a" >"$work/cz.s"
sed '/^COPY /,/^\\\.$/d; /pg_catalog.setval/d' "$work/cz2.a" >"$work/cz2.s"
diff "$work/cz.s" "$work/cz2.s" >"$work/d3" 2>&1
check "the restored database dumps the same schema again" $? "$(head -20 "$work/d3")"

# ---- 2. PostgreSQL 15 → pg_dump (COPY, --inserts) → Cadenza ------------------
on pg psql -X -q -v ON_ERROR_STOP=1 -f "$top/tests/clients/pgdump_app.sql" >"$work/pgload.out" 2>&1
check "load the application schema into PostgreSQL" $? "$(tail -5 "$work/pgload.out")"
on pg "$pgbin/pg_dump" -f "$work/pg_copy.sql" && on pg "$pgbin/pg_dump" --inserts -f "$work/pg_inserts.sql"
check "pg_dump of PostgreSQL (COPY and --inserts)" $? "pg_dump failed"
snapshot pg pg
for form in copy inserts; do
  srv=from$form
  on "$srv" psql -X -q -v ON_ERROR_STOP=1 -f "$work/pg_$form.sql" >"$work/$srv.out" 2>&1
  check "PostgreSQL's dump ($form) loads into Cadenza with psql -v ON_ERROR_STOP=1" $? \
    "$(grep -m3 -A2 ERROR "$work/$srv.out")"
  snapshot "$srv" "$srv"
  diff "$work/pg.cmp" "$work/$srv.cmp" >"$work/d_$form" 2>&1
  check "loaded from PostgreSQL ($form): data, columns, constraints, views, sequences as PostgreSQL's" \
    $? "$(head -20 "$work/d_$form")"
done

echo "$fails failed"
[ "$fails" -eq 0 ]

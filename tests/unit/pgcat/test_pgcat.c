/* test_pgcat — pg_catalog and information_schema computed from a real
 * catalog: a database with a table (primary key, NOT NULL, a default), a
 * secondary index with an included column, a role with a grant and a
 * second schema; every relation's rows, the columns the clients select,
 * the catalog functions, regclass input/output and visibility.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "cz_test.h"
#include "exec/expr.h"
#include "pgcat/pgcat.h"
#include "sql/sql.h"
#include "txn/txn.h"

#define PT_OK(call)                                                       \
  do {                                                                    \
    err_t e_;                                                             \
    err_clear(&e_);                                                       \
    int rc_ = (call);                                                     \
    if (rc_ != CZ_OK)                                                     \
      fail_msg("%s -> %d: %s %s", #call, rc_, e_.er_sqlstate, e_.er_msg); \
  } while (0)

typedef struct pt_fix_s {
  char *f_db_path;
  char *f_wal_path;
  db_t *f_db;
  cat_t *f_cat;
  cat_snapshot_t *f_snap;
  arena_t *f_arena;
  pgcat_env_t f_env;
  cat_oid_t f_items, f_other, f_dba, f_alice, f_bob, f_pkey, f_byname, f_odd[2];
} pt_fix_t;

static pt_fix_t pt;
static bool pt_reopen;

static const pgcat_setting_t pt_settings[] = {
  {"search_path", "\"$user\", public"},
  {"DateStyle", "ISO, MDY"},
  {"TimeZone", "UTC"},
};

/* The hook the engine would install: the session is the env itself. */
static const pgcat_env_t *pt_env_of(void *session)
{
  return session;
}

static int pt_setup(void **state)
{
  (void)state;
  memset(&pt, 0, sizeof pt);
  pt.f_db_path = cz_test_path("pgcat.db");
  pt.f_wal_path = cz_test_path("pgcat.trx");
  unlink(pt.f_db_path);
  unlink(pt.f_wal_path);
  db_config_t cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.dc_storage.sc_path = pt.f_db_path;
  cfg.dc_storage.sc_create = true;
  cfg.dc_storage.sc_sync = false;
  bp_config_default(&cfg.dc_pool);
  cfg.dc_pool.bc_n_buffers = 256;
  cfg.dc_pool.bc_max_dirty = 200;
  cfg.dc_pool.bc_bg_writer = false;
  cfg.dc_pool.bc_read_ahead = false;
  cfg.dc_wal_path = pt.f_wal_path;
  cfg.dc_sync = false;
  PT_OK(db_open(&cfg, &pt.f_db, &e_));
  PT_OK(cat_bootstrap(pt.f_db, "dba", "SCRAM-SHA-256$4096:c2FsdA==$c3RvcmVk:c2VydmVy", &e_));
  PT_OK(cat_open(pt.f_db, &pt.f_cat, &e_));

  err_t e;
  txn_t *tx = txn_begin(pt.f_db, 0, &e);
  assert_non_null(tx);
  cat_snapshot_t *s0 = cat_snapshot(pt.f_cat);
  pt.f_dba = cat_find_role(s0, "dba")->cr_oid;
  cat_snapshot_release(s0);
  /* items (id integer primary key, name varchar(40) not null,
   *        price numeric(10,2) default 0) */
  ty_t vc40 = ty_plain(TY_VARCHAR);
  vc40.t_len = 40;
  ty_t num = ty_plain(TY_NUMERIC);
  num.t_prec = 10;
  num.t_scale = 2;
  cat_column_def_t cols[] = {
    {"id", ty_plain(TY_INT4), true, NULL},
    {"name", vc40, true, NULL},
    {"price", num, false, "0.00"},
  };
  int pk[] = {0};
  cat_table_def_t td = {.td_name = "items", .td_owner = pt.f_dba, .td_ncols = 3, .td_cols = cols,
                        .td_npk = 1, .td_pk = pk};
  PT_OK(cat_create_table(pt.f_cat, tx, &td, &pt.f_items, &e_));
  int keys[] = {1}, inc[] = {2};
  cat_index_def_t id = {.id_name = "items_by_name", .id_table = pt.f_items, .id_nkeys = 1,
                        .id_keys = keys, .id_ninclude = 1, .id_include = inc};
  PT_OK(cat_create_index(pt.f_cat, tx, &id, &pt.f_byname, &e_));
  cat_role_def_t alice = {.rd_name = "alice", .rd_login = true};
  PT_OK(cat_create_role(pt.f_cat, tx, &alice, &pt.f_alice, &e_));
  cat_role_def_t bob = {.rd_name = "bob"};
  PT_OK(cat_create_role(pt.f_cat, tx, &bob, &pt.f_bob, &e_));
  cat_role_def_t odd[] = {{.rd_name = "Mixed Case"}, {.rd_name = "user"}};
  PT_OK(cat_create_role(pt.f_cat, tx, &odd[0], &pt.f_odd[0], &e_));
  PT_OK(cat_create_role(pt.f_cat, tx, &odd[1], &pt.f_odd[1], &e_));
  PT_OK(cat_grant(pt.f_cat, tx, pt.f_items, pt.f_alice, CAT_PRIV_SELECT, pt.f_dba, &e_));
  cat_oid_t s2;
  PT_OK(cat_create_schema(pt.f_cat, tx, "s2", pt.f_dba, &s2, &e_));
  /* s2.other, not on the search path, no primary key */
  cat_column_def_t ocols[] = {{"x", ty_plain(TY_TEXT), false, NULL}};
  cat_table_def_t od = {.td_schema = "s2", .td_name = "other", .td_owner = pt.f_dba,
                        .td_ncols = 1, .td_cols = ocols};
  PT_OK(cat_create_table(pt.f_cat, tx, &od, &pt.f_other, &e_));
  PT_OK(txn_commit(tx, &e_));
  /* the second run reads the catalog as loaded at start-up, the first the
   * snapshot the DDL transaction published */
  if (pt_reopen) {
    cat_close(pt.f_cat);
    PT_OK(cat_open(pt.f_db, &pt.f_cat, &e_));
  }

  pt.f_snap = cat_snapshot(pt.f_cat);
  const cat_table_t *t = cat_table_by_oid(pt.f_snap, pt.f_items);
  assert_non_null(t);
  for (int i = 0; i < t->ct_nindexes; i++)
    if (t->ct_indexes[i]->ci_primary)
      pt.f_pkey = t->ct_indexes[i]->ci_oid;
  pt.f_arena = arena_create(NULL, "pgcat-test");
  pt.f_env = (pgcat_env_t){.pe_snap = pt.f_snap, .pe_user = pt.f_dba,
                           .pe_session_user = pt.f_dba, .pe_database = "testdb",
                           .pe_backend_pid = 4242, .pe_nsettings = 3,
                           .pe_settings = pt_settings};
  PT_OK(pgcat_init(pt_env_of, &e_));
  return 0;
}

static int pt_teardown(void **state)
{
  (void)state;
  arena_destroy(pt.f_arena);
  cat_snapshot_release(pt.f_snap);
  cat_close(pt.f_cat);
  err_t e;
  db_close(pt.f_db, false, &e);
  unlink(pt.f_db_path);
  unlink(pt.f_wal_path);
  free(pt.f_db_path);
  free(pt.f_wal_path);
  return 0;
}

/* ---- reading rows -------------------------------------------------------- */

static const batch_t *pt_rows(const char *schema, const char *rel)
{
  const pgcat_rel_t *r = pgcat_find(schema, rel);
  assert_non_null(r);
  const batch_t *b;
  PT_OK(pgcat_rows(r, &pt.f_env, pt.f_arena, &b, &e_));
  assert_int_equal(b->b_ncols, pgcat_ncols(r));
  return b;
}

static int pt_col(const char *schema, const char *rel, const char *col)
{
  int c = pgcat_find_col(pgcat_find(schema, rel), col);
  if (c < 0)
    fail_msg("%s.%s has no column %s", schema, rel, col);
  return c;
}

/* Value of column col in row r as text ("NULL" for NULL). */
static const char *pt_val(const batch_t *b, const char *schema, const char *rel, int r,
                          const char *col)
{
  int c = pt_col(schema, rel, col);
  datum_t d;
  vec_get(&b->b_cols[c], r, &d);
  if (d.d_null)
    return "NULL";
  switch (ty_phys(b->b_cols[c].v_type.t_id)) {
  case TP_BOOL: return d.d_bool ? "t" : "f";
  case TP_I64: return arena_sprintf(pt.f_arena, "%lld", (long long)d.d_i64);
  case TP_F64: return arena_sprintf(pt.f_arena, "%g", d.d_f64);
  case TP_STR: return arena_sprintf(pt.f_arena, "%.*s", (int)d.d_str.s_len, d.d_str.s_ptr);
  default: return "?";
  }
}

/* The first row whose column col has the text value v, or -1. */
static int pt_find(const batch_t *b, const char *schema, const char *rel, const char *col,
                   const char *v)
{
  for (int r = 0; r < b->b_n; r++)
    if (strcmp(pt_val(b, schema, rel, r, col), v) == 0)
      return r;
  return -1;
}

static int pt_count(const batch_t *b, const char *schema, const char *rel, const char *col,
                    const char *v)
{
  int n = 0;
  for (int r = 0; r < b->b_n; r++)
    n += strcmp(pt_val(b, schema, rel, r, col), v) == 0;
  return n;
}

static const char *pt_oid(cat_oid_t o)
{
  return arena_sprintf(pt.f_arena, "%u", o);
}

/* ---- the tests ------------------------------------------------------------ */

static void test_relations_listed(void **state)
{
  (void)state;
  assert_true(pgcat_nrels() >= 30);
  assert_int_equal(pgcat_rel_oid(pgcat_find("pg_catalog", "pg_class")), 1259);
  assert_ptr_equal(pgcat_find(NULL, "pg_class"), pgcat_find("pg_catalog", "pg_class"));
  assert_null(pgcat_find("public", "pg_class"));
  assert_null(pgcat_find(NULL, "tables"));
  assert_non_null(pgcat_find("information_schema", "tables"));
  assert_null(pgcat_find("pg_catalog", "items"));
  assert_ptr_equal(pgcat_find_oid(1249), pgcat_find(NULL, "pg_attribute"));
  /* names and OIDs are unique; every relation fills without a bad row */
  for (int i = 0; i < pgcat_nrels(); i++) {
    const pgcat_rel_t *a = pgcat_rel_at(i);
    for (int j = i + 1; j < pgcat_nrels(); j++) {
      const pgcat_rel_t *b = pgcat_rel_at(j);
      assert_int_not_equal(pgcat_rel_oid(a), pgcat_rel_oid(b));
      if (pgcat_rel_schema_oid(a) == pgcat_rel_schema_oid(b))
        assert_string_not_equal(pgcat_rel_name(a), pgcat_rel_name(b));
    }
    const batch_t *b;
    PT_OK(pgcat_rows(a, &pt.f_env, pt.f_arena, &b, &e_));
    for (int c = 0; c < pgcat_ncols(a); c++)
      assert_int_equal(b->b_cols[c].v_type.t_id, pgcat_col_type(a, c).t_id);
  }
}

static void test_pg_class(void **state)
{
  (void)state;
  const char *S = "pg_catalog", *R = "pg_class";
  const batch_t *b = pt_rows(S, R);
  int r = pt_find(b, S, R, "relname", "items");
  assert_true(r >= 0);
  assert_string_equal(pt_val(b, S, R, r, "oid"), pt_oid(pt.f_items));
  assert_string_equal(pt_val(b, S, R, r, "relkind"), "r");
  assert_string_equal(pt_val(b, S, R, r, "relnamespace"), "2200");
  assert_string_equal(pt_val(b, S, R, r, "relnatts"), "3");
  assert_string_equal(pt_val(b, S, R, r, "relhasindex"), "t");
  assert_string_equal(pt_val(b, S, R, r, "relam"), "2");
  assert_string_equal(pt_val(b, S, R, r, "relowner"), pt_oid(pt.f_dba));
  assert_string_equal(pt_val(b, S, R, r, "relacl"),
                      "{dba=arwd/dba,alice=r/dba}");
  r = pt_find(b, S, R, "oid", pt_oid(pt.f_pkey));
  assert_true(r >= 0);
  assert_string_equal(pt_val(b, S, R, r, "relname"), "items_pkey");
  assert_string_equal(pt_val(b, S, R, r, "relkind"), "i");
  assert_string_equal(pt_val(b, S, R, r, "relam"), "403");
  /* the table without primary key has no index row, and no relhasindex */
  r = pt_find(b, S, R, "relname", "other");
  assert_string_equal(pt_val(b, S, R, r, "relhasindex"), "f");
  assert_int_equal(pt_count(b, S, R, "relkind", "i"), 2);
  /* the catalog lists itself */
  r = pt_find(b, S, R, "relname", "pg_class");
  assert_string_equal(pt_val(b, S, R, r, "oid"), "1259");
  assert_string_equal(pt_val(b, S, R, r, "relnamespace"), "11");
  r = pt_find(b, S, R, "relname", "pg_roles");
  assert_string_equal(pt_val(b, S, R, r, "relkind"), "v");
}

static void test_pg_attribute(void **state)
{
  (void)state;
  const char *S = "pg_catalog", *R = "pg_attribute";
  const batch_t *b = pt_rows(S, R);
  assert_int_equal(pt_count(b, S, R, "attrelid", pt_oid(pt.f_items)), 3);
  static const struct {
    const char *name, *num, *typid, *typmod, *notnull, *hasdef, *len, *coll;
  } want[] = {
    {"id", "1", "23", "-1", "t", "f", "4", "0"},
    {"name", "2", "1043", "44", "t", "f", "-1", "100"},
    {"price", "3", "1700", "655366", "f", "t", "-1", "0"},
  };
  for (int r = 0; r < b->b_n; r++) {
    if (strcmp(pt_val(b, S, R, r, "attrelid"), pt_oid(pt.f_items)) != 0)
      continue;
    int i = atoi(pt_val(b, S, R, r, "attnum")) - 1;
    assert_true(i >= 0 && i < 3);
    assert_string_equal(pt_val(b, S, R, r, "attname"), want[i].name);
    assert_string_equal(pt_val(b, S, R, r, "atttypid"), want[i].typid);
    assert_string_equal(pt_val(b, S, R, r, "atttypmod"), want[i].typmod);
    assert_string_equal(pt_val(b, S, R, r, "attnotnull"), want[i].notnull);
    assert_string_equal(pt_val(b, S, R, r, "atthasdef"), want[i].hasdef);
    assert_string_equal(pt_val(b, S, R, r, "attlen"), want[i].len);
    assert_string_equal(pt_val(b, S, R, r, "attcollation"), want[i].coll);
    assert_string_equal(pt_val(b, S, R, r, "attisdropped"), "f");
    assert_string_equal(pt_val(b, S, R, r, "attidentity"), "");
  }
  /* the index's columns: key then included */
  assert_int_equal(pt_count(b, S, R, "attrelid", pt_oid(pt.f_byname)), 2);
  /* pg_class's own columns, typed as their values are */
  int n = 0;
  for (int r = 0; r < b->b_n; r++)
    n += strcmp(pt_val(b, S, R, r, "attrelid"), "1259") == 0;
  assert_int_equal(n, pgcat_ncols(pgcat_find(NULL, "pg_class")));
}

static void test_pg_index_constraint_attrdef(void **state)
{
  (void)state;
  const char *S = "pg_catalog";
  const batch_t *b = pt_rows(S, "pg_index");
  int r = pt_find(b, S, "pg_index", "indexrelid", pt_oid(pt.f_pkey));
  assert_true(r >= 0);
  assert_string_equal(pt_val(b, S, "pg_index", r, "indrelid"), pt_oid(pt.f_items));
  assert_string_equal(pt_val(b, S, "pg_index", r, "indisprimary"), "t");
  assert_string_equal(pt_val(b, S, "pg_index", r, "indisunique"), "t");
  assert_string_equal(pt_val(b, S, "pg_index", r, "indkey"), "1");
  r = pt_find(b, S, "pg_index", "indexrelid", pt_oid(pt.f_byname));
  assert_string_equal(pt_val(b, S, "pg_index", r, "indisprimary"), "f");
  assert_string_equal(pt_val(b, S, "pg_index", r, "indisunique"), "f");
  assert_string_equal(pt_val(b, S, "pg_index", r, "indkey"), "2 3");
  assert_string_equal(pt_val(b, S, "pg_index", r, "indnatts"), "2");
  assert_string_equal(pt_val(b, S, "pg_index", r, "indnkeyatts"), "1");
  assert_int_equal(b->b_n, 2);

  b = pt_rows(S, "pg_constraint");
  assert_int_equal(b->b_n, 1);
  assert_string_equal(pt_val(b, S, "pg_constraint", 0, "contype"), "p");
  assert_string_equal(pt_val(b, S, "pg_constraint", 0, "conname"), "items_pkey");
  assert_string_equal(pt_val(b, S, "pg_constraint", 0, "conrelid"), pt_oid(pt.f_items));
  assert_string_equal(pt_val(b, S, "pg_constraint", 0, "conindid"), pt_oid(pt.f_pkey));
  assert_string_equal(pt_val(b, S, "pg_constraint", 0, "conkey"), "{1}");

  b = pt_rows(S, "pg_attrdef");
  assert_int_equal(b->b_n, 1);
  assert_string_equal(pt_val(b, S, "pg_attrdef", 0, "adrelid"), pt_oid(pt.f_items));
  assert_string_equal(pt_val(b, S, "pg_attrdef", 0, "adnum"), "3");
  assert_string_equal(pt_val(b, S, "pg_attrdef", 0, "adbin"), "0.00");
  assert_int_equal(pt_rows(S, "pg_inherits")->b_n, 0);
  assert_int_equal(pt_rows(S, "pg_description")->b_n, 0);
}

static void test_namespaces_roles_database(void **state)
{
  (void)state;
  const char *S = "pg_catalog";
  const batch_t *b = pt_rows(S, "pg_namespace");
  assert_true(pt_find(b, S, "pg_namespace", "nspname", "public") >= 0);
  assert_true(pt_find(b, S, "pg_namespace", "nspname", "s2") >= 0);
  assert_int_equal(pt_count(b, S, "pg_namespace", "oid", "11"), 1);
  assert_int_equal(pt_count(b, S, "pg_namespace", "oid", "13000"), 1);

  b = pt_rows(S, "pg_roles");
  int r = pt_find(b, S, "pg_roles", "rolname", "dba");
  assert_string_equal(pt_val(b, S, "pg_roles", r, "rolsuper"), "t");
  assert_string_equal(pt_val(b, S, "pg_roles", r, "rolpassword"), "********");
  r = pt_find(b, S, "pg_roles", "rolname", "alice");
  assert_string_equal(pt_val(b, S, "pg_roles", r, "rolsuper"), "f");
  assert_string_equal(pt_val(b, S, "pg_roles", r, "rolcanlogin"), "t");
  assert_string_equal(pt_val(b, S, "pg_roles", r, "rolpassword"), "NULL");
  assert_string_equal(pt_val(b, S, "pg_roles", r, "oid"), pt_oid(pt.f_alice));
  /* the verifier never leaves the catalog */
  b = pt_rows(S, "pg_authid");
  for (int i = 0; i < b->b_n; i++)
    assert_string_equal(pt_val(b, S, "pg_authid", i, "rolpassword"), "NULL");
  b = pt_rows(S, "pg_user");
  assert_int_equal(pt_find(b, S, "pg_user", "usename", "bob"), -1); /* cannot log in */
  assert_true(pt_find(b, S, "pg_user", "usename", "alice") >= 0);

  b = pt_rows(S, "pg_database");
  assert_int_equal(b->b_n, 1);
  assert_string_equal(pt_val(b, S, "pg_database", 0, "datname"), "testdb");
  assert_string_equal(pt_val(b, S, "pg_database", 0, "encoding"), "6");
  assert_string_equal(pt_val(b, S, "pg_database", 0, "datdba"), pt_oid(pt.f_dba));

  b = pt_rows(S, "pg_settings");
  assert_int_equal(b->b_n, 3);
  r = pt_find(b, S, "pg_settings", "name", "DateStyle");
  assert_string_equal(pt_val(b, S, "pg_settings", r, "setting"), "ISO, MDY");
  b = pt_rows(S, "pg_type");
  r = pt_find(b, S, "pg_type", "typname", "int4");
  assert_string_equal(pt_val(b, S, "pg_type", r, "oid"), "23");
  assert_string_equal(pt_val(b, S, "pg_type", r, "typarray"), "1007");
  assert_string_equal(pt_val(b, S, "pg_type", r, "typtype"), "b");
  r = pt_find(b, S, "pg_type", "typname", "_text");
  assert_string_equal(pt_val(b, S, "pg_type", r, "typelem"), "25");
  assert_int_equal(pt_find(b, S, "pg_type", "typname", "lo"), -1);
}

static void test_information_schema(void **state)
{
  (void)state;
  const char *I = "information_schema";
  const batch_t *b = pt_rows(I, "columns");
  int n = 0;
  for (int r = 0; r < b->b_n; r++) {
    if (strcmp(pt_val(b, I, "columns", r, "table_name"), "items") != 0)
      continue;
    n++;
    const char *col = pt_val(b, I, "columns", r, "column_name");
    if (strcmp(col, "name") == 0) {
      assert_string_equal(pt_val(b, I, "columns", r, "data_type"), "character varying");
      assert_string_equal(pt_val(b, I, "columns", r, "character_maximum_length"), "40");
      assert_string_equal(pt_val(b, I, "columns", r, "is_nullable"), "NO");
      assert_string_equal(pt_val(b, I, "columns", r, "udt_name"), "varchar");
    } else if (strcmp(col, "price") == 0) {
      assert_string_equal(pt_val(b, I, "columns", r, "numeric_precision"), "10");
      assert_string_equal(pt_val(b, I, "columns", r, "numeric_scale"), "2");
      assert_string_equal(pt_val(b, I, "columns", r, "column_default"), "0.00");
      assert_string_equal(pt_val(b, I, "columns", r, "ordinal_position"), "3");
    }
  }
  assert_int_equal(n, 3);
  b = pt_rows(I, "tables");
  int r = pt_find(b, I, "tables", "table_name", "items");
  assert_string_equal(pt_val(b, I, "tables", r, "table_type"), "BASE TABLE");
  assert_string_equal(pt_val(b, I, "tables", r, "table_catalog"), "testdb");
  r = pt_find(b, I, "tables", "table_name", "pg_roles");
  assert_string_equal(pt_val(b, I, "tables", r, "table_type"), "VIEW");
  b = pt_rows(I, "key_column_usage");
  assert_int_equal(b->b_n, 1);
  assert_string_equal(pt_val(b, I, "key_column_usage", 0, "column_name"), "id");
  /* bob holds no privilege on items: he does not see it */
  pt.f_env.pe_user = pt.f_bob;
  b = pt_rows(I, "tables");
  assert_int_equal(pt_find(b, I, "tables", "table_name", "items"), -1);
  b = pt_rows(I, "columns");
  assert_int_equal(pt_find(b, I, "columns", "table_name", "items"), -1);
  pt.f_env.pe_user = pt.f_alice;
  b = pt_rows(I, "tables");
  assert_true(pt_find(b, I, "tables", "table_name", "items") >= 0);
  pt.f_env.pe_user = pt.f_dba;
}

static void test_scan_batches(void **state)
{
  (void)state;
  const pgcat_rel_t *r = pgcat_find(NULL, "pg_attribute");
  const batch_t *all = pt_rows("pg_catalog", "pg_attribute");
  pgcat_scan_t *sc;
  PT_OK(pgcat_scan_open(r, &pt.f_env, pt.f_arena, &sc, &e_));
  ty_t types[64];
  for (int c = 0; c < pgcat_ncols(r); c++)
    types[c] = pgcat_col_type(r, c);
  err_t e;
  batch_t *out = batch_create(pt.f_arena, pgcat_ncols(r), types, 7, &e);
  assert_non_null(out);
  int total = 0, calls = 0;
  for (;;) {
    PT_OK(pgcat_scan_next(sc, NULL, 0, out, &e_));
    if (out->b_n == 0)
      break;
    assert_true(out->b_n <= 7);
    /* rows come in order, equal to the all-at-once form */
    for (int i = 0; i < out->b_n; i++) {
      datum_t a, b;
      vec_get(&out->b_cols[1], i, &a);
      vec_get(&all->b_cols[1], total + i, &b);
      assert_int_equal(a.d_str.s_len, b.d_str.s_len);
      assert_memory_equal(a.d_str.s_ptr, b.d_str.s_ptr, a.d_str.s_len);
    }
    total += out->b_n;
    calls++;
  }
  assert_int_equal(total, all->b_n);
  assert_true(calls >= total / 7);
  /* a projection: attnum, attname, in that order, 1000 rows at a time */
  PT_OK(pgcat_scan_open(r, &pt.f_env, pt.f_arena, &sc, &e_));
  int cols[] = {pgcat_find_col(r, "attnum"), pgcat_find_col(r, "attname")};
  ty_t ptypes[] = {pgcat_col_type(r, cols[0]), pgcat_col_type(r, cols[1])};
  batch_t *two = batch_create(pt.f_arena, 2, ptypes, 1000, &e);
  PT_OK(pgcat_scan_next(sc, cols, 2, two, &e_));
  assert_int_equal(two->b_n, all->b_n < 1000 ? all->b_n : 1000);
  datum_t d;
  vec_get(&two->b_cols[0], 0, &d);
  assert_int_equal(d.d_i64, 1);
  vec_get(&two->b_cols[1], 0, &d);
  assert_int_equal(d.d_str.s_len, 2); /* items.id, the first column of the first table */
  assert_memory_equal(d.d_str.s_ptr, "id", 2);
  assert_int_equal(pgcat_scan_next(sc, cols, 1, two, &e), CZ_ERR); /* 2 columns, 1 asked */
  /* without a snapshot there is nothing to read */
  pgcat_env_t none = {0};
  err_t e2;
  assert_int_equal(pgcat_scan_open(r, &none, pt.f_arena, &sc, &e2), CZ_ERR);
  assert_string_equal(e2.er_sqlstate, "55000");
}

static void test_format_type(void **state)
{
  (void)state;
  arena_t *a = pt.f_arena;
  assert_string_equal(pgcat_format_type(23, -1, a), "integer");
  assert_string_equal(pgcat_format_type(1043, 44, a), "character varying(40)");
  assert_string_equal(pgcat_format_type(1043, -1, a), "character varying");
  assert_string_equal(pgcat_format_type(1700, ((10 << 16) | 2) + 4, a), "numeric(10,2)");
  assert_string_equal(pgcat_format_type(1042, 9, a), "character(5)");
  assert_string_equal(pgcat_format_type(1042, -1, a), "character");
  assert_string_equal(pgcat_format_type(1042, -2, a), "bpchar"); /* typmod NULL */
  assert_string_equal(pgcat_format_type(1114, 3, a), "timestamp(3) without time zone");
  assert_string_equal(pgcat_format_type(1009, -1, a), "text[]");
  assert_string_equal(pgcat_format_type(18, -1, a), "\"char\"");
  assert_string_equal(pgcat_format_type(701, -1, a), "double precision");
  assert_string_equal(pgcat_format_type(424242, -1, a), "???");
}

static void test_regclass(void **state)
{
  (void)state;
  const pgcat_env_t *env = &pt.f_env;
  arena_t *a = pt.f_arena;
  cat_oid_t o;
  PT_OK(pgcat_regclass_in(env, "items", &o, &e_));
  assert_int_equal(o, pt.f_items);
  PT_OK(pgcat_regclass_in(env, "public.items", &o, &e_));
  assert_int_equal(o, pt.f_items);
  PT_OK(pgcat_regclass_in(env, "ITEMS", &o, &e_));
  assert_int_equal(o, pt.f_items);
  PT_OK(pgcat_regclass_in(env, "pg_class", &o, &e_));
  assert_int_equal(o, 1259);
  PT_OK(pgcat_regclass_in(env, "pg_catalog.pg_class", &o, &e_));
  assert_int_equal(o, 1259);
  PT_OK(pgcat_regclass_in(env, "items_pkey", &o, &e_));
  assert_int_equal(o, pt.f_pkey);
  PT_OK(pgcat_regclass_in(env, "s2.other", &o, &e_));
  assert_int_equal(o, pt.f_other);
  PT_OK(pgcat_regclass_in(env, "16999", &o, &e_));
  assert_int_equal(o, 16999);
  err_t e;
  assert_int_equal(pgcat_regclass_in(env, "\"ITEMS\"", &o, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42P01");
  assert_string_equal(e.er_msg, "relation \"\"ITEMS\"\" does not exist");
  assert_int_equal(pgcat_regclass_in(env, "other", &o, &e), CZ_ERR); /* not on the path */
  assert_string_equal(e.er_sqlstate, "42P01");
  assert_int_equal(pgcat_regclass_in(env, "nosuch.items", &o, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "3F000");
  assert_int_equal(pgcat_regclass_in(env, "a.b.c", &o, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P02");

  assert_string_equal(pgcat_regclass_out(env, pt.f_items, a), "items");
  assert_string_equal(pgcat_regclass_out(env, 1259, a), "pg_class");
  assert_string_equal(pgcat_regclass_out(env, pt.f_other, a), "s2.other");
  assert_string_equal(pgcat_regclass_out(env, 999999, a), "999999");
  assert_string_equal(pgcat_regtype_out(23, a), "integer");
  assert_string_equal(pgcat_regnamespace_out(env, 2200, a), "public");
  assert_string_equal(pgcat_regrole_out(env, pt.f_alice, a), "alice");
  /* names that would not read back bare are quoted, as quote_ident does */
  assert_string_equal(pgcat_regrole_out(env, pt.f_odd[0], a), "\"Mixed Case\"");
  assert_string_equal(pgcat_regrole_out(env, pt.f_odd[1], a), "\"user\"");
  PT_OK(pgcat_regrole_in(env, "\"Mixed Case\"", &o, &e_));
  assert_int_equal(o, pt.f_odd[0]);
  PT_OK(pgcat_regtype_in(env, "int4", &o, &e_));
  assert_int_equal(o, 23);
  PT_OK(pgcat_regtype_in(env, "character varying", &o, &e_));
  assert_int_equal(o, 1043);
  PT_OK(pgcat_regtype_in(env, "pg_catalog.text[]", &o, &e_));
  assert_int_equal(o, 1009);
  assert_int_equal(pgcat_regtype_in(env, "nosuchtype", &o, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "42704");
  PT_OK(pgcat_regrole_in(env, "alice", &o, &e_));
  assert_int_equal(o, pt.f_alice);
  PT_OK(pgcat_regnamespace_in(env, "s2", &o, &e_));
}

/* Calls a registered function as the executor would. */
static datum_t pt_call(const char *name, int n, const ty_t *types, const datum_t *args)
{
  const xfunc_t *f;
  ty_t to[8], res;
  PT_OK(xfunc_resolve(name, types, n, &f, to, &res, &e_));
  xnode_t node = {.x_kind = X_FUNC, .x_func = f, .x_nargs = n, .x_type = res};
  xctx_t c = {.xc_arena = pt.f_arena, .xc_session = &pt.f_env};
  datum_t out = {.d_null = false};
  bool any_null = false;
  for (int i = 0; i < n; i++)
    any_null |= args[i].d_null;
  if (any_null && (f->fd_flags & XF_STRICT))
    out.d_null = true;
  else
    PT_OK(f->fd_row(&c, &node, args, &out, &e_));
  return out;
}

static datum_t pt_i(int64_t v)
{
  datum_t d = {.d_null = false};
  d.d_i64 = v;
  return d;
}

static datum_t pt_s(const char *s)
{
  datum_t d = {.d_null = false};
  d.d_str.s_ptr = s;
  d.d_str.s_len = (uint32_t)strlen(s);
  return d;
}

static datum_t pt_b(bool v)
{
  datum_t d = {.d_null = false};
  d.d_bool = v;
  return d;
}

static const char *pt_str(datum_t d)
{
  return d.d_null ? "NULL" : arena_sprintf(pt.f_arena, "%.*s", (int)d.d_str.s_len, d.d_str.s_ptr);
}

static void test_functions(void **state)
{
  (void)state;
  const ty_t I8[] = {ty_plain(TY_INT8), ty_plain(TY_INT4), ty_plain(TY_BOOL)};
  const ty_t T2[] = {ty_plain(TY_TEXT), ty_plain(TY_TEXT), ty_plain(TY_TEXT)};
  const ty_t TI[] = {ty_plain(TY_TEXT), ty_plain(TY_INT4)};
  const ty_t TU[] = {ty_plain(TY_TEXT), ty_plain(TY_INT8), ty_plain(TY_TEXT)};
  datum_t a[3];

  a[0] = pt_i(1043), a[1] = pt_i(44);
  assert_string_equal(pt_str(pt_call("format_type", 2, I8, a)), "character varying(40)");
  a[1].d_null = true;
  assert_string_equal(pt_str(pt_call("format_type", 2, I8, a)), "character varying");
  a[0] = pt_i(pt.f_dba);
  assert_string_equal(pt_str(pt_call("pg_get_userbyid", 1, I8, a)), "dba");
  a[0] = pt_i(1);
  assert_string_equal(pt_str(pt_call("pg_get_userbyid", 1, I8, a)), "unknown (OID=1)");
  a[0] = pt_i(pt.f_items);
  assert_true(pt_call("pg_table_is_visible", 1, I8, a).d_bool);
  a[0] = pt_i(pt.f_other);
  assert_false(pt_call("pg_table_is_visible", 1, I8, a).d_bool);
  a[0] = pt_i(1259);
  assert_true(pt_call("pg_table_is_visible", 1, I8, a).d_bool);
  a[0] = pt_i(pt.f_pkey);
  assert_string_equal(pt_str(pt_call("pg_get_indexdef", 1, I8, a)),
                      "CREATE UNIQUE INDEX items_pkey ON public.items USING btree (id)");
  a[0] = pt_i(pt.f_byname), a[1] = pt_i(0), a[2] = pt_b(true);
  assert_string_equal(pt_str(pt_call("pg_get_indexdef", 3, I8, a)),
                      "CREATE INDEX items_by_name ON public.items USING btree (name) "
                      "INCLUDE (price)");
  a[1] = pt_i(2);
  assert_string_equal(pt_str(pt_call("pg_get_indexdef", 3, I8, a)), "price");
  const batch_t *con = pt_rows("pg_catalog", "pg_constraint");
  a[0] = pt_i(atoll(pt_val(con, "pg_catalog", "pg_constraint", 0, "oid"))), a[1] = pt_b(true);
  assert_string_equal(pt_str(pt_call("pg_get_constraintdef", 2, (ty_t[]){I8[0], I8[2]}, a)),
                      "PRIMARY KEY (id)");
  a[0] = pt_s("0.00"), a[1] = pt_i(pt.f_items);
  assert_string_equal(pt_str(pt_call("pg_get_expr", 2, (ty_t[]){T2[0], I8[0]}, a)), "0.00");
  assert_string_equal(pt_str(pt_call("current_schema", 0, NULL, NULL)), "public");
  assert_string_equal(pt_str(pt_call("current_database", 0, NULL, NULL)), "testdb");
  assert_string_equal(pt_str(pt_call("current_user", 0, NULL, NULL)), "dba");
  a[0] = pt_b(true);
  assert_string_equal(pt_str(pt_call("current_schemas", 1, &I8[2], a)), "{pg_catalog,public}");
  a[0] = pt_b(false);
  assert_string_equal(pt_str(pt_call("current_schemas", 1, &I8[2], a)), "{public}");
  assert_int_equal(strncmp(pt_str(pt_call("version", 0, NULL, NULL)), "PostgreSQL 15.", 14), 0);
  assert_int_equal(pt_call("pg_backend_pid", 0, NULL, NULL).d_i64, 4242);
  a[0] = pt_i(6);
  assert_string_equal(pt_str(pt_call("pg_encoding_to_char", 1, &I8[1], a)), "UTF8");
  a[0] = pt_s("TimeZone");
  assert_string_equal(pt_str(pt_call("current_setting", 1, T2, a)), "UTC");

  /* privileges: alice may read items, not write it; bob may do neither */
  a[0] = pt_s("alice"), a[1] = pt_s("items"), a[2] = pt_s("SELECT");
  assert_true(pt_call("has_table_privilege", 3, T2, a).d_bool);
  a[2] = pt_s("select, insert");
  assert_false(pt_call("has_table_privilege", 3, T2, a).d_bool);
  a[0] = pt_s("bob"), a[2] = pt_s("SELECT");
  assert_false(pt_call("has_table_privilege", 3, T2, a).d_bool);
  a[0] = pt_s("alice"), a[1] = pt_i(pt.f_items), a[2] = pt_s("SELECT WITH GRANT OPTION");
  assert_true(pt_call("has_table_privilege", 3, TU, a).d_bool);
  a[0] = pt_s("pg_class"), a[1] = pt_s("SELECT");
  assert_true(pt_call("has_table_privilege", 2, T2, a).d_bool);
  a[0] = pt_s("items"), a[1] = pt_s("DELETE");
  assert_true(pt_call("has_table_privilege", 2, T2, a).d_bool); /* dba owns it */

  /* arrays in their text form */
  a[0] = pt_s("{a,NULL,\"b c\",\"x\\\"y\"}"), a[1] = pt_s(",");
  assert_string_equal(pt_str(pt_call("array_to_string", 2, T2, a)), "a,b c,x\"y");
  a[2] = pt_s("*");
  assert_string_equal(pt_str(pt_call("array_to_string", 3, T2, a)), "a,*,b c,x\"y");
  a[0] = pt_s("{}");
  assert_string_equal(pt_str(pt_call("array_to_string", 2, T2, a)), "");
  a[0] = pt_s("{1,2,3}"), a[1] = pt_i(1);
  assert_int_equal(pt_call("array_upper", 2, TI, a).d_i64, 3);
  assert_int_equal(pt_call("array_lower", 2, TI, a).d_i64, 1);
  a[0] = pt_s("{}");
  assert_true(pt_call("array_upper", 2, TI, a).d_null);
  assert_true(pt_call("array_lower", 2, TI, a).d_null);

  a[0] = pt_s("{10,20}"), a[1] = pt_s("20");
  assert_true(pt_call("array_any_eq", 2, T2, a).d_bool);
  a[1] = pt_s("30");
  assert_false(pt_call("array_any_eq", 2, T2, a).d_bool);
  a[0] = pt_s("{10,NULL}");
  assert_true(pt_call("array_any_eq", 2, T2, a).d_null); /* maybe the NULL */
  a[0] = pt_s("{}");
  assert_false(pt_call("array_any_eq", 2, T2, a).d_null);
  a[0] = pt_s("{a,b}"), a[1] = pt_i(2);
  assert_string_equal(pt_str(pt_call("array_element", 2, TI, a)), "b");
  a[1] = pt_i(3);
  assert_true(pt_call("array_element", 2, TI, a).d_null);
  /* vectors (int2vector, oidvector) are subscripted from 0 */
  a[0] = pt_s("2 3"), a[1] = pt_i(0);
  assert_string_equal(pt_str(pt_call("array_element", 2, TI, a)), "2");
  a[1] = pt_i(1);
  assert_int_equal(pt_call("array_upper", 2, TI, a).d_i64, 1);
  assert_int_equal(pt_call("array_lower", 2, TI, a).d_i64, 0);
  pgcat_pgtype_t elem;
  assert_true(pgcat_pgtype_elem(PGT_INT2VECTOR, &elem));
  assert_int_equal(elem, PGT_INT2);
  assert_false(pgcat_pgtype_elem(PGT_NAME, &elem));

  /* reg* functions for the binder's casts */
  a[0] = pt_s("pg_class");
  assert_int_equal(pt_call("regclassin", 1, T2, a).d_i64, 1259);
  a[0] = pt_s("nosuch");
  assert_true(pt_call("to_regclass", 1, T2, a).d_null);
  a[0] = pt_i(pt.f_other);
  assert_string_equal(pt_str(pt_call("regclassout", 1, I8, a)), "s2.other");
  a[0] = pt_i(1043);
  assert_string_equal(pt_str(pt_call("regtypeout", 1, I8, a)), "character varying");
  a[0] = pt_i(pt.f_items);
  assert_true(pt_call("pg_relation_is_publishable", 1, I8, a).d_bool);
  assert_true(pt_call("obj_description", 1, I8, a).d_null);
}

/* regexp_like (the ~ operators), array_make (ARRAY[…]) and the handle
 * test the engine's scan hooks rely on. */
static void test_regex_array_make_is_rel(void **state)
{
  (void)state;
  const ty_t T3[] = {ty_plain(TY_TEXT), ty_plain(TY_TEXT), ty_plain(TY_TEXT)};
  datum_t a[4];
  a[0] = pt_s("items"), a[1] = pt_s("^(items)$");
  assert_true(pt_call("regexp_like", 2, T3, a).d_bool);
  a[0] = pt_s("items2");
  assert_false(pt_call("regexp_like", 2, T3, a).d_bool);
  a[0] = pt_s("pg_toast_1"), a[1] = pt_s("^pg_toast");
  assert_true(pt_call("regexp_like", 2, T3, a).d_bool);
  a[0] = pt_s("ITEMS"), a[1] = pt_s("^it"), a[2] = pt_s("i");
  assert_true(pt_call("regexp_like", 3, T3, a).d_bool);
  a[2] = pt_s("c");
  assert_false(pt_call("regexp_like", 3, T3, a).d_bool);
  /* \d is PostgreSQL's digit class; inside brackets it stays as it is */
  a[0] = pt_s("t42"), a[1] = pt_s("^t\\d+$");
  assert_true(pt_call("regexp_like", 2, T3, a).d_bool);
  a[0] = pt_s("tx"), a[1] = pt_s("^t\\D$");
  assert_true(pt_call("regexp_like", 2, T3, a).d_bool);
  a[0] = pt_s("a]"), a[1] = pt_s("^a[]x]$");
  assert_true(pt_call("regexp_like", 2, T3, a).d_bool);
  /* a bad pattern is 2201B, a bad flag 22023 */
  const xfunc_t *f;
  ty_t to[3], res;
  PT_OK(xfunc_resolve("regexp_like", T3, 3, &f, to, &res, &e_));
  xnode_t node = {.x_kind = X_FUNC, .x_func = f, .x_nargs = 2, .x_type = res};
  xctx_t c = {.xc_arena = pt.f_arena};
  datum_t out;
  err_t e;
  a[0] = pt_s("x"), a[1] = pt_s("(");
  assert_int_equal(f->fd_row(&c, &node, a, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "2201B");
  node.x_nargs = 3;
  a[1] = pt_s("x"), a[2] = pt_s("z");
  assert_int_equal(f->fd_row(&c, &node, a, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22023");

  a[0] = pt_s("a"), a[1] = pt_s("b c"), a[2] = pt_s("NULL"), a[3] = pt_s("");
  assert_string_equal(pt_str(pt_call("array_make", 4, (ty_t[]){T3[0], T3[0], T3[0], T3[0]}, a)),
                      "{a,\"b c\",\"NULL\",\"\"}");
  a[1].d_null = true, a[2] = pt_s("q\"\\");
  assert_string_equal(pt_str(pt_call("array_make", 3, T3, a)), "{a,NULL,\"q\\\"\\\\\"}");
  assert_string_equal(pt_str(pt_call("array_make", 0, NULL, NULL)), "{}");

  const pgcat_rel_t *r = pgcat_find("pg_catalog", "pg_class");
  assert_true(pgcat_is_rel(r));
  assert_true(pgcat_is_rel(pgcat_find("information_schema", "columns")));
  assert_true(pgcat_is_rel(pgcat_rel_at(pgcat_nrels() - 1)));
  int local = 0;
  assert_false(pgcat_is_rel(&local));
  assert_false(pgcat_is_rel(NULL));
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_relations_listed),
    cmocka_unit_test(test_pg_class),
    cmocka_unit_test(test_pg_attribute),
    cmocka_unit_test(test_pg_index_constraint_attrdef),
    cmocka_unit_test(test_namespaces_roles_database),
    cmocka_unit_test(test_information_schema),
    cmocka_unit_test(test_scan_batches),
    cmocka_unit_test(test_format_type),
    cmocka_unit_test(test_regclass),
    cmocka_unit_test(test_functions),
    cmocka_unit_test(test_regex_array_make_is_rel),
  };
  int failed = cmocka_run_group_tests_name("snapshot made by DDL", tests, pt_setup, pt_teardown);
  pt_reopen = true;
  failed += cmocka_run_group_tests_name("snapshot loaded at open", tests, pt_setup, pt_teardown);
  return failed;
}

/* The catalog: built-in objects, transactional DDL (visibility to the
 * creating transaction only, rollback, serialisation of DDL
 * transactions), persistence across restarts (replayed and
 * checkpointed), errors with their SQLSTATEs, privileges, search path and
 * snapshot references.
 */
#include <pthread.h>

#include "cat_test.h"

static cat_oid_t ct_make_table(ct_env_t *t, txn_t *tx, const char *schema, const char *name, int npk)
{
  cat_column_def_t cols[3] = { ct_col("id", TY_INT4, false), ct_col("name", TY_VARCHAR, true),
                               ct_col("score", TY_FLOAT8, false) };
  cols[2].cd_default = "0.5";
  int pk[1] = { 0 };
  cat_table_def_t def = { .td_schema = schema, .td_name = name, .td_owner = 10, .td_ncols = 3,
                          .td_cols = cols, .td_npk = npk, .td_pk = pk };
  cat_oid_t oid = 0;
  CT_OK(cat_create_table(t->ce_cat, tx, &def, &oid, &e_));
  return oid;
}

static void test_bootstrap_builtins(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "boot");
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  assert_int_equal(cat_find_schema(s, "pg_catalog")->cs_oid, CAT_OID_PG_CATALOG);
  assert_int_equal(cat_find_schema(s, "public")->cs_oid, CAT_OID_PUBLIC);
  assert_non_null(cat_find_schema(s, "information_schema"));
  const cat_role_t *r = cat_find_role(s, "dba");
  assert_non_null(r);
  assert_true(r->cr_superuser && r->cr_login);
  assert_string_equal(r->cr_verifier, "SCRAM-SHA-256$4096:c2FsdA==$AAAA:BBBB");
  assert_int_equal(s->cs_ntables, 0);
  cat_snapshot_release(s);
  err_t e;
  assert_int_equal(cat_bootstrap(t.ce_db, "x", NULL, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_DUPLICATE_OBJECT);
  ct_fini(&t);
}

static void test_create_table_visible_at_commit(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "visible");
  uint64_t v0 = cat_version(t.ce_cat);
  txn_t *tx = ct_begin(&t);
  cat_oid_t oid = ct_make_table(&t, tx, NULL, "people", 1);
  assert_true(oid >= CAT_FIRST_USER_OID);
  cat_snapshot_t *mine = cat_snapshot_tx(t.ce_cat, tx), *other = cat_snapshot(t.ce_cat);
  const cat_table_t *tb = cat_find_table(mine, NULL, "people");
  assert_non_null(tb);
  assert_null(cat_find_table(other, NULL, "people"));
  assert_int_equal(cat_version(t.ce_cat), v0);
  /* the definition */
  assert_int_equal(tb->ct_oid, oid);
  assert_int_equal(tb->ct_schema, CAT_OID_PUBLIC);
  assert_string_equal(tb->ct_schema_name, "public");
  assert_int_equal(tb->ct_ncols, 3);
  assert_string_equal(tb->ct_cols[1].cc_name, "name");
  assert_int_equal(tb->ct_cols[1].cc_type.t_id, TY_VARCHAR);
  assert_true(tb->ct_cols[0].cc_not_null); /* primary key column */
  assert_true(tb->ct_cols[1].cc_not_null);
  assert_false(tb->ct_cols[2].cc_not_null);
  assert_string_equal(tb->ct_cols[2].cc_default, "0.5");
  assert_null(tb->ct_cols[0].cc_default);
  assert_int_equal(tb->ct_npk, 1);
  assert_int_equal(tb->ct_nindexes, 1);
  assert_string_equal(tb->ct_indexes[0]->ci_name, "people_pkey");
  assert_true(tb->ct_indexes[0]->ci_primary);
  assert_non_null(tb->ct_indexes[0]->ci_tree);
  assert_ptr_equal(cat_find_index(mine, NULL, "people_pkey"), tb->ct_indexes[0]);
  assert_ptr_equal(cat_table_by_oid(mine, oid), tb);
  assert_int_equal(cat_find_column(tb, "score"), 2);
  cat_snapshot_release(mine);
  CT_OK(txn_commit(tx, &e_));
  assert_true(cat_version(t.ce_cat) > v0);
  /* an old snapshot stays what it was; a refresh moves on */
  assert_null(cat_find_table(other, NULL, "people"));
  cat_snapshot_refresh(t.ce_cat, NULL, &other);
  assert_non_null(cat_find_table(other, NULL, "people"));
  cat_snapshot_t *same = other;
  cat_snapshot_refresh(t.ce_cat, NULL, &other);
  assert_ptr_equal(same, other);
  cat_snapshot_release(other);
  ct_fini(&t);
}

static void test_ddl_rollback_discards(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "rollback");
  txn_t *tx = ct_begin(&t);
  cat_oid_t oid = ct_make_table(&t, tx, NULL, "gone", 0);
  int keys[1] = { 1 };
  cat_index_def_t ix = { .id_table = oid, .id_nkeys = 1, .id_keys = keys };
  cat_oid_t ioid;
  CT_OK(tbl_create_index(t.ce_cat, tx, &ix, &ioid, &e_));
  cat_snapshot_t *mine = cat_snapshot_tx(t.ce_cat, tx);
  const cat_table_t *tb = cat_find_table(mine, NULL, "gone");
  assert_int_equal(tb->ct_nindexes, 2);
  assert_true(tb->ct_indexes[0]->ci_hidden);
  assert_string_equal(tb->ct_indexes[1]->ci_name, "gone_name_idx");
  cat_snapshot_release(mine);
  CT_OK(txn_rollback(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  assert_null(cat_find_table(s, NULL, "gone"));
  assert_null(cat_find_index(s, NULL, "gone_name_idx"));
  cat_snapshot_release(s);
  bt_tree_t *bt;
  err_t e;
  char name[32];
  snprintf(name, sizeof name, "t%u", (unsigned)oid);
  assert_int_equal(db_open_tree(t.ce_db, name, &bt, &e), BT_NOT_FOUND);
  /* the name is free again, and the OID counter rolled back with the rest */
  tx = ct_begin(&t);
  cat_oid_t again = ct_make_table(&t, tx, NULL, "gone", 1);
  assert_int_equal(again, oid);
  CT_OK(txn_commit(tx, &e_));
  ct_fini(&t);
}

static void ct_populate(ct_env_t *t)
{
  txn_t *tx = ct_begin(t);
  cat_oid_t a = ct_make_table(t, tx, NULL, "a", 1);
  ct_make_table(t, tx, NULL, "b", 0);
  int keys[1] = { 1 }, inc[1] = { 2 };
  cat_index_def_t ix = { .id_name = "a_name", .id_table = a, .id_unique = true, .id_nkeys = 1,
                         .id_keys = keys, .id_ninclude = 1, .id_include = inc };
  CT_OK(tbl_create_index(t->ce_cat, tx, &ix, NULL, &e_));
  cat_role_def_t rd = { .rd_name = "alice", .rd_login = true, .rd_verifier = "v1" };
  cat_oid_t alice, grp;
  CT_OK(cat_create_role(t->ce_cat, tx, &rd, &alice, &e_));
  cat_role_def_t gd = { .rd_name = "readers" };
  CT_OK(cat_create_role(t->ce_cat, tx, &gd, &grp, &e_));
  CT_OK(cat_grant_role(t->ce_cat, tx, grp, alice, 10, false, &e_));
  CT_OK(cat_grant(t->ce_cat, tx, a, grp, CAT_PRIV_SELECT, 10, &e_));
  CT_OK(cat_create_schema(t->ce_cat, tx, "s1", 10, NULL, &e_));
  ct_make_table(t, tx, "s1", "c", 1);
  CT_OK(txn_commit(tx, &e_));
}

static void ct_check_populated(ct_env_t *t)
{
  cat_snapshot_t *s = cat_snapshot(t->ce_cat);
  const cat_table_t *a = cat_find_table(s, NULL, "a"), *b = cat_find_table(s, NULL, "b");
  assert_non_null(a);
  assert_non_null(b);
  assert_int_equal(a->ct_nindexes, 2);
  const cat_index_t *ix = cat_find_index(s, NULL, "a_name");
  assert_non_null(ix);
  assert_true(ix->ci_unique);
  assert_int_equal(ix->ci_ninclude, 1);
  assert_int_equal(ix->ci_include[0], 2);
  assert_int_equal(b->ct_npk, 0);
  const cat_role_t *alice = cat_find_role(s, "alice"), *grp = cat_find_role(s, "readers");
  assert_non_null(alice);
  assert_string_equal(alice->cr_verifier, "v1");
  assert_false(grp->cr_login);
  assert_true(cat_role_is_member(s, alice->cr_oid, grp->cr_oid));
  assert_int_equal(cat_table_privs(s, alice->cr_oid, a), CAT_PRIV_SELECT);
  assert_non_null(cat_find_table(s, "s1", "c"));
  assert_null(cat_find_table(s, NULL, "c"));
  cat_snapshot_release(s);
}

static void test_persistence_after_restart(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "persist");
  ct_populate(&t);
  ct_check_populated(&t);
  ct_close(&t, false); /* as after a crash: the log replays */
  ct_open_only(&t);
  ct_check_populated(&t);
  ct_close(&t, true);
  ct_open_only(&t);
  ct_check_populated(&t);
  /* OIDs continue after the restart */
  txn_t *tx = ct_begin(&t);
  cat_oid_t d = ct_make_table(&t, tx, NULL, "d", 1);
  cat_snapshot_t *s = cat_snapshot_tx(t.ce_cat, tx);
  for (int i = 0; i < s->cs_ntables; i++)
    if (s->cs_tables[i]->ct_oid != d)
      assert_true(s->cs_tables[i]->ct_oid < d);
  cat_snapshot_release(s);
  CT_OK(txn_commit(tx, &e_));
  ct_fini(&t);
}

static void test_errors(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "errors");
  ct_populate(&t);
  cat_t *c = t.ce_cat;
  cat_snapshot_t *s = cat_snapshot(c);
  const cat_table_t *a = cat_find_table(s, NULL, "a");
  const cat_table_t *out;
  CT_FAILS(SQLSTATE_UNDEFINED_TABLE, cat_lookup_table(s, NULL, "nope", &out, &e_));
  CT_FAILS(SQLSTATE_INVALID_SCHEMA, cat_lookup_table(s, "nos", "a", &out, &e_));
  int col;
  CT_FAILS(SQLSTATE_UNDEFINED_COLUMN, cat_lookup_column(a, "nope", &col, &e_));
  const cat_role_t *r;
  CT_FAILS(SQLSTATE_UNDEFINED_OBJECT, cat_lookup_role(s, "bob", &r, &e_));
  cat_oid_t alice = cat_find_role(s, "alice")->cr_oid;
  cat_oid_t a_oid = a->ct_oid, pk_oid = a->ct_indexes[0]->ci_oid;
  cat_snapshot_release(s);

  txn_t *tx = ct_begin(&t);
  cat_column_def_t cols[2] = { ct_col("x", TY_INT4, false), ct_col("x", TY_INT4, false) };
  cat_table_def_t dup_col = { .td_name = "z", .td_ncols = 2, .td_cols = cols };
  CT_FAILS(SQLSTATE_DUPLICATE_COLUMN, cat_create_table(c, tx, &dup_col, NULL, &e_));
  cat_table_def_t dup_tab = { .td_name = "a", .td_ncols = 1, .td_cols = cols };
  CT_FAILS(SQLSTATE_DUPLICATE_TABLE, cat_create_table(c, tx, &dup_tab, NULL, &e_));
  cat_table_def_t dup_idx = { .td_name = "a_name", .td_ncols = 1, .td_cols = cols };
  CT_FAILS(SQLSTATE_DUPLICATE_TABLE, cat_create_table(c, tx, &dup_idx, NULL, &e_));
  cat_table_def_t bad_schema = { .td_schema = "nos", .td_name = "q", .td_ncols = 1, .td_cols = cols };
  CT_FAILS(SQLSTATE_INVALID_SCHEMA, cat_create_table(c, tx, &bad_schema, NULL, &e_));
  cat_role_def_t rd = { .rd_name = "alice" };
  CT_FAILS(SQLSTATE_DUPLICATE_OBJECT, cat_create_role(c, tx, &rd, NULL, &e_));
  CT_FAILS(SQLSTATE_DEPENDENT_OBJECTS, cat_drop_index(c, tx, pk_oid, &e_));
  CT_FAILS(SQLSTATE_DEPENDENT_OBJECTS, cat_drop_role(c, tx, 10, &e_));
  CT_FAILS(SQLSTATE_DEPENDENT_OBJECTS, cat_drop_schema(c, tx, CAT_OID_PUBLIC, &e_));
  CT_FAILS(SQLSTATE_UNDEFINED_TABLE, cat_drop_table(c, tx, 99999, &e_));
  CT_FAILS("0LP01", cat_grant_role(c, tx, alice, alice, 10, false, &e_));
  CT_OK(txn_rollback(tx, &e_));
  err_t eb;
  tx = txn_begin(t.ce_db, TXN_BULK, &eb);
  CT_FAILS("0A000", cat_create_table(c, tx, &dup_col, NULL, &e_));
  CT_OK(txn_commit(tx, &e_));

  /* a role holding grants cannot go; after REVOKE it can */
  tx = ct_begin(&t);
  cat_role_def_t bob = { .rd_name = "bob" };
  cat_oid_t bob_oid;
  CT_OK(cat_create_role(c, tx, &bob, &bob_oid, &e_));
  CT_OK(cat_grant(c, tx, a_oid, bob_oid, CAT_PRIV_INSERT, 10, &e_));
  CT_FAILS(SQLSTATE_DEPENDENT_OBJECTS, cat_drop_role(c, tx, bob_oid, &e_));
  CT_OK(cat_revoke(c, tx, a_oid, bob_oid, CAT_PRIV_INSERT, &e_));
  CT_OK(cat_drop_role(c, tx, bob_oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(c);
  assert_null(cat_find_role(s, "bob"));
  cat_snapshot_release(s);
  ct_fini(&t);
}

static void test_privileges(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "privs");
  ct_populate(&t);
  cat_t *c = t.ce_cat;
  txn_t *tx = ct_begin(&t);
  cat_role_def_t rd = { .rd_name = "carol", .rd_login = true };
  cat_oid_t carol;
  CT_OK(cat_create_role(c, tx, &rd, &carol, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(c);
  const cat_table_t *a = cat_find_table(s, NULL, "a");
  cat_oid_t a_oid = a->ct_oid, alice = cat_find_role(s, "alice")->cr_oid;
  CT_FAILS(SQLSTATE_INSUFFICIENT_PRIVILEGE, cat_check_priv(s, carol, a, CAT_PRIV_SELECT, &e_));
  CT_OK(cat_check_priv(s, alice, a, CAT_PRIV_SELECT, &e_)); /* through the group */
  CT_FAILS(SQLSTATE_INSUFFICIENT_PRIVILEGE, cat_check_priv(s, alice, a, CAT_PRIV_SELECT | CAT_PRIV_INSERT, &e_));
  CT_OK(cat_check_priv(s, 10, a, CAT_PRIV_ALL, &e_)); /* superuser and owner */
  cat_snapshot_release(s);

  tx = ct_begin(&t);
  CT_OK(cat_grant(c, tx, a_oid, CAT_OID_PUBLIC_ROLE, CAT_PRIV_INSERT | CAT_PRIV_SELECT, 10, &e_));
  CT_OK(cat_grant(c, tx, a_oid, carol, CAT_PRIV_UPDATE, 10, &e_));
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(c);
  a = cat_find_table(s, NULL, "a");
  assert_int_equal(cat_table_privs(s, carol, a), CAT_PRIV_SELECT | CAT_PRIV_INSERT | CAT_PRIV_UPDATE);
  CT_FAILS(SQLSTATE_INSUFFICIENT_PRIVILEGE, cat_check_priv(s, carol, a, CAT_PRIV_DELETE, &e_));
  cat_snapshot_release(s);

  tx = ct_begin(&t);
  CT_OK(cat_revoke(c, tx, a_oid, CAT_OID_PUBLIC_ROLE, CAT_PRIV_SELECT, &e_));
  cat_snapshot_t *ts = cat_snapshot_tx(c, tx);
  cat_oid_t readers = cat_find_role(ts, "readers")->cr_oid;
  cat_snapshot_release(ts);
  CT_OK(cat_revoke_role(c, tx, readers, alice, &e_));
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(c);
  a = cat_find_table(s, NULL, "a");
  assert_int_equal(cat_table_privs(s, carol, a), CAT_PRIV_INSERT | CAT_PRIV_UPDATE);
  assert_int_equal(cat_table_privs(s, alice, a), CAT_PRIV_INSERT);
  cat_snapshot_release(s);
  ct_fini(&t);
}

/* ---- DDL transactions are serialised -------------------------------------- */

typedef struct ct_job_s {
  ct_env_t *t;
  int rc;
  char state[6];
  volatile int done;
} ct_job_t;

static void *ct_second_ddl(void *arg)
{
  ct_job_t *j = arg;
  txn_t *tx = ct_begin(j->t);
  cat_column_def_t cols[1] = { ct_col("x", TY_INT4, false) };
  cat_table_def_t def = { .td_name = "same", .td_ncols = 1, .td_cols = cols };
  err_t e;
  err_clear(&e);
  j->rc = cat_create_table(j->t->ce_cat, tx, &def, NULL, &e);
  memcpy(j->state, e.er_sqlstate, 6);
  err_t e2;
  txn_rollback(tx, &e2);
  j->done = 1;
  return NULL;
}

static void test_ddl_serialised(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "serial");
  txn_t *tx = ct_begin(&t);
  ct_make_table(&t, tx, NULL, "same", 0);
  ct_job_t j = { .t = &t };
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, ct_second_ddl, &j), 0);
  time_sleep_us(50000);
  assert_false(j.done); /* waits for the DDL lock */
  CT_OK(txn_commit(tx, &e_));
  pthread_join(th, NULL);
  /* it saw the committed table once it got the lock */
  assert_int_equal(j.rc, CZ_ERR);
  assert_string_equal(j.state, SQLSTATE_DUPLICATE_TABLE);
  ct_fini(&t);
}

static void test_drop_table(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "drop");
  ct_populate(&t);
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  const cat_table_t *a = cat_find_table(s, NULL, "a");
  cat_oid_t a_oid = a->ct_oid;
  cat_snapshot_release(s);
  txn_t *tx = ct_begin(&t);
  CT_OK(cat_drop_table(t.ce_cat, tx, a_oid, &e_));
  s = cat_snapshot_tx(t.ce_cat, tx);
  assert_null(cat_find_table(s, NULL, "a"));
  assert_null(cat_find_index(s, NULL, "a_name"));
  for (int i = 0; i < s->cs_ngrants; i++)
    assert_int_not_equal(s->cs_grants[i].cg_table, a_oid);
  cat_snapshot_release(s);
  CT_OK(txn_commit(tx, &e_));
  ct_close(&t, false);
  ct_open_only(&t);
  s = cat_snapshot(t.ce_cat);
  assert_null(cat_find_table(s, NULL, "a"));
  assert_non_null(cat_find_table(s, NULL, "b"));
  cat_snapshot_release(s);
  ct_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_bootstrap_builtins),
    cmocka_unit_test(test_create_table_visible_at_commit),
    cmocka_unit_test(test_ddl_rollback_discards),
    cmocka_unit_test(test_persistence_after_restart),
    cmocka_unit_test(test_errors),
    cmocka_unit_test(test_privileges),
    cmocka_unit_test(test_ddl_serialised),
    cmocka_unit_test(test_drop_table),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Catalog constraints (cat_constraint.c): a CHECK and a FOREIGN KEY
 * recorded, attached to their tables in a snapshot (ct_cons, ct_refby),
 * PostgreSQL's default names with a number while taken, 42710 for a
 * taken name, persistence across a restart (log replay and checkpoint),
 * DROP TABLE refused while another table references it (2BP01) and
 * allowed after the foreign key is dropped, DROP INDEX refused for the
 * referenced index, a rolled-back constraint gone.
 */
#include "cat_test.h"

static cat_oid_t cc_table(ct_env_t *t, txn_t *tx, const char *name)
{
  cat_column_def_t cols[2] = {ct_col("id", TY_INT4, false), ct_col("p", TY_INT4, false)};
  int pk[1] = {0};
  cat_table_def_t def = {.td_name = name, .td_owner = 10, .td_ncols = 2, .td_cols = cols,
                         .td_npk = 1, .td_pk = pk};
  cat_oid_t oid = 0;
  CT_OK(cat_create_table(t->ce_cat, tx, &def, &oid, &e_));
  return oid;
}

/* parent "par", child "chi" with a CHECK on p and a foreign key chi.p -> par.id */
static void cc_populate(ct_env_t *t)
{
  txn_t *tx = ct_begin(t);
  cat_oid_t par = cc_table(t, tx, "par"), chi = cc_table(t, tx, "chi");
  int p = 1, id = 0;
  cat_constraint_def_t ck = {.nd_table = chi, .nd_type = 'c', .nd_nkeys = 1, .nd_keys = &p,
                             .nd_check = "(p > 0)"};
  const char *name;
  CT_OK(cat_create_constraint(t->ce_cat, tx, &ck, NULL, &name, &e_));
  assert_string_equal(name, "chi_p_check");
  CT_OK(cat_create_constraint(t->ce_cat, tx, &ck, NULL, &name, &e_));
  assert_string_equal(name, "chi_p_check1");
  cat_snapshot_t *s = cat_snapshot_tx(t->ce_cat, tx);
  const cat_table_t *pt = cat_table_by_oid(s, par);
  cat_constraint_def_t fk = {.nd_table = chi, .nd_type = 'f', .nd_nkeys = 1, .nd_keys = &p,
                             .nd_ref = par, .nd_ref_keys = &id,
                             .nd_ref_index = pt->ct_indexes[0]->ci_oid, .nd_upd_action = 'c',
                             .nd_del_action = 'n', .nd_match = 'f', .nd_deferrable = true,
                             .nd_deferred = true};
  cat_snapshot_release(s);
  CT_OK(cat_create_constraint(t->ce_cat, tx, &fk, NULL, &name, &e_));
  assert_string_equal(name, "chi_p_fkey");
  ck.nd_name = "chi_p_fkey";
  CT_FAILS(SQLSTATE_DUPLICATE_OBJECT, cat_create_constraint(t->ce_cat, tx, &ck, NULL, NULL, &e_));
  CT_OK(txn_commit(tx, &e_));
}

static void cc_check(ct_env_t *t)
{
  cat_snapshot_t *s = cat_snapshot(t->ce_cat);
  const cat_table_t *par = cat_find_table(s, NULL, "par"), *chi = cat_find_table(s, NULL, "chi");
  assert_non_null(par);
  assert_non_null(chi);
  assert_int_equal(chi->ct_ncons, 3);
  assert_int_equal(par->ct_ncons, 0);
  assert_int_equal(par->ct_nrefby, 1);
  assert_int_equal(chi->ct_nrefby, 0);
  const cat_constraint_t *fk = cat_find_constraint(chi, "chi_p_fkey");
  assert_non_null(fk);
  assert_ptr_equal(par->ct_refby[0], fk);
  assert_ptr_equal(cat_constraint_by_oid(s, fk->co_oid), fk);
  assert_int_equal(fk->co_type, 'f');
  assert_ptr_equal(fk->co_table, chi);
  assert_ptr_equal(fk->co_ref, par);
  assert_ptr_equal(fk->co_ref_index, par->ct_indexes[0]);
  assert_int_equal(fk->co_keys[0], 1);
  assert_int_equal(fk->co_ref_keys[0], 0);
  assert_int_equal(fk->co_upd_action, 'c');
  assert_int_equal(fk->co_del_action, 'n');
  assert_int_equal(fk->co_match, 'f');
  assert_true(fk->co_deferrable && fk->co_deferred);
  const cat_constraint_t *ck = cat_find_constraint(chi, "chi_p_check");
  assert_non_null(ck);
  assert_int_equal(ck->co_type, 'c');
  assert_string_equal(ck->co_check, "(p > 0)");
  assert_null(ck->co_ref);
  assert_int_equal(s->cs_nconstraints, 3);
  cat_snapshot_release(s);
}

static void test_constraints_persist(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "cons");
  cc_populate(&t);
  cc_check(&t);
  ct_close(&t, false); /* the log replays */
  ct_open_only(&t);
  cc_check(&t);
  ct_close(&t, true);
  ct_open_only(&t);
  cc_check(&t);
  ct_fini(&t);
}

static void test_constraints_drop(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "consdrop");
  cc_populate(&t);
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  const cat_table_t *par = cat_find_table(s, NULL, "par"), *chi = cat_find_table(s, NULL, "chi");
  cat_oid_t par_oid = par->ct_oid, chi_oid = chi->ct_oid, pk = par->ct_indexes[0]->ci_oid;
  cat_oid_t fk = cat_find_constraint(chi, "chi_p_fkey")->co_oid;
  cat_snapshot_release(s);
  txn_t *tx = ct_begin(&t);
  CT_FAILS(SQLSTATE_DEPENDENT_OBJECTS, cat_drop_table(t.ce_cat, tx, par_oid, &e_));
  txn_rollback(tx, NULL);
  tx = ct_begin(&t);
  CT_FAILS(SQLSTATE_DEPENDENT_OBJECTS, cat_drop_index(t.ce_cat, tx, pk, &e_));
  txn_rollback(tx, NULL);
  /* a dropped foreign key, rolled back, is there again */
  tx = ct_begin(&t);
  CT_OK(cat_drop_constraint(t.ce_cat, tx, fk, &e_));
  txn_rollback(tx, NULL);
  cc_check(&t);
  tx = ct_begin(&t);
  CT_OK(cat_drop_constraint(t.ce_cat, tx, fk, &e_));
  CT_OK(cat_drop_table(t.ce_cat, tx, par_oid, &e_));
  CT_OK(cat_drop_table(t.ce_cat, tx, chi_oid, &e_)); /* with its CHECKs */
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(t.ce_cat);
  assert_int_equal(s->cs_nconstraints, 0);
  cat_snapshot_release(s);
  ct_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_constraints_persist),
    cmocka_unit_test(test_constraints_drop),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* test_sequence — sequences in the catalog (cat_sequence.c): definitions
 * are transactional, values are not, and no value is handed out twice
 * across a crash (log replay) or a clean restart; the session's currval,
 * lastval and cached values; the errors with their SQLSTATEs.
 */
#include "cat_test.h"

static cat_seq_def_t seq_def(const char *name, int64_t inc, int64_t cache)
{
  cat_seq_def_t d = {.sd_name = name, .sd_owner = 10, .sd_type = TY_INT8, .sd_increment = inc,
                     .sd_cache = cache, .sd_owned_col = -1};
  cat_seq_defaults(&d, false, false, false);
  return d;
}

static const cat_sequence_t *seq_of(cat_snapshot_t *s, const char *name)
{
  const cat_sequence_t *sq = cat_find_sequence(s, NULL, name);
  if (!sq)
    fail_msg("no sequence %s", name);
  return sq;
}

static int64_t next(cat_seq_session_t *ss, cat_snapshot_t *s, const char *name, txn_t *tx)
{
  int64_t v = 0;
  CT_OK(cat_seq_nextval(ss, seq_of(s, name), tx, NULL, &v, &e_));
  return v;
}

static void test_values_and_rollback(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "seqvals");
  arena_t *a = arena_create(NULL, "test");
  cat_seq_session_t *ss = cat_seq_session_new(a);
  txn_t *tx = ct_begin(&t);
  cat_seq_def_t d = seq_def("s", 1, 1);
  cat_oid_t oid;
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d, &oid, &e_));
  /* used by the transaction that created it, before its commit */
  cat_snapshot_t *s = cat_snapshot_tx(t.ce_cat, tx);
  assert_int_equal(next(ss, s, "s", tx), 1);
  assert_int_equal(next(ss, s, "s", tx), 2);
  cat_snapshot_release(s);
  CT_OK(txn_commit(tx, &e_));
  /* a rolled-back transaction does not give its values back */
  tx = ct_begin(&t);
  s = cat_snapshot_tx(t.ce_cat, tx);
  assert_int_equal(next(ss, s, "s", tx), 3);
  cat_snapshot_release(s);
  CT_OK(txn_rollback(tx, &e_));
  s = cat_snapshot(t.ce_cat);
  assert_int_equal(next(ss, s, "s", NULL), 4);
  int64_t v;
  CT_OK(cat_seq_currval(ss, seq_of(s, "s"), &v, &e_));
  assert_int_equal(v, 4);
  CT_OK(cat_seq_lastval(ss, s, &v, &e_));
  assert_int_equal(v, 4);
  /* another session: currval and lastval undefined until its nextval */
  cat_seq_session_t *ss2 = cat_seq_session_new(a);
  CT_FAILS("55000", cat_seq_currval(ss2, seq_of(s, "s"), &v, &e_));
  CT_FAILS("55000", cat_seq_lastval(ss2, s, &v, &e_));
  assert_int_equal(next(ss2, s, "s", NULL), 5);
  CT_OK(cat_seq_setval(ss, seq_of(s, "s"), NULL, NULL, 100, false, &e_));
  assert_int_equal(next(ss, s, "s", NULL), 100);
  CT_FAILS("22003", cat_seq_setval(ss, seq_of(s, "s"), NULL, NULL, 0, true, &e_));
  cat_snapshot_release(s);
  arena_destroy(a);
  ct_fini(&t);
}

/* After a crash (no checkpoint: the log replays) and after a clean
 * restart, nextval goes on above every value handed out — with and
 * without CACHE. */
static void test_no_repeat_after_restart(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "seqcrash");
  txn_t *tx = ct_begin(&t);
  cat_seq_def_t d1 = seq_def("s1", 1, 1), d20 = seq_def("s20", 3, 20);
  cat_oid_t oid;
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d1, &oid, &e_));
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d20, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  int64_t max1 = 0, max20 = 0;
  for (int round = 0; round < 4; round++) {
    arena_t *a = arena_create(NULL, "test");
    cat_seq_session_t *ss = cat_seq_session_new(a);
    cat_snapshot_t *s = cat_snapshot(t.ce_cat);
    for (int i = 0; i < 45; i++) {
      int64_t v1 = next(ss, s, "s1", NULL), v20 = next(ss, s, "s20", NULL);
      assert_true(v1 > max1);
      assert_true(v20 > max20);
      max1 = v1;
      max20 = v20;
    }
    cat_snapshot_release(s);
    arena_destroy(a);
    ct_close(&t, round % 2 == 1);  /* a crash, then a clean close */
    ct_open_only(&t);
  }
  ct_fini(&t);
}

/* A CREATE rolled back after nextval: its OID comes again (the counter
 * rolls back), and the new sequence starts at its START; a ROLLBACK TO
 * after nextval in the creating transaction does not take values back. */
static void test_rolled_back_create(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "seqrb");
  arena_t *a = arena_create(NULL, "test");
  cat_seq_session_t *ss = cat_seq_session_new(a);
  txn_t *tx = ct_begin(&t);
  cat_seq_def_t d = seq_def("a", 1, 1);
  cat_oid_t oid1, oid2;
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d, &oid1, &e_));
  cat_snapshot_t *s = cat_snapshot_tx(t.ce_cat, tx);
  for (int i = 1; i <= 5; i++)
    assert_int_equal(next(ss, s, "a", tx), i);
  cat_snapshot_release(s);
  CT_OK(txn_rollback(tx, &e_));
  tx = ct_begin(&t);
  d = seq_def("b", 1, 1);
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d, &oid2, &e_));
  assert_int_equal(oid1, oid2);
  s = cat_snapshot_tx(t.ce_cat, tx);
  txn_mark_t *m = txn_savepoint_mark(tx);
  assert_int_equal(next(ss, s, "b", tx), 1);
  assert_int_equal(next(ss, s, "b", tx), 2);
  cat_snapshot_release(s);
  CT_OK(txn_rollback_to_mark(tx, m, &e_));
  s = cat_snapshot_tx(t.ce_cat, tx);
  assert_int_equal(next(ss, s, "b", tx), 3);
  cat_snapshot_release(s);
  CT_OK(txn_commit(tx, &e_));
  ct_close(&t, false);  /* a crash: the values go on above 3 */
  ct_open_only(&t);
  s = cat_snapshot(t.ce_cat);
  assert_true(next(ss, s, "b", NULL) > 3);
  cat_snapshot_release(s);
  arena_destroy(a);
  ct_fini(&t);
}

static void test_limits_and_errors(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "seqerr");
  arena_t *a = arena_create(NULL, "test");
  cat_seq_session_t *ss = cat_seq_session_new(a);
  txn_t *tx = ct_begin(&t);
  cat_seq_def_t d = seq_def("lim", 1, 1);
  d.sd_max = 2;
  cat_oid_t oid;
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d, &oid, &e_));
  cat_seq_def_t cyc = seq_def("cyc", -1, 1);
  cyc.sd_min = -2;
  cyc.sd_cycle = true;
  CT_OK(cat_create_sequence(t.ce_cat, tx, &cyc, &oid, &e_));
  CT_FAILS("42P07", cat_create_sequence(t.ce_cat, tx, &d, &oid, &e_));
  cat_seq_def_t bad = seq_def("bad", 0, 1);
  CT_FAILS("22023", cat_create_sequence(t.ce_cat, tx, &bad, &oid, &e_));
  bad = seq_def("bad", 1, 0);
  CT_FAILS("22023", cat_create_sequence(t.ce_cat, tx, &bad, &oid, &e_));
  bad = seq_def("bad", 1, 1);
  bad.sd_start = 0;
  CT_FAILS("22023", cat_create_sequence(t.ce_cat, tx, &bad, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  assert_int_equal(next(ss, s, "lim", NULL), 1);
  assert_int_equal(next(ss, s, "lim", NULL), 2);
  int64_t v;
  CT_FAILS("2200H", cat_seq_nextval(ss, seq_of(s, "lim"), NULL, NULL, &v, &e_));
  assert_int_equal(next(ss, s, "cyc", NULL), -1);
  assert_int_equal(next(ss, s, "cyc", NULL), -2);
  assert_int_equal(next(ss, s, "cyc", NULL), -1);
  cat_snapshot_release(s);
  /* DROP: gone from the next snapshot, its name free again */
  tx = ct_begin(&t);
  s = cat_snapshot_tx(t.ce_cat, tx);
  CT_OK(cat_drop_sequence(t.ce_cat, tx, seq_of(s, "lim")->sq_oid, &e_));
  cat_snapshot_release(s);
  s = cat_snapshot_tx(t.ce_cat, tx);
  assert_null(cat_find_sequence(s, NULL, "lim"));
  cat_snapshot_release(s);
  CT_OK(cat_create_sequence(t.ce_cat, tx, &d, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  s = cat_snapshot(t.ce_cat);
  assert_int_equal(next(ss, s, "lim", NULL), 1);
  cat_snapshot_release(s);
  arena_destroy(a);
  ct_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_values_and_rollback),
    cmocka_unit_test(test_no_repeat_after_restart),
    cmocka_unit_test(test_rolled_back_create),
    cmocka_unit_test(test_limits_and_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

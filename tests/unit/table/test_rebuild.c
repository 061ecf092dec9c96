/* Bulk builds (tb_rebuild.c) with ALTER TABLE's catalog half
 * (cat_alter.c): a table without key rewritten with a primary key is in
 * key order, its index rebuilt, the old trees gone after the commit and
 * the new version replayed after a crash; a rollback gives the old version
 * back; duplicates are 23505 with PostgreSQL's DETAIL, NULLs in a unique
 * index never conflict; a rewrite larger than one sorted run merges the
 * runs.
 */
#include "../catalog/cat_test.h"

#define RB_ROWS 3000

/* A table "rb" (a int8, b text) without key, rows a = n-1 .. 0 (reverse
 * order), b = "v<a>", and an index on b. */
static cat_oid_t rb_make(ct_env_t *t, int n)
{
  txn_t *tx = ct_begin(t);
  cat_column_def_t cols[2] = { ct_col("a", TY_INT8, false), ct_col("b", TY_TEXT, false) };
  cat_table_def_t def = { .td_name = "rb", .td_owner = 10, .td_ncols = 2, .td_cols = cols };
  cat_oid_t oid;
  CT_OK(cat_create_table(t->ce_cat, tx, &def, &oid, &e_));
  int key = 1;
  cat_index_def_t id = { .id_name = "rb_b", .id_table = oid, .id_nkeys = 1, .id_keys = &key };
  CT_OK(tbl_create_index(t->ce_cat, tx, &id, NULL, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(t->ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, oid);
  tx = ct_begin(t);
  for (int i = n - 1; i >= 0; i--) {
    char buf[32];
    int l = snprintf(buf, sizeof buf, "v%d", i);
    datum_t row[2] = { { .d_i64 = i }, { .d_str = { buf, (size_t)l } } };
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  return oid;
}

/* Rewrites table oid with a primary key on column a, copying every row
 * read from the old version (dup: each row twice). */
static int rb_add_key(ct_env_t *t, txn_t *tx, cat_oid_t oid, bool dup, err_t *e)
{
  cat_snapshot_t *old = cat_snapshot_tx(t->ce_cat, tx);
  const cat_table_t *to = cat_table_by_oid(old, oid);
  cat_column_def_t cols[2] = { ct_col("a", TY_INT8, true), ct_col("b", TY_TEXT, false) };
  int colmap[2] = { 0, 1 }, pk = 0, key = 1;
  cat_alter_index_t ix = { .ai_oid = to->ct_indexes[1]->ci_oid,
                           .ai_def = { .id_nkeys = 1, .id_keys = &key } };
  cat_alter_def_t def = { .ad_name = "rb", .ad_ncols = 2, .ad_cols = cols, .ad_colmap = colmap,
                          .ad_npk = 1, .ad_pk = &pk, .ad_nindexes = 1, .ad_indexes = &ix,
                          .ad_rewrite = true };
  int rc = cat_alter_table(t->ce_cat, tx, oid, &def, NULL, e);
  cat_snapshot_t *ns = cat_snapshot_tx(t->ce_cat, tx);
  const cat_table_t *tn = cat_table_by_oid(ns, oid);
  arena_t *a = arena_create(NULL, "rb");
  tbl_rewrite_t *rw = NULL;
  if (rc == CZ_OK)
    rc = tbl_rewrite_begin(tx, tn, &rw, e);
  tbl_scan_t *sc = NULL;
  int cs[2] = { 0, 1 };
  ty_t types[2] = { ty_plain(TY_INT8), ty_plain(TY_TEXT) };
  batch_t *b = batch_create(a, 2, types, 256, e);
  if (rc == CZ_OK)
    rc = tbl_scan_open(tx, to, 0, cs, 2, NULL, NULL, false, a, &sc, e);
  while (rc == CZ_OK) {
    rc = tbl_scan_next(sc, b, a, e);
    if (rc != CZ_OK || b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n && rc == CZ_OK; r++) {
      datum_t v[2];
      vec_get(&b->b_cols[0], r, &v[0]);
      vec_get(&b->b_cols[1], r, &v[1]);
      rc = tbl_rewrite_row(rw, v, e);
      if (rc == CZ_OK && dup)
        rc = tbl_rewrite_row(rw, v, e);
    }
  }
  if (sc)
    tbl_scan_close(sc);
  if (rc == CZ_OK) {
    int64_t rows;
    rc = tbl_rewrite_end(rw, &rows, e);
    if (rc == CZ_OK)
      assert_int_equal(rows, dup ? 2 * RB_ROWS : RB_ROWS);
    rw = NULL;
    if (rc == CZ_OK)
      rc = cat_alter_drop_trees(tx, to, e);
  }
  tbl_rewrite_abort(rw);
  arena_destroy(a);
  cat_snapshot_release(ns);
  cat_snapshot_release(old);
  return rc;
}

/* Column a of every row in the order of index idx; checks b = "v<a>". */
static int rb_scan(ct_env_t *t, cat_oid_t oid, int idx, int64_t *out, int cap)
{
  cat_snapshot_t *s = cat_snapshot(t->ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, oid);
  arena_t *a = arena_create(NULL, "rb scan");
  int cs[2] = { 0, 1 };
  ty_t types[2] = { ty_plain(TY_INT8), ty_plain(TY_TEXT) };
  err_t e;
  batch_t *b = batch_create(a, 2, types, 256, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(NULL, tb, idx, cs, 2, NULL, NULL, false, a, &sc, &e_));
  int n = 0;
  for (;;) {
    CT_OK(tbl_scan_next(sc, b, a, &e_));
    if (b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n; r++) {
      char want[32];
      snprintf(want, sizeof want, "v%lld", (long long)b->b_cols[0].v_i64[r]);
      str_t got = b->b_cols[1].v_str[r];
      assert_int_equal(got.s_len, strlen(want));
      assert_memory_equal(got.s_ptr, want, got.s_len);
      if (n < cap)
        out[n] = b->b_cols[0].v_i64[r];
      n++;
    }
  }
  tbl_scan_close(sc);
  arena_destroy(a);
  cat_snapshot_release(s);
  return n;
}

static void test_rewrite_with_key(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "rb_key");
  cat_oid_t oid = rb_make(&t, RB_ROWS);
  static int64_t got[RB_ROWS + 1];
  assert_int_equal(rb_scan(&t, oid, 0, got, RB_ROWS), RB_ROWS);
  assert_true(got[0] == RB_ROWS - 1); /* insertion order: descending */
  /* a rollback gives the old version back */
  txn_t *tx = ct_begin(&t);
  CT_OK(rb_add_key(&t, tx, oid, false, &e_));
  CT_OK(txn_rollback(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  assert_int_equal(cat_table_by_oid(s, oid)->ct_npk, 0);
  cat_snapshot_release(s);
  assert_int_equal(rb_scan(&t, oid, 0, got, RB_ROWS), RB_ROWS);
  assert_true(got[0] == RB_ROWS - 1);
  /* committed: the rows in key order, the index rebuilt, the old trees gone */
  tx = ct_begin(&t);
  CT_OK(rb_add_key(&t, tx, oid, false, &e_));
  CT_OK(txn_commit(tx, &e_));
  assert_int_equal(rb_scan(&t, oid, 0, got, RB_ROWS), RB_ROWS);
  for (int i = 0; i < RB_ROWS; i++)
    assert_true(got[i] == i);
  assert_int_equal(rb_scan(&t, oid, 1, got, RB_ROWS), RB_ROWS);
  s = cat_snapshot(t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, oid);
  assert_int_equal(tb->ct_npk, 1);
  assert_int_equal(tb->ct_gen, 1);
  assert_string_equal(tb->ct_indexes[1]->ci_name, "rb_b");
  char name[32];
  snprintf(name, sizeof name, "t%u", (unsigned)oid);
  bt_tree_t *bt;
  err_t e;
  assert_int_equal(db_open_tree(t.ce_db, name, &bt, &e), BT_NOT_FOUND);
  cat_snapshot_release(s);
  /* the key refuses a duplicate */
  s = cat_snapshot(t.ce_cat);
  tb = cat_table_by_oid(s, oid);
  tx = ct_begin(&t);
  datum_t row[2] = { { .d_i64 = 5 }, { .d_str = { "v5", 2 } } };
  CT_FAILS(SQLSTATE_UNIQUE_VIOLATION, tbl_insert_row(tx, tb, row, &e_));
  CT_OK(txn_rollback(tx, &e_));
  cat_snapshot_release(s);
  /* replayed after a crash; no long-values tree of the old generation
   * made again at the open */
  ct_close(&t, false);
  ct_open_only(&t);
  snprintf(name, sizeof name, "l%u", (unsigned)oid);
  assert_int_equal(db_open_tree(t.ce_db, name, &bt, &e), BT_NOT_FOUND);
  assert_int_equal(rb_scan(&t, oid, 0, got, RB_ROWS), RB_ROWS);
  for (int i = 0; i < RB_ROWS; i++)
    assert_true(got[i] == i);
  assert_int_equal(rb_scan(&t, oid, 1, got, RB_ROWS), RB_ROWS);
  ct_fini(&t);
}

static void test_rewrite_duplicates(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "rb_dup");
  cat_oid_t oid = rb_make(&t, RB_ROWS);
  txn_t *tx = ct_begin(&t);
  err_t e;
  err_clear(&e);
  assert_int_equal(rb_add_key(&t, tx, oid, true, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  assert_string_equal(e.er_msg, "could not create unique index \"rb_pkey\"");
  assert_non_null(strstr(e.er_detail, "Key (a)=("));
  assert_non_null(strstr(e.er_detail, ") is duplicated."));
  CT_OK(txn_rollback(tx, &e_));
  static int64_t got[RB_ROWS + 1];
  assert_int_equal(rb_scan(&t, oid, 0, got, RB_ROWS), RB_ROWS);
  ct_fini(&t);
}

static void test_unique_index_nulls(void **state)
{
  (void)state;
  ct_env_t t;
  ct_init(&t, "rb_uniq");
  txn_t *tx = ct_begin(&t);
  cat_column_def_t cols[2] = { ct_col("a", TY_INT8, false), ct_col("b", TY_TEXT, false) };
  cat_table_def_t def = { .td_name = "ru", .td_owner = 10, .td_ncols = 2, .td_cols = cols };
  cat_oid_t oid;
  CT_OK(cat_create_table(t.ce_cat, tx, &def, &oid, &e_));
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_t *s = cat_snapshot(t.ce_cat);
  const cat_table_t *tb = cat_table_by_oid(s, oid);
  tx = ct_begin(&t);
  for (int i = 0; i < 2000; i++) {
    datum_t row[2] = { { .d_i64 = i % 1000, .d_null = i >= 1000 && i % 2 }, { .d_null = true } };
    CT_OK(tbl_insert_row(tx, tb, row, &e_));
  }
  CT_OK(txn_commit(tx, &e_));
  cat_snapshot_release(s);
  /* a = 0, 2, 4 … appear twice: refused with PostgreSQL's words */
  int key = 0;
  cat_index_def_t id = { .id_name = "ru_a", .id_table = oid, .id_unique = true, .id_nkeys = 1,
                         .id_keys = &key };
  tx = ct_begin(&t);
  err_t e;
  err_clear(&e);
  assert_int_equal(tbl_create_index(t.ce_cat, tx, &id, NULL, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_UNIQUE_VIOLATION);
  assert_string_equal(e.er_msg, "could not create unique index \"ru_a\"");
  assert_string_equal(e.er_detail, "Key (a)=(0) is duplicated.");
  CT_OK(txn_rollback(tx, &e_));
  /* without them only NULLs repeat: built */
  tx = ct_begin(&t);
  s = cat_snapshot_tx(t.ce_cat, tx);
  tb = cat_table_by_oid(s, oid);
  arena_t *a = arena_create(NULL, "ru");
  int cs[1] = { 0 };
  ty_t types[2] = { ty_plain(TY_INT8), ty_plain(TY_BYTEA) };
  batch_t *b = batch_create(a, 2, types, 4096, &e);
  tbl_scan_t *sc;
  CT_OK(tbl_scan_open(tx, tb, 0, cs, 1, NULL, NULL, true, a, &sc, &e_));
  static str_t locs[2000];
  int n = 0, del = 0;
  for (;;) {
    CT_OK(tbl_scan_next(sc, b, a, &e_));
    if (b->b_n == 0)
      break;
    for (int r = 0; r < b->b_n; r++, n++)
      if (!b->b_cols[0].v_null[r] && n >= 1000)
        locs[del++] = b->b_cols[1].v_str[r];
  }
  tbl_scan_close(sc);
  assert_int_equal(n, 2000);
  assert_int_equal(del, 500);
  for (int i = 0; i < del; i++)
    CT_OK(tbl_delete_row(tx, tb, (const uint8_t *)locs[i].s_ptr, locs[i].s_len, &e_));
  CT_OK(tbl_create_index(t.ce_cat, tx, &id, NULL, &e_));
  CT_OK(txn_commit(tx, &e_));
  arena_destroy(a);
  cat_snapshot_release(s);
  ct_fini(&t);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_rewrite_with_key),
    cmocka_unit_test(test_rewrite_duplicates),
    cmocka_unit_test(test_unique_index_nulls),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

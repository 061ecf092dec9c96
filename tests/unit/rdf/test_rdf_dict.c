/* The dictionaries (rdf_dict.c) over a real database: encoding gives one
 * id per term (within a batch, across batches, across concurrent
 * encoders), inline literals never reach a table, decoding gives back the
 * very terms, long values and blank nodes included, and ids survive a
 * crash (no checkpoint) and are never given twice.
 */
#include <pthread.h>

#include "../catalog/cat_test.h"
#include "rdf/rdf.h"

#define XSD RDF_NS_XSD

static void td_open(ct_env_t *env, const char *name)
{
  ct_init(env, name);
  cat_snapshot_t *s = cat_snapshot(env->ce_cat);
  cat_oid_t dba = cat_find_role(s, "dba")->cr_oid;
  cat_snapshot_release(s);
  CT_OK(rdf_schema_ensure(env->ce_cat, dba, RDF_LAYOUT_ROW, &e_));
  /* a second call finds the tables and does nothing */
  CT_OK(rdf_schema_ensure(env->ce_cat, dba, RDF_LAYOUT_ROW, &e_));
}

static int64_t td_rows(ct_env_t *env, const char *table)
{
  cat_snapshot_t *s = cat_snapshot(env->ce_cat);
  const cat_table_t *t = cat_find_table(s, RDF_SCHEMA, table);
  assert_non_null(t);
  int64_t n;
  CT_OK(tbl_count(NULL, t, &n, &e_));
  cat_snapshot_release(s);
  return n;
}

static char td_long_lex[2000], td_long_iri[1300];

/* One term of every kind the dictionaries and the inline encoding know. */
static int td_terms(rdf_term_t *t)
{
  memset(td_long_lex, 'y', sizeof td_long_lex - 1);
  snprintf(td_long_iri, sizeof td_long_iri, "http://example.org/%01200d", 7);
  int n = 0;
  t[n++] = rdf_iri("http://example.org/a");
  t[n++] = rdf_iri("http://example.org/b#frag");
  t[n++] = rdf_iri("urn:isbn:123");
  t[n++] = rdf_iri("nocolon");
  t[n++] = rdf_iri(td_long_iri);
  t[n++] = rdf_bnode("b7_x1");
  t[n++] = rdf_literal("Alice", NULL, NULL);
  t[n++] = rdf_literal("Alicia", NULL, "es");
  t[n++] = rdf_literal("42", XSD "integer", NULL);
  t[n++] = rdf_literal("042", XSD "integer", NULL);
  t[n++] = rdf_literal("true", XSD "boolean", NULL);
  t[n++] = rdf_literal("2024-02-29", XSD "date", NULL);
  t[n++] = rdf_literal("odd", "http://example.org/dt", NULL);
  t[n++] = rdf_literal(td_long_lex, NULL, NULL);
  t[n++] = rdf_literal("", NULL, NULL);
  return n;
}

static void test_dict_round_trip(void **state)
{
  (void)state;
  ct_env_t env;
  td_open(&env, "rdf_dict_rt");
  arena_t *a = arena_create(NULL, "test");
  rdf_dict_t *d;
  CT_OK(rdf_dict_open(env.ce_cat, a, &d, &e_));
  rdf_term_t t[20];
  int n = td_terms(t);
  rdf_id_t ids[20], again[20];
  CT_OK(rdf_dict_encode(d, t, (size_t)n, ids, &e_));
  for (int i = 0; i < n; i++) {
    assert_true(ids[i] != 0);
    for (int j = 0; j < i; j++)
      assert_true(ids[i] != ids[j]);
  }
  assert_int_equal(rdf_id_tag(ids[0]), RDF_ID_IRI);
  assert_int_equal(rdf_id_tag(ids[5]), RDF_ID_BNODE);
  assert_int_equal(rdf_id_tag(ids[6]), RDF_ID_LITDICT);
  assert_true(rdf_id_is_inline(ids[8]));    /* 42 */
  assert_int_equal(rdf_id_tag(ids[9]), RDF_ID_LITDICT); /* 042: not canonical */
  assert_true(rdf_id_is_inline(ids[10]));
  assert_true(rdf_id_is_inline(ids[11]));
  int64_t iris = td_rows(&env, "rdf_iri"), lits = td_rows(&env, "rdf_literal");
  /* 5 IRIs, 1 blank node, the datatypes of "odd" and of "042" */
  assert_int_equal(iris, 8);
  assert_int_equal(lits, 6);
  /* the same terms again, in another handle: the same ids, no new rows */
  rdf_dict_t *d2;
  CT_OK(rdf_dict_open(env.ce_cat, a, &d2, &e_));
  CT_OK(rdf_dict_encode(d2, t, (size_t)n, again, &e_));
  for (int i = 0; i < n; i++)
    assert_true(again[i] == ids[i]);
  assert_int_equal(td_rows(&env, "rdf_iri"), iris);
  assert_int_equal(td_rows(&env, "rdf_literal"), lits);
  rdf_term_t back[20];
  CT_OK(rdf_dict_decode(d2, NULL, ids, (size_t)n, back, a, &e_));
  for (int i = 0; i < n; i++)
    if (!rdf_term_equal(&back[i], &t[i]))
      fail_msg("term %d decodes to %s", i, rdf_term_ntriples(&back[i], a));
  assert_string_equal(rdf_term_ntriples(&back[7], a), "\"Alicia\"@es");
  rdf_dict_close(d);
  rdf_dict_close(d2);
  arena_destroy(a);
  ct_fini(&env);
}

/* rdf_dict_lookup: the ids of known terms, 0 for the others — an IRI of
 * a known namespace or of none, a literal whose datatype is unknown (not
 * the plain literal of the same lexical form), a blank node's label as an
 * IRI's local name — and nothing added. */
static void test_dict_lookup_adds_nothing(void **state)
{
  (void)state;
  ct_env_t env;
  td_open(&env, "rdf_dict_look");
  arena_t *a = arena_create(NULL, "test");
  rdf_dict_t *d;
  CT_OK(rdf_dict_open(env.ce_cat, a, &d, &e_));
  rdf_term_t t[20];
  int n = td_terms(t);
  rdf_id_t ids[20], got[20];
  CT_OK(rdf_dict_encode(d, t, (size_t)n, ids, &e_));
  int64_t iris = td_rows(&env, "rdf_iri"), lits = td_rows(&env, "rdf_literal"),
          nss = td_rows(&env, "rdf_prefix");
  rdf_dict_t *d2;
  CT_OK(rdf_dict_open(env.ce_cat, a, &d2, &e_));
  CT_OK(rdf_dict_lookup(d2, NULL, t, (size_t)n, got, &e_));
  for (int i = 0; i < n; i++)
    if (t[i].rt_kind != RDF_BNODE && got[i] != ids[i])
      fail_msg("term %d: looked up %llu, encoded %llu", i, (unsigned long long)got[i],
               (unsigned long long)ids[i]);
  rdf_term_t u[6] = {rdf_iri("http://example.org/zzz"),       /* known namespace */
                     rdf_iri("http://unknown.example/a"),     /* unknown namespace */
                     rdf_literal("Alice", "http://unknown.example/dt", NULL),
                     rdf_literal("odd", NULL, NULL),          /* only typed "odd" exists */
                     rdf_iri("b7_x1"),                        /* a blank node's label */
                     rdf_literal("7", XSD "integer", NULL)};  /* inline: always known */
  CT_OK(rdf_dict_lookup(d2, NULL, u, 6, got, &e_));
  for (int i = 0; i < 5; i++)
    if (got[i] != 0)
      fail_msg("unknown term %d got id %llu", i, (unsigned long long)got[i]);
  assert_true(got[5] != 0 && rdf_id_is_inline(got[5]));
  assert_int_equal(td_rows(&env, "rdf_iri"), iris);
  assert_int_equal(td_rows(&env, "rdf_literal"), lits);
  assert_int_equal(td_rows(&env, "rdf_prefix"), nss);
  /* the handle encodes again after a lookup */
  CT_OK(rdf_dict_encode(d2, u, 1, got, &e_));
  assert_true(got[0] != 0);
  assert_int_equal(td_rows(&env, "rdf_iri"), iris + 1);
  rdf_dict_close(d);
  rdf_dict_close(d2);
  arena_destroy(a);
  ct_fini(&env);
}

static void test_dict_batch_duplicates_and_inline(void **state)
{
  (void)state;
  ct_env_t env;
  td_open(&env, "rdf_dict_dup");
  arena_t *a = arena_create(NULL, "test");
  rdf_dict_t *d;
  CT_OK(rdf_dict_open(env.ce_cat, a, &d, &e_));
  rdf_term_t t[6] = {rdf_iri("http://x/1"), rdf_literal("7", XSD "integer", NULL),
                     rdf_iri("http://x/1"), rdf_literal("1.5E0", XSD "double", NULL),
                     rdf_iri("http://x/2"), rdf_literal("7", XSD "integer", NULL)};
  rdf_id_t ids[6];
  CT_OK(rdf_dict_encode(d, t, 6, ids, &e_));
  assert_true(ids[0] == ids[2]);
  assert_true(ids[1] == ids[5]);
  assert_true(ids[0] != ids[4]);
  assert_int_equal(td_rows(&env, "rdf_iri"), 2);
  assert_int_equal(td_rows(&env, "rdf_prefix"), 1);
  assert_int_equal(td_rows(&env, "rdf_literal"), 0);  /* inline only */
  /* an id no dictionary holds */
  rdf_id_t bogus = rdf_id_make_dict(RDF_ID_IRI, 999999);
  rdf_term_t out;
  CT_FAILS("22P02", rdf_dict_decode(d, NULL, &bogus, 1, &out, a, &e_));
  rdf_dict_close(d);
  arena_destroy(a);
  ct_fini(&env);
}

#define TD_THREADS 4
#define TD_IRIS 3000

typedef struct td_worker_s {
  ct_env_t *w_env;
  int w_no;
  rdf_id_t w_ids[TD_IRIS];     /* by IRI number */
  int w_rc;
  err_t w_err;
} td_worker_t;

static void *td_encode_all(void *arg)
{
  td_worker_t *w = arg;
  arena_t *a = arena_create(NULL, "worker");
  rdf_dict_t *d = NULL;
  w->w_rc = rdf_dict_open(w->w_env->ce_cat, a, &d, &w->w_err);
  static char names[TD_THREADS][TD_IRIS][48];
  /* each worker walks the IRIs in its own order, in batches of 500 */
  for (int b = 0; w->w_rc == CZ_OK && b < TD_IRIS / 500; b++) {
    rdf_term_t t[500];
    int no[500];
    for (int i = 0; i < 500; i++) {
      static const int step[TD_THREADS] = {1, 7, 11, 13};  /* prime to TD_IRIS */
      int k = (b * 500 + i) * step[w->w_no] % TD_IRIS;
      no[i] = k;
      snprintf(names[w->w_no][k], sizeof names[0][0], "http://c.example/ns%d/i%d", k % 3, k);
      t[i] = rdf_iri(names[w->w_no][k]);
    }
    rdf_id_t ids[500];
    w->w_rc = rdf_dict_encode(d, t, 500, ids, &w->w_err);
    for (int i = 0; i < 500; i++)
      w->w_ids[no[i]] = ids[i];
  }
  if (d && w->w_rc == CZ_OK)
    rdf_dict_close(d);
  arena_destroy(a);
  return NULL;
}

static void test_dict_concurrent_encoders(void **state)
{
  (void)state;
  ct_env_t env;
  td_open(&env, "rdf_dict_conc");
  static td_worker_t w[TD_THREADS];
  pthread_t th[TD_THREADS];
  for (int i = 0; i < TD_THREADS; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].w_env = &env;
    w[i].w_no = i;
    pthread_create(&th[i], NULL, td_encode_all, &w[i]);
  }
  for (int i = 0; i < TD_THREADS; i++)
    pthread_join(th[i], NULL);
  for (int i = 0; i < TD_THREADS; i++)
    if (w[i].w_rc != CZ_OK)
      fail_msg("worker %d: %s %s", i, w[i].w_err.er_sqlstate, w[i].w_err.er_msg);
  for (int k = 0; k < TD_IRIS; k++)
    for (int i = 1; i < TD_THREADS; i++)
      if (w[i].w_ids[k] != w[0].w_ids[k] || !w[0].w_ids[k])
        fail_msg("IRI %d: worker %d got id %llu, worker 0 %llu", k, i,
                 (unsigned long long)w[i].w_ids[k], (unsigned long long)w[0].w_ids[k]);
  assert_int_equal(td_rows(&env, "rdf_iri"), TD_IRIS);
  assert_int_equal(td_rows(&env, "rdf_prefix"), 3);
  ct_fini(&env);
}

static void test_dict_survives_crash(void **state)
{
  (void)state;
  ct_env_t env;
  td_open(&env, "rdf_dict_crash");
  arena_t *a = arena_create(NULL, "test");
  rdf_dict_t *d;
  CT_OK(rdf_dict_open(env.ce_cat, a, &d, &e_));
  rdf_term_t t[20];
  int n = td_terms(t);
  rdf_id_t ids[20];
  CT_OK(rdf_dict_encode(d, t, (size_t)n, ids, &e_));
  rdf_dict_close(d);
  ct_close(&env, false);  /* as a crash: recovery replays the log */
  ct_open_only(&env);
  CT_OK(rdf_dict_open(env.ce_cat, a, &d, &e_));
  rdf_term_t back[20];
  CT_OK(rdf_dict_decode(d, NULL, ids, (size_t)n, back, a, &e_));
  for (int i = 0; i < n; i++)
    assert_true(rdf_term_equal(&back[i], &t[i]));
  rdf_id_t again[20];
  CT_OK(rdf_dict_encode(d, t, (size_t)n, again, &e_));
  for (int i = 0; i < n; i++)
    assert_true(again[i] == ids[i]);
  rdf_term_t fresh = rdf_iri("http://example.org/after");
  rdf_id_t fid;
  CT_OK(rdf_dict_encode(d, &fresh, 1, &fid, &e_));
  for (int i = 0; i < n; i++)
    if (!rdf_id_is_inline(ids[i]))
      assert_true(rdf_id_dict_number(fid) > rdf_id_dict_number(ids[i]));
  rdf_dict_close(d);
  arena_destroy(a);
  ct_fini(&env);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_dict_round_trip),
    cmocka_unit_test(test_dict_batch_duplicates_and_inline),
    cmocka_unit_test(test_dict_lookup_adds_nothing),
    cmocka_unit_test(test_dict_concurrent_encoders),
    cmocka_unit_test(test_dict_survives_crash),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

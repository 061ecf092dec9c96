/* rdf_quad — adding quads of term ids to rdf_quad and its distinct
 * projections.
 *
 * Design notes (README.md "Quads"):
 * - rdf_quad (g, s, p, o) is keyed by (p, s, o, g) (the PSOG index) and has
 *   the complete secondary index rdf_quad_pogs (p, o, g, s): a quad is
 *   there once (a set, as RDF says), in both.
 * - The projections rdf_quad_sp (s, p), rdf_quad_op (o, p) and
 *   rdf_quad_gs (g, s) hold the distinct pairs of the quads — or more:
 *   they are only ever inserted into (as Virtuoso 7's), a delete of quads
 *   leaves them, so a pair there may have no quad left. Whoever reads a
 *   projection to answer a query must confirm against the full index; a
 *   pair missing there, though, means no quad has it (invariant 8).
 * - That superset holds at every commit because the new pairs of a batch
 *   are committed, in one short transaction of its own, before the quads'
 *   transaction can commit. It locks the pairs table by table (sp, op,
 *   gs) in key order and holds nothing else, so loaders never deadlock on
 *   it.
 * - The quads themselves go in the caller's transaction: sorted, made
 *   distinct, locked EXCLUSIVE in key order (rdf_lock.c: a concurrent
 *   loader adding the same quad is waited for instead of failing with
 *   23505) and probed, the new ones inserted as one batch. Two loaders
 *   whose files share quads can still deadlock across batches (40P01):
 *   the loader then loads the file again (rdf_load.c).
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"
#include "table/table.h"

static int rq_cmp_i64(int64_t a, int64_t b)
{
  return a < b ? -1 : a > b;
}

/* P, S, O, G as the primary key orders them (signed, as int8 keys). */
static int rq_cmp_psog(const void *x, const void *y)
{
  const rdf_qids_t *a = x, *b = y;
  int r = rq_cmp_i64((int64_t)a->qi_p, (int64_t)b->qi_p);
  if (!r)
    r = rq_cmp_i64((int64_t)a->qi_s, (int64_t)b->qi_s);
  if (!r)
    r = rq_cmp_i64((int64_t)a->qi_o, (int64_t)b->qi_o);
  if (!r)
    r = rq_cmp_i64((int64_t)a->qi_g, (int64_t)b->qi_g);
  return r;
}

typedef struct rq_pair_s {
  int64_t rp_a, rp_b;
} rq_pair_t;

/* A bottom-up merge sort with the comparison inlined, for the two element
 * types sorted per batch (quads, pairs): qsort's indirect calls were
 * about a twentieth of a load's instructions. Runs of RQ_RUN are
 * insertion-sorted first; tmp holds n elements. */
#define RQ_RUN 16
#define RQ_DEFINE_SORT(name, type, cmp)                                                       \
  static void name(type *v, size_t n, type *tmp)                                              \
  {                                                                                           \
    for (size_t lo = 0; lo < n; lo += RQ_RUN) {                                               \
      size_t hi = lo + RQ_RUN < n ? lo + RQ_RUN : n;                                          \
      for (size_t i = lo + 1; i < hi; i++) {                                                  \
        type x = v[i];                                                                        \
        size_t j = i;                                                                         \
        for (; j > lo && cmp(&v[j - 1], &x) > 0; j--)                                         \
          v[j] = v[j - 1];                                                                    \
        v[j] = x;                                                                             \
      }                                                                                       \
    }                                                                                         \
    type *src = v, *dst = tmp;                                                                \
    for (size_t w = RQ_RUN; w < n; w *= 2) {                                                  \
      for (size_t lo = 0; lo < n; lo += 2 * w) {                                              \
        size_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;           \
        size_t i = lo, j = mid, k = lo;                                                       \
        while (i < mid && j < hi)                                                             \
          dst[k++] = cmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];                         \
        while (i < mid)                                                                       \
          dst[k++] = src[i++];                                                                \
        while (j < hi)                                                                        \
          dst[k++] = src[j++];                                                                \
      }                                                                                       \
      type *t_ = src;                                                                         \
      src = dst;                                                                              \
      dst = t_;                                                                               \
    }                                                                                         \
    if (src != v)                                                                             \
      memcpy(v, src, sizeof(type) * n);                                                       \
  }

static int rq_cmp_pair(const void *x, const void *y)
{
  const rq_pair_t *a = x, *b = y;
  int r = rq_cmp_i64(a->rp_a, b->rp_a);
  return r ? r : rq_cmp_i64(a->rp_b, b->rp_b);
}

RQ_DEFINE_SORT(rq_sort_pairs, rq_pair_t, rq_cmp_pair)
RQ_DEFINE_SORT(rq_sort_psog, rdf_qids_t, rq_cmp_psog)

/* Locks the nu keys (each nk values at kd[nk * i], in t's primary key
 * order, sorted and distinct) and inserts those t lacks, in tx; a key's
 * value k goes to table column col_of[k]. *added: rows inserted. */
static int rq_insert_absent(txn_t *tx, const cat_table_t *t, int nk, const int *col_of,
                            const datum_t *kd, size_t nu, arena_t *a, int64_t *added, err_t *e)
{
  *added = 0;
  const datum_t **keys = arena_alloc(a, sizeof(*keys) * nu);
  bool *found = arena_alloc(a, sizeof(bool) * nu);
  for (size_t i = 0; i < nu; i++)
    keys[i] = &kd[(size_t)nk * i];
  if (rdf_lock_values(tx, t->ct_indexes[0], keys, (int)nu, a, e) != CZ_OK ||
      tbl_ref_probe(tx, t, 0, keys, (int)nu, false, found, a, e) != CZ_OK)
    return CZ_ERR;
  batch_t *b = batch_create(a, nk, t->ct_types, (int)nu, e);
  if (!b)
    return CZ_ERR;
  int nn = 0;
  for (size_t i = 0; i < nu; i++) {
    if (found[i])
      continue;
    for (int k = 0; k < nk; k++)
      vec_set(&b->b_cols[col_of[k]], nn, &kd[(size_t)nk * i + (size_t)k]);
    nn++;
  }
  if (!nn)
    return CZ_OK;
  b->b_n = nn;
  if (tbl_insert_batch(tx, t, b, nn, e) != CZ_OK)
    return CZ_ERR;
  *added = nn;
  return CZ_OK;
}

/* Sorts and makes distinct p[0..*n); then locks them and adds those t (a
 * projection keyed by both columns) lacks, in tx. */
static int rq_project(txn_t *tx, const cat_table_t *t, rq_pair_t *p, size_t *n, arena_t *a,
                      err_t *e)
{
  rq_sort_pairs(p, *n, arena_alloc(a, sizeof(*p) * (*n ? *n : 1)));
  size_t nu = 0;
  for (size_t i = 0; i < *n; i++)
    if (nu == 0 || rq_cmp_pair(&p[nu - 1], &p[i]) != 0)
      p[nu++] = p[i];
  *n = nu;
  if (!nu)
    return CZ_OK;
  datum_t *kd = arena_alloc(a, sizeof(datum_t) * 2 * nu);
  for (size_t i = 0; i < nu; i++) {
    kd[2 * i] = (datum_t){.d_i64 = p[i].rp_a};
    kd[2 * i + 1] = (datum_t){.d_i64 = p[i].rp_b};
  }
  static const int cols[2] = {0, 1};
  int64_t added;
  return rq_insert_absent(tx, t, 2, cols, kd, nu, a, &added, e);
}

/* The three projections' new pairs of quads[0..n), in one short
 * transaction of their own: locks in the same order in every writer
 * (sp, op, gs, each in key order), so writers never wait in a cycle. */
static int rq_projections(db_t *db, const cat_table_t *const *tp, const rdf_qids_t *quads,
                          size_t n, arena_t *a, err_t *e)
{
  rq_pair_t *pairs = arena_alloc(a, sizeof(*pairs) * n);
  txn_t *tx = txn_begin(db, TXN_NESTED, e);
  if (!tx)
    return CZ_ERR;
  int rc = CZ_OK;
  for (int k = 0; rc == CZ_OK && k < 3; k++) {
    for (size_t i = 0; i < n; i++) {
      const rdf_qids_t *q = &quads[i];
      pairs[i] = k == 0   ? (rq_pair_t){(int64_t)q->qi_s, (int64_t)q->qi_p}
                 : k == 1 ? (rq_pair_t){(int64_t)q->qi_o, (int64_t)q->qi_p}
                          : (rq_pair_t){(int64_t)q->qi_g, (int64_t)q->qi_s};
    }
    size_t m = n;
    rc = rq_project(tx, tp[k], pairs, &m, a, e);
  }
  if (rc != CZ_OK) {
    txn_rollback(tx, NULL);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

static const cat_table_t *rq_table(const cat_snapshot_t *snap, const char *name, err_t *e)
{
  const cat_table_t *t = cat_find_table(snap, RDF_SCHEMA, name);
  if (!t)
    err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
  return t;
}

int rdf_quad_insert(txn_t *tx, const cat_snapshot_t *snap, rdf_qids_t *quads, size_t n,
                    arena_t *a, int64_t *added, err_t *e)
{
  *added = 0;
  if (n == 0)
    return CZ_OK;
  const cat_table_t *tq = rq_table(snap, "rdf_quad", e);
  const cat_table_t *tsp = tq ? rq_table(snap, "rdf_quad_sp", e) : NULL;
  const cat_table_t *top = tsp ? rq_table(snap, "rdf_quad_op", e) : NULL;
  const cat_table_t *tgs = top ? rq_table(snap, "rdf_quad_gs", e) : NULL;
  if (!tgs)
    return CZ_ERR;
  db_t *db = cat_db(snap->cs_cat);
  /* the projections first: they must hold every pair before the quads
   * can commit */
  const cat_table_t *tp[3] = {tsp, top, tgs};
  if (rq_projections(db, tp, quads, n, a, e) != CZ_OK)
    return CZ_ERR;

  rq_sort_psog(quads, n, arena_alloc(a, sizeof(*quads) * n));
  size_t nu = 0;
  for (size_t i = 0; i < n; i++)
    if (nu == 0 || rq_cmp_psog(&quads[nu - 1], &quads[i]) != 0)
      quads[nu++] = quads[i];
  /* key values in primary key order (p, s, o, g) */
  datum_t *kd = arena_alloc(a, sizeof(datum_t) * 4 * nu);
  for (size_t i = 0; i < nu; i++) {
    kd[4 * i] = (datum_t){.d_i64 = (int64_t)quads[i].qi_p};
    kd[4 * i + 1] = (datum_t){.d_i64 = (int64_t)quads[i].qi_s};
    kd[4 * i + 2] = (datum_t){.d_i64 = (int64_t)quads[i].qi_o};
    kd[4 * i + 3] = (datum_t){.d_i64 = (int64_t)quads[i].qi_g};
  }
  /* key p, s, o, g into table columns g, s, p, o */
  static const int cols[4] = {2, 1, 3, 0};
  return rq_insert_absent(tx, tq, 4, cols, kd, nu, a, added, e);
}

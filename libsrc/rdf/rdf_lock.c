/* rdf_lock — exclusive value locks taken in key order before an
 * insert-if-absent.
 *
 * Design notes: tbl_ref_probe's own locks are KEY SHARE, right for a
 * foreign key's check but not for "probe, then insert what is missing":
 * two writers holding the shared lock on one missing value both go on to
 * insert it, each waiting for the other's lock to upgrade — a deadlock
 * every time two loaders meet a new term. So the store's writers lock
 * each value EXCLUSIVE first, under the very lock name the table layer's
 * inserters take (the index tree and the encoded key), all of a batch in
 * encoded key order: a second writer of the value waits until the first
 * commits and then finds it, and writers that lock in key order cannot
 * wait on each other in a cycle. The probe that follows needs no lock.
 */
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"
#include "table/table.h"

typedef struct rk_enc_s {
  const uint8_t *k_p;
  size_t k_len;
} rk_enc_t;

static int rk_cmp(const void *a, const void *b)
{
  const rk_enc_t *x = a, *y = b;
  size_t n = x->k_len < y->k_len ? x->k_len : y->k_len;
  int c = memcmp(x->k_p, y->k_p, n);
  if (c)
    return c;
  return x->k_len < y->k_len ? -1 : x->k_len > y->k_len;
}

int rdf_lock_values(txn_t *tx, const cat_index_t *ix, const datum_t *const *keys, int n,
                    arena_t *a, err_t *e)
{
  rk_enc_t *ks = arena_alloc(a, sizeof(*ks) * (size_t)(n + 1));
  int m = 0;
  for (int i = 0; i < n; i++) {
    uint8_t buf[BT_MAX_KEY];
    size_t len;
    if (tbl_key_encode(ix->ci_key_types, keys[i], ix->ci_nkeys, buf, sizeof buf, &len, e) != CZ_OK)
      return CZ_ERR;
    uint8_t *p = arena_alloc(a, len ? len : 1);
    memcpy(p, buf, len);
    ks[m++] = (rk_enc_t){p, len};
  }
  /* the quads and projections come sorted already (int8 keys encode in
   * value order): check before paying for a sort */
  bool sorted = true;
  for (int i = 1; i < m && sorted; i++)
    sorted = rk_cmp(&ks[i - 1], &ks[i]) <= 0;
  if (!sorted)
    qsort(ks, (size_t)m, sizeof(*ks), rk_cmp);
  for (int i = 0; i < m; i++)
    if ((i == 0 || rk_cmp(&ks[i - 1], &ks[i]) != 0) &&
        txn_lock_as(tx, ix->ci_tree, ks[i].k_p, ks[i].k_len, TXN_LOCK_EXCLUSIVE, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

/* rdf_dict — the IRI and literal dictionaries: vectored encoding of terms
 * into 64-bit ids and decoding back.
 *
 * Design notes (README.md "Dictionaries"):
 * - Three ordinary tables: rdf_prefix (namespace → id), rdf_iri ((prefix,
 *   local name) → id; prefix 0 holds blank node labels) and rdf_literal
 *   ((datatype IRI id, language tag, lexical form) → id). Each has a
 *   unique index on its value; a value longer than RD_KEY_SHORT bytes is
 *   keyed by its head and a 64-bit hash (exactly RD_KEY_LONG bytes, so the
 *   two kinds of key never meet) and stored whole in the long_* column.
 * - Encoding a batch: inline literals never reach a table. The rest are
 *   made distinct per dictionary (by hash); one vectored probe of the
 *   unique index (tbl_probe) finds the known ones; the unknown ones are
 *   locked EXCLUSIVE under the lock every inserter of the value takes, in
 *   key order (rdf_lock.c: two encoders never deadlock), and probed again
 *   (tbl_ref_probe); the ones a concurrent encoder committed meanwhile are read,
 *   and the rest get ids from a sequence and go in as one batch.
 * - Each dictionary step is its own short transaction, committed before
 *   the ids are used: a loader's long transaction never holds dictionary
 *   locks (no deadlock between loaders, no waiting on a long load), and an
 *   id once handed out stays even if the quads that used it roll back —
 *   an unreferenced entry costs space, never a wrong answer, and ids come
 *   from a sequence, so one is never given twice.
 * - Namespaces are few: a cache (id ↔ namespace) per handle saves their
 *   probes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "rdf/rdf_int.h"
#include "table/table.h"

#define RD_KEY_SHORT 800   /* longest value stored as its own key */
#define RD_KEY_HEAD 780    /* bytes of a long value's head in its key */
#define RD_KEY_LONG 801    /* the length of every long value's key */

/* One dictionary table and how its rows are made from keys: row =
 * (id, key columns…, long value). */
typedef struct rd_table_s {
  const cat_table_t *dt_t;
  int dt_ix;                   /* the unique value index (ct_indexes) */
  int dt_nkey;                 /* key columns (the index's) */
  bool dt_long;                /* has a long-value column after the keys */
  const cat_sequence_t *dt_seq;
} rd_table_t;

/* A value to encode in one dictionary. */
typedef struct rd_key_s {
  datum_t rk_k[3];             /* the key columns' values */
  const char *rk_full;         /* the whole value when the key is its hash form */
  size_t rk_full_len;
  rdf_id_tag_t rk_tag;         /* the id's tag for a new entry */
  rdf_id_t rk_id;              /* the answer */
  struct rd_key_s *rk_rep;     /* the distinct key standing for this one */
} rd_key_t;

typedef struct rd_ns_s {
  char *ns_str;
  size_t ns_len;
  int64_t ns_id;
} rd_ns_t;

struct rdf_dict_s {
  cat_t *rd_cat;
  cat_snapshot_t *rd_snap;
  arena_t *rd_arena;           /* the handle's: cache entries */
  arena_t *rd_scratch;         /* one call's; reset at its end */
  cat_seq_session_t *rd_seqs;
  rd_table_t rd_prefix, rd_iri, rd_lit;
  rd_ns_t *rd_ns;              /* cached namespaces */
  size_t rd_nns, rd_capns;
  int32_t *rd_by_str, *rd_by_id; /* open addressing, -1 empty; size rd_hcap */
  size_t rd_hcap;
  bool rd_look;                /* during rdf_dict_lookup: probe only, nothing added */
  txn_t *rd_look_tx;           /* its transaction (NULL: what is committed) */
};

/* ---- the namespace cache ------------------------------------------------- */

static uint64_t rd_hash_str(const char *s, size_t n)
{
  return hash64(s, n, 0x5bd1e995);
}

static void rd_ns_rehash(rdf_dict_t *d)
{
  size_t cap = d->rd_hcap ? d->rd_hcap * 2 : 256;
  d->rd_by_str = arena_alloc(d->rd_arena, cap * sizeof(int32_t));
  d->rd_by_id = arena_alloc(d->rd_arena, cap * sizeof(int32_t));
  memset(d->rd_by_str, 0xff, cap * sizeof(int32_t));
  memset(d->rd_by_id, 0xff, cap * sizeof(int32_t));
  d->rd_hcap = cap;
  for (size_t i = 0; i < d->rd_nns; i++) {
    const rd_ns_t *n = &d->rd_ns[i];
    size_t h = rd_hash_str(n->ns_str, n->ns_len) & (cap - 1);
    while (d->rd_by_str[h] >= 0)
      h = (h + 1) & (cap - 1);
    d->rd_by_str[h] = (int32_t)i;
    h = hash64_int((uint64_t)n->ns_id) & (cap - 1);
    while (d->rd_by_id[h] >= 0)
      h = (h + 1) & (cap - 1);
    d->rd_by_id[h] = (int32_t)i;
  }
}

static void rd_ns_add(rdf_dict_t *d, const char *s, size_t n, int64_t id)
{
  if (d->rd_nns == d->rd_capns) {
    size_t cap = d->rd_capns ? d->rd_capns * 2 : 64;
    rd_ns_t *nn = arena_alloc(d->rd_arena, cap * sizeof(*nn));
    if (d->rd_nns)
      memcpy(nn, d->rd_ns, d->rd_nns * sizeof(*nn));
    d->rd_ns = nn;
    d->rd_capns = cap;
  }
  rd_ns_t *e = &d->rd_ns[d->rd_nns++];
  e->ns_str = arena_alloc(d->rd_arena, n + 1);
  memcpy(e->ns_str, s, n);
  e->ns_str[n] = '\0';
  e->ns_len = n;
  e->ns_id = id;
  if (d->rd_nns * 2 > d->rd_hcap) {
    rd_ns_rehash(d);
    return;
  }
  size_t h = rd_hash_str(s, n) & (d->rd_hcap - 1);
  while (d->rd_by_str[h] >= 0)
    h = (h + 1) & (d->rd_hcap - 1);
  d->rd_by_str[h] = (int32_t)(d->rd_nns - 1);
  h = hash64_int((uint64_t)id) & (d->rd_hcap - 1);
  while (d->rd_by_id[h] >= 0)
    h = (h + 1) & (d->rd_hcap - 1);
  d->rd_by_id[h] = (int32_t)(d->rd_nns - 1);
}

static const rd_ns_t *rd_ns_by_str(const rdf_dict_t *d, const char *s, size_t n)
{
  if (!d->rd_hcap)
    return NULL;
  for (size_t h = rd_hash_str(s, n) & (d->rd_hcap - 1); d->rd_by_str[h] >= 0;
       h = (h + 1) & (d->rd_hcap - 1)) {
    const rd_ns_t *e = &d->rd_ns[d->rd_by_str[h]];
    if (e->ns_len == n && memcmp(e->ns_str, s, n) == 0)
      return e;
  }
  return NULL;
}

static const rd_ns_t *rd_ns_by_id(const rdf_dict_t *d, int64_t id)
{
  if (!d->rd_hcap)
    return NULL;
  for (size_t h = hash64_int((uint64_t)id) & (d->rd_hcap - 1); d->rd_by_id[h] >= 0;
       h = (h + 1) & (d->rd_hcap - 1)) {
    const rd_ns_t *e = &d->rd_ns[d->rd_by_id[h]];
    if (e->ns_id == id)
      return e;
  }
  return NULL;
}

/* ---- opening ----------------------------------------------------------------- */

static int rd_table_open(rdf_dict_t *d, rd_table_t *dt, const char *name, const char *index,
                         const char *seq, err_t *e)
{
  dt->dt_t = cat_find_table(d->rd_snap, RDF_SCHEMA, name);
  dt->dt_seq = cat_find_sequence(d->rd_snap, RDF_SCHEMA, seq);
  if (!dt->dt_t || !dt->dt_seq)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist",
                   dt->dt_t ? seq : name);
  for (int i = 1; i < dt->dt_t->ct_nindexes; i++) {
    const cat_index_t *ix = dt->dt_t->ct_indexes[i];
    if (strcmp(ix->ci_name, index) == 0) {
      dt->dt_ix = i;
      dt->dt_nkey = ix->ci_nkeys;
      dt->dt_long = dt->dt_t->ct_ncols > dt->dt_nkey + 1;
      return CZ_OK;
    }
  }
  return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "index \"%s\" does not exist", index);
}

int rdf_dict_open(cat_t *c, arena_t *a, rdf_dict_t **out, err_t *e)
{
  rdf_dict_t *d = arena_zalloc(a, sizeof(*d));
  d->rd_cat = c;
  d->rd_arena = a;
  d->rd_scratch = arena_create(a, "rdf dict call");
  d->rd_seqs = cat_seq_session_new(a);
  d->rd_snap = cat_snapshot(c);
  if (rd_table_open(d, &d->rd_prefix, "rdf_prefix", "rdf_prefix_ns", "rdf_prefix_seq", e) !=
          CZ_OK ||
      rd_table_open(d, &d->rd_iri, "rdf_iri", "rdf_iri_name", "rdf_term_seq", e) != CZ_OK ||
      rd_table_open(d, &d->rd_lit, "rdf_literal", "rdf_literal_value", "rdf_term_seq", e) !=
          CZ_OK) {
    cat_snapshot_release(d->rd_snap);
    d->rd_snap = NULL;
    return CZ_ERR;
  }
  *out = d;
  return CZ_OK;
}

void rdf_dict_close(rdf_dict_t *d)
{
  if (d && d->rd_snap) {
    cat_snapshot_release(d->rd_snap);
    d->rd_snap = NULL;
  }
}

/* ---- keys ------------------------------------------------------------------- */

/* The key form of a value: itself, or (long) its head cut at a character
 * boundary, its hash and padding to RD_KEY_LONG bytes. */
static void rd_key_text(arena_t *a, const char *s, size_t n, datum_t *k, const char **full,
                        size_t *full_len)
{
  k->d_null = false;
  if (n <= RD_KEY_SHORT) {
    k->d_str.s_ptr = s;
    k->d_str.s_len = (uint32_t)n;
    *full = NULL;
    *full_len = 0;
    return;
  }
  size_t cut = RD_KEY_HEAD;
  while (cut > 0 && ((unsigned char)s[cut] & 0xc0) == 0x80)
    cut--;
  char *p = arena_alloc(a, RD_KEY_LONG);
  memcpy(p, s, cut);
  int w = snprintf(p + cut, RD_KEY_LONG - cut, " #%016llx",
                   (unsigned long long)hash64(s, n, 0x9e3779b97f4a7c15ULL));
  memset(p + cut + (size_t)w, '.', RD_KEY_LONG - cut - (size_t)w);
  k->d_str.s_ptr = p;
  k->d_str.s_len = RD_KEY_LONG;
  *full = s;
  *full_len = n;
}

static int rd_key_cmp(const void *x, const void *y, void *ctx)
{
  const rd_table_t *dt = ctx;
  const rd_key_t *a = *(rd_key_t *const *)x, *b = *(rd_key_t *const *)y;
  const cat_index_t *ix = dt->dt_t->ct_indexes[dt->dt_ix];
  for (int c = 0; c < dt->dt_nkey; c++) {
    int r = datum_cmp(ty_phys(ix->ci_key_types[c].t_id), &a->rk_k[c], &b->rk_k[c]);
    if (r)
      return r;
  }
  return 0;
}

static uint64_t rd_key_hash(const rd_table_t *dt, const rd_key_t *k)
{
  const cat_index_t *ix = dt->dt_t->ct_indexes[dt->dt_ix];
  uint64_t h = 0x9e3779b97f4a7c15ULL;
  for (int c = 0; c < dt->dt_nkey; c++) {
    const datum_t *d = &k->rk_k[c];
    if (d->d_null)
      h = hash64("", 0, h + 1);
    else if (ty_phys(ix->ci_key_types[c].t_id) == TP_STR)
      h = hash64(d->d_str.s_ptr, d->d_str.s_len, h);
    else
      h = hash64(&d->d_i64, sizeof d->d_i64, h);
  }
  return h;
}

/* The distinct keys of k[0..n) into u (returns how many), each key's
 * rk_rep set to its distinct one and rk_id cleared. By hash, not by a
 * sort: the probe and the locks order the encoded keys themselves (the
 * insert needs no order: its keys are locked), so a sort here on datum
 * comparisons (a fifth of a load's instructions) only found the
 * duplicates. */
static int rd_distinct(const rd_table_t *dt, rd_key_t *k, int n, rd_key_t **u, arena_t *a)
{
  size_t cap = 16;
  while (cap < (size_t)n * 2)
    cap <<= 1;
  rd_key_t **slot = arena_alloc(a, sizeof(*slot) * cap);
  uint64_t *hs = arena_alloc(a, sizeof(*hs) * cap);
  memset(slot, 0, sizeof(*slot) * cap);
  int nu = 0;
  for (int i = 0; i < n; i++) {
    uint64_t h = rd_key_hash(dt, &k[i]);
    size_t j = (size_t)h & (cap - 1);
    while (slot[j] && (hs[j] != h || rd_key_cmp(&slot[j], &(rd_key_t *){&k[i]}, (void *)dt) != 0))
      j = (j + 1) & (cap - 1);
    if (!slot[j]) {
      slot[j] = &k[i];
      hs[j] = h;
      u[nu++] = &k[i];
    }
    k[i].rk_rep = slot[j];
    k[i].rk_id = 0;
  }
  return nu;
}

/* The ids of the keys u[0..n) that dt holds (rk_id stays 0 for the
 * others), with one vectored probe of the value index. */
static int rd_probe(rdf_dict_t *d, txn_t *tx, const rd_table_t *dt, rd_key_t **u, int n,
                    err_t *e)
{
  if (n == 0)
    return CZ_OK;
  arena_t *a = d->rd_scratch;
  const cat_index_t *ix = dt->dt_t->ct_indexes[dt->dt_ix];
  vec_t kv[3];
  const vec_t *kp[3];
  for (int c = 0; c < dt->dt_nkey; c++) {
    if (vec_init(&kv[c], a, ix->ci_key_types[c], n, e) != CZ_OK)
      return CZ_ERR;
    for (int j = 0; j < n; j++)
      vec_set(&kv[c], j, &u[j]->rk_k[c]);
    kp[c] = &kv[c];
  }
  int cols[1] = {0};
  tbl_probe_t *p;
  if (tbl_probe_open(tx, dt->dt_t, dt->dt_ix, dt->dt_nkey, cols, 1, NULL, 0, a, &p, e) != CZ_OK)
    return CZ_ERR;
  int rc = tbl_probe_keys(p, kp, NULL, n, NULL, a, e);
  int cap = n < 1024 ? n : 1024;
  ty_t t8 = ty_plain(TY_INT8);
  batch_t *b = rc == CZ_OK ? batch_create(a, 1, &t8, cap, e) : NULL;
  int *at = arena_alloc(a, sizeof(int) * (size_t)cap);
  if (!b)
    rc = CZ_ERR;
  while (rc == CZ_OK) {
    rc = tbl_probe_next(p, b, at, a, e);
    if (rc != CZ_OK || b->b_n == 0)
      break;
    for (int i = 0; i < b->b_n; i++)
      u[at[i]]->rk_id = (rdf_id_t)b->b_cols[0].v_i64[i];
  }
  tbl_probe_close(p);
  return rc;
}

/* Inserts the keys u[0..n) nobody holds yet, under their value locks. */
static int rd_insert_new(rdf_dict_t *d, txn_t *tx, const rd_table_t *dt, rd_key_t **u, int n,
                         err_t *e)
{
  arena_t *a = d->rd_scratch;
  const datum_t **keys = arena_alloc(a, sizeof(*keys) * (size_t)n);
  bool *found = arena_alloc(a, sizeof(bool) * (size_t)n);
  for (int j = 0; j < n; j++)
    keys[j] = u[j]->rk_k;
  if (rdf_lock_values(tx, dt->dt_t->ct_indexes[dt->dt_ix], keys, n, a, e) != CZ_OK ||
      tbl_ref_probe(tx, dt->dt_t, dt->dt_ix, keys, n, false, found, a, e) != CZ_OK)
    return CZ_ERR;
  /* found now: a concurrent encoder committed them since the first probe */
  rd_key_t **again = arena_alloc(a, sizeof(*again) * (size_t)n);
  int nagain = 0, nnew = 0;
  for (int j = 0; j < n; j++) {
    if (found[j])
      again[nagain++] = u[j];
    else
      u[nnew++] = u[j];
  }
  if (rd_probe(d, tx, dt, again, nagain, e) != CZ_OK)
    return CZ_ERR;
  for (int j = 0; j < nagain; j++)
    if (!again[j]->rk_id)
      return err_set(e, SQLSTATE_INTERNAL, "rdf: a locked dictionary value was not found");
  if (nnew == 0)
    return CZ_OK;
  /* the new values in key order: they go into the value index in that
   * order (its leaves fill as they did when the whole batch was sorted;
   * in hash order the dictionary took 15 % more pages) and take
   * ascending ids in it */
  qsort_r(u, (size_t)nnew, sizeof(*u), rd_key_cmp, (void *)dt);
  const cat_table_t *t = dt->dt_t;
  batch_t *b = batch_create(a, t->ct_ncols, t->ct_types, nnew, e);
  if (!b)
    return CZ_ERR;
  for (int j = 0; j < nnew; j++) {
    int64_t v;
    if (cat_seq_nextval(d->rd_seqs, dt->dt_seq, tx, NULL, &v, e) != CZ_OK)
      return CZ_ERR;
    if ((uint64_t)v > RDF_ID_DICT_MAX)
      return err_set(e, SQLSTATE_SEQUENCE_LIMIT, "rdf: dictionary ids exhausted");
    u[j]->rk_id = u[j]->rk_tag == RDF_ID_NONE ? (rdf_id_t)v : rdf_id_make_dict(u[j]->rk_tag, (uint64_t)v);
    datum_t id = {.d_i64 = (int64_t)u[j]->rk_id};
    vec_set(&b->b_cols[0], j, &id);
    for (int c = 0; c < dt->dt_nkey; c++)
      vec_set(&b->b_cols[1 + c], j, &u[j]->rk_k[c]);
    if (dt->dt_long) {
      datum_t full = {.d_null = u[j]->rk_full == NULL};
      if (u[j]->rk_full)
        full.d_str = (str_t){u[j]->rk_full, (uint32_t)u[j]->rk_full_len};
      vec_set(&b->b_cols[1 + dt->dt_nkey], j, &full);
    }
  }
  b->b_n = nnew;
  return tbl_insert_batch(tx, t, b, nnew, e);
}

/* Gives every key of k[0..n) its id (rk_id), adding the new values, in
 * one short transaction. */
static int rd_intern(rdf_dict_t *d, const rd_table_t *dt, rd_key_t *k, int n, err_t *e)
{
  if (n == 0)
    return CZ_OK;
  arena_t *a = d->rd_scratch;
  rd_key_t **u = arena_alloc(a, sizeof(*u) * (size_t)n);
  int nu = rd_distinct(dt, k, n, u, a);
  if (d->rd_look) {
    /* a lookup: the known ones, in the caller's transaction */
    if (rd_probe(d, d->rd_look_tx, dt, u, nu, e) != CZ_OK)
      return CZ_ERR;
    for (int i = 0; i < n; i++)
      k[i].rk_id = k[i].rk_rep->rk_id;
    return CZ_OK;
  }
  txn_t *tx = txn_begin(cat_db(d->rd_cat), TXN_NESTED, e);
  if (!tx)
    return CZ_ERR;
  int rc = rd_probe(d, tx, dt, u, nu, e);
  int nmiss = 0;
  rd_key_t **miss = arena_alloc(a, sizeof(*miss) * (size_t)nu);
  for (int j = 0; j < nu; j++)
    if (!u[j]->rk_id)
      miss[nmiss++] = u[j];
  if (rc == CZ_OK && nmiss)
    rc = rd_insert_new(d, tx, dt, miss, nmiss, e);
  if (rc != CZ_OK) {
    txn_rollback(tx, NULL);
    return CZ_ERR;
  }
  if (txn_commit(tx, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < n; i++)
    k[i].rk_id = k[i].rk_rep->rk_id;
  return CZ_OK;
}

/* ---- encoding ------------------------------------------------------------------ */

/* Where an IRI's namespace ends: after its last '#', '/' or ':' (none:
 * the empty namespace), never past RD_KEY_SHORT bytes. */
static size_t rd_ns_end(const char *s, size_t n)
{
  size_t lim = n < RD_KEY_SHORT ? n : RD_KEY_SHORT;
  for (size_t i = lim; i > 0; i--)
    if (s[i - 1] == '#' || s[i - 1] == '/' || s[i - 1] == ':')
      return i;
  return 0;
}

/* An IRI to encode: its namespace and local part. */
typedef struct rd_iri_s {
  const char *ri_s;
  size_t ri_n, ri_nse;
  int64_t ri_ns;               /* namespace id (0: a blank node) */
} rd_iri_t;

/* Namespace ids of iris[0..n) (blank nodes have 0 already). */
static int rd_encode_ns(rdf_dict_t *d, rd_iri_t *iris, int n, err_t *e)
{
  rd_key_t *k = arena_alloc(d->rd_scratch, sizeof(*k) * (size_t)(n ? n : 1));
  int nk = 0;
  for (int i = 0; i < n; i++) {
    if (iris[i].ri_ns == 0 && iris[i].ri_s) {
      const rd_ns_t *c = rd_ns_by_str(d, iris[i].ri_s, iris[i].ri_nse);
      if (c) {
        iris[i].ri_ns = c->ns_id;
        continue;
      }
      memset(&k[nk], 0, sizeof(k[nk]));
      k[nk].rk_k[0].d_str = (str_t){iris[i].ri_s, (uint32_t)iris[i].ri_nse};
      k[nk].rk_tag = RDF_ID_NONE;
      nk++;
    }
  }
  if (rd_intern(d, &d->rd_prefix, k, nk, e) != CZ_OK)
    return CZ_ERR;
  for (int j = 0; j < nk; j++)
    if (k[j].rk_id && !rd_ns_by_str(d, k[j].rk_k[0].d_str.s_ptr, k[j].rk_k[0].d_str.s_len))
      rd_ns_add(d, k[j].rk_k[0].d_str.s_ptr, k[j].rk_k[0].d_str.s_len, (int64_t)k[j].rk_id);
  for (int i = 0; i < n; i++)
    if (iris[i].ri_ns == 0 && iris[i].ri_s) {
      const rd_ns_t *c = rd_ns_by_str(d, iris[i].ri_s, iris[i].ri_nse);
      /* missing only in a lookup: no namespace id is negative, so the
       * IRI's key finds nothing (0 would find a blank node's) */
      iris[i].ri_ns = c ? c->ns_id : -1;
    }
  return CZ_OK;
}

static bool rd_is_plain_dt(const rdf_term_t *t)
{
  if (t->rt_lang_len || !t->rt_dt)
    return true;
  return t->rt_dt_len == strlen(RDF_XSD_STRING) && memcmp(t->rt_dt, RDF_XSD_STRING, t->rt_dt_len) == 0;
}

int rdf_dict_encode(rdf_dict_t *d, const rdf_term_t *terms, size_t n, rdf_id_t *ids, err_t *e)
{
  arena_t *a = d->rd_scratch;
  arena_reset(a);
  /* IRI-dictionary entries: the IRIs and blank nodes of terms, then the
   * datatypes of the literals that go to the literal dictionary */
  rd_iri_t *iris = arena_alloc(a, sizeof(*iris) * (2 * n + 1));
  int *iri_of = arena_alloc(a, sizeof(int) * (n + 1));   /* term → its iris[] entry */
  int *dt_of = arena_alloc(a, sizeof(int) * (n + 1));    /* literal → its datatype's, -1 */
  int niri = 0;
  for (size_t i = 0; i < n; i++) {
    const rdf_term_t *t = &terms[i];
    ids[i] = 0;
    iri_of[i] = dt_of[i] = -1;
    if (t->rt_kind == RDF_IRI) {
      iris[niri] = (rd_iri_t){t->rt_str, t->rt_len, rd_ns_end(t->rt_str, t->rt_len), 0};
      iri_of[i] = niri++;
    } else if (t->rt_kind == RDF_BNODE) {
      iris[niri] = (rd_iri_t){NULL, 0, 0, 0};
      iri_of[i] = niri++;
    } else if (t->rt_kind == RDF_LITERAL) {
      ids[i] = rdf_id_encode_literal(t);
      if (!ids[i] && !rd_is_plain_dt(t)) {
        iris[niri] = (rd_iri_t){t->rt_dt, t->rt_dt_len, rd_ns_end(t->rt_dt, t->rt_dt_len), 0};
        dt_of[i] = niri++;
      }
    }
  }
  if (rd_encode_ns(d, iris, niri, e) != CZ_OK)
    return CZ_ERR;
  rd_key_t *ik = arena_alloc(a, sizeof(*ik) * (size_t)(niri + 1));
  for (size_t i = 0; i < n; i++) {
    const rdf_term_t *t = &terms[i];
    for (int pass = 0; pass < 2; pass++) {
      int at = pass == 0 ? iri_of[i] : dt_of[i];
      if (at < 0)
        continue;
      rd_key_t *k = &ik[at];
      memset(k, 0, sizeof(*k));
      k->rk_k[0].d_i64 = iris[at].ri_ns;
      if (t->rt_kind == RDF_BNODE) {
        rd_key_text(a, t->rt_str, t->rt_len, &k->rk_k[1], &k->rk_full, &k->rk_full_len);
        k->rk_tag = RDF_ID_BNODE;
      } else {
        rd_key_text(a, iris[at].ri_s + iris[at].ri_nse, iris[at].ri_n - iris[at].ri_nse,
                    &k->rk_k[1], &k->rk_full, &k->rk_full_len);
        k->rk_tag = RDF_ID_IRI;
      }
    }
  }
  if (rd_intern(d, &d->rd_iri, ik, niri, e) != CZ_OK)
    return CZ_ERR;
  rd_key_t *lk = arena_alloc(a, sizeof(*lk) * (n + 1));
  int *lk_at = arena_alloc(a, sizeof(int) * (n + 1));
  int nlit = 0;
  for (size_t i = 0; i < n; i++) {
    const rdf_term_t *t = &terms[i];
    if (iri_of[i] >= 0) {
      ids[i] = ik[iri_of[i]].rk_id;
      continue;
    }
    if (t->rt_kind != RDF_LITERAL || ids[i])
      continue;
    if (dt_of[i] >= 0 && !ik[dt_of[i]].rk_id)
      continue;  /* a lookup: its datatype is unknown, so is the literal */
    rd_key_t *k = &lk[nlit];
    memset(k, 0, sizeof(*k));
    k->rk_k[0].d_i64 = dt_of[i] >= 0 ? (int64_t)ik[dt_of[i]].rk_id : 0;
    /* Language tags are kept lower-cased: RDF 1.1 compares them without
     * case, so "a"@EN and "a"@en are one term, one id. */
    char *lang = arena_alloc(a, t->rt_lang_len + 1);
    for (size_t j = 0; j < t->rt_lang_len; j++)
      lang[j] = (char)tolower((unsigned char)t->rt_lang[j]);
    lang[t->rt_lang_len] = '\0';
    k->rk_k[1].d_str = (str_t){lang, (uint32_t)t->rt_lang_len};
    rd_key_text(a, t->rt_str, t->rt_len, &k->rk_k[2], &k->rk_full, &k->rk_full_len);
    k->rk_tag = RDF_ID_LITDICT;
    lk_at[nlit++] = (int)i;
  }
  if (rd_intern(d, &d->rd_lit, lk, nlit, e) != CZ_OK)
    return CZ_ERR;
  for (int j = 0; j < nlit; j++)
    ids[lk_at[j]] = lk[j].rk_id;
  return CZ_OK;
}

int rdf_dict_lookup(rdf_dict_t *d, txn_t *tx, const rdf_term_t *terms, size_t n, rdf_id_t *ids,
                    err_t *e)
{
  d->rd_look = true;
  d->rd_look_tx = tx;
  int rc = rdf_dict_encode(d, terms, n, ids, e);
  d->rd_look = false;
  d->rd_look_tx = NULL;
  return rc;
}

/* ---- decoding -------------------------------------------------------------------- */

/* Rows of t for the ids in[0..n) (primary key), columns cols. */
static int rd_lookup(txn_t *tx, const cat_table_t *t, const int64_t *in, int n, const int *cols,
                     int ncols, arena_t *a, batch_t **out, bool **found, err_t *e)
{
  datum_t *kd = arena_alloc(a, sizeof(datum_t) * (size_t)n);
  const datum_t **keys = arena_alloc(a, sizeof(*keys) * (size_t)n);
  for (int i = 0; i < n; i++) {
    kd[i] = (datum_t){.d_i64 = in[i]};
    keys[i] = &kd[i];
  }
  ty_t types[4];
  for (int c = 0; c < ncols; c++)
    types[c] = t->ct_types[cols[c]];
  *out = batch_create(a, ncols, types, n, e);
  *found = arena_alloc(a, sizeof(bool) * (size_t)n);
  if (!*out)
    return CZ_ERR;
  return tbl_lookup(tx, t, keys, n, cols, ncols, false, *out, *found, a, e);
}

static str_t rd_str_of(const batch_t *b, int key_col, int long_col, int i)
{
  if (!b->b_cols[long_col].v_null[i])
    return b->b_cols[long_col].v_str[i];
  return b->b_cols[key_col].v_str[i];
}

/* Namespaces of the ids ns[0..n) into the cache. */
static int rd_decode_ns(rdf_dict_t *d, txn_t *tx, const int64_t *ns, int n, arena_t *a, err_t *e)
{
  int64_t *want = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
  int nw = 0;
  for (int i = 0; i < n; i++)
    if (ns[i] && !rd_ns_by_id(d, ns[i]))
      want[nw++] = ns[i];
  if (!nw)
    return CZ_OK;
  int cols[1] = {1};
  batch_t *b;
  bool *found;
  if (rd_lookup(tx, d->rd_prefix.dt_t, want, nw, cols, 1, a, &b, &found, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < nw; i++) {
    if (!found[i])
      return err_set(e, SQLSTATE_INVALID_TEXT, "rdf: namespace %lld is unknown",
                     (long long)want[i]);
    if (!rd_ns_by_id(d, want[i]))
      rd_ns_add(d, b->b_cols[0].v_str[i].s_ptr, b->b_cols[0].v_str[i].s_len, want[i]);
  }
  return CZ_OK;
}

static char *rd_concat(arena_t *a, const char *x, size_t xn, const char *y, size_t yn)
{
  char *p = arena_alloc(a, xn + yn + 1);
  memcpy(p, x, xn);
  memcpy(p + xn, y, yn);
  p[xn + yn] = '\0';
  return p;
}

int rdf_dict_decode(rdf_dict_t *d, txn_t *tx, const rdf_id_t *ids, size_t n, rdf_term_t *out,
                    arena_t *a, err_t *e)
{
  arena_t *s = d->rd_scratch;
  arena_reset(s);
  int64_t *lits = arena_alloc(s, sizeof(int64_t) * (n + 1));
  int *lit_at = arena_alloc(s, sizeof(int) * (n + 1));
  int nlit = 0;
  for (size_t i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof(out[i]));
    rdf_id_tag_t tag = rdf_id_tag(ids[i]);
    if (ids[i] == 0)
      continue;
    if (rdf_id_is_inline(ids[i])) {
      char *buf = arena_alloc(a, 64);
      if (rdf_id_decode_literal(ids[i], buf, 64, &out[i], e) != CZ_OK)
        return CZ_ERR;
    } else if (tag == RDF_ID_LITDICT) {
      lit_at[nlit] = (int)i;
      lits[nlit++] = (int64_t)ids[i];
    } else if (tag != RDF_ID_IRI && tag != RDF_ID_BNODE) {
      return err_set(e, SQLSTATE_INVALID_TEXT, "rdf: %llu is not a term id",
                     (unsigned long long)ids[i]);
    }
  }
  /* literals first: their datatypes join the IRIs to decode */
  int64_t *dts = arena_alloc(s, sizeof(int64_t) * (size_t)(nlit + 1));
  batch_t *lb = NULL;
  bool *lfound = NULL;
  if (nlit) {
    int cols[4] = {1, 2, 3, 4};
    if (rd_lookup(tx, d->rd_lit.dt_t, lits, nlit, cols, 4, s, &lb, &lfound, e) != CZ_OK)
      return CZ_ERR;
  }
  int64_t *iris = arena_alloc(s, sizeof(int64_t) * (n + (size_t)nlit + 1));
  int niri = 0;
  for (size_t i = 0; i < n; i++)
    if (ids[i] && !rdf_id_is_inline(ids[i]) && rdf_id_tag(ids[i]) != RDF_ID_LITDICT)
      iris[niri++] = (int64_t)ids[i];
  int dt_base = niri;
  for (int j = 0; j < nlit; j++) {
    if (!lfound[j])
      return err_set(e, SQLSTATE_INVALID_TEXT, "rdf: literal id %llu is unknown",
                     (unsigned long long)lits[j]);
    dts[j] = lb->b_cols[0].v_i64[j];
    if (dts[j])
      iris[niri++] = dts[j];
  }
  batch_t *ib = NULL;
  bool *ifound = NULL;
  if (niri) {
    int cols[3] = {1, 2, 3};
    if (rd_lookup(tx, d->rd_iri.dt_t, iris, niri, cols, 3, s, &ib, &ifound, e) != CZ_OK)
      return CZ_ERR;
    if (rd_decode_ns(d, tx, ib->b_cols[0].v_i64, niri, s, e) != CZ_OK)
      return CZ_ERR;
  }
  /* the IRI of row r of ib, in a */
  rdf_term_t *iterm = arena_alloc(s, sizeof(rdf_term_t) * (size_t)(niri + 1));
  for (int r = 0; r < niri; r++) {
    if (!ifound[r])
      return err_set(e, SQLSTATE_INVALID_TEXT, "rdf: IRI id %llu is unknown",
                     (unsigned long long)iris[r]);
    str_t local = rd_str_of(ib, 1, 2, r);
    int64_t ns = ib->b_cols[0].v_i64[r];
    const rd_ns_t *c = ns ? rd_ns_by_id(d, ns) : NULL;
    char *str = rd_concat(a, c ? c->ns_str : "", c ? c->ns_len : 0, local.s_ptr, local.s_len);
    iterm[r] = (rdf_term_t){.rt_kind = rdf_id_tag((rdf_id_t)iris[r]) == RDF_ID_BNODE ? RDF_BNODE : RDF_IRI,
                            .rt_str = str, .rt_len = strlen(str)};
  }
  int r = 0;
  for (size_t i = 0; i < n; i++)
    if (ids[i] && !rdf_id_is_inline(ids[i]) && rdf_id_tag(ids[i]) != RDF_ID_LITDICT)
      out[i] = iterm[r++];
  int dr = dt_base;
  for (int j = 0; j < nlit; j++) {
    rdf_term_t *t = &out[lit_at[j]];
    str_t lex = rd_str_of(lb, 2, 3, j);
    str_t lang = lb->b_cols[1].v_str[j];
    t->rt_kind = RDF_LITERAL;
    t->rt_str = rd_concat(a, lex.s_ptr, lex.s_len, "", 0);
    t->rt_len = lex.s_len;
    if (lang.s_len) {
      t->rt_lang = rd_concat(a, lang.s_ptr, lang.s_len, "", 0);
      t->rt_lang_len = lang.s_len;
    }
    if (dts[j]) {
      t->rt_dt = iterm[dr].rt_str;
      t->rt_dt_len = iterm[dr].rt_len;
      dr++;
    }
  }
  return CZ_OK;
}

/* ---- N-Triples text ----------------------------------------------------------------- */

typedef struct rd_buf_s {
  arena_t *b_a;
  char *b_p;
  size_t b_n, b_cap;
} rd_buf_t;

static int rd_buf_sink(void *ctx, const char *s, size_t n)
{
  rd_buf_t *b = ctx;
  if (b->b_n + n + 1 > b->b_cap) {
    size_t cap = (b->b_n + n + 1) * 2;
    char *p = arena_alloc(b->b_a, cap);
    if (b->b_n)
      memcpy(p, b->b_p, b->b_n);
    b->b_p = p;
    b->b_cap = cap;
  }
  memcpy(b->b_p + b->b_n, s, n);
  b->b_n += n;
  b->b_p[b->b_n] = '\0';
  return 0;
}

char *rdf_term_ntriples(const rdf_term_t *t, arena_t *a)
{
  rd_buf_t b = {.b_a = a};
  rd_buf_sink(&b, "", 0);
  rdf_out_t *o = rdf_out_new(rd_buf_sink, &b);
  if (!o)
    return NULL;
  rdf_esc_nt_term(o, t, false);
  rdf_out_free(o);
  return b.b_p;
}

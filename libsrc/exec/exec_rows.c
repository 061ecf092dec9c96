/* exec_rows — the row store and the hash index over it, shared by the
 * materialising operators (sort, joins, group-by, distinct, set ops).
 *
 * Design notes: everything here grows with the data, so every growth step
 * (a chunk of rows, a copied string, a doubled table or counts array)
 * is an arena_try_alloc that may be refused — by MaxQueryMem before the
 * memory is taken, or by the system — and the refusal comes back as the
 * query's 53200 (op_alloc_error). Nothing is dropped: a caller that gets
 * -1 or CZ_ERR fails the query. A table that doubles gives its old copy
 * back (arena_free) once the rows have moved. */
#include <string.h>

#include "exec/exec_int.h"

void rs_init(rstore_t *rs, arena_t *a, int ncols, const ty_t *types)
{
  memset(rs, 0, sizeof(*rs));
  rs->rs_arena = a;
  rs->rs_ncols = ncols;
  rs->rs_types = types;
}

int datum_copy(ty_phys_t p, const datum_t *in, arena_t *a, datum_t *out, err_t *e)
{
  *out = *in;
  if (!in->d_null && p == TP_STR && in->d_str.s_len > 0) {
    char *s = arena_try_alloc(a, in->d_str.s_len);
    if (!s)
      return op_alloc_error(a, e);
    memcpy(s, in->d_str.s_ptr, in->d_str.s_len);
    out->d_str.s_ptr = s;
  }
  return CZ_OK;
}

bool datum_eq_nulls(ty_phys_t p, const datum_t *a, const datum_t *b)
{
  if (a->d_null || b->d_null)
    return a->d_null && b->d_null;
  return datum_cmp(p, a, b) == 0;
}

/* 16-byte steps inside a chunk's block, as arena allocations are. */
static size_t rs_round(size_t n)
{
  return (n + 15) & ~(size_t)15;
}

/* One chunk of RS_CHUNK rows as a single fallible block: the batch, its
 * vectors, and each column's null flags and values (zeroed, as
 * batch_create's: a row never written reads as 0 / empty). */
static batch_t *rs_chunk_new(rstore_t *rs, err_t *e)
{
  int nc = rs->rs_ncols;
  size_t head = rs_round(sizeof(batch_t)) + rs_round(sizeof(vec_t) * (size_t)(nc > 0 ? nc : 1));
  size_t n = head;
  for (int c = 0; c < nc; c++)
    n += rs_round(RS_CHUNK) + rs_round(RS_CHUNK * ty_phys_size(ty_phys(rs->rs_types[c].t_id)));
  char *m = arena_try_zalloc(rs->rs_arena, n);
  if (!m) {
    op_alloc_error(rs->rs_arena, e);
    return NULL;
  }
  batch_t *b = (batch_t *)m;
  b->b_ncols = nc;
  b->b_cols = (vec_t *)(m + rs_round(sizeof(batch_t)));
  char *at = m + head;
  for (int c = 0; c < nc; c++) {
    vec_t *v = &b->b_cols[c];
    v->v_type = rs->rs_types[c];
    v->v_cap = RS_CHUNK;
    v->v_null = (uint8_t *)at;
    at += rs_round(RS_CHUNK);
    v->v_data = at;
    at += rs_round(RS_CHUNK * ty_phys_size(ty_phys(rs->rs_types[c].t_id)));
  }
  return b;
}

static int rs_grow(rstore_t *rs, err_t *e)
{
  if (rs->rs_nchunks == rs->rs_cap_chunks) {
    int cap = rs->rs_cap_chunks ? rs->rs_cap_chunks * 2 : 8;
    batch_t **n = arena_try_alloc(rs->rs_arena, sizeof(batch_t *) * (size_t)cap);
    if (!n)
      return op_alloc_error(rs->rs_arena, e);
    if (rs->rs_nchunks)
      memcpy(n, rs->rs_chunks, sizeof(batch_t *) * (size_t)rs->rs_nchunks);
    arena_free(rs->rs_arena, rs->rs_chunks, sizeof(batch_t *) * (size_t)rs->rs_cap_chunks);
    rs->rs_chunks = n;
    rs->rs_cap_chunks = cap;
  }
  batch_t *b = rs_chunk_new(rs, e);
  if (!b)
    return CZ_ERR;
  rs->rs_chunks[rs->rs_nchunks++] = b;
  return CZ_OK;
}

int64_t rs_append_row(rstore_t *rs, const batch_t *b, int row, err_t *e)
{
  if (rs->rs_n == (int64_t)rs->rs_nchunks * RS_CHUNK && rs_grow(rs, e) != CZ_OK)
    return -1;
  batch_t *ch = rs->rs_chunks[rs->rs_n / RS_CHUNK];
  int idx = (int)(rs->rs_n % RS_CHUNK);
  for (int c = 0; c < rs->rs_ncols; c++) {
    datum_t d, d2;
    vec_get(&b->b_cols[c], row, &d);
    if (datum_copy(ty_phys(rs->rs_types[c].t_id), &d, rs->rs_arena, &d2, e) != CZ_OK)
      return -1;
    vec_set(&ch->b_cols[c], idx, &d2);
  }
  ch->b_n = idx + 1;
  return rs->rs_n++;
}

int64_t rs_append_datums(rstore_t *rs, const datum_t *vals, err_t *e)
{
  if (rs->rs_n == (int64_t)rs->rs_nchunks * RS_CHUNK && rs_grow(rs, e) != CZ_OK)
    return -1;
  batch_t *ch = rs->rs_chunks[rs->rs_n / RS_CHUNK];
  int idx = (int)(rs->rs_n % RS_CHUNK);
  for (int c = 0; c < rs->rs_ncols; c++) {
    datum_t d2;
    if (datum_copy(ty_phys(rs->rs_types[c].t_id), &vals[c], rs->rs_arena, &d2, e) != CZ_OK)
      return -1;
    vec_set(&ch->b_cols[c], idx, &d2);
  }
  ch->b_n = idx + 1;
  return rs->rs_n++;
}

int rs_append(rstore_t *rs, const obatch_t *ob, err_t *e)
{
  for (int i = 0; i < ob->ob_n; i++)
    if (rs_append_row(rs, ob->ob_b, ob->ob_sel ? ob->ob_sel[i] : i, e) < 0)
      return CZ_ERR;
  return CZ_OK;
}

void rs_get(const rstore_t *rs, int64_t r, int c, datum_t *out)
{
  int idx;
  vec_t *v = rs_col(rs, r, c, &idx);
  vec_get(v, idx, out);
}

void rs_copy_out(const rstore_t *rs, int64_t r, batch_t *out, int row, int c0)
{
  for (int c = 0; c < rs->rs_ncols; c++) {
    datum_t d;
    rs_get(rs, r, c, &d);
    vec_set(&out->b_cols[c0 + c], row, &d);
  }
}

/* ---- hash index -------------------------------------------------------- */

/* Slots and hashes in one fallible block: a table's size follows the
 * data. */
static int rh_alloc(rhash_t *h, int64_t cap, err_t *e)
{
  size_t n = (sizeof(int64_t) + sizeof(uint64_t)) * (size_t)cap;
  char *m = arena_try_alloc(h->rh_arena, n);
  if (!m)
    return op_alloc_error(h->rh_arena, e);
  h->rh_cap = cap;
  h->rh_slots = (int64_t *)m;
  memset(h->rh_slots, 0, sizeof(int64_t) * (size_t)cap);
  h->rh_hashes = (uint64_t *)(m + sizeof(int64_t) * (size_t)cap);
  return CZ_OK;
}

int rh_init(rhash_t *h, arena_t *a, int64_t cap_hint, err_t *e)
{
  int64_t cap = 64;
  while (cap < cap_hint * 2)
    cap *= 2;
  h->rh_arena = a;
  h->rh_n = 0;
  return rh_alloc(h, cap, e);
}

static void rh_put(rhash_t *h, uint64_t hash, int64_t row)
{
  int64_t m = h->rh_cap - 1;
  int64_t i = (int64_t)(hash & (uint64_t)m);
  while (h->rh_slots[i])
    i = (i + 1) & m;
  h->rh_slots[i] = row + 1;
  h->rh_hashes[i] = hash;
}

int rh_insert(rhash_t *h, uint64_t hash, int64_t row, err_t *e)
{
  if ((h->rh_n + 1) * 2 > h->rh_cap) {
    /* The new table is charged (and may be refused) before the old one is
     * given back: both exist while rows move, so the peak is 1.5 times
     * the new table, never an uncounted doubling. */
    int64_t old_cap = h->rh_cap;
    int64_t *old_slots = h->rh_slots;
    uint64_t *old_hashes = h->rh_hashes;
    if (rh_alloc(h, old_cap * 2, e) != CZ_OK)
      return CZ_ERR;
    for (int64_t i = 0; i < old_cap; i++)
      if (old_slots[i])
        rh_put(h, old_hashes[i], old_slots[i] - 1);
    arena_free(h->rh_arena, old_slots, (sizeof(int64_t) + sizeof(uint64_t)) * (size_t)old_cap);
  }
  rh_put(h, hash, row);
  h->rh_n++;
  return CZ_OK;
}

bool rh_next(const rhash_t *h, uint64_t hash, int64_t *pos, int64_t *row)
{
  int64_t m = h->rh_cap - 1;
  int64_t i = *pos < 0 ? (int64_t)(hash & (uint64_t)m) : ((*pos + 1) & m);
  while (h->rh_slots[i]) {
    if (h->rh_hashes[i] == hash) {
      *pos = i;
      *row = h->rh_slots[i] - 1;
      return true;
    }
    i = (i + 1) & m;
  }
  *pos = i;
  return false;
}

uint64_t row_hash(const batch_t *b, int row, int ncols, const int *cols)
{
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < ncols; i++) {
    const vec_t *v = &b->b_cols[cols ? cols[i] : i];
    datum_t d;
    vec_get(v, row, &d);
    uint64_t x = d.d_null ? 0x5bd1e995u : datum_hash(ty_phys(v->v_type.t_id), &d);
    h = hash64_int(h ^ x);
  }
  return h;
}

/* ---- row sets ---------------------------------------------------------- */

int rset_init(rset_t *s, arena_t *a, int ncols, const ty_t *types, err_t *e)
{
  rs_init(&s->rt_rows, a, ncols, types);
  s->rt_cap = 64;
  s->rt_counts = arena_zalloc(a, sizeof(int64_t) * 64);
  return rh_init(&s->rt_hash, a, 64, e);
}

static int64_t rset_lookup(const rset_t *s, const batch_t *b, int row, uint64_t hash)
{
  int64_t pos = -1, cand;
  while (rh_next(&s->rt_hash, hash, &pos, &cand)) {
    bool eq = true;
    for (int c = 0; c < s->rt_rows.rs_ncols && eq; c++) {
      datum_t x, y;
      vec_get(&b->b_cols[c], row, &x);
      rs_get(&s->rt_rows, cand, c, &y);
      eq = datum_eq_nulls(ty_phys(s->rt_rows.rs_types[c].t_id), &x, &y);
    }
    if (eq)
      return cand;
  }
  return -1;
}

int64_t rset_find(const rset_t *s, const batch_t *b, int row)
{
  return rset_lookup(s, b, row, row_hash(b, row, s->rt_rows.rs_ncols, NULL));
}

int64_t rset_add(rset_t *s, const batch_t *b, int row, bool *added, err_t *e)
{
  uint64_t hash = row_hash(b, row, s->rt_rows.rs_ncols, NULL);
  int64_t id = rset_lookup(s, b, row, hash);
  *added = id < 0;
  if (id >= 0)
    return id;
  if (s->rt_rows.rs_n >= s->rt_cap) {
    /* The counts grow before the row goes in, so a refusal leaves the set
     * as it was. */
    arena_t *a = s->rt_rows.rs_arena;
    int64_t *n = arena_try_zalloc(a, sizeof(int64_t) * (size_t)s->rt_cap * 2);
    if (!n) {
      op_alloc_error(a, e);
      return -1;
    }
    memcpy(n, s->rt_counts, sizeof(int64_t) * (size_t)s->rt_cap);
    arena_free(a, s->rt_counts, sizeof(int64_t) * (size_t)s->rt_cap);
    s->rt_counts = n;
    s->rt_cap *= 2;
  }
  id = rs_append_row(&s->rt_rows, b, row, e);
  if (id < 0 || rh_insert(&s->rt_hash, hash, id, e) != CZ_OK)
    return -1;
  return id;
}

int rs_fill(rstore_t *rs, const op_t *in, qctx_t *q, arena_t *state, err_t *e)
{
  if (op_open(in, q, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    obatch_t ob;
    if (op_next(in, q, &ob, e) != CZ_OK)
      return CZ_ERR;
    if (!ob.ob_b)
      break;
    if (rs_append(rs, &ob, e) != CZ_OK || op_check_mem(q, state, e) != CZ_OK)
      return CZ_ERR;
  }
  op_close(in, q);
  return CZ_OK;
}

/* exec_rows — the row store and the hash index over it, shared by the
 * materialising operators (sort, joins, group-by, distinct, set ops). */
#include <string.h>

#include "exec/exec_int.h"

void rs_init(rstore_t *rs, arena_t *a, int ncols, const ty_t *types)
{
  memset(rs, 0, sizeof(*rs));
  rs->rs_arena = a;
  rs->rs_ncols = ncols;
  rs->rs_types = types;
}

void datum_copy(ty_phys_t p, const datum_t *in, arena_t *a, datum_t *out)
{
  *out = *in;
  if (!in->d_null && p == TP_STR && in->d_str.s_len > 0) {
    char *s = arena_alloc(a, in->d_str.s_len);
    memcpy(s, in->d_str.s_ptr, in->d_str.s_len);
    out->d_str.s_ptr = s;
  }
}

bool datum_eq_nulls(ty_phys_t p, const datum_t *a, const datum_t *b)
{
  if (a->d_null || b->d_null)
    return a->d_null && b->d_null;
  return datum_cmp(p, a, b) == 0;
}

static void rs_grow(rstore_t *rs)
{
  if (rs->rs_nchunks == rs->rs_cap_chunks) {
    int cap = rs->rs_cap_chunks ? rs->rs_cap_chunks * 2 : 8;
    batch_t **n = arena_alloc(rs->rs_arena, sizeof(batch_t *) * (size_t)cap);
    if (rs->rs_nchunks)
      memcpy(n, rs->rs_chunks, sizeof(batch_t *) * (size_t)rs->rs_nchunks);
    rs->rs_chunks = n;
    rs->rs_cap_chunks = cap;
  }
  /* batch_create fails only on bad arguments; the arena aborts on OOM. */
  rs->rs_chunks[rs->rs_nchunks++] =
      batch_create(rs->rs_arena, rs->rs_ncols, rs->rs_types, RS_CHUNK, NULL);
}

int64_t rs_append_row(rstore_t *rs, const batch_t *b, int row)
{
  if (rs->rs_n == (int64_t)rs->rs_nchunks * RS_CHUNK)
    rs_grow(rs);
  batch_t *ch = rs->rs_chunks[rs->rs_n / RS_CHUNK];
  int idx = (int)(rs->rs_n % RS_CHUNK);
  for (int c = 0; c < rs->rs_ncols; c++) {
    datum_t d, d2;
    vec_get(&b->b_cols[c], row, &d);
    datum_copy(ty_phys(rs->rs_types[c].t_id), &d, rs->rs_arena, &d2);
    vec_set(&ch->b_cols[c], idx, &d2);
  }
  ch->b_n = idx + 1;
  return rs->rs_n++;
}

int64_t rs_append_datums(rstore_t *rs, const datum_t *vals)
{
  if (rs->rs_n == (int64_t)rs->rs_nchunks * RS_CHUNK)
    rs_grow(rs);
  batch_t *ch = rs->rs_chunks[rs->rs_n / RS_CHUNK];
  int idx = (int)(rs->rs_n % RS_CHUNK);
  for (int c = 0; c < rs->rs_ncols; c++) {
    datum_t d2;
    datum_copy(ty_phys(rs->rs_types[c].t_id), &vals[c], rs->rs_arena, &d2);
    vec_set(&ch->b_cols[c], idx, &d2);
  }
  ch->b_n = idx + 1;
  return rs->rs_n++;
}

void rs_append(rstore_t *rs, const obatch_t *ob)
{
  for (int i = 0; i < ob->ob_n; i++)
    rs_append_row(rs, ob->ob_b, ob->ob_sel ? ob->ob_sel[i] : i);
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

static void rh_alloc(rhash_t *h, int64_t cap)
{
  h->rh_cap = cap;
  h->rh_slots = arena_zalloc(h->rh_arena, sizeof(int64_t) * (size_t)cap);
  h->rh_hashes = arena_alloc(h->rh_arena, sizeof(uint64_t) * (size_t)cap);
}

void rh_init(rhash_t *h, arena_t *a, int64_t cap_hint)
{
  int64_t cap = 64;
  while (cap < cap_hint * 2)
    cap *= 2;
  h->rh_arena = a;
  h->rh_n = 0;
  rh_alloc(h, cap);
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

void rh_insert(rhash_t *h, uint64_t hash, int64_t row)
{
  if ((h->rh_n + 1) * 2 > h->rh_cap) {
    int64_t old_cap = h->rh_cap;
    int64_t *old_slots = h->rh_slots;
    uint64_t *old_hashes = h->rh_hashes;
    rh_alloc(h, old_cap * 2);
    for (int64_t i = 0; i < old_cap; i++)
      if (old_slots[i])
        rh_put(h, old_hashes[i], old_slots[i] - 1);
  }
  rh_put(h, hash, row);
  h->rh_n++;
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

void rset_init(rset_t *s, arena_t *a, int ncols, const ty_t *types)
{
  rs_init(&s->rt_rows, a, ncols, types);
  rh_init(&s->rt_hash, a, 64);
  s->rt_cap = 64;
  s->rt_counts = arena_zalloc(a, sizeof(int64_t) * 64);
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

int64_t rset_add(rset_t *s, const batch_t *b, int row, bool *added)
{
  uint64_t hash = row_hash(b, row, s->rt_rows.rs_ncols, NULL);
  int64_t id = rset_lookup(s, b, row, hash);
  *added = id < 0;
  if (id >= 0)
    return id;
  id = rs_append_row(&s->rt_rows, b, row);
  rh_insert(&s->rt_hash, hash, id);
  if (id >= s->rt_cap) {
    int64_t *n = arena_zalloc(s->rt_rows.rs_arena, sizeof(int64_t) * (size_t)s->rt_cap * 2);
    memcpy(n, s->rt_counts, sizeof(int64_t) * (size_t)s->rt_cap);
    s->rt_counts = n;
    s->rt_cap *= 2;
  }
  return id;
}

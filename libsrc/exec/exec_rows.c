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

bool datum_eq_nulls(ty_id_t id, const datum_t *a, const datum_t *b)
{
  if (a->d_null || b->d_null)
    return a->d_null && b->d_null;
  return datum_cmp_t(id, a, b) == 0;
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
    if (rs->rs_live && !rs->rs_live[c])
      memset(v->v_null, 1, RS_CHUNK);  /* never copied in: NULL for whoever reads it */
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
  return rs_append_rows(rs, b, &row, 1, e);
}

/* Copies n values of `size` bytes: out[i] = in[idx[i]] (idx NULL: in[i]).
 * A fixed size per case, so each copy is a move or two. */
static inline void cells_gather(char *restrict out, const char *restrict in, const int *idx, int n,
                                size_t size)
{
#define CELLS_GATHER(SZ)                                                                           \
  do {                                                                                             \
    if (idx)                                                                                       \
      for (int i = 0; i < n; i++)                                                                  \
        memcpy(out + (size_t)i * SZ, in + (size_t)idx[i] * SZ, SZ);                                \
    else                                                                                           \
      memcpy(out, in, (size_t)n * SZ);                                                             \
  } while (0)
  switch (size) {
  case 1:
    CELLS_GATHER(1);
    break;
  case 8:
    CELLS_GATHER(8);
    break;
  case 16:
    CELLS_GATHER(16);
    break;
  case 32:
    CELLS_GATHER(32);
    break;
  default:
    if (idx)
      for (int i = 0; i < n; i++)
        memcpy(out + (size_t)i * size, in + (size_t)idx[i] * size, size);
    else
      memcpy(out, in, (size_t)n * size);
  }
#undef CELLS_GATHER
}

void vec_gather(vec_t *out, int at, const vec_t *in, const int *idx, int n)
{
  if (n <= 0)
    return;
  size_t size = ty_phys_size(ty_phys(out->v_type.t_id));
  cells_gather((char *)out->v_null + at, (const char *)in->v_null, idx, n, 1);
  cells_gather((char *)out->v_data + (size_t)at * size, (const char *)in->v_data, idx, n, size);
}

void rs_gather(const rstore_t *rs, int c, const int64_t *rows, int n, vec_t *out, int at)
{
  size_t size = ty_phys_size(ty_phys(out->v_type.t_id));
  uint8_t *nul = out->v_null + at;
  char *val = (char *)out->v_data + (size_t)at * size;
  for (int i = 0; i < n; i++) {
    int64_t r = rows[i];
    const vec_t *v = &rs->rs_chunks[r / RS_CHUNK]->b_cols[c];
    int idx = (int)(r % RS_CHUNK);
    nul[i] = v->v_null[idx];
    switch (size) {
    case 8:
      memcpy(val + (size_t)i * 8, (const char *)v->v_data + (size_t)idx * 8, 8);
      break;
    case 16:
      memcpy(val + (size_t)i * 16, (const char *)v->v_data + (size_t)idx * 16, 16);
      break;
    default:
      memcpy(val + (size_t)i * size, (const char *)v->v_data + (size_t)idx * size, size);
    }
  }
}

int vec_copy_strings(arena_t *a, vec_t *v, int at, int n, err_t *e)
{
  size_t total = 0;
  for (int i = at; i < at + n; i++)
    if (!v->v_null[i])
      total += v->v_str[i].s_len;
  if (total == 0)
    return CZ_OK;
  char *m = arena_try_alloc(a, total);
  if (!m)
    return op_alloc_error(a, e);
  for (int i = at; i < at + n; i++) {
    str_t *s = &v->v_str[i];
    if (v->v_null[i] || !s->s_len)
      continue;
    memcpy(m, s->s_ptr, s->s_len);
    s->s_ptr = m;
    m += s->s_len;
  }
  return CZ_OK;
}

int64_t rs_append_rows(rstore_t *rs, const batch_t *b, const int *sel, int n, err_t *e)
{
  int64_t first = rs->rs_n;
  int done = 0;
  while (done < n) {
    if (rs->rs_n == (int64_t)rs->rs_nchunks * RS_CHUNK && rs_grow(rs, e) != CZ_OK)
      return -1;
    batch_t *ch = rs->rs_chunks[rs->rs_n / RS_CHUNK];
    int idx = (int)(rs->rs_n % RS_CHUNK);
    int k = CZ_MIN(n - done, RS_CHUNK - idx);
    for (int c = 0; c < rs->rs_ncols; c++) {
      if (rs->rs_live && !rs->rs_live[c])
        continue;
      vec_t *v = &ch->b_cols[c];
      vec_t in = b->b_cols[c];
      if (!sel && done) { /* without indexes the rows from `done` on */
        in.v_null += done;
        in.v_data = (char *)in.v_data + (size_t)done * ty_phys_size(ty_phys(in.v_type.t_id));
      }
      vec_gather(v, idx, &in, sel ? sel + done : NULL, k);
      if (ty_phys(rs->rs_types[c].t_id) == TP_STR && vec_copy_strings(rs->rs_arena, v, idx, k, e) != CZ_OK)
        return -1;
    }
    ch->b_n = idx + k;
    rs->rs_n += k;
    done += k;
  }
  return first;
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

/* The slots in one fallible block: a table's size follows the data. */
static int rh_alloc(rhash_t *h, int64_t cap, err_t *e)
{
  rh_ent_t *m = arena_try_zalloc(h->rh_arena, sizeof(rh_ent_t) * (size_t)cap);
  if (!m)
    return op_alloc_error(h->rh_arena, e);
  h->rh_cap = cap;
  h->rh_ents = m;
  return CZ_OK;
}

/* The chain array for rows up to `need` - 1 (doubling, fallible; the old
 * one given back once copied). */
static int rh_grow_next(rhash_t *h, int64_t need, err_t *e)
{
  int64_t cap = CZ_MAX(h->rh_next_cap * 2, 64);
  while (cap < need)
    cap *= 2;
  int64_t *n = arena_try_alloc(h->rh_arena, sizeof(int64_t) * (size_t)cap);
  if (!n)
    return op_alloc_error(h->rh_arena, e);
  if (h->rh_next_cap)
    memcpy(n, h->rh_next_row, sizeof(int64_t) * (size_t)h->rh_next_cap);
  arena_free(h->rh_arena, h->rh_next_row, sizeof(int64_t) * (size_t)h->rh_next_cap);
  h->rh_next_row = n;
  h->rh_next_cap = cap;
  return CZ_OK;
}

int rh_init(rhash_t *h, arena_t *a, int64_t cap_hint, err_t *e)
{
  int64_t cap = 64;
  while (cap < cap_hint * 2)
    cap *= 2;
  memset(h, 0, sizeof(*h));
  h->rh_arena = a;
  if (rh_alloc(h, cap, e) != CZ_OK)
    return CZ_ERR;
  return rh_grow_next(h, CZ_MAX(cap_hint, 64), e);
}

/* The slot of `hash`: the one holding it, or the empty one it goes to. */
static inline rh_ent_t *rh_slot(const rhash_t *h, uint64_t hash)
{
  int64_t m = h->rh_cap - 1;
  int64_t i = (int64_t)(hash & (uint64_t)m);
  rh_ent_t *t = h->rh_ents;
  while (t[i].re_row && t[i].re_hash != hash)
    i = (i + 1) & m;
  return &t[i];
}

int rh_insert(rhash_t *h, uint64_t hash, int64_t row, err_t *e)
{
  if (CZ_UNLIKELY(row >= h->rh_next_cap) && rh_grow_next(h, row + 1, e) != CZ_OK)
    return CZ_ERR;
  if (CZ_UNLIKELY((h->rh_used + 1) * 2 > h->rh_cap)) {
    /* The new table is charged (and may be refused) before the old one is
     * given back: both exist while slots move, so the peak is 1.5 times
     * the new table, never an uncounted doubling. Chains move whole. */
    int64_t old_cap = h->rh_cap;
    rh_ent_t *old = h->rh_ents;
    if (rh_alloc(h, old_cap * 2, e) != CZ_OK)
      return CZ_ERR;
    for (int64_t i = 0; i < old_cap; i++)
      if (old[i].re_row)
        *rh_slot(h, old[i].re_hash) = old[i];
    arena_free(h->rh_arena, old, sizeof(rh_ent_t) * (size_t)old_cap);
  }
  rh_ent_t *s = rh_slot(h, hash);
  if (!s->re_row) {
    s->re_hash = hash;
    h->rh_used++;
  }
  h->rh_next_row[row] = s->re_row;
  s->re_row = row + 1;
  h->rh_n++;
  return CZ_OK;
}

#define ROW_NULL_HASH 0x5bd1e995u /* a NULL cell's contribution */
#define ROW_HASH_SEED 0x9e3779b97f4a7c15ull

uint64_t row_hash(const batch_t *b, int row, int ncols, const int *cols)
{
  uint64_t h = ROW_HASH_SEED;
  for (int i = 0; i < ncols; i++) {
    const vec_t *v = &b->b_cols[cols ? cols[i] : i];
    datum_t d;
    vec_get(v, row, &d);
    uint64_t x = d.d_null ? ROW_NULL_HASH : datum_hash_t(v->v_type.t_id, &d);
    h = hash64_int(h ^ x);
  }
  return h;
}

uint64_t rows_hash_null1(void)
{
  return rh_mix(ROW_HASH_SEED ^ ROW_NULL_HASH);
}

void rows_hash(const batch_t *b, int ncols, const int *cols, const int *sel, int nsel,
               uint64_t *hash)
{
  for (int j = 0; j < nsel; j++)
    hash[j] = ROW_HASH_SEED;
  for (int c = 0; c < ncols; c++) {
    const vec_t *v = &b->b_cols[cols ? cols[c] : c];
    ty_phys_t p = ty_phys(v->v_type.t_id);
    const uint8_t *nul = v->v_null;
    if (p == TP_I64) {
      const int64_t *x = v->v_i64;
      for (int j = 0; j < nsel; j++) {
        int r = sel ? sel[j] : j;
        hash[j] = rh_mix(hash[j] ^ (nul[r] ? ROW_NULL_HASH : rh_mix((uint64_t)x[r])));
      }
      continue;
    }
    for (int j = 0; j < nsel; j++) {
      int r = sel ? sel[j] : j;
      uint64_t x;
      if (nul[r])
        x = ROW_NULL_HASH;
      else if (p == TP_STR && v->v_type.t_id != TY_JSONB)
        x = hash64(v->v_str[r].s_ptr, v->v_str[r].s_len, 0);
      else {
        datum_t d;
        vec_get(v, r, &d);
        x = datum_hash_t(v->v_type.t_id, &d);
      }
      hash[j] = rh_mix(hash[j] ^ x);
    }
  }
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
      eq = datum_eq_nulls(s->rt_rows.rs_types[c].t_id, &x, &y);
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

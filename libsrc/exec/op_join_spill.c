/* op_join_spill — the grace hash join: what a hash join does when its
 * build side (the right input) does not fit the memory it may hold.
 *
 * Design notes: the join (op_join.c) builds its table as usual until
 * hjs_should_spill says the table is too big; then the rows built so far
 * and every later right row go to HJS_FANOUT partition files chosen by
 * bits of the key hash, and the whole left input goes likewise to left
 * partition files. Equal keys hash equally, so each left row meets all
 * its candidate right rows in the pair of files of one partition; the
 * join then runs once per partition, its table built from the right file
 * and its left batches read from the left file (hjs_next_left), with its
 * usual matchers, residual condition and NULL padding: the answers are
 * the in-memory join's (the order of rows differs). Left rows with a NULL
 * key go to partition 0, where they match nothing (and are padded for a
 * LEFT join); so do the right rows with a NULL key a RIGHT / FULL join
 * keeps, stored there but never hashed. A partition whose right rows still do not fit is split
 * again with the next bits of the hash, both sides, up to HJS_MAX_LEVEL;
 * one that cannot be split (a single key value) is built as it is and
 * meets MaxQueryMem (53200). */
#include <string.h>

#include "exec/exec_int.h"
#include "exec/op_join_spill.h"
#include "exec/spill.h"

#define HJS_FANOUT 32
#define HJS_MAX_LEVEL 10

typedef struct hjs_part_s {
  spill_t *hp_right, *hp_left;
  int hp_level;                 /* the level its rows were partitioned at */
} hjs_part_t;

struct hjspill_s {
  const op_t *hs_lop, *hs_rop;
  int hs_nkeys;
  const int *hs_lk, *hs_rk;
  arena_t *hs_a;                /* this structure, the queue */
  arena_t *hs_rd;               /* a batch read from a file */
  hjs_part_t hs_cur[HJS_FANOUT]; /* partitions being written (level hs_level) */
  int hs_level;
  hjs_part_t *hs_queue;         /* partitions to join */
  int hs_nqueue, hs_cap;
  spill_t *hs_left;             /* the partition being joined: its left rows */
};

static int hjs_part_of(const hjspill_t *s, uint64_t h, int level)
{
  return (int)((h >> (64 - 5 * (level + 1))) & (HJS_FANOUT - 1));
}

bool hjs_should_spill(const qctx_t *q, arena_t *build, const rhash_t *h)
{
  int64_t lim = spill_mem_limit(q);
  if (lim <= 0 || !spill_dir())
    return false;
  int64_t used = (int64_t)arena_bytes_used(build);
  if (used < lim / 16)
    return false;
  /* Half of the memory at most: operators above (a sort, a group-by) need
   * room while the table is held. */
  if (used > lim / 2 || spill_pressure(q))
    return true;
  int64_t need = (int64_t)q->q_vector_size * 64;
  need += rh_growth_bytes(h, q->q_vector_size);
  return need > mem_budget_room(q->q_budget) - lim / 8;
}

hjspill_t *hjs_begin(qctx_t *q, arena_t *a, const op_t *left, const op_t *right, int nkeys,
                     const int *lk, const int *rk, err_t *e)
{
  (void)q;
  (void)e;
  hjspill_t *s = arena_zalloc(a, sizeof(*s));
  s->hs_lop = left;
  s->hs_rop = right;
  s->hs_nkeys = nkeys;
  s->hs_lk = lk;
  s->hs_rk = rk;
  s->hs_a = a;
  s->hs_rd = arena_create(a, "HashJoin partition");
  return s;
}

static int hjs_put(hjspill_t *s, qctx_t *q, bool right, const batch_t *b, int row, err_t *e)
{
  const int *keys = right ? s->hs_rk : s->hs_lk;
  bool null_key = false;
  for (int k = 0; k < s->hs_nkeys; k++)
    null_key |= b->b_cols[keys[k]].v_null[row] != 0;
  int p = null_key ? 0 : hjs_part_of(s, row_hash(b, row, s->hs_nkeys, keys), s->hs_level);
  spill_t **f = right ? &s->hs_cur[p].hp_right : &s->hs_cur[p].hp_left;
  const op_t *o = right ? s->hs_rop : s->hs_lop;
  if (!*f && !(*f = spill_open(q, o->o_ncols, o->o_types, e)))
    return CZ_ERR;
  return spill_put(*f, b, row, e);
}

int hjs_put_right(hjspill_t *s, qctx_t *q, const batch_t *b, int row, err_t *e)
{
  return hjs_put(s, q, true, b, row, e);
}

int hjs_put_left(hjspill_t *s, qctx_t *q, const batch_t *b, int row, err_t *e)
{
  return hjs_put(s, q, false, b, row, e);
}

int hjs_put_store(hjspill_t *s, qctx_t *q, const rstore_t *rs, err_t *e)
{
  for (int64_t r = 0; r < rs->rs_n; r++) {
    if ((r & 4095) == 4095 && op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    if (hjs_put_right(s, q, rs->rs_chunks[r / RS_CHUNK], (int)(r % RS_CHUNK), e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* The partitions written at hs_level join the queue. One side may be
 * empty: a LEFT join still pads the left rows of a partition without
 * right rows (and an outer join on the right would need the converse),
 * so the join decides what an empty side means. */
static int hjs_queue_parts(hjspill_t *s, err_t *e)
{
  for (int p = 0; p < HJS_FANOUT; p++) {
    hjs_part_t *cur = &s->hs_cur[p];
    if (!cur->hp_left && !cur->hp_right)
      continue;
    if (s->hs_nqueue == s->hs_cap) {
      int cap = s->hs_cap ? s->hs_cap * 2 : HJS_FANOUT;
      hjs_part_t *n = arena_alloc(s->hs_a, sizeof(hjs_part_t) * (size_t)cap);
      if (s->hs_nqueue)
        memcpy(n, s->hs_queue, sizeof(hjs_part_t) * (size_t)s->hs_nqueue);
      s->hs_queue = n;
      s->hs_cap = cap;
    }
    hjs_part_t part = {cur->hp_right, cur->hp_left, s->hs_level};
    cur->hp_right = cur->hp_left = NULL;
    s->hs_queue[s->hs_nqueue++] = part;
    if ((part.hp_right && spill_rewind(part.hp_right, e) != CZ_OK) ||
        (part.hp_left && spill_rewind(part.hp_left, e) != CZ_OK))
      return CZ_ERR;
  }
  return CZ_OK;
}

int hjs_end_input(hjspill_t *s, err_t *e)
{
  return hjs_queue_parts(s, e);
}

/* Reads every row of f, rewound, into partitions at hs_level. */
static int hjs_split_file(hjspill_t *s, qctx_t *q, spill_t *f, bool right, err_t *e)
{
  const op_t *o = right ? s->hs_rop : s->hs_lop;
  if (spill_rewind(f, e) != CZ_OK)
    return CZ_ERR;
  for (;;) {
    arena_reset(s->hs_rd);
    batch_t *b = batch_create(s->hs_rd, o->o_ncols, o->o_types, q->q_vector_size, e);
    if (!b || spill_get(f, b, s->hs_rd, e) != CZ_OK)
      return CZ_ERR;
    if (b->b_n == 0)
      return CZ_OK;
    if (op_check_cancel(q, e) != CZ_OK)
      return CZ_ERR;
    for (int i = 0; i < b->b_n; i++)
      if (hjs_put(s, q, right, b, i, e) != CZ_OK)
        return CZ_ERR;
  }
}

int hjs_next_partition(hjspill_t *s, qctx_t *q, arena_t *build, rstore_t *rs, rhash_t *rh,
                       bool *more, err_t *e)
{
  spill_close(s->hs_left);
  s->hs_left = NULL;
  for (;;) {
    *more = s->hs_nqueue > 0;
    if (!*more)
      return CZ_OK;
    hjs_part_t part = s->hs_queue[--s->hs_nqueue];
    arena_release(build);
    rs_init(rs, build, s->hs_rop->o_ncols, s->hs_rop->o_types);
    if (rh_init(rh, build, 64, e) != CZ_OK)
      goto fail;
    bool split = false;
    while (part.hp_right) {
      arena_reset(s->hs_rd);
      batch_t *b = batch_create(s->hs_rd, s->hs_rop->o_ncols, s->hs_rop->o_types,
                                q->q_vector_size, e);
      if (!b || spill_get(part.hp_right, b, s->hs_rd, e) != CZ_OK)
        goto fail;
      if (b->b_n == 0)
        break;
      if (op_check_cancel(q, e) != CZ_OK)
        goto fail;
      for (int i = 0; i < b->b_n; i++) {
        bool null_key = false;
        for (int k = 0; k < s->hs_nkeys; k++)
          null_key |= b->b_cols[s->hs_rk[k]].v_null[i] != 0;
        int64_t id = rs_append_row(rs, b, i, e);
        if (id < 0)
          goto fail;
        /* a NULL key (RIGHT / FULL keep such rows) is stored, never hashed */
        if (!null_key && rh_insert(rh, row_hash(b, i, s->hs_nkeys, s->hs_rk), id, e) != CZ_OK)
          goto fail;
      }
      if (op_check_mem(q, build, e) != CZ_OK)
        goto fail;
      if (part.hp_level + 1 < HJS_MAX_LEVEL && hjs_should_spill(q, build, rh)) {
        split = true;
        break;
      }
    }
    arena_reset(s->hs_rd);
    if (!split) {
      spill_close(part.hp_right);
      s->hs_left = part.hp_left;
      return CZ_OK;
    }
    /* Still too big: both sides again, by the next bits of the hash. */
    arena_release(build);
    rs_init(rs, build, s->hs_rop->o_ncols, s->hs_rop->o_types);
    s->hs_level = part.hp_level + 1;
    if (hjs_split_file(s, q, part.hp_right, true, e) != CZ_OK ||
        (part.hp_left && hjs_split_file(s, q, part.hp_left, false, e) != CZ_OK))
      goto fail;
    spill_close(part.hp_right);
    spill_close(part.hp_left);
    if (hjs_queue_parts(s, e) != CZ_OK)
      return CZ_ERR;
    continue;
  fail:
    spill_close(part.hp_right);
    spill_close(part.hp_left);
    return CZ_ERR;
  }
}

int hjs_next_left(hjspill_t *s, qctx_t *q, obatch_t *out, err_t *e)
{
  out->ob_b = NULL;
  out->ob_sel = NULL;
  out->ob_n = 0;
  if (!s->hs_left)
    return CZ_OK;
  if (op_check_cancel(q, e) != CZ_OK)
    return CZ_ERR;
  arena_reset(s->hs_rd);
  batch_t *b = batch_create(s->hs_rd, s->hs_lop->o_ncols, s->hs_lop->o_types,
                            q->q_vector_size, e);
  if (!b || spill_get(s->hs_left, b, s->hs_rd, e) != CZ_OK)
    return CZ_ERR;
  if (b->b_n == 0)
    return CZ_OK;
  out->ob_b = b;
  out->ob_n = b->b_n;
  return CZ_OK;
}

void hjs_close(hjspill_t *s)
{
  if (!s)
    return;
  for (int p = 0; p < HJS_FANOUT; p++) {
    spill_close(s->hs_cur[p].hp_right);
    spill_close(s->hs_cur[p].hp_left);
    s->hs_cur[p].hp_right = s->hs_cur[p].hp_left = NULL;
  }
  for (int i = 0; i < s->hs_nqueue; i++) {
    spill_close(s->hs_queue[i].hp_right);
    spill_close(s->hs_queue[i].hp_left);
  }
  s->hs_nqueue = 0;
  spill_close(s->hs_left);
  s->hs_left = NULL;
}

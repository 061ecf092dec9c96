/* bt_page.c — the in-page layout of B-tree pages: search, insert, delete,
 * prefix compression, compaction, and the split of one page's entries into
 * two pages.
 *
 * Design notes: a page is pg_head_t, bt_phdr_t, the common key prefix,
 * the slot array (2-byte body offsets, growing up) and the bodies (growing
 * down from the page end); README.md draws it. Every function here works on
 * a plain 8 KB byte array, so the layout is tested without the buffer pool.
 * Rewrites (prefix change, compaction, split) gather the entries as
 * bpg_ent_t pieces and build the page again from them: one code path
 * computes the prefix and writes slots and bodies. A rewrite of a page
 * from its own entries goes through a scratch copy on the stack, never the
 * heap.
 */
#include <string.h>

#include "btree/btree_int.h"

void bpg_init(uint8_t *pg, int level, pg_no_t owner, uint32_t tree_flags)
{
  pg_head_t *ph = bpg_phead(pg);
  bt_phdr_t *h = bpg_hdr(pg);

  ph->ph_type = level == 0 ? PG_T_BTREE_LEAF : PG_T_BTREE_INNER;
  ph->ph_flags = 0;
  ph->ph_owner = owner;
  memset(h, 0, sizeof *h);
  h->bh_level = (uint8_t)level;
  /* A column tree's leaves hold segment entries; its inner pages are
   * ordinary separators. */
  h->bh_layout = (tree_flags & BT_COLUMN) && level == 0 ? BT_LAYOUT_COL : BT_LAYOUT_ROW;
  h->bh_upper = ST_PAGE_SIZE;
  h->bh_tree_flags = tree_flags;
}

/* ---- comparison ---------------------------------------------------------- */

/* Target against the page prefix: <0 before every key of the page, >0 after
 * every key, 0 when the target key starts with the prefix. */
static inline int pfx_cmp(const uint8_t *pg, const bt_target_t *t)
{
  int plen = bpg_chdr(pg)->bh_plen;
  if (t->t_inf)
    return t->t_inf;
  if (plen == 0)
    return 0;
  int m = (int)t->t_klen < plen ? (int)t->t_klen : plen;
  int c = m == 0 ? 0 : memcmp(t->t_key, bpg_prefix(pg), (size_t)m);
  if (c)
    return c;
  /* A target that is a proper prefix of the prefix sorts first. */
  return (int)t->t_klen < plen ? -1 : 0;
}

/* Compares (target suffix) with the leaf body kv when the prefix matched. */
static inline int cmp_leaf_body(const uint8_t *kv, const uint8_t *ts, uint32_t tl,
                                const bt_target_t *t, bool unique)
{
  int sl = bt_ld16(kv);
  int c = bt_keycmp(ts, tl, kv + BT_LEAF_BODY, (size_t)sl);
  if (c || unique)
    return c;
  if (!t->t_has_val)
    return -1;
  return bt_keycmp(t->t_val, t->t_vlen, kv + BT_LEAF_BODY + sl, bt_ld16(kv + 2));
}

static inline int cmp_leaf_sfx(const uint8_t *pg, int i, const uint8_t *ts, uint32_t tl,
                               const bt_target_t *t, bool unique)
{
  return cmp_leaf_body(bpg_body(pg, i), ts, tl, t, unique);
}

static inline int cmp_sep_sfx(const uint8_t *pg, int i, const uint8_t *ts, uint32_t tl,
                              const bt_target_t *t)
{
  const uint8_t *kv = bpg_body(pg, i) + 4;
  int sl = bt_ld16(kv);
  int vl = bt_ld16(kv + 2);
  int c = bt_keycmp(ts, tl, kv + 4, (size_t)sl);
  if (c)
    return c;
  if (vl == BT_NOVAL)
    return t->t_has_val ? 1 : 0;
  if (!t->t_has_val)
    return -1;
  return bt_keycmp(t->t_val, t->t_vlen, kv + 4 + sl, (size_t)vl);
}

int bpg_cmp_leaf(const uint8_t *pg, int i, const bt_target_t *t, bool unique)
{
  int c = pfx_cmp(pg, t);
  if (c)
    return c;
  int plen = bpg_chdr(pg)->bh_plen;
  return cmp_leaf_sfx(pg, i, t->t_key + plen, t->t_klen - (uint32_t)plen, t, unique);
}

int bpg_cmp_sep(const uint8_t *pg, int i, const bt_target_t *t)
{
  int c = pfx_cmp(pg, t);
  if (c)
    return c;
  int plen = bpg_chdr(pg)->bh_plen;
  return cmp_sep_sfx(pg, i, t->t_key + plen, t->t_klen - (uint32_t)plen, t);
}

int bpg_search_leaf(const uint8_t *pg, const bt_target_t *t, bool unique, int from, bool upper, bool *eq)
{
  int n = bpg_n(pg);
  int c = pfx_cmp(pg, t);
  *eq = false;
  if (c < 0)
    return from;
  if (c > 0)
    return n;
  int plen = bpg_chdr(pg)->bh_plen;
  const uint8_t *ts = t->t_key + plen;
  uint32_t tl = t->t_klen - (uint32_t)plen;
  int lo = from, hi = n;
  /* Invariant: entries before lo are < t (<= t for upper), from hi on >= t. */
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    int r = cmp_leaf_sfx(pg, mid, ts, tl, t, unique);
    if (r > 0 || (upper && r == 0))
      lo = mid + 1;
    else
      hi = mid;
  }
  /* A key-only target in a non-unique tree matches the first entry of
   * its key. */
  if (!upper && lo < n)
    *eq = cmp_leaf_sfx(pg, lo, ts, tl, t, unique || !t->t_has_val) == 0;
  return lo;
}

void bpg_search_leaf_many(const uint8_t *const *pgs, const bt_target_t *tgs, int n, bool unique,
                          int *pos, bool *eq)
{
  int lo[BPG_GROUP_MAX], hi[BPG_GROUP_MAX], mid[BPG_GROUP_MAX], act[BPG_GROUP_MAX], na = 0, all = 0;
  const uint8_t *body[BPG_GROUP_MAX];
  int orig[BPG_GROUP_MAX];

  for (int i = 0; i < n; i++) {
    eq[i] = false;
    if (!pgs[i]) {
      pos[i] = -1;
      continue;
    }
    int c = pfx_cmp(pgs[i], &tgs[i]);
    if (c) {
      pos[i] = c < 0 ? 0 : bpg_n(pgs[i]);
      continue;
    }
    lo[i] = 0;
    hi[i] = bpg_n(pgs[i]);
    if (lo[i] < hi[i])
      act[na++] = i;
    orig[all++] = i;
  }
  /* One probe of every search per round: the loads of all searches are in
   * flight together instead of one cache miss after another. */
  while (na > 0) {
    for (int k = 0; k < na; k++) {
      int i = act[k];
      mid[i] = (lo[i] + hi[i]) >> 1;
      __builtin_prefetch(bpg_cslots(pgs[i]) + 2 * mid[i]);
    }
    for (int k = 0; k < na; k++) {
      int i = act[k];
      body[i] = pgs[i] + bt_ld16(bpg_cslots(pgs[i]) + 2 * mid[i]);
      __builtin_prefetch(body[i]);
    }
    int nna = 0;
    for (int k = 0; k < na; k++) {
      int i = act[k];
      int plen = bpg_chdr(pgs[i])->bh_plen;
      int r = cmp_leaf_body(body[i], tgs[i].t_key + plen, tgs[i].t_klen - (uint32_t)plen, &tgs[i], unique);
      if (r > 0)
        lo[i] = mid[i] + 1;
      else
        hi[i] = mid[i];
      if (lo[i] < hi[i])
        act[nna++] = i;
    }
    na = nna;
  }
  for (int k = 0; k < all; k++) {
    int i = orig[k];
    const uint8_t *pg = pgs[i];
    int plen = bpg_chdr(pg)->bh_plen;
    pos[i] = lo[i];
    if (lo[i] < bpg_n(pg))
      eq[i] = cmp_leaf_sfx(pg, lo[i], tgs[i].t_key + plen, tgs[i].t_klen - (uint32_t)plen, &tgs[i],
                           unique || !tgs[i].t_has_val) == 0;
  }
}

int bpg_search_inner(const uint8_t *pg, const bt_target_t *t, int from)
{
  int n = bpg_n(pg);
  int c = pfx_cmp(pg, t);
  if (c < 0)
    return from;
  if (c > 0)
    return n;
  int plen = bpg_chdr(pg)->bh_plen;
  const uint8_t *ts = t->t_key + plen;
  uint32_t tl = t->t_klen - (uint32_t)plen;
  int lo = from, hi = n;
  if (from > 0) {
    /* Gallop: probes at from, from + 1, from + 3, ... until one is > t. */
    for (int step = 1;; step *= 2) {
      int probe = lo + step - 1;
      if (probe >= n)
        break;
      if (cmp_sep_sfx(pg, probe, ts, tl, t) < 0) {
        hi = probe;
        break;
      }
      lo = probe + 1;
    }
  }
  /* The first separator > t: the number of separators <= t. */
  while (lo < hi) {
    int mid = (lo + hi) >> 1;
    if (cmp_sep_sfx(pg, mid, ts, tl, t) >= 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int bpg_key_copy(const uint8_t *pg, int i, uint8_t *buf)
{
  int plen = bpg_chdr(pg)->bh_plen, sl;
  const uint8_t *s = bpg_sfx(pg, i, &sl);
  memcpy(buf, bpg_prefix(pg), (size_t)plen);
  memcpy(buf + plen, s, (size_t)sl);
  return plen + sl;
}

/* ---- entries ------------------------------------------------------------- */

static inline int body_size(bool leaf, uint32_t slen, uint32_t vlen)
{
  if (leaf)
    return BT_LEAF_BODY + (int)slen + (int)vlen;
  return BT_INNER_BODY + (int)slen + (vlen == BT_NOVAL ? 0 : (int)vlen);
}

int bpg_ent_size(const uint8_t *pg, int i)
{
  const uint8_t *kv = bpg_kv(pg, i);
  return 2 + body_size(bpg_is_leaf(pg), bt_ld16(kv), bt_ld16(kv + 2));
}

int bpg_ents(const uint8_t *pg, bpg_ent_t *ents)
{
  int n = bpg_n(pg);
  for (int i = 0; i < n; i++)
    ents[i] = bpg_ent_at(pg, i);
  return n;
}

bpg_ent_t bpg_ent_make(const void *key, uint32_t klen, const void *val, uint32_t vlen, uint32_t child)
{
  bpg_ent_t e;
  e.be_pfx = key;
  e.be_plen = (uint16_t)klen;
  e.be_sfx = NULL;
  e.be_slen = 0;
  e.be_val = val;
  e.be_vlen = (uint16_t)vlen;
  e.be_child = child;
  return e;
}

/* Length of the common prefix of the keys of a and b. */
static uint32_t ent_common(const bpg_ent_t *a, const bpg_ent_t *b)
{
  uint32_t la = bpg_ent_klen(a), lb = bpg_ent_klen(b), m = la < lb ? la : lb, i = 0;
  /* Fast path: both whole keys in the first piece. */
  if (a->be_plen >= m && b->be_plen >= m) {
    while (i < m && a->be_pfx[i] == b->be_pfx[i])
      i++;
    return i;
  }
  while (i < m && bpg_ent_kbyte(a, i) == bpg_ent_kbyte(b, i))
    i++;
  return i;
}

/* Copies key bytes [from, klen) of e to dst. */
static void ent_copy_key(const bpg_ent_t *e, uint32_t from, uint8_t *dst)
{
  if (from < e->be_plen) {
    memcpy(dst, e->be_pfx + from, e->be_plen - from);
    dst += e->be_plen - from;
    from = e->be_plen;
  }
  if (e->be_slen)
    memcpy(dst, e->be_sfx + (from - e->be_plen), e->be_slen - (from - e->be_plen));
}

/* Does e's key start with the first plen bytes of pfx? */
static bool ent_has_prefix(const bpg_ent_t *e, const uint8_t *pfx, uint32_t plen)
{
  if (bpg_ent_klen(e) < plen)
    return false;
  if (plen == 0)
    return true;
  if (e->be_plen >= plen)
    return memcmp(e->be_pfx, pfx, plen) == 0;
  for (uint32_t i = 0; i < plen; i++)
    if (bpg_ent_kbyte(e, i) != pfx[i])
      return false;
  return true;
}

static uint32_t ents_prefix(const bpg_ent_t *ents, int n)
{
  return n == 0 ? 0 : ent_common(&ents[0], &ents[n - 1]);
}

int bpg_build_size(const bpg_ent_t *ents, int n, bool leaf)
{
  uint32_t p = ents_prefix(ents, n);
  int size = (int)p;
  for (int i = 0; i < n; i++)
    size += 2 + body_size(leaf, bpg_ent_klen(&ents[i]) - p, ents[i].be_vlen);
  return size;
}

/* Writes one body at off; returns its size. */
static int write_body(uint8_t *pg, int off, bool leaf, const bpg_ent_t *e, uint32_t p)
{
  uint8_t *b = pg + off;
  uint32_t sl = bpg_ent_klen(e) - p;
  if (!leaf) {
    bt_st32(b, e->be_child);
    b += 4;
  }
  bt_st16(b, (uint16_t)sl);
  bt_st16(b + 2, e->be_vlen);
  ent_copy_key(e, p, b + 4);
  if (e->be_vlen != BT_NOVAL && e->be_vlen)
    memcpy(b + 4 + sl, e->be_val, e->be_vlen);
  return body_size(leaf, sl, e->be_vlen);
}

static int ent_body_size(bool leaf, const bpg_ent_t *e, uint32_t p)
{
  return body_size(leaf, bpg_ent_klen(e) - p, e->be_vlen);
}

void bpg_build(uint8_t *pg, const bpg_ent_t *ents, int n)
{
  bt_phdr_t *h = bpg_hdr(pg);
  bool leaf = h->bh_level == 0;
  uint32_t p = ents_prefix(ents, n);
  h->bh_plen = (uint16_t)p;
  h->bh_n = (uint16_t)n;
  h->bh_frag = 0;
  for (uint32_t i = 0; i < p; i++)
    pg[BT_HDR_END + i] = bpg_ent_kbyte(&ents[0], i);
  uint8_t *slots = pg + BT_HDR_END + p;
  int upper = ST_PAGE_SIZE;
  for (int i = 0; i < n; i++) {
    upper -= ent_body_size(leaf, &ents[i], p);
    write_body(pg, upper, leaf, &ents[i], p);
    bt_st16(slots + 2 * i, (uint16_t)upper);
  }
  h->bh_upper = (uint16_t)upper;
}

void bpg_rebuild(uint8_t *pg, const bpg_ent_t *ents, int n)
{
  _Alignas(8) uint8_t scratch[ST_PAGE_SIZE];
  memcpy(scratch, pg, BT_HDR_END);
  memset(scratch + BT_HDR_END, 0, ST_PAGE_SIZE - BT_HDR_END);
  bpg_build(scratch, ents, n);
  memcpy(pg, scratch, ST_PAGE_SIZE);
}

void bpg_compact(uint8_t *pg)
{
  _Alignas(8) uint8_t scratch[ST_PAGE_SIZE];
  bpg_ent_t ents[BPG_MAX_ENTS];
  memcpy(scratch, pg, ST_PAGE_SIZE);
  int n = bpg_ents(scratch, ents);
  bpg_build(pg, ents, n);
}

int bpg_insert_need(const uint8_t *pg, const bpg_ent_t *ent)
{
  uint32_t plen = bpg_chdr(pg)->bh_plen;
  bool leaf = bpg_is_leaf(pg);
  if (ent_has_prefix(ent, bpg_prefix(pg), plen))
    return 2 + ent_body_size(leaf, ent, plen);
  /* The prefix shrinks to what the new key shares: every suffix grows. */
  uint32_t np = 0;
  while (np < plen && np < bpg_ent_klen(ent) && bpg_ent_kbyte(ent, np) == bpg_prefix(pg)[np])
    np++;
  return 2 + ent_body_size(leaf, ent, np) + (int)(plen - np) * (bpg_n(pg) - 1);
}

bool bpg_insert(uint8_t *pg, int pos, const bpg_ent_t *ent)
{
  bt_phdr_t *h = bpg_hdr(pg);
  uint32_t plen = h->bh_plen;
  bool leaf = h->bh_level == 0;

  if (h->bh_n == 0 || !ent_has_prefix(ent, bpg_prefix(pg), plen)) {
    /* Rewrite with the prefix the new entry allows. */
    _Alignas(8) uint8_t scratch[ST_PAGE_SIZE];
    bpg_ent_t ents[BPG_MAX_ENTS];
    memcpy(scratch, pg, ST_PAGE_SIZE);
    int n = bpg_ents(scratch, ents);
    memmove(&ents[pos + 1], &ents[pos], sizeof(bpg_ent_t) * (size_t)(n - pos));
    ents[pos] = *ent;
    if (bpg_build_size(ents, n + 1, leaf) > BT_AREA)
      return false;
    bpg_build(pg, ents, n + 1);
    return true;
  }
  int bs = ent_body_size(leaf, ent, plen);
  if (2 + bs > bpg_free(pg))
    return false;
  if (2 + bs > bpg_free_contig(pg))
    bpg_compact(pg);
  /* Compaction may have grown the prefix; the entry shares it only if it
   * shared the old one and the new one is no longer than that. */
  if (h->bh_plen != plen) {
    if (!ent_has_prefix(ent, bpg_prefix(pg), h->bh_plen))
      return bpg_insert(pg, pos, ent);
    plen = h->bh_plen;
    bs = ent_body_size(leaf, ent, plen);
  }
  int upper = h->bh_upper - bs;
  write_body(pg, upper, leaf, ent, plen);
  h->bh_upper = (uint16_t)upper;
  uint8_t *slots = bpg_slots(pg);
  memmove(slots + 2 * (pos + 1), slots + 2 * pos, 2 * (size_t)(h->bh_n - pos));
  bt_st16(slots + 2 * pos, (uint16_t)upper);
  h->bh_n++;
  return true;
}

void bpg_delete(uint8_t *pg, int pos)
{
  bt_phdr_t *h = bpg_hdr(pg);
  uint8_t *slots = bpg_slots(pg);
  int off = bt_ld16(slots + 2 * pos);
  int bs = bpg_ent_size(pg, pos) - 2;
  if (off == h->bh_upper)
    h->bh_upper = (uint16_t)(h->bh_upper + bs);
  else
    h->bh_frag = (uint16_t)(h->bh_frag + bs);
  memmove(slots + 2 * pos, slots + 2 * (pos + 1), 2 * (size_t)(h->bh_n - pos - 1));
  h->bh_n--;
  if (h->bh_n == 0) {
    h->bh_plen = 0;
    h->bh_upper = ST_PAGE_SIZE;
    h->bh_frag = 0;
  }
}

/* ---- split --------------------------------------------------------------- */

uint32_t bpg_sep_len(const bpg_ent_t *l, const bpg_ent_t *r)
{
  /* r > l: the first byte where they differ (or l's end) decides, so r's
   * key up to and including that byte already sorts after l. */
  uint32_t c = ent_common(l, r);
  uint32_t rl = bpg_ent_klen(r);
  return c < rl ? c + 1 : rl;
}

static uint32_t val_sep_len(const uint8_t *l, uint32_t ll, const uint8_t *r, uint32_t rl)
{
  uint32_t m = ll < rl ? ll : rl, c = 0;
  while (c < m && l[c] == r[c])
    c++;
  return c < rl ? c + 1 : rl;
}

static bool ent_keys_equal(const bpg_ent_t *a, const bpg_ent_t *b)
{
  return bpg_ent_klen(a) == bpg_ent_klen(b) && ent_common(a, b) == bpg_ent_klen(a);
}

/* The split point (at, or by bytes), moved until both sides fit. */
static int split_point(const bpg_ent_t *ents, int n, bool leaf, int at)
{
  int lo_k = leaf ? 1 : 0, hi_k = n - 1;
  int k;
  if (at != BPG_SPLIT_BYTES) {
    k = at;
  } else {
    uint32_t p = ents_prefix(ents, n);
    int total = 0, acc = 0;
    for (int i = 0; i < n; i++)
      total += ent_body_size(leaf, &ents[i], p);
    for (k = 0; k < n && acc + ent_body_size(leaf, &ents[k], p) / 2 < total / 2; k++)
      acc += ent_body_size(leaf, &ents[k], p);
  }
  k = CZ_MAX(lo_k, CZ_MIN(hi_k, k));
  int rs = leaf ? k : k + 1;
  while (k > lo_k && bpg_build_size(ents, k, leaf) > BT_AREA)
    k--, rs = leaf ? k : k + 1;
  while (k < hi_k && bpg_build_size(ents + rs, n - rs, leaf) > BT_AREA)
    k++, rs = leaf ? k : k + 1;
  return k;
}

void bpg_sep_make(const bpg_ent_t *l, const bpg_ent_t *r, bool unique,
                  uint8_t *sep, uint32_t *sep_klen, uint32_t *sep_vlen)
{
  if (!unique && ent_keys_equal(l, r)) {
    /* Duplicates straddle the split: the separator needs a value part. */
    uint32_t kl = bpg_ent_klen(r);
    uint32_t vl = val_sep_len(l->be_val, l->be_vlen, r->be_val, r->be_vlen);
    ent_copy_key(r, 0, sep);
    memcpy(sep + kl, r->be_val, vl);
    *sep_klen = kl;
    *sep_vlen = vl;
    return;
  }
  uint32_t sl = bpg_sep_len(l, r);
  for (uint32_t i = 0; i < sl; i++)
    sep[i] = bpg_ent_kbyte(r, i);
  *sep_klen = sl;
  *sep_vlen = BT_NOVAL;
}

bpg_ent_t bpg_ent_at(const uint8_t *pg, int i)
{
  bpg_ent_t e;
  const uint8_t *b = bpg_body(pg, i);
  bool leaf = bpg_is_leaf(pg);
  e.be_child = leaf ? PG_NONE : bt_ld32(b);
  if (!leaf)
    b += 4;
  e.be_pfx = bpg_prefix(pg);
  e.be_plen = bpg_chdr(pg)->bh_plen;
  e.be_slen = bt_ld16(b);
  e.be_vlen = bt_ld16(b + 2);
  e.be_sfx = b + 4;
  e.be_val = b + 4 + e.be_slen;
  return e;
}

int bpg_split(uint8_t *pg, uint8_t *right, const bpg_ent_t *ents, int n, int at, bool unique,
              uint8_t *sep, uint32_t *sep_klen, uint32_t *sep_vlen)
{
  bool leaf = bpg_is_leaf(pg);
  int k = split_point(ents, n, leaf, at);

  if (leaf) {
    bpg_sep_make(&ents[k - 1], &ents[k], unique, sep, sep_klen, sep_vlen);
    bpg_build(right, ents + k, n - k);
  } else {
    const bpg_ent_t *m = &ents[k];
    ent_copy_key(m, 0, sep);
    *sep_klen = bpg_ent_klen(m);
    *sep_vlen = m->be_vlen;
    if (m->be_vlen != BT_NOVAL)
      memcpy(sep + *sep_klen, m->be_val, m->be_vlen);
    bpg_hdr(right)->bh_leftmost = m->be_child;
    bpg_build(right, ents + k + 1, n - k - 1);
  }
  bpg_rebuild(pg, ents, k);
  return k;
}

/* btree_int.h — the B-tree's private structures and the functions shared by
 * the bt_*.c files of this module only.
 *
 * Design notes (README.md has the drawings and the numbered invariants):
 * - bpg_* functions work on one 8 KB page image and know nothing of the pool
 *   or of latches: they are unit-tested on plain byte arrays.
 * - Entries to place or compare are "targets" (bt_target_t): a key and, in a
 *   non-unique tree, a value, or the value -inf ("the first entry of key").
 *   Separators carry a key and optionally a value part (non-unique trees,
 *   when duplicates of one key straddle a split).
 * - The tree layer keeps the pages it latched in a path (bt_path_t), root
 *   first; pessimistic writers release the ancestors of a safe page.
 */
#ifndef CZ_BTREE_INT_H
#define CZ_BTREE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "btree/btree.h"

/* ---- page layout --------------------------------------------------------- */

#define BT_LAYOUT_ROW 1 /* bh_layout of a row leaf and of every inner page */
#define BT_LAYOUT_COL 2 /* bh_layout of a column tree's leaf: rows are segment entries */

/* The B-tree page header, right after pg_head_t. */
typedef struct bt_phdr_s {
  uint8_t bh_level;        /* 0 = leaf */
  uint8_t bh_layout;       /* BT_LAYOUT_ROW (leaves and inner pages) */
  uint16_t bh_n;           /* slots */
  uint16_t bh_upper;       /* start of the row bodies (they grow down from the page end) */
  uint16_t bh_plen;        /* common key prefix length; the prefix follows this header */
  uint16_t bh_frag;        /* dead bytes among the bodies, reclaimed by compaction */
  uint16_t bh_pad;
  uint32_t bh_left;        /* sibling at the same level, PG_NONE at the edge */
  uint32_t bh_right;
  uint32_t bh_tree_flags;  /* the tree's bt_create flags; meaningful on the root */
  uint32_t bh_leftmost;    /* inner: child left of the first separator */
} bt_phdr_t;

#define BT_HDR_END (PG_HEAD_SIZE + (int)sizeof(bt_phdr_t)) /* 52: prefix starts here */
#define BT_AREA (ST_PAGE_SIZE - BT_HDR_END)                 /* bytes for prefix, slots, bodies */
#define BT_NOVAL 0xFFFF   /* separator value length: no value part (-inf) */
#define BT_LEAF_BODY 4    /* u16 suffix length, u16 value length */
#define BT_INNER_BODY 8   /* u32 child, u16 suffix length, u16 value length */
/* Largest separator entry (slot + body) an inner page may have to take. */
#define BT_MAX_SEP (2 + BT_INNER_BODY + BT_MAX_ROW)
/* Most entries one page can hold (an empty leaf row is 6 bytes), plus one. */
#define BPG_MAX_ENTS (BT_AREA / 6 + 2)
/* A non-root page under this many content bytes is merged with a sibling. */
#define BT_MERGE_THRESHOLD (BT_AREA / 4)

static inline bt_phdr_t *bpg_hdr(uint8_t *pg) { return (bt_phdr_t *)(pg + PG_HEAD_SIZE); }
static inline const bt_phdr_t *bpg_chdr(const uint8_t *pg) { return (const bt_phdr_t *)(pg + PG_HEAD_SIZE); }
static inline pg_head_t *bpg_phead(uint8_t *pg) { return (pg_head_t *)pg; }

static inline uint16_t bt_ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t bt_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline void bt_st16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void bt_st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

static inline int bpg_n(const uint8_t *pg) { return bpg_chdr(pg)->bh_n; }
static inline int bpg_level(const uint8_t *pg) { return bpg_chdr(pg)->bh_level; }
static inline bool bpg_is_leaf(const uint8_t *pg) { return bpg_chdr(pg)->bh_level == 0; }
static inline const uint8_t *bpg_prefix(const uint8_t *pg) { return pg + BT_HDR_END; }
static inline uint8_t *bpg_slots(uint8_t *pg) { return pg + BT_HDR_END + bpg_chdr(pg)->bh_plen; }
static inline const uint8_t *bpg_cslots(const uint8_t *pg) { return pg + BT_HDR_END + bpg_chdr(pg)->bh_plen; }
static inline int bpg_lower(const uint8_t *pg)
{
  return BT_HDR_END + bpg_chdr(pg)->bh_plen + 2 * bpg_chdr(pg)->bh_n;
}
/* The body of slot i: inner bodies start with the child page number. */
static inline const uint8_t *bpg_body(const uint8_t *pg, int i)
{
  return pg + bt_ld16(bpg_cslots(pg) + 2 * i);
}
/* The suffix-length / value-length part of a body. */
static inline const uint8_t *bpg_kv(const uint8_t *pg, int i)
{
  const uint8_t *b = bpg_body(pg, i);
  return bpg_is_leaf(pg) ? b : b + 4;
}
static inline uint32_t bpg_child_at(const uint8_t *pg, int i) { return bt_ld32(bpg_body(pg, i)); }
/* Child number c (0 = leftmost, c = i + 1 for separator i). */
static inline pg_no_t bpg_child(const uint8_t *pg, int c)
{
  return c == 0 ? bpg_chdr(pg)->bh_leftmost : bpg_child_at(pg, c - 1);
}
static inline const uint8_t *bpg_sfx(const uint8_t *pg, int i, int *len)
{
  const uint8_t *kv = bpg_kv(pg, i);
  *len = bt_ld16(kv);
  return kv + 4;
}
/* Value of entry i; for a separator *len may be BT_NOVAL. */
static inline const uint8_t *bpg_val(const uint8_t *pg, int i, int *len)
{
  const uint8_t *kv = bpg_kv(pg, i);
  *len = bt_ld16(kv + 2);
  return kv + 4 + bt_ld16(kv);
}

/* Free bytes: contiguous between slots and bodies, and in all. */
static inline int bpg_free_contig(const uint8_t *pg) { return bpg_chdr(pg)->bh_upper - bpg_lower(pg); }
static inline int bpg_free(const uint8_t *pg) { return bpg_free_contig(pg) + bpg_chdr(pg)->bh_frag; }
static inline int bpg_used(const uint8_t *pg) { return BT_AREA - bpg_free(pg); }

/* ---- keys and targets ---------------------------------------------------- */

/* memcmp order, the shorter first on a tie. Inline, 8 bytes a step: keys
 * are short and a library call per probe is a visible share of a search. */
static inline int bt_keycmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
  size_t m = al < bl ? al : bl, i = 0;
  for (; i + 8 <= m; i += 8) {
    uint64_t x, y;
    memcpy(&x, a + i, 8);
    memcpy(&y, b + i, 8);
    if (x != y) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      x = __builtin_bswap64(x);
      y = __builtin_bswap64(y);
#endif
      return x < y ? -1 : 1;
    }
  }
  for (; i < m; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return al < bl ? -1 : al > bl;
}

/* What a search places or looks for. */
typedef struct bt_target_s {
  const uint8_t *t_key;
  uint32_t t_klen;
  const uint8_t *t_val;
  uint32_t t_vlen;
  bool t_has_val;    /* false: the value is -inf (unique trees, first entry of a key) */
  int8_t t_inf;      /* -1: before every key, +1: after every key, 0: t_key */
} bt_target_t;

/* An entry to write into a page: a key in two pieces (a page's prefix and a
 * slot's suffix, or a whole key and nothing), a value (leaf) or a separator
 * value part (be_vlen may be BT_NOVAL), and a child (inner). */
typedef struct bpg_ent_s {
  const uint8_t *be_pfx;
  const uint8_t *be_sfx;
  const uint8_t *be_val;
  uint16_t be_plen;
  uint16_t be_slen;
  uint16_t be_vlen;
  uint32_t be_child;
} bpg_ent_t;

static inline uint32_t bpg_ent_klen(const bpg_ent_t *e) { return (uint32_t)e->be_plen + e->be_slen; }
static inline uint8_t bpg_ent_kbyte(const bpg_ent_t *e, uint32_t i)
{
  return i < e->be_plen ? e->be_pfx[i] : e->be_sfx[i - e->be_plen];
}

/* bt_page.c — in-page layout */
void bpg_init(uint8_t *pg, int level, pg_no_t owner, uint32_t tree_flags);
/* Position of the first entry >= t (upper = false) or > t (upper = true);
 * leaf entries compare by key, then value when the tree is not unique.
 * *eq tells whether the entry at the result (lower bound) equals t (has
 * its key, for a key-only target). */
int bpg_search_leaf(const uint8_t *pg, const bt_target_t *t, bool unique, int from, bool upper, bool *eq);
/* bpg_search_leaf (lower bound, from 0) for n <= BPG_GROUP_MAX targets at
 * once, each in its own page (NULL: no page, pos -1), with the probes of
 * all searches interleaved so their cache misses overlap. */
#define BPG_GROUP_MAX 32
void bpg_search_leaf_many(const uint8_t *const *pgs, const bt_target_t *tgs, int n, bool unique,
                          int *pos, bool *eq);
/* Inner page: the child number to follow for t (the number of separators
 * <= t), searching from separator `from` (galloping from there when it is
 * not 0: a sorted batch's next key is usually near the last one). */
int bpg_search_inner(const uint8_t *pg, const bt_target_t *t, int from);
/* Compares t against separator i of an inner page (<0, 0, >0). */
int bpg_cmp_sep(const uint8_t *pg, int i, const bt_target_t *t);
/* Compares t against leaf entry i. */
int bpg_cmp_leaf(const uint8_t *pg, int i, const bt_target_t *t, bool unique);
/* Writes the full key of entry i into buf (BT_MAX_ROW bytes); its length. */
int bpg_key_copy(const uint8_t *pg, int i, uint8_t *buf);
/* Entry i of a page, pointing into pg. */
bpg_ent_t bpg_ent_at(const uint8_t *pg, int i);
/* The shortest separator s with l < s <= r (value part only when a
 * non-unique tree's keys of l and r are equal): key bytes then value bytes
 * into sep; *sep_vlen BT_NOVAL when there is no value part. */
void bpg_sep_make(const bpg_ent_t *l, const bpg_ent_t *r, bool unique,
                  uint8_t *sep, uint32_t *sep_klen, uint32_t *sep_vlen);
/* Entries of a page into ents (pointing into pg); returns the count. */
int bpg_ents(const uint8_t *pg, bpg_ent_t *ents);
/* The entry for a new leaf row / separator. */
bpg_ent_t bpg_ent_make(const void *key, uint32_t klen, const void *val, uint32_t vlen, uint32_t child);
/* Bytes ents[0..n) need in a page of the given kind (prefix, slots, bodies). */
int bpg_build_size(const bpg_ent_t *ents, int n, bool leaf);
/* Rewrites pg (header fields other than n, upper, plen, frag kept) with
 * ents[0..n), which must not point into pg. Caller checked the size. */
void bpg_build(uint8_t *pg, const bpg_ent_t *ents, int n);
/* Rebuilds pg from entries that may point into pg itself (through a scratch
 * page; pg's header kept, its free gap zeroed so no stray bytes reach disk). */
void bpg_rebuild(uint8_t *pg, const bpg_ent_t *ents, int n);
/* Inserts at pos; false when it does not fit (nothing changed). A key that
 * does not share the page prefix rewrites the page with a shorter prefix. */
bool bpg_insert(uint8_t *pg, int pos, const bpg_ent_t *ent);
/* Bytes the insert of ent would take from the free space. */
int bpg_insert_need(const uint8_t *pg, const bpg_ent_t *ent);
void bpg_delete(uint8_t *pg, int pos);
/* Slot + body bytes of entry i. */
int bpg_ent_size(const uint8_t *pg, int i);
/* Gathers the free space into one gap. */
void bpg_compact(uint8_t *pg);
/* Length of the shortest key that sorts after l and not after r (r > l). */
uint32_t bpg_sep_len(const bpg_ent_t *l, const bpg_ent_t *r);
/* Splits the n entries ents[] (sorted, at most one not yet in any page)
 * between pg (left) and right (an initialised empty page of the same
 * level): returns k, the first entry of the right side. Leaves: the left
 * keeps [0, k), the right [k, n). Inner: [k] moves up, right's leftmost
 * is its child and right keeps (k, n). sep gets the separator (key bytes
 * then value bytes, *sep_klen / *sep_vlen, the latter BT_NOVAL when none).
 * at: the k wanted (moved only as far as both sides need to fit), or
 * BPG_SPLIT_BYTES for the middle by bytes. */
#define BPG_SPLIT_BYTES (-1)
int bpg_split(uint8_t *pg, uint8_t *right, const bpg_ent_t *ents, int n, int at, bool unique,
              uint8_t *sep, uint32_t *sep_klen, uint32_t *sep_vlen);

/* ---- tree layer ---------------------------------------------------------- */

struct bt_tree_s {
  bpool_t *t_bp;
  pg_no_t t_root;
  uint32_t t_flags;
  bool t_unique;
  bool t_column;          /* BT_COLUMN: entry calls go to bt_col_*.c */
  struct bt_tree_s *t_seg;/* column tree: a row-layout view of the same root, through
                           * which bt_col_*.c change segment entries (C2) */
};

#define BT_MAX_HEIGHT 16

/* The latched pages of a descent, root (index 0) first. */
typedef struct bt_path_s {
  buf_t *pa_buf[BT_MAX_HEIGHT];
  int pa_child[BT_MAX_HEIGHT]; /* child number followed from this page */
  int pa_top;                  /* first index still latched */
  int pa_n;                    /* pages in the path */
} bt_path_t;

/* An upper bound copied out of a separator (key bytes, then value bytes). */
typedef struct bt_bound_s {
  bool bd_inf;       /* no bound: the rightmost page of its level */
  uint32_t bd_klen;
  uint32_t bd_vlen;  /* BT_NOVAL when the separator has no value part */
  uint8_t bd_buf[BT_MAX_ROW];
} bt_bound_t;

/* bt_search.c */
/* Is t below the bound? */
bool bt_below_bound(const bt_bound_t *b, const bt_target_t *t);
/* The bound of separator i of an inner page. */
void bt_bound_from_sep(bt_bound_t *hi, const uint8_t *pg, int i);
void bt_target_key(bt_target_t *t, const void *key, size_t klen);
void bt_target_entry(bt_target_t *t, const bt_tree_t *tree, const void *key, size_t klen,
                     const void *val, size_t vlen);
/* Descends to the leaf for t with shared latches (leaf_mode for the leaf)
 * and returns it latched and pinned; NULL with e set on an I/O error.
 * hi (may be NULL) gets the leaf's upper bound. */
buf_t *bt_descend(bt_tree_t *t, const bt_target_t *tg, bp_latch_t leaf_mode, int leaf_flags,
                  bt_bound_t *hi, err_t *e);
/* Says whether a page on a pessimistic writer's path can take the change
 * without splitting or merging (so its ancestors may be released). */
typedef bool (*bt_safe_fn_t)(const uint8_t *pg, void *ctx);
/* The pessimistic descent: exclusive latches from the root to the leaf of
 * tg (the rightmost leaf when tg is NULL), recorded in p; ancestors of a
 * page that safe() accepts are released (safe NULL: keep the whole path). */
int bt_descend_excl(bt_tree_t *t, const bt_target_t *tg, bt_safe_fn_t safe, void *ctx,
                    bt_path_t *p, err_t *e);
void bt_path_release(bt_tree_t *t, bt_path_t *p);
int bt_check_limits(size_t klen, size_t vlen, err_t *e);

/* bt_split.c */
/* Inserts ent at pos into the page at path level lv (latched exclusively
 * with its unsafe ancestors), splitting upward as needed. run: the caller
 * is in a run of sorted inserts whose next row goes right after ent in the
 * same leaf, so a leaf split keeps [0, pos] with ent on the left (the run
 * goes on filling it) instead of halving the page. */
int bt_insert_split(bt_tree_t *t, bt_path_t *p, int lv, int pos, const bpg_ent_t *ent, bool run, err_t *e);
/* Root grows one level: its contents move into a new child; the path gets
 * the child under the root. */
int bt_root_grow(bt_tree_t *t, bt_path_t *p, err_t *e);
buf_t *bt_new_page(bt_tree_t *t, int level, pg_no_t near, err_t *e);

/* bt_insert.c */
/* Pessimistic insert of one row (descends exclusively from the root);
 * run as for bt_insert_split. */
int bt_insert_pessimistic(bt_tree_t *t, const bt_target_t *tg, const bpg_ent_t *ent, bool run,
                          bool replace, void *old_val, size_t old_cap, size_t *old_len, err_t *e);

#endif /* CZ_BTREE_INT_H */

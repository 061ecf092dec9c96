/* column_int — the codec function table, the analysis every codec scores
 * from, bit packing, value blocks and compiled predicates, shared inside
 * libsrc/column.
 *
 * Design notes: a codec body is written only after analyze has said its
 * exact size, so ce_encode allocates once and checks the codec wrote
 * exactly what it announced. Hot loops (unpacking, run expansion, packed
 * comparisons) are static inline here or inside each codec file: no call
 * per value.
 */
#ifndef CZ_COLUMN_INT_H
#define CZ_COLUMN_INT_H

#include <string.h>

#include "column/column.h"

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "column: byte layouts are little-endian; add byte swaps for this host"
#endif

/* ---- little-endian loads and stores (unaligned) --------------------------- */

static inline uint16_t ce_ld16(const uint8_t *p) { uint16_t v; memcpy(&v, p, 2); return v; }
static inline uint32_t ce_ld32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t ce_ld64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
static inline void ce_st16(uint8_t *p, uint16_t v) { memcpy(p, &v, 2); }
static inline void ce_st32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void ce_st64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }

int ce_corrupt(err_t *e, const char *what);

/* ---- analysis of the values to encode ------------------------------------ */

/* Distinct values beyond this make dictionaries not applicable. */
#define CE_DICT_MAX 65536u

typedef struct ce_stats_s {
  ty_phys_t st_phys;
  uint32_t st_n, st_nnull;
  const uint8_t *st_nulls; /* the caller's null flags, one per row */
  /* Values with each NULL slot filled with the previous non-NULL value (the
   * first non-NULL one before it; 0 or "" when every row is NULL). Integer
   * kinds (I64, BOOL) are widened into st_i64. */
  int64_t *st_i64;
  double *st_f64;
  num_t *st_num;
  str_t *st_str;
  datum_t st_min, st_max;  /* over non-NULL rows (datum_cmp order) */
  uint32_t st_nruns;       /* runs of bit-identical filled values */
  /* dictionary in first-appearance order; st_ndict 0 when over CE_DICT_MAX */
  uint32_t st_ndict;
  uint32_t *st_codes;      /* per row */
  uint32_t *st_dict_row;   /* a row holding each entry */
  /* integers (filled values) */
  int64_t st_imin, st_imax;
  bool st_sorted;          /* non-decreasing */
  uint64_t st_dmin, st_dmax; /* deltas when sorted */
  uint32_t st_delta_runs;  /* runs of equal deltas (wrapping) */
  /* strings */
  uint64_t st_str_bytes;
  uint64_t st_prefix_bytes; /* prefix codec data bytes */
  uint32_t st_max_len;
} ce_stats_t;

int ce_stats_build(ce_stats_t *st, const vec_t *v, int start, int n, arena_t *scratch, err_t *e);
bool ce_phys_is_int(ty_phys_t p);

/* ---- the parsed header ---------------------------------------------------- */

typedef struct ce_hdr_s {
  int h_codec;
  ty_phys_t h_phys;
  uint32_t h_n;
  uint32_t h_nnull;
  const uint8_t *h_nulls;  /* bitmap, NULL when h_nnull == 0 */
  const uint8_t *h_body;
  size_t h_body_len;
  size_t h_total;
  const uint8_t *h_mm;     /* min/max bytes */
  size_t h_mm_len;
  uint8_t h_flags;
} ce_hdr_t;

#define CE_HF_MIN 1u
#define CE_HF_MAX 2u

size_t ce_hdr_size(const ce_stats_t *st);
/* Writes the header (and null bitmap) for st, body_len bytes of body to
 * follow; returns the bytes written. */
size_t ce_hdr_write(uint8_t *out, const ce_stats_t *st, int codec, size_t body_len);
int ce_hdr_parse(const uint8_t *buf, size_t len, ce_hdr_t *h, err_t *e);
static inline bool ce_is_null(const uint8_t *nulls, uint32_t i)
{
  return nulls && ((nulls[i >> 3] >> (i & 7)) & 1);
}

/* ---- value blocks: k values of one kind, O(1) access ---------------------- */

/* I64/F64: 8 bytes each; BOOL: 1; NUM: 16-byte value + 2-byte scale;
 * STR: u32 offsets[k+1] then the bytes. */
size_t ce_vb_size(const ce_stats_t *st, const uint32_t *rows, uint32_t k);
/* Writes the values of rows[0..k) of st (rows NULL: rows 0..k-1). */
size_t ce_vb_write(uint8_t *out, const ce_stats_t *st, const uint32_t *rows, uint32_t k);
typedef struct ce_vb_s {
  ty_phys_t vb_phys;
  uint32_t vb_k;
  const uint8_t *vb_p;       /* fixed-width values, or string offsets */
  const uint8_t *vb_bytes;   /* string bytes */
  uint32_t vb_nbytes;
  size_t vb_len;             /* bytes of the block */
} ce_vb_t;
/* Checks the block fits in len bytes (and, for strings, every offset). */
int ce_vb_open(ce_vb_t *vb, ty_phys_t phys, uint32_t k, const uint8_t *p, size_t len, err_t *e);
static inline size_t ce_vb_width(ty_phys_t p)
{
  switch (p) {
  case TP_BOOL: return 1;
  case TP_I64:
  case TP_F64: return 8;
  case TP_NUM: return 18;
  case TP_STR: return 4;
  case TP_IV: break; /* refused by ce_stats_build; headers with it are corrupt */
  }
  return 8;
}
/* A block ce_vb_open has already checked, from its start. */
static inline ce_vb_t ce_vb_make(ty_phys_t ph, uint32_t k, const uint8_t *p)
{
  ce_vb_t vb = {.vb_phys = ph, .vb_k = k, .vb_p = p};
  if (ph == TP_STR)
    vb.vb_bytes = p + 4 * ((size_t)k + 1);
  return vb;
}
/* Entry i (i < vb_k; offsets were checked by ce_vb_open). */
static inline void ce_vb_get(const ce_vb_t *vb, uint32_t i, datum_t *d)
{
  const uint8_t *p = vb->vb_p;
  d->d_null = false;
  switch (vb->vb_phys) {
  case TP_BOOL: d->d_bool = p[i] & 1; break;
  case TP_I64: d->d_i64 = (int64_t)ce_ld64(p + 8 * (size_t)i); break;
  case TP_F64: { uint64_t b = ce_ld64(p + 8 * (size_t)i); memcpy(&d->d_f64, &b, 8); break; }
  case TP_NUM: {
    const uint8_t *q = p + 18 * (size_t)i;
    unsigned __int128 v = (unsigned __int128)ce_ld64(q + 8) << 64 | ce_ld64(q);
    d->d_num.n_val = (__int128)v;
    d->d_num.n_scale = (int16_t)(ce_ld16(q + 16) % (NUM_MAX_DIGITS + 1));
    break;
  }
  case TP_STR: {
    uint32_t a = ce_ld32(p + 4 * (size_t)i), b = ce_ld32(p + 4 * (size_t)i + 4);
    d->d_str.s_ptr = (const char *)vb->vb_bytes + a;
    d->d_str.s_len = b - a;
    break;
  }
  case TP_IV: break; /* never a block's kind (ce_stats_build, ce_hdr checks) */
  }
}
/* Stores entry i at row r of v (strings point into the block). */
static inline void ce_vb_put(const ce_vb_t *vb, uint32_t i, vec_t *v, int r)
{
  datum_t d;
  ce_vb_get(vb, i, &d);
  switch (vb->vb_phys) {
  case TP_BOOL: v->v_bool[r] = d.d_bool; break;
  case TP_I64: v->v_i64[r] = d.d_i64; break;
  case TP_F64: v->v_f64[r] = d.d_f64; break;
  case TP_NUM: v->v_num[r] = d.d_num; break;
  case TP_STR: v->v_str[r] = d.d_str; break;
  case TP_IV: break;
  }
}

/* ---- bit packing ---------------------------------------------------------- */

/* Width in bits of x (0 for 0). */
static inline int ce_bits(uint64_t x) { return x ? 64 - __builtin_clzll(x) : 0; }
/* Bytes of k values packed at width w: whole 64-bit words plus one word of
 * padding, so an unpacker may always load two words. */
static inline size_t ce_pack_bytes(uint64_t k, int w)
{
  return w == 0 ? 0 : ((k * (uint64_t)w + 63) / 64 + 1) * 8;
}
void ce_pack(uint8_t *out, const uint64_t *vals, size_t k, int w);
/* Values [start, start+k) of a packed array, each plus base (wrapping). */
void ce_unpack(const uint8_t *in, uint64_t start, size_t k, int w, uint64_t base, uint64_t *out);
static inline uint64_t ce_unpack_one(const uint8_t *in, uint64_t i, int w)
{
  if (w == 0)
    return 0;
  uint64_t b = i * (uint64_t)w, wi = b >> 6;
  unsigned sh = (unsigned)(b & 63);
  uint64_t v = ce_ld64(in + 8 * wi) >> sh;
  if (sh + (unsigned)w > 64)
    v |= ce_ld64(in + 8 * wi + 8) << (64 - sh);
  return w == 64 ? v : v & ((1ull << w) - 1);
}

/* ---- compiled predicates --------------------------------------------------- */

/* Integer kinds: a sorted list of disjoint closed intervals. Other kinds:
 * the predicate itself, tested with ce_pred_test. */
typedef struct ce_cpred_s {
  const ce_pred_t *cp_pred;
  ty_phys_t cp_phys;
  bool cp_none;          /* matches no row at all */
  uint32_t cp_nint;
  const int64_t *cp_lo, *cp_hi;
  int64_t cp_lo1[2], cp_hi1[2];
} ce_cpred_t;

int ce_pred_compile(ce_cpred_t *cp, const ce_pred_t *p, ty_phys_t phys, arena_t *a, err_t *e);
bool ce_pred_test_slow(const ce_cpred_t *cp, const datum_t *d);

static inline bool ce_ipred_match(const ce_cpred_t *cp, int64_t v)
{
  if (CZ_LIKELY(cp->cp_nint == 1))
    return (uint64_t)v - (uint64_t)cp->cp_lo[0] <= (uint64_t)cp->cp_hi[0] - (uint64_t)cp->cp_lo[0];
  uint32_t lo = 0, hi = cp->cp_nint;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    if (cp->cp_hi[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < cp->cp_nint && cp->cp_lo[lo] <= v;
}

/* Values decoded at once into a stack buffer by filters and gathers that
 * work block by block (8 KB of int64: stays in L1). */
#define CE_BLK 1024u

/* The filter of an integer codec that cannot test its compressed form
 * directly: decodes c block by block with read_i64 (BOOL values masked
 * to 0/1) and tests each value; sel gets the matching row positions. */
typedef int (*ce_read_i64_fn)(ce_cursor_t *c, uint32_t n, int64_t *out, err_t *e);
int ce_filter_decoded_i64(ce_cursor_t *c, ce_read_i64_fn read_i64, const ce_cpred_t *cp,
                          uint32_t *sel, uint32_t *nout, err_t *e);

/* datum_cmp's order for strings and floats, inline for the hot loops. */
static inline int ce_cmp_fast(ty_phys_t ph, const datum_t *a, const datum_t *b)
{
  if (ph == TP_F64) {
    double x = a->d_f64, y = b->d_f64;
    if (x != x)
      return y != y ? 0 : 1;
    if (y != y)
      return -1;
    return x < y ? -1 : x > y;
  }
  uint32_t n = CZ_MIN(a->d_str.s_len, b->d_str.s_len);
  int c = n ? memcmp(a->d_str.s_ptr, b->d_str.s_ptr, n) : 0;
  if (c)
    return c < 0 ? -1 : 1;
  return a->d_str.s_len < b->d_str.s_len ? -1 : a->d_str.s_len > b->d_str.s_len;
}

/* Tests a non-NULL value (every kind; integers through the intervals). */
static inline bool ce_pred_test(const ce_cpred_t *cp, const datum_t *d)
{
  if (cp->cp_none)
    return false;
  switch (cp->cp_phys) {
  case TP_I64: return ce_ipred_match(cp, d->d_i64);
  case TP_BOOL: return ce_ipred_match(cp, d->d_bool);
  case TP_F64:
  case TP_STR: {
    const ce_pred_t *p = cp->cp_pred;
    if (p->p_op == CE_IN)
      return ce_pred_test_slow(cp, d);
    int c = ce_cmp_fast(cp->cp_phys, d, &p->p_val);
    switch (p->p_op) {
    case CE_EQ: return c == 0;
    case CE_NE: return c != 0;
    case CE_LT: return c < 0;
    case CE_LE: return c <= 0;
    case CE_GT: return c > 0;
    case CE_GE: return c >= 0;
    case CE_RANGE:
      if (c < 0 || (c == 0 && !p->p_lo_incl))
        return false;
      c = ce_cmp_fast(cp->cp_phys, d, &p->p_hi);
      return c < 0 || (c == 0 && p->p_hi_incl);
    default: return false;
    }
  }
  default: return ce_pred_test_slow(cp, d);
  }
}

/* ---- the codec function table --------------------------------------------- */

typedef struct ce_codec_s {
  const char *cc_name;
  int cc_id;
  int cc_speed;  /* decode cost rank, lower is faster: breaks size ties */
  /* Exact body bytes for these values, -1 when the codec does not apply. */
  int64_t (*cc_analyze)(const ce_stats_t *st);
  /* Writes the body (exactly cc_analyze bytes); returns bytes written. */
  size_t (*cc_encode)(const ce_stats_t *st, uint8_t *out, arena_t *scratch);
  /* Validates the body layout and sets the cursor at row 0. */
  int (*cc_open)(ce_cursor_t *c, err_t *e);
  /* Rows [c_pos, c_pos+n) into v[off..] (values only; null flags are set
   * by the caller). n rows are known to be left. */
  int (*cc_read)(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e);
  int (*cc_skip)(ce_cursor_t *c, uint32_t n, err_t *e);
  /* Values of rows sel[0..nsel) (sorted, < c_n) from a freshly opened
   * cursor; NULL: done with skip and read. */
  int (*cc_gather)(ce_cursor_t *c, const uint32_t *sel, uint32_t nsel, vec_t *v, int off, err_t *e);
  /* Value of row pos; NULL: done with skip and read. */
  int (*cc_fetch)(ce_cursor_t *c, uint32_t pos, datum_t *out, err_t *e);
  /* Rows whose (filled) value matches cp, ascending, from a freshly opened
   * cursor. NULL rows are removed by the caller. */
  int (*cc_filter)(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e);
  /* Dictionary codecs: the dictionary and the code of every row (from a
   * freshly opened cursor); NULL for others. */
  int (*cc_dict)(ce_cursor_t *c, ce_vb_t *dict, uint32_t *codes, err_t *e);
  /* Run-length codecs: rows left in the run at c_pos and its value; NULL
   * for others. */
  uint32_t (*cc_run)(ce_cursor_t *c, datum_t *val);
} ce_codec_t;

extern const ce_codec_t ce_raw_codec, ce_rle_codec, ce_delta_rle_codec, ce_dict_codec,
    ce_dict_rle_codec, ce_for_codec, ce_delta_codec, ce_prefix_codec;
const ce_codec_t *ce_codec(int id);

/* Run-end arrays (run-length codecs): checks ends[0..nr) are strictly
 * increasing and end at n; finds the first run from `from` ending after pos. */
int ce_rle_check_ends(const uint8_t *ends, uint32_t nr, uint32_t n, err_t *e);
uint32_t ce_rle_find(const uint8_t *ends, uint32_t nr, uint32_t from, uint32_t pos);

/* Integer codecs decode into int64 and share this: writes n values produced
 * by fn into v (I64 directly, BOOL through a staging block). */
typedef int (*ce_read_i64_fn)(ce_cursor_t *c, uint32_t n, int64_t *out, err_t *e);
int ce_read_ints(ce_cursor_t *c, uint32_t n, vec_t *v, int off, ce_read_i64_fn fn, err_t *e);
/* Generic filter through the codec's read: decode blocks, test each. */
int ce_filter_by_read(ce_cursor_t *c, const ce_cpred_t *cp, uint32_t *sel, uint32_t *nout, err_t *e);
/* Copies a rebuilt string into the cursor's arena chunk. */
const char *ce_cursor_keep(ce_cursor_t *c, const char *s, uint32_t len);

#endif /* CZ_COLUMN_INT_H */

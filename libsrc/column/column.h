/* column — compression codecs for column segments: values of one column
 * (a vec_t range) in, a self-describing little-endian byte string out, and
 * back into vectors, selections, single values or predicate results.
 *
 * Design notes (column/README.md has the byte layouts and invariants):
 * - One codec per file behind one function table (ce_codec_t in
 *   column_int.h): analyze (exact body bytes or "not applicable"), encode,
 *   a cursor (open, read n, skip n), gather a selection, fetch one value and
 *   filter (a predicate evaluated on the compressed form).
 * - Codecs know bytes and vectors, nothing of trees or queries; this module
 *   includes only util and types.
 * - Every function reading an encoded segment validates the header and each
 *   length against the buffer it is given and fails with XX001 (data
 *   corrupted) instead of reading out of bounds.
 * - NULL rows keep their position: a null bitmap follows the header and the
 *   codec body holds a filler value (the previous non-NULL value) in each
 *   NULL slot, so positions map one to one onto codec slots.
 * - Decoded strings of raw, run-length and dictionary segments point into
 *   the encoded buffer (no copy): the buffer must outlive the vector.
 *   Prefix-coded strings are rebuilt in the arena given to the call.
 */
#ifndef CZ_COLUMN_H
#define CZ_COLUMN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/types.h"
#include "util/util.h"

/* Codec ids: stored in every segment header, so never renumber. */
typedef enum ce_id_e {
  CE_RAW = 0,        /* values as they are */
  CE_RLE = 1,        /* run-length: run ends + run values */
  CE_DELTA_RLE = 2,  /* integers: first value + runs of equal deltas */
  CE_DICT = 3,       /* dictionary + bit-packed codes */
  CE_DICT_RLE = 4,   /* dictionary + run-length codes */
  CE_FOR = 5,        /* integers: bit-packed offsets from a frame of reference */
  CE_DELTA = 6,      /* sorted integers: bit-packed deltas */
  CE_PREFIX = 7,     /* strings: front coding with restart points */
  CE_COUNT_
} ce_id_t;

#define CE_AUTO (-1)
#define CE_FORMAT_VERSION 1
#define CE_HEADER_MAGIC 0xCE

const char *ce_name(int id);
/* The id for a codec name ("raw", "rle", "delta_rle", "dict", "dict_rle",
 * "for", "delta", "prefix"), or -1. */
int ce_id_by_name(const char *name);

/* Test switch: encodes use codec id whenever it applies to the values
 * (falling back to the chooser otherwise). CE_AUTO restores the chooser.
 * Without a call, the environment variable CZ_FORCE_CODEC=<name> is read
 * once, on the first encode. */
void ce_force_codec(int id);
int ce_forced_codec(void);

/* ---- encoding ------------------------------------------------------------ */

/* Exact encoded sizes (header included) of v[start, start+n) for every
 * codec, -1 where a codec does not apply. scratch holds temporaries. */
int ce_analyze(const vec_t *v, int start, int n, arena_t *scratch,
               int64_t sizes[CE_COUNT_], err_t *e);
/* Encodes v[start, start+n) with codec want (CE_AUTO: the smallest, ties
 * to the faster decode; a forced codec when one is set and applies). The
 * result is allocated in out_arena; temporaries go to scratch (reset it
 * after). n is at most CE_MAX_ROWS. */
#define CE_MAX_ROWS (1u << 30)
int ce_encode(const vec_t *v, int start, int n, int want, arena_t *out_arena,
              arena_t *scratch, uint8_t **out, size_t *out_len, err_t *e);

/* ---- segment information and skipping ---------------------------------- */

typedef struct ce_info_s {
  int ci_codec;
  ty_phys_t ci_phys;
  uint32_t ci_n;          /* rows */
  uint32_t ci_nnull;      /* NULL rows */
  bool ci_has_min;        /* false when every row is NULL */
  bool ci_has_max;        /* false also when a string max was too long to keep */
  datum_t ci_min, ci_max; /* over non-NULL rows; strings point into the buffer */
  size_t ci_len;          /* bytes the segment occupies in the buffer */
} ce_info_t;

int ce_info(const uint8_t *buf, size_t len, ce_info_t *out, err_t *e);

/* ---- predicates ---------------------------------------------------------- */

typedef enum ce_op_e {
  CE_EQ, CE_NE, CE_LT, CE_LE, CE_GT, CE_GE,
  CE_RANGE,     /* p_lo .. p_hi, each end inclusive or not */
  CE_IN,        /* p_in[0 .. p_nin) */
  CE_IS_NULL,
  CE_NOT_NULL
} ce_op_t;

/* A predicate on one column against constants of the column's physical
 * kind, with SQL semantics: a NULL row never matches a comparison, a NULL
 * constant matches nothing, NULL members of an IN list are ignored. Values
 * order as datum_cmp orders them (NaN above every float, -0 = 0, NUMERIC by
 * value, strings bytewise). */
typedef struct ce_pred_s {
  ce_op_t p_op;
  datum_t p_val;        /* comparisons; the low end of CE_RANGE */
  datum_t p_hi;         /* the high end of CE_RANGE */
  bool p_lo_incl, p_hi_incl;
  const datum_t *p_in;
  int p_nin;
} ce_pred_t;

/* Whether one value of kind phys (d->d_null for NULL) matches p, with
 * ce_filter's semantics: for a reader that holds a row outside any
 * segment (a committed pre-image replacing a segment's row). */
bool ce_pred_match(const ce_pred_t *p, ty_phys_t phys, const datum_t *d);

/* False when the segment's min/max (or NULL count) prove no row matches. */
bool ce_may_match(const ce_info_t *info, const ce_pred_t *p);

/* Rows of the segment matching p, in ascending order, into sel_out (room
 * for every row of the segment, or for nsel_in rows when sel_in is given).
 * sel_in (sorted, may be NULL for all rows) restricts the result. */
int ce_filter(const uint8_t *buf, size_t len, const ce_pred_t *p,
              const uint32_t *sel_in, uint32_t nsel_in, uint32_t *sel_out,
              uint32_t *nout, arena_t *scratch, err_t *e);

/* ---- decoding ------------------------------------------------------------ */

/* All rows into v[off, off+n) (v must have room). */
int ce_decode(const uint8_t *buf, size_t len, vec_t *v, int off, arena_t *a, err_t *e);
/* Rows sel[0 .. nsel) (sorted ascending, no duplicates) densely into
 * v[off, off+nsel). */
int ce_decode_sel(const uint8_t *buf, size_t len, const uint32_t *sel, uint32_t nsel,
                  vec_t *v, int off, arena_t *a, err_t *e);
/* Row pos as a datum. */
int ce_fetch(const uint8_t *buf, size_t len, uint32_t pos, datum_t *out, arena_t *a, err_t *e);

/* Compressed forms, so that a caller need not expand runs or dictionaries:
 * ce_decode_const sets *is_const when every row holds one value (or every
 * row is NULL) and stores it in *val; ce_decode_dict returns, for dictionary
 * segments, the dictionary as a vector (allocated in a) and one code per row
 * (UINT32_MAX for NULL rows); *avail is false for other codecs. */
int ce_decode_const(const uint8_t *buf, size_t len, bool *is_const, datum_t *val,
                    arena_t *a, err_t *e);
int ce_decode_dict(const uint8_t *buf, size_t len, bool *avail, vec_t *dict,
                   uint32_t **codes, arena_t *a, err_t *e);

/* A decode cursor, for readers that take a segment in pieces. Fields are
 * the codecs' business; callers allocate it and use the functions. */
typedef struct ce_cursor_s {
  const struct ce_codec_s *c_codec;
  const uint8_t *c_buf;     /* the whole segment */
  uint32_t c_n;             /* rows */
  ty_phys_t c_phys;
  const uint8_t *c_nulls;   /* null bitmap, NULL when no row is NULL */
  const uint8_t *c_body;    /* codec body */
  size_t c_body_len;
  arena_t *c_arena;         /* rebuilt strings, scratch */
  uint32_t c_pos;           /* next row */
  /* codec state, set by the codec's open */
  const uint8_t *c_p[3];
  uint64_t c_u[6];
  int64_t c_acc;            /* running value of delta codecs */
  uint32_t c_run;           /* current run index */
  uint32_t c_run_end;       /* row after the current run */
  size_t c_off;             /* byte offset of the next value (prefix) */
  char *c_scratch;          /* previous string (prefix) */
  uint32_t c_scratch_len;
  char *c_chunk;            /* arena chunk for rebuilt strings */
  size_t c_chunk_left;
  bool c_const;             /* every slot holds one value (set by open) */
} ce_cursor_t;

int ce_cursor_open(ce_cursor_t *c, const uint8_t *buf, size_t len, arena_t *a, err_t *e);
/* The next n rows into v[off, off+n); fewer rows than n left is XX001. */
int ce_cursor_read(ce_cursor_t *c, uint32_t n, vec_t *v, int off, err_t *e);
/* Moves the cursor n rows forward (cheaply: run-length codecs jump runs). */
int ce_cursor_skip(ce_cursor_t *c, uint32_t n, err_t *e);
/* Rows left in the current run when the codec is run-length coded and the
 * cursor stands inside a run (value in *val, NULL rows aside: the caller
 * checks the null flags it reads), else 0. */
uint32_t ce_cursor_run(ce_cursor_t *c, datum_t *val);

#endif /* CZ_COLUMN_H */

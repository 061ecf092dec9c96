/* cat_stats — table statistics for the optimizer, kept current as rows are
 * written: the committed row count, and per column a distinct-value
 * sketch with the NULLs and bytes written.
 *
 * Design notes (catalog/README.md, "Statistics"):
 * - One cat_stats_t per table, hung off the per-table runtime (ct_rt) so
 *   every snapshot shares it; made at first use, freed at cat_close.
 * - Row counts are transactional: a writer's cat_stats_count adds to a
 *   per-(transaction, table) delta kept in the transaction's arena, which
 *   its commit adds to st_rows and its rollback drops (txn_on_end). A
 *   rollback to a savepoint undoes an unknown part of the delta, so it
 *   marks the delta uncertain and the commit then asks for a recount:
 *   the next reader takes the count from the primary tree (bt_estimate,
 *   a few descents). The deltas of a table are found under st_mx, once
 *   per write call (a batch, not a row).
 * - Column sketches see every value written (inserts and the new values
 *   of updates), committed or not, as it is written: a HyperLogLog per
 *   column (util/hll.c) and counts of values, NULLs and bytes. Deletes
 *   and rolled-back writes are not taken out: null_frac and avg_width are
 *   fractions of the values written (deletes assumed to fall evenly), and
 *   the distinct estimate is capped by the current non-NULL rows. When a
 *   table's committed count reaches 0 its sketches start again.
 * - A sketch describes the table only if it saw every row: true for a
 *   table created while the server runs (rt_born_open), after ANALYZE,
 *   and for sketches loaded from the statistics file that were. Other
 *   tables answer "distinct values unknown" (the planner samples) until
 *   ANALYZE.
 * - The write path costs one hash and one sketch probe per value (a
 *   relaxed load; a compare-and-swap only when a register grows) and,
 *   per batch, one atomic add per counter and column.
 * - Persistence: cat_stats_save writes every table of the committed
 *   snapshot to a file (temporary name, fsync, rename) from the
 *   checkpoint hook, when no transaction is active, so the counts are
 *   those of the checkpoint image. After a crash the log replays changes
 *   the file does not know: row counts are then re-taken from the trees,
 *   the sketches kept (they only miss the replayed values).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "catalog/cat_int.h"

#define CS_MAGIC "CZSTATS1"

typedef struct cat_colsk_s {
  hll_t sk_hll;
  _Atomic int64_t sk_seen;      /* values written (NULLs too) since the sketch began */
  _Atomic int64_t sk_nulls;
  _Atomic int64_t sk_bytes;     /* bytes of the non-NULL values */
} cat_colsk_t;

typedef struct cat_stx_s cat_stx_t;

typedef struct cat_stats_s {
  int st_ncols;
  _Atomic int64_t st_rows;      /* committed rows */
  _Atomic bool st_recount;      /* st_rows to be taken from the primary tree */
  _Atomic bool st_complete;     /* the sketches saw every row of the table */
  _Atomic bool st_analyzed;
  cz_mutex_t st_mx;             /* st_open */
  cat_stx_t *st_open;           /* deltas of transactions not ended */
  cat_colsk_t *st_cols;
} cat_stats_t;

/* One transaction's row delta for one table (in its arena). */
struct cat_stx_s {
  cat_stx_t *sx_next;           /* in st_open */
  cat_stats_t *sx_st;
  const txn_t *sx_tx;
  int64_t sx_delta;
  bool sx_uncertain;            /* a rollback to a savepoint undid part of it */
};

static cat_stats_t *stats_new(int ncols, bool complete)
{
  cat_stats_t *st = calloc(1, sizeof *st);
  cat_colsk_t *cols = calloc((size_t)(ncols > 0 ? ncols : 1), sizeof *cols);
  if (!st || !cols)
    abort(); /* as arena_alloc: out of memory is fatal */
  st->st_ncols = ncols;
  st->st_cols = cols;
  for (int c = 0; c < ncols; c++)
    hll_clear(&cols[c].sk_hll);
  atomic_store(&st->st_complete, complete);
  /* a table that existed before statistics: its count comes from its tree */
  atomic_store(&st->st_recount, !complete);
  mutex_init(&st->st_mx);
  return st;
}

static cat_stats_t *stats_of(const cat_table_t *t)
{
  cat_table_rt_t *rt = t->ct_rt;
  cat_stats_t *st = atomic_load(&rt->rt_stats);
  if (st)
    return st;
  mutex_lock(&rt->rt_mx);
  st = atomic_load(&rt->rt_stats);
  if (!st) {
    st = stats_new(t->ct_ncols, rt->rt_born_open);
    atomic_store(&rt->rt_stats, st);
  }
  mutex_unlock(&rt->rt_mx);
  return st;
}

static void stats_free(cat_stats_t *st)
{
  if (!st)
    return;
  mutex_destroy(&st->st_mx);
  free(st->st_cols);
  free(st);
}

/* Starts the sketches again (the table is empty). */
static void stats_reset_columns(cat_stats_t *st)
{
  for (int c = 0; c < st->st_ncols; c++) {
    cat_colsk_t *k = &st->st_cols[c];
    hll_clear(&k->sk_hll);
    atomic_store(&k->sk_seen, 0);
    atomic_store(&k->sk_nulls, 0);
    atomic_store(&k->sk_bytes, 0);
  }
  atomic_store(&st->st_complete, true);
}

/* ---- the write path ------------------------------------------------------ */

/* Bytes a value of a fixed-width type takes as PostgreSQL counts them
 * (pg_stats.avg_width: int4 4, not the 8 of its vector slot); strings
 * count their length. */
static int64_t fixed_width(ty_t t)
{
  switch (t.t_id) {
  case TY_BOOL:
    return 1;
  case TY_INT2:
    return 2;
  case TY_INT4:
  case TY_DATE:
  case TY_FLOAT4:
    return 4;
  default:
    return (int64_t)ty_phys_size(ty_phys(t.t_id));
  }
}

static inline void note_value(cat_colsk_t *k, ty_t t, const datum_t *d, int64_t *nulls,
                              int64_t *bytes)
{
  if (d->d_null) {
    (*nulls)++;
    return;
  }
  ty_phys_t p = ty_phys(t.t_id);
  hll_add(&k->sk_hll, datum_hash(p, d));
  *bytes += p == TP_STR ? (int64_t)d->d_str.s_len : fixed_width(t);
}

/* The values of rows sel[0..n) of v into k's sketch; the same hashes as
 * datum_hash (so ANALYZE, batches and single rows agree), read straight
 * from the vector for the common kinds. */
static void sketch_vec(cat_colsk_t *k, const vec_t *v, const int *sel, int n, int64_t *nulls,
                       int64_t *bytes)
{
  ty_phys_t p = ty_phys(v->v_type.t_id);
  int64_t width = fixed_width(v->v_type);
  for (int i = 0; i < n; i++) {
    int r = sel ? sel[i] : i;
    if (v->v_null[r]) {
      (*nulls)++;
      continue;
    }
    uint64_t h;
    if (p == TP_I64) {
      h = hash64_int((uint64_t)v->v_i64[r]);
      *bytes += width;
    } else if (p == TP_STR) {
      h = hash64(v->v_str[r].s_ptr, v->v_str[r].s_len, 0);
      *bytes += (int64_t)v->v_str[r].s_len;
    } else {
      datum_t d;
      vec_get(v, r, &d);
      h = datum_hash(p, &d);
      *bytes += width;
    }
    hll_add(&k->sk_hll, h);
  }
}

void cat_stats_note_batch(const cat_table_t *t, const batch_t *b, const int *sel, int n,
                          const bool *cols)
{
  if (n <= 0)
    return;
  cat_stats_t *st = stats_of(t);
  int nc = CZ_MIN(st->st_ncols, b->b_ncols);
  for (int c = 0; c < nc; c++) {
    if (cols && !cols[c])
      continue;
    cat_colsk_t *k = &st->st_cols[c];
    int64_t nulls = 0, bytes = 0;
    sketch_vec(k, &b->b_cols[c], sel, n, &nulls, &bytes);
    atomic_fetch_add_explicit(&k->sk_seen, n, memory_order_relaxed);
    if (nulls)
      atomic_fetch_add_explicit(&k->sk_nulls, nulls, memory_order_relaxed);
    atomic_fetch_add_explicit(&k->sk_bytes, bytes, memory_order_relaxed);
  }
}

void cat_stats_note_row(const cat_table_t *t, const datum_t *vals, const bool *cols)
{
  cat_stats_t *st = stats_of(t);
  int nc = CZ_MIN(st->st_ncols, t->ct_ncols);
  for (int c = 0; c < nc; c++) {
    if (cols && !cols[c])
      continue;
    cat_colsk_t *k = &st->st_cols[c];
    int64_t nulls = 0, bytes = 0;
    note_value(k, t->ct_types[c], &vals[c], &nulls, &bytes);
    atomic_fetch_add_explicit(&k->sk_seen, 1, memory_order_relaxed);
    if (nulls)
      atomic_fetch_add_explicit(&k->sk_nulls, 1, memory_order_relaxed);
    else
      atomic_fetch_add_explicit(&k->sk_bytes, bytes, memory_order_relaxed);
  }
}

static void stx_end(void *ctx, txn_t *tx, bool committed)
{
  (void)tx;
  cat_stx_t *sx = ctx;
  cat_stats_t *st = sx->sx_st;
  mutex_lock(&st->st_mx);
  for (cat_stx_t **pp = &st->st_open; *pp; pp = &(*pp)->sx_next)
    if (*pp == sx) {
      *pp = sx->sx_next;
      break;
    }
  if (committed) {
    int64_t rows = atomic_fetch_add(&st->st_rows, sx->sx_delta) + sx->sx_delta;
    if (rows < 0)
      atomic_store(&st->st_rows, rows = 0);
    if (sx->sx_uncertain)
      atomic_store(&st->st_recount, true);
    else if (rows == 0 && sx->sx_delta < 0 && !st->st_open)
      stats_reset_columns(st);
  }
  mutex_unlock(&st->st_mx);
}

static int stx_rollback_to(void *ctx, txn_t *tx, err_t *e)
{
  (void)tx, (void)e;
  cat_stx_t *sx = ctx;
  mutex_lock(&sx->sx_st->st_mx);
  sx->sx_uncertain = true;
  mutex_unlock(&sx->sx_st->st_mx);
  return CZ_OK;
}

void cat_stats_count(txn_t *tx, const cat_table_t *t, int64_t delta)
{
  if (delta == 0)
    return;
  cat_stats_t *st = stats_of(t);
  if (!tx) {  /* no transaction (tools, tests): counted at once */
    atomic_fetch_add(&st->st_rows, delta);
    return;
  }
  mutex_lock(&st->st_mx);
  cat_stx_t *sx = st->st_open;
  while (sx && sx->sx_tx != tx)
    sx = sx->sx_next;
  if (!sx) {
    sx = arena_zalloc(txn_arena(tx), sizeof *sx);
    sx->sx_st = st;
    sx->sx_tx = tx;
    sx->sx_next = st->st_open;
    st->st_open = sx;
    txn_on_end(tx, stx_end, sx);
    txn_on_rollback_to(tx, stx_rollback_to, sx);
  }
  sx->sx_delta += delta;
  mutex_unlock(&st->st_mx);
}

/* ---- reading ----------------------------------------------------------- */

static double stats_rows(const cat_table_t *t, cat_stats_t *st)
{
  if (atomic_exchange(&st->st_recount, false)) {
    double n = 0;
    err_t e;
    err_clear(&e);
    bt_tree_t *tree = t->ct_indexes[0]->ci_tree;
    if (tree && bt_estimate(tree, NULL, 0, NULL, 0, &n, &e) == CZ_OK)
      atomic_store(&st->st_rows, (int64_t)llround(n));
    else
      atomic_store(&st->st_recount, true);  /* try again next time */
  }
  return (double)atomic_load(&st->st_rows);
}

void cat_stats_get(const cat_table_t *t, arena_t *a, cat_tabstats_t *out)
{
  cat_stats_t *st = stats_of(t);
  memset(out, 0, sizeof *out);
  out->ts_rows = stats_rows(t, st);
  out->ts_analyzed = atomic_load(&st->st_analyzed);
  out->ts_ncols = t->ct_ncols;
  out->ts_cols = arena_alloc(a, sizeof(cat_colstats_t) * (size_t)(t->ct_ncols + 1));
  bool complete = atomic_load(&st->st_complete);
  for (int c = 0; c < t->ct_ncols; c++) {
    cat_colstats_t *cs = &out->ts_cols[c];
    cs->cs_ndv = cs->cs_null_frac = cs->cs_avg_width = -1;
    if (c >= st->st_ncols)
      continue;
    cat_colsk_t *k = &st->st_cols[c];
    int64_t seen = atomic_load(&k->sk_seen), nulls = atomic_load(&k->sk_nulls);
    int64_t bytes = atomic_load(&k->sk_bytes);
    if (c == 0)
      out->ts_written = seen;
    if (seen <= 0)
      continue;
    cs->cs_null_frac = (double)nulls / (double)seen;
    if (seen > nulls)
      cs->cs_avg_width = (double)bytes / (double)(seen - nulls);
    if (complete) {
      double nonnull = out->ts_rows * (1 - cs->cs_null_frac);
      double ndv = round(hll_estimate(&k->sk_hll));
      cs->cs_ndv = CZ_MIN(ndv, CZ_MAX(nonnull, seen > nulls ? 1.0 : 0.0));
    }
  }
}

/* ---- ANALYZE ------------------------------------------------------------- */

struct cat_stats_build_s {
  int sb_ncols;
  const ty_t *sb_types;
  cat_colsk_t *sb_cols;
};

cat_stats_build_t *cat_stats_build_begin(const cat_table_t *t)
{
  cat_stats_build_t *sb = calloc(1, sizeof *sb);
  cat_colsk_t *cols = calloc((size_t)(t->ct_ncols > 0 ? t->ct_ncols : 1), sizeof *cols);
  if (!sb || !cols)
    abort();
  sb->sb_ncols = t->ct_ncols;
  sb->sb_types = t->ct_types;
  sb->sb_cols = cols;
  for (int c = 0; c < t->ct_ncols; c++)
    hll_clear(&cols[c].sk_hll);
  return sb;
}

void cat_stats_build_rows(cat_stats_build_t *sb, const batch_t *b, const int *sel, int n)
{
  int nc = CZ_MIN(sb->sb_ncols, b->b_ncols);
  for (int c = 0; c < nc; c++) {
    cat_colsk_t *k = &sb->sb_cols[c];
    int64_t nulls = 0, bytes = 0;
    sketch_vec(k, &b->b_cols[c], sel, n, &nulls, &bytes);
    k->sk_seen += n;
    k->sk_nulls += nulls;
    k->sk_bytes += bytes;
  }
}

void cat_stats_build_abort(cat_stats_build_t *sb)
{
  if (!sb)
    return;
  free(sb->sb_cols);
  free(sb);
}

/* Writers may add to the sketches while they are replaced: a value lost
 * that way is one a sample or the next ANALYZE makes up for. */
void cat_stats_build_end(const cat_table_t *t, cat_stats_build_t *sb, int64_t rows)
{
  cat_stats_t *st = stats_of(t);
  int nc = CZ_MIN(st->st_ncols, sb->sb_ncols);
  for (int c = 0; c < nc; c++) {
    cat_colsk_t *k = &st->st_cols[c], *f = &sb->sb_cols[c];
    uint8_t regs[HLL_REGS];
    hll_save(&f->sk_hll, regs);
    hll_load(&k->sk_hll, regs);
    atomic_store(&k->sk_seen, f->sk_seen);
    atomic_store(&k->sk_nulls, f->sk_nulls);
    atomic_store(&k->sk_bytes, f->sk_bytes);
  }
  atomic_store(&st->st_rows, rows);
  atomic_store(&st->st_recount, false);
  atomic_store(&st->st_complete, true);
  atomic_store(&st->st_analyzed, true);
  cat_stats_build_abort(sb);
}

/* ---- persistence ------------------------------------------------------- */

/* File: CS_MAGIC, then per table: u32 oid, u32 ncols, i64 rows, u8 flags
 * (1 complete, 2 analyzed), and per column i64 seen, nulls, bytes and the
 * HLL_REGS registers; host byte order (the file never leaves the machine
 * that wrote it; a file it cannot read is ignored with a warning). */
static bool w_all(FILE *f, const void *p, size_t n)
{
  return fwrite(p, 1, n, f) == n;
}

static void cat_stats_save(cat_t *c)
{
  if (!c->c_stats_path)
    return;
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s.tmp", c->c_stats_path);
  FILE *f = fopen(tmp, "wb");
  if (!f) {
    log_warn("statistics not saved: cannot write %s", tmp);
    return;
  }
  cat_snapshot_t *snap = cat_snapshot(c);
  bool ok = w_all(f, CS_MAGIC, 8);
  for (int i = 0; ok && i < snap->cs_ntables; i++) {
    const cat_table_t *t = snap->cs_tables[i];
    cat_stats_t *st = atomic_load(&t->ct_rt->rt_stats);
    if (!st)
      continue;
    uint32_t hdr[2] = {t->ct_oid, (uint32_t)st->st_ncols};
    int64_t rows = stats_rows(t, st);
    uint8_t flags = (atomic_load(&st->st_complete) ? 1 : 0) | (atomic_load(&st->st_analyzed) ? 2 : 0);
    ok = w_all(f, hdr, sizeof hdr) && w_all(f, &rows, sizeof rows) && w_all(f, &flags, 1);
    for (int col = 0; ok && col < st->st_ncols; col++) {
      cat_colsk_t *k = &st->st_cols[col];
      int64_t v[3] = {atomic_load(&k->sk_seen), atomic_load(&k->sk_nulls),
                      atomic_load(&k->sk_bytes)};
      uint8_t regs[HLL_REGS];
      hll_save(&k->sk_hll, regs);
      ok = w_all(f, v, sizeof v) && w_all(f, regs, sizeof regs);
    }
  }
  cat_snapshot_release(snap);
  ok = ok && fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, c->c_stats_path) != 0) {
    log_warn("statistics not saved to %s", c->c_stats_path);
    unlink(tmp);
  }
}

static void cat_stats_on_checkpoint(void *ctx)
{
  cat_stats_save(ctx);
}

static bool r_all(FILE *f, void *p, size_t n)
{
  return fread(p, 1, n, f) == n;
}

static void cat_stats_load(cat_t *c, FILE *f)
{
  char magic[8];
  if (!r_all(f, magic, 8) || memcmp(magic, CS_MAGIC, 8) != 0) {
    log_warn("statistics file %s not recognised: ignored", c->c_stats_path);
    return;
  }
  for (;;) {
    uint32_t hdr[2];
    int64_t rows;
    uint8_t flags;
    if (!r_all(f, hdr, sizeof hdr))
      return;  /* the end */
    if (!r_all(f, &rows, sizeof rows) || !r_all(f, &flags, 1) || hdr[1] > 100000)
      break;
    const cat_table_t *t = cat_table_by_oid(c->c_cur, hdr[0]);
    bool fits = t && t->ct_ncols == (int)hdr[1];
    cat_stats_t *st = fits ? stats_of(t) : NULL;
    for (uint32_t col = 0; col < hdr[1]; col++) {
      int64_t v[3];
      uint8_t regs[HLL_REGS];
      if (!r_all(f, v, sizeof v) || !r_all(f, regs, sizeof regs))
        goto bad;
      if (!st)
        continue;
      cat_colsk_t *k = &st->st_cols[col];
      atomic_store(&k->sk_seen, v[0]);
      atomic_store(&k->sk_nulls, v[1]);
      atomic_store(&k->sk_bytes, v[2]);
      hll_load(&k->sk_hll, regs);
    }
    if (st) {
      atomic_store(&st->st_rows, rows < 0 ? 0 : rows);
      atomic_store(&st->st_recount, false);
      atomic_store(&st->st_complete, (flags & 1) != 0);
      atomic_store(&st->st_analyzed, (flags & 2) != 0);
    }
  }
bad:
  log_warn("statistics file %s is cut short: the rest is ignored", c->c_stats_path);
}

int cat_stats_attach(cat_t *c, const char *path, bool recovered, err_t *e)
{
  free(c->c_stats_path);
  c->c_stats_path = strdup(path);
  if (!c->c_stats_path)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  FILE *f = fopen(path, "rb");
  if (f) {
    cat_stats_load(c, f);
    fclose(f);
  }
  if (recovered) {
    for (int i = 0; i < c->c_cur->cs_ntables; i++) {
      cat_stats_t *st = stats_of(c->c_cur->cs_tables[i]);
      atomic_store(&st->st_recount, true);
    }
  }
  /* written now, so that it exists to be kept from SQL's file functions
   * (COPY): by its path, which stays when a save renames a new file in */
  cat_stats_save(c);
  fg_protect_name(path, "the optimizer's statistics file");
  db_on_checkpoint(c->c_db, cat_stats_on_checkpoint, c);
  return CZ_OK;
}

void cat_stats_close(cat_t *c)
{
  if (c->c_stats_path) {
    db_on_checkpoint(c->c_db, NULL, NULL);
    if (c->c_cur)
      cat_stats_save(c);
    fg_release_name(c->c_stats_path);
    free(c->c_stats_path);
    c->c_stats_path = NULL;
  }
  for (cat_table_rt_t *rt = c->c_rts; rt; rt = rt->rt_next) {
    stats_free(atomic_load(&rt->rt_stats));
    atomic_store(&rt->rt_stats, NULL);
  }
}

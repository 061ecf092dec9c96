/* cat_sequence — sequences: their definitions (transactional catalog
 * objects like tables) and their values (not transactional, crash-safe,
 * taken without a global lock).
 *
 * Design notes (catalog/README.md, "Sequences"):
 * - The definition is a record of sys.sequences, written through the DDL
 *   transaction and loaded into every snapshot (cat_sequence_t, in the
 *   relation name index beside tables and indexes).
 * - The value is a record of sys.seqvals: (v, called) — every value up to
 *   v (v itself when called) may have been handed out. It is written
 *   AHEAD: before a value beyond what the record covers is handed out,
 *   the record is moved at least CAT_SEQ_LOG_VALS (or CACHE) values
 *   forward and that write is committed (durable) first, in a short
 *   transaction of its own — PostgreSQL's SEQ_LOG_VALS. So after a crash
 *   the sequence resumes past every value that was handed out, and at
 *   most one log write happens per CAT_SEQ_LOG_VALS values.
 * - That short transaction is begun with TXN_NESTED when the caller has a
 *   transaction (a checkpoint waiting for the caller's transaction must
 *   not make it wait); a caller without one (a SELECT outside a block)
 *   begins it BEFORE taking sr_mx, since txn_begin may wait for a
 *   checkpoint, which may wait for a transaction that waits for sr_mx. CREATE SEQUENCE writes the first record the same
 *   way, not through the DDL transaction, so no transaction holds the
 *   record while nextval writes it (only DROP's delete does, and then the
 *   sequence is gone for everyone when it commits).
 * - In memory (cat_seq_rt_t, one per OID for the catalog's life) sr_mx
 *   guards the last value handed out and how many more the log covers;
 *   it is held across the log write (once per range), never across
 *   anything else. A session with CACHE > 1 takes CACHE values at once and
 *   hands them out from its own cat_seq_session_t without any lock.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/cat_int.h"

/* ---- records ------------------------------------------------------------- */

static void w_i64(cat_wbuf_t *w, int64_t v)
{
  cat_w_u32(w, (uint32_t)((uint64_t)v >> 32));
  cat_w_u32(w, (uint32_t)(uint64_t)v);
}

static int64_t r_i64(cat_rbuf_t *r)
{
  uint64_t hi = cat_r_u32(r);
  return (int64_t)(hi << 32 | cat_r_u32(r));
}

int cat_seq_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                   cat_sequence_t **out, err_t *e)
{
  if (kl != 4)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed sequence record in the catalog");
  cat_sequence_t *sq = arena_zalloc(a, sizeof *sq);
  cat_rbuf_t r = {v, vl, 0, false};
  sq->sq_oid = cat_key_get(k, 0);
  sq->sq_schema = cat_r_u32(&r);
  sq->sq_owner = cat_r_u32(&r);
  sq->sq_name = cat_r_str(&r, a);
  sq->sq_type = (ty_id_t)cat_r_u32(&r);
  sq->sq_increment = r_i64(&r);
  sq->sq_min = r_i64(&r);
  sq->sq_max = r_i64(&r);
  sq->sq_start = r_i64(&r);
  sq->sq_cache = r_i64(&r);
  sq->sq_cycle = cat_r_u8(&r) != 0;
  sq->sq_owned_table = cat_r_u32(&r);
  sq->sq_owned_col = (int)cat_r_u32(&r) - 1;
  if (r.r_bad || !sq->sq_name || sq->sq_increment == 0 || sq->sq_cache < 1)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed sequence record in the catalog");
  *out = sq;
  return CZ_OK;
}

static int seq_put_def(cat_t *c, txn_t *tx, cat_oid_t oid, cat_oid_t schema,
                       const cat_seq_def_t *d, bool replace, err_t *e)
{
  uint8_t k[4], buf[512];
  cat_wbuf_t w = {buf, 0, sizeof buf, false};
  cat_w_u32(&w, schema);
  cat_w_u32(&w, d->sd_owner);
  cat_w_str(&w, d->sd_name);
  cat_w_u32(&w, (uint32_t)d->sd_type);
  w_i64(&w, d->sd_increment);
  w_i64(&w, d->sd_min);
  w_i64(&w, d->sd_max);
  w_i64(&w, d->sd_start);
  w_i64(&w, d->sd_cache);
  cat_w_u8(&w, d->sd_cycle ? 1 : 0);
  cat_w_u32(&w, d->sd_owned_table);
  cat_w_u32(&w, (uint32_t)(d->sd_owned_col + 1));
  return cat_sys_put(c, tx, CAT_SYS_SEQUENCES, k, cat_key_oid(k, oid), &w, replace, e);
}

static size_t seq_val_rec(uint8_t *buf, int64_t v, bool called)
{
  cat_wbuf_t w = {buf, 0, 9, false};
  w_i64(&w, v);
  cat_w_u8(&w, called ? 1 : 0);
  return w.w_len;
}

static int seq_log(cat_t *c, cat_oid_t oid, const char *name, txn_t *outer, txn_t *own,
                   const volatile bool *cancel, int64_t v, bool called, bool create, err_t *e);

/* ---- definitions ------------------------------------------------------------ */

static void seq_type_range(ty_id_t t, int64_t *lo, int64_t *hi)
{
  if (t == TY_INT2)
    *lo = INT16_MIN, *hi = INT16_MAX;
  else if (t == TY_INT4)
    *lo = INT32_MIN, *hi = INT32_MAX;
  else
    *lo = INT64_MIN, *hi = INT64_MAX;
}

static const char *seq_type_name(ty_id_t t)
{
  return t == TY_INT2 ? "smallint" : t == TY_INT4 ? "integer" : "bigint";
}

void cat_seq_defaults(cat_seq_def_t *d, bool min_given, bool max_given, bool start_given)
{
  int64_t lo, hi;
  seq_type_range(d->sd_type, &lo, &hi);
  if (!min_given)
    d->sd_min = d->sd_increment > 0 ? 1 : lo;
  if (!max_given)
    d->sd_max = d->sd_increment > 0 ? hi : -1;
  if (!start_given)
    d->sd_start = d->sd_increment > 0 ? d->sd_min : d->sd_max;
}

int cat_seq_check(const cat_seq_def_t *d, const int64_t *restart, err_t *e)
{
  if (d->sd_type != TY_INT2 && d->sd_type != TY_INT4 && d->sd_type != TY_INT8)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "sequence type must be smallint, integer, or bigint");
  int64_t lo, hi;
  seq_type_range(d->sd_type, &lo, &hi);
  if (d->sd_increment == 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "INCREMENT must not be zero");
  if (d->sd_max < lo || d->sd_max > hi)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "MAXVALUE (%lld) is out of range for sequence data type %s",
                   (long long)d->sd_max, seq_type_name(d->sd_type));
  if (d->sd_min < lo || d->sd_min > hi)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "MINVALUE (%lld) is out of range for sequence data type %s",
                   (long long)d->sd_min, seq_type_name(d->sd_type));
  if (d->sd_min >= d->sd_max)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "MINVALUE (%lld) must be less than MAXVALUE (%lld)",
                   (long long)d->sd_min, (long long)d->sd_max);
  if (d->sd_start < d->sd_min)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "START value (%lld) cannot be less than MINVALUE (%lld)",
                   (long long)d->sd_start, (long long)d->sd_min);
  if (d->sd_start > d->sd_max)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "START value (%lld) cannot be greater than MAXVALUE (%lld)",
                   (long long)d->sd_start, (long long)d->sd_max);
  if (restart && *restart < d->sd_min)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "RESTART value (%lld) cannot be less than MINVALUE (%lld)",
                   (long long)*restart, (long long)d->sd_min);
  if (restart && *restart > d->sd_max)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "RESTART value (%lld) cannot be greater than MAXVALUE (%lld)",
                   (long long)*restart, (long long)d->sd_max);
  if (d->sd_cache < 1)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "CACHE (%lld) must be greater than zero",
                   (long long)d->sd_cache);
  return CZ_OK;
}

static int seq_name_check(const char *name, err_t *e)
{
  if (!name || !*name)
    return err_set(e, SQLSTATE_INVALID_NAME, "zero-length sequence name");
  if (strlen(name) > CAT_MAX_NAME)
    return err_set(e, SQLSTATE_NAME_TOO_LONG, "sequence name \"%s\" is too long (at most %d bytes)",
                   name, CAT_MAX_NAME);
  return CZ_OK;
}

int cat_create_sequence(cat_t *c, txn_t *tx, const cat_seq_def_t *def, cat_oid_t *oid, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || seq_name_check(def->sd_name, e) != CZ_OK ||
      cat_seq_check(def, NULL, e) != CZ_OK)
    return CZ_ERR;
  const char *sname = def->sd_schema ? def->sd_schema : "public";
  const cat_schema_t *sch = cat_find_schema(s, sname);
  if (!sch)
    return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", sname);
  if (cat_find_rel(s, sch->cs_oid, def->sd_name, NULL))
    return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", def->sd_name);
  cat_oid_t soid;
  if (cat_next_oid(c, tx, &soid, e) != CZ_OK ||
      seq_put_def(c, tx, soid, sch->cs_oid, def, false, e) != CZ_OK)
    return CZ_ERR;
  /* The value record is not the DDL transaction's: written (durably) by a
   * transaction of its own, so that no transaction ever holds it while
   * nextval writes it (a ROLLBACK TO could otherwise take back a logged
   * range). A CREATE that rolls back leaves it behind, unread: an OID is
   * reused only after such a rollback, and then the record is replaced. */
  cat_seq_rt_t *sr = cat_seq_rt_get(c, soid);
  mutex_lock(&sr->sr_mx);
  int rc = seq_log(c, soid, def->sd_name, tx, NULL, NULL, def->sd_start, false, true, e);
  sr->sr_loaded = false;  /* the OID may have been used by a rolled-back CREATE */
  atomic_fetch_add(&sr->sr_gen, 1);
  mutex_unlock(&sr->sr_mx);
  if (rc != CZ_OK || cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = soid;
  return CZ_OK;
}

int cat_alter_sequence(cat_t *c, txn_t *tx, cat_oid_t seq, const cat_seq_def_t *def, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK || seq_name_check(def->sd_name, e) != CZ_OK ||
      cat_seq_check(def, NULL, e) != CZ_OK)
    return CZ_ERR;
  const cat_sequence_t *sq = cat_sequence_by_oid(s, seq);
  if (!sq)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "sequence with OID %u does not exist", (unsigned)seq);
  if (strcmp(sq->sq_name, def->sd_name) != 0 && cat_find_rel(s, sq->sq_schema, def->sd_name, NULL))
    return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", def->sd_name);
  if (seq_put_def(c, tx, seq, sq->sq_schema, def, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

static int seq_drop_rows(cat_t *c, txn_t *tx, cat_oid_t seq, err_t *e)
{
  uint8_t k[4];
  if (cat_sys_del(c, tx, CAT_SYS_SEQUENCES, k, cat_key_oid(k, seq), e) != CZ_OK)
    return CZ_ERR;
  return cat_sys_del(c, tx, CAT_SYS_SEQVALS, k, cat_key_oid(k, seq), e);
}

int cat_drop_sequence(cat_t *c, txn_t *tx, cat_oid_t seq, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  if (!cat_sequence_by_oid(s, seq))
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "sequence with OID %u does not exist", (unsigned)seq);
  if (seq_drop_rows(c, tx, seq, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_drop_owned_sequences(cat_t *c, txn_t *tx, const cat_snapshot_t *s, cat_oid_t table,
                             err_t *e)
{
  for (int i = 0; i < s->cs_nsequences; i++)
    if (s->cs_sequences[i]->sq_owned_table == table &&
        seq_drop_rows(c, tx, s->cs_sequences[i]->sq_oid, e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

/* ---- lookups ---------------------------------------------------------------- */

const cat_sequence_t *cat_sequence_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  int lo = 0, hi = s->cs_nsequences - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    cat_oid_t o = s->cs_sequences[mid]->sq_oid;
    if (o == oid)
      return s->cs_sequences[mid];
    if (o < oid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

static const void *rel_in(const cat_snapshot_t *s, const char *schema, const char *name, int *kind)
{
  if (schema) {
    const cat_schema_t *sch = cat_find_schema(s, schema);
    return sch ? cat_find_rel(s, sch->cs_oid, name, kind) : NULL;
  }
  const void *o = cat_find_rel(s, CAT_OID_PUBLIC, name, kind);
  return o ? o : cat_find_rel(s, CAT_OID_PG_CATALOG, name, kind);
}

const cat_sequence_t *cat_find_sequence(const cat_snapshot_t *s, const char *schema, const char *name)
{
  int kind;
  const void *o = rel_in(s, schema, name, &kind);
  return o && kind == CAT_REL_SEQUENCE ? o : NULL;
}

char cat_find_relation(const cat_snapshot_t *s, const char *schema, const char *name, cat_oid_t *oid)
{
  int kind;
  const void *o = rel_in(s, schema, name, &kind);
  if (!o)
    return 0;
  if (kind == CAT_REL_SEQUENCE) {
    *oid = ((const cat_sequence_t *)o)->sq_oid;
    return 'S';
  }
  if (kind == CAT_REL_INDEX) {
    *oid = ((const cat_index_t *)o)->ci_oid;
    return 'i';
  }
  if (kind == CAT_REL_VIEW) {
    *oid = ((const cat_view_t *)o)->cw_oid;
    return 'v';
  }
  *oid = ((const cat_table_t *)o)->ct_oid;
  return 't';
}

/* ---- values: shared state ----------------------------------------------------- */

cat_seq_rt_t *cat_seq_rt_get(cat_t *c, cat_oid_t oid)
{
  mutex_lock(&c->c_mx);
  cat_seq_rt_t *sr = c->c_seqrts;
  while (sr && sr->sr_oid != oid)
    sr = sr->sr_next;
  if (!sr) {
    sr = calloc(1, sizeof *sr);
    if (!sr)
      abort(); /* as arena_alloc: out of memory is fatal */
    sr->sr_oid = oid;
    sr->sr_cat = c;
    mutex_init(&sr->sr_mx);
    sr->sr_next = c->c_seqrts;
    c->c_seqrts = sr;
  }
  mutex_unlock(&c->c_mx);
  return sr;
}

/* Reads the value record as tx sees it (its own uncommitted one when it
 * created the sequence). 42P01 when there is none (dropped). */
static int seq_read(cat_t *c, const cat_sequence_t *sq, const txn_t *tx, int64_t *v, bool *called,
                    err_t *e)
{
  bt_tree_t *t = c->c_sys[CAT_SYS_SEQVALS];
  db_tree_t *dt = db_tree_of(c->c_db, t);
  uint8_t key[4];
  cat_key_oid(key, sq->sq_oid);
  bt_cursor_t *cur;
  if (!dt)
    return err_set(e, SQLSTATE_INTERNAL, "sys.seqvals is not a named tree");
  if (bt_cursor_open(t, &cur, e) != CZ_OK)
    return CZ_ERR;
  bool found = false;
  arena_t *a = arena_create(NULL, "seqval");  /* a pre-image's copy */
  int rc = bt_seek(cur, key, 4, BT_FORWARD, e);
  if (rc == CZ_OK) {
    const void *k, *val;
    size_t kl, vl;
    rc = bt_next(cur, &k, &kl, &val, &vl, e);
    if (rc == CZ_OK && kl == 4 && memcmp(k, key, 4) == 0 &&
        txn_read_version(tx, dt, k, kl, a, &val, &vl) != TXN_VIS_ABSENT && vl == 9) {
      cat_rbuf_t r = {val, vl, 0, false};
      *v = r_i64(&r);
      *called = cat_r_u8(&r) != 0;
      found = true;
    }
    if (rc == BT_END)
      rc = CZ_OK;
  }
  bt_cursor_close(cur);
  arena_destroy(a);
  if (rc != CZ_OK)
    return CZ_ERR;
  if (!found)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "sequence \"%s\" does not exist", sq->sq_name);
  return CZ_OK;
}

/* Makes (v, called) the durable value record (see the design notes), in a
 * short transaction of its own; create: the record may not exist yet (a
 * record left by a rolled-back CREATE of the same OID is replaced). */
static int seq_log(cat_t *c, cat_oid_t oid, const char *name, txn_t *outer, txn_t *own,
                   const volatile bool *cancel, int64_t v, bool called, bool create, err_t *e)
{
  bt_tree_t *t = c->c_sys[CAT_SYS_SEQVALS];
  uint8_t key[4], val[16];
  cat_key_oid(key, oid);
  size_t vl = seq_val_rec(val, v, called);
  /* only a transaction that dropped the sequence holds its record: waiting
   * for ourselves would never end */
  if (outer && !txn_is_bulk(outer) && txn_holds_lock(outer, t, key, 4)) {
    if (own) {
      err_t e2;
      txn_rollback(own, &e2);
    }
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "sequence \"%s\" does not exist", name);
  }
  /* own: begun by the caller before it took sr_mx (it has no transaction,
   * so a txn_begin here could wait for a checkpoint while holding sr_mx,
   * and the checkpoint for a transaction waiting for sr_mx) */
  txn_t *tx = own ? own : txn_begin(c->c_db, TXN_NESTED, e);
  if (!tx)
    return CZ_ERR;
  txn_set_cancel(tx, cancel);
  int rc = txn_update(tx, t, key, 4, val, vl, e);
  if (rc == BT_NOT_FOUND && create)
    rc = txn_insert(tx, t, key, 4, val, vl, e);
  if (rc == BT_NOT_FOUND)
    rc = err_set(e, SQLSTATE_UNDEFINED_TABLE, "sequence \"%s\" does not exist", name);
  if (rc != CZ_OK) {
    err_t e2;
    txn_rollback(tx, &e2);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

/* The value after cur (the first one when !called), or 1 at the limit
 * without CYCLE; *wrapped when CYCLE went round. */
static int seq_step(const cat_sequence_t *sq, int64_t cur, bool called, int64_t *next, bool *wrapped)
{
  *wrapped = false;
  if (!called) {
    *next = cur;
    return CZ_OK;
  }
  int64_t n;
  bool over = __builtin_add_overflow(cur, sq->sq_increment, &n);
  if (sq->sq_increment > 0 ? (over || n > sq->sq_max) : (over || n < sq->sq_min)) {
    if (!sq->sq_cycle)
      return 1;
    n = sq->sq_increment > 0 ? sq->sq_min : sq->sq_max;
    *wrapped = true;
  }
  *next = n;
  return CZ_OK;
}

/* How many values from first on (first included, at most want) stay
 * inside the bounds without wrapping. */
static int64_t seq_room(const cat_sequence_t *sq, int64_t first, int64_t want)
{
  uint64_t span = sq->sq_increment > 0 ? (uint64_t)sq->sq_max - (uint64_t)first
                                       : (uint64_t)first - (uint64_t)sq->sq_min;
  uint64_t step = sq->sq_increment > 0 ? (uint64_t)sq->sq_increment
                                       : (uint64_t)0 - (uint64_t)sq->sq_increment;
  uint64_t n = span / step + 1;
  return n < (uint64_t)want ? (int64_t)n : want;
}

static int seq_load(cat_t *c, const cat_sequence_t *sq, cat_seq_rt_t *sr, const txn_t *tx, err_t *e)
{
  if (sr->sr_loaded)
    return CZ_OK;
  if (seq_read(c, sq, tx, &sr->sr_last, &sr->sr_called, e) != CZ_OK)
    return CZ_ERR;
  sr->sr_log_left = 0;  /* the record covers exactly what it says */
  sr->sr_loaded = true;
  return CZ_OK;
}

/* Takes up to want consecutive values (at least one) from the shared
 * state: *first and *n. Logs ahead first when the log does not cover
 * them. */
static int seq_take(cat_t *c, const cat_sequence_t *sq, txn_t *tx, const volatile bool *cancel,
                    int64_t want, int64_t *first, int64_t *n, err_t *e)
{
  cat_seq_rt_t *sr = sq->sq_rt;
  txn_t *own = NULL;  /* see seq_log: begun before sr_mx when the caller has none */
again:
  mutex_lock(&sr->sr_mx);
  int rc = seq_load(c, sq, sr, tx, e);
  int64_t f = 0, cnt = 0;
  if (rc == CZ_OK) {
    bool wrapped;
    if (seq_step(sq, sr->sr_last, sr->sr_called, &f, &wrapped) != CZ_OK) {
      rc = err_set(e, SQLSTATE_SEQUENCE_LIMIT, "nextval: reached %s value of sequence \"%s\" (%lld)",
                   sq->sq_increment > 0 ? "maximum" : "minimum", sq->sq_name,
                   (long long)(sq->sq_increment > 0 ? sq->sq_max : sq->sq_min));
    } else {
      if (wrapped || !sr->sr_called)
        sr->sr_log_left = 0;  /* the log covers values after sr_last only */
      /* a value outside the bounds (ALTER narrowed them): the limit */
      if (f < sq->sq_min || f > sq->sq_max)
        rc = err_set(e, SQLSTATE_SEQUENCE_LIMIT,
                     "nextval: reached %s value of sequence \"%s\" (%lld)",
                     sq->sq_increment > 0 ? "maximum" : "minimum", sq->sq_name,
                     (long long)(sq->sq_increment > 0 ? sq->sq_max : sq->sq_min));
    }
    if (rc == CZ_OK) {
      cnt = seq_room(sq, f, want);
      if (sr->sr_log_left < cnt && !tx && !own) {
        mutex_unlock(&sr->sr_mx);
        if (!(own = txn_begin(c->c_db, 0, e)))
          return CZ_ERR;
        txn_set_cancel(own, cancel);
        goto again;  /* the state may have moved meanwhile */
      }
      if (sr->sr_log_left < cnt) {
        int64_t ahead = seq_room(sq, f, cnt > CAT_SEQ_LOG_VALS ? cnt : CAT_SEQ_LOG_VALS);
        int64_t hi = f + sq->sq_increment * (ahead - 1);
        rc = seq_log(c, sq->sq_oid, sq->sq_name, tx, own, cancel, hi, true, false, e);
        own = NULL;  /* seq_log ended it */
        if (rc == CZ_OK)
          sr->sr_log_left = ahead;
      }
    }
    if (rc == CZ_OK) {
      sr->sr_last = f + sq->sq_increment * (cnt - 1);
      sr->sr_called = true;
      sr->sr_log_left -= cnt;
    }
  }
  mutex_unlock(&sr->sr_mx);
  if (own) {  /* begun, then not needed: another session logged meanwhile */
    err_t e2;
    txn_rollback(own, &e2);
  }
  *first = f;
  *n = cnt;
  return rc;
}

int cat_seq_peek(const cat_sequence_t *sq, txn_t *tx, int64_t *last, bool *called, err_t *e)
{
  cat_seq_rt_t *sr = sq->sq_rt;
  mutex_lock(&sr->sr_mx);
  int rc = seq_load(sr->sr_cat, sq, sr, tx, e);
  *last = sr->sr_last;
  *called = sr->sr_called;
  mutex_unlock(&sr->sr_mx);
  return rc;
}

/* ---- values: the session's view ------------------------------------------------ */

typedef struct cat_seq_sent_s {
  cat_oid_t se_oid;
  uint64_t se_gen;             /* sr_gen when the entry was made */
  bool se_valid;               /* se_last is currval */
  int64_t se_last;
  int64_t se_next;             /* the next cached value (se_left of them) */
  int64_t se_left;
  int64_t se_increment;        /* the increment the cached values were taken with */
} cat_seq_sent_t;

struct cat_seq_session_s {
  arena_t *ss_a;
  cat_seq_sent_t *ss_ents;
  int ss_n, ss_cap;
  cat_oid_t ss_lastval;        /* the sequence of the last nextval (0 none) */
};

cat_seq_session_t *cat_seq_session_new(arena_t *a)
{
  cat_seq_session_t *ss = arena_zalloc(a, sizeof *ss);
  ss->ss_a = a;
  return ss;
}

static cat_seq_sent_t *sess_find(cat_seq_session_t *ss, cat_oid_t oid, bool make)
{
  for (int i = 0; i < ss->ss_n; i++)
    if (ss->ss_ents[i].se_oid == oid)
      return &ss->ss_ents[i];
  if (!make)
    return NULL;
  if (ss->ss_n == ss->ss_cap) {
    int cap = ss->ss_cap ? ss->ss_cap * 2 : 8;
    cat_seq_sent_t *p = arena_alloc(ss->ss_a, sizeof *p * (size_t)cap);
    if (ss->ss_n)
      memcpy(p, ss->ss_ents, sizeof *p * (size_t)ss->ss_n);
    ss->ss_ents = p;
    ss->ss_cap = cap;
  }
  cat_seq_sent_t *en = &ss->ss_ents[ss->ss_n++];
  memset(en, 0, sizeof *en);
  en->se_oid = oid;
  return en;
}

int cat_seq_nextval(cat_seq_session_t *ss, const cat_sequence_t *sq, txn_t *tx,
                    const volatile bool *cancel, int64_t *out, err_t *e)
{
  cat_seq_sent_t *en = sess_find(ss, sq->sq_oid, true);
  uint64_t gen = atomic_load(&sq->sq_rt->sr_gen);
  if (en->se_gen != gen) {  /* an earlier sequence of this OID, rolled back */
    en->se_gen = gen;
    en->se_left = 0;
    en->se_valid = false;
  }
  if (en->se_left > 0 && en->se_increment == sq->sq_increment) {
    *out = en->se_next;
    en->se_next += sq->sq_increment;
    en->se_left--;
  } else {
    int64_t first, n;
    if (seq_take(sq->sq_rt->sr_cat, sq, tx, cancel, sq->sq_cache, &first, &n, e) != CZ_OK)
      return CZ_ERR;
    *out = first;
    en->se_next = first + sq->sq_increment;
    en->se_left = n - 1;
    en->se_increment = sq->sq_increment;
  }
  en->se_last = *out;
  en->se_valid = true;
  ss->ss_lastval = sq->sq_oid;
  return CZ_OK;
}

int cat_seq_currval(cat_seq_session_t *ss, const cat_sequence_t *sq, int64_t *out, err_t *e)
{
  cat_seq_sent_t *en = sess_find(ss, sq->sq_oid, false);
  if (!en || !en->se_valid || en->se_gen != atomic_load(&sq->sq_rt->sr_gen))
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "currval of sequence \"%s\" is not yet defined in this session", sq->sq_name);
  *out = en->se_last;
  return CZ_OK;
}

int cat_seq_lastval(cat_seq_session_t *ss, const cat_snapshot_t *snap, int64_t *out, err_t *e)
{
  cat_seq_sent_t *en = ss->ss_lastval ? sess_find(ss, ss->ss_lastval, false) : NULL;
  if (!en || !en->se_valid)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "lastval is not yet defined in this session");
  if (!cat_sequence_by_oid(snap, ss->ss_lastval))
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "lastval is not yet defined in this session");
  *out = en->se_last;
  return CZ_OK;
}

int cat_seq_setval(cat_seq_session_t *ss, const cat_sequence_t *sq, txn_t *tx,
                   const volatile bool *cancel, int64_t v, bool called, err_t *e)
{
  if (v < sq->sq_min || v > sq->sq_max)
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE,
                   "setval: value %lld is out of bounds for sequence \"%s\" (%lld..%lld)",
                   (long long)v, sq->sq_name, (long long)sq->sq_min, (long long)sq->sq_max);
  cat_seq_rt_t *sr = sq->sq_rt;
  txn_t *own = NULL;  /* see seq_log: begun before sr_mx when the caller has none */
  if (!tx) {
    if (!(own = txn_begin(sr->sr_cat->c_db, 0, e)))
      return CZ_ERR;
    txn_set_cancel(own, cancel);
  }
  mutex_lock(&sr->sr_mx);
  int rc = seq_log(sr->sr_cat, sq->sq_oid, sq->sq_name, tx, own, cancel, v, called, false, e);
  if (rc == CZ_OK) {
    sr->sr_last = v;
    sr->sr_called = called;
    sr->sr_log_left = 0;
    sr->sr_loaded = true;
  }
  mutex_unlock(&sr->sr_mx);
  if (rc != CZ_OK)
    return CZ_ERR;
  if (ss) {
    cat_seq_sent_t *en = sess_find(ss, sq->sq_oid, true);
    en->se_gen = atomic_load(&sq->sq_rt->sr_gen);
    en->se_left = 0;  /* this session's cached values are forgotten, as in PostgreSQL */
    if (called) {
      en->se_last = v;
      en->se_valid = true;
    }
  }
  return CZ_OK;
}

/* en_cons — CHECK and FOREIGN KEY constraints enforced on every write of
 * a table: the storage hooks (en_env.c), COPY and ON CONFLICT pass their
 * batches here when the table has constraints or is referenced.
 *
 * Design notes (engine/README.md, "Constraints"):
 * - CHECK: each expression is bound once per session and snapshot
 *   (sql_bind_check, kept in the session's state) and evaluated over the
 *   whole batch (xeval); FALSE fails with 23514, NULL passes. An UPDATE
 *   that sets only some columns evaluates the constraints that read a set
 *   column, over the rows as written (read back in one tbl_lookup).
 * - Referencing side (a row written into a table with a foreign key):
 *   after the batch is written, its keys (MATCH SIMPLE: none NULL; FULL:
 *   all or none NULL) go to the referenced unique index in one vectored
 *   probe (tbl_ref_probe) that locks each value's lock name first, so a
 *   concurrent deleter of the parent waits for this transaction, or this
 *   one for it and then sees it gone (table/README.md "Constraint
 *   probes"). A key not found is not an error yet: it is kept as pending
 *   and checked again at the end of the statement (a self-referencing
 *   INSERT … SELECT may write the parent later in the statement) or, when
 *   the constraint is deferred, at COMMIT / SET CONSTRAINTS … IMMEDIATE.
 * - Referenced side (a row deleted, or its referenced key updated): the
 *   old keys are read before the write (by locator, one lookup); after
 *   it, each constraint's action runs on the referencing rows, found by
 *   an index of the referencing table whose leading columns are the
 *   foreign key (a range per key) or else by one scan with an IN
 *   predicate on the first key column for the whole batch. CASCADE and
 *   SET NULL / SET DEFAULT change those rows through this same file
 *   (their own constraints and references apply, recursively: cascades
 *   several levels deep and self-references). RESTRICT fails at once;
 *   NO ACTION keeps referenced keys as pending, checked at the end of
 *   the statement or at COMMIT when deferred — unless a row with the key
 *   exists again by then.
 * - A pending check is (constraint, key): it fails only when the key is
 *   still absent from the referenced table AND a referencing row with it
 *   exists, so a pending entry left by a statement that failed (its
 *   writes undone) can never fail a later one.
 * - State per session (en_cons_t): the compiled CHECKs, and per
 *   transaction (txn_id) the statement's and the deferred pending checks
 *   and the SET CONSTRAINTS modes, allocated in the transaction's arena.
 */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"


typedef struct nc_tab_s {
  cat_oid_t nt_oid;
  uint64_t nt_version;
  int nt_ncheck;
  const cat_constraint_t **nt_checks;
  xnode_t **nt_x;
  struct nc_tab_s *nt_next;
} nc_tab_t;

typedef struct nc_pend_s {
  cat_oid_t p_con;
  char p_side;                  /* 'c' a referencing row was written, 'p' a referenced key removed */
  datum_t *p_key;               /* the key in the referenced index's order and types */
  struct nc_pend_s *p_next;
} nc_pend_t;

typedef struct nc_list_s {
  nc_pend_t *l_head, *l_tail;
} nc_list_t;

typedef struct nc_setc_s {
  cat_oid_t sc_oid;             /* 0: ALL */
  bool sc_deferred;
  struct nc_setc_s *sc_next;    /* older ones after */
} nc_setc_t;

typedef struct en_cons_s {
  arena_t *nc_arena;            /* compiled CHECKs; reset when the catalog moves */
  uint64_t nc_version;
  nc_tab_t *nc_tabs;
  uint64_t nc_txid;             /* the transaction the lists below belong to */
  nc_list_t nc_stmt;            /* checked at the end of the statement */
  nc_list_t nc_deferred;        /* checked at COMMIT */
  nc_setc_t *nc_setc;           /* SET CONSTRAINTS of the transaction, newest first */
} en_cons_t;

/* Writes a referential action asks for (CASCADE, SET NULL, SET
 * DEFAULT): queued and done after the write that caused them, breadth
 * first, so a cascade along a chain of any length needs no recursion. */
typedef struct nc_work_s {
  const cat_table_t *w_t;
  batch_t *w_b;                 /* the rows: every column, then the locator */
  bool *w_set;                  /* update: the columns set; NULL: a delete */
  struct nc_work_s *w_next;
} nc_work_t;

typedef struct nc_queue_s {
  nc_work_t *q_head, *q_tail;
} nc_queue_t;

/* One call's context. */
typedef struct nc_x_s {
  esession_t *x_s;
  txn_t *x_tx;
  arena_t *x_a;                 /* scratch of this call */
  nc_queue_t x_q;               /* actions still to do */
} nc_x_t;

static int nc_update_rows(nc_x_t *x, const cat_table_t *t, const batch_t *b, int loc,
                          const bool *set, const int *sel, int n, const tbl_epq_t *epq, err_t *e);
static int nc_delete_rows(nc_x_t *x, const cat_table_t *t, const batch_t *b, int loc,
                          const int *sel, int n, const tbl_epq_t *epq, err_t *e);

/* ---- state --------------------------------------------------------------- */

static en_cons_t *nc_state(esession_t *s)
{
  en_cons_t **slot = es_cons_slot(s);
  if (!*slot) {
    arena_t *sa = es_arena(s);
    en_cons_t *st = arena_zalloc(sa, sizeof *st);
    st->nc_arena = arena_create(sa, "constraints");
    *slot = st;
  }
  return *slot;
}

/* The lists of tx (emptied when they belonged to another transaction:
 * their memory went with its arena). */
static en_cons_t *nc_tx_state(esession_t *s, txn_t *tx)
{
  en_cons_t *st = nc_state(s);
  if (st->nc_txid != txn_id(tx)) {
    st->nc_txid = txn_id(tx);
    st->nc_stmt = (nc_list_t){NULL, NULL};
    st->nc_deferred = (nc_list_t){NULL, NULL};
    st->nc_setc = NULL;
  }
  return st;
}

bool en_cons_needed(const cat_table_t *t)
{
  return t->ct_ncons > 0 || t->ct_nrefby > 0;
}

static bool nc_deferred_now(en_cons_t *st, const cat_constraint_t *co)
{
  if (!co->co_deferrable)
    return false;
  for (const nc_setc_t *c = st->nc_setc; c; c = c->sc_next)
    if (c->sc_oid == 0 || c->sc_oid == co->co_oid)
      return c->sc_deferred;
  return co->co_deferred;
}

/* The table's CHECKs, bound (cached per session and catalog version). */
static int nc_tab(nc_x_t *x, const cat_table_t *t, nc_tab_t **out, err_t *e)
{
  en_cons_t *st = nc_state(x->x_s);
  if (st->nc_version != t->ct_version) {
    arena_reset(st->nc_arena);
    st->nc_tabs = NULL;
    st->nc_version = t->ct_version;
  }
  for (nc_tab_t *nt = st->nc_tabs; nt; nt = nt->nt_next)
    if (nt->nt_oid == t->ct_oid) {
      *out = nt;
      return CZ_OK;
    }
  arena_t *a = st->nc_arena;
  nc_tab_t *nt = arena_zalloc(a, sizeof *nt);
  nt->nt_oid = t->ct_oid;
  nt->nt_version = t->ct_version;
  nt->nt_checks = arena_alloc(a, sizeof *nt->nt_checks * (size_t)(t->ct_ncons + 1));
  nt->nt_x = arena_alloc(a, sizeof *nt->nt_x * (size_t)(t->ct_ncons + 1));
  const char **names = arena_alloc(a, sizeof *names * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    names[c] = t->ct_cols[c].cc_name;
  for (int i = 0; i < t->ct_ncons; i++) {
    const cat_constraint_t *co = t->ct_cons[i];
    if (co->co_type != 'c')
      continue;
    xnode_t *xn;
    if (sql_bind_check(a, co->co_check, t->ct_ncols, names, t->ct_types, t->ct_name, &xn, NULL, e) !=
        CZ_OK)
      return err_prefix(e, "check constraint \"%s\"", co->co_name);
    nt->nt_checks[nt->nt_ncheck] = co;
    nt->nt_x[nt->nt_ncheck++] = xn;
  }
  nt->nt_next = st->nc_tabs;
  st->nc_tabs = nt;
  *out = nt;
  return CZ_OK;
}

/* ---- messages ------------------------------------------------------------- */

static void nc_put_value(char *buf, size_t cap, size_t *n, ty_t t, const datum_t *d)
{
  if (*n >= cap)
    return;
  if (d->d_null) {
    *n += (size_t)snprintf(buf + *n, cap - *n, "null");
    return;
  }
  char tmp[200];
  int w = ty_format_text(t, d, tmp, sizeof tmp);
  if (w < 0) {
    snprintf(tmp, sizeof tmp, "...");
    w = 3;
  }
  *n += (size_t)snprintf(buf + *n, cap - *n, "%.*s", w, tmp);
}

/* "Failing row contains (…)." for row r of b (the table's columns). */
static int nc_check_failed(const cat_table_t *t, const cat_constraint_t *co, const batch_t *b, int r,
                           err_t *e)
{
  err_set(e, SQLSTATE_CHECK_VIOLATION, "new row for relation \"%s\" violates check constraint \"%s\"",
          t->ct_name, co->co_name);
  char buf[sizeof e->er_detail];
  size_t n = (size_t)snprintf(buf, sizeof buf, "Failing row contains (");
  for (int c = 0; c < t->ct_ncols && n < sizeof buf; c++) {
    if (c)
      n += (size_t)snprintf(buf + n, sizeof buf - n, ", ");
    datum_t d;
    vec_get(&b->b_cols[c], r, &d);
    nc_put_value(buf, sizeof buf, &n, t->ct_cols[c].cc_type, &d);
  }
  if (n < sizeof buf)
    snprintf(buf + n, sizeof buf - n, ").");
  return err_detail(e, "%s", buf);
}

/* "Key (a, b)=(1, 2)": names of cols of t, values vals (in cols order). */
static void nc_key_text(char *buf, size_t cap, const cat_table_t *t, const int *cols, int n,
                        const datum_t *vals)
{
  size_t w = (size_t)snprintf(buf, cap, "Key (");
  for (int i = 0; i < n && w < cap; i++)
    w += (size_t)snprintf(buf + w, cap - w, "%s%s", i ? ", " : "", t->ct_cols[cols[i]].cc_name);
  if (w < cap)
    w += (size_t)snprintf(buf + w, cap - w, ")=(");
  for (int i = 0; i < n && w < cap; i++) {
    if (i)
      w += (size_t)snprintf(buf + w, cap - w, ", ");
    nc_put_value(buf, cap, &w, t->ct_cols[cols[i]].cc_type, &vals[i]);
  }
  if (w < cap)
    snprintf(buf + w, cap - w, ")");
}

/* The key of an index-ordered referenced key in co's column order. */
static void nc_key_co_order(const cat_constraint_t *co, const datum_t *ikey, datum_t *out)
{
  const cat_index_t *ix = co->co_ref_index;
  for (int k = 0; k < co->co_nkeys; k++)
    for (int j = 0; j < ix->ci_nkeys; j++)
      if (ix->ci_keys[j] == co->co_ref_keys[k])
        out[k] = ikey[j];
}

/* 23503 for a referencing key absent from the referenced table: v holds
 * it in the foreign key's column order, of the referencing columns' types
 * (child) or of the referenced ones'. */
static int nc_fk_child_error_v(const cat_constraint_t *co, const datum_t *v, bool child, err_t *e)
{
  err_set(e, SQLSTATE_FOREIGN_KEY_VIOLATION,
          "insert or update on table \"%s\" violates foreign key constraint \"%s\"",
          co->co_table->ct_name, co->co_name);
  char key[200];
  if (child)
    nc_key_text(key, sizeof key, co->co_table, co->co_keys, co->co_nkeys, v);
  else
    nc_key_text(key, sizeof key, co->co_ref, co->co_ref_keys, co->co_nkeys, v);
  char names[200];
  size_t w = 0;
  for (int i = 0; i < co->co_nkeys && w < sizeof names; i++)
    w += (size_t)snprintf(names + w, sizeof names - w, "%s%s", i ? ", " : "",
                          co->co_table->ct_cols[co->co_keys[i]].cc_name);
  const char *vals = strchr(key, '=');
  return err_detail(e, "Key (%s)%s is not present in table \"%s\".", names, vals ? vals : "",
                    co->co_ref->ct_name);
}

static int nc_fk_child_error(const cat_constraint_t *co, const datum_t *ikey, err_t *e)
{
  datum_t v[CAT_MAX_INDEX_KEYS];
  nc_key_co_order(co, ikey, v);
  return nc_fk_child_error_v(co, v, false, e);
}

/* The same for row r of b (the referencing table's columns). */
static int nc_fk_child_error_row(const cat_constraint_t *co, const batch_t *b, int r, err_t *e)
{
  datum_t v[CAT_MAX_INDEX_KEYS];
  for (int k = 0; k < co->co_nkeys; k++)
    vec_get(&b->b_cols[co->co_keys[k]], r, &v[k]);
  return nc_fk_child_error_v(co, v, true, e);
}

static int nc_fk_parent_error(const cat_constraint_t *co, const datum_t *ikey, err_t *e)
{
  datum_t v[CAT_MAX_INDEX_KEYS];
  nc_key_co_order(co, ikey, v);
  err_set(e, SQLSTATE_FOREIGN_KEY_VIOLATION,
          "update or delete on table \"%s\" violates foreign key constraint \"%s\" on table \"%s\"",
          co->co_ref->ct_name, co->co_name, co->co_table->ct_name);
  char key[200];
  nc_key_text(key, sizeof key, co->co_ref, co->co_ref_keys, co->co_nkeys, v);
  return err_detail(e, "%s is still referenced from table \"%s\".", key, co->co_table->ct_name);
}

/* ---- CHECK ---------------------------------------------------------------- */

/* Evaluates the CHECKs of t (those reading a column of set; set NULL:
 * all) over rows sel[0..n) of b (the table's columns). */
static int nc_checks(nc_x_t *x, const cat_table_t *t, const batch_t *b, const int *sel, int n,
                     const bool *set, err_t *e)
{
  nc_tab_t *nt = NULL;
  if (nc_tab(x, t, &nt, e) != CZ_OK)
    return CZ_ERR;
  if (!nt->nt_ncheck || n == 0)
    return CZ_OK;
  xctx_t xc = {.xc_arena = x->x_a, .xc_session = x->x_s, .xc_cancel = es_cancel_flag(x->x_s)};
  for (int i = 0; i < nt->nt_ncheck; i++) {
    const cat_constraint_t *co = nt->nt_checks[i];
    if (set && co->co_nkeys) {  /* one reading no column (CHECK (false)) always runs */
      bool hit = false;
      for (int k = 0; k < co->co_nkeys && !hit; k++)
        hit = set[co->co_keys[k]];
      if (!hit)
        continue;
    }
    vec_t out;
    int cap = b->b_n > 0 ? b->b_n : 1;
    if (vec_init(&out, x->x_a, nt->nt_x[i]->x_type, cap, e) != CZ_OK ||
        xeval(&xc, nt->nt_x[i], b, sel, n, &out, e) != CZ_OK)
      return CZ_ERR;
    for (int j = 0; j < n; j++) {
      int r = sel ? sel[j] : j;
      datum_t d;
      vec_get(&out, r, &d);
      if (!d.d_null && !d.d_bool)
        return nc_check_failed(t, co, b, r, e);
    }
  }
  return CZ_OK;
}

/* ---- keys ----------------------------------------------------------------- */

static void nc_copy_datum(arena_t *a, ty_t t, datum_t *d)
{
  if (!d->d_null && ty_phys(t.t_id) == TP_STR && d->d_str.s_len) {
    char *p = arena_alloc(a, d->d_str.s_len);
    memcpy(p, d->d_str.s_ptr, d->d_str.s_len);
    d->d_str.s_ptr = p;
  }
}

/* The referenced key of row r of b (the referencing table's columns), in
 * the referenced index's order and types, into out. Returns 0 when the
 * row references nothing (NULLs), 1 when it has a key, -1 with 23503 for
 * MATCH FULL with some NULLs, and 2 when a value cannot be a referenced
 * value (its cast fails: the key is absent). */
static int nc_child_key(const cat_constraint_t *co, const batch_t *b, int r, arena_t *a, datum_t *out,
                        err_t *e)
{
  const cat_index_t *ix = co->co_ref_index;
  int nulls = 0;
  datum_t v[CAT_MAX_INDEX_KEYS];
  for (int k = 0; k < co->co_nkeys; k++) {
    vec_get(&b->b_cols[co->co_keys[k]], r, &v[k]);
    nulls += v[k].d_null;
  }
  if (nulls == co->co_nkeys || (nulls && co->co_match != 'f'))
    return 0;
  if (nulls) {
    err_set(e, SQLSTATE_FOREIGN_KEY_VIOLATION,
            "insert or update on table \"%s\" violates foreign key constraint \"%s\"",
            co->co_table->ct_name, co->co_name);
    err_detail(e, "MATCH FULL does not allow mixing of null and nonnull key values.");
    return -1;
  }
  for (int j = 0; j < ix->ci_nkeys; j++) {
    int k = 0;
    while (k < co->co_nkeys && co->co_ref_keys[k] != ix->ci_keys[j])
      k++;
    ty_t from = co->co_table->ct_cols[co->co_keys[k]].cc_type, to = ix->ci_key_types[j];
    err_t e2;
    if (from.t_id == to.t_id && from.t_id != TY_CHAR)
      out[j] = v[k];
    else if (xcast_datum(from, &v[k], to, a, &out[j], &e2) != CZ_OK)
      return 2;
  }
  return 1;
}

static void nc_pend_add(arena_t *a, nc_list_t *l, const cat_constraint_t *co, char side,
                        const datum_t *ikey)
{
  nc_pend_t *p = arena_alloc(a, sizeof *p);
  int nk = co->co_ref_index->ci_nkeys;
  p->p_con = co->co_oid;
  p->p_side = side;
  p->p_key = arena_alloc(a, sizeof(datum_t) * (size_t)nk);
  for (int j = 0; j < nk; j++) {
    p->p_key[j] = ikey[j];
    nc_copy_datum(a, co->co_ref_index->ci_key_types[j], &p->p_key[j]);
  }
  p->p_next = NULL;
  if (l->l_tail)
    l->l_tail->p_next = p;
  else
    l->l_head = p;
  l->l_tail = p;
}

/* ---- referencing rows ------------------------------------------------------- */

/* An index of t whose first co_nkeys key columns are exactly the foreign
 * key's columns (in any order); -1 none. *order: for each of those index
 * positions, the foreign key's column number k. */
static int nc_child_index(const cat_constraint_t *co, int *order)
{
  const cat_table_t *t = co->co_table;
  for (int i = 0; i < t->ct_nindexes; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    if (ix->ci_hidden || ix->ci_nkeys < co->co_nkeys)
      continue;
    bool ok = true;
    for (int j = 0; j < co->co_nkeys && ok; j++) {
      int k = 0;
      while (k < co->co_nkeys && co->co_keys[k] != ix->ci_keys[j])
        k++;
      ok = k < co->co_nkeys;
      order[j] = k;
    }
    if (ok)
      return i;
  }
  return -1;
}

/* A growing batch of rows of a table (every column, then the locator). */
typedef struct nc_rows_s {
  batch_t *r_b;
  int *r_key;                   /* per row: the key (index into the caller's keys) it matched */
} nc_rows_t;

static int nc_rows_push(nc_rows_t *rs, const cat_table_t *t, const batch_t *src, int r, int key,
                        arena_t *a, err_t *e)
{
  batch_t *b = rs->r_b;
  if (!b || b->b_n == b->b_cols[0].v_cap) {
    int cap = b ? b->b_cols[0].v_cap * 2 : 64;
    ty_t *types = arena_alloc(a, sizeof *types * (size_t)(t->ct_ncols + 1));
    for (int c = 0; c < t->ct_ncols; c++)
      types[c] = t->ct_cols[c].cc_type;
    types[t->ct_ncols] = ty_plain(TY_BYTEA);
    batch_t *nb = batch_create(a, t->ct_ncols + 1, types, cap, e);
    int *nk = arena_alloc(a, sizeof *nk * (size_t)cap);
    if (!nb)
      return CZ_ERR;
    nb->b_n = 0;
    if (b) {
      for (int i = 0; i < b->b_n; i++)
        for (int c = 0; c <= t->ct_ncols; c++) {
          datum_t d;
          vec_get(&b->b_cols[c], i, &d);
          vec_set(&nb->b_cols[c], i, &d);
        }
      memcpy(nk, rs->r_key, sizeof *nk * (size_t)b->b_n);
      nb->b_n = b->b_n;
    }
    rs->r_b = b = nb;
    rs->r_key = nk;
  }
  for (int c = 0; c <= t->ct_ncols; c++) {
    datum_t d;
    vec_get(&src->b_cols[c], r, &d);
    vec_set(&b->b_cols[c], b->b_n, &d);
  }
  rs->r_key[b->b_n++] = key;
  return CZ_OK;
}

/* Reads every row of scan sc into rs (key: the key they matched; -1:
 * find it with match). */
typedef int (*nc_match_fn_t)(void *ctx, const batch_t *b, int r);

static int nc_scan_into(nc_x_t *x, const cat_table_t *t, tbl_scan_t *sc, nc_rows_t *rs, int key,
                        nc_match_fn_t match, void *mctx, bool first_only, err_t *e)
{
  ty_t *types = arena_alloc(x->x_a, sizeof *types * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    types[c] = t->ct_cols[c].cc_type;
  types[t->ct_ncols] = ty_plain(TY_BYTEA);
  batch_t *b = batch_create(x->x_a, t->ct_ncols + 1, types, 256, e);
  if (!b)
    return CZ_ERR;
  for (;;) {
    if (tbl_scan_next(sc, b, x->x_a, e) != CZ_OK)
      return CZ_ERR;
    if (b->b_n == 0)
      return CZ_OK;
    for (int r = 0; r < b->b_n; r++) {
      int k = match ? match(mctx, b, r) : key;
      if (k < 0)
        continue;
      if (nc_rows_push(rs, t, b, r, k, x->x_a, e) != CZ_OK)
        return CZ_ERR;
      if (first_only)
        return CZ_OK;
    }
    if (es_cancel_flag(x->x_s) && *es_cancel_flag(x->x_s))
      return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  }
}

/* Keys of the referencing columns, encoded, for the scan without index. */
typedef struct nc_kmatch_s {
  const cat_constraint_t *m_co;
  int m_n;
  uint8_t **m_enc;
  size_t *m_len;
} nc_kmatch_t;

static int nc_encode_child_key(const cat_constraint_t *co, const datum_t *ck, uint8_t *buf,
                               size_t *len)
{
  ty_t ty[CAT_MAX_INDEX_KEYS];
  for (int k = 0; k < co->co_nkeys; k++)
    ty[k] = co->co_table->ct_cols[co->co_keys[k]].cc_type;
  err_t e2;
  return tbl_key_encode(ty, ck, co->co_nkeys, buf, BT_MAX_KEY, len, &e2);
}

static int nc_kmatch(void *ctx, const batch_t *b, int r)
{
  nc_kmatch_t *m = ctx;
  datum_t ck[CAT_MAX_INDEX_KEYS];
  for (int k = 0; k < m->m_co->co_nkeys; k++) {
    vec_get(&b->b_cols[m->m_co->co_keys[k]], r, &ck[k]);
    if (ck[k].d_null)
      return -1;
  }
  uint8_t buf[BT_MAX_KEY];
  size_t len;
  if (nc_encode_child_key(m->m_co, ck, buf, &len) != CZ_OK)
    return -1;
  for (int i = 0; i < m->m_n; i++)
    if (m->m_enc[i] && m->m_len[i] == len && memcmp(m->m_enc[i], buf, len) == 0)
      return i;
  return -1;
}

/* The rows of co's referencing table that hold the referenced keys
 * ikeys[0..m) (index order, referenced types), every column and the
 * locator, into rs with the key each matched; first_only: stop at the
 * first (an existence test). */
static int nc_children(nc_x_t *x, const cat_constraint_t *co, datum_t *const *ikeys, int m,
                       bool first_only, nc_rows_t *rs, err_t *e)
{
  const cat_table_t *t = co->co_table;
  int nk = co->co_nkeys;
  /* the keys in the referencing columns' types and order; NULL: cannot match */
  datum_t **ck = arena_alloc(x->x_a, sizeof *ck * (size_t)(m + 1));
  for (int i = 0; i < m; i++) {
    datum_t v[CAT_MAX_INDEX_KEYS];
    nc_key_co_order(co, ikeys[i], v);
    ck[i] = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)nk);
    for (int k = 0; k < nk && ck[i]; k++) {
      ty_t from = co->co_ref->ct_cols[co->co_ref_keys[k]].cc_type;
      ty_t to = t->ct_cols[co->co_keys[k]].cc_type;
      err_t e2;
      if (from.t_id == to.t_id && from.t_id != TY_CHAR)
        ck[i][k] = v[k];
      else if (xcast_datum(from, &v[k], to, x->x_a, &ck[i][k], &e2) != CZ_OK)
        ck[i] = NULL;
    }
  }
  int order[CAT_MAX_INDEX_KEYS];
  int idx = nc_child_index(co, order);
  int *cols = arena_alloc(x->x_a, sizeof *cols * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    cols[c] = c;
  if (idx >= 0) {
    for (int i = 0; i < m; i++) {
      if (!ck[i])
        continue;
      datum_t *bv = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)nk);
      for (int j = 0; j < nk; j++)
        bv[j] = ck[i][order[j]];
      tbl_bound_t lo = {nk, bv, true}, hi = {nk, bv, true};
      tbl_scan_t *sc;
      if (tbl_scan_open(x->x_tx, t, idx, cols, t->ct_ncols, &lo, &hi, true, x->x_a, &sc, e) != CZ_OK)
        return CZ_ERR;
      int rc = nc_scan_into(x, t, sc, rs, i, NULL, NULL, first_only, e);
      tbl_scan_close(sc);
      if (rc != CZ_OK)
        return CZ_ERR;
      if (first_only && rs->r_b && rs->r_b->b_n)
        return CZ_OK;
    }
    return CZ_OK;
  }
  /* no index: one scan of the table for the whole set of keys */
  nc_kmatch_t km = {co, m, arena_alloc(x->x_a, sizeof(uint8_t *) * (size_t)(m + 1)),
                    arena_alloc(x->x_a, sizeof(size_t) * (size_t)(m + 1))};
  datum_t *in = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)(m + 1));
  int nin = 0;
  for (int i = 0; i < m; i++) {
    km.m_enc[i] = NULL;
    if (!ck[i])
      continue;
    uint8_t buf[BT_MAX_KEY];
    size_t len;
    if (nc_encode_child_key(co, ck[i], buf, &len) != CZ_OK)
      continue;
    km.m_enc[i] = arena_alloc(x->x_a, len ? len : 1);
    memcpy(km.m_enc[i], buf, len);
    km.m_len[i] = len;
    in[nin++] = ck[i][0];
  }
  if (!nin)
    return CZ_OK;
  tbl_pred_t pred = {co->co_keys[0], TBP_IN, false, nin, in};
  tbl_scan_t *sc;
  if (tbl_scan_open(x->x_tx, t, 0, cols, t->ct_ncols, NULL, NULL, true, x->x_a, &sc, e) != CZ_OK)
    return CZ_ERR;
  int rc = tbl_scan_filter(sc, &pred, 1, e);
  if (rc == CZ_OK)
    rc = nc_scan_into(x, t, sc, rs, -1, nc_kmatch, &km, first_only, e);
  tbl_scan_close(sc);
  return rc;
}

/* ---- the referencing side ----------------------------------------------------- */

/* Rows sel[0..n) of b (the referencing table's columns, as written) and
 * foreign key co: their referenced keys probed (and locked); the absent
 * ones kept as pending. */
static int nc_fk_rows(nc_x_t *x, const cat_constraint_t *co, const batch_t *b, const int *sel, int n,
                      err_t *e)
{
  int nk = co->co_ref_index->ci_nkeys;
  datum_t **keys = arena_alloc(x->x_a, sizeof *keys * (size_t)(n + 1));
  int m = 0;
  en_cons_t *st = nc_tx_state(x->x_s, x->x_tx);
  arena_t *ta = txn_arena(x->x_tx);
  nc_list_t *l = nc_deferred_now(st, co) ? &st->nc_deferred : &st->nc_stmt;
  for (int j = 0; j < n; j++) {
    int r = sel ? sel[j] : j;
    datum_t *k = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)nk);
    int rc = nc_child_key(co, b, r, x->x_a, k, e);
    if (rc < 0)
      return CZ_ERR;
    if (rc == 0)
      continue;
    if (rc == 2)  /* no referenced row can hold it (its cast fails) */
      return nc_fk_child_error_row(co, b, r, e);
    keys[m++] = k;
  }
  if (!m)
    return CZ_OK;
  bool *found = arena_alloc(x->x_a, (size_t)m + 1);
  if (tbl_ref_probe(x->x_tx, co->co_ref, co->co_ref_index->ci_no, (const datum_t *const *)keys, m,
                    true, found, x->x_a, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < m; i++)
    if (!found[i])
      nc_pend_add(ta, l, co, 'c', keys[i]);
  return CZ_OK;
}

/* Every foreign key of t over rows sel[0..n) of b as written (those
 * with a column in set; set NULL: all). */
static int nc_fks(nc_x_t *x, const cat_table_t *t, const batch_t *b, const int *sel, int n,
                  const bool *set, err_t *e)
{
  for (int i = 0; i < t->ct_ncons; i++) {
    const cat_constraint_t *co = t->ct_cons[i];
    if (co->co_type != 'f')
      continue;
    if (set) {
      bool hit = false;
      for (int k = 0; k < co->co_nkeys && !hit; k++)
        hit = set[co->co_keys[k]];
      if (!hit)
        continue;
    }
    if (nc_fk_rows(x, co, b, sel, n, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- the referenced side ------------------------------------------------------ */

/* The referenced key of co in row r of b (the referenced table's
 * columns), index order: false when a column is NULL. */
static bool nc_parent_key(const cat_constraint_t *co, const batch_t *b, int r, datum_t *out)
{
  const cat_index_t *ix = co->co_ref_index;
  for (int j = 0; j < ix->ci_nkeys; j++) {
    vec_get(&b->b_cols[ix->ci_keys[j]], r, &out[j]);
    if (out[j].d_null)
      return false;
  }
  return true;
}

static bool nc_keys_equal(const cat_index_t *ix, const datum_t *a, const datum_t *b)
{
  for (int j = 0; j < ix->ci_nkeys; j++)
    if (datum_cmp(ty_phys(ix->ci_key_types[j].t_id), &a[j], &b[j]) != 0)
      return false;
  return true;
}

/* The value a referencing column takes for SET DEFAULT. */
static int nc_default(nc_x_t *x, const cat_table_t *t, int c, datum_t *out, err_t *e)
{
  out->d_null = true;
  if (!t->ct_cols[c].cc_default)
    return CZ_OK;
  return sql_eval_default(x->x_a, t->ct_cols[c].cc_default, t->ct_cols[c].cc_type, x->x_s, out, e);
}

/* Referenced keys ikeys[0..m) of co left the referenced table (rows
 * deleted, or their key updated to nkeys[i] when nkeys is not NULL): the
 * constraint's action on the referencing rows. */
static int nc_removed(nc_x_t *x, const cat_constraint_t *co, datum_t **ikeys, datum_t **nkeys, int m,
                      bool del, err_t *e)
{
  char action = del ? co->co_del_action : co->co_upd_action;
  const cat_table_t *ct = co->co_table;
  if (action == SQL_FK_NO_ACTION) {
    /* a key present again (written back by the same statement) is fine */
    bool *found = arena_alloc(x->x_a, (size_t)m + 1);
    if (tbl_ref_probe(x->x_tx, co->co_ref, co->co_ref_index->ci_no, (const datum_t *const *)ikeys, m,
                      true, found, x->x_a, e) != CZ_OK)
      return CZ_ERR;
    en_cons_t *st = nc_tx_state(x->x_s, x->x_tx);
    nc_list_t *l = nc_deferred_now(st, co) ? &st->nc_deferred : &st->nc_stmt;
    for (int i = 0; i < m; i++) {
      if (found[i])
        continue;
      nc_rows_t rs = {0};
      if (nc_children(x, co, &ikeys[i], 1, true, &rs, e) != CZ_OK)
        return CZ_ERR;
      if (rs.r_b && rs.r_b->b_n)
        nc_pend_add(txn_arena(x->x_tx), l, co, 'p', ikeys[i]);
    }
    return CZ_OK;
  }
  nc_rows_t rs = {0};
  if (nc_children(x, co, ikeys, m, action == SQL_FK_RESTRICT, &rs, e) != CZ_OK)
    return CZ_ERR;
  if (!rs.r_b || rs.r_b->b_n == 0)
    return CZ_OK;
  batch_t *rb = rs.r_b;
  if (action == SQL_FK_RESTRICT)
    return nc_fk_parent_error(co, ikeys[rs.r_key[0]], e);
  nc_work_t *w = arena_zalloc(x->x_a, sizeof *w);
  w->w_t = ct;
  w->w_b = rb;
  if (x->x_q.q_tail)
    x->x_q.q_tail->w_next = w;
  else
    x->x_q.q_head = w;
  x->x_q.q_tail = w;
  if (action == SQL_FK_CASCADE && del)
    return CZ_OK;
  bool *set = arena_zalloc(x->x_a, (size_t)ct->ct_ncols + 1);
  w->w_set = set;
  if (action == SQL_FK_CASCADE) {
    /* the new key into the referencing columns */
    for (int r = 0; r < rb->b_n; r++) {
      datum_t v[CAT_MAX_INDEX_KEYS];
      nc_key_co_order(co, nkeys[rs.r_key[r]], v);
      for (int k = 0; k < co->co_nkeys; k++) {
        ty_t from = co->co_ref->ct_cols[co->co_ref_keys[k]].cc_type;
        ty_t to = ct->ct_cols[co->co_keys[k]].cc_type;
        datum_t d = v[k];
        if (from.t_id != to.t_id && xcast_datum(from, &v[k], to, x->x_a, &d, e) != CZ_OK)
          return CZ_ERR;
        vec_set(&rb->b_cols[co->co_keys[k]], r, &d);
        set[co->co_keys[k]] = true;
      }
    }
  } else {
    /* SET NULL / SET DEFAULT: every key column, or those listed */
    int ncol = del && co->co_ndel_set ? co->co_ndel_set : co->co_nkeys;
    const int *which = del && co->co_ndel_set ? co->co_del_set : co->co_keys;
    for (int i = 0; i < ncol; i++) {
      int c = which[i];
      datum_t d;
      if (action == SQL_FK_SET_DEFAULT) {
        if (nc_default(x, ct, c, &d, e) != CZ_OK)
          return CZ_ERR;
      } else {
        d.d_null = true;
      }
      for (int r = 0; r < rb->b_n; r++)
        vec_set(&rb->b_cols[c], r, &d);
      set[c] = true;
    }
  }
  return CZ_OK;
}

/* Does the queued actions (which may queue more). */
static int nc_drain(nc_x_t *x, err_t *e)
{
  while (x->x_q.q_head) {
    nc_work_t *w = x->x_q.q_head;
    x->x_q.q_head = w->w_next;
    if (!x->x_q.q_head)
      x->x_q.q_tail = NULL;
    const cat_table_t *t = w->w_t;
    int rc = w->w_set ? nc_update_rows(x, t, w->w_b, t->ct_ncols, w->w_set, NULL, w->w_b->b_n,
                                       NULL, e)
                      : nc_delete_rows(x, t, w->w_b, t->ct_ncols, NULL, w->w_b->b_n, NULL, e);
    if (rc != CZ_OK)
      return CZ_ERR;
    if (es_cancel_flag(x->x_s) && *es_cancel_flag(x->x_s))
      return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  }
  return CZ_OK;
}

/* The referenced side of a delete or update of t: old holds rows
 * 0..n of the rows as they were (every column), new (update only) the
 * same rows as written. */
static int nc_refby(nc_x_t *x, const cat_table_t *t, const batch_t *old, const batch_t *nw, int n,
                    const bool *set, err_t *e)
{
  for (int i = 0; i < t->ct_nrefby; i++) {
    const cat_constraint_t *co = t->ct_refby[i];
    const cat_index_t *ix = co->co_ref_index;
    if (nw && set) {
      bool hit = false;
      for (int j = 0; j < ix->ci_nkeys && !hit; j++)
        hit = set[ix->ci_keys[j]];
      if (!hit)
        continue;
    }
    datum_t **ok = arena_alloc(x->x_a, sizeof *ok * (size_t)(n + 1));
    datum_t **nk = arena_alloc(x->x_a, sizeof *nk * (size_t)(n + 1));
    int m = 0;
    for (int r = 0; r < n; r++) {
      datum_t *k = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)ix->ci_nkeys);
      if (!nc_parent_key(co, old, r, k))
        continue;
      datum_t *k2 = NULL;
      if (nw) {
        k2 = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)ix->ci_nkeys);
        bool has = nc_parent_key(co, nw, r, k2);
        if (has && nc_keys_equal(ix, k, k2))
          continue;  /* key unchanged */
        if (!has)
          k2 = NULL;
      }
      ok[m] = k;
      nk[m++] = k2;
    }
    if (m && nc_removed(x, co, ok, nk, m, nw == NULL, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* Whether an update setting set may change a key some foreign key references. */
static bool nc_refkey_set(const cat_table_t *t, const bool *set)
{
  for (int i = 0; i < t->ct_nrefby; i++) {
    const cat_index_t *ix = t->ct_refby[i]->co_ref_index;
    for (int j = 0; j < ix->ci_nkeys; j++)
      if (!set || set[ix->ci_keys[j]])
        return true;
  }
  return false;
}

/* Rows sel[0..n) of b read by their locators (column loc): every column. */
static int nc_fetch(nc_x_t *x, const cat_table_t *t, const batch_t *b, int loc, const int *sel, int n,
                    bool want_loc, batch_t **out, bool **found_out, err_t *e)
{
  ty_t *types = arena_alloc(x->x_a, sizeof *types * (size_t)(t->ct_ncols + 1));
  int *cols = arena_alloc(x->x_a, sizeof *cols * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++) {
    types[c] = t->ct_cols[c].cc_type;
    cols[c] = c;
  }
  types[t->ct_ncols] = ty_plain(TY_BYTEA);
  batch_t *ob = batch_create(x->x_a, t->ct_ncols + (want_loc ? 1 : 0), types, n ? n : 1, e);
  bool *found = arena_alloc(x->x_a, (size_t)n + 1);
  if (!ob || tbl_fetch_locs(x->x_tx, t, b, loc, sel, n, cols, t->ct_ncols, want_loc, ob, found, x->x_a,
                            e) != CZ_OK)
    return CZ_ERR;
  *out = ob;
  if (found_out)
    *found_out = found;
  return CZ_OK;
}

/* The rows an update wrote, read back: their primary key is the
 * locator's, with the set key columns replaced by their new values. */
static int nc_fetch_new(nc_x_t *x, const cat_table_t *t, const batch_t *b, int loc, const bool *set,
                        const int *sel, int n, batch_t **out, err_t *e)
{
  const cat_index_t *pk = t->ct_indexes[0];
  int npk = pk->ci_hidden ? 1 : pk->ci_nkeys;
  const datum_t **keys = arena_alloc(x->x_a, sizeof *keys * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    int r = sel ? sel[i] : i;
    datum_t l;
    vec_get(&b->b_cols[loc], r, &l);
    datum_t *k = arena_alloc(x->x_a, sizeof(datum_t) * (size_t)npk);
    if (l.d_null || l.d_str.s_len < TBL_LOC_HASH ||
        tbl_key_decode(pk->ci_key_types, npk, (const uint8_t *)l.d_str.s_ptr, l.d_str.s_len - TBL_LOC_HASH,
                       x->x_a, k, NULL, e) != CZ_OK)
      return err_set(e, SQLSTATE_INTERNAL, "an updated row without its locator");
    if (!pk->ci_hidden)
      for (int j = 0; j < npk; j++)
        if (set[pk->ci_keys[j]])
          vec_get(&b->b_cols[pk->ci_keys[j]], r, &k[j]);
    keys[i] = k;
  }
  ty_t *types = arena_alloc(x->x_a, sizeof *types * (size_t)(t->ct_ncols + 1));
  int *cols = arena_alloc(x->x_a, sizeof *cols * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++) {
    types[c] = t->ct_cols[c].cc_type;
    cols[c] = c;
  }
  batch_t *ob = batch_create(x->x_a, t->ct_ncols, types, n ? n : 1, e);
  bool *found = arena_alloc(x->x_a, (size_t)n + 1);
  if (!ob || tbl_lookup(x->x_tx, t, keys, n, cols, t->ct_ncols, false, ob, found, x->x_a, e) != CZ_OK)
    return CZ_ERR;
  *out = ob;
  return CZ_OK;
}

/* ---- the writes ----------------------------------------------------------------- */

static int nc_insert_rows(nc_x_t *x, const cat_table_t *t, const batch_t *b, const int *sel, int n,
                          bool load, err_t *e)
{
  if (nc_checks(x, t, b, sel, n, NULL, e) != CZ_OK)
    return CZ_ERR;
  int rc = load ? tbl_insert_batch(x->x_tx, t, b, n, e) : tbl_insert(x->x_tx, t, b, sel, n, e);
  if (rc != CZ_OK)
    return CZ_ERR;
  return nc_fks(x, t, b, sel, n, NULL, e);
}

/* READ COMMITTED's recheck seen from here: the rows it skipped, so that
 * the checks after the write leave them out. */
typedef struct nc_epq_s {
  const tbl_epq_t *ne_in;
  bool *ne_skip;                /* per batch row */
} nc_epq_t;

static int nc_epq_fn(void *ctx, int r, const datum_t *cur, const uint8_t *loc, size_t loc_len,
                     bool *pass, err_t *e)
{
  nc_epq_t *w = ctx;
  if (w->ne_in->te_fn(w->ne_in->te_ctx, r, cur, loc, loc_len, pass, e) != CZ_OK)
    return CZ_ERR;
  if (!*pass)
    w->ne_skip[r] = true;
  return CZ_OK;
}

/* sel[0..*n) without the rows the recheck skipped (in x's arena). */
static const int *nc_epq_kept(nc_x_t *x, const bool *skip, const int *sel, int *n)
{
  int *kept = arena_alloc(x->x_a, sizeof(int) * (size_t)(*n + 1));
  int k = 0;
  for (int i = 0; i < *n; i++) {
    int r = sel ? sel[i] : i;
    if (!skip[r])
      kept[k++] = r;
  }
  *n = k;
  return kept;
}

static int nc_update_rows(nc_x_t *x, const cat_table_t *t, const batch_t *b, int loc, const bool *set,
                          const int *sel, int n, const tbl_epq_t *epq, err_t *e)
{
  batch_t *old = NULL;
  if (t->ct_nrefby && nc_refkey_set(t, set) &&
      nc_fetch(x, t, b, loc, sel, n, false, &old, NULL, e) != CZ_OK)
    return CZ_ERR;
  /* a full row: the CHECKs can be told before writing */
  if (!set && nc_checks(x, t, b, sel, n, NULL, e) != CZ_OK)
    return CZ_ERR;
  /* The recheck only where every check reads the rows as written (set:
   * read back below) and no old key was taken from the scan's version. */
  nc_epq_t ne = {epq, NULL};
  tbl_epq_t wrap = {nc_epq_fn, &ne};
  if (epq && set && !old)
    ne.ne_skip = arena_zalloc(x->x_a, (size_t)b->b_n + 1);
  int rc = tbl_update_epq(x->x_tx, t, b, loc, set, sel, n, ne.ne_skip ? &wrap : NULL, e);
  if (rc != CZ_OK)
    return CZ_ERR;
  if (ne.ne_skip)
    sel = nc_epq_kept(x, ne.ne_skip, sel, &n);
  const batch_t *nw = b;
  const int *nsel = sel;
  if (set) {
    /* the rows as written are read back only for a constraint that reads a set column */
    bool need = old != NULL;
    for (int i = 0; i < t->ct_ncons && !need; i++) {
      need = t->ct_cons[i]->co_nkeys == 0;
      for (int k = 0; k < t->ct_cons[i]->co_nkeys && !need; k++)
        need = set[t->ct_cons[i]->co_keys[k]];
    }
    if (!need)
      return CZ_OK;
    batch_t *fb = NULL;
    if (nc_fetch_new(x, t, b, loc, set, sel, n, &fb, e) != CZ_OK ||
        nc_checks(x, t, fb, NULL, n, set, e) != CZ_OK)
      return CZ_ERR;
    nw = fb;
    nsel = NULL;
  }
  if (nc_fks(x, t, nw, nsel, n, set, e) != CZ_OK)
    return CZ_ERR;
  if (!old)
    return CZ_OK;
  if (nsel) {
    /* the referenced side compares rows 0..n of old and new */
    ty_t *types = arena_alloc(x->x_a, sizeof *types * (size_t)(t->ct_ncols + 1));
    for (int c = 0; c < t->ct_ncols; c++)
      types[c] = t->ct_cols[c].cc_type;
    batch_t *dense = batch_create(x->x_a, t->ct_ncols, types, n ? n : 1, e);
    if (!dense)
      return CZ_ERR;
    for (int i = 0; i < n; i++)
      for (int c = 0; c < t->ct_ncols; c++) {
        datum_t d;
        vec_get(&nw->b_cols[c], nsel[i], &d);
        vec_set(&dense->b_cols[c], i, &d);
      }
    dense->b_n = n;
    nw = dense;
  }
  return nc_refby(x, t, old, nw, n, set, e);
}

static int nc_delete_rows(nc_x_t *x, const cat_table_t *t, const batch_t *b, int loc, const int *sel,
                          int n, const tbl_epq_t *epq, err_t *e)
{
  if (!t->ct_nrefby)
    return tbl_delete_epq(x->x_tx, t, b, loc, sel, n, epq, e);
  /* A referenced table: the old rows first (their keys). A row already
   * gone — deleted by a cascade of this statement (a self-reference), or
   * by a transaction that committed since it was read — is skipped, as
   * PostgreSQL skips a row deleted meanwhile. */
  batch_t *old;
  bool *found;
  if (nc_fetch(x, t, b, loc, sel, n, false, &old, &found, e) != CZ_OK)
    return CZ_ERR;
  int *keep = arena_alloc(x->x_a, sizeof(int) * (size_t)(n + 1));
  int nk = 0;
  for (int i = 0; i < n; i++)
    if (found[i]) {
      keep[nk] = sel ? sel[i] : i;
      if (nk != i)
        for (int c = 0; c < t->ct_ncols; c++) {
          datum_t d;
          vec_get(&old->b_cols[c], i, &d);
          vec_set(&old->b_cols[c], nk, &d);
        }
      nk++;
    }
  if (tbl_delete(x->x_tx, t, b, loc, keep, nk, e) != CZ_OK)
    return CZ_ERR;
  return nc_refby(x, t, old, NULL, nk, NULL, e);
}

/* ---- entry points --------------------------------------------------------------- */

static void nc_begin(nc_x_t *x, esession_t *s, txn_t *tx, arena_t *parent)
{
  x->x_s = s;
  x->x_tx = tx;
  x->x_a = arena_create(parent, "constraints");
  x->x_q = (nc_queue_t){NULL, NULL};
}

static int nc_end(nc_x_t *x, int rc)
{
  arena_destroy(x->x_a);
  return rc;
}

int en_cons_insert(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b, const int *sel,
                   int n, bool load, arena_t *parent, err_t *e)
{
  nc_x_t x;
  nc_begin(&x, s, tx, parent);
  return nc_end(&x, nc_insert_rows(&x, t, b, sel, n, load, e));
}

int en_cons_update(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b, int loc,
                   const bool *set, const int *sel, int n, const tbl_epq_t *epq, arena_t *parent,
                   err_t *e)
{
  nc_x_t x;
  nc_begin(&x, s, tx, parent);
  int rc = nc_update_rows(&x, t, b, loc, set, sel, n, epq, e);
  return nc_end(&x, rc == CZ_OK ? nc_drain(&x, e) : rc);
}

int en_cons_delete(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b, int loc,
                   const int *sel, int n, const tbl_epq_t *epq, arena_t *parent, err_t *e)
{
  nc_x_t x;
  nc_begin(&x, s, tx, parent);
  int rc = nc_delete_rows(&x, t, b, loc, sel, n, epq, e);
  return nc_end(&x, rc == CZ_OK ? nc_drain(&x, e) : rc);
}

int en_cons_conflict_open(const cat_table_t *t, const bool *set, err_t *e)
{
  if (set && t->ct_nrefby && nc_refkey_set(t, set))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "ON CONFLICT DO UPDATE cannot change a column a foreign key references");
  return CZ_OK;
}

int en_cons_conflict_after(esession_t *s, txn_t *tx, const cat_table_t *t, const batch_t *b,
                           const int *sel, int n, const uint8_t *act, const batch_t *newv,
                           const bool *set, arena_t *parent, err_t *e)
{
  nc_x_t x;
  nc_begin(&x, s, tx, parent);
  int *ins = arena_alloc(x.x_a, sizeof(int) * (size_t)(n + 1));
  int *upd = arena_alloc(x.x_a, sizeof(int) * (size_t)(n + 1));
  int ni = 0, nu = 0;
  for (int i = 0; i < n; i++) {
    int r = sel ? sel[i] : i;
    if (act[r] == TBL_CF_INSERTED)
      ins[ni++] = r;
    else if (act[r] == TBL_CF_UPDATED)
      upd[nu++] = r;
  }
  int rc = CZ_OK;
  if (ni && newv)
    rc = nc_checks(&x, t, newv, ins, ni, NULL, e) == CZ_OK ? nc_fks(&x, t, newv, ins, ni, NULL, e) : CZ_ERR;
  if (rc == CZ_OK && nu && newv)
    rc = nc_checks(&x, t, newv, upd, nu, set, e) == CZ_OK ? nc_fks(&x, t, newv, upd, nu, set, e) : CZ_ERR;
  (void)b;
  return nc_end(&x, rc);
}

/* ---- pending checks ------------------------------------------------------------- */

/* Checks the pending entries of l (those of constraint only, 0: all),
 * removing them; fails with the first still violated. */
static int nc_settle(nc_x_t *x, nc_list_t *l, cat_oid_t only, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(x->x_s);
  nc_pend_t **pp = &l->l_head;
  nc_pend_t *prev = NULL;
  while (*pp) {
    nc_pend_t *p = *pp;
    if (only && p->p_con != only) {
      prev = p;
      pp = &p->p_next;
      continue;
    }
    /* unlink first: a failure leaves the rest for nobody (the transaction fails) */
    *pp = p->p_next;
    if (l->l_tail == p)
      l->l_tail = prev;
    const cat_constraint_t *co = cat_constraint_by_oid(snap, p->p_con);
    if (!co || co->co_type != 'f')
      continue;  /* dropped since */
    bool found;
    const datum_t *k = p->p_key;
    if (tbl_ref_probe(x->x_tx, co->co_ref, co->co_ref_index->ci_no, &k, 1, true, &found, x->x_a, e) !=
        CZ_OK)
      return CZ_ERR;
    if (found)
      continue;
    nc_rows_t rs = {0};
    if (nc_children(x, co, &p->p_key, 1, true, &rs, e) != CZ_OK)
      return CZ_ERR;
    if (rs.r_b && rs.r_b->b_n)
      return p->p_side == 'c' ? nc_fk_child_error(co, p->p_key, e) : nc_fk_parent_error(co, p->p_key, e);
  }
  return CZ_OK;
}

int en_cons_stmt_end(esession_t *s, txn_t *tx, arena_t *parent, err_t *e)
{
  en_cons_t **slot = es_cons_slot(s);
  if (!*slot || !tx || (*slot)->nc_txid != txn_id(tx) || !(*slot)->nc_stmt.l_head)
    return CZ_OK;
  nc_x_t x;
  nc_begin(&x, s, tx, parent);
  return nc_end(&x, nc_settle(&x, &(*slot)->nc_stmt, 0, e));
}

int er_cons_commit(esession_t *s, err_t *e)
{
  en_cons_t **slot = es_cons_slot(s);
  txn_t *tx = es_txn(s);
  if (!*slot || !tx || (*slot)->nc_txid != txn_id(tx))
    return CZ_OK;
  if (!(*slot)->nc_deferred.l_head && !(*slot)->nc_stmt.l_head)
    return CZ_OK;
  nc_x_t x;
  nc_begin(&x, s, tx, txn_arena(tx));
  int rc = nc_settle(&x, &(*slot)->nc_stmt, 0, e);
  if (rc == CZ_OK)
    rc = nc_settle(&x, &(*slot)->nc_deferred, 0, e);
  return nc_end(&x, rc);
}

/* SET CONSTRAINTS: the constraints named (search path, or schema.name). */
static int nc_setc_find(esession_t *s, const sql_name_t *n, cat_oid_t *oids, int cap, int *nout,
                        err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  int found = 0;
  for (int i = 0; i < snap->cs_nconstraints; i++) {
    const cat_constraint_t *co = snap->cs_constraints[i];
    if (strcmp(co->co_name, n->nm_name) != 0)
      continue;
    const char *sch = co->co_table->ct_schema_name;
    if (n->nm_schema ? strcmp(sch, n->nm_schema) != 0 : !en_schema_in_path(s, sch))
      continue;
    if (co->co_type != 'f' || !co->co_deferrable)
      return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "constraint \"%s\" is not deferrable", n->nm_name);
    if (*nout + found < cap)
      oids[*nout + found] = co->co_oid;
    found++;
  }
  if (!found) {
    /* a UNIQUE or PRIMARY KEY constraint of that name is not deferrable */
    const cat_index_t *ix = cat_find_index(snap, en_name_schema(s, n), n->nm_name);
    if (ix && (ix->ci_primary || ix->ci_constraint))
      return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "constraint \"%s\" is not deferrable", n->nm_name);
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "constraint \"%s\" does not exist", n->nm_name);
  }
  *nout += found;
  return CZ_OK;
}

int en_cons_set(esession_t *s, const sql_setcons_t *sc, char *tag, size_t tagcap, err_t *e)
{
  snprintf(tag, tagcap, "SET CONSTRAINTS");
  /* outside a block: a warning, and the names are still checked (PostgreSQL) */
  bool block = es_in_block(s);
  if (!block)
    es_notice(s, "WARNING", SQLSTATE_NO_ACTIVE_TX, "SET CONSTRAINTS can only be used in transaction blocks");
  es_refresh_snapshot(s);
  int n = sc->sc_names ? sql_list_len(sc->sc_names) : 0;
  int cap = es_snapshot(s)->cs_nconstraints + 1;
  arena_t *tmp = arena_create(NULL, "set constraints");
  cat_oid_t *oids = arena_alloc(tmp, sizeof *oids * (size_t)cap);
  int no = 0;
  bool implicit;
  int rc = CZ_OK;
  for (int i = 0; i < n && rc == CZ_OK; i++)
    rc = nc_setc_find(s, sql_list_at(sc->sc_names, i), oids, cap, &no, e);
  if (rc != CZ_OK || !block || es_tx_ensure(s, &implicit, e) != CZ_OK) {
    arena_destroy(tmp);
    return rc != CZ_OK || !block ? rc : CZ_ERR;
  }
  txn_t *tx = es_txn(s);
  en_cons_t *st = nc_tx_state(s, tx);
  arena_t *ta = txn_arena(tx);
  if (!sc->sc_names) {
    oids[0] = 0;
    no = 1;
  }
  for (int i = 0; i < no; i++) {
    nc_setc_t *c = arena_alloc(ta, sizeof *c);
    c->sc_oid = oids[i];
    c->sc_deferred = sc->sc_deferred;
    c->sc_next = st->nc_setc;
    st->nc_setc = c;
  }
  if (!sc->sc_deferred) {
    /* IMMEDIATE: what was deferred for them is checked now */
    nc_x_t x;
    nc_begin(&x, s, tx, ta);
    for (int i = 0; i < no && rc == CZ_OK; i++)
      rc = nc_settle(&x, &st->nc_deferred, oids[i], e);
    nc_end(&x, rc);
  }
  arena_destroy(tmp);
  return rc;
}

/* ---- validation of existing rows (ALTER TABLE … ADD CONSTRAINT) ---------------- */

int en_cons_validate(esession_t *s, txn_t *tx, const cat_constraint_t *co, arena_t *parent, err_t *e)
{
  nc_x_t x;
  nc_begin(&x, s, tx, parent);
  const cat_table_t *t = co->co_table;
  int *cols = arena_alloc(x.x_a, sizeof *cols * (size_t)(t->ct_ncols + 1));
  ty_t *types = arena_alloc(x.x_a, sizeof *types * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++) {
    cols[c] = c;
    types[c] = t->ct_cols[c].cc_type;
  }
  xnode_t *xn = NULL;
  int rc = CZ_OK;
  if (co->co_type == 'c') {
    const char **names = arena_alloc(x.x_a, sizeof *names * (size_t)(t->ct_ncols + 1));
    for (int c = 0; c < t->ct_ncols; c++)
      names[c] = t->ct_cols[c].cc_name;
    rc = sql_bind_check(x.x_a, co->co_check, t->ct_ncols, names, t->ct_types, t->ct_name, &xn, NULL, e);
  }
  tbl_scan_t *sc = NULL;
  if (rc == CZ_OK)
    rc = tbl_scan_open(tx, t, 0, cols, t->ct_ncols, NULL, NULL, false, x.x_a, &sc, e);
  arena_t *ba = arena_create(x.x_a, "validate batch");
  batch_t *b = rc == CZ_OK ? batch_create(x.x_a, t->ct_ncols, types, 1024, e) : NULL;
  if (!b)
    rc = CZ_ERR;
  xctx_t xc = {.xc_arena = ba, .xc_session = s, .xc_cancel = es_cancel_flag(s)};
  while (rc == CZ_OK) {
    arena_reset(ba);
    if ((rc = tbl_scan_next(sc, b, ba, e)) != CZ_OK || b->b_n == 0)
      break;
    if (co->co_type == 'c') {
      vec_t out;
      if ((rc = vec_init(&out, ba, xn->x_type, b->b_n, e)) != CZ_OK ||
          (rc = xeval(&xc, xn, b, NULL, b->b_n, &out, e)) != CZ_OK)
        break;
      for (int r = 0; r < b->b_n; r++) {
        datum_t d;
        vec_get(&out, r, &d);
        if (!d.d_null && !d.d_bool) {
          rc = err_set(e, SQLSTATE_CHECK_VIOLATION, "check constraint \"%s\" of relation \"%s\" is violated by some row",
                       co->co_name, t->ct_name);
          break;
        }
      }
      continue;
    }
    /* a foreign key: the batch's keys in one probe; any absent one fails */
    int nk = co->co_ref_index->ci_nkeys;
    datum_t **keys = arena_alloc(ba, sizeof *keys * (size_t)(b->b_n + 1));
    int m = 0;
    for (int r = 0; r < b->b_n && rc == CZ_OK; r++) {
      datum_t *k = arena_alloc(ba, sizeof(datum_t) * (size_t)nk);
      int kr = nc_child_key(co, b, r, ba, k, e);
      if (kr < 0)
        rc = CZ_ERR;
      else if (kr == 2)
        rc = nc_fk_child_error_row(co, b, r, e);
      else if (kr == 1)
        keys[m++] = k;
    }
    if (rc != CZ_OK || !m)
      continue;
    bool *found = arena_alloc(ba, (size_t)m + 1);
    if ((rc = tbl_ref_probe(tx, co->co_ref, co->co_ref_index->ci_no, (const datum_t *const *)keys, m, true,
                            found, ba, e)) != CZ_OK)
      break;
    for (int i = 0; i < m; i++)
      if (!found[i]) {
        rc = nc_fk_child_error(co, keys[i], e);
        break;
      }
  }
  if (sc)
    tbl_scan_close(sc);
  return nc_end(&x, rc);
}

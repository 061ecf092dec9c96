/* cat_load — building a snapshot from the system tables.
 *
 * Design notes: every system table is scanned in key (OID) order, each
 * entry checked with txn_read_version for the loading transaction, and
 * decoded into the new snapshot's arena. Then columns and indexes are
 * attached to their tables, tree handles resolved (db_open_tree, cached
 * by the database) and the name index built. A snapshot is never changed
 * after this.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/cat_int.h"

typedef int (*cat_row_fn_t)(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
                            err_t *e);

static int cat_scan(cat_t *c, const txn_t *tx, int sys, arena_t *a, cat_row_fn_t fn, void *ctx,
                    err_t *e)
{
  bt_tree_t *t = c->c_sys[sys];
  db_tree_t *dt = db_tree_of(c->c_db, t);
  bt_cursor_t *cur;
  if (!dt)
    return err_set(e, SQLSTATE_INTERNAL, "system table %s is not a named tree", cat_sys_names[sys]);
  if (bt_cursor_open(t, &cur, e) != CZ_OK)
    return CZ_ERR;
  int rc = bt_seek(cur, NULL, 0, BT_FORWARD, e);
  while (rc == CZ_OK) {
    const void *k, *v;
    size_t kl, vl;
    rc = bt_next(cur, &k, &kl, &v, &vl, e);
    if (rc != CZ_OK)
      break;
    if (txn_read_version(tx, dt, k, kl, a, &v, &vl) == TXN_VIS_ABSENT)
      continue;
    rc = fn(ctx, k, kl, v, vl, e);
  }
  bt_cursor_close(cur);
  return rc == BT_END ? CZ_OK : rc;
}

/* A growing array in the snapshot's arena. */
typedef struct cat_vec_s {
  void *cv_p;
  int cv_n, cv_cap;
  size_t cv_elt;
} cat_vec_t;

static void *cat_vec_push(cat_vec_t *v, arena_t *a)
{
  if (v->cv_n == v->cv_cap) {
    int cap = v->cv_cap ? v->cv_cap * 2 : 16;
    void *p = arena_alloc(a, v->cv_elt * (size_t)cap);
    if (v->cv_n)
      memcpy(p, v->cv_p, v->cv_elt * (size_t)v->cv_n);
    v->cv_p = p;
    v->cv_cap = cap;
  }
  void *slot = (char *)v->cv_p + v->cv_elt * (size_t)v->cv_n++;
  memset(slot, 0, v->cv_elt);
  return slot;
}

typedef struct cat_col_rec_s {
  cat_oid_t cr_table;
  cat_column_t cr_col;
} cat_col_rec_t;

typedef struct cat_loader_s {
  arena_t *l_a;
  cat_vec_t l_schemas, l_tables, l_cols, l_indexes, l_roles, l_members, l_grants, l_seqs, l_views;
  cat_vec_t l_cons;                /* cat_constraint_t * (cat_constraint.c) */
  cat_vec_t l_comments;            /* cat_comment_t (cat_comment.c) */
  cat_vec_t l_settings;            /* cat_setting_t (cat_setting.c) */
  cat_t *l_cat;
} cat_loader_t;

static int cat_bad(const char *what, err_t *e)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed %s record in the catalog", what);
}

static int cat_ld_schema(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 4)
    return cat_bad("schema", e);
  cat_schema_t *s = cat_vec_push(&l->l_schemas, l->l_a);
  return cat_schema_decode(k, kl, v, vl, l->l_a, s, e);
}

static int cat_ld_table(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 4)
    return cat_bad("table", e);
  cat_table_t *t = arena_zalloc(l->l_a, sizeof *t);
  *(cat_table_t **)cat_vec_push(&l->l_tables, l->l_a) = t;
  cat_rbuf_t r = { v, vl, 0, false };
  t->ct_oid = cat_key_get(k, 0);
  t->ct_schema = cat_r_u32(&r);
  t->ct_owner = cat_r_u32(&r);
  t->ct_name = cat_r_str(&r, l->l_a);
  t->ct_ncols = (int)cat_r_u32(&r);
  t->ct_npk = (int)cat_r_u32(&r);
  if (r.r_bad || t->ct_npk < 0 || t->ct_npk > CAT_MAX_INDEX_KEYS)
    return cat_bad("table", e);
  int *pk = arena_alloc(l->l_a, sizeof(int) * (size_t)(t->ct_npk + 1));
  for (int i = 0; i < t->ct_npk; i++)
    pk[i] = (int)cat_r_u32(&r);
  t->ct_pk = pk;
  t->ct_pk_oid = cat_r_u32(&r);
  cat_index_t *pix = arena_zalloc(l->l_a, sizeof *pix);
  pix->ci_oid = t->ct_pk_oid;
  pix->ci_name = cat_r_str(&r, l->l_a);
  t->ct_gen = cat_r_opt_u32(&r, 0);  /* since ALTER TABLE rewrites tables */
  t->ct_layout = cat_r_opt_u8(&r, 0) == CAT_LAYOUT_COLUMN ? CAT_LAYOUT_COLUMN : CAT_LAYOUT_ROW;
  pix->ci_layout = t->ct_layout;
  char tname[40];
  cat_tree_name('t', t->ct_oid, t->ct_gen, tname, sizeof tname);
  pix->ci_tree_name = arena_strdup(l->l_a, tname);
  pix->ci_primary = true;
  pix->ci_hidden = t->ct_npk == 0;
  pix->ci_unique = true;
  pix->ci_nkeys = t->ct_npk;
  pix->ci_keys = pk;
  /* ct_indexes is filled in cat_link; keep the primary in a temporary slot */
  t->ct_indexes = (cat_index_t *const *)arena_alloc(l->l_a, sizeof(cat_index_t *));
  ((cat_index_t **)t->ct_indexes)[0] = pix;
  return r.r_bad || !t->ct_name ? cat_bad("table", e) : CZ_OK;
}

static int cat_ld_column(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 8)
    return cat_bad("column", e);
  cat_col_rec_t *c = cat_vec_push(&l->l_cols, l->l_a);
  cat_rbuf_t r = { v, vl, 0, false };
  c->cr_table = cat_key_get(k, 0);
  c->cr_col.cc_num = (int)cat_key_get(k, 1);
  c->cr_col.cc_name = cat_r_str(&r, l->l_a);
  c->cr_col.cc_type.t_id = (ty_id_t)cat_r_u32(&r);
  c->cr_col.cc_type.t_len = (int32_t)cat_r_u32(&r);
  c->cr_col.cc_type.t_prec = (int16_t)(int32_t)cat_r_u32(&r);
  c->cr_col.cc_type.t_scale = (int16_t)(int32_t)cat_r_u32(&r);
  c->cr_col.cc_not_null = cat_r_u8(&r) != 0;
  c->cr_col.cc_default = cat_r_str(&r, l->l_a);
  c->cr_col.cc_identity = (char)cat_r_opt_u8(&r, 0);  /* since identity columns */
  if (r.r_bad || !c->cr_col.cc_name || c->cr_col.cc_type.t_id >= TY_COUNT_)
    return cat_bad("column", e);
  return CZ_OK;
}

static int cat_ld_index(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 4)
    return cat_bad("index", e);
  cat_index_t *ix = arena_zalloc(l->l_a, sizeof *ix);
  *(cat_index_t **)cat_vec_push(&l->l_indexes, l->l_a) = ix;
  cat_rbuf_t r = { v, vl, 0, false };
  ix->ci_oid = cat_key_get(k, 0);
  /* ci_table is resolved by cat_link; the table OID rides in ci_no meanwhile */
  ix->ci_no = (int)cat_r_u32(&r);
  ix->ci_name = cat_r_str(&r, l->l_a);
  ix->ci_unique = cat_r_u8(&r) != 0;
  ix->ci_nkeys = (int)cat_r_u32(&r);
  if (r.r_bad || ix->ci_nkeys < 1 || ix->ci_nkeys > CAT_MAX_INDEX_KEYS)
    return cat_bad("index", e);
  int *keys = arena_alloc(l->l_a, sizeof(int) * (size_t)ix->ci_nkeys);
  for (int i = 0; i < ix->ci_nkeys; i++)
    keys[i] = (int)cat_r_u32(&r);
  ix->ci_keys = keys;
  ix->ci_ninclude = (int)cat_r_u32(&r);
  if (r.r_bad || ix->ci_ninclude < 0 || ix->ci_ninclude > CAT_MAX_INDEX_KEYS)
    return cat_bad("index", e);
  int *inc = arena_alloc(l->l_a, sizeof(int) * (size_t)(ix->ci_ninclude + 1));
  for (int i = 0; i < ix->ci_ninclude; i++)
    inc[i] = (int)cat_r_u32(&r);
  ix->ci_include = inc;
  /* since UNIQUE constraints: whether the index is one; since ALTER
   * TABLE rebuilds indexes: its trees' generation */
  ix->ci_constraint = cat_r_opt_u8(&r, 0) != 0;
  ix->ci_gen = cat_r_opt_u32(&r, 0);
  ix->ci_nulls_nd = cat_r_opt_u8(&r, 0) != 0;  /* since NULLS NOT DISTINCT */
  ix->ci_layout = cat_r_opt_u8(&r, 0) == CAT_LAYOUT_COLUMN ? CAT_LAYOUT_COLUMN : CAT_LAYOUT_ROW;
  char iname[40];
  cat_tree_name('i', ix->ci_oid, ix->ci_gen, iname, sizeof iname);
  ix->ci_tree_name = arena_strdup(l->l_a, iname);
  return r.r_bad || !ix->ci_name ? cat_bad("index", e) : CZ_OK;
}

static int cat_ld_role(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 4)
    return cat_bad("role", e);
  cat_role_t *ro = cat_vec_push(&l->l_roles, l->l_a);
  cat_rbuf_t r = { v, vl, 0, false };
  ro->cr_oid = cat_key_get(k, 0);
  ro->cr_name = cat_r_str(&r, l->l_a);
  uint8_t f = cat_r_u8(&r);
  ro->cr_superuser = f & 1;
  ro->cr_login = f & 2;
  ro->cr_createdb = f & 4;
  ro->cr_createrole = f & 8;
  ro->cr_verifier = cat_r_str(&r, l->l_a);
  /* the Digest hash came after the first databases were made: a record
   * that ends here has none */
  ro->cr_digest = r.r_off < r.r_len ? cat_r_str(&r, l->l_a) : NULL;
  return r.r_bad || !ro->cr_name ? cat_bad("role", e) : CZ_OK;
}

static int cat_ld_member(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 8)
    return cat_bad("membership", e);
  cat_member_t *m = cat_vec_push(&l->l_members, l->l_a);
  cat_rbuf_t r = { v, vl, 0, false };
  m->cm_role = cat_key_get(k, 0);
  m->cm_member = cat_key_get(k, 1);
  m->cm_grantor = cat_r_u32(&r);
  m->cm_admin = cat_r_u8(&r) != 0;
  return r.r_bad ? cat_bad("membership", e) : CZ_OK;
}

static int cat_ld_grant(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, err_t *e)
{
  cat_loader_t *l = ctx;
  if (kl != 8)
    return cat_bad("grant", e);
  cat_grant_t *g = cat_vec_push(&l->l_grants, l->l_a);
  cat_rbuf_t r = { v, vl, 0, false };
  g->cg_table = cat_key_get(k, 0);
  g->cg_grantee = cat_key_get(k, 1);
  g->cg_privs = cat_r_u32(&r);
  g->cg_grantor = cat_r_u32(&r);
  return r.r_bad ? cat_bad("grant", e) : CZ_OK;
}

static int cat_ld_sequence(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
                           err_t *e)
{
  cat_loader_t *l = ctx;
  cat_sequence_t *sq;
  if (cat_seq_decode(k, kl, v, vl, l->l_a, &sq, e) != CZ_OK)
    return CZ_ERR;
  sq->sq_rt = cat_seq_rt_get(l->l_cat, sq->sq_oid);
  *(cat_sequence_t **)cat_vec_push(&l->l_seqs, l->l_a) = sq;
  return CZ_OK;
}

static int cat_ld_view(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
                       err_t *e)
{
  cat_loader_t *l = ctx;
  cat_view_t *w;
  if (cat_view_decode(k, kl, v, vl, l->l_a, &w, e) != CZ_OK)
    return CZ_ERR;
  *(cat_view_t **)cat_vec_push(&l->l_views, l->l_a) = w;
  return CZ_OK;
}

/* ---- linking ------------------------------------------------------------ */

static int cat_ld_constraint(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
                             err_t *e)
{
  cat_loader_t *l = ctx;
  cat_constraint_t *co;
  if (cat_constraint_decode(k, kl, v, vl, l->l_a, &co, e) != CZ_OK)
    return CZ_ERR;
  *(cat_constraint_t **)cat_vec_push(&l->l_cons, l->l_a) = co;
  return CZ_OK;
}

static int cat_ld_setting(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
                          err_t *e)
{
  cat_loader_t *l = ctx;
  return cat_setting_decode(k, kl, v, vl, l->l_a, cat_vec_push(&l->l_settings, l->l_a), e);
}

static int cat_ld_comment(void *ctx, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl,
                          err_t *e)
{
  cat_loader_t *l = ctx;
  return cat_comment_decode(k, kl, v, vl, l->l_a, cat_vec_push(&l->l_comments, l->l_a), e);
}

static uint64_t cat_rel_hash(cat_oid_t schema, const char *name)
{
  return hash64(name, strlen(name), schema) | 1;
}

static const char *cat_rel_name(const void *obj, int kind, cat_oid_t *schema)
{
  if (kind == CAT_REL_INDEX) {
    const cat_index_t *ix = obj;
    *schema = ix->ci_table->ct_schema;
    return ix->ci_name;
  }
  if (kind == CAT_REL_SEQUENCE) {
    const cat_sequence_t *sq = obj;
    *schema = sq->sq_schema;
    return sq->sq_name;
  }
  if (kind == CAT_REL_VIEW) {
    const cat_view_t *w = obj;
    *schema = w->cw_schema;
    return w->cw_name;
  }
  const cat_table_t *t = obj;
  *schema = t->ct_schema;
  return t->ct_name;
}

/* The name index holds tables, indexes and sequences; the kind rides in
 * bits 1-2 of the slot's hash (CAT_REL_*). */
#define CAT_KIND_BITS ((uint64_t)6)
static void cat_rel_add(struct cat_snap_int_s *si, const void *obj, int kind)
{
  cat_oid_t schema;
  const char *name = cat_rel_name(obj, kind, &schema);
  uint64_t h = cat_rel_hash(schema, name) & ~CAT_KIND_BITS;
  size_t i = h & si->si_rel_mask;
  while (si->si_rel[i].ns_obj)
    i = (i + 1) & si->si_rel_mask;
  si->si_rel[i].ns_hash = h | ((uint64_t)kind << 1);
  si->si_rel[i].ns_obj = obj;
}

const void *cat_find_rel(const cat_snapshot_t *s, cat_oid_t schema, const char *name, int *kind)
{
  const struct cat_snap_int_s *si = s->cs_int;
  uint64_t h = cat_rel_hash(schema, name) & ~CAT_KIND_BITS;
  for (size_t i = h & si->si_rel_mask; si->si_rel[i].ns_obj; i = (i + 1) & si->si_rel_mask) {
    const cat_name_slot_t *sl = &si->si_rel[i];
    if ((sl->ns_hash & ~CAT_KIND_BITS) != h)
      continue;
    int k = (int)((sl->ns_hash & CAT_KIND_BITS) >> 1);
    cat_oid_t sch;
    const char *nm = cat_rel_name(sl->ns_obj, k, &sch);
    if (sch == schema && strcmp(nm, name) == 0) {
      if (kind)
        *kind = k;
      return sl->ns_obj;
    }
  }
  return NULL;
}

static int cat_tree(cat_t *c, const char *name, bt_tree_t **bt, db_tree_t **dt, err_t *e)
{
  if (db_open_tree(c->c_db, name, bt, e) != CZ_OK)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "the catalog names tree %s, which does not exist", name);
  *dt = db_tree_of(c->c_db, *bt);
  return *dt ? CZ_OK : err_set(e, SQLSTATE_INTERNAL, "tree %s has no directory entry", name);
}

static cat_table_t *cat_table_in(cat_vec_t *tables, cat_oid_t oid)
{
  cat_table_t **ts = tables->cv_p;
  int lo = 0, hi = tables->cv_n - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    if (ts[mid]->ct_oid == oid)
      return ts[mid];
    if (ts[mid]->ct_oid < oid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

static int cat_link(cat_t *c, cat_loader_t *l, cat_snapshot_t *s, err_t *e)
{
  arena_t *a = l->l_a;
  cat_table_t **ts = l->l_tables.cv_p;
  int nt = l->l_tables.cv_n;
  /* columns (sorted by table, then number) */
  cat_col_rec_t *cols = l->l_cols.cv_p;
  int ci = 0;
  for (int i = 0; i < nt; i++) {
    cat_table_t *t = ts[i];
    const cat_schema_t *sch = NULL;
    for (int k = 0; k < l->l_schemas.cv_n && !sch; k++)
      if (((cat_schema_t *)l->l_schemas.cv_p)[k].cs_oid == t->ct_schema)
        sch = &((cat_schema_t *)l->l_schemas.cv_p)[k];
    if (!sch)
      return cat_bad("table (schema)", e);
    t->ct_schema_name = sch->cs_name;
    t->ct_db = c->c_db;
    t->ct_rt = cat_rt_get(c, t->ct_oid);
    t->ct_version = s->cs_version;
    while (ci < l->l_cols.cv_n && cols[ci].cr_table < t->ct_oid)
      ci++;
    int first = ci;
    while (ci < l->l_cols.cv_n && cols[ci].cr_table == t->ct_oid)
      ci++;
    if (ci - first != t->ct_ncols)
      return cat_bad("table (columns)", e);
    cat_column_t *cc = arena_alloc(a, sizeof *cc * (size_t)(t->ct_ncols + 1));
    ty_t *types = arena_alloc(a, sizeof *types * (size_t)(t->ct_ncols + 1));
    for (int k = 0; k < t->ct_ncols; k++) {
      cc[k] = cols[first + k].cr_col;
      if (cc[k].cc_num != k)
        return cat_bad("table (column numbers)", e);
      types[k] = cc[k].cc_type;
    }
    t->ct_cols = cc;
    t->ct_types = types;
    char lname[40];
    cat_long_tree_name(t->ct_oid, t->ct_gen, lname, sizeof lname);
    t->ct_long_tree_name = arena_strdup(a, lname);
    if (cat_tree(c, t->ct_long_tree_name, &t->ct_long_tree, &t->ct_long_dtree, e) != CZ_OK)
      return CZ_ERR;
    for (int k = 0; k < t->ct_npk; k++)
      if (t->ct_pk[k] < 0 || t->ct_pk[k] >= t->ct_ncols)
        return cat_bad("table (primary key)", e);
  }
  /* indexes: count per table, then place */
  cat_index_t **ixs = l->l_indexes.cv_p;
  for (int i = 0; i < l->l_indexes.cv_n; i++) {
    cat_table_t *t = cat_table_in(&l->l_tables, (cat_oid_t)ixs[i]->ci_no);
    if (!t)
      return cat_bad("index (table)", e);
    ixs[i]->ci_table = t;
  }
  int total = 0;
  for (int i = 0; i < nt; i++) {
    cat_table_t *t = ts[i];
    int n = 1;
    for (int k = 0; k < l->l_indexes.cv_n; k++)
      n += ixs[k]->ci_table == t;
    cat_index_t **arr = arena_alloc(a, sizeof *arr * (size_t)n);
    arr[0] = t->ct_indexes[0];
    int w = 1;
    for (int k = 0; k < l->l_indexes.cv_n; k++)
      if (ixs[k]->ci_table == t)
        arr[w++] = ixs[k];
    t->ct_indexes = arr;
    t->ct_nindexes = n;
    total += n;
  }
  const cat_index_t **all = arena_alloc(a, sizeof *all * (size_t)(total + 1));
  int na = 0;
  for (int i = 0; i < nt; i++) {
    cat_table_t *t = ts[i];
    for (int k = 0; k < t->ct_nindexes; k++) {
      cat_index_t *ix = t->ct_indexes[k];
      ix->ci_table = t;
      ix->ci_no = k;
      if (ix->ci_primary && ix->ci_hidden) {
        static const ty_t rowid_type = { TY_INT8, -1, -1, -1, TY_UNKNOWN };
        ix->ci_key_types = &rowid_type;
      } else {
        ty_t *kt = arena_alloc(a, sizeof *kt * (size_t)(ix->ci_nkeys + 1));
        for (int j = 0; j < ix->ci_nkeys; j++) {
          if (ix->ci_keys[j] < 0 || ix->ci_keys[j] >= t->ct_ncols)
            return cat_bad("index (key column)", e);
          kt[j] = t->ct_types[ix->ci_keys[j]];
        }
        for (int j = 0; j < ix->ci_ninclude; j++)
          if (ix->ci_include[j] < 0 || ix->ci_include[j] >= t->ct_ncols)
            return cat_bad("index (include column)", e);
        ix->ci_key_types = kt;
      }
      if (cat_tree(c, ix->ci_tree_name, &ix->ci_tree, &ix->ci_dtree, e) != CZ_OK)
        return CZ_ERR;
      all[na++] = ix;
    }
  }
  /* sort all indexes by OID (insertion: catalogs are small) */
  for (int i = 1; i < na; i++) {
    const cat_index_t *x = all[i];
    int j = i - 1;
    while (j >= 0 && all[j]->ci_oid > x->ci_oid) {
      all[j + 1] = all[j];
      j--;
    }
    all[j + 1] = x;
  }
  s->cs_nschemas = l->l_schemas.cv_n;
  s->cs_schemas = l->l_schemas.cv_p;
  s->cs_ntables = nt;
  s->cs_tables = (const cat_table_t *const *)ts;
  s->cs_nindexes = na;
  s->cs_indexes = all;
  s->cs_nroles = l->l_roles.cv_n;
  s->cs_roles = l->l_roles.cv_p;
  s->cs_nmembers = l->l_members.cv_n;
  s->cs_members = l->l_members.cv_p;
  s->cs_ngrants = l->l_grants.cv_n;
  s->cs_grants = l->l_grants.cv_p;
  cat_sequence_t **sqs = l->l_seqs.cv_p;
  for (int i = 0; i < l->l_seqs.cv_n; i++) {
    const cat_schema_t *sch = NULL;
    for (int k = 0; k < l->l_schemas.cv_n && !sch; k++)
      if (((cat_schema_t *)l->l_schemas.cv_p)[k].cs_oid == sqs[i]->sq_schema)
        sch = &((cat_schema_t *)l->l_schemas.cv_p)[k];
    if (!sch)
      return cat_bad("sequence (schema)", e);
    sqs[i]->sq_schema_name = sch->cs_name;
  }
  s->cs_nsequences = l->l_seqs.cv_n;
  s->cs_sequences = (const cat_sequence_t *const *)sqs;
  cat_view_t **vws = l->l_views.cv_p;
  for (int i = 0; i < l->l_views.cv_n; i++) {
    const cat_schema_t *sch = NULL;
    for (int k = 0; k < l->l_schemas.cv_n && !sch; k++)
      if (((cat_schema_t *)l->l_schemas.cv_p)[k].cs_oid == vws[i]->cw_schema)
        sch = &((cat_schema_t *)l->l_schemas.cv_p)[k];
    if (!sch)
      return cat_bad("view (schema)", e);
    vws[i]->cw_schema_name = sch->cs_name;
  }
  s->cs_nviews = l->l_views.cv_n;
  s->cs_views = (const cat_view_t *const *)vws;
  /* name index of relations: tables and non-hidden indexes */
  struct cat_snap_int_s *si = s->cs_int;
  size_t nslots = 16;
  while (nslots < (size_t)(nt + na + l->l_seqs.cv_n + l->l_views.cv_n) * 2 + 2)
    nslots *= 2;
  si->si_rel = arena_zalloc(a, sizeof *si->si_rel * nslots);
  si->si_rel_mask = nslots - 1;
  for (int i = 0; i < nt; i++)
    cat_rel_add(si, ts[i], CAT_REL_TABLE);
  for (int i = 0; i < na; i++)
    if (!all[i]->ci_hidden)
      cat_rel_add(si, all[i], CAT_REL_INDEX);
  for (int i = 0; i < l->l_seqs.cv_n; i++)
    cat_rel_add(si, sqs[i], CAT_REL_SEQUENCE);
  for (int i = 0; i < l->l_views.cv_n; i++)
    if (vws[i]->cw_kind == 'v')  /* a materialized view's table holds its name */
      cat_rel_add(si, vws[i], CAT_REL_VIEW);
  return cat_constraint_link(s, l->l_cons.cv_p, l->l_cons.cv_n, a, e);
}

int cat_load(cat_t *c, const txn_t *tx, uint64_t version, cat_snapshot_t **out, err_t *e)
{
  *out = NULL;
  arena_t *a = arena_create(NULL, "cat_snapshot");
  cat_snapshot_t *s = arena_zalloc(a, sizeof *s);
  struct cat_snap_int_s *si = arena_zalloc(a, sizeof *si);
  si->si_arena = a;
  atomic_store(&si->si_refs, 1);
  s->cs_int = si;
  s->cs_cat = c;
  s->cs_version = version;
  cat_loader_t l = { .l_a = a, .l_cat = c };
  l.l_seqs.cv_elt = sizeof(cat_sequence_t *);
  l.l_views.cv_elt = sizeof(cat_view_t *);
  l.l_cons.cv_elt = sizeof(cat_constraint_t *);
  l.l_comments.cv_elt = sizeof(cat_comment_t);
  l.l_settings.cv_elt = sizeof(cat_setting_t);
  l.l_schemas.cv_elt = sizeof(cat_schema_t);
  l.l_tables.cv_elt = sizeof(cat_table_t *);
  l.l_cols.cv_elt = sizeof(cat_col_rec_t);
  l.l_indexes.cv_elt = sizeof(cat_index_t *);
  l.l_roles.cv_elt = sizeof(cat_role_t);
  l.l_members.cv_elt = sizeof(cat_member_t);
  l.l_grants.cv_elt = sizeof(cat_grant_t);
  int rc = cat_scan(c, tx, CAT_SYS_SCHEMAS, a, cat_ld_schema, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_TABLES, a, cat_ld_table, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_COLUMNS, a, cat_ld_column, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_INDEXES, a, cat_ld_index, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_ROLES, a, cat_ld_role, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_MEMBERS, a, cat_ld_member, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_GRANTS, a, cat_ld_grant, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_SEQUENCES, a, cat_ld_sequence, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_VIEWS, a, cat_ld_view, &l, e);
  if (rc == CZ_OK)
    rc = cat_scan(c, tx, CAT_SYS_CONSTRAINTS, a, cat_ld_constraint, &l, e);
  if (rc == CZ_OK && c->c_sys[CAT_SYS_COMMENTS])
    rc = cat_scan(c, tx, CAT_SYS_COMMENTS, a, cat_ld_comment, &l, e);
  if (rc == CZ_OK && c->c_sys[CAT_SYS_SETTINGS])
    rc = cat_scan(c, tx, CAT_SYS_SETTINGS, a, cat_ld_setting, &l, e);
  if (rc == CZ_OK)
    rc = cat_link(c, &l, s, e);
  if (rc == CZ_OK) {
    cat_comment_link(s, l.l_comments.cv_p, l.l_comments.cv_n);
    cat_setting_link(s, l.l_settings.cv_p, l.l_settings.cv_n);
  }
  if (rc != CZ_OK) {
    arena_destroy(a);
    return err_prefix(e, "load the catalog");
  }
  *out = s;
  return CZ_OK;
}

int cat_open_sys(cat_t *c, err_t *e)
{
  for (int i = 0; i < CAT_SYS_N; i++) {
    int rc = db_open_tree(c->c_db, cat_sys_names[i], &c->c_sys[i], e);
    if (rc == BT_NOT_FOUND && i >= CAT_SYS_FIRST_OPTIONAL) {
      c->c_sys[i] = NULL;  /* an older database: cat_open creates it */
      continue;
    }
    if (rc != CZ_OK)
      return rc;
  }
  return CZ_OK;
}

void cat_long_tree_name(cat_oid_t table, uint32_t gen, char *buf, size_t cap)
{
  if (gen == 0)
    snprintf(buf, cap, "l%u", (unsigned)table);
  else
    snprintf(buf, cap, "l%u_%u", (unsigned)table, (unsigned)gen);
}

uint32_t cat_table_rec_gen(const uint8_t *v, size_t vl)
{
  cat_rbuf_t r = { v, vl, 0, false };
  (void)cat_r_u32(&r); /* schema */
  (void)cat_r_u32(&r); /* owner */
  arena_t *a = arena_create(NULL, "table record");
  (void)cat_r_str(&r, a);
  (void)cat_r_u32(&r); /* ncols */
  uint32_t npk = cat_r_u32(&r);
  for (uint32_t i = 0; i < npk && !r.r_bad; i++)
    (void)cat_r_u32(&r);
  (void)cat_r_u32(&r); /* pk OID */
  (void)cat_r_str(&r, a);
  uint32_t gen = cat_r_opt_u32(&r, 0);
  arena_destroy(a);
  return r.r_bad ? 0 : gen;
}

void cat_tree_name(char kind, cat_oid_t oid, uint32_t gen, char *buf, size_t cap)
{
  if (gen == 0)
    snprintf(buf, cap, "%c%u", kind, (unsigned)oid);
  else
    snprintf(buf, cap, "%c%u_%u", kind, (unsigned)oid, (unsigned)gen);
}

cat_table_rt_t *cat_rt_get(cat_t *c, cat_oid_t oid)
{
  mutex_lock(&c->c_mx);
  cat_table_rt_t *rt = c->c_rts;
  while (rt && rt->rt_oid != oid)
    rt = rt->rt_next;
  if (!rt) {
    rt = calloc(1, sizeof *rt);
    if (!rt)
      abort(); /* as arena_alloc: out of memory is fatal */
    rt->rt_oid = oid;
    rt->rt_born_open = c->c_opened;
    mutex_init(&rt->rt_mx);
    rt->rt_next = c->c_rts;
    c->c_rts = rt;
  }
  mutex_unlock(&c->c_mx);
  return rt;
}

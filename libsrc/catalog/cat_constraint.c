/* cat_constraint — CHECK and FOREIGN KEY constraints in the catalog:
 * their system table records (sys.constraints), creation with
 * PostgreSQL's default names, dropping, and their place in a snapshot
 * (each table's own constraints and the foreign keys referencing it).
 *
 * Design notes: the catalog only records what a constraint says; the
 * engine validates rows when a constraint is added and enforces it on
 * every write (engine/runner/en_cons.c). A record names tables, columns
 * and the referenced unique index by OID and number; a snapshot resolves
 * them to pointers (cat_constraint_link) after tables and indexes are
 * linked. Record: u32 table, name, u8 type, u8 flags (1 deferrable,
 * 2 initially deferred), u32 nkeys, keys, check text (NULL for 'f'),
 * u32 referenced table, u32 referenced index, nkeys referenced keys,
 * u8 update action, u8 delete action, u8 match, u32 ndel_set, columns. */
#include <stdio.h>
#include <string.h>

#include "catalog/cat_int.h"

static int con_bad(err_t *e)
{
  return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed constraint record in the catalog");
}

int cat_constraint_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                          cat_constraint_t **out, err_t *e)
{
  if (kl != 4)
    return con_bad(e);
  cat_constraint_t *co = arena_zalloc(a, sizeof *co);
  cat_rbuf_t r = {v, vl, 0, false};
  co->co_oid = cat_key_get(k, 0);
  /* the table OIDs ride in the pointers until cat_constraint_link */
  co->co_table = (const cat_table_t *)(uintptr_t)cat_r_u32(&r);
  co->co_name = cat_r_str(&r, a);
  co->co_type = (char)cat_r_u8(&r);
  uint8_t flags = cat_r_u8(&r);
  co->co_deferrable = (flags & 1) != 0;
  co->co_deferred = (flags & 2) != 0;
  co->co_nkeys = (int)cat_r_u32(&r);
  int maxk = co->co_type == 'c' ? CAT_MAX_COLUMNS : CAT_MAX_INDEX_KEYS;
  if (r.r_bad || co->co_nkeys < 0 || co->co_nkeys > maxk || !co->co_name)
    return con_bad(e);
  int *keys = arena_alloc(a, sizeof(int) * (size_t)(co->co_nkeys + 1));
  for (int i = 0; i < co->co_nkeys; i++)
    keys[i] = (int)cat_r_u32(&r);
  co->co_keys = keys;
  co->co_check = cat_r_str(&r, a);
  co->co_ref = (const cat_table_t *)(uintptr_t)cat_r_u32(&r);
  co->co_ref_index = (const cat_index_t *)(uintptr_t)cat_r_u32(&r);
  int *rk = arena_alloc(a, sizeof(int) * (size_t)(co->co_nkeys + 1));
  if (co->co_type == 'f')
    for (int i = 0; i < co->co_nkeys; i++)
      rk[i] = (int)cat_r_u32(&r);
  co->co_ref_keys = rk;
  co->co_upd_action = (char)cat_r_u8(&r);
  co->co_del_action = (char)cat_r_u8(&r);
  co->co_match = (char)cat_r_u8(&r);
  co->co_ndel_set = (int)cat_r_u32(&r);
  if (r.r_bad || co->co_ndel_set < 0 || co->co_ndel_set > co->co_nkeys)
    return con_bad(e);
  int *ds = arena_alloc(a, sizeof(int) * (size_t)(co->co_ndel_set + 1));
  for (int i = 0; i < co->co_ndel_set; i++)
    ds[i] = (int)cat_r_u32(&r);
  co->co_del_set = ds;
  if (r.r_bad || (co->co_type != 'c' && co->co_type != 'f') || (co->co_type == 'c' && !co->co_check))
    return con_bad(e);
  *out = co;
  return CZ_OK;
}

static void con_encode(cat_wbuf_t *w, const cat_constraint_def_t *d, const char *name)
{
  cat_w_u32(w, d->nd_table);
  cat_w_str(w, name);
  cat_w_u8(w, (uint8_t)d->nd_type);
  cat_w_u8(w, (uint8_t)((d->nd_deferrable ? 1 : 0) | (d->nd_deferred ? 2 : 0)));
  cat_w_u32(w, (uint32_t)d->nd_nkeys);
  for (int i = 0; i < d->nd_nkeys; i++)
    cat_w_u32(w, (uint32_t)d->nd_keys[i]);
  cat_w_str(w, d->nd_type == 'c' ? d->nd_check : NULL);
  cat_w_u32(w, d->nd_type == 'f' ? d->nd_ref : 0);
  cat_w_u32(w, d->nd_type == 'f' ? d->nd_ref_index : 0);
  if (d->nd_type == 'f')
    for (int i = 0; i < d->nd_nkeys; i++)
      cat_w_u32(w, (uint32_t)d->nd_ref_keys[i]);
  cat_w_u8(w, (uint8_t)(d->nd_upd_action ? d->nd_upd_action : 'a'));
  cat_w_u8(w, (uint8_t)(d->nd_del_action ? d->nd_del_action : 'a'));
  cat_w_u8(w, (uint8_t)(d->nd_match ? d->nd_match : 's'));
  cat_w_u32(w, (uint32_t)d->nd_ndel_set);
  for (int i = 0; i < d->nd_ndel_set; i++)
    cat_w_u32(w, (uint32_t)d->nd_del_set[i]);
}

static const cat_table_t *con_table_in(const cat_snapshot_t *s, uintptr_t oid)
{
  return cat_table_by_oid(s, (cat_oid_t)oid);
}

int cat_constraint_link(cat_snapshot_t *s, cat_constraint_t **cons, int n, arena_t *a, err_t *e)
{
  for (int i = 0; i < n; i++) {
    cat_constraint_t *co = cons[i];
    co->co_table = con_table_in(s, (uintptr_t)co->co_table);
    if (!co->co_table)
      return con_bad(e);
    for (int k = 0; k < co->co_nkeys; k++)
      if (co->co_keys[k] < 0 || co->co_keys[k] >= co->co_table->ct_ncols)
        return con_bad(e);
    if (co->co_type != 'f') {
      co->co_ref = NULL;
      co->co_ref_index = NULL;
      continue;
    }
    co->co_ref = con_table_in(s, (uintptr_t)co->co_ref);
    co->co_ref_index = co->co_ref ? cat_index_by_oid(s, (cat_oid_t)(uintptr_t)co->co_ref_index) : NULL;
    if (!co->co_ref || !co->co_ref_index || co->co_ref_index->ci_table != co->co_ref)
      return con_bad(e);
    for (int k = 0; k < co->co_nkeys; k++)
      if (co->co_ref_keys[k] < 0 || co->co_ref_keys[k] >= co->co_ref->ct_ncols)
        return con_bad(e);
  }
  /* per table: its own, then the foreign keys naming it (arrays in OID order) */
  for (int t = 0; t < s->cs_ntables; t++) {
    cat_table_t *tb = (cat_table_t *)s->cs_tables[t];
    int own = 0, refby = 0;
    for (int i = 0; i < n; i++) {
      own += cons[i]->co_table == tb;
      refby += cons[i]->co_ref == tb;
    }
    tb->ct_ncons = own;
    tb->ct_nrefby = refby;
    tb->ct_cons = NULL;
    tb->ct_refby = NULL;
    if (!own && !refby)
      continue;
    const cat_constraint_t **o = arena_alloc(a, sizeof *o * (size_t)(own + 1));
    const cat_constraint_t **r = arena_alloc(a, sizeof *r * (size_t)(refby + 1));
    own = refby = 0;
    for (int i = 0; i < n; i++) {
      if (cons[i]->co_table == tb)
        o[own++] = cons[i];
      if (cons[i]->co_ref == tb)
        r[refby++] = cons[i];
    }
    tb->ct_cons = o;
    tb->ct_refby = r;
  }
  s->cs_nconstraints = n;
  s->cs_constraints = (const cat_constraint_t *const *)cons;
  return CZ_OK;
}

const cat_constraint_t *cat_constraint_by_oid(const cat_snapshot_t *s, cat_oid_t oid)
{
  int lo = 0, hi = s->cs_nconstraints - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    cat_oid_t m = s->cs_constraints[mid]->co_oid;
    if (m == oid)
      return s->cs_constraints[mid];
    if (m < oid)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

const cat_constraint_t *cat_find_constraint(const cat_table_t *t, const char *name)
{
  for (int i = 0; i < t->ct_ncons; i++)
    if (strcmp(t->ct_cons[i]->co_name, name) == 0)
      return t->ct_cons[i];
  return NULL;
}

/* Whether name is a constraint name of the schema: a CHECK / FOREIGN KEY
 * constraint of one of its tables, or an index (PRIMARY KEY and UNIQUE
 * constraints are named as their indexes). PostgreSQL's default names
 * avoid every constraint name of the schema (ChooseConstraintName). */
static bool con_name_used(const cat_snapshot_t *s, cat_oid_t schema, const char *name)
{
  for (int i = 0; i < s->cs_nconstraints; i++)
    if (s->cs_constraints[i]->co_table->ct_schema == schema &&
        strcmp(s->cs_constraints[i]->co_name, name) == 0)
      return true;
  int kind;
  return cat_find_rel(s, schema, name, &kind) && kind == CAT_REL_INDEX;
}

/* PostgreSQL's makeObjectName: name1_name2_label cut to CAT_MAX_NAME
 * bytes (the longer of the first two parts shortened first), then a
 * number before the label while the name is taken. */
static void con_default_name(const cat_snapshot_t *s, const cat_table_t *t,
                             const cat_constraint_def_t *d, char *out, size_t cap)
{
  char cols[256] = "";
  const char *label = d->nd_type == 'c' ? "check" : "fkey";
  if (d->nd_type == 'f' || d->nd_nkeys == 1) {
    size_t n = 0;
    for (int i = 0; i < d->nd_nkeys && n < sizeof cols - 1; i++)
      n += (size_t)snprintf(cols + n, sizeof cols - n, "%s%s", i ? "_" : "",
                            t->ct_cols[d->nd_keys[i]].cc_name);
  }
  for (int k = 0;; k++) {
    char lab[32];
    if (k == 0)
      snprintf(lab, sizeof lab, "%s", label);
    else
      snprintf(lab, sizeof lab, "%s%d", label, k);
    size_t l1 = strlen(t->ct_name), l2 = strlen(cols), room = CAT_MAX_NAME - strlen(lab) - 1 - (l2 ? 1 : 0);
    while (l1 + l2 > room) {
      if (l1 > l2)
        l1--;
      else
        l2--;
    }
    if (l2)
      snprintf(out, cap, "%.*s_%.*s_%s", (int)l1, t->ct_name, (int)l2, cols, lab);
    else
      snprintf(out, cap, "%.*s_%s", (int)l1, t->ct_name, lab);
    if (!con_name_used(s, t->ct_schema, out))
      return;
  }
}

int cat_create_constraint(cat_t *c, txn_t *tx, const cat_constraint_def_t *def, cat_oid_t *oid,
                          const char **name_out, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_table_t *t = cat_table_by_oid(s, def->nd_table);
  if (!t)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "table with OID %u does not exist", (unsigned)def->nd_table);
  if (def->nd_nkeys < 0 || def->nd_nkeys > (def->nd_type == 'c' ? CAT_MAX_COLUMNS : CAT_MAX_INDEX_KEYS))
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "cannot have more than %d keys in a foreign key",
                   CAT_MAX_INDEX_KEYS);
  char name[CAT_MAX_NAME + 16];
  if (def->nd_name) {
    if (strlen(def->nd_name) > CAT_MAX_NAME)
      return err_set(e, SQLSTATE_NAME_TOO_LONG, "constraint name \"%s\" is too long", def->nd_name);
    bool taken = cat_find_constraint(t, def->nd_name) != NULL;
    for (int i = 0; i < t->ct_nindexes && !taken; i++)
      taken = t->ct_indexes[i]->ci_name && !t->ct_indexes[i]->ci_hidden &&
              (t->ct_indexes[i]->ci_primary || t->ct_indexes[i]->ci_constraint) &&
              strcmp(t->ct_indexes[i]->ci_name, def->nd_name) == 0;
    if (taken)
      return err_set(e, SQLSTATE_DUPLICATE_OBJECT, "constraint \"%s\" for relation \"%s\" already exists",
                     def->nd_name, t->ct_name);
    snprintf(name, sizeof name, "%s", def->nd_name);
  } else {
    con_default_name(s, t, def, name, sizeof name);
  }
  cat_oid_t coid;
  if (cat_next_oid(c, tx, &coid, e) != CZ_OK)
    return CZ_ERR;
  uint8_t k[4];
  size_t cap = 256 + (def->nd_check ? strlen(def->nd_check) : 0) + 16 * (size_t)(def->nd_nkeys + 1);
  uint8_t *buf = arena_alloc(txn_arena(tx), cap);
  cat_wbuf_t w = {buf, 0, cap, false};
  con_encode(&w, def, name);
  if (w.w_over || w.w_len > BT_MAX_ROW - 8)
    return err_set(e, SQLSTATE_PROGRAM_LIMIT, "constraint \"%s\" is too long to store", name);
  if (cat_sys_put(c, tx, CAT_SYS_CONSTRAINTS, k, cat_key_oid(k, coid), &w, false, e) != CZ_OK ||
      cat_ddl_end(c, tx, e) != CZ_OK)
    return CZ_ERR;
  if (oid)
    *oid = coid;
  if (name_out)
    *name_out = arena_strdup(txn_arena(tx), name);
  return CZ_OK;
}

int cat_drop_constraint(cat_t *c, txn_t *tx, cat_oid_t con, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  if (!cat_constraint_by_oid(s, con))
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "constraint with OID %u does not exist", (unsigned)con);
  uint8_t k[4];
  if (cat_sys_del(c, tx, CAT_SYS_CONSTRAINTS, k, cat_key_oid(k, con), e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_drop_table_constraints(cat_t *c, txn_t *tx, const cat_table_t *t, err_t *e)
{
  for (int i = 0; i < t->ct_nrefby; i++) {
    const cat_constraint_t *co = t->ct_refby[i];
    if (co->co_table != t)
      return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                     "cannot drop table %s because other objects depend on it", t->ct_name);
  }
  uint8_t k[4];
  for (int i = 0; i < t->ct_ncons; i++)
    if (cat_sys_del(c, tx, CAT_SYS_CONSTRAINTS, k, cat_key_oid(k, t->ct_cons[i]->co_oid), e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

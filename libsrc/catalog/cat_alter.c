/* cat_alter — ALTER TABLE's catalog half: a table's definition replaced
 * as a whole (same OID), in the caller's transaction.
 *
 * Design notes (catalog/README.md, "ALTER TABLE"):
 * - The engine works out the table's new definition (columns, primary
 *   key, the secondary indexes it keeps or gains) from the actions of one
 *   statement; this file checks it and writes it: the sys.tables record
 *   replaced, the sys.columns records replaced (those past the new column
 *   count deleted), sys.indexes records of dropped indexes deleted, kept
 *   ones rewritten in the new column numbers, new ones added.
 * - A rewrite (ad_rewrite) gives the table a new generation: new empty
 *   trees "t<oid>_<gen>", "l<oid>_<gen>" and "i<idx>_<gen>" for every
 *   index, created through the transaction (a rollback frees them). The
 *   old trees stay readable until cat_alter_drop_trees drops them, once
 *   the caller has copied the rows (table/tb_rebuild.c). Without a
 *   rewrite only new indexes get (empty) trees; the caller fills them.
 * - OIDs and names stay: a kept index keeps its OID and name, a kept
 *   primary key its constraint OID and name, so pg_catalog and psql show
 *   the same objects after the change.
 */
#include <stdio.h>
#include <string.h>

#include "catalog/cat_int.h"

/* The new name of an unnamed new index: PostgreSQL's <table>_<cols>_key
 * (or _idx), numbered while taken by another relation or by a name this
 * definition already gives. */
static void alter_index_name(const cat_snapshot_t *s, cat_oid_t schema, const char *table,
                             const cat_alter_def_t *def, const cat_index_def_t *id,
                             const char *const *given, int ngiven, char *out, size_t cap)
{
  char base[256];
  int n = snprintf(base, sizeof base, "%s", table);
  for (int i = 0; i < id->id_nkeys && n < (int)sizeof base - 1; i++)
    n += snprintf(base + n, sizeof base - (size_t)n, "_%s", def->ad_cols[id->id_keys[i]].cd_name);
  const char *suffix = id->id_unique ? "key" : "idx";
  snprintf(out, cap, "%.*s_%s", CAT_MAX_NAME - 4, base, suffix);
  for (int k = 1;; k++) {
    bool taken = cat_find_rel(s, schema, out, NULL) != NULL;
    for (int j = 0; j < ngiven && !taken; j++)
      taken = given[j] && strcmp(given[j], out) == 0;
    if (!taken)
      break;
    snprintf(out, cap, "%.*s_%s%d", CAT_MAX_NAME - 8, base, suffix, k);
  }
}

/* Whether name may be given to a relation of t's schema: free, or held
 * by one of t's own indexes (the caller compares the names the new
 * definition gives among themselves, so a kept index's name is not given
 * twice, and a dropped one's is free again). */
static bool alter_name_free(const cat_snapshot_t *s, const cat_table_t *t, const char *name)
{
  int kind;
  const void *o = cat_find_rel(s, t->ct_schema, name, &kind);
  return !o || (kind == CAT_REL_INDEX && ((const cat_index_t *)o)->ci_table == t);
}

static int alter_check(const cat_snapshot_t *s, const cat_table_t *t, const cat_alter_def_t *def,
                       err_t *e)
{
  if (cat_name_check("table", def->ad_name, e) != CZ_OK)
    return CZ_ERR;
  if (strcmp(def->ad_name, t->ct_name) != 0 &&
      cat_rel_free(s, t->ct_schema, def->ad_name, e) != CZ_OK)
    return CZ_ERR;
  if (def->ad_ncols < 0 || def->ad_ncols > CAT_MAX_COLUMNS)
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "tables can have at most %d columns", CAT_MAX_COLUMNS);
  for (int i = 0; i < def->ad_ncols; i++) {
    const cat_column_def_t *cd = &def->ad_cols[i];
    if (cat_name_check("column", cd->cd_name, e) != CZ_OK)
      return CZ_ERR;
    if (cd->cd_type.t_id <= TY_UNKNOWN || cd->cd_type.t_id >= TY_COUNT_)
      return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "column \"%s\" has no storable type", cd->cd_name);
    for (int j = 0; j < i; j++)
      if (strcmp(cd->cd_name, def->ad_cols[j].cd_name) == 0)
        return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" of relation \"%s\" already exists",
                       cd->cd_name, def->ad_name);
  }
  if (cat_check_pk(def->ad_cols, def->ad_ncols, def->ad_pk, def->ad_npk, e) != CZ_OK)
    return CZ_ERR;
  for (int k = 0; k < def->ad_nindexes; k++) {
    const cat_index_def_t *id = &def->ad_indexes[k].ai_def;
    if (id->id_nkeys < 1 || id->id_nkeys > CAT_MAX_INDEX_KEYS || id->id_ninclude < 0 ||
        id->id_ninclude > CAT_MAX_INDEX_KEYS)
      return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "an index has 1 to %d key columns", CAT_MAX_INDEX_KEYS);
    for (int i = 0; i < id->id_nkeys; i++)
      if (id->id_keys[i] < 0 || id->id_keys[i] >= def->ad_ncols)
        return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "index column %d does not exist", id->id_keys[i]);
    for (int i = 0; i < id->id_ninclude; i++)
      if (id->id_include[i] < 0 || id->id_include[i] >= def->ad_ncols)
        return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "included column %d does not exist", id->id_include[i]);
  }
  return CZ_OK;
}

/* Whether the new primary key is the old one (its columns through the
 * column map). */
static bool alter_pk_kept(const cat_table_t *t, const cat_alter_def_t *def)
{
  if (t->ct_npk == 0 || t->ct_npk != def->ad_npk)
    return false;
  for (int i = 0; i < t->ct_npk; i++)
    if (def->ad_colmap[t->ct_pk[i]] != def->ad_pk[i])
      return false;
  return true;
}

static int alter_create_tree(txn_t *tx, const char *name, uint32_t flags, err_t *e)
{
  bt_tree_t *bt;
  return db_create_tree(tx, name, flags, &bt, e);
}

int cat_alter_table(cat_t *c, txn_t *tx, cat_oid_t table, const cat_alter_def_t *def,
                    cat_oid_t *new_oids, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  const cat_table_t *t = cat_table_by_oid(s, table);
  if (!t)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "table with OID %u does not exist", (unsigned)table);
  if (alter_check(s, t, def, e) != CZ_OK ||
      (t->ct_layout == CAT_LAYOUT_COLUMN && cat_layout_check(def->ad_cols, def->ad_ncols, e) != CZ_OK))
    return CZ_ERR;
  uint32_t gen = def->ad_rewrite ? t->ct_gen + 1 : t->ct_gen;
  /* the primary key: kept (OID and name), new, or none */
  bool kept = alter_pk_kept(t, def);
  cat_oid_t pk_oid = 0;
  char pk_name[CAT_MAX_NAME * 2 + 8];
  pk_name[0] = 0;
  if (def->ad_npk > 0) {
    if (def->ad_pk_name)
      snprintf(pk_name, sizeof pk_name, "%s", def->ad_pk_name);
    else if (kept)
      snprintf(pk_name, sizeof pk_name, "%s", t->ct_indexes[0]->ci_name);
    else
      snprintf(pk_name, sizeof pk_name, "%.58s_pkey", def->ad_name);
    bool own = kept && strcmp(pk_name, t->ct_indexes[0]->ci_name) == 0;
    if (!own && (strlen(pk_name) > CAT_MAX_NAME || !alter_name_free(s, t, pk_name) ||
                 strcmp(pk_name, def->ad_name) == 0))
      return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", pk_name);
    if (kept)
      pk_oid = t->ct_pk_oid;
    else if (cat_next_oid(c, tx, &pk_oid, e) != CZ_OK)
      return CZ_ERR;
  }
  if (!def->ad_rewrite && (def->ad_npk != t->ct_npk || (def->ad_npk > 0 && !kept)))
    return err_set(e, SQLSTATE_INTERNAL, "a new primary key needs a rewrite of table \"%s\"", t->ct_name);
  /* index names: given, kept, or made up (never twice within the definition) */
  const char **names = arena_zalloc(txn_arena(tx), sizeof(char *) * (size_t)(def->ad_nindexes + 2));
  names[def->ad_nindexes] = def->ad_npk > 0 ? pk_name : NULL;
  for (int k = 0; k < def->ad_nindexes; k++) {
    const cat_alter_index_t *ai = &def->ad_indexes[k];
    const cat_index_t *old = ai->ai_oid ? cat_index_by_oid(s, ai->ai_oid) : NULL;
    if (ai->ai_oid && (!old || old->ci_table != t))
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "index with OID %u does not exist", (unsigned)ai->ai_oid);
    if (ai->ai_def.id_name) {
      if (cat_name_check("index", ai->ai_def.id_name, e) != CZ_OK)
        return CZ_ERR;
      names[k] = ai->ai_def.id_name;
      bool own = old && strcmp(old->ci_name, names[k]) == 0;
      if (!own && (!alter_name_free(s, t, names[k]) || strcmp(names[k], def->ad_name) == 0))
        return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", names[k]);
    } else if (old) {
      names[k] = old->ci_name;
    } else {
      char buf[CAT_MAX_NAME + 16];
      alter_index_name(s, t->ct_schema, def->ad_name, def, &ai->ai_def, names, def->ad_nindexes + 1,
                       buf, sizeof buf);
      names[k] = arena_strdup(txn_arena(tx), buf);
    }
    for (int j = 0; j <= def->ad_nindexes; j++)
      if (j != k && names[j] && strcmp(names[j], names[k]) == 0)
        return err_set(e, SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists", names[k]);
  }
  /* sys.indexes: the secondary indexes the table no longer has */
  uint8_t k8[8];
  for (int i = 1; i < t->ct_nindexes; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    bool keep = false;
    for (int k = 0; k < def->ad_nindexes && !keep; k++)
      keep = def->ad_indexes[k].ai_oid == ix->ci_oid;
    if (keep)
      continue;
    if (def->ad_rewrite) {
      /* its tree goes with the others (cat_alter_drop_trees) */
      if (cat_sys_del(c, tx, CAT_SYS_INDEXES, k8, cat_key_oid(k8, ix->ci_oid), e) != CZ_OK)
        return CZ_ERR;
    } else if (cat_drop_index_rows(c, tx, ix, e) != CZ_OK) {
      return CZ_ERR;
    }
  }
  /* the trees of the new generation */
  char tree[48];
  if (def->ad_rewrite) {
    cat_tree_name('t', table, gen, tree, sizeof tree);
    if (alter_create_tree(tx, tree, cat_tree_flags(t->ct_layout), e) != CZ_OK)
      return CZ_ERR;
    cat_long_tree_name(table, gen, tree, sizeof tree);
    if (alter_create_tree(tx, tree, BT_UNIQUE, e) != CZ_OK)
      return CZ_ERR;
  }
  for (int k = 0; k < def->ad_nindexes; k++) {
    const cat_alter_index_t *ai = &def->ad_indexes[k];
    const cat_index_t *old = ai->ai_oid ? cat_index_by_oid(s, ai->ai_oid) : NULL;
    cat_oid_t ioid = ai->ai_oid;
    uint32_t igen = old ? old->ci_gen : 0;
    if (!old) {
      if (cat_next_oid(c, tx, &ioid, e) != CZ_OK)
        return CZ_ERR;
    } else if (def->ad_rewrite) {
      igen++;
    }
    if (!old || def->ad_rewrite) {
      cat_tree_name('i', ioid, igen, tree, sizeof tree);
      if (alter_create_tree(tx, tree, cat_tree_flags(ai->ai_def.id_layout), e) != CZ_OK)
        return CZ_ERR;
    }
    if (new_oids)
      new_oids[k] = old ? 0 : ioid;
    if (cat_put_index(c, tx, ioid, table, names[k], &ai->ai_def, igen, old != NULL, e) != CZ_OK)
      return CZ_ERR;
  }
  /* columns, then the table */
  for (int i = def->ad_ncols; i < t->ct_ncols; i++)
    if (cat_sys_del(c, tx, CAT_SYS_COLUMNS, k8, cat_key_oid2(k8, table, (uint32_t)i), e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < def->ad_ncols; i++) {
    bool nn = def->ad_cols[i].cd_not_null;
    for (int j = 0; j < def->ad_npk; j++)
      nn = nn || def->ad_pk[j] == i;
    char ident = def->ad_identity ? def->ad_identity[i] : 0;
    if (cat_put_column(c, tx, table, i, &def->ad_cols[i], nn, ident, true, e) != CZ_OK)
      return CZ_ERR;
  }
  if (cat_put_table(c, tx, table, t->ct_schema, t->ct_owner, def->ad_name, def->ad_ncols,
                    def->ad_npk, def->ad_pk, pk_oid, def->ad_npk > 0 ? pk_name : NULL, gen,
                    t->ct_layout, true, e) != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

int cat_alter_drop_trees(txn_t *tx, const cat_table_t *old, err_t *e)
{
  for (int i = 0; i < old->ct_nindexes; i++) {
    int rc = db_drop_tree(tx, old->ct_indexes[i]->ci_tree_name, e);
    if (rc != CZ_OK && rc != BT_NOT_FOUND)
      return CZ_ERR;
  }
  int rc = db_drop_tree(tx, old->ct_long_tree_name, e);
  return rc == BT_NOT_FOUND ? CZ_OK : rc;
}

/* en_comment — COMMENT ON TABLE / VIEW / MATERIALIZED VIEW / INDEX /
 * SEQUENCE / COLUMN / SCHEMA / CONSTRAINT … ON … IS '…' | NULL: finds the
 * object as PostgreSQL names it (errors with its SQLSTATEs and words),
 * checks ownership, and stores the description in the catalog
 * (cat_set_comment: transactional like the rest of DDL). */
#include <string.h>

#include "engine/runner/runner_int.h"

static const char *kind_word(char k)
{
  switch (k) {
  case 'v':
    return "a view";
  case 'm':
    return "a materialized view";
  case 'i':
    return "an index";
  case 'S':
    return "a sequence";
  default:
    return "a table";
  }
}

static bool may_comment(esession_t *s, cat_oid_t owner)
{
  return esession_is_superuser(s) || owner == es_role_oid(s);
}

/* The relation name names: its OID and kind ('t', 'v', 'm', 'i', 'S'),
 * and its owner. */
static int find_rel(esession_t *s, const sql_name_t *n, cat_oid_t *oid, char *kind,
                    cat_oid_t *owner, const cat_table_t **table, const cat_view_t **view, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  *table = NULL;
  *view = NULL;
  char k = cat_find_relation(snap, en_name_schema(s, n), n->nm_name, oid);
  if (!k) {
    e->er_pos = n->nm_pos;
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", n->nm_name);
  }
  *owner = 0;
  if (k == 't') {
    *table = cat_table_by_oid(snap, *oid);
    const cat_view_t *w = cat_find_view(snap, en_name_schema(s, n), n->nm_name);
    if (w && w->cw_kind == 'm')
      k = 'm';
    if (*table)
      *owner = (*table)->ct_owner;
  } else if (k == 'v') {
    *view = cat_find_view(snap, en_name_schema(s, n), n->nm_name);
    if (*view)
      *owner = (*view)->cw_owner;
  } else if (k == 'i') {
    const cat_index_t *ix = cat_index_by_oid(snap, *oid);
    if (ix && ix->ci_table)
      *owner = ix->ci_table->ct_owner;
  } else if (k == 'S') {
    const cat_sequence_t *sq = cat_sequence_by_oid(snap, *oid);
    if (sq)
      *owner = sq->sq_owner;
  }
  *kind = k;
  return CZ_OK;
}

int en_comment(esession_t *s, const sql_comment_t *cm, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(s);
  cat_oid_t classoid = CAT_CLASS_PG_CLASS, oid = 0, owner = 0;
  int32_t subid = 0;
  if (cm->cm_kind == 'n') {
    const cat_schema_t *sc = cat_find_schema(snap, cm->cm_name.nm_name);
    if (!sc)
      return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist",
                     cm->cm_name.nm_name);
    if (!esession_is_superuser(s))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of schema %s", sc->cs_name);
    classoid = CAT_CLASS_PG_NAMESPACE;
    oid = sc->cs_oid;
  } else {
    char kind = 0;
    const cat_table_t *t;
    const cat_view_t *w;
    if (find_rel(s, &cm->cm_name, &oid, &kind, &owner, &t, &w, e) != CZ_OK)
      return CZ_ERR;
    const char *name = cm->cm_name.nm_name;
    switch (cm->cm_kind) {
    case 'c': {
      /* a column of a table, view or materialized view */
      if (t) {
        int col;
        if (cat_lookup_column(t, cm->cm_sub, &col, e) != CZ_OK)
          return CZ_ERR;
        subid = col + 1;
      } else if (w) {
        for (int i = 0; i < w->cw_ncols && !subid; i++)
          if (strcmp(w->cw_colnames[i], cm->cm_sub) == 0)
            subid = i + 1;
        if (!subid)
          return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist",
                         cm->cm_sub, name);
      } else {
        return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE,
                       "cannot set comment on relation \"%s\"", name);
      }
      break;
    }
    case 'k': {
      if (kind != 't' || !t)
        return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a table", name);
      const cat_constraint_t *found = NULL;
      for (int i = 0; i < t->ct_ncons && !found; i++)
        if (strcmp(t->ct_cons[i]->co_name, cm->cm_sub) == 0)
          found = t->ct_cons[i];
      if (!found)
        return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist",
                       cm->cm_sub, name);
      classoid = CAT_CLASS_PG_CONSTRAINT;
      oid = found->co_oid;
      break;
    }
    default:
      if (kind != cm->cm_kind) {
        e->er_pos = cm->cm_name.nm_pos;
        return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not %s", name, kind_word(cm->cm_kind));
      }
      break;
    }
    if (!may_comment(s, owner))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of relation %s", name);
  }
  if (cat_set_comment(es_engine(s)->en_cat, es_txn(s), classoid, oid, subid, cm->cm_text, e) !=
      CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  return CZ_OK;
}

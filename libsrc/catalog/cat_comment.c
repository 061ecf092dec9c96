/* cat_comment — COMMENT ON: descriptions of catalog objects in
 * sys.comments, transactional like all DDL, and their place in a
 * snapshot (what pg_description, obj_description and col_description
 * read).
 *
 * Design notes: a description is named as PostgreSQL's pg_description
 * names it: (class OID, object OID, sub-id), the class one of
 * PostgreSQL's catalog OIDs (CAT_CLASS_*: pg_class for tables, views,
 * indexes and sequences, with the column number as sub-id for a column;
 * pg_namespace, pg_constraint). Key: three big-endian u32; value: the
 * text (a string record). Setting NULL or '' deletes it, as PostgreSQL
 * does. A snapshot keeps only descriptions whose object it has: a dropped
 * object's description is ignored from then on (OIDs are not reused), so
 * DROP needs no step of its own. */
#include <string.h>

#include "catalog/cat_int.h"

static size_t cm_key(uint8_t *k, cat_oid_t classoid, cat_oid_t objoid, int32_t subid)
{
  cat_key_oid2(k, classoid, objoid);
  return 8 + cat_key_oid(k + 8, (uint32_t)subid);
}

int cat_comment_decode(const uint8_t *k, size_t kl, const uint8_t *v, size_t vl, arena_t *a,
                       cat_comment_t *out, err_t *e)
{
  cat_rbuf_t r = {v, vl, 0, false};
  if (kl != 12)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed comment record in the catalog");
  out->cm_classoid = cat_key_get(k, 0);
  out->cm_objoid = cat_key_get(k, 1);
  out->cm_subid = (int32_t)cat_key_get(k, 2);
  out->cm_text = cat_r_str(&r, a);
  if (r.r_bad || !out->cm_text)
    return err_set(e, SQLSTATE_DATA_CORRUPTED, "malformed comment record in the catalog");
  return CZ_OK;
}

/* Whether the snapshot has the object a description names. */
static bool cm_alive(const cat_snapshot_t *s, const cat_comment_t *cm)
{
  cat_oid_t o = cm->cm_objoid;
  switch (cm->cm_classoid) {
  case CAT_CLASS_PG_CLASS: {
    const cat_table_t *t = cat_table_by_oid(s, o);
    if (t)
      return cm->cm_subid >= 0 && cm->cm_subid <= t->ct_ncols;
    const cat_view_t *w = cat_view_by_oid(s, o);
    if (w)
      return cm->cm_subid >= 0 && cm->cm_subid <= w->cw_ncols;
    return cm->cm_subid == 0 && (cat_index_by_oid(s, o) || cat_sequence_by_oid(s, o));
  }
  case CAT_CLASS_PG_NAMESPACE:
    return cat_schema_by_oid(s, o) != NULL;
  case CAT_CLASS_PG_CONSTRAINT:
    return cat_constraint_by_oid(s, o) != NULL;
  default:
    return false;
  }
}

void cat_comment_link(cat_snapshot_t *s, cat_comment_t *cms, int n)
{
  int k = 0;
  for (int i = 0; i < n; i++)
    if (cm_alive(s, &cms[i]))
      cms[k++] = cms[i];
  s->cs_ncomments = k;
  s->cs_comments = cms;
}

const char *cat_comment(const cat_snapshot_t *s, cat_oid_t classoid, cat_oid_t objoid,
                        int32_t subid)
{
  /* the array is in key order: (class, object, sub-id) */
  int lo = 0, hi = s->cs_ncomments - 1;
  while (lo <= hi) {
    int mid = (lo + hi) / 2;
    const cat_comment_t *m = &s->cs_comments[mid];
    int c = m->cm_classoid != classoid ? (m->cm_classoid < classoid ? -1 : 1)
            : m->cm_objoid != objoid   ? (m->cm_objoid < objoid ? -1 : 1)
            : m->cm_subid != subid     ? ((uint32_t)m->cm_subid < (uint32_t)subid ? -1 : 1)
                                       : 0;
    if (c == 0)
      return m->cm_text;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

int cat_set_comment(cat_t *c, txn_t *tx, cat_oid_t classoid, cat_oid_t objoid, int32_t subid,
                    const char *text, err_t *e)
{
  const cat_snapshot_t *s;
  if (cat_ddl_begin(c, tx, &s, e) != CZ_OK)
    return CZ_ERR;
  if (!c->c_sys[CAT_SYS_COMMENTS])
    return err_set(e, SQLSTATE_INTERNAL, "the catalog has no comments table");
  uint8_t k[12];
  size_t kl = cm_key(k, classoid, objoid, subid);
  int rc;
  if (!text || !*text) {
    rc = cat_sys_del(c, tx, CAT_SYS_COMMENTS, k, kl, e);
  } else {
    size_t cap = strlen(text) + 16;
    cat_wbuf_t w = {arena_alloc(txn_arena(tx), cap), 0, cap, false};
    cat_w_str(&w, text);
    rc = cat_sys_put(c, tx, CAT_SYS_COMMENTS, k, kl, &w, true, e);
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  return cat_ddl_end(c, tx, e);
}

/* cat_view_text — a view's query text rendered with the names its
 * objects have now, and the column dependencies the same notes give.
 *
 * Design notes (catalog/README.md, "Views"): the text is kept as written;
 * cw_refs says which bytes of it name which relation (by OID) or table
 * column (by table OID and column number). Rendering copies the text and
 * puts each noted object's current name, quoted as needed, where its old
 * one was — unless the name there already is the object's (so a view
 * nothing was renamed under renders exactly as written). A select-list
 * item that is a renamed column alone gets `AS <view column>`, so the
 * view's column keeps its name, as PostgreSQL's deparsed form does. An
 * object that is gone keeps its old name (the binder then reports it). */
#include <ctype.h>
#include <string.h>

#include "catalog/cat_int.h"

/* The identifier the bytes t[0..n) spell: quoted (with "" inside) or
 * folded to lower case. */
static char *token_name(arena_t *a, const char *t, size_t n)
{
  char *o = arena_alloc(a, n + 1);
  size_t k = 0;
  if (n >= 2 && t[0] == '"') {
    for (size_t i = 1; i + 1 < n; i++) {
      o[k++] = t[i];
      if (t[i] == '"' && t[i + 1] == '"')
        i++;
    }
  } else {
    for (size_t i = 0; i < n; i++)
      o[k++] = (char)tolower((unsigned char)t[i]);
  }
  o[k] = '\0';
  return o;
}

static const char *current_name(const cat_snapshot_t *s, const cat_view_ref_t *f)
{
  if (f->vr_kind == 'n') {
    const cat_schema_t *sc = cat_schema_by_oid(s, f->vr_oid);
    return sc ? sc->cs_name : NULL;
  }
  if (f->vr_kind == 'c') {
    const cat_table_t *t = cat_table_by_oid(s, f->vr_oid);
    return t && f->vr_col >= 0 && f->vr_col < t->ct_ncols ? t->ct_cols[f->vr_col].cc_name : NULL;
  }
  const cat_view_t *v = cat_view_by_oid(s, f->vr_oid);
  if (v)
    return v->cw_name;
  const cat_table_t *t = cat_table_by_oid(s, f->vr_oid);
  return t ? t->ct_name : NULL;
}

/* Whether the relation name at q[off, off + len) is written bare in FROM:
 * not after a schema's dot, nor the qualifier before a column's dot
 * (`t.a`, which names the FROM item, not the relation), nor a whole-row
 * argument alone in parentheses (`row_to_json(t)`: a FROM item is never
 * a lone name in parentheses). */
static bool bare_relation(const char *q, size_t qlen, uint32_t off, uint32_t len)
{
  size_t i = off;
  while (i > 0 && isspace((unsigned char)q[i - 1]))
    i--;
  if (i > 0 && q[i - 1] == '.')
    return false;
  size_t j = (size_t)off + len;
  while (j < qlen && isspace((unsigned char)q[j]))
    j++;
  if (i > 0 && q[i - 1] == '(' && j < qlen && q[j] == ')')
    return false;
  return j >= qlen || q[j] != '.';
}

/* The schema of relation oid (a view, a table or a sequence), or NULL. */
static const char *relation_schema(const cat_snapshot_t *s, cat_oid_t oid)
{
  const cat_view_t *v = cat_view_by_oid(s, oid);
  if (v)
    return v->cw_schema_name;
  const cat_table_t *t = cat_table_by_oid(s, oid);
  if (t)
    return t->ct_schema_name;
  const cat_sequence_t *sq = cat_sequence_by_oid(s, oid);
  return sq ? sq->sq_schema_name : NULL;
}

const char *cat_view_text(arena_t *a, const cat_snapshot_t *s, const cat_view_t *w,
                          char *(*quote)(const char *name, arena_t *a),
                          bool (*visible)(const void *ctx, cat_oid_t rel), const void *ctx)
{
  const char *q = w->cw_query;
  size_t qlen = strlen(q), len = 0, cap = qlen + 1, at = 0;
  char *out = NULL;
  /* the refs in text order (as the binder met them: sort here) */
  int n = w->cw_nrefs;
  const cat_view_ref_t **order = arena_alloc(a, sizeof(*order) * (size_t)(n + 1));
  int m = 0;
  for (int i = 0; i < n; i++) {
    const cat_view_ref_t *f = &w->cw_refs[i];
    if (f->vr_kind == 'd' || f->vr_len == 0)
      continue;
    int j = m++;
    while (j > 0 && order[j - 1]->vr_off > f->vr_off) {
      order[j] = order[j - 1];
      j--;
    }
    order[j] = f;
  }
  for (int i = 0; i < m; i++) {
    const cat_view_ref_t *f = order[i];
    if (f->vr_off < at)
      continue;  /* overlapping notes: the first wins */
    const char *now = current_name(s, f);
    const char *was = token_name(a, q + f->vr_off, f->vr_len);
    const char *schema = NULL;
    if (now && f->vr_kind == 'r' && bare_relation(q, qlen, f->vr_off, f->vr_len) &&
        (!visible || !visible(ctx, f->vr_oid)))
      schema = relation_schema(s, f->vr_oid);
    if (!now || (strcmp(now, was) == 0 && !schema))
      continue;
    const char *alias = NULL;
    if (f->vr_alias > 0 && f->vr_alias <= w->cw_ncols &&
        strcmp(now, w->cw_colnames[f->vr_alias - 1]) != 0)
      alias = w->cw_colnames[f->vr_alias - 1];
    const char *put = quote(now, a);
    if (schema)
      put = arena_sprintf(a, "%s.%s", quote(schema, a), put);
    const char *as = alias ? quote(alias, a) : NULL;
    size_t need = len + (f->vr_off - at) + strlen(put) + (as ? strlen(as) + 4 : 0) +
                  (qlen - f->vr_off) + 1;
    if (!out || need > cap) {
      size_t ncap = need > cap * 2 ? need : cap * 2;
      char *nb = arena_alloc(a, ncap);
      if (out)
        memcpy(nb, out, len);
      out = nb;
      cap = ncap;
    }
    memcpy(out + len, q + at, f->vr_off - at);
    len += f->vr_off - at;
    memcpy(out + len, put, strlen(put));
    len += strlen(put);
    if (as) {
      memcpy(out + len, " AS ", 4);
      len += 4;
      memcpy(out + len, as, strlen(as));
      len += strlen(as);
    }
    at = f->vr_off + f->vr_len;
  }
  if (!out)
    return q;
  memcpy(out + len, q + at, qlen - at);
  len += qlen - at;
  out[len] = '\0';
  return out;
}

bool cat_view_uses_column(const cat_view_t *w, cat_oid_t table, int col)
{
  for (int i = 0; i < w->cw_nrefs; i++) {
    const cat_view_ref_t *f = &w->cw_refs[i];
    if ((f->vr_kind == 'c' || f->vr_kind == 'd') && f->vr_oid == table && f->vr_col == col)
      return true;
  }
  return false;
}

/* sql_bind_refs — CREATE VIEW's notes on the names of its query: which
 * stored relation or column each name resolved to, and which columns the
 * query uses at all (sp_env_t pe_refs, sp_refs_t).
 *
 * Design notes: the engine keeps a view's text as written plus these
 * notes by OID and column number, and renders the text back with the
 * names the objects have now — PostgreSQL's stored parse tree, in the
 * form Cadenza keeps (catalog/README.md, "Views"). Only names of the
 * view's own text are noted (b_view_depth 0): a view it reads keeps its
 * own notes. Range entries of a merged view's items are hidden and
 * belong to that view, so their columns are not the new view's. */
#include <string.h>

#include "sql/sql_bind_int.h"

static void note(bd_t *b, int pos, int part, char kind, uint32_t oid, int col)
{
  sp_refs_t *rs = b->b_env ? b->b_env->pe_refs : NULL;
  if (!rs || b->b_view_depth > 0 || oid == 0)
    return;
  for (int i = 0; i < rs->rs_n; i++) {
    const sp_ref_t *r = &rs->rs_refs[i];
    if (r->rf_pos == pos && r->rf_part == part && r->rf_kind == kind && r->rf_oid == oid &&
        r->rf_col == col)
      return;  /* a name bound twice (GROUP BY's copy, a retried binding) */
  }
  if (rs->rs_n == rs->rs_cap) {
    int cap = rs->rs_cap ? rs->rs_cap * 2 : 16;
    sp_ref_t *n = arena_alloc(rs->rs_a, sizeof(*n) * (size_t)cap);
    if (rs->rs_n)
      memcpy(n, rs->rs_refs, sizeof(*n) * (size_t)rs->rs_n);
    rs->rs_refs = n;
    rs->rs_cap = cap;
  }
  rs->rs_refs[rs->rs_n++] = (sp_ref_t){pos, part, kind, oid, col};
}

void bd_ref_relation(bd_t *b, const sql_name_t *n, uint32_t oid)
{
  note(b, n->nm_pos, n->nm_schema ? 1 : 0, 'r', oid, -1);
}

void bd_ref_column(bd_t *b, const sql_expr_t *x, const bd_rel_t *rel, int col)
{
  if (!rel || rel->rl_hidden)
    return;
  int parts = (x->ex_schema ? 1 : 0) + (x->ex_table ? 1 : 0);
  uint32_t oid = rel->rl_table ? rel->rl_table->tb_oid : rel->rl_view_oid;
  if (rel->rl_table && !rel->rl_map)
    note(b, x->ex_pos, parts, 'c', oid, col);
  /* t.a with t the relation's own name (no alias): the qualifier is its name */
  if (x->ex_table && rel->rl_schema)
    note(b, x->ex_pos, parts - 1, 'r', oid, -1);
}

void bd_ref_use(bd_t *b, const bd_scope_t *sc, int index)
{
  if (!b->b_env || !b->b_env->pe_refs || b->b_view_depth > 0)
    return;
  for (int r = 0; r < sc->sc_nrels; r++) {
    const bd_rel_t *rel = sc->sc_rels[r];
    if (rel->rl_hidden || rel->rl_map || !rel->rl_table || index < rel->rl_base ||
        index >= rel->rl_base + rel->rl_ncols)
      continue;
    note(b, 0, 0, 'd', rel->rl_table->tb_oid, index - rel->rl_base);
    return;
  }
}

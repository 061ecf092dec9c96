/* sp_compile — the SPARQL-to-SQL compiler: a query's algebra (spec §18.2)
 * to one SQL SELECT over pg_rdf.rdf_quad and the dictionaries, which the
 * engine then parses, binds, plans and runs like any SQL statement — so
 * the optimizer picks the join order from the data, and EXPLAIN shows it.
 *
 * Design notes: every algebra operator becomes a SELECT whose columns are
 * its variables (quoted variable names, int8 term ids; a SQL NULL is an
 * unbound variable), nested as derived tables. The compiler tracks, per
 * variable, whether it may be unbound, so joins compare certainly-bound
 * variables with plain equality (an index key for the planner) and only
 * possibly-unbound ones with SPARQL's compatible-mapping test. Constants
 * are term ids (sp_sql_text.c). Values are decoded only at the top, by
 * rdf_term(id), into N-Triples form. Filters work on ids: term equality,
 * numbers through the order-preserving inline ids (rdf README "Term
 * ids"); anything that needs a decoded value or a new term (STR, REGEX,
 * arithmetic…) is refused with 0A000 rather than answered wrongly.
 * README.md "Compiler" gives the SQL shape of each operator. */#include <inttypes.h>
#include <string.h>

#include "sparql/sp_compile_int.h"

int cp_unsupported(cp_t *c, const char *what)
{
  return err_set(c->cp_e, SQLSTATE_FEATURE_NOT_SUPPORTED, "SPARQL feature %s is not supported yet",
                 what);
}

char *cp_fresh(cp_t *c, const char *stem)
{
  return arena_sprintf(c->cp_a, "%s%d", stem, ++c->cp_alias);
}

char *cp_cat(cp_t *c, const char *a, const char *sep, const char *b)
{
  if (!a || !*a)
    return arena_strdup(c->cp_a, b);
  return arena_sprintf(c->cp_a, "%s%s%s", a, sep, b);
}

int cp_find(const cp_rel_t *r, const char *name)
{
  for (int i = 0; i < r->cr_n; i++)
    if (strcmp(r->cr_v[i].cv_name, name) == 0)
      return i;
  return -1;
}

void cp_rel_init(cp_t *c, cp_rel_t *r, int cap)
{
  r->cr_sql = NULL;
  r->cr_n = 0;
  r->cr_v = arena_zalloc(c->cp_a, sizeof(cp_var_t) * (size_t)(cap + 1));
}

/* A variable's column name: its name; blank-node, path-step and aggregate
 * variables (tm_anon) get a leading '?', so they never meet a variable of
 * the query and SELECT * leaves them out. */
const char *cp_vname(cp_t *c, const sp_term_t *t)
{
  return t->tm_anon ? arena_sprintf(c->cp_a, "?%s", t->tm_str) : t->tm_str;
}

char *cp_col(cp_t *c, const char *alias, const char *name)
{
  return arena_sprintf(c->cp_a, "%s.%s", alias, sp_sql_ident(c->cp_a, name));
}

/* "expr AS name, …" for the variables of r, each from exprs[i]; a
 * placeholder column when there are none (SQL wants one). */
char *cp_select_list(cp_t *c, const cp_rel_t *r, char **exprs)
{
  char *s = NULL;
  for (int i = 0; i < r->cr_n; i++)
    s = cp_cat(c, s, ", ",
               arena_sprintf(c->cp_a, "%s AS %s", exprs[i], sp_sql_ident(c->cp_a, r->cr_v[i].cv_name)));
  return s ? s : arena_strdup(c->cp_a, "1 AS \"?unit\"");
}

/* All columns of r taken over from alias. */
char *cp_passthrough(cp_t *c, const cp_rel_t *r, const char *alias)
{
  char **ex = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(r->cr_n + 1));
  for (int i = 0; i < r->cr_n; i++)
    ex[i] = cp_col(c, alias, r->cr_v[i].cv_name);
  return cp_select_list(c, r, ex);
}

/* ---- joins ---------------------------------------------------------------- */

/* Join and LeftJoin: a's and b's variables merged; shared ones compared
 * with plain equality when both are certainly bound, else with SPARQL's
 * compatibility (equal, or either unbound) and merged with COALESCE. */
static int cp_join(cp_t *c, const sp_op_t *op, bool left, cp_rel_t *out)
{
  cp_rel_t a, b;
  /* A path next to a pattern binding one of its ends runs from that
   * pattern's values (sp_compile_path.c), read from a WITH query (cte)
   * that the join reads too; an OPTIONAL's left side is never narrowed
   * by its right. */
  char *cte = cp_fresh(c, "w");
  bool seeded = false, a_seeds = true;
  if (!left && op->op_a->op_kind == SP_OP_PATH && op->op_b->op_kind != SP_OP_PATH) {
    a_seeds = false;
    if (cp_op(c, op->op_b, &b) != CZ_OK || cp_path_seeded(c, op->op_a, &b, cte, &a, &seeded) != CZ_OK)
      return CZ_ERR;
  } else if (cp_op(c, op->op_a, &a) != CZ_OK ||
             (op->op_b->op_kind == SP_OP_PATH ? cp_path_seeded(c, op->op_b, &a, cte, &b, &seeded)
                                              : cp_op(c, op->op_b, &b)) != CZ_OK) {
    return CZ_ERR;
  }
  char *aa = cp_fresh(c, "j"), *ba = cp_fresh(c, "j");
  cp_rel_init(c, out, a.cr_n + b.cr_n);
  char **ex = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(a.cr_n + b.cr_n + 1));
  char *on = NULL;
  for (int i = 0; i < a.cr_n; i++) {
    const cp_var_t *va = &a.cr_v[i];
    int j = cp_find(&b, va->cv_name);
    char *ca = cp_col(c, aa, va->cv_name);
    out->cr_v[out->cr_n] = *va;
    if (j < 0) {
      ex[out->cr_n++] = ca;
      continue;
    }
    const cp_var_t *vb = &b.cr_v[j];
    if (va->cv_count || vb->cv_count)
      return cp_unsupported(c, "joining on an aggregate's value");
    char *cb = cp_col(c, ba, vb->cv_name);
    /* A computed term meets an id: both as text (README "Computed terms"). */
    bool text = va->cv_text || vb->cv_text;
    char *eq = cp_var_eq(c, va, ca, vb, cb);
    if (text) {
      out->cr_v[out->cr_n].cv_text = true;
      ca = cp_var_text(c, va, ca);
      cb = cp_var_text(c, vb, cb);
    }
    if (!va->cv_maybe_null && !vb->cv_maybe_null) {
      on = cp_cat(c, on, " AND ", eq);
      ex[out->cr_n++] = ca;
    } else {
      on = cp_cat(c, on, " AND ",
                  arena_sprintf(c->cp_a, "(%s OR %s IS NULL OR %s IS NULL)", eq, ca, cb));
      ex[out->cr_n] = arena_sprintf(c->cp_a, "COALESCE(%s, %s)", ca, cb);
      out->cr_v[out->cr_n++].cv_maybe_null = va->cv_maybe_null && (vb->cv_maybe_null || left);
    }
  }
  for (int j = 0; j < b.cr_n; j++) {
    if (cp_find(&a, b.cr_v[j].cv_name) >= 0)
      continue;
    out->cr_v[out->cr_n] = b.cr_v[j];
    out->cr_v[out->cr_n].cv_maybe_null |= left;
    ex[out->cr_n++] = cp_col(c, ba, b.cr_v[j].cv_name);
  }
  if (left && op->op_exprs && op->op_exprs->ls_n) {
    /* The OPTIONAL's filter sees the merged solution: its variables are
     * the merged expressions, evaluated in the ON condition. */
    cp_scope_t sc = {.sc_rel = out, .sc_exprs = ex};
    char *cond;
    bool in_on = c->cp_in_on;
    c->cp_in_on = true; /* the engine takes no subquery in a join condition */
    int rc = cp_conj(c, &sc, op->op_exprs, &cond);
    c->cp_in_on = in_on;
    if (rc != CZ_OK)
      return CZ_ERR;
    on = cp_cat(c, on, " AND ", cond);
  }
  char *asql = arena_sprintf(c->cp_a, "(%s)", a.cr_sql), *bsql = arena_sprintf(c->cp_a, "(%s)", b.cr_sql);
  char *with = arena_strdup(c->cp_a, "");
  if (seeded) {
    with = arena_sprintf(c->cp_a, "WITH %s AS MATERIALIZED %s ", cte, a_seeds ? asql : bsql);
    if (a_seeds)
      asql = cte;
    else
      bsql = cte;
  }
  out->cr_sql = arena_sprintf(c->cp_a, "%sSELECT %s FROM %s %s %s JOIN %s %s ON %s", with,
                              cp_select_list(c, out, ex), asql, aa, left ? "LEFT" : "INNER", bsql, ba,
                              on ? on : "1 = 1");
  return CZ_OK;
}

static int cp_union(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  cp_rel_t a, b;
  if (cp_op(c, op->op_a, &a) != CZ_OK || cp_op(c, op->op_b, &b) != CZ_OK)
    return CZ_ERR;
  cp_rel_init(c, out, a.cr_n + b.cr_n);
  for (int i = 0; i < a.cr_n; i++) {
    out->cr_v[out->cr_n] = a.cr_v[i];
    out->cr_v[out->cr_n++].cv_maybe_null |= cp_find(&b, a.cr_v[i].cv_name) < 0;
  }
  for (int j = 0; j < b.cr_n; j++) {
    int i = cp_find(out, b.cr_v[j].cv_name);
    if (i >= 0) {
      if (out->cr_v[i].cv_count != b.cr_v[j].cv_count)
        return cp_unsupported(c, "UNION of an aggregate's value with terms");
      out->cr_v[i].cv_maybe_null |= b.cr_v[j].cv_maybe_null;
      out->cr_v[i].cv_text |= b.cr_v[j].cv_text;
      continue;
    }
    out->cr_v[out->cr_n] = b.cr_v[j];
    out->cr_v[out->cr_n++].cv_maybe_null = true;
  }
  char *ua = cp_fresh(c, "u"), *ub = cp_fresh(c, "u");
  char **ea = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(out->cr_n + 1));
  char **eb = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(out->cr_n + 1));
  for (int i = 0; i < out->cr_n; i++) {
    const char *n = out->cr_v[i].cv_name;
    int ia = cp_find(&a, n), ib = cp_find(&b, n);
    const char *null = out->cr_v[i].cv_text ? "CAST(NULL AS text)" : "CAST(NULL AS int8)";
    ea[i] = ia >= 0 ? cp_col(c, ua, n) : (char *)null;
    eb[i] = ib >= 0 ? cp_col(c, ub, n) : (char *)null;
    /* one side's ids become text where the other side computed terms */
    if (out->cr_v[i].cv_text && ia >= 0 && !a.cr_v[ia].cv_text)
      ea[i] = cp_var_text(c, &a.cr_v[ia], ea[i]);
    if (out->cr_v[i].cv_text && ib >= 0 && !b.cr_v[ib].cv_text)
      eb[i] = cp_var_text(c, &b.cr_v[ib], eb[i]);
  }
  out->cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s UNION ALL SELECT %s FROM (%s) %s",
                              cp_select_list(c, out, ea), a.cr_sql, ua, cp_select_list(c, out, eb),
                              b.cr_sql, ub);
  return CZ_OK;
}

/* Minus(A, B): A's solutions with no compatible solution of B that shares
 * a bound variable with it (§18.5). */
static int cp_minus(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  cp_rel_t b;
  if (cp_op(c, op->op_a, out) != CZ_OK || cp_op(c, op->op_b, &b) != CZ_OK)
    return CZ_ERR;
  char *ma = cp_fresh(c, "m"), *mb = cp_fresh(c, "m");
  char *compat = NULL, *shared = NULL;
  for (int i = 0; i < out->cr_n; i++) {
    int j = cp_find(&b, out->cr_v[i].cv_name);
    if (j < 0)
      continue;
    if (out->cr_v[i].cv_count || b.cr_v[j].cv_count)
      return cp_unsupported(c, "MINUS on an aggregate's value");
    char *ca = cp_col(c, ma, out->cr_v[i].cv_name), *cb = cp_col(c, mb, b.cr_v[j].cv_name);
    bool nullable = out->cr_v[i].cv_maybe_null || b.cr_v[j].cv_maybe_null;
    char *eq = cp_var_eq(c, &out->cr_v[i], ca, &b.cr_v[j], cb);
    compat = cp_cat(c, compat, " AND ",
                    nullable ? arena_sprintf(c->cp_a, "(%s OR %s IS NULL OR %s IS NULL)", eq, ca, cb)
                             : eq);
    /* the active graph is no variable of either side (graph-minus) */
    if (!cp_is_graph_col(out->cr_v[i].cv_name))
      shared = cp_cat(c, shared, " OR ", eq);
  }
  if (!shared)
    return CZ_OK; /* no shared variable: nothing is removed */
  out->cr_sql = arena_sprintf(c->cp_a,
                              "SELECT %s FROM (%s) %s WHERE NOT EXISTS (SELECT 1 FROM (%s) %s WHERE %s"
                              " AND (%s))",
                              cp_passthrough(c, out, ma), out->cr_sql, ma, b.cr_sql, mb, compat, shared);
  return CZ_OK;
}

static int cp_filter(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  if (cp_op(c, op->op_a, out) != CZ_OK)
    return CZ_ERR;
  char *fa = cp_fresh(c, "f");
  cp_scope_t sc = {.sc_alias = fa, .sc_rel = out};
  char *cond;
  if (cp_conj(c, &sc, op->op_exprs, &cond) != CZ_OK)
    return CZ_ERR;
  out->cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s WHERE %s", cp_passthrough(c, out, fa),
                              out->cr_sql, fa, cond ? cond : "TRUE");
  return CZ_OK;
}

bool cp_is_graph_col(const char *name)
{
  return strncmp(name, "?" CP_GRAPH_STEM, strlen("?" CP_GRAPH_STEM)) == 0;
}

const char *cp_graph_col(const cp_t *c)
{
  return c->cp_gkind == CP_G_VAR && c->cp_gterm->tm_anon ? arena_sprintf(c->cp_a, "?%s", c->cp_gterm->tm_str) : NULL;
}

/* The named graphs of the dataset, one row each, as the column of the
 * hidden graph variable in force (GRAPH ?g {} : an empty BGP). */
static int cp_graph_list(cp_t *c, cp_rel_t *out)
{
  sp_op_t empty = {.op_kind = SP_OP_BGP};
  return cp_bgp(c, &empty, out);
}

/* GRAPH ?var { P } after P (compiled with the hidden graph column hn):
 * §18.6's union over the named graphs of Join(P's solutions in that graph,
 * {?var → graph}). P's own ?var, if it binds one, is an ordinary variable
 * that must agree with the graph; where P leaves the graph open (VALUES,
 * a union branch without triples) every named graph pairs with it. */
static int cp_graph_bind(cp_t *c, const sp_term_t *var, const char *hn, const cp_rel_t *in, cp_rel_t *out)
{
  const char *gn = cp_vname(c, var);
  int hi = cp_find(in, hn), gi = cp_find(in, gn);
  char *ia = cp_fresh(c, "gr");
  char *from = arena_sprintf(c->cp_a, "(%s) %s", in->cr_sql, ia);
  char *hcol;
  if (hi < 0 || in->cr_v[hi].cv_maybe_null) {
    cp_rel_t gl;
    if (cp_graph_list(c, &gl) != CZ_OK)
      return CZ_ERR;
    char *la = cp_fresh(c, "gl");
    hcol = cp_col(c, la, hn);
    from = hi < 0 ? arena_sprintf(c->cp_a, "%s, (%s) %s", from, gl.cr_sql, la)
                  : arena_sprintf(c->cp_a, "%s JOIN (%s) %s ON (%s = %s OR %s IS NULL)", from, gl.cr_sql, la,
                                  cp_col(c, ia, hn), hcol, cp_col(c, ia, hn));
  } else {
    hcol = cp_col(c, ia, hn);
  }
  cp_var_t hv = {.cv_name = hn};
  cp_rel_init(c, out, in->cr_n + 1);
  char **ex = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(in->cr_n + 2));
  char *where = NULL;
  for (int i = 0; i < in->cr_n; i++) {
    if (i == hi)
      continue;
    const cp_var_t *v = &in->cr_v[i];
    char *col = cp_col(c, ia, v->cv_name);
    out->cr_v[out->cr_n] = *v;
    if (i == gi) {
      if (v->cv_count)
        return cp_unsupported(c, "GRAPH ?g with ?g an aggregate's value");
      char *eq = cp_var_eq(c, v, col, &hv, hcol);
      where = v->cv_maybe_null ? arena_sprintf(c->cp_a, "(%s OR %s IS NULL)", eq, col) : eq;
      if (v->cv_text)
        col = arena_sprintf(c->cp_a, "COALESCE(%s, %s)", col, cp_var_text(c, &hv, hcol));
      else
        col = hcol;
      out->cr_v[out->cr_n].cv_maybe_null = false;
    }
    ex[out->cr_n++] = col;
  }
  if (gi < 0) {
    out->cr_v[out->cr_n] = (cp_var_t){.cv_name = gn};
    ex[out->cr_n++] = hcol;
  }
  out->cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM %s%s%s", cp_select_list(c, out, ex), from,
                              where ? " WHERE " : "", where ? where : "");
  return CZ_OK;
}

/* GRAPH: a constant graph is a condition on every quad below; GRAPH ?var
 * evaluates its pattern per named graph (§18.6), so the pattern's quads
 * carry a hidden graph column (CP_GRAPH_STEM) that joins, unions, MINUS,
 * groups and subqueries inside keep as a shared key but never as one of
 * the pattern's variables — ?var inside is an ordinary variable
 * (graph-variable-scope, sq03, graph-minus) — and only here becomes ?var. */
static int cp_graph(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  cp_gkind_t gk = c->cp_gkind;
  const sp_term_t *gt = c->cp_gterm;
  int rc;
  if (op->op_term->tm_kind == SP_T_VAR) {
    sp_term_t *h = arena_zalloc(c->cp_a, sizeof(*h));
    h->tm_kind = SP_T_VAR;
    h->tm_anon = true;
    h->tm_str = arena_sprintf(c->cp_a, CP_GRAPH_STEM "%d", ++c->cp_alias);
    c->cp_gkind = CP_G_VAR;
    c->cp_gterm = h;
    cp_rel_t in;
    rc = cp_op(c, op->op_a, &in);
    if (rc == CZ_OK)
      rc = cp_graph_bind(c, op->op_term, cp_vname(c, h), &in, out);
  } else {
    c->cp_gkind = CP_G_CONST;
    c->cp_gterm = op->op_term;
    rc = cp_op(c, op->op_a, out);
  }
  c->cp_gkind = gk;
  c->cp_gterm = gt;
  return rc;
}

/* Extend: each (?v, expr) a column over the previous; only a variable's
 * value or an aggregate's result can be bound today (new terms need the
 * dictionaries at run time). */
static int cp_extend_binds(cp_t *c, const sp_op_t *op, cp_rel_t *out);

static int cp_extend(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  if (cp_op(c, op->op_a, out) != CZ_OK)
    return CZ_ERR;
  /* the solution an Extend's expressions see is its input's (so two
   * BNODE("a") of one SELECT give one blank node) */
  int solution_vars = c->cp_solution_vars;
  c->cp_solution_vars = out->cr_n;
  int rc = cp_extend_binds(c, op, out);
  c->cp_solution_vars = solution_vars;
  return rc;
}

static int cp_extend_binds(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  for (int k = 0; k < op->op_binds->ls_n; k++) {
    const sp_selitem_t *b = op->op_binds->ls_v[k];
    const sp_expr_t *x = b->si_expr;
    char *ea = cp_fresh(c, "e");
    char *val;
    cp_var_t nv;
    if (x->ex_kind == SP_E_TERM && x->ex_term->tm_kind == SP_T_VAR) {
      int i = cp_find(out, cp_vname(c, x->ex_term));
      val = i >= 0 ? cp_col(c, ea, cp_vname(c, x->ex_term)) : "CAST(NULL AS int8)";
      nv = i >= 0 ? out->cr_v[i] : (cp_var_t){.cv_maybe_null = true};
    } else {
      /* a computed value: an id when the expression is a stored term's,
       * else a term in text (an error leaves the variable unbound) */
      cp_scope_t sc = {.sc_alias = ea, .sc_rel = out};
      if (cp_value(c, &sc, x, &val, &nv) != CZ_OK)
        return CZ_ERR;
    }
    nv.cv_name = cp_vname(c, b->si_var);
    char *pass = out->cr_n ? cp_passthrough(c, out, ea) : NULL;
    char *cols = arena_sprintf(c->cp_a, "%s%s%s AS %s", pass ? pass : "", pass ? ", " : "", val,
                               sp_sql_ident(c->cp_a, nv.cv_name));
    cp_rel_t grown;
    cp_rel_init(c, &grown, out->cr_n + 1);
    memcpy(grown.cr_v, out->cr_v, sizeof(cp_var_t) * (size_t)out->cr_n);
    grown.cr_n = out->cr_n;
    grown.cr_v[grown.cr_n++] = nv;
    grown.cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s", cols, out->cr_sql, ea);
    *out = grown;
  }
  return CZ_OK;
}

/* Group: keys that are variables, COUNT aggregates. */
static int cp_group(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  cp_rel_t in;
  if (cp_op(c, op->op_a, &in) != CZ_OK)
    return CZ_ERR;
  int nk = op->op_binds ? op->op_binds->ls_n : 0, na = op->op_aggs ? op->op_aggs->ls_n : 0;
  char *ga = cp_fresh(c, "g");
  cp_rel_init(c, out, nk + na + 1);
  char **ex = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(nk + na + 2));
  char *keys = NULL;
  /* GROUP BY expressions: computed as columns of the input first. */
  char *extra = NULL;
  const char **kname = arena_zalloc(c->cp_a, sizeof(char *) * (size_t)(nk + 1));
  cp_rel_t grown;
  cp_rel_init(c, &grown, in.cr_n + nk);
  memcpy(grown.cr_v, in.cr_v, sizeof(cp_var_t) * (size_t)in.cr_n);
  grown.cr_n = in.cr_n;
  char *gi = cp_fresh(c, "gi");
  for (int k = 0; k < nk; k++) {
    const sp_selitem_t *b = op->op_binds->ls_v[k];
    const sp_expr_t *x = b->si_expr;  /* NULL: a bare variable, si_var */
    if (!x || (x->ex_kind == SP_E_TERM && x->ex_term->tm_kind == SP_T_VAR &&
               (!b->si_var || strcmp(cp_vname(c, b->si_var), cp_vname(c, x->ex_term)) == 0))) {
      kname[k] = x ? cp_vname(c, x->ex_term) : cp_vname(c, b->si_var);
      continue;
    }
    cp_scope_t ksc = {.sc_alias = gi, .sc_rel = &in};
    char *val;
    cp_var_t kv;
    if (cp_value(c, &ksc, x, &val, &kv) != CZ_OK)
      return CZ_ERR;
    kv.cv_name = b->si_var ? cp_vname(c, b->si_var) : cp_fresh(c, "?gk");
    kname[k] = kv.cv_name;
    grown.cr_v[grown.cr_n++] = kv;
    extra = cp_cat(c, extra, ", ", arena_sprintf(c->cp_a, "%s AS %s", val, sp_sql_ident(c->cp_a, kv.cv_name)));
  }
  if (extra) {
    char *pass = in.cr_n ? cp_passthrough(c, &in, gi) : NULL;
    grown.cr_sql = arena_sprintf(c->cp_a, "SELECT %s%s%s FROM (%s) %s", pass ? pass : "", pass ? ", " : "", extra,
                                 in.cr_sql, gi);
    in = grown;
  }
  /* Inside GRAPH ?var the groups are per graph (the active graph a key);
   * without GROUP BY each named graph has its one group even when no
   * solution falls in it (agg-empty-group-count-graph): the graphs left
   * joined with the solutions, a row marker telling real rows apart for
   * COUNT(*). */
  const char *hn = cp_graph_col(c), *marker = NULL;
  if (hn && cp_find(&in, hn) >= 0) {
    if (nk == 0) {
      cp_rel_t gl;
      if (cp_graph_list(c, &gl) != CZ_OK)
        return CZ_ERR;
      char *la = cp_fresh(c, "gl"), *ra = cp_fresh(c, "gr");
      marker = "?row";
      char *cols = NULL;
      for (int i = 0; i < in.cr_n; i++) {
        in.cr_v[i].cv_maybe_null = true;
        if (strcmp(in.cr_v[i].cv_name, hn) != 0)
          cols = cp_cat(c, cols, ", ", cp_col(c, ra, in.cr_v[i].cv_name));
      }
      in.cr_sql = arena_sprintf(c->cp_a, "SELECT %s AS %s%s%s, %s.%s FROM (%s) %s LEFT JOIN (SELECT %s, 1 AS %s FROM (%s) %s) %s ON %s = %s",
                                cp_col(c, la, hn), sp_sql_ident(c->cp_a, hn), cols ? ", " : "", cols ? cols : "", ra,
                                sp_sql_ident(c->cp_a, marker), gl.cr_sql, la, cp_passthrough(c, &in, "gm"),
                                sp_sql_ident(c->cp_a, marker), in.cr_sql, "gm", ra, cp_col(c, ra, hn), cp_col(c, la, hn));
      in.cr_v[cp_find(&in, hn)].cv_maybe_null = false;
    }
    out->cr_v[out->cr_n] = in.cr_v[cp_find(&in, hn)];
    ex[out->cr_n++] = cp_col(c, ga, hn);
    keys = cp_cat(c, keys, ", ", cp_col(c, ga, hn));
  }
  for (int k = 0; k < nk; k++) {
    const char *name = kname[k];
    int i = cp_find(&in, name);
    char *col = i >= 0 ? cp_col(c, ga, name) : "CAST(NULL AS int8)";
    out->cr_v[out->cr_n] = i >= 0 ? in.cr_v[i] : (cp_var_t){.cv_name = name, .cv_maybe_null = true};
    ex[out->cr_n++] = col;
    if (i >= 0)
      keys = cp_cat(c, keys, ", ", col);
  }
  for (int k = 0; k < na; k++) {
    const sp_selitem_t *b = op->op_aggs->ls_v[k];
    const sp_expr_t *x = b->si_expr;
    const sp_expr_t *v0 = x->ex_star ? NULL : x->ex_args->ls_v[0];
    if (strcmp(x->ex_name, "count") != 0 ||
        (v0 && (v0->ex_kind != SP_E_TERM || v0->ex_term->tm_kind != SP_T_VAR))) {
      cp_scope_t asc = {.sc_alias = ga, .sc_rel = &in};
      char *val;
      cp_var_t av;
      if (cp_aggregate(c, &asc, x, &val, &av) != CZ_OK)
        return CZ_ERR;
      av.cv_name = cp_vname(c, b->si_var);
      out->cr_v[out->cr_n] = av;
      ex[out->cr_n++] = val;
      continue;
    }
    char *arg = marker ? cp_col(c, ga, marker) : "*";
    if (!x->ex_star) {
      const sp_expr_t *v = x->ex_args->ls_v[0];
      int i = cp_find(&in, cp_vname(c, v->ex_term));
      arg = i >= 0 ? cp_col(c, ga, cp_vname(c, v->ex_term)) : "CAST(NULL AS int8)";
    } else if (x->ex_distinct) {
      /* COUNT(DISTINCT *): distinct solutions over the visible variables,
       * each row one text key that is never NULL (an unbound variable is
       * "~"; a text value is length-prefixed, so no two rows meet). */
      char *row = NULL;
      for (int i = 0; i < in.cr_n; i++) {
        const cp_var_t *v = &in.cr_v[i];
        if (v->cv_name[0] == '?')
          continue;
        char *col = cp_col(c, ga, v->cv_name);
        char *k = v->cv_text ? arena_sprintf(c->cp_a, "CAST(length(%1$s) AS text) || ':' || %1$s", col)
                             : arena_sprintf(c->cp_a, "CAST(%s AS text)", col);
        row = cp_cat(c, row, " || ',' || ", arena_sprintf(c->cp_a, "COALESCE(%s, '~')", k));
      }
      arg = row ? row : "1";
      if (marker)
        arg = arena_sprintf(c->cp_a, "CASE WHEN %s IS NOT NULL THEN %s END", cp_col(c, ga, marker), arg);
    }
    out->cr_v[out->cr_n] = (cp_var_t){.cv_name = cp_vname(c, b->si_var), .cv_count = true};
    ex[out->cr_n++] = arena_sprintf(c->cp_a, "count(%s%s)", x->ex_distinct ? "DISTINCT " : "", arg);
  }
  out->cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM (%s) %s%s%s", cp_select_list(c, out, ex), in.cr_sql,
                              ga, keys ? " GROUP BY " : "", keys ? keys : "");
  return CZ_OK;
}

/* ---- solution modifiers ------------------------------------------------------ */

/* ORDER BY keys over alias: SPARQL's order of terms (unbound, blank nodes,
 * IRIs, literals), numbers by value, then booleans, dates and dateTimes by
 * value (instants: inline ids as they are; a value the literal dictionary
 * holds, "01"^^xsd:integer, as the id its value would have:
 * sparql_order_num), the rest by sparql_order_key of their text (IRIs and
 * strings by their characters, a string before its extensions: the
 * N-Triples text would put <…/a1> after <…/a10>, its `>` against `0`). */
static int cp_order_keys(cp_t *c, const sp_list_t *order, const cp_rel_t *r, const char *alias, char **out)
{
  *out = NULL;
  for (int k = 0; k < order->ls_n; k++) {
    const sp_order_t *o = order->ls_v[k];
    const sp_expr_t *x = o->or_expr;
    const char *dir = o->or_desc ? " DESC" : "";
    int i = x->ex_kind == SP_E_TERM && x->ex_term->tm_kind == SP_T_VAR ? cp_find(r, cp_vname(c, x->ex_term)) : -2;
    if (i == -1)
      continue; /* always unbound: orders nothing */
    if (i == -2 || r->cr_v[i].cv_text) {
      cp_scope_t sc = {.sc_alias = alias, .sc_rel = r};
      char *key;
      if (cp_order_expr(c, &sc, x, dir, &key) != CZ_OK)
        return CZ_ERR;
      *out = cp_cat(c, *out, ", ", key);
      continue;
    }
    char *v = cp_col(c, alias, cp_vname(c, x->ex_term));
    if (r->cr_v[i].cv_count) {
      *out = cp_cat(c, *out, ", ", arena_sprintf(c->cp_a, "%s%s", v, dir));
      continue;
    }
    *out = cp_cat(c, *out, ", ",
                  arena_sprintf(c->cp_a,
                                "CASE WHEN %1$s IS NULL THEN 0 WHEN %1$s >= 0 AND %1$s < " CP_IRI_LO
                                " THEN 1 WHEN %1$s >= 0 AND %1$s < " CP_LIT_LO " THEN 2 ELSE 3 END%2$s,"
                                " CASE WHEN %1$s < 0 OR %1$s >= " CP_INLINE_LO " THEN %1$s WHEN %1$s >= " CP_LIT_LO
                                " THEN sparql_order_num(rdf_term(%1$s)) END%2$s,"
                                " CASE WHEN %1$s >= 0 THEN sparql_order_key(rdf_term(%1$s)) END%2$s",
                                v, dir));
  }
  return CZ_OK;
}

/* Whether x reads a variable of core that proj does not keep (ORDER BY
 * under DISTINCT sees only the projected variables). */
static bool cp_reads_hidden(cp_t *c, const sp_expr_t *x, const cp_rel_t *proj, const cp_rel_t *core)
{
  if (!x)
    return false;
  if (x->ex_kind == SP_E_TERM)
    return x->ex_term->tm_kind == SP_T_VAR && cp_find(proj, cp_vname(c, x->ex_term)) < 0 &&
           cp_find(core, cp_vname(c, x->ex_term)) >= 0;
  if (x->ex_kind == SP_E_EXISTS || x->ex_kind == SP_E_NOTEXISTS)
    return true; /* its pattern may read any of them */
  if (cp_reads_hidden(c, x->ex_a, proj, core) || cp_reads_hidden(c, x->ex_b, proj, core))
    return true;
  for (int i = 0; x->ex_args && i < x->ex_args->ls_n; i++)
    if (cp_reads_hidden(c, x->ex_args->ls_v[i], proj, core))
      return true;
  return false;
}

/* A term id or count column as text (N-Triples). */
static char *cp_out_col(cp_t *c, const cp_var_t *v, const char *alias)
{
  char *col = cp_col(c, alias, v->cv_name);
  return cp_var_text(c, v, col);
}

/* Slice(Distinct(Project(Order(X)))) — each optional — as one SELECT;
 * top: the columns decoded to text and named after the variables. */
static int cp_modifiers(cp_t *c, const sp_op_t *op, bool top, cp_rel_t *out)
{
  const sp_op_t *slice = NULL, *project = NULL, *order = NULL;
  bool distinct = false;
  if (op->op_kind == SP_OP_SLICE) {
    slice = op;
    op = op->op_a;
  }
  if (op->op_kind == SP_OP_DISTINCT || op->op_kind == SP_OP_REDUCED) {
    distinct = op->op_kind == SP_OP_DISTINCT;
    op = op->op_a;
  }
  if (op->op_kind == SP_OP_PROJECT) {
    project = op;
    op = op->op_a;
  }
  if (op->op_kind == SP_OP_ORDER) {
    order = op;
    op = op->op_a;
  }
  cp_rel_t core;
  if (cp_op(c, op, &core) != CZ_OK)
    return CZ_ERR;
  /* The projected variables (all of X's without a Project). */
  cp_rel_t proj;
  int nv = project ? project->op_vars->ls_n : core.cr_n;
  cp_rel_init(c, &proj, nv + 1);
  for (int i = 0; i < nv; i++) {
    const char *name = project ? cp_vname(c, (const sp_term_t *)project->op_vars->ls_v[i]) : core.cr_v[i].cv_name;
    if (!project && name[0] == '?')
      continue; /* SELECT *: not the hidden variables */
    int j = cp_find(&core, name);
    proj.cr_v[proj.cr_n++] = j >= 0 ? core.cr_v[j] : (cp_var_t){.cv_name = name, .cv_maybe_null = true};
  }
  /* A subquery inside GRAPH ?var keeps the active graph (sq03: its ?var
   * is its own variable, the graph a hidden column). */
  const char *hn = top ? NULL : cp_graph_col(c);
  int hj = hn ? cp_find(&core, hn) : -1;
  if (hj >= 0)
    proj.cr_v[proj.cr_n++] = core.cr_v[hj];
  int np = proj.cr_n;
  char *ca = cp_fresh(c, "r");
  char **ex = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(np + 1));
  for (int i = 0; i < np; i++)
    ex[i] = cp_find(&core, proj.cr_v[i].cv_name) >= 0 ? cp_col(c, ca, proj.cr_v[i].cv_name)
                                                     : "CAST(NULL AS int8)";
  char *from = arena_sprintf(c->cp_a, "(%s) %s", core.cr_sql, ca);
  const cp_rel_t *keyrel = &core;
  const char *keyalias = ca;
  if (distinct) {
    /* DISTINCT first, ordered outside: ORDER BY may then name only
     * projected variables. */
    char *da = cp_fresh(c, "d");
    from = arena_sprintf(c->cp_a, "(SELECT DISTINCT %s FROM %s) %s", cp_select_list(c, &proj, ex), from, da);
    for (int i = 0; i < np; i++)
      ex[i] = cp_col(c, da, proj.cr_v[i].cv_name);
    keyrel = &proj;
    keyalias = da;
    if (order)
      for (int k = 0; k < order->op_order->ls_n; k++) {
        const sp_expr_t *x = ((const sp_order_t *)order->op_order->ls_v[k])->or_expr;
        if (cp_reads_hidden(c, x, &proj, &core))
          return cp_unsupported(c, "DISTINCT with ORDER BY a variable that is not selected");
      }
  }
  char *keys = NULL;
  if (order && cp_order_keys(c, order->op_order, keyrel, keyalias, &keys) != CZ_OK)
    return CZ_ERR;
  char *sel;
  if (top) {
    sel = NULL;
    for (int i = 0; i < np; i++) {
      const char *alias = distinct ? keyalias : ca;
      char *v = cp_find(&core, proj.cr_v[i].cv_name) >= 0 ? cp_out_col(c, &proj.cr_v[i], alias)
                                                          : "CAST(NULL AS text)";
      sel = cp_cat(c, sel, ", ", arena_sprintf(c->cp_a, "%s AS %s", v, sp_sql_ident(c->cp_a, proj.cr_v[i].cv_name)));
    }
    if (!sel)
      sel = "1 AS \"?unit\"";
  } else {
    sel = cp_select_list(c, &proj, ex);
  }
  if (hj >= 0 && slice && (slice->op_length >= 0 || slice->op_start > 0)) {
    /* LIMIT / OFFSET inside GRAPH ?var: per graph (the pattern is
     * evaluated in each graph), numbered within each graph's rows */
    char *sa = cp_fresh(c, "sl");
    int64_t start = slice->op_start > 0 ? slice->op_start : 0; /* -1: no OFFSET */
    char *cond = arena_sprintf(c->cp_a, "%s.\"?rn\" > %" PRId64, sa, start);
    if (slice->op_length >= 0)
      cond = arena_sprintf(c->cp_a, "%s AND %s.\"?rn\" <= %" PRId64, cond, sa, start + slice->op_length);
    proj.cr_sql = arena_sprintf(c->cp_a,
                                "SELECT %s FROM (SELECT %s, row_number() OVER (PARTITION BY %s%s%s) AS \"?rn\" FROM %s) %s"
                                " WHERE %s",
                                cp_passthrough(c, &proj, sa), sel, cp_col(c, keyalias, hn), keys ? " ORDER BY " : "",
                                keys ? keys : "", from, sa, cond);
    *out = proj;
    return CZ_OK;
  }
  char *tail = arena_strdup(c->cp_a, "");
  if (keys)
    tail = arena_sprintf(c->cp_a, " ORDER BY %s", keys);
  if (slice && slice->op_length >= 0)
    tail = arena_sprintf(c->cp_a, "%s LIMIT %" PRId64, tail, slice->op_length);
  if (slice && slice->op_start > 0)
    tail = arena_sprintf(c->cp_a, "%s OFFSET %" PRId64, tail, slice->op_start);
  proj.cr_sql = arena_sprintf(c->cp_a, "SELECT %s FROM %s%s", sel, from, tail);
  *out = proj;
  return CZ_OK;
}

int cp_op(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  switch (op->op_kind) {
  case SP_OP_BGP: return cp_bgp(c, op, out);
  case SP_OP_JOIN: return cp_join(c, op, false, out);
  case SP_OP_LEFTJOIN: return cp_join(c, op, true, out);
  case SP_OP_FILTER: return cp_filter(c, op, out);
  case SP_OP_UNION: return cp_union(c, op, out);
  case SP_OP_MINUS: return cp_minus(c, op, out);
  case SP_OP_GRAPH: return cp_graph(c, op, out);
  case SP_OP_EXTEND: return cp_extend(c, op, out);
  case SP_OP_GROUP: return cp_group(c, op, out);
  case SP_OP_ORDER:
  case SP_OP_PROJECT:
  case SP_OP_DISTINCT:
  case SP_OP_REDUCED:
  case SP_OP_SLICE: return cp_modifiers(c, op, false, out);
  case SP_OP_TOMULTISET: return cp_op(c, op->op_a, out);
  case SP_OP_PATH: return cp_path(c, op, out);
  case SP_OP_SERVICE:
    /* No remote endpoint is ever reached (federation is not built), so
     * every SERVICE request fails: an error, or with SILENT the failed
     * clause's one solution with no bindings (SPARQL 1.1 Federated Query
     * §4, W3C service7). */
    if (!op->op_silent)
      return cp_unsupported(c, "SERVICE");
    cp_rel_init(c, out, 0);
    out->cr_sql = arena_strdup(c->cp_a, "SELECT 1 AS \"?unit\"");
    return CZ_OK;
  case SP_OP_TABLE: return cp_table(c, op, out);
  }
  return cp_unsupported(c, "this algebra operator");
}

char *cp_graph_set(cp_t *c, const sp_list_t *from, sp_gref_kind_t k)
{
  char *s = NULL;
  for (int i = 0; from && i < from->ls_n; i++) {
    const sp_gref_t *g = from->ls_v[i];
    if (g->gr_kind != k)
      continue;
    /* in the arena: cp_ids may keep the term until the second compile */
    sp_term_t *t = arena_zalloc(c->cp_a, sizeof *t);
    *t = (sp_term_t){.tm_kind = SP_T_IRI, .tm_str = g->gr_iri};
    char *inl, *q = sp_sql_term_query(c->cp_a, t, &inl, c->cp_e);
    if (!q)
      return NULL;
    /* A graph whose id is known before compiling is that number, as a
     * pattern's constant (cp_bgp_term): the list is then a constant the
     * plan pushes into each quad scan, not a dictionary lookup joined to
     * every pattern (a query with default-graph-uri ran 1.5-3x slower).
     * An unknown graph is NULL in the list: it matches no quad (not even
     * the default graph's g = 0, as 0 for "no term" would). */
    int64_t known;
    if (c->cp_ids && c->cp_ids(c->cp_ids_ctx, t, &known))
      s = cp_cat(c, s, ", ", arena_sprintf(c->cp_a, "%" PRId64, known));
    else
      s = cp_cat(c, s, ", ", arena_sprintf(c->cp_a, "(%s)", q));
  }
  return s ? arena_sprintf(c->cp_a, "(%s)", s) : NULL;
}

char *sp_compile_sql(arena_t *a, const sp_request_t *rq, err_t *e)
{
  return sp_compile_sql_ids(a, rq, NULL, NULL, e);
}

char *sp_compile_sql_ids(arena_t *a, const sp_request_t *rq, sp_term_id_fn fn, void *ctx, err_t *e)
{
  cp_t c = {.cp_a = a, .cp_e = e, .cp_base = rq->rq_base, .cp_solution_vars = -1, .cp_ids = fn,
             .cp_ids_ctx = ctx};
  if (rq->rq_update) {
    cp_unsupported(&c, "SPARQL Update");
    return NULL;
  }
  const sp_query_t *q = rq->rq_query;
  if (rq->rq_inference) {
    sp_term_t *g = arena_zalloc(a, sizeof(*g));
    g->tm_kind = SP_T_IRI;
    g->tm_str = rq->rq_inference;
    c.cp_infer = g;
    c.cp_tbox = rq->rq_tbox;
    c.cp_tbox_n = rq->rq_tbox_n;
  }
  c.cp_dataset = q->qu_from && q->qu_from->ls_n > 0;
  err_clear(e);
  c.cp_default_in = cp_graph_set(&c, q->qu_from, SP_GR_IRI);
  c.cp_named_in = cp_graph_set(&c, q->qu_from, SP_GR_NAMED);
  if (!err_is(e, SQLSTATE_SUCCESSFUL_COMPLETION))
    return NULL;
  if (!c.cp_dataset && rq->rq_store_default) {
    /* the dataset an update's WHERE has without USING: the store's
     * default graph, all named graphs */
    c.cp_dataset = true;
    c.cp_default_in = arena_strdup(a, "(0)");
    c.cp_named_all = true;
  }
  if (q->qu_kind == SP_Q_CONSTRUCT || q->qu_kind == SP_Q_DESCRIBE)
    return cp_graph_query(&c, q); /* sp_compile_construct.c */
  cp_rel_t r;
  if (q->qu_kind == SP_Q_ASK) {
    if (cp_op(&c, q->qu_op, &r) != CZ_OK)
      return NULL;
    return arena_sprintf(a, "SELECT EXISTS (SELECT 1 FROM (%s) a) AS ask", r.cr_sql);
  }
  if (cp_modifiers(&c, q->qu_op, true, &r) != CZ_OK)
    return NULL;
  return r.cr_sql;
}

/* sp_compile_expr — SPARQL expressions as SQL over term ids: term
 * equality with numeric value equality between inline numbers, ordering
 * comparisons through the order-preserving inline ids, SQL's three-valued
 * logic for SPARQL's errors (NULL), the term-kind tests, BOUND, sameTerm,
 * IN. What needs a decoded value or a new term is refused with 0A000. */
#include <inttypes.h>
#include <string.h>

#include "sparql/sp_compile_int.h"

int cp_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out);

static int cp_expr_id(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  if (cp_expr(c, sc, x, out) != CZ_OK)
    return CZ_ERR;
  if (out->ce_kind != CP_E_ID)
    return cp_unsupported(c, "comparisons of this kind of value");
  return CZ_OK;
}

/* Term equality with numeric value equality between inline numbers
 * (1 = 1.0 holds in SPARQL; they are two terms, two ids). */
/* A number constant's value as SQL (its canonical inline id). */
static char *cp_num_sql(cp_t *c, const cp_expr_t *x)
{
  return x->ce_num_id ? arena_sprintf(c->cp_a, "(%" PRId64 ")", (int64_t)x->ce_num_id) : x->ce_sql;
}

static char *cp_eq_sql(cp_t *c, const cp_expr_t *a, const cp_expr_t *b)
{
  if (a->ce_num_id || b->ce_num_id) {
    const cp_expr_t *k = a->ce_num_id ? a : b, *v = a->ce_num_id ? b : a;
    if (k == v || (a->ce_num_id && b->ce_num_id))
      return arena_sprintf(c->cp_a, "((%s & " CP_NUM_MASK ") = (%s & " CP_NUM_MASK "))",
                           cp_num_sql(c, a), cp_num_sql(c, b));
    /* A number against a term: equal values if both are numbers; an IRI
     * or blank node is simply another term (false); another literal is a
     * type error (NULL, which no filter keeps). */
    return arena_sprintf(c->cp_a,
                         "(CASE WHEN %s < 0 THEN (%s & " CP_NUM_MASK ") = (%s & " CP_NUM_MASK ")"
                         " WHEN %s < " CP_LIT_LO " THEN FALSE END)",
                         v->ce_sql, v->ce_sql, cp_num_sql(c, k), v->ce_sql);
  }
  return arena_sprintf(c->cp_a,
                       "(CASE WHEN %s < 0 AND %s < 0 THEN (%s & " CP_NUM_MASK ") = (%s & " CP_NUM_MASK
                       ") ELSE %s = %s END)",
                       a->ce_sql, b->ce_sql, a->ce_sql, b->ce_sql, a->ce_sql, b->ce_sql);
}

static const char *cp_cmp_op(sp_expr_kind_t k)
{
  switch (k) {
  case SP_E_LT: return "<";
  case SP_E_GT: return ">";
  case SP_E_LE: return "<=";
  case SP_E_GE: return ">=";
  case SP_E_NE: return "<>";
  default: return "=";
  }
}

static int cp_compare(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  cp_expr_t a, b;
  if (cp_expr(c, sc, x->ex_a, &a) != CZ_OK || cp_expr(c, sc, x->ex_b, &b) != CZ_OK)
    return CZ_ERR;
  const char *op = cp_cmp_op(x->ex_kind);
  out->ce_kind = CP_E_BOOL;
  /* An aggregate's count against a number constant: plain SQL. */
  if (a.ce_kind == CP_E_COUNT || b.ce_kind == CP_E_COUNT) {
    const cp_expr_t *n = a.ce_kind == CP_E_COUNT ? &b : &a;
    if (n->ce_kind == CP_E_COUNT || !n->ce_num_lex)
      return cp_unsupported(c, "comparing an aggregate with anything but an integer or decimal constant");
    out->ce_sql = a.ce_kind == CP_E_COUNT ? arena_sprintf(c->cp_a, "(%s %s %s)", a.ce_sql, op, n->ce_num_lex)
                                          : arena_sprintf(c->cp_a, "(%s %s %s)", n->ce_num_lex, op, b.ce_sql);
    return CZ_OK;
  }
  if (a.ce_kind != CP_E_ID || b.ce_kind != CP_E_ID)
    return cp_unsupported(c, "comparisons of boolean expressions");
  if (x->ex_kind == SP_E_EQ || x->ex_kind == SP_E_NE) {
    char *eq = cp_eq_sql(c, &a, &b);
    out->ce_sql = x->ex_kind == SP_E_EQ ? eq : arena_sprintf(c->cp_a, "(NOT %s)", eq);
    return CZ_OK;
  }
  /* <, >, <=, >= on numbers: the inline ids with their type bits cleared
   * order as the values; a non-number (or a number the dictionary holds)
   * gives NULL, the type error. */
  if (!a.ce_num_id && !b.ce_num_id)
    return cp_unsupported(c, "ordering comparisons other than against a number constant");
  const cp_expr_t *v = a.ce_num_id ? &b : &a;
  out->ce_sql = arena_sprintf(c->cp_a,
                              "(CASE WHEN %s < 0 THEN (%s & " CP_NUM_MASK ") %s (%s & " CP_NUM_MASK ") END)",
                              v->ce_sql, cp_num_sql(c, &a), op, cp_num_sql(c, &b));
  return CZ_OK;
}

static int cp_bool_arg(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  if (cp_expr(c, sc, x, out) != CZ_OK)
    return CZ_ERR;
  if (out->ce_kind != CP_E_BOOL)
    return cp_unsupported(c, "the effective boolean value of a term");
  return CZ_OK;
}

static int cp_builtin(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  const char *n = x->ex_name;
  int na = x->ex_args ? x->ex_args->ls_n : 0;
  out->ce_kind = CP_E_BOOL;
  if (strcmp(n, "bound") == 0) {
    cp_expr_t v;
    if (cp_expr(c, sc, x->ex_args->ls_v[0], &v) != CZ_OK)
      return CZ_ERR;
    out->ce_sql = arena_sprintf(c->cp_a, "(%s IS NOT NULL)", v.ce_sql);
    return CZ_OK;
  }
  static const struct { const char *name, *test; } kinds[] = {
      {"isIRI", "(%1$s >= " CP_IRI_LO " AND %1$s < " CP_LIT_LO ")"},
      {"isURI", "(%1$s >= " CP_IRI_LO " AND %1$s < " CP_LIT_LO ")"},
      {"isBlank", "(%1$s >= " CP_BNODE_LO " AND %1$s < " CP_IRI_LO ")"},
      {"isLiteral", "(%1$s < 0 OR %1$s >= " CP_LIT_LO ")"},
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(kinds); i++)
    if (strcmp(n, kinds[i].name) == 0 && na == 1) {
      cp_expr_t v;
      if (cp_expr_id(c, sc, x->ex_args->ls_v[0], &v) != CZ_OK)
        return CZ_ERR;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      out->ce_sql = arena_sprintf(c->cp_a, kinds[i].test, v.ce_sql);
#pragma GCC diagnostic pop
      return CZ_OK;
    }
  if (strcmp(n, "sameTerm") == 0 && na == 2) {
    cp_expr_t a, b;
    if (cp_expr_id(c, sc, x->ex_args->ls_v[0], &a) != CZ_OK ||
        cp_expr_id(c, sc, x->ex_args->ls_v[1], &b) != CZ_OK)
      return CZ_ERR;
    out->ce_sql = arena_sprintf(c->cp_a, "(%s = %s)", a.ce_sql, b.ce_sql);
    return CZ_OK;
  }
  return cp_unsupported(c, arena_sprintf(c->cp_a, "function %s", n));
}

int cp_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  *out = (cp_expr_t){0};
  switch (x->ex_kind) {
  case SP_E_TERM: {
    const sp_term_t *t = x->ex_term;
    out->ce_kind = CP_E_ID;
    if (t->tm_kind == SP_T_VAR) {
      int i = cp_find(sc->sc_rel, cp_vname(c, t));
      if (i < 0) {
        out->ce_sql = arena_strdup(c->cp_a, "CAST(NULL AS int8)");
        return CZ_OK;
      }
      out->ce_sql = sc->sc_exprs ? arena_sprintf(c->cp_a, "(%s)", sc->sc_exprs[i])
                                 : cp_col(c, sc->sc_alias, cp_vname(c, t));
      if (sc->sc_rel->cr_v[i].cv_count)
        out->ce_kind = CP_E_COUNT;
      return CZ_OK;
    }
    if (!(out->ce_sql = sp_sql_term_id(c->cp_a, t, c->cp_e)))
      return CZ_ERR;
    if (t->tm_kind == SP_T_LIT && t->tm_dt) {
      /* A number constant compares by value: its canonical form's inline
       * id ("+3", "03" and "3" are one value). */
      rdf_term_t lit = rdf_literal(t->tm_str, t->tm_dt, NULL);
      rdf_id_t id = rdf_id_encode_literal(&lit);
      rdf_xsd_val_t val;
      char canon[64];
      if (!id && rdf_xsd_parse(rdf_xsd_of(&lit), t->tm_str, strlen(t->tm_str), &val, NULL) == CZ_OK &&
          rdf_xsd_canonical(&val, t->tm_str, strlen(t->tm_str), canon, sizeof canon) > 0) {
        rdf_term_t cl = rdf_literal(canon, t->tm_dt, NULL);
        id = rdf_id_encode_literal(&cl);
      }
      if (id && rdf_id_tag(id) == RDF_ID_NUMERIC) {
        out->ce_num_id = id;
        if (strcmp(t->tm_dt, XSD_NS "integer") == 0 || strcmp(t->tm_dt, XSD_NS "decimal") == 0)
          out->ce_num_lex = t->tm_str;
      }
    }
    return CZ_OK;
  }
  case SP_E_AND:
  case SP_E_OR: {
    cp_expr_t a, b;
    if (cp_bool_arg(c, sc, x->ex_a, &a) != CZ_OK || cp_bool_arg(c, sc, x->ex_b, &b) != CZ_OK)
      return CZ_ERR;
    /* SQL's three-valued logic is SPARQL's with errors as NULL: E || T = T,
     * E && F = F, otherwise E. */
    out->ce_kind = CP_E_BOOL;
    out->ce_sql = arena_sprintf(c->cp_a, "(%s %s %s)", a.ce_sql, x->ex_kind == SP_E_AND ? "AND" : "OR",
                                b.ce_sql);
    return CZ_OK;
  }
  case SP_E_NOT: {
    cp_expr_t a;
    if (cp_bool_arg(c, sc, x->ex_a, &a) != CZ_OK)
      return CZ_ERR;
    out->ce_kind = CP_E_BOOL;
    out->ce_sql = arena_sprintf(c->cp_a, "(NOT %s)", a.ce_sql);
    return CZ_OK;
  }
  case SP_E_EQ: case SP_E_NE: case SP_E_LT: case SP_E_GT: case SP_E_LE: case SP_E_GE:
    return cp_compare(c, sc, x, out);
  case SP_E_IN:
  case SP_E_NOTIN: {
    /* x IN (a, b) is x = a || x = b; NOT IN is x != a && x != b. */
    cp_expr_t v;
    if (cp_expr_id(c, sc, x->ex_a, &v) != CZ_OK)
      return CZ_ERR;
    char *s = NULL;
    for (int i = 0; i < x->ex_args->ls_n; i++) {
      cp_expr_t k;
      if (cp_expr_id(c, sc, x->ex_args->ls_v[i], &k) != CZ_OK)
        return CZ_ERR;
      char *eq = cp_eq_sql(c, &v, &k);
      s = x->ex_kind == SP_E_IN ? cp_cat(c, s, " OR ", eq)
                                : cp_cat(c, s, " AND ", arena_sprintf(c->cp_a, "(NOT %s)", eq));
    }
    out->ce_kind = CP_E_BOOL;
    out->ce_sql = s ? arena_sprintf(c->cp_a, "(%s)", s)
                    : arena_strdup(c->cp_a, x->ex_kind == SP_E_IN ? "FALSE" : "TRUE");
    return CZ_OK;
  }
  case SP_E_BUILTIN:
    return cp_builtin(c, sc, x, out);
  case SP_E_ADD: case SP_E_SUB: case SP_E_MUL: case SP_E_DIV: case SP_E_NEG: case SP_E_POS:
    return cp_unsupported(c, "arithmetic");
  case SP_E_FUNC:
    return cp_unsupported(c, arena_sprintf(c->cp_a, "function <%s>", x->ex_name));
  case SP_E_AGG:
    return cp_unsupported(c, "aggregates in this position");
  case SP_E_EXISTS:
  case SP_E_NOTEXISTS:
    return cp_unsupported(c, "EXISTS and NOT EXISTS");
  }
  return cp_unsupported(c, "this expression");
}

/* The conjunction of exprs over scope, as SQL. */
int cp_conj(cp_t *c, const cp_scope_t *sc, const sp_list_t *exprs, char **out)
{
  *out = NULL;
  for (int i = 0; exprs && i < exprs->ls_n; i++) {
    cp_expr_t x;
    if (cp_bool_arg(c, sc, exprs->ls_v[i], &x) != CZ_OK)
      return CZ_ERR;
    *out = cp_cat(c, *out, " AND ", x.ce_sql);
  }
  return CZ_OK;
}

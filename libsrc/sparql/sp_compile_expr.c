/* sp_compile_expr — SPARQL expressions (§17) as SQL. Values are term ids
 * where they come from the store (variables of patterns, constants), and
 * computed terms in N-Triples text where an expression makes a new one
 * (README "Computed terms"): the function library, arithmetic and casts
 * are calls of the store's sparql_fn over texts (libsrc/rdf/rdf_sql_fn.c).
 * Fast paths stay on ids: term equality, inline numbers compared by their
 * order-preserving ids, the term-kind tests, BOUND, sameTerm; anything
 * else decodes (rdf_term) and compares with sparql_cmp, the §17.3
 * operator mapping. SQL NULL is SPARQL's error, so SQL's three-valued
 * AND/OR/NOT are SPARQL's && || ! with errors. Aggregates, ORDER BY keys
 * of expressions and VALUES are here too. */
#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include "sparql/sp_compile_int.h"

#define CP_XSD_BOOLEAN "<http://www.w3.org/2001/XMLSchema#boolean>"
#define CP_XSD_INTEGER_NT "'\"0\"^^" CP_XSD_INTEGER "'"

int cp_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out);

/* The N-Triples text of a constant, as a SQL literal. */
static char *cp_const_nt(cp_t *c, const sp_term_t *t)
{
  rdf_term_t r;
  if (t->tm_kind == SP_T_IRI) {
    r = rdf_iri(t->tm_str);
  } else {
    const char *dt = t->tm_dt && strcmp(t->tm_dt, RDF_XSD_STRING) != 0 ? t->tm_dt : NULL;
    char *lang = t->tm_lang ? arena_strdup(c->cp_a, t->tm_lang) : NULL;
    for (char *p = lang; p && *p; p++)
      *p = (char)tolower((unsigned char)*p); /* as the store keeps them */
    r = rdf_literal(t->tm_str, dt, lang);
  }
  return sp_sql_quote(c->cp_a, rdf_term_ntriples(&r, c->cp_a));
}

char *cp_text_of(cp_t *c, const cp_expr_t *x)
{
  switch (x->ce_kind) {
  case CP_E_TERM:
    return x->ce_sql;
  case CP_E_COUNT:
    return arena_sprintf(c->cp_a, "('\"' || CAST(%s AS text) || '\"^^" CP_XSD_INTEGER "')", x->ce_sql);
  case CP_E_BOOL:
    return arena_sprintf(c->cp_a,
                         "(CASE WHEN %1$s THEN '\"true\"^^" CP_XSD_BOOLEAN "' WHEN NOT %1$s THEN '\"false\"^^" CP_XSD_BOOLEAN
                         "' END)",
                         x->ce_sql);
  case CP_E_ID:
    break;
  }
  return x->ce_nt ? x->ce_nt : arena_sprintf(c->cp_a, "rdf_term(%s)", x->ce_sql);
}

char *cp_var_text(cp_t *c, const cp_var_t *v, const char *col)
{
  cp_expr_t x = {.ce_sql = (char *)col, .ce_kind = v->cv_text ? CP_E_TERM : v->cv_count ? CP_E_COUNT : CP_E_ID};
  return cp_text_of(c, &x);
}

char *cp_var_eq(cp_t *c, const cp_var_t *va, const char *a, const cp_var_t *vb, const char *b)
{
  if (!va->cv_text && !vb->cv_text && va->cv_count == vb->cv_count)
    return arena_sprintf(c->cp_a, "%s = %s", a, b);
  return arena_sprintf(c->cp_a, "%s = %s", cp_var_text(c, va, a), cp_var_text(c, vb, b));
}

/* The effective boolean value as a SQL boolean. */
static char *cp_bool_of(cp_t *c, const cp_expr_t *x)
{
  if (x->ce_kind == CP_E_BOOL)
    return x->ce_sql;
  if (x->ce_kind == CP_E_COUNT)
    return arena_sprintf(c->cp_a, "(%s <> 0)", x->ce_sql);
  return arena_sprintf(c->cp_a, "sparql_ebv(%s)", cp_text_of(c, x));
}

static int cp_bool_arg(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  if (cp_expr(c, sc, x, out) != CZ_OK)
    return CZ_ERR;
  out->ce_sql = cp_bool_of(c, out);
  out->ce_kind = CP_E_BOOL;
  return CZ_OK;
}

/* A number constant's value as SQL (its canonical inline id). */
static char *cp_num_sql(cp_t *c, const cp_expr_t *x)
{
  return x->ce_num_id ? arena_sprintf(c->cp_a, "(%" PRId64 ")", (int64_t)x->ce_num_id) : x->ce_sql;
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

static const char *cp_sparql_op(sp_expr_kind_t k)
{
  return k == SP_E_NE ? "!=" : cp_cmp_op(k);
}

/* The general comparison: both sides decoded, §17.3's operator mapping. */
static char *cp_cmp_text(cp_t *c, const char *op, const cp_expr_t *a, const cp_expr_t *b)
{
  return arena_sprintf(c->cp_a, "sparql_cmp('%s', %s, %s)", op, cp_text_of(c, a), cp_text_of(c, b));
}

/* Term equality (§17.3 "="): on ids the same id is the same term; two
 * inline numbers compare by value (1 = 1.0); an IRI or blank node equals
 * only itself; other pairs (dictionary literals, dates, booleans, and a
 * constant unknown to the store, id 0, which may still equal a stored
 * term by value) are decoded and compared by sparql_cmp (an unknown
 * datatype's different literals are an error). */
static char *cp_eq_sql(cp_t *c, const cp_expr_t *a, const cp_expr_t *b)
{
  if (a->ce_kind != CP_E_ID || b->ce_kind != CP_E_ID || (a->ce_nt && b->ce_nt))
    return cp_cmp_text(c, "=", a, b);
  if (a->ce_num_id || b->ce_num_id) {
    const cp_expr_t *k = a->ce_num_id ? a : b, *v = a->ce_num_id ? b : a;
    return arena_sprintf(c->cp_a,
                         "(CASE WHEN %1$s < 0 THEN (%1$s & " CP_NUM_MASK ") = (%2$s & " CP_NUM_MASK ")"
                         " WHEN %1$s >= " CP_BNODE_LO " AND %1$s < " CP_LIT_LO " THEN FALSE ELSE %3$s END)",
                         v->ce_sql, cp_num_sql(c, k), cp_cmp_text(c, "=", v, k));
  }
  return arena_sprintf(c->cp_a,
                       "(CASE WHEN %1$s = %2$s AND %1$s <> 0 THEN TRUE"
                       " WHEN %1$s < 0 AND %2$s < 0 THEN (%1$s & " CP_NUM_MASK ") = (%2$s & " CP_NUM_MASK ")"
                       " WHEN (%1$s >= " CP_BNODE_LO " AND %1$s < " CP_LIT_LO ") OR (%2$s >= " CP_BNODE_LO
                       " AND %2$s < " CP_LIT_LO ") THEN FALSE ELSE %3$s END)",
                       a->ce_sql, b->ce_sql, cp_cmp_text(c, "=", a, b));
}

static int cp_compare(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  cp_expr_t a, b;
  if (cp_expr(c, sc, x->ex_a, &a) != CZ_OK || cp_expr(c, sc, x->ex_b, &b) != CZ_OK)
    return CZ_ERR;
  const char *op = cp_cmp_op(x->ex_kind);
  out->ce_kind = CP_E_BOOL;
  /* An aggregate's count against an integer or decimal constant: plain SQL. */
  if ((a.ce_kind == CP_E_COUNT && b.ce_num_lex) || (b.ce_kind == CP_E_COUNT && a.ce_num_lex)) {
    out->ce_sql = a.ce_kind == CP_E_COUNT ? arena_sprintf(c->cp_a, "(%s %s %s)", a.ce_sql, op, b.ce_num_lex)
                                          : arena_sprintf(c->cp_a, "(%s %s %s)", a.ce_num_lex, op, b.ce_sql);
    return CZ_OK;
  }
  if (a.ce_kind != CP_E_ID || b.ce_kind != CP_E_ID) {
    out->ce_sql = cp_cmp_text(c, cp_sparql_op(x->ex_kind), &a, &b);
    return CZ_OK;
  }
  if (x->ex_kind == SP_E_EQ || x->ex_kind == SP_E_NE) {
    char *eq = cp_eq_sql(c, &a, &b);
    out->ce_sql = x->ex_kind == SP_E_EQ ? eq : arena_sprintf(c->cp_a, "(NOT %s)", eq);
    return CZ_OK;
  }
  /* Against an inline xsd:dateTime constant: an inline dateTime that has
   * a timezone when the constant has one (or lacks one when it lacks one)
   * compares by its id's instant (payload >> 11, libsrc/rdf "Term ids");
   * everything else is decoded. */
  if (a.ce_dt_id || b.ce_dt_id) {
    const cp_expr_t *k = a.ce_dt_id ? &a : &b, *v = a.ce_dt_id ? &b : &a;
    int64_t kid = (int64_t)k->ce_dt_id;
    bool ktz = (kid & 2047) != 0;
    char *vi = arena_sprintf(c->cp_a, "(%s / 2048)", v->ce_sql);
    char *ki = arena_sprintf(c->cp_a, "%" PRId64, kid / 2048);
    const char *sop = x->ex_kind == SP_E_NE ? "<>" : op;
    out->ce_sql = arena_sprintf(c->cp_a,
                                "(CASE WHEN %1$s >= " CP_DATETIME_LO " AND %1$s < " CP_DATETIME_HI
                                " AND (%1$s & 2047) %2$s 0 THEN %3$s %4$s %5$s ELSE %6$s END)",
                                v->ce_sql, ktz ? "<>" : "=", k == &a ? ki : vi, sop, k == &a ? vi : ki,
                                cp_cmp_text(c, cp_sparql_op(x->ex_kind), &a, &b));
    return CZ_OK;
  }
  /* <, >, <=, >= between inline numbers: the ids with their type bits
   * cleared order as the values; anything else is decoded. */
  out->ce_sql = arena_sprintf(c->cp_a,
                              "(CASE WHEN %1$s < 0 AND %2$s < 0 THEN (%1$s & " CP_NUM_MASK ") %3$s (%2$s & " CP_NUM_MASK
                              ") ELSE %4$s END)",
                              cp_num_sql(c, &a), cp_num_sql(c, &b), op, cp_cmp_text(c, cp_sparql_op(x->ex_kind), &a, &b));
  return CZ_OK;
}

/* Every argument as text, "sparql_fn('name', a, b…)". */
static int cp_fn_call(cp_t *c, const cp_scope_t *sc, const char *fn, const char *name, const sp_list_t *args,
                      const char *first, cp_expr_t *out)
{
  char *s = arena_sprintf(c->cp_a, "%s(%s", fn, sp_sql_quote(c->cp_a, name));
  if (first)
    s = arena_sprintf(c->cp_a, "%s, %s", s, first);
  for (int i = 0; args && i < args->ls_n; i++) {
    cp_expr_t v;
    if (cp_expr(c, sc, args->ls_v[i], &v) != CZ_OK)
      return CZ_ERR;
    s = arena_sprintf(c->cp_a, "%s, %s", s, cp_text_of(c, &v));
  }
  out->ce_kind = CP_E_TERM;
  out->ce_sql = arena_sprintf(c->cp_a, "%s)", s);
  return CZ_OK;
}

static int cp_builtin(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  const char *n = x->ex_name;
  const sp_list_t *args = x->ex_args;
  int na = args ? args->ls_n : 0;
  out->ce_kind = CP_E_BOOL;
  if (strcmp(n, "bound") == 0) {
    cp_expr_t v;
    if (cp_expr(c, sc, args->ls_v[0], &v) != CZ_OK)
      return CZ_ERR;
    out->ce_sql = arena_sprintf(c->cp_a, "(%s IS NOT NULL)", v.ce_sql);
    return CZ_OK;
  }
  static const struct { const char *name, *test, *text_test; } kinds[] = {
      {"isIRI", "(%1$s >= " CP_IRI_LO " AND %1$s < " CP_LIT_LO ")", "(substr(%1$s, 1, 1) = '<')"},
      {"isURI", "(%1$s >= " CP_IRI_LO " AND %1$s < " CP_LIT_LO ")", "(substr(%1$s, 1, 1) = '<')"},
      {"isBlank", "(%1$s >= " CP_BNODE_LO " AND %1$s < " CP_IRI_LO ")", "(substr(%1$s, 1, 1) = '_')"},
      {"isLiteral", "(%1$s < 0 OR %1$s >= " CP_LIT_LO ")", "(substr(%1$s, 1, 1) = '\"')"},
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(kinds); i++)
    if (strcmp(n, kinds[i].name) == 0 && na == 1) {
      cp_expr_t v;
      if (cp_expr(c, sc, args->ls_v[0], &v) != CZ_OK)
        return CZ_ERR;
      bool id = v.ce_kind == CP_E_ID && !v.ce_nt;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
      out->ce_sql = arena_sprintf(c->cp_a, id ? kinds[i].test : kinds[i].text_test, id ? v.ce_sql : cp_text_of(c, &v));
#pragma GCC diagnostic pop
      return CZ_OK;
    }
  if (strcmp(n, "sameTerm") == 0 && na == 2) {
    cp_expr_t a, b;
    if (cp_expr(c, sc, args->ls_v[0], &a) != CZ_OK || cp_expr(c, sc, args->ls_v[1], &b) != CZ_OK)
      return CZ_ERR;
    if (a.ce_kind == CP_E_ID && b.ce_kind == CP_E_ID && !(a.ce_nt && b.ce_nt))
      out->ce_sql = arena_sprintf(c->cp_a, "(%s = %s)", a.ce_sql, b.ce_sql);
    else
      out->ce_sql = arena_sprintf(c->cp_a, "(%s = %s)", cp_text_of(c, &a), cp_text_of(c, &b));
    return CZ_OK;
  }
  if (strcmp(n, "coalesce") == 0) {
    /* the first argument without an error (NULL) */
    char *s = NULL;
    for (int i = 0; i < na; i++) {
      cp_expr_t v;
      if (cp_expr(c, sc, args->ls_v[i], &v) != CZ_OK)
        return CZ_ERR;
      s = cp_cat(c, s, ", ", cp_text_of(c, &v));
    }
    out->ce_kind = CP_E_TERM;
    out->ce_sql = na == 0 ? arena_strdup(c->cp_a, "CAST(NULL AS text)")
                  : na == 1 ? s
                            : arena_sprintf(c->cp_a, "COALESCE(%s)", s);
    return CZ_OK;
  }
  if (strcmp(n, "if") == 0) {
    cp_expr_t k, a, b;
    if (cp_bool_arg(c, sc, args->ls_v[0], &k) != CZ_OK || cp_expr(c, sc, args->ls_v[1], &a) != CZ_OK ||
        cp_expr(c, sc, args->ls_v[2], &b) != CZ_OK)
      return CZ_ERR;
    out->ce_kind = CP_E_TERM;
    out->ce_sql = arena_sprintf(c->cp_a, "(CASE WHEN %1$s THEN %2$s WHEN NOT %1$s THEN %3$s END)", k.ce_sql,
                                cp_text_of(c, &a), cp_text_of(c, &b));
    return CZ_OK;
  }
  if ((strcmp(n, "iri") == 0 || strcmp(n, "uri") == 0) && c->cp_base) {
    /* IRI("rel") of a constant string resolves against the query's BASE
     * (§17.4.2.8); the store's function knows no base, so it is done here. */
    const sp_expr_t *a0 = args->ls_v[0];
    if (a0->ex_kind == SP_E_TERM && a0->ex_term->tm_kind == SP_T_LIT && !a0->ex_term->tm_lang &&
        (!a0->ex_term->tm_dt || strcmp(a0->ex_term->tm_dt, RDF_XSD_STRING) == 0)) {
      char *iri = sp_iri_resolve(c->cp_a, c->cp_base, a0->ex_term->tm_str);
      if (iri) {
        rdf_term_t r = rdf_iri(iri);
        out->ce_kind = CP_E_TERM;
        out->ce_sql = sp_sql_quote(c->cp_a, rdf_term_ntriples(&r, c->cp_a));
        return CZ_OK;
      }
    }
  }
  if (strcmp(n, "bnode") == 0 && na == 1) {
    /* the solution's identity: its variables' values, as one text */
    char *key = NULL;
    int nv = c->cp_solution_vars >= 0 && c->cp_solution_vars < sc->sc_rel->cr_n ? c->cp_solution_vars
                                                                               : sc->sc_rel->cr_n;
    for (int i = 0; i < nv; i++) {
      const cp_var_t *v = &sc->sc_rel->cr_v[i];
      char *col = sc->sc_exprs ? arena_sprintf(c->cp_a, "(%s)", sc->sc_exprs[i]) : cp_col(c, sc->sc_alias, v->cv_name);
      key = cp_cat(c, key, " || chr(1) || ", arena_sprintf(c->cp_a, "COALESCE(%s, '')", cp_var_text(c, v, col)));
    }
    cp_expr_t v;
    if (cp_expr(c, sc, args->ls_v[0], &v) != CZ_OK)
      return CZ_ERR;
    out->ce_kind = CP_E_TERM;
    out->ce_sql = arena_sprintf(c->cp_a, "sparql_fn('bnode', %s, sparql_plain(%s))", cp_text_of(c, &v),
                                key ? key : "''");
    return CZ_OK;
  }
  if (!rdf_sparql_fn_known(n))
    return cp_unsupported(c, arena_sprintf(c->cp_a, "function %s", n));
  bool fresh = strcmp(n, "rand") == 0 || strcmp(n, "uuid") == 0 || strcmp(n, "struuid") == 0 ||
               strcmp(n, "bnode") == 0;
  return cp_fn_call(c, sc, fresh ? "sparql_fn_volatile" : "sparql_fn", n, args, NULL, out);
}

/* The xsd types XPath constructor functions (casts, §17.5) exist for. */
static bool cp_cast_type(const char *iri)
{
  static const char *const types[] = {
      "string", "boolean", "decimal", "integer", "float", "double", "dateTime", "date", "long", "int", "short", "byte",
      "nonNegativeInteger", "positiveInteger", "nonPositiveInteger", "negativeInteger", "unsignedLong",
      "unsignedInt", "unsignedShort", "unsignedByte"};
  if (strncmp(iri, XSD_NS, strlen(XSD_NS)) != 0)
    return false;
  for (size_t i = 0; i < CZ_ARRAY_LEN(types); i++)
    if (strcmp(iri + strlen(XSD_NS), types[i]) == 0)
      return true;
  return false;
}

/* EXISTS / NOT EXISTS: a correlated SQL EXISTS over the pattern, its
 * solutions compatible with the current one (each shared variable equal,
 * or unbound on either side). */
static int cp_exists(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, cp_expr_t *out)
{
  cp_rel_t in;
  if (!x->ex_op)
    return cp_unsupported(c, "EXISTS without its algebra");
  int solution_vars = c->cp_solution_vars;
  c->cp_solution_vars = -1; /* the pattern's solutions are its own */
  cp_outer_t outer = {.co_scope = sc, .co_up = c->cp_outer};
  c->cp_outer = &outer; /* a variable only the outer solution binds is its value there */
  int rc = cp_op(c, x->ex_op, &in);
  c->cp_outer = outer.co_up;
  c->cp_solution_vars = solution_vars;
  if (rc != CZ_OK)
    return CZ_ERR;
  char *xa = cp_fresh(c, "x");
  char *cond = NULL;
  for (int i = 0; i < in.cr_n; i++) {
    const cp_var_t *vi = &in.cr_v[i];
    int j = cp_find(sc->sc_rel, vi->cv_name);
    if (j < 0)
      continue;
    const cp_var_t *vo = &sc->sc_rel->cr_v[j];
    char *outer = sc->sc_exprs ? arena_sprintf(c->cp_a, "(%s)", sc->sc_exprs[j]) : cp_col(c, sc->sc_alias, vo->cv_name);
    char *inner = cp_col(c, xa, vi->cv_name);
    char *eq = cp_var_eq(c, vi, inner, vo, outer);
    if (vi->cv_maybe_null || vo->cv_maybe_null)
      eq = arena_sprintf(c->cp_a, "(%s OR %s IS NULL OR %s IS NULL)", eq, inner, outer);
    cond = cp_cat(c, cond, " AND ", eq);
  }
  out->ce_kind = CP_E_BOOL;
  out->ce_sql = arena_sprintf(c->cp_a, "(%sEXISTS (SELECT 1 FROM (%s) %s WHERE %s))",
                              x->ex_kind == SP_E_NOTEXISTS ? "NOT " : "", in.cr_sql, xa, cond ? cond : "TRUE");
  return CZ_OK;
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
      /* not bound here: inside EXISTS, the outer solution's value (a
       * correlated reference: the pattern's SQL sits in the outer WHERE) */
      for (const cp_outer_t *o = c->cp_outer; i < 0 && o; o = o->co_up) {
        i = cp_find(o->co_scope->sc_rel, cp_vname(c, t));
        if (i >= 0)
          sc = o->co_scope;
      }
      if (i < 0) {
        out->ce_sql = arena_strdup(c->cp_a, "CAST(NULL AS int8)");
        return CZ_OK;
      }
      out->ce_sql = sc->sc_exprs ? arena_sprintf(c->cp_a, "(%s)", sc->sc_exprs[i])
                                 : cp_col(c, sc->sc_alias, cp_vname(c, t));
      if (sc->sc_rel->cr_v[i].cv_count)
        out->ce_kind = CP_E_COUNT;
      else if (sc->sc_rel->cr_v[i].cv_text)
        out->ce_kind = CP_E_TERM;
      return CZ_OK;
    }
    out->ce_nt = cp_const_nt(c, t);
    char *inl, *q = sp_sql_term_query(c->cp_a, t, &inl, c->cp_e);
    if (!inl && !q)
      return CZ_ERR;
    if (!inl && c->cp_in_on) {
      /* a dictionary constant's id is a subquery: in a join condition
       * the constant is its text, compared on the text paths */
      out->ce_kind = CP_E_TERM;
      out->ce_sql = out->ce_nt;
      out->ce_nt = NULL;
      return CZ_OK;
    }
    out->ce_sql = inl ? inl : arena_sprintf(c->cp_a, "COALESCE((%s), 0)", q);
    if (t->tm_kind == SP_T_LIT && t->tm_dt && inl) {
      rdf_term_t lit = rdf_literal(t->tm_str, t->tm_dt, NULL);
      rdf_id_t id = rdf_id_encode_literal(&lit);
      if (id && rdf_id_tag(id) == RDF_ID_DATETIME)
        out->ce_dt_id = id;
    }
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
    if (cp_expr(c, sc, x->ex_a, &v) != CZ_OK)
      return CZ_ERR;
    char *s = NULL;
    for (int i = 0; i < x->ex_args->ls_n; i++) {
      cp_expr_t k;
      if (cp_expr(c, sc, x->ex_args->ls_v[i], &k) != CZ_OK)
        return CZ_ERR;
      char *eq = v.ce_kind == CP_E_ID && k.ce_kind == CP_E_ID ? cp_eq_sql(c, &v, &k) : cp_cmp_text(c, "=", &v, &k);
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
  case SP_E_ADD: case SP_E_SUB: case SP_E_MUL: case SP_E_DIV: case SP_E_NEG: case SP_E_POS: {
    static const char ops[] = {[SP_E_ADD] = '+', [SP_E_SUB] = '-', [SP_E_MUL] = '*', [SP_E_DIV] = '/',
                               [SP_E_NEG] = '-', [SP_E_POS] = '+'};
    char name[2] = {ops[x->ex_kind], 0};
    sp_list_t two = {0};
    sp_expr_t *v[2] = {x->ex_a, x->ex_b};
    two.ls_v = (void **)v;
    two.ls_n = x->ex_kind == SP_E_NEG || x->ex_kind == SP_E_POS ? 1 : 2;
    return cp_fn_call(c, sc, "sparql_fn", name, &two, NULL, out);
  }
  case SP_E_FUNC:
    if (cp_cast_type(x->ex_name) && x->ex_args && x->ex_args->ls_n == 1)
      return cp_fn_call(c, sc, "sparql_fn", "cast", x->ex_args,
                        sp_sql_quote(c->cp_a, arena_sprintf(c->cp_a, "<%s>", x->ex_name)), out);
    return cp_unsupported(c, arena_sprintf(c->cp_a, "function <%s>", x->ex_name));
  case SP_E_AGG:
    return cp_unsupported(c, "aggregates in this position");
  case SP_E_EXISTS:
  case SP_E_NOTEXISTS:
    return cp_exists(c, sc, x, out);
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

int cp_value(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, char **sql, cp_var_t *kind)
{
  cp_expr_t v;
  if (cp_expr(c, sc, x, &v) != CZ_OK)
    return CZ_ERR;
  *kind = (cp_var_t){.cv_maybe_null = true};
  if (v.ce_kind == CP_E_ID && !v.ce_nt) {
    *sql = v.ce_sql;
  } else if (v.ce_kind == CP_E_COUNT) {
    *sql = v.ce_sql;
    kind->cv_count = true;
  } else {
    *sql = cp_text_of(c, &v);
    kind->cv_text = true;
  }
  return CZ_OK;
}

/* ORDER BY: unbound first, then SPARQL's order of terms (§15.1) through
 * sparql_order_key. */
int cp_order_expr(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, const char *dir, char **out)
{
  cp_expr_t v;
  if (cp_expr(c, sc, x, &v) != CZ_OK)
    return CZ_ERR;
  if (v.ce_kind == CP_E_COUNT) {
    *out = arena_sprintf(c->cp_a, "%s%s", v.ce_sql, dir);
    return CZ_OK;
  }
  char *t = cp_text_of(c, &v);
  *out = arena_sprintf(c->cp_a, "CASE WHEN %1$s IS NULL THEN 0 ELSE 1 END%2$s, sparql_order_key(%1$s)%2$s", t, dir);
  return CZ_OK;
}

/* SUM, AVG, MIN, MAX, SAMPLE, GROUP_CONCAT (and COUNT of an expression)
 * over the group's input, with §18.5.1's typing: SUM and AVG promote
 * (integer < decimal < float < double; AVG at least decimal), a
 * non-number is an error; an empty group sums to 0; MIN and MAX follow
 * ORDER BY's order; GROUP_CONCAT joins the lexical forms. */
int cp_aggregate(cp_t *c, const cp_scope_t *sc, const sp_expr_t *x, char **sql, cp_var_t *kind)
{
  const char *n = x->ex_name;
  *kind = (cp_var_t){.cv_text = true, .cv_maybe_null = true};
  cp_expr_t v;
  if (cp_expr(c, sc, x->ex_args->ls_v[0], &v) != CZ_OK)
    return CZ_ERR;
  char *t = cp_text_of(c, &v);
  if (strcmp(n, "count") == 0) {
    *kind = (cp_var_t){.cv_count = true};
    *sql = arena_sprintf(c->cp_a, "count(%s%s)", x->ex_distinct ? "DISTINCT " : "", t);
    return CZ_OK;
  }
  if (strcmp(n, "sample") == 0) {
    *sql = arena_sprintf(c->cp_a, "min(%s)", t);
    return CZ_OK;
  }
  if (strcmp(n, "min") == 0 || strcmp(n, "max") == 0) {
    *sql = arena_sprintf(c->cp_a, "sparql_order_term(%s(sparql_order_key(%s)))", n, t);
    return CZ_OK;
  }
  if (x->ex_distinct && (strcmp(n, "sum") == 0 || strcmp(n, "avg") == 0 || strcmp(n, "group_concat") == 0)) {
    /* DISTINCT by term (1 and 1.0 are two), over the group's distinct
     * terms in one list (libsrc/rdf sparql_agg_list) */
    *sql = arena_sprintf(c->cp_a, "sparql_agg_list('%s', string_agg(DISTINCT %s, chr(1)), %s)", n, t,
                         sp_sql_quote(c->cp_a, x->ex_sep ? x->ex_sep : " "));
    kind->cv_maybe_null = true;
    return CZ_OK;
  }
  if (strcmp(n, "sum") == 0 || strcmp(n, "avg") == 0) {
    bool avg = n[0] == 'a';
    *sql = arena_sprintf(c->cp_a,
                         "(CASE WHEN count(%1$s) = 0 THEN " CP_XSD_INTEGER_NT
                         " WHEN count(%1$s) = count(sparql_numtype(%1$s)) THEN sparql_num_term(CAST(%2$s(CAST("
                         "sparql_num(%1$s) AS numeric)) AS text), %3$s) END)",
                         t, avg ? "avg" : "sum",
                         avg ? arena_sprintf(c->cp_a, "CASE WHEN max(sparql_numtype(%s)) < 2 THEN 2 ELSE max(sparql_numtype(%s)) END", t, t)
                             : arena_sprintf(c->cp_a, "max(sparql_numtype(%s))", t));
    return CZ_OK;
  }
  if (strcmp(n, "group_concat") == 0) {
    *sql = arena_sprintf(c->cp_a, "sparql_plain(COALESCE(string_agg(sparql_lex(%s), %s), ''))", t,
                         sp_sql_quote(c->cp_a, x->ex_sep ? x->ex_sep : " "));
    kind->cv_maybe_null = false;
    return CZ_OK;
  }
  return cp_unsupported(c, arena_sprintf(c->cp_a, "aggregate %s", n));
}

/* VALUES: one SELECT of constants per row, terms as N-Triples text (a
 * constant need not be in the store), UNDEF as NULL. */
int cp_table(cp_t *c, const sp_op_t *op, cp_rel_t *out)
{
  const sp_values_t *v = op->op_values;
  int nv = v->va_vars ? v->va_vars->ls_n : 0, nr = v->va_rows ? v->va_rows->ls_n : 0;
  cp_rel_init(c, out, nv);
  for (int i = 0; i < nv; i++) {
    out->cr_v[out->cr_n] = (cp_var_t){.cv_name = cp_vname(c, v->va_vars->ls_v[i]), .cv_text = true};
    for (int r = 0; r < nr; r++)
      if (!((sp_list_t *)v->va_rows->ls_v[r])->ls_v[i])
        out->cr_v[out->cr_n].cv_maybe_null = true;
    out->cr_n++;
  }
  char *sql = NULL;
  char **ex = arena_alloc(c->cp_a, sizeof(char *) * (size_t)(nv + 1));
  for (int r = 0; r < nr; r++) {
    const sp_list_t *row = v->va_rows->ls_v[r];
    for (int i = 0; i < nv; i++) {
      const sp_term_t *t = row->ls_v[i];
      ex[i] = t ? cp_const_nt(c, t) : "CAST(NULL AS text)";
      if (t && t->tm_kind == SP_T_BNODE)
        return cp_unsupported(c, "blank nodes in VALUES");
    }
    sql = cp_cat(c, sql, " UNION ALL ", arena_sprintf(c->cp_a, "SELECT %s", cp_select_list(c, out, ex)));
  }
  if (!sql) {
    for (int i = 0; i < nv; i++)
      ex[i] = "CAST(NULL AS text)";
    sql = arena_sprintf(c->cp_a, "SELECT %s WHERE 1 = 0", cp_select_list(c, out, ex));
  }
  out->cr_sql = nr > 1 ? arena_sprintf(c->cp_a, "SELECT * FROM (%s) %s", sql, cp_fresh(c, "v")) : sql;
  return CZ_OK;
}

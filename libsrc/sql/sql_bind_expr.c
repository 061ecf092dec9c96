/* sql_bind_expr — binding scalar expressions: names to columns (with
 * correlation to enclosing queries), literals and parameters to typed
 * values, operators and functions through exec/expr.h's type rules. */
#include <string.h>

#include "sql/sql_bind_ext.h"
#include "sql/sql_bind_int.h"
#include "sql/sql_bind_syn.h"

/* ---- column references -------------------------------------------------- */

typedef struct bd_found_s {
  int fd_count;                 /* columns matching */
  int fd_index;                 /* the (last) match's position in the row */
  ty_t fd_type;
  bool fd_table_seen;           /* the qualifier named a FROM item here */
  const bd_rel_t *fd_rel;       /* the (last) match's range entry and column in it */
  int fd_col;
} bd_found_t;

static void scope_find(const bd_scope_t *sc, const char *schema, const char *table,
                       const char *name, bd_found_t *f)
{
  memset(f, 0, sizeof(*f));
  for (int r = 0; r < sc->sc_nrels; r++) {
    const bd_rel_t *rel = sc->sc_rels[r];
    if (rel->rl_hidden)
      continue;  /* a merged view's own items (sql_bind_view.c) */
    if (table) {
      if (strcmp(rel->rl_name, table) != 0)
        continue;
      if (schema && (!rel->rl_schema || strcmp(rel->rl_schema, schema) != 0))
        continue;
      f->fd_table_seen = true;
    }
    for (int c = 0; c < rel->rl_ncols; c++)
      if (strcmp(rel->rl_cols[c], name) == 0 && (table || !rel->rl_merged || !rel->rl_merged[c])) {
        f->fd_count++;
        f->fd_index = rel->rl_map ? rel->rl_map[c] : rel->rl_base + c;
        f->fd_type = rel->rl_types[c];
        f->fd_rel = rel;
        f->fd_col = c;
      }
  }
}

static void fix_later(bd_t *b, xnode_t *p)
{
  if (b->b_nfix == b->b_fix_cap) {
    int cap = b->b_fix_cap ? b->b_fix_cap * 2 : 16;
    xnode_t **n = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    if (b->b_nfix)
      memcpy(n, b->b_fix, sizeof(xnode_t *) * (size_t)b->b_nfix);
    b->b_fix = n;
    b->b_fix_cap = cap;
  }
  b->b_fix[b->b_nfix++] = p;
}

xnode_t *bd_param_corr(bd_t *b, ty_t t, int k)
{
  xnode_t *p = bd_node(b, X_PARAM, t, 0);
  p->x_index = k;
  fix_later(b, p);
  return p;
}

void bd_subq_register(bd_t *b, xsubq_t *sq)
{
  if (b->b_nsubqs == b->b_subq_cap) {
    int cap = b->b_subq_cap ? b->b_subq_cap * 2 : 8;
    xsubq_t **n = arena_alloc(b->b_a, sizeof(xsubq_t *) * (size_t)cap);
    if (b->b_nsubqs)
      memcpy(n, b->b_subqs, sizeof(xsubq_t *) * (size_t)b->b_nsubqs);
    b->b_subqs = n;
    b->b_subq_cap = cap;
  }
  b->b_subqs[b->b_nsubqs++] = sq;
}

/* Makes `outer` (a node in the terms of the scope enclosing sq's) visible
 * inside subquery sq as a parameter. */
static xnode_t *bd_corr(bd_t *b, xsubq_t *sq, xnode_t *outer)
{
  int k;
  for (k = 0; k < sq->xs_ncorr; k++)
    if (bd_node_equal(sq->xs_corr[k], outer))
      break;
  if (k == sq->xs_ncorr) {
    xnode_t **n = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(k + 1));
    if (k)
      memcpy(n, sq->xs_corr, sizeof(xnode_t *) * (size_t)k);
    n[k] = outer;
    sq->xs_corr = n;
    sq->xs_ncorr = k + 1;
  }
  xnode_t *p = bd_node(b, X_PARAM, outer->x_type, outer->x_pos);
  p->x_index = k;
  fix_later(b, p);
  b->b_ncorr++;
  bd_decor_t *dr = b->b_decor;
  if (dr && sq == dr->dr_sq) {
    if (dr->dr_nparams == dr->dr_param_cap) {
      int cap = dr->dr_param_cap ? dr->dr_param_cap * 2 : 8;
      xnode_t **n = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
      if (dr->dr_nparams)
        memcpy(n, dr->dr_params, sizeof(xnode_t *) * (size_t)dr->dr_nparams);
      dr->dr_params = n;
      dr->dr_param_cap = cap;
    }
    dr->dr_params[dr->dr_nparams++] = p;
  }
  return p;
}

/* The system column tableoid (pg_dump reads it from every catalog it
 * lists): the OID of the table the range entry reads, a constant, when
 * no real column of that name is in reach. Qualified, the entry of that
 * name; bare, the one table of the innermost scope that has any. */
static bool bd_tableoid(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  if (strcmp(x->ex_name, "tableoid") != 0)
    return false;
  for (bd_scope_t *s = sc; s; s = s->sc_parent) {
    const sp_table_t *hit = NULL;
    int n = 0;
    for (int r = 0; r < s->sc_nrels; r++) {
      const bd_rel_t *rel = s->sc_rels[r];
      if (rel->rl_hidden || !rel->rl_table)
        continue;
      if (x->ex_table && strcmp(rel->rl_name, x->ex_table) != 0)
        continue;
      hit = rel->rl_table;
      n++;
    }
    if (n > 1)
      return false;  /* ambiguous: the caller's error */
    if (n == 1) {
      xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_INT8), x->ex_pos);
      c->x_const.d_i64 = hit->tb_oid;
      *out = c;
      return true;
    }
  }
  return false;
}

static int bd_column(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bd_scope_t *chain[64];
  int depth = 0;
  bool table_seen = false;
  for (bd_scope_t *s = sc; s; s = s->sc_parent) {
    bd_found_t f;
    scope_find(s, x->ex_schema, x->ex_table, x->ex_name, &f);
    table_seen |= f.fd_table_seen;
    if (f.fd_count > 1)
      return bd_error(b, SQLSTATE_AMBIGUOUS_COLUMN, x->ex_pos, "column reference \"%s\" is ambiguous",
                      x->ex_name);
    if (f.fd_count == 1) {
      xnode_t *n = bd_col(b, f.fd_index, f.fd_type);
      n->x_pos = x->ex_pos;
      bd_scope_use(b, s, f.fd_index);
      bd_ref_column(b, x, f.fd_rel, f.fd_col);
      /* Pass it inward through every subquery boundary crossed. */
      for (int i = depth - 1; i >= 0; i--) {
        if (!chain[i]->sc_subq)
          return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, x->ex_pos,
                          "column \"%s\" cannot be referenced from this part of the query",
                          x->ex_name);
        n = bd_corr(b, chain[i]->sc_subq, n);
      }
      *out = n;
      return CZ_OK;
    }
    if (f.fd_table_seen)
      break;  /* t.x where t is here but has no x: do not look further out */
    if (depth == (int)CZ_ARRAY_LEN(chain))
      break;
    chain[depth++] = s;
  }
  if (bd_tableoid(b, sc, x, out))
    return CZ_OK;
  if (x->ex_table && !table_seen)
    return bd_error(b, SQLSTATE_UNDEFINED_TABLE, x->ex_pos,
                    "missing FROM-clause entry for table \"%s\"", x->ex_table);
  if (x->ex_table)
    return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, x->ex_pos, "column %s.%s does not exist",
                    x->ex_table, x->ex_name);
  return bd_error(b, SQLSTATE_UNDEFINED_COLUMN, x->ex_pos, "column \"%s\" does not exist",
                  x->ex_name);
}

/* ---- literals and parameters ------------------------------------------- */

static int bd_literal(bd_t *b, const sql_expr_t *x, xnode_t **out)
{
  xnode_t *n = bd_node(b, X_CONST, ty_plain(TY_UNKNOWN), x->ex_pos);
  switch (x->ex_lit) {
  case SQL_LIT_NULL:
    n->x_const.d_null = true;
    break;
  case SQL_LIT_BOOL:
    n->x_type = ty_plain(TY_BOOL);
    n->x_const.d_bool = x->ex_bool;
    break;
  case SQL_LIT_INT:
    n->x_type = ty_plain(x->ex_int >= INT32_MIN && x->ex_int <= INT32_MAX ? TY_INT4 : TY_INT8);
    n->x_const.d_i64 = x->ex_int;
    break;
  case SQL_LIT_NUMERIC:
  case SQL_LIT_FLOAT: {
    /* PostgreSQL types 1.5 and 1e3 as numeric, exactly at any length;
     * one that NUMERIC's 38 digits cannot hold exactly is 22003 (a double
     * would silently change its digits). */
    size_t len = strlen(x->ex_text);
    n->x_type = ty_plain(TY_NUMERIC);
    if (ty_parse_text(n->x_type, x->ex_text, len, b->b_a, &n->x_const, b->b_e) != CZ_OK) {
      b->b_e->er_pos = x->ex_pos;
      return CZ_ERR;
    }
    break;
  }
  case SQL_LIT_STRING:
    n->x_const.d_str.s_ptr = x->ex_text;
    n->x_const.d_str.s_len = (uint32_t)strlen(x->ex_text);
    break;
  case SQL_LIT_TYPED: {
    ty_t t;
    if (sql_bind_type(&x->ex_type, &t, b->b_e) != CZ_OK)
      return CZ_ERR;
    n->x_type = t;
    if (ty_parse_text(t, x->ex_text, strlen(x->ex_text), b->b_a, &n->x_const, b->b_e) != CZ_OK) {
      b->b_e->er_pos = x->ex_pos;
      return CZ_ERR;
    }
    break;
  }
  }
  *out = n;
  return CZ_OK;
}

static int bd_param(bd_t *b, const sql_expr_t *x, xnode_t **out)
{
  int idx = (int)x->ex_int - 1;
  if (idx < 0 || idx >= 65535)
    return bd_error(b, SQLSTATE_UNDEFINED_PARAMETER, x->ex_pos, "there is no parameter $%lld", (long long)x->ex_int);
  if (idx >= b->b_pcap) {
    int cap = b->b_pcap ? b->b_pcap : 8;
    while (cap <= idx)
      cap *= 2;
    ty_t *n = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)cap);
    if (b->b_nparams)
      memcpy(n, b->b_ptypes, sizeof(ty_t) * (size_t)b->b_nparams);
    b->b_ptypes = n;
    b->b_pcap = cap;
  }
  for (int i = b->b_nparams; i <= idx; i++)
    b->b_ptypes[i] = ty_plain(TY_UNKNOWN);
  if (idx >= b->b_nparams)
    b->b_nparams = idx + 1;
  xnode_t *n = bd_node(b, X_PARAM, b->b_ptypes[idx], x->ex_pos);
  n->x_index = idx;
  if (b->b_nparam_nodes == b->b_param_cap) {
    int cap = b->b_param_cap ? b->b_param_cap * 2 : 16;
    xnode_t **nn = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)cap);
    if (b->b_nparam_nodes)
      memcpy(nn, b->b_param_nodes, sizeof(xnode_t *) * (size_t)b->b_nparam_nodes);
    b->b_param_nodes = nn;
    b->b_param_cap = cap;
  }
  b->b_param_nodes[b->b_nparam_nodes++] = n;
  *out = n;
  return CZ_OK;
}

/* ---- operators ---------------------------------------------------------- */

static bool bd_is_null_const(const xnode_t *n)
{
  return n->x_kind == X_CONST && n->x_const.d_null;
}

/* PostgreSQL folds a strict operator with a NULL constant operand to NULL
 * while planning, so `col / 0 = NULL` is NULL without dividing; and IS
 * [NOT] NULL / IS [NOT] TRUE|FALSE of a NULL constant to a boolean (a
 * HAVING or WHERE that is then constantly not true runs nothing, see
 * op_filter). The operand's aggregates and subqueries stay registered,
 * so the query's shape does not change. */
static xnode_t *bd_fold_null(bd_t *b, xnode_t *n)
{
  bool null_arg = false;
  for (int i = 0; i < n->x_nargs; i++)
    null_arg |= bd_is_null_const(n->x_args[i]);
  if (!null_arg)
    return n;
  switch (n->x_op) {
  case XOP_AND:
  case XOP_OR:
  case XOP_IS_DISTINCT:
  case XOP_IS_NOT_DISTINCT:
    return n;
  case XOP_IS_NULL:
  case XOP_IS_NOT_TRUE:
  case XOP_IS_NOT_FALSE:
  case XOP_IS_NOT_NULL:
  case XOP_IS_TRUE:
  case XOP_IS_FALSE: {
    xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_BOOL), n->x_pos);
    c->x_const.d_bool =
        n->x_op == XOP_IS_NULL || n->x_op == XOP_IS_NOT_TRUE || n->x_op == XOP_IS_NOT_FALSE;
    return c;
  }
  default: {
    xnode_t *c = bd_const_null(b, n->x_type);
    c->x_pos = n->x_pos;
    return c;
  }
  }
}

/* ---- CHAR (bpchar) comparisons ------------------------------------------
 * PostgreSQL compares CHAR with CHAR, VARCHAR or an untyped value as
 * bpchar, where trailing blanks do not count on either side (the other
 * side is cast to bpchar: 'SHIP ' = 'SHIP'::char(10), and a varchar
 * 'SHIP  ' equals it too); CHAR with TEXT compares as text, where only
 * CHAR's own padding is dropped. Strings here compare as text, so a pair
 * compared as bpchar gets both sides' trailing blanks dropped first. `=`,
 * the other comparisons, simple CASE, NULLIF, BETWEEN, IN lists and IN
 * (subquery) all pair their operands through this rule. */

static bool bd_is_cmp(xop_t op)
{
  return op == XOP_EQ || op == XOP_NE || op == XOP_LT || op == XOP_LE || op == XOP_GT ||
         op == XOP_GE || op == XOP_IS_DISTINCT || op == XOP_IS_NOT_DISTINCT;
}

static bool bd_is_str(ty_id_t t)
{
  return t == TY_CHAR || t == TY_VARCHAR || t == TY_TEXT;
}

/* Whether values of types l and r compare as bpchar. */
static bool bd_bpchar_pair(ty_t l, ty_t r)
{
  bool lc = l.t_id == TY_CHAR, rc = r.t_id == TY_CHAR;
  if (!lc && !rc)
    return false;
  ty_id_t o = lc ? r.t_id : l.t_id;
  return o == TY_CHAR || o == TY_VARCHAR || o == TY_UNKNOWN;
}

/* n as text without trailing blanks (bpchar's comparison value): a
 * constant is converted here, anything else cast to CHAR (keeping its
 * blanks) and then to TEXT, which drops them. */
static xnode_t *bd_bpchar_text(bd_t *b, xnode_t *n)
{
  if (n->x_kind == X_CONST && (bd_is_str(n->x_type.t_id) || n->x_type.t_id == TY_UNKNOWN)) {
    xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_TEXT), n->x_pos);
    c->x_const = n->x_const;
    if (!c->x_const.d_null)
      while (c->x_const.d_str.s_len > 0 &&
             c->x_const.d_str.s_ptr[c->x_const.d_str.s_len - 1] == ' ')
        c->x_const.d_str.s_len--;
    return c;
  }
  if (n->x_type.t_id != TY_CHAR && !(n = bd_coerce(b, n, ty_plain(TY_CHAR))))
    return NULL;
  return bd_coerce(b, n, ty_plain(TY_TEXT));
}

int bd_op(bd_t *b, xop_t op, xnode_t *l, xnode_t *r, int pos, xnode_t **out)
{
  ty_t l_to, r_to, res;
  if (r && bd_is_cmp(op) && bd_bpchar_pair(l->x_type, r->x_type) &&
      (!(l = bd_bpchar_text(b, l)) || !(r = bd_bpchar_text(b, r))))
    return CZ_ERR;
  int rc = r ? xop_resolve(op, l->x_type, &r->x_type, &l_to, &r_to, &res, b->b_e)
             : xop_resolve(op, l->x_type, NULL, &l_to, NULL, &res, b->b_e);
  if (rc != CZ_OK) {
    b->b_e->er_pos = pos;
    return CZ_ERR;
  }
  xnode_t *n = bd_node(b, X_OP, res, pos);
  n->x_op = op;
  n->x_nargs = r ? 2 : 1;
  n->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 2);
  if (!(n->x_args[0] = bd_coerce(b, l, l_to)))
    return CZ_ERR;
  if (r && !(n->x_args[1] = bd_coerce(b, r, r_to)))
    return CZ_ERR;
  *out = bd_fold(b, bd_fold_null(b, n));
  return CZ_OK;
}

static xop_t bd_map_op(const sql_expr_t *x)
{
  bool nt = x->ex_not;
  switch (x->ex_op) {
  case SQL_OP_OR: return XOP_OR;
  case SQL_OP_AND: return XOP_AND;
  case SQL_OP_NOT: return XOP_NOT;
  case SQL_OP_NEG: return XOP_NEG;
  case SQL_OP_EQ: return XOP_EQ;
  case SQL_OP_NE: return XOP_NE;
  case SQL_OP_LT: return XOP_LT;
  case SQL_OP_LE: return XOP_LE;
  case SQL_OP_GT: return XOP_GT;
  case SQL_OP_GE: return XOP_GE;
  case SQL_OP_ADD: return XOP_ADD;
  case SQL_OP_SUB: return XOP_SUB;
  case SQL_OP_MUL: return XOP_MUL;
  case SQL_OP_DIV: return XOP_DIV;
  case SQL_OP_MOD: return XOP_MOD;
  case SQL_OP_CONCAT: return XOP_CONCAT;
  case SQL_OP_LIKE: return nt ? XOP_NOT_LIKE : XOP_LIKE;
  case SQL_OP_ILIKE: return nt ? XOP_NOT_ILIKE : XOP_ILIKE;
  case SQL_OP_IS_NULL:
  case SQL_OP_IS_UNKNOWN: return nt ? XOP_IS_NOT_NULL : XOP_IS_NULL;
  case SQL_OP_IS_TRUE: return nt ? XOP_IS_NOT_TRUE : XOP_IS_TRUE;
  case SQL_OP_IS_FALSE: return nt ? XOP_IS_NOT_FALSE : XOP_IS_FALSE;
  case SQL_OP_IS_DISTINCT: return nt ? XOP_IS_NOT_DISTINCT : XOP_IS_DISTINCT;
  default: return XOP_EQ;
  }
}

static bool op_is_unary(sql_op_t op)
{
  return op == SQL_OP_NOT || op == SQL_OP_NEG || op == SQL_OP_IS_NULL || op == SQL_OP_IS_TRUE ||
         op == SQL_OP_IS_FALSE || op == SQL_OP_IS_UNKNOWN || op == SQL_OP_BITNOT;
}

static int bd_func_call(bd_t *b, const char *name, xnode_t **args, int n, int pos,
                        xnode_t **out);

static int bd_operator(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  xnode_t *l, *r = NULL;
  if (bd_expr(b, sc, x->ex_left, &l) != CZ_OK)
    return CZ_ERR;
  if (!op_is_unary(x->ex_op) && bd_expr(b, sc, x->ex_right, &r) != CZ_OK)
    return CZ_ERR;
  if (x->ex_op == SQL_OP_IS_UNKNOWN) {
    /* IS UNKNOWN is IS NULL restricted to booleans, as in PostgreSQL. */
    if (l->x_type.t_id == TY_UNKNOWN && !(l = bd_coerce(b, l, ty_plain(TY_BOOL))))
      return CZ_ERR;
    if (l->x_type.t_id != TY_BOOL)
      return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, x->ex_pos, "argument of IS %sUNKNOWN must be type boolean",
                      x->ex_not ? "NOT " : "");
  }
  if (bd_bitop_is(x->ex_op))
    return bd_bitop(b, x->ex_op, l, r, x->ex_pos, out);  /* sql_bind_bits.c */
  if (bd_jsonop_is(x->ex_op))
    return bd_jsonop(b, x->ex_op, l, r, x->ex_pos, out);  /* sql_bind_json.c */
  if (bd_jsonb_arith(x->ex_op, l, r))
    return bd_jsonb_arith_op(b, x->ex_op, l, r, x->ex_pos, out);
  if (x->ex_op == SQL_OP_POW) {
    xnode_t *args[2] = {l, r}; /* a ^ b is power(a, b), as in PostgreSQL */
    return bd_func_call(b, "power", args, 2, x->ex_pos, out);
  }
  if (x->ex_op == SQL_OP_SIMILAR && bd_similar_pattern(b, sc, x, &r) != CZ_OK)
    return CZ_ERR; /* SIMILAR TO: a regular expression, matched below */
  else if (x->ex_third && x->ex_op != SQL_OP_SIMILAR && bd_like_escape(b, sc, x, &r) != CZ_OK)
    return CZ_ERR; /* LIKE … ESCAPE */
  if (x->ex_op == SQL_OP_MATCH || x->ex_op == SQL_OP_IMATCH || x->ex_op == SQL_OP_SIMILAR) {
    /* a ~ b is regexp_like(a, b [, 'i']) */
    xnode_t *args[3] = {l, r, NULL};
    int n = 2;
    if (x->ex_op == SQL_OP_IMATCH) {
      args[2] = bd_node(b, X_CONST, ty_plain(TY_TEXT), x->ex_pos);
      args[2]->x_const.d_str.s_ptr = "i";
      args[2]->x_const.d_str.s_len = 1;
      n = 3;
    }
    xnode_t *m;
    if (bd_func_call(b, "regexp_like", args, n, x->ex_pos, &m) != CZ_OK)
      return CZ_ERR;
    if (!x->ex_not) {
      *out = m;
      return CZ_OK;
    }
    return bd_op(b, XOP_NOT, m, NULL, x->ex_pos, out);
  }
  return bd_op(b, bd_map_op(x), l, r, x->ex_pos, out);
}

int bd_unify(bd_t *b, xnode_t **nodes, int n, const char *ctx, int pos, ty_t *out)
{
  ty_t *types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; i++)
    types[i] = nodes[i]->x_type;
  if (xtype_common(types, n, out, b->b_e) != CZ_OK) {
    b->b_e->er_pos = pos;
    (void)ctx;
    return CZ_ERR;
  }
  for (int i = 0; i < n; i++)
    if (!(nodes[i] = bd_coerce(b, nodes[i], *out)))
      return CZ_ERR;
  return CZ_OK;
}

/* ---- CASE, IN, BETWEEN ----------------------------------------------------- */

static int bd_case_in(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out);

/* CASE: set-returning functions are not allowed inside (0A000, as PostgreSQL). */
static int bd_case(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  const char *prev = bd_srf_forbid(sc, "CASE");
  int rc = bd_case_in(b, sc, x, out);
  bd_srf_forbid(sc, prev);
  return rc;
}

static int bd_case_in(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  int nw = sql_list_len(x->ex_list);
  int n = 2 * nw + (x->ex_right ? 1 : 0);
  xnode_t **args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)n);
  xnode_t **res = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(nw + 1));
  for (int i = 0; i < nw; i++) {
    const sql_when_t *w = sql_list_at(x->ex_list, i);
    xnode_t *cond;
    if (x->ex_left) {
      xnode_t *base, *val;
      if (bd_expr(b, sc, x->ex_left, &base) != CZ_OK || bd_expr(b, sc, w->wh_cond, &val) != CZ_OK ||
          bd_op(b, XOP_EQ, base, val, w->wh_cond->ex_pos, &cond) != CZ_OK)
        return CZ_ERR;
    } else if (bd_cond(b, sc, w->wh_cond, "CASE/WHEN", &cond) != CZ_OK)
      return CZ_ERR;
    args[2 * i] = cond;
    if (bd_expr(b, sc, w->wh_result, &res[i]) != CZ_OK)
      return CZ_ERR;
  }
  int nres = nw;
  if (x->ex_right && bd_expr(b, sc, x->ex_right, &res[nres++]) != CZ_OK)
    return CZ_ERR;
  ty_t t;
  if (bd_unify(b, res, nres, "CASE", x->ex_pos, &t) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < nw; i++)
    args[2 * i + 1] = res[i];
  if (x->ex_right)
    args[2 * nw] = res[nw];
  xnode_t *c = bd_node(b, X_CASE, t, x->ex_pos);
  c->x_nargs = n;
  c->x_args = args;
  c->x_has_else = x->ex_right != NULL;
  *out = bd_fold(b, c);
  return CZ_OK;
}

/* An IN list over strings with a CHAR among them: each item compares with
 * the left side as `=` would (bd_bpchar_pair). Returns 0 when nothing was
 * done (no CHAR, or not all strings), after turning every operand into
 * TEXT so that the list is built as usual; 1 when the list had to become
 * an OR (NOT IN: an AND) of comparisons because the left side would be
 * compared with and without its trailing blanks (a VARCHAR against both a
 * CHAR and a TEXT item), *out set; -1 on error. */
static int bd_in_list_bpchar(bd_t *b, xnode_t **args, int n, bool negate, int pos,
                             xnode_t **out)
{
  bool any_char = false;
  for (int i = 0; i < n; i++) {
    ty_id_t t = args[i]->x_type.t_id;
    if (!bd_is_str(t) && t != TY_UNKNOWN)
      return 0;
    any_char |= t == TY_CHAR;
  }
  if (!any_char)
    return 0;
  ty_t lt = args[0]->x_type;
  int strip_lhs = -1;
  for (int k = 1; k < n; k++) {
    int s = lt.t_id == TY_CHAR || bd_bpchar_pair(lt, args[k]->x_type);
    if (strip_lhs >= 0 && s != strip_lhs) {
      xnode_t *acc = NULL;
      for (int j = 1; j < n; j++) {
        xnode_t *c;
        if (bd_op(b, negate ? XOP_NE : XOP_EQ, args[0], args[j], pos, &c) != CZ_OK ||
            (acc && bd_op(b, negate ? XOP_AND : XOP_OR, acc, c, pos, &c) != CZ_OK))
          return -1;
        acc = c;
      }
      *out = acc;
      return 1;
    }
    strip_lhs = s;
  }
  for (int k = 1; k < n; k++) {
    bool s = args[k]->x_type.t_id == TY_CHAR || bd_bpchar_pair(lt, args[k]->x_type);
    if (!(args[k] = s ? bd_bpchar_text(b, args[k]) : bd_coerce(b, args[k], ty_plain(TY_TEXT))))
      return -1;
  }
  if (!(args[0] = strip_lhs ? bd_bpchar_text(b, args[0]) : bd_coerce(b, args[0], ty_plain(TY_TEXT))))
    return -1;
  return 0;
}

static int bd_in_list(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  int n = 1 + sql_list_len(x->ex_list);
  xnode_t **args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)n);
  if (bd_expr(b, sc, x->ex_left, &args[0]) != CZ_OK)
    return CZ_ERR;
  for (int i = 1; i < n; i++)
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i - 1), &args[i]) != CZ_OK)
      return CZ_ERR;
  int bp = bd_in_list_bpchar(b, args, n, x->ex_not, x->ex_pos, out);
  if (bp != 0)
    return bp > 0 ? CZ_OK : CZ_ERR;
  ty_t t;
  if (bd_unify(b, args, n, "IN", x->ex_pos, &t) != CZ_OK)
    return CZ_ERR;
  if (bd_is_null_const(args[0]) || (n == 2 && bd_is_null_const(args[1]))) {
    /* NULL IN (…) is NULL whatever the list (PostgreSQL folds its strict
     * = ANY), and x IN (NULL) is x = NULL; the list is not evaluated */
    *out = bd_const_null(b, ty_plain(TY_BOOL));
    (*out)->x_pos = x->ex_pos;
    return CZ_OK;
  }
  xnode_t *in = bd_node(b, X_IN_LIST, ty_plain(TY_BOOL), x->ex_pos);
  in->x_nargs = n;
  in->x_args = args;
  in->x_not = x->ex_not;
  *out = bd_fold(b, in);
  return CZ_OK;
}

static int bd_between(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  xnode_t *v, *lo, *hi, *c1, *c2;
  if (bd_expr(b, sc, x->ex_left, &v) != CZ_OK || bd_expr(b, sc, x->ex_right, &lo) != CZ_OK ||
      bd_expr(b, sc, x->ex_third, &hi) != CZ_OK)
    return CZ_ERR;
  /* v is shared by both comparisons: nodes are never changed in place. */
  if (x->ex_not)
    return bd_op(b, XOP_LT, v, lo, x->ex_pos, &c1) != CZ_OK ||
                   bd_op(b, XOP_GT, v, hi, x->ex_pos, &c2) != CZ_OK
               ? CZ_ERR
               : bd_op(b, XOP_OR, c1, c2, x->ex_pos, out);
  return bd_op(b, XOP_GE, v, lo, x->ex_pos, &c1) != CZ_OK ||
                 bd_op(b, XOP_LE, v, hi, x->ex_pos, &c2) != CZ_OK
             ? CZ_ERR
             : bd_op(b, XOP_AND, c1, c2, x->ex_pos, out);
}

/* ---- subqueries ------------------------------------------------------------ */

xsubq_t *bd_subq_new(bd_t *b, bd_scope_t *sc)
{
  xsubq_t *sq = arena_zalloc(b->b_a, sizeof(*sq));
  sq->xs_parent = sc ? sc->sc_subq : NULL;
  bd_subq_register(b, sq);  /* before its own subqueries: parents first */
  return sq;
}

int bd_subquery(bd_t *b, bd_scope_t *sc, const sql_query_t *q, int kind, int pos,
                xsubq_t **out_sq, lp_subq_t **out_ls)
{
  xsubq_t *sq = bd_subq_new(b, sc);
  if (b->b_nsrc == b->b_src_cap) {
    int cap = b->b_src_cap ? b->b_src_cap * 2 : 8;
    bd_subq_src_t *n = arena_alloc(b->b_a, sizeof(bd_subq_src_t) * (size_t)cap);
    if (b->b_nsrc)
      memcpy(n, b->b_src, sizeof(bd_subq_src_t) * (size_t)b->b_nsrc);
    b->b_src = n;
    b->b_src_cap = cap;
  }
  lp_subq_t *ls = arena_zalloc(b->b_a, sizeof(*ls));
  ls->ls_sq = sq;
  ls->ls_decor = b->b_decor != NULL;
  b->b_src[b->b_nsrc++] = (bd_subq_src_t){.ss_sq = sq, .ss_q = q, .ss_sc = sc, .ss_ctes = b->b_ctes,
                                          .ss_owner = b->b_view_owner, .ss_gen = ls};
  bool decor = b->b_decor && !b->b_decor->dr_sq;
  if (decor)
    b->b_decor->dr_sq = sq;  /* the rebinding asked for: its top block decorrelates */
  lp_node_t *node;
  if (bd_query_node(b, q, sc, sq, &node, NULL, NULL) != CZ_OK)
    return CZ_ERR;
  if (kind != 1 && node->ln_ncols != 1 && !decor)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, pos, "subquery must return only one column");
  ls->ls_node = node;
  *out_sq = sq;
  *out_ls = ls;
  return CZ_OK;
}

/* EXISTS (SELECT * FROM … ) answers from whether a row comes, not from
 * its columns: when the block has no GROUP BY, HAVING, windows or
 * DISTINCT ON and the query no ORDER BY (which could name an output
 * column), it is bound as SELECT 1 FROM …, so that its scan reads only
 * the columns its conditions need and a secondary index holding them
 * answers without fetching each row from the primary tree (TPC-H Q4,
 * Q21, Q22: the orders_cust or lineitem key entries, not the rows). */
static const sql_query_t *exists_query(bd_t *b, const sql_query_t *q)
{
  const sql_select_t *s = q->qu_kind == SQL_Q_SELECT ? q->qu_select : NULL;
  if (!s || !s->se_from || !s->se_targets || s->se_group || s->se_having || s->se_windows ||
      s->se_distinct_on || q->qu_order)
    return q;
  for (int i = 0; i < s->se_targets->ls_n; i++)
    if (((const sql_target_t *)s->se_targets->ls_items[i])->tg_expr->ex_kind != SQL_E_STAR)
      return q;
  const sql_target_t *first = s->se_targets->ls_items[0];
  sql_expr_t *one = arena_zalloc(b->b_a, sizeof(*one));
  one->ex_kind = SQL_E_LITERAL;
  one->ex_lit = SQL_LIT_INT;
  one->ex_int = 1;
  one->ex_pos = first->tg_expr->ex_pos;
  sql_target_t *t = arena_zalloc(b->b_a, sizeof(*t));
  t->tg_expr = one;
  sql_list_t *l = arena_zalloc(b->b_a, sizeof(*l));
  l->ls_items = arena_alloc(b->b_a, sizeof(void *));
  l->ls_items[0] = t;
  l->ls_n = l->ls_cap = 1;
  sql_select_t *cs = arena_alloc(b->b_a, sizeof(*cs));
  *cs = *s;
  cs->se_targets = l;
  sql_query_t *c = arena_alloc(b->b_a, sizeof(*c));
  *c = *q;
  c->qu_select = cs;
  return c;
}

static int bd_subq_expr(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, int kind, bool negate,
                        xnode_t *lhs, xnode_t **out)
{
  xsubq_t *sq;
  lp_subq_t *ls;
  const sql_query_t *q = kind == 1 ? exists_query(b, x->ex_query) : x->ex_query;
  if (bd_subquery(b, sc, q, kind, x->ex_pos, &sq, &ls) != CZ_OK)
    return CZ_ERR;
  const ty_t *types = ls->ls_node->ln_types;
  xnode_t *n = bd_node(b, X_SUBQ, kind == 0 ? types[0] : ty_plain(TY_BOOL), x->ex_pos);
  n->x_subq = sq;
  n->x_subq_kind = kind;
  n->x_not = negate;
  if (kind == 2) {
    xnode_t *pair[2] = {lhs, bd_col(b, 0, types[0])};
    ty_t t;
    if (bd_bpchar_pair(pair[0]->x_type, pair[1]->x_type) &&
        (!(pair[0] = bd_bpchar_text(b, pair[0])) || !(pair[1] = bd_bpchar_text(b, pair[1]))))
      return CZ_ERR;
    if (bd_unify(b, pair, 2, "IN", x->ex_pos, &t) != CZ_OK)
      return CZ_ERR;
    if (pair[1]->x_kind != X_COL)
      ls->ls_proj = pair[1];  /* the subquery's value in the comparison's type */
    n->x_nargs = 1;
    n->x_args = arena_alloc(b->b_a, sizeof(xnode_t *));
    n->x_args[0] = pair[0];
  }
  *out = n;
  return CZ_OK;
}

/* x op ANY/ALL (subquery) for the forms that are IN and NOT IN. */
static int bd_any_all(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  bool any = x->ex_kind == SQL_E_ANY;
  if (x->ex_query && ((any && x->ex_op == SQL_OP_EQ && !x->ex_not) ||
                      (!any && x->ex_op == SQL_OP_NE && !x->ex_not))) {
    xnode_t *lhs;
    if (bd_expr(b, sc, x->ex_left, &lhs) != CZ_OK)
      return CZ_ERR;
    return bd_subq_expr(b, sc, x, 2, !any, lhs, out);
  }
  if (!x->ex_query)
    return bd_array_any(b, sc, x, out);  /* over an array (sql_bind_array.c) */
  return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                  "this form of ANY/ALL is not supported yet");
}

/* ---- functions ------------------------------------------------------------ */

/* COALESCE, NULLIF, GREATEST, LEAST as CASE when the function table does
 * not have them. */
static int bd_func_as_case(bd_t *b, const char *name, xnode_t **args, int n, int pos,
                           xnode_t **out)
{
  ty_t t;
  if (strcmp(name, "nullif") == 0) {
    if (n != 2)
      return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "function nullif requires 2 arguments");
    xnode_t *eq;
    if (bd_op(b, XOP_EQ, args[0], args[1], pos, &eq) != CZ_OK)
      return CZ_ERR;
    xnode_t *v = args[0]->x_type.t_id == TY_UNKNOWN ? bd_finish_unknown(b, args[0]) : args[0];
    if (!v)
      return CZ_ERR;
    xnode_t *c = bd_node(b, X_CASE, v->x_type, pos);
    c->x_nargs = 3;
    c->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 3);
    c->x_args[0] = eq;
    c->x_args[1] = bd_const_null(b, v->x_type);
    c->x_args[2] = v;
    c->x_has_else = true;
    *out = c;
    return CZ_OK;
  }
  if (n < 1)
    return bd_error(b, SQLSTATE_UNDEFINED_FUNCTION, pos, "function %s() does not exist", name);
  if (bd_unify(b, args, n, name, pos, &t) != CZ_OK)
    return CZ_ERR;
  bool coalesce = strcmp(name, "coalesce") == 0;
  /* coalesce: CASE WHEN a IS NOT NULL THEN a … ELSE last END;
   * greatest/least fold pairwise, ignoring NULLs as PostgreSQL does. */
  xnode_t *acc = args[n - 1];
  for (int i = n - 2; i >= 0; i--) {
    xnode_t *cond;
    xnode_t *c = bd_node(b, X_CASE, t, pos);
    c->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * 3);
    c->x_nargs = 3;
    c->x_has_else = true;
    if (coalesce) {
      if (bd_op(b, XOP_IS_NOT_NULL, args[i], NULL, pos, &cond) != CZ_OK)
        return CZ_ERR;
      c->x_args[0] = cond;
      c->x_args[1] = args[i];
      c->x_args[2] = acc;
    } else {
      xnode_t *cmp, *nn, *accnull;
      xop_t op = strcmp(name, "greatest") == 0 ? XOP_GE : XOP_LE;
      if (bd_op(b, op, args[i], acc, pos, &cmp) != CZ_OK ||
          bd_op(b, XOP_IS_NULL, acc, NULL, pos, &accnull) != CZ_OK ||
          bd_op(b, XOP_OR, accnull, cmp, pos, &cond) != CZ_OK ||
          bd_op(b, XOP_IS_NOT_NULL, args[i], NULL, pos, &nn) != CZ_OK ||
          bd_op(b, XOP_AND, nn, cond, pos, &cond) != CZ_OK)
        return CZ_ERR;
      c->x_args[0] = cond;
      c->x_args[1] = args[i];
      c->x_args[2] = acc;
    }
    acc = c;
  }
  *out = acc;
  return CZ_OK;
}

/* NULLIF(a, b) has the type of the left input of the = operator
 * PostgreSQL picks for (a, b): a's own type when a cross-type = exists
 * (among int2/int4/int8, between float4 and float8, date with
 * timestamp), so NULLIF(int, bigint) is an integer; otherwise both sides
 * go to their common type (NULLIF(int, numeric) is numeric). */
static bool bd_nullif_keeps_left(ty_id_t l, ty_id_t r)
{
  bool l_int = l == TY_INT2 || l == TY_INT4 || l == TY_INT8;
  bool r_int = r == TY_INT2 || r == TY_INT4 || r == TY_INT8;
  bool l_flt = l == TY_FLOAT4 || l == TY_FLOAT8;
  bool r_flt = r == TY_FLOAT4 || r == TY_FLOAT8;
  bool l_dt = l == TY_DATE || l == TY_TIMESTAMP;
  bool r_dt = r == TY_DATE || r == TY_TIMESTAMP;
  return l != r && ((l_int && r_int) || (l_flt && r_flt) || (l_dt && r_dt));
}

static int bd_func_call(bd_t *b, const char *name, xnode_t **args, int n, int pos,
                        xnode_t **out)
{
  if (n == 2 && strcmp(name, "nullif") == 0 &&
      bd_nullif_keeps_left(args[0]->x_type.t_id, args[1]->x_type.t_id))
    return bd_func_as_case(b, name, args, n, pos, out);
  ty_t *types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(n > 0 ? n : 1));
  ty_t *arg_to = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(n > 0 ? n : 1));
  ty_t res;
  for (int i = 0; i < n; i++)
    types[i] = args[i]->x_type;
  const xfunc_t *f;
  err_t e2;
  if (xfunc_resolve(name, types, n, &f, arg_to, &res, &e2) != CZ_OK) {
    if (strcmp(name, "coalesce") == 0 || strcmp(name, "nullif") == 0 ||
        strcmp(name, "greatest") == 0 || strcmp(name, "least") == 0)
      return bd_func_as_case(b, name, args, n, pos, out);
    *b->b_e = e2;
    b->b_e->er_pos = pos;
    return CZ_ERR;
  }
  xnode_t *fn = bd_node(b, X_FUNC, res, pos);
  fn->x_func = f;
  if (f->fd_flags & XF_VOLATILE)
    b->b_nvolatile++;
  fn->x_nargs = n;
  fn->x_args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++)
    if (!(fn->x_args[i] = bd_coerce(b, args[i], arg_to[i])))
      return CZ_ERR;
  *out = bd_fold(b, fn);
  return CZ_OK;
}

static int bd_func(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  if (x->ex_over)
    return bd_window_call(b, sc, x, out);  /* sql_bind_window.c */
  x = bd_jsonpath_query_expr(b, x);  /* jsonb_path_query: sql_bind_json_srf.c */
  if (bd_srf_name(x))
    return bd_srf_call(b, sc, x, out);  /* sql_bind_srf_list.c */
  if (strcmp(x->ex_name, "array_agg") == 0 && (!x->ex_schema || strcmp(x->ex_schema, "pg_catalog") == 0))
    return bd_array_agg_call(b, sc, x, out);  /* sql_bind_agg_order.c */
  if (bd_json_agg_is(x->ex_name) && (!x->ex_schema || strcmp(x->ex_schema, "pg_catalog") == 0))
    return bd_json_agg_call(b, sc, x, out);  /* sql_bind_json_agg.c */
  if (xagg_is_aggregate(x->ex_name))
    return bd_agg_call(b, sc, x, out);
  int rj = bd_row_json_call(b, sc, x, out);  /* row_to_json(t): sql_bind_row_json.c */
  if (rj != 1)
    return rj;
  if (!x->ex_schema && !x->ex_over && strcmp(x->ex_name, "grouping") == 0)
    return bd_grouping_call(b, sc, x, out);  /* sql_bind_grouping.c */
  if (bd_window_only(x->ex_name))
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos, "window function %s requires an OVER clause",
                    x->ex_name);
  if (x->ex_filter)
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos, "FILTER specified, but %s is not an aggregate function",
                    x->ex_name);
  if (x->ex_agg_order)
    return bd_error(b, SQLSTATE_WRONG_OBJECT_TYPE, x->ex_pos,
                    "ORDER BY specified, but %s is not an aggregate function", x->ex_name);
  if (x->ex_star || x->ex_distinct)
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, x->ex_pos,
                    "%s specified, but %s is not an aggregate function",
                    x->ex_star ? "*" : "DISTINCT", x->ex_name);
  int n = sql_list_len(x->ex_list);
  xnode_t **args = arena_alloc(b->b_a, sizeof(xnode_t *) * (size_t)(n ? n : 1));
  /* set-returning functions are not allowed in COALESCE (0A000, as PostgreSQL) */
  bool coalesce = strcmp(x->ex_name, "coalesce") == 0;
  const char *prev = coalesce ? bd_srf_forbid(sc, "COALESCE") : NULL;
  for (int i = 0; i < n; i++)
    if (bd_expr(b, sc, sql_list_at(x->ex_list, i), &args[i]) != CZ_OK)
      return CZ_ERR;
  if (coalesce)
    bd_srf_forbid(sc, prev);
  return bd_func_call(b, x->ex_name, args, n, x->ex_pos, out);
}

/* ---- the dispatcher -------------------------------------------------------- */

int bd_expr(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, xnode_t **out)
{
  switch (x->ex_kind) {
  case SQL_E_LITERAL:
    return bd_literal(b, x, out);
  case SQL_E_PARAM:
    return bd_param(b, x, out);
  case SQL_E_COLUMN:
    return bd_column(b, sc, x, out);
  case SQL_E_OP:
    return bd_operator(b, sc, x, out);
  case SQL_E_BETWEEN:
    return bd_between(b, sc, x, out);
  case SQL_E_IN_LIST:
    return bd_in_list(b, sc, x, out);
  case SQL_E_IN_QUERY: {
    xnode_t *lhs;
    if (bd_expr(b, sc, x->ex_left, &lhs) != CZ_OK)
      return CZ_ERR;
    return bd_subq_expr(b, sc, x, 2, x->ex_not, lhs, out);
  }
  case SQL_E_EXISTS:
    return bd_subq_expr(b, sc, x, 1, false, NULL, out);
  case SQL_E_SUBQUERY: {
    int agg = bd_array_agg_subq(b, sc, x, out);  /* (SELECT array_agg(…) …) */
    if (agg != 1)
      return agg;
    return bd_subq_expr(b, sc, x, 0, false, NULL, out);
  }
  case SQL_E_CASE:
    return bd_case(b, sc, x, out);
  case SQL_E_CAST: {
    int ext = bd_cast_ext(b, sc, x, out);  /* reg* and array types (sql_bind_reg.c) */
    if (ext != 1)
      return ext;
    xnode_t *in;
    ty_t t;
    if (sql_bind_type(&x->ex_type, &t, b->b_e) != CZ_OK)
      return CZ_ERR;
    const sql_expr_t *l = x->ex_left;
    if ((t.t_id == TY_FLOAT8 || t.t_id == TY_FLOAT4) && l->ex_kind == SQL_E_LITERAL &&
        (l->ex_lit == SQL_LIT_NUMERIC || l->ex_lit == SQL_LIT_FLOAT)) {
      /* 5e-324::float8: PostgreSQL's exact numeric literal rounded once to
       * double, which is the decimal text read as a double; NUMERIC's 38
       * digits need not hold it */
      xnode_t *c = bd_node(b, X_CONST, ty_plain(TY_FLOAT8), x->ex_pos);
      if (ty_parse_text(c->x_type, l->ex_text, strlen(l->ex_text), b->b_a, &c->x_const,
                        b->b_e) != CZ_OK) {
        b->b_e->er_pos = l->ex_pos;
        return CZ_ERR;
      }
      return (*out = bd_cast(b, c, t, x->ex_pos)) ? CZ_OK : CZ_ERR;
    }
    if (bd_expr(b, sc, l, &in) != CZ_OK)
      return CZ_ERR;
    /* a reg* value cast to text is its name ('t'::regclass::text), as
     * regclassout prints it */
    if ((t.t_id == TY_TEXT || t.t_id == TY_VARCHAR) && bd_reg_display(b, l, &in) != CZ_OK)
      return CZ_ERR;
    if (!(*out = bd_cast(b, in, t, x->ex_pos)))
      return CZ_ERR;
    if ((*out)->x_type.t_id == TY_TEXT && t.t_id == TY_TEXT &&
        ((*out)->x_type.t_elem != t.t_elem || (*out)->x_type.t_scale != t.t_scale)) {
      /* an array, a record or an int2vector (text underneath, types.h)
       * cast to text is plain text: its marks go, as its type does in
       * PostgreSQL */
      xnode_t *n = bd_node(b, X_CAST, t, x->ex_pos);
      *n = **out;
      n->x_type = t;
      *out = n;
    }
    return CZ_OK;
  }
  case SQL_E_FUNC:
    return bd_func(b, sc, x, out);
  case SQL_E_DEFAULT:
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, x->ex_pos, "DEFAULT is not allowed in this context");
  case SQL_E_STAR:
    return bd_error(b, SQLSTATE_SYNTAX_ERROR, x->ex_pos, "* is not allowed here");
  case SQL_E_ANY:
  case SQL_E_ALL:
    return bd_any_all(b, sc, x, out);
  case SQL_E_COLLATE:
    return bd_expr(b, sc, x->ex_left, out);  /* one collation (C) */
  case SQL_E_FIELD:
    return bd_field(b, sc, x, out);  /* sql_bind_record.c */
  case SQL_E_ARRAY:
  case SQL_E_ARRAY_QUERY:
  case SQL_E_SUBSCRIPT:
    return bd_array_expr(b, sc, x, out);  /* sql_bind_array.c */
  default:
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, x->ex_pos,
                    "arrays are not supported yet");
  }
}

int bd_cond(bd_t *b, bd_scope_t *sc, const sql_expr_t *x, const char *what, xnode_t **out)
{
  xnode_t *n;
  if (bd_expr(b, sc, x, &n) != CZ_OK)
    return CZ_ERR;
  if (n->x_type.t_id == TY_UNKNOWN && !(n = bd_coerce(b, n, ty_plain(TY_BOOL))))
    return CZ_ERR;
  if (n->x_type.t_id != TY_BOOL)
    return bd_error(b, SQLSTATE_DATATYPE_MISMATCH, x->ex_pos,
                    "argument of %s must be type boolean, not type %s", what,
                    ty_name(b->b_a, n->x_type));
  *out = n;
  return CZ_OK;
}

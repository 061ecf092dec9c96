/* sql_print — the canonical S-expression of a syntax tree.
 *
 * Design notes: one form per node with every operator in prefix position
 * and every compound parenthesised, so that a test can assert the shape of
 * a tree (precedence, associativity, which clause holds what) by comparing
 * one string. Names that would not read back as the same identifier are
 * double-quoted; strings are single-quoted with '' doubling. The grammar
 * of the output is in sql/README.md. The text grows in an arena buffer that
 * doubles; the printer recurses, relying on SQL_MAX_DEPTH.
 */
#include <string.h>

#include "sql/sql_int.h"

typedef struct sql_pr_s {
  arena_t *pr_arena;
  char *pr_buf;
  size_t pr_len;
  size_t pr_cap;
} sql_pr_t;

static void pr_mem(sql_pr_t *p, const char *s, size_t n)
{
  if (p->pr_len + n + 1 > p->pr_cap) {
    size_t cap = CZ_MAX(p->pr_cap * 2, p->pr_len + n + 64);
    char *buf = arena_alloc(p->pr_arena, cap);
    if (p->pr_len)
      memcpy(buf, p->pr_buf, p->pr_len);
    p->pr_buf = buf;
    p->pr_cap = cap;
  }
  memcpy(p->pr_buf + p->pr_len, s, n);
  p->pr_len += n;
  p->pr_buf[p->pr_len] = 0;
}

static void pr_str(sql_pr_t *p, const char *s)
{
  pr_mem(p, s, strlen(s));
}

static void pr_quoted(sql_pr_t *p, const char *s, char q)
{
  pr_mem(p, &q, 1);
  for (const char *c = s; *c; c++) {
    pr_mem(p, c, 1);
    if (*c == q)
      pr_mem(p, c, 1);
  }
  pr_mem(p, &q, 1);
}

/* A name as an identifier that reads back the same: bare when it is lower
 * case letters, digits and _ (not first a digit), else double-quoted. */
static void pr_name(sql_pr_t *p, const char *s)
{
  bool bare = s[0] && !(s[0] >= '0' && s[0] <= '9');
  for (const char *c = s; *c && bare; c++)
    bare = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
  if (bare)
    pr_str(p, s);
  else
    pr_quoted(p, s, '"');
}

static void pr_qname(sql_pr_t *p, const sql_name_t *n)
{
  if (n->nm_schema) {
    pr_name(p, n->nm_schema);
    pr_str(p, ".");
  }
  pr_name(p, n->nm_name);
}

static void pr_names(sql_pr_t *p, const sql_list_t *l)
{
  pr_str(p, "(");
  for (int i = 0; i < sql_list_len(l); i++) {
    if (i)
      pr_str(p, " ");
    pr_name(p, sql_list_at(l, i));
  }
  pr_str(p, ")");
}

/* "a s.b c" */
static void pr_qnames(sql_pr_t *p, const sql_list_t *l)
{
  for (int i = 0; i < sql_list_len(l); i++) {
    if (i)
      pr_str(p, " ");
    pr_qname(p, sql_list_at(l, i));
  }
}

static void pr_expr(sql_pr_t *p, const sql_expr_t *x);
static void pr_query(sql_pr_t *p, const sql_query_t *q);
static void pr_stmt(sql_pr_t *p, const sql_stmt_t *s);

/* " e1 e2 …" */
static void pr_exprs(sql_pr_t *p, const sql_list_t *l)
{
  for (int i = 0; i < sql_list_len(l); i++) {
    pr_str(p, " ");
    pr_expr(p, sql_list_at(l, i));
  }
}

/* "(e1 e2 …)" */
static void pr_expr_list(sql_pr_t *p, const sql_list_t *l)
{
  pr_str(p, "(");
  for (int i = 0; i < sql_list_len(l); i++) {
    if (i)
      pr_str(p, " ");
    pr_expr(p, sql_list_at(l, i));
  }
  pr_str(p, ")");
}

static void pr_literal(sql_pr_t *p, const sql_expr_t *x)
{
  switch (x->ex_lit) {
  case SQL_LIT_NULL: pr_str(p, "null"); break;
  case SQL_LIT_BOOL: pr_str(p, x->ex_bool ? "true" : "false"); break;
  case SQL_LIT_INT:
  case SQL_LIT_NUMERIC:
  case SQL_LIT_FLOAT: pr_str(p, x->ex_text); break;
  case SQL_LIT_STRING: pr_quoted(p, x->ex_text, '\''); break;
  case SQL_LIT_TYPED:
    pr_str(p, "(");
    pr_str(p, sql_type_print(p->pr_arena, &x->ex_type));
    pr_str(p, " ");
    pr_quoted(p, x->ex_text, '\'');
    pr_str(p, ")");
    break;
  }
}

static const char *sql_op_name(const sql_expr_t *x)
{
  static const char *const names[] = {
    [SQL_OP_OR] = "or",       [SQL_OP_AND] = "and",       [SQL_OP_NOT] = "not",
    [SQL_OP_NEG] = "neg",     [SQL_OP_EQ] = "=",          [SQL_OP_NE] = "<>",
    [SQL_OP_LT] = "<",        [SQL_OP_LE] = "<=",         [SQL_OP_GT] = ">",
    [SQL_OP_GE] = ">=",       [SQL_OP_ADD] = "+",         [SQL_OP_SUB] = "-",
    [SQL_OP_MUL] = "*",       [SQL_OP_DIV] = "/",         [SQL_OP_MOD] = "%",
    [SQL_OP_CONCAT] = "||",   [SQL_OP_LIKE] = "like",     [SQL_OP_ILIKE] = "ilike",
    [SQL_OP_IS_NULL] = "is-null", [SQL_OP_IS_TRUE] = "is-true",
    [SQL_OP_IS_FALSE] = "is-false", [SQL_OP_IS_UNKNOWN] = "is-unknown",
    [SQL_OP_IS_DISTINCT] = "is-distinct-from",
    [SQL_OP_MATCH] = "~",     [SQL_OP_IMATCH] = "~*",     [SQL_OP_POW] = "^",
    [SQL_OP_SIMILAR] = "similar-to",
    [SQL_OP_BITAND] = "&",    [SQL_OP_BITOR] = "|",       [SQL_OP_BITXOR] = "#",
    [SQL_OP_BITNOT] = "~",    [SQL_OP_SHL] = "<<",        [SQL_OP_SHR] = ">>",
    [SQL_OP_JGET] = "->",     [SQL_OP_JGET_TEXT] = "->>", [SQL_OP_JPATH] = "#>",
    [SQL_OP_JPATH_TEXT] = "#>>", [SQL_OP_JCONTAINS] = "@>", [SQL_OP_JCONTAINED] = "<@",
    [SQL_OP_JEXISTS] = "?",   [SQL_OP_JEXISTS_ANY] = "?|", [SQL_OP_JEXISTS_ALL] = "?&",
    [SQL_OP_JDELETE_PATH] = "#-", [SQL_OP_JPATH_EXISTS] = "@?", [SQL_OP_JPATH_MATCH] = "@@",
  };
  static const char *const negated[] = {
    [SQL_OP_LIKE] = "not-like",         [SQL_OP_ILIKE] = "not-ilike",
    [SQL_OP_IS_NULL] = "is-not-null",   [SQL_OP_IS_TRUE] = "is-not-true",
    [SQL_OP_IS_FALSE] = "is-not-false", [SQL_OP_IS_UNKNOWN] = "is-not-unknown",
    [SQL_OP_IS_DISTINCT] = "is-not-distinct-from",
    [SQL_OP_MATCH] = "!~",              [SQL_OP_IMATCH] = "!~*",
    [SQL_OP_SIMILAR] = "not-similar-to",
  };
  return x->ex_not ? negated[x->ex_op] : names[x->ex_op];
}

static void pr_case(sql_pr_t *p, const sql_expr_t *x)
{
  pr_str(p, "(case");
  if (x->ex_left) {
    pr_str(p, " ");
    pr_expr(p, x->ex_left);
  }
  for (int i = 0; i < sql_list_len(x->ex_list); i++) {
    const sql_when_t *w = sql_list_at(x->ex_list, i);
    pr_str(p, " (when ");
    pr_expr(p, w->wh_cond);
    pr_str(p, " ");
    pr_expr(p, w->wh_result);
    pr_str(p, ")");
  }
  if (x->ex_right) {
    pr_str(p, " (else ");
    pr_expr(p, x->ex_right);
    pr_str(p, ")");
  }
  pr_str(p, ")");
}

static void pr_column(sql_pr_t *p, const sql_expr_t *x)
{
  if (x->ex_schema) {
    pr_name(p, x->ex_schema);
    pr_str(p, ".");
  }
  if (x->ex_table) {
    pr_name(p, x->ex_table);
    pr_str(p, ".");
  }
  if (x->ex_kind == SQL_E_STAR)
    pr_str(p, "*");
  else
    pr_name(p, x->ex_name);
}

static void pr_orders(sql_pr_t *p, const sql_list_t *l);

static void pr_bound(sql_pr_t *p, sql_bound_t k, const sql_expr_t *off)
{
  static const char *names[] = {"unbounded-preceding", "preceding", "current-row", "following",
                                "unbounded-following"};
  if (!off) {
    pr_str(p, " ");
    pr_str(p, names[k]);
    return;
  }
  pr_str(p, " (");
  pr_str(p, names[k]);
  pr_str(p, " ");
  pr_expr(p, off);
  pr_str(p, ")");
}

/* " (over [name] [(partition-by e…)] [(order-by …)] [(rows|range|groups
 * start end [exclude-…])])"; a WINDOW clause entry is "(name over …)". */
static void pr_over(sql_pr_t *p, const sql_window_t *w)
{
  static const char *units[] = {"", "rows", "range", "groups"};
  static const char *excl[] = {"", " exclude-current-row", " exclude-group", " exclude-ties"};
  pr_str(p, " (over");
  if (w->wi_ref) {
    pr_str(p, " ");
    pr_name(p, w->wi_ref);
  }
  if (w->wi_frame != SQL_FRAME_DEFAULT) {
    pr_str(p, " (");
    pr_str(p, units[w->wi_frame]);
    pr_bound(p, w->wi_start, w->wi_start_off);
    pr_bound(p, w->wi_end, w->wi_end_off);
    pr_str(p, excl[w->wi_exclude]);
    pr_str(p, ")");
  }
  if (w->wi_partition) {
    pr_str(p, " (partition-by");
    pr_exprs(p, w->wi_partition);
    pr_str(p, ")");
  }
  pr_orders(p, w->wi_order);
  pr_str(p, ")");
}

static void pr_expr(sql_pr_t *p, const sql_expr_t *x)
{
  switch (x->ex_kind) {
  case SQL_E_LITERAL: pr_literal(p, x); return;
  case SQL_E_PARAM: pr_str(p, arena_sprintf(p->pr_arena, "$%lld", (long long)x->ex_int)); return;
  case SQL_E_COLUMN:
  case SQL_E_STAR: pr_column(p, x); return;
  case SQL_E_DEFAULT: pr_str(p, "default"); return;
  case SQL_E_CASE: pr_case(p, x); return;
  case SQL_E_OP:
    pr_str(p, "(");
    pr_str(p, sql_op_name(x));
    break;
  case SQL_E_BETWEEN: pr_str(p, x->ex_not ? "(not-between" : "(between"); break;
  case SQL_E_IN_LIST:
  case SQL_E_IN_QUERY: pr_str(p, x->ex_not ? "(not-in" : "(in"); break;
  case SQL_E_EXISTS: pr_str(p, "(exists"); break;
  case SQL_E_SUBQUERY: pr_str(p, "(subquery"); break;
  case SQL_E_CAST: pr_str(p, "(cast"); break;
  case SQL_E_FUNC:
    pr_str(p, "(");
    if (x->ex_schema) {
      pr_name(p, x->ex_schema);
      pr_str(p, ".");
    }
    pr_name(p, x->ex_name);
    if (x->ex_star)
      pr_str(p, " *");
    if (x->ex_distinct)
      pr_str(p, " distinct");
    pr_exprs(p, x->ex_list);
    if (x->ex_over)
      pr_over(p, x->ex_over);
    pr_str(p, ")");
    return;
  case SQL_E_ANY:
  case SQL_E_ALL:
    pr_str(p, x->ex_kind == SQL_E_ANY ? "(any " : "(all ");
    pr_str(p, sql_op_name(x));
    break;
  case SQL_E_ARRAY:
    pr_str(p, "(array");
    pr_exprs(p, x->ex_list);
    pr_str(p, ")");
    return;
  case SQL_E_ARRAY_QUERY: pr_str(p, "(array"); break;
  case SQL_E_SUBSCRIPT: pr_str(p, "(subscript"); break;
  case SQL_E_FIELD:
    pr_str(p, "(field ");
    pr_expr(p, x->ex_left);
    pr_str(p, " ");
    if (x->ex_name)
      pr_name(p, x->ex_name);
    else
      pr_str(p, "*");
    pr_str(p, ")");
    return;
  case SQL_E_COLLATE:
    pr_str(p, "(collate ");
    pr_expr(p, x->ex_left);
    pr_str(p, " ");
    if (x->ex_schema) {
      pr_name(p, x->ex_schema);
      pr_str(p, ".");
    }
    pr_name(p, x->ex_name);
    pr_str(p, ")");
    return;
  case SQL_E_GROUPING_SET: {
    static const char *const gs[] = {"grouping-empty", "grouping-row", "rollup", "cube",
                                     "grouping-sets"};
    pr_str(p, "(");
    pr_str(p, gs[x->ex_int]);
    pr_exprs(p, x->ex_list);
    pr_str(p, ")");
    return;
  }
  }
  /* the operand fields, in order, for the kinds that fell through */
  if (x->ex_left) {
    pr_str(p, " ");
    pr_expr(p, x->ex_left);
  }
  if (x->ex_right) {
    pr_str(p, " ");
    pr_expr(p, x->ex_right);
  }
  if (x->ex_third && x->ex_kind == SQL_E_OP) {
    pr_str(p, " (escape "); /* [NOT] [I]LIKE … ESCAPE c */
    pr_expr(p, x->ex_third);
    pr_str(p, ")");
  } else if (x->ex_third) {
    pr_str(p, " ");
    pr_expr(p, x->ex_third);
  }
  if (x->ex_kind == SQL_E_IN_LIST) {
    pr_str(p, " ");
    pr_expr_list(p, x->ex_list);
  }
  if (x->ex_query) {
    pr_str(p, " ");
    pr_query(p, x->ex_query);
  }
  if (x->ex_kind == SQL_E_CAST) {
    pr_str(p, " ");
    pr_str(p, sql_type_print(p->pr_arena, &x->ex_type));
  }
  pr_str(p, ")");
}

static void pr_from(sql_pr_t *p, const sql_from_t *f)
{
  static const char *const joins[] = {
    [SQL_JOIN_INNER] = "inner", [SQL_JOIN_LEFT] = "left", [SQL_JOIN_RIGHT] = "right",
    [SQL_JOIN_FULL] = "full",   [SQL_JOIN_CROSS] = "cross",
  };
  if (f->fr_kind == SQL_FROM_JOIN) {
    pr_str(p, f->fr_natural ? "(join natural-" : "(join ");
    pr_str(p, joins[f->fr_join]);
    pr_str(p, " ");
    pr_from(p, f->fr_left);
    pr_str(p, " ");
    pr_from(p, f->fr_right);
    if (f->fr_on) {
      pr_str(p, " (on ");
      pr_expr(p, f->fr_on);
      pr_str(p, ")");
    }
    if (f->fr_using) {
      pr_str(p, " (using ");
      pr_names(p, f->fr_using);
      pr_str(p, ")");
    }
    pr_str(p, ")");
    return;
  }
  if (f->fr_lateral)
    pr_str(p, "(lateral ");
  if (f->fr_alias)
    pr_str(p, "(as ");
  if (f->fr_kind == SQL_FROM_TABLE)
    pr_qname(p, &f->fr_table);
  else if (f->fr_kind == SQL_FROM_FUNC)
    pr_expr(p, f->fr_func);
  else
    pr_query(p, f->fr_query);
  if (f->fr_alias) {
    pr_str(p, " ");
    pr_name(p, f->fr_alias);
    if (f->fr_colnames) {
      pr_str(p, " ");
      pr_names(p, f->fr_colnames);
    }
    pr_str(p, ")");
  }
  if (f->fr_lateral)
    pr_str(p, ")");
}

/* " (tag e)" when e is there */
static void pr_clause(sql_pr_t *p, const char *tag, const sql_expr_t *x)
{
  if (!x)
    return;
  pr_str(p, " (");
  pr_str(p, tag);
  pr_str(p, " ");
  pr_expr(p, x);
  pr_str(p, ")");
}

/* "(t1 (as t2 alias) …)" */
static void pr_targets(sql_pr_t *p, const sql_list_t *l)
{
  pr_str(p, "(");
  for (int i = 0; i < sql_list_len(l); i++) {
    const sql_target_t *t = sql_list_at(l, i);
    if (i)
      pr_str(p, " ");
    if (t->tg_alias)
      pr_str(p, "(as ");
    pr_expr(p, t->tg_expr);
    if (t->tg_alias) {
      pr_str(p, " ");
      pr_name(p, t->tg_alias);
      pr_str(p, ")");
    }
  }
  pr_str(p, ")");
}

/* " (order-by (asc|desc e [nulls-first|nulls-last])…)" when l is there */
static void pr_orders(sql_pr_t *p, const sql_list_t *l)
{
  if (!l)
    return;
  pr_str(p, " (order-by");
  for (int i = 0; i < sql_list_len(l); i++) {
    const sql_order_t *o = sql_list_at(l, i);
    pr_str(p, o->or_desc ? " (desc " : " (asc ");
    pr_expr(p, o->or_expr);
    if (o->or_nulls)
      pr_str(p, o->or_nulls == SQL_NULLS_FIRST ? " nulls-first" : " nulls-last");
    pr_str(p, ")");
  }
  pr_str(p, ")");
}

static void pr_select(sql_pr_t *p, const sql_select_t *se)
{
  pr_str(p, se->se_distinct ? "(select distinct" : "(select");
  if (se->se_distinct_on) {
    pr_str(p, " (distinct-on");
    pr_exprs(p, se->se_distinct_on);
    pr_str(p, ")");
  }
  pr_clause(p, "top", se->se_top);
  pr_str(p, " ");
  pr_targets(p, se->se_targets);
  if (se->se_from) {
    pr_str(p, " (from");
    for (int i = 0; i < sql_list_len(se->se_from); i++) {
      pr_str(p, " ");
      pr_from(p, sql_list_at(se->se_from, i));
    }
    pr_str(p, ")");
  }
  pr_clause(p, "where", se->se_where);
  if (se->se_group) {
    pr_str(p, " (group-by");
    pr_exprs(p, se->se_group);
    pr_str(p, ")");
  }
  pr_clause(p, "having", se->se_having);
  if (se->se_windows) {
    pr_str(p, " (window");
    for (int i = 0; i < sql_list_len(se->se_windows); i++) {
      const sql_window_t *w = sql_list_at(se->se_windows, i);
      pr_str(p, " (");
      pr_name(p, w->wi_name);
      pr_over(p, w);
      pr_str(p, ")");
    }
    pr_str(p, ")");
  }
}

static void pr_query(sql_pr_t *p, const sql_query_t *q);

/* "(with (name query)… " before a query or statement (closed by the
 * caller); nothing without WITH. */
static void pr_with(sql_pr_t *p, const sql_query_t *q)
{
  if (q && q->qu_with) {
    pr_str(p, q->qu_recursive ? "(with-recursive" : "(with");
    for (int i = 0; i < sql_list_len(q->qu_with); i++) {
      const sql_cte_t *c = sql_list_at(q->qu_with, i);
      pr_str(p, " (");
      pr_name(p, c->wc_name);
      if (c->wc_columns) {
        pr_str(p, " ");
        pr_names(p, c->wc_columns);
      }
      if (c->wc_materialized != SQL_CTE_DEFAULT)
        pr_str(p, c->wc_materialized == SQL_CTE_MATERIALIZED ? " materialized" : " not-materialized");
      pr_str(p, " ");
      pr_query(p, c->wc_query);
      pr_str(p, ")");
    }
    pr_str(p, " ");
  }
}

static void pr_query(sql_pr_t *p, const sql_query_t *q)
{
  static const char *const setops[] = {
    [SQL_Q_UNION] = "(union", [SQL_Q_EXCEPT] = "(except", [SQL_Q_INTERSECT] = "(intersect",
  };
  pr_with(p, q);
  switch (q->qu_kind) {
  case SQL_Q_SELECT:
    pr_select(p, q->qu_select);
    break;
  case SQL_Q_VALUES:
    pr_str(p, "(values");
    for (int i = 0; i < sql_list_len(q->qu_rows); i++) {
      pr_str(p, " ");
      pr_expr_list(p, sql_list_at(q->qu_rows, i));
    }
    break;
  default:
    pr_str(p, setops[q->qu_kind]);
    pr_str(p, q->qu_all ? "-all " : " ");
    pr_query(p, q->qu_left);
    pr_str(p, " ");
    pr_query(p, q->qu_right);
    break;
  }
  pr_orders(p, q->qu_order);
  pr_clause(p, "limit", q->qu_limit);
  pr_clause(p, "offset", q->qu_offset);
  if (q->qu_lock != SQL_LOCK_NONE) {
    pr_str(p, q->qu_lock == SQL_LOCK_UPDATE          ? " (for-update"
              : q->qu_lock == SQL_LOCK_NO_KEY_UPDATE ? " (for-no-key-update"
              : q->qu_lock == SQL_LOCK_KEY_SHARE     ? " (for-key-share"
                                                     : " (for-share");
    for (int i = 0; i < sql_list_len(q->qu_lock_of); i++) {
      pr_str(p, i ? ", " : " of ");
      pr_str(p, ((const sql_name_t *)sql_list_at(q->qu_lock_of, i))->nm_name);
    }
    pr_str(p, q->qu_lock_wait == SQL_LOCK_NOWAIT ? " nowait)"
              : q->qu_lock_wait == SQL_LOCK_SKIP ? " skip-locked)"
                                                 : ")");
  }
  pr_str(p, ")");
  if (q->qu_with)
    pr_str(p, ")");
}

/* " (returning targets)" when l is there */
static void pr_returning(sql_pr_t *p, const sql_list_t *l)
{
  if (!l)
    return;
  pr_str(p, " (returning ");
  pr_targets(p, l);
  pr_str(p, ")");
}

static void pr_target_table(sql_pr_t *p, const sql_name_t *n, const char *alias)
{
  pr_str(p, " ");
  if (alias)
    pr_str(p, "(as ");
  pr_qname(p, n);
  if (alias) {
    pr_str(p, " ");
    pr_name(p, alias);
    pr_str(p, ")");
  }
}

/* UPDATE's FROM and DELETE's USING: (tag item …) */
static void pr_dml_from(sql_pr_t *p, const char *tag, const sql_list_t *l)
{
  if (!l)
    return;
  pr_str(p, " (");
  pr_str(p, tag);
  for (int i = 0; i < sql_list_len(l); i++) {
    pr_str(p, " ");
    pr_from(p, sql_list_at(l, i));
  }
  pr_str(p, ")");
}

static void pr_assigns(sql_pr_t *p, const sql_list_t *l)
{
  pr_str(p, " (set");
  for (int i = 0; i < sql_list_len(l); i++) {
    const sql_assign_t *as = sql_list_at(l, i);
    pr_str(p, " (= ");
    pr_name(p, as->as_column);
    pr_str(p, " ");
    pr_expr(p, as->as_expr);
    pr_str(p, ")");
  }
  pr_str(p, ")");
}

static void pr_dml(sql_pr_t *p, const sql_stmt_t *s)
{
  pr_with(p, s->st_with);
  switch (s->st_kind) {
  case SQL_STMT_INSERT:
    pr_str(p, "(insert");
    pr_target_table(p, &s->st_insert->in_table, s->st_insert->in_alias);
    if (s->st_insert->in_columns) {
      pr_str(p, " ");
      pr_names(p, s->st_insert->in_columns);
    }
    pr_str(p, " ");
    if (s->st_insert->in_query)
      pr_query(p, s->st_insert->in_query);
    else
      pr_str(p, "default-values");
    if (s->st_insert->in_on_conflict) {
      const sql_insert_t *in = s->st_insert;
      pr_str(p, in->in_do_update ? " (on-conflict-do-update" : " (on-conflict-do-nothing");
      if (in->in_conflict_cols) {
        pr_str(p, " ");
        pr_names(p, in->in_conflict_cols);
      }
      if (in->in_conflict_constraint) {
        pr_str(p, " (on-constraint ");
        pr_name(p, in->in_conflict_constraint);
        pr_str(p, ")");
      }
      pr_clause(p, "index-where", in->in_conflict_where);
      if (in->in_do_update) {
        pr_assigns(p, in->in_update_set);
        pr_clause(p, "where", in->in_update_where);
      }
      pr_str(p, ")");
    }
    pr_returning(p, s->st_insert->in_returning);
    break;
  case SQL_STMT_UPDATE:
    pr_str(p, "(update");
    pr_target_table(p, &s->st_update->up_table, s->st_update->up_alias);
    pr_assigns(p, s->st_update->up_set);
    pr_dml_from(p, "from", s->st_update->up_from);
    pr_clause(p, "where", s->st_update->up_where);
    pr_returning(p, s->st_update->up_returning);
    break;
  default: /* SQL_STMT_DELETE */
    pr_str(p, "(delete");
    pr_target_table(p, &s->st_delete->de_table, s->st_delete->de_alias);
    pr_dml_from(p, "using", s->st_delete->de_using);
    pr_clause(p, "where", s->st_delete->de_where);
    pr_returning(p, s->st_delete->de_returning);
    break;
  }
  pr_str(p, ")");
  if (s->st_with)
    pr_str(p, ")");
}

static void pr_create_table(sql_pr_t *p, const sql_create_table_t *ct)
{
  pr_str(p, ct->ct_if_not_exists ? "(create-table if-not-exists " : "(create-table ");
  pr_qname(p, &ct->ct_table);
  for (int i = 0; i < sql_list_len(ct->ct_columns); i++) {
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    pr_str(p, " (col ");
    pr_name(p, cd->cd_name);
    pr_str(p, " ");
    pr_str(p, sql_type_print(p->pr_arena, &cd->cd_type));
    if (cd->cd_not_null)
      pr_str(p, " not-null");
    pr_clause(p, "default", cd->cd_default);
    if (cd->cd_primary)
      pr_str(p, " primary-key");
    if (cd->cd_unique)
      pr_str(p, " unique");
    pr_str(p, ")");
  }
  for (int i = 0; i < sql_list_len(ct->ct_constraints); i++) {
    const sql_tabcons_t *tc = sql_list_at(ct->ct_constraints, i);
    pr_str(p, tc->tc_primary ? " (primary-key " : " (unique ");
    pr_names(p, tc->tc_columns);
    if (tc->tc_name) {
      pr_str(p, " (constraint ");
      pr_name(p, tc->tc_name);
      pr_str(p, ")");
    }
    pr_str(p, ")");
  }
  pr_str(p, ")");
}

static void pr_create_index(sql_pr_t *p, const sql_create_index_t *ci)
{
  pr_str(p, "(create-index");
  if (ci->ci_unique)
    pr_str(p, " unique");
  if (ci->ci_if_not_exists)
    pr_str(p, " if-not-exists");
  pr_str(p, " ");
  if (ci->ci_index.nm_name)
    pr_name(p, ci->ci_index.nm_name);
  else
    pr_str(p, "-");
  pr_str(p, " ");
  pr_qname(p, &ci->ci_table);
  if (ci->ci_method)
    pr_str(p, " (using btree)");
  pr_str(p, " (");
  /* a key with an order written is (desc a [nulls-first|nulls-last]) or
   * (asc a nulls-…); a plain one just its name */
  for (int i = 0; i < sql_list_len(ci->ci_keys); i++) {
    const sql_order_t *o = sql_list_at(ci->ci_keys, i);
    if (i)
      pr_str(p, " ");
    if (!o->or_desc && !o->or_nulls) {
      pr_name(p, o->or_expr->ex_name);
      continue;
    }
    pr_str(p, o->or_desc ? "(desc " : "(asc ");
    pr_name(p, o->or_expr->ex_name);
    if (o->or_nulls)
      pr_str(p, o->or_nulls == SQL_NULLS_FIRST ? " nulls-first" : " nulls-last");
    pr_str(p, ")");
  }
  pr_str(p, ")");
  if (ci->ci_include) {
    pr_str(p, " (include ");
    pr_names(p, ci->ci_include);
    pr_str(p, ")");
  }
  if (ci->ci_nulls_nd)
    pr_str(p, " nulls-not-distinct");
  pr_str(p, ")");
}

static void pr_grant(sql_pr_t *p, const sql_stmt_t *s)
{
  static const char *const privs[] = {"select", "insert", "update", "delete", "usage", "create"};
  const sql_grant_t *g = s->st_grant;
  pr_str(p, s->st_kind == SQL_STMT_GRANT ? "(grant " : "(revoke ");
  if (g->gr_grant_option)
    pr_str(p, "grant-option ");
  pr_str(p, g->gr_kind == 'n' ? "schema (" : g->gr_kind == 'S' ? "sequence (" : "(");
  if (g->gr_all)
    pr_str(p, "all");
  else {
    bool first = true;
    for (unsigned i = 0; i < CZ_ARRAY_LEN(privs); i++) {
      if (!(g->gr_privs & (1u << i)))
        continue;
      pr_str(p, first ? "" : " ");
      pr_str(p, privs[i]);
      first = false;
    }
  }
  pr_str(p, ") (");
  pr_qnames(p, g->gr_tables);
  pr_str(p, ") ");
  pr_names(p, g->gr_roles);
  pr_str(p, g->gr_cascade ? " cascade)" : ")");
}

static void pr_role(sql_pr_t *p, const sql_stmt_t *s)
{
  const sql_role_t *r = s->st_role;
  pr_str(p, s->st_kind == SQL_STMT_CREATE_ROLE  ? "(create-"
            : s->st_kind == SQL_STMT_ALTER_ROLE ? "(alter-"
                                                : "(drop-");
  pr_str(p, r->ro_user ? "user" : "role");
  if (r->ro_if_exists)
    pr_str(p, " if-exists");
  for (int i = 0; i < sql_list_len(r->ro_names); i++) {
    pr_str(p, " ");
    pr_name(p, sql_list_at(r->ro_names, i));
  }
  if (r->ro_password) {
    pr_str(p, " (password ");
    pr_quoted(p, r->ro_password, '\'');
    pr_str(p, ")");
  } else if (r->ro_password_given)
    pr_str(p, " (password null)");
  static const char *const opts[][2] = {
    {"login", "nologin"}, {"superuser", "nosuperuser"},
    {"createdb", "nocreatedb"}, {"createrole", "nocreaterole"},
  };
  const int vals[] = {r->ro_login, r->ro_superuser, r->ro_createdb, r->ro_createrole};
  for (size_t i = 0; i < CZ_ARRAY_LEN(vals); i++) {
    if (vals[i]) {
      pr_str(p, " ");
      pr_str(p, opts[i][vals[i] > 0 ? 0 : 1]);
    }
  }
  pr_str(p, ")");
}

/* " isolation-… read-only|read-write deferrable|not-deferrable" */
static void pr_txnmode(sql_pr_t *p, const sql_txnmode_t *tm)
{
  static const char *const iso[] = {
    [SQL_ISO_READ_UNCOMMITTED] = " isolation-read-uncommitted",
    [SQL_ISO_READ_COMMITTED] = " isolation-read-committed",
    [SQL_ISO_REPEATABLE_READ] = " isolation-repeatable-read",
    [SQL_ISO_SERIALIZABLE] = " isolation-serializable",
  };
  if (!tm)
    return;
  if (tm->tm_session)
    pr_str(p, " session");
  if (tm->tm_isolation != SQL_ISO_DEFAULT)
    pr_str(p, iso[tm->tm_isolation]);
  if (tm->tm_read_only)
    pr_str(p, tm->tm_read_only > 0 ? " read-only" : " read-write");
  if (tm->tm_deferrable)
    pr_str(p, tm->tm_deferrable > 0 ? " deferrable" : " not-deferrable");
}

/* " (tag 'value')" when v is there */
static void pr_copy_str(sql_pr_t *p, const char *tag, const char *v)
{
  if (!v)
    return;
  pr_str(p, " (");
  pr_str(p, tag);
  pr_str(p, " ");
  pr_quoted(p, v, '\'');
  pr_str(p, ")");
}

static void pr_copy(sql_pr_t *p, const sql_copy_t *c)
{
  static const char *const formats[] = {
    [SQL_COPY_TEXT] = "text", [SQL_COPY_CSV] = "csv", [SQL_COPY_BINARY] = "binary",
  };
  pr_str(p, "(copy ");
  if (c->co_query)
    pr_query(p, c->co_query);
  else {
    pr_qname(p, &c->co_table);
    if (c->co_columns) {
      pr_str(p, " ");
      pr_names(p, c->co_columns);
    }
  }
  pr_str(p, c->co_from ? " from " : " to ");
  if (c->co_file)
    pr_quoted(p, c->co_file, '\'');
  else
    pr_str(p, c->co_from ? "stdin" : "stdout");
  pr_str(p, " (format ");
  pr_str(p, formats[c->co_format]);
  pr_str(p, ")");
  if (c->co_header)
    pr_str(p, " header");
  pr_copy_str(p, "delimiter", c->co_delimiter);
  pr_copy_str(p, "null", c->co_null);
  pr_copy_str(p, "quote", c->co_quote);
  pr_copy_str(p, "escape", c->co_escape);
  pr_copy_str(p, "encoding", c->co_encoding);
  if (c->co_force_quote_all)
    pr_str(p, " (force-quote *)");
  if (c->co_force_quote) {
    pr_str(p, " (force-quote ");
    pr_names(p, c->co_force_quote);
    pr_str(p, ")");
  }
  if (c->co_force_not_null) {
    pr_str(p, " (force-not-null ");
    pr_names(p, c->co_force_not_null);
    pr_str(p, ")");
  }
  if (c->co_freeze)
    pr_str(p, " freeze");
  pr_str(p, ")");
}

static void pr_set(sql_pr_t *p, const sql_stmt_t *s)
{
  const sql_set_t *sv = s->st_set;
  pr_str(p, s->st_kind == SQL_STMT_SHOW ? "(show " : sv->sv_local ? "(set local " : "(set ");
  pr_str(p, sv->sv_name); /* a setting's name, dotted: not an identifier */
  if (sv->sv_default)
    pr_str(p, " default");
  pr_exprs(p, sv->sv_values);
  pr_str(p, ")");
}

/* (create-view [or-replace] [temp] [materialized] v [(cols)] Q [check-cascaded|check-local]
 * [no-data]), (alter-view v (rename n)), (refresh-materialized-view v [no-data]) */
static void pr_view(sql_pr_t *p, const sql_stmt_t *s)
{
  const sql_view_t *v = s->st_view;
  pr_str(p, s->st_kind == SQL_STMT_CREATE_VIEW  ? "(create-view "
            : s->st_kind == SQL_STMT_ALTER_VIEW ? "(alter-view "
                                                : "(refresh-materialized-view ");
  if (v->vw_replace)
    pr_str(p, "or-replace ");
  if (v->vw_temp)
    pr_str(p, "temp ");
  if (v->vw_materialized && s->st_kind != SQL_STMT_REFRESH_MATVIEW)
    pr_str(p, "materialized ");
  pr_qname(p, &v->vw_name);
  if (v->vw_columns) {
    pr_str(p, " ");
    pr_names(p, v->vw_columns);
  }
  if (v->vw_query) {
    pr_str(p, " ");
    pr_query(p, v->vw_query);
  }
  if (v->vw_check)
    pr_str(p, v->vw_check == 'l' ? " check-local" : " check-cascaded");
  if (v->vw_no_data)
    pr_str(p, " no-data");
  if (v->vw_rename) {
    pr_str(p, " (rename ");
    pr_name(p, v->vw_rename);
    pr_str(p, ")");
  }
  pr_str(p, ")");
}

static void pr_stmt(sql_pr_t *p, const sql_stmt_t *s)
{
  switch (s->st_kind) {
  case SQL_STMT_SELECT: pr_query(p, s->st_query); break;
  case SQL_STMT_INSERT:
  case SQL_STMT_UPDATE:
  case SQL_STMT_DELETE: pr_dml(p, s); break;
  case SQL_STMT_CREATE_TABLE: pr_create_table(p, s->st_create_table); break;
  case SQL_STMT_DROP_TABLE:
  case SQL_STMT_DROP_INDEX:
  case SQL_STMT_DROP_SEQUENCE:
  case SQL_STMT_DROP_VIEW:
  case SQL_STMT_DROP_MATVIEW:
  case SQL_STMT_DROP_SCHEMA:
    pr_str(p, s->st_kind == SQL_STMT_DROP_TABLE     ? "(drop-table"
              : s->st_kind == SQL_STMT_DROP_INDEX   ? "(drop-index"
              : s->st_kind == SQL_STMT_DROP_VIEW    ? "(drop-view"
              : s->st_kind == SQL_STMT_DROP_SCHEMA  ? "(drop-schema"
              : s->st_kind == SQL_STMT_DROP_MATVIEW ? "(drop-materialized-view"
                                                    : "(drop-sequence");
    if (s->st_drop->dr_if_exists)
      pr_str(p, " if-exists");
    pr_str(p, " ");
    pr_qnames(p, s->st_drop->dr_names);
    if (s->st_drop->dr_cascade)
      pr_str(p, " cascade");
    pr_str(p, ")");
    break;
  case SQL_STMT_CREATE_INDEX: pr_create_index(p, s->st_create_index); break;
  case SQL_STMT_ALTER_TABLE: {
    static const char *const kinds[] = {"add-column", "drop-column", "alter-type", "set-default",
                                        "drop-default", "set-not-null", "drop-not-null",
                                        "add-constraint", "drop-constraint", "rename-column",
                                        "rename-table", "rename-constraint"};
    pr_str(p, "(alter-table");
    if (s->st_alter->at_if_exists)
      pr_str(p, " if-exists");
    pr_str(p, " ");
    pr_str(p, s->st_alter->at_table.nm_name);
    for (int i = 0; i < sql_list_len(s->st_alter->at_cmds); i++) {
      const sql_alter_cmd_t *c = sql_list_at(s->st_alter->at_cmds, i);
      pr_str(p, " (");
      pr_str(p, kinds[c->ac_kind]);
      if (c->ac_name) {
        pr_str(p, " ");
        pr_str(p, c->ac_name);
      }
      if (c->ac_column) {
        pr_str(p, " ");
        pr_str(p, c->ac_column->cd_name);
      }
      if (c->ac_newname) {
        pr_str(p, " ");
        pr_str(p, c->ac_newname);
      }
      pr_str(p, ")");
    }
    pr_str(p, ")");
    break;
  }
  case SQL_STMT_CREATE_SEQUENCE:
  case SQL_STMT_ALTER_SEQUENCE:
    pr_str(p, s->st_kind == SQL_STMT_CREATE_SEQUENCE ? "(create-sequence " : "(alter-sequence ");
    pr_qname(p, &s->st_sequence->sq_name);
    if (s->st_sequence->sq_rename) {
      pr_str(p, " rename ");
      pr_name(p, s->st_sequence->sq_rename);
    }
    pr_str(p, ")");
    break;
  case SQL_STMT_BEGIN:
    pr_str(p, "(begin");
    pr_txnmode(p, s->st_txn);
    pr_str(p, ")");
    break;
  case SQL_STMT_COMMIT: pr_str(p, "(commit)"); break;
  case SQL_STMT_ROLLBACK: pr_str(p, "(rollback)"); break;
  case SQL_STMT_SAVEPOINT:
  case SQL_STMT_RELEASE:
  case SQL_STMT_ROLLBACK_TO:
    pr_str(p, s->st_kind == SQL_STMT_SAVEPOINT ? "(savepoint "
              : s->st_kind == SQL_STMT_RELEASE ? "(release " : "(rollback-to ");
    pr_name(p, s->st_savepoint);
    pr_str(p, ")");
    break;
  case SQL_STMT_GRANT:
  case SQL_STMT_REVOKE: pr_grant(p, s); break;
  case SQL_STMT_CREATE_ROLE:
  case SQL_STMT_DROP_ROLE: pr_role(p, s); break;
  case SQL_STMT_EXPLAIN:
    pr_str(p, s->st_analyze ? "(explain analyze " : "(explain ");
    pr_stmt(p, s->st_explained);
    pr_str(p, ")");
    break;
  case SQL_STMT_SET:
  case SQL_STMT_SHOW: pr_set(p, s); break;
  case SQL_STMT_COPY: pr_copy(p, s->st_copy); break;
  case SQL_STMT_DEALLOCATE:
    pr_str(p, "(deallocate ");
    if (s->st_deallocate)
      pr_name(p, s->st_deallocate);
    else
      pr_str(p, "all");
    pr_str(p, ")");
    break;
  case SQL_STMT_PREPARE:
    pr_str(p, "(prepare ");
    pr_name(p, s->st_prepare->pr_name);
    pr_str(p, " ");
    pr_stmt(p, s->st_prepare->pr_stmt);
    pr_str(p, ")");
    break;
  case SQL_STMT_EXECUTE:
    pr_str(p, "(execute ");
    pr_name(p, s->st_execute->ex_name);
    pr_exprs(p, s->st_execute->ex_args);
    pr_str(p, ")");
    break;
  case SQL_STMT_SET_TRANSACTION:
    pr_str(p, "(set-transaction");
    pr_txnmode(p, s->st_txn);
    pr_str(p, ")");
    break;
  case SQL_STMT_ALTER_ROLE: pr_role(p, s); break;
  case SQL_STMT_CHECKPOINT: pr_str(p, "(checkpoint)"); break;
  case SQL_STMT_CREATE_SCHEMA:
  case SQL_STMT_ALTER_SCHEMA:
    pr_str(p, s->st_kind == SQL_STMT_CREATE_SCHEMA ? "(create-schema" : "(alter-schema");
    if (s->st_schema->sc_if_not_exists)
      pr_str(p, " if-not-exists");
    pr_str(p, " ");
    pr_str(p, s->st_schema->sc_name ? s->st_schema->sc_name : "-");
    if (s->st_schema->sc_owner) {
      pr_str(p, " authorization ");
      pr_str(p, s->st_schema->sc_owner);
    }
    if (s->st_schema->sc_new_name) {
      pr_str(p, " rename-to ");
      pr_str(p, s->st_schema->sc_new_name);
    }
    pr_str(p, ")");
    break;
  case SQL_STMT_ALTER_OWNER:
    pr_str(p, "(alter-owner ");
    pr_str(p, s->st_owner_kind);
    pr_str(p, " ");
    pr_qnames(p, s->st_drop->dr_names);
    pr_str(p, " ");
    pr_str(p, s->st_owner_role);
    pr_str(p, ")");
    break;
  case SQL_STMT_LOCK:
    pr_str(p, "(lock ");
    pr_qnames(p, s->st_drop->dr_names);
    pr_str(p, " ");
    pr_str(p, s->st_lock_mode);
    pr_str(p, s->st_lock_nowait ? " nowait)" : ")");
    break;
  case SQL_STMT_CREATE_VIEW:
  case SQL_STMT_ALTER_VIEW:
  case SQL_STMT_REFRESH_MATVIEW: pr_view(p, s); break;
  case SQL_STMT_SET_CONSTRAINTS:
    pr_str(p, "(set-constraints ");
    if (s->st_setcons->sc_names)
      pr_qnames(p, s->st_setcons->sc_names);
    else
      pr_str(p, "all");
    pr_str(p, s->st_setcons->sc_deferred ? " deferred)" : " immediate)");
    break;
  case SQL_STMT_TRUNCATE:
  case SQL_STMT_VACUUM:
    pr_str(p, s->st_kind == SQL_STMT_TRUNCATE ? "(truncate" : "(vacuum");
    if (s->st_analyze)
      pr_str(p, " analyze");
    if (s->st_drop->dr_names) {
      pr_str(p, " ");
      pr_qnames(p, s->st_drop->dr_names);
    }
    if (s->st_kind == SQL_STMT_TRUNCATE && s->st_drop->dr_restart_identity)
      pr_str(p, " restart-identity");
    if (s->st_kind == SQL_STMT_TRUNCATE && s->st_drop->dr_cascade)
      pr_str(p, " cascade");
    pr_str(p, ")");
    break;
  case SQL_STMT_ALTER_SETTING: {
    const sql_alter_setting_t *sa = s->st_setting;
    char kind[2] = {sa->sa_role_kind ? sa->sa_role_kind : 'd', 0};
    pr_str(p, "(alter-setting ");
    pr_str(p, kind);
    pr_str(p, " ");
    pr_str(p, sa->sa_role ? sa->sa_role : sa->sa_role_kind == 'a' ? "all" : "-");
    pr_str(p, " ");
    pr_str(p, sa->sa_database ? sa->sa_database : "-");
    pr_str(p, sa->sa_set->sv_default ? " reset " : " set ");
    pr_str(p, sa->sa_set->sv_name);
    pr_str(p, ")");
    break;
  }
  case SQL_STMT_COMMENT: {
    char kind[2] = {s->st_comment->cm_kind, 0};
    pr_str(p, "(comment ");
    pr_str(p, kind);
    pr_str(p, " ");
    if (s->st_comment->cm_name.nm_schema) {
      pr_str(p, s->st_comment->cm_name.nm_schema);
      pr_str(p, ".");
    }
    pr_str(p, s->st_comment->cm_name.nm_name);
    if (s->st_comment->cm_sub) {
      pr_str(p, " ");
      pr_str(p, s->st_comment->cm_sub);
    }
    pr_str(p, s->st_comment->cm_text ? " text)" : " null)");
    break;
  }
  }
}

char *sql_ast_print(arena_t *a, const sql_stmt_t *s)
{
  sql_pr_t p = {.pr_arena = a};
  pr_mem(&p, "", 0);
  pr_stmt(&p, s);
  return p.pr_buf;
}

char *sql_expr_print(arena_t *a, const sql_expr_t *x)
{
  sql_pr_t p = {.pr_arena = a};
  pr_mem(&p, "", 0);
  pr_expr(&p, x);
  return p.pr_buf;
}

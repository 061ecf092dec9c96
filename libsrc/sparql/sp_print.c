/* sp_print — the algebra as S-expressions (SSE), the notation Jena's
 * `qparse --print=op` uses, for tests and for EXPLAIN.
 *
 * Design notes: IRIs are printed whole (`<…>`, no prefixes) so that a test
 * sees what resolution gave; integers, decimals, doubles and booleans whose
 * lexical form is the SPARQL short form print bare, other literals quoted
 * with `@lang` or `^^<dt>`; variables `?x`, variables standing for blank
 * nodes or path steps `??N` / `??PN`, aggregate results `?.N`. Operators:
 * (bgp (triple s p o)…) and (table unit) for the empty BGP, (path s P o),
 * (join A B), (leftjoin A B [expr|(exprlist …)]), (filter expr|(exprlist …) A),
 * (union A B), (minus A B), (graph g A), (service [silent] g A),
 * (extend ((?v e)…) A), (group (keys…) ((?.N agg)…) A), (order (k…) A) with
 * (desc e), (project (?v…) A), (distinct A), (reduced A),
 * (slice start|_ length|_ A), (table (vars ?v…) (row [?v t]…)…); a
 * subquery's ToMultiSet prints as the subquery. Paths: <iri>, (reverse P),
 * (seq P Q), (alt P Q), (path* P), (path+ P), (path? P), (notoneof <iri>…).
 * Update operations: one line each, see README.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparql/sparql_int.h"

/* A new line at depth d; a negative depth prints everything on one line
 * (an EXISTS pattern inside an expression). */
#define PR_FLAT (-1000000)
static void pr_indent(FILE *f, int d)
{
  if (d < 0) {
    fputc(' ', f);
    return;
  }
  fputc('\n', f);
  for (int i = 0; i < d; i++)
    fputs("  ", f);
}

static bool pr_matches(const char *s, const char *dt)
{
  const char *p = s;
  if (*p == '+' || *p == '-')
    p++;
  if (strcmp(dt, XSD_NS "integer") == 0) {
    if (!*p)
      return false;
    for (; *p; p++)
      if (*p < '0' || *p > '9')
        return false;
    return true;
  }
  if (strcmp(dt, XSD_NS "decimal") == 0) {
    const char *dot = strchr(p, '.');
    if (!dot || !dot[1])
      return false;
    for (; *p; p++)
      if ((*p < '0' || *p > '9') && p != dot)
        return false;
    return true;
  }
  if (strcmp(dt, XSD_NS "double") == 0) {
    const char *e = strpbrk(p, "eE");
    if (!e || e == p)
      return false;
    int digits = 0, dots = 0;
    for (; p < e; p++) {
      if (*p == '.')
        dots++;
      else if (*p >= '0' && *p <= '9')
        digits++;
      else
        return false;
    }
    if (!digits || dots > 1)
      return false;
    p = e + 1;
    if (*p == '+' || *p == '-')
      p++;
    if (!*p)
      return false;
    for (; *p; p++)
      if (*p < '0' || *p > '9')
        return false;
    return true;
  }
  if (strcmp(dt, XSD_NS "boolean") == 0)
    return strcmp(s, "true") == 0 || strcmp(s, "false") == 0;
  return false;
}

static void pr_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; s++) {
    switch (*s) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    default: fputc(*s, f);
    }
  }
  fputc('"', f);
}

void sp_print_term(FILE *f, const sp_term_t *t)
{
  switch (t->tm_kind) {
  case SP_T_IRI:
    fprintf(f, "<%s>", t->tm_str);
    break;
  case SP_T_BNODE:
    fprintf(f, "_:%s", t->tm_str);
    break;
  case SP_T_VAR:
    /* ?x; ??N and ??PN stand for blank nodes and path steps; ?.N for aggregates */
    fprintf(f, "%s%s", t->tm_anon && t->tm_str[0] != '.' ? "??" : "?", t->tm_str);
    break;
  case SP_T_LIT:
    if (t->tm_dt && pr_matches(t->tm_str, t->tm_dt)) {
      fputs(t->tm_str, f);
      break;
    }
    pr_string(f, t->tm_str);
    if (t->tm_lang)
      fprintf(f, "@%s", t->tm_lang);
    else if (t->tm_dt)
      fprintf(f, "^^<%s>", t->tm_dt);
    break;
  }
}

static void pr_path(FILE *f, const sp_path_t *p)
{
  static const char *names[] = { "", "reverse", "seq", "alt", "path*", "path+", "path?", "notoneof" };
  switch (p->pa_kind) {
  case SP_P_LINK:
    fprintf(f, "<%s>", p->pa_iri);
    return;
  case SP_P_NPS:
    fputs("(notoneof", f);
    for (int i = 0; i < p->pa_fwd->ls_n; i++)
      fprintf(f, " <%s>", (const char *)p->pa_fwd->ls_v[i]);
    for (int i = 0; i < p->pa_inv->ls_n; i++)
      fprintf(f, " (rev <%s>)", (const char *)p->pa_inv->ls_v[i]);
    fputc(')', f);
    return;
  default:
    fprintf(f, "(%s ", names[p->pa_kind]);
    pr_path(f, p->pa_a);
    if (p->pa_b) {
      fputc(' ', f);
      pr_path(f, p->pa_b);
    }
    fputc(')', f);
  }
}

static void pr_triple(FILE *f, const sp_triple_t *t)
{
  fputs(t->tr_path ? "(path " : "(triple ", f);
  sp_print_term(f, t->tr_s);
  fputc(' ', f);
  if (t->tr_path)
    pr_path(f, t->tr_path);
  else
    sp_print_term(f, t->tr_p);
  fputc(' ', f);
  sp_print_term(f, t->tr_o);
  fputc(')', f);
}

static void pr_op(FILE *f, const sp_op_t *o, int d);

static void pr_args(FILE *f, const sp_list_t *l)
{
  for (int i = 0; l && i < l->ls_n; i++) {
    fputc(' ', f);
    sp_print_expr(f, l->ls_v[i]);
  }
}

void sp_print_expr(FILE *f, const sp_expr_t *e)
{
  static const char *ops[] = {
    [SP_E_OR] = "||", [SP_E_AND] = "&&", [SP_E_EQ] = "=", [SP_E_NE] = "!=", [SP_E_LT] = "<",
    [SP_E_GT] = ">", [SP_E_LE] = "<=", [SP_E_GE] = ">=", [SP_E_ADD] = "+", [SP_E_SUB] = "-",
    [SP_E_MUL] = "*", [SP_E_DIV] = "/", [SP_E_NOT] = "!", [SP_E_NEG] = "-", [SP_E_POS] = "+",
    [SP_E_IN] = "in", [SP_E_NOTIN] = "notin",
  };
  switch (e->ex_kind) {
  case SP_E_TERM:
    sp_print_term(f, e->ex_term);
    return;
  case SP_E_BUILTIN:
    fprintf(f, "(%s", e->ex_name);
    pr_args(f, e->ex_args);
    fputc(')', f);
    return;
  case SP_E_FUNC:
    fprintf(f, "(<%s>%s", e->ex_name, e->ex_distinct ? " distinct" : "");
    pr_args(f, e->ex_args);
    fputc(')', f);
    return;
  case SP_E_AGG:
    fprintf(f, "(%s%s", e->ex_name, e->ex_distinct ? " distinct" : "");
    if (e->ex_sep) {
      fputs(" (separator ", f);
      pr_string(f, e->ex_sep);
      fputc(')', f);
    }
    pr_args(f, e->ex_args);
    fputc(')', f);
    return;
  case SP_E_EXISTS:
  case SP_E_NOTEXISTS:
    fputs(e->ex_kind == SP_E_EXISTS ? "(exists " : "(notexists ", f);
    if (e->ex_op)
      pr_op(f, e->ex_op, PR_FLAT);
    fputc(')', f);
    return;
  case SP_E_IN:
  case SP_E_NOTIN:
    fprintf(f, "(%s ", ops[e->ex_kind]);
    sp_print_expr(f, e->ex_a);
    pr_args(f, e->ex_args);
    fputc(')', f);
    return;
  default:
    fprintf(f, "(%s ", ops[e->ex_kind]);
    sp_print_expr(f, e->ex_a);
    if (e->ex_b) {
      fputc(' ', f);
      sp_print_expr(f, e->ex_b);
    }
    fputc(')', f);
  }
}

static void pr_exprs(FILE *f, const sp_list_t *l)
{
  if (l->ls_n == 1) {
    sp_print_expr(f, l->ls_v[0]);
    return;
  }
  fputs("(exprlist", f);
  pr_args(f, l);
  fputc(')', f);
}

static void pr_binds(FILE *f, const sp_list_t *l)
{
  fputc('(', f);
  for (int i = 0; i < l->ls_n; i++) {
    sp_selitem_t *s = l->ls_v[i];
    if (i)
      fputc(' ', f);
    if (s->si_var && s->si_expr) {
      fputc('(', f);
      sp_print_term(f, s->si_var);
      fputc(' ', f);
      sp_print_expr(f, s->si_expr);
      fputc(')', f);
    } else if (s->si_var) {
      sp_print_term(f, s->si_var);
    } else {
      sp_print_expr(f, s->si_expr);
    }
  }
  fputc(')', f);
}

static void pr_values(FILE *f, const sp_values_t *v)
{
  fputs("(table (vars", f);
  for (int i = 0; i < v->va_vars->ls_n; i++) {
    fputc(' ', f);
    sp_print_term(f, v->va_vars->ls_v[i]);
  }
  fputc(')', f);
  for (int r = 0; r < v->va_rows->ls_n; r++) {
    sp_list_t *row = v->va_rows->ls_v[r];
    fputs(" (row", f);
    for (int i = 0; i < row->ls_n; i++) {
      if (!row->ls_v[i])
        continue;   /* UNDEF */
      fputs(" [", f);
      sp_print_term(f, v->va_vars->ls_v[i]);
      fputc(' ', f);
      sp_print_term(f, row->ls_v[i]);
      fputc(']', f);
    }
    fputc(')', f);
  }
  fputc(')', f);
}

static void pr_op(FILE *f, const sp_op_t *o, int d)
{
  switch (o->op_kind) {
  case SP_OP_BGP:
    if (o->op_triples->ls_n == 0) {
      fputs("(table unit)", f);
      return;
    }
    fputs("(bgp", f);
    for (int i = 0; i < o->op_triples->ls_n; i++) {
      pr_indent(f, d + 1);
      pr_triple(f, o->op_triples->ls_v[i]);
    }
    fputc(')', f);
    return;
  case SP_OP_PATH:
    pr_triple(f, o->op_path);
    return;
  case SP_OP_TABLE:
    pr_values(f, o->op_values);
    return;
  case SP_OP_TOMULTISET:
    pr_op(f, o->op_a, d);
    return;
  case SP_OP_JOIN:
  case SP_OP_LEFTJOIN:
  case SP_OP_UNION:
  case SP_OP_MINUS:
    fputs(o->op_kind == SP_OP_JOIN ? "(join" : o->op_kind == SP_OP_LEFTJOIN ? "(leftjoin"
          : o->op_kind == SP_OP_UNION ? "(union" : "(minus", f);
    pr_indent(f, d + 1);
    pr_op(f, o->op_a, d + 1);
    pr_indent(f, d + 1);
    pr_op(f, o->op_b, d + 1);
    if (o->op_kind == SP_OP_LEFTJOIN && o->op_exprs->ls_n) {
      pr_indent(f, d + 1);
      pr_exprs(f, o->op_exprs);
    }
    fputc(')', f);
    return;
  case SP_OP_FILTER:
    fputs("(filter ", f);
    pr_exprs(f, o->op_exprs);
    break;
  case SP_OP_GRAPH:
  case SP_OP_SERVICE:
    fputs(o->op_kind == SP_OP_GRAPH ? "(graph " : o->op_silent ? "(service silent " : "(service ", f);
    sp_print_term(f, o->op_term);
    break;
  case SP_OP_EXTEND:
    fputs("(extend ", f);
    pr_binds(f, o->op_binds);
    break;
  case SP_OP_GROUP:
    fputs("(group ", f);
    pr_binds(f, o->op_binds);
    fputc(' ', f);
    pr_binds(f, o->op_aggs);
    break;
  case SP_OP_ORDER:
    fputs("(order (", f);
    for (int i = 0; i < o->op_order->ls_n; i++) {
      sp_order_t *c = o->op_order->ls_v[i];
      if (i)
        fputc(' ', f);
      if (c->or_desc)
        fputs("(desc ", f);
      sp_print_expr(f, c->or_expr);
      if (c->or_desc)
        fputc(')', f);
    }
    fputc(')', f);
    break;
  case SP_OP_PROJECT:
    fputs("(project (", f);
    for (int i = 0; i < o->op_vars->ls_n; i++) {
      if (i)
        fputc(' ', f);
      sp_print_term(f, o->op_vars->ls_v[i]);
    }
    fputc(')', f);
    break;
  case SP_OP_DISTINCT:
    fputs("(distinct", f);
    break;
  case SP_OP_REDUCED:
    fputs("(reduced", f);
    break;
  case SP_OP_SLICE:
    fputs("(slice ", f);
    if (o->op_start >= 0)
      fprintf(f, "%lld ", (long long)o->op_start);
    else
      fputs("_ ", f);
    if (o->op_length >= 0)
      fprintf(f, "%lld", (long long)o->op_length);
    else
      fputs("_", f);
    break;
  }
  /* the one-input operators: their input on the next line */
  pr_indent(f, d + 1);
  pr_op(f, o->op_a, d + 1);
  fputc(')', f);
}

void sp_print_op(FILE *f, const sp_op_t *op)
{
  pr_op(f, op, 0);
}

static void pr_gref(FILE *f, const sp_gref_t *g)
{
  switch (g->gr_kind) {
  case SP_GR_IRI: fprintf(f, " <%s>", g->gr_iri); break;
  case SP_GR_DEFAULT: fputs(" default", f); break;
  case SP_GR_NAMED: fputs(" named", f); break;
  case SP_GR_ALL: fputs(" all", f); break;
  case SP_GR_NONE: break;
  }
}

static void pr_quads(FILE *f, const char *name, const sp_list_t *quads)
{
  fprintf(f, "(%s", name);
  for (int i = 0; quads && i < quads->ls_n; i++) {
    sp_quad_t *q = quads->ls_v[i];
    fputs("\n  ", f);
    if (q->qd_g) {
      fputs("(quad ", f);
      sp_print_term(f, q->qd_g);
      fputc(' ', f);
      sp_print_term(f, q->qd_t->tr_s);
      fputc(' ', f);
      sp_print_term(f, q->qd_t->tr_p);
      fputc(' ', f);
      sp_print_term(f, q->qd_t->tr_o);
      fputc(')', f);
    } else {
      pr_triple(f, q->qd_t);
    }
  }
  fputc(')', f);
}

static void pr_update(FILE *f, const sp_update_t *u)
{
  static const char *names[] = { "load", "clear", "drop", "create", "add", "move", "copy" };
  const char *silent = u->up_silent ? " silent" : "";
  switch (u->up_kind) {
  case SP_U_LOAD:
    fprintf(f, "(load%s <%s>", silent, u->up_source);
    pr_gref(f, &u->up_target);
    fputc(')', f);
    break;
  case SP_U_CLEAR:
  case SP_U_DROP:
  case SP_U_CREATE:
    fprintf(f, "(%s%s", names[u->up_kind], silent);
    pr_gref(f, &u->up_target);
    fputc(')', f);
    break;
  case SP_U_ADD:
  case SP_U_MOVE:
  case SP_U_COPY:
    fprintf(f, "(%s%s", names[u->up_kind], silent);
    pr_gref(f, &u->up_from);
    pr_gref(f, &u->up_target);
    fputc(')', f);
    break;
  case SP_U_INSERT_DATA:
    pr_quads(f, "insertData", u->up_insert);
    break;
  case SP_U_DELETE_DATA:
    pr_quads(f, "deleteData", u->up_delete);
    break;
  case SP_U_DELETE_WHERE:
    pr_quads(f, "deleteWhere", u->up_delete);
    fputc('\n', f);
    pr_op(f, u->up_op, 0);
    break;
  case SP_U_MODIFY:
    fputs("(modify", f);
    if (u->up_with)
      fprintf(f, " (with <%s>)", u->up_with);
    for (int i = 0; i < u->up_using->ls_n; i++) {
      sp_gref_t *g = u->up_using->ls_v[i];
      fprintf(f, " (using%s <%s>)", g->gr_kind == SP_GR_NAMED ? " named" : "", g->gr_iri);
    }
    fputs("\n ", f);
    if (u->up_delete) {
      pr_quads(f, "delete", u->up_delete);
      fputs("\n ", f);
    }
    if (u->up_insert) {
      pr_quads(f, "insert", u->up_insert);
      fputs("\n ", f);
    }
    pr_op(f, u->up_op, 1);
    fputc(')', f);
    break;
  }
}

void sp_print_request(FILE *f, const sp_request_t *rq)
{
  if (!rq->rq_update) {
    const sp_query_t *q = rq->rq_query;
    if (q->qu_kind == SP_Q_CONSTRUCT) {
      fputs("(construct", f);
      for (int i = 0; i < q->qu_template->ls_n; i++) {
        fputs("\n  ", f);
        pr_triple(f, q->qu_template->ls_v[i]);
      }
      fputs(")\n", f);
    } else if (q->qu_kind == SP_Q_DESCRIBE) {
      fputs("(describe", f);
      if (q->qu_star)
        fputs(" *", f);
      for (int i = 0; q->qu_describe && i < q->qu_describe->ls_n; i++) {
        fputc(' ', f);
        sp_print_term(f, q->qu_describe->ls_v[i]);
      }
      fputs(")\n", f);
    } else if (q->qu_kind == SP_Q_ASK) {
      fputs("(ask)\n", f);
    }
    pr_op(f, q->qu_op, 0);
    fputc('\n', f);
    return;
  }
  for (int i = 0; i < rq->rq_ops->ls_n; i++) {
    pr_update(f, rq->rq_ops->ls_v[i]);
    fputc('\n', f);
  }
}

char *sp_request_sse(arena_t *a, const sp_request_t *rq)
{
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  if (!f)
    return arena_strdup(a, "");
  sp_print_request(f, rq);
  fclose(f);
  char *s = arena_strdup(a, buf ? buf : "");
  free(buf);
  return s;
}

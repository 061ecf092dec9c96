/* ex_jsonpath — SQL/JSON path language, the common subset:
 * jsonb_path_exists, jsonb_path_match, jsonb_path_query_array,
 * jsonb_path_query_first (and jsonb_path_query, which the binder reads as
 * jsonb_array_elements of jsonb_path_query_array).
 *
 * Design notes: PostgreSQL 15's semantics (jsonpath_exec.c) for what is
 * here: `lax` (the default) and `strict` mode, `$`, `@`, `$var` (from the
 * vars object), `.key`, `."key"`, `.*`, `[*]`, `[i]`, `[i to j]`, `last`,
 * `[last - n]`, filters `? (…)` with `== != <> < <= > >=`, `&&`, `||`,
 * `!(…)`, `exists(…)`, and literals (numbers, strings, true, false, null).
 * Lax mode unwraps an array one level for member accessors, filters and
 * comparison operands, treats a non-array as a one-element array for
 * subscripts, and turns structural errors into empty results; strict
 * mode raises them (2203A, 22033, 22039), unless the call is silent (the
 * fourth argument, and @? / @@) — then they give no result / NULL.
 * Comparisons follow PostgreSQL's three-valued rules: null equals only
 * null, values of different types compare unknown, arrays and objects
 * are unknown operands. The rest of the language (arithmetic, item
 * methods such as .size(), `**`, like_regex, starts with, is unknown) is
 * 0A000 with the construct's name; a malformed path is 42601.
 *
 * The document is parsed into a tree (ty_json_parse) per call; results
 * are printed back as canonical jsonb text.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "exec/ex_int.h"

/* ---- the path's tree ------------------------------------------------------ */

typedef enum jp_kind_e {
  JP_ROOT, JP_CUR, JP_VAR, JP_LIT, JP_LAST,       /* primaries */
  JP_KEY, JP_ANYKEY, JP_ANYIDX, JP_IDX, JP_FILTER, /* accessors */
  JP_AND, JP_OR, JP_NOT, JP_CMP, JP_EXISTS         /* predicates */
} jp_kind_t;

typedef enum jp_cmp_e { JC_EQ, JC_NE, JC_LT, JC_LE, JC_GT, JC_GE } jp_cmp_t;

typedef struct jp_node_s jp_node_t;
struct jp_node_s {
  jp_kind_t jn_kind;
  str_t jn_name;            /* JP_KEY, JP_VAR */
  ty_jval_t *jn_lit;        /* JP_LIT */
  int64_t jn_last_minus;    /* JP_LAST: last - n */
  jp_cmp_t jn_cmp;          /* JP_CMP */
  jp_node_t *jn_l, *jn_r;   /* operands; JP_FILTER / JP_EXISTS / JP_NOT: jn_l */
  int jn_nidx;              /* JP_IDX: ranges jn_from[i] .. jn_to[i] (NULL: one) */
  jp_node_t **jn_from, **jn_to;
  int jn_nacc;              /* a primary's accessors, in order */
  jp_node_t **jn_acc;
};

typedef struct jp_parse_s {
  const char *p, *end;
  arena_t *a;
  err_t *e;
  int depth;
} jp_parse_t;

static int jp_syntax(jp_parse_t *ps)
{
  while (ps->p < ps->end && isspace((unsigned char)*ps->p))
    ps->p++;
  if (ps->p >= ps->end)
    return err_set(ps->e, SQLSTATE_SYNTAX_ERROR, "syntax error at end of jsonpath input");
  return err_set(ps->e, SQLSTATE_SYNTAX_ERROR, "syntax error at or near \"%.*s\" of jsonpath input",
                 (int)(isalnum((unsigned char)*ps->p) ? strcspn(ps->p, " \t\n().[]?") : 1), ps->p);
}

static int jp_unsupported(jp_parse_t *ps, const char *what)
{
  return err_set(ps->e, SQLSTATE_FEATURE_NOT_SUPPORTED, "jsonpath %s is not supported yet", what);
}

static void jp_ws(jp_parse_t *ps)
{
  while (ps->p < ps->end && isspace((unsigned char)*ps->p))
    ps->p++;
}

static bool jp_eat(jp_parse_t *ps, const char *tok)
{
  jp_ws(ps);
  size_t n = strlen(tok);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, tok, n) != 0)
    return false;
  /* a keyword is a whole word */
  if (isalpha((unsigned char)tok[0]) && ps->p + n < ps->end &&
      (isalnum((unsigned char)ps->p[n]) || ps->p[n] == '_'))
    return false;
  ps->p += n;
  return true;
}

static jp_node_t *jp_new(jp_parse_t *ps, jp_kind_t k)
{
  jp_node_t *n = arena_zalloc(ps->a, sizeof(*n));
  n->jn_kind = k;
  return n;
}

/* An identifier (key or variable name) or a quoted string, decoded. */
static bool jp_word(jp_parse_t *ps, str_t *out, bool *quoted)
{
  jp_ws(ps);
  *quoted = ps->p < ps->end && *ps->p == '"';
  if (*quoted) {
    char *o = arena_alloc(ps->a, (size_t)(ps->end - ps->p) + 1);
    size_t n = 0;
    for (ps->p++; ps->p < ps->end && *ps->p != '"'; ps->p++) {
      char c = *ps->p;
      if (c == '\\' && ps->p + 1 < ps->end) {
        c = *++ps->p;
        c = c == 'n' ? '\n' : c == 't' ? '\t' : c == 'r' ? '\r' : c == 'b' ? '\b' : c == 'f' ? '\f' : c;
      }
      o[n++] = c;
    }
    if (ps->p >= ps->end)
      return false;
    ps->p++;
    out->s_ptr = o;
    out->s_len = (uint32_t)n;
    return true;
  }
  const char *s = ps->p;
  while (ps->p < ps->end && (isalnum((unsigned char)*ps->p) || *ps->p == '_' ||
                             (unsigned char)*ps->p >= 0x80))
    ps->p++;
  out->s_ptr = s;
  out->s_len = (uint32_t)(ps->p - s);
  return out->s_len > 0;
}

static int jp_expr(jp_parse_t *ps, jp_node_t **out);

/* A subscript bound: an integer, or last [- integer]. */
static int jp_bound(jp_parse_t *ps, jp_node_t **out)
{
  jp_ws(ps);
  if (jp_eat(ps, "last")) {
    jp_node_t *n = jp_new(ps, JP_LAST);
    if (jp_eat(ps, "-")) {
      jp_ws(ps);
      if (ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
        return jp_syntax(ps);
      n->jn_last_minus = strtoll(ps->p, (char **)&ps->p, 10);
    } else if (jp_eat(ps, "+") || jp_eat(ps, "*") || jp_eat(ps, "/")) {
      return jp_unsupported(ps, "arithmetic");
    }
    *out = n;
    return CZ_OK;
  }
  bool neg = jp_eat(ps, "-");
  jp_ws(ps);
  if (ps->p >= ps->end || !isdigit((unsigned char)*ps->p))
    return jp_syntax(ps);
  jp_node_t *n = jp_new(ps, JP_LIT);
  n->jn_last_minus = strtoll(ps->p, (char **)&ps->p, 10) * (neg ? -1 : 1);
  if (ps->p < ps->end && (*ps->p == '.' || *ps->p == 'e' || *ps->p == 'E'))
    return err_set(ps->e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "jsonpath array subscripts other than integers are not supported yet");
  *out = n;
  return CZ_OK;
}

/* The accessors after a primary. */
static int jp_accessors(jp_parse_t *ps, jp_node_t *base)
{
  for (;;) {
    jp_node_t *acc = NULL;
    jp_ws(ps);
    if (jp_eat(ps, "**") || jp_eat(ps, ".**"))
      return jp_unsupported(ps, "recursive wildcard (**)");
    if (jp_eat(ps, ".*")) {
      acc = jp_new(ps, JP_ANYKEY);
    } else if (jp_eat(ps, ".")) {
      bool quoted;
      str_t w;
      if (!jp_word(ps, &w, &quoted))
        return jp_syntax(ps);
      jp_ws(ps);
      if (!quoted && ps->p < ps->end && *ps->p == '(')
        return err_set(ps->e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                       "jsonpath item method .%.*s() is not supported yet", (int)w.s_len, w.s_ptr);
      acc = jp_new(ps, JP_KEY);
      acc->jn_name = w;
    } else if (jp_eat(ps, "[")) {
      if (jp_eat(ps, "*")) {
        acc = jp_new(ps, JP_ANYIDX);
      } else {
        acc = jp_new(ps, JP_IDX);
        int cap = 4;
        acc->jn_from = arena_alloc(ps->a, sizeof(jp_node_t *) * (size_t)cap);
        acc->jn_to = arena_alloc(ps->a, sizeof(jp_node_t *) * (size_t)cap);
        do {
          if (acc->jn_nidx == cap) {
            jp_node_t **f = arena_alloc(ps->a, sizeof(jp_node_t *) * (size_t)cap * 2);
            jp_node_t **t = arena_alloc(ps->a, sizeof(jp_node_t *) * (size_t)cap * 2);
            memcpy(f, acc->jn_from, sizeof(jp_node_t *) * (size_t)cap);
            memcpy(t, acc->jn_to, sizeof(jp_node_t *) * (size_t)cap);
            acc->jn_from = f, acc->jn_to = t, cap *= 2;
          }
          int k = acc->jn_nidx++;
          acc->jn_to[k] = NULL;
          if (jp_bound(ps, &acc->jn_from[k]) != CZ_OK)
            return CZ_ERR;
          if (jp_eat(ps, "to") && jp_bound(ps, &acc->jn_to[k]) != CZ_OK)
            return CZ_ERR;
        } while (jp_eat(ps, ","));
      }
      if (!jp_eat(ps, "]"))
        return jp_syntax(ps);
    } else if (jp_eat(ps, "?")) {
      acc = jp_new(ps, JP_FILTER);
      if (!jp_eat(ps, "("))
        return jp_syntax(ps);
      if (jp_expr(ps, &acc->jn_l) != CZ_OK)
        return CZ_ERR;
      if (!jp_eat(ps, ")"))
        return jp_syntax(ps);
    } else {
      return CZ_OK;
    }
    jp_node_t **na = arena_alloc(ps->a, sizeof(jp_node_t *) * (size_t)(base->jn_nacc + 1));
    if (base->jn_nacc)
      memcpy(na, base->jn_acc, sizeof(jp_node_t *) * (size_t)base->jn_nacc);
    na[base->jn_nacc++] = acc;
    base->jn_acc = na;
  }
}

static int jp_primary(jp_parse_t *ps, jp_node_t **out)
{
  jp_ws(ps);
  if (ps->p >= ps->end)
    return jp_syntax(ps);
  jp_node_t *n = NULL;
  char c = *ps->p;
  if (c == '$') {
    ps->p++;
    if (ps->p < ps->end && (isalpha((unsigned char)*ps->p) || *ps->p == '_' || *ps->p == '"')) {
      bool quoted;
      n = jp_new(ps, JP_VAR);
      if (!jp_word(ps, &n->jn_name, &quoted))
        return jp_syntax(ps);
    } else {
      n = jp_new(ps, JP_ROOT);
    }
  } else if (c == '@') {
    ps->p++;
    n = jp_new(ps, JP_CUR);
  } else if (c == '"' || c == '-' || isdigit((unsigned char)c)) {
    n = jp_new(ps, JP_LIT);
    ty_jval_t *v = arena_zalloc(ps->a, sizeof(*v));
    n->jn_lit = v;
    if (c == '"') {
      bool quoted;
      v->jv_kind = TJ_STRING;
      if (!jp_word(ps, &v->jv_str, &quoted))
        return jp_syntax(ps);
    } else {
      const char *s = ps->p;
      if (*ps->p == '-')
        ps->p++;
      while (ps->p < ps->end && (isdigit((unsigned char)*ps->p) || *ps->p == '.' || *ps->p == 'e' ||
                                 *ps->p == 'E' ||
                                 ((*ps->p == '+' || *ps->p == '-') && (ps->p[-1] == 'e' || ps->p[-1] == 'E'))))
        ps->p++;
      v->jv_kind = TJ_NUMBER;
      err_t e2;
      if (ty_json_number_canon(s, (size_t)(ps->p - s), ps->a, &v->jv_str, &e2) != CZ_OK) {
        ps->p = s;
        return jp_syntax(ps);
      }
    }
  } else if (jp_eat(ps, "true") || jp_eat(ps, "false") || jp_eat(ps, "null")) {
    n = jp_new(ps, JP_LIT);
    ty_jval_t *v = arena_zalloc(ps->a, sizeof(*v));
    v->jv_kind = ps->p[-1] == 'l' ? TJ_NULL : TJ_BOOL;
    v->jv_bool = ps->p[-1] == 'e' && ps->p[-4] == 't';
    n->jn_lit = v;
  } else if (jp_eat(ps, "exists")) {
    n = jp_new(ps, JP_EXISTS);
    if (!jp_eat(ps, "("))
      return jp_syntax(ps);
    if (jp_expr(ps, &n->jn_l) != CZ_OK)
      return CZ_ERR;
    if (!jp_eat(ps, ")"))
      return jp_syntax(ps);
    *out = n;
    return CZ_OK;
  } else if (c == '(') {
    ps->p++;
    if (jp_expr(ps, &n) != CZ_OK)
      return CZ_ERR;
    if (!jp_eat(ps, ")"))
      return jp_syntax(ps);
    *out = n;
    return CZ_OK;
  } else {
    return jp_syntax(ps);
  }
  if (jp_accessors(ps, n) != CZ_OK)
    return CZ_ERR;
  *out = n;
  return CZ_OK;
}

/* A comparison, or a path alone. */
static int jp_cmp(jp_parse_t *ps, jp_node_t **out)
{
  jp_node_t *l;
  if (jp_eat(ps, "!")) {
    jp_node_t *n = jp_new(ps, JP_NOT);
    if (!jp_eat(ps, "("))
      return jp_syntax(ps);
    if (jp_expr(ps, &n->jn_l) != CZ_OK)
      return CZ_ERR;
    if (!jp_eat(ps, ")"))
      return jp_syntax(ps);
    *out = n;
    return CZ_OK;
  }
  if (jp_primary(ps, &l) != CZ_OK)
    return CZ_ERR;
  static const struct {
    const char *tok;
    jp_cmp_t op;
  } ops[] = {{"==", JC_EQ}, {"!=", JC_NE}, {"<>", JC_NE}, {"<=", JC_LE},
             {">=", JC_GE}, {"<", JC_LT},  {">", JC_GT}};
  for (size_t i = 0; i < CZ_ARRAY_LEN(ops); i++)
    if (jp_eat(ps, ops[i].tok)) {
      jp_node_t *n = jp_new(ps, JP_CMP);
      n->jn_cmp = ops[i].op;
      n->jn_l = l;
      if (jp_primary(ps, &n->jn_r) != CZ_OK)
        return CZ_ERR;
      *out = n;
      return CZ_OK;
    }
  jp_ws(ps);
  if (ps->p < ps->end && strchr("+-*/%", *ps->p))
    return jp_unsupported(ps, "arithmetic");
  if (jp_eat(ps, "like_regex") || jp_eat(ps, "starts") || jp_eat(ps, "is"))
    return jp_unsupported(ps, "predicate like_regex / starts with / is unknown");
  *out = l;
  return CZ_OK;
}

static int jp_and(jp_parse_t *ps, jp_node_t **out)
{
  if (jp_cmp(ps, out) != CZ_OK)
    return CZ_ERR;
  while (jp_eat(ps, "&&")) {
    jp_node_t *n = jp_new(ps, JP_AND);
    n->jn_l = *out;
    if (jp_cmp(ps, &n->jn_r) != CZ_OK)
      return CZ_ERR;
    *out = n;
  }
  return CZ_OK;
}

static int jp_expr(jp_parse_t *ps, jp_node_t **out)
{
  if (++ps->depth > 200)
    return err_set(ps->e, SQLSTATE_PROGRAM_LIMIT, "jsonpath expression is nested too deeply");
  if (jp_and(ps, out) != CZ_OK)
    return CZ_ERR;
  while (jp_eat(ps, "||")) {
    jp_node_t *n = jp_new(ps, JP_OR);
    n->jn_l = *out;
    if (jp_and(ps, &n->jn_r) != CZ_OK)
      return CZ_ERR;
    *out = n;
  }
  ps->depth--;
  return CZ_OK;
}

/* ---- evaluation ------------------------------------------------------------- */

typedef enum jp_bool_e { JB_FALSE, JB_TRUE, JB_UNKNOWN } jp_bool_t;

typedef struct jp_seq_s {
  ty_jval_t **js_v;
  int js_n, js_cap;
} jp_seq_t;

typedef struct jp_run_s {
  arena_t *a;
  bool strict;
  ty_jval_t *root;
  const ty_jval_t *vars;   /* an object, or NULL */
  err_t *e;                /* the first structural error (strict), NULL when silent */
  err_t *hard;             /* errors silence never hides (an unknown variable) */
  bool hard_failed;        /* one was set (also inside a filter) */
  bool failed;             /* a structural error was met */
} jp_run_t;

static void jp_push(jp_run_t *r, jp_seq_t *s, ty_jval_t *v)
{
  if (s->js_n == s->js_cap) {
    int cap = s->js_cap ? s->js_cap * 2 : 8;
    ty_jval_t **n = arena_alloc(r->a, sizeof(*n) * (size_t)cap);
    if (s->js_n)
      memcpy(n, s->js_v, sizeof(*n) * (size_t)s->js_n);
    s->js_v = n;
    s->js_cap = cap;
  }
  s->js_v[s->js_n++] = v;
}

/* A structural error: raised in strict mode (once), else nothing. */
static void jp_fail(jp_run_t *r, const char *state, const char *msg, const str_t *key)
{
  if (!r->strict)
    return;
  if (!r->failed && r->e) {
    if (key)
      err_set(r->e, state, "JSON object does not contain key \"%.*s\"", (int)key->s_len, key->s_ptr);
    else
      err_set(r->e, state, "%s", msg);
  }
  r->failed = true;
}

static int jp_eval(jp_run_t *r, const jp_node_t *n, ty_jval_t *cur, jp_seq_t *out);
static jp_bool_t jp_pred(jp_run_t *r, const jp_node_t *n, ty_jval_t *cur);

/* A subscript bound's value (a JP_LIT bound keeps its integer in
 * jn_last_minus). */
static int64_t jp_index(const jp_node_t *b, int size)
{
  return b->jn_kind == JP_LAST ? size - 1 - b->jn_last_minus : b->jn_last_minus;
}

static void jp_key(jp_run_t *r, const jp_node_t *acc, ty_jval_t *v, jp_seq_t *out, bool unwrap)
{
  if (v->jv_kind == TJ_ARRAY && unwrap && !r->strict) {
    for (int i = 0; i < v->jv_n; i++)
      jp_key(r, acc, v->jv_vals[i], out, false);
    return;
  }
  if (v->jv_kind != TJ_OBJECT) {
    jp_fail(r, "2203A", "jsonpath member accessor can only be applied to an object", NULL);
    return;
  }
  for (int i = 0; i < v->jv_n; i++) {
    if (acc->jn_kind == JP_ANYKEY) {
      jp_push(r, out, v->jv_vals[i]);
    } else if (v->jv_keys[i].s_len == acc->jn_name.s_len &&
               memcmp(v->jv_keys[i].s_ptr, acc->jn_name.s_ptr, acc->jn_name.s_len) == 0) {
      jp_push(r, out, v->jv_vals[i]);
      return;
    }
  }
  if (acc->jn_kind == JP_KEY)
    jp_fail(r, "2203A", NULL, &acc->jn_name);
}

static void jp_subscript(jp_run_t *r, const jp_node_t *acc, ty_jval_t *v, jp_seq_t *out)
{
  bool arr = v->jv_kind == TJ_ARRAY;
  if (!arr && r->strict) {
    jp_fail(r, "22039",
            acc->jn_kind == JP_ANYIDX ? "jsonpath wildcard array accessor can only be applied to an array"
                                      : "jsonpath array accessor can only be applied to an array",
            NULL);
    return;
  }
  int size = arr ? v->jv_n : 1;
  if (acc->jn_kind == JP_ANYIDX) {
    for (int i = 0; i < size; i++)
      jp_push(r, out, arr ? v->jv_vals[i] : v);
    return;
  }
  for (int k = 0; k < acc->jn_nidx; k++) {
    int64_t from = jp_index(acc->jn_from[k], size);
    int64_t to = acc->jn_to[k] ? jp_index(acc->jn_to[k], size) : from;
    if (from < 0 || to >= size || from > to) {
      jp_fail(r, "22033", "jsonpath array subscript is out of bounds", NULL);
      if (from < 0)
        from = 0;
      if (to >= size)
        to = size - 1;
    }
    for (int64_t i = from; i <= to; i++)
      jp_push(r, out, arr ? v->jv_vals[i] : v);
  }
}

/* A primary and its accessors, from cur (@). */
static int jp_eval(jp_run_t *r, const jp_node_t *n, ty_jval_t *cur, jp_seq_t *out)
{
  jp_seq_t s = {0};
  switch (n->jn_kind) {
  case JP_ROOT: jp_push(r, &s, r->root); break;
  case JP_CUR: jp_push(r, &s, cur); break;
  case JP_LIT: jp_push(r, &s, n->jn_lit); break;
  case JP_VAR: {
    const ty_jval_t *vs = r->vars;
    ty_jval_t *found = NULL;
    for (int i = 0; vs && vs->jv_kind == TJ_OBJECT && i < vs->jv_n && !found; i++)
      if (vs->jv_keys[i].s_len == n->jn_name.s_len &&
          memcmp(vs->jv_keys[i].s_ptr, n->jn_name.s_ptr, n->jn_name.s_len) == 0)
        found = vs->jv_vals[i];
    if (!found) {
      if (!r->hard_failed)
        err_set(r->hard, SQLSTATE_UNDEFINED_OBJECT, "could not find jsonpath variable \"%.*s\"",
                (int)n->jn_name.s_len, n->jn_name.s_ptr);
      r->hard_failed = true;
      return CZ_ERR;
    }
    jp_push(r, &s, found);
    break;
  }
  default: {
    /* a predicate used as a value: its boolean (unknown is null) */
    jp_bool_t b = jp_pred(r, n, cur);
    ty_jval_t *v = arena_zalloc(r->a, sizeof(*v));
    v->jv_kind = b == JB_UNKNOWN ? TJ_NULL : TJ_BOOL;
    v->jv_bool = b == JB_TRUE;
    jp_push(r, &s, v);
    break;
  }
  }
  for (int k = 0; k < n->jn_nacc; k++) {
    const jp_node_t *acc = n->jn_acc[k];
    jp_seq_t next = {0};
    for (int i = 0; i < s.js_n; i++) {
      ty_jval_t *v = s.js_v[i];
      switch (acc->jn_kind) {
      case JP_KEY:
      case JP_ANYKEY:
        jp_key(r, acc, v, &next, true);
        break;
      case JP_ANYIDX:
      case JP_IDX:
        jp_subscript(r, acc, v, &next);
        break;
      case JP_FILTER:
        if (v->jv_kind == TJ_ARRAY && !r->strict) {
          for (int j = 0; j < v->jv_n; j++)
            if (jp_pred(r, acc->jn_l, v->jv_vals[j]) == JB_TRUE)
              jp_push(r, &next, v->jv_vals[j]);
        } else if (jp_pred(r, acc->jn_l, v) == JB_TRUE) {
          jp_push(r, &next, v);
        }
        break;
      default:
        break;
      }
    }
    s = next;
  }
  for (int i = 0; i < s.js_n; i++)
    jp_push(r, out, s.js_v[i]);
  return CZ_OK;
}

static bool jp_scalar(const ty_jval_t *v)
{
  return v->jv_kind != TJ_ARRAY && v->jv_kind != TJ_OBJECT;
}

/* One pair's comparison: JB_UNKNOWN for values that do not compare. */
static jp_bool_t jp_compare(jp_cmp_t op, const ty_jval_t *a, const ty_jval_t *b)
{
  if (!jp_scalar(a) || !jp_scalar(b))
    return JB_UNKNOWN;
  int c;
  if (a->jv_kind == TJ_NULL || b->jv_kind == TJ_NULL) {
    if (a->jv_kind != b->jv_kind)
      return op == JC_NE ? JB_TRUE : JB_FALSE;
    c = 0;
  } else if (a->jv_kind != b->jv_kind) {
    return JB_UNKNOWN;
  } else if (a->jv_kind == TJ_NUMBER) {
    c = ty_json_number_cmp(&a->jv_str, &b->jv_str);
  } else if (a->jv_kind == TJ_BOOL) {
    c = (int)a->jv_bool - (int)b->jv_bool;
  } else {
    uint32_t n = CZ_MIN(a->jv_str.s_len, b->jv_str.s_len);
    c = n ? memcmp(a->jv_str.s_ptr, b->jv_str.s_ptr, n) : 0;
    if (!c)
      c = a->jv_str.s_len < b->jv_str.s_len ? -1 : a->jv_str.s_len > b->jv_str.s_len;
  }
  bool t = op == JC_EQ ? c == 0 : op == JC_NE ? c != 0 : op == JC_LT ? c < 0 : op == JC_LE ? c <= 0
         : op == JC_GT ? c > 0 : c >= 0;
  return t ? JB_TRUE : JB_FALSE;
}

/* An operand of a comparison: its items, arrays unwrapped in lax mode;
 * false when evaluating it met an error (the comparison is unknown). */
static bool jp_operand(jp_run_t *r, const jp_node_t *n, ty_jval_t *cur, jp_seq_t *out)
{
  jp_seq_t s = {0};
  bool was = r->failed;
  err_t *keep = r->e;
  r->e = NULL;  /* errors inside predicates are unknown, never raised */
  r->failed = false;
  int rc = jp_eval(r, n, cur, &s);
  bool bad = rc != CZ_OK || r->failed;
  r->e = keep;
  r->failed = was;
  if (bad)
    return false;
  for (int i = 0; i < s.js_n; i++) {
    if (s.js_v[i]->jv_kind == TJ_ARRAY && !r->strict)
      for (int j = 0; j < s.js_v[i]->jv_n; j++)
        jp_push(r, out, s.js_v[i]->jv_vals[j]);
    else
      jp_push(r, out, s.js_v[i]);
  }
  return true;
}

static jp_bool_t jp_pred(jp_run_t *r, const jp_node_t *n, ty_jval_t *cur)
{
  switch (n->jn_kind) {
  case JP_AND: {
    jp_bool_t a = jp_pred(r, n->jn_l, cur);
    if (a == JB_FALSE)
      return JB_FALSE;
    jp_bool_t b = jp_pred(r, n->jn_r, cur);
    return b == JB_FALSE ? JB_FALSE : a == JB_TRUE && b == JB_TRUE ? JB_TRUE : JB_UNKNOWN;
  }
  case JP_OR: {
    jp_bool_t a = jp_pred(r, n->jn_l, cur);
    if (a == JB_TRUE)
      return JB_TRUE;
    jp_bool_t b = jp_pred(r, n->jn_r, cur);
    return b == JB_TRUE ? JB_TRUE : a == JB_FALSE && b == JB_FALSE ? JB_FALSE : JB_UNKNOWN;
  }
  case JP_NOT: {
    jp_bool_t a = jp_pred(r, n->jn_l, cur);
    return a == JB_UNKNOWN ? JB_UNKNOWN : a == JB_TRUE ? JB_FALSE : JB_TRUE;
  }
  case JP_EXISTS: {
    jp_seq_t s = {0};
    if (!jp_operand(r, n->jn_l, cur, &s))
      return JB_UNKNOWN;
    return s.js_n > 0 ? JB_TRUE : JB_FALSE;
  }
  case JP_CMP: {
    jp_seq_t l = {0}, rr = {0};
    if (!jp_operand(r, n->jn_l, cur, &l) || !jp_operand(r, n->jn_r, cur, &rr))
      return JB_UNKNOWN;
    /* lax: the first true pair decides; strict: an unknown pair anywhere
     * makes the whole comparison unknown */
    bool unknown = false, found = false;
    for (int i = 0; i < l.js_n; i++)
      for (int j = 0; j < rr.js_n; j++) {
        jp_bool_t b = jp_compare(n->jn_cmp, l.js_v[i], rr.js_v[j]);
        if (b == JB_TRUE && !r->strict)
          return JB_TRUE;
        found |= b == JB_TRUE;
        unknown |= b == JB_UNKNOWN;
      }
    return unknown ? JB_UNKNOWN : found ? JB_TRUE : JB_FALSE;
  }
  default: {
    /* a path alone where a predicate is wanted: PostgreSQL's grammar
     * refuses it; here its items must be one boolean */
    jp_seq_t s = {0};
    if (!jp_operand(r, n, cur, &s) || s.js_n != 1 || s.js_v[0]->jv_kind != TJ_BOOL)
      return JB_UNKNOWN;
    return s.js_v[0]->jv_bool ? JB_TRUE : JB_FALSE;
  }
  }
}

/* ---- the SQL functions --------------------------------------------------- */

typedef enum jp_mode_e { JPM_EXISTS, JPM_MATCH, JPM_ARRAY, JPM_FIRST } jp_mode_t;

static int jp_run(xctx_t *c, const xnode_t *x, const datum_t *a, jp_mode_t mode, datum_t *out,
                  err_t *e)
{
  arena_t *ar = c->xc_arena;
  bool silent = x->x_nargs >= 4 && !a[3].d_null && a[3].d_bool;
  ty_jval_t *doc, *vars = NULL;
  if (ty_json_parse(a[0].d_str.s_ptr, a[0].d_str.s_len, true, ar, &doc, e) != CZ_OK)
    return CZ_ERR;
  if (x->x_nargs >= 3 && !a[2].d_null) {
    if (ty_json_parse(a[2].d_str.s_ptr, a[2].d_str.s_len, true, ar, &vars, e) != CZ_OK)
      return CZ_ERR;
    if (vars->jv_kind != TJ_OBJECT)
      return err_set(e, SQLSTATE_INVALID_PARAMETER,
                     "\"vars\" argument is not an object");
  }
  jp_parse_t ps = {a[1].d_str.s_ptr, a[1].d_str.s_ptr + a[1].d_str.s_len, ar, e, 0};
  jp_run_t r = {.a = ar, .root = doc, .vars = vars, .e = silent ? NULL : e, .hard = e};
  if (jp_eat(&ps, "strict"))
    r.strict = true;
  else
    (void)jp_eat(&ps, "lax");
  jp_node_t *n;
  if (jp_expr(&ps, &n) != CZ_OK)
    return CZ_ERR;
  jp_ws(&ps);
  if (ps.p < ps.end)
    return jp_syntax(&ps);
  jp_seq_t s = {0};
  if (jp_eval(&r, n, doc, &s) != CZ_OK || r.hard_failed)
    return CZ_ERR;  /* an unknown variable: raised even when silent */
  if (r.failed) {   /* a structural error of strict mode */
    if (!silent)
      return CZ_ERR;
    if (mode != JPM_ARRAY) {  /* silent: no result */
      out->d_null = true;
      return CZ_OK;
    }
    s.js_n = 0;
  }
  switch (mode) {
  case JPM_EXISTS:
    out->d_null = false;
    out->d_bool = s.js_n > 0;
    return CZ_OK;
  case JPM_MATCH:
    if (s.js_n != 1 || (s.js_v[0]->jv_kind != TJ_BOOL && s.js_v[0]->jv_kind != TJ_NULL)) {
      if (silent) {
        out->d_null = true;
        return CZ_OK;
      }
      return err_set(e, "22038", "single boolean result is expected");
    }
    out->d_null = s.js_v[0]->jv_kind == TJ_NULL;
    out->d_bool = s.js_v[0]->jv_bool;
    return CZ_OK;
  case JPM_FIRST:
  case JPM_ARRAY: {
    if (mode == JPM_FIRST && s.js_n == 0) {
      out->d_null = true;
      return CZ_OK;
    }
    ty_jbuf_t b;
    ty_jbuf_init(&b, ar);
    if (mode == JPM_ARRAY)
      ty_jbuf_addc(&b, '[');
    for (int i = 0; i < (mode == JPM_FIRST ? 1 : s.js_n); i++) {
      if (i)
        ty_jbuf_add(&b, ", ", 2);
      ty_jsonb_print(&b, s.js_v[i]);
    }
    if (mode == JPM_ARRAY)
      ty_jbuf_addc(&b, ']');
    if (b.jb_failed) {
      *e = b.jb_err;
      return CZ_ERR;
    }
    return ty_parse_text(ty_plain(TY_JSONB), b.jb_ptr ? b.jb_ptr : "", b.jb_len, ar, out, e);
  }
  }
  return CZ_OK;
}

static int xf_path_exists(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return jp_run(c, x, a, JPM_EXISTS, out, e);
}

static int xf_path_match(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return jp_run(c, x, a, JPM_MATCH, out, e);
}

static int xf_path_array(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return jp_run(c, x, a, JPM_ARRAY, out, e);
}

static int xf_path_first(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return jp_run(c, x, a, JPM_FIRST, out, e);
}

/* @? and @@: silent (PostgreSQL's jsonb_path_exists_opr / _match_opr) */
static int xf_path_exists_op(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  datum_t b[4] = {a[0], a[1], {.d_null = true}, {.d_bool = true}};
  xnode_t y = *x;
  y.x_nargs = 4;
  return jp_run(c, &y, b, JPM_EXISTS, out, e);
}

static int xf_path_match_op(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  datum_t b[4] = {a[0], a[1], {.d_null = true}, {.d_bool = true}};
  xnode_t y = *x;
  y.x_nargs = 4;
  return jp_run(c, &y, b, JPM_MATCH, out, e);
}

#define JB TY_JSONB
#define T TY_TEXT
#define B TY_BOOL
#define S XF_STRICT

const xfunc_def_t xfunc_jsonpath_defs[] = {
  {.fd_name = "jsonb_path_exists", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_exists},
  {.fd_name = "jsonb_path_exists", .fd_nargs = 3, .fd_args = {JB, T, JB}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_exists},
  {.fd_name = "jsonb_path_exists", .fd_nargs = 4, .fd_args = {JB, T, JB, B}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_exists},
  {.fd_name = "jsonb_path_match", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_match},
  {.fd_name = "jsonb_path_match", .fd_nargs = 3, .fd_args = {JB, T, JB}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_match},
  {.fd_name = "jsonb_path_match", .fd_nargs = 4, .fd_args = {JB, T, JB, B}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_match},
  {.fd_name = "jsonb_path_query_array", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S, .fd_row = xf_path_array},
  {.fd_name = "jsonb_path_query_array", .fd_nargs = 3, .fd_args = {JB, T, JB}, .fd_result = JB, .fd_flags = S, .fd_row = xf_path_array},
  {.fd_name = "jsonb_path_query_array", .fd_nargs = 4, .fd_args = {JB, T, JB, B}, .fd_result = JB, .fd_flags = S, .fd_row = xf_path_array},
  {.fd_name = "jsonb_path_query_first", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = JB, .fd_flags = S, .fd_row = xf_path_first},
  {.fd_name = "jsonb_path_query_first", .fd_nargs = 3, .fd_args = {JB, T, JB}, .fd_result = JB, .fd_flags = S, .fd_row = xf_path_first},
  {.fd_name = "jsonb_path_query_first", .fd_nargs = 4, .fd_args = {JB, T, JB, B}, .fd_result = JB, .fd_flags = S, .fd_row = xf_path_first},
  {.fd_name = "_cz_jsonb_path_exists_op", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_exists_op},
  {.fd_name = "_cz_jsonb_path_match_op", .fd_nargs = 2, .fd_args = {JB, T}, .fd_result = B, .fd_flags = S, .fd_row = xf_path_match_op},
};
const int xfunc_jsonpath_ndefs = (int)CZ_ARRAY_LEN(xfunc_jsonpath_defs);

/* ex_agg — aggregate names and their result types (PostgreSQL's):
 * count -> bigint; sum(smallint|integer) -> bigint, sum(bigint|numeric) ->
 * numeric, sum(real) -> real, sum(double) -> double; avg of integers and
 * numeric -> numeric, of floats -> double; sum/avg(interval) -> interval; min/max -> the argument's type
 * (varchar as text); bool_and/bool_or/every -> boolean; string_agg(text,
 * text) -> text. The group-by operator computes them; arg_to is the type
 * it receives each argument in.
 */
#include <stdio.h>
#include <string.h>

#include "exec/ex_int.h"

typedef struct xagg_name_s {
  const char *an_name;
  xagg_t an_agg;
} xagg_name_t;

static const xagg_name_t xagg_names[] = {
  {"count", XAGG_COUNT},       {"sum", XAGG_SUM},           {"avg", XAGG_AVG},
  {"min", XAGG_MIN},           {"max", XAGG_MAX},           {"bool_and", XAGG_BOOL_AND},
  {"every", XAGG_BOOL_AND},    {"bool_or", XAGG_BOOL_OR},   {"string_agg", XAGG_STRING_AGG},
};

bool xagg_is_aggregate(const char *name)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(xagg_names); i++)
    if (strcmp(xagg_names[i].an_name, name) == 0)
      return true;
  return false;
}

static int xagg_no_such(const char *name, const ty_t *args, int n, err_t *e)
{
  char buf[256];
  size_t o = 0;
  arena_t *a = arena_create(NULL, "xagg");
  buf[0] = '\0';
  for (int i = 0; i < n && o < sizeof(buf) - 70; i++)
    o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? ", " : "",
                          args[i].t_id == TY_UNKNOWN ? "unknown" : ty_name(a, args[i]));
  arena_destroy(a);
  return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "function %s(%s) does not exist", name, buf);
}

int xagg_resolve(const char *name, bool star, const ty_t *args, int n, xagg_t *agg, ty_t *arg_to,
                 ty_t *result, err_t *e)
{
  const xagg_name_t *an = NULL;
  for (size_t i = 0; i < CZ_ARRAY_LEN(xagg_names); i++)
    if (strcmp(xagg_names[i].an_name, name) == 0)
      an = &xagg_names[i];
  if (!an)
    return xagg_no_such(name, args, n, e);
  if (star) {
    if (an->an_agg != XAGG_COUNT || n != 0)
      return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "%s(*) must be used to call a parameterless aggregate function",
                     name);
    *agg = XAGG_COUNT_STAR;
    *result = ty_plain(TY_INT8);
    return CZ_OK;
  }
  int want = an->an_agg == XAGG_STRING_AGG ? 2 : 1;
  if (n != want)
    return xagg_no_such(name, args, n, e);
  ty_t t = args[0];
  ty_id_t id = t.t_id;
  *agg = an->an_agg;
  switch (an->an_agg) {
  case XAGG_COUNT:
    arg_to[0] = id == TY_UNKNOWN ? ty_plain(TY_TEXT) : t;
    *result = ty_plain(TY_INT8);
    return CZ_OK;
  case XAGG_SUM:
  case XAGG_AVG:
    if (id == TY_UNKNOWN)
      return err_set(e, SQLSTATE_AMBIGUOUS_FUNCTION, "function %s(unknown) is not unique", name);
    if (id == TY_INTERVAL) { /* sum and avg of intervals are intervals */
      arg_to[0] = *result = ty_plain(TY_INTERVAL);
      return CZ_OK;
    }
    if (!xt_is_number(id))
      return xagg_no_such(name, args, n, e);
    arg_to[0] = ty_plain(id);
    if (an->an_agg == XAGG_SUM)
      *result = ty_plain(id == TY_INT2 || id == TY_INT4 ? TY_INT8
                         : id == TY_INT8 || id == TY_NUMERIC ? TY_NUMERIC : id);
    else
      *result = ty_plain(id == TY_FLOAT4 || id == TY_FLOAT8 ? TY_FLOAT8 : TY_NUMERIC);
    return CZ_OK;
  case XAGG_MIN:
  case XAGG_MAX:
    if (id == TY_BOOL)
      return xagg_no_such(name, args, n, e);
    if (id == TY_UNKNOWN || id == TY_VARCHAR)
      t = ty_plain(TY_TEXT);
    arg_to[0] = t;
    *result = t;
    return CZ_OK;
  case XAGG_BOOL_AND:
  case XAGG_BOOL_OR:
    if (id != TY_BOOL && id != TY_UNKNOWN)
      return xagg_no_such(name, args, n, e);
    arg_to[0] = ty_plain(TY_BOOL);
    *result = ty_plain(TY_BOOL);
    return CZ_OK;
  case XAGG_STRING_AGG:
    for (int i = 0; i < 2; i++) {
      if (!xt_is_string(args[i].t_id) && args[i].t_id != TY_UNKNOWN)
        return xagg_no_such(name, args, n, e);
      arg_to[i] = ty_plain(TY_TEXT);
    }
    *result = ty_plain(TY_TEXT);
    return CZ_OK;
  case XAGG_COUNT_STAR:
    break;
  }
  return xagg_no_such(name, args, n, e);
}

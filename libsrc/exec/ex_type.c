/* ex_type — the type rules the binder asks: operator resolution, the
 * common type of CASE/COALESCE/IN/UNION inputs, which casts are allowed.
 *
 * Design notes: PostgreSQL's rules, reduced to the built-in types. Numbers
 * form one category ordered int2 < int4 < int8 < numeric < float4 <
 * float8 (each implicitly castable to the later ones); an operator over
 * two numbers works in the later of the two, except that mixing float4
 * with anything but float4 gives float8 (PostgreSQL has only float48
 * operators). Strings (char, varchar, text) form a second category whose
 * preferred type is text; CHAR is compared as text, which drops its
 * trailing blanks as PostgreSQL's bpchar comparison ignores them. DATE
 * converts implicitly to TIMESTAMP. Untyped literals and parameters take
 * the other operand's type.
 */
#include <stdio.h>
#include <string.h>

#include "exec/ex_int.h"

bool xt_is_int(ty_id_t id)
{
  return id == TY_INT2 || id == TY_INT4 || id == TY_INT8;
}

int xt_num_rank(ty_id_t id)
{
  switch (id) {
  case TY_INT2: return 0;
  case TY_INT4: return 1;
  case TY_INT8: return 2;
  case TY_NUMERIC: return 3;
  case TY_FLOAT4: return 4;
  case TY_FLOAT8: return 5;
  default: return -1;
  }
}

bool xt_is_number(ty_id_t id)
{
  return xt_num_rank(id) >= 0;
}

bool xt_is_string(ty_id_t id)
{
  return id == TY_CHAR || id == TY_VARCHAR || id == TY_TEXT;
}

bool xt_is_zoned(ty_id_t id)
{
  return id == TY_TIMESTAMPTZ || id == TY_TIME || id == TY_TIMETZ;
}

/* The date/time category in PostgreSQL's implicit-cast order: date <
 * timestamp < timestamptz (the preferred type); time < timetz. -1 for the
 * rest. */
static int xt_dt_rank(ty_id_t id)
{
  switch (id) {
  case TY_DATE: return 0;
  case TY_TIMESTAMP: return 1;
  case TY_TIMESTAMPTZ: return 2;
  case TY_TIME: return 10;
  case TY_TIMETZ: return 11;
  default: return -1;
  }
}

/* Whether both are in one date/time chain (date..timestamptz or
 * time..timetz); *hi the later of the two. */
static bool xt_dt_pair(ty_id_t a, ty_id_t b, ty_id_t *hi)
{
  int ra = xt_dt_rank(a), rb = xt_dt_rank(b);
  if (ra < 0 || rb < 0 || (ra >= 10) != (rb >= 10))
    return false;
  *hi = ra >= rb ? a : b;
  return true;
}

ty_t xt_merge_mods(ty_t t, ty_t u)
{
  if (t.t_id == u.t_id && t.t_len == u.t_len && t.t_prec == u.t_prec && t.t_scale == u.t_scale &&
      t.t_elem == u.t_elem)
    return t;
  ty_t r = ty_plain(t.t_id);
  /* arrays of two element types: an array of their common type
   * (int[] and numeric[] give numeric[]); an array and a text: text */
  if (t.t_elem != TY_UNKNOWN && u.t_elem != TY_UNKNOWN) {
    ty_t pair[2] = {ty_plain(t.t_elem), ty_plain(u.t_elem)}, c;
    if (xtype_common(pair, 2, &c, NULL) == CZ_OK)
      r.t_elem = c.t_id;
  }
  return r;
}

static const char *xt_name(ty_t t, char *buf, size_t cap)
{
  arena_t *a = arena_create(NULL, "xt_name");
  snprintf(buf, cap, "%s", ty_name(a, t));
  arena_destroy(a);
  return buf;
}

bool xcast_implicit(ty_t from, ty_t to)
{
  if (from.t_id == to.t_id || from.t_id == TY_UNKNOWN)
    return true;
  int rf = xt_num_rank(from.t_id), rt = xt_num_rank(to.t_id);
  if (rf >= 0 && rt >= 0)
    return rf < rt;
  if (xt_is_string(from.t_id) && xt_is_string(to.t_id))
    return true;
  ty_id_t hi;
  return xt_dt_pair(from.t_id, to.t_id, &hi) && hi == to.t_id;
}

bool xcast_allowed(ty_t from, ty_t to, bool explicit_cast)
{
  if (xcast_implicit(from, to))
    return true;
  /* Assignment: numbers narrow, timestamps to dates, anything to a
   * string type (through its text form). */
  if (xt_is_number(from.t_id) && xt_is_number(to.t_id))
    return true;
  /* and down the date/time chains: timestamptz to timestamp, date or
   * time, timestamp to date or time, timetz to time */
  ty_id_t f = from.t_id, t = to.t_id;
  if ((f == TY_TIMESTAMP || f == TY_TIMESTAMPTZ) && (t == TY_DATE || t == TY_TIMESTAMP || t == TY_TIME))
    return true;
  if ((f == TY_TIMESTAMPTZ || f == TY_TIMETZ) && (t == TY_TIME || t == TY_TIMETZ))
    return true;
  if (xt_is_string(to.t_id))
    return true;
  /* json and jsonb both ways (assignment casts in PostgreSQL) */
  if ((f == TY_JSON && t == TY_JSONB) || (f == TY_JSONB && t == TY_JSON))
    return true;
  if (!explicit_cast)
    return false;
  /* Explicit: strings to anything (through the input function), integers
   * and booleans both ways. */
  if (xt_is_string(from.t_id))
    return true;
  if ((from.t_id == TY_BOOL && to.t_id == TY_INT4) || (from.t_id == TY_INT4 && to.t_id == TY_BOOL))
    return true;
  /* jsonb to its scalars (jsonb_numeric, jsonb_int4, jsonb_bool …) */
  if (from.t_id == TY_JSONB && (xt_is_number(to.t_id) || to.t_id == TY_BOOL))
    return true;
  /* time and interval both ways (interval_time, time_interval) */
  if ((from.t_id == TY_INTERVAL && to.t_id == TY_TIME) || (from.t_id == TY_TIME && to.t_id == TY_INTERVAL))
    return true;
  return false;
}

/* ---- common type ---------------------------------------------------------- */

int xtype_common(const ty_t *types, int n, ty_t *out, err_t *e)
{
  int first = -1;
  for (int i = 0; i < n; i++)
    if (types[i].t_id != TY_UNKNOWN) {
      first = i;
      break;
    }
  if (first < 0) {
    *out = ty_plain(n > 0 ? TY_TEXT : TY_UNKNOWN);
    return CZ_OK;
  }
  ty_t r = types[first];
  ty_id_t hi;
  for (int i = first + 1; i < n; i++) {
    ty_t t = types[i];
    if (t.t_id == TY_UNKNOWN)
      continue;
    if (t.t_id == r.t_id) {
      r = xt_merge_mods(r, t);
      continue;
    }
    int rr = xt_num_rank(r.t_id), rt = xt_num_rank(t.t_id);
    if (rr >= 0 && rt >= 0) {
      r = ty_plain(rt > rr ? t.t_id : r.t_id);
    } else if (xt_is_string(r.t_id) && xt_is_string(t.t_id)) {
      r = ty_plain(TY_TEXT);
    } else if (xt_dt_pair(r.t_id, t.t_id, &hi)) {
      r = ty_plain(hi);
    } else {
      char b1[64], b2[64];
      return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "types %s and %s cannot be matched",
                     xt_name(r, b1, sizeof(b1)), xt_name(t, b2, sizeof(b2)));
    }
  }
  /* PostgreSQL keeps the modifiers only when every input has the result's
   * type with the same modifiers (an untyped literal has none). */
  for (int i = 0; i < n; i++)
    if (types[i].t_id != r.t_id) {
      ty_id_t elem = r.t_elem; /* an array stays one beside a NULL */
      r = ty_plain(r.t_id);
      r.t_elem = elem;
      break;
    }
  *out = r;
  return CZ_OK;
}

/* ---- operators ------------------------------------------------------------- */

static int xop_no_such(xop_t op, ty_t l, const ty_t *r, err_t *e)
{
  static const char *const names[] = {
    [XOP_AND] = "AND", [XOP_OR] = "OR", [XOP_NOT] = "NOT", [XOP_EQ] = "=", [XOP_NE] = "<>",
    [XOP_LT] = "<", [XOP_LE] = "<=", [XOP_GT] = ">", [XOP_GE] = ">=",
    [XOP_IS_DISTINCT] = "IS DISTINCT FROM", [XOP_IS_NOT_DISTINCT] = "IS NOT DISTINCT FROM",
    [XOP_ADD] = "+", [XOP_SUB] = "-", [XOP_MUL] = "*", [XOP_DIV] = "/", [XOP_MOD] = "%",
    [XOP_NEG] = "-", [XOP_CONCAT] = "||", [XOP_LIKE] = "~~", [XOP_NOT_LIKE] = "!~~",
    [XOP_ILIKE] = "~~*", [XOP_NOT_ILIKE] = "!~~*", [XOP_IS_NULL] = "IS NULL",
    [XOP_IS_NOT_NULL] = "IS NOT NULL", [XOP_IS_TRUE] = "IS TRUE", [XOP_IS_NOT_TRUE] = "IS NOT TRUE",
    [XOP_IS_FALSE] = "IS FALSE", [XOP_IS_NOT_FALSE] = "IS NOT FALSE",
  };
  char b1[64], b2[64];
  if (!r)
    return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "operator does not exist: %s %s", names[op],
                   xt_name(l, b1, sizeof(b1)));
  return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "operator does not exist: %s %s %s",
                 xt_name(l, b1, sizeof(b1)), names[op], xt_name(*r, b2, sizeof(b2)));
}

/* Arithmetic result type of two numbers. */
static ty_id_t xop_num_result(ty_id_t l, ty_id_t r)
{
  if (l == TY_FLOAT4 && r == TY_FLOAT4)
    return TY_FLOAT4;
  if (l == TY_FLOAT4 || r == TY_FLOAT4 || l == TY_FLOAT8 || r == TY_FLOAT8)
    return TY_FLOAT8;
  return xt_num_rank(l) >= xt_num_rank(r) ? l : r;
}

/* The type both operands of a comparison are cast to; false when they
 * cannot be compared. */
static bool xop_compare_type(ty_t l, ty_t r, ty_t *to)
{
  if (xt_is_number(l.t_id) && xt_is_number(r.t_id)) {
    /* Modifiers do not matter for comparing: none are kept. */
    *to = ty_plain(xop_num_result(l.t_id, r.t_id));
    return true;
  }
  if (xt_is_string(l.t_id) && xt_is_string(r.t_id)) {
    *to = ty_plain(TY_TEXT);
    return true;
  }
  ty_id_t hi;
  if (xt_dt_pair(l.t_id, r.t_id, &hi)) {
    *to = ty_plain(hi);
    return true;
  }
  if (l.t_id == r.t_id && (l.t_id == TY_BOOL || l.t_id == TY_BYTEA || l.t_id == TY_INTERVAL ||
                           l.t_id == TY_JSONB)) {
    *to = ty_plain(l.t_id);
    return true;
  }
  return false;
}

static int xop_logic(xop_t op, ty_t l, const ty_t *r, ty_t *l_to, ty_t *r_to, ty_t *result,
                     err_t *e)
{
  const char *name = op == XOP_AND ? "AND" : op == XOP_OR ? "OR" : "NOT";
  char b[64];
  if (l.t_id != TY_BOOL && l.t_id != TY_UNKNOWN)
    return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "argument of %s must be type boolean, not type %s",
                   name, xt_name(l, b, sizeof(b)));
  if (r && r->t_id != TY_BOOL && r->t_id != TY_UNKNOWN)
    return err_set(e, SQLSTATE_DATATYPE_MISMATCH, "argument of %s must be type boolean, not type %s",
                   name, xt_name(*r, b, sizeof(b)));
  *l_to = ty_plain(TY_BOOL);
  if (r_to)
    *r_to = ty_plain(TY_BOOL);
  *result = ty_plain(TY_BOOL);
  return CZ_OK;
}

static bool xt_is_datetime(ty_id_t id)
{
  return id == TY_DATE || id == TY_TIMESTAMP || id == TY_TIMESTAMPTZ;
}

static void xop_set(ty_id_t l, ty_id_t r, ty_id_t res, ty_t *l_to, ty_t *r_to, ty_t *result)
{
  *l_to = ty_plain(l);
  *r_to = ty_plain(r);
  *result = ty_plain(res);
}

/* PostgreSQL's interval operators: date/timestamp ± interval and
 * interval + date/timestamp (a timestamp; a date is its midnight),
 * timestamp - timestamp (an interval; date - date stays an integer),
 * interval ± interval, interval * / number, number * interval. An untyped
 * operand takes the type that operator wants: `ts + '1 day'` is an
 * interval, `ts - '…'` a timestamp (PostgreSQL prefers the same type),
 * `iv * '2'` a float8. True when one of these applies. */
static bool xop_interval(xop_t op, ty_id_t a, ty_id_t b, ty_t *l_to, ty_t *r_to, ty_t *result)
{
  const ty_id_t IV = TY_INTERVAL, U = TY_UNKNOWN;
  bool add = op == XOP_ADD, sub = op == XOP_SUB;
  /* a timestamptz operand makes the operator timestamptz's */
  ty_id_t TS = a == TY_TIMESTAMPTZ || b == TY_TIMESTAMPTZ ? TY_TIMESTAMPTZ : TY_TIMESTAMP;
  if (xt_is_datetime(a) && (b == IV || (a == TS && b == U && add)) && (add || sub)) {
    xop_set(TS, IV, TS, l_to, r_to, result);
    return true;
  }
  if ((a == IV || (a == U && b == TS)) && xt_is_datetime(b) && add) {
    xop_set(IV, TS, TS, l_to, r_to, result);
    return true;
  }
  if (sub && ((a == TS && (xt_is_datetime(b) || b == U)) || (b == TS && (xt_is_datetime(a) || a == U)))) {
    xop_set(TS, TS, IV, l_to, r_to, result);
    return true;
  }
  /* time and timetz: ± interval (the day wraps), time - time */
  if ((a == TY_TIME || a == TY_TIMETZ) && (b == IV || (b == U && add)) && (add || sub)) {
    xop_set(a, IV, a, l_to, r_to, result);
    return true;
  }
  if (add && (a == IV || a == U) && (b == TY_TIME || b == TY_TIMETZ)) {
    xop_set(IV, b, b, l_to, r_to, result);
    return true;
  }
  if (sub && ((a == TY_TIME && (b == TY_TIME || b == U)) || (a == U && b == TY_TIME))) {
    xop_set(TY_TIME, TY_TIME, IV, l_to, r_to, result);
    return true;
  }
  /* date + time is a timestamp, date + timetz a timestamptz */
  if (add && ((a == TY_DATE && (b == TY_TIME || b == TY_TIMETZ)) ||
              (b == TY_DATE && (a == TY_TIME || a == TY_TIMETZ)))) {
    xop_set(a, b, a == TY_TIMETZ || b == TY_TIMETZ ? TY_TIMESTAMPTZ : TY_TIMESTAMP, l_to, r_to,
            result);
    return true;
  }
  if ((add || sub) && ((a == IV && (b == IV || b == U)) || (a == U && b == IV))) {
    xop_set(IV, IV, IV, l_to, r_to, result);
    return true;
  }
  if ((op == XOP_MUL || op == XOP_DIV) && a == IV && (xt_is_number(b) || b == U)) {
    xop_set(IV, TY_FLOAT8, IV, l_to, r_to, result);
    return true;
  }
  if (op == XOP_MUL && b == IV && (xt_is_number(a) || a == U)) {
    xop_set(TY_FLOAT8, IV, IV, l_to, r_to, result);
    return true;
  }
  return false;
}

static int xop_arith(xop_t op, ty_t l, ty_t r, ty_t *l_to, ty_t *r_to, ty_t *result, err_t *e)
{
  ty_id_t a = l.t_id, b = r.t_id;
  if (xop_interval(op, a, b, l_to, r_to, result))
    return CZ_OK;
  /* Dates: date ± integer -> date, integer + date -> date, date - date ->
   * integer (days). */
  if ((a == TY_DATE && (xt_is_int(b) || b == TY_UNKNOWN) && (op == XOP_ADD || op == XOP_SUB)) ||
      (b == TY_DATE && xt_is_int(a) && op == XOP_ADD)) {
    *l_to = a == TY_DATE ? l : ty_plain(TY_INT4);
    *r_to = b == TY_DATE ? r : ty_plain(TY_INT4);
    *result = ty_plain(TY_DATE);
    return CZ_OK;
  }
  if (a == TY_DATE && b == TY_DATE && op == XOP_SUB) {
    *l_to = l;
    *r_to = r;
    *result = ty_plain(TY_INT4);
    return CZ_OK;
  }
  if (a == TY_UNKNOWN && b == TY_UNKNOWN)
    return err_set(e, SQLSTATE_AMBIGUOUS_FUNCTION, "operator is not unique: unknown %s unknown",
                   op == XOP_ADD ? "+" : op == XOP_SUB ? "-" : op == XOP_MUL ? "*" :
                   op == XOP_DIV ? "/" : "%");
  if (a == TY_UNKNOWN)
    a = b;
  if (b == TY_UNKNOWN)
    b = a;
  if (!xt_is_number(a) || !xt_is_number(b))
    return xop_no_such(op, l, &r, e);
  ty_id_t id = xop_num_result(a, b);
  if (op == XOP_MOD && (id == TY_FLOAT4 || id == TY_FLOAT8))
    return xop_no_such(op, l, &r, e);
  *l_to = ty_plain(id);
  *r_to = ty_plain(id);
  *result = ty_plain(id);
  return CZ_OK;
}

int xop_resolve(xop_t op, ty_t l, const ty_t *r, ty_t *l_to, ty_t *r_to, ty_t *result, err_t *e)
{
  switch (op) {
  case XOP_AND:
  case XOP_OR:
  case XOP_NOT:
    return xop_logic(op, l, op == XOP_NOT ? NULL : r, l_to, op == XOP_NOT ? NULL : r_to, result, e);
  case XOP_IS_NULL:
  case XOP_IS_NOT_NULL:
    *l_to = l.t_id == TY_UNKNOWN ? ty_plain(TY_TEXT) : l;
    *result = ty_plain(TY_BOOL);
    return CZ_OK;
  case XOP_IS_TRUE:
  case XOP_IS_NOT_TRUE:
  case XOP_IS_FALSE:
  case XOP_IS_NOT_FALSE:
    if (l.t_id != TY_BOOL && l.t_id != TY_UNKNOWN)
      return xop_no_such(op, l, NULL, e);
    *l_to = ty_plain(TY_BOOL);
    *result = ty_plain(TY_BOOL);
    return CZ_OK;
  case XOP_NEG:
    if (!xt_is_number(l.t_id) && l.t_id != TY_INTERVAL) {
      if (l.t_id == TY_UNKNOWN)
        return err_set(e, SQLSTATE_AMBIGUOUS_FUNCTION, "operator is not unique: - unknown");
      return xop_no_such(op, l, NULL, e);
    }
    *l_to = ty_plain(l.t_id);
    *result = ty_plain(l.t_id);
    return CZ_OK;
  default:
    break;
  }
  if (!r)
    return xop_no_such(op, l, NULL, e);
  ty_t rt = *r;
  switch (op) {
  case XOP_EQ:
  case XOP_NE:
  case XOP_LT:
  case XOP_LE:
  case XOP_GT:
  case XOP_GE:
  case XOP_IS_DISTINCT:
  case XOP_IS_NOT_DISTINCT: {
    ty_t to;
    if (l.t_id == TY_UNKNOWN && rt.t_id == TY_UNKNOWN) {
      to = ty_plain(TY_TEXT);
    } else if (l.t_id == TY_UNKNOWN || rt.t_id == TY_UNKNOWN) {
      ty_t known = l.t_id == TY_UNKNOWN ? rt : l;
      if (known.t_id == TY_JSON) /* json has no comparison operators */
        return xop_no_such(op, l, r, e);
      /* CHAR compares as text; other types as themselves, unmodified. */
      to = ty_plain(xt_is_string(known.t_id) ? TY_TEXT : known.t_id);
    } else if (!xop_compare_type(l, rt, &to)) {
      return xop_no_such(op, l, r, e);
    }
    *l_to = to;
    *r_to = to;
    *result = ty_plain(TY_BOOL);
    return CZ_OK;
  }
  case XOP_ADD:
  case XOP_SUB:
  case XOP_MUL:
  case XOP_DIV:
  case XOP_MOD:
    return xop_arith(op, l, rt, l_to, r_to, result, e);
  case XOP_CONCAT:
    if (l.t_id == TY_BYTEA && (rt.t_id == TY_BYTEA || rt.t_id == TY_UNKNOWN)) {
      *l_to = *r_to = *result = ty_plain(TY_BYTEA);
      return CZ_OK;
    }
    if (rt.t_id == TY_BYTEA && l.t_id == TY_UNKNOWN) {
      *l_to = *r_to = *result = ty_plain(TY_BYTEA);
      return CZ_OK;
    }
    /* text || anything (and anything || text): the other side goes
     * through its text form. Two non-strings have no operator. */
    if (!xt_is_string(l.t_id) && l.t_id != TY_UNKNOWN && !xt_is_string(rt.t_id) &&
        rt.t_id != TY_UNKNOWN)
      return xop_no_such(op, l, r, e);
    *l_to = *r_to = *result = ty_plain(TY_TEXT);
    return CZ_OK;
  case XOP_LIKE:
  case XOP_NOT_LIKE:
  case XOP_ILIKE:
  case XOP_NOT_ILIKE:
    if (l.t_id == TY_BYTEA && (rt.t_id == TY_BYTEA || rt.t_id == TY_UNKNOWN) &&
        (op == XOP_LIKE || op == XOP_NOT_LIKE)) {
      *l_to = *r_to = ty_plain(TY_BYTEA);
    } else if ((xt_is_string(l.t_id) || l.t_id == TY_UNKNOWN) &&
               (xt_is_string(rt.t_id) || rt.t_id == TY_UNKNOWN)) {
      /* PostgreSQL's LIKE on bpchar matches the padded value ('a'::char(3)
       * LIKE 'a' is false): a CHAR subject keeps its blanks; a CHAR
       * pattern is cast to text as elsewhere. */
      *l_to = l.t_id == TY_CHAR ? l : ty_plain(TY_TEXT);
      *r_to = ty_plain(TY_TEXT);
    } else {
      return xop_no_such(op, l, r, e);
    }
    *result = ty_plain(TY_BOOL);
    return CZ_OK;
  default:
    break;
  }
  return xop_no_such(op, l, r, e);
}

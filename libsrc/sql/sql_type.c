/* sql_type — type names as written (INTEGER, DOUBLE PRECISION,
 * VARCHAR(10), …) resolved to the engine's built-in types, and printed.
 *
 * Design notes: the grammar treats a type name as an ordinary identifier
 * plus an optional second word (PRECISION, VARYING, WITH[OUT] TIME ZONE)
 * and up to two modifiers, so type names need no keywords and stay usable
 * as column names (`date`, `text`). The set of types is fixed, so they are
 * resolved here rather than in the binder; user-defined types would move
 * this lookup to the catalog. Modifier limits follow PostgreSQL.
 */
#include <string.h>

#include "sql/sql_int.h"

#define SQL_VARCHAR_MAX 10485760 /* PostgreSQL's limit for char(n)/varchar(n) */
#define SQL_NUMERIC_MAX_PREC 1000

typedef struct sql_tyname_s {
  const char *tn_name;
  int tn_variant;     /* SQL_TYPE_PLAIN, _PRECISION, … */
  sql_type_id_t tn_id;
  int tn_max_mods;    /* modifiers accepted */
} sql_tyname_t;

static const sql_tyname_t sql_tynames[] = {
  {"int", SQL_TYPE_PLAIN, SQL_TYPE_INT4, 0},
  {"integer", SQL_TYPE_PLAIN, SQL_TYPE_INT4, 0},
  {"int4", SQL_TYPE_PLAIN, SQL_TYPE_INT4, 0},
  {"bigint", SQL_TYPE_PLAIN, SQL_TYPE_INT8, 0},
  {"int8", SQL_TYPE_PLAIN, SQL_TYPE_INT8, 0},
  {"smallint", SQL_TYPE_PLAIN, SQL_TYPE_INT2, 0},
  {"int2", SQL_TYPE_PLAIN, SQL_TYPE_INT2, 0},
  {"real", SQL_TYPE_PLAIN, SQL_TYPE_FLOAT4, 0},
  {"float4", SQL_TYPE_PLAIN, SQL_TYPE_FLOAT4, 0},
  {"float8", SQL_TYPE_PLAIN, SQL_TYPE_FLOAT8, 0},
  {"double", SQL_TYPE_PRECISION, SQL_TYPE_FLOAT8, 0},
  {"float", SQL_TYPE_PLAIN, SQL_TYPE_FLOAT8, 1}, /* float(p): p <= 24 is float4 */
  {"numeric", SQL_TYPE_PLAIN, SQL_TYPE_NUMERIC, 2},
  {"decimal", SQL_TYPE_PLAIN, SQL_TYPE_NUMERIC, 2},
  {"dec", SQL_TYPE_PLAIN, SQL_TYPE_NUMERIC, 2},
  {"varchar", SQL_TYPE_PLAIN, SQL_TYPE_VARCHAR, 1},
  {"character", SQL_TYPE_VARYING, SQL_TYPE_VARCHAR, 1},
  {"char", SQL_TYPE_VARYING, SQL_TYPE_VARCHAR, 1},
  {"character", SQL_TYPE_PLAIN, SQL_TYPE_CHAR, 1},
  {"char", SQL_TYPE_PLAIN, SQL_TYPE_CHAR, 1},
  {"bpchar", SQL_TYPE_PLAIN, SQL_TYPE_CHAR, 1},
  {"text", SQL_TYPE_PLAIN, SQL_TYPE_TEXT, 0},
  {"boolean", SQL_TYPE_PLAIN, SQL_TYPE_BOOL, 0},
  {"bool", SQL_TYPE_PLAIN, SQL_TYPE_BOOL, 0},
  {"date", SQL_TYPE_PLAIN, SQL_TYPE_DATE, 0},
  {"timestamp", SQL_TYPE_PLAIN, SQL_TYPE_TIMESTAMP, 1},
  {"timestamp", SQL_TYPE_NO_TZ, SQL_TYPE_TIMESTAMP, 1},
  {"timestamp", SQL_TYPE_TZ, SQL_TYPE_TIMESTAMPTZ, 1},
  {"timestamptz", SQL_TYPE_PLAIN, SQL_TYPE_TIMESTAMPTZ, 1},
  {"time", SQL_TYPE_PLAIN, SQL_TYPE_TIME, 1},
  {"time", SQL_TYPE_NO_TZ, SQL_TYPE_TIME, 1},
  {"time", SQL_TYPE_TZ, SQL_TYPE_TIMETZ, 1},
  {"timetz", SQL_TYPE_PLAIN, SQL_TYPE_TIMETZ, 1},
  {"bytea", SQL_TYPE_PLAIN, SQL_TYPE_BYTEA, 0},
  {"json", SQL_TYPE_PLAIN, SQL_TYPE_JSON, 0},
  {"jsonb", SQL_TYPE_PLAIN, SQL_TYPE_JSONB, 0},
  /* the serial types: an integer column with an owned sequence (sql_type_t
   * ty_serial; only CREATE TABLE takes them) */
  {"smallserial", SQL_TYPE_PLAIN, SQL_TYPE_INT2, 0},
  {"serial2", SQL_TYPE_PLAIN, SQL_TYPE_INT2, 0},
  {"serial", SQL_TYPE_PLAIN, SQL_TYPE_INT4, 0},
  {"serial4", SQL_TYPE_PLAIN, SQL_TYPE_INT4, 0},
  {"bigserial", SQL_TYPE_PLAIN, SQL_TYPE_INT8, 0},
  {"serial8", SQL_TYPE_PLAIN, SQL_TYPE_INT8, 0},
  /* the catalog types clients cast to ("char" is matched only when quoted) */
  {"oid", SQL_TYPE_PLAIN, SQL_TYPE_OID, 0},
  {"name", SQL_TYPE_PLAIN, SQL_TYPE_NAME, 0},
  {"regclass", SQL_TYPE_PLAIN, SQL_TYPE_REGCLASS, 0},
  {"regtype", SQL_TYPE_PLAIN, SQL_TYPE_REGTYPE, 0},
  {"regnamespace", SQL_TYPE_PLAIN, SQL_TYPE_REGNAMESPACE, 0},
  {"regproc", SQL_TYPE_PLAIN, SQL_TYPE_REGPROC, 0},
  {"regrole", SQL_TYPE_PLAIN, SQL_TYPE_REGROLE, 0},
  {"int2vector", SQL_TYPE_PLAIN, SQL_TYPE_INT2VECTOR, 0},
  {"oidvector", SQL_TYPE_PLAIN, SQL_TYPE_OIDVECTOR, 0},
};

static const char *const sql_variant_words[] = {
  "", " precision", " varying", " without time zone", " with time zone",
};

/* Checks the modifiers of t against its kind and stores them. */
static int sql_type_mods(sql_pstate_t *ps, const char *shown, int nmods, const int64_t *mods,
                         int pos, sql_type_t *t)
{
  switch (t->ty_id) {
  case SQL_TYPE_CHAR:
  case SQL_TYPE_VARCHAR:
    if (nmods == 1 && (mods[0] < 1 || mods[0] > SQL_VARCHAR_MAX))
      return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                          "length for type %s must be between 1 and %d", shown, SQL_VARCHAR_MAX);
    t->ty_len = nmods ? (int)mods[0] : t->ty_id == SQL_TYPE_CHAR ? 1 : -1;
    return CZ_OK;
  case SQL_TYPE_NUMERIC:
    if (nmods >= 1 && (mods[0] < 1 || mods[0] > SQL_NUMERIC_MAX_PREC))
      return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                          "NUMERIC precision %lld must be between 1 and %d",
                          (long long)mods[0], SQL_NUMERIC_MAX_PREC);
    if (nmods == 2 && (mods[1] < 0 || mods[1] > mods[0]))
      return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                          "NUMERIC scale %lld must be between 0 and precision %lld",
                          (long long)mods[1], (long long)mods[0]);
    t->ty_prec = nmods >= 1 ? (int)mods[0] : -1;
    t->ty_scale = nmods == 2 ? (int)mods[1] : nmods == 1 ? 0 : -1;
    return CZ_OK;
  case SQL_TYPE_FLOAT8:
    if (nmods == 1) {
      if (mods[0] < 1 || mods[0] > 53)
        return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                            "precision for type float must be between 1 and 53 bits");
      if (mods[0] <= 24)
        t->ty_id = SQL_TYPE_FLOAT4;
    }
    return CZ_OK;
  case SQL_TYPE_TIMESTAMP:
  case SQL_TYPE_TIMESTAMPTZ:
  case SQL_TYPE_TIME:
  case SQL_TYPE_TIMETZ:
    /* PostgreSQL warns and uses 6 above 6; a negative is an error */
    if (nmods == 1 && mods[0] < 0)
      return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                          "%s(%lld) precision must not be negative",
                          t->ty_id == SQL_TYPE_TIME || t->ty_id == SQL_TYPE_TIMETZ ? "TIME"
                                                                                  : "TIMESTAMP",
                          (long long)mods[0]);
    if (nmods == 1 && mods[0] > 6) {
      t->ty_prec = 6;
      return CZ_OK;
    }
    t->ty_prec = nmods ? (int)mods[0] : -1;
    return CZ_OK;
  default:
    return CZ_OK;
  }
}

int sql_type_resolve(sql_pstate_t *ps, const char *schema, const char *name, bool quoted,
                     int variant, int nmods, const int64_t *mods, int pos, sql_type_t *out)
{
  const char *shown = arena_sprintf(ps->ps_arena, "%s%s%s%s", schema ? schema : "",
                                    schema ? "." : "", name, sql_variant_words[variant]);
  /* every built-in type lives in pg_catalog; there are no others */
  if (schema && strcmp(schema, "pg_catalog") != 0)
    return sql_error_at(ps, SQLSTATE_UNDEFINED_OBJECT, pos, "type \"%s\" does not exist", shown);
  if (quoted && variant == SQL_TYPE_PLAIN && strcmp(name, "char") == 0) {
    /* "char": PostgreSQL's one-byte type, not CHAR(1) */
    if (nmods)
      return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos,
                          "type modifier is not allowed for type \"char\"");
    memset(out, 0, sizeof *out);
    out->ty_id = SQL_TYPE_CHAR1;
    out->ty_len = out->ty_prec = out->ty_scale = -1;
    return CZ_OK;
  }
  for (size_t i = 0; i < CZ_ARRAY_LEN(sql_tynames); i++) {
    const sql_tyname_t *tn = &sql_tynames[i];
    if (tn->tn_variant != variant || strcmp(tn->tn_name, name) != 0)
      continue;
    if (nmods > tn->tn_max_mods)
      return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos,
                          "type modifier is not allowed for type \"%s\"", shown);
    memset(out, 0, sizeof *out);
    out->ty_id = tn->tn_id;
    out->ty_len = out->ty_prec = out->ty_scale = -1;
    if (strstr(name, "serial"))
      out->ty_serial = tn->tn_id == SQL_TYPE_INT2 ? 2 : tn->tn_id == SQL_TYPE_INT4 ? 4 : 8;
    return sql_type_mods(ps, shown, nmods, mods, pos, out);
  }
  return sql_error_at(ps, SQLSTATE_UNDEFINED_OBJECT, pos, "type \"%s\" does not exist", shown);
}

char *sql_type_print(arena_t *a, const sql_type_t *t)
{
  static const char *const names[] = {
    [SQL_TYPE_INT2] = "int2",       [SQL_TYPE_INT4] = "int4",     [SQL_TYPE_INT8] = "int8",
    [SQL_TYPE_FLOAT4] = "float4",   [SQL_TYPE_FLOAT8] = "float8", [SQL_TYPE_NUMERIC] = "numeric",
    [SQL_TYPE_CHAR] = "char",       [SQL_TYPE_VARCHAR] = "varchar", [SQL_TYPE_TEXT] = "text",
    [SQL_TYPE_BOOL] = "bool",       [SQL_TYPE_DATE] = "date",     [SQL_TYPE_TIMESTAMP] = "timestamp",
    [SQL_TYPE_BYTEA] = "bytea",     [SQL_TYPE_INTERVAL] = "interval", [SQL_TYPE_OID] = "oid",       [SQL_TYPE_NAME] = "name",
    [SQL_TYPE_CHAR1] = "\"char\"",  [SQL_TYPE_REGCLASS] = "regclass",
    [SQL_TYPE_REGTYPE] = "regtype", [SQL_TYPE_REGNAMESPACE] = "regnamespace",
    [SQL_TYPE_REGPROC] = "regproc", [SQL_TYPE_REGROLE] = "regrole",
    [SQL_TYPE_INT2VECTOR] = "int2vector", [SQL_TYPE_OIDVECTOR] = "oidvector",
    [SQL_TYPE_TIMESTAMPTZ] = "timestamptz", [SQL_TYPE_TIME] = "time", [SQL_TYPE_TIMETZ] = "timetz",
    [SQL_TYPE_JSON] = "json", [SQL_TYPE_JSONB] = "jsonb",
  };
  const char *n = names[t->ty_id];
  const char *arr = t->ty_array ? "[]" : "";
  if ((t->ty_id == SQL_TYPE_CHAR || t->ty_id == SQL_TYPE_VARCHAR) && t->ty_len >= 0)
    return arena_sprintf(a, "%s(%d)%s", n, t->ty_len, arr);
  if (t->ty_id == SQL_TYPE_NUMERIC && t->ty_prec >= 0)
    return arena_sprintf(a, "%s(%d,%d)%s", n, t->ty_prec, t->ty_scale, arr);
  if ((t->ty_id == SQL_TYPE_TIMESTAMP || t->ty_id == SQL_TYPE_TIMESTAMPTZ ||
       t->ty_id == SQL_TYPE_TIME || t->ty_id == SQL_TYPE_TIMETZ) && t->ty_prec >= 0)
    return arena_sprintf(a, "%s(%d)%s", n, t->ty_prec, arr);
  if (t->ty_id == SQL_TYPE_INTERVAL) {
    static const char *const units[] = {"year", "month", "day", "hour", "minute", "second"};
    static const int bits[] = {SQL_IV_F_YEAR, SQL_IV_F_MONTH, SQL_IV_F_DAY, SQL_IV_F_HOUR,
                               SQL_IV_F_MINUTE, SQL_IV_F_SECOND};
    int lo = -1, hi = -1;
    for (int i = 0; i < 6; i++)
      if (t->ty_scale & bits[i]) {
        if (lo < 0)
          lo = i;
        hi = i;
      }
    const char *f = lo < 0 ? "" : lo == hi ? arena_sprintf(a, " %s", units[lo])
                                           : arena_sprintf(a, " %s to %s", units[lo], units[hi]);
    if (t->ty_prec >= 0)
      return arena_sprintf(a, "interval%s(%d)%s", f, t->ty_prec, arr);
    return arena_sprintf(a, "interval%s%s", f, arr);
  }
  return arena_sprintf(a, "%s%s", n, arr);
}

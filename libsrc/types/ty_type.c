/* ty_type — type ids, their physical kinds, SQL names and PostgreSQL's
 * identity of each type (OID, typmod, typlen). */
#include <stdio.h>

#include "types/types_int.h"

ty_phys_t ty_phys(ty_id_t id)
{
  switch (id) {
  case TY_BOOL:
    return TP_BOOL;
  case TY_FLOAT4:
  case TY_FLOAT8:
    return TP_F64;
  case TY_NUMERIC:
    return TP_NUM;
  case TY_INTERVAL:
    return TP_IV;
  case TY_CHAR:
  case TY_VARCHAR:
  case TY_TEXT:
  case TY_BYTEA:
  case TY_JSON:
  case TY_JSONB:
  case TY_UNKNOWN: /* untyped literals are strings until bound */
    return TP_STR;
  case TY_INT2:
  case TY_INT4:
  case TY_INT8:
  case TY_DATE:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIME:
  case TY_TIMETZ:
  case TY_COUNT_:
    break;
  }
  return TP_I64;
}

ty_t ty_plain(ty_id_t id)
{
  ty_t t;
  t.t_id = id;
  t.t_len = -1;
  t.t_prec = -1;
  t.t_scale = 0;
  t.t_elem = TY_UNKNOWN;
  return t;
}

char *ty_name(arena_t *a, ty_t t)
{
  if (t.t_elem != TY_UNKNOWN && t.t_elem < TY_COUNT_)
    return arena_sprintf(a, "%s[]", ty_name(a, ty_plain(t.t_elem)));
  switch (t.t_id) {
  case TY_BOOL:
    return arena_strdup(a, "boolean");
  case TY_INT2:
    return arena_strdup(a, "smallint");
  case TY_INT4:
    return arena_strdup(a, "integer");
  case TY_INT8:
    return arena_strdup(a, "bigint");
  case TY_FLOAT4:
    return arena_strdup(a, "real");
  case TY_FLOAT8:
    return arena_strdup(a, "double precision");
  case TY_NUMERIC:
    if (t.t_prec >= 0)
      return arena_sprintf(a, "numeric(%d,%d)", t.t_prec, t.t_scale);
    return arena_strdup(a, "numeric");
  case TY_CHAR:
    if (t.t_len >= 0)
      return arena_sprintf(a, "character(%d)", (int)t.t_len);
    return arena_strdup(a, "bpchar");
  case TY_VARCHAR:
    if (t.t_len >= 0)
      return arena_sprintf(a, "character varying(%d)", (int)t.t_len);
    return arena_strdup(a, "character varying");
  case TY_TEXT:
    return arena_strdup(a, "text");
  case TY_BYTEA:
    return arena_strdup(a, "bytea");
  case TY_JSON:
    return arena_strdup(a, "json");
  case TY_JSONB:
    return arena_strdup(a, "jsonb");
  case TY_DATE:
    return arena_strdup(a, "date");
  case TY_TIMESTAMP:
    if (t.t_prec >= 0)
      return arena_sprintf(a, "timestamp(%d) without time zone", t.t_prec);
    return arena_strdup(a, "timestamp without time zone");
  case TY_TIMESTAMPTZ:
    if (t.t_prec >= 0)
      return arena_sprintf(a, "timestamp(%d) with time zone", t.t_prec);
    return arena_strdup(a, "timestamp with time zone");
  case TY_TIME:
    if (t.t_prec >= 0)
      return arena_sprintf(a, "time(%d) without time zone", t.t_prec);
    return arena_strdup(a, "time without time zone");
  case TY_TIMETZ:
    if (t.t_prec >= 0)
      return arena_sprintf(a, "time(%d) with time zone", t.t_prec);
    return arena_strdup(a, "time with time zone");
  case TY_INTERVAL: {
    /* format_type's "interval day to second(3)" */
    static const struct {
      int f;
      const char *w;
    } fields[] = {
      {TY_IV_F_YEAR, " year"}, {TY_IV_F_MONTH, " month"}, {TY_IV_F_DAY, " day"},
      {TY_IV_F_HOUR, " hour"}, {TY_IV_F_MINUTE, " minute"}, {TY_IV_F_SECOND, " second"},
      {TY_IV_F_YEAR | TY_IV_F_MONTH, " year to month"}, {TY_IV_F_DAY | TY_IV_F_HOUR, " day to hour"},
      {TY_IV_F_DAY | TY_IV_F_HOUR | TY_IV_F_MINUTE, " day to minute"},
      {TY_IV_F_DAY | TY_IV_F_HOUR | TY_IV_F_MINUTE | TY_IV_F_SECOND, " day to second"},
      {TY_IV_F_HOUR | TY_IV_F_MINUTE, " hour to minute"},
      {TY_IV_F_HOUR | TY_IV_F_MINUTE | TY_IV_F_SECOND, " hour to second"},
      {TY_IV_F_MINUTE | TY_IV_F_SECOND, " minute to second"},
    };
    const char *w = "";
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
      if (fields[i].f == t.t_scale)
        w = fields[i].w;
    if (t.t_prec >= 0)
      return arena_sprintf(a, "interval%s(%d)", w, t.t_prec);
    return arena_sprintf(a, "interval%s", w);
  }
  case TY_UNKNOWN:
  case TY_COUNT_:
    break;
  }
  return arena_strdup(a, "unknown");
}

uint32_t ty_pg_oid(ty_t t)
{
  static const uint32_t oids[TY_COUNT_] = {
    [TY_UNKNOWN] = 705, [TY_BOOL] = 16,     [TY_INT2] = 21,   [TY_INT4] = 23,
    [TY_INT8] = 20,     [TY_FLOAT4] = 700,  [TY_FLOAT8] = 701, [TY_NUMERIC] = 1700,
    [TY_CHAR] = 1042,   [TY_VARCHAR] = 1043, [TY_TEXT] = 25,  [TY_BYTEA] = 17,
    [TY_DATE] = 1082,   [TY_TIMESTAMP] = 1114, [TY_INTERVAL] = 1186,
    [TY_TIMESTAMPTZ] = 1184, [TY_TIME] = 1083, [TY_TIMETZ] = 1266,
    [TY_JSON] = 114,    [TY_JSONB] = 3802,
  };
  return (unsigned)t.t_id < TY_COUNT_ ? oids[t.t_id] : 705;
}

uint32_t ty_pg_array_oid(ty_t t)
{
  static const uint32_t oids[TY_COUNT_] = {
    [TY_BOOL] = 1000,   [TY_INT2] = 1005,    [TY_INT4] = 1007,      [TY_INT8] = 1016,
    [TY_FLOAT4] = 1021, [TY_FLOAT8] = 1022,  [TY_NUMERIC] = 1231,   [TY_CHAR] = 1014,
    [TY_VARCHAR] = 1015, [TY_TEXT] = 1009,   [TY_BYTEA] = 1001,     [TY_DATE] = 1182,
    [TY_TIMESTAMP] = 1115, [TY_INTERVAL] = 1187, [TY_TIMESTAMPTZ] = 1185, [TY_TIME] = 1183,
    [TY_TIMETZ] = 1270, [TY_JSON] = 199, [TY_JSONB] = 3807,
  };
  if (t.t_id != TY_TEXT || t.t_elem == TY_UNKNOWN || (unsigned)t.t_elem >= TY_COUNT_ ||
      !oids[t.t_elem])
    return ty_pg_oid(t);
  return oids[t.t_elem];
}

int32_t ty_pg_typmod(ty_t t)
{
  switch (t.t_id) {
  case TY_CHAR:
  case TY_VARCHAR:
    return t.t_len >= 0 ? t.t_len + 4 : -1;
  case TY_NUMERIC:
    return t.t_prec >= 0 ? (((int32_t)t.t_prec << 16) | (t.t_scale & 0xffff)) + 4 : -1;
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIME:
  case TY_TIMETZ:
    return t.t_prec >= 0 ? t.t_prec : -1;
  case TY_INTERVAL:
    /* PostgreSQL's INTERVAL_TYPMOD(precision, range): 0xFFFF and 0x7FFF
     * stand for "full" */
    if (t.t_prec < 0 && t.t_scale == 0)
      return -1;
    return (int32_t)(((t.t_scale ? t.t_scale : 0x7fff) << 16) | (t.t_prec >= 0 ? t.t_prec : 0xffff));
  default:
    return -1;
  }
}

int16_t ty_pg_typlen(ty_t t)
{
  switch (t.t_id) {
  case TY_BOOL:
    return 1;
  case TY_INT2:
    return 2;
  case TY_INT4:
  case TY_FLOAT4:
  case TY_DATE:
    return 4;
  case TY_INT8:
  case TY_FLOAT8:
  case TY_TIMESTAMP:
  case TY_TIMESTAMPTZ:
  case TY_TIME:
    return 8;
  case TY_TIMETZ:
    return 12;
  case TY_INTERVAL:
    return 16;
  case TY_UNKNOWN:
    return -2; /* PostgreSQL's unknown is a C string */
  default:
    return -1;
  }
}

bool ty_from_pg_oid(uint32_t oid, int32_t typmod, ty_t *out)
{
  ty_id_t id;
  switch (oid) {
  case 0:
  case 705:
    id = TY_UNKNOWN;
    break;
  case 16: id = TY_BOOL; break;
  case 21: id = TY_INT2; break;
  case 23: id = TY_INT4; break;
  case 20: id = TY_INT8; break;
  case 700: id = TY_FLOAT4; break;
  case 701: id = TY_FLOAT8; break;
  case 1700: id = TY_NUMERIC; break;
  case 1042: id = TY_CHAR; break;
  case 1043: id = TY_VARCHAR; break;
  case 25: id = TY_TEXT; break;
  case 17: id = TY_BYTEA; break;
  case 1082: id = TY_DATE; break;
  case 1114: id = TY_TIMESTAMP; break;
  case 1186: id = TY_INTERVAL; break;
  case 1184: id = TY_TIMESTAMPTZ; break;
  case 1083: id = TY_TIME; break;
  case 1266: id = TY_TIMETZ; break;
  case 114: id = TY_JSON; break;
  case 3802: id = TY_JSONB; break;
  default:
    return false;
  }
  *out = ty_plain(id);
  if (typmod >= 0) {
    if (id == TY_CHAR || id == TY_VARCHAR) {
      if (typmod >= 4)
        out->t_len = typmod - 4;
    } else if (id == TY_NUMERIC) {
      if (typmod >= 4) {
        out->t_prec = (int16_t)(((typmod - 4) >> 16) & 0xffff);
        out->t_scale = (int16_t)((typmod - 4) & 0xffff);
      }
    } else if ((id == TY_TIMESTAMP || id == TY_TIMESTAMPTZ || id == TY_TIME || id == TY_TIMETZ) &&
               typmod <= 6) {
      out->t_prec = (int16_t)typmod;
    } else if (id == TY_INTERVAL) {
      int prec = typmod & 0xffff, range = (typmod >> 16) & 0x7fff;
      out->t_prec = (int16_t)(prec <= 6 ? prec : -1);
      out->t_scale = (int16_t)(range == 0x7fff ? 0 : range);
    }
  }
  return true;
}

/* pgcat_type — the built-in types as pg_type shows them, and
 * format_type's names.
 *
 * Design notes: the set of types is fixed (types/), so pg_type is a
 * constant table: PostgreSQL's OIDs, lengths, categories and I/O function
 * names for every type a column, a cast or a catalog column can have, and
 * an array type for each. format_type follows PostgreSQL's rules: the SQL
 * name ("integer", "character varying(40)") when a type modifier is given
 * (-1 included), the internal name for bpchar without one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcat/pgcat_int.h"

typedef struct pgcat_type_s {
  uint32_t ty_oid;
  const char *ty_name;       /* typname */
  const char *ty_sql;        /* format_type's name */
  int16_t ty_len;
  bool ty_byval;
  char ty_category;
  bool ty_preferred;
  uint32_t ty_elem;          /* element type of an array / vector */
  uint32_t ty_array;         /* its array type */
  const char *ty_io;         /* I/O function prefix: "int4" → int4in, int4out … */
  char ty_align;
  char ty_storage;
  uint32_t ty_collation;     /* 100 default for strings, 950 C for name */
} pgcat_type_t;

static const pgcat_type_t pgcat_types[] = {
  {16, "bool", "boolean", 1, true, 'B', true, 0, 1000, "bool", 'c', 'p', 0},
  {17, "bytea", "bytea", -1, false, 'U', false, 0, 1001, "bytea", 'i', 'x', 0},
  {18, "char", "\"char\"", 1, true, 'Z', false, 0, 1002, "char", 'c', 'p', 0},
  {19, "name", "name", 64, false, 'S', false, 0, 1003, "name", 'c', 'p', 950},
  {20, "int8", "bigint", 8, true, 'N', false, 0, 1016, "int8", 'd', 'p', 0},
  {21, "int2", "smallint", 2, true, 'N', false, 0, 1005, "int2", 's', 'p', 0},
  {22, "int2vector", "int2vector", -1, false, 'A', false, 21, 1006, "int2vector", 'i', 'p', 0},
  {23, "int4", "integer", 4, true, 'N', false, 0, 1007, "int4", 'i', 'p', 0},
  {24, "regproc", "regproc", 4, true, 'N', false, 0, 1008, "regproc", 'i', 'p', 0},
  {25, "text", "text", -1, false, 'S', true, 0, 1009, "text", 'i', 'x', 100},
  {26, "oid", "oid", 4, true, 'N', true, 0, 1028, "oid", 'i', 'p', 0},
  {30, "oidvector", "oidvector", -1, false, 'A', false, 26, 1013, "oidvector", 'i', 'p', 0},
  {114, "json", "json", -1, false, 'U', false, 0, 199, "json", 'i', 'x', 0},
  {194, "pg_node_tree", "pg_node_tree", -1, false, 'Z', false, 0, 0, "pg_node_tree", 'i', 'x',
   100},
  {700, "float4", "real", 4, true, 'N', false, 0, 1021, "float4", 'i', 'p', 0},
  {701, "float8", "double precision", 8, true, 'N', true, 0, 1022, "float8", 'd', 'p', 0},
  {705, "unknown", "unknown", -2, false, 'X', false, 0, 0, "unknown", 'c', 'p', 0},
  {1033, "aclitem", "aclitem", 12, false, 'U', false, 0, 1034, "aclitem", 'i', 'p', 0},
  {1042, "bpchar", "character", -1, false, 'S', false, 0, 1014, "bpchar", 'i', 'x', 100},
  {1043, "varchar", "character varying", -1, false, 'S', false, 0, 1015, "varchar", 'i', 'x',
   100},
  {1082, "date", "date", 4, true, 'D', false, 0, 1182, "date", 'i', 'p', 0},
  {1083, "time", "time without time zone", 8, true, 'D', false, 0, 1183, "time", 'd', 'p', 0},
  {1114, "timestamp", "timestamp without time zone", 8, true, 'D', false, 0, 1115, "timestamp",
   'd', 'p', 0},
  {1184, "timestamptz", "timestamp with time zone", 8, true, 'D', true, 0, 1185, "timestamptz",
   'd', 'p', 0},
  {1186, "interval", "interval", 16, false, 'T', true, 0, 1187, "interval", 'd', 'p', 0},
  {1266, "timetz", "time with time zone", 12, false, 'D', false, 0, 1270, "timetz", 'd', 'p', 0},
  {1700, "numeric", "numeric", -1, false, 'N', false, 0, 1231, "numeric", 'i', 'm', 0},
  {2205, "regclass", "regclass", 4, true, 'N', false, 0, 2210, "regclass", 'i', 'p', 0},
  {2206, "regtype", "regtype", 4, true, 'N', false, 0, 2211, "regtype", 'i', 'p', 0},
  {3802, "jsonb", "jsonb", -1, false, 'U', false, 0, 3807, "jsonb", 'i', 'x', 0},
  {4089, "regnamespace", "regnamespace", 4, true, 'N', false, 0, 4090, "regnamespace", 'i', 'p',
   0},
  {4096, "regrole", "regrole", 4, true, 'N', false, 0, 4097, "regrole", 'i', 'p', 0},
};

static const pgcat_type_t *pgcat_type_base(uint32_t oid)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(pgcat_types); i++)
    if (pgcat_types[i].ty_oid == oid)
      return &pgcat_types[i];
  return NULL;
}

/* The base type whose array type is oid, or NULL. */
static const pgcat_type_t *pgcat_type_of_array(uint32_t oid)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(pgcat_types); i++)
    if (pgcat_types[i].ty_array == oid && oid)
      return &pgcat_types[i];
  return NULL;
}

const char *pgcat_type_name(uint32_t oid, arena_t *a)
{
  const pgcat_type_t *t = pgcat_type_base(oid);
  if (t)
    return t->ty_name;
  t = pgcat_type_of_array(oid);
  return t ? arena_sprintf(a, "_%s", t->ty_name) : NULL;
}

char pgcat_type_storage(uint32_t oid)
{
  const pgcat_type_t *t = pgcat_type_base(oid);
  return t ? t->ty_storage : pgcat_type_of_array(oid) ? 'x' : 0;
}

bool pgcat_type_exists(uint32_t oid)
{
  return pgcat_type_base(oid) || pgcat_type_of_array(oid);
}

uint32_t pgcat_type_by_name(const char *name)
{
  static const struct {
    const char *n;
    uint32_t oid;
  } aliases[] = {
    {"int", 23}, {"smallint", 21}, {"bigint", 20}, {"real", 700}, {"double precision", 701},
    {"float", 701}, {"decimal", 1700}, {"boolean", 16}, {"character", 1042}, {"char", 1042},
    {"character varying", 1043}, {"timestamp without time zone", 1114},
    {"timestamp with time zone", 1184}, {"integer", 23}, {"time without time zone", 1083},
    {"time with time zone", 1266},
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(aliases); i++)
    if (strcmp(aliases[i].n, name) == 0)
      return aliases[i].oid;
  if (strcmp(name, "\"char\"") == 0)
    return 18;
  for (size_t i = 0; i < CZ_ARRAY_LEN(pgcat_types); i++) {
    const pgcat_type_t *t = &pgcat_types[i];
    if (strcmp(t->ty_name, name) == 0)
      return t->ty_oid;
    if (t->ty_array && name[0] == '_' && strcmp(t->ty_name, name + 1) == 0)
      return t->ty_array;
  }
  size_t n = strlen(name);
  if (n > 2 && strcmp(name + n - 2, "[]") == 0) {
    char base[80];
    if (n - 2 >= sizeof base)
      return 0;
    memcpy(base, name, n - 2);
    base[n - 2] = 0;
    uint32_t b = pgcat_type_by_name(base);
    const pgcat_type_t *t = b ? pgcat_type_base(b) : NULL;
    return t ? t->ty_array : 0;
  }
  return 0;
}

/* format_type of a base type. typmod < -1 stands for "not given" (NULL). */
static char *pgcat_format_base(const pgcat_type_t *t, int32_t typmod, arena_t *a)
{
  bool given = typmod >= -1;
  bool mod = typmod >= 0;
  switch (t->ty_oid) {
  case 1042:
    if (mod)
      return arena_sprintf(a, "character(%d)", typmod - 4);
    return arena_strdup(a, given ? "character" : "bpchar");
  case 1043:
    if (mod)
      return arena_sprintf(a, "character varying(%d)", typmod - 4);
    break;
  case 1700:
    if (mod)
      return arena_sprintf(a, "numeric(%d,%d)", ((typmod - 4) >> 16) & 0xffff,
                           (typmod - 4) & 0xffff);
    break;
  case 1114:
    if (mod)
      return arena_sprintf(a, "timestamp(%d) without time zone", typmod);
    break;
  case 1184:
    if (mod)
      return arena_sprintf(a, "timestamp(%d) with time zone", typmod);
    break;
  case 1083:
    if (mod)
      return arena_sprintf(a, "time(%d) without time zone", typmod);
    break;
  case 1266:
    if (mod)
      return arena_sprintf(a, "time(%d) with time zone", typmod);
    break;
  case 1186: {
    ty_t it;
    if (mod && ty_from_pg_oid(1186, typmod, &it))
      return ty_name(a, it);
    break;
  }
  default:
    break;
  }
  return arena_strdup(a, t->ty_sql);
}

char *pgcat_format_type(uint32_t oid, int32_t typmod, arena_t *a)
{
  const pgcat_type_t *t = pgcat_type_base(oid);
  if (t)
    return pgcat_format_base(t, typmod, a);
  t = pgcat_type_of_array(oid);
  if (t)
    return arena_sprintf(a, "%s[]", pgcat_format_base(t, typmod, a));
  return arena_strdup(a, "???");
}

char *pgcat_regtype_out(cat_oid_t oid, arena_t *a)
{
  if (!pgcat_type_exists(oid))
    return arena_sprintf(a, "%u", oid);
  /* regtype prints like format_type without a modifier */
  return pgcat_format_type(oid, -2, a);
}

int pgcat_regtype_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e)
{
  (void)env;
  const char *name = text;
  if (strncmp(name, "pg_catalog.", 11) == 0)
    name += 11;
  char *end;
  unsigned long n = strtoul(text, &end, 10);
  if (*text && !*end) {
    *out = (cat_oid_t)n;
    return CZ_OK;
  }
  uint32_t oid = pgcat_type_by_name(name);
  if (!oid)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "type \"%s\" does not exist", text);
  *out = oid;
  return CZ_OK;
}

/* ---- pg_type --------------------------------------------------------- */

static const pgcat_col_t pg_type_cols[] = {
  {"oid", PGT_OID},           {"typname", PGT_NAME},        {"typnamespace", PGT_OID},
  {"typowner", PGT_OID},      {"typlen", PGT_INT2},         {"typbyval", PGT_BOOL},
  {"typtype", PGT_CHAR},      {"typcategory", PGT_CHAR},    {"typispreferred", PGT_BOOL},
  {"typisdefined", PGT_BOOL}, {"typdelim", PGT_CHAR},       {"typrelid", PGT_OID},
  {"typsubscript", PGT_REGPROC}, {"typelem", PGT_OID},      {"typarray", PGT_OID},
  {"typinput", PGT_REGPROC},  {"typoutput", PGT_REGPROC},   {"typreceive", PGT_REGPROC},
  {"typsend", PGT_REGPROC},   {"typmodin", PGT_REGPROC},    {"typmodout", PGT_REGPROC},
  {"typanalyze", PGT_REGPROC}, {"typalign", PGT_CHAR},      {"typstorage", PGT_CHAR},
  {"typnotnull", PGT_BOOL},   {"typbasetype", PGT_OID},     {"typtypmod", PGT_INT4},
  {"typndims", PGT_INT4},     {"typcollation", PGT_OID},    {"typdefaultbin", PGT_PG_NODE_TREE},
  {"typdefault", PGT_TEXT},   {"typacl", PGT_ACLITEM_ARRAY},
};

static int pgcat_type_row(pgcat_rows_t *w, const pgcat_env_t *env, const pgcat_type_t *t,
                          const pgcat_type_t *elem, err_t *e)
{
  /* elem set: the row of t's array type */
  const pgcat_type_t *io = elem ? NULL : t;
  char buf[5][48];
  const char *ioname = io ? io->ty_io : "array_";  /* array_in, array_out … */
  snprintf(buf[0], sizeof buf[0], "%sin", ioname);
  snprintf(buf[1], sizeof buf[1], "%sout", ioname);
  snprintf(buf[2], sizeof buf[2], "%srecv", ioname);
  snprintf(buf[3], sizeof buf[3], "%ssend", ioname);
  pgcat_put_int(w, elem ? t->ty_array : t->ty_oid);
  pgcat_put_text(w, elem ? arena_sprintf(w->pw_arena, "_%s", t->ty_name) : t->ty_name);
  pgcat_put_int(w, CAT_OID_PG_CATALOG);
  pgcat_put_int(w, pgcat_builtin_owner(env));
  pgcat_put_int(w, elem ? -1 : t->ty_len);
  pgcat_put_bool(w, elem ? false : t->ty_byval);
  pgcat_put_char(w, 'b');
  pgcat_put_char(w, elem ? 'A' : t->ty_category);
  pgcat_put_bool(w, elem ? false : t->ty_preferred);
  pgcat_put_bool(w, true);
  pgcat_put_char(w, ',');
  pgcat_put_int(w, 0);
  pgcat_put_text(w, elem || t->ty_elem ? "array_subscript_handler" : "-");
  pgcat_put_int(w, elem ? t->ty_oid : t->ty_elem);
  pgcat_put_int(w, elem ? 0 : t->ty_array);
  pgcat_put_text(w, buf[0]);
  pgcat_put_text(w, buf[1]);
  pgcat_put_text(w, buf[2]);
  pgcat_put_text(w, buf[3]);
  bool mods = t->ty_oid == 1042 || t->ty_oid == 1043 || t->ty_oid == 1700 ||
              t->ty_oid == 1114 || t->ty_oid == 1184 || t->ty_oid == 1186;
  pgcat_put_text(w, mods ? arena_sprintf(w->pw_arena, "%stypmodin", t->ty_io) : "-");
  pgcat_put_text(w, mods ? arena_sprintf(w->pw_arena, "%stypmodout", t->ty_io) : "-");
  pgcat_put_text(w, elem ? "array_typanalyze" : "-");
  pgcat_put_char(w, elem ? (t->ty_align == 'd' ? 'd' : 'i') : t->ty_align);
  pgcat_put_char(w, elem ? 'x' : t->ty_storage);
  pgcat_put_bool(w, false);
  pgcat_put_int(w, 0);
  pgcat_put_int(w, -1);
  pgcat_put_int(w, 0);
  pgcat_put_int(w, t->ty_collation);
  pgcat_put_null(w);
  pgcat_put_null(w);
  pgcat_put_null(w);
  return pgcat_row_end(w, e);
}

static int pgcat_fill_pg_type(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(pgcat_types); i++) {
    const pgcat_type_t *t = &pgcat_types[i];
    if (pgcat_type_row(w, env, t, NULL, e))
      return CZ_ERR;
    if (t->ty_array && pgcat_type_row(w, env, t, t, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

bool pgcat_type_func_exists(const char *name)
{
  static const char *const fixed[] = {"array_in", "array_out", "array_recv", "array_send",
                                      "array_subscript_handler", "array_typanalyze",
                                      /* pg_am.amhandler's */
                                      "heap_tableam_handler", "bthandler"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(fixed); i++)
    if (strcmp(name, fixed[i]) == 0)
      return true;
  static const char *const suffix[] = {"in", "out", "recv", "send", "typmodin", "typmodout"};
  for (size_t i = 0; i < CZ_ARRAY_LEN(pgcat_types); i++) {
    size_t n = strlen(pgcat_types[i].ty_io);
    if (strncmp(name, pgcat_types[i].ty_io, n) != 0)
      continue;
    for (size_t k = 0; k < CZ_ARRAY_LEN(suffix); k++)
      if (strcmp(name + n, suffix[k]) == 0)
        return true;
  }
  return false;
}

const pgcat_rel_t pgcat_rels_type[] = {
  PGCAT_REL("pg_type", CAT_OID_PG_CATALOG, 1247, 'r', pg_type_cols, pgcat_fill_pg_type),
};
const int pgcat_nrels_type = (int)CZ_ARRAY_LEN(pgcat_rels_type);

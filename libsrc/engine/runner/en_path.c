/* en_path — search_path for the statements: the schema an unqualified
 * relation name (table, view, materialized view, sequence, index) refers
 * to, and the schema CREATE makes an unqualified object in.
 *
 * Design notes: PostgreSQL 15's rules (namespace.c): a bare relation name
 * is looked up in the session's temporary schema first (pg_temp, here the
 * temporary views' pg_temp_<n>), then pg_catalog (implicitly, unless the
 * path lists it), then the path's schemas in order, "$user" standing for
 * the current role; schemas that do not exist are skipped. CREATE without
 * a schema uses the first existing schema the path names, and with none
 * fails with 3F000. The path itself is parsed once, by
 * pgcat_search_path (pgcat_name.c), so current_schema(), regclass input,
 * pg_table_is_visible and these lookups agree. The catalog's own
 * lookups take the schema as a name (NULL there still meaning public, for
 * the callers that name built-in objects); every statement-level lookup
 * of a user-written name goes through en_rel_schema first. */
#include <string.h>

#include "engine/runner/en_pgcat.h"
#include "engine/runner/runner_int.h"

/* Where no user object can be: the answer for a name found nowhere on a
 * path without user schemas, so the lookup after it fails. */
static const char en_path_nowhere[] = "pg_catalog";

static int en_path_schemas(esession_t *s, cat_oid_t *out, int max)
{
  const pgcat_env_t *env = en_pgcat_env(s);
  if (!env) {
    out[0] = CAT_OID_PUBLIC;
    return 1;
  }
  return pgcat_search_path_explicit(env, out, max);
}

const char *en_rel_schema(esession_t *s, const char *schema, const char *name)
{
  if (schema)
    return schema;
  const cat_snapshot_t *snap = es_snapshot(s);
  cat_oid_t oid;
  const char *temp = es_temp_schema(s, false);
  if (temp && cat_find_relation(snap, temp, name, &oid))
    return temp;
  cat_oid_t path[16];
  int n = en_path_schemas(s, path, 16);
  const char *first = NULL;
  for (int i = 0; i < n; i++) {
    const cat_schema_t *sc = cat_schema_by_oid(snap, path[i]);
    if (!sc || path[i] == CAT_OID_PG_CATALOG || path[i] == CAT_OID_INFORMATION_SCHEMA)
      continue;  /* they hold no stored relation */
    if (!first)
      first = sc->cs_name;
    if (cat_find_relation(snap, sc->cs_name, name, &oid))
      return sc->cs_name;
  }
  return first ? first : en_path_nowhere;
}

const char *en_name_schema(esession_t *s, const sql_name_t *n)
{
  return en_rel_schema(s, n->nm_schema, n->nm_name);
}

int en_lookup_table(esession_t *s, const char *schema, const char *name, const cat_table_t **out,
                    err_t *e)
{
  if (schema)
    return cat_lookup_table(es_snapshot(s), schema, name, out, e);
  *out = cat_find_table(es_snapshot(s), en_rel_schema(s, NULL, name), name);
  if (!*out)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", name);
  return CZ_OK;
}

int en_new_schema(esession_t *s, const char *schema, const char *name, const char **out, err_t *e)
{
  if (schema) {
    *out = schema;
    return CZ_OK;
  }
  cat_oid_t path[16];
  int n = en_path_schemas(s, path, 16);
  const cat_snapshot_t *snap = es_snapshot(s);
  if (n > 0) {
    const cat_schema_t *sc = cat_schema_by_oid(snap, path[0]);
    if (sc && path[0] != CAT_OID_PG_CATALOG && path[0] != CAT_OID_INFORMATION_SCHEMA) {
      *out = sc->cs_name;
      return CZ_OK;
    }
    /* pg_catalog or information_schema listed first */
    err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "permission denied to create \"%s.%s\"",
            path[0] == CAT_OID_PG_CATALOG ? "pg_catalog" : "information_schema", name);
    return err_add_fields(e, "System catalog modifications are currently disallowed.", NULL);
  }
  return err_set(e, SQLSTATE_INVALID_SCHEMA, "no schema has been selected to create in");
}

bool en_schema_in_path(esession_t *s, const char *schema)
{
  const cat_schema_t *sc = cat_find_schema(es_snapshot(s), schema);
  if (!sc)
    return false;
  cat_oid_t path[16];
  int n = en_path_schemas(s, path, 16);
  for (int i = 0; i < n; i++)
    if (path[i] == sc->cs_oid)
      return true;
  return false;
}

/* Whether text[i…] starts the call fn( with a string literal argument,
 * fn not the tail of a longer identifier. */
static bool seq_call_at(const char *text, size_t i, const char *fn)
{
  size_t n = strlen(fn);
  if (strncmp(text + i, fn, n) != 0 || text[i + n] != '(' || text[i + n + 1] != '\'')
    return false;
  if (i == 0)
    return true;
  char c = text[i - 1];
  return !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '"');
}

int en_qualify_seq_names(esession_t *s, arena_t *a, const char *text, const char **out, err_t *e)
{
  static const char *const fns[] = {"nextval", "currval", "setval"};
  static const char cast[] = "::regclass";
  *out = text;
  if (!text)
    return CZ_OK;
  const pgcat_env_t *env = en_pgcat_env(s);
  size_t len = strlen(text);
  char *o = NULL;
  size_t olen = 0, at = 0, cap = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] == '\'') {  /* another literal: skip it whole */
      for (i++; i < len && !(text[i] == '\'' && text[i + 1] != '\''); i++)
        if (text[i] == '\'')
          i++;
      continue;
    }
    const char *fn = NULL;
    for (size_t f = 0; f < CZ_ARRAY_LEN(fns) && !fn; f++)
      if (seq_call_at(text, i, fns[f]))
        fn = fns[f];
    if (!fn || !env)
      continue;
    /* the literal: its value, and where it ends */
    size_t lit = i + strlen(fn) + 1, j = lit + 1;
    char *val = arena_alloc(a, len + 1);
    size_t n = 0;
    for (; j < len && !(text[j] == '\'' && text[j + 1] != '\''); j++) {
      if (text[j] == '\'')
        j++;
      val[n++] = text[j];
    }
    val[n] = 0;
    if (j >= len)
      break;
    size_t after = j + 1;
    bool has_cast = strncmp(text + after, cast, sizeof cast - 1) == 0;
    if (!has_cast && text[after] != ')' && text[after] != ',')
      continue;  /* the literal is part of a longer argument */
    cat_oid_t oid;
    if (pgcat_regclass_in(env, val, &oid, e) != CZ_OK)
      return CZ_ERR;  /* 42P01 now, as PostgreSQL's regclass constant */
    const cat_sequence_t *sq = cat_sequence_by_oid(es_snapshot(s), oid);
    const char *sch = sq ? sq->sq_schema_name : NULL;
    const char *name = sq ? sq->sq_name : NULL;
    if (!sq) {
      const cat_table_t *t = cat_table_by_oid(es_snapshot(s), oid);
      sch = t ? t->ct_schema_name : NULL;
      name = t ? t->ct_name : NULL;
    }
    if (!name)
      continue;  /* a catalog relation: left as written */
    const char *q = arena_sprintf(a, "%s.%s", pgcat_quote_ident(sch, a), pgcat_quote_ident(name, a));
    size_t need = olen + (lit - at) + strlen(q) * 2 + 2 + sizeof cast + (len - after) + 1;
    if (need > cap) {
      cap = need * 2;
      char *nb = arena_alloc(a, cap);
      if (olen)
        memcpy(nb, o, olen);
      o = nb;
    }
    memcpy(o + olen, text + at, lit - at);
    olen += lit - at;
    o[olen++] = '\'';
    for (const char *c = q; *c; c++) {
      if (*c == '\'')
        o[olen++] = '\'';
      o[olen++] = *c;
    }
    o[olen++] = '\'';
    if (!has_cast) {
      memcpy(o + olen, cast, sizeof cast - 1);
      olen += sizeof cast - 1;
    }
    at = after;
    i = after - 1;
  }
  if (!o)
    return CZ_OK;
  char *r = arena_alloc(a, olen + (len - at) + 1);
  memcpy(r, o, olen);
  memcpy(r + olen, text + at, len - at);
  r[olen + len - at] = 0;
  *out = r;
  return CZ_OK;
}

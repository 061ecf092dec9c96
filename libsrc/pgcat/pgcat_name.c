/* pgcat_name — names of catalog objects: roles and schemas by OID, the
 * search path and what a bare name resolves to, identifier quoting, and
 * the regclass / regnamespace / regrole text forms.
 *
 * Design notes: PostgreSQL looks a bare relation name up in pg_catalog
 * first, then in the schemas of search_path ("$user" standing for the
 * current role's name); a relation is "visible" when that lookup finds it.
 * The same order serves regclass input, pg_table_is_visible and the
 * qualification of regclass output, so the three always agree.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "pgcat/pgcat_int.h"
#include "sql/sql.h"

const char *pgcat_role_name(const pgcat_env_t *env, cat_oid_t oid)
{
  const cat_role_t *r = cat_role_by_oid(env->pe_snap, oid);
  return r ? r->cr_name : NULL;
}

cat_oid_t pgcat_builtin_owner(const pgcat_env_t *env)
{
  for (int i = 0; i < env->pe_snap->cs_nroles; i++)
    if (env->pe_snap->cs_roles[i].cr_superuser)
      return env->pe_snap->cs_roles[i].cr_oid;
  return 10; /* PostgreSQL's bootstrap superuser, should no role be one */
}

const char *pgcat_schema_name(const pgcat_env_t *env, cat_oid_t oid)
{
  const cat_schema_t *s = cat_schema_by_oid(env->pe_snap, oid);
  if (s)
    return s->cs_name;
  if (oid == CAT_OID_PG_CATALOG)
    return "pg_catalog";
  if (oid == CAT_OID_INFORMATION_SCHEMA)
    return "information_schema";
  return NULL;
}

/* The schemas search_path names that exist, in its order ("$user" is the
 * current role's name; pg_temp, the session's temporary schema, is the
 * engine's to search). pg_catalog is searched first unless the path
 * lists it (then where it is listed), as PostgreSQL's
 * recomputeNamespacePath; *implicit says whether out[0] is that implicit
 * pg_catalog. */
static int pgcat_path(const pgcat_env_t *env, cat_oid_t *out, int max, bool *implicit)
{
  int n = 0;
  bool listed = false;
  const char *sp = pgcat_setting(env, "search_path");
  if (!sp)
    sp = "\"$user\", public";
  cat_oid_t found[16];
  int nfound = 0;
  const char *p = sp;
  while (*p && nfound < 16) {
    while (*p == ' ' || *p == ',' || *p == '\t')
      p++;
    if (!*p)
      break;
    char name[CAT_MAX_NAME + 1];
    size_t len = 0;
    if (*p == '"') {
      for (p++; *p && !(*p == '"' && p[1] != '"'); p++) {
        if (*p == '"')
          p++;
        if (len < CAT_MAX_NAME)
          name[len++] = *p;
      }
      if (*p == '"')
        p++;
    } else {
      for (; *p && *p != ',' && *p != ' ' && *p != '\t'; p++)
        if (len < CAT_MAX_NAME)
          name[len++] = (char)tolower((unsigned char)*p);
    }
    name[len] = 0;
    const char *look = name;
    if (strcmp(name, "$user") == 0)
      look = pgcat_role_name(env, env->pe_user);
    cat_oid_t oid = 0;
    if (look && strcmp(look, "pg_catalog") == 0) {
      oid = CAT_OID_PG_CATALOG;
      listed = true;
    } else if (look) {
      const cat_schema_t *s = cat_find_schema(env->pe_snap, look);
      oid = s ? s->cs_oid
            : strcmp(look, "information_schema") == 0 ? CAT_OID_INFORMATION_SCHEMA
                                                      : 0;
    }
    bool dup = false;
    for (int i = 0; i < nfound && oid; i++)
      dup = dup || found[i] == oid;
    if (oid && !dup)
      found[nfound++] = oid;
  }
  if (!listed && n < max)
    out[n++] = CAT_OID_PG_CATALOG;
  for (int i = 0; i < nfound && n < max; i++)
    out[n++] = found[i];
  if (implicit)
    *implicit = !listed;
  return n;
}

int pgcat_search_path(const pgcat_env_t *env, cat_oid_t *out, int max)
{
  return pgcat_path(env, out, max, NULL);
}

int pgcat_search_path_explicit(const pgcat_env_t *env, cat_oid_t *out, int max)
{
  cat_oid_t all[17];
  bool implicit;
  int n = pgcat_path(env, all, 17, &implicit), k = 0;
  for (int i = implicit ? 1 : 0; i < n && k < max; i++)
    out[k++] = all[i];
  return k;
}

bool pgcat_schema_in_path(const pgcat_env_t *env, cat_oid_t schema)
{
  cat_oid_t path[16];
  int n = pgcat_search_path(env, path, 16);
  for (int i = 0; i < n; i++)
    if (path[i] == schema)
      return true;
  return false;
}

/* Whether schema holds a relation (table, index or pgcat relation) named
 * name; its OID in *oid. */
static bool pgcat_rel_in(const pgcat_env_t *env, cat_oid_t schema, const char *name,
                         cat_oid_t *oid)
{
  const char *sname = pgcat_schema_name(env, schema);
  if (!sname)
    return false;
  if (schema == CAT_OID_PG_CATALOG || schema == CAT_OID_INFORMATION_SCHEMA) {
    const pgcat_rel_t *r = pgcat_find(sname, name);
    if (r) {
      *oid = pgcat_rel_oid(r);
      return true;
    }
  }
  const cat_table_t *t = cat_find_table(env->pe_snap, sname, name);
  if (t && t->ct_schema == schema) {
    *oid = t->ct_oid;
    return true;
  }
  const cat_index_t *ix = cat_find_index(env->pe_snap, sname, name);
  if (ix && !ix->ci_hidden) {
    *oid = ix->ci_oid;
    return true;
  }
  const cat_sequence_t *sq = cat_find_sequence(env->pe_snap, sname, name);
  if (sq) {
    *oid = sq->sq_oid;
    return true;
  }
  const cat_view_t *w = cat_find_view(env->pe_snap, sname, name);
  if (w && w->cw_schema == schema) {
    *oid = w->cw_oid;
    return true;
  }
  return false;
}

bool pgcat_relation_visible(const pgcat_env_t *env, cat_oid_t schema, const char *name)
{
  cat_oid_t path[16];
  int n = pgcat_search_path(env, path, 16);
  for (int i = 0; i < n; i++) {
    cat_oid_t oid;
    if (pgcat_rel_in(env, path[i], name, &oid))
      return path[i] == schema;
  }
  return false;
}

char *pgcat_quote_ident(const char *s, arena_t *a)
{
  bool plain = (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_';
  for (const char *c = s; *c && plain; c++)
    plain = (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_';
  if (plain && !sql_keyword_reserved(s))
    return arena_strdup(a, s);
  size_t n = strlen(s);
  char *out = arena_alloc(a, 2 * n + 3);
  char *o = out;
  *o++ = '"';
  for (const char *c = s; *c; c++) {
    if (*c == '"')
      *o++ = '"';
    *o++ = *c;
  }
  *o++ = '"';
  *o = 0;
  return out;
}

/* Splits "a.b" / "\"A\".b" into at most two folded parts; false when the
 * text is not a (qualified) name. */
static bool pgcat_split_name(const char *text, char parts[2][CAT_MAX_NAME + 1], int *nparts)
{
  const char *p = text;
  int n = 0;
  for (;;) {
    if (n == 2)
      return false;
    size_t len = 0;
    if (*p == '"') {
      for (p++;; p++) {
        if (!*p)
          return false;
        if (*p == '"') {
          if (p[1] != '"')
            break;
          p++;
        }
        if (len >= CAT_MAX_NAME)
          return false;
        parts[n][len++] = *p;
      }
      p++;
    } else {
      for (; *p && *p != '.'; p++) {
        if (len >= CAT_MAX_NAME || *p == '"' || *p == ' ')
          return false;
        parts[n][len++] = (char)tolower((unsigned char)*p);
      }
    }
    if (len == 0)
      return false;
    parts[n++][len] = 0;
    if (!*p)
      break;
    if (*p != '.')
      return false;
    p++;
  }
  *nparts = n;
  return true;
}

/* A number given where a name is expected: the OID itself (as PostgreSQL's
 * reg* input functions accept). */
static bool pgcat_numeric_oid(const char *text, cat_oid_t *out)
{
  if (!*text)
    return false;
  char *end;
  unsigned long v = strtoul(text, &end, 10);
  if (*end || !isdigit((unsigned char)text[0]) || v > UINT32_MAX)
    return false;
  *out = (cat_oid_t)v;
  return true;
}

int pgcat_regclass_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e)
{
  if (pgcat_numeric_oid(text, out))
    return CZ_OK;
  char parts[2][CAT_MAX_NAME + 1];
  int n;
  if (!pgcat_split_name(text, parts, &n))
    return err_set(e, SQLSTATE_INVALID_TEXT, "invalid name syntax");
  if (n == 2) {
    const cat_schema_t *s = cat_find_schema(env->pe_snap, parts[0]);
    cat_oid_t ns = s ? s->cs_oid
                   : strcmp(parts[0], "pg_catalog") == 0 ? CAT_OID_PG_CATALOG
                   : strcmp(parts[0], "information_schema") == 0 ? CAT_OID_INFORMATION_SCHEMA
                                                                 : 0;
    if (!ns)
      return err_set(e, SQLSTATE_INVALID_SCHEMA, "schema \"%s\" does not exist", parts[0]);
    if (pgcat_rel_in(env, ns, parts[1], out))
      return CZ_OK;
  } else {
    cat_oid_t path[16];
    int np = pgcat_search_path(env, path, 16);
    for (int i = 0; i < np; i++)
      if (pgcat_rel_in(env, path[i], parts[0], out))
        return CZ_OK;
  }
  return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", text);
}

char *pgcat_regclass_out(const pgcat_env_t *env, cat_oid_t oid, arena_t *a)
{
  const char *name = NULL;
  cat_oid_t schema = 0;
  const pgcat_rel_t *r = pgcat_find_oid(oid);
  const cat_table_t *t = r ? NULL : cat_table_by_oid(env->pe_snap, oid);
  const cat_index_t *ix = r || t ? NULL : cat_index_by_oid(env->pe_snap, oid);
  const cat_sequence_t *sq = r || t || ix ? NULL : cat_sequence_by_oid(env->pe_snap, oid);
  const cat_view_t *w = r || t || ix || sq ? NULL : cat_view_by_oid(env->pe_snap, oid);
  if (w) {
    name = w->cw_name;
    schema = w->cw_schema;
  } else if (sq) {
    name = sq->sq_name;
    schema = sq->sq_schema;
  } else if (r) {
    name = pgcat_rel_name(r);
    schema = pgcat_rel_schema_oid(r);
  } else if (t) {
    name = t->ct_name;
    schema = t->ct_schema;
  } else if (ix && !ix->ci_hidden) {
    name = ix->ci_name;
    schema = ix->ci_table->ct_schema;
  }
  if (!name)
    return arena_sprintf(a, "%u", oid);
  if (pgcat_relation_visible(env, schema, name))
    return pgcat_quote_ident(name, a);
  return arena_sprintf(a, "%s.%s", pgcat_quote_ident(pgcat_schema_name(env, schema), a),
                       pgcat_quote_ident(name, a));
}

int pgcat_regnamespace_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e)
{
  if (pgcat_numeric_oid(text, out))
    return CZ_OK;
  char parts[2][CAT_MAX_NAME + 1];
  int n;
  if (!pgcat_split_name(text, parts, &n) || n != 1)
    return err_set(e, SQLSTATE_INVALID_TEXT, "invalid name syntax");
  const cat_schema_t *s = cat_find_schema(env->pe_snap, parts[0]);
  if (!s)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "schema \"%s\" does not exist", text);
  *out = s->cs_oid;
  return CZ_OK;
}

char *pgcat_regnamespace_out(const pgcat_env_t *env, cat_oid_t oid, arena_t *a)
{
  const char *n = pgcat_schema_name(env, oid);
  return n ? pgcat_quote_ident(n, a) : arena_sprintf(a, "%u", oid);
}

int pgcat_regrole_in(const pgcat_env_t *env, const char *text, cat_oid_t *out, err_t *e)
{
  if (pgcat_numeric_oid(text, out))
    return CZ_OK;
  char parts[2][CAT_MAX_NAME + 1];
  int n;
  if (!pgcat_split_name(text, parts, &n) || n != 1)
    return err_set(e, SQLSTATE_INVALID_TEXT, "invalid name syntax");
  const cat_role_t *r = cat_find_role(env->pe_snap, parts[0]);
  if (!r)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "role \"%s\" does not exist", text);
  *out = r->cr_oid;
  return CZ_OK;
}

char *pgcat_regrole_out(const pgcat_env_t *env, cat_oid_t oid, arena_t *a)
{
  const char *n = pgcat_role_name(env, oid);
  return n ? pgcat_quote_ident(n, a) : arena_sprintf(a, "%u", oid);
}

/* The 'name'::regclass constants of a stored expression text (a column
 * default): fn(ctx, start, end, oid) for each whose name resolves now,
 * start..end its literal's bytes (quotes included). */
static void pgcat_regclass_consts(const pgcat_env_t *env, const char *text, arena_t *a,
                                  void (*fn)(void *ctx, size_t start, size_t end, cat_oid_t oid),
                                  void *ctx)
{
  static const char cast[] = "'::regclass";
  if (!text || !strstr(text, cast))
    return;
  size_t len = strlen(text);
  char *val = arena_alloc(a, len + 1);
  for (size_t i = 0; i < len; i++) {
    if (text[i] != '\'')
      continue;
    size_t j = i + 1, n = 0;
    while (j < len && !(text[j] == '\'' && text[j + 1] != '\'')) {
      if (text[j] == '\'')
        j++;
      val[n++] = text[j++];
    }
    val[n] = 0;
    if (j >= len)
      return;
    err_t e;
    cat_oid_t oid;
    if (strncmp(text + j, cast, sizeof cast - 1) == 0 &&
        pgcat_regclass_in(env, val, &oid, &e) == CZ_OK)
      fn(ctx, i, j + 1, oid);
    i = j;
  }
}

typedef struct expr_text_s {
  const pgcat_env_t *et_env;
  const char *et_text;
  arena_t *et_a;
  char *et_out;
  size_t et_at;  /* the text's bytes before this are in et_out */
} expr_text_t;

static void expr_text_put(void *ctx, size_t start, size_t end, cat_oid_t oid)
{
  expr_text_t *t = ctx;
  const char *shown = pgcat_regclass_out(t->et_env, oid, t->et_a);
  char *lit = arena_alloc(t->et_a, strlen(shown) * 2 + 3);
  size_t n = 0;
  lit[n++] = '\'';
  for (const char *c = shown; *c; c++) {
    if (*c == '\'')
      lit[n++] = '\'';
    lit[n++] = *c;
  }
  lit[n++] = '\'';
  lit[n] = 0;
  t->et_out = arena_sprintf(t->et_a, "%s%.*s%s", t->et_out, (int)(start - t->et_at),
                            t->et_text + t->et_at, lit);
  t->et_at = end;
}

/* A stored expression text (a column default) as pg_get_expr shows it:
 * each 'name'::regclass constant printed by regclass output under the
 * current search_path. Defaults name their sequences with the schema
 * (engine en_path.c), which PostgreSQL keeps as an OID and prints bare
 * where the path finds it: `nextval('t_id_seq'::regclass)`. */
const char *pgcat_expr_text(const pgcat_env_t *env, const char *text, arena_t *a)
{
  expr_text_t t = {env, text, a, "", 0};
  pgcat_regclass_consts(env, text, a, expr_text_put, &t);
  if (t.et_at == 0)
    return text;
  return arena_sprintf(a, "%s%s", t.et_out, text + t.et_at);
}

typedef struct expr_oids_s {
  cat_oid_t *eo_out;
  int eo_n, eo_max;
} expr_oids_t;

static void expr_oids_put(void *ctx, size_t start, size_t end, cat_oid_t oid)
{
  expr_oids_t *o = ctx;
  (void)start, (void)end;
  if (o->eo_n < o->eo_max)
    o->eo_out[o->eo_n++] = oid;
}

int pgcat_expr_regclasses(const pgcat_env_t *env, const char *text, arena_t *a, cat_oid_t *out,
                          int max)
{
  expr_oids_t o = {out, 0, max};
  pgcat_regclass_consts(env, text, a, expr_oids_put, &o);
  return o.eo_n;
}

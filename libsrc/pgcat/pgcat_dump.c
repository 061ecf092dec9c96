/* pgcat_dump — what pg_dump reads besides the catalogs psql and the
 * drivers use: the catalogs of objects Cadenza does not have (extensions,
 * languages, operator classes, text search, foreign data, casts, rules,
 * event triggers, large objects, subscriptions, initial privileges,
 * security labels), and the functions its queries call (set_config,
 * acldefault, array_remove).
 *
 * Design notes: the relations are real and empty, with PostgreSQL 15's
 * columns that pg_dump selects, so its queries bind and find nothing to
 * dump; none of them can hold a row because Cadenza has no such objects.
 * set_config changes the session's setting through the environment's
 * pe_set (the same path as SET), so pg_dump's search_path and the
 * restore script's settings take effect.
 */
#include <ctype.h>
#include <string.h>

#include "pgcat/pgcat_int.h"

/* ---- functions ---------------------------------------------------------- */

static char *dump_arg(xctx_t *c, const datum_t *d)
{
  return arena_sprintf(c->xc_arena, "%.*s", (int)d->d_str.s_len, d->d_str.s_ptr);
}

static void dump_out_text(xctx_t *c, datum_t *out, const char *s)
{
  if (!s) {
    out->d_null = true;
    return;
  }
  size_t n = strlen(s);
  char *p = arena_alloc(c->xc_arena, n + 1);
  memcpy(p, s, n + 1);
  out->d_null = false;
  out->d_str.s_ptr = p;
  out->d_str.s_len = (uint32_t)n;
}

/* set_config(name, value, is_local) is SET name = value (is_local: SET
 * LOCAL, which the session treats as SET); returns the value in force. */
static int pf_set_config(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  if (a[0].d_null)
    return err_set(e, SQLSTATE_NULL_VALUE_NOT_ALLOWED,
                   "SET requires parameter name");
  char *name = dump_arg(c, &a[0]);
  for (char *p = name; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  /* A NULL value resets the setting, as SET … TO DEFAULT would; the
   * session keeps no other default than the empty string here. */
  const char *value = a[1].d_null ? "" : dump_arg(c, &a[1]);
  if (!env->pe_set)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "set_config called outside a session");
  if (env->pe_set(env->pe_set_ctx, name, value, e) != CZ_OK)
    return CZ_ERR;
  dump_out_text(c, out, value);
  return CZ_OK;
}

/* acldefault(kind, owner): the privileges an object of that kind has when
 * no GRANT or REVOKE touched it, as aclitem[] text. pg_dump compares an
 * object's ACL with this to write only the GRANTs and REVOKEs that differ;
 * the owner's rights for tables are Cadenza's (arwd), as pg_class.relacl
 * spells them. */
static int pf_acldefault(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  if (a[0].d_null || a[1].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  char kind = a[0].d_str.s_len ? a[0].d_str.s_ptr[0] : ' ';
  const char *o = pgcat_role_name(env, (cat_oid_t)a[1].d_i64);
  char *q = pgcat_quote_ident(o ? o : "", c->xc_arena);
  const char *acl;
  switch (kind) {
  case 'r': acl = arena_sprintf(c->xc_arena, "{%s=arwd/%s}", q, q); break;
  case 's': acl = arena_sprintf(c->xc_arena, "{%s=rwU/%s}", q, q); break;
  case 'n': acl = arena_sprintf(c->xc_arena, "{%s=UC/%s}", q, q); break;
  case 'd': acl = arena_sprintf(c->xc_arena, "{=Tc/%s,%s=CTc/%s}", q, q, q); break;
  case 'f': acl = arena_sprintf(c->xc_arena, "{=X/%s,%s=X/%s}", q, q, q); break;
  case 'l':
  case 'T': acl = arena_sprintf(c->xc_arena, "{=U/%s,%s=U/%s}", q, q, q); break;
  case 'F':
  case 'S': acl = arena_sprintf(c->xc_arena, "{%s=U/%s}", q, q); break;
  case 'L': acl = arena_sprintf(c->xc_arena, "{%s=rw/%s}", q, q); break;
  case 't': acl = arena_sprintf(c->xc_arena, "{%s=C/%s}", q, q); break;
  default:
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "unrecognized object type abbreviation: %c",
                   kind);
  }
  dump_out_text(c, out, acl);
  return CZ_OK;
}

/* array_remove(arr, x): arr without the elements equal to x (NULL
 * removes NULLs), on the text form of one-dimensional arrays; 0A000 for
 * more dimensions, as PostgreSQL's "removing elements from
 * multidimensional arrays is not supported". */
static int pf_array_remove(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  if (a[0].d_null) {
    out->d_null = true;
    return CZ_OK;
  }
  pgcat_arr_t arr;
  if (pgcat_arr_parse(c->xc_arena, a[0].d_str.s_ptr, a[0].d_str.s_len, &arr, e) != CZ_OK)
    return CZ_ERR;
  if (arr.pa_ndim > 1)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "removing elements from multidimensional arrays is not supported");
  const char *v = a[1].d_null ? NULL : dump_arg(c, &a[1]);
  int n = 0;
  for (int i = 0; i < arr.pa_n; i++) {
    const char *it = arr.pa_items[i];
    bool eq = v ? it && strcmp(it, v) == 0 : !it;
    if (!eq)
      arr.pa_items[n++] = arr.pa_items[i];
  }
  arr.pa_n = n;
  arr.pa_dims[0] = n;
  if (n == 0)
    arr.pa_ndim = 0;
  char *t = pgcat_arr_text(c->xc_arena, &arr, e);
  if (!t)
    return CZ_ERR;
  dump_out_text(c, out, t);
  return CZ_OK;
}

/* name_element(s, i): name[i], the i-th byte from 0 ('' past the end),
 * as PostgreSQL's name, a char[NAMEDATALEN], subscripts. */
static int pf_name_element(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  int64_t i = a[1].d_i64;
  char ch[2] = {0, 0};
  if (i >= 0 && i < (int64_t)a[0].d_str.s_len)
    ch[0] = a[0].d_str.s_ptr[i];
  dump_out_text(c, out, ch);
  return CZ_OK;
}

/* regprocout(oid): an OID cast to regproc, the function's name as
 * pg_proc lists it; '-' for 0 and the number for an OID that is no
 * function, as PostgreSQL prints them. */
static int pf_regprocout(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  int64_t oid = a[0].d_i64;
  const xfunc_def_t *f = NULL;
  if (oid >= PGCAT_FIRST_PROC_OID && oid - PGCAT_FIRST_PROC_OID < xfunc_count())
    f = xfunc_at((int)(oid - PGCAT_FIRST_PROC_OID));
  dump_out_text(c, out, oid == 0 ? "-" : f ? f->fd_name
                                          : arena_sprintf(c->xc_arena, "%lld", (long long)oid));
  return CZ_OK;
}

/* pg_option_name / pg_option_value: the halves of one "name=value"
 * element of an options array (pg_options_to_table's columns). */
static int pf_option_part(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, bool value)
{
  (void)x;
  const char *p = memchr(a[0].d_str.s_ptr, '=', a[0].d_str.s_len);
  size_t n = a[0].d_str.s_len;
  size_t cut = p ? (size_t)(p - a[0].d_str.s_ptr) : n;
  if (value && !p) {
    out->d_null = true;
    return CZ_OK;
  }
  const char *s = value ? p + 1 : a[0].d_str.s_ptr;
  size_t len = value ? n - cut - 1 : cut;
  dump_out_text(c, out, arena_sprintf(c->xc_arena, "%.*s", (int)len, s));
  return CZ_OK;
}

static int pf_option_name(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)e;
  return pf_option_part(c, x, a, out, false);
}

static int pf_option_value(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)e;
  return pf_option_part(c, x, a, out, true);
}

/* quote_literal(s): s as a string literal, quotes doubled; with a
 * backslash, an E'' literal with the backslashes doubled (PostgreSQL's
 * quote_literal). */
static int pf_quote_literal(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  const char *s = a[0].d_str.s_ptr;
  size_t n = a[0].d_str.s_len;
  bool bs = memchr(s, '\\', n) != NULL;
  char *r = arena_alloc(c->xc_arena, 2 * n + 4);
  size_t k = 0;
  if (bs)
    r[k++] = 'E';
  r[k++] = '\'';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\'' || s[i] == '\\')
      r[k++] = s[i];
    r[k++] = s[i];
  }
  r[k++] = '\'';
  r[k] = 0;
  out->d_null = false;
  out->d_str.s_ptr = r;
  out->d_str.s_len = (uint32_t)k;
  return CZ_OK;
}

/* _cz_array_or_null(a): NULL for the empty array — the binder's form of a
 * scalar subquery's array_agg, which gives NULL over no rows. */
static int pf_array_or_null(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c, (void)x, (void)e;
  *out = a[0];
  if (!a[0].d_null && a[0].d_str.s_len == 2 && memcmp(a[0].d_str.s_ptr, "{}", 2) == 0)
    out->d_null = true;
  return CZ_OK;
}

/* _cz_seq_last_value(oid) / _cz_seq_is_called(oid): a sequence read as
 * a relation (SELECT last_value, is_called FROM seq, which pg_dump sends
 * to write setval): the shared state, the start value before the first
 * nextval (or after setval(…, false) the value set), as PostgreSQL's
 * sequence tuple. */
static int seq_state(xctx_t *c, const datum_t *a, int64_t *last, bool *called, err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  const cat_sequence_t *sq = cat_sequence_by_oid(env->pe_snap, (cat_oid_t)a[0].d_i64);
  if (!sq)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "could not open relation with OID %lld",
                   (long long)a[0].d_i64);
  /* not called: the value nextval gives next (the start, or setval's) */
  return cat_seq_peek(sq, env->pe_txn, last, called, e);
}

static int pf_seq_last_value(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                             err_t *e)
{
  (void)x;
  int64_t last;
  bool called;
  if (seq_state(c, a, &last, &called, e) != CZ_OK)
    return CZ_ERR;
  out->d_null = false;
  out->d_i64 = last;
  return CZ_OK;
}

static int pf_seq_is_called(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  int64_t last;
  bool called;
  if (seq_state(c, a, &last, &called, e) != CZ_OK)
    return CZ_ERR;
  out->d_null = false;
  out->d_bool = called;
  return CZ_OK;
}

#define TX TY_TEXT
#define I8 TY_INT8
#define BO TY_BOOL
const xfunc_def_t pgcat_dump_funcs[] = {
  {.fd_name = "set_config", .fd_nargs = 3, .fd_args = {TX, TX, BO}, .fd_result = TX,
   .fd_flags = XF_VOLATILE, .fd_row = pf_set_config},
  {.fd_name = "acldefault", .fd_nargs = 2, .fd_args = {TX, I8}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_acldefault},
  {.fd_name = "name_element", .fd_nargs = 2, .fd_args = {TX, TY_INT4}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_name_element},
  {.fd_name = "regprocout", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_regprocout},
  {.fd_name = "pg_option_name", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_option_name},
  {.fd_name = "pg_option_value", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_option_value},
  {.fd_name = "quote_literal", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_quote_literal},
  {.fd_name = "_cz_array_or_null", .fd_nargs = 1, .fd_args = {TX}, .fd_result = TX,
   .fd_row = pf_array_or_null},
  {.fd_name = "_cz_seq_last_value", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8,
   .fd_flags = XF_STRICT | XF_VOLATILE, .fd_row = pf_seq_last_value},
  {.fd_name = "_cz_seq_is_called", .fd_nargs = 1, .fd_args = {I8}, .fd_result = BO,
   .fd_flags = XF_STRICT | XF_VOLATILE, .fd_row = pf_seq_is_called},
  {.fd_name = "array_remove", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = TX,
   .fd_row = pf_array_remove},
};
const int pgcat_dump_nfuncs = (int)CZ_ARRAY_LEN(pgcat_dump_funcs);
#undef TX
#undef I8
#undef BO

/* ---- relations that hold no rows here ----------------------------------- */

static const pgcat_col_t pg_extension_cols[] = {
  {"oid", PGT_OID}, {"extname", PGT_NAME}, {"extowner", PGT_OID}, {"extnamespace", PGT_OID},
  {"extrelocatable", PGT_BOOL}, {"extversion", PGT_TEXT}, {"extconfig", PGT_OID_ARRAY},
  {"extcondition", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_foreign_table_cols[] = {
  {"ftrelid", PGT_OID}, {"ftserver", PGT_OID}, {"ftoptions", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_init_privs_cols[] = {
  {"objoid", PGT_OID}, {"classoid", PGT_OID}, {"objsubid", PGT_INT4}, {"privtype", PGT_CHAR},
  {"initprivs", PGT_ACLITEM_ARRAY},
};

static const pgcat_col_t pg_language_cols[] = {
  {"oid", PGT_OID}, {"lanname", PGT_NAME}, {"lanowner", PGT_OID}, {"lanispl", PGT_BOOL},
  {"lanpltrusted", PGT_BOOL}, {"lanplcallfoid", PGT_OID}, {"laninline", PGT_OID},
  {"lanvalidator", PGT_OID}, {"lanacl", PGT_ACLITEM_ARRAY},
};

static const pgcat_col_t pg_opclass_cols[] = {
  {"oid", PGT_OID}, {"opcmethod", PGT_OID}, {"opcname", PGT_NAME}, {"opcnamespace", PGT_OID},
  {"opcowner", PGT_OID}, {"opcfamily", PGT_OID}, {"opcintype", PGT_OID},
  {"opcdefault", PGT_BOOL}, {"opckeytype", PGT_OID},
};

static const pgcat_col_t pg_opfamily_cols[] = {
  {"oid", PGT_OID}, {"opfmethod", PGT_OID}, {"opfname", PGT_NAME}, {"opfnamespace", PGT_OID},
  {"opfowner", PGT_OID},
};

static const pgcat_col_t pg_ts_parser_cols[] = {
  {"oid", PGT_OID}, {"prsname", PGT_NAME}, {"prsnamespace", PGT_OID}, {"prsstart", PGT_OID},
  {"prstoken", PGT_OID}, {"prsend", PGT_OID}, {"prsheadline", PGT_OID},
  {"prslextype", PGT_OID},
};

static const pgcat_col_t pg_ts_template_cols[] = {
  {"oid", PGT_OID}, {"tmplname", PGT_NAME}, {"tmplnamespace", PGT_OID},
  {"tmplinit", PGT_OID}, {"tmpllexize", PGT_OID},
};

static const pgcat_col_t pg_ts_dict_cols[] = {
  {"oid", PGT_OID}, {"dictname", PGT_NAME}, {"dictnamespace", PGT_OID}, {"dictowner", PGT_OID},
  {"dicttemplate", PGT_OID}, {"dictinitoption", PGT_TEXT},
};

static const pgcat_col_t pg_ts_config_cols[] = {
  {"oid", PGT_OID}, {"cfgname", PGT_NAME}, {"cfgnamespace", PGT_OID}, {"cfgowner", PGT_OID},
  {"cfgparser", PGT_OID},
};

static const pgcat_col_t pg_foreign_data_wrapper_cols[] = {
  {"oid", PGT_OID}, {"fdwname", PGT_NAME}, {"fdwowner", PGT_OID}, {"fdwhandler", PGT_OID},
  {"fdwvalidator", PGT_OID}, {"fdwacl", PGT_ACLITEM_ARRAY}, {"fdwoptions", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_foreign_server_cols[] = {
  {"oid", PGT_OID}, {"srvname", PGT_NAME}, {"srvowner", PGT_OID}, {"srvfdw", PGT_OID},
  {"srvtype", PGT_TEXT}, {"srvversion", PGT_TEXT}, {"srvacl", PGT_ACLITEM_ARRAY},
  {"srvoptions", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_default_acl_cols[] = {
  {"oid", PGT_OID}, {"defaclrole", PGT_OID}, {"defaclnamespace", PGT_OID},
  {"defaclobjtype", PGT_CHAR}, {"defaclacl", PGT_ACLITEM_ARRAY},
};

static const pgcat_col_t pg_conversion_cols[] = {
  {"oid", PGT_OID}, {"conname", PGT_NAME}, {"connamespace", PGT_OID}, {"conowner", PGT_OID},
  {"conforencoding", PGT_INT4}, {"contoencoding", PGT_INT4}, {"conproc", PGT_OID},
  {"condefault", PGT_BOOL},
};

static const pgcat_col_t pg_cast_cols[] = {
  {"oid", PGT_OID}, {"castsource", PGT_OID}, {"casttarget", PGT_OID}, {"castfunc", PGT_OID},
  {"castcontext", PGT_CHAR}, {"castmethod", PGT_CHAR},
};

static const pgcat_col_t pg_range_cols[] = {
  {"rngtypid", PGT_OID}, {"rngsubtype", PGT_OID}, {"rngmultitypid", PGT_OID},
  {"rngcollation", PGT_OID}, {"rngsubopc", PGT_OID}, {"rngcanonical", PGT_OID},
  {"rngsubdiff", PGT_OID},
};

static const pgcat_col_t pg_transform_cols[] = {
  {"oid", PGT_OID}, {"trftype", PGT_OID}, {"trflang", PGT_OID}, {"trffromsql", PGT_OID},
  {"trftosql", PGT_OID},
};

static const pgcat_col_t pg_event_trigger_cols[] = {
  {"oid", PGT_OID}, {"evtname", PGT_NAME}, {"evtevent", PGT_NAME}, {"evtowner", PGT_OID},
  {"evtfoid", PGT_OID}, {"evtenabled", PGT_CHAR}, {"evttags", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_partitioned_table_cols[] = {
  {"partrelid", PGT_OID}, {"partstrat", PGT_CHAR}, {"partnatts", PGT_INT2},
  {"partdefid", PGT_OID}, {"partattrs", PGT_INT2VECTOR}, {"partclass", PGT_OIDVECTOR},
  {"partcollation", PGT_OIDVECTOR}, {"partexprs", PGT_PG_NODE_TREE},
};

static const pgcat_col_t pg_subscription_cols[] = {
  {"oid", PGT_OID}, {"subdbid", PGT_OID}, {"subskiplsn", PGT_TEXT}, {"subname", PGT_NAME},
  {"subowner", PGT_OID}, {"subenabled", PGT_BOOL}, {"subbinary", PGT_BOOL},
  {"substream", PGT_BOOL}, {"subtwophasestate", PGT_CHAR}, {"subdisableonerr", PGT_BOOL},
  {"subconninfo", PGT_TEXT}, {"subslotname", PGT_NAME}, {"subsynccommit", PGT_TEXT},
  {"subpublications", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_largeobject_metadata_cols[] = {
  {"oid", PGT_OID}, {"lomowner", PGT_OID}, {"lomacl", PGT_ACLITEM_ARRAY},
};

static const pgcat_col_t pg_amop_cols[] = {
  {"oid", PGT_OID}, {"amopfamily", PGT_OID}, {"amoplefttype", PGT_OID},
  {"amoprighttype", PGT_OID}, {"amopstrategy", PGT_INT2}, {"amoppurpose", PGT_CHAR},
  {"amopopr", PGT_OID}, {"amopmethod", PGT_OID}, {"amopsortfamily", PGT_OID},
};

static const pgcat_col_t pg_amproc_cols[] = {
  {"oid", PGT_OID}, {"amprocfamily", PGT_OID}, {"amproclefttype", PGT_OID},
  {"amprocrighttype", PGT_OID}, {"amprocnum", PGT_INT2}, {"amproc", PGT_OID},
};

static const pgcat_col_t pg_seclabels_cols[] = {
  {"objoid", PGT_OID}, {"classoid", PGT_OID}, {"objsubid", PGT_INT4}, {"objtype", PGT_TEXT},
  {"objnamespace", PGT_OID}, {"objname", PGT_TEXT}, {"provider", PGT_TEXT}, {"label", PGT_TEXT},
};

static const pgcat_col_t pg_user_mapping_cols[] = {
  {"oid", PGT_OID}, {"umuser", PGT_OID}, {"umserver", PGT_OID}, {"umoptions", PGT_TEXT_ARRAY},
};

static const pgcat_col_t pg_largeobject_cols[] = {
  {"loid", PGT_OID}, {"pageno", PGT_INT4}, {"data", PGT_TEXT},
};

#define PGC CAT_OID_PG_CATALOG
const pgcat_rel_t pgcat_rels_dump[] = {
  PGCAT_REL("pg_extension", PGC, 3079, 'r', pg_extension_cols, pgcat_fill_empty),
  PGCAT_REL("pg_foreign_table", PGC, 3118, 'r', pg_foreign_table_cols, pgcat_fill_empty),
  PGCAT_REL("pg_init_privs", PGC, 3394, 'r', pg_init_privs_cols, pgcat_fill_empty),
  PGCAT_REL("pg_language", PGC, 2612, 'r', pg_language_cols, pgcat_fill_empty),
  PGCAT_REL("pg_opclass", PGC, 2616, 'r', pg_opclass_cols, pgcat_fill_empty),
  PGCAT_REL("pg_opfamily", PGC, 2753, 'r', pg_opfamily_cols, pgcat_fill_empty),
  PGCAT_REL("pg_ts_parser", PGC, 3601, 'r', pg_ts_parser_cols, pgcat_fill_empty),
  PGCAT_REL("pg_ts_template", PGC, 3764, 'r', pg_ts_template_cols, pgcat_fill_empty),
  PGCAT_REL("pg_ts_dict", PGC, 3600, 'r', pg_ts_dict_cols, pgcat_fill_empty),
  PGCAT_REL("pg_ts_config", PGC, 3602, 'r', pg_ts_config_cols, pgcat_fill_empty),
  PGCAT_REL("pg_foreign_data_wrapper", PGC, 2328, 'r', pg_foreign_data_wrapper_cols, pgcat_fill_empty),
  PGCAT_REL("pg_foreign_server", PGC, 1417, 'r', pg_foreign_server_cols, pgcat_fill_empty),
  PGCAT_REL("pg_default_acl", PGC, 826, 'r', pg_default_acl_cols, pgcat_fill_empty),
  PGCAT_REL("pg_conversion", PGC, 2607, 'r', pg_conversion_cols, pgcat_fill_empty),
  PGCAT_REL("pg_cast", PGC, 2605, 'r', pg_cast_cols, pgcat_fill_empty),
  PGCAT_REL("pg_range", PGC, 3541, 'r', pg_range_cols, pgcat_fill_empty),
  PGCAT_REL("pg_transform", PGC, 3576, 'r', pg_transform_cols, pgcat_fill_empty),
  PGCAT_REL("pg_event_trigger", PGC, 3466, 'r', pg_event_trigger_cols, pgcat_fill_empty),
  PGCAT_REL("pg_partitioned_table", PGC, 3350, 'r', pg_partitioned_table_cols, pgcat_fill_empty),
  PGCAT_REL("pg_subscription", PGC, 6100, 'r', pg_subscription_cols, pgcat_fill_empty),
  PGCAT_REL("pg_largeobject_metadata", PGC, 2995, 'r', pg_largeobject_metadata_cols, pgcat_fill_empty),
  PGCAT_REL("pg_amop", PGC, 2602, 'r', pg_amop_cols, pgcat_fill_empty),
  PGCAT_REL("pg_amproc", PGC, 2603, 'r', pg_amproc_cols, pgcat_fill_empty),
  PGCAT_REL("pg_seclabels", PGC, 12099, 'v', pg_seclabels_cols, pgcat_fill_empty),
  PGCAT_REL("pg_user_mapping", PGC, 1418, 'r', pg_user_mapping_cols, pgcat_fill_empty),
  PGCAT_REL("pg_largeobject", PGC, 2613, 'r', pg_largeobject_cols, pgcat_fill_empty),
};
const int pgcat_nrels_dump = (int)CZ_ARRAY_LEN(pgcat_rels_dump);

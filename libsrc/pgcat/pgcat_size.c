/* pgcat_size — the disk-size functions: pg_relation_size, pg_table_size,
 * pg_indexes_size, pg_total_relation_size, pg_database_size,
 * pg_tablespace_size, pg_size_pretty and pg_size_bytes.
 *
 * Design notes: a relation's size is the pages of its trees times 8 KB,
 * each tree's count read from storage's allocation maps (bt_pages: exact
 * at every instant, nothing kept per insert). How PostgreSQL's forks map
 * onto Cadenza's trees:
 * - a table's main fork is its primary tree (the rows, clustered in the
 *   primary key or the hidden row id); its long values tree is its TOAST
 *   (pg_table_size counts it, pg_relation_size does not);
 * - a secondary index is its own tree;
 * - the primary key index has no tree of its own (the table is stored in
 *   it, as InnoDB's clustered index): 0 bytes, so pg_indexes_size counts
 *   secondary indexes only and nothing is counted twice in
 *   pg_total_relation_size;
 * - views, sequences (their values live in the catalog) and the virtual
 *   pg_catalog relations have no storage: 0, as PostgreSQL's views;
 * - the fsm, vm and init forks do not exist: 0.
 * An OID that names no relation gives NULL (PostgreSQL's answer for a
 * dropped relation); a name that names none is regclass input's 42P01.
 * All of them are volatile: sizes change within a statement's life.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "pgcat/pgcat_int.h"
#include "txn/txn.h"

typedef enum sz_kind_e {
  SZ_RELATION,   /* pg_relation_size: the main fork */
  SZ_TABLE,      /* pg_table_size: + TOAST (long values) */
  SZ_INDEXES,    /* pg_indexes_size */
  SZ_TOTAL       /* pg_total_relation_size */
} sz_kind_t;

static uint64_t tree_bytes(const bt_tree_t *t)
{
  return t ? bt_pages(t) * (uint64_t)ST_PAGE_SIZE : 0;
}

/* false when oid names no relation (the caller returns NULL). */
static bool rel_bytes(const cat_snapshot_t *s, cat_oid_t oid, sz_kind_t k, uint64_t *out)
{
  *out = 0;
  const cat_table_t *t = cat_table_by_oid(s, oid);
  if (t) {
    /* Only the trees asked for: each count is a pass over the owner map. */
    if (k != SZ_INDEXES)
      *out += tree_bytes(t->ct_indexes[0]->ci_tree);
    if (k == SZ_TABLE || k == SZ_TOTAL)
      *out += tree_bytes(t->ct_long_tree);
    if (k == SZ_INDEXES || k == SZ_TOTAL)
      for (int i = 1; i < t->ct_nindexes; i++)
        *out += tree_bytes(t->ct_indexes[i]->ci_tree);
    return true;
  }
  const cat_index_t *ix = cat_index_by_oid(s, oid);
  if (ix && !ix->ci_hidden) {
    if (!ix->ci_primary && k != SZ_INDEXES)
      *out = tree_bytes(ix->ci_tree);
    return true;
  }
  return cat_view_by_oid(s, oid) || cat_sequence_by_oid(s, oid) || pgcat_find_oid(oid);
}

static void out_i64(datum_t *out, int64_t v)
{
  out->d_null = false;
  out->d_i64 = v;
}

static void out_text(xctx_t *c, datum_t *out, const char *s)
{
  size_t n = strlen(s);
  char *p = arena_alloc(c->xc_arena, n + 1);
  memcpy(p, s, n + 1);
  out->d_null = false;
  out->d_str.s_ptr = p;
  out->d_str.s_len = (uint32_t)n;
}

static char *arg_str(xctx_t *c, const datum_t *d)
{
  return arena_sprintf(c->xc_arena, "%.*s", (int)d->d_str.s_len, d->d_str.s_ptr);
}

/* The relation argument: an OID (int8, what c.oid and 'x'::regclass
 * give) or a name (text: regclass input, 42P01 when unknown). */
static int rel_arg(xctx_t *c, const xnode_t *x, const pgcat_env_t *env, const datum_t *a,
                   cat_oid_t *oid, err_t *e)
{
  if (x->x_args[0]->x_type.t_id == TY_TEXT)
    return pgcat_regclass_in(env, arg_str(c, a), oid, e);
  *oid = (cat_oid_t)a->d_i64;
  return CZ_OK;
}

static int size_fn(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, sz_kind_t k,
                   err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  cat_oid_t oid;
  if (!env || rel_arg(c, x, env, &a[0], &oid, e) != CZ_OK)
    return CZ_ERR;
  if (k == SZ_RELATION && x->x_nargs > 1) {
    /* The fork name: only main has pages; the others exist in name. */
    const char *fork = arg_str(c, &a[1]);
    if (strcmp(fork, "main") != 0) {
      if (strcmp(fork, "fsm") != 0 && strcmp(fork, "vm") != 0 && strcmp(fork, "init") != 0) {
        err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid fork name");
        return err_hint(e, "Valid fork names are \"main\", \"fsm\", \"vm\", and \"init\".");
      }
      uint64_t none;
      if (!rel_bytes(env->pe_snap, oid, SZ_RELATION, &none)) {
        out->d_null = true;
        return CZ_OK;
      }
      out_i64(out, 0);
      return CZ_OK;
    }
  }
  uint64_t bytes;
  if (!rel_bytes(env->pe_snap, oid, k, &bytes)) {
    out->d_null = true;
    return CZ_OK;
  }
  out_i64(out, (int64_t)bytes);
  return CZ_OK;
}

static int pf_relation_size(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return size_fn(c, x, a, out, SZ_RELATION, e);
}
static int pf_table_size(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return size_fn(c, x, a, out, SZ_TABLE, e);
}
static int pf_indexes_size(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return size_fn(c, x, a, out, SZ_INDEXES, e);
}
static int pf_total_size(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  return size_fn(c, x, a, out, SZ_TOTAL, e);
}

/* The database's size: every page allocated in its file(s) now (tables,
 * indexes, the catalog's trees, storage's own maps), not the file length,
 * which keeps freed extents for reuse. The log is not counted
 * (PostgreSQL's pg_database_size does not count its WAL either). */
static int64_t db_bytes(const pgcat_env_t *env)
{
  st_stats_t ss;
  st_get_stats(bp_storage(db_pool(cat_db(env->pe_snap->cs_cat))), &ss);
  return (int64_t)(ss.ss_pages_allocated * (uint64_t)ST_PAGE_SIZE);
}

static int pf_database_size(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                            err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  const char *dbname = env->pe_database ? env->pe_database : "cadenza";
  if (x->x_args[0]->x_type.t_id == TY_TEXT) {
    const char *name = arg_str(c, &a[0]);
    if (strcmp(name, dbname) != 0)
      return err_set(e, SQLSTATE_INVALID_CATALOG_NAME, "database \"%s\" does not exist", name);
  } else if ((cat_oid_t)a[0].d_i64 != CAT_OID_DATABASE) {
    out->d_null = true; /* PostgreSQL: NULL for an OID that names no database */
    return CZ_OK;
  }
  out_i64(out, db_bytes(env));
  return CZ_OK;
}

/* pg_default (1663) holds the database; pg_global (1664) holds nothing
 * here (roles and the like live in the same file, counted once). */
static int pf_tablespace_size(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  int which = 0;
  if (x->x_args[0]->x_type.t_id == TY_TEXT) {
    const char *name = arg_str(c, &a[0]);
    which = strcmp(name, "pg_default") == 0 ? 1 : strcmp(name, "pg_global") == 0 ? 2 : 0;
    if (!which)
      return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "tablespace \"%s\" does not exist", name);
  } else {
    which = a[0].d_i64 == 1663 ? 1 : a[0].d_i64 == 1664 ? 2 : 0;
    if (!which) {
      out->d_null = true;
      return CZ_OK;
    }
  }
  out_i64(out, which == 1 ? db_bytes(env) : 0);
  return CZ_OK;
}

/* ---- pg_size_pretty and pg_size_bytes (PostgreSQL 15's dbsize.c) --------------------- */

typedef struct sz_unit_s {
  const char *su_name;
  int64_t su_limit;    /* below it (absolute) this unit is used */
  bool su_round;       /* half-rounded when used */
  int su_bits;         /* log2 of the unit in bytes */
} sz_unit_t;

static const sz_unit_t sz_units[] = {
  {"bytes", 10 * 1024, false, 0}, {"kB", 20 * 1024 - 1, true, 10},
  {"MB", 20 * 1024 - 1, true, 20}, {"GB", 20 * 1024 - 1, true, 30},
  {"TB", 20 * 1024 - 1, true, 40}, {"PB", 20 * 1024 - 1, true, 50},
  {NULL, 0, false, 0},
};

/* PostgreSQL's walk: divide by each step's power of two (one bit less
 * when the next unit is half-rounded, so that the rounding bit is kept),
 * truncating toward zero so that negative sizes mirror positive ones. */
static void size_pretty(__int128 size, const char *bytes_text, char *buf, size_t cap)
{
  for (const sz_unit_t *u = sz_units; u->su_name; u++) {
    __int128 mag = size < 0 ? -size : size;
    if (!u[1].su_name || mag < u->su_limit) {
      if (u->su_round)
        size = (size + (size < 0 ? -1 : 1)) / 2;
      if (u == sz_units && bytes_text) {
        snprintf(buf, cap, "%s bytes", bytes_text);
        return;
      }
      char digits[48];
      int n = 0;
      __int128 v = size < 0 ? -size : size;
      do {
        digits[n++] = (char)('0' + (int)(v % 10));
        v /= 10;
      } while (v);
      size_t o = 0;
      if (size < 0)
        buf[o++] = '-';
      while (n > 0 && o + 1 < cap)
        buf[o++] = digits[--n];
      snprintf(buf + o, cap - o, " %s", u->su_name);
      return;
    }
    int bits = u[1].su_bits - u->su_bits - (u[1].su_round ? 1 : 0) + (u->su_round ? 1 : 0);
    size /= (__int128)1 << bits;
  }
}

static int pf_size_pretty(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)e;
  char buf[96];
  size_pretty(a[0].d_i64, NULL, buf, sizeof buf);
  out_text(c, out, buf);
  return CZ_OK;
}

/* The numeric form: a fraction shows only in bytes ("1.5 bytes"); past
 * that, PostgreSQL's numeric divisions truncate, which the integer part
 * does exactly. */
static int pf_size_pretty_num(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                              err_t *e)
{
  (void)e;
  const num_t *n = &a[0].d_num;
  __int128 ip = n->n_val;
  for (int i = 0; i < n->n_scale; i++)
    ip /= 10;
  char txt[64];
  int tl = ty_format_text(x->x_args[0]->x_type, &a[0], txt, sizeof txt - 1);
  txt[tl > 0 ? tl : 0] = '\0';
  char buf[96];
  size_pretty(ip, txt, buf, sizeof buf);
  out_text(c, out, buf);
  return CZ_OK;
}

/* pg_size_bytes('1.5 GB'): a number (sign, digits, fraction, exponent)
 * and an optional unit, case-insensitive; the product rounded to bigint
 * (half away from zero) as numeric -> bigint does. */
static int pf_size_bytes(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  const char *str = arg_str(c, &a[0]);
  const char *p = str;
  while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
    p++;
  bool neg = false;
  if (*p == '+' || *p == '-')
    neg = *p++ == '-';
  __int128 mant = 0;
  int scale = 0, ndig = 0, sig = 0;
  bool overflow = false;
  for (; *p >= '0' && *p <= '9'; p++, ndig++) {
    if (sig < NUM_MAX_DIGITS) {
      mant = mant * 10 + (*p - '0');
      sig += mant != 0;
    } else {
      overflow = true;
    }
  }
  if (*p == '.') {
    for (p++; *p >= '0' && *p <= '9'; p++, ndig++)
      if (sig < NUM_MAX_DIGITS) {
        mant = mant * 10 + (*p - '0');
        sig += mant != 0;
        scale++;
      }
  }
  if (ndig == 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid size: \"%s\"", str);
  int exp10 = 0;
  if ((*p == 'e' || *p == 'E') && (p[1] == '+' || p[1] == '-' || (p[1] >= '0' && p[1] <= '9'))) {
    const char *q = p + 1;
    bool eneg = false;
    if (*q == '+' || *q == '-')
      eneg = *q++ == '-';
    if (*q >= '0' && *q <= '9') {
      long ev = 0;
      for (; *q >= '0' && *q <= '9'; q++)
        if (ev < 100000)
          ev = ev * 10 + (*q - '0');
      exp10 = (int)(eneg ? -ev : ev);
      p = q;
    }
  }
  while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
    p++;
  size_t ulen = strlen(p);
  while (ulen > 0 && (p[ulen - 1] == ' ' || (p[ulen - 1] >= '\t' && p[ulen - 1] <= '\r')))
    ulen--;
  int bits = -1;
  if (ulen == 0) {
    bits = 0;
  } else {
    for (const sz_unit_t *u = sz_units; u->su_name; u++)
      if (strlen(u->su_name) == ulen && strncasecmp(p, u->su_name, ulen) == 0)
        bits = u->su_bits;
  }
  if (bits < 0) {
    err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid size: \"%s\"", str);
    err_detail(e, "Invalid size unit: \"%.*s\".", (int)ulen, p);
    return err_hint(e, "Valid units are \"bytes\", \"kB\", \"MB\", \"GB\", \"TB\", and \"PB\".");
  }
  /* value = mant * 10^(exp10 - scale) * 2^bits, in 128 bits: a fraction's
   * trailing zeros go first (exact), then, while mant * 2^bits could pass
   * 2^126, its last digits (at least 22 significant digits stay: finer
   * than a byte once the value fits a bigint); an integer past 2^126 / 10
   * cannot fit one. */
  const __int128 cap = (__int128)1 << 126;
  int e10 = exp10 - scale;
  __int128 v = mant;
  if (mant != 0 && (overflow || e10 > 40))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
  while (e10 < 0 && v != 0 && (v % 10 == 0 || v > (cap >> bits))) {
    v /= 10;
    e10++;
  }
  for (; e10 > 0 && v != 0; e10--) {
    if (v > cap / 10)
      return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
    v *= 10;
  }
  if (v > (cap >> bits))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
  v *= (__int128)1 << bits;
  if (e10 < 0) {
    if (-e10 > NUM_MAX_DIGITS) {
      v = 0; /* v < 2^126 < 10^38 / 2: below half a byte */
    } else {
      __int128 div = 1;
      for (; e10 < 0; e10++)
        div *= 10;
      v = (v + div / 2) / div; /* half away from zero (v is the magnitude) */
    }
  }
  if (v > (__int128)INT64_MAX + (neg ? 1 : 0))
    return err_set(e, SQLSTATE_NUMERIC_OUT_OF_RANGE, "bigint out of range");
  out_i64(out, neg ? (int64_t)(-v) : (int64_t)v);
  return CZ_OK;
}

/* ---- the table --------------------------------------------------------------------------- */

#define I8 TY_INT8
#define TX TY_TEXT
#define SV (XF_STRICT | XF_VOLATILE)

const xfunc_def_t pgcat_size_funcs[] = {
  {.fd_name = "pg_relation_size", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_relation_size},
  {.fd_name = "pg_relation_size", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_relation_size},
  {.fd_name = "pg_relation_size", .fd_nargs = 2, .fd_args = {I8, TX}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_relation_size},
  {.fd_name = "pg_relation_size", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_relation_size},
  {.fd_name = "pg_table_size", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_table_size},
  {.fd_name = "pg_table_size", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_table_size},
  {.fd_name = "pg_indexes_size", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_indexes_size},
  {.fd_name = "pg_indexes_size", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_indexes_size},
  {.fd_name = "pg_total_relation_size", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_total_size},
  {.fd_name = "pg_total_relation_size", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_total_size},
  {.fd_name = "pg_database_size", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_database_size},
  {.fd_name = "pg_database_size", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_database_size},
  {.fd_name = "pg_tablespace_size", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_tablespace_size},
  {.fd_name = "pg_tablespace_size", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8,
   .fd_flags = SV, .fd_row = pf_tablespace_size},
  {.fd_name = "pg_size_pretty", .fd_nargs = 1, .fd_args = {I8}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_size_pretty},
  {.fd_name = "pg_size_pretty", .fd_nargs = 1, .fd_args = {TY_NUMERIC}, .fd_result = TX,
   .fd_flags = XF_STRICT, .fd_row = pf_size_pretty_num},
  {.fd_name = "pg_size_bytes", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8,
   .fd_flags = XF_STRICT, .fd_row = pf_size_bytes},
};
const int pgcat_size_nfuncs = (int)CZ_ARRAY_LEN(pgcat_size_funcs);

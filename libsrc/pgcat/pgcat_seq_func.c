/* pgcat_seq_func — the sequence functions: nextval, currval, setval (2
 * and 3 arguments), lastval, Virtuoso's sequence_next, and
 * pg_get_serial_sequence.
 *
 * Design notes: a sequence is named by text ('s', 'public.s', '"S"') or
 * by OID (what 's'::regclass gives), resolved in the statement's catalog
 * snapshot as regclass input is; the values come from the catalog
 * (cat_seq_*), with the session's state and transaction from the
 * environment the engine installs (pgcat_env_t pe_seqs, pe_txn). Every
 * one of them is volatile: evaluated once per row, never folded. Each
 * checks the statement's role's privileges on the sequence first, as
 * PostgreSQL (cat_check_sequence_priv: nextval USAGE or UPDATE, currval
 * SELECT or USAGE, setval UPDATE; lastval checks nothing yet).
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

static char *arg_str(xctx_t *c, const datum_t *d)
{
  return arena_sprintf(c->xc_arena, "%.*s", (int)d->d_str.s_len, d->d_str.s_ptr);
}

/* The sequence named by a (text, or an OID when by_oid). */
static int seq_arg(xctx_t *c, const pgcat_env_t *env, const datum_t *a, bool by_oid,
                   const cat_sequence_t **out, err_t *e)
{
  cat_oid_t oid;
  const char *shown = NULL;
  if (by_oid) {
    oid = (cat_oid_t)a->d_i64;
  } else {
    shown = arg_str(c, a);
    if (pgcat_regclass_in(env, shown, &oid, e) != CZ_OK)
      return CZ_ERR;
  }
  *out = cat_sequence_by_oid(env->pe_snap, oid);
  if (*out)
    return CZ_OK;
  if (!shown)
    shown = pgcat_regclass_out(env, oid, c->xc_arena);
  if (by_oid && !cat_table_by_oid(env->pe_snap, oid) && !cat_index_by_oid(env->pe_snap, oid) &&
      !pgcat_find_oid(oid))
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "could not open relation with OID %u",
                   (unsigned)oid);
  return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", shown);
}

/* The privilege check of a sequence function for the statement's role
 * (any of the privileges, as PostgreSQL: nextval USAGE or UPDATE, currval
 * and lastval SELECT or USAGE, setval UPDATE). */
static int seq_allowed(const pgcat_env_t *env, const cat_sequence_t *sq, uint32_t any_of, err_t *e)
{
  return cat_check_sequence_priv(env->pe_snap, env->pe_user, sq, any_of, e);
}

static void out_int(datum_t *out, int64_t v)
{
  out->d_null = false;
  out->d_i64 = v;
}

static int do_nextval(xctx_t *c, const datum_t *a, bool by_oid, datum_t *out, err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  const cat_sequence_t *sq;
  if (!env || seq_arg(c, env, &a[0], by_oid, &sq, e) != CZ_OK ||
      seq_allowed(env, sq, CAT_PRIV_USAGE | CAT_PRIV_UPDATE, e) != CZ_OK)
    return CZ_ERR;
  int64_t v;
  if (!env->pe_seqs)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "nextval called outside a session");
  if (cat_seq_nextval(env->pe_seqs, sq, env->pe_txn, env->pe_cancel, &v, e) != CZ_OK)
    return CZ_ERR;
  out_int(out, v);
  return CZ_OK;
}

static int pf_nextval(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_nextval(c, a, false, out, e);
}

static int pf_nextval_oid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_nextval(c, a, true, out, e);
}

static int do_currval(xctx_t *c, const datum_t *a, bool by_oid, datum_t *out, err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  const cat_sequence_t *sq;
  if (!env || seq_arg(c, env, &a[0], by_oid, &sq, e) != CZ_OK ||
      seq_allowed(env, sq, CAT_PRIV_SELECT | CAT_PRIV_USAGE, e) != CZ_OK)
    return CZ_ERR;
  int64_t v;
  if (!env->pe_seqs)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "currval of sequence \"%s\" is not yet defined in this session", sq->sq_name);
  if (cat_seq_currval(env->pe_seqs, sq, &v, e) != CZ_OK)
    return CZ_ERR;
  out_int(out, v);
  return CZ_OK;
}

static int pf_currval(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_currval(c, a, false, out, e);
}

static int pf_currval_oid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_currval(c, a, true, out, e);
}

static int pf_lastval(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x, (void)a;
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  int64_t v;
  if (!env->pe_seqs)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE, "lastval is not yet defined in this session");
  if (cat_seq_lastval(env->pe_seqs, env->pe_snap, &v, e) != CZ_OK)
    return CZ_ERR;
  out_int(out, v);
  return CZ_OK;
}

/* setval(seq, v [, is_called]): is_called NULL means true. */
static int do_setval(xctx_t *c, const datum_t *a, bool by_oid, bool three, datum_t *out, err_t *e)
{
  const pgcat_env_t *env = pgcat_env_get(c, e);
  const cat_sequence_t *sq;
  if (!env || seq_arg(c, env, &a[0], by_oid, &sq, e) != CZ_OK ||
      seq_allowed(env, sq, CAT_PRIV_UPDATE, e) != CZ_OK)
    return CZ_ERR;
  bool called = three ? a[2].d_bool : true;
  if (cat_seq_setval(env->pe_seqs, sq, env->pe_txn, env->pe_cancel, a[1].d_i64, called, e) !=
      CZ_OK)
    return CZ_ERR;
  out_int(out, a[1].d_i64);
  return CZ_OK;
}

static int pf_setval(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_setval(c, a, false, false, out, e);
}

static int pf_setval_oid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_setval(c, a, true, false, out, e);
}

static int pf_setval3(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_setval(c, a, false, true, out, e);
}

static int pf_setval3_oid(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)x;
  return do_setval(c, a, true, true, out, e);
}

/* pg_get_serial_sequence(table, column): the sequence OWNED BY the column
 * (serial or identity), schema-qualified; NULL when it has none. */
static int pf_get_serial_sequence(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out,
                                  err_t *e)
{
  (void)x;
  const pgcat_env_t *env = pgcat_env_get(c, e);
  if (!env)
    return CZ_ERR;
  cat_oid_t oid;
  if (pgcat_regclass_in(env, arg_str(c, &a[0]), &oid, e) != CZ_OK)
    return CZ_ERR;
  const cat_table_t *t = cat_table_by_oid(env->pe_snap, oid);
  const char *col = arg_str(c, &a[1]);
  int colno = t ? cat_find_column(t, col) : -1;
  if (colno < 0)
    return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist",
                   col, t ? t->ct_name : arg_str(c, &a[0]));
  out->d_null = true;
  for (int i = 0; i < env->pe_snap->cs_nsequences; i++) {
    const cat_sequence_t *sq = env->pe_snap->cs_sequences[i];
    if (sq->sq_owned_table == t->ct_oid && sq->sq_owned_col == colno) {
      const char *s = arena_sprintf(c->xc_arena, "%s.%s",
                                    pgcat_quote_ident(sq->sq_schema_name, c->xc_arena),
                                    pgcat_quote_ident(sq->sq_name, c->xc_arena));
      out->d_null = false;
      out->d_str.s_ptr = s;
      out->d_str.s_len = (uint32_t)strlen(s);
      break;
    }
  }
  return CZ_OK;
}

#define I8 TY_INT8
#define TX TY_TEXT
#define BO TY_BOOL
#define SV (XF_STRICT | XF_VOLATILE)

/* The text forms first: an untyped literal ('s') resolves to them. */
const xfunc_def_t pgcat_seq_funcs[] = {
  {.fd_name = "nextval", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_nextval},
  {.fd_name = "nextval", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_nextval_oid},
  {.fd_name = "sequence_next", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_nextval},
  {.fd_name = "currval", .fd_nargs = 1, .fd_args = {TX}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_currval},
  {.fd_name = "currval", .fd_nargs = 1, .fd_args = {I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_currval_oid},
  {.fd_name = "lastval", .fd_nargs = 0, .fd_result = I8, .fd_flags = XF_VOLATILE,
   .fd_row = pf_lastval},
  {.fd_name = "setval", .fd_nargs = 2, .fd_args = {TX, I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_setval},
  {.fd_name = "setval", .fd_nargs = 2, .fd_args = {I8, I8}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_setval_oid},
  {.fd_name = "setval", .fd_nargs = 3, .fd_args = {TX, I8, BO}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_setval3},
  {.fd_name = "setval", .fd_nargs = 3, .fd_args = {I8, I8, BO}, .fd_result = I8, .fd_flags = SV,
   .fd_row = pf_setval3_oid},
  {.fd_name = "pg_get_serial_sequence", .fd_nargs = 2, .fd_args = {TX, TX}, .fd_result = TX,
   .fd_flags = SV, .fd_row = pf_get_serial_sequence},
};
const int pgcat_seq_nfuncs = (int)CZ_ARRAY_LEN(pgcat_seq_funcs);

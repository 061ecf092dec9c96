/* en_prepared — named prepared statements: SQL PREPARE, EXECUTE and
 * DEALLOCATE, and the protocol's named statements (a Parse with a name),
 * in one namespace per session, as PostgreSQL keeps them: EXECUTE runs a
 * statement a client prepared by Parse, Bind finds one made by PREPARE,
 * DEALLOCATE [ALL] and Close remove either kind.
 *
 * Design notes:
 * - The table is a small hash of malloc'd entries in the session (names
 *   come and go for the session's whole life, so not its arena). An entry
 *   owns its statement's owner reference: removing it frees the statement
 *   once no portal runs it any more (estmt_free defers).
 * - An entry may hold no statement: the protocol's empty query.
 * - PREPARE prepares the inner statement's own text as a Parse would, with
 *   the given parameter types (PostgreSQL keeps OIDs only, so modifiers
 *   such as varchar(3) do not survive either); error positions are moved
 *   to the PREPARE's text. Not transactional: a ROLLBACK keeps it.
 * - An EXECUTE statement is described when prepared (its rows are the
 *   target's, copied, so Describe and RowDescription work) and runs the
 *   target through a portal of its own (po_inner) that the EXECUTE portal
 *   drives, row limits and suspension included. A target whose result
 *   changed in between is 0A000, PostgreSQL's "cached plan must not change
 *   result type".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/session/session_int.h"

/* A protocol statement may itself be an EXECUTE, and names can be
 * re-pointed (x runs y, y is re-prepared to run x): nesting is bounded,
 * 54001 as PostgreSQL's stack depth check. */
#define EN_EXEC_MAX_DEPTH 16

struct eprep_s {
  char *pr_name;
  estmt_t *pr_st;             /* NULL: the empty query */
  struct eprep_s *pr_next;
};

static unsigned prep_bucket(const char *name)
{
  return (unsigned)(hash64(name, strlen(name), 0) % EN_PREP_BUCKETS);
}

static struct eprep_s **prep_slot(esession_t *s, const char *name)
{
  struct eprep_s **pp = &s->se_prepared[prep_bucket(name)];
  while (*pp && strcmp((*pp)->pr_name, name) != 0)
    pp = &(*pp)->pr_next;
  return pp;
}

int esession_prepared_add(esession_t *s, const char *name, estmt_t *st, err_t *e)
{
  struct eprep_s **pp = prep_slot(s, name);
  if (*pp)
    return err_set(e, SQLSTATE_DUPLICATE_PSTMT, "prepared statement \"%s\" already exists", name);
  struct eprep_s *p = calloc(1, sizeof *p);
  if (!p || !(p->pr_name = strdup(name))) {
    free(p);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  }
  p->pr_st = st;
  *pp = p;
  return CZ_OK;
}

bool esession_prepared_find(esession_t *s, const char *name, estmt_t **st)
{
  struct eprep_s *p = *prep_slot(s, name);
  *st = p ? p->pr_st : NULL;
  return p != NULL;
}

static void prep_free(struct eprep_s *p)
{
  if (p->pr_st)
    estmt_free(p->pr_st);
  free(p->pr_name);
  free(p);
}

bool esession_prepared_remove(esession_t *s, const char *name)
{
  struct eprep_s **pp = prep_slot(s, name);
  struct eprep_s *p = *pp;
  if (!p)
    return false;
  *pp = p->pr_next;
  prep_free(p);
  return true;
}

void en_prepared_free_all(esession_t *s)
{
  for (int i = 0; i < EN_PREP_BUCKETS; i++)
    while (s->se_prepared[i]) {
      struct eprep_s *p = s->se_prepared[i];
      s->se_prepared[i] = p->pr_next;
      prep_free(p);
    }
}

/* ---- PREPARE, DEALLOCATE ------------------------------------------------ */

/* 1-based character position of byte off in text (UTF-8). */
static int char_pos(const char *text, size_t off)
{
  int n = 1;
  for (size_t i = 0; i < off; i++)
    n += ((unsigned char)text[i] & 0xC0) != 0x80;
  return n;
}

int en_prepare_run(eportal_t *p, err_t *e)
{
  estmt_t *st = p->po_run.ru_stmt;
  esession_t *s = st->st_sess;
  const sql_prepare_t *pr = st->st_ast->st_prepare;
  estmt_t *dup;
  if (esession_prepared_find(s, pr->pr_name, &dup))
    return err_set(e, SQLSTATE_DUPLICATE_PSTMT, "prepared statement \"%s\" already exists",
                   pr->pr_name);
  int n = sql_list_len(pr->pr_types);
  uint32_t *oids = arena_zalloc(p->po_run.ru_arena, sizeof(uint32_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    ty_t t;
    if (sql_bind_type(sql_list_at(pr->pr_types, i), &t, e) != CZ_OK)
      return CZ_ERR;
    oids[i] = ty_pg_oid(t);
  }
  estmt_t *inner;
  if (pr->pr_off + pr->pr_len > st->st_len)
    return err_set(e, SQLSTATE_INTERNAL, "PREPARE: statement text out of range");
  if (estmt_prepare(s, st->st_text + pr->pr_off, pr->pr_len, oids, n, &inner, e) != CZ_OK) {
    if (e->er_pos > 0)
      e->er_pos += char_pos(st->st_text, pr->pr_off) - 1;
    return CZ_ERR;
  }
  if (esession_prepared_add(s, pr->pr_name, inner, e) != CZ_OK) {
    estmt_free(inner);
    return CZ_ERR;
  }
  snprintf(p->po_run.ru_tag, sizeof(p->po_run.ru_tag), "PREPARE");
  return CZ_OK;
}

int en_deallocate_run(eportal_t *p, err_t *e)
{
  esession_t *s = p->po_run.ru_stmt->st_sess;
  const char *name = p->po_run.ru_stmt->st_ast->st_deallocate;
  if (!name) {
    en_prepared_free_all(s);
    snprintf(p->po_run.ru_tag, sizeof(p->po_run.ru_tag), "DEALLOCATE ALL");
    return CZ_OK;
  }
  if (!esession_prepared_remove(s, name))
    return err_set(e, SQLSTATE_UNDEFINED_PSTMT, "prepared statement \"%s\" does not exist", name);
  snprintf(p->po_run.ru_tag, sizeof(p->po_run.ru_tag), "DEALLOCATE");
  return CZ_OK;
}

/* ---- EXECUTE -------------------------------------------------------------- */

static int exec_target(esession_t *s, const sql_execute_t *ex, estmt_t **out, err_t *e)
{
  if (!esession_prepared_find(s, ex->ex_name, out))
    return err_set(e, SQLSTATE_UNDEFINED_PSTMT, "prepared statement \"%s\" does not exist",
                   ex->ex_name);
  if (!*out)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "prepared statement \"%s\" is empty and cannot be executed", ex->ex_name);
  estmt_kind_t k = estmt_kind(*out);
  if (k == ESTMT_COPY_IN || k == ESTMT_COPY_OUT || !(*out)->st_ast || (*out)->st_cursor)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "prepared statement \"%s\" cannot be run by EXECUTE", ex->ex_name);
  int n = sql_list_len(ex->ex_args);
  if (n != (*out)->st_nparams)
    return err_set(e, SQLSTATE_SYNTAX_ERROR,
                   "wrong number of parameters for prepared statement \"%s\": expected %d, got %d",
                   ex->ex_name, (*out)->st_nparams, n);
  return CZ_OK;
}

/* Binds the arguments against the target's parameter types into a. */
static int exec_bind_args(estmt_t *st, const estmt_t *target, arena_t *a, xnode_t ***args,
                          ty_t **ptypes, int *nparams, err_t *e)
{
  esession_t *s = st->st_sess;
  const sql_execute_t *ex = st->st_ast->st_execute;
  int n = target->st_nparams;
  ty_t *to = arena_zalloc(a, sizeof(ty_t) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    to[i] = estmt_param_type(target, i);
  sp_env_t env;
  en_env(s, &env);
  return sql_bind_args(a, ex->ex_args, to, n, &env, st->st_given, st->st_nparams_given, args,
                       ptypes, nparams, e);
}

int es_execute_describe(estmt_t *st, err_t *e)
{
  estmt_t *target;
  if (exec_target(st->st_sess, st->st_ast->st_execute, &target, e) != CZ_OK)
    return CZ_ERR;
  xnode_t **args;
  if (exec_bind_args(st, target, st->st_arena, &args, &st->st_ptypes, &st->st_nparams, e) !=
      CZ_OK)
    return CZ_ERR;
  st->st_kind = target->st_kind;
  st->st_ncols = target->st_ncols;
  if (target->st_ncols >= 0) {
    st->st_cols = arena_zalloc(st->st_arena, sizeof(ecol_t) * (size_t)(target->st_ncols + 1));
    for (int i = 0; i < target->st_ncols; i++) {
      st->st_cols[i] = target->st_cols[i];
      st->st_cols[i].ec_name = arena_strdup(st->st_arena, target->st_cols[i].ec_name);
    }
  }
  return CZ_OK;
}

/* Whether target still gives the rows st was described with. */
static bool same_result(const estmt_t *st, const estmt_t *target)
{
  if (st->st_ncols != target->st_ncols)
    return false;
  for (int i = 0; i < st->st_ncols; i++)
    if (st->st_cols[i].ec_type.t_id != target->st_cols[i].ec_type.t_id)
      return false;
  return true;
}

static int exec_start(eportal_t *p, err_t *e)
{
  estmt_t *st = p->po_run.ru_stmt;
  esession_t *s = st->st_sess;
  estmt_t *target;
  if (s->se_exec_depth >= EN_EXEC_MAX_DEPTH)
    return err_set(e, SQLSTATE_STATEMENT_TOO_COMPLEX, "EXECUTE nested more than %d deep", EN_EXEC_MAX_DEPTH);
  if (exec_target(s, st->st_ast->st_execute, &target, e) != CZ_OK)
    return CZ_ERR;
  if (!same_result(st, target))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "cached plan must not change result type");
  xnode_t **args;
  ty_t *ptypes;
  int nparams;
  if (exec_bind_args(st, target, p->po_run.ru_arena, &args, &ptypes, &nparams, e) != CZ_OK)
    return CZ_ERR;
  int n = target->st_nparams;
  datum_t *vals = arena_zalloc(p->po_run.ru_arena, sizeof(datum_t) * (size_t)(n + 1));
  xctx_t xc = {.xc_arena = p->po_run.ru_arena, .xc_params = p->po_run.ru_params,
               .xc_param_types = st->st_ptypes, .xc_nparams = p->po_run.ru_nparams,
               .xc_cancel = &s->se_cancel, .xc_stmt_ts = en_stmt_ts(), .xc_session = s};
  for (int i = 0; i < n; i++)
    if (xeval_scalar(&xc, args[i], &vals[i], e) != CZ_OK)
      return CZ_ERR;
  return en_portal_bind_values(target, vals, n, &p->po_inner, e);
}

int en_execute_run(eportal_t *p, int64_t max_rows, erows_fn_t fn, void *ctx, bool *suspended,
                   err_t *e)
{
  esession_t *s = p->po_run.ru_stmt->st_sess;
  *suspended = false;
  if (p->po_state == EP_NEW) {
    s->se_cancel = false;
    if (es_check_not_failed(s, p->po_run.ru_stmt->st_ast, e) != CZ_OK)
      return CZ_ERR;
    p->po_state = EP_RUNNING;
    if (exec_start(p, e) != CZ_OK) {
      p->po_state = EP_DONE;
      es_tx_fail(s);
      return CZ_ERR;
    }
  }
  /* The inner portal keeps the transaction rules: it commits an implicit
   * transaction or fails the block itself. */
  s->se_exec_depth++;
  int rc = eportal_execute(p->po_inner, max_rows, fn, ctx, suspended, e);
  s->se_exec_depth--;
  if (rc != CZ_OK || !*suspended) {
    p->po_state = EP_DONE;
    snprintf(p->po_run.ru_tag, sizeof(p->po_run.ru_tag), "%s", eportal_tag(p->po_inner));
  }
  return rc;
}

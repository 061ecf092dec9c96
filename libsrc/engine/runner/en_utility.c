/* en_utility — the utility statements the runner carries out from their
 * parse tree: EXPLAIN, COPY with a server file, VACUUM / ANALYZE,
 * CHECKPOINT and DDL. Transaction control, SET / SHOW and the prepared
 * statements' PREPARE / DEALLOCATE are the session's (en_portal.c). */
#include <stdio.h>

#include "engine/runner/runner_int.h"

int er_utility(erun_t *r, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = r->ru_stmt;
  esession_t *s = st->st_sess;
  const sql_stmt_t *ast = st->st_ast;
  switch (ast->st_kind) {
  case SQL_STMT_EXPLAIN:
    return en_explain(r, fn, ctx, e);
  case SQL_STMT_COPY:
    return en_copy_run(r, e);
  case SQL_STMT_VACUUM:
    snprintf(r->ru_tag, sizeof(r->ru_tag), "%s", ast->st_analyze ? "ANALYZE" : "VACUUM");
    return ast->st_analyze ? en_analyze(s, ast, e) : CZ_OK;  /* nothing to vacuum */
  case SQL_STMT_SET_CONSTRAINTS:
    return en_cons_set(s, ast->st_setcons, r->ru_tag, sizeof(r->ru_tag), e);
  case SQL_STMT_LOCK:
    return en_lock(s, ast, r->ru_tag, sizeof(r->ru_tag), e);
  case SQL_STMT_CHECKPOINT:
    if (!esession_is_superuser(s))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be superuser to do CHECKPOINT");
    snprintf(r->ru_tag, sizeof(r->ru_tag), "CHECKPOINT");
    return engine_checkpoint(es_engine(s), e);
  default:
    return en_ddl(s, st->st_text, ast, r->ru_tag, sizeof(r->ru_tag), e);
  }
}

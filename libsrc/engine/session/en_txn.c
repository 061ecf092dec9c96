/* en_txn — transaction control: BEGIN/COMMIT/ROLLBACK blocks, the
 * implicit transaction of a statement outside a block, and the failed
 * state ('E') a block enters when one of its statements fails (only the
 * failed statement is undone; savepoints are en_savepoint.c). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/session/session_int.h"

/* ---- isolation levels ------------------------------------------------------ */

/* PostgreSQL's names of the levels, as SHOW prints them. */
static const char *const en_iso_names[] = {"read uncommitted", "read committed", "repeatable read",
                                           "serializable"};

/* The level a name (any case) stands for: 0..3 as en_iso_names, -1 unknown. */
static int en_iso_parse(const char *v)
{
  for (int i = 0; i < 4; i++)
    if (strcasecmp(v, en_iso_names[i]) == 0)
      return i;
  return -1;
}

/* READ UNCOMMITTED runs as READ COMMITTED (as in PostgreSQL). */
static txn_iso_t en_iso_txn(int level)
{
  return level == 3 ? TXN_ISO_SERIALIZABLE
         : level == 2 ? TXN_ISO_REPEATABLE_READ
                      : TXN_ISO_READ_COMMITTED;
}

static int en_iso_of(sql_isolation_t iso)
{
  switch (iso) {
  case SQL_ISO_READ_UNCOMMITTED: return 0;
  case SQL_ISO_REPEATABLE_READ: return 2;
  case SQL_ISO_SERIALIZABLE: return 3;
  default: return 1;
  }
}

static const char *en_iso_default(esession_t *s)
{
  const char *d = en_guc_get(s, "default_transaction_isolation");
  return d && en_iso_parse(d) >= 0 ? d : "read committed";
}

bool es_tx_always(esession_t *s)
{
  return en_iso_txn(s->se_iso) != TXN_ISO_READ_COMMITTED;
}

/* The level of the next transaction: the GUC and its parsed copy. */
static void en_iso_put(esession_t *s, int level)
{
  s->se_iso = level;
  en_guc_put_value(s, "transaction_isolation", en_iso_names[level]);
}

/* After a block ends the next transaction starts with the default level. */
static void en_iso_reset(esession_t *s)
{
  en_iso_put(s, en_iso_parse(en_iso_default(s)));
}

int en_iso_guc_set(esession_t *s, const char *name, const char *value, err_t *e)
{
  if (!*value)
    value = "read committed"; /* RESET, SET … TO DEFAULT */
  int level = en_iso_parse(value);
  if (level < 0)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "invalid value for parameter \"%s\": \"%s\"", name, value);
  if (strcasecmp(name, "default_transaction_isolation") == 0) {
    en_guc_put_value(s, "default_transaction_isolation", en_iso_names[level]);
    if (!s->se_block)
      en_iso_reset(s);
    return CZ_OK;
  }
  /* transaction_isolation: this transaction's level, before its first query */
  if (s->se_tx)
    return err_set(e, SQLSTATE_ACTIVE_TX,
                   "SET TRANSACTION ISOLATION LEVEL must be called before any query");
  if (s->se_block)
    en_iso_put(s, level);
  return CZ_OK;
}

/* BEGIN's or SET TRANSACTION's modes. Only the isolation level changes
 * anything; READ ONLY and DEFERRABLE are accepted and not enforced. */
static int en_iso_modes(esession_t *s, const sql_txnmode_t *tm, bool begin, err_t *e)
{
  if (!tm || tm->tm_isolation == SQL_ISO_DEFAULT)
    return CZ_OK;
  const char *name = en_iso_names[en_iso_of(tm->tm_isolation)];
  if (tm->tm_session)
    return en_iso_guc_set(s, "default_transaction_isolation", name, e);
  if (!begin && !s->se_block) {
    es_notice(s, "WARNING", SQLSTATE_NO_ACTIVE_TX,
              "SET TRANSACTION can only be used in transaction blocks");
    return CZ_OK;
  }
  return en_iso_guc_set(s, "transaction_isolation", name, e);
}

int es_tx_ensure(esession_t *s, bool *implicit, err_t *e)
{
  *implicit = false;
  if (s->se_tx) { /* a serializable transaction a read doomed fails here, */
    if (txn_check_serializable(s->se_tx, e) != CZ_OK)
      return CZ_ERR;
    return txn_check_snapshot(s->se_tx, e); /* a snapshot cancelled as too old too */
  }
  s->se_tx = txn_begin(s->se_eng->en_db, 0, e);
  if (!s->se_tx)
    return CZ_ERR;
  /* The level is taken now, at the transaction's first statement: its
   * snapshot (REPEATABLE READ, SERIALIZABLE) starts here. */
  txn_iso_t iso = en_iso_txn(s->se_iso);
  if (iso != TXN_ISO_READ_COMMITTED && txn_set_isolation(s->se_tx, iso, e) != CZ_OK) {
    txn_rollback(s->se_tx, NULL);
    s->se_tx = NULL;
    return CZ_ERR;
  }
  txn_set_cancel(s->se_tx, &s->se_cancel);
  txn_set_lock_timeout(s->se_tx, &s->se_lock_timeout_ms);
  /* Inside a multi-statement text the transaction outlives the
   * statement: esession_end_implicit ends it. */
  *implicit = !s->se_block && !s->se_multi;
  return CZ_OK;
}

void esession_begin_implicit(esession_t *s)
{
  s->se_multi = true;
}

int esession_end_implicit(esession_t *s, bool ok, err_t *e)
{
  bool was = s->se_multi;
  s->se_multi = false;
  if (!was || s->se_block || !s->se_tx)
    return CZ_OK;
  return es_tx_end_implicit(s, ok, e);
}

int es_tx_end_implicit(esession_t *s, bool ok, err_t *e)
{
  txn_t *tx = s->se_tx;
  if (!tx)
    return CZ_OK;
  if (ok && er_cons_commit(s, e) != CZ_OK) {  /* deferred constraints fail the commit */
    s->se_tx = NULL;
    txn_rollback(tx, NULL);
    es_refresh_snapshot(s);
    return CZ_ERR;
  }
  s->se_tx = NULL;
  int rc = ok ? txn_commit(tx, e) : txn_rollback(tx, NULL);
  es_refresh_snapshot(s);
  return ok ? rc : CZ_OK;
}

void es_tx_fail(esession_t *s)
{
  if (s->se_block) {
    en_cursor_close_all(s);
    /* Undo the failed statement only (back to its mark); the block stays
     * failed, its earlier work intact, until ROLLBACK, COMMIT or ROLLBACK
     * TO. Without a usable mark the whole transaction goes now. */
    if (s->se_tx && !en_sp_fail(s)) {
      txn_rollback(s->se_tx, NULL);
      s->se_tx = NULL;
    }
    s->se_status = 'E';
    es_refresh_snapshot(s);
  } else if (s->se_tx) {
    txn_rollback(s->se_tx, NULL);
    s->se_tx = NULL;
    es_refresh_snapshot(s);
  }
}

void esession_fail(esession_t *s)
{
  if (s->se_block && s->se_status == 'E')
    return;
  en_sp_stmt_mark(s); /* no statement ran: nothing of the block to undo */
  es_tx_fail(s);
}

bool esession_is_superuser(const esession_t *s) { return s->se_superuser; }

bool es_in_block(const esession_t *s) { return s->se_block; }

/* Statements allowed in a failed transaction block. */
static bool en_is_tx_exit(const sql_stmt_t *ast)
{
  return ast && (ast->st_kind == SQL_STMT_COMMIT || ast->st_kind == SQL_STMT_ROLLBACK ||
                 ast->st_kind == SQL_STMT_ROLLBACK_TO);
}

int es_check_not_failed(esession_t *s, const sql_stmt_t *ast, err_t *e)
{
  if (s->se_status == 'E' && !en_is_tx_exit(ast))
    return err_set(e, SQLSTATE_IN_FAILED_TX,
                   "current transaction is aborted, commands ignored until end of transaction "
                   "block");
  en_sp_stmt_mark(s);  /* a statement phase begins: its failure undoes what follows only */
  return CZ_OK;
}

static int tx_finish(esession_t *s, bool commit, err_t *e)
{
  en_cursor_close_all(s);  /* cursors end with their block */
  txn_t *tx = s->se_tx;
  /* deferred constraints: a failure makes the COMMIT a rollback that reports it */
  bool cons_failed = tx && commit && er_cons_commit(s, e) != CZ_OK;
  s->se_tx = NULL;
  s->se_block = false;
  s->se_status = 'I';
  int rc = CZ_OK;
  if (cons_failed) {
    txn_rollback(tx, NULL);
    rc = CZ_ERR;
  } else if (tx)
    rc = commit ? txn_commit(tx, e) : txn_rollback(tx, e);
  es_refresh_snapshot(s);
  en_iso_reset(s);
  return rc;
}

int en_tx_control(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e)
{
  switch (st->st_kind) {
  case SQL_STMT_BEGIN:
    snprintf(tag, tagcap, "BEGIN");
    if (s->se_block) {
      es_notice(s, "WARNING", SQLSTATE_ACTIVE_TX, "there is already a transaction in progress");
      return CZ_OK;
    }
    s->se_block = true;
    s->se_status = 'T';
    en_iso_reset(s);
    if (en_iso_modes(s, st->st_txn, true, e) != CZ_OK) {
      s->se_block = false;
      s->se_status = 'I';
      return CZ_ERR;
    }
    return CZ_OK;
  case SQL_STMT_COMMIT:
    if (!s->se_block) {
      es_notice(s, "WARNING", SQLSTATE_NO_ACTIVE_TX, "there is no transaction in progress");
      snprintf(tag, tagcap, "COMMIT");
      return CZ_OK;
    }
    if (s->se_status == 'E') {
      /* COMMIT of a failed block rolls back, and says so in the tag. */
      snprintf(tag, tagcap, "ROLLBACK");
      return tx_finish(s, false, e);
    }
    snprintf(tag, tagcap, "COMMIT");
    return tx_finish(s, true, e);
  case SQL_STMT_ROLLBACK:
    snprintf(tag, tagcap, "ROLLBACK");
    if (!s->se_block) {
      es_notice(s, "WARNING", SQLSTATE_NO_ACTIVE_TX, "there is no transaction in progress");
      return CZ_OK;
    }
    return tx_finish(s, false, e);
  case SQL_STMT_SET_TRANSACTION:
    snprintf(tag, tagcap, "SET");
    return en_iso_modes(s, st->st_txn, false, e);
  default:
    return en_sp_control(s, st, tag, tagcap, e);
  }
}

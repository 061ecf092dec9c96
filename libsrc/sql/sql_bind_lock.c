/* sql_bind_lock — SELECT … FOR UPDATE / FOR NO KEY UPDATE / FOR SHARE /
 * FOR KEY SHARE [OF t, …] [NOWAIT | SKIP LOCKED]: which tables of a block
 * lock their rows, PostgreSQL's errors where locking is not allowed, and
 * what the LockRows operator (exec/op_lockrows.c) over the block's rows
 * needs (lp_lock_t; opt/opt_gen.c builds the operator).
 *
 * Design notes:
 * - A locked table is a FROM unit with un_rowid: its scan also returns the
 *   row locator, one block column after the table's (the scope gets one
 *   more, not nameable, column). The locators travel to the top of the
 *   block as hidden output columns, so the rows are locked after the sort
 *   and before LIMIT, as PostgreSQL's LockRows; the final projection
 *   drops them.
 * - The rows of a one-table block are re-checked when another transaction
 *   changed them before the lock was granted (read committed's
 *   EvalPlanQual): the operator gets the WHERE and the output expressions
 *   over the block row. Blocks of several tables (and blocks whose WHERE
 *   or outputs hold subqueries) get no recheck: such a row is 40001.
 * - Not locked (yet): tables inside an explicit JOIN that is not a plain
 *   inner join (0A000, PostgreSQL's error for the nullable side of an
 *   outer join), and views, subqueries and WITH queries in FROM (0A000
 *   when OF names them; left unlocked otherwise).
 */
#include <string.h>

#include "sql/sql_bind_int.h"

/* The locking request of the block being bound (b->b_lock). */
struct bd_lockreq_s {
  const sql_query_t *lq_q;
  int lq_n, lq_cap;
  const sp_table_t **lq_tables;
  int *lq_col;                  /* block column of each one's locator */
  int *lq_base;                 /* block column of its first column */
};

bd_lockreq_t *bd_lock_begin(bd_t *b, const sql_query_t *q)
{
  bd_lockreq_t *saved = b->b_lock;
  b->b_lock = NULL;
  if (q->qu_kind == SQL_Q_SELECT && q->qu_lock != SQL_LOCK_NONE) {
    bd_lockreq_t *lq = arena_zalloc(b->b_a, sizeof(*lq));
    lq->lq_q = q;
    b->b_lock = lq;
  }
  return saved;
}

static bool name_in(const sql_list_t *names, const char *alias)
{
  for (int i = 0; i < sql_list_len(names); i++) {
    const sql_name_t *n = sql_list_at(names, i);
    if (strcmp(n->nm_name, alias) == 0)
      return true;
  }
  return false;
}

bool bd_lock_wants(const bd_t *b, const char *alias)
{
  const bd_lockreq_t *lq = b->b_lock;
  return lq && alias && (!lq->lq_q->qu_lock_of || name_in(lq->lq_q->qu_lock_of, alias));
}

void bd_lock_unit(bd_t *b, bd_scope_t *sc, lp_rel_t *u)
{
  bd_lockreq_t *lq = b->b_lock;
  if (!u->un_table || !bd_lock_wants(b, u->un_alias))
    return;
  if (lq->lq_n == lq->lq_cap) {
    int cap = lq->lq_cap ? lq->lq_cap * 2 : 4;
    const sp_table_t **t = arena_alloc(b->b_a, sizeof(*t) * (size_t)cap);
    int *col = arena_alloc(b->b_a, sizeof(int) * (size_t)cap);
    int *base = arena_alloc(b->b_a, sizeof(int) * (size_t)cap);
    if (lq->lq_n) {
      memcpy(t, lq->lq_tables, sizeof(*t) * (size_t)lq->lq_n);
      memcpy(col, lq->lq_col, sizeof(int) * (size_t)lq->lq_n);
      memcpy(base, lq->lq_base, sizeof(int) * (size_t)lq->lq_n);
    }
    lq->lq_tables = t;
    lq->lq_col = col;
    lq->lq_base = base;
    lq->lq_cap = cap;
  }
  u->un_rowid = true;
  lq->lq_tables[lq->lq_n] = u->un_table;
  lq->lq_base[lq->lq_n] = u->un_base;
  lq->lq_col[lq->lq_n++] = u->un_base + u->un_table->tb_ncols;
  u->un_width++;
  sc->sc_width++;  /* the locator: a column no name reaches */
}

int bd_lock_join_item(bd_t *b, const sql_from_t *item, bool nullable)
{
  if (!b->b_lock || item->fr_kind != SQL_FROM_TABLE)
    return CZ_OK;
  /* (the caller asks of the nullable sides first: PostgreSQL's error wins) */
  const char *alias = item->fr_alias ? item->fr_alias : item->fr_table.nm_name;
  if (!bd_lock_wants(b, alias))
    return CZ_OK;
  const char *what = sql_lock_name(b->b_lock->lq_q->qu_lock);
  if (nullable)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, item->fr_pos,
                    "%s cannot be applied to the nullable side of an outer join", what);
  return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, item->fr_pos,
                  "%s of a table in an outer join or a JOIN with USING or NATURAL is not "
                  "supported yet (name the others in OF)", what);
}

int bd_lock_check(bd_t *b, const bd_scope_t *sc, const sql_select_t *s, bool aggregates,
                  bool windows)
{
  bd_lockreq_t *lq = b->b_lock;
  if (!lq)
    return CZ_OK;
  const sql_query_t *q = lq->lq_q;
  const char *what = sql_lock_name(q->qu_lock);
  const char *with = s->se_distinct || s->se_distinct_on ? "DISTINCT clause"
                     : s->se_group                       ? "GROUP BY clause"
                     : s->se_having                      ? "HAVING clause"
                     : aggregates                        ? "aggregate functions"
                     : windows                           ? "window functions"
                                                         : NULL;
  if (with)
    return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, 0, "%s is not allowed with %s", what, with);
  /* every name of OF must be a table of this block that got locked */
  for (int i = 0; i < sql_list_len(q->qu_lock_of); i++) {
    const sql_name_t *n = sql_list_at(q->qu_lock_of, i);
    bool locked = false;
    for (int k = 0; k < lq->lq_n && !locked; k++)
      for (int r = 0; r < sc->sc_nrels; r++)
        if (sc->sc_rels[r]->rl_table == lq->lq_tables[k] &&
            sc->sc_rels[r]->rl_base == lq->lq_base[k] &&
            strcmp(sc->sc_rels[r]->rl_name, n->nm_name) == 0)
          locked = true;
    if (locked)
      continue;
    bool named = false;
    for (int r = 0; r < sc->sc_nrels; r++)
      if (strcmp(sc->sc_rels[r]->rl_name, n->nm_name) == 0)
        named = true;
    if (named)
      return bd_error(b, SQLSTATE_FEATURE_NOT_SUPPORTED, n->nm_pos,
                      "%s of a view, subquery, function or WITH query in FROM is not "
                      "supported yet",
                      what);
    return bd_error(b, SQLSTATE_UNDEFINED_TABLE, n->nm_pos,
                    "relation \"%s\" in %s clause not found in FROM clause", n->nm_name, what);
  }
  return CZ_OK;
}

int bd_lock_ntables(const bd_t *b)
{
  return b->b_lock ? b->b_lock->lq_n : 0;
}

int bd_lock_col(const bd_t *b, int k)
{
  return b->b_lock->lq_col[k];
}

const lp_lock_t *bd_lock_logical(bd_t *b, const int *rid_out, const lp_block_t *from,
                                 xnode_t **conj, int nconj, xnode_t **outs, int nouts)
{
  bd_lockreq_t *lq = b->b_lock;
  const sql_query_t *q = lq->lq_q;
  lp_lock_t *lk = arena_zalloc(b->b_a, sizeof(*lk));
  if (lq->lq_n == 0)
    return lk;
  oplock_tab_t *tabs = arena_zalloc(b->b_a, sizeof(oplock_tab_t) * (size_t)(lq->lq_n + 1));
  for (int k = 0; k < lq->lq_n; k++)
    tabs[k] = (oplock_tab_t){lq->lq_tables[k]->tb_handle, lq->lq_tables[k]->tb_name, rid_out[k]};
  /* the recheck of a changed row: one table, nothing but its columns */
  oplock_recheck_t *rk = NULL;
  bool simple = lq->lq_n == 1 && from->fb_nunits == 1;
  for (int i = 0; simple && i < nconj; i++)
    simple = !bd_node_has_subq(conj[i]);
  for (int i = 0; simple && i < nouts; i++)
    simple = !bd_node_has_subq(outs[i]);
  if (simple) {
    const sp_table_t *t = lq->lq_tables[0];
    int width = lq->lq_col[0] + 1;
    ty_t *types = arena_zalloc(b->b_a, sizeof(ty_t) * (size_t)(width + 1));
    for (int c = 0; c < width; c++)
      types[c] = ty_plain(TY_TEXT);
    for (int c = 0; c < t->tb_ncols; c++)
      types[lq->lq_base[0] + c] = t->tb_coltypes[c];
    types[lq->lq_col[0]] = ty_plain(TY_BYTEA);
    rk = arena_zalloc(b->b_a, sizeof(*rk));
    *rk = (oplock_recheck_t){.rk_width = width, .rk_types = types, .rk_base = lq->lq_base[0],
                             .rk_ncols = t->tb_ncols, .rk_filter = bd_and_all(b, conj, nconj),
                             .rk_out = outs};
  }
  b->b_locks_rows = true;
  int strength = q->qu_lock == SQL_LOCK_KEY_SHARE       ? QLOCK_FOR_KEY_SHARE
                 : q->qu_lock == SQL_LOCK_SHARE         ? QLOCK_FOR_SHARE
                 : q->qu_lock == SQL_LOCK_NO_KEY_UPDATE ? QLOCK_FOR_NO_KEY_UPDATE
                                                        : QLOCK_FOR_UPDATE;
  *lk = (lp_lock_t){.lk_n = lq->lq_n, .lk_tabs = tabs, .lk_strength = strength,
                    .lk_wait = q->qu_lock_wait == SQL_LOCK_NOWAIT ? QLOCK_NOWAIT
                               : q->qu_lock_wait == SQL_LOCK_SKIP ? QLOCK_SKIP
                                                                  : QLOCK_WAIT,
                    .lk_recheck = rk};
  return lk;
}

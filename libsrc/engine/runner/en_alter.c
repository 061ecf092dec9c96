/* en_alter — ALTER TABLE: the actions of one statement applied to a
 * working copy of the table's definition, then carried out at once (one
 * catalog change, at most one rewrite of the rows).
 *
 * Design notes (engine/runner/README.md, "ALTER TABLE"):
 * - Each action is checked against the definition as the earlier actions
 *   of the statement left it (ADD COLUMN b, ADD PRIMARY KEY (b) works),
 *   with PostgreSQL's SQLSTATEs and words.
 * - What needs the rows: a rewrite (a dropped or retyped column, a column
 *   added with a DEFAULT or NOT NULL, a primary key added or dropped)
 *   reads every row through a planned SELECT of the new columns' values
 *   from the old ones — `CAST((USING) AS type)`, the added column's
 *   DEFAULT (a volatile one, nextval or random(), per row) — and hands
 *   them to the table layer, which fills the new generation's trees in
 *   sorted chunks and builds every index (table/tb_rebuild.c). Without a
 *   rewrite, SET NOT NULL scans for a NULL and ADD UNIQUE builds its
 *   index. Renames and defaults change only the catalog.
 * - Concurrency: readers are never blocked (they read the committed
 *   version, the old trees, until the commit). Every action but RENAME
 *   and SET/DROP DEFAULT closes the table's index-build gate
 *   (cat_build_gate.c) before reading rows: other transactions' writes
 *   to the table are refused with 40001 until the commit, uncommitted
 *   ones are waited for (55P03 after 30 s), and writers holding a
 *   snapshot from before the change get 40001 after it — PostgreSQL
 *   takes ACCESS EXCLUSIVE (readers wait too); here readers go on.
 * - All or nothing: the catalog rows, the new trees' rows and the drop of
 *   the old trees are one transaction's log record.
 * - CHECK and FOREIGN KEY constraints are the constraints work's: ADD
 *   CONSTRAINT of those calls en_alter_add_constraint_cons.
 */
#include <stdio.h>
#include <string.h>

#include "engine/runner/runner_int.h"
#include "exec/expr.h"

typedef struct alt_col_s {
  cat_column_def_t c_def;       /* name, type, NOT NULL, DEFAULT text */
  char c_ident;                 /* identity kind (kept) */
  int c_old;                    /* its number in the old table; -1 added */
  bool c_dropped;
  const char *c_value;          /* SQL text of its new value from the old row (USING, an
                                   added column's DEFAULT); NULL: the old value (NULL
                                   for an added column) */
  bool c_retyped;               /* the value is cast to the new type */
  bool c_check_nn;              /* SET NOT NULL on existing rows: to be checked */
  const char *c_seq;            /* an added serial / identity column's new sequence: owned
                                   by the column once the table has it */
} alt_col_t;

typedef struct alt_idx_s {
  cat_oid_t x_oid;              /* a kept index; 0 new */
  const char *x_name;           /* NULL: the old one, or a derived one */
  bool x_unique;
  bool x_constraint;            /* a UNIQUE constraint (pg_constraint 'u'), not CREATE INDEX's */
  bool x_nulls_nd;              /* NULLS NOT DISTINCT */
  cat_layout_t x_layout;        /* its tree's layout (kept; a new one takes the table's) */
  int x_nkeys, x_ninc;
  int x_keys[CAT_MAX_INDEX_KEYS], x_inc[CAT_MAX_INDEX_KEYS]; /* positions in a_cols */
  bool x_dropped;
} alt_idx_t;

typedef struct alt_s {
  esession_t *a_s;
  arena_t *a_a;
  const cat_table_t *a_t;       /* the table as it was */
  const char *a_name;
  alt_col_t *a_cols;
  int a_ncols, a_capcols;
  int a_npk;
  int a_pk[CAT_MAX_INDEX_KEYS]; /* positions in a_cols */
  const char *a_pk_name;        /* the key's name: given, or the old one; NULL derived */
  alt_idx_t *a_idx;
  int a_nidx, a_capidx;
  bool a_rewrite;               /* the rows are read and written again */
  bool a_gate;                  /* other writers are kept out while the rows are read */
} alt_t;

static int alt_col_find(const alt_t *al, const char *name)
{
  for (int i = 0; i < al->a_ncols; i++)
    if (!al->a_cols[i].c_dropped && strcmp(al->a_cols[i].c_def.cd_name, name) == 0)
      return i;
  return -1;
}

static int alt_no_column(const alt_t *al, const char *name, int pos, err_t *e)
{
  err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist", name,
          al->a_name);
  e->er_pos = pos;
  return CZ_ERR;
}

static alt_col_t *alt_col_push(alt_t *al)
{
  if (al->a_ncols == al->a_capcols) {
    int cap = al->a_capcols * 2 + 8;
    alt_col_t *n = arena_zalloc(al->a_a, sizeof *n * (size_t)cap);
    if (al->a_ncols)
      memcpy(n, al->a_cols, sizeof *n * (size_t)al->a_ncols);
    al->a_cols = n;
    al->a_capcols = cap;
  }
  alt_col_t *c = &al->a_cols[al->a_ncols++];
  memset(c, 0, sizeof *c);
  return c;
}

static alt_idx_t *alt_idx_push(alt_t *al)
{
  if (al->a_nidx == al->a_capidx) {
    int cap = al->a_capidx * 2 + 4;
    alt_idx_t *n = arena_zalloc(al->a_a, sizeof *n * (size_t)cap);
    if (al->a_nidx)
      memcpy(n, al->a_idx, sizeof *n * (size_t)al->a_nidx);
    al->a_idx = n;
    al->a_capidx = cap;
  }
  alt_idx_t *x = &al->a_idx[al->a_nidx++];
  memset(x, 0, sizeof *x);
  return x;
}

static void alt_load(alt_t *al, const cat_table_t *t)
{
  al->a_t = t;
  al->a_name = t->ct_name;
  for (int i = 0; i < t->ct_ncols; i++) {
    alt_col_t *c = alt_col_push(al);
    const cat_column_t *cc = &t->ct_cols[i];
    c->c_def.cd_name = cc->cc_name;
    c->c_def.cd_type = cc->cc_type;
    c->c_def.cd_not_null = cc->cc_not_null;
    c->c_def.cd_default = cc->cc_default;
    c->c_ident = cc->cc_identity;
    c->c_old = i;
  }
  al->a_npk = t->ct_npk;
  for (int i = 0; i < t->ct_npk; i++)
    al->a_pk[i] = t->ct_pk[i];
  al->a_pk_name = t->ct_npk ? t->ct_indexes[0]->ci_name : NULL;
  for (int i = 1; i < t->ct_nindexes; i++) {
    const cat_index_t *ix = t->ct_indexes[i];
    alt_idx_t *x = alt_idx_push(al);
    x->x_oid = ix->ci_oid;
    x->x_unique = ix->ci_unique;
    x->x_constraint = ix->ci_constraint;
    x->x_nulls_nd = ix->ci_nulls_nd;
    x->x_layout = ix->ci_layout;
    x->x_nkeys = ix->ci_nkeys;
    x->x_ninc = ix->ci_ninclude;
    memcpy(x->x_keys, ix->ci_keys, sizeof(int) * (size_t)ix->ci_nkeys);
    if (ix->ci_ninclude)
      memcpy(x->x_inc, ix->ci_include, sizeof(int) * (size_t)ix->ci_ninclude);
  }
}

/* The key columns of an added PRIMARY KEY / UNIQUE, as positions. */
static int alt_key_cols(alt_t *al, const sql_tabcons_t *tc, int *out, int *n, err_t *e)
{
  *n = sql_list_len(tc->tc_columns);
  if (*n < 1 || *n > CAT_MAX_INDEX_KEYS)
    return err_set(e, SQLSTATE_TOO_MANY_COLUMNS, "an index has 1 to %d key columns", CAT_MAX_INDEX_KEYS);
  for (int j = 0; j < *n; j++) {
    const char *name = sql_list_at(tc->tc_columns, j);
    out[j] = alt_col_find(al, name);
    if (out[j] < 0)
      return alt_no_column(al, name, tc->tc_pos, e);
  }
  return CZ_OK;
}

static int alt_add_pk(alt_t *al, const int *cols, int n, const char *name, err_t *e)
{
  if (al->a_npk)
    return err_set(e, SQLSTATE_INVALID_TABLE_DEF, "multiple primary keys for table \"%s\" are not allowed",
                   al->a_name);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < i; j++)
      if (cols[i] == cols[j])
        return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" appears twice in primary key constraint",
                       al->a_cols[cols[i]].c_def.cd_name);
    al->a_pk[i] = cols[i];
    /* PostgreSQL sets NOT NULL on the key's columns (and keeps it if the
     * key is dropped later) */
    al->a_cols[cols[i]].c_def.cd_not_null = true;
  }
  al->a_npk = n;
  al->a_pk_name = name;
  al->a_rewrite = al->a_gate = true;
  return CZ_OK;
}

static int alt_add_unique(alt_t *al, const int *cols, int n, const char *name, bool nulls_nd)
{
  alt_idx_t *x = alt_idx_push(al);
  x->x_name = name;
  x->x_unique = true;
  x->x_nulls_nd = nulls_nd;
  x->x_layout = al->a_t->ct_layout;  /* a secondary index follows its table (en_ddl.c) */
  x->x_constraint = true;
  x->x_nkeys = n;
  memcpy(x->x_keys, cols, sizeof(int) * (size_t)n);
  al->a_gate = true;
  return CZ_OK;
}

/* The kind of an added table constraint: 'p' PRIMARY KEY, 'u' UNIQUE;
 * the CHECK and FOREIGN KEY kinds of the constraints work go to
 * en_alter_add_constraint_cons. */
static char alt_cons_kind(const sql_tabcons_t *tc)
{
  return tc->tc_kind ? tc->tc_kind : (tc->tc_primary ? 'p' : 'u');
}

/* CHECK and FOREIGN KEY: recorded and the table's rows validated as they
 * are before this statement's other actions (en_cons_ddl.c), so a
 * constraint cannot name a column the same statement adds. */
int en_alter_add_constraint_cons(esession_t *s, arena_t *a, const cat_table_t *t,
                                 const sql_tabcons_t *tc, err_t *e)
{
  return en_constraint_add(s, a, t, tc, NULL, e);
}

static int alt_add_column(alt_t *al, const sql_alter_cmd_t *cmd, err_t *e)
{
  const sql_coldef_t *cd = cmd->ac_column;
  if (alt_col_find(al, cd->cd_name) >= 0) {
    if (cmd->ac_if_not_exists) {
      es_notice(al->a_s, "NOTICE", SQLSTATE_DUPLICATE_COLUMN,
                "column \"%s\" of relation \"%s\" already exists, skipping", cd->cd_name, al->a_name);
      return CZ_OK;
    }
    err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" of relation \"%s\" already exists",
            cd->cd_name, al->a_name);
    e->er_pos = cd->cd_pos;
    return CZ_ERR;
  }
  alt_col_t *c = alt_col_push(al);
  c->c_old = -1;
  c->c_def.cd_name = cd->cd_name;
  sql_type_t st = cd->cd_type;
  st.ty_serial = 0; /* serial: the integer type, and a sequence */
  if (sql_bind_type(&st, &c->c_def.cd_type, e) != CZ_OK) {
    e->er_pos = cd->cd_pos;
    return CZ_ERR;
  }
  c->c_def.cd_not_null = cd->cd_not_null;
  if (cd->cd_type.ty_serial || cd->cd_identity) {
    /* its sequence made now (not owned yet: the column has no number
     * before the table changes), each existing row numbered from it */
    sql_create_table_t ct = {.ct_table = {.nm_schema = al->a_t->ct_schema_name,
                                          .nm_name = al->a_name}};
    sql_list_t one = {.ls_n = 1, .ls_cap = 1, .ls_items = (void **)&cd};
    ct.ct_columns = &one;
    char *ident;
    const char **names;
    if (en_serial_plan(al->a_s, al->a_a, &ct, &c->c_def, &ident, &names, e) != CZ_OK ||
        en_serial_make(al->a_s, &ct, &c->c_def, names, 0, e) != CZ_OK)
      return CZ_ERR;
    c->c_ident = ident ? ident[0] : 0;
    c->c_seq = names[0];
    c->c_value = c->c_def.cd_default;
    /* the planned SELECT names the sequence */
    es_refresh_snapshot(al->a_s);
    al->a_rewrite = al->a_gate = true;
  } else if (cd->cd_default) {
    if (!(c->c_def.cd_default = sql_deparse_expr(al->a_a, cd->cd_default, e)) ||
        en_qualify_seq_names(al->a_s, al->a_a, c->c_def.cd_default, &c->c_def.cd_default, e) !=
            CZ_OK)
      return CZ_ERR;
    xnode_t *x;
    bool vol;
    if (sql_bind_default(al->a_a, c->c_def.cd_default, c->c_def.cd_type, &x, &vol, e) != CZ_OK)
      return CZ_ERR;
    /* a DEFAULT NULL changes no row */
    if (!(cd->cd_default->ex_kind == SQL_E_LITERAL && cd->cd_default->ex_lit == SQL_LIT_NULL))
      c->c_value = c->c_def.cd_default;
  }
  int pos = (int)(c - al->a_cols);
  /* existing rows get the DEFAULT (each its own when volatile), or are
   * checked against NOT NULL: the rows are rewritten (an empty table
   * costs nothing) */
  if (c->c_value || c->c_def.cd_not_null)
    al->a_rewrite = al->a_gate = true;
  else
    al->a_gate = true; /* writers of the old layout would drop the new column */
  if (cd->cd_primary && alt_add_pk(al, &pos, 1, cd->cd_pk_name, e) != CZ_OK)
    return CZ_ERR;
  if (cd->cd_unique)
    alt_add_unique(al, &pos, 1, cd->cd_unique_name, cd->cd_unique_nulls_nd);
  return CZ_OK;
}

/* Whether default text names sequence sq in nextval('…') (as DROP
 * SEQUENCE finds the defaults using a sequence). */
static bool alt_default_uses(const char *def, const cat_sequence_t *sq)
{
  if (!def || !strstr(def, "nextval("))
    return false;
  char a[200], b[200];
  snprintf(a, sizeof a, "'%s'", sq->sq_name);
  snprintf(b, sizeof b, "'%s.%s'", sq->sq_schema_name, sq->sq_name);
  return strstr(def, a) || strstr(def, b);
}

/* A sequence owned by column c goes with it: other columns' defaults
 * using it are 2BP01 (PostgreSQL's words), or dropped with CASCADE. */
static int alt_drop_owned_seq(alt_t *al, int c, bool cascade, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(al->a_s);
  cat_t *cat = es_engine(al->a_s)->en_cat;
  for (int i = 0; i < snap->cs_nsequences; i++) {
    const cat_sequence_t *sq = snap->cs_sequences[i];
    if (sq->sq_owned_table != al->a_t->ct_oid || sq->sq_owned_col != al->a_cols[c].c_old ||
        al->a_cols[c].c_old < 0)
      continue;
    for (int k = 0; k < al->a_ncols; k++) {
      alt_col_t *o = &al->a_cols[k];
      if (k == c || o->c_dropped || !alt_default_uses(o->c_def.cd_default, sq))
        continue;
      if (!cascade) {
        err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                "cannot drop column %s of table %s because other objects depend on it",
                al->a_cols[c].c_def.cd_name, al->a_name);
        err_detail(e, "default value for column %s of table %s depends on sequence %s",
                   o->c_def.cd_name, al->a_name, sq->sq_name);
        return err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
      }
      es_notice(al->a_s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION,
                "drop cascades to default value for column %s of table %s", o->c_def.cd_name,
                al->a_name);
      o->c_def.cd_default = NULL;
    }
    for (int t = 0; t < snap->cs_ntables; t++) {
      const cat_table_t *ot = snap->cs_tables[t];
      if (ot->ct_oid == al->a_t->ct_oid)
        continue;
      for (int k = 0; k < ot->ct_ncols; k++) {
        if (!alt_default_uses(ot->ct_cols[k].cc_default, sq))
          continue;
        if (!cascade) {
          err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                  "cannot drop column %s of table %s because other objects depend on it",
                  al->a_cols[c].c_def.cd_name, al->a_name);
          err_detail(e, "default value for column %s of table %s depends on sequence %s",
                     ot->ct_cols[k].cc_name, ot->ct_name, sq->sq_name);
          return err_hint(e, "Use DROP ... CASCADE to drop the dependent objects too.");
        }
        es_notice(al->a_s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION,
                  "drop cascades to default value for column %s of table %s",
                  ot->ct_cols[k].cc_name, ot->ct_name);
        if (cat_set_column_default(cat, es_txn(al->a_s), ot->ct_oid, k, NULL,
                                   ot->ct_cols[k].cc_identity, e) != CZ_OK)
          return CZ_ERR;
      }
    }
  }
  return CZ_OK;
}

static int alt_drop_column(alt_t *al, const sql_alter_cmd_t *cmd, err_t *e)
{
  int c = alt_col_find(al, cmd->ac_name);
  if (c < 0) {
    if (cmd->ac_if_exists) {
      es_notice(al->a_s, "NOTICE", SQLSTATE_UNDEFINED_COLUMN,
                "column \"%s\" of relation \"%s\" does not exist, skipping", cmd->ac_name, al->a_name);
      return CZ_OK;
    }
    return alt_no_column(al, cmd->ac_name, cmd->ac_pos, e);
  }
  int left = 0;
  for (int i = 0; i < al->a_ncols; i++)
    left += !al->a_cols[i].c_dropped;
  if (left == 1)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "cannot drop column \"%s\": tables without columns are not supported",
                   cmd->ac_name);
  if (alt_drop_owned_seq(al, c, cmd->ac_cascade, e) != CZ_OK)
    return CZ_ERR;
  /* views using it: 2BP01, or gone with CASCADE (en_view_ddl.c) */
  if (al->a_cols[c].c_old >= 0 &&
      en_view_column_used(al->a_s, al->a_t, al->a_cols[c].c_old, true, cmd->ac_cascade, e) !=
          CZ_OK)
    return CZ_ERR;
  al->a_cols[c].c_dropped = true;
  /* as PostgreSQL: the indexes and the key that use the column go with it */
  for (int i = 0; i < al->a_npk; i++)
    if (al->a_pk[i] == c) {
      al->a_npk = 0;
      al->a_pk_name = NULL;
      break;
    }
  for (int k = 0; k < al->a_nidx; k++) {
    alt_idx_t *x = &al->a_idx[k];
    for (int i = 0; i < x->x_nkeys; i++)
      x->x_dropped |= x->x_keys[i] == c;
    for (int i = 0; i < x->x_ninc; i++)
      x->x_dropped |= x->x_inc[i] == c;
  }
  al->a_rewrite = al->a_gate = true;
  return CZ_OK;
}

/* "a::integer" for the hint of 42804. */
static int alt_type(alt_t *al, const sql_alter_cmd_t *cmd, err_t *e)
{
  int c = alt_col_find(al, cmd->ac_name);
  if (c < 0)
    return alt_no_column(al, cmd->ac_name, cmd->ac_pos, e);
  alt_col_t *col = &al->a_cols[c];
  ty_t to;
  sql_type_t st = cmd->ac_type;
  if (st.ty_serial)
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "type \"serial\" does not exist");
  if (sql_bind_type(&st, &to, e) != CZ_OK)
    return CZ_ERR;
  /* PostgreSQL cannot re-plan a view over a retyped column: 0A000 */
  if (col->c_old >= 0 && en_view_column_used(al->a_s, al->a_t, col->c_old, false, false, e) != CZ_OK)
    return CZ_ERR;
  ty_t from = col->c_def.cd_type;
  const char *src = col->c_value;
  if (!src && col->c_old >= 0) {
    /* the old column by name, quoted */
    char *q = arena_alloc(al->a_a, strlen(col->c_def.cd_name) * 2 + 3);
    size_t n = 0;
    q[n++] = '"';
    for (const char *p = al->a_t->ct_cols[col->c_old].cc_name; *p; p++) {
      if (*p == '"')
        q[n++] = '"';
      q[n++] = *p;
    }
    q[n++] = '"';
    q[n] = 0;
    src = q;
  }
  if (cmd->ac_expr) {
    if (!(src = sql_deparse_expr(al->a_a, cmd->ac_expr, e)))
      return CZ_ERR;
    if (col->c_old < 0)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "ALTER TYPE … USING of a column added in the same statement is not supported");
  } else if (from.t_id != to.t_id && !xcast_allowed(from, to, false)) {
    char *tn = ty_name(al->a_a, to);
    err_set(e, SQLSTATE_DATATYPE_MISMATCH, "column \"%s\" cannot be cast automatically to type %s",
            col->c_def.cd_name, tn);
    return err_hint(e, "You might need to specify \"USING %s::%s\".", col->c_def.cd_name, tn);
  }
  bool same = !cmd->ac_expr && from.t_id == to.t_id && from.t_len == to.t_len &&
              from.t_prec == to.t_prec && from.t_scale == to.t_scale;
  if (same)
    return CZ_OK;
  if (col->c_def.cd_default) {
    xnode_t *x;
    bool vol;
    err_t e2;
    err_clear(&e2);
    if (sql_bind_default(al->a_a, col->c_def.cd_default, to, &x, &vol, &e2) != CZ_OK) {
      err_set(e, SQLSTATE_DATATYPE_MISMATCH,
              "default for column \"%s\" cannot be cast automatically to type %s",
              col->c_def.cd_name, ty_name(al->a_a, to));
      return CZ_ERR;
    }
  }
  col->c_def.cd_type = to;
  col->c_value = src;
  col->c_retyped = true;
  al->a_rewrite = al->a_gate = true;
  return CZ_OK;
}

static int alt_drop_constraint(alt_t *al, const sql_alter_cmd_t *cmd, err_t *e)
{
  if (al->a_npk && al->a_pk_name && strcmp(al->a_pk_name, cmd->ac_name) == 0) {
    al->a_npk = 0;
    al->a_pk_name = NULL;
    al->a_rewrite = al->a_gate = true;
    return CZ_OK;
  }
  for (int k = 0; k < al->a_nidx; k++) {
    alt_idx_t *x = &al->a_idx[k];
    if (x->x_dropped || !x->x_unique)
      continue;
    const char *name = x->x_name;
    if (!name && x->x_oid) {
      const cat_index_t *ix = cat_index_by_oid(es_snapshot(al->a_s), x->x_oid);
      name = ix ? ix->ci_name : NULL;
    }
    if (name && strcmp(name, cmd->ac_name) == 0) {
      x->x_dropped = true;
      return CZ_OK;
    }
  }
  if (cmd->ac_if_exists) {
    es_notice(al->a_s, "NOTICE", SQLSTATE_UNDEFINED_OBJECT,
              "constraint \"%s\" of relation \"%s\" does not exist, skipping", cmd->ac_name, al->a_name);
    return CZ_OK;
  }
  return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "constraint \"%s\" of relation \"%s\" does not exist",
                 cmd->ac_name, al->a_name);
}

static int alt_rename_constraint(alt_t *al, const sql_alter_cmd_t *cmd, err_t *e)
{
  if (al->a_npk && al->a_pk_name && strcmp(al->a_pk_name, cmd->ac_name) == 0) {
    al->a_pk_name = cmd->ac_newname;
    return CZ_OK;
  }
  for (int k = 0; k < al->a_nidx; k++) {
    alt_idx_t *x = &al->a_idx[k];
    if (x->x_dropped || !x->x_unique)
      continue;
    const char *name = x->x_name;
    if (!name && x->x_oid) {
      const cat_index_t *ix = cat_index_by_oid(es_snapshot(al->a_s), x->x_oid);
      name = ix ? ix->ci_name : NULL;
    }
    if (name && strcmp(name, cmd->ac_name) == 0) {
      x->x_name = cmd->ac_newname;
      return CZ_OK;
    }
  }
  return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "constraint \"%s\" for table \"%s\" does not exist",
                 cmd->ac_name, al->a_name);
}

static int alt_cmd(alt_t *al, const sql_alter_cmd_t *cmd, err_t *e)
{
  int c;
  switch (cmd->ac_kind) {
  case SQL_AT_ADD_COLUMN:
    return alt_add_column(al, cmd, e);
  case SQL_AT_DROP_COLUMN:
    return alt_drop_column(al, cmd, e);
  case SQL_AT_ALTER_TYPE:
    return alt_type(al, cmd, e);
  case SQL_AT_SET_DEFAULT:
  case SQL_AT_DROP_DEFAULT:
    if ((c = alt_col_find(al, cmd->ac_name)) < 0)
      return alt_no_column(al, cmd->ac_name, cmd->ac_pos, e);
    if (cmd->ac_kind == SQL_AT_DROP_DEFAULT) {
      al->a_cols[c].c_def.cd_default = NULL;
      return CZ_OK;
    }
    {
      const char *text = sql_deparse_expr(al->a_a, cmd->ac_expr, e);
      xnode_t *x;
      bool vol;
      if (!text || en_qualify_seq_names(al->a_s, al->a_a, text, &text, e) != CZ_OK ||
          sql_bind_default(al->a_a, text, al->a_cols[c].c_def.cd_type, &x, &vol, e) != CZ_OK)
        return CZ_ERR;
      al->a_cols[c].c_def.cd_default = text;
    }
    return CZ_OK;
  case SQL_AT_SET_NOT_NULL:
    if ((c = alt_col_find(al, cmd->ac_name)) < 0)
      return alt_no_column(al, cmd->ac_name, cmd->ac_pos, e);
    if (!al->a_cols[c].c_def.cd_not_null) {
      al->a_cols[c].c_def.cd_not_null = true;
      al->a_cols[c].c_check_nn = true;
      al->a_gate = true;
    }
    return CZ_OK;
  case SQL_AT_DROP_NOT_NULL:
    if ((c = alt_col_find(al, cmd->ac_name)) < 0)
      return alt_no_column(al, cmd->ac_name, cmd->ac_pos, e);
    for (int i = 0; i < al->a_npk; i++)
      if (al->a_pk[i] == c)
        return err_set(e, SQLSTATE_INVALID_TABLE_DEF, "column \"%s\" is in a primary key", cmd->ac_name);
    al->a_cols[c].c_def.cd_not_null = false;
    return CZ_OK;
  case SQL_AT_ADD_CONSTRAINT: {
    const sql_tabcons_t *tc = cmd->ac_cons;
    char kind = alt_cons_kind(tc);
    if (kind != 'p' && kind != 'u')
      return en_alter_add_constraint_cons(al->a_s, al->a_a, al->a_t, tc, e);
    int cols[CAT_MAX_INDEX_KEYS], n;
    if (alt_key_cols(al, tc, cols, &n, e) != CZ_OK)
      return CZ_ERR;
    if (kind == 'p')
      return alt_add_pk(al, cols, n, tc->tc_name, e);
    return alt_add_unique(al, cols, n, tc->tc_name, tc->tc_nulls_not_distinct);
  }
  case SQL_AT_DROP_CONSTRAINT:
    return alt_drop_constraint(al, cmd, e);
  case SQL_AT_RENAME_COLUMN:
    if ((c = alt_col_find(al, cmd->ac_name)) < 0) {
      err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" does not exist", cmd->ac_name);
      e->er_pos = cmd->ac_pos;
      return CZ_ERR;
    }
    if (alt_col_find(al, cmd->ac_newname) >= 0)
      return err_set(e, SQLSTATE_DUPLICATE_COLUMN, "column \"%s\" of relation \"%s\" already exists",
                     cmd->ac_newname, al->a_name);
    al->a_cols[c].c_def.cd_name = cmd->ac_newname;
    return CZ_OK;
  case SQL_AT_RENAME_TABLE:
    al->a_name = cmd->ac_newname;
    return CZ_OK;
  case SQL_AT_RENAME_CONSTRAINT:
    return alt_rename_constraint(al, cmd, e);
  case SQL_AT_ADD_IDENTITY:
    break;  /* alone, before any rewrite (en_alter_table) */
  }
  return err_set(e, SQLSTATE_INTERNAL, "unknown ALTER TABLE action %d", (int)cmd->ac_kind);
}

/* ---- carrying it out --------------------------------------------------------- */

/* Positions of the surviving columns: their new numbers. */
static int *alt_numbers(alt_t *al, int *ncols)
{
  int *num = arena_alloc(al->a_a, sizeof(int) * (size_t)(al->a_ncols + 1));
  int n = 0;
  for (int i = 0; i < al->a_ncols; i++)
    num[i] = al->a_cols[i].c_dropped ? -1 : n++;
  *ncols = n;
  return num;
}

/* The sequences the table owns follow their columns: dropped with a
 * dropped column, renumbered with a moved one. */
static int alt_sequences(alt_t *al, const int *colmap, err_t *e)
{
  cat_t *c = es_engine(al->a_s)->en_cat;
  txn_t *tx = es_txn(al->a_s);
  const cat_snapshot_t *snap = es_snapshot(al->a_s);
  cat_oid_t *drop = arena_alloc(al->a_a, sizeof(cat_oid_t) * (size_t)(snap->cs_nsequences + 1));
  cat_seq_def_t *move = arena_alloc(al->a_a, sizeof(cat_seq_def_t) * (size_t)(snap->cs_nsequences + 1));
  cat_oid_t *move_oid = arena_alloc(al->a_a, sizeof(cat_oid_t) * (size_t)(snap->cs_nsequences + 1));
  int nd = 0, nm = 0;
  for (int i = 0; i < snap->cs_nsequences; i++) {
    const cat_sequence_t *sq = snap->cs_sequences[i];
    if (sq->sq_owned_table != al->a_t->ct_oid || sq->sq_owned_col < 0 ||
        sq->sq_owned_col >= al->a_t->ct_ncols)
      continue;
    int to = colmap[sq->sq_owned_col];
    if (to < 0) {
      drop[nd++] = sq->sq_oid;
    } else if (to != sq->sq_owned_col) {
      cat_seq_def_t d = {.sd_schema = sq->sq_schema_name, .sd_name = sq->sq_name,
                         .sd_owner = sq->sq_owner, .sd_type = sq->sq_type,
                         .sd_increment = sq->sq_increment, .sd_min = sq->sq_min,
                         .sd_max = sq->sq_max, .sd_start = sq->sq_start, .sd_cache = sq->sq_cache,
                         .sd_cycle = sq->sq_cycle, .sd_owned_table = sq->sq_owned_table,
                         .sd_owned_col = to};
      move[nm] = d;
      move_oid[nm++] = sq->sq_oid;
    }
  }
  for (int i = 0; i < nd; i++)
    if (cat_drop_sequence(c, tx, drop[i], e) != CZ_OK)
      return CZ_ERR;
  for (int i = 0; i < nm; i++)
    if (cat_alter_sequence(c, tx, move_oid[i], &move[i], e) != CZ_OK)
      return CZ_ERR;
  return CZ_OK;
}

static void alt_quote(char **buf, size_t *len, size_t *cap, arena_t *a, const char *s, bool ident)
{
  size_t need = *len + strlen(s) * 2 + 4;
  if (need > *cap) {
    size_t nc = need * 2;
    char *nb = arena_alloc(a, nc);
    memcpy(nb, *buf, *len);
    *buf = nb;
    *cap = nc;
  }
  char *p = *buf + *len;
  if (ident)
    *p++ = '"';
  for (; *s; s++) {
    if (ident && *s == '"')
      *p++ = '"';
    *p++ = *s;
  }
  if (ident)
    *p++ = '"';
  *p = 0;
  *len = (size_t)(p - *buf);
}

/* The SELECT that gives the new rows from the old table: one value per
 * surviving column, in the new order. */
static char *alt_select_text(alt_t *al)
{
  arena_t *a = al->a_a;
  size_t len = 0, cap = 256;
  char *buf = arena_alloc(a, cap);
  buf[0] = 0;
  alt_quote(&buf, &len, &cap, a, "SELECT ", false);
  bool first = true;
  for (int i = 0; i < al->a_ncols; i++) {
    const alt_col_t *c = &al->a_cols[i];
    if (c->c_dropped)
      continue;
    if (!first)
      alt_quote(&buf, &len, &cap, a, ", ", false);
    first = false;
    char *tn = ty_name(a, c->c_def.cd_type);
    if (c->c_value || c->c_old < 0) {
      alt_quote(&buf, &len, &cap, a, "CAST((", false);
      alt_quote(&buf, &len, &cap, a, c->c_value ? c->c_value : "NULL", false);
      alt_quote(&buf, &len, &cap, a, ") AS ", false);
      alt_quote(&buf, &len, &cap, a, tn, false);
      alt_quote(&buf, &len, &cap, a, ")", false);
    } else {
      alt_quote(&buf, &len, &cap, a, al->a_t->ct_cols[c->c_old].cc_name, true);
    }
  }
  alt_quote(&buf, &len, &cap, a, " FROM ", false);
  alt_quote(&buf, &len, &cap, a, al->a_t->ct_schema_name, true);
  alt_quote(&buf, &len, &cap, a, ".", false);
  alt_quote(&buf, &len, &cap, a, al->a_t->ct_name, true);
  return buf;
}

/* SET NOT NULL on existing rows without a rewrite: one filtered scan. */
static int alt_check_not_null(alt_t *al, int col, err_t *e)
{
  const cat_table_t *t = al->a_t;
  int old = al->a_cols[col].c_old;
  arena_t *a = arena_create(al->a_a, "not null check");
  tbl_scan_t *sc = NULL;
  tbl_pred_t pr = {.tp_out = 0, .tp_op = TBP_NULL};
  ty_t ty = t->ct_types[old];
  batch_t *b = NULL;
  int rc = tbl_scan_open(es_txn(al->a_s), t, 0, &old, 1, NULL, NULL, false, a, &sc, e);
  if (rc == CZ_OK)
    rc = tbl_scan_filter(sc, &pr, 1, e);
  if (rc == CZ_OK && !(b = batch_create(a, 1, &ty, 64, e)))
    rc = CZ_ERR;
  if (rc == CZ_OK)
    rc = tbl_scan_next(sc, b, a, e);
  if (rc == CZ_OK && b->b_n > 0)
    rc = err_set(e, SQLSTATE_NOT_NULL_VIOLATION, "column \"%s\" of relation \"%s\" contains null values",
                 al->a_cols[col].c_def.cd_name, al->a_name);
  if (sc)
    tbl_scan_close(sc);
  arena_destroy(a);
  return rc;
}

/* Reads the rows through plan p (the SELECT, planned against the old
 * table) into the new version t. */
static int alt_fill(alt_t *al, splan_t *p, const cat_table_t *t, err_t *e)
{
  esession_t *s = al->a_s;
  if (p->sp_ncols != t->ct_ncols)
    return err_set(e, SQLSTATE_INTERNAL, "ALTER TABLE: %d values for %d columns", p->sp_ncols, t->ct_ncols);
  for (int i = 0; i < t->ct_ncols; i++)
    if (p->sp_cols[i].pc_type.t_id != t->ct_types[i].t_id)
      return err_set(e, SQLSTATE_INTERNAL, "ALTER TABLE: column \"%s\" came as %s",
                     t->ct_cols[i].cc_name, ty_name(al->a_a, p->sp_cols[i].pc_type));
  tbl_rewrite_t *rw;
  if (tbl_rewrite_begin(es_txn(s), t, &rw, e) != CZ_OK)
    return CZ_ERR;
  datum_t *vals = arena_zalloc(al->a_a, sizeof(datum_t) * (size_t)(t->ct_ncols + 1));
  erexec_t x;
  er_exec_begin(&x, s, p, NULL, 0, al->a_a, al->a_a, NULL);
  qctx_t *q = &x.x_q;
  *es_cancel_flag(s) = false;
  int rc = op_open(p->sp_root, q, e);
  while (rc == CZ_OK) {
    obatch_t ob;
    if ((rc = op_next(p->sp_root, q, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
    for (int i = 0; i < ob.ob_n && rc == CZ_OK; i++) {
      int r = ob.ob_sel ? ob.ob_sel[i] : i;
      for (int c = 0; c < t->ct_ncols; c++)
        vec_get(&ob.ob_b->b_cols[c], r, &vals[c]);
      rc = tbl_rewrite_row(rw, vals, e);
    }
    if (rc == CZ_OK && *es_cancel_flag(s))
      rc = err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  }
  op_close(p->sp_root, q);
  er_exec_end(&x);
  if (rc != CZ_OK) {
    tbl_rewrite_abort(rw);
    return CZ_ERR;
  }
  return tbl_rewrite_end(rw, NULL, e);
}

static int alt_apply(alt_t *al, err_t *e)
{
  esession_t *s = al->a_s;
  cat_t *c = es_engine(s)->en_cat;
  txn_t *tx = es_txn(s);
  const cat_table_t *t = al->a_t;
  int ncols;
  int *num = alt_numbers(al, &ncols);
  /* the new definition */
  cat_column_def_t *cols = arena_zalloc(al->a_a, sizeof *cols * (size_t)(ncols + 1));
  char *ident = arena_zalloc(al->a_a, (size_t)ncols + 1);
  int *colmap = arena_alloc(al->a_a, sizeof(int) * (size_t)(t->ct_ncols + 1));
  for (int i = 0; i < t->ct_ncols; i++)
    colmap[i] = -1;
  for (int i = 0; i < al->a_ncols; i++) {
    const alt_col_t *ac = &al->a_cols[i];
    if (ac->c_dropped)
      continue;
    cols[num[i]] = ac->c_def;
    ident[num[i]] = ac->c_ident;
    if (ac->c_old >= 0)
      colmap[ac->c_old] = num[i];
  }
  int pk[CAT_MAX_INDEX_KEYS];
  for (int i = 0; i < al->a_npk; i++)
    pk[i] = num[al->a_pk[i]];
  cat_alter_index_t *ix = arena_zalloc(al->a_a, sizeof *ix * (size_t)(al->a_nidx + 1));
  int nix = 0;
  for (int k = 0; k < al->a_nidx; k++) {
    const alt_idx_t *x = &al->a_idx[k];
    if (x->x_dropped)
      continue;
    int *keys = arena_alloc(al->a_a, sizeof(int) * (size_t)(x->x_nkeys + 1));
    int *inc = arena_alloc(al->a_a, sizeof(int) * (size_t)(x->x_ninc + 1));
    for (int i = 0; i < x->x_nkeys; i++)
      keys[i] = num[x->x_keys[i]];
    for (int i = 0; i < x->x_ninc; i++)
      inc[i] = num[x->x_inc[i]];
    ix[nix].ai_oid = x->x_oid;
    ix[nix].ai_def = (cat_index_def_t){.id_name = x->x_name, .id_table = t->ct_oid,
                                       .id_unique = x->x_unique, .id_nkeys = x->x_nkeys,
                                       .id_keys = keys, .id_ninclude = x->x_ninc,
                                       .id_include = inc, .id_constraint = x->x_constraint,
                                       .id_nulls_nd = x->x_nulls_nd,
                                       .id_layout = x->x_layout};
    nix++;
  }
  /* a changed primary key moves every row */
  bool pk_same = al->a_npk == t->ct_npk;
  for (int i = 0; pk_same && i < al->a_npk; i++)
    pk_same = al->a_cols[al->a_pk[i]].c_old == t->ct_pk[i];
  if (!pk_same)
    al->a_rewrite = al->a_gate = true;
  cat_alter_def_t def = {.ad_name = al->a_name, .ad_ncols = ncols, .ad_cols = cols,
                         .ad_identity = ident, .ad_colmap = colmap, .ad_npk = al->a_npk,
                         .ad_pk = pk, .ad_pk_name = al->a_pk_name, .ad_nindexes = nix,
                         .ad_indexes = ix, .ad_rewrite = al->a_rewrite};
  /* keep other writers out before any row is read */
  if (al->a_gate &&
      cat_index_build_begin(tx, t, es_snapshot(s)->cs_version, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < al->a_ncols && !al->a_rewrite; i++)
    if (al->a_cols[i].c_check_nn && !al->a_cols[i].c_dropped && al->a_cols[i].c_old >= 0 &&
        alt_check_not_null(al, i, e) != CZ_OK)
      return CZ_ERR;
  /* the rows as the new columns, planned while the old table is what the
   * transaction sees */
  splan_t *p = NULL;
  if (al->a_rewrite) {
    if (t->ct_npk == 0) {
      /* the row id generator starts past the old tree's ids, so that a
       * rollback leaves it above every id the old rows hold */
      int64_t unused;
      if (cat_next_rowid(t, &unused, e) != CZ_OK)
        return CZ_ERR;
    }
    char *sql = alt_select_text(al);
    sql_stmt_list_t *l;
    if (sql_parse(al->a_a, sql, strlen(sql), &l, e) != CZ_OK)
      return err_prefix(e, "ALTER TABLE");
    sp_env_t env;
    en_env(s, &env);
    if (sql_plan_stmt(al->a_a, l->sl_stmts[0], &env, NULL, 0, &p, e) != CZ_OK)
      return CZ_ERR;
  }
  if (alt_sequences(al, colmap, e) != CZ_OK)
    return CZ_ERR;
  cat_oid_t *new_oids = arena_zalloc(al->a_a, sizeof(cat_oid_t) * (size_t)(nix + 1));
  if (cat_alter_table(c, tx, t->ct_oid, &def, new_oids, e) != CZ_OK ||
      en_view_remap_columns(s, t->ct_oid, colmap, t->ct_ncols, e) != CZ_OK)
    return CZ_ERR;
  for (int i = 0; i < al->a_ncols; i++) {
    const alt_col_t *ac = &al->a_cols[i];
    if (!ac->c_seq || ac->c_dropped)
      continue;
    cat_snapshot_t *ps = cat_snapshot_tx(c, tx);
    const cat_sequence_t *sq = cat_find_sequence(ps, t->ct_schema_name, ac->c_seq);
    int src = CZ_OK;
    if (!sq) {
      src = err_set(e, SQLSTATE_INTERNAL, "sequence \"%s\" vanished", ac->c_seq);
    } else {
      cat_seq_def_t d = {.sd_schema = sq->sq_schema_name, .sd_name = sq->sq_name,
                         .sd_owner = sq->sq_owner, .sd_type = sq->sq_type,
                         .sd_increment = sq->sq_increment, .sd_min = sq->sq_min,
                         .sd_max = sq->sq_max, .sd_start = sq->sq_start, .sd_cache = sq->sq_cache,
                         .sd_cycle = sq->sq_cycle, .sd_owned_table = t->ct_oid,
                         .sd_owned_col = num[i]};
      src = cat_alter_sequence(c, tx, sq->sq_oid, &d, e);
    }
    cat_snapshot_release(ps);
    if (src != CZ_OK)
      return CZ_ERR;
  }
  cat_snapshot_t *ns = cat_snapshot_tx(c, tx);
  const cat_table_t *nt = cat_table_by_oid(ns, t->ct_oid);
  int rc = CZ_OK;
  if (!nt)
    rc = err_set(e, SQLSTATE_INTERNAL, "table %u vanished in ALTER TABLE", (unsigned)t->ct_oid);
  if (rc == CZ_OK && al->a_gate)
    rc = cat_index_build_begin(tx, nt, ns->cs_version, e);
  if (rc == CZ_OK && al->a_rewrite) {
    rc = alt_fill(al, p, nt, e);
    if (rc == CZ_OK)
      rc = cat_alter_drop_trees(tx, t, e);
  } else {
    for (int k = 0; k < nix && rc == CZ_OK; k++)
      if (new_oids[k]) {
        const cat_index_t *ni = cat_index_by_oid(ns, new_oids[k]);
        rc = ni ? tbl_build_index(tx, ni, e)
                : err_set(e, SQLSTATE_INTERNAL, "index %u vanished", (unsigned)new_oids[k]);
      }
  }
  cat_snapshot_release(ns);
  return rc;
}

int en_alter_table(esession_t *s, const sql_alter_t *at, err_t *e)
{
  es_refresh_snapshot(s);
  const cat_table_t *t =
      cat_find_table(es_snapshot(s), en_name_schema(s, &at->at_table), at->at_table.nm_name);
  if (!t) {
    if (at->at_if_exists) {
      es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "relation \"%s\" does not exist, skipping",
                at->at_table.nm_name);
      return CZ_OK;
    }
    const cat_table_t *dummy;
    if (en_lookup_table(s, at->at_table.nm_schema, at->at_table.nm_name, &dummy, e) ==
        CZ_OK)
      return err_set(e, SQLSTATE_INTERNAL, "relation \"%s\" vanished", at->at_table.nm_name);
    e->er_pos = at->at_table.nm_pos;
    return CZ_ERR;
  }
  if (!esession_is_superuser(s) && t->ct_owner != es_role_oid(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of table %s", t->ct_name);
  /* ADD … AS IDENTITY changes no row: a sequence and the column's default
   * (pg_dump writes it alone after CREATE TABLE) */
  int nident = 0;
  for (int i = 0; i < sql_list_len(at->at_cmds); i++)
    nident += ((const sql_alter_cmd_t *)sql_list_at(at->at_cmds, i))->ac_kind == SQL_AT_ADD_IDENTITY;
  if (nident && nident != sql_list_len(at->at_cmds))
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "ADD GENERATED … AS IDENTITY together with other actions is not supported");
  for (int i = 0; i < nident; i++) {
    if (en_add_identity(s, t, sql_list_at(at->at_cmds, i), e) != CZ_OK)
      return CZ_ERR;
    es_refresh_snapshot(s);
    t = cat_table_by_oid(es_snapshot(s), t->ct_oid);
  }
  if (nident)
    return CZ_OK;
  /* the old snapshot stays alive while the rows are read from it */
  cat_snapshot_t *old = es_snapshot(s);
  cat_snapshot_t *held = cat_snapshot_tx(es_engine(s)->en_cat, es_txn(s));
  (void)old;
  t = cat_table_by_oid(held, t->ct_oid);
  arena_t *a = arena_create(NULL, "alter table");
  alt_t al = {.a_s = s, .a_a = a};
  alt_load(&al, t);
  int rc = CZ_OK;
  for (int i = 0; i < sql_list_len(at->at_cmds) && rc == CZ_OK; i++)
    rc = alt_cmd(&al, sql_list_at(at->at_cmds, i), e);
  if (rc == CZ_OK)
    rc = alt_apply(&al, e);
  arena_destroy(a);
  cat_snapshot_release(held);
  return rc;
}

/* en_seq_ddl — CREATE / ALTER / DROP SEQUENCE, and the sequences behind
 * serial and identity columns of CREATE TABLE.
 *
 * Design notes:
 * - Options are turned into a whole definition here (PostgreSQL's defaults
 *   for what is not written, the old definition's values for ALTER) and
 *   checked by the catalog (cat_seq_check: 22023 with PostgreSQL's words).
 * - ALTER SEQUENCE … RESTART is setval(v, false) after the new definition
 *   is written: like setval it is not undone by a rollback (PostgreSQL
 *   makes RESTART transactional; see catalog/README.md, "Sequences").
 * - A serial or identity column gets a sequence "<table>_<column>_seq"
 *   (a number appended while the name is taken) OWNED BY the column, and
 *   the DEFAULT nextval('<name>'::regclass); DROP TABLE drops it. An
 *   identity column keeps the same DEFAULT text but is shown as an
 *   identity by the catalog views (attidentity), as PostgreSQL shows it.
 * - Dependencies of DROP SEQUENCE are the columns whose DEFAULT names the
 *   sequence in nextval('…'::regclass): 2BP01 unless CASCADE, which drops
 *   those defaults; an identity column's sequence cannot be dropped.
 */
#include <stdio.h>
#include <string.h>

#include "engine/runner/en_pgcat.h"
#include "engine/runner/runner_int.h"

/* ---- options ---------------------------------------------------------------- */

static int seq_type_of(const sql_seqopts_t *o, ty_id_t *out, err_t *e)
{
  ty_t t;
  if (sql_bind_type(&o->so_type, &t, e) != CZ_OK)
    return CZ_ERR;
  *out = t.t_id;
  return CZ_OK;
}

/* Applies the options written (o may be NULL) to d: on a fresh definition
 * (create) what is not written takes PostgreSQL's default; on an old one
 * (ALTER) it stays, but bounds that were the old type's defaults follow a
 * new type or direction. */
static void type_range(ty_id_t t, int64_t *lo, int64_t *hi)
{
  *lo = t == TY_INT2 ? INT16_MIN : t == TY_INT4 ? INT32_MIN : INT64_MIN;
  *hi = t == TY_INT2 ? INT16_MAX : t == TY_INT4 ? INT32_MAX : INT64_MAX;
}

static int seq_apply(const sql_seqopts_t *o, bool create, cat_seq_def_t *d, err_t *e)
{
  ty_id_t old_type = d->sd_type;
  if (o && o->so_type_given && seq_type_of(o, &d->sd_type, e) != CZ_OK)
    return CZ_ERR;
  if (o && o->so_increment_given)
    d->sd_increment = o->so_increment;
  bool min_given = o && o->so_min == 1, max_given = o && o->so_max == 1;
  if (min_given)
    d->sd_min = o->so_min_value;
  if (max_given)
    d->sd_max = o->so_max_value;
  if (o && o->so_start_given)
    d->sd_start = o->so_start;
  if (o && o->so_cache_given)
    d->sd_cache = o->so_cache;
  if (o && o->so_cycle)
    d->sd_cycle = o->so_cycle > 0;
  if (create) {
    cat_seq_defaults(d, min_given, max_given, o && o->so_start_given);
    return CZ_OK;
  }
  /* ALTER, as PostgreSQL: NO MINVALUE / NO MAXVALUE take the defaults for
   * the type and direction; a bound that was the old type's extreme
   * follows a change of type */
  cat_seq_def_t fresh = *d;
  cat_seq_defaults(&fresh, false, false, true);
  int64_t lo, hi;
  type_range(old_type, &lo, &hi);
  bool retyped = d->sd_type != old_type;
  if (!min_given && ((o && o->so_min == -1) || (retyped && d->sd_min == lo)))
    d->sd_min = fresh.sd_min;
  if (!max_given && ((o && o->so_max == -1) || (retyped && d->sd_max == hi)))
    d->sd_max = fresh.sd_max;
  return CZ_OK;
}

/* OWNED BY table.column: the table must exist, be the sequence's schema's
 * and have the sequence's owner. */
static int seq_owned(esession_t *s, const sql_seqopts_t *o, cat_seq_def_t *d, err_t *e)
{
  if (!o || !o->so_owned)
    return CZ_OK;
  if (o->so_owned < 0) {
    d->sd_owned_table = 0;
    d->sd_owned_col = -1;
    return CZ_OK;
  }
  const cat_table_t *t;
  if (en_lookup_table(s, o->so_owned_table.nm_schema, o->so_owned_table.nm_name, &t,
                       e) != CZ_OK)
    return CZ_ERR;
  if (t->ct_owner != d->sd_owner)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "sequence must have same owner as table it is linked to");
  const char *sch = d->sd_schema ? d->sd_schema : "public";
  if (strcmp(t->ct_schema_name, sch) != 0)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "sequence must be in same schema as table it is linked to");
  int col;
  if (cat_lookup_column(t, o->so_owned_col, &col, e) != CZ_OK)
    return CZ_ERR;
  d->sd_owned_table = t->ct_oid;
  d->sd_owned_col = col;
  return CZ_OK;
}

static bool owns_seq(esession_t *s, const cat_sequence_t *sq)
{
  return esession_is_superuser(s) || sq->sq_owner == es_role_oid(s);
}

/* ---- CREATE / ALTER SEQUENCE -------------------------------------------------- */

static int create_sequence(esession_t *s, const sql_sequence_t *q, err_t *e)
{
  cat_oid_t any;
  const char *schema;
  if (en_new_schema(s, q->sq_name.nm_schema, q->sq_name.nm_name, &schema, e) != CZ_OK)
    return CZ_ERR;  /* en_path.c: the first schema of search_path */
  if (q->sq_if_not_exists &&
      cat_find_relation(es_snapshot(s), schema, q->sq_name.nm_name, &any)) {
    es_notice(s, "NOTICE", SQLSTATE_DUPLICATE_TABLE, "relation \"%s\" already exists, skipping",
              q->sq_name.nm_name);
    return CZ_OK;
  }
  if (q->sq_opts.so_restart)
    return err_set(e, SQLSTATE_SYNTAX_ERROR, "RESTART is not allowed in CREATE SEQUENCE");
  if (en_check_schema_create(s, schema, e) != CZ_OK)
    return CZ_ERR;
  cat_seq_def_t d = {.sd_schema = schema, .sd_name = q->sq_name.nm_name,
                     .sd_owner = es_role_oid(s), .sd_type = TY_INT8, .sd_increment = 1,
                     .sd_cache = 1, .sd_owned_col = -1};
  if (seq_apply(&q->sq_opts, true, &d, e) != CZ_OK || seq_owned(s, &q->sq_opts, &d, e) != CZ_OK)
    return CZ_ERR;
  cat_oid_t oid;
  return cat_create_sequence(es_engine(s)->en_cat, es_txn(s), &d, &oid, e);
}

/* The sequence a statement names: 42P01 when there is no relation of that
 * name, 42809 when it is not a sequence; 1 (with a notice) when absent
 * and if_exists. */
static int find_sequence(esession_t *s, const sql_name_t *n, bool if_exists,
                         const cat_sequence_t **out, err_t *e)
{
  cat_oid_t oid;
  char kind = cat_find_relation(es_snapshot(s), en_name_schema(s, n), n->nm_name, &oid);
  if (!kind) {
    if (if_exists) {
      es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION,
                "relation \"%s\" does not exist, skipping", n->nm_name);
      return 1;
    }
    err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s\" does not exist", n->nm_name);
    e->er_pos = n->nm_pos;
    return CZ_ERR;
  }
  if (kind != 'S') {
    err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", n->nm_name);
    e->er_pos = n->nm_pos;
    return CZ_ERR;
  }
  *out = cat_sequence_by_oid(es_snapshot(s), oid);
  return CZ_OK;
}

static cat_seq_def_t def_of(const cat_sequence_t *sq)
{
  cat_seq_def_t d = {.sd_schema = sq->sq_schema_name, .sd_name = sq->sq_name,
                     .sd_owner = sq->sq_owner, .sd_type = sq->sq_type,
                     .sd_increment = sq->sq_increment, .sd_min = sq->sq_min, .sd_max = sq->sq_max,
                     .sd_start = sq->sq_start, .sd_cache = sq->sq_cache, .sd_cycle = sq->sq_cycle,
                     .sd_owned_table = sq->sq_owned_table, .sd_owned_col = sq->sq_owned_col};
  return d;
}

static int alter_sequence(esession_t *s, const sql_sequence_t *q, err_t *e)
{
  const cat_sequence_t *sq;
  int rc = find_sequence(s, &q->sq_name, q->sq_if_exists, &sq, e);
  if (rc != CZ_OK)
    return rc == 1 ? CZ_OK : CZ_ERR;
  if (!owns_seq(s, sq))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of sequence %s", sq->sq_name);
  cat_seq_def_t d = def_of(sq);
  const sql_seqopts_t *o = &q->sq_opts;
  if (q->sq_rename)
    d.sd_name = q->sq_rename;
  if (seq_apply(o, false, &d, e) != CZ_OK || seq_owned(s, o, &d, e) != CZ_OK)
    return CZ_ERR;
  int64_t restart = o->so_restart_given ? o->so_restart_value : d.sd_start;
  if (cat_seq_check(&d, o->so_restart ? &restart : NULL, e) != CZ_OK)
    return CZ_ERR;
  cat_oid_t oid = sq->sq_oid;
  if (cat_alter_sequence(es_engine(s)->en_cat, es_txn(s), oid, &d, e) != CZ_OK)
    return CZ_ERR;
  if (!o->so_restart)
    return CZ_OK;
  es_refresh_snapshot(s);
  const cat_sequence_t *nsq = cat_sequence_by_oid(es_snapshot(s), oid);
  if (!nsq)
    return err_set(e, SQLSTATE_INTERNAL, "sequence %u vanished", (unsigned)oid);
  return cat_seq_setval(en_seq_session(s), nsq, es_txn(s), es_cancel_flag(s), restart, false, e);
}

int en_ddl_sequence(esession_t *s, const sql_stmt_t *st, err_t *e)
{
  if (st->st_sequence->sq_opts.so_seqname)
    return err_set(e, SQLSTATE_SYNTAX_ERROR, "invalid sequence option SEQUENCE NAME");
  if (st->st_kind == SQL_STMT_CREATE_SEQUENCE)
    return create_sequence(s, st->st_sequence, e);
  return alter_sequence(s, st->st_sequence, e);
}

/* ---- DROP SEQUENCE --------------------------------------------------------- */

/* Whether default text names sequence sq in nextval('…'). */
static bool default_uses(const char *def, const cat_sequence_t *sq)
{
  if (!def || !strstr(def, "nextval("))
    return false;
  char a[200], b[200];
  snprintf(a, sizeof a, "'%s'", sq->sq_name);
  snprintf(b, sizeof b, "'%s.%s'", sq->sq_schema_name, sq->sq_name);
  return strstr(def, a) || strstr(def, b);
}

static int drop_one(esession_t *s, const sql_drop_t *dr, const cat_sequence_t *sq, err_t *e)
{
  cat_t *c = es_engine(s)->en_cat;
  const cat_snapshot_t *snap = es_snapshot(s);
  for (int i = 0; i < snap->cs_ntables; i++) {
    const cat_table_t *t = snap->cs_tables[i];
    for (int k = 0; k < t->ct_ncols; k++) {
      const cat_column_t *cc = &t->ct_cols[k];
      if (!default_uses(cc->cc_default, sq))
        continue;
      if (cc->cc_identity)
        return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                       "cannot drop sequence %s because column %s of table %s requires it",
                       sq->sq_name, cc->cc_name, t->ct_name);
      if (!dr->dr_cascade)
        return err_set(e, SQLSTATE_DEPENDENT_OBJECTS,
                       "cannot drop sequence %s because other objects depend on it",
                       sq->sq_name);
      es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION,
                "drop cascades to default value for column %s of table %s", cc->cc_name,
                t->ct_name);
      if (cat_set_column_default(c, es_txn(s), t->ct_oid, k, NULL, 0, e) != CZ_OK)
        return CZ_ERR;
    }
  }
  return cat_drop_sequence(c, es_txn(s), sq->sq_oid, e);
}

int en_ddl_drop_sequences(esession_t *s, const sql_drop_t *dr, err_t *e)
{
  for (int i = 0; i < sql_list_len(dr->dr_names); i++) {
    const sql_name_t *n = sql_list_at(dr->dr_names, i);
    es_refresh_snapshot(s);
    cat_oid_t oid;
    char kind = cat_find_relation(es_snapshot(s), en_name_schema(s, n), n->nm_name, &oid);
    if (!kind) {
      if (dr->dr_if_exists) {
        es_notice(s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION,
                  "sequence \"%s\" does not exist, skipping", n->nm_name);
        continue;
      }
      err_set(e, SQLSTATE_UNDEFINED_TABLE, "sequence \"%s\" does not exist", n->nm_name);
      e->er_pos = n->nm_pos;
      return CZ_ERR;
    }
    if (kind != 'S') {
      err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is not a sequence", n->nm_name);
      e->er_pos = n->nm_pos;
      return CZ_ERR;
    }
    const cat_sequence_t *sq = cat_sequence_by_oid(es_snapshot(s), oid);
    if (!owns_seq(s, sq))
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE, "must be owner of sequence %s",
                     sq->sq_name);
    if (drop_one(s, dr, sq, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- serial and identity columns ---------------------------------------------- */

/* A name PostgreSQL would choose: "<table>_<column>_seq", cut to fit, with
 * a number while the schema (or an earlier column's choice) has it. */
static const char *serial_name(esession_t *s, arena_t *a, const char *schema, const char *table,
                               const char *col, const char *const *taken, int ntaken)
{
  for (int k = 0;; k++) {
    char num[16] = "";
    if (k)
      snprintf(num, sizeof num, "%d", k);
    size_t room = CAT_MAX_NAME - strlen("__seq") - strlen(num);
    size_t lt = strlen(table), lc = strlen(col);
    while (lt + lc > room) {  /* cut the longer part first, as makeObjectName */
      if (lt > lc)
        lt--;
      else
        lc--;
    }
    char *name = arena_sprintf(a, "%.*s_%.*s_seq%s", (int)lt, table, (int)lc, col, num);
    cat_oid_t oid;
    bool used = cat_find_relation(es_snapshot(s), schema ? schema : "public", name, &oid) != 0;
    for (int i = 0; i < ntaken && !used; i++)
      used = taken[i] && strcmp(taken[i], name) == 0;
    if (!used)
      return name;
  }
}

/* A name as SQL text inside a string literal: double-quoted unless it is
 * a plain lower-case identifier. */
static const char *regclass_name(arena_t *a, const char *name)
{
  bool plain = (name[0] >= 'a' && name[0] <= 'z') || name[0] == '_';
  for (const char *p = name; *p && plain; p++)
    plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
  if (plain)
    return name;
  const char *q = arena_sprintf(a, "\"%s\"", name);
  return q;
}

/* The sequence of a serial column as its default names it: always with
 * its schema, so the default keeps naming it whatever search_path is
 * later (PostgreSQL keeps the OID; what pg_get_expr and
 * information_schema show is unqualified again where the path finds it:
 * pgcat_default_text). */
static const char *regclass_text(arena_t *a, const char *schema, const char *name)
{
  return arena_sprintf(a, "%s.%s", regclass_name(a, schema ? schema : "public"),
                       regclass_name(a, name));
}

int en_serial_plan(esession_t *s, arena_t *a, const sql_create_table_t *ct, cat_column_def_t *cols,
                   char **identity, const char ***seqnames, err_t *e)
{
  int nc = sql_list_len(ct->ct_columns);
  const char **names = arena_zalloc(a, sizeof(char *) * (size_t)(nc + 1));
  char *ident = NULL;
  for (int i = 0; i < nc; i++) {
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    if (!cd->cd_type.ty_serial && !cd->cd_identity)
      continue;
    if (cd->cd_identity) {
      ty_id_t t = cols[i].cd_type.t_id;
      if (t != TY_INT2 && t != TY_INT4 && t != TY_INT8) {
        err_set(e, SQLSTATE_INVALID_PARAMETER,
                "identity column type must be smallint, integer, or bigint");
        e->er_pos = cd->cd_pos;
        return CZ_ERR;
      }
      if (cd->cd_default || cd->cd_type.ty_serial) {
        err_set(e, SQLSTATE_SYNTAX_ERROR,
                "both default and identity specified for column \"%s\" of table \"%s\"",
                cd->cd_name, ct->ct_table.nm_name);
        e->er_pos = cd->cd_pos;
        return CZ_ERR;
      }
      if (cd->cd_identity_opts && (cd->cd_identity_opts->so_owned || cd->cd_identity_opts->so_restart)) {
        err_set(e, SQLSTATE_SYNTAX_ERROR, "invalid sequence option for an identity column");
        e->er_pos = cd->cd_pos;
        return CZ_ERR;
      }
      if (!ident)
        ident = arena_zalloc(a, (size_t)(nc + 1));
      ident[i] = cd->cd_identity;
    } else if (cd->cd_default) {
      err_set(e, SQLSTATE_SYNTAX_ERROR,
              "multiple default values specified for column \"%s\" of table \"%s\"", cd->cd_name,
              ct->ct_table.nm_name);
      e->er_pos = cd->cd_pos;
      return CZ_ERR;
    }
    names[i] = serial_name(s, a, ct->ct_table.nm_schema, ct->ct_table.nm_name, cd->cd_name, names,
                           i);
    cols[i].cd_default = arena_sprintf(a, "nextval('%s'::regclass)",
                                       regclass_text(a, ct->ct_table.nm_schema, names[i]));
    cols[i].cd_not_null = true;
  }
  *identity = ident;
  *seqnames = names;
  return CZ_OK;
}

int en_serial_make(esession_t *s, const sql_create_table_t *ct, const cat_column_def_t *cols,
                   const char *const *seqnames, cat_oid_t table, err_t *e)
{
  for (int i = 0; i < sql_list_len(ct->ct_columns); i++) {
    if (!seqnames[i])
      continue;
    const sql_coldef_t *cd = sql_list_at(ct->ct_columns, i);
    cat_seq_def_t d = {.sd_schema = ct->ct_table.nm_schema, .sd_name = seqnames[i],
                       .sd_owner = es_role_oid(s), .sd_type = cols[i].cd_type.t_id,
                       .sd_increment = 1, .sd_cache = 1, .sd_owned_table = table,
                       .sd_owned_col = i};
    if (seq_apply(cd->cd_identity_opts, true, &d, e) != CZ_OK)
      return CZ_ERR;
    cat_oid_t oid;
    if (cat_create_sequence(es_engine(s)->en_cat, es_txn(s), &d, &oid, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- ALTER TABLE … ALTER COLUMN … ADD GENERATED … AS IDENTITY ------------------- */

int en_add_identity(esession_t *s, const cat_table_t *t, const sql_alter_cmd_t *c, err_t *e)
{
  int k = -1;
  for (int i = 0; i < t->ct_ncols; i++)
    if (strcmp(t->ct_cols[i].cc_name, c->ac_name) == 0)
      k = i;
  if (k < 0)
    return err_set(e, SQLSTATE_UNDEFINED_COLUMN, "column \"%s\" of relation \"%s\" does not exist",
                   c->ac_name, t->ct_name);
  const cat_column_t *cc = &t->ct_cols[k];
  ty_id_t ty = cc->cc_type.t_id;
  if (ty != TY_INT2 && ty != TY_INT4 && ty != TY_INT8)
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "identity column type must be smallint, integer, or bigint");
  if (!cc->cc_not_null)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "column \"%s\" of relation \"%s\" must be declared NOT NULL before identity "
                   "can be added", cc->cc_name, t->ct_name);
  if (cc->cc_identity)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "column \"%s\" of relation \"%s\" is already an identity column", cc->cc_name,
                   t->ct_name);
  if (cc->cc_default)
    return err_set(e, SQLSTATE_OBJECT_NOT_IN_STATE,
                   "column \"%s\" of relation \"%s\" already has a default value", cc->cc_name,
                   t->ct_name);
  const sql_seqopts_t *o = c->ac_seqopts;
  if (o && (o->so_owned || o->so_restart))
    return err_set(e, SQLSTATE_SYNTAX_ERROR, "invalid sequence option for an identity column");
  arena_t *a = arena_create(NULL, "identity");
  const char *schema = o && o->so_seqname && o->so_seqname->nm_schema ? o->so_seqname->nm_schema
                                                                         : t->ct_schema_name;
  const char *name = o && o->so_seqname
                         ? o->so_seqname->nm_name
                         : serial_name(s, a, t->ct_schema_name, t->ct_name, cc->cc_name, NULL, 0);
  cat_seq_def_t d = {.sd_schema = schema, .sd_name = name, .sd_owner = t->ct_owner,
                     .sd_type = ty, .sd_increment = 1, .sd_cache = 1,
                     .sd_owned_table = t->ct_oid, .sd_owned_col = k};
  cat_oid_t oid;
  int rc = seq_apply(o, true, &d, e);
  if (rc == CZ_OK)
    rc = cat_create_sequence(es_engine(s)->en_cat, es_txn(s), &d, &oid, e);
  if (rc == CZ_OK) {
    const char *def = arena_sprintf(a, "nextval('%s'::regclass)", regclass_text(a, schema, name));
    rc = cat_set_column_default(es_engine(s)->en_cat, es_txn(s), t->ct_oid, k, def,
                                c->ac_identity, e);
  }
  arena_destroy(a);
  return rc;
}

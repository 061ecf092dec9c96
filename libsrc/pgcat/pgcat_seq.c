/* pgcat_seq — the catalog relations of sequences: pg_sequence,
 * pg_sequences, information_schema.sequences and pg_depend (sequence
 * ownership, defaults naming sequences, views' rules) (pg_class lists them with
 * relkind 'S': pgcat_class.c).
 *
 * Design notes: the definitions come from the snapshot (cat_sequence_t);
 * pg_sequences.last_value is the last value handed out to any session
 * (values a session took ahead with CACHE included, as in PostgreSQL),
 * NULL before the first nextval or after setval(…, false).
 */
#include <string.h>

#include "pgcat/pgcat_int.h"

static const char *seq_type_name(ty_id_t t)
{
  return t == TY_INT2 ? "smallint" : t == TY_INT4 ? "integer" : "bigint";
}

static uint32_t seq_type_oid(ty_id_t t)
{
  return t == TY_INT2 ? 21 : t == TY_INT4 ? 23 : 20;
}

/* Sequences the role may see: its own, or all for a superuser (there are
 * no grants on sequences yet). */
static bool seq_visible(const pgcat_env_t *env, const cat_sequence_t *sq)
{
  const cat_role_t *r = cat_role_by_oid(env->pe_snap, env->pe_user);
  return (r && r->cr_superuser) || sq->sq_owner == env->pe_user ||
         cat_role_is_member(env->pe_snap, env->pe_user, sq->sq_owner);
}

/* Whether sq is an identity column's sequence (pg_depend deptype 'i'). */
static bool seq_of_identity(const cat_snapshot_t *s, const cat_sequence_t *sq)
{
  const cat_table_t *t = sq->sq_owned_table ? cat_table_by_oid(s, sq->sq_owned_table) : NULL;
  return t && sq->sq_owned_col >= 0 && sq->sq_owned_col < t->ct_ncols &&
         t->ct_cols[sq->sq_owned_col].cc_identity;
}

/* ---- pg_sequence ------------------------------------------------------------ */

static const pgcat_col_t pg_sequence_cols[] = {
  {"seqrelid", PGT_OID},      {"seqtypid", PGT_OID},   {"seqstart", PGT_INT8},
  {"seqincrement", PGT_INT8}, {"seqmax", PGT_INT8},    {"seqmin", PGT_INT8},
  {"seqcache", PGT_INT8},     {"seqcycle", PGT_BOOL},
};

static int fill_pg_sequence(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nsequences; i++) {
    const cat_sequence_t *sq = s->cs_sequences[i];
    pgcat_put_int(w, sq->sq_oid);
    pgcat_put_int(w, seq_type_oid(sq->sq_type));
    pgcat_put_int(w, sq->sq_start);
    pgcat_put_int(w, sq->sq_increment);
    pgcat_put_int(w, sq->sq_max);
    pgcat_put_int(w, sq->sq_min);
    pgcat_put_int(w, sq->sq_cache);
    pgcat_put_bool(w, sq->sq_cycle);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_sequences ------------------------------------------------------------ */

static const pgcat_col_t pg_sequences_cols[] = {
  {"schemaname", PGT_NAME},   {"sequencename", PGT_NAME}, {"sequenceowner", PGT_NAME},
  {"data_type", PGT_TEXT},    {"start_value", PGT_INT8},  {"min_value", PGT_INT8},
  {"max_value", PGT_INT8},    {"increment_by", PGT_INT8}, {"cycle", PGT_BOOL},
  {"cache_size", PGT_INT8},   {"last_value", PGT_INT8},
};

static int fill_pg_sequences(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nsequences; i++) {
    const cat_sequence_t *sq = s->cs_sequences[i];
    if (!seq_visible(env, sq))
      continue;
    int64_t last;
    bool called;
    if (cat_seq_peek(sq, env->pe_txn, &last, &called, e) != CZ_OK)
      return CZ_ERR;
    pgcat_put_text(w, sq->sq_schema_name);
    pgcat_put_text(w, sq->sq_name);
    pgcat_put_text(w, pgcat_role_name(env, sq->sq_owner));
    pgcat_put_text(w, seq_type_name(sq->sq_type));
    pgcat_put_int(w, sq->sq_start);
    pgcat_put_int(w, sq->sq_min);
    pgcat_put_int(w, sq->sq_max);
    pgcat_put_int(w, sq->sq_increment);
    pgcat_put_bool(w, sq->sq_cycle);
    pgcat_put_int(w, sq->sq_cache);
    if (called)
      pgcat_put_int(w, last);
    else
      pgcat_put_null(w);
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- information_schema.sequences --------------------------------------------- */

static const pgcat_col_t is_sequences_cols[] = {
  {"sequence_catalog", PGT_NAME},        {"sequence_schema", PGT_NAME},
  {"sequence_name", PGT_NAME},           {"data_type", PGT_VARCHAR},
  {"numeric_precision", PGT_INT4},       {"numeric_precision_radix", PGT_INT4},
  {"numeric_scale", PGT_INT4},           {"start_value", PGT_VARCHAR},
  {"minimum_value", PGT_VARCHAR},        {"maximum_value", PGT_VARCHAR},
  {"increment", PGT_VARCHAR},            {"cycle_option", PGT_VARCHAR},
};

static int fill_is_sequences(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  arena_t *a = w->pw_arena;
  for (int i = 0; i < s->cs_nsequences; i++) {
    const cat_sequence_t *sq = s->cs_sequences[i];
    if (!seq_visible(env, sq) || seq_of_identity(s, sq))
      continue;  /* an identity column's sequence is internal: not listed, as in PostgreSQL */
    pgcat_put_text(w, env->pe_database ? env->pe_database : "cadenza");
    pgcat_put_text(w, sq->sq_schema_name);
    pgcat_put_text(w, sq->sq_name);
    pgcat_put_text(w, seq_type_name(sq->sq_type));
    pgcat_put_int(w, sq->sq_type == TY_INT2 ? 16 : sq->sq_type == TY_INT4 ? 32 : 64);
    pgcat_put_int(w, 2);
    pgcat_put_int(w, 0);
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)sq->sq_start));
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)sq->sq_min));
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)sq->sq_max));
    pgcat_put_text(w, arena_sprintf(a, "%lld", (long long)sq->sq_increment));
    pgcat_put_text(w, sq->sq_cycle ? "YES" : "NO");
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- pg_depend ----------------------------------------------------------------- */

/* The dependencies Cadenza records: a sequence OWNED BY a column ('a',
 * auto: serial and OWNED BY; 'i', internal: an identity column's), which
 * psql's \d shows as "Owned by" / "Sequence for identity column"; a
 * column default on the sequences it names ('n'); a view's rule on the
 * relations its query reads ('n'). */
static const pgcat_col_t pg_depend_cols[] = {
  {"classid", PGT_OID},    {"objid", PGT_OID},       {"objsubid", PGT_INT4},
  {"refclassid", PGT_OID}, {"refobjid", PGT_OID},    {"refobjsubid", PGT_INT4},
  {"deptype", PGT_CHAR},
};

static int fill_pg_depend(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  const cat_snapshot_t *s = env->pe_snap;
  for (int i = 0; i < s->cs_nsequences; i++) {
    const cat_sequence_t *sq = s->cs_sequences[i];
    const cat_table_t *t = sq->sq_owned_table ? cat_table_by_oid(s, sq->sq_owned_table) : NULL;
    if (!t || sq->sq_owned_col < 0 || sq->sq_owned_col >= t->ct_ncols)
      continue;
    pgcat_put_int(w, 1259);
    pgcat_put_int(w, sq->sq_oid);
    pgcat_put_int(w, 0);
    pgcat_put_int(w, 1259);
    pgcat_put_int(w, t->ct_oid);
    pgcat_put_int(w, sq->sq_owned_col + 1);
    pgcat_put_char(w, t->ct_cols[sq->sq_owned_col].cc_identity ? 'i' : 'a');
    if (pgcat_row_end(w, e))
      return CZ_ERR;
  }
  /* a column default depends on the sequences it names ('n'): pg_dump
   * then sets a serial column's default after making its sequence */
  for (int i = 0; i < s->cs_ntables; i++) {
    const cat_table_t *t = s->cs_tables[i];
    for (int c = 0; c < t->ct_ncols; c++) {
      if (!t->ct_cols[c].cc_default || t->ct_cols[c].cc_identity)
        continue;
      cat_oid_t refs[8];
      int n = pgcat_expr_regclasses(env, t->ct_cols[c].cc_default, w->pw_arena, refs, 8);
      for (int k = 0; k < n; k++) {
        if (!cat_sequence_by_oid(s, refs[k]))
          continue;
        pgcat_put_int(w, 2604);
        pgcat_put_int(w, pgcat_attrdef_oid(t->ct_oid, c + 1));
        pgcat_put_int(w, 0);
        pgcat_put_int(w, 1259);
        pgcat_put_int(w, refs[k]);
        pgcat_put_int(w, 0);
        pgcat_put_char(w, 'n');
        if (pgcat_row_end(w, e))
          return CZ_ERR;
      }
    }
  }
  /* a view's _RETURN rule (pg_rewrite) depends on the relations its
   * query reads ('n'): pg_dump orders views after them by these */
  for (int i = 0; i < s->cs_nviews; i++) {
    const cat_view_t *v = s->cs_views[i];
    for (int k = 0; k < v->cw_ndeps; k++) {
      pgcat_put_int(w, 2618);
      pgcat_put_int(w, pgcat_rule_oid(v->cw_oid));
      pgcat_put_int(w, 0);
      pgcat_put_int(w, 1259);
      pgcat_put_int(w, v->cw_deps[k]);
      pgcat_put_int(w, 0);
      pgcat_put_char(w, 'n');
      if (pgcat_row_end(w, e))
        return CZ_ERR;
    }
  }
  return CZ_OK;
}

const pgcat_rel_t pgcat_rels_seq[] = {
  PGCAT_REL("pg_depend", CAT_OID_PG_CATALOG, 2608, 'r', pg_depend_cols, fill_pg_depend),
  PGCAT_REL("pg_sequence", CAT_OID_PG_CATALOG, 2224, 'r', pg_sequence_cols, fill_pg_sequence),
  PGCAT_REL("pg_sequences", CAT_OID_PG_CATALOG, 12031, 'v', pg_sequences_cols, fill_pg_sequences),
  PGCAT_REL("sequences", CAT_OID_INFORMATION_SCHEMA, 13131, 'v', is_sequences_cols,
            fill_is_sequences),
};
const int pgcat_nrels_seq = (int)CZ_ARRAY_LEN(pgcat_rels_seq);

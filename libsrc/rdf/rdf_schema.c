/* rdf_schema — the store's tables, created with the database: the
 * dictionaries, the quad table with its indexes and projections, and the
 * bulk loader's load list.
 *
 * Design notes: everything is an ordinary table of schema pg_rdf, made
 * through the catalog as CREATE TABLE makes tables, so it is logged,
 * recovered, visible to SQL and to pg_catalog like any other. The set is
 * created in one transaction the first time a database opens without it
 * (rdf_quad is the marker: all or nothing). rdf_quad's primary tree is
 * row or column-wise per rdf_layout_t (the quad tables and rdf_quad's
 * indexes), fixed when the store is made.
 */
#include <string.h>

#include "rdf/rdf_int.h"
#include "table/table.h"

#define RS_MAX_COLS 10

typedef struct rs_table_s {
  const char *rs_name;
  int rs_ncols;
  cat_column_def_t rs_cols[RS_MAX_COLS];
  int rs_npk;
  int rs_pk[4];
  bool rs_quad_index;          /* takes the quad layout (rdf_layout_t) */
} rs_table_t;

typedef struct rs_index_s {
  const char *ri_name;
  const char *ri_table;
  bool ri_unique;
  int ri_nkeys;
  int ri_keys[4];
} rs_index_t;

#define RS_COL(n, t) {.cd_name = n, .cd_type = {.t_id = t, .t_len = -1, .t_prec = -1, .t_scale = -1}, .cd_not_null = true}
#define RS_COLN(n, t) {.cd_name = n, .cd_type = {.t_id = t, .t_len = -1, .t_prec = -1, .t_scale = -1}}

/* README.md "Tables" describes each column. */
static const rs_table_t rs_tables[] = {
  {"rdf_prefix", 2, {RS_COL("id", TY_INT8), RS_COL("ns", TY_TEXT)}, 1, {0}, false},
  {"rdf_iri", 4,
   {RS_COL("id", TY_INT8), RS_COL("prefix", TY_INT8), RS_COL("local", TY_TEXT),
    RS_COLN("long_local", TY_TEXT)},
   1, {0}, false},
  {"rdf_literal", 5,
   {RS_COL("id", TY_INT8), RS_COL("dt", TY_INT8), RS_COL("lang", TY_TEXT), RS_COL("lex", TY_TEXT),
    RS_COLN("long_lex", TY_TEXT)},
   1, {0}, false},
  {"rdf_quad", 4, {RS_COL("g", TY_INT8), RS_COL("s", TY_INT8), RS_COL("p", TY_INT8), RS_COL("o", TY_INT8)},
   4, {2, 1, 3, 0}, true},
  {"rdf_quad_sp", 2, {RS_COL("s", TY_INT8), RS_COL("p", TY_INT8)}, 2, {0, 1}, true},
  {"rdf_quad_op", 2, {RS_COL("o", TY_INT8), RS_COL("p", TY_INT8)}, 2, {0, 1}, true},
  {"rdf_quad_gs", 2, {RS_COL("g", TY_INT8), RS_COL("s", TY_INT8)}, 2, {0, 1}, true},
  {"rdf_load_list", 10,
   {RS_COL("ll_file", TY_TEXT), RS_COLN("ll_graph", TY_TEXT), RS_COL("ll_state", TY_INT4),
    RS_COLN("ll_error", TY_TEXT), RS_COLN("ll_started", TY_TIMESTAMPTZ),
    RS_COLN("ll_finished", TY_TIMESTAMPTZ), RS_COL("ll_triples", TY_INT8),
    RS_COL("ll_bad", TY_INT8), RS_COL("ll_bytes", TY_INT8), RS_COL("ll_read", TY_INT8)},
   1, {0}, false},
};

static const rs_index_t rs_indexes[] = {
  {"rdf_prefix_ns", "rdf_prefix", true, 1, {1}},
  {"rdf_iri_name", "rdf_iri", true, 2, {1, 2}},
  {"rdf_literal_value", "rdf_literal", true, 3, {1, 2, 3}},
  {"rdf_quad_pogs", "rdf_quad", false, 4, {2, 3, 0, 1}},
  {"rdf_load_list_state", "rdf_load_list", false, 1, {2}},
};

static const char *const rs_sequences[] = {"rdf_prefix_seq", "rdf_term_seq"};

static int rs_create_table(cat_t *c, txn_t *tx, const rs_table_t *t, cat_oid_t owner,
                           rdf_layout_t layout, err_t *e)
{
  /* The column layout applies to the quad tables (rdf_quad and its
   * projections), and through rs_create_index to rdf_quad's POGS index:
   * every quad index of the store. */
  bool column = layout == RDF_LAYOUT_COLUMN && t->rs_quad_index;
  cat_table_def_t def = {.td_schema = RDF_SCHEMA, .td_name = t->rs_name, .td_owner = owner,
                         .td_ncols = t->rs_ncols, .td_cols = t->rs_cols, .td_npk = t->rs_npk,
                         .td_pk = t->rs_pk,
                         .td_layout = column ? CAT_LAYOUT_COLUMN : CAT_LAYOUT_ROW};
  cat_oid_t oid;
  return cat_create_table(c, tx, &def, &oid, e);
}

static int rs_create_index(cat_t *c, txn_t *tx, const rs_index_t *ix, err_t *e)
{
  cat_snapshot_t *s = cat_snapshot_tx(c, tx);
  const cat_table_t *t = cat_find_table(s, RDF_SCHEMA, ix->ri_table);
  if (!t) {
    cat_snapshot_release(s);
    return err_set(e, SQLSTATE_INTERNAL, "rdf: table %s missing while creating its indexes",
                   ix->ri_table);
  }
  cat_index_def_t def = {.id_name = ix->ri_name, .id_table = t->ct_oid,
                         .id_unique = ix->ri_unique, .id_nkeys = ix->ri_nkeys,
                         .id_keys = ix->ri_keys,
                         .id_layout = t->ct_layout};  /* an index follows its table */
  cat_snapshot_release(s);
  cat_oid_t oid;
  return tbl_create_index(c, tx, &def, &oid, e);
}

static int rs_create_sequence(cat_t *c, txn_t *tx, const char *name, cat_oid_t owner, err_t *e)
{
  cat_seq_def_t d = {.sd_schema = RDF_SCHEMA, .sd_name = name, .sd_owner = owner,
                     .sd_type = TY_INT8, .sd_increment = 1, .sd_cache = 4096,
                     .sd_owned_col = -1};
  cat_seq_defaults(&d, false, false, false);
  cat_oid_t oid;
  return cat_create_sequence(c, tx, &d, &oid, e);
}

int rdf_schema_ensure(cat_t *c, cat_oid_t owner, rdf_layout_t layout, err_t *e)
{
  cat_snapshot_t *s = cat_snapshot(c);
  bool have = cat_find_table(s, RDF_SCHEMA, "rdf_quad") != NULL;
  cat_snapshot_release(s);
  if (have)
    return rdf_load_requeue(c, e);
  txn_t *tx = txn_begin(cat_db(c), 0, e);
  if (!tx)
    return CZ_ERR;
  cat_oid_t schema;
  int rc = cat_create_schema(c, tx, RDF_SCHEMA, owner, &schema, e);
  for (size_t i = 0; rc == CZ_OK && i < sizeof(rs_tables) / sizeof(rs_tables[0]); i++)
    rc = rs_create_table(c, tx, &rs_tables[i], owner, layout, e);
  for (size_t i = 0; rc == CZ_OK && i < sizeof(rs_indexes) / sizeof(rs_indexes[0]); i++)
    rc = rs_create_index(c, tx, &rs_indexes[i], e);
  for (size_t i = 0; rc == CZ_OK && i < sizeof(rs_sequences) / sizeof(rs_sequences[0]); i++)
    rc = rs_create_sequence(c, tx, rs_sequences[i], owner, e);
  if (rc != CZ_OK) {
    txn_rollback(tx, NULL);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

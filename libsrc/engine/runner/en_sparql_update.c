/* en_sparql_update — SPARQL 1.1 Update run by the engine: `SPARQL INSERT
 * DATA { … }` and the rest from any SQL client, and the same request from
 * the HTTP endpoint (esession_sparql_update).
 *
 * Design notes (libsrc/sparql README "SPARQL Update"):
 * - A request is one transaction: the session's open block, or an
 *   implicit one begun here and committed at the end; any failure rolls
 *   the whole request back (in a block: back to the statement's mark).
 *   A SILENT operation that fails is undone alone (a savepoint mark
 *   before it) and the request goes on.
 * - Reads and deletes are SQL the engine plans like any statement, so
 *   privileges are SQL's: the WHERE needs SELECT on the quads and the
 *   dictionaries, deletes DELETE on pg_rdf.rdf_quad (a planned DELETE of
 *   one quad by its key, run per quad, or of a graph). Inserts go through
 *   the dictionaries' encoder and rdf_quad_insert (the projections must
 *   cover every quad, rdf README invariant 8), after a check of INSERT on
 *   pg_rdf.rdf_quad.
 * - Deletes leave the projections (rdf_quad_sp/op/gs) alone: they are
 *   insert-only supersets (rdf README "Quads") and nothing deletes
 *   dictionary entries (ids are never reused).
 * - Templates are instantiated here from the WHERE's rows of term ids (the
 *   query compiler's SQL, sp_compile_update_where), which are all read
 *   before anything changes (the standard's snapshot semantics): deletes
 *   first, then inserts. DATA blocks are templates with one empty
 *   solution. A delete constant is looked up without being added (an
 *   unknown term: the quad cannot exist); an insert constant is encoded.
 *   Blank nodes of an INSERT template are fresh per solution, those of
 *   INSERT DATA fresh per operation: labels `u<scope>_<op>_<row>_<n>`,
 *   the scope a number of rdf_term_seq (as the loader's), so they never
 *   meet a loaded or earlier node.
 * - Graphs exist while they hold quads (no record of empty graphs, as the
 *   standard allows for CREATE and CLEAR): CREATE fails only for a graph
 *   with quads; CLEAR and DROP of an empty graph succeed; ADD/COPY/MOVE
 *   from an empty graph copy nothing (COPY and MOVE still empty the
 *   target) — a graph a request emptied must not make its next operation
 *   fail. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/runner/runner_int.h"
#include "rdf/rdf.h"
#include "sparql/sparql.h"
#include "sql/sql.h"


typedef struct su_s {
  esession_t *su_s;
  arena_t *su_a;               /* the request's memory */
  txn_t *su_tx;
  rdf_dict_t *su_dict;         /* opened at first encode */
  const sp_list_t *su_using;   /* the protocol's using-graph-uri / using-named-graph-uri */
  splan_t *su_del;             /* DELETE of one quad by key, planned at first use */
  int64_t su_scope;            /* blank-node scope of this request, 0 until needed */
  int su_op;                   /* the operation's number in the request */
  int64_t su_inserted, su_deleted;
} su_t;

/* ---- SQL run inside the request ------------------------------------------ */

/* Parses and plans sql (one statement) with the session's privileges. */
static int su_plan(su_t *u, const char *sql, const ty_t *ptypes, int nparams, splan_t **out,
                   err_t *e)
{
  sql_stmt_list_t *l;
  if (sql_parse(u->su_a, sql, strlen(sql), &l, e) != CZ_OK || l->sl_n != 1) {
    if (err_is(e, SQLSTATE_SUCCESSFUL_COMPLETION))
      err_set(e, SQLSTATE_INTERNAL, "SPARQL update: generated SQL is not one statement");
    e->er_pos = 0;
    return err_prefix(e, "the SQL compiled from SPARQL Update does not parse (a compiler bug)");
  }
  es_refresh_snapshot(u->su_s);
  sp_env_t env;
  en_env(u->su_s, &env);
  if (sql_plan_stmt(u->su_a, l->sl_stmts[0], &env, ptypes, nparams, out, e) != CZ_OK)
    return CZ_ERR;
  return en_check_access(u->su_s, *out, e);
}

/* Runs plan p with params; rows of a query go to *rows (ncols int8 each,
 * SQL NULL as 0, grown in u's arena), a DML's count to *count. */
static int su_exec(su_t *u, splan_t *p, datum_t *params, int nparams, int64_t **rows,
                   size_t *nrows, int64_t *count, err_t *e)
{
  erexec_t x;
  er_exec_begin(&x, u->su_s, p, params, nparams, u->su_a, NULL, NULL);
  qctx_t *q = &x.x_q;
  size_t cap = 0;
  int nc = p->sp_ncols;
  int rc = op_open(p->sp_root, q, e);
  while (rc == CZ_OK) {
    obatch_t ob;
    if ((rc = op_next(p->sp_root, q, &ob, e)) != CZ_OK || !ob.ob_b)
      break;
    if (!rows)
      continue;
    if (*nrows + (size_t)ob.ob_n > cap) {
      size_t ncap = cap ? cap * 2 : 256;
      while (ncap < *nrows + (size_t)ob.ob_n)
        ncap *= 2;
      int64_t *g = arena_alloc(u->su_a, sizeof(int64_t) * ncap * (size_t)(nc ? nc : 1));
      if (*nrows)
        memcpy(g, *rows, sizeof(int64_t) * *nrows * (size_t)nc);
      *rows = g;
      cap = ncap;
    }
    for (int i = 0; i < ob.ob_n; i++) {
      int r = ob.ob_sel ? ob.ob_sel[i] : i;
      for (int c = 0; c < nc; c++) {
        datum_t d;
        vec_get(&ob.ob_b->b_cols[c], r, &d);
        int64_t cell = d.d_null ? 0 : d.d_i64;
        if (!d.d_null && ty_phys(ob.ob_b->b_cols[c].v_type.t_id) == TP_STR)
          cell = (int64_t)(intptr_t)arena_sprintf(u->su_a, "%.*s", (int)d.d_str.s_len, d.d_str.s_ptr);
        (*rows)[*nrows * (size_t)nc + (size_t)c] = cell;
      }
      (*nrows)++;
    }
  }
  if (rc == CZ_OK && count && p->sp_dml)
    *count = (int64_t)op_dml_count(p->sp_dml, q);
  op_close(p->sp_root, q);
  er_exec_end(&x);
  return rc;
}

/* A query's rows (ncols int8 columns each; a text column's cell is a
 * pointer to its NUL-terminated copy in su_a, 0 for NULL). */
static int su_query(su_t *u, const char *sql, int64_t **rows, size_t *nrows, err_t *e)
{
  splan_t *p;
  *rows = NULL;
  *nrows = 0;
  if (su_plan(u, sql, NULL, 0, &p, e) != CZ_OK)
    return CZ_ERR;
  return su_exec(u, p, NULL, 0, rows, nrows, NULL, e);
}

/* An INSERT/UPDATE/DELETE; *count the rows it changed. */
static int su_dml(su_t *u, const char *sql, int64_t *count, err_t *e)
{
  splan_t *p;
  *count = 0;
  if (su_plan(u, sql, NULL, 0, &p, e) != CZ_OK)
    return CZ_ERR;
  return su_exec(u, p, NULL, 0, NULL, NULL, count, e);
}

/* ---- terms and quads ------------------------------------------------------ */

static rdf_term_t su_rdf_term(const sp_term_t *t)
{
  if (t->tm_kind == SP_T_IRI)
    return rdf_iri(t->tm_str);
  const char *dt = t->tm_dt;
  if (dt && strcmp(dt, RDF_XSD_STRING) == 0)
    dt = NULL;
  return rdf_literal(t->tm_str, t->tm_lang ? NULL : dt, t->tm_lang);
}

/* SELECT on the dictionaries (and USAGE on their schema), as the SQL
 * that read them before needed: a lookup does not go through a plan. */
static int su_check_lookup(su_t *u, err_t *e)
{
  if (esession_is_superuser(u->su_s))
    return CZ_OK;
  const cat_snapshot_t *snap = es_snapshot(u->su_s);
  static const char *const dicts[3] = {"rdf_prefix", "rdf_iri", "rdf_literal"};
  for (int i = 0; i < 3; i++) {
    const cat_table_t *t = cat_find_table(snap, RDF_SCHEMA, dicts[i]);
    if (!t)
      return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s.%s\" does not exist", RDF_SCHEMA,
                     dicts[i]);
    if ((i == 0 && en_check_schema_usage(u->su_s, snap, es_role_oid(u->su_s), t->ct_schema, e) != CZ_OK) ||
        cat_check_priv(snap, es_role_oid(u->su_s), t, CAT_PRIV_SELECT, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

/* The store's ids of constant terms[0..n) (IRIs, literals), 0 for terms it
 * does not hold; nothing is added. One vectored probe per dictionary
 * (rdf_dict_lookup) in the request's transaction — no SQL statement to
 * parse, plan and sample for it (it was half of a small query's time). */
static int su_lookup(su_t *u, const sp_term_t *const *terms, size_t n, rdf_id_t *ids, err_t *e)
{
  if (n == 0)
    return CZ_OK;
  if (su_check_lookup(u, e) != CZ_OK)
    return CZ_ERR;
  if (!u->su_dict && rdf_dict_open(es_snapshot(u->su_s)->cs_cat, u->su_a, &u->su_dict, e) != CZ_OK)
    return CZ_ERR;
  rdf_term_t *r = arena_alloc(u->su_a, sizeof(*r) * n);
  for (size_t i = 0; i < n; i++)
    r[i] = su_rdf_term(terms[i]);
  return rdf_dict_lookup(u->su_dict, u->su_tx, r, n, ids, e);
}

int en_sparql_term_ids(esession_t *s, arena_t *a, const sp_term_t *const *terms, size_t n, int64_t *ids,
                       err_t *e)
{
  su_t u = {.su_s = s, .su_a = a, .su_tx = es_txn(s)};
  int rc = su_lookup(&u, terms, n, (rdf_id_t *)ids, e);
  if (u.su_dict)
    rdf_dict_close(u.su_dict);
  return rc;
}

int en_sparql_id_rows(esession_t *s, arena_t *a, const char *sql, int64_t **rows, size_t *nrows, err_t *e)
{
  su_t u = {.su_s = s, .su_a = a, .su_tx = es_txn(s)};
  return su_query(&u, sql, rows, nrows, e);
}

/* INSERT on pg_rdf.rdf_quad (and USAGE on its schema), as an INSERT
 * statement would need: inserts do not go through a plan. */
static int su_check_insert(su_t *u, err_t *e)
{
  const cat_snapshot_t *snap = es_snapshot(u->su_s);
  const cat_table_t *t = cat_find_table(snap, RDF_SCHEMA, "rdf_quad");
  if (!t)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"%s.rdf_quad\" does not exist",
                   RDF_SCHEMA);
  if (esession_is_superuser(u->su_s))
    return CZ_OK;
  if (en_check_schema_usage(u->su_s, snap, es_role_oid(u->su_s), t->ct_schema, e) != CZ_OK)
    return CZ_ERR;
  return cat_check_priv(snap, es_role_oid(u->su_s), t, CAT_PRIV_INSERT, e);
}

/* The ids of terms[0..n), new ones added to the dictionaries (in their
 * own short transactions: rdf README "Dictionaries"). */
static int su_encode(su_t *u, const rdf_term_t *terms, size_t n, rdf_id_t *ids, err_t *e)
{
  if (!u->su_dict && rdf_dict_open(es_snapshot(u->su_s)->cs_cat, u->su_a, &u->su_dict, e) != CZ_OK)
    return CZ_ERR;
  return rdf_dict_encode(u->su_dict, terms, n, ids, e);
}

/* A fresh blank-node scope: a number of rdf_term_seq (never given twice,
 * across restarts too). */
static int su_new_scope(su_t *u, int64_t *scope, err_t *e)
{
  const cat_sequence_t *sq = cat_find_sequence(es_snapshot(u->su_s), RDF_SCHEMA, "rdf_term_seq");
  if (!sq)
    return err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"rdf_term_seq\" does not exist");
  cat_seq_session_t *ss = cat_seq_session_new(u->su_a);
  return cat_seq_nextval(ss, sq, u->su_tx, NULL, scope, e);
}

/* This request's scope for the blank nodes of its templates. */
static int su_scope(su_t *u, err_t *e)
{
  return u->su_scope ? CZ_OK : su_new_scope(u, &u->su_scope, e);
}

static int su_cmp_quad(const void *x, const void *y)
{
  return memcmp(x, y, sizeof(rdf_qids_t));
}

/* Sorts q[0..*n) and drops repeats (memcmp order: any total order does). */
static void su_distinct(rdf_qids_t *q, size_t *n)
{
  if (*n == 0)
    return; /* q may be NULL: qsort must not see it */
  qsort(q, *n, sizeof(*q), su_cmp_quad);
  size_t m = 0;
  for (size_t i = 0; i < *n; i++)
    if (m == 0 || memcmp(&q[m - 1], &q[i], sizeof(*q)) != 0)
      q[m++] = q[i];
  *n = m;
}

/* Deletes quads[0..n) that exist, one planned DELETE by key each. */
static int su_delete(su_t *u, rdf_qids_t *q, size_t n, err_t *e)
{
  su_distinct(q, &n);
  if (n && !u->su_del) {
    ty_t pt[4];
    for (int i = 0; i < 4; i++)
      pt[i] = ty_plain(TY_INT8);
    if (su_plan(u,
                "DELETE FROM " RDF_SCHEMA ".rdf_quad WHERE p = $1 AND s = $2 AND o = $3 AND g = $4",
                pt, 4, &u->su_del, e) != CZ_OK)
      return CZ_ERR;
  }
  for (size_t i = 0; i < n; i++) {
    datum_t par[4] = {{.d_i64 = (int64_t)q[i].qi_p}, {.d_i64 = (int64_t)q[i].qi_s},
                      {.d_i64 = (int64_t)q[i].qi_o}, {.d_i64 = (int64_t)q[i].qi_g}};
    int64_t c = 0;
    if (su_exec(u, u->su_del, par, 4, NULL, NULL, &c, e) != CZ_OK)
      return CZ_ERR;
    u->su_deleted += c;
  }
  return CZ_OK;
}

/* Adds quads q[0..n) (scratch memory in a). */
static int su_insert_in(su_t *u, rdf_qids_t *q, size_t n, arena_t *a, err_t *e)
{
  int64_t added = 0;
  if (n && rdf_quad_insert(u->su_tx, es_snapshot(u->su_s), q, n, a, &added, e) != CZ_OK)
    return CZ_ERR;
  u->su_inserted += added;
  return CZ_OK;
}

static int su_insert(su_t *u, rdf_qids_t *q, size_t n, err_t *e)
{
  return su_insert_in(u, q, n, u->su_a, e);
}

/* A quad RDF allows: graph default or an IRI, subject IRI or blank node,
 * predicate IRI, object any term. */
static bool su_valid(const rdf_qids_t *q)
{
  rdf_id_tag_t s = rdf_id_tag(q->qi_s);
  return (q->qi_g == 0 || rdf_id_tag(q->qi_g) == RDF_ID_IRI) &&
         (s == RDF_ID_IRI || s == RDF_ID_BNODE) && rdf_id_tag(q->qi_p) == RDF_ID_IRI &&
         q->qi_o != 0;
}

/* ---- templates -------------------------------------------------------------- */

/* One position of a template quad. */
typedef enum su_slot_kind_e {
  SL_ID,      /* a term id (0 in the graph position: the default graph) */
  SL_VAR,     /* the solution's column sl_n */
  SL_BNODE,   /* the template's blank node sl_n, fresh per solution */
  SL_ABSENT   /* a constant the store does not hold (delete templates) */
} su_slot_kind_t;

typedef struct su_slot_s {
  su_slot_kind_t sl_kind;
  int sl_n;
  rdf_id_t sl_id;
} su_slot_t;

/* A template ready to instantiate: 4 slots (g, s, p, o) per quad. */
typedef struct su_tmpl_s {
  int tp_nquads;
  su_slot_t *tp_slots;
  int tp_nbnodes;
} su_tmpl_t;

/* The variable names of the templates of u, each once (into vars). */
static void su_add_var(su_t *u, const sp_term_t *t, const char **vars, int *nv)
{
  if (!t || t->tm_kind != SP_T_VAR)
    return;
  for (int i = 0; i < *nv; i++)
    if (strcmp(vars[i], t->tm_str) == 0)
      return;
  vars[(*nv)++] = arena_strdup(u->su_a, t->tm_str);
}

static int su_var_col(const char *const *vars, int nv, const char *name)
{
  for (int i = 0; i < nv; i++)
    if (strcmp(vars[i], name) == 0)
      return i;
  return -1;
}

/* quads (sp_quad_t *) as slots; the graph of a quad without GRAPH is with
 * (WITH's IRI) or the default graph. Constants are encoded when insert,
 * else looked up (unknown: SL_ABSENT). */
static int su_template(su_t *u, const sp_list_t *quads, const char *with, bool insert,
                       const char *const *vars, int nv, su_tmpl_t *tp, err_t *e)
{
  int nq = quads ? quads->ls_n : 0;
  tp->tp_nquads = nq;
  tp->tp_nbnodes = 0;
  tp->tp_slots = arena_zalloc(u->su_a, sizeof(su_slot_t) * (size_t)(4 * nq + 1));
  const sp_term_t **consts = arena_alloc(u->su_a, sizeof(sp_term_t *) * (size_t)(4 * nq + 1));
  int *const_slot = arena_alloc(u->su_a, sizeof(int) * (size_t)(4 * nq + 1));
  const char **labels = arena_alloc(u->su_a, sizeof(char *) * (size_t)(4 * nq + 1));
  size_t nc = 0;
  sp_term_t with_term = {.tm_kind = SP_T_IRI, .tm_str = with};
  for (int i = 0; i < nq; i++) {
    const sp_quad_t *q = quads->ls_v[i];
    const sp_term_t *pos[4] = {q->qd_g ? q->qd_g : with ? &with_term : NULL, q->qd_t->tr_s,
                               q->qd_t->tr_p, q->qd_t->tr_o};
    for (int k = 0; k < 4; k++) {
      su_slot_t *sl = &tp->tp_slots[4 * i + k];
      const sp_term_t *t = pos[k];
      if (!t) {
        *sl = (su_slot_t){.sl_kind = SL_ID, .sl_id = 0};
      } else if (t->tm_kind == SP_T_VAR) {
        *sl = (su_slot_t){.sl_kind = SL_VAR, .sl_n = su_var_col(vars, nv, t->tm_str)};
      } else if (t->tm_kind == SP_T_BNODE) {
        int b = 0;
        while (b < tp->tp_nbnodes && strcmp(labels[b], t->tm_str) != 0)
          b++;
        if (b == tp->tp_nbnodes)
          labels[tp->tp_nbnodes++] = t->tm_str;
        *sl = (su_slot_t){.sl_kind = SL_BNODE, .sl_n = b};
      } else {
        consts[nc] = t;
        const_slot[nc++] = 4 * i + k;
      }
    }
  }
  if (!nc)
    return CZ_OK;
  rdf_id_t *ids = arena_alloc(u->su_a, sizeof(rdf_id_t) * nc);
  if (insert) {
    rdf_term_t *terms = arena_alloc(u->su_a, sizeof(rdf_term_t) * nc);
    for (size_t i = 0; i < nc; i++)
      terms[i] = su_rdf_term(consts[i]);
    if (su_encode(u, terms, nc, ids, e) != CZ_OK)
      return CZ_ERR;
  } else if (su_lookup(u, consts, nc, ids, e) != CZ_OK) {
    return CZ_ERR;
  }
  for (size_t i = 0; i < nc; i++)
    tp->tp_slots[const_slot[i]] = (su_slot_t){.sl_kind = ids[i] ? SL_ID : SL_ABSENT,
                                              .sl_id = ids[i]};
  return CZ_OK;
}

/* The quads of tp for each of the nrows solutions (nv ids each) into
 * *out: a quad with an unbound variable, an absent constant or a term RDF
 * does not allow in its place is left out (spec Update §3.1.3). Blank
 * nodes get fresh ids per solution. */
static int su_instantiate(su_t *u, const su_tmpl_t *tp, const int64_t *rows, size_t nrows, int nv,
                          rdf_qids_t **out, size_t *nout, err_t *e)
{
  *nout = 0;
  *out = NULL;
  size_t nq = (size_t)tp->tp_nquads;
  if (!nq || !nrows)
    return CZ_OK;
  rdf_id_t *bn = NULL;
  if (tp->tp_nbnodes) {
    size_t nb = (size_t)tp->tp_nbnodes * nrows;
    if (su_scope(u, e) != CZ_OK)
      return CZ_ERR;
    rdf_term_t *terms = arena_alloc(u->su_a, sizeof(rdf_term_t) * nb);
    for (size_t r = 0; r < nrows; r++)
      for (int b = 0; b < tp->tp_nbnodes; b++)
        terms[r * (size_t)tp->tp_nbnodes + (size_t)b] = rdf_bnode(
            arena_sprintf(u->su_a, "u%lld_%d_%zu_%d", (long long)u->su_scope, u->su_op, r, b));
    bn = arena_alloc(u->su_a, sizeof(rdf_id_t) * nb);
    if (su_encode(u, terms, nb, bn, e) != CZ_OK)
      return CZ_ERR;
  }
  rdf_qids_t *q = arena_alloc(u->su_a, sizeof(rdf_qids_t) * nq * nrows);
  size_t n = 0;
  for (size_t r = 0; r < nrows; r++) {
    const int64_t *row = rows ? rows + r * (size_t)nv : NULL;
    for (size_t i = 0; i < nq; i++) {
      rdf_id_t v[4];
      bool ok = true;
      for (int k = 0; k < 4 && ok; k++) {
        const su_slot_t *sl = &tp->tp_slots[4 * i + (size_t)k];
        switch (sl->sl_kind) {
        case SL_ID: v[k] = sl->sl_id; break;
        case SL_VAR: v[k] = sl->sl_n >= 0 && row ? (rdf_id_t)row[sl->sl_n] : 0; ok = v[k] != 0; break;
        case SL_BNODE: v[k] = bn[r * (size_t)tp->tp_nbnodes + (size_t)sl->sl_n]; break;
        case SL_ABSENT: ok = false; break;
        }
      }
      if (!ok)
        continue;
      q[n] = (rdf_qids_t){.qi_g = v[0], .qi_s = v[1], .qi_p = v[2], .qi_o = v[3]};
      if (su_valid(&q[n]))
        n++;
    }
  }
  *out = q;
  *nout = n;
  return CZ_OK;
}

/* Column k of rows (nv columns) holds aggregate counts (SQL int8, never
 * NULL): each becomes the id of its xsd:integer (inline: a count has at
 * most 19 digits, and the literal dictionary is not needed below 10^15;
 * a bigger one is left out of the templates as unbound). */
static void su_counts_as_ids(int64_t *rows, size_t nrows, int nv, int k)
{
  for (size_t r = 0; r < nrows; r++) {
    char lex[32];
    snprintf(lex, sizeof(lex), "%lld", (long long)rows[r * (size_t)nv + (size_t)k]);
    rdf_term_t lit = rdf_literal(lex, RDF_NS_XSD "integer", NULL);
    rows[r * (size_t)nv + (size_t)k] = (int64_t)rdf_id_encode_literal(&lit);
  }
}

/* Whether variable name is in an INSERT template of up. */
static bool su_var_inserted(const sp_update_t *up, const char *name)
{
  for (int i = 0; up->up_insert && i < up->up_insert->ls_n; i++) {
    const sp_quad_t *q = up->up_insert->ls_v[i];
    const sp_term_t *pos[4] = {q->qd_g, q->qd_t->tr_s, q->qd_t->tr_p, q->qd_t->tr_o};
    for (int k = 0; k < 4; k++)
      if (pos[k] && pos[k]->tm_kind == SP_T_VAR && strcmp(pos[k]->tm_str, name) == 0)
        return true;
  }
  return false;
}

/* Column k of rows holds computed terms (their N-Triples text, see
 * su_query): each becomes its id — encoded when the variable feeds an
 * INSERT template (new terms are added), else looked up (a term the store
 * does not hold leaves the quad out: no such quad to delete). A blank node
 * gets a label of this request's scope, so it is new, never a stored one. */
static int su_terms_as_ids(su_t *u, int64_t *rows, size_t nrows, int nv, int k, bool encode,
                           err_t *e)
{
  for (size_t r = 0; r < nrows; r++) {
    int64_t *cell = &rows[r * (size_t)nv + (size_t)k];
    const char *nt = (const char *)(intptr_t)*cell;
    if (!nt)
      continue;
    rdf_term_t t;
    if (rdf_term_from_nt(u->su_a, nt, strlen(nt), &t, e) != CZ_OK)
      return err_prefix(e, "a computed term of the update's WHERE");
    rdf_id_t id = 0;
    if (t.rt_kind == RDF_BNODE) {
      if (!encode) {
        *cell = 0;
        continue;
      }
      if (su_scope(u, e) != CZ_OK)
        return CZ_ERR;
      t = rdf_bnode(arena_sprintf(u->su_a, "c%lld_%.*s", (long long)u->su_scope, (int)t.rt_len, t.rt_str));
    }
    if (encode) {
      if (su_encode(u, &t, 1, &id, e) != CZ_OK)
        return CZ_ERR;
    } else {
      sp_term_t st = {.tm_kind = t.rt_kind == RDF_IRI ? SP_T_IRI : SP_T_LIT,
                      .tm_str = arena_sprintf(u->su_a, "%.*s", (int)t.rt_len, t.rt_str),
                      .tm_dt = t.rt_dt ? arena_sprintf(u->su_a, "%.*s", (int)t.rt_dt_len, t.rt_dt) : NULL,
                      .tm_lang = t.rt_lang_len ? arena_sprintf(u->su_a, "%.*s", (int)t.rt_lang_len, t.rt_lang)
                                               : NULL};
      const sp_term_t *stp = &st;
      if (su_lookup(u, &stp, 1, &id, e) != CZ_OK)
        return CZ_ERR;
    }
    *cell = (int64_t)id;
  }
  return CZ_OK;
}

/* ---- the operations ------------------------------------------------------- */

/* INSERT DATA, DELETE DATA, DELETE WHERE, DELETE/INSERT … WHERE. */
static int su_modify(su_t *u, const sp_update_t *up, err_t *e)
{
  bool has_where = up->up_kind == SP_U_MODIFY || up->up_kind == SP_U_DELETE_WHERE;
  int cap = 4 * ((up->up_delete ? up->up_delete->ls_n : 0) + (up->up_insert ? up->up_insert->ls_n : 0)) + 1;
  const char **vars = arena_alloc(u->su_a, sizeof(char *) * (size_t)cap);
  int nv = 0;
  for (int l = 0; l < 2; l++) {
    const sp_list_t *qs = l ? up->up_insert : up->up_delete;
    for (int i = 0; qs && i < qs->ls_n; i++) {
      const sp_quad_t *q = qs->ls_v[i];
      su_add_var(u, q->qd_g, vars, &nv);
      su_add_var(u, q->qd_t->tr_s, vars, &nv);
      su_add_var(u, q->qd_t->tr_p, vars, &nv);
      su_add_var(u, q->qd_t->tr_o, vars, &nv);
    }
  }
  if (u->su_using && u->su_using->ls_n > 0 && (up->up_with || (up->up_using && up->up_using->ls_n)))
    return err_set(e, SQLSTATE_SYNTAX_ERROR,
                   "an update with WITH or USING cannot take using-graph-uri or using-named-graph-uri");
  if (up->up_insert && su_check_insert(u, e) != CZ_OK)
    return CZ_ERR;
  /* every solution first: the changes below must not change the WHERE's
   * answer */
  int64_t *rows = NULL;
  size_t nrows = 1;
  if (has_where) {
    sp_wcol_t *kinds = arena_zalloc(u->su_a, sizeof(sp_wcol_t) * (size_t)(nv + 1));
    char *sql = sp_compile_update_where(u->su_a, up, u->su_using, vars, nv, kinds, e);
    if (!sql || su_query(u, sql, &rows, &nrows, e) != CZ_OK)
      return CZ_ERR;
    for (int k = 0; k < nv; k++)
      if (kinds[k] == SP_WCOL_COUNT)
        su_counts_as_ids(rows, nrows, nv, k);
      else if (kinds[k] == SP_WCOL_TERM &&
               su_terms_as_ids(u, rows, nrows, nv, k, su_var_inserted(up, vars[k]), e) != CZ_OK)
        return CZ_ERR;
  }
  su_tmpl_t del, ins;
  rdf_qids_t *dq, *iq;
  size_t ndq, niq;
  if (su_template(u, up->up_delete, up->up_with, false, vars, nv, &del, e) != CZ_OK ||
      su_template(u, up->up_insert, up->up_with, true, vars, nv, &ins, e) != CZ_OK ||
      su_instantiate(u, &del, rows, nrows, nv, &dq, &ndq, e) != CZ_OK ||
      su_instantiate(u, &ins, rows, nrows, nv, &iq, &niq, e) != CZ_OK)
    return CZ_ERR;
  if (su_delete(u, dq, ndq, e) != CZ_OK)
    return CZ_ERR;
  return su_insert(u, iq, niq, e);
}

/* The id of graph iri: looked up (*known false when the store does not
 * hold it), or encoded when create. */
static int su_graph_id(su_t *u, const char *iri, bool create, rdf_id_t *id, bool *known, err_t *e)
{
  sp_term_t t = {.tm_kind = SP_T_IRI, .tm_str = iri};
  if (create) {
    rdf_term_t r = rdf_iri(iri);
    *known = true;
    return su_encode(u, &r, 1, id, e);
  }
  const sp_term_t *tp = &t;
  if (su_lookup(u, &tp, 1, id, e) != CZ_OK)
    return CZ_ERR;
  *known = *id != 0;
  return CZ_OK;
}

/* Whether graph id holds a quad. */
static int su_graph_has_quads(su_t *u, rdf_id_t id, bool *has, err_t *e)
{
  int64_t *rows;
  size_t n;
  char *sql = arena_sprintf(u->su_a, "SELECT 1 FROM " RDF_SCHEMA ".rdf_quad WHERE g = %lld LIMIT 1",
                            (long long)id);
  if (su_query(u, sql, &rows, &n, e) != CZ_OK)
    return CZ_ERR;
  *has = n > 0;
  return CZ_OK;
}

/* Deletes the quads of graph g (an IRI's id, or 0 the default graph). */
static int su_clear_id(su_t *u, rdf_id_t g, err_t *e)
{
  int64_t c;
  char *sql = arena_sprintf(u->su_a, "DELETE FROM " RDF_SCHEMA ".rdf_quad WHERE g = %lld", (long long)g);
  if (su_dml(u, sql, &c, e) != CZ_OK)
    return CZ_ERR;
  u->su_deleted += c;
  return CZ_OK;
}

/* CLEAR and DROP (the same here: no record of empty graphs). */
static int su_clear(su_t *u, const sp_gref_t *g, err_t *e)
{
  const char *where = NULL;
  switch (g->gr_kind) {
  case SP_GR_IRI: {
    rdf_id_t id;
    bool known;
    if (su_graph_id(u, g->gr_iri, false, &id, &known, e) != CZ_OK)
      return CZ_ERR;
    return known ? su_clear_id(u, id, e) : CZ_OK;
  }
  case SP_GR_DEFAULT: where = " WHERE g = 0"; break;
  case SP_GR_NAMED: where = " WHERE g <> 0"; break;
  default: where = ""; break;
  }
  int64_t c;
  if (su_dml(u, arena_sprintf(u->su_a, "DELETE FROM " RDF_SCHEMA ".rdf_quad%s", where), &c, e) != CZ_OK)
    return CZ_ERR;
  u->su_deleted += c;
  return CZ_OK;
}

static int su_create(su_t *u, const sp_gref_t *g, err_t *e)
{
  rdf_id_t id;
  bool known, has = false;
  if (su_graph_id(u, g->gr_iri, false, &id, &known, e) != CZ_OK ||
      (known && su_graph_has_quads(u, id, &has, e) != CZ_OK))
    return CZ_ERR;
  if (has)
    return err_set(e, SQLSTATE_DUPLICATE_OBJECT, "graph <%s> already exists", g->gr_iri);
  return CZ_OK;
}

static bool su_same_graph(const sp_gref_t *a, const sp_gref_t *b)
{
  if (a->gr_kind != b->gr_kind)
    return false;
  return a->gr_kind != SP_GR_IRI || strcmp(a->gr_iri, b->gr_iri) == 0;
}

/* ADD, COPY, MOVE (spec Update §3.2.4-3.2.6). */
static int su_transfer(su_t *u, const sp_update_t *up, err_t *e)
{
  if (su_same_graph(&up->up_from, &up->up_target))
    return CZ_OK;
  rdf_id_t from = 0, to = 0;
  bool known = true;
  if (up->up_from.gr_kind == SP_GR_IRI &&
      su_graph_id(u, up->up_from.gr_iri, false, &from, &known, e) != CZ_OK)
    return CZ_ERR;
  if (su_check_insert(u, e) != CZ_OK)
    return CZ_ERR;
  bool to_known;
  if (up->up_target.gr_kind == SP_GR_IRI &&
      su_graph_id(u, up->up_target.gr_iri, true, &to, &to_known, e) != CZ_OK)
    return CZ_ERR;
  int64_t *rows = NULL;
  size_t n = 0;
  char *sql = arena_sprintf(u->su_a, "SELECT s, p, o FROM " RDF_SCHEMA ".rdf_quad WHERE g = %lld",
                            (long long)from);
  if (known && su_query(u, sql, &rows, &n, e) != CZ_OK)
    return CZ_ERR;
  if (up->up_kind != SP_U_ADD && su_clear_id(u, to, e) != CZ_OK)
    return CZ_ERR;
  rdf_qids_t *q = arena_alloc(u->su_a, sizeof(rdf_qids_t) * (n + 1));
  for (size_t i = 0; i < n; i++)
    q[i] = (rdf_qids_t){.qi_g = to, .qi_s = (rdf_id_t)rows[3 * i], .qi_p = (rdf_id_t)rows[3 * i + 1],
                        .qi_o = (rdf_id_t)rows[3 * i + 2]};
  if (su_insert(u, q, n, e) != CZ_OK)
    return CZ_ERR;
  if (up->up_kind == SP_U_MOVE && known)
    return su_clear_id(u, from, e);
  return CZ_OK;
}

/* ---- LOAD ------------------------------------------------------------------ */

typedef struct su_load_s {
  su_t *ld_u;
  arena_t *ld_batch;           /* one reader batch's memory, reset per batch */
} su_load_t;

/* A reader batch: its terms encoded, its quads inserted (memory stays
 * bounded by the batch, whatever the file's size). */
static int su_load_batch(void *ctx, const rdf_quad_t *quads, size_t n, err_t *e)
{
  su_load_t *ld = ctx;
  su_t *u = ld->ld_u;
  if (*es_cancel_flag(u->su_s))
    return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  arena_reset(ld->ld_batch);
  rdf_term_t *terms = arena_alloc(ld->ld_batch, sizeof(rdf_term_t) * 4 * n);
  rdf_qids_t *q = arena_alloc(ld->ld_batch, sizeof(rdf_qids_t) * n);
  for (size_t i = 0; i < n; i++) {
    terms[4 * i] = quads[i].rq_g;
    terms[4 * i + 1] = quads[i].rq_s;
    terms[4 * i + 2] = quads[i].rq_p;
    terms[4 * i + 3] = quads[i].rq_o;
  }
  /* rdf_qids_t is four ids in the order g, s, p, o: the terms' order */
  _Static_assert(sizeof(rdf_qids_t) == 4 * sizeof(rdf_id_t), "rdf_qids_t is four ids");
  if (su_encode(u, terms, 4 * n, (rdf_id_t *)q, e) != CZ_OK)
    return CZ_ERR;
  return su_insert_in(u, q, n, ld->ld_batch, e);
}

static int su_hex(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* LOAD <file:///path> [INTO GRAPH <g>]: the file through the server's file
 * gate (a superuser, inside DirsAllowed), read by the loader's reader. */
static int su_load(su_t *u, const sp_update_t *up, err_t *e)
{
  const char *iri = up->up_source;
  if (strncmp(iri, "file://", 7) != 0)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "SPARQL LOAD reads only file: IRIs of the server's DirsAllowed, not <%s>", iri);
  const char *p = iri + 7;
  if (strncmp(p, "localhost/", 10) == 0)
    p += 9;
  if (*p != '/')
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "SPARQL LOAD reads only local files (file:///path), not <%s>", iri);
  char *path = arena_alloc(u->su_a, strlen(p) + 1), *o = path;
  for (; *p; p++) {
    int h, l;
    if (*p == '%' && (h = su_hex(p[1])) >= 0 && (l = su_hex(p[2])) >= 0) {
      *o++ = (char)(h * 16 + l);
      p += 2;
    } else if (*p == '?' || *p == '#') {
      break;
    } else {
      *o++ = *p;
    }
  }
  *o = '\0';
  if (strlen(path) != (size_t)(o - path))
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "SPARQL LOAD: <%s> names no file", iri);
  char real[PATH_MAX];
  int64_t scope;
  if (en_file_check_path(u->su_s, path, real, e) != CZ_OK || su_check_insert(u, e) != CZ_OK ||
      su_new_scope(u, &scope, e) != CZ_OK)
    return CZ_ERR;
  su_load_t ld = {.ld_u = u, .ld_batch = arena_create(u->su_a, "sparql load batch")};
  /* labels b<scope>_…, as the loader's: apart from every other load's */
  rdf_read_opts_t ro = {.ro_fn = su_load_batch, .ro_ctx = &ld, .ro_batch = 4096,
                        .ro_bnode_scope = (uint64_t)scope};
  if (up->up_target.gr_kind == SP_GR_IRI)
    ro.ro_default_graph = up->up_target.gr_iri;
  return rdf_read_file(real, &ro, e);
}

/* ---- the request ---------------------------------------------------------- */

static int su_op(su_t *u, const sp_update_t *up, err_t *e)
{
  switch (up->up_kind) {
  case SP_U_INSERT_DATA:
  case SP_U_DELETE_DATA:
  case SP_U_DELETE_WHERE:
  case SP_U_MODIFY: return su_modify(u, up, e);
  case SP_U_CLEAR:
  case SP_U_DROP: return su_clear(u, &up->up_target, e);
  case SP_U_CREATE: return su_create(u, &up->up_target, e);
  case SP_U_ADD:
  case SP_U_COPY:
  case SP_U_MOVE: return su_transfer(u, up, e);
  case SP_U_LOAD: return su_load(u, up, e);
  }
  return err_set(e, SQLSTATE_INTERNAL, "SPARQL update: unknown operation");
}

/* Errors SILENT does not hide: the request cannot go on after them. */
static bool su_fatal(const err_t *e)
{
  return err_is(e, SQLSTATE_QUERY_CANCELED) || strncmp(e->er_sqlstate, "40", 2) == 0 ||
         strncmp(e->er_sqlstate, "53", 2) == 0 || strncmp(e->er_sqlstate, "XX", 2) == 0;
}

/* The operations of rq in the session's open transaction. */
static int su_request(su_t *u, const sp_request_t *rq, err_t *e)
{
  for (int i = 0; i < rq->rq_ops->ls_n; i++) {
    const sp_update_t *up = rq->rq_ops->ls_v[i];
    u->su_op = i;
    if (*es_cancel_flag(u->su_s))
      return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
    if (!up->up_silent) {
      if (su_op(u, up, e) != CZ_OK)
        return CZ_ERR;
      continue;
    }
    txn_mark_t *mark = txn_savepoint_mark(u->su_tx);
    int64_t ins = u->su_inserted, del = u->su_deleted;
    if (su_op(u, up, e) == CZ_OK)
      continue;
    if (su_fatal(e) || txn_rollback_to_mark(u->su_tx, mark, e) != CZ_OK)
      return CZ_ERR;
    es_notice(u->su_s, "NOTICE", SQLSTATE_SUCCESSFUL_COMPLETION, "SILENT %s", e->er_msg);
    err_clear(e);
    u->su_inserted = ins;
    u->su_deleted = del;
  }
  return CZ_OK;
}

/* Parses text and runs it as one transaction (see the file's notes). */
static int su_run(esession_t *s, arena_t *a, const char *text, size_t len, const char *base,
                  const sp_list_t *using, const char *inference, int64_t *inserted, int64_t *deleted,
                  err_t *e)
{
  *inserted = *deleted = 0;
  sp_request_t *rq = sp_parse(a, text, len, base, SP_PARSE_UPDATE, e);
  if (!rq) {
    if (es_in_block(s))
      es_tx_fail(s);  /* as a SQL syntax error fails the open block */
    return CZ_ERR;
  }
  for (int i = 0; inference && i < rq->rq_ops->ls_n; i++)
    ((sp_update_t *)rq->rq_ops->ls_v[i])->up_inference = inference;
  bool implicit = false;
  if (es_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  su_t u = {.su_s = s, .su_a = a, .su_tx = es_txn(s), .su_using = using};
  *es_cancel_flag(s) = false;
  int rc = su_request(&u, rq, e);
  if (u.su_dict)
    rdf_dict_close(u.su_dict);
  if (rc == CZ_OK) {
    *inserted = u.su_inserted;
    *deleted = u.su_deleted;
    if (implicit && es_tx_end_implicit(s, true, e) != CZ_OK) {
      es_tx_fail(s);
      return CZ_ERR;
    }
    return CZ_OK;
  }
  if (implicit)
    es_tx_end_implicit(s, false, NULL);
  else
    es_tx_fail(s);
  return CZ_ERR;
}

int esession_sparql_update(esession_t *s, const char *text, size_t len, const char *base,
                           const char *const *using_graphs, int nusing,
                           const char *const *using_named, int nnamed, int64_t *inserted,
                           int64_t *deleted, err_t *e)
{
  arena_t *a = arena_create(NULL, "sparql update");
  sp_list_t *using = arena_zalloc(a, sizeof(*using));
  int n = nusing + nnamed;
  using->ls_v = arena_alloc(a, sizeof(void *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    sp_gref_t *g = arena_zalloc(a, sizeof(*g));
    g->gr_kind = i < nusing ? SP_GR_IRI : SP_GR_NAMED;
    g->gr_iri = arena_strdup(a, i < nusing ? using_graphs[i] : using_named[i - nusing]);
    using->ls_v[using->ls_n++] = g;
  }
  using->ls_cap = using->ls_n;
  if (es_check_not_failed(s, NULL, e) != CZ_OK) {
    arena_destroy(a);
    return CZ_ERR;
  }
  int rc = su_run(s, a, text, len, base, using, NULL, inserted, deleted, e);
  arena_destroy(a);
  return rc;
}

/* ---- the SQL statement `SPARQL <update>` ------------------------------------ */

int en_sparql_update_prepare(estmt_t *st, err_t *e)
{
  if (es_check_not_failed(st->st_sess, NULL, e) != CZ_OK)
    return CZ_ERR;
  st->st_sparql_update = true;
  st->st_kind = ESTMT_QUERY;
  st->st_ncols = 2;
  st->st_cols = arena_zalloc(st->st_arena, sizeof(ecol_t) * 2);
  st->st_cols[0] = (ecol_t){.ec_name = "inserted", .ec_type = ty_plain(TY_INT8)};
  st->st_cols[1] = (ecol_t){.ec_name = "deleted", .ec_type = ty_plain(TY_INT8)};
  return CZ_OK;
}

int en_sparql_update_run(erun_t *r, erows_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = r->ru_stmt;
  size_t at = en_sparql_text_start(st->st_text, st->st_len);
  int64_t ins, del;
  if (su_run(st->st_sess, r->ru_arena, st->st_text + at, st->st_len - at, NULL, NULL,
             en_sparql_inference(r->ru_arena, st->st_text, st->st_len), &ins, &del, e) != CZ_OK)
    return CZ_ERR;
  ty_t types[2] = {ty_plain(TY_INT8), ty_plain(TY_INT8)};
  batch_t *b = batch_create(r->ru_arena, 2, types, 1, e);
  if (!b)
    return CZ_ERR;
  datum_t d0 = {.d_i64 = ins}, d1 = {.d_i64 = del};
  vec_set(&b->b_cols[0], 0, &d0);
  vec_set(&b->b_cols[1], 0, &d1);
  b->b_n = 1;
  snprintf(r->ru_tag, sizeof(r->ru_tag), "SELECT 1");
  return fn(ctx, b, e);
}

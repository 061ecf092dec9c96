/* rdf_load — the bulk loader: the load list (ld_dir) and the loaders that
 * take its files one at a time (rdf_loader_run), as Virtuoso's.
 *
 * Design notes (README.md "Bulk loader"):
 * - rdf_load_list has a row per file (ll_state 0 waiting, 1 loading,
 *   2 done; ll_error set when it failed). A loader claims the first
 *   waiting file by locking its row and updating it to 1 in a short
 *   transaction: two loaders claiming one row are serialized by its lock,
 *   and the second finds the row changed since its scan read it
 *   (TBL_LOCK_CHANGED) and takes the next — so parallel loaders always
 *   load different files.
 * - A file loads in ONE transaction (logged, not the non-transactional
 *   bulk mode: the txn layer's bulk transactions cannot roll back, and a
 *   malformed file must leave nothing behind). Pipeline per reader batch
 *   (RL_BATCH, 16384 statements): the terms are encoded by rdf_dict_encode (sorted,
 *   vectored, committed dictionary steps), the quads sorted and inserted
 *   by rdf_quad_insert. A malformed statement stops the file (its
 *   transaction rolled back, ll_error "<file>:<line>:<col>: …") or, with
 *   skip_bad, is skipped and counted in ll_bad. Nothing else is affected.
 * - A deadlock with another loader over the same quads (40P01) rolls the
 *   file back and loads it again, up to RL_RETRIES times.
 * - Progress: ll_triples is written in a short transaction about once a
 *   second while the file loads (others see it: the file's own
 *   transaction is not committed yet), and at the end.
 * - A load the server's stop interrupted (its row still in state 1 at the
 *   next start; its transaction never committed) is put back in state 0
 *   when the engine opens (rdf_load_requeue) and loads again in full.
 * - Every path goes through the caller's gate (rl_check: the DirsAllowed
 *   rule and the superuser check live with the engine), at ld_dir and
 *   again when the file is opened.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "rdf/rdf_int.h"
#include "table/table.h"

#define RL_RETRIES 5
#define RL_PROGRESS_NS 1000000000ULL
/* Statements per reader batch: each batch costs a few short committed
 * transactions (dictionaries, projections), so bigger batches mean fewer
 * log flushes per triple. */
#define RL_BATCH 16384

enum { LL_FILE, LL_GRAPH, LL_STATE, LL_ERROR, LL_STARTED, LL_FINISHED, LL_TRIPLES, LL_BAD, LL_BYTES, LL_READ, LL_NCOLS };

static int64_t rl_now_ts(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  /* TIMESTAMPTZ counts µs from 2000-01-01 00:00 UTC */
  return ((int64_t)ts.tv_sec - 946684800LL) * 1000000LL + ts.tv_nsec / 1000;
}

static datum_t rl_text(const char *s)
{
  datum_t d = {.d_null = s == NULL};
  if (s)
    d.d_str = (str_t){s, (uint32_t)strlen(s)};
  return d;
}

static const cat_table_t *rl_list(const cat_snapshot_t *s, err_t *e)
{
  const cat_table_t *t = cat_find_table(s, RDF_SCHEMA, "rdf_load_list");
  if (!t)
    err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"rdf_load_list\" does not exist");
  return t;
}

/* ---- ld_dir ------------------------------------------------------------------ */

static int rl_add_files(db_t *db, const cat_table_t *t, char **paths, const int64_t *sizes, int n,
                        const char *graph, arena_t *a, int64_t *added, err_t *e)
{
  datum_t *kd = arena_alloc(a, sizeof(datum_t) * (size_t)(n + 1));
  const datum_t **keys = arena_alloc(a, sizeof(*keys) * (size_t)(n + 1));
  bool *found = arena_alloc(a, sizeof(bool) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    kd[i] = rl_text(paths[i]);
    keys[i] = &kd[i];
  }
  txn_t *tx = txn_begin(db, TXN_NESTED, e);
  if (!tx)
    return CZ_ERR;
  int rc = n ? rdf_lock_values(tx, t->ct_indexes[0], keys, n, a, e) : CZ_OK;
  if (rc == CZ_OK && n)
    rc = tbl_ref_probe(tx, t, 0, keys, n, false, found, a, e);
  for (int i = 0; rc == CZ_OK && i < n; i++) {
    if (found[i])  /* already listed: as Virtuoso, ld_dir does not list a file twice */
      continue;
    datum_t row[LL_NCOLS] = {
      [LL_FILE] = kd[i], [LL_GRAPH] = rl_text(graph), [LL_STATE] = {.d_i64 = 0},
      [LL_ERROR] = {.d_null = true}, [LL_STARTED] = {.d_null = true},
      [LL_FINISHED] = {.d_null = true}, [LL_TRIPLES] = {.d_i64 = 0}, [LL_BAD] = {.d_i64 = 0},
      [LL_BYTES] = {.d_i64 = sizes[i]}, [LL_READ] = {.d_i64 = 0}};
    rc = tbl_insert_row(tx, t, row, e);
    if (rc == CZ_OK)
      (*added)++;
  }
  if (rc != CZ_OK) {
    txn_rollback(tx, NULL);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

int rdf_ld_dir(const rdf_load_env_t *env, const char *dir, const char *mask, const char *graph,
               int64_t *added, err_t *e)
{
  *added = 0;
  char real[PATH_MAX];
  if (env->le_check(env->le_check_ctx, dir, real, e) != CZ_OK)
    return CZ_ERR;
  struct stat sb;
  if (stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return err_set(e, SQLSTATE_UNDEFINED_FILE, "could not open directory \"%s\": not a directory",
                   dir);
  struct dirent **ents;
  int n = scandir(real, &ents, NULL, alphasort);
  if (n < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "could not open directory \"%s\": %m", dir);
  arena_t *a = arena_create(NULL, "ld_dir");
  char **paths = arena_alloc(a, sizeof(char *) * (size_t)(n + 1));
  int64_t *sizes = arena_alloc(a, sizeof(int64_t) * (size_t)(n + 1));
  int np = 0;
  for (int i = 0; i < n; i++) {
    const char *name = ents[i]->d_name;
    if (name[0] != '.' && fnmatch(mask ? mask : "*", name, 0) == 0) {
      char *p = arena_sprintf(a, "%s%s%s", real, strcmp(real, "/") ? "/" : "", name);
      if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) {
        sizes[np] = (int64_t)sb.st_size;
        paths[np++] = p;
      }
    }
    free(ents[i]);
  }
  free(ents);
  cat_snapshot_t *s = cat_snapshot(env->le_cat);
  const cat_table_t *t = rl_list(s, e);
  int rc = t ? rl_add_files(cat_db(env->le_cat), t, paths, sizes, np, graph, a, added, e) : CZ_ERR;
  cat_snapshot_release(s);
  arena_destroy(a);
  return rc;
}

/* ---- the load list's rows --------------------------------------------------- */

/* Changes the row of file (every column; set marks the changed ones, vals
 * holds them) in a short transaction. 40001 when a concurrent change won. */
static int rl_update(db_t *db, const cat_table_t *t, const char *file, const datum_t *vals,
                     const bool *set, arena_t *a, err_t *e)
{
  txn_t *tx = txn_begin(db, TXN_NESTED, e);
  if (!tx)
    return CZ_ERR;
  datum_t key = rl_text(file);
  tbl_bound_t b = {.tb_n = 1, .tb_vals = &key, .tb_incl = true};
  int cols[1] = {LL_FILE};
  tbl_scan_t *sc;
  int rc = tbl_scan_open(tx, t, 0, cols, 1, &b, &b, true, a, &sc, e);
  if (rc == CZ_OK) {
    ty_t types[2] = {t->ct_types[LL_FILE], ty_plain(TY_BYTEA)};
    batch_t *out = batch_create(a, 2, types, 4, e);
    rc = out ? tbl_scan_next(sc, out, a, e) : CZ_ERR;
    tbl_scan_close(sc);
    if (rc == CZ_OK && out->b_n == 1) {
      str_t loc = out->b_cols[1].v_str[0];
      rc = tbl_update_row_cols(tx, t, (const uint8_t *)loc.s_ptr, loc.s_len, vals, set, e);
    } else if (rc == CZ_OK) {
      rc = err_set(e, SQLSTATE_INTERNAL, "rdf: %s is no longer in the load list", file);
    }
  }
  if (rc != CZ_OK) {
    txn_rollback(tx, NULL);
    return CZ_ERR;
  }
  return txn_commit(tx, e);
}

/* Claims the first waiting file: its path and graph into a. 1 when none
 * is waiting. */
static int rl_claim(db_t *db, const cat_table_t *t, arena_t *a, char **file, char **graph,
                    err_t *e)
{
  for (int attempt = 0;; attempt++) {
    txn_t *tx = txn_begin(db, TXN_NESTED, e);
    if (!tx)
      return CZ_ERR;
    datum_t zero = {.d_i64 = 0};
    tbl_bound_t b = {.tb_n = 1, .tb_vals = &zero, .tb_incl = true};
    int cols[3] = {LL_FILE, LL_GRAPH, LL_STATE};
    int ix = -1;
    for (int i = 1; i < t->ct_nindexes; i++)
      if (strcmp(t->ct_indexes[i]->ci_name, "rdf_load_list_state") == 0)
        ix = i;
    tbl_scan_t *sc;
    int rc = ix < 0 ? err_set(e, SQLSTATE_UNDEFINED_OBJECT, "index \"rdf_load_list_state\" does not exist")
                    : tbl_scan_open(tx, t, ix, cols, 3, &b, &b, true, a, &sc, e);
    batch_t *out = NULL;
    if (rc == CZ_OK) {
      ty_t types[4] = {t->ct_types[LL_FILE], t->ct_types[LL_GRAPH], t->ct_types[LL_STATE],
                       ty_plain(TY_BYTEA)};
      out = batch_create(a, 4, types, 1, e);
      rc = out ? tbl_scan_next(sc, out, a, e) : CZ_ERR;
      tbl_scan_close(sc);
    }
    if (rc == CZ_OK && out->b_n == 0) {
      txn_rollback(tx, NULL);
      return 1;
    }
    if (rc == CZ_OK) {
      datum_t vals[LL_NCOLS] = {[LL_STATE] = {.d_i64 = 1}, [LL_STARTED] = {.d_i64 = rl_now_ts()},
                                [LL_ERROR] = {.d_null = true}, [LL_FINISHED] = {.d_null = true},
                                [LL_TRIPLES] = {.d_i64 = 0}, [LL_BAD] = {.d_i64 = 0},
                                [LL_READ] = {.d_i64 = 0}};
      bool set[LL_NCOLS] = {[LL_STATE] = true, [LL_STARTED] = true, [LL_ERROR] = true,
                            [LL_FINISHED] = true, [LL_TRIPLES] = true, [LL_BAD] = true,
                            [LL_READ] = true};
      str_t loc = out->b_cols[3].v_str[0];
      int st = TBL_LOCK_OK;
      rc = tbl_lock_row(tx, t, (const uint8_t *)loc.s_ptr, loc.s_len, TBL_LOCK_UPDATE, false, NULL,
                        a, &st, e);
      /* the row as locked must be the waiting one we read: the lock says
       * whether it changed since the read, the state read says it waited
       * (not trusting the index entry alone) */
      if (rc == CZ_OK && (st != TBL_LOCK_OK || out->b_cols[2].v_i64[0] != 0)) {
        /* another loader claimed it after our scan read it: take the next */
        txn_rollback(tx, NULL);
        continue;
      }
      if (rc == CZ_OK)
        rc = tbl_update_row_cols(tx, t, (const uint8_t *)loc.s_ptr, loc.s_len, vals, set, e);
    }
    if (rc == CZ_OK && txn_commit(tx, e) == CZ_OK) {
      str_t f = out->b_cols[0].v_str[0];
      *file = arena_sprintf(a, "%.*s", (int)f.s_len, f.s_ptr);
      *graph = out->b_cols[1].v_null[0]
                   ? NULL
                   : arena_sprintf(a, "%.*s", (int)out->b_cols[1].v_str[0].s_len,
                                   out->b_cols[1].v_str[0].s_ptr);
      return CZ_OK;
    }
    if (rc != CZ_OK)
      txn_rollback(tx, NULL);
    /* another loader took it first: take the next */
    if (strcmp(e->er_sqlstate, SQLSTATE_SERIALIZATION) != 0 || attempt > 1000)
      return CZ_ERR;
  }
}

/* ---- after a restart ------------------------------------------------------------ */

int rdf_load_requeue(cat_t *c, err_t *e)
{
  cat_snapshot_t *s = cat_snapshot(c);
  const cat_table_t *t = rl_list(s, e);
  if (!t) {
    cat_snapshot_release(s);
    return CZ_ERR;
  }
  arena_t *a = arena_create(NULL, "rdf requeue");
  db_t *db = cat_db(c);
  int rc = CZ_OK;
  int64_t n = 0;
  /* a file in state 1 at start was being loaded when the server stopped:
   * its transaction never committed, so it is simply waiting again */
  for (;;) {
    arena_reset(a);
    txn_t *tx = txn_begin(db, 0, e);
    if (!tx) {
      rc = CZ_ERR;
      break;
    }
    datum_t one = {.d_i64 = 1};
    tbl_bound_t b = {.tb_n = 1, .tb_vals = &one, .tb_incl = true};
    int cols[1] = {LL_FILE};
    int ix = -1;
    for (int i = 1; i < t->ct_nindexes; i++)
      if (strcmp(t->ct_indexes[i]->ci_name, "rdf_load_list_state") == 0)
        ix = i;
    tbl_scan_t *sc;
    batch_t *out = NULL;
    rc = ix < 0 ? err_set(e, SQLSTATE_UNDEFINED_OBJECT, "index \"rdf_load_list_state\" does not exist")
                : tbl_scan_open(tx, t, ix, cols, 1, &b, &b, true, a, &sc, e);
    if (rc == CZ_OK) {
      ty_t types[2] = {t->ct_types[LL_FILE], ty_plain(TY_BYTEA)};
      out = batch_create(a, 2, types, 1, e);
      rc = out ? tbl_scan_next(sc, out, a, e) : CZ_ERR;
      tbl_scan_close(sc);
    }
    if (rc == CZ_OK && out->b_n == 1) {
      datum_t vals[LL_NCOLS] = {[LL_STATE] = {.d_i64 = 0}, [LL_STARTED] = {.d_null = true},
                                [LL_TRIPLES] = {.d_i64 = 0}, [LL_BAD] = {.d_i64 = 0},
                                [LL_READ] = {.d_i64 = 0}};
      bool set[LL_NCOLS] = {[LL_STATE] = true, [LL_STARTED] = true, [LL_TRIPLES] = true,
                            [LL_BAD] = true, [LL_READ] = true};
      str_t loc = out->b_cols[1].v_str[0];
      rc = tbl_update_row_cols(tx, t, (const uint8_t *)loc.s_ptr, loc.s_len, vals, set, e);
      if (rc == CZ_OK)
        n++;
    }
    bool done = rc != CZ_OK || out->b_n == 0;
    if (rc != CZ_OK)
      txn_rollback(tx, NULL);
    else if (txn_commit(tx, e) != CZ_OK)
      rc = CZ_ERR;
    if (done || rc != CZ_OK)
      break;
  }
  if (rc == CZ_OK && n)
    log_info("rdf loader: %lld interrupted load(s) waiting again", (long long)n);
  arena_destroy(a);
  cat_snapshot_release(s);
  return rc;
}

/* ---- loading one file ----------------------------------------------------------- */

typedef struct rl_file_s {
  const rdf_load_env_t *lf_env;
  db_t *lf_db;
  const cat_snapshot_t *lf_snap;
  const cat_table_t *lf_list;
  const char *lf_file;
  txn_t *lf_tx;                /* the file's transaction */
  rdf_dict_t *lf_dict;
  arena_t *lf_batch;           /* one batch's; reset per batch */
  rdf_progress_t lf_prog;
  int64_t lf_triples;          /* quads added so far */
  uint64_t lf_last_ns;         /* last progress write */
} rl_file_t;

static int rl_progress(rl_file_t *f, err_t *e)
{
  datum_t vals[LL_NCOLS] = {[LL_TRIPLES] = {.d_i64 = f->lf_triples},
                            [LL_BAD] = {.d_i64 = (int64_t)f->lf_prog.rp_errors},
                            [LL_READ] = {.d_i64 = (int64_t)f->lf_prog.rp_bytes_in}};
  bool set[LL_NCOLS] = {[LL_TRIPLES] = true, [LL_BAD] = true, [LL_READ] = true};
  return rl_update(f->lf_db, f->lf_list, f->lf_file, vals, set, f->lf_batch, e);
}

static int rl_batch(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  rl_file_t *f = ctx;
  if (f->lf_env->le_cancel && *f->lf_env->le_cancel)
    return err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
  arena_t *a = f->lf_batch;
  arena_reset(a);
  rdf_term_t *terms = arena_alloc(a, sizeof(rdf_term_t) * 4 * n);
  rdf_id_t *ids = arena_alloc(a, sizeof(rdf_id_t) * 4 * n);
  for (size_t i = 0; i < n; i++) {
    terms[4 * i] = q[i].rq_g;
    terms[4 * i + 1] = q[i].rq_s;
    terms[4 * i + 2] = q[i].rq_p;
    terms[4 * i + 3] = q[i].rq_o;
  }
  if (rdf_dict_encode(f->lf_dict, terms, 4 * n, ids, e) != CZ_OK)
    return CZ_ERR;
  rdf_qids_t *qi = arena_alloc(a, sizeof(*qi) * n);
  for (size_t i = 0; i < n; i++)
    qi[i] = (rdf_qids_t){ids[4 * i], ids[4 * i + 1], ids[4 * i + 2], ids[4 * i + 3]};
  int64_t added;
  if (rdf_quad_insert(f->lf_tx, f->lf_snap, qi, n, a, &added, e) != CZ_OK)
    return CZ_ERR;
  f->lf_triples += added;
  uint64_t now = time_now_ns();
  if (now - f->lf_last_ns >= RL_PROGRESS_NS) {
    f->lf_last_ns = now;
    return rl_progress(f, e);
  }
  return CZ_OK;
}

/* Loads one file in one transaction; its failure is the file's (in e). */
static int rl_load_file(rl_file_t *f, const char *graph, err_t *e)
{
  const rdf_load_env_t *env = f->lf_env;
  memset(&f->lf_prog, 0, sizeof(f->lf_prog));
  f->lf_triples = 0;
  char real[PATH_MAX];
  if (env->le_check(env->le_check_ctx, f->lf_file, real, e) != CZ_OK)
    return CZ_ERR;
  f->lf_tx = txn_begin(f->lf_db, TXN_NESTED, e);
  if (!f->lf_tx)
    return CZ_ERR;
  f->lf_last_ns = time_now_ns();
  rdf_read_opts_t o = {.ro_default_graph = graph, .ro_skip_bad = env->le_skip_bad,
                       .ro_batch = RL_BATCH,
                       .ro_fn = rl_batch, .ro_ctx = f, .ro_progress = &f->lf_prog,
                       .ro_bnode_scope = 0};
  /* blank node labels must stay apart from every other load's, across
   * restarts too: the scope is a fresh number of the term sequence */
  int64_t scope;
  const cat_sequence_t *sq = cat_find_sequence(f->lf_snap, RDF_SCHEMA, "rdf_term_seq");
  cat_seq_session_t *ss = cat_seq_session_new(f->lf_batch);
  if (!sq || cat_seq_nextval(ss, sq, f->lf_tx, NULL, &scope, e) != CZ_OK) {
    if (!sq)
      err_set(e, SQLSTATE_UNDEFINED_TABLE, "relation \"rdf_term_seq\" does not exist");
    txn_rollback(f->lf_tx, NULL);
    return CZ_ERR;
  }
  o.ro_bnode_scope = (uint64_t)scope;
  if (rdf_read_file(real, &o, e) != CZ_OK) {
    txn_rollback(f->lf_tx, NULL);
    return CZ_ERR;
  }
  return txn_commit(f->lf_tx, e);
}

int rdf_loader_run(const rdf_load_env_t *env, int64_t *files, err_t *e)
{
  *files = 0;
  arena_t *a = arena_create(NULL, "rdf loader");
  cat_snapshot_t *s = cat_snapshot(env->le_cat);
  rl_file_t f = {.lf_env = env, .lf_db = cat_db(env->le_cat), .lf_snap = s};
  int rc = CZ_OK;
  f.lf_list = rl_list(s, e);
  if (!f.lf_list || rdf_dict_open(env->le_cat, a, &f.lf_dict, e) != CZ_OK)
    rc = CZ_ERR;
  f.lf_batch = arena_create(a, "rdf loader batch");
  arena_t *claim = arena_create(a, "rdf loader claim");
  while (rc == CZ_OK) {
    if (env->le_cancel && *env->le_cancel) {
      rc = err_set(e, SQLSTATE_QUERY_CANCELED, "canceling statement due to user request");
      break;
    }
    arena_reset(claim);
    char *file, *graph;
    int got = rl_claim(f.lf_db, f.lf_list, claim, &file, &graph, e);
    if (got == 1)
      break;
    if (got != CZ_OK) {
      rc = CZ_ERR;
      break;
    }
    f.lf_file = file;
    err_t fe = {0};
    int lr = CZ_ERR;
    for (int attempt = 0; attempt < RL_RETRIES; attempt++) {
      err_clear(&fe);
      lr = rl_load_file(&f, graph, &fe);
      if (lr == CZ_OK || strcmp(fe.er_sqlstate, SQLSTATE_DEADLOCK) != 0)
        break;
    }
    datum_t vals[LL_NCOLS] = {[LL_STATE] = {.d_i64 = 2}, [LL_FINISHED] = {.d_i64 = rl_now_ts()},
                              [LL_TRIPLES] = {.d_i64 = lr == CZ_OK ? f.lf_triples : 0},
                              [LL_BAD] = {.d_i64 = (int64_t)f.lf_prog.rp_errors},
                              [LL_READ] = {.d_i64 = (int64_t)f.lf_prog.rp_bytes_in},
                              [LL_ERROR] = {.d_null = true}};
    if (lr != CZ_OK) {
      const char *msg = arena_sprintf(claim, "%s %s", fe.er_sqlstate, fe.er_msg);
      vals[LL_ERROR] = rl_text(msg);
      log_warn("rdf loader: %s: %s", file, msg);
    }
    bool set[LL_NCOLS] = {[LL_STATE] = true, [LL_FINISHED] = true, [LL_TRIPLES] = true,
                          [LL_BAD] = true, [LL_READ] = true, [LL_ERROR] = true};
    rc = rl_update(f.lf_db, f.lf_list, file, vals, set, claim, e);
    if (rc == CZ_OK)
      (*files)++;
    /* a cancel stops the loader as well as the file */
    if (lr != CZ_OK && strcmp(fe.er_sqlstate, SQLSTATE_QUERY_CANCELED) == 0) {
      *e = fe;
      rc = CZ_ERR;
    }
  }
  rdf_dict_close(f.lf_dict);
  cat_snapshot_release(s);
  arena_destroy(a);
  return rc;
}

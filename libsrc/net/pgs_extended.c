/* pgs_extended — the extended query protocol: Parse, Bind, Describe,
 * Execute, Close, Sync and Flush over named and unnamed prepared
 * statements and portals.
 *
 * Design notes:
 * - Named statements live in the engine's session (esession_prepared_*),
 *   in one namespace with SQL PREPARE as in PostgreSQL: EXECUTE runs them
 *   and DEALLOCATE drops them. Portal names live in a small
 *   per-connection hash table; the unnamed statement and portal sit in
 *   their own slots and are replaced by the next unnamed Parse/Bind, as
 *   the protocol says. The unnamed portal's struct and its
 *   formats array are reused, so a Bind/Execute/Sync round allocates only
 *   in the message arena (reset per message) and inside the engine.
 * - A portal's engine portal holds a reference on its statement, because
 *   a client may Close (or DEALLOCATE) the statement first (PostgreSQL
 *   allows it).
 * - After an error every message up to Sync is skipped
 *   (c_ignore_till_sync); Sync answers ReadyForQuery. Portals end with
 *   their transaction: at Sync outside a transaction block they are
 *   dropped.
 * - The messages from the first Execute after a Sync up to the next Sync
 *   run as one implicit transaction outside a block, as in PostgreSQL
 *   (esession_begin_implicit, c_ext_implicit): a statement does not commit
 *   on its own, an error rolls back everything since the last Sync, and
 *   Sync commits (or rolls back after an error). A portal suspended in
 *   that transaction is closed at Sync, before the commit.
 * - The empty query (only blanks and semicolons) is a statement without an
 *   engine statement: Describe answers NoData and Execute
 *   EmptyQueryResponse.
 */
#include <stdlib.h>
#include <string.h>

#include "net/pgs_int.h"

static unsigned bucket(const char *name)
{
  return (unsigned)(hash64(name, strlen(name), 0) % PGS_NAME_BUCKETS);
}

/* Whether statement name exists; *st its engine statement (NULL: the
 * empty query). */
static bool stmt_find(pgs_conn_t *c, const char *name, estmt_t **st)
{
  if (!name[0]) {
    *st = c->c_unnamed_st;
    return c->c_has_unnamed_stmt;
  }
  return esession_prepared_find(c->c_sess, name, st);
}

static void unnamed_stmt_drop(pgs_conn_t *c)
{
  if (c->c_unnamed_st)
    estmt_free(c->c_unnamed_st); /* goes once no portal runs it */
  c->c_unnamed_st = NULL;
  c->c_has_unnamed_stmt = false;
}

static pgs_portal_t *portal_find(pgs_conn_t *c, const char *name)
{
  if (!name[0])
    return c->c_unnamed_portal;
  for (pgs_portal_t *p = c->c_portals[bucket(name)]; p; p = p->pp_next)
    if (strcmp(p->pp_name, name) == 0)
      return p;
  return NULL;
}

/* Releases what the portal holds, keeping the struct (reused when
 * unnamed). */
static void portal_clear(pgs_portal_t *p)
{
  if (p->pp_portal)
    eportal_free(p->pp_portal);
  p->pp_portal = NULL;
  p->pp_st = NULL;
  p->pp_bound = false;
  p->pp_ncols = -1;
  p->pp_done = false;
}

static void portal_free(pgs_portal_t *p)
{
  portal_clear(p);
  free(p->pp_formats);
  free(p->pp_name);
  free(p);
}

static void portal_remove(pgs_conn_t *c, pgs_portal_t *p)
{
  if (p == c->c_unnamed_portal) {
    portal_clear(p); /* the struct stays for the next unnamed Bind */
    return;
  }
  pgs_portal_t **pp = &c->c_portals[bucket(p->pp_name)];
  while (*pp != p)
    pp = &(*pp)->pp_next;
  *pp = p->pp_next;
  portal_free(p);
}

void pgs_extended_free_portals(pgs_conn_t *c)
{
  for (int i = 0; i < PGS_NAME_BUCKETS; i++) {
    while (c->c_portals[i]) {
      pgs_portal_t *p = c->c_portals[i];
      c->c_portals[i] = p->pp_next;
      portal_free(p);
    }
  }
  if (c->c_unnamed_portal)
    portal_clear(c->c_unnamed_portal);
}

void pgs_extended_free_all(pgs_conn_t *c)
{
  pgs_extended_free_portals(c);
  if (c->c_unnamed_portal)
    portal_free(c->c_unnamed_portal);
  c->c_unnamed_portal = NULL;
  unnamed_stmt_drop(c); /* the named ones go with the session */
}

static pgs_next_t ext_error(pgs_conn_t *c, err_t *e)
{
  pgs_send_error(c, "ERROR", e);
  c->c_ignore_till_sync = true;
  return PGS_GO_ON;
}

static bool is_empty_query(const char *q)
{
  for (; *q; q++)
    if (!(*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || *q == '\f' || *q == ';'))
      return false;
  return true;
}

static pgs_next_t do_parse(pgs_conn_t *c, const pgw_parse_t *pa)
{
  err_t e;
  estmt_t *st = NULL;
  if (pa->pa_stmt[0] && stmt_find(c, pa->pa_stmt, &st)) {
    err_set(&e, SQLSTATE_DUPLICATE_PSTMT, "prepared statement \"%s\" already exists", pa->pa_stmt);
    return ext_error(c, &e);
  }
  st = NULL;
  if (!is_empty_query(pa->pa_query) &&
      estmt_prepare(c->c_sess, pa->pa_query, strlen(pa->pa_query), pa->pa_types, pa->pa_n_types,
                    &st, &e) != CZ_OK)
    return ext_error(c, &e);
  if (pa->pa_stmt[0]) {
    if (esession_prepared_add(c->c_sess, pa->pa_stmt, st, &e) != CZ_OK) {
      if (st)
        estmt_free(st);
      return ext_error(c, &e);
    }
  } else {
    unnamed_stmt_drop(c);
    c->c_unnamed_st = st;
    c->c_has_unnamed_stmt = true;
  }
  pgw_write_parse_complete(&c->c_out);
  return PGS_GO_ON;
}

static pgs_next_t stmt_missing(pgs_conn_t *c, const char *name)
{
  err_t e;
  if (name[0])
    err_set(&e, SQLSTATE_UNDEFINED_PSTMT, "prepared statement \"%s\" does not exist", name);
  else
    err_set(&e, SQLSTATE_UNDEFINED_PSTMT, "unnamed prepared statement does not exist");
  return ext_error(c, &e);
}

static pgs_next_t portal_missing(pgs_conn_t *c, const char *name)
{
  err_t e;
  err_set(&e, SQLSTATE_UNDEFINED_CURSOR, "portal \"%s\" does not exist", name);
  return ext_error(c, &e);
}

static pgs_next_t do_bind(pgs_conn_t *c, const pgw_bind_t *bi)
{
  err_t e;
  estmt_t *st;
  if (!stmt_find(c, bi->bi_stmt, &st))
    return stmt_missing(c, bi->bi_stmt);
  if (bi->bi_portal[0] && portal_find(c, bi->bi_portal)) {
    err_set(&e, SQLSTATE_DUPLICATE_CURSOR, "portal \"%s\" already exists", bi->bi_portal);
    return ext_error(c, &e);
  }
  const ecol_t *cols = NULL;
  int ncols = -1;
  if (st)
    estmt_columns(st, &cols, &ncols);
  int nres = ncols < 0 ? 0 : ncols;
  if (bi->bi_n_result_formats > 1 && bi->bi_n_result_formats != nres) {
    err_set(&e, SQLSTATE_PROTOCOL_VIOLATION,
            "bind message has %d result formats but query has %d columns",
            bi->bi_n_result_formats, nres);
    return ext_error(c, &e);
  }
  eportal_t *ep = NULL;
  if (st) {
    eparam_t *ps = arena_alloc(c->c_msg_arena, (size_t)(bi->bi_n_params ? bi->bi_n_params : 1) *
                                                   sizeof *ps);
    for (int i = 0; i < bi->bi_n_params; i++) {
      ps[i].ep_data = bi->bi_values[i];
      ps[i].ep_len = bi->bi_lens[i] < 0 ? 0 : (uint32_t)bi->bi_lens[i];
      ps[i].ep_format = bi->bi_n_formats == 0   ? 0
                        : bi->bi_n_formats == 1 ? bi->bi_formats[0]
                                                : bi->bi_formats[i];
      /* A text-format value is client-encoding text, whatever its type. */
      if (ps[i].ep_format == 0 && ps[i].ep_data) {
        size_t ok = pgw_utf8_check(ps[i].ep_data, ps[i].ep_len);
        if (ok != ps[i].ep_len) {
          pgw_utf8_error(&e, ps[i].ep_data, ps[i].ep_len, ok);
          return ext_error(c, &e);
        }
      }
    }
    if (eportal_bind(st, ps, bi->bi_n_params, &ep, &e) != CZ_OK)
      return ext_error(c, &e);
  } else if (bi->bi_n_params != 0) {
    err_set(&e, SQLSTATE_PROTOCOL_VIOLATION,
            "bind message supplies %d parameters, but prepared statement \"%s\" requires 0",
            bi->bi_n_params, bi->bi_stmt);
    return ext_error(c, &e);
  }
  pgs_portal_t *p;
  if (!bi->bi_portal[0]) {
    p = c->c_unnamed_portal;
    if (p)
      portal_clear(p);
    else
      p = calloc(1, sizeof *p);
  } else {
    p = calloc(1, sizeof *p);
    if (p && !(p->pp_name = strdup(bi->bi_portal))) {
      free(p);
      p = NULL;
    }
  }
  if (p && nres > p->pp_formats_cap) {
    int16_t *f = realloc(p->pp_formats, (size_t)nres * sizeof *f);
    if (f) {
      p->pp_formats = f;
      p->pp_formats_cap = nres;
    } else if (p != c->c_unnamed_portal) {
      portal_free(p);
      p = NULL;
    } else {
      p = NULL;
    }
  }
  if (!p) {
    if (ep)
      eportal_free(ep);
    err_set(&e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return ext_error(c, &e);
  }
  for (int i = 0; i < nres; i++)
    p->pp_formats[i] = bi->bi_n_result_formats == 0   ? 0
                       : bi->bi_n_result_formats == 1 ? bi->bi_result_formats[0]
                                                      : bi->bi_result_formats[i];
  p->pp_ncols = ncols;
  p->pp_portal = ep;
  p->pp_st = st;
  p->pp_bound = true;
  p->pp_done = false;
  if (!bi->bi_portal[0]) {
    c->c_unnamed_portal = p;
  } else {
    unsigned b = bucket(p->pp_name);
    p->pp_next = c->c_portals[b];
    c->c_portals[b] = p;
  }
  pgw_write_bind_complete(&c->c_out);
  return PGS_GO_ON;
}

static pgs_next_t do_describe(pgs_conn_t *c, char what, const char *name)
{
  if (what == 'S') {
    estmt_t *st;
    if (!stmt_find(c, name, &st))
      return stmt_missing(c, name);
    int n = st ? estmt_nparams(st) : 0;
    uint32_t *oids = arena_alloc(c->c_msg_arena, (size_t)(n ? n : 1) * sizeof *oids);
    for (int i = 0; i < n; i++)
      oids[i] = ty_pg_oid(estmt_param_type(st, i));
    pgw_write_parameter_description(&c->c_out, oids, n);
    if (st)
      pgs_send_row_description(c, st, NULL);
    else
      pgw_write_no_data(&c->c_out);
    return PGS_GO_ON;
  }
  pgs_portal_t *p = portal_find(c, name);
  if (!p || !p->pp_bound) {
    /* SQL cursors (DECLARE) are portals too, as in PostgreSQL */
    const estmt_t *cur = name[0] ? esession_cursor_stmt(c->c_sess, name) : NULL;
    if (!cur)
      return portal_missing(c, name);
    pgs_send_row_description(c, cur, NULL);
    return PGS_GO_ON;
  }
  if (p->pp_st)
    pgs_send_row_description(c, p->pp_st, p->pp_formats);
  else
    pgw_write_no_data(&c->c_out);
  return PGS_GO_ON;
}

pgs_next_t pgs_execute_resume(pgs_conn_t *c)
{
  pgs_job_t *j = &c->c_job;
  pgs_portal_t *p = j->jb_pp;
  err_t e;
  int outcome;
  int rc = pgs_pump_rows(c, p->pp_portal, p->pp_formats, j->jb_limited, &j->jb_left, &outcome, &e);
  if (rc == CZ_OK && outcome == PGS_ROWS_PARKED)
    return PGS_PARK;
  pgs_timeout_stop(c);
  memset(j, 0, sizeof *j);
  if (rc != CZ_OK)
    return ext_error(c, &e);
  pgs_send_notices(c); /* as PostgreSQL: notices precede CommandComplete */
  if (outcome == PGS_ROWS_SUSPENDED) {
    pgw_write_portal_suspended(&c->c_out);
  } else {
    const char *tag = eportal_tag(p->pp_portal);
    /* A text of comments only is a statement without a command: the
     * empty query, like the blank one. */
    if (tag[0])
      pgw_write_command_complete(&c->c_out, tag);
    else
      pgw_write_empty_query(&c->c_out);
    p->pp_done = true;
  }
  pgs_send_params(c, true);
  return PGS_GO_ON;
}

static pgs_next_t do_execute(pgs_conn_t *c, const char *name, int32_t max_rows)
{
  err_t e;
  pgs_portal_t *p = portal_find(c, name);
  if (!p || !p->pp_bound)
    return portal_missing(c, name);
  if (!c->c_ext_implicit) { /* Sync ends it */
    esession_begin_implicit(c->c_sess);
    c->c_ext_implicit = true;
  }
  if (!p->pp_portal) {
    pgw_write_empty_query(&c->c_out);
    return PGS_GO_ON;
  }
  pgs_timeout_start(c);
  estmt_kind_t kind = estmt_kind(p->pp_st);
  if (kind == ESTMT_COPY_IN || kind == ESTMT_COPY_OUT) {
    bool copy_in;
    if (pgs_copy_start(c, p->pp_st, p->pp_portal, p, &copy_in, &e) != CZ_OK)
      return ext_error(c, &e);
    return PGS_GO_ON;
  }
  pgs_job_t *j = &c->c_job;
  memset(j, 0, sizeof *j);
  j->jb_kind = PGS_JOB_EXECUTE;
  j->jb_pp = p;
  j->jb_limited = max_rows > 0;
  j->jb_left = max_rows;
  return pgs_execute_resume(c);
}

static pgs_next_t do_close(pgs_conn_t *c, char what, const char *name)
{
  if (what == 'S') {
    if (!name[0])
      unnamed_stmt_drop(c);
    else
      esession_prepared_remove(c->c_sess, name);
  } else {
    pgs_portal_t *p = portal_find(c, name);
    if (p)
      portal_remove(c, p);
  }
  /* Closing what does not exist is not an error. */
  pgw_write_close_complete(&c->c_out);
  return PGS_GO_ON;
}

void pgs_extended_end_implicit(pgs_conn_t *c, bool ok)
{
  if (!c->c_ext_implicit)
    return;
  c->c_ext_implicit = false;
  err_t e;
  if (esession_end_implicit(c->c_sess, ok, &e) != CZ_OK)
    pgs_send_error(c, "ERROR", &e);
}

pgs_next_t pgs_extended_message(pgs_conn_t *c, const pgw_fe_msg_t *m)
{
  if (m->fm_kind == PGW_FE_SYNC) {
    bool ok = !c->c_ignore_till_sync;
    c->c_ignore_till_sync = false;
    /* Outside a block the portals go first: a suspended one ends with
     * its implicit transaction, as in PostgreSQL. */
    if (esession_tx_status(c->c_sess) == 'I')
      pgs_extended_free_portals(c);
    pgs_extended_end_implicit(c, ok);
    pgs_send_notices(c);
    pgs_send_ready(c);
    return PGS_GO_ON;
  }
  if (c->c_ignore_till_sync)
    return PGS_GO_ON;
  switch (m->fm_kind) {
  case PGW_FE_PARSE:
    return do_parse(c, &m->fm_u.parse);
  case PGW_FE_BIND:
    return do_bind(c, &m->fm_u.bind);
  case PGW_FE_DESCRIBE:
    return do_describe(c, m->fm_u.target.what, m->fm_u.target.name);
  case PGW_FE_EXECUTE:
    return do_execute(c, m->fm_u.execute.portal, m->fm_u.execute.max_rows);
  case PGW_FE_CLOSE:
    return do_close(c, m->fm_u.target.what, m->fm_u.target.name);
  case PGW_FE_FLUSH:
    pgs_maybe_flush(c);
    return PGS_GO_ON;
  default:
    return PGS_GO_ON;
  }
}

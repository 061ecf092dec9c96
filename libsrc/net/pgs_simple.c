/* pgs_simple — the simple query protocol: a Query message with any number
 * of statements, each answered with RowDescription, DataRows and
 * CommandComplete (or the COPY sub-protocol), then one ReadyForQuery.
 *
 * Design notes: the statements run as a job (pgs_job_t) that can stop and
 * resume: when the client does not read a long result the job parks, and
 * when a statement is COPY FROM STDIN the job waits for the copy data to
 * end. The Query text stays in the decoder while the job parks (nothing
 * is decoded meanwhile); for COPY FROM STDIN, whose data messages are
 * decoded, it is copied to c_job_arena first. The statements are parsed
 * once, all before the first runs (esession_split), into c_job_arena. An error ends the job: the
 * statements after it are skipped, as PostgreSQL does. Error positions are
 * made relative to the whole Query text. Several statements run as one
 * implicit transaction (esession_begin_implicit), as in PostgreSQL.
 */
#include <string.h>

#include "net/pgs_int.h"

static void stmt_free(pgs_job_t *j)
{
  if (j->jb_portal)
    eportal_free(j->jb_portal);
  if (j->jb_st)
    estmt_free(j->jb_st);
  j->jb_portal = NULL;
  j->jb_st = NULL;
}

static pgs_next_t job_end(pgs_conn_t *c, bool ok)
{
  stmt_free(&c->c_job);
  /* The text's implicit transaction ends with it (PostgreSQL commits a
   * multi-statement Query as one transaction). */
  err_t e;
  if (c->c_job.jb_implicit && esession_end_implicit(c->c_sess, ok, &e) != CZ_OK)
    pgs_send_error(c, "ERROR", &e);
  memset(&c->c_job, 0, sizeof c->c_job);
  arena_reset(c->c_job_arena);
  pgs_send_notices(c);
  pgs_send_params(c, true);
  /* Outside a transaction block no portal can outlive its statement. */
  if (esession_tx_status(c->c_sess) == 'I')
    pgs_extended_free_portals(c);
  pgs_send_ready(c);
  return PGS_GO_ON;
}

static pgs_next_t job_fail(pgs_conn_t *c, err_t *e)
{
  pgs_job_t *j = &c->c_job;
  if (e->er_pos > 0 && j->jb_i < j->jb_n)
    e->er_pos += pgs_chars_before(j->jb_text, j->jb_stmts[j->jb_i].et_off);
  pgs_send_error(c, "ERROR", e);
  return job_end(c, false);
}

static void stmt_done(pgs_conn_t *c)
{
  pgs_timeout_stop(c);
  stmt_free(&c->c_job);
  c->c_job.jb_i++;
  pgs_send_notices(c);
  pgs_send_params(c, true);
}

/* COPY FROM STDIN will decode more messages: keep the text out of the
 * decoder (the statement list is in the job arena already). */
static void keep_text(pgs_conn_t *c)
{
  pgs_job_t *j = &c->c_job;
  char *t = arena_alloc(c->c_job_arena, j->jb_len + 1);
  memcpy(t, j->jb_text, j->jb_len);
  t[j->jb_len] = 0;
  j->jb_text = t;
}

pgs_next_t pgs_simple_resume(pgs_conn_t *c)
{
  pgs_job_t *j = &c->c_job;
  err_t e;
  while (j->jb_i < j->jb_n) {
    const etext_t *t = &j->jb_stmts[j->jb_i];
    if (!j->jb_portal) {
      pgs_timeout_start(c); /* per statement, as PostgreSQL 13 and later */
      if (estmt_prepare_parsed(c->c_sess, j->jb_text + t->et_off, t, &j->jb_st, &e) != CZ_OK ||
          eportal_bind(j->jb_st, NULL, 0, &j->jb_portal, &e) != CZ_OK)
        return job_fail(c, &e);
      estmt_kind_t kind = estmt_kind(j->jb_st);
      if (kind == ESTMT_COPY_IN || kind == ESTMT_COPY_OUT) {
        bool copy_in;
        if (kind == ESTMT_COPY_IN && j->jb_text != NULL)
          keep_text(c);
        if (pgs_copy_start(c, j->jb_st, j->jb_portal, NULL, &copy_in, &e) != CZ_OK)
          return job_fail(c, &e);
        if (copy_in)
          return PGS_GO_ON; /* pgs_simple_copy_ended continues */
        stmt_done(c);
        continue;
      }
      if (kind == ESTMT_QUERY)
        pgs_send_row_description(c, j->jb_st, NULL);
    }
    int outcome;
    int64_t left = 0;
    if (pgs_pump_rows(c, j->jb_portal, NULL, false, &left, &outcome, &e) != CZ_OK)
      return job_fail(c, &e);
    if (outcome == PGS_ROWS_PARKED)
      return PGS_PARK;
    pgs_send_notices(c); /* as PostgreSQL: notices precede CommandComplete */
    pgw_write_command_complete(&c->c_out, eportal_tag(j->jb_portal));
    stmt_done(c);
  }
  return job_end(c, true);
}

void pgs_simple_copy_ended(pgs_conn_t *c, bool failed)
{
  if (failed) {
    job_end(c, false);
    return;
  }
  stmt_done(c); /* the connection loop resumes the job with the next statement */
}

pgs_next_t pgs_simple_query(pgs_conn_t *c, const pgw_fe_msg_t *m)
{
  err_t e;
  const char *text = m->fm_u.query.sql;
  size_t len = strlen(text);
  etext_t *stmts;
  int n;
  /* The statements' parsed forms live in the job arena: they must outlive
   * messages decoded while the job runs (COPY data). */
  arena_reset(c->c_job_arena);
  if (esession_split(c->c_sess, text, len, c->c_job_arena, &stmts, &n, &e) != CZ_OK) {
    pgs_send_error(c, "ERROR", &e);
    pgs_extended_end_implicit(c, false);
    pgs_send_ready(c);
    return PGS_GO_ON;
  }
  /* Extended messages sent without a Sync before this Query share its
   * transaction, which ends with the Query, as in PostgreSQL. */
  bool joined = c->c_ext_implicit;
  c->c_ext_implicit = false;
  if (n == 0) {
    if (joined) {
      c->c_ext_implicit = true;
      pgs_extended_end_implicit(c, true);
    }
    pgw_write_empty_query(&c->c_out);
    pgs_send_notices(c);
    pgs_send_ready(c);
    return PGS_GO_ON;
  }
  pgs_job_t *j = &c->c_job;
  memset(j, 0, sizeof *j);
  j->jb_kind = PGS_JOB_SIMPLE;
  j->jb_text = text;
  j->jb_len = len;
  j->jb_stmts = stmts;
  j->jb_n = n;
  if (n > 1 || joined) {
    esession_begin_implicit(c->c_sess);
    j->jb_implicit = true;
  }
  return pgs_simple_resume(c);
}

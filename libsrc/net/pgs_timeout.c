/* pgs_timeout — statement_timeout: a statement that runs longer than the
 * session's setting is cancelled, as PostgreSQL does ("canceling statement
 * due to statement timeout", 57014).
 *
 * Design notes: the engine only knows the cancel flag (esession_cancel);
 * the clock is the server's. The handler thread arms a deadline when a
 * statement starts (each statement of a simple Query, each Execute) and
 * disarms it when the statement ends; the housekeeping thread, which
 * already walks the connections for startup deadlines, wakes at the
 * earliest statement deadline and cancels. The cancel is repeated while
 * the deadline stays armed, because the engine clears the flag when a
 * statement starts (a cancel aims at the running statement), and a
 * timer that fired just before the engine got there must not be lost.
 * c_stmt_timed_out tells pgs_send_error that the 57014 came from the
 * timer, not from a CancelRequest.
 */
#include <string.h>

#include "net/pgs_int.h"

/* How soon an expired deadline is cancelled again. */
#define PGS_TIMEOUT_REPEAT_NS (10 * 1000 * 1000ull)

void pgs_timeout_start(pgs_conn_t *c)
{
  if (!c->c_sess)
    return;
  int64_t ms = esession_statement_timeout_ms(c->c_sess);
  atomic_store(&c->c_stmt_timed_out, false);
  if (ms <= 0 && c->c_stmt_deadline_ns == 0)
    return; /* the common case: no lock taken */
  pgs_server_t *s = c->c_srv;
  mutex_lock(&s->sv_mu);
  c->c_stmt_deadline_ns = ms > 0 ? time_now_ns() + (uint64_t)ms * 1000000ull : 0;
  if (ms > 0)
    cond_broadcast(&s->sv_cv); /* the housekeeper may sleep past the new deadline */
  mutex_unlock(&s->sv_mu);
}

void pgs_timeout_stop(pgs_conn_t *c)
{
  /* Only this connection's handler writes the deadline: reading it
   * without the lock is safe here. */
  if (c->c_stmt_deadline_ns == 0)
    return;
  mutex_lock(&c->c_srv->sv_mu);
  c->c_stmt_deadline_ns = 0;
  mutex_unlock(&c->c_srv->sv_mu);
}

uint64_t pgs_timeout_expire(pgs_server_t *s, uint64_t now, uint64_t wake)
{
  for (pgs_conn_t *c = s->sv_conns; c; c = c->c_next) {
    uint64_t d = c->c_stmt_deadline_ns;
    if (d == 0 || !c->c_sess)
      continue;
    if (now >= d) {
      if (!atomic_exchange(&c->c_stmt_timed_out, true))
        log_debug("connection %d: statement timeout", c->c_pid);
      esession_cancel(c->c_sess); /* c cannot go away: unlisting takes sv_mu */
      d = now + PGS_TIMEOUT_REPEAT_NS;
    }
    if (d < wake)
      wake = d;
  }
  return wake;
}

void pgs_timeout_word(pgs_conn_t *c, err_t *e)
{
  if (strcmp(e->er_sqlstate, SQLSTATE_QUERY_CANCELED) == 0 && atomic_load(&c->c_stmt_timed_out))
    snprintf(e->er_msg, sizeof e->er_msg, "canceling statement due to statement timeout");
}

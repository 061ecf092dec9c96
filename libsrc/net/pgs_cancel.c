/* pgs_cancel — CancelRequest: a fresh connection names a session by its
 * BackendKeyData (pid, secret key); a match asks that session's running
 * statement to stop (57014 at its next batch boundary).
 *
 * Design notes: the list is searched under the server mutex, which is also
 * what a closing connection takes to leave the list before its session is
 * closed; so the session cannot go away under esession_cancel. Nothing is
 * answered either way, so a wrong key learns nothing.
 */
#include "net/pgs_int.h"

void pgs_cancel_request(pgs_server_t *srv, int32_t pid, int32_t key)
{
  bool done = false;
  mutex_lock(&srv->sv_mu);
  for (pgs_conn_t *c = srv->sv_conns; c; c = c->c_next) {
    if (c->c_pid != pid)
      continue;
    /* Compared without an early exit, as secrets should be. */
    if (((uint32_t)c->c_key ^ (uint32_t)key) == 0 && c->c_sess) {
      esession_cancel(c->c_sess);
      done = true;
    }
    break;
  }
  mutex_unlock(&srv->sv_mu);
  if (done)
    log_debug("cancel request for connection %d", pid);
  else
    log_info("cancel request for connection %d did not match a session", pid);
}

/* engine_int — the engine object, shared by the engine's two parts: the
 * session (session/) and the statement runner (runner/).
 *
 * Design notes (engine/README.md has the boundary and the invariants):
 * - The engine holds what every session and every statement reads: the
 *   database, the catalog and the [Parameters] the engine applies.
 * - Nothing else is shared. A session file includes session/session_int.h,
 *   a runner file runner/runner_int.h; each part reaches the other only
 *   through the other's declared interface: runner/runner.h (what the
 *   runner offers the session) and session/session.h (the small interface
 *   the session gives the runner). A runner file never sees the session's
 *   structure (esession_t is incomplete there), a session file never the
 *   runner's front ends, handles or execution internals.
 */
#ifndef CZ_ENGINE_INT_H
#define CZ_ENGINE_INT_H

#include <pthread.h>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "thread/thread.h"
#include "txn/txn.h"

struct engine_s {
  db_t *en_db;
  cat_t *en_cat;
  int en_vector_size;           /* [Parameters] VectorSize */
  int64_t en_max_mem;           /* [Parameters] MaxQueryMem */
  int en_threads;               /* [Parameters] ThreadsPerQuery (qctx_t q_threads) */
  int64_t en_par_min_rows;      /* [Parameters] ParallelMinRows (sp_env_t pe_par_min_rows) */
  int64_t en_lock_timeout_ms;   /* [Parameters] LockTimeout: sessions' lock_timeout default */
  cat_layout_t en_layout;       /* [Parameters] DefaultLayout: tables without WITH (layout) */
  int en_quad_layout;           /* [SPARQL] QuadLayout: an rdf_layout_t, for a new store */
  qw_pool_t *en_qworkers;       /* the query workers, at most [Parameters] MaxQueryThreads
                                   server-wide (qctx_t q_workers) */
  const ty_tz_t *en_tz;         /* [Parameters] TimeZone, else the system's zone: what
                                 * sessions start with and SET TIME ZONE DEFAULT/LOCAL
                                 * returns to */
  char *en_dirs_allowed;        /* [Parameters] DirsAllowed as written (malloc'd), NULL = none:
                                 * folders server-side COPY files may lie in (en_copy.c) */
  char *en_digest_realm;        /* [HTTPServer] DigestRealm (malloc'd), NULL = none: new
                                 * passwords also get an HTTP Digest hash (en_ddl.c) */
  pthread_mutex_t en_mu;
  int en_nsessions;
  int en_temp_seq;              /* the last pg_temp_<n> schema number given to a session
                                   (under en_mu; leftovers are dropped at open) */
};

#endif /* CZ_ENGINE_INT_H */

/* en_pgcat — pg_catalog and information_schema inside the engine: the
 * binder's table lookup finds pgcat's virtual relations, the storage hooks
 * scan them, and catalog functions reach the session's environment.
 *
 * Design notes:
 * - A pgcat relation is described to the binder as an sp_table_t whose
 *   tb_handle is an en_handle_t with the catalog relations'
 *   operations (en_env.c: scans only) and eh_rel the pgcat_rel_t, with no key and no index: every scan of it is a full
 *   scan of rows computed when it opens.
 * - The environment (pgcat_env_t) of a session is kept in its en_pgcat_t
 *   (the runner's per-session state, which the session holds for it) and
 *   refreshed on every request from the session's current snapshot, role
 *   and settings (session.h), so it always describes the running
 *   statement.
 * - Only reads: a plan that would write into a pgcat relation is refused
 *   at the access check (42501), before anything runs.
 */
#ifndef CZ_EN_PGCAT_H
#define CZ_EN_PGCAT_H

#include "engine/runner/runner_int.h"
#include "pgcat/pgcat.h"

typedef struct en_pgcat_s en_pgcat_t;

/* en_pgcat_init, en_pgcat_session_open, en_pgcat_set_backend_pid: runner.h. */
/* The environment of the session's current statement (never NULL for an
 * open session). */
const pgcat_env_t *en_pgcat_env(esession_t *s);

/* The session's sequence state (currval, lastval, cached values). */
cat_seq_session_t *en_seq_session(esession_t *s);

/* The binder's lookup: CZ_OK with *out when schema.name (schema NULL:
 * unqualified) is a pgcat relation, 1 when it is not. */
int en_pgcat_table(esession_t *s, const char *schema, const char *name, arena_t *a,
                   const sp_table_t **out, err_t *e);
/* 42501 when the plan would change a pgcat relation. */
int en_pgcat_check_access(const splan_t *p, err_t *e);

/* The storage hooks for a handle that pgcat_is_rel: a scan of all rows
 * (range and row identities are refused: such a plan is never built). */
typedef struct en_pgscan_s en_pgscan_t;
int en_pgcat_scan_open(qctx_t *q, const void *rel, const int *cols, int ncols,
                       const qrange_t *range, bool want_rowid, arena_t *a, en_pgscan_t **out,
                       err_t *e);
int en_pgcat_scan_next(en_pgscan_t *sc, batch_t *out, err_t *e);

#endif /* CZ_EN_PGCAT_H */

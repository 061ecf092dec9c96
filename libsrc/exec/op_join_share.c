/* op_join_share — a join's build made once and probed by every thread of
 * a Gather: the right input is read into one table in the Gather's own
 * context, and each participant's run of the join takes that table
 * (read-only) instead of reading the right input again.
 *
 * Design notes:
 * - Who builds: the session's thread, at the Gather's open, before the
 *   workers start (op_gather.c). A build side that is itself large can
 *   carry a Gather of its own (the planner's, opt_par.c): a hash join's
 *   build is then made by all of that Gather's threads, reading and
 *   inserting (op_join_pbuild.c: one table, each thread filling its own
 *   range of slots); other builds are filled by this thread.
 * - Sharing is safe because probing never writes the table: join_match
 *   and the semi / anti / inner / left pairings only read the store and
 *   the hash index (rs_get, rs_copy_out, rh_next), and every per-probe
 *   position lives in the participant's own join_run_t. RIGHT and FULL
 *   joins mark build rows (oj_rmatched) and are never shared.
 * - Memory: the table lives in the Gather's run arena, a child of the
 *   execution's q_arena, so it is charged once to MaxQueryMem whatever
 *   the number of threads.
 * - Spill: a shared build does not spill. When the table passes the
 *   memory a join's table may hold (hjs_should_spill), the shared build
 *   stops (*out NULL), the Gather frees it and runs its subtree on the
 *   session's thread alone, where the join builds (and spills) as usual.
 * - The key under which a participant's context finds its share is the
 *   address of the plan's oj_kind (not the operator's own address, which
 *   keys its run state), as the morsel dispenser is keyed by the scan
 *   spec.
 */

#include "exec/op_join_int.h"

struct jshare_s {
  join_run_t js_run;            /* the build, as one execution's join run state */
};

static const void *share_key(const op_t *o)
{
  return &((const op_join_t *)o)->oj_kind;
}

int op_join_share_build(const op_t *o, qctx_t *q, arena_t *a, jshare_t **out, err_t *e)
{
  *out = NULL;
  jshare_t *s = arena_zalloc(a, sizeof(*s));
  join_run_t *j = &s->js_run;
  j->sr_p = (const op_join_t *)o;
  j->sr_st.os_state = arena_create(a, "shared join build");
  j->oj_build = arena_create(j->sr_st.os_state, "Join build");
  const op_t *r = o->o_in2;
  bool full = false;
  if (j->sr_p->oj_nkeys && op_is_gather(r) && q->q_threads > 1) {
    /* the build side's threads fill the table too (op_join_pbuild.c) */
    if (join_pbuild(j, q, &full, e) != CZ_OK || full) {
      arena_destroy(j->sr_st.os_state);
      return full ? CZ_OK : CZ_ERR;
    }
    *out = s;
    return CZ_OK;
  }
  if (join_build_init(j, q, e) != CZ_OK)
    return CZ_ERR;
  if (op_open(r, q, e) != CZ_OK) {
    op_close(r, q);
    return CZ_ERR;
  }
  if (join_build(j, q, false, &full, e) != CZ_OK || full) {
    op_close(r, q);
    arena_destroy(j->sr_st.os_state);
    return full ? CZ_OK : CZ_ERR;
  }
  *out = s;
  return CZ_OK;
}

void op_join_share_use(const op_t *o, qctx_t *w, const jshare_t *s)
{
  const jshare_t **slot = qexec_state(w, share_key(o), sizeof(jshare_t *), true, NULL);
  *slot = s;
}

void op_join_share_end(jshare_t *s)
{
  if (s && s->js_run.sr_st.os_state) {
    arena_destroy(s->js_run.sr_st.os_state);
    s->js_run.sr_st.os_state = NULL;
  }
}

bool join_share_adopt(join_run_t *j, qctx_t *q)
{
  const jshare_t *const *slot = qexec_state(q, share_key(&j->sr_p->oj_op), 0, false, NULL);
  if (!slot || !*slot)
    return false;
  const join_run_t *b = &(*slot)->js_run;
  j->oj_right = b->oj_right;
  j->oj_hash = b->oj_hash;
  j->oj_build_n = b->oj_build_n;
  j->oj_build_null = b->oj_build_null;
  j->oj_rf = b->oj_rf;  /* its runtime filter too: the workers' scans test it */
  return true;
}

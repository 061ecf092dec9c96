/* exec_explain — the EXPLAIN text of an operator tree: one line per
 * operator ("Name  detail  (why)  (estimated rows=N cost=C)", why the
 * planner's reason when it gave one, o_why), inputs indented
 * below it; with ANALYZE also "(rows=N)" produced and "(time=T ms
 * memory=M kB)": time in the operator and its inputs (inclusive, as
 * PostgreSQL's actual time), memory the most its state held — read from
 * the run states of the execution given (the plan holds no figures; an
 * operator that execution never opened shows zeros). */
#include <string.h>

#include "exec/exec_int.h"

static char *explain_rec(const op_t *o, int depth, const qctx_t *run, char *acc, arena_t *a)
{
  const char *detail = o->o_vt->ov_detail ? o->o_vt->ov_detail(o, a) : NULL;
  acc = arena_sprintf(a, "%s%*s%s%s%s%s", acc, depth * 2, "", depth ? "-> " : "",
                      o->o_vt->ov_name, detail ? "  " : "", detail ? detail : "");
  if (o->o_why)
    acc = arena_sprintf(a, "%s  (%s)", acc, o->o_why);
  if (o->o_est_rows >= 0)
    acc = arena_sprintf(a, "%s  (estimated rows=%.0f cost=%.0f)", acc, o->o_est_rows,
                        o->o_est_cost >= 0 ? o->o_est_cost : 0);
  if (run) {
    const opst_t *st = op_state(o, run);
    opst_t none = {0};
    if (!st)
      st = &none;
    if (st->os_note)
      acc = arena_sprintf(a, "%s  (%s)", acc, st->os_note);
    acc = arena_sprintf(a, "%s  (rows=%lld)", acc, (long long)st->os_rows);
    acc = arena_sprintf(a, "%s  (time=%.3f ms memory=%lld kB)", acc, st->os_ns / 1e6,
                        (long long)((st->os_mem + 1023) / 1024));
  }
  acc = arena_sprintf(a, "%s\n", acc);
  if (o->o_in)
    acc = explain_rec(o->o_in, depth + 1, run, acc, a);
  if (o->o_in2)
    acc = explain_rec(o->o_in2, depth + 1, run, acc, a);
  return acc;
}

char *op_explain(const op_t *root, const qctx_t *run, arena_t *a)
{
  char *s = explain_rec(root, 0, run, arena_strdup(a, ""), a);
  size_t n = strlen(s);
  if (n && s[n - 1] == '\n')
    s[n - 1] = '\0';
  return s;
}

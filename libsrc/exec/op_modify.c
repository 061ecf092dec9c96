/* op_modify — INSERT, UPDATE and DELETE: drain the input and hand each
 * batch to the storage hooks; they return no rows, only a count (for the
 * command tag), except under RETURNING, where each changed batch is
 * passed on (the binder projects the RETURNING list over it). One file because the three differ only in the hook. */
#include "exec/exec_int.h"

typedef enum modify_kind_e { MOD_INSERT, MOD_UPDATE, MOD_DELETE } modify_kind_t;

typedef struct op_modify_s {
  op_t om_op;
  modify_kind_t om_kind;
  void *om_table;
  const char *om_name;
  int om_rid;                   /* DELETE: row identity column */
  const bool *om_set;           /* UPDATE: the columns set (NULL = all) */
  bool om_returning;            /* return the changed batches (RETURNING) */
  bool om_skip_conflicts;       /* INSERT … ON CONFLICT DO NOTHING */
  int om_conflict_index;        /* its unique index; -1 = all */
  int64_t om_count;             /* run-time: rows changed */
} op_modify_t;

static int modify_open(op_t *o, qctx_t *q, err_t *e)
{
  ((op_modify_t *)o)->om_count = 0;
  return op_open(o->o_in, q, e);
}

static int modify_next(op_t *o, qctx_t *q, obatch_t *out, err_t *e)
{
  op_modify_t *m = (op_modify_t *)o;
  const qtable_ops_t *ops = ((const qtable_t *)m->om_table)->qt_ops;
  for (;;) {
    obatch_t in;
    if (op_next(o->o_in, q, &in, e) != CZ_OK)
      return CZ_ERR;
    if (!in.ob_b)
      return CZ_OK;
    if (in.ob_n == 0)
      continue;
    int rc;
    switch (m->om_kind) {
    case MOD_INSERT:
      if (m->om_skip_conflicts) {
        if (!ops->qt_insert_new)
          return err_set(e, "0A000",
                         "ON CONFLICT is not supported for this table");
        int *kept = arena_alloc(o->o_batch, sizeof(int) * (size_t)in.ob_n);
        int nkept = 0;
        rc = ops->qt_insert_new(q, m->om_table, in.ob_b, in.ob_sel, in.ob_n,
                                      m->om_conflict_index, kept, &nkept, e);
        in.ob_sel = kept;  /* only the inserted rows count and are returned */
        in.ob_n = nkept;
      } else
        rc = ops->qt_insert(q, m->om_table, in.ob_b, in.ob_sel, in.ob_n, e);
      break;
    case MOD_UPDATE:
      rc = ops->qt_update(q, m->om_table, in.ob_b, m->om_set, in.ob_sel, in.ob_n, e);
      break;
    default:
      rc = ops->qt_delete(q, m->om_table, in.ob_b, m->om_rid, in.ob_sel, in.ob_n, e);
      break;
    }
    if (rc != CZ_OK)
      return CZ_ERR;
    m->om_count += in.ob_n;
    if (m->om_returning && in.ob_n > 0) {
      *out = in;  /* valid until the next call, like the input's batch */
      return CZ_OK;
    }
  }
}

static char *modify_detail(const op_t *o, arena_t *a)
{
  const op_modify_t *m = (const op_modify_t *)o;
  if (m->om_skip_conflicts)
    return arena_sprintf(a, "%s  on conflict do nothing", m->om_name);
  return arena_strdup(a, m->om_name);
}

static const op_vt_t insert_vt = {"Insert", modify_open, modify_next, NULL, modify_detail};
static const op_vt_t update_vt = {"Update", modify_open, modify_next, NULL, modify_detail};
static const op_vt_t delete_vt = {"Delete", modify_open, modify_next, NULL, modify_detail};

static op_t *modify_new(arena_t *a, const op_vt_t *vt, modify_kind_t kind, op_t *in,
                        void *table, const char *name, int rid)
{
  op_modify_t *m = arena_zalloc(a, sizeof(*m));
  op_init(&m->om_op, vt, a, 0, NULL, in, NULL);
  m->om_kind = kind;
  m->om_table = table;
  m->om_name = name;
  m->om_rid = rid;
  return &m->om_op;
}

op_t *op_insert_new(arena_t *a, op_t *in, void *table, const char *name)
{
  return modify_new(a, &insert_vt, MOD_INSERT, in, table, name, -1);
}

op_t *op_update_new(arena_t *a, op_t *in, void *table, const char *name, const bool *set)
{
  op_t *o = modify_new(a, &update_vt, MOD_UPDATE, in, table, name, -1);
  ((op_modify_t *)o)->om_set = set;
  return o;
}

op_t *op_delete_new(arena_t *a, op_t *in, void *table, const char *name, int rid)
{
  return modify_new(a, &delete_vt, MOD_DELETE, in, table, name, rid);
}

void op_insert_skip_conflicts(op_t *o, int index)
{
  op_modify_t *m = (op_modify_t *)o;
  m->om_skip_conflicts = true;
  m->om_conflict_index = index;
}

void op_dml_set_returning(op_t *o)
{
  op_modify_t *m = (op_modify_t *)o;
  m->om_returning = true;
  o->o_ncols = o->o_in->o_ncols;
  o->o_types = o->o_in->o_types;
}

int64_t op_dml_count(const op_t *o)
{
  return ((const op_modify_t *)o)->om_count;
}

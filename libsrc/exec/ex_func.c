/* ex_func — the scalar function registry, overload resolution and the
 * vectored evaluation of X_FUNC nodes.
 *
 * Design notes: definitions are rows of static tables (expr.h documents
 * xfunc_def_t); the registry holds pointers to them in registration order
 * behind a read-write lock (registration at start-up, lookups while
 * binding). The four built-in families register themselves on the first
 * lookup (pthread_once). Evaluation computes every argument node once for
 * the batch, then calls the definition's row function for each selected
 * row, or its vectored function once.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "exec/ex_int.h"

typedef struct xreg_s {
  pthread_rwlock_t r_lock;
  const xfunc_def_t **r_defs;
  int r_n, r_cap;
} xreg_t;

static xreg_t xreg = {PTHREAD_RWLOCK_INITIALIZER, NULL, 0, 0};
static pthread_once_t xreg_once = PTHREAD_ONCE_INIT;

static int xfunc_arg_code(const xfunc_def_t *d, int i)
{
  if ((d->fd_flags & XF_VARIADIC) && i >= d->fd_nargs - 1)
    return d->fd_args[d->fd_nargs - 1];
  return d->fd_args[i];
}

static bool xfunc_same_signature(const xfunc_def_t *a, const xfunc_def_t *b)
{
  if (strcmp(a->fd_name, b->fd_name) != 0 || a->fd_nargs != b->fd_nargs ||
      (a->fd_flags & XF_VARIADIC) != (b->fd_flags & XF_VARIADIC))
    return false;
  for (int i = 0; i < a->fd_nargs; i++)
    if (a->fd_args[i] != b->fd_args[i])
      return false;
  return true;
}

static int xfunc_register_locked(const xfunc_def_t *defs, int n, err_t *e)
{
  for (int k = 0; k < n; k++) {
    const xfunc_def_t *d = &defs[k];
    if (!d->fd_name || d->fd_nargs < 0 || d->fd_nargs > XF_MAX_ARGS ||
        (!d->fd_row && !d->fd_vec && !d->fd_special))
      return err_set(e, SQLSTATE_INTERNAL, "malformed function definition %s",
                     d->fd_name ? d->fd_name : "(null)");
    for (int i = 0; i < xreg.r_n; i++)
      if (xfunc_same_signature(xreg.r_defs[i], d))
        return err_set(e, SQLSTATE_DUPLICATE_FUNCTION, "function %s already exists with the same "
                       "argument types", d->fd_name);
    if (xreg.r_n == xreg.r_cap) {
      int cap = xreg.r_cap ? xreg.r_cap * 2 : 256;
      const xfunc_def_t **nd = realloc(xreg.r_defs, sizeof(*nd) * (size_t)cap);
      if (!nd)
        return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
      xreg.r_defs = nd;
      xreg.r_cap = cap;
    }
    xreg.r_defs[xreg.r_n++] = d;
  }
  return CZ_OK;
}

static void xfunc_builtins_once(void)
{
  pthread_rwlock_wrlock(&xreg.r_lock);
  /* The built-in tables are consistent by construction; a failure here
   * would be a programming error caught by the unit tests. */
  xfunc_register_locked(xfunc_math_defs, xfunc_math_ndefs, NULL);
  xfunc_register_locked(xfunc_string_defs, xfunc_string_ndefs, NULL);
  xfunc_register_locked(xfunc_time_defs, xfunc_time_ndefs, NULL);
  xfunc_register_locked(xfunc_interval_defs, xfunc_interval_ndefs, NULL);
  xfunc_register_locked(xfunc_misc_defs, xfunc_misc_ndefs, NULL);
  xfunc_register_locked(xfunc_json_defs, xfunc_json_ndefs, NULL);
  xfunc_register_locked(xfunc_jsonpath_defs, xfunc_jsonpath_ndefs, NULL);
  xfunc_register_locked(xfunc_json_agg_defs, xfunc_json_agg_ndefs, NULL);
  xfunc_register_locked(xfunc_json_srf_defs, xfunc_json_srf_ndefs, NULL);
  pthread_rwlock_unlock(&xreg.r_lock);
}

void xfunc_builtins_init(void)
{
  pthread_once(&xreg_once, xfunc_builtins_once);
}

int xfunc_register(const xfunc_def_t *defs, int n, err_t *e)
{
  xfunc_builtins_init();
  pthread_rwlock_wrlock(&xreg.r_lock);
  int rc = xfunc_register_locked(defs, n, e);
  pthread_rwlock_unlock(&xreg.r_lock);
  return rc;
}

bool xfunc_exists(const char *name)
{
  xfunc_builtins_init();
  bool found = false;
  pthread_rwlock_rdlock(&xreg.r_lock);
  for (int i = 0; i < xreg.r_n && !found; i++)
    found = strcmp(xreg.r_defs[i]->fd_name, name) == 0;
  pthread_rwlock_unlock(&xreg.r_lock);
  return found;
}

static bool xfunc_in(const xfunc_t *f, const xfunc_def_t *defs, int n)
{
  uintptr_t p = (uintptr_t)f, lo = (uintptr_t)defs, hi = (uintptr_t)(defs + n);
  return p >= lo && p < hi;
}

bool xfunc_immutable(const xfunc_t *f)
{
  if (!f || (f->fd_flags & XF_VOLATILE))
    return false;
  return xfunc_in(f, xfunc_math_defs, xfunc_math_ndefs) ||
         xfunc_in(f, xfunc_string_defs, xfunc_string_ndefs) ||
         xfunc_in(f, xfunc_time_defs, xfunc_time_ndefs) ||
         xfunc_in(f, xfunc_interval_defs, xfunc_interval_ndefs) ||
         xfunc_in(f, xfunc_misc_defs, xfunc_misc_ndefs) ||
         xfunc_in(f, xfunc_json_defs, xfunc_json_ndefs) ||
         xfunc_in(f, xfunc_jsonpath_defs, xfunc_jsonpath_ndefs);
}

int xfunc_count(void)
{
  xfunc_builtins_init();
  pthread_rwlock_rdlock(&xreg.r_lock);
  int n = xreg.r_n;
  pthread_rwlock_unlock(&xreg.r_lock);
  return n;
}

const xfunc_def_t *xfunc_at(int i)
{
  xfunc_builtins_init();
  pthread_rwlock_rdlock(&xreg.r_lock);
  const xfunc_def_t *d = i >= 0 && i < xreg.r_n ? xreg.r_defs[i] : NULL;
  pthread_rwlock_unlock(&xreg.r_lock);
  return d;
}

/* How well d fits the argument types: -1 when it does not, else a score
 * (exact matches first, then conversions to a preferred type). Fills
 * to[] and *result. */
static int xfunc_fit(const xfunc_def_t *d, const ty_t *args, int n, ty_t *to, ty_t *result)
{
  bool variadic = (d->fd_flags & XF_VARIADIC) != 0;
  if (variadic ? n < d->fd_nargs - 1 : n != d->fd_nargs)
    return -1;
  int exact = 0, preferred = 0, ncommon = 0;
  ty_t common_in[64];
  for (int i = 0; i < n; i++) {
    int code = xfunc_arg_code(d, i);
    ty_t a = args[i];
    ty_id_t id = a.t_id;
    if (code >= 0) {
      ty_id_t want = (ty_id_t)code;
      if (id == want) {
        to[i] = a;
        exact++;
      } else if (id == TY_UNKNOWN || xcast_implicit(a, ty_plain(want))) {
        to[i] = ty_plain(want);
        preferred += want == TY_FLOAT8 || want == TY_TEXT;
      } else {
        return -1;
      }
    } else if (code == XFA_ANY) {
      to[i] = id == TY_UNKNOWN ? ty_plain(TY_TEXT) : a;
      exact++;
    } else if (code == XFA_ANYNUM) {
      if (id == TY_UNKNOWN)
        to[i] = ty_plain(TY_NUMERIC);
      else if (xt_is_number(id))
        to[i] = a, exact++;
      else
        return -1;
    } else if (code == XFA_ANYSTR) {
      if (id == TY_UNKNOWN)
        to[i] = ty_plain(TY_TEXT);
      else if (xt_is_string(id))
        to[i] = a, exact++;
      else
        return -1;
    } else if (code == XFA_COMMON) {
      if (ncommon < (int)CZ_ARRAY_LEN(common_in))
        common_in[ncommon++] = a;
      exact++;
    } else {
      return -1;
    }
  }
  ty_t common = ty_plain(TY_TEXT);
  if (ncommon > 0) {
    if (xtype_common(common_in, ncommon, &common, NULL) != CZ_OK)
      return -1;
    for (int i = 0; i < n; i++)
      if (xfunc_arg_code(d, i) == XFA_COMMON)
        to[i] = common;
  }
  if (d->fd_type) {
    if (d->fd_type(to, n, result, NULL) != CZ_OK)
      return -1;
  } else if (d->fd_result == XFR_ARG0) {
    *result = n > 0 ? ty_plain(to[0].t_id) : ty_plain(TY_TEXT);
  } else if (d->fd_result == XFR_COMMON) {
    *result = ncommon > 0 ? common : ty_plain(TY_TEXT);
  } else {
    *result = ty_plain((ty_id_t)d->fd_result);
  }
  return exact * 64 + preferred;
}

static int xfunc_not_found(const char *name, const ty_t *args, int n, err_t *e)
{
  char buf[300];
  size_t o = 0;
  arena_t *a = arena_create(NULL, "xfunc");
  buf[0] = '\0';
  for (int i = 0; i < n && o < sizeof(buf) - 70; i++)
    o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", i ? ", " : "",
                          args[i].t_id == TY_UNKNOWN ? "unknown" : ty_name(a, args[i]));
  arena_destroy(a);
  return err_set(e, SQLSTATE_UNDEFINED_FUNCTION, "function %s(%s) does not exist", name, buf);
}

int xfunc_resolve(const char *name, const ty_t *args, int n, const xfunc_t **f, ty_t *arg_to,
                  ty_t *result, err_t *e)
{
  xfunc_builtins_init();
  if (n > 64)
    return err_set(e, SQLSTATE_TOO_MANY_ARGUMENTS, "cannot pass more than 64 arguments to a function");
  ty_t to[64], res, best_to[64], best_res = ty_plain(TY_UNKNOWN);
  int best = -1;
  const xfunc_def_t *best_def = NULL;
  pthread_rwlock_rdlock(&xreg.r_lock);
  for (int i = 0; i < xreg.r_n; i++) {
    const xfunc_def_t *d = xreg.r_defs[i];
    if (strcmp(d->fd_name, name) != 0)
      continue;
    int score = xfunc_fit(d, args, n, to, &res);
    if (score > best) {
      best = score;
      best_def = d;
      best_res = res;
      memcpy(best_to, to, sizeof(ty_t) * (size_t)n);
    }
  }
  pthread_rwlock_unlock(&xreg.r_lock);
  if (!best_def)
    return xfunc_not_found(name, args, n, e);
  *f = best_def;
  if (n > 0)
    memcpy(arg_to, best_to, sizeof(ty_t) * (size_t)n);
  *result = best_res;
  return CZ_OK;
}

/* ---- evaluation ---------------------------------------------------------- */

char *xf_alloc_str(xctx_t *c, datum_t *out, size_t n, err_t *e)
{
  char *p = xc_alloc(c, n, e);
  if (!p)
    return NULL;
  out->d_null = false;
  out->d_str.s_ptr = p;
  out->d_str.s_len = (uint32_t)n;
  return p;
}

int xe_func(xe_t *st, const xnode_t *x, const int *sel, int nsel, vec_t *dst, err_t *e)
{
  const xfunc_def_t *d = x->x_func;
  int n = x->x_nargs;
  if (!d)
    return xe_error(x, e, SQLSTATE_INTERNAL, "function node without a function");
  if (d->fd_vec) {
    vec_t **vs = arena_alloc(st->xe_c->xc_arena, sizeof(vec_t *) * (size_t)(n + 1));
    for (int k = 0; k < n; k++)
      if (xe_node(st, x->x_args[k], sel, nsel, NULL, &vs[k], e) != CZ_OK)
        return CZ_ERR;
    if (d->fd_vec(st->xe_c, x, vs, sel, nsel, dst, e) != CZ_OK) {
      if (e && e->er_pos == 0)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
    return CZ_OK;
  }
  xe_arg_t *as = arena_alloc(st->xe_c->xc_arena, sizeof(xe_arg_t) * (size_t)(n + 1));
  datum_t *vals = arena_alloc(st->xe_c->xc_arena, sizeof(datum_t) * (size_t)(n + 1));
  for (int k = 0; k < n; k++)
    if (xe_operand(st, x->x_args[k], sel, nsel, &as[k], e) != CZ_OK)
      return CZ_ERR;
  bool strict = (d->fd_flags & XF_STRICT) != 0;
  XE_FOR(sel, nsel, i, {
    /* One function call can be long (repeat, regex): check per row. */
    if (xc_check_interrupt(st->xe_c, e) != CZ_OK)
      return CZ_ERR;
    bool any_null = false;
    for (int k = 0; k < n; k++) {
      xe_arg_get(&as[k], i, &vals[k]);
      any_null |= vals[k].d_null;
    }
    datum_t r;
    memset(&r, 0, sizeof(r));
    if (strict && any_null) {
      r.d_null = true;
    } else if (d->fd_row(st->xe_c, x, vals, &r, e) != CZ_OK) {
      if (e && e->er_pos == 0)
        e->er_pos = x->x_pos;
      return CZ_ERR;
    }
    vec_set(dst, i, &r);
  });
  return CZ_OK;
}

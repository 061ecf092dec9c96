/* ex_func_misc — conditional functions: coalesce (evaluated lazily by
 * ex_logic.c), nullif, greatest, least. All arguments have been cast to
 * their common type by the binder (XFA_COMMON), so one datum_cmp on the
 * physical kind compares them; CHAR (bpchar) values compare without their
 * trailing blanks, as PostgreSQL's bpchar comparison does (a char(10) and
 * an untyped 'x ' meet as plain CHAR with different padding). */
#include <string.h>

#include "exec/ex_int.h"

static int xf_cmp(ty_id_t t, const datum_t *a, const datum_t *b)
{
  if (t != TY_CHAR)
    return datum_cmp_t(t, a, b);  /* jsonb by its own order */
  datum_t x = *a, y = *b;
  while (x.d_str.s_len > 0 && x.d_str.s_ptr[x.d_str.s_len - 1] == ' ')
    x.d_str.s_len--;
  while (y.d_str.s_len > 0 && y.d_str.s_ptr[y.d_str.s_len - 1] == ' ')
    y.d_str.s_len--;
  return datum_cmp(TP_STR, &x, &y);
}

static int xf_nullif(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  if (!a[0].d_null && !a[1].d_null &&
      xf_cmp(x->x_args[0]->x_type.t_id, &a[0], &a[1]) == 0) {
    out->d_null = true;
    return CZ_OK;
  }
  *out = a[0];
  return CZ_OK;
}

/* NULL arguments are ignored; the result is NULL only if all are. */
static int xf_extreme(const xnode_t *x, const datum_t *a, datum_t *out, int sign)
{
  ty_id_t t = x->x_type.t_id;
  int best = -1;
  for (int k = 0; k < x->x_nargs; k++) {
    if (a[k].d_null)
      continue;
    if (best < 0 || xf_cmp(t, &a[k], &a[best]) * sign > 0)
      best = k;
  }
  if (best < 0)
    out->d_null = true;
  else
    *out = a[best];
  return CZ_OK;
}

static int xf_greatest(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  return xf_extreme(x, a, out, 1);
}

static int xf_least(xctx_t *c, const xnode_t *x, const datum_t *a, datum_t *out, err_t *e)
{
  (void)c;
  (void)e;
  return xf_extreme(x, a, out, -1);
}

const xfunc_def_t xfunc_misc_defs[] = {
  {.fd_name = "coalesce", .fd_nargs = 2, .fd_args = {XFA_COMMON, XFA_COMMON}, .fd_result = XFR_COMMON, .fd_flags = XF_VARIADIC, .fd_special = XFS_COALESCE},
  {.fd_name = "nullif", .fd_nargs = 2, .fd_args = {XFA_COMMON, XFA_COMMON}, .fd_result = XFR_COMMON, .fd_row = xf_nullif},
  {.fd_name = "greatest", .fd_nargs = 2, .fd_args = {XFA_COMMON, XFA_COMMON}, .fd_result = XFR_COMMON, .fd_flags = XF_VARIADIC, .fd_row = xf_greatest},
  {.fd_name = "least", .fd_nargs = 2, .fd_args = {XFA_COMMON, XFA_COMMON}, .fd_result = XFR_COMMON, .fd_flags = XF_VARIADIC, .fd_row = xf_least},
};
const int xfunc_misc_ndefs = (int)CZ_ARRAY_LEN(xfunc_misc_defs);

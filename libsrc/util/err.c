/* err — error values: a SQLSTATE, a message for a person, a position.
 *
 * Design notes: lower layers report failure by filling an err_t and returning
 * CZ_ERR, so err_set returns CZ_ERR to make that a one-liner. Messages are
 * truncated to the fixed buffer rather than allocated: an error path must not
 * itself fail for lack of memory.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

void err_clear(err_t *e)
{
  if (!e)
    return;
  memcpy(e->er_sqlstate, SQLSTATE_SUCCESSFUL_COMPLETION, 6);
  e->er_pos = 0;
  e->er_msg[0] = '\0';
  e->er_detail[0] = '\0';
  e->er_hint[0] = '\0';
}

static void err_set_state(err_t *e, const char *sqlstate)
{
  /* A malformed state would corrupt er_sqlstate's NUL; copy at most five. */
  size_t n = sqlstate ? strnlen(sqlstate, 5) : 0;
  if (n == 0) {
    memcpy(e->er_sqlstate, SQLSTATE_INTERNAL, 6);
    return;
  }
  memcpy(e->er_sqlstate, sqlstate, n);
  e->er_sqlstate[n] = '\0';
}

int err_setv(err_t *e, const char *sqlstate, const char *fmt, va_list ap)
{
  if (!e)
    return CZ_ERR;
  err_set_state(e, sqlstate);
  e->er_pos = 0;
  e->er_detail[0] = e->er_hint[0] = '\0';
  /* vsnprintf truncates and always terminates when the size is > 0. */
  if (vsnprintf(e->er_msg, sizeof e->er_msg, fmt, ap) < 0)
    e->er_msg[0] = '\0';
  return CZ_ERR;
}

int err_set(err_t *e, const char *sqlstate, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  err_setv(e, sqlstate, fmt, ap);
  va_end(ap);
  return CZ_ERR;
}

int err_prefix(err_t *e, const char *fmt, ...)
{
  char ctx[sizeof e->er_msg];
  char old[sizeof e->er_msg];
  va_list ap;

  if (!e)
    return CZ_ERR;
  va_start(ap, fmt);
  if (vsnprintf(ctx, sizeof ctx, fmt, ap) < 0)
    ctx[0] = '\0';
  va_end(ap);
  memcpy(old, e->er_msg, sizeof old);
  old[sizeof old - 1] = '\0';
  /* Truncation is wanted here; the check only keeps -Wformat-truncation quiet. */
  if (snprintf(e->er_msg, sizeof e->er_msg, "%s: %s", ctx, old) < 0)
    e->er_msg[0] = '\0';
  return CZ_ERR;
}

int err_add_fields(err_t *e, const char *detail, const char *hint)
{
  if (detail)
    err_detail(e, "%s", detail);
  if (hint)
    err_hint(e, "%s", hint);
  return CZ_ERR;
}

int err_hint(err_t *e, const char *fmt, ...)
{
  if (!e)
    return CZ_ERR;
  va_list ap;
  va_start(ap, fmt);
  if (vsnprintf(e->er_hint, sizeof e->er_hint, fmt, ap) < 0)
    e->er_hint[0] = '\0';
  va_end(ap);
  return CZ_ERR;
}

bool err_is(const err_t *e, const char *sqlstate)
{
  return e && sqlstate && strncmp(e->er_sqlstate, sqlstate, 5) == 0;
}

int err_detail(err_t *e, const char *fmt, ...)
{
  if (!e)
    return CZ_ERR;
  va_list ap;
  va_start(ap, fmt);
  if (vsnprintf(e->er_detail, sizeof e->er_detail, fmt, ap) < 0)
    e->er_detail[0] = '\0';
  va_end(ap);
  return CZ_ERR;
}

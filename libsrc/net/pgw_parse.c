/* pgw_parse — the bodies of frontend messages, field by field.
 *
 * Design notes: the framing layer (pgw_read.c) hands over one whole body of
 * known length; everything here reads it through the checked cursor
 * pgw_rd_t. Counts are checked against the bytes left before anything is
 * sized from them, strings must end inside the body and be valid UTF-8, and
 * a body must be consumed exactly: trailing bytes are a protocol violation,
 * as in PostgreSQL's pq_getmsgend. Arrays are built in the decoder's arena.
 */
#include <string.h>

#include "net/net_int.h"

#define PROTO SQLSTATE_PROTOCOL_VIOLATION

/* ---- the cursor -------------------------------------------------------- */

void pgw_rd_init(pgw_rd_t *r, const uint8_t *p, size_t len, const char *what)
{
  r->rd_p = p;
  r->rd_end = p + len;
  r->rd_what = what;
}

static int rd_short(const pgw_rd_t *r, err_t *e)
{
  return err_set(e, PROTO, "%s message is too short for its fields", r->rd_what);
}

int pgw_rd_byte(pgw_rd_t *r, uint8_t *v, err_t *e)
{
  if (pgw_rd_left(r) < 1)
    return rd_short(r, e);
  *v = *r->rd_p++;
  return CZ_OK;
}

int pgw_rd_int16(pgw_rd_t *r, int16_t *v, err_t *e)
{
  if (pgw_rd_left(r) < 2)
    return rd_short(r, e);
  *v = (int16_t)(uint16_t)((uint16_t)r->rd_p[0] << 8 | r->rd_p[1]);
  r->rd_p += 2;
  return CZ_OK;
}

int pgw_rd_int32(pgw_rd_t *r, int32_t *v, err_t *e)
{
  if (pgw_rd_left(r) < 4)
    return rd_short(r, e);
  const uint8_t *p = r->rd_p;
  *v = (int32_t)((uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]);
  r->rd_p += 4;
  return CZ_OK;
}

int pgw_rd_str(pgw_rd_t *r, const char **s, err_t *e)
{
  size_t left = pgw_rd_left(r);
  const uint8_t *nul = memchr(r->rd_p, 0, left);
  if (!nul)
    return err_set(e, PROTO, "%s message has a string without its terminating NUL", r->rd_what);
  size_t len = (size_t)(nul - r->rd_p);
  size_t bad = pgw_utf8_check(r->rd_p, len);
  if (bad != len)
    return pgw_utf8_error(e, r->rd_p, len, bad);
  *s = (const char *)r->rd_p;
  r->rd_p = nul + 1;
  return CZ_OK;
}

int pgw_rd_bytes(pgw_rd_t *r, size_t n, const uint8_t **p, err_t *e)
{
  if (pgw_rd_left(r) < n)
    return rd_short(r, e);
  *p = r->rd_p;
  r->rd_p += n;
  return CZ_OK;
}

int pgw_rd_count(pgw_rd_t *r, size_t min_each, int *n, err_t *e)
{
  int16_t v = 0;
  if (pgw_rd_int16(r, &v, e) != CZ_OK)
    return CZ_ERR;
  if (v < 0)
    return err_set(e, PROTO, "%s message has a negative count %d", r->rd_what, v);
  if ((size_t)v * min_each > pgw_rd_left(r))
    return err_set(e, PROTO, "%s message declares %d items but has room for %zu", r->rd_what,
                   v, pgw_rd_left(r) / (min_each ? min_each : 1));
  *n = v;
  return CZ_OK;
}

int pgw_rd_finish(const pgw_rd_t *r, err_t *e)
{
  if (pgw_rd_left(r) != 0)
    return err_set(e, PROTO, "%s message has %zu bytes after its last field", r->rd_what,
                   pgw_rd_left(r));
  return CZ_OK;
}

/* ---- typed messages ---------------------------------------------------- */

static int parse_format_codes(pgw_rd_t *r, arena_t *a, int *n_out, const int16_t **out, err_t *e)
{
  int n;
  if (pgw_rd_count(r, 2, &n, e) != CZ_OK)
    return CZ_ERR;
  int16_t *f = arena_alloc(a, sizeof *f * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    pgw_rd_int16(r, &f[i], e); /* cannot fail: the count was checked */
    if (f[i] != 0 && f[i] != 1)
      return err_set(e, PROTO, "%s message has format code %d (0 text or 1 binary expected)",
                     r->rd_what, f[i]);
  }
  *n_out = n;
  *out = f;
  return CZ_OK;
}

static int parse_bind_params(pgw_rd_t *r, arena_t *a, pgw_bind_t *bi, err_t *e)
{
  int n;
  if (pgw_rd_count(r, 4, &n, e) != CZ_OK)
    return CZ_ERR;
  const uint8_t **vals = arena_alloc(a, sizeof *vals * (size_t)(n ? n : 1));
  int32_t *lens = arena_alloc(a, sizeof *lens * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    if (pgw_rd_int32(r, &lens[i], e) != CZ_OK)
      return CZ_ERR;
    vals[i] = NULL;
    if (lens[i] == -1)
      continue;
    if (lens[i] < 0)
      return err_set(e, PROTO, "Bind message has parameter %d with length %d", i + 1, lens[i]);
    if (pgw_rd_bytes(r, (size_t)lens[i], &vals[i], e) != CZ_OK)
      return err_set(e, PROTO, "Bind message parameter %d declares %d bytes, only %zu remain",
                     i + 1, lens[i], pgw_rd_left(r));
  }
  bi->bi_n_params = n;
  bi->bi_values = vals;
  bi->bi_lens = lens;
  return CZ_OK;
}

static int parse_bind(pgw_rd_t *r, arena_t *a, pgw_bind_t *bi, err_t *e)
{
  if (pgw_rd_str(r, &bi->bi_portal, e) != CZ_OK || pgw_rd_str(r, &bi->bi_stmt, e) != CZ_OK ||
      parse_format_codes(r, a, &bi->bi_n_formats, &bi->bi_formats, e) != CZ_OK ||
      parse_bind_params(r, a, bi, e) != CZ_OK ||
      parse_format_codes(r, a, &bi->bi_n_result_formats, &bi->bi_result_formats, e) != CZ_OK)
    return CZ_ERR;
  if (bi->bi_n_formats > 1 && bi->bi_n_formats != bi->bi_n_params)
    return err_set(e, PROTO, "Bind message has %d parameter formats but %d parameters",
                   bi->bi_n_formats, bi->bi_n_params);
  return CZ_OK;
}

static int parse_parse(pgw_rd_t *r, arena_t *a, pgw_parse_t *pa, err_t *e)
{
  int n;
  if (pgw_rd_str(r, &pa->pa_stmt, e) != CZ_OK || pgw_rd_str(r, &pa->pa_query, e) != CZ_OK ||
      pgw_rd_count(r, 4, &n, e) != CZ_OK)
    return CZ_ERR;
  uint32_t *types = arena_alloc(a, sizeof *types * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) {
    int32_t v = 0;
    pgw_rd_int32(r, &v, e); /* cannot fail: the count was checked */
    types[i] = (uint32_t)v;
  }
  pa->pa_n_types = n;
  pa->pa_types = types;
  return CZ_OK;
}

static int parse_target(pgw_rd_t *r, pgw_fe_msg_t *m, err_t *e)
{
  uint8_t what = 0;
  if (pgw_rd_byte(r, &what, e) != CZ_OK)
    return CZ_ERR;
  if (what != 'S' && what != 'P')
    return err_set(e, PROTO, "%s message has target type 0x%02x ('S' or 'P' expected)",
                   r->rd_what, what);
  m->fm_u.target.what = (char)what;
  return pgw_rd_str(r, &m->fm_u.target.name, e);
}

static int parse_execute(pgw_rd_t *r, pgw_fe_msg_t *m, err_t *e)
{
  int32_t max_rows = 0;
  if (pgw_rd_str(r, &m->fm_u.execute.portal, e) != CZ_OK || pgw_rd_int32(r, &max_rows, e) != CZ_OK)
    return CZ_ERR;
  m->fm_u.execute.max_rows = max_rows < 0 ? 0 : max_rows; /* PostgreSQL: <= 0 is all rows */
  return CZ_OK;
}

static const char *type_name(char type)
{
  switch (type) {
  case 'Q': return "Query";
  case 'P': return "Parse";
  case 'B': return "Bind";
  case 'D': return "Describe";
  case 'E': return "Execute";
  case 'S': return "Sync";
  case 'H': return "Flush";
  case 'C': return "Close";
  case 'X': return "Terminate";
  case 'p': return "Password";
  case 'd': return "CopyData";
  case 'c': return "CopyDone";
  case 'f': return "CopyFail";
  default: return "unknown";
  }
}

int pgw_parse_typed(char type, const uint8_t *body, uint32_t len, arena_t *a, pgw_fe_msg_t *m,
                    err_t *e)
{
  pgw_rd_t r;
  int rc = CZ_OK;
  pgw_rd_init(&r, body, len, type_name(type));
  memset(m, 0, sizeof *m);
  m->fm_type = type;
  m->fm_body = body;
  m->fm_len = len;
  switch (type) {
  case 'Q': m->fm_kind = PGW_FE_QUERY; rc = pgw_rd_str(&r, &m->fm_u.query.sql, e); break;
  case 'P': m->fm_kind = PGW_FE_PARSE; rc = parse_parse(&r, a, &m->fm_u.parse, e); break;
  case 'B': m->fm_kind = PGW_FE_BIND; rc = parse_bind(&r, a, &m->fm_u.bind, e); break;
  case 'D': m->fm_kind = PGW_FE_DESCRIBE; rc = parse_target(&r, m, e); break;
  case 'C': m->fm_kind = PGW_FE_CLOSE; rc = parse_target(&r, m, e); break;
  case 'E': m->fm_kind = PGW_FE_EXECUTE; rc = parse_execute(&r, m, e); break;
  case 'S': m->fm_kind = PGW_FE_SYNC; break;
  case 'H': m->fm_kind = PGW_FE_FLUSH; break;
  case 'X': m->fm_kind = PGW_FE_TERMINATE; break;
  case 'c': m->fm_kind = PGW_FE_COPY_DONE; break;
  case 'f': m->fm_kind = PGW_FE_COPY_FAIL; rc = pgw_rd_str(&r, &m->fm_u.copy_fail.message, e); break;
  case 'p':
  case 'd': /* opaque here: 'p' is read by pgw_parse_password/_sasl_initial */
    m->fm_kind = type == 'p' ? PGW_FE_PASSWORD : PGW_FE_COPY_DATA;
    m->fm_u.data.data = body;
    m->fm_u.data.len = len;
    r.rd_p = r.rd_end;
    break;
  default:
    return err_set(e, PROTO, "invalid frontend message type %d", (unsigned char)type);
  }
  if (rc != CZ_OK)
    return CZ_ERR;
  return pgw_rd_finish(&r, e);
}

/* ---- 'p' bodies, read when the server knows which one it expects -------- */

int pgw_parse_password(const pgw_fe_msg_t *m, const char **password, err_t *e)
{
  pgw_rd_t r;
  pgw_rd_init(&r, m->fm_body, m->fm_len, "PasswordMessage");
  if (m->fm_kind != PGW_FE_PASSWORD)
    return err_set(e, PROTO, "expected a password message, got message type %d",
                   (unsigned char)m->fm_type);
  if (pgw_rd_str(&r, password, e) != CZ_OK)
    return CZ_ERR;
  return pgw_rd_finish(&r, e);
}

int pgw_parse_sasl_initial(const pgw_fe_msg_t *m, const char **mech, const uint8_t **data,
                           int32_t *len, err_t *e)
{
  pgw_rd_t r;
  pgw_rd_init(&r, m->fm_body, m->fm_len, "SASLInitialResponse");
  if (m->fm_kind != PGW_FE_PASSWORD)
    return err_set(e, PROTO, "expected SASL response, got message type %d",
                   (unsigned char)m->fm_type);
  if (pgw_rd_str(&r, mech, e) != CZ_OK || pgw_rd_int32(&r, len, e) != CZ_OK)
    return CZ_ERR;
  *data = NULL;
  if (*len < -1)
    return err_set(e, PROTO, "SASLInitialResponse message has data length %d", *len);
  if (*len >= 0 && pgw_rd_bytes(&r, (size_t)*len, data, e) != CZ_OK)
    return CZ_ERR;
  return pgw_rd_finish(&r, e);
}

/* ---- the startup phase ------------------------------------------------- */

static int parse_startup_params(pgw_rd_t *r, arena_t *a, pgw_startup_t *su, err_t *e)
{
  /* First pass counts the pairs, so the arrays are sized from what the body
   * really holds. */
  pgw_rd_t scan = *r;
  int n = 0;
  bool have_user = false;
  for (;;) {
    const char *name, *value;
    if (pgw_rd_str(&scan, &name, e) != CZ_OK)
      return CZ_ERR;
    if (!*name)
      break;
    if (pgw_rd_str(&scan, &value, e) != CZ_OK)
      return CZ_ERR;
    have_user |= strcmp(name, "user") == 0 && *value;
    n++;
  }
  if (pgw_rd_finish(&scan, e) != CZ_OK)
    return CZ_ERR;
  if (!have_user)
    return err_set(e, SQLSTATE_INVALID_AUTHORIZATION, "no user name specified in startup packet");
  su->su_n_params = n;
  su->su_names = arena_alloc(a, sizeof(char *) * (size_t)n);
  su->su_values = arena_alloc(a, sizeof(char *) * (size_t)n);
  for (int i = 0; i < n; i++) { /* cannot fail: the first pass checked every field */
    pgw_rd_str(r, &su->su_names[i], e);
    pgw_rd_str(r, &su->su_values[i], e);
  }
  return CZ_OK;
}

int pgw_parse_startup(const uint8_t *body, uint32_t len, arena_t *a, pgw_fe_msg_t *m, err_t *e)
{
  pgw_rd_t r;
  int32_t code = 0;
  pgw_rd_init(&r, body, len, "startup");
  memset(m, 0, sizeof *m);
  m->fm_body = body;
  m->fm_len = len;
  if (pgw_rd_int32(&r, &code, e) != CZ_OK)
    return CZ_ERR;
  uint32_t v = (uint32_t)code;
  if (v == PGW_SSL_REQUEST_CODE || v == PGW_GSSENC_REQUEST_CODE) {
    m->fm_kind = v == PGW_SSL_REQUEST_CODE ? PGW_FE_SSL_REQUEST : PGW_FE_GSSENC_REQUEST;
    return pgw_rd_finish(&r, e);
  }
  if (v == PGW_CANCEL_REQUEST_CODE) {
    m->fm_kind = PGW_FE_CANCEL;
    r.rd_what = "CancelRequest";
    if (pgw_rd_int32(&r, &m->fm_u.cancel.pid, e) != CZ_OK ||
        pgw_rd_int32(&r, &m->fm_u.cancel.key, e) != CZ_OK)
      return CZ_ERR;
    return pgw_rd_finish(&r, e);
  }
  if (v >> 16 != 3)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "unsupported frontend protocol %u.%u: server supports 3.0", v >> 16, v & 0xFFFF);
  m->fm_kind = PGW_FE_STARTUP;
  m->fm_u.startup.su_version = v;
  return parse_startup_params(&r, a, &m->fm_u.startup, e);
}

/* cat_rec — the byte format of system table records and keys: u8, u32
 * big-endian, strings as u32 length (0xffffffff = NULL) and bytes.
 */
#include <string.h>

#include "catalog/cat_int.h"

const char *const cat_sys_names[CAT_SYS_N] = {
  "sys.meta", "sys.schemas", "sys.tables", "sys.columns",
  "sys.indexes", "sys.roles", "sys.members", "sys.grants",
  "sys.sequences", "sys.seqvals", "sys.views", "sys.constraints",
  "sys.comments", "sys.settings",
};

static void cat_w_bytes(cat_wbuf_t *w, const void *p, size_t n)
{
  if (w->w_len + n > w->w_cap) {
    w->w_over = true;
    w->w_len += n;
    return;
  }
  memcpy(w->w_p + w->w_len, p, n);
  w->w_len += n;
}

void cat_w_u8(cat_wbuf_t *w, uint8_t v)
{
  cat_w_bytes(w, &v, 1);
}

void cat_w_u32(cat_wbuf_t *w, uint32_t v)
{
  uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };
  cat_w_bytes(w, b, 4);
}

void cat_w_str(cat_wbuf_t *w, const char *s)
{
  if (!s) {
    cat_w_u32(w, 0xffffffffu);
    return;
  }
  size_t n = strlen(s);
  cat_w_u32(w, (uint32_t)n);
  cat_w_bytes(w, s, n);
}

uint8_t cat_r_u8(cat_rbuf_t *r)
{
  if (r->r_off + 1 > r->r_len) {
    r->r_bad = true;
    return 0;
  }
  return r->r_p[r->r_off++];
}

uint8_t cat_r_opt_u8(cat_rbuf_t *r, uint8_t dflt)
{
  return !r->r_bad && r->r_off < r->r_len ? cat_r_u8(r) : dflt;
}

uint32_t cat_r_opt_u32(cat_rbuf_t *r, uint32_t dflt)
{
  return !r->r_bad && r->r_off < r->r_len ? cat_r_u32(r) : dflt;
}

uint32_t cat_r_u32(cat_rbuf_t *r)
{
  if (r->r_off + 4 > r->r_len) {
    r->r_bad = true;
    return 0;
  }
  const uint8_t *p = r->r_p + r->r_off;
  r->r_off += 4;
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

const char *cat_r_str(cat_rbuf_t *r, arena_t *a)
{
  uint32_t n = cat_r_u32(r);
  if (n == 0xffffffffu || r->r_bad)
    return NULL;
  if (r->r_off + n > r->r_len) {
    r->r_bad = true;
    return NULL;
  }
  char *s = arena_alloc(a, (size_t)n + 1);
  memcpy(s, r->r_p + r->r_off, n);
  s[n] = 0;
  r->r_off += n;
  return s;
}

size_t cat_key_oid(uint8_t *out, cat_oid_t a)
{
  out[0] = (uint8_t)(a >> 24);
  out[1] = (uint8_t)(a >> 16);
  out[2] = (uint8_t)(a >> 8);
  out[3] = (uint8_t)a;
  return 4;
}

size_t cat_key_oid2(uint8_t *out, cat_oid_t a, uint32_t b)
{
  cat_key_oid(out, a);
  cat_key_oid(out + 4, b);
  return 8;
}

cat_oid_t cat_key_get(const uint8_t *p, int i)
{
  p += 4 * i;
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

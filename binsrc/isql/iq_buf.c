/* iq_buf — a growable NUL-terminated text buffer and checked allocation. */
#include <stdlib.h>
#include <string.h>

#include "isql.h"

void *iq_xmalloc(size_t n)
{
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, IQ_PROGRAM ": out of memory\n");
    exit(IQ_EXIT_CANNOT_START);
  }
  return p;
}

void *iq_xrealloc(void *p, size_t n)
{
  void *q = realloc(p, n ? n : 1);
  if (!q) {
    fprintf(stderr, IQ_PROGRAM ": out of memory\n");
    exit(IQ_EXIT_CANNOT_START);
  }
  return q;
}

char *iq_xstrdup(const char *s)
{
  size_t n = strlen(s) + 1;
  char *d = iq_xmalloc(n);
  memcpy(d, s, n);
  return d;
}

void iq_buf_append(iq_buf_t *b, const char *s, size_t n)
{
  if (b->b_len + n + 1 > b->b_cap) {
    size_t cap = b->b_cap ? b->b_cap : 256;
    while (cap < b->b_len + n + 1)
      cap *= 2;
    b->b_data = iq_xrealloc(b->b_data, cap);
    b->b_cap = cap;
  }
  if (n)
    memcpy(b->b_data + b->b_len, s, n);
  b->b_len += n;
  b->b_data[b->b_len] = '\0';
}

void iq_buf_puts(iq_buf_t *b, const char *s) { iq_buf_append(b, s, strlen(s)); }

void iq_buf_putc(iq_buf_t *b, char c) { iq_buf_append(b, &c, 1); }

void iq_buf_consume(iq_buf_t *b, size_t n)
{
  if (n >= b->b_len) {
    iq_buf_clear(b);
    return;
  }
  memmove(b->b_data, b->b_data + n, b->b_len - n);
  b->b_len -= n;
  b->b_data[b->b_len] = '\0';
}

void iq_buf_clear(iq_buf_t *b)
{
  b->b_len = 0;
  if (b->b_data)
    b->b_data[0] = '\0';
}

void iq_buf_free(iq_buf_t *b)
{
  free(b->b_data);
  b->b_data = NULL;
  b->b_len = b->b_cap = 0;
}

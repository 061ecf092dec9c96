/* rdf_testlib — see rdf_testlib.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "cz_test.h"
#include "rdf_testlib.h"

static void tl_add(char **s, size_t *len, size_t *cap, const char *p, size_t n)
{
  if (*len + n + 1 > *cap) {
    *cap = (*len + n + 1) * 2;
    *s = realloc(*s, *cap);
    if (!*s)
      abort();
  }
  memcpy(*s + *len, p, n);
  *len += n;
  (*s)[*len] = '\0';
}

char *tl_term_text(const rdf_term_t *t)
{
  char *s = NULL;
  size_t len = 0, cap = 0;
  switch (t->rt_kind) {
  case RDF_NONE:
    tl_add(&s, &len, &cap, "-", 1);
    break;
  case RDF_IRI:
    tl_add(&s, &len, &cap, "I<", 2);
    tl_add(&s, &len, &cap, t->rt_str, t->rt_len);
    tl_add(&s, &len, &cap, ">", 1);
    break;
  case RDF_BNODE:
    tl_add(&s, &len, &cap, "B", 1);
    tl_add(&s, &len, &cap, t->rt_str, t->rt_len);
    break;
  case RDF_LITERAL:
    tl_add(&s, &len, &cap, "L\"", 2);
    tl_add(&s, &len, &cap, t->rt_str, t->rt_len);
    tl_add(&s, &len, &cap, "\"", 1);
    if (t->rt_dt && rdf_xsd_of(t) != XSD_STRING) {
      tl_add(&s, &len, &cap, "^", 1);
      tl_add(&s, &len, &cap, t->rt_dt, t->rt_dt_len);
    }
    if (t->rt_lang_len) {
      tl_add(&s, &len, &cap, "@", 1);
      tl_add(&s, &len, &cap, t->rt_lang, t->rt_lang_len);
    }
    break;
  }
  return s;
}

int tl_collect(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  tl_quads_t *out = ctx;
  out->tq_batches++;
  if (n > out->tq_max_batch)
    out->tq_max_batch = n;
  for (size_t i = 0; i < n; i++) {
    const rdf_term_t *ts[4] = {&q[i].rq_s, &q[i].rq_p, &q[i].rq_o, &q[i].rq_g};
    char *line = NULL;
    size_t len = 0, cap = 0;
    for (int k = 0; k < 4; k++) {
      char *t = tl_term_text(ts[k]);
      if (k)
        tl_add(&line, &len, &cap, "\x01", 1); /* literals may hold spaces */
      tl_add(&line, &len, &cap, t, strlen(t));
      free(t);
    }
    if (out->tq_n == out->tq_cap) {
      out->tq_cap = out->tq_cap ? out->tq_cap * 2 : 64;
      out->tq_lines = realloc(out->tq_lines, out->tq_cap * sizeof(char *));
      if (!out->tq_lines)
        abort();
    }
    out->tq_lines[out->tq_n++] = line;
  }
  return 0;
}

void tl_free(tl_quads_t *q)
{
  for (size_t i = 0; i < q->tq_n; i++)
    free(q->tq_lines[i]);
  free(q->tq_lines);
  memset(q, 0, sizeof(*q));
}

int tl_parse(const char *name, const char *text, rdf_read_opts_t *o, tl_quads_t *out, err_t *e)
{
  o->ro_fn = tl_collect;
  o->ro_ctx = out;
  return rdf_read_mem(name, text, strlen(text), o, e);
}

int tl_parse_file(const char *path, rdf_read_opts_t *o, tl_quads_t *out, err_t *e)
{
  o->ro_fn = tl_collect;
  o->ro_ctx = out;
  return rdf_read_file(path, o, e);
}

char *tl_write_file(const char *name, const char *data, size_t len, bool gz)
{
  char *path = cz_test_path(name);
  if (gz) {
    gzFile f = gzopen(path, "wb");
    if (!f || (len && gzwrite(f, data, (unsigned)len) != (int)len) || gzclose(f) != Z_OK)
      abort();
  } else {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
      abort();
  }
  return path;
}

/* Replaces every blank node field "B<label>" by "B#<n>", n in order of
 * first use. */
void tl_canon_bnodes(tl_quads_t *q)
{
  char **names = NULL;
  size_t nn = 0;
  for (size_t i = 0; i < q->tq_n; i++) {
    char *out = NULL;
    size_t len = 0, cap = 0;
    const char *p = q->tq_lines[i];
    while (*p) {
      const char *end = strchr(p, '\x01');
      if (!end)
        end = p + strlen(p);
      size_t fl = (size_t)(end - p);
      if (*p == 'B') {
        size_t k;
        for (k = 0; k < nn; k++)
          if (strlen(names[k]) == fl && memcmp(names[k], p, fl) == 0)
            break;
        if (k == nn) {
          names = realloc(names, (nn + 1) * sizeof(char *));
          names[nn++] = strndup(p, fl);
        }
        char tok[32];
        snprintf(tok, sizeof(tok), "B#%zu", k);
        tl_add(&out, &len, &cap, tok, strlen(tok));
      } else
        tl_add(&out, &len, &cap, p, fl);
      p = end;
      if (*p) {
        tl_add(&out, &len, &cap, p, 1);
        p++;
      }
    }
    free(q->tq_lines[i]);
    q->tq_lines[i] = out ? out : strdup("");
  }
  for (size_t k = 0; k < nn; k++)
    free(names[k]);
  free(names);
}

bool tl_same(tl_quads_t *a, tl_quads_t *b)
{
  tl_canon_bnodes(a);
  tl_canon_bnodes(b);
  if (a->tq_n != b->tq_n) {
    fprintf(stderr, "quad counts differ: %zu vs %zu\n", a->tq_n, b->tq_n);
    return false;
  }
  for (size_t i = 0; i < a->tq_n; i++)
    if (strcmp(a->tq_lines[i], b->tq_lines[i]) != 0) {
      fprintf(stderr, "quad %zu differs:\n  %s\n  %s\n", i, a->tq_lines[i], b->tq_lines[i]);
      return false;
    }
  return true;
}

int tl_buf_sink(void *ctx, const char *buf, size_t len)
{
  tl_buf_t *b = ctx;
  b->tb_calls++;
  if (b->tb_fail_after > 0 && (int)b->tb_calls >= b->tb_fail_after)
    return -7;
  char *s = b->tb_data;
  tl_add(&s, &b->tb_len, &b->tb_cap, buf, len);
  b->tb_data = s;
  return 0;
}

const char *tl_buf_str(tl_buf_t *b)
{
  return b->tb_data ? b->tb_data : "";
}

const char *tl_line(const tl_quads_t *q, size_t i)
{
  static char buf[8192];
  if (i >= q->tq_n)
    return "(no such quad)";
  snprintf(buf, sizeof(buf), "%s", q->tq_lines[i]);
  for (char *p = buf; *p; p++)
    if (*p == '\x01')
      *p = ' ';
  return buf;
}

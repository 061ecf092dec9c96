/* slt_run — see slt_run.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "slt_run.h"

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  size_t got = fread(buf, 1, (size_t)n, f);
  buf[got] = '\0';
  fclose(f);
  return buf;
}

/* slt.py's render for one value. */
static char *render(const char *v, char type)
{
  char buf[64];
  if (!v)
    return strdup("NULL");
  if (type == 'I') {
    if (strcmp(v, "t") == 0 || strcmp(v, "true") == 0)
      return strdup("1");
    if (strcmp(v, "f") == 0 || strcmp(v, "false") == 0)
      return strdup("0");
    /* integers and decimals truncate toward zero */
    long long x = strtoll(v, NULL, 10);
    snprintf(buf, sizeof(buf), "%lld", x);
    return strdup(buf);
  }
  if (type == 'R') {
    snprintf(buf, sizeof(buf), "%.3f", strtod(v, NULL));
    return strdup(buf);
  }
  if (!*v)
    return strdup("(empty)");
  char *s = strdup(v);
  for (char *p = s; *p; p++)
    if ((unsigned char)*p < 32 || (unsigned char)*p > 126)
      *p = '@';
  return s;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct rowref_s {
  char **r_vals;
  int r_n;
} rowref_t;

static int cmp_row(const void *a, const void *b)
{
  const rowref_t *x = a, *y = b;
  for (int i = 0; i < x->r_n; i++) {
    int c = strcmp(x->r_vals[i], y->r_vals[i]);
    if (c)
      return c;
  }
  return 0;
}

static void md5_hex(char **vals, int n, char out[33])
{
  EVP_MD_CTX *m = EVP_MD_CTX_new();
  EVP_DigestInit_ex(m, EVP_md5(), NULL);
  for (int i = 0; i < n; i++) {
    EVP_DigestUpdate(m, vals[i], strlen(vals[i]));
    EVP_DigestUpdate(m, "\n", 1);
  }
  unsigned char d[16];
  unsigned int len;
  EVP_DigestFinal_ex(m, d, &len);
  EVP_MD_CTX_free(m);
  for (int i = 0; i < 16; i++)
    sprintf(out + 2 * i, "%02x", d[i]);
}

int slt_run_file(const char *path, const slt_ops_t *ops, int *passed)
{
  char *text = slurp(path);
  if (!text)
    return -1;
  int failures = 0;
  *passed = 0;
  /* records are separated by blank lines */
  char *save = NULL;
  char *p = text;
  while (p && *p) {
    char *end = strstr(p, "\n\n");
    if (end)
      *end = '\0';
    char *rec = p;
    p = end ? end + 2 : NULL;
    while (*rec == '\n')
      rec++;
    if (!*rec || *rec == '#')
      continue;
    char *nl = strchr(rec, '\n');
    char *head = rec, *body = nl ? nl + 1 : rec + strlen(rec);
    if (nl)
      *nl = '\0';
    err_t e;
    if (strncmp(head, "statement", 9) == 0) {
      bool ok = strstr(head, "ok") != NULL;
      int rc = ops->so_exec(ops->so_ctx, body, &e);
      if ((rc == CZ_OK) != ok) {
        if (failures++ < 5)
          fprintf(stderr, "%s: statement %s: %s\n  %s %s\n", path, ok ? "failed" : "succeeded",
                  body, e.er_sqlstate, rc == CZ_OK ? "" : e.er_msg);
      } else
        (*passed)++;
      continue;
    }
    if (strncmp(head, "query", 5) != 0)
      continue;  /* hash-threshold and the like */
    char types[32] = "", sort[32] = "nosort";
    sscanf(head, "query %31s %31s", types, sort);
    char *sep = strstr(body, "\n----");
    char *expected = NULL;
    if (sep) {
      *sep = '\0';
      expected = sep + 5;
      if (*expected == '\n')
        expected++;
    }
    char **vals;
    int nr, nc;
    if (ops->so_query(ops->so_ctx, body, &vals, &nr, &nc, &e) != CZ_OK) {
      if (failures++ < 5)
        fprintf(stderr, "%s: query error: %s\n  %s %s\n", path, body, e.er_sqlstate, e.er_msg);
      continue;
    }
    int nv = nr * nc;
    char **r = malloc(sizeof(char *) * (size_t)(nv + 1));
    for (int i = 0; i < nv; i++) {
      r[i] = render(vals[i], types[i % nc]);
      free(vals[i]);
    }
    free(vals);
    if ((int)strlen(types) != nc) {
      if (failures++ < 5)
        fprintf(stderr, "%s: column count %d, expected %zu: %s\n", path, nc, strlen(types), body);
    } else {
      if (strcmp(sort, "rowsort") == 0 && nc > 0) {
        rowref_t *rows = malloc(sizeof(rowref_t) * (size_t)(nr + 1));
        for (int i = 0; i < nr; i++)
          rows[i] = (rowref_t){r + i * nc, nc};
        qsort(rows, (size_t)nr, sizeof(rowref_t), cmp_row);
        char **sorted = malloc(sizeof(char *) * (size_t)(nv + 1));
        for (int i = 0; i < nr; i++)
          memcpy(sorted + i * nc, rows[i].r_vals, sizeof(char *) * (size_t)nc);
        memcpy(r, sorted, sizeof(char *) * (size_t)nv);
        free(sorted);
        free(rows);
      } else if (strcmp(sort, "valuesort") == 0)
        qsort(r, (size_t)nv, sizeof(char *), cmp_str);
      char got[128], hex[33];
      md5_hex(r, nv, hex);
      snprintf(got, sizeof(got), "%d values hashing to %s", nv, hex);
      bool ok;
      if (expected && strstr(expected, "values hashing to"))
        ok = strncmp(expected, got, strlen(got)) == 0;
      else {
        /* expected values one per line */
        ok = true;
        char *ex = expected ? expected : (char *)"";
        for (int i = 0; i < nv && ok; i++) {
          char *l = strchr(ex, '\n');
          size_t len = l ? (size_t)(l - ex) : strlen(ex);
          ok = strlen(r[i]) == len && strncmp(r[i], ex, len) == 0;
          ex = l ? l + 1 : ex + len;
        }
        ok = ok && *ex == '\0';
      }
      if (!ok) {
        if (failures++ < 5)
          fprintf(stderr, "%s: wrong result: %s\n  expected %.60s\n  got %s (first %s)\n", path,
                  body, expected ? expected : "", got, nv ? r[0] : "-");
      } else
        (*passed)++;
    }
    for (int i = 0; i < nv; i++)
      free(r[i]);
    free(r);
  }
  (void)save;
  free(text);
  return failures;
}


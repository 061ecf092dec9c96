/* sparql-parse — parses a SPARQL query or update and prints its algebra
 * (SSE) or the error: a tool for tests and for people checking what the
 * front end makes of a query.
 *
 *   sparql-parse [--update|--query] [--base IRI] [FILE]   (stdin without FILE)
 *
 * Exit status: 0 parsed, 1 refused (the message on stderr), 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sparql/sparql.h"
#include "util/util.h"

static char *read_all(FILE *f, size_t *len)
{
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        return NULL;
      }
      buf = nb;
    }
  }
  *len = n;
  return buf;
}

int main(int argc, char **argv)
{
  sp_mode_t mode = SP_PARSE_ANY;
  const char *base = NULL, *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--update") == 0)
      mode = SP_PARSE_UPDATE;
    else if (strcmp(argv[i], "--query") == 0)
      mode = SP_PARSE_QUERY;
    else if (strcmp(argv[i], "--base") == 0 && i + 1 < argc)
      base = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "usage: sparql-parse [--update|--query] [--base IRI] [FILE]\n");
      return 2;
    } else
      path = argv[i];
  }
  FILE *f = path ? fopen(path, "rb") : stdin;
  if (!f) {
    perror(path);
    return 2;
  }
  size_t len = 0;
  char *text = read_all(f, &len);
  if (path)
    fclose(f);
  if (!text) {
    fprintf(stderr, "sparql-parse: out of memory\n");
    return 2;
  }
  arena_t *a = arena_create(NULL, "sparql-parse");
  err_t e;
  sp_request_t *rq = sp_parse(a, text, len, base, mode, &e);
  int rc = 0;
  if (rq) {
    sp_print_request(stdout, rq);
  } else {
    fprintf(stderr, "ERROR %s: %s\n", e.er_sqlstate, e.er_msg);
    rc = 1;
  }
  arena_destroy(a);
  free(text);
  return rc;
}

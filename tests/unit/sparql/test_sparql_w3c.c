/* test_sparql_w3c — the parser against every SPARQL text of the W3C SPARQL
 * 1.0 and 1.1 test suites: each positive syntax test and the query or
 * update of each evaluation test must parse (and translate), each negative
 * syntax test must be refused.
 *
 * Design notes: the manifests are Turtle; w3c_manifest.py (rdflib, from the
 * project venv: $CZ_VENV, else <srcdir>/build/venv, made by
 * scripts/install-deps.sh) lists the tests, this program parses each file
 * with the base IRI the W3C harness gives it and prints the counts per
 * category, then every test that went the wrong way. A test listed in
 * w3c_known_failures.txt (one test IRI per line, then the reason) is
 * reported but does not fail the run. The data is read where the project
 * keeps it ($W3C_SPARQL_TESTS, else <srcdir>/../shared/data/w3c-sparql).
 * Without rdflib or without the data the test is skipped, loudly (as
 * test_sql_corpus does without its files); any other failure to list the
 * tests fails it.
 */
#include <sys/wait.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sparql/sparql.h"
#include "util/util.h"

#define W3C_MAX_CAT 16

typedef struct w3c_cat_s {
  char wc_name[64];
  int wc_total, wc_ok;
} w3c_cat_t;

static char *w3c_read(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  fclose(f);
  *len = (size_t)n;
  return buf;
}

static bool w3c_known(const char *known, const char *test)
{
  if (!known)
    return false;
  size_t n = strlen(test);
  for (const char *p = strstr(known, test); p; p = strstr(p + 1, test))
    if ((p == known || p[-1] == '\n') && (p[n] == ' ' || p[n] == '\t'))
      return true;
  return false;
}

static void test_w3c_suites(void **state)
{
  (void)state;
  const char *src = CZ_SRCDIR;
  char data[1024], py[1024], cmd[4096], knownpath[1024];
  if (getenv("W3C_SPARQL_TESTS"))
    snprintf(data, sizeof data, "%s", getenv("W3C_SPARQL_TESTS"));
  else
    snprintf(data, sizeof data, "%s/../shared/data/w3c-sparql", src);
  if (getenv("CZ_VENV"))
    snprintf(py, sizeof py, "%s/bin/python3", getenv("CZ_VENV"));
  else
    snprintf(py, sizeof py, "%s/build/venv/bin/python3", src);
  if (access(py, X_OK) != 0)
    snprintf(py, sizeof py, "python3");
  snprintf(cmd, sizeof cmd, "'%s' '%s/tests/unit/sparql/w3c_manifest.py' '%s'", py, src, data);
  snprintf(knownpath, sizeof knownpath, "%s/tests/unit/sparql/w3c_known_failures.txt", src);
  size_t klen;
  char *known = w3c_read(knownpath, &klen);

  FILE *list = popen(cmd, "r");
  assert_non_null(list);
  w3c_cat_t cats[W3C_MAX_CAT];
  int ncat = 0, total = 0, unexpected = 0, known_bad = 0;
  memset(cats, 0, sizeof cats);
  char line[8192];
  arena_t *a = arena_create(NULL, "w3c");
  while (fgets(line, sizeof line, list)) {
    line[strcspn(line, "\n")] = 0;
    char *f[7];
    int nf = 0;
    for (char *s = line, *tok; nf < 7 && (tok = strsep(&s, "\t"));)
      f[nf++] = tok;
    if (nf != 7)
      continue;
    bool pos = strcmp(f[0], "pos") == 0;
    sp_mode_t mode = strcmp(f[1], "update") == 0 ? SP_PARSE_UPDATE : SP_PARSE_QUERY;
    int c;
    for (c = 0; c < ncat && strcmp(cats[c].wc_name, f[2]) != 0; c++)
      ;
    if (c == ncat && ncat < W3C_MAX_CAT)
      snprintf(cats[ncat++].wc_name, sizeof cats[0].wc_name, "%s", f[2]);
    size_t len = 0;
    char *text = w3c_read(f[4], &len);
    err_t e;
    err_clear(&e);
    sp_request_t *rq = text ? sp_parse(a, text, len, f[5], mode, &e) : NULL;
    bool ok = pos ? rq != NULL : rq == NULL;
    total++;
    cats[c].wc_total++;
    if (ok) {
      cats[c].wc_ok++;
    } else {
      bool k = w3c_known(known, f[6]);
      if (k)
        known_bad++;
      else
        unexpected++;
      printf("%s %s %s %s: %s\n", k ? "KNOWN" : "WRONG", f[2], f[3], f[6],
             !text ? "file not readable" : pos ? e.er_msg : "accepted, should be refused");
    }
    free(text);
    arena_reset(a);
  }
  int rc = pclose(list);
  arena_destroy(a);
  free(known);
  if (total == 0 && WIFEXITED(rc) && (WEXITSTATUS(rc) == 3 || WEXITSTATUS(rc) == 4)) {
    printf("SKIPPED: %s (run scripts/install-deps.sh, or set CZ_VENV / W3C_SPARQL_TESTS)\n",
           WEXITSTATUS(rc) == 3 ? "rdflib is not installed" : "no W3C test data");
    skip();
  }
  for (int i = 0; i < ncat; i++)
    printf("%-32s %4d of %4d right\n", cats[i].wc_name, cats[i].wc_ok, cats[i].wc_total);
  printf("W3C SPARQL texts: %d, right %d, known failures %d, unexpected failures %d\n", total,
         total - known_bad - unexpected, known_bad, unexpected);
  if (rc != 0 || total == 0)
    fail_msg("the manifests could not be read (needs rdflib: scripts/install-deps.sh; data in %s)", data);
  assert_int_equal(unexpected, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_w3c_suites),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

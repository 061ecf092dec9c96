/* en_run — see en_run.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cz_test.h"
#include "en_run.h"
#include "util/util.h"

static engine_t *open_at(const char *name)
{
  char *db = cz_test_path(name);
  char text[2048];
  snprintf(text, sizeof(text),
           "[Database]\nDatabaseFile = %s.db\nTransactionFile = %s.trx\n"
           "[Parameters]\nNumberOfBuffers = 2000\nDBAPassword = secret\nVectorSize = 64\n",
           db, db);
  free(db);
  err_t e;
  ini_t *ini = ini_parse(text, strlen(text), &e);
  assert_non_null(ini);
  engine_t *eng = NULL;
  if (engine_open(ini, &eng, &e) != CZ_OK)
    fail_msg("engine_open: %s %s", e.er_sqlstate, e.er_msg);
  ini_free(ini);
  return eng;
}

engine_t *en_test_open(const char *name)
{
  return open_at(name);
}

engine_t *en_test_reopen(const char *name)
{
  return open_at(name);
}

esession_t *en_test_session(engine_t *eng, const char *role)
{
  err_t e;
  esession_t *s = NULL;
  if (esession_open(eng, role, "db", &s, &e) != CZ_OK)
    fail_msg("esession_open: %s %s", e.er_sqlstate, e.er_msg);
  return s;
}

static void add(en_result_t *r, const char *p, size_t n)
{
  if (r->rr_len + n + 1 > r->rr_cap) {
    r->rr_cap = (r->rr_len + n + 1) * 2 + 64;
    r->rr_rows = realloc(r->rr_rows, r->rr_cap);
  }
  memcpy(r->rr_rows + r->rr_len, p, n);
  r->rr_len += n;
  r->rr_rows[r->rr_len] = '\0';
}

static int collect(void *ctx, const batch_t *b, err_t *e)
{
  (void)e;
  en_result_t *r = ctx;
  for (int i = 0; i < b->b_n; i++) {
    if (r->rr_len)
      add(r, "\n", 1);
    for (int c = 0; c < b->b_ncols; c++) {
      if (c)
        add(r, "|", 1);
      datum_t d;
      vec_get(&b->b_cols[c], i, &d);
      if (d.d_null) {
        add(r, "NULL", 4);
        continue;
      }
      size_t cap = ty_text_max(b->b_cols[c].v_type, &d) + 1;
      char *buf = malloc(cap);
      int n = ty_format_text(b->b_cols[c].v_type, &d, buf, cap);
      add(r, buf, n > 0 ? (size_t)n : 0);
      free(buf);
    }
    r->rr_nrows++;
  }
  return CZ_OK;
}

void en_result_free(en_result_t *r)
{
  free(r->rr_rows);
  memset(r, 0, sizeof(*r));
}

int en_run(esession_t *s, const char *sql, en_result_t *r)
{
  en_result_free(r);
  add(r, "", 0);
  arena_t *a = arena_create(NULL, "run");
  etext_t *parts;
  int n;
  int rc = esession_split(s, sql, strlen(sql), a, &parts, &n, &r->rr_err);
  for (int i = 0; rc == CZ_OK && i < n; i++) {
    estmt_t *st;
    eportal_t *p;
    bool susp;
    r->rr_len = 0;
    r->rr_rows[0] = '\0';
    r->rr_nrows = 0;
    rc = estmt_prepare_parsed(s, sql + parts[i].et_off, &parts[i], &st, &r->rr_err);
    if (rc != CZ_OK)
      break;
    rc = eportal_bind(st, NULL, 0, &p, &r->rr_err);
    if (rc == CZ_OK) {
      rc = eportal_execute(p, 0, collect, r, &susp, &r->rr_err);
      snprintf(r->rr_tag, sizeof(r->rr_tag), "%s", eportal_tag(p));
      eportal_free(p);
    }
    estmt_free(st);
  }
  arena_destroy(a);
  r->rr_failed = rc != CZ_OK;
  return rc;
}

char *en_query(esession_t *s, const char *sql)
{
  en_result_t r = {0};
  if (en_run(s, sql, &r) != CZ_OK)
    fail_msg("%s: %s %s", sql, r.rr_err.er_sqlstate, r.rr_err.er_msg);
  return r.rr_rows;
}

void en_exec(esession_t *s, const char *sql)
{
  free(en_query(s, sql));
}

void en_expect_error(esession_t *s, const char *sql, const char *sqlstate)
{
  en_result_t r = {0};
  if (en_run(s, sql, &r) == CZ_OK)
    fail_msg("%s: succeeded, expected %s", sql, sqlstate);
  if (strcmp(r.rr_err.er_sqlstate, sqlstate) != 0)
    fail_msg("%s: got %s (%s), expected %s", sql, r.rr_err.er_sqlstate, r.rr_err.er_msg, sqlstate);
  en_result_free(&r);
}

void en_expect_rows(esession_t *s, const char *sql, const char *want)
{
  char *got = en_query(s, sql);
  if (strcmp(got, want) != 0)
    fail_msg("%s\n got: [%s]\nwant: [%s]", sql, got, want);
  free(got);
}

void en_fixture_open(const char *prefix, engine_t **eng, esession_t **ses)
{
  static int n;
  char name[32];
  snprintf(name, sizeof(name), "%s%d", prefix, n++);
  *eng = en_test_open(name);
  *ses = en_test_session(*eng, "dba");
}

void en_fixture_close(engine_t *eng, esession_t *ses)
{
  esession_close(ses);
  err_t e;
  assert_int_equal(engine_close(eng, &e), CZ_OK);
}

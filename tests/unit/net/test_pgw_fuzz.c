/* test_pgw_fuzz — thousands of generated, mutated, truncated and random
 * inputs to the frontend decoder and the SCRAM server. They check only that
 * every outcome is clean: a message whose fields lie inside its body, a
 * request for more bytes, or an error with a protocol SQLSTATE; and that
 * splitting the bytes differently never changes the result. Run under the
 * sanitizer build, any overread is a failure. CZ_TEST_SEED replays a run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "net_test.h"

static uint64_t rng_state;

static uint64_t rnd(void)
{
  /* splitmix64: tiny and good enough to drive a fuzzer */
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static size_t rnd_below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* A random valid UTF-8 string of up to max characters, in a static ring. */
static const char *rnd_str(size_t max)
{
  static char ring[8][256];
  static int slot;
  static const char *pieces[] = {"a", "Z", "0", " ", "$1", ";", "'", "\xc3\xa9", "\xe2\x82\xac",
                                 "\xf0\x9f\x98\x80", "SELECT", "\n"};
  char *s = ring[slot++ & 7];
  size_t n = rnd_below(max + 1), len = 0;
  for (size_t i = 0; i < n; i++) {
    const char *p = pieces[rnd_below(CZ_ARRAY_LEN(pieces))];
    if (len + strlen(p) >= sizeof ring[0])
      break;
    memcpy(s + len, p, strlen(p));
    len += strlen(p);
  }
  s[len] = '\0';
  return s;
}

static void write_random_bind(pgw_buf_t *b)
{
  int16_t fmts[8], rfmts[8];
  const uint8_t *vals[8];
  int32_t lens[8];
  uint8_t bytes[8][16];
  int np = (int)rnd_below(8);
  for (int i = 0; i < 8; i++) {
    fmts[i] = (int16_t)rnd_below(2);
    rfmts[i] = (int16_t)rnd_below(2);
    lens[i] = rnd_below(4) == 0 ? -1 : (int32_t)rnd_below(17);
    for (int k = 0; k < 16; k++)
      bytes[i][k] = (uint8_t)rnd();
    vals[i] = bytes[i];
  }
  int nf = (int)rnd_below(3);
  pgw_bind_t bi = {rnd_str(4), rnd_str(4), nf == 2 ? np : nf, fmts, np, vals, lens,
                   (int)rnd_below(8), rfmts};
  pgw_write_bind(b, &bi);
}

static void write_random_message(pgw_buf_t *b)
{
  uint32_t types[8];
  uint8_t raw[64];
  for (int i = 0; i < 8; i++)
    types[i] = (uint32_t)rnd_below(4000);
  for (size_t i = 0; i < sizeof raw; i++)
    raw[i] = (uint8_t)rnd();
  switch (rnd_below(15)) {
  case 0: pgw_write_query(b, rnd_str(40)); break;
  case 1: pgw_write_parse(b, rnd_str(3), rnd_str(30), types, (int)rnd_below(8)); break;
  case 2: write_random_bind(b); break;
  case 3: pgw_write_describe(b, rnd_below(2) ? 'S' : 'P', rnd_str(5)); break;
  case 4: pgw_write_execute(b, rnd_str(5), (int32_t)rnd_below(1000) - 10); break;
  case 5: pgw_write_sync(b); break;
  case 6: pgw_write_flush(b); break;
  case 7: pgw_write_close(b, rnd_below(2) ? 'S' : 'P', rnd_str(5)); break;
  case 8: pgw_write_password(b, rnd_str(10)); break;
  case 9: pgw_write_sasl_initial(b, "SCRAM-SHA-256", raw, (int32_t)rnd_below(64)); break;
  case 10: pgw_write_sasl_response(b, raw, rnd_below(64)); break;
  case 11: pgw_write_copy_data(b, raw, rnd_below(64)); break;
  case 12: pgw_write_copy_done(b); break;
  case 13: pgw_write_copy_fail(b, rnd_str(10)); break;
  default: pgw_write_query(b, ""); break;
  }
}

/* A valid stream: a startup packet, then 1..20 typed messages. Returns the
 * message count. */
static int gen_stream(pgw_buf_t *b)
{
  const char *names[4] = {"user", "database", "options", "application_name"};
  const char *values[4];
  int n = 1 + (int)rnd_below(4);
  values[0] = "u";
  for (int i = 1; i < 4; i++)
    values[i] = rnd_str(6);
  pgw_buf_reset(b);
  pgw_write_startup(b, PGW_PROTOCOL_3_0, names, values, n);
  int msgs = 1 + (int)rnd_below(20);
  for (int i = 0; i < msgs; i++)
    write_random_message(b);
  assert_int_equal(pgw_buf_status(b, NULL), CZ_OK);
  return msgs + 1;
}

static void mutate(pgw_buf_t *b)
{
  static const uint8_t specials[] = {0x00, 0xff, 0x7f, 0x80, 0x04, 0x05, 0x3f, 0xc3, 0xed};
  if (b->pb_len == 0)
    return;
  size_t at = rnd_below(b->pb_len);
  switch (rnd_below(6)) {
  case 0: b->pb_data[at] ^= (uint8_t)(1u << rnd_below(8)); break;
  case 1: b->pb_data[at] = specials[rnd_below(sizeof specials)]; break;
  case 2: b->pb_len = at; break; /* truncate */
  case 3: { /* delete a range */
    size_t n = 1 + rnd_below(8);
    n = CZ_MIN(n, b->pb_len - at);
    memmove(b->pb_data + at, b->pb_data + at + n, b->pb_len - at - n);
    b->pb_len -= n;
    break;
  }
  case 4: { /* insert random bytes */
    uint8_t ins[8];
    size_t n = 1 + rnd_below(8), tail = b->pb_len - at;
    for (size_t i = 0; i < n; i++)
      ins[i] = (uint8_t)rnd();
    pgw_buf_put_bytes(b, ins, n); /* grow, then shift the tail */
    memmove(b->pb_data + at + n, b->pb_data + at, tail);
    memcpy(b->pb_data + at, ins, n);
    break;
  }
  default: /* an extreme 32-bit value, often over a length word */
    if (b->pb_len - at >= 4) {
      static const uint32_t ext[] = {0, 3, 4, 5, 0x7fffffff, 0x80000000, 0xffffffff, 0x40000000,
                                     0x40000001, 10000, 10001, 65535};
      uint32_t v = ext[rnd_below(CZ_ARRAY_LEN(ext))];
      b->pb_data[at] = (uint8_t)(v >> 24);
      b->pb_data[at + 1] = (uint8_t)(v >> 16);
      b->pb_data[at + 2] = (uint8_t)(v >> 8);
      b->pb_data[at + 3] = (uint8_t)v;
    }
  }
}

static size_t chunk_random(void *ctx)
{
  (void)ctx;
  return rnd_below(4) == 0 ? 1 : 1 + rnd_below(300);
}

static bool inside(const void *p, size_t n, const pgw_fe_msg_t *m)
{
  const uint8_t *q = p;
  return q >= m->fm_body && n <= m->fm_len && q - m->fm_body <= (ptrdiff_t)(m->fm_len - n);
}

static bool str_ok(const char *s, const pgw_fe_msg_t *m)
{
  size_t n = strlen(s) + 1;
  return inside(s, n, m) && pgw_utf8_check((const uint8_t *)s, n - 1) == n - 1;
}

/* What the decoder promises about a message it returns. */
static void check_message(const pgw_fe_msg_t *m)
{
  const pgw_bind_t *bi = &m->fm_u.bind;
  switch (m->fm_kind) {
  case PGW_FE_QUERY: assert_true(str_ok(m->fm_u.query.sql, m)); break;
  case PGW_FE_PARSE:
    assert_true(str_ok(m->fm_u.parse.pa_stmt, m) && str_ok(m->fm_u.parse.pa_query, m));
    assert_true(m->fm_u.parse.pa_n_types >= 0 && (size_t)m->fm_u.parse.pa_n_types * 4 <= m->fm_len);
    break;
  case PGW_FE_BIND:
    assert_true(str_ok(bi->bi_portal, m) && str_ok(bi->bi_stmt, m));
    assert_true(bi->bi_n_formats == 0 || bi->bi_n_formats == 1 || bi->bi_n_formats == bi->bi_n_params);
    for (int i = 0; i < bi->bi_n_formats; i++)
      assert_true(bi->bi_formats[i] == 0 || bi->bi_formats[i] == 1);
    for (int i = 0; i < bi->bi_n_result_formats; i++)
      assert_true(bi->bi_result_formats[i] == 0 || bi->bi_result_formats[i] == 1);
    for (int i = 0; i < bi->bi_n_params; i++) {
      assert_true(bi->bi_lens[i] >= -1);
      if (bi->bi_lens[i] >= 0)
        assert_true(inside(bi->bi_values[i], (size_t)bi->bi_lens[i], m));
      else
        assert_null(bi->bi_values[i]);
    }
    break;
  case PGW_FE_DESCRIBE:
  case PGW_FE_CLOSE:
    assert_true(m->fm_u.target.what == 'S' || m->fm_u.target.what == 'P');
    assert_true(str_ok(m->fm_u.target.name, m));
    break;
  case PGW_FE_EXECUTE:
    assert_true(str_ok(m->fm_u.execute.portal, m) && m->fm_u.execute.max_rows >= 0);
    break;
  case PGW_FE_STARTUP:
    for (int i = 0; i < m->fm_u.startup.su_n_params; i++)
      assert_true(str_ok(m->fm_u.startup.su_names[i], m) && str_ok(m->fm_u.startup.su_values[i], m));
    break;
  case PGW_FE_SYNC: case PGW_FE_FLUSH: case PGW_FE_TERMINATE: case PGW_FE_COPY_DONE:
    assert_int_equal(m->fm_len, 0);
    break;
  default:
    break;
  }
}

static void check_error(const err_t *e)
{
  if (strcmp(e->er_sqlstate, SQLSTATE_PROTOCOL_VIOLATION) != 0 &&
      strcmp(e->er_sqlstate, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE) != 0 &&
      strcmp(e->er_sqlstate, SQLSTATE_FEATURE_NOT_SUPPORTED) != 0 &&
      strcmp(e->er_sqlstate, SQLSTATE_INVALID_AUTHORIZATION) != 0)
    fail_msg("unexpected error %s: %s", e->er_sqlstate, e->er_msg);
  assert_true(e->er_msg[0] != '\0');
}

/* Decodes in random chunks, checking each message; returns the count of
 * messages, or -1 after an error. */
static int decode_checked(const uint8_t *data, size_t len)
{
  pgw_decoder_t *d = pgw_dec_create();
  pgw_fe_msg_t m;
  err_t e;
  int count = 0, rc = PGW_NEED_MORE;
  for (size_t off = 0; off < len && rc != CZ_ERR;) {
    size_t n = chunk_random(NULL);
    n = CZ_MIN(n, len - off);
    assert_int_equal(pgw_dec_feed(d, data + off, n, &e), CZ_OK);
    off += n;
    while ((rc = pgw_dec_next(d, &m, &e)) == PGW_MSG) {
      check_message(&m);
      count++;
    }
  }
  if (rc == CZ_ERR) {
    check_error(&e);
    count = -1;
  }
  pgw_dec_destroy(d);
  return count;
}

static void test_fuzz_valid_streams(void **state)
{
  pgw_buf_t b;
  (void)state;
  rng_state = cz_test_seed();
  pgw_buf_init(&b);
  for (int iter = 0; iter < 1000; iter++) {
    int msgs = gen_stream(&b);
    assert_int_equal(decode_checked(b.pb_data, b.pb_len), msgs);
    char *whole = nt_decode_stream(b.pb_data, b.pb_len, NULL, NULL);
    char *split = nt_decode_stream(b.pb_data, b.pb_len, chunk_random, NULL);
    assert_string_equal(whole, split);
    assert_non_null(strstr(whole, "NEED_MORE 0\n"));
    free(whole);
    free(split);
  }
  pgw_buf_free(&b);
}

static void test_fuzz_mutated_streams(void **state)
{
  pgw_buf_t b;
  int errors = 0;
  (void)state;
  rng_state = cz_test_seed() ^ 1;
  pgw_buf_init(&b);
  for (int iter = 0; iter < 5000; iter++) {
    gen_stream(&b);
    for (size_t k = 1 + rnd_below(4); k > 0; k--)
      mutate(&b);
    errors += decode_checked(b.pb_data, b.pb_len) < 0;
    char *whole = nt_decode_stream(b.pb_data, b.pb_len, NULL, NULL);
    char *split = nt_decode_stream(b.pb_data, b.pb_len, chunk_random, NULL);
    /* Only an SSL or GSSENC request legitimately depends on the split (data
     * pipelined behind it is refused); otherwise the results must agree. */
    if (!strstr(whole, "kind=2 ") && !strstr(whole, "kind=3 ") && strcmp(whole, split) != 0)
      fail_msg("whole and split decodings differ:\n%s---\n%s", whole, split);
    free(whole);
    free(split);
  }
  assert_true(errors > 1000); /* the mutations do reach the checks */
  pgw_buf_free(&b);
}

static void test_fuzz_random_bytes(void **state)
{
  uint8_t data[512];
  pgw_buf_t b;
  const char *names[] = {"user"}, *values[] = {"u"};
  (void)state;
  rng_state = cz_test_seed() ^ 2;
  pgw_buf_init(&b);
  for (int iter = 0; iter < 3000; iter++) {
    size_t n = rnd_below(sizeof data);
    for (size_t i = 0; i < n; i++)
      data[i] = (uint8_t)rnd();
    if (iter % 3 == 0 && n > 0)
      data[0] = "QPBDESHCXpdcf"[rnd_below(13)]; /* a known type, a random body */
    /* In the startup phase, and after a good startup packet. */
    decode_checked(data, n);
    pgw_buf_reset(&b);
    pgw_write_startup(&b, PGW_PROTOCOL_3_0, names, values, 1);
    pgw_buf_put_bytes(&b, data, n);
    decode_checked(b.pb_data, b.pb_len);
  }
  pgw_buf_free(&b);
}

static void test_fuzz_scram_messages(void **state)
{
  static const uint8_t salt[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  char verifier[SCRAM_VERIFIER_MAX];
  arena_t *a = arena_create(NULL, "fuzz_scram");
  err_t e;
  pgw_buf_t b;
  (void)state;
  rng_state = cz_test_seed() ^ 3;
  pgw_buf_init(&b);
  assert_int_equal(scram_make_verifier_salt("pw", salt, sizeof salt, 16, verifier, &e), CZ_OK);
  for (int iter = 0; iter < 2000; iter++) {
    scram_server_t s;
    scram_client_t c;
    const char *sf = NULL, *cf = NULL, *out;
    assert_int_equal(scram_server_init(&s, a, verifier, &e), CZ_OK);
    assert_int_equal(scram_client_init(&c, a, "u", "pw", NULL, &e), CZ_OK);
    bool first_step = rnd_below(2);
    const char *first = scram_client_first(&c);
    pgw_buf_reset(&b);
    pgw_buf_put_bytes(&b, first, strlen(first));
    if (first_step)
      mutate(&b);
    int rc = scram_server_first(&s, b.pb_data, b.pb_len, &sf, &e);
    if (rc == CZ_OK && scram_client_final(&c, sf, &cf, &e) == CZ_OK) {
      pgw_buf_reset(&b);
      pgw_buf_put_bytes(&b, cf, strlen(cf));
      if (!first_step)
        mutate(&b);
      bool same = b.pb_len == strlen(cf) && memcmp(b.pb_data, cf, b.pb_len) == 0;
      rc = scram_server_final(&s, b.pb_data, b.pb_len, &out, &e);
      /* A changed client-final never authenticates. */
      if (!same)
        assert_int_equal(rc, CZ_ERR);
    }
    if (rc == CZ_ERR) {
      assert_int_equal(s.ss_state, SCRAM_FAILED);
      assert_true(err_is(&e, SQLSTATE_PROTOCOL_VIOLATION) || err_is(&e, SQLSTATE_INVALID_PASSWORD) ||
                  err_is(&e, SQLSTATE_FEATURE_NOT_SUPPORTED));
    }
    arena_reset(a);
  }
  pgw_buf_free(&b);
  arena_destroy(a);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_fuzz_valid_streams),
      cmocka_unit_test(test_fuzz_mutated_streams),
      cmocka_unit_test(test_fuzz_random_bytes),
      cmocka_unit_test(test_fuzz_scram_messages),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

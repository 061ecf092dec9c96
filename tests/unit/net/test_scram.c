/* test_scram — SCRAM-SHA-256: the RFC 7677 vector, verifiers in PostgreSQL's
 * form, full exchanges, wrong passwords, unknown users and malformed
 * messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "net/net.h"

/* RFC 7677 §3. */
#define RFC_CLIENT_FIRST "n,,n=user,r=rOprNGfwEbeRWgbNEkqO"
#define RFC_SERVER_NONCE "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define RFC_SERVER_FIRST \
  "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
#define RFC_CLIENT_FINAL \
  "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0," \
  "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
#define RFC_SERVER_FINAL "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
/* base64 "W22ZaJ0SNY7soEsUEjb6gQ==" */
static const uint8_t rfc_salt[16] = {0x5b, 0x6d, 0x99, 0x68, 0x9d, 0x12, 0x35, 0x8e,
                                     0xec, 0xa0, 0x4b, 0x14, 0x12, 0x36, 0xfa, 0x81};

static arena_t *arena;

static int setup(void **state)
{
  (void)state;
  arena = arena_create(NULL, "test_scram");
  return 0;
}

static int teardown(void **state)
{
  (void)state;
  arena_destroy(arena);
  return 0;
}

static const char *rfc_verifier(void)
{
  static char v[SCRAM_VERIFIER_MAX];
  err_t e;
  assert_int_equal(scram_make_verifier_salt("pencil", rfc_salt, sizeof rfc_salt, 4096, v, &e), CZ_OK);
  return v;
}

static int feed(scram_server_t *s, int step, const char *msg, const char **out, err_t *e)
{
  return (step == 1 ? scram_server_first : scram_server_final)(s, (const uint8_t *)msg,
                                                                strlen(msg), out, e);
}

static void test_scram_rfc7677_vector_server(void **state)
{
  scram_server_t s;
  const char *out;
  err_t e;
  (void)state;
  const char *v = rfc_verifier();
  assert_int_equal(strncmp(v, "SCRAM-SHA-256$4096:W22ZaJ0SNY7soEsUEjb6gQ==$", 44), 0);
  assert_int_equal(scram_server_init(&s, arena, v, &e), CZ_OK);
  assert_int_equal(scram_server_set_nonce(&s, RFC_SERVER_NONCE, &e), CZ_OK);
  assert_int_equal(feed(&s, 1, RFC_CLIENT_FIRST, &out, &e), CZ_OK);
  assert_string_equal(out, RFC_SERVER_FIRST);
  assert_int_equal(s.ss_state, SCRAM_WAIT_CLIENT_FINAL);
  assert_int_equal(feed(&s, 2, RFC_CLIENT_FINAL, &out, &e), CZ_OK);
  assert_string_equal(out, RFC_SERVER_FINAL);
  assert_int_equal(s.ss_state, SCRAM_DONE);
}

static void test_scram_rfc7677_vector_client(void **state)
{
  scram_client_t c;
  const char *out;
  err_t e;
  (void)state;
  assert_int_equal(scram_client_init(&c, arena, "user", "pencil", "rOprNGfwEbeRWgbNEkqO", &e), CZ_OK);
  assert_string_equal(scram_client_first(&c), RFC_CLIENT_FIRST);
  assert_int_equal(scram_client_final(&c, RFC_SERVER_FIRST, &out, &e), CZ_OK);
  assert_string_equal(out, RFC_CLIENT_FINAL);
  assert_int_equal(scram_client_check_server_final(&c, RFC_SERVER_FINAL, &e), CZ_OK);
  assert_int_equal(scram_client_check_server_final(&c, "v=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_INVALID_PASSWORD);
}

static void test_scram_verifier_round_trip(void **state)
{
  char v[SCRAM_VERIFIER_MAX], v2[SCRAM_VERIFIER_MAX];
  scram_verifier_t sv;
  err_t e;
  (void)state;
  assert_int_equal(scram_make_verifier("secret", 4096, v, &e), CZ_OK);
  assert_int_equal(scram_parse_verifier(v, &sv, &e), CZ_OK);
  assert_int_equal(sv.sv_iterations, 4096);
  assert_int_equal(sv.sv_salt_len, SCRAM_SALT_LEN);
  /* Same salt, same password: the same verifier. */
  assert_int_equal(scram_make_verifier_salt("secret", sv.sv_salt, sv.sv_salt_len, 4096, v2, &e), CZ_OK);
  assert_string_equal(v, v2);
  /* Random salts differ. */
  assert_int_equal(scram_make_verifier("secret", 4096, v2, &e), CZ_OK);
  assert_string_not_equal(v, v2);
}

static void test_scram_verifier_malformed(void **state)
{
  static const char *bad[] = {
      "",
      "md5abcdef",
      "SCRAM-SHA-256$",
      "SCRAM-SHA-256$4096:c2FsdA==$",
      "SCRAM-SHA-256$x:c2FsdA==$AAAA:AAAA",
      "SCRAM-SHA-256$0:c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      "SCRAM-SHA-256$4096:c2Fsd$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      "SCRAM-SHA-256$4096:c2FsdA==$AAAA:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      "SCRAM-SHA-256$4096:c2FsdA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=x",
  };
  scram_verifier_t sv;
  err_t e;
  (void)state;
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err_clear(&e);
    assert_int_equal(scram_parse_verifier(bad[i], &sv, &e), CZ_ERR);
    assert_string_equal(e.er_sqlstate, SQLSTATE_INVALID_PARAMETER);
  }
  assert_int_equal(scram_parse_verifier(rfc_verifier(), &sv, &e), CZ_OK);
}

/* Runs a whole exchange between our client and server. */
static int exchange(const char *verifier, const char *password, err_t *e)
{
  scram_server_t s;
  scram_client_t c;
  const char *sf, *cf, *fin;
  if (scram_server_init(&s, arena, verifier, e) != CZ_OK ||
      scram_client_init(&c, arena, "alice", password, NULL, e) != CZ_OK)
    return CZ_ERR;
  if (feed(&s, 1, scram_client_first(&c), &sf, e) != CZ_OK ||
      scram_client_final(&c, sf, &cf, e) != CZ_OK || feed(&s, 2, cf, &fin, e) != CZ_OK)
    return CZ_ERR;
  return scram_client_check_server_final(&c, fin, e);
}

static void test_scram_full_exchange(void **state)
{
  char v[SCRAM_VERIFIER_MAX];
  err_t e;
  (void)state;
  assert_int_equal(scram_make_verifier("correct horse", 1000, v, &e), CZ_OK);
  assert_int_equal(exchange(v, "correct horse", &e), CZ_OK);
}

static void test_scram_wrong_password_is_28P01(void **state)
{
  char v[SCRAM_VERIFIER_MAX];
  err_t e;
  (void)state;
  assert_int_equal(scram_make_verifier("correct horse", 1000, v, &e), CZ_OK);
  assert_int_equal(exchange(v, "correct hors", &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_INVALID_PASSWORD);
}

static void test_scram_unknown_user_fails_like_wrong_password(void **state)
{
  err_t e;
  (void)state;
  assert_int_equal(exchange(NULL, "anything", &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_INVALID_PASSWORD);
}

static void test_scram_tampered_proof_is_28P01(void **state)
{
  scram_server_t s;
  const char *out;
  err_t e;
  char final[] = RFC_CLIENT_FINAL;
  (void)state;
  final[strlen(final) - 3] ^= 1; /* flip a bit inside the proof */
  assert_int_equal(scram_server_init(&s, arena, rfc_verifier(), &e), CZ_OK);
  assert_int_equal(scram_server_set_nonce(&s, RFC_SERVER_NONCE, &e), CZ_OK);
  assert_int_equal(feed(&s, 1, RFC_CLIENT_FIRST, &out, &e), CZ_OK);
  assert_int_equal(feed(&s, 2, final, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_INVALID_PASSWORD);
  assert_int_equal(s.ss_state, SCRAM_FAILED);
  /* FAILED is final: a second try on the same exchange is refused. */
  assert_int_equal(feed(&s, 2, RFC_CLIENT_FINAL, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_PROTOCOL_VIOLATION);
}

static void test_scram_y_flag_accepted(void **state)
{
  scram_server_t s;
  const char *out;
  err_t e;
  (void)state;
  assert_int_equal(scram_server_init(&s, arena, rfc_verifier(), &e), CZ_OK);
  assert_int_equal(feed(&s, 1, "y,,n=,r=abc", &out, &e), CZ_OK);
  assert_int_equal(strncmp(out, "r=abc", 5), 0);
  /* With "y" the echoed channel binding is base64("y,,") = "eSws", not "biws". */
  char *final = arena_sprintf(arena, "c=biws,%.*s,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
                              (int)strcspn(out, ","), out);
  assert_int_equal(feed(&s, 2, final, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_PROTOCOL_VIOLATION);
}

static void check_first_rejected(const char *msg, size_t len, const char *sqlstate)
{
  scram_server_t s;
  const char *out = NULL;
  err_t e;
  assert_int_equal(scram_server_init(&s, arena, rfc_verifier(), &e), CZ_OK);
  err_clear(&e);
  if (scram_server_first(&s, (const uint8_t *)msg, len, &out, &e) != CZ_ERR)
    fail_msg("client-first accepted: %.*s", (int)len, msg);
  assert_string_equal(e.er_sqlstate, sqlstate);
  assert_int_equal(s.ss_state, SCRAM_FAILED);
}

static void test_scram_malformed_client_first(void **state)
{
  static const char *proto[] = {
      "", "n", "n,", "x,,n=user,r=abc", "n,,", "n,,r=abc", "n,,n=user", "n,,n=user,",
      "n,,n=user,r=", "n,,n=us=er,r=abc", "n,,n=user,r=a b", "n,,n=user,r=abc,,",
      "n,,n=user,r=abc,X", "nn,n=user,r=abc", "n,x,n=user,r=abc",
  };
  (void)state;
  for (size_t i = 0; i < sizeof proto / sizeof proto[0]; i++)
    check_first_rejected(proto[i], strlen(proto[i]), SQLSTATE_PROTOCOL_VIOLATION);
  check_first_rejected("n,,n=user\0,r=abc", 16, SQLSTATE_PROTOCOL_VIOLATION);
  check_first_rejected("n,,n=\xc3\x28,r=abc", 13, SQLSTATE_PROTOCOL_VIOLATION);
  check_first_rejected("p=tls-unique,,n=user,r=abc", 26, SQLSTATE_FEATURE_NOT_SUPPORTED);
  check_first_rejected("n,a=admin,n=user,r=abc", 22, SQLSTATE_FEATURE_NOT_SUPPORTED);
  check_first_rejected("n,,m=ext,n=user,r=abc", 21, SQLSTATE_FEATURE_NOT_SUPPORTED);
}

static void check_final_rejected(const char *final, const char *sqlstate)
{
  scram_server_t s;
  const char *out;
  err_t e;
  assert_int_equal(scram_server_init(&s, arena, rfc_verifier(), &e), CZ_OK);
  assert_int_equal(scram_server_set_nonce(&s, RFC_SERVER_NONCE, &e), CZ_OK);
  assert_int_equal(feed(&s, 1, RFC_CLIENT_FIRST, &out, &e), CZ_OK);
  err_clear(&e);
  if (feed(&s, 2, final, &out, &e) != CZ_ERR)
    fail_msg("client-final accepted: %s", final);
  assert_string_equal(e.er_sqlstate, sqlstate);
}

static void test_scram_malformed_client_final(void **state)
{
#define N "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0"
#define P "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="
  static const char *proto[] = {
      "", "c=biws", "c=biws," N, "c=biws," N ",", "c=eSws," N "," P,
      "c=biws,r=rOprNGfwEbeRWgbNEkqO," P,              /* server half of nonce missing */
      "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k1," P,
      "c=biws," N ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ",  /* bad padding */
      "c=biws," N ",p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=,x=1", /* proof not last */
      "c=biws," N ",p=AAAA",                            /* proof too short */
      "r=" N ",c=biws," P, "c=biws," N ",1=x," P,
  };
  (void)state;
  for (size_t i = 0; i < sizeof proto / sizeof proto[0]; i++)
    check_final_rejected(proto[i], SQLSTATE_PROTOCOL_VIOLATION);
  /* An extension before the proof is allowed by RFC 5802 but changes the
   * AuthMessage, so the RFC proof no longer matches. */
  check_final_rejected("c=biws," N ",x=1," P, SQLSTATE_INVALID_PASSWORD);
#undef N
#undef P
}

static void test_scram_out_of_order(void **state)
{
  scram_server_t s;
  const char *out;
  err_t e;
  (void)state;
  assert_int_equal(scram_server_init(&s, arena, rfc_verifier(), &e), CZ_OK);
  assert_int_equal(feed(&s, 2, RFC_CLIENT_FINAL, &out, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_PROTOCOL_VIOLATION);
  assert_int_equal(feed(&s, 1, RFC_CLIENT_FIRST, &out, &e), CZ_ERR);
}

static void test_scram_client_rejects_foreign_nonce(void **state)
{
  scram_client_t c;
  const char *out;
  err_t e;
  (void)state;
  assert_int_equal(scram_client_init(&c, arena, "u,=", "pw", "abc", &e), CZ_OK);
  assert_string_equal(scram_client_first(&c), "n,,n=u=2C=3D,r=abc");
  assert_int_equal(scram_client_final(&c, "r=xyz123,s=c2FsdA==,i=10", &out, &e), CZ_ERR);
  assert_int_equal(scram_client_final(&c, "r=abc,s=c2FsdA==,i=10", &out, &e), CZ_ERR);
  assert_int_equal(scram_client_final(&c, "r=abcd,s=c2FsdA==,i=0", &out, &e), CZ_ERR);
  assert_int_equal(scram_client_final(&c, "r=abcd,s=c2FsdA==,i=10", &out, &e), CZ_OK);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_scram_rfc7677_vector_server),
      cmocka_unit_test(test_scram_rfc7677_vector_client),
      cmocka_unit_test(test_scram_verifier_round_trip),
      cmocka_unit_test(test_scram_verifier_malformed),
      cmocka_unit_test(test_scram_full_exchange),
      cmocka_unit_test(test_scram_wrong_password_is_28P01),
      cmocka_unit_test(test_scram_unknown_user_fails_like_wrong_password),
      cmocka_unit_test(test_scram_tampered_proof_is_28P01),
      cmocka_unit_test(test_scram_y_flag_accepted),
      cmocka_unit_test(test_scram_malformed_client_first),
      cmocka_unit_test(test_scram_malformed_client_final),
      cmocka_unit_test(test_scram_out_of_order),
      cmocka_unit_test(test_scram_client_rejects_foreign_nonce),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}

/* test_pgw_codec — the wire codec: backend messages byte for byte, frontend
 * messages through encoder and decoder, split reads, and every kind of
 * malformed input the decoder must refuse with a clear error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "net_test.h"

/* ---- a reader of backend messages, the client's view ------------------- */

typedef struct bm_s {
  const uint8_t *p, *end;
} bm_t;

static uint32_t be32(const uint8_t *p)
{
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Takes the next whole message off b: its type, body and body length. */
static char bm_next(bm_t *b, bm_t *body)
{
  assert_true(b->end - b->p >= 5);
  char type = (char)b->p[0];
  uint32_t len = be32(b->p + 1);
  assert_true(len >= 4 && len - 4 <= (size_t)(b->end - b->p - 5));
  body->p = b->p + 5;
  body->end = body->p + len - 4;
  b->p = body->end;
  return type;
}

static int32_t bm_int32(bm_t *b)
{
  assert_true(b->end - b->p >= 4);
  int32_t v = (int32_t)be32(b->p);
  b->p += 4;
  return v;
}

static int16_t bm_int16(bm_t *b)
{
  assert_true(b->end - b->p >= 2);
  int16_t v = (int16_t)(b->p[0] << 8 | b->p[1]);
  b->p += 2;
  return v;
}

static const char *bm_str(bm_t *b)
{
  const uint8_t *nul = memchr(b->p, 0, (size_t)(b->end - b->p));
  assert_non_null(nul);
  const char *s = (const char *)b->p;
  b->p = nul + 1;
  return s;
}

static void bm_done(const bm_t *b) { assert_true(b->p == b->end); }

static bm_t bm_of(const pgw_buf_t *pb)
{
  bm_t b = {pb->pb_data, pb->pb_data + pb->pb_len};
  return b;
}

/* ---- backend messages -------------------------------------------------- */

static void test_auth_ok_exact_bytes(void **state)
{
  pgw_buf_t b;
  static const uint8_t want[] = {'R', 0, 0, 0, 8, 0, 0, 0, 0};
  (void)state;
  pgw_buf_init(&b);
  assert_int_equal(pgw_write_auth_ok(&b), CZ_OK);
  assert_int_equal(b.pb_len, sizeof want);
  assert_memory_equal(b.pb_data, want, sizeof want);
  pgw_buf_free(&b);
}

static void test_auth_sasl_messages(void **state)
{
  pgw_buf_t b;
  bm_t r, m;
  const char *mechs[] = {"SCRAM-SHA-256", NULL};
  (void)state;
  pgw_buf_init(&b);
  pgw_write_auth_sasl(&b, mechs);
  pgw_write_auth_sasl_continue(&b, "r=abc", 5);
  assert_int_equal(pgw_write_auth_sasl_final(&b, "v=xyz", 5), CZ_OK);
  r = bm_of(&b);
  assert_int_equal(bm_next(&r, &m), 'R');
  assert_int_equal(bm_int32(&m), 10);
  assert_string_equal(bm_str(&m), "SCRAM-SHA-256");
  assert_string_equal(bm_str(&m), "");
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'R');
  assert_int_equal(bm_int32(&m), 11);
  assert_memory_equal(m.p, "r=abc", 5);
  assert_int_equal(m.end - m.p, 5);
  assert_int_equal(bm_next(&r, &m), 'R');
  assert_int_equal(bm_int32(&m), 12);
  assert_memory_equal(m.p, "v=xyz", 5);
  assert_true(r.p == r.end);
  pgw_buf_free(&b);
}

static void test_session_start_messages(void **state)
{
  pgw_buf_t b;
  bm_t r, m;
  (void)state;
  pgw_buf_init(&b);
  pgw_write_ssl_answer(&b, 'N');
  pgw_write_parameter_status(&b, "server_encoding", "UTF8");
  pgw_write_backend_key(&b, 4242, -7);
  pgw_write_ready(&b, PGW_TX_IDLE);
  pgw_write_ready(&b, PGW_TX_IN_BLOCK);
  assert_int_equal(pgw_write_ready(&b, PGW_TX_FAILED), CZ_OK);
  assert_int_equal(b.pb_data[0], 'N');
  r = (bm_t){b.pb_data + 1, b.pb_data + b.pb_len};
  assert_int_equal(bm_next(&r, &m), 'S');
  assert_string_equal(bm_str(&m), "server_encoding");
  assert_string_equal(bm_str(&m), "UTF8");
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'K');
  assert_int_equal(bm_int32(&m), 4242);
  assert_int_equal(bm_int32(&m), -7);
  bm_done(&m);
  for (const char *st = "ITE"; *st; st++) {
    assert_int_equal(bm_next(&r, &m), 'Z');
    assert_int_equal(m.end - m.p, 1);
    assert_int_equal(m.p[0], *st);
  }
  pgw_buf_free(&b);
}

static void test_row_description_and_data_row(void **state)
{
  pgw_buf_t b;
  bm_t r, m;
  pgw_field_t f[2] = {{"id", 16384, 1, 23, 4, -1, 0}, {"name", 0, 0, 25, -1, -1, 1}};
  const uint8_t *vals[3] = {(const uint8_t *)"42", NULL, (const uint8_t *)""};
  int32_t lens[3] = {2, -1, 0};
  (void)state;
  pgw_buf_init(&b);
  pgw_write_row_description(&b, f, 2);
  assert_int_equal(pgw_write_data_row(&b, 3, vals, lens), CZ_OK);
  r = bm_of(&b);
  assert_int_equal(bm_next(&r, &m), 'T');
  assert_int_equal(bm_int16(&m), 2);
  for (int i = 0; i < 2; i++) {
    assert_string_equal(bm_str(&m), f[i].fd_name);
    assert_int_equal(bm_int32(&m), f[i].fd_table_oid);
    assert_int_equal(bm_int16(&m), f[i].fd_attnum);
    assert_int_equal(bm_int32(&m), f[i].fd_type_oid);
    assert_int_equal(bm_int16(&m), f[i].fd_typlen);
    assert_int_equal(bm_int32(&m), f[i].fd_typmod);
    assert_int_equal(bm_int16(&m), f[i].fd_format);
  }
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'D');
  assert_int_equal(bm_int16(&m), 3);
  assert_int_equal(bm_int32(&m), 2);
  assert_memory_equal(m.p, "42", 2);
  m.p += 2;
  assert_int_equal(bm_int32(&m), -1); /* NULL: a length and no bytes */
  assert_int_equal(bm_int32(&m), 0);  /* empty string: not NULL */
  bm_done(&m);
  pgw_buf_free(&b);
}

static void test_error_and_notice_fields(void **state)
{
  pgw_buf_t b;
  bm_t r, m;
  err_t e;
  (void)state;
  pgw_buf_init(&b);
  err_set(&e, "42601", "syntax error at or near \"FORM\"");
  e.er_pos = 10;
  pgw_write_error(&b, "ERROR", &e);
  err_set(&e, "01000", "just so you know");
  assert_int_equal(pgw_write_notice(&b, "WARNING", &e), CZ_OK);
  r = bm_of(&b);
  assert_int_equal(bm_next(&r, &m), 'E');
  const char *want[] = {"SERROR", "VERROR", "C42601", "Msyntax error at or near \"FORM\"", "P10", ""};
  for (size_t i = 0; i < 6; i++)
    assert_string_equal(bm_str(&m), want[i]);
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'N');
  const char *want2[] = {"SWARNING", "VWARNING", "C01000", "Mjust so you know", ""};
  for (size_t i = 0; i < 5; i++)
    assert_string_equal(bm_str(&m), want2[i]);
  bm_done(&m);
  pgw_buf_free(&b);
}

static void test_extended_and_copy_messages(void **state)
{
  pgw_buf_t b;
  bm_t r, m;
  uint32_t oids[2] = {23, 25};
  int16_t fmts[3] = {0, 1, 0};
  (void)state;
  pgw_buf_init(&b);
  pgw_write_parse_complete(&b);
  pgw_write_bind_complete(&b);
  pgw_write_close_complete(&b);
  pgw_write_no_data(&b);
  pgw_write_portal_suspended(&b);
  pgw_write_empty_query(&b);
  pgw_write_command_complete(&b, "SELECT 3");
  pgw_write_parameter_description(&b, oids, 2);
  pgw_write_copy_in_response(&b, 0, fmts, 3);
  pgw_write_copy_out_response(&b, 1, fmts, 2);
  pgw_write_copy_data(&b, "a\tb\n", 4);
  assert_int_equal(pgw_write_copy_done(&b), CZ_OK);
  r = bm_of(&b);
  for (const char *t = "123nsI"; *t; t++) {
    assert_int_equal(bm_next(&r, &m), *t);
    bm_done(&m);
  }
  assert_int_equal(bm_next(&r, &m), 'C');
  assert_string_equal(bm_str(&m), "SELECT 3");
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 't');
  assert_int_equal(bm_int16(&m), 2);
  assert_int_equal(bm_int32(&m), 23);
  assert_int_equal(bm_int32(&m), 25);
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'G');
  assert_int_equal(*m.p++, 0);
  assert_int_equal(bm_int16(&m), 3);
  for (int i = 0; i < 3; i++)
    assert_int_equal(bm_int16(&m), fmts[i]);
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'H');
  assert_int_equal(*m.p++, 1);
  assert_int_equal(bm_int16(&m), 2);
  m.p += 4;
  bm_done(&m);
  assert_int_equal(bm_next(&r, &m), 'd');
  assert_memory_equal(m.p, "a\tb\n", 4);
  assert_int_equal(bm_next(&r, &m), 'c');
  bm_done(&m);
  assert_true(r.p == r.end);
  pgw_buf_free(&b);
}

/* In-place writing, truncation back to a mark (a reply that fails half way
 * keeps the complete messages before it), NegotiateProtocolVersion. */
static void test_buffer_room_truncate_and_negotiate(void **state)
{
  (void)state;
  pgw_buf_t b;
  pgw_buf_init(&b);
  pgw_write_command_complete(&b, "SELECT 1");
  size_t mark = b.pb_len;
  uint8_t *p = pgw_buf_room(&b, 3);
  assert_non_null(p);
  memcpy(p, "abc", 3);
  pgw_buf_advance(&b, 2); /* only "ab" kept */
  assert_int_equal(b.pb_len, mark + 2);
  assert_memory_equal(b.pb_data + mark, "ab", 2);
  pgw_buf_truncate(&b, mark);
  pgw_buf_begin(&b, 'D');
  static const uint32_t oid = 23;
  pgw_write_parameter_description(&b, &oid, 40000); /* fails the buffer mid-message */
  assert_int_equal(pgw_buf_status(&b, NULL), CZ_ERR);
  assert_null(pgw_buf_room(&b, 1));
  pgw_buf_truncate(&b, mark);
  assert_int_equal(pgw_buf_status(&b, NULL), CZ_OK);
  assert_int_equal(b.pb_len, mark);
  assert_false(b.pb_in_msg);
  assert_int_equal(pgw_write_ready(&b, PGW_TX_IDLE), CZ_OK);
  static const uint8_t cc_z[] = {'C', 0, 0, 0, 13, 'S', 'E', 'L', 'E', 'C', 'T', ' ', '1', 0,
                                 'Z', 0, 0, 0, 5, 'I'};
  assert_int_equal(b.pb_len, sizeof cc_z);
  assert_memory_equal(b.pb_data, cc_z, sizeof cc_z);
  pgw_buf_reset(&b);
  const char *unknown[] = {"_pq_.x"};
  assert_int_equal(pgw_write_negotiate_version(&b, 0, unknown, 1), CZ_OK);
  static const uint8_t v[] = {'v', 0,   0,   0,   19,  0,   0, 0, 0, 0,
                              0,   0,   1,   '_', 'p', 'q', '_', '.', 'x', 0};
  assert_int_equal(b.pb_len, sizeof v);
  assert_memory_equal(b.pb_data, v, sizeof v);
  pgw_buf_free(&b);
}

/* After a big message the receive buffer can be given back; decoding goes
 * on normally, and nothing undecoded is ever dropped. */
static void test_decoder_trim(void **state)
{
  (void)state;
  err_t e;
  pgw_decoder_t *d = pgw_dec_create();
  static const char *const names[] = {"user"};
  static const char *const values[] = {"u"};
  pgw_buf_t b;
  pgw_buf_init(&b);
  pgw_write_startup(&b, PGW_PROTOCOL_3_0, names, values, 1);
  char *big = malloc(100000);
  memset(big, 'x', 99999);
  big[99999] = 0;
  pgw_write_query(&b, big);
  pgw_write_sync(&b); /* stays undecoded while we try to trim */
  assert_int_equal(pgw_dec_feed(d, b.pb_data, b.pb_len, &e), CZ_OK);
  pgw_fe_msg_t m;
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_QUERY);
  pgw_dec_trim(d, 1024); /* the Sync is still waiting: no effect */
  assert_int_equal(pgw_dec_pending(d), 5);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_SYNC);
  pgw_dec_trim(d, 1024);
  pgw_buf_reset(&b);
  pgw_write_query(&b, "SELECT 1");
  assert_int_equal(pgw_dec_feed(d, b.pb_data, b.pb_len, &e), CZ_OK);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_string_equal(m.fm_u.query.sql, "SELECT 1");
  free(big);
  pgw_buf_free(&b);
  pgw_dec_destroy(d);
}

static void test_buffer_errors_are_sticky(void **state)
{
  pgw_buf_t b;
  err_t e;
  (void)state;
  pgw_buf_init(&b);
  assert_int_equal(pgw_write_sync(&b), CZ_OK);
  size_t before = b.pb_len;
  assert_int_equal(pgw_write_row_description(&b, NULL, 40000), CZ_ERR);
  assert_int_equal(b.pb_len, before); /* nothing half-written */
  assert_int_equal(pgw_write_sync(&b), CZ_ERR);
  assert_int_equal(pgw_buf_status(&b, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_PROGRAM_LIMIT);
  pgw_buf_reset(&b);
  assert_int_equal(pgw_buf_status(&b, &e), CZ_OK);
  assert_int_equal(pgw_write_sync(&b), CZ_OK);
  pgw_write_flush(&b);
  pgw_buf_consume(&b, 5);
  assert_int_equal(b.pb_len, 5);
  assert_int_equal(b.pb_data[0], 'H');
  pgw_buf_free(&b);
}

/* ---- frontend messages: encoder and decoder ---------------------------- */

/* Every typed frontend message, in one stream, after a startup packet. */
static void write_all_frontend(pgw_buf_t *b)
{
  const char *names[] = {"user", "database", "options", "application_name"};
  const char *values[] = {"alice", "db1", "-c search_path=x", "caf\xc3\xa9"};
  uint32_t types[3] = {23, 0, 25};
  int16_t fmts[1] = {1}, rfmts[1] = {1};
  const uint8_t *vals[3] = {(const uint8_t *)"17", NULL, (const uint8_t *)"\x00\x01\xff"};
  int32_t lens[3] = {2, -1, 3};
  pgw_bind_t bi = {"p1", "s1", 1, fmts, 3, vals, lens, 1, rfmts}; /* one format for all */
  pgw_write_startup(b, PGW_PROTOCOL_3_0, names, values, 4);
  pgw_write_query(b, "SELECT 1; SELECT 'é'");
  pgw_write_query(b, "");
  pgw_write_parse(b, "s1", "SELECT $1, $2, $3", types, 3);
  pgw_write_parse(b, "", "SELECT 1", NULL, 0);
  pgw_write_bind(b, &bi);
  pgw_write_describe(b, 'S', "s1");
  pgw_write_describe(b, 'P', "");
  pgw_write_execute(b, "p1", 100);
  pgw_write_execute(b, "", 0);
  pgw_write_flush(b);
  pgw_write_close(b, 'P', "p1");
  pgw_write_close(b, 'S', "s1");
  pgw_write_sync(b);
  pgw_write_password(b, "secret");
  pgw_write_sasl_initial(b, "SCRAM-SHA-256", "n,,n=,r=abc", 11);
  pgw_write_sasl_response(b, "c=biws,r=abc,p=xyz", 18);
  pgw_write_copy_data(b, "1\t2\n", 4);
  pgw_write_copy_done(b);
  pgw_write_copy_fail(b, "aborted by user");
  pgw_write_terminate(b);
}

static size_t chunk_one(void *ctx) { (void)ctx; return 1; }
static size_t chunk_random(void *ctx)
{
  uint64_t *s = ctx;
  *s = *s * 6364136223846793005u + 1442695040888963407u;
  return 1 + (size_t)(*s >> 33) % 37;
}

static void test_frontend_round_trip_whole_and_split(void **state)
{
  pgw_buf_t b;
  uint64_t seed = cz_test_seed();
  (void)state;
  pgw_buf_init(&b);
  write_all_frontend(&b);
  assert_int_equal(pgw_buf_status(&b, NULL), CZ_OK);
  char *whole = nt_decode_stream(b.pb_data, b.pb_len, NULL, NULL);
  char *bytes = nt_decode_stream(b.pb_data, b.pb_len, chunk_one, NULL);
  char *pieces = nt_decode_stream(b.pb_data, b.pb_len, chunk_random, &seed);
  assert_string_equal(whole, bytes);
  assert_string_equal(whole, pieces);
  /* 21 messages, then nothing pending. */
  size_t lines = 0;
  for (const char *p = whole; *p; p++)
    lines += *p == '\n';
  assert_int_equal(lines, 22);
  assert_non_null(strstr(whole, "'user'='alice' 'database'='db1' 'options'='-c search_path=x'"));
  assert_non_null(strstr(whole, "'p1' 's1' 1:1, 3:[3137]NULL[0001ff] 1:1,"));
  assert_non_null(strstr(whole, "'SELECT $1, $2, $3' 3:23,0,25,"));
  assert_non_null(strstr(whole, "NEED_MORE 0\n"));
  free(whole);
  free(bytes);
  free(pieces);
  pgw_buf_free(&b);
}

static void test_decoded_fields(void **state)
{
  pgw_buf_t b;
  pgw_fe_msg_t m;
  err_t e;
  const char *names[] = {"user"}, *values[] = {"bob"};
  pgw_decoder_t *d = pgw_dec_create();
  (void)state;
  pgw_buf_init(&b);
  pgw_write_startup(&b, PGW_PROTOCOL_3_0, names, values, 1);
  pgw_write_sasl_initial(&b, "SCRAM-SHA-256", "n,,n=,r=x", 9);
  pgw_write_password(&b, "pw");
  pgw_write_execute(&b, "", -5);
  assert_true(pgw_dec_in_startup(d));
  assert_int_equal(pgw_dec_feed(d, b.pb_data, b.pb_len, &e), CZ_OK);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_STARTUP);
  assert_false(pgw_dec_in_startup(d));
  assert_int_equal(m.fm_u.startup.su_version, PGW_PROTOCOL_3_0);
  assert_string_equal(m.fm_u.startup.su_values[0], "bob");
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  const char *mech, *pw;
  const uint8_t *data;
  int32_t len;
  assert_int_equal(pgw_parse_sasl_initial(&m, &mech, &data, &len, &e), CZ_OK);
  assert_string_equal(mech, "SCRAM-SHA-256");
  assert_int_equal(len, 9);
  assert_memory_equal(data, "n,,n=,r=x", 9);
  assert_int_equal(pgw_parse_password(&m, &pw, &e), CZ_ERR); /* not a password body */
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(pgw_parse_password(&m, &pw, &e), CZ_OK);
  assert_string_equal(pw, "pw");
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_EXECUTE);
  assert_int_equal(m.fm_u.execute.max_rows, 0); /* negative means all, as 0 */
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_NEED_MORE);
  pgw_dec_destroy(d);
  pgw_buf_free(&b);
}

static void test_zero_copy_receive(void **state)
{
  pgw_decoder_t *d = pgw_dec_create();
  pgw_buf_t b;
  pgw_fe_msg_t m;
  err_t e;
  uint8_t *p;
  size_t avail;
  const char *names[] = {"user"}, *values[] = {"bob"};
  (void)state;
  pgw_buf_init(&b);
  pgw_write_startup(&b, PGW_PROTOCOL_3_0, names, values, 1);
  pgw_write_query(&b, "SELECT 42");
  assert_int_equal(pgw_dec_reserve(d, b.pb_len, &p, &avail, &e), CZ_OK);
  assert_true(avail >= b.pb_len);
  memcpy(p, b.pb_data, b.pb_len);
  pgw_dec_commit(d, b.pb_len);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_string_equal(m.fm_u.query.sql, "SELECT 42");
  pgw_dec_destroy(d);
  pgw_buf_free(&b);
}

static void test_special_requests(void **state)
{
  pgw_buf_t b;
  pgw_fe_msg_t m;
  err_t e;
  const char *names[] = {"user"}, *values[] = {"bob"};
  pgw_decoder_t *d = pgw_dec_create();
  (void)state;
  pgw_buf_init(&b);
  /* SSLRequest, answered, then GSSENCRequest, then the startup packet. */
  pgw_write_request_code(&b, PGW_SSL_REQUEST_CODE);
  pgw_dec_feed(d, b.pb_data, b.pb_len, &e);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_SSL_REQUEST);
  assert_true(pgw_dec_in_startup(d));
  pgw_buf_reset(&b);
  pgw_write_request_code(&b, PGW_GSSENC_REQUEST_CODE);
  pgw_dec_feed(d, b.pb_data, b.pb_len, &e);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_GSSENC_REQUEST);
  pgw_buf_reset(&b);
  pgw_write_startup(&b, PGW_PROTOCOL_3_0, names, values, 1);
  pgw_dec_feed(d, b.pb_data, b.pb_len, &e);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_STARTUP);
  pgw_dec_destroy(d);

  /* CancelRequest: pid and key, and the connection is done. */
  d = pgw_dec_create();
  pgw_buf_reset(&b);
  pgw_write_cancel(&b, 1234, -99);
  pgw_dec_feed(d, b.pb_data, b.pb_len, &e);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_MSG);
  assert_int_equal(m.fm_kind, PGW_FE_CANCEL);
  assert_int_equal(m.fm_u.cancel.pid, 1234);
  assert_int_equal(m.fm_u.cancel.key, -99);
  assert_int_equal(pgw_dec_next(d, &m, &e), PGW_NEED_MORE);
  pgw_dec_feed(d, "Q", 1, &e);
  assert_int_equal(pgw_dec_next(d, &m, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, SQLSTATE_PROTOCOL_VIOLATION);
  pgw_dec_destroy(d);
  pgw_buf_free(&b);
}

/* Decodes raw bytes (after a valid startup packet when typed) and expects an
 * error with sqlstate whose message contains needle. */
static void expect_error(const void *bytes, size_t len, bool typed, const char *sqlstate,
                         const char *needle)
{
  pgw_buf_t b;
  const char *names[] = {"user"}, *values[] = {"bob"};
  pgw_buf_init(&b);
  if (typed)
    pgw_write_startup(&b, PGW_PROTOCOL_3_0, names, values, 1);
  pgw_buf_put_bytes(&b, bytes, len);
  char *whole = nt_decode_stream(b.pb_data, b.pb_len, NULL, NULL);
  char *split = nt_decode_stream(b.pb_data, b.pb_len, chunk_one, NULL);
  char want[64];
  snprintf(want, sizeof want, "ERROR %s ", sqlstate);
  char want_invalid[64]; /* bad UTF-8 in a typed message is not final */
  snprintf(want_invalid, sizeof want_invalid, " %s ", sqlstate);
  bool invalid = typed && strcmp(sqlstate, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE) == 0;
  if (invalid && strncmp(whole + strlen(whole) - 12, "NEED_MORE 0\n", 12) != 0)
    fail_msg("bad UTF-8 in a typed message must leave the decoder usable, got:\n%s", whole);
  if (!strstr(whole, invalid ? want_invalid : want) || !strstr(whole, needle))
    fail_msg("expected %s containing '%s', got:\n%s", sqlstate, needle, whole);
  assert_string_equal(whole, split);
  free(whole);
  free(split);
  pgw_buf_free(&b);
}

#define EXPECT(bytes, typed, state, needle) expect_error(bytes, sizeof(bytes) - 1, typed, state, needle)
#define PV SQLSTATE_PROTOCOL_VIOLATION

static void test_bad_lengths(void **state)
{
  (void)state;
  EXPECT("Q\x7f\xff\xff\xff", true, PV, "more than its limit");  /* 2 GB query */
  EXPECT("Q\x40\x00\x00\x01", true, PV, "more than its limit");  /* 1 GB + 1 */
  EXPECT("Q\x00\x00\x00\x03", true, PV, "invalid message length");
  EXPECT("Q\xff\xff\xff\xff", true, PV, "more than its limit");
  EXPECT("S\x00\x00\x00\x05x", true, PV, "more than its limit"); /* Sync has no body */
  EXPECT("D\x00\x01\x00\x00", true, PV, "more than its limit");  /* a 64 KB Describe */
  EXPECT("p\x00\x10\x00\x00", true, PV, "more than its limit");  /* a 1 MB password */
  EXPECT("\x00\x00\x00\x07\x00\x03\x00", false, PV, "invalid length of startup packet");
  EXPECT("\x00\x00\x27\x11\x00\x03\x00\x00", false, PV, "invalid length of startup packet");
  EXPECT("\xff\xff\xff\xff", false, PV, "invalid length of startup packet");
}

static void test_unknown_type_and_protocol(void **state)
{
  (void)state;
  EXPECT("Z\x00\x00\x00\x04", true, PV, "invalid frontend message type 90");
  EXPECT("\x00", true, PV, "invalid frontend message type 0");
  EXPECT("F\x00\x00\x00\x04", true, PV, "invalid frontend message type");
  EXPECT("\x00\x00\x00\x12\x00\x02\x00\x00user\0bob\0\0", false,
         SQLSTATE_FEATURE_NOT_SUPPORTED, "unsupported frontend protocol 2.0");
  EXPECT("\x00\x00\x00\x0c\x04\xd2\x16\x2f\x00\x00\x00\x00", false, PV, "bytes after"); /* SSL + junk */
  EXPECT("\x00\x00\x00\x0c\x04\xd2\x16\x2e\x00\x00\x00\x01", false, PV, "too short"); /* cancel */
  EXPECT("X\x00\x00\x00\x04Q", true, PV, "after Terminate");
}

static void test_startup_packet_checks(void **state)
{
  (void)state;
  EXPECT("\x00\x00\x00\x09\x00\x03\x00\x00\x00", false, SQLSTATE_INVALID_AUTHORIZATION, "no user");
  EXPECT("\x00\x00\x00\x11\x00\x03\x00\x00user\0bob\0", false, PV, "without its terminating NUL");
  EXPECT("\x00\x00\x00\x10\x00\x03\x00\x00user\0bob", false, PV, "without its terminating NUL");
  EXPECT("\x00\x00\x00\x0f\x00\x03\x00\x00user\0\0\0", false, SQLSTATE_INVALID_AUTHORIZATION, "no user");
  EXPECT("\x00\x00\x00\x13\x00\x03\x00\x00user\0bob\0\0x", false, PV, "bytes after");
  EXPECT("\x00\x00\x00\x12\x00\x03\x00\x00user\0b\xffo\0\0", false,
         SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, "0xff");
}

static void test_unsafe_ssl_pipelining(void **state)
{
  (void)state;
  /* A startup packet already waiting behind an SSLRequest is refused. */
  static const char bytes[] = "\x00\x00\x00\x08\x04\xd2\x16\x2f"
                              "\x00\x00\x00\x12\x00\x03\x00\x00user\0bob\0\0";
  pgw_decoder_t *d = pgw_dec_create();
  pgw_fe_msg_t m;
  err_t e;
  pgw_dec_feed(d, bytes, sizeof bytes - 1, &e);
  assert_int_equal(pgw_dec_next(d, &m, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "unencrypted data after SSL"));
  /* The error is final. */
  assert_int_equal(pgw_dec_next(d, &m, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "unencrypted data after SSL"));
  pgw_dec_destroy(d);
}

static void test_body_checks(void **state)
{
  (void)state;
  EXPECT("Q\x00\x00\x00\x07SEL", true, PV, "without its terminating NUL");
  EXPECT("Q\x00\x00\x00\x09SEL\0x", true, PV, "1 bytes after its last field");
  EXPECT("Q\x00\x00\x00\x08S\xc3\x28\0", true, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, "0xc3 0x28");
  EXPECT("Q\x00\x00\x00\x08\xc0\xafx\0", true, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, "0xc0"); /* overlong */
  EXPECT("Q\x00\x00\x00\x08\xed\xa0\x80\0", true, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, "0xed");
  /* skipped whole: the Sync behind it is decoded */
  EXPECT("Q\x00\x00\x00\x06\xff\0S\0\0\0\x04", true, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE,
         "\"UTF8\": 0xff\nkind=10 type=83");
  EXPECT("P\x00\x00\x00\x0as\0q\0\x00\x02", true, PV, "declares 2 items");
  EXPECT("P\x00\x00\x00\x0as\0q\0\xff\xff", true, PV, "negative count");
  EXPECT("P\x00\x00\x00\x0ds\0q\0\x00\x01\x00\x00\x00", true, PV, "declares 1 items");
  EXPECT("D\x00\x00\x00\x07X\0\0", true, PV, "target type 0x58");
  EXPECT("C\x00\x00\x00\x05S", true, PV, "without its terminating NUL");
  EXPECT("E\x00\x00\x00\x07p\0\0", true, PV, "too short");
  EXPECT("p\x00\x00\x00\x04", false, PV, "invalid length of startup packet");
}

static void test_bind_checks(void **state)
{
  (void)state;
  /* portal "", stmt "", formats, params, result formats */
  EXPECT("B\x00\x00\x00\x0e\0\0\x00\x00\x00\x00\x00\x00\x00\x00", true, PV, "bytes after");
  EXPECT("B\x00\x00\x00\x0c\0\0\x00\x05\x00\x00\x00\x00", true, PV, "declares 5 items");
  EXPECT("B\x00\x00\x00\x0e\0\0\x00\x01\x00\x02\x00\x00\x00\x00", true, PV, "format code 2");
  EXPECT("B\x00\x00\x00\x0c\0\0\x00\x00\x7f\xff\x00\x00", true, PV, "declares 32767 items");
  EXPECT("B\x00\x00\x00\x10\0\0\x00\x00\x00\x01\xff\xff\xff\xfe\x00\x00", true, PV, "length -2");
  EXPECT("B\x00\x00\x00\x10\0\0\x00\x00\x00\x01\x00\x00\x00\x09\x00\x00", true, PV, "declares 9 bytes");
  EXPECT("B\x00\x00\x00\x10\0\0\x00\x00\x00\x01\x7f\xff\xff\xff\x00\x00", true, PV, "declares 2147483647 bytes");
  EXPECT("B\x00\x00\x00\x16\0\0\x00\x02\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\x00\x01\x00\x03",
         true, PV, "format code 3");
  EXPECT("B\x00\x00\x00\x16\0\0\x00\x02\x00\x00\x00\x00\x00\x01\xff\xff\xff\xff\x00\x01\x00\x01",
         true, PV, "2 parameter formats but 1 parameters");
}

static void test_sasl_initial_checks(void **state)
{
  pgw_fe_msg_t m;
  const char *mech;
  const uint8_t *data;
  int32_t len;
  err_t e;
  (void)state;
  memset(&m, 0, sizeof m);
  m.fm_kind = PGW_FE_PASSWORD;
  m.fm_type = 'p';
  m.fm_body = (const uint8_t *)"SCRAM-SHA-256\0\x00\x00\x00\x10" "abc";
  m.fm_len = 21;
  assert_int_equal(pgw_parse_sasl_initial(&m, &mech, &data, &len, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, PV);
  m.fm_body = (const uint8_t *)"SCRAM-SHA-256\0\xff\xff\xff\xff";
  m.fm_len = 18;
  assert_int_equal(pgw_parse_sasl_initial(&m, &mech, &data, &len, &e), CZ_OK);
  assert_int_equal(len, -1);
  assert_null(data);
  m.fm_body = (const uint8_t *)"SCRAM-SHA-256\0\xff\xff\xff\xfe";
  assert_int_equal(pgw_parse_sasl_initial(&m, &mech, &data, &len, &e), CZ_ERR);
  m.fm_body = (const uint8_t *)"SCRAM-SHA-256";
  m.fm_len = 13;
  assert_int_equal(pgw_parse_sasl_initial(&m, &mech, &data, &len, &e), CZ_ERR);
  m.fm_body = (const uint8_t *)"pw\0x";
  m.fm_len = 4;
  assert_int_equal(pgw_parse_password(&m, &mech, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "after its last field"));
}

/* ---- UTF-8 ------------------------------------------------------------- */

static void test_utf8_validator(void **state)
{
  static const struct { const char *s; size_t len, bad; } cases[] = {
      {"", 0, 0},
      {"plain ascii", 11, 11},
      {"caf\xc3\xa9", 5, 5},
      {"\xe2\x82\xac", 3, 3},                 /* euro sign */
      {"\xf0\x9f\x98\x80", 4, 4},             /* emoji */
      {"\xf4\x8f\xbf\xbf", 4, 4},             /* U+10FFFF */
      {"\xed\x9f\xbf", 3, 3},                 /* U+D7FF */
      {"a\x80", 2, 1},                        /* lone continuation */
      {"\xc0\x80", 2, 0},                     /* overlong NUL */
      {"\xc1\xbf", 2, 0},                     /* overlong */
      {"\xe0\x80\xaf", 3, 0},                 /* overlong 3-byte */
      {"\xf0\x80\x80\xaf", 4, 0},             /* overlong 4-byte */
      {"\xed\xa0\x80", 3, 0},                 /* surrogate U+D800 */
      {"\xed\xbf\xbf", 3, 0},                 /* surrogate U+DFFF */
      {"\xf4\x90\x80\x80", 4, 0},             /* U+110000 */
      {"\xf5\x80\x80\x80", 4, 0},
      {"\xff", 1, 0},
      {"ab\xe2\x82", 4, 2},                   /* truncated at the end */
      {"ab\xe2\x28\xa1", 5, 2},
      {"\xf0\x9f\x98", 3, 0},
  };
  err_t e;
  (void)state;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    size_t got = pgw_utf8_check((const uint8_t *)cases[i].s, cases[i].len);
    if (got != cases[i].bad)
      fail_msg("case %zu: got %zu, want %zu", i, got, cases[i].bad);
  }
  pgw_utf8_error(&e, (const uint8_t *)"ab\xe2\x28\xa1", 5, 2);
  assert_string_equal(e.er_sqlstate, "22021");
  assert_string_equal(e.er_msg, "invalid byte sequence for encoding \"UTF8\": 0xe2 0x28 0xa1");
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_auth_ok_exact_bytes),
      cmocka_unit_test(test_auth_sasl_messages),
      cmocka_unit_test(test_session_start_messages),
      cmocka_unit_test(test_row_description_and_data_row),
      cmocka_unit_test(test_error_and_notice_fields),
      cmocka_unit_test(test_extended_and_copy_messages),
      cmocka_unit_test(test_buffer_errors_are_sticky),
      cmocka_unit_test(test_buffer_room_truncate_and_negotiate),
      cmocka_unit_test(test_decoder_trim),
      cmocka_unit_test(test_frontend_round_trip_whole_and_split),
      cmocka_unit_test(test_decoded_fields),
      cmocka_unit_test(test_zero_copy_receive),
      cmocka_unit_test(test_special_requests),
      cmocka_unit_test(test_bad_lengths),
      cmocka_unit_test(test_unknown_type_and_protocol),
      cmocka_unit_test(test_startup_packet_checks),
      cmocka_unit_test(test_unsafe_ssl_pipelining),
      cmocka_unit_test(test_body_checks),
      cmocka_unit_test(test_bind_checks),
      cmocka_unit_test(test_sasl_initial_checks),
      cmocka_unit_test(test_utf8_validator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

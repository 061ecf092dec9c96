/* test_wal — the transaction log on its own: record framing and checksums,
 * torn tails cut at every byte, bad checksums, stale generations, restart,
 * group commit under 16 threads, and the redo payload format.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cz_test.h"
#include "thread/thread.h"
#include "txn/txn_int.h"
#include "txn/wal.h"

#define OK(call)                                                    \
  do {                                                              \
    err_t e_;                                                       \
    err_clear(&e_);                                                 \
    if ((call) != CZ_OK)                                            \
      fail_msg("%s: %s %s", #call, e_.er_sqlstate, e_.er_msg);      \
  } while (0)

/* Record i of a test log: its length and bytes depend on i alone. */
static size_t rec_len(int i)
{
  return 1 + (hash64_int((uint64_t)i) % 300);
}

static void rec_fill(uint8_t *p, int i)
{
  size_t n = rec_len(i);
  for (size_t k = 0; k < n; k++)
    p[k] = (uint8_t)(hash64_int(((uint64_t)i << 16) + k) & 0xff);
}

typedef struct collect_s {
  int c_n;
  int c_bad;        /* records whose content is not record c_n's */
  int c_stop_after; /* return an error after this many (0 = never) */
} collect_t;

static int collect_fn(void *ctx, const uint8_t *payload, size_t len, err_t *e)
{
  collect_t *c = ctx;
  uint8_t want[512];
  rec_fill(want, c->c_n);
  if (len != rec_len(c->c_n) || memcmp(want, payload, len) != 0)
    c->c_bad++;
  c->c_n++;
  if (c->c_stop_after && c->c_n == c->c_stop_after)
    return err_set(e, SQLSTATE_INTERNAL, "stop");
  return CZ_OK;
}

static char *fresh_path(const char *name)
{
  char *p = cz_test_path(name);
  unlink(p);
  return p;
}

/* Writes records 0..n-1 under generation gen; returns the offsets at which
 * each record starts (starts[n] = the end). */
static void write_log(const char *path, uint64_t gen, int n, uint64_t *starts)
{
  wal_t *w;
  uint8_t buf[512];
  OK(wal_open(path, false, &w, &e_));
  OK(wal_restart(w, gen, &e_));
  uint64_t off = WAL_HEADER_SIZE;
  for (int i = 0; i < n; i++) {
    if (starts)
      starts[i] = off;
    rec_fill(buf, i);
    OK(wal_append_and_wait(w, buf, rec_len(i), &e_));
    off += WAL_REC_HEAD + rec_len(i);
  }
  if (starts)
    starts[n] = off;
  wal_close(w);
}

static collect_t read_log(const char *path, uint64_t gen, wal_read_info_t *info)
{
  collect_t c = { 0 };
  wal_read_info_t local;
  OK(wal_read_all(path, gen, collect_fn, &c, info ? info : &local, &e_));
  return c;
}

static uint8_t *slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(*len + 1);
  assert_int_equal(fread(p, 1, *len, f), *len);
  fclose(f);
  return p;
}

static void spill(const char *path, const uint8_t *p, size_t len)
{
  FILE *f = fopen(path, "wb");
  assert_non_null(f);
  assert_int_equal(fwrite(p, 1, len, f), len);
  fclose(f);
}

static void test_append_read_back(void **state)
{
  char *path = fresh_path("wal_basic.trx");
  uint64_t starts[101];
  write_log(path, 7, 100, starts);
  wal_read_info_t info;
  collect_t c = read_log(path, 7, &info);
  assert_int_equal(c.c_n, 100);
  assert_int_equal(c.c_bad, 0);
  assert_true(info.wr_header_ok);
  assert_false(info.wr_stale);
  assert_int_equal(info.wr_records, 100);
  assert_int_equal(info.wr_valid_end, starts[100]);
  assert_int_equal(info.wr_file_size, starts[100]);
  free(path);
}

/* A record framing is length, checksum, payload; the checksum covers the
 * length and depends on the generation. */
static void test_record_head(void **state)
{
  uint8_t a[WAL_REC_HEAD], b[WAL_REC_HEAD], c[WAL_REC_HEAD];
  const char *p = "payload";
  wal_record_head(a, 1, p, 7);
  wal_record_head(b, 2, p, 7);
  wal_record_head(c, 1, p, 6);
  assert_int_equal(wal_get_u32(a), 7);
  assert_int_not_equal(wal_get_u32(a + 4), wal_get_u32(b + 4));
  assert_int_not_equal(wal_get_u32(a + 4), wal_get_u32(c + 4));
}

/* Cutting the file anywhere inside the last record gives exactly the
 * records before it. */
static void test_torn_tail_every_byte(void **state)
{
  char *path = fresh_path("wal_torn.trx");
  char *cut = fresh_path("wal_torn_cut.trx");
  enum { N = 6 };
  uint64_t starts[N + 1];
  write_log(path, 3, N, starts);
  size_t len;
  uint8_t *all = slurp(path, &len);
  assert_int_equal(len, starts[N]);
  for (uint64_t at = starts[N - 1]; at <= starts[N]; at++) {
    spill(cut, all, (size_t)at);
    collect_t c = read_log(cut, 3, NULL);
    assert_int_equal(c.c_bad, 0);
    assert_int_equal(c.c_n, at == starts[N] ? N : N - 1);
  }
  /* A cut inside the header: nothing, and not an error. */
  for (uint64_t at = 0; at < WAL_HEADER_SIZE; at++) {
    spill(cut, all, (size_t)at);
    wal_read_info_t info;
    collect_t c = read_log(cut, 3, &info);
    assert_int_equal(c.c_n, 0);
    assert_false(info.wr_header_ok);
  }
  free(all);
  free(path);
  free(cut);
}

/* A flipped bit in a payload, in a checksum or in a length ends the log at
 * that record; zeroed space after the records is no record either. */
static void test_bad_checksum_stops(void **state)
{
  char *path = fresh_path("wal_bad.trx");
  char *bad = fresh_path("wal_bad_copy.trx");
  enum { N = 8 };
  uint64_t starts[N + 1];
  write_log(path, 5, N, starts);
  size_t len;
  uint8_t *all = slurp(path, &len);
  uint64_t where[] = { starts[3] + WAL_REC_HEAD, starts[3] + 4, starts[3], starts[N - 1] - 1 };
  int expect[] = { 3, 3, 3, N - 2 };
  for (size_t k = 0; k < CZ_ARRAY_LEN(where); k++) {
    uint8_t *copy = malloc(len);
    memcpy(copy, all, len);
    copy[where[k]] ^= 0x10;
    spill(bad, copy, len);
    collect_t c = read_log(bad, 5, NULL);
    assert_int_equal(c.c_bad, 0);
    assert_int_equal(c.c_n, expect[k]);
    free(copy);
  }
  uint8_t *padded = calloc(1, len + 4096);
  memcpy(padded, all, len);
  spill(bad, padded, len + 4096);
  wal_read_info_t info;
  collect_t c = read_log(bad, 5, &info);
  assert_int_equal(c.c_n, N);
  assert_int_equal(info.wr_valid_end, len);
  free(padded);
  free(all);
  free(path);
  free(bad);
}

static void test_stale_generation_ignored(void **state)
{
  char *path = fresh_path("wal_stale.trx");
  write_log(path, 9, 10, NULL);
  wal_read_info_t info;
  collect_t c = read_log(path, 10, &info);
  assert_int_equal(c.c_n, 0);
  assert_true(info.wr_header_ok);
  assert_true(info.wr_stale);
  assert_int_equal(info.wr_generation, 9);
  c = read_log(path, 8, &info);
  assert_int_equal(c.c_n, 0);
  /* A missing log is an empty one. */
  unlink(path);
  c = read_log(path, 9, &info);
  assert_int_equal(c.c_n, 0);
  assert_false(info.wr_header_ok);
  free(path);
}

/* Records of an old generation behind a new header (the truncation was
 * lost in a crash, the header write was not) fail their checksums. */
static void test_old_records_under_new_header(void **state)
{
  char *path = fresh_path("wal_oldrec.trx");
  write_log(path, 4, 10, NULL);
  uint8_t head[WAL_HEADER_SIZE];
  wal_header_encode(head, 5);
  int fd = open(path, O_WRONLY);
  assert_true(fd >= 0);
  assert_int_equal(pwrite(fd, head, sizeof head, 0), (ssize_t)sizeof head);
  close(fd);
  wal_read_info_t info;
  collect_t c = read_log(path, 5, &info);
  assert_true(info.wr_header_ok);
  assert_int_equal(c.c_n, 0);
  free(path);
}

static void test_restart_empties(void **state)
{
  char *path = fresh_path("wal_restart.trx");
  wal_t *w;
  uint8_t buf[512];
  OK(wal_open(path, true, &w, &e_));
  /* No generation yet: appends are refused. */
  err_t e;
  rec_fill(buf, 0);
  assert_int_equal(wal_append_and_wait(w, buf, rec_len(0), &e), CZ_ERR);
  OK(wal_restart(w, 1, &e_));
  for (int i = 0; i < 5; i++) {
    rec_fill(buf, i);
    OK(wal_append_and_wait(w, buf, rec_len(i), &e_));
  }
  OK(wal_restart(w, 2, &e_));
  assert_int_equal(wal_generation(w), 2);
  rec_fill(buf, 0);
  OK(wal_append_and_wait(w, buf, rec_len(0), &e_));
  wal_close(w);
  collect_t c = read_log(path, 2, NULL);
  assert_int_equal(c.c_n, 1);
  assert_int_equal(c.c_bad, 0);
  struct stat sb;
  assert_int_equal(stat(path, &sb), 0);
  assert_int_equal(sb.st_size, WAL_HEADER_SIZE + WAL_REC_HEAD + rec_len(0));
  free(path);
}

/* A failed log refuses appends for good, even after a restart. */
static void test_failed_log_refuses(void **state)
{
  char *path = fresh_path("wal_failed.trx");
  wal_t *w;
  uint8_t buf[512];
  err_t e;
  OK(wal_open(path, false, &w, &e_));
  OK(wal_restart(w, 1, &e_));
  rec_fill(buf, 0);
  OK(wal_append_and_wait(w, buf, rec_len(0), &e_));
  wal_set_failed(w, "test");
  assert_int_equal(wal_append_and_wait(w, buf, rec_len(0), &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
  OK(wal_restart(w, 2, &e_));
  assert_int_equal(wal_append_and_wait(w, buf, rec_len(0), &e), CZ_ERR);
  wal_close(w);
  free(path);
}

/* An error from the callback stops the reading and is returned. */
static void test_callback_error_stops(void **state)
{
  char *path = fresh_path("wal_cb.trx");
  write_log(path, 2, 10, NULL);
  collect_t c = { .c_stop_after = 4 };
  wal_read_info_t info;
  err_t e;
  assert_int_equal(wal_read_all(path, 2, collect_fn, &c, &info, &e), CZ_ERR);
  assert_int_equal(c.c_n, 4);
  free(path);
}

/* ---- group commit ------------------------------------------------------ */

enum { GC_THREADS = 16, GC_PER_THREAD = 150 };

typedef struct gc_arg_s {
  wal_t *g_w;
  int g_thread;
  int g_failures;
} gc_arg_t;

static void *gc_main(void *arg)
{
  gc_arg_t *a = arg;
  for (int i = 0; i < GC_PER_THREAD; i++) {
    uint8_t rec[8];
    wal_put_u32(rec, (uint32_t)a->g_thread);
    wal_put_u32(rec + 4, (uint32_t)i);
    err_t e;
    if (wal_append_and_wait(a->g_w, rec, sizeof rec, &e) != CZ_OK)
      a->g_failures++;
  }
  return NULL;
}

typedef struct gc_check_s {
  int k_next[GC_THREADS]; /* the next i expected from each thread */
  int k_bad;
} gc_check_t;

static int gc_check_fn(void *ctx, const uint8_t *payload, size_t len, err_t *e)
{
  gc_check_t *k = ctx;
  uint32_t t = wal_get_u32(payload), i = wal_get_u32(payload + 4);
  if (len != 8 || t >= GC_THREADS || (int)i != k->k_next[t])
    k->k_bad++;
  else
    k->k_next[t]++;
  return CZ_OK;
}

static void test_group_commit(void **state)
{
  char *path = fresh_path("wal_group.trx");
  wal_t *w;
  OK(wal_open(path, true, &w, &e_));
  OK(wal_restart(w, 11, &e_));
  cz_thread_t th[GC_THREADS];
  gc_arg_t args[GC_THREADS];
  for (int t = 0; t < GC_THREADS; t++) {
    args[t] = (gc_arg_t){ .g_w = w, .g_thread = t };
    OK(thread_start(&th[t], gc_main, &args[t], &e_));
  }
  for (int t = 0; t < GC_THREADS; t++) {
    thread_join(&th[t]);
    assert_int_equal(args[t].g_failures, 0);
  }
  wal_stats_t st;
  wal_get_stats(w, &st);
  wal_close(w);
  print_message("group commit: %llu records, %llu syncs\n", (unsigned long long)st.ws_appends,
                (unsigned long long)st.ws_writes);
  assert_int_equal(st.ws_appends, GC_THREADS * GC_PER_THREAD);
  assert_true(st.ws_writes < st.ws_appends);
  assert_int_equal(st.ws_bytes, (uint64_t)GC_THREADS * GC_PER_THREAD * (WAL_REC_HEAD + 8));

  gc_check_t k = { { 0 }, 0 };
  wal_read_info_t info;
  OK(wal_read_all(path, 11, gc_check_fn, &k, &info, &e_));
  assert_int_equal(k.k_bad, 0);
  for (int t = 0; t < GC_THREADS; t++)
    assert_int_equal(k.k_next[t], GC_PER_THREAD);
  free(path);
}

/* ---- the redo payload -------------------------------------------------- */

typedef struct ops_s {
  txn_logop_t o_ops[8];
  int o_n;
} ops_t;

static int ops_fn(void *ctx, const txn_logop_t *op, err_t *e)
{
  ops_t *o = ctx;
  if (o->o_n == (int)CZ_ARRAY_LEN(o->o_ops))
    return err_set(e, SQLSTATE_INTERNAL, "too many operations");
  o->o_ops[o->o_n] = *op;
  o->o_n++;
  return CZ_OK;
}

static void test_log_record_encode_decode(void **state)
{
  txn_logop_t in[] = {
    { TXN_OP_CREATE, 7, (const uint8_t *)"orders", 6, (const uint8_t *)"\1\0\0\0", 4 },
    { TXN_OP_INSERT, 7, (const uint8_t *)"k1", 2, (const uint8_t *)"value one", 9 },
    { TXN_OP_UPDATE, 7, (const uint8_t *)"k1", 2, (const uint8_t *)"v2", 2 },
    { TXN_OP_DELETE, 7, (const uint8_t *)"k1", 2, NULL, 0 },
    { TXN_OP_DROP, 7, (const uint8_t *)"orders", 6, NULL, 0 },
  };
  uint8_t buf[512];
  txn_log_begin(buf, CZ_ARRAY_LEN(in));
  size_t len = 4;
  for (size_t i = 0; i < CZ_ARRAY_LEN(in); i++) {
    size_t n = txn_log_op_encode(buf + len, &in[i]);
    assert_int_equal(n, txn_log_op_size(&in[i]));
    len += n;
  }
  ops_t out = { .o_n = 0 };
  OK(txn_log_decode(buf, len, ops_fn, &out, &e_));
  assert_int_equal(out.o_n, CZ_ARRAY_LEN(in));
  for (size_t i = 0; i < CZ_ARRAY_LEN(in); i++) {
    assert_int_equal(out.o_ops[i].lo_kind, in[i].lo_kind);
    assert_int_equal(out.o_ops[i].lo_tree_id, in[i].lo_tree_id);
    assert_int_equal(out.o_ops[i].lo_key_len, in[i].lo_key_len);
    assert_memory_equal(out.o_ops[i].lo_key, in[i].lo_key, in[i].lo_key_len);
    assert_int_equal(out.o_ops[i].lo_val_len, in[i].lo_val_len);
    if (in[i].lo_val_len)
      assert_memory_equal(out.o_ops[i].lo_val, in[i].lo_val, in[i].lo_val_len);
  }
  /* Cut short, extra bytes, an unknown kind: corruption, not a crash. */
  err_t e;
  for (size_t cut = 0; cut < len; cut++) {
    out.o_n = 0;
    assert_int_equal(txn_log_decode(buf, cut, ops_fn, &out, &e), CZ_ERR);
    assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
  }
  buf[len] = 0;
  out.o_n = 0;
  assert_int_equal(txn_log_decode(buf, len + 1, ops_fn, &out, &e), CZ_ERR);
  buf[4] = 99;
  out.o_n = 0;
  assert_int_equal(txn_log_decode(buf, len, ops_fn, &out, &e), CZ_ERR);
}

/* A streamed record (wal_append_stream) is written at once, in log order
 * with the committed ones around it, and synced by the next commit. */
static void test_stream_append(void **state)
{
  char *path = fresh_path("wal_stream.trx");
  wal_t *w;
  uint8_t buf[512];
  OK(wal_open(path, true, &w, &e_));
  OK(wal_restart(w, 9, &e_));
  for (int i = 0; i < 6; i++) {
    rec_fill(buf, i);
    if (i == 0 || i == 3)
      OK(wal_append_and_wait(w, buf, rec_len(i), &e_));
    else
      OK(wal_append_stream(w, buf, rec_len(i), &e_));
    /* On the file before the call returns: readers find it. */
    collect_t c = read_log(path, 9, NULL);
    assert_int_equal(c.c_n, i + 1);
    assert_int_equal(c.c_bad, 0);
  }
  wal_stats_t ws;
  wal_get_stats(w, &ws);
  assert_int_equal(ws.ws_streamed, 4);
  assert_int_equal(ws.ws_appends, 2);
  assert_int_equal(ws.ws_writes, 2); /* one sync per commit, none per streamed record */
  err_t e;
  assert_int_equal(wal_append_stream(w, buf, 0, &e), CZ_ERR);
  wal_set_failed(w, "test");
  assert_int_equal(wal_append_stream(w, buf, 1, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_IO_ERROR));
  wal_close(w);
  free(path);
}

/* The tagged records of a streaming transaction: head, kind, operations. */
static void test_log_record_tagged(void **state)
{
  txn_logop_t op = { TXN_OP_INSERT, 7, (const uint8_t *)"k1", 2, (const uint8_t *)"value", 5 };
  uint8_t buf[128];
  uint32_t tags[] = { TXN_REC_CONTINUE, TXN_REC_STREAM_COMMIT };
  for (int t = 0; t < 2; t++) {
    size_t len = txn_log_begin_tagged(buf, tags[t], 0x1122334455667788ull, 2);
    assert_int_equal(len, TXN_LOG_TAG_HEAD);
    len += txn_log_op_encode(buf + len, &op);
    len += txn_log_op_encode(buf + len, &op);
    uint32_t tag;
    uint64_t id;
    OK(txn_log_record_kind(buf, len, &tag, &id, &e_));
    assert_int_equal(tag, tags[t]);
    assert_int_equal(id, 0x1122334455667788ull);
    ops_t out = { .o_n = 0 };
    OK(txn_log_decode(buf, len, ops_fn, &out, &e_));
    assert_int_equal(out.o_n, 2);
    assert_int_equal(out.o_ops[1].lo_val_len, 5);
    err_t e;
    for (size_t cut = 4; cut < len; cut++) {
      out.o_n = 0;
      assert_int_equal(txn_log_decode(buf, cut, ops_fn, &out, &e), CZ_ERR);
      assert_true(err_is(&e, SQLSTATE_DATA_CORRUPTED));
    }
  }
  /* A plain record is not tagged. */
  txn_log_begin(buf, 0);
  uint32_t tag;
  uint64_t id;
  OK(txn_log_record_kind(buf, 4, &tag, &id, &e_));
  assert_int_equal(tag, TXN_REC_PLAIN);
}

static void test_user_root_roundtrip(void **state)
{
  db_root_t r = { .dr_generation = 42, .dr_next_tree_id = 1000, .dr_dir_root = 257 }, back;
  uint8_t b[DB_ROOT_SIZE];
  db_root_encode(&r, b);
  OK(db_root_decode(b, sizeof b, &back, &e_));
  assert_int_equal(back.dr_generation, 42);
  assert_int_equal(back.dr_next_tree_id, 1000);
  assert_int_equal(back.dr_dir_root, 257);
  err_t e;
  assert_int_equal(db_root_decode(b, sizeof b - 1, &back, &e), CZ_ERR);
  b[0] ^= 1;
  assert_int_equal(db_root_decode(b, sizeof b, &back, &e), CZ_ERR);
}

/* A log is locked while open: a second open (another server, or this
 * process again) is refused with 55006 and the file left as it was; the
 * lock goes with the first close. */
static void test_log_locked(void **state)
{
  (void)state;
  char *path = fresh_path("wal_locked");
  write_log(path, 3, 2, NULL);
  size_t len0, len1;
  free(slurp(path, &len0));
  wal_t *w, *w2 = NULL;
  err_t e;
  OK(wal_open(path, false, &w, &e_));
  assert_int_equal(wal_open(path, false, &w2, &e), CZ_ERR);
  assert_true(err_is(&e, SQLSTATE_OBJECT_IN_USE));
  assert_non_null(strstr(e.er_msg, path));
  assert_null(w2);
  free(slurp(path, &len1));
  assert_int_equal(len0, len1);
  wal_close(w);
  OK(wal_open(path, false, &w2, &e_));
  wal_close(w2);
  free(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_append_read_back),
    cmocka_unit_test(test_log_locked),
    cmocka_unit_test(test_record_head),
    cmocka_unit_test(test_torn_tail_every_byte),
    cmocka_unit_test(test_bad_checksum_stops),
    cmocka_unit_test(test_stale_generation_ignored),
    cmocka_unit_test(test_old_records_under_new_header),
    cmocka_unit_test(test_restart_empties),
    cmocka_unit_test(test_failed_log_refuses),
    cmocka_unit_test(test_callback_error_stops),
    cmocka_unit_test(test_group_commit),
    cmocka_unit_test(test_log_record_encode_decode),
    cmocka_unit_test(test_stream_append),
    cmocka_unit_test(test_log_record_tagged),
    cmocka_unit_test(test_user_root_roundtrip),
  };
  return cmocka_run_group_tests_name("txn_wal", tests, NULL, NULL);
}

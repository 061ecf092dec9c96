/* test_crash — fatal signals are logged (signal, code, backtrace, the
 * statement of the crashing thread and of the others) and then kill the
 * process with the same signal; a stack overflow is logged too (the
 * alternate signal stack). Each case crashes a forked child. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cz_test.h"
#include "util/util.h"

static char *slurp(const char *path)
{
  FILE *f = fopen(path, "rb");
  assert_non_null(f);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

/* Runs fn in a child that logs to path; returns the child's wait status. */
static int crash_child(const char *path, void (*fn)(void))
{
  unlink(path);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    /* no core files from the test's own crashes */
    struct rlimit no_core = {0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    err_t e;
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0)
      dup2(devnull, 2); /* the handler writes to stderr as well */
    if (log_open_file(path, &e) != CZ_OK || crash_install(&e) != CZ_OK)
      _exit(3);
    fn();
    _exit(4); /* fn should not return */
  }
  int status = 0;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  return status;
}

static volatile int zero;

static void do_fpe(void)
{
  crash_stmt_enter("SELECT 1 / 0 -- own-marker", 26);
#ifndef CZ_SANITIZE /* UBSan reports the division itself */
  volatile int x = 1 / zero;
  (void)x;
#endif
  raise(SIGFPE); /* an architecture that does not trap, or a sanitizer build */
}

static void test_sigfpe_logged_and_reraised(void **state)
{
  (void)state;
  char *path = cz_test_path("fpe.log");
  int st = crash_child(path, do_fpe);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGFPE);
  char *log = slurp(path);
  assert_non_null(strstr(log, "fatal signal 8 (SIGFPE)"));
  assert_non_null(strstr(log, "backtrace:"));
  assert_non_null(strstr(log, "the crashing thread was running: SELECT 1 / 0 -- own-marker"));
  assert_non_null(strstr(log, "terminating on signal 8"));
  free(log);
  free(path);
}

static pthread_mutex_t g_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cv = PTHREAD_COND_INITIALIZER;
static int g_ready;

static void *other_session(void *arg)
{
  (void)arg;
  crash_thread_init();
  crash_stmt_enter("SELECT pg_sleep(60)\n-- other-marker", 35);
  pthread_mutex_lock(&g_mx);
  g_ready = 1;
  pthread_cond_signal(&g_cv);
  pthread_mutex_unlock(&g_mx);
  for (;;)
    pause();
  return NULL;
}

static void do_segv_with_other(void)
{
  pthread_t t;
  pthread_create(&t, NULL, other_session, NULL);
  pthread_mutex_lock(&g_mx);
  while (!g_ready)
    pthread_cond_wait(&g_cv, &g_mx);
  pthread_mutex_unlock(&g_mx);
  crash_stmt_t prev = crash_stmt_enter("SELECT 'outer'", 14);
  crash_stmt_enter("SELECT 'inner'", 14);
  crash_stmt_leave(prev); /* back to no statement on this thread */
  volatile uintptr_t addr = 16;
  *(volatile int *)addr = 1;
}

static void test_sigsegv_names_other_statements(void **state)
{
  (void)state;
  char *path = cz_test_path("segv.log");
  int st = crash_child(path, do_segv_with_other);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGSEGV);
  char *log = slurp(path);
  assert_non_null(strstr(log, "fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR"));
  assert_non_null(strstr(log, "address 0x10"));
  assert_non_null(strstr(log, "the crashing thread was running no statement"));
  /* the other thread's statement, on one line */
  assert_non_null(strstr(log, "another thread was running: SELECT pg_sleep(60) -- other-marker"));
  assert_null(strstr(log, "'inner'"));
  free(log);
  free(path);
}

static volatile int g_depth_limit = 1 << 30; /* never reached: the stack ends first */

static int recurse(volatile char *up, int depth)
{
  volatile char pad[512];
  pad[0] = up ? up[0] : 1;
  if (depth >= g_depth_limit)
    return pad[0];
  return recurse(pad, depth + 1) + pad[1];
}

static void *overflow_thread(void *arg)
{
  (void)arg;
  crash_thread_init();
  crash_stmt_enter("WITH RECURSIVE deep", 19);
  recurse(NULL, 0);
  return NULL;
}

static void do_overflow(void)
{
  pthread_attr_t at;
  pthread_attr_init(&at);
  pthread_attr_setstacksize(&at, 256 * 1024);
  pthread_t t;
  pthread_create(&t, &at, overflow_thread, NULL);
  pthread_join(t, NULL);
}

static void test_stack_overflow_logged(void **state)
{
  (void)state;
#ifdef CZ_SANITIZE
  skip(); /* the sanitizer owns stack overflows */
#endif
  char *path = cz_test_path("overflow.log");
  int st = crash_child(path, do_overflow);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGSEGV);
  char *log = slurp(path);
  assert_non_null(strstr(log, "fatal signal 11 (SIGSEGV)"));
  assert_non_null(strstr(log, "the crashing thread was running: WITH RECURSIVE deep"));
  free(log);
  free(path);
}

static void do_abort(void)
{
  abort();
}

static void test_abort_logged(void **state)
{
  (void)state;
  char *path = cz_test_path("abort.log");
  int st = crash_child(path, do_abort);
  assert_true(WIFSIGNALED(st));
  assert_int_equal(WTERMSIG(st), SIGABRT);
  char *log = slurp(path);
  assert_non_null(strstr(log, "fatal signal 6 (SIGABRT)"));
  free(log);
  free(path);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sigfpe_logged_and_reraised),
      cmocka_unit_test(test_sigsegv_names_other_statements),
      cmocka_unit_test(test_stack_overflow_logged),
      cmocka_unit_test(test_abort_logged),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

/* crash — the last words of a dying server: fatal signals (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT) are logged with their code and address,
 * a backtrace and the statements being run, then re-raised with the
 * default action so that the exit status and core dumps stay right.
 *
 * Design notes:
 * - The handler runs in a broken process, so it allocates nothing and
 *   takes no lock: lines are formatted into a buffer on its own stack and
 *   written with write() straight to the log file's descriptor and stderr;
 *   backtrace() is called once at install time so that its lazy loading of
 *   libgcc (which mallocs) is done before it can be needed, after which
 *   backtrace_symbols_fd writes without malloc.
 * - Every thread that may crash has an alternate signal stack (the main
 *   thread at crash_install, the others from thread_start), so a stack
 *   overflow, whose SIGSEGV has no stack left to run on, is logged too.
 * - The statement text: each thread keeps a pointer to the statement it
 *   runs (crash_stmt_enter/leave, called by the engine), which the handler
 *   reads when it runs on that thread; for the other threads a copy of the
 *   statement's head sits in a slot of a static table, read best effort
 *   (a slot being rewritten may show a torn text, never a wild pointer).
 * - SA_RESETHAND restores the default action on entry, so a fault inside
 *   the handler kills the process at once instead of looping; a second
 *   thread that crashes meanwhile waits for the first to finish.
 */
#include <errno.h>
#include <execinfo.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define CRASH_SLOTS 256         /* threads whose statements others can see */
#define CRASH_HEAD 480          /* bytes of a statement kept in its slot */
#define CRASH_STMT_MAX 8192     /* bytes of the crashing thread's own statement logged */
#define CRASH_ALTSTACK (64 * 1024)
#define CRASH_FRAMES 64

typedef struct crash_slot_s {
  _Atomic bool cs_used;         /* claimed by a live thread */
  _Atomic size_t cs_len;        /* bytes of cs_head valid; 0 = no statement */
  char cs_head[CRASH_HEAD];
} crash_slot_t;

static crash_slot_t crash_slots[CRASH_SLOTS];
static _Atomic long crash_owner;      /* tid of the thread logging a crash, 0 = none */
static long crash_gmtoff;             /* local time's offset at install, seconds */
static pthread_key_t crash_key;       /* destructor frees a thread's stack and slot */
static pthread_once_t crash_key_once = PTHREAD_ONCE_INIT;
static _Atomic bool crash_installed;  /* threads set themselves up only then */

typedef struct crash_thread_s {
  void *ct_stack;               /* the alternate signal stack (malloc'd) */
  int ct_slot;                  /* index in crash_slots, -1 = none free */
} crash_thread_t;

static _Thread_local crash_thread_t *crash_self;
static _Thread_local const char *crash_text; /* the statement this thread runs */
static _Thread_local size_t crash_text_len;

/* ---- thread set-up ---------------------------------------------------- */

static void crash_thread_end(void *p)
{
  crash_thread_t *t = p;
  stack_t ss = {.ss_flags = SS_DISABLE};
  sigaltstack(&ss, NULL);
  if (t->ct_slot >= 0) {
    atomic_store(&crash_slots[t->ct_slot].cs_len, 0);
    atomic_store(&crash_slots[t->ct_slot].cs_used, false);
  }
  free(t->ct_stack);
  free(t);
  crash_self = NULL;
}

static void crash_key_init(void)
{
  pthread_key_create(&crash_key, crash_thread_end);
}

void crash_thread_init(void)
{
  if (crash_self || !atomic_load(&crash_installed))
    return;
  pthread_once(&crash_key_once, crash_key_init);
  crash_thread_t *t = calloc(1, sizeof *t);
  if (!t)
    return; /* the thread runs without: a crash on it logs less */
  t->ct_slot = -1;
  for (int i = 0; i < CRASH_SLOTS; i++) {
    bool f = false;
    if (atomic_compare_exchange_strong(&crash_slots[i].cs_used, &f, true)) {
      t->ct_slot = i;
      break;
    }
  }
  t->ct_stack = malloc(CRASH_ALTSTACK);
  if (t->ct_stack) {
    stack_t ss = {.ss_sp = t->ct_stack, .ss_size = CRASH_ALTSTACK};
    if (sigaltstack(&ss, NULL) != 0) {
      free(t->ct_stack);
      t->ct_stack = NULL;
    }
  }
  crash_self = t;
  pthread_setspecific(crash_key, t);
}

/* ---- the statement being run ------------------------------------------ */

static void crash_slot_store(const char *text, size_t len)
{
  if (!crash_self || crash_self->ct_slot < 0)
    return;
  crash_slot_t *s = &crash_slots[crash_self->ct_slot];
  size_t n = text ? CZ_MIN(len, (size_t)CRASH_HEAD) : 0;
  atomic_store(&s->cs_len, 0);
  if (n)
    memcpy(s->cs_head, text, n);
  atomic_store(&s->cs_len, n);
}

crash_stmt_t crash_stmt_enter(const char *text, size_t len)
{
  crash_stmt_t prev = {crash_text, crash_text_len};
  /* The handler may interrupt this thread between any two stores: it must
   * never see a pointer with another text's length. */
  crash_text = NULL;
  atomic_signal_fence(memory_order_seq_cst);
  crash_text_len = text ? len : 0;
  atomic_signal_fence(memory_order_seq_cst);
  crash_text = text;
  if (!crash_self)
    crash_thread_init(); /* a thread not started by thread_start */
  crash_slot_store(text, len);
  return prev;
}

void crash_stmt_leave(crash_stmt_t prev)
{
  crash_text = NULL; /* as in crash_stmt_enter */
  atomic_signal_fence(memory_order_seq_cst);
  crash_text_len = prev.cs_len;
  atomic_signal_fence(memory_order_seq_cst);
  crash_text = prev.cs_text;
  crash_slot_store(prev.cs_text, prev.cs_len);
}

/* ---- writing without malloc -------------------------------------------- */

typedef struct cw_s {
  char cw_buf[1024];
  size_t cw_n;
} cw_t;

static void cw_write_fd(int fd, const char *p, size_t n)
{
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return;
    p += w;
    n -= (size_t)w;
  }
}

static void cw_flush(cw_t *w)
{
  int fd = log_file_fd();
  if (fd >= 0)
    cw_write_fd(fd, w->cw_buf, w->cw_n);
  cw_write_fd(STDERR_FILENO, w->cw_buf, w->cw_n);
  w->cw_n = 0;
}

static void cw_char(cw_t *w, char c)
{
  if (w->cw_n == sizeof w->cw_buf)
    cw_flush(w);
  w->cw_buf[w->cw_n++] = c;
}

static void cw_str(cw_t *w, const char *s)
{
  while (*s)
    cw_char(w, *s++);
}

/* Statement text on one line: control characters become spaces. */
static void cw_text(cw_t *w, const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    cw_char(w, (unsigned char)s[i] < 0x20 ? ' ' : s[i]);
}

static void cw_num(cw_t *w, unsigned long v, unsigned base, int width)
{
  char d[24];
  int k = 0;
  do {
    d[k++] = "0123456789abcdef"[v % base];
    v /= base;
  } while (v && k < (int)sizeof d);
  while (k < width && k < (int)sizeof d)
    d[k++] = '0';
  while (k)
    cw_char(w, d[--k]);
}

static void cw_int(cw_t *w, long v)
{
  if (v < 0) {
    cw_char(w, '-');
    cw_num(w, (unsigned long)-(v + 1) + 1, 10, 0);
  } else {
    cw_num(w, (unsigned long)v, 10, 0);
  }
}

/* The log line's prefix "YYYY-MM-DD HH:MM:SS.mmm ERROR " from the clock
 * (async-signal-safe) and the offset taken at install (localtime_r may
 * take a lock). */
static void cw_prefix(cw_t *w)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  long t = (long)ts.tv_sec + crash_gmtoff;
  long days = t / 86400, sec = t % 86400;
  if (sec < 0) {
    sec += 86400;
    days--;
  }
  /* civil from days (Howard Hinnant's algorithm) */
  long z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
  long doe = z - era * 146097;
  long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  long doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
  long d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
  long y = yoe + era * 400 + (m <= 2);
  cw_num(w, (unsigned long)y, 10, 4);
  cw_char(w, '-');
  cw_num(w, (unsigned long)m, 10, 2);
  cw_char(w, '-');
  cw_num(w, (unsigned long)d, 10, 2);
  cw_char(w, ' ');
  cw_num(w, (unsigned long)(sec / 3600), 10, 2);
  cw_char(w, ':');
  cw_num(w, (unsigned long)(sec / 60 % 60), 10, 2);
  cw_char(w, ':');
  cw_num(w, (unsigned long)(sec % 60), 10, 2);
  cw_char(w, '.');
  cw_num(w, (unsigned long)(ts.tv_nsec / 1000000), 10, 3);
  cw_str(w, " ERROR ");
}

/* ---- the handler -------------------------------------------------------- */

static const char *crash_sig_name(int sig)
{
  switch (sig) {
  case SIGSEGV: return "SIGSEGV";
  case SIGBUS: return "SIGBUS";
  case SIGFPE: return "SIGFPE";
  case SIGILL: return "SIGILL";
  case SIGABRT: return "SIGABRT";
  default: return "signal";
  }
}

static const char *crash_code_name(int sig, int code)
{
  switch (code) {
  case SI_USER: return "SI_USER: sent by kill";
  case SI_TKILL: return "SI_TKILL: sent by raise or abort";
  case SI_QUEUE: return "SI_QUEUE";
  default: break;
  }
  if (sig == SIGSEGV)
    return code == SEGV_MAPERR ? "SEGV_MAPERR: address not mapped"
           : code == SEGV_ACCERR ? "SEGV_ACCERR: access not allowed" : "";
  if (sig == SIGBUS)
    return code == BUS_ADRALN ? "BUS_ADRALN" : code == BUS_ADRERR ? "BUS_ADRERR: no such address"
           : code == BUS_OBJERR ? "BUS_OBJERR" : "";
  if (sig == SIGFPE)
    return code == FPE_INTDIV ? "FPE_INTDIV: integer division by zero"
           : code == FPE_INTOVF ? "FPE_INTOVF: integer overflow"
           : code == FPE_FLTDIV ? "FPE_FLTDIV" : code == FPE_FLTOVF ? "FPE_FLTOVF"
           : code == FPE_FLTINV ? "FPE_FLTINV" : "";
  if (sig == SIGILL)
    return code == ILL_ILLOPC ? "ILL_ILLOPC: illegal opcode" : code == ILL_PRVOPC ? "ILL_PRVOPC"
           : "";
  return "";
}

static void crash_handler(int sig, siginfo_t *si, void *uc)
{
  (void)uc;
  int saved_errno = errno;
  long tid = (long)syscall(SYS_gettid);
  long none = 0;
  if (!atomic_compare_exchange_strong(&crash_owner, &none, tid)) {
    /* Another thread is logging: let it finish and end the process; end
     * it here should it hang. A fault of the logging thread itself found
     * SIG_DFL (SA_RESETHAND) unless it is another signal: die now. */
    if (none != tid)
      for (int i = 0; i < 30; i++)
        sleep(1);
    signal(sig, SIG_DFL);
    raise(sig);
    errno = saved_errno;
    return;
  }
  cw_t w;
  w.cw_n = 0;
  cw_prefix(&w);
  cw_str(&w, "server process ");
  cw_int(&w, (long)getpid());
  cw_str(&w, " (thread ");
  cw_int(&w, tid);
  cw_str(&w, ") got fatal signal ");
  cw_int(&w, sig);
  cw_str(&w, " (");
  cw_str(&w, crash_sig_name(sig));
  cw_str(&w, "), code ");
  cw_int(&w, si ? si->si_code : 0);
  const char *cn = crash_code_name(sig, si ? si->si_code : 0);
  if (*cn) {
    cw_str(&w, " (");
    cw_str(&w, cn);
    cw_char(&w, ')');
  }
  if (si && si->si_code <= 0) {
    cw_str(&w, ", from pid ");
    cw_int(&w, (long)si->si_pid);
  } else if (si) {
    cw_str(&w, ", address 0x");
    cw_num(&w, (unsigned long)(uintptr_t)si->si_addr, 16, 0);
  }
  cw_char(&w, '\n');
  cw_prefix(&w);
  cw_str(&w, "backtrace:\n");
  cw_flush(&w);
  void *frames[CRASH_FRAMES];
  int n = backtrace(frames, CRASH_FRAMES);
  int fd = log_file_fd();
  if (fd >= 0)
    backtrace_symbols_fd(frames, n, fd);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);

  int own = crash_self ? crash_self->ct_slot : -1;
  cw_prefix(&w);
  if (crash_text && crash_text_len) {
    cw_str(&w, "the crashing thread was running: ");
    cw_text(&w, crash_text, CZ_MIN(crash_text_len, (size_t)CRASH_STMT_MAX));
    if (crash_text_len > CRASH_STMT_MAX)
      cw_str(&w, " ...");
  } else {
    cw_str(&w, "the crashing thread was running no statement");
  }
  cw_char(&w, '\n');
  cw_flush(&w);
  /* Best effort: a statement may end (and its slot be rewritten) while it
   * is read here; the slot's memory is static, so the worst is a torn text. */
  for (int i = 0; i < CRASH_SLOTS; i++) {
    if (i == own || !atomic_load(&crash_slots[i].cs_used))
      continue;
    size_t len = atomic_load(&crash_slots[i].cs_len);
    if (len == 0 || len > CRASH_HEAD)
      continue;
    cw_prefix(&w);
    cw_str(&w, "another thread was running: ");
    cw_text(&w, crash_slots[i].cs_head, len);
    if (len == CRASH_HEAD)
      cw_str(&w, " ...");
    cw_char(&w, '\n');
    cw_flush(&w);
  }
  cw_prefix(&w);
  cw_str(&w, "terminating on signal ");
  cw_int(&w, sig);
  cw_str(&w, "; the next start recovers from the transaction log\n");
  cw_flush(&w);
  /* SA_RESETHAND has put back the default action; the signal stays blocked
   * until the handler returns, then kills the process (a fault would also
   * recur on return, but a signal sent by kill would not). */
  signal(sig, SIG_DFL);
  raise(sig);
  errno = saved_errno;
}

int crash_install(err_t *e)
{
  static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
  void *warm[2];
  backtrace(warm, 2); /* loads the unwinder now, while malloc works */
  time_t now = time(NULL);
  struct tm tm;
  if (localtime_r(&now, &tm))
    crash_gmtoff = tm.tm_gmtoff;
  atomic_store(&crash_installed, true);
  crash_thread_init();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = crash_handler;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < CZ_ARRAY_LEN(sigs); i++)
    if (sigaction(sigs[i], &sa, NULL) != 0)
      return err_set(e, SQLSTATE_INTERNAL, "sigaction %d: %s", sigs[i], strerror(errno));
  return CZ_OK;
}

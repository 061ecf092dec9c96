/* test_crash — kill -9 at random instants, recover, and check that no
 * acknowledged commit is lost and nothing partial or uncommitted appears.
 *
 * Each cycle starts crash_driver (next to this program) on the same
 * database, lets it commit for a random 20-400 ms, SIGKILLs it, then runs
 * crash_driver --verify with the last transaction each thread had
 * acknowledged (an "ack t i" line is printed only after txn_commit
 * returned). CZ_CRASH_KILLS sets the number of cycles (default 100),
 * CZ_TEST_SEED replays a run. Prints kills, acknowledged commits,
 * failures and the pages the drivers' pools wrote (checkpoint flushes,
 * the background writer and evictions); exits 1 on any failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cz_test.h"
#include "util/util.h"

#define K 4

typedef struct run_s {
  long r_acked[K];  /* highest acknowledged i per thread, over all cycles */
  long r_acks;      /* acknowledgements seen in all */
  long r_pool_run;  /* pages the pool of the running driver has written */
  long r_pool_all;  /* the same, summed over finished cycles */
  char r_line[256]; /* a partial line carried between reads */
  size_t r_line_len;
} run_t;

static void take_line(run_t *r, const char *line)
{
  int t;
  long i;
  if (sscanf(line, "pool %ld", &i) == 1)
    r->r_pool_run = i;
  else if (sscanf(line, "ack %d %ld", &t, &i) == 2 && t >= 0 && t < K) {
    r->r_acks++;
    if (i > r->r_acked[t])
      r->r_acked[t] = i;
  }
}

/* Consumes what the pipe has; false at end of file. */
static bool drain(run_t *r, int fd)
{
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return true;
  if (n <= 0)
    return false;
  for (ssize_t x = 0; x < n; x++) {
    if (buf[x] == '\n') {
      r->r_line[r->r_line_len] = 0;
      take_line(r, r->r_line);
      r->r_line_len = 0;
    } else if (r->r_line_len < sizeof r->r_line - 1) {
      r->r_line[r->r_line_len++] = buf[x];
    }
  }
  return true;
}

static pid_t spawn(char *const argv[], int out_fd)
{
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    if (out_fd >= 0)
      dup2(out_fd, STDOUT_FILENO);
    execv(argv[0], argv);
    fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  return pid;
}

/* One cycle: run, kill after ms, collect acks. Returns false when the
 * driver ended by itself (it failed). */
static bool run_and_kill(run_t *r, const char *driver, const char *dir, int ms)
{
  int p[2];
  if (pipe(p) != 0) {
    perror("pipe");
    exit(1);
  }
  char k[8];
  snprintf(k, sizeof k, "%d", K);
  char *argv[] = { (char *)driver, (char *)dir, k, NULL };
  pid_t pid = spawn(argv, p[1]);
  close(p[1]);
  r->r_line_len = 0;
  uint64_t deadline = time_now_ns() + (uint64_t)ms * 1000000;
  bool open = true;
  while (open) {
    uint64_t now = time_now_ns();
    if (now >= deadline)
      break;
    struct pollfd pfd = { .fd = p[0], .events = POLLIN };
    int left = (int)((deadline - now) / 1000000) + 1;
    if (poll(&pfd, 1, left) > 0)
      open = drain(r, p[0]);
  }
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  while (drain(r, p[0]))
    ;
  close(p[0]);
  r->r_pool_all += r->r_pool_run;
  r->r_pool_run = 0;
  if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
    return true;
  printf("driver ended by itself (status %d) before the kill\n", status);
  return false;
}

static bool verify(run_t *r, const char *driver, const char *dir)
{
  char k[8], acked[K][24];
  char *argv[5 + K];
  snprintf(k, sizeof k, "%d", K);
  argv[0] = (char *)driver;
  argv[1] = "--verify";
  argv[2] = (char *)dir;
  argv[3] = k;
  for (int t = 0; t < K; t++) {
    snprintf(acked[t], sizeof acked[t], "%ld", r->r_acked[t]);
    argv[4 + t] = acked[t];
  }
  argv[4 + K] = NULL;
  pid_t pid = spawn(argv, -1);
  int status;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
  char driver[PATH_MAX];
  const char *slash = strrchr(argv[0], '/');
  snprintf(driver, sizeof driver, "%.*scrash_driver", slash ? (int)(slash - argv[0] + 1) : 0, argv[0]);
  if (access(driver, X_OK) != 0) {
    fprintf(stderr, "test_crash: %s not found\n", driver);
    return 1;
  }
  const char *env = getenv("CZ_CRASH_KILLS");
  int kills = env ? atoi(env) : 100;
  uint64_t seed = cz_test_seed();
  srand((unsigned)seed);
  const char *dir = cz_test_tmpdir();
  run_t r;
  memset(&r, 0, sizeof r);
  for (int t = 0; t < K; t++)
    r.r_acked[t] = -1;
  int failures = 0;
  uint64_t start = time_now_ns();
  for (int c = 0; c < kills; c++) {
    int ms = 20 + rand() % 381;
    long before = r.r_acks;
    bool killed = run_and_kill(&r, driver, dir, ms);
    bool ok = verify(&r, driver, dir);
    printf("cycle %d: killed after %d ms, %ld acks%s%s\n", c + 1, ms, r.r_acks - before,
           killed ? "" : ", DRIVER FAILED", ok ? "" : ", VERIFY FAILED");
    fflush(stdout);
    if (!killed || !ok)
      failures++;
  }
  /* The verifier must be able to fail: claim a commit that never was. */
  printf("negative control: the verifier must reject a lost commit\n");
  fflush(stdout);
  r.r_acked[0] += 1000000;
  if (verify(&r, driver, dir)) {
    printf("the verifier accepted a lost commit\n");
    failures++;
  }
  printf("crash test: %d kills, %ld acknowledged commits, %d failures (%.1f s); "
         "the running drivers' pools wrote at least %ld pages\n",
         kills, r.r_acks, failures, (double)(time_now_ns() - start) / 1e9, r.r_pool_all);
  return failures ? 1 : 0;
}

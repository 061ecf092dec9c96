/* cadenza — the database server program: `cadenza -c cadenza.ini [-f]`.
 *
 * Design notes: reads the ini, becomes a daemon unless -f (fork, setsid,
 * stdio to /dev/null, a pid file; the parent waits on a pipe until the
 * child is listening, so its exit status says whether the server started),
 * opens the log file, opens (creates, recovers) the database, starts the
 * wire-protocol server and then waits for signals in the main thread, the
 * only one that does not block them: SIGTERM/SIGINT shut down cleanly
 * (stop accepting, end sessions rolling back open transactions,
 * checkpoint, exit 0); SIGHUP reopens the log file (for logrotate).
 * Fatal signals are logged with a backtrace and the statements being run
 * before the process dies (util/crash.c). The pid file is held with an
 * exclusive flock while the server runs: the lock, not the file's
 * existence, refuses a second server, so a crash's leftover does not
 * block the restart. The server's own files are registered with
 * util/fileguard.c, which SQL file functions consult.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/engine.h"
#include "net/httpserver.h"
#include "net/pgserver.h"
#include "util/util.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "unknown"
#endif

static void usage(FILE *f)
{
  fprintf(f,
          "usage: cadenza [-c cadenza.ini] [-f]\n"
          "  -c FILE   configuration file (default cadenza.ini)\n"
          "  -f        stay in the foreground (log to stderr as well)\n"
          "  -V        print the version\n");
}

/* "<folder of DatabaseFile>/<name>" for files that default to living
 * beside the database. */
static char *beside_database(const ini_t *ini, const char *name)
{
  const char *db = ini_get(ini, "Database", "DatabaseFile");
  if (!db)
    db = "cadenza.db";
  char *copy = strdup(db);
  char *dir = dirname(copy);
  size_t n = strlen(dir) + strlen(name) + 2;
  char *out = malloc(n);
  if (out)
    snprintf(out, n, "%s/%s", dir, name);
  free(copy);
  return out;
}

static char *path_key(const ini_t *ini, const char *section, const char *key, const char *dflt)
{
  const char *v = ini_get(ini, section, key);
  return v && v[0] ? strdup(v) : beside_database(ini, dflt);
}

/* Writes the pid file and keeps it open with an exclusive flock for the
 * server's life: the lock, not the file, says a server runs, so a pid file
 * left by a crash (its process gone, or a zombie not yet reaped) does not
 * stop a start, while a second server with the same pid file is refused.
 * The content is only rewritten once the lock is held. Returns the
 * descriptor (to keep) in *fd_out. */
static int pid_file_lock(const char *path, int *fd_out, err_t *e)
{
  *fd_out = -1;
  for (int attempt = 0; attempt < 10; attempt++) {
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0644);
    if (fd < 0)
      return err_set(e, SQLSTATE_IO_ERROR, "pid file %s: %s", path, strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int en = errno;
      char buf[32] = {0};
      ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
      close(fd);
      if (en == EWOULDBLOCK)
        return err_set(e, SQLSTATE_OBJECT_IN_USE,
                       "pid file %s is locked: a server (pid %ld) is running with this "
                       "pid file",
                       path, n > 0 ? strtol(buf, NULL, 10) : 0L);
      return err_set(e, SQLSTATE_IO_ERROR, "pid file %s: flock: %s", path, strerror(en));
    }
    /* A server stopping at this moment unlinks the file it locked: lock
     * the one that is on disk now. */
    struct stat held, now;
    if (fstat(fd, &held) != 0 || stat(path, &now) != 0 || held.st_dev != now.st_dev ||
        held.st_ino != now.st_ino) {
      close(fd);
      continue;
    }
    char buf[32];
    int n = snprintf(buf, sizeof buf, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
      int en = errno;
      close(fd);
      return err_set(e, SQLSTATE_IO_ERROR, "pid file %s: write failed: %s", path, strerror(en));
    }
    fg_protect_fd(fd, path, "the server's pid file");
    *fd_out = fd;
    return CZ_OK;
  }
  return err_set(e, SQLSTATE_OBJECT_IN_USE, "pid file %s keeps being replaced", path);
}

static void protect_if_file(int fd, const char *what)
{
  struct stat sb;
  if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
    fg_protect_fd(fd, NULL, what);
}

/* Forks; the parent waits for one byte on the pipe ('R' = listening) and
 * exits with the verdict. Returns the write end in the child. */
static int daemonize(const char *log_path)
{
  int p[2];
  if (pipe(p) != 0) {
    perror("pipe");
    exit(1);
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    exit(1);
  }
  if (pid > 0) {
    close(p[1]);
    char c = 0;
    ssize_t n;
    do
      n = read(p[0], &c, 1);
    while (n < 0 && errno == EINTR);
    if (n == 1 && c == 'R')
      exit(0);
    fprintf(stderr, "cadenza: the server did not start; see %s\n", log_path);
    exit(1);
  }
  close(p[0]);
  setsid();
  int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, STDIN_FILENO);
    dup2(devnull, STDOUT_FILENO);
    dup2(devnull, STDERR_FILENO);
    if (devnull > STDERR_FILENO)
      close(devnull);
  }
  return p[1];
}

/* jemalloc reads its options from this symbol: freed pages go back to the
 * system a second after the last use (dirty) and at once after that
 * (muzzy), so that an idle server's size reflects its buffer pool, not its
 * biggest past query; retain:false unmaps freed extents instead of keeping
 * the address space, so that memory given back (the emergency reserve
 * above all) is address space a limit such as RLIMIT_AS can grant again.
 * Ignored when jemalloc is not linked (sanitizers). */
const char *malloc_conf = "dirty_decay_ms:1000,muzzy_decay_ms:0,retain:false";

/* The emergency reserve (util/mem.c): lets a query that meets a malloc
 * failure fail with 53200 instead of the server aborting. */
#define CZ_MEM_RESERVE ((size_t)64 * 1024 * 1024)

int main(int argc, char **argv)
{
  const char *ini_path = "cadenza.ini";
  bool foreground = false;
  int opt;
  while ((opt = getopt(argc, argv, "c:fVh")) != -1) {
    switch (opt) {
    case 'c':
      ini_path = optarg;
      break;
    case 'f':
      foreground = true;
      break;
    case 'V':
      printf("Cadenza %s\n", PACKAGE_VERSION);
      return 0;
    case 'h':
      usage(stdout);
      return 0;
    default:
      usage(stderr);
      return 2;
    }
  }
  if (optind < argc) {
    usage(stderr);
    return 2;
  }

  err_t e;
  ini_t *ini = ini_load(ini_path, &e);
  if (!ini) {
    fprintf(stderr, "cadenza: %s\n", e.er_msg);
    return 1;
  }
  pgs_config_t cfg;
  hs_config_t http_cfg;
  if (pgs_config_load(ini, &cfg, &e) != CZ_OK || hs_config_load(ini, &http_cfg, &e) != CZ_OK) {
    fprintf(stderr, "cadenza: %s: %s\n", ini_path, e.er_msg);
    ini_free(ini);
    return 1;
  }
  char *log_path = path_key(ini, "Database", "ErrorLogFile", "cadenza.log");
  char *pid_path = path_key(ini, "Parameters", "PidFile", "cadenza.pid");
  if (!log_path || !pid_path) {
    fprintf(stderr, "cadenza: out of memory\n");
    return 1;
  }

  int ready_fd = -1;
  if (!foreground)
    ready_fd = daemonize(log_path);
  if (log_open_file(log_path, &e) != CZ_OK) {
    fprintf(stderr, "cadenza: %s\n", e.er_msg);
    return 1;
  }

  /* Every thread started from here inherits the mask; only sigwait below
   * takes these signals. */
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  signal(SIGPIPE, SIG_IGN);

  int status = 1;
  engine_t *eng = NULL;
  pgs_server_t *srv = NULL;
  hs_server_t *http = NULL;
  int pid_fd = -1;
  if (crash_install(&e) != CZ_OK)
    log_warn("fatal signals will not be logged: %s", e.er_msg);
  if (pid_file_lock(pid_path, &pid_fd, &e) != CZ_OK) {
    log_error("%s", e.er_msg);
    goto out;
  }
  /* The configuration may hold passwords: no SQL function may read it.
   * Standard output and error redirected to files (-f under a service
   * manager) take log lines too. */
  fg_protect_path(ini_path, "the server's configuration file");
  protect_if_file(STDOUT_FILENO, "the server's standard output");
  protect_if_file(STDERR_FILENO, "the server's standard error");
  log_info("Cadenza %s starting (configuration %s, pid %ld)", PACKAGE_VERSION, ini_path,
           (long)getpid());
  if (engine_open(ini, &eng, &e) != CZ_OK) {
    log_error("could not open the database: %s (%s)", e.er_msg, e.er_sqlstate);
    goto out;
  }
  mem_reserve_init(CZ_MEM_RESERVE);
  if (pgs_server_start(eng, &cfg, &srv, &e) != CZ_OK) {
    log_error("could not start the server: %s", e.er_msg);
    goto out;
  }
  log_info("Cadenza %s listening on %s", PACKAGE_VERSION, pgs_server_address(srv));
  if (foreground) {
    printf("Cadenza %s listening on %s\n", PACKAGE_VERSION, pgs_server_address(srv));
    fflush(stdout);
  }
  /* [HTTPServer] ServerPort absent: no HTTP server. */
  if (http_cfg.hc_port >= 0) {
    if (hs_server_start(eng, &http_cfg, &http, &e) != CZ_OK) {
      log_error("could not start the HTTP server: %s", e.er_msg);
      goto out;
    }
    log_info("SPARQL endpoint http://%s/sparql", hs_server_address(http));
    if (foreground) {
      printf("SPARQL endpoint http://%s/sparql\n", hs_server_address(http));
      fflush(stdout);
    }
  }
  if (ready_fd >= 0) {
    if (write(ready_fd, "R", 1) != 1)
      log_warn("could not tell the starting process: %s", strerror(errno));
    close(ready_fd);
    ready_fd = -1;
  }

  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0)
      continue;
    if (sig == SIGHUP) {
      if (log_open_file(log_path, &e) != CZ_OK)
        log_error("reopening the log: %s", e.er_msg);
      else
        log_info("log file reopened");
      continue;
    }
    log_info("signal %d: shutting down", sig);
    break;
  }
  status = 0;

out:
  if (http)
    hs_server_stop(http); /* running queries are cancelled */
  if (srv)
    pgs_server_stop(srv); /* sessions end, open transactions roll back */
  if (eng && engine_close(eng, &e) != CZ_OK) {
    log_error("closing the database: %s (%s)", e.er_msg, e.er_sqlstate);
    status = 1;
  }
  if (pid_fd >= 0) {
    unlink(pid_path); /* still locked: a starting server retries on the new file */
    fg_release_fd(pid_fd);
    close(pid_fd);
  }
  if (status == 0)
    log_info("shut down cleanly");
  if (ready_fd >= 0)
    close(ready_fd); /* the parent reports the failure */
  log_close_file();
  ini_free(ini);
  free(log_path);
  free(pid_path);
  return status;
}

/* log — timestamped log lines to stderr and, optionally, a file.
 *
 * Design notes: each line is formatted in full into a local buffer and then
 * handed to the kernel with a single write() per destination, so lines from
 * concurrent threads never interleave (stderr and the file are unbuffered
 * descriptors, not stdio streams). The file descriptor is swapped under a
 * mutex; the level is an atomic so the log_debug test costs one load.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/util.h"

#define LOG_LINE_MAX 4096

static _Atomic int log_level = LOG_INFO;
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
/* the log file, -1 when none; swapped under log_lock, atomic so that the
 * fatal-signal handler (crash.c) can read it without the lock */
static _Atomic int log_fd = -1;

static const char *const log_level_names[] = {"ERROR", "WARN", "INFO", "DEBUG"};

void log_set_level(log_level_t level)
{
  atomic_store_explicit(&log_level, (int)level, memory_order_relaxed);
}

log_level_t log_get_level(void)
{
  return (log_level_t)atomic_load_explicit(&log_level, memory_order_relaxed);
}

int log_open_file(const char *path, err_t *e)
{
  int fd = -1, old;
  if (path) {
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
      return err_set(e, SQLSTATE_IO_ERROR, "open log file %s: %s", path, strerror(errno));
    fg_protect_fd(fd, path, "the server's error log");
  }
  pthread_mutex_lock(&log_lock);
  old = log_fd;
  log_fd = fd;
  pthread_mutex_unlock(&log_lock);
  if (old >= 0) {
    fg_release_fd(old);
    close(old);
  }
  return CZ_OK;
}

int log_file_fd(void)
{
  return atomic_load(&log_fd);
}

void log_close_file(void)
{
  log_open_file(NULL, NULL);
}

/* Writes all of buf, retrying short writes; a log line that cannot be
 * written has nowhere to be reported, so errors are dropped. */
static void log_write_all(int fd, const char *buf, size_t len)
{
  while (len > 0) {
    ssize_t n = write(fd, buf, len);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return;
    }
    buf += n;
    len -= (size_t)n;
  }
}

/* "2026-11-22 14:00:00.123 INFO " into buf; returns its length. */
static size_t log_format_prefix(char *buf, size_t size, log_level_t level)
{
  struct timespec ts;
  struct tm tm;
  size_t n;

  clock_gettime(CLOCK_REALTIME, &ts);
  localtime_r(&ts.tv_sec, &tm);
  n = strftime(buf, size, "%Y-%m-%d %H:%M:%S", &tm);
  n += (size_t)snprintf(buf + n, size - n, ".%03ld %s ", ts.tv_nsec / 1000000L,
                        log_level_names[level]);
  return n;
}

void log_write(log_level_t level, const char *fmt, ...)
{
  char line[LOG_LINE_MAX];
  size_t n;
  int m;
  va_list ap;

  if ((int)level > atomic_load_explicit(&log_level, memory_order_relaxed))
    return;
  if ((unsigned)level >= CZ_ARRAY_LEN(log_level_names))
    level = LOG_DEBUG;
  n = log_format_prefix(line, sizeof line, level);
  va_start(ap, fmt);
  m = vsnprintf(line + n, sizeof line - n - 1, fmt, ap);
  va_end(ap);
  if (m < 0)
    m = 0;
  n += CZ_MIN((size_t)m, sizeof line - n - 2);
  line[n++] = '\n';

  log_write_all(STDERR_FILENO, line, n);
  pthread_mutex_lock(&log_lock);
  if (log_fd >= 0)
    log_write_all(log_fd, line, n);
  pthread_mutex_unlock(&log_lock);
}

/* fileguard — the set of the server's own files (database, stripes,
 * transaction log, ini, error log, pid file, TLS certificate and key,
 * temporary files), which no SQL function may read or write.
 *
 * Design notes: a file is known by its identity (st_dev, st_ino), taken
 * from the open descriptor where the server holds one, so that no spelling
 * of a path (symlinks, hard links, "..", "//", case) can reach it unseen;
 * the resolved path is kept as well, so that a file the server would
 * create again under its old name (a log removed by hand, reopened on
 * SIGHUP) is refused too. Each module registers its files where it opens
 * them and releases them where it closes them (a count per identity, since
 * the same file may be registered twice, e.g. by two engines of one unit
 * test). The set is small (tens of entries) and looked at only when a
 * statement opens a server file: a mutex and a linear scan are enough.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/util.h"

typedef struct fg_entry_s {
  dev_t fe_dev;
  ino_t fe_ino;
  int fe_refs;     /* registrations not yet released */
  char *fe_real;   /* resolved path when registered (malloc'd), NULL if unknown */
  bool fe_name_only; /* fg_protect_name: fe_dev / fe_ino mean nothing */
  const char *fe_what; /* static text: "the transaction log" */
} fg_entry_t;

static pthread_mutex_t fg_lock = PTHREAD_MUTEX_INITIALIZER;
static fg_entry_t *fg_set;  /* guarded by fg_lock */
static int fg_n, fg_cap;
static bool fg_incomplete; /* a registration was lost: every file counts as the server's */

static void fg_add(const struct stat *sb, const char *path, const char *what)
{
  char real[PATH_MAX];
  char *r = path && realpath(path, real) ? strdup(real) : NULL;
  pthread_mutex_lock(&fg_lock);
  for (int i = 0; i < fg_n; i++)
    if (sb ? !fg_set[i].fe_name_only && fg_set[i].fe_dev == sb->st_dev &&
                 fg_set[i].fe_ino == sb->st_ino
           : fg_set[i].fe_name_only && r && fg_set[i].fe_real && strcmp(fg_set[i].fe_real, r) == 0) {
      fg_set[i].fe_refs++;
      if (!fg_set[i].fe_real) {
        fg_set[i].fe_real = r;
        r = NULL;
      }
      pthread_mutex_unlock(&fg_lock);
      free(r);
      return;
    }
  if (fg_n == fg_cap) {
    int cap = fg_cap ? fg_cap * 2 : 16;
    fg_entry_t *n = realloc(fg_set, (size_t)cap * sizeof *n);
    if (!n) {
      /* Refusing every file beats forgetting one of the server's. */
      fg_incomplete = true;
      pthread_mutex_unlock(&fg_lock);
      free(r);
      log_error("out of memory registering %s: server files are refused to SQL", what);
      return;
    }
    fg_set = n;
    fg_cap = cap;
  }
  fg_set[fg_n++] = (fg_entry_t){.fe_dev = sb ? sb->st_dev : 0, .fe_ino = sb ? sb->st_ino : 0,
                                .fe_refs = 1, .fe_real = r, .fe_what = what,
                                .fe_name_only = !sb};
  pthread_mutex_unlock(&fg_lock);
}

void fg_protect_fd(int fd, const char *path, const char *what)
{
  struct stat sb;
  if (fd >= 0 && fstat(fd, &sb) == 0)
    fg_add(&sb, path, what);
}

void fg_protect_path(const char *path, const char *what)
{
  struct stat sb;
  if (path && stat(path, &sb) == 0)
    fg_add(&sb, path, what);
}

void fg_protect_name(const char *path, const char *what)
{
  char real[PATH_MAX];
  if (path && realpath(path, real))
    fg_add(NULL, path, what);
}

void fg_release_name(const char *path)
{
  char real[PATH_MAX];
  if (!path || !realpath(path, real))
    return;
  pthread_mutex_lock(&fg_lock);
  for (int i = 0; i < fg_n; i++)
    if (fg_set[i].fe_name_only && fg_set[i].fe_real && strcmp(fg_set[i].fe_real, real) == 0) {
      if (--fg_set[i].fe_refs == 0) {
        free(fg_set[i].fe_real);
        fg_set[i] = fg_set[--fg_n];
      }
      break;
    }
  pthread_mutex_unlock(&fg_lock);
}

void fg_release_fd(int fd)
{
  struct stat sb;
  if (fd < 0 || fstat(fd, &sb) != 0)
    return;
  pthread_mutex_lock(&fg_lock);
  for (int i = 0; i < fg_n; i++)
    if (!fg_set[i].fe_name_only && fg_set[i].fe_dev == sb.st_dev && fg_set[i].fe_ino == sb.st_ino) {
      if (--fg_set[i].fe_refs == 0) {
        free(fg_set[i].fe_real);
        fg_set[i] = fg_set[--fg_n];
      }
      break;
    }
  pthread_mutex_unlock(&fg_lock);
}

const char *fg_protected(const struct stat *sb, const char *real)
{
  pthread_mutex_lock(&fg_lock);
  const char *what = fg_incomplete ? "possibly a server file (a registration failed)" : NULL;
  for (int i = 0; i < fg_n && !what; i++) {
    if (sb && !fg_set[i].fe_name_only && fg_set[i].fe_dev == sb->st_dev &&
        fg_set[i].fe_ino == sb->st_ino)
      what = fg_set[i].fe_what;
    else if (real && fg_set[i].fe_real && strcmp(fg_set[i].fe_real, real) == 0)
      what = fg_set[i].fe_what;
  }
  pthread_mutex_unlock(&fg_lock);
  return what;
}

int fg_count(void)
{
  pthread_mutex_lock(&fg_lock);
  int n = fg_n;
  pthread_mutex_unlock(&fg_lock);
  return n;
}

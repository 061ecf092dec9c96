/* en_file — the one gate through which SQL reads or writes a file on the
 * server (today COPY … FROM/TO 'file', and the RDF loader's folders and
 * files through en_file_check_path; any later pg_read_file, lo_import or
 * lo_export must open its file here too).
 *
 * Design notes: a file is allowed when all of these hold, checked in this
 * order, so that the first refusal names the real reason:
 *   1. the session is a superuser (42501);
 *   2. the path is absolute (42602, as PostgreSQL's COPY);
 *   3. its resolved path (realpath; for a file still to be created, the
 *      resolved folder plus the name) lies in [Parameters] DirsAllowed
 *      (42501);
 *   4. it is none of the server's own files (util/fileguard.c: database,
 *      stripes, transaction log, ini, error log, pid file, TLS files,
 *      temporary files), compared by (st_dev, st_ino) and by resolved path,
 *      whatever DirsAllowed says (42501);
 *   5. it is a regular file on a real file system: no device, FIFO,
 *      socket, nor /proc or /sys file (42501; a folder is 42809).
 * The checks on the path are repeated on the descriptor after opening
 * (fstat, fstatfs), so a file swapped between check and open is caught:
 * the final name is opened with O_NOFOLLOW (a symlink planted there fails),
 * O_NOCTTY and O_NONBLOCK (a FIFO or a terminal cannot hang or adopt the
 * server), and a file to be written is opened without O_TRUNC and
 * truncated only once its descriptor has passed.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "engine/runner/runner_int.h"


/* f_type values of the kernel's pseudo file systems (linux/magic.h). */
#define EN_PROC_SUPER_MAGIC 0x9fa0
#define EN_SYSFS_MAGIC 0x62656572
#define EN_DEBUGFS_MAGIC 0x64626720
#define EN_SECURITYFS_MAGIC 0x73636673
#define EN_CGROUP_SUPER_MAGIC 0x27e0eb
#define EN_CGROUP2_SUPER_MAGIC 0x63677270

/* Whether the resolved path lies in one of the DirsAllowed folders (each
 * resolved now with realpath, relative ones against the working folder;
 * entries that do not resolve allow nothing). A folder allows itself and
 * everything under it, compared by whole path components. */
static bool en_dir_allowed(const engine_t *eng, const char *real)
{
  const char *d = eng->en_dirs_allowed;
  while (d && *d) {
    const char *end = strchr(d, ',');
    size_t n = end ? (size_t)(end - d) : strlen(d);
    const char *next = end ? end + 1 : NULL;
    while (n && (*d == ' ' || *d == '\t')) {
      d++;
      n--;
    }
    while (n && (d[n - 1] == ' ' || d[n - 1] == '\t'))
      n--;
    char entry[PATH_MAX], dir[PATH_MAX];
    if (n && n < sizeof(entry)) {
      memcpy(entry, d, n);
      entry[n] = '\0';
      if (realpath(entry, dir)) {
        size_t dl = strlen(dir);
        if (strncmp(real, dir, dl) == 0 &&
            (real[dl] == '\0' || real[dl] == '/' || (dl == 1 && dir[0] == '/')))
          return true;
      }
    }
    d = next;
  }
  return false;
}

/* The file's real path into real (PATH_MAX bytes). A file that does not
 * exist yet is its folder's real path plus its name, so a missing file
 * outside DirsAllowed is refused rather than reported missing. *missing
 * says the file itself does not exist. */
static int en_file_resolve(const char *path, char *real, bool *missing, err_t *e)
{
  *missing = false;
  if (path[0] != '/')
    return err_set(e, SQLSTATE_INVALID_NAME, "relative path not allowed for a server file: \"%s\"",
                   path);
  if (realpath(path, real))
    return CZ_OK;
  if (errno != ENOENT)
    return err_set(e, SQLSTATE_IO_ERROR, "could not open file \"%s\": %s", path, strerror(errno));
  *missing = true;
  const char *slash = strrchr(path, '/');
  const char *base = slash + 1;
  if (!*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0)
    return err_set(e, SQLSTATE_UNDEFINED_FILE, "could not open file \"%s\": %s", path,
                   strerror(ENOENT));
  size_t pl = slash == path ? 1 : (size_t)(slash - path);
  char parent[PATH_MAX];
  if (pl >= sizeof(parent))
    return err_set(e, SQLSTATE_IO_ERROR, "could not open file \"%s\": %s", path,
                   strerror(ENAMETOOLONG));
  memcpy(parent, path, pl);
  parent[pl] = '\0';
  if (!realpath(parent, real))
    return err_set(e, errno == ENOENT ? SQLSTATE_UNDEFINED_FILE : SQLSTATE_IO_ERROR,
                   "could not open file \"%s\": %s", path, strerror(errno));
  size_t rl = strlen(real);
  if (rl + strlen(base) + 2 > PATH_MAX)
    return err_set(e, SQLSTATE_IO_ERROR, "could not open file \"%s\": %s", path,
                   strerror(ENAMETOOLONG));
  snprintf(real + rl, PATH_MAX - rl, "%s%s", rl == 1 ? "" : "/", base);
  return CZ_OK;
}

static int en_file_refuse_own(const char *path, const char *what, err_t *e)
{
  return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                 "could not open file \"%s\": it is %s; the server's own files are never read "
                 "or written by SQL, whatever DirsAllowed says",
                 path, what);
}

/* Checks 4 and 5 on a file's status (from stat before opening, from fstat
 * and fstatfs after). fs may be NULL. */
static int en_file_check_stat(const char *path, const struct stat *sb, const struct statfs *fs,
                              err_t *e)
{
  const char *what = fg_protected(sb, NULL);
  if (what)
    return en_file_refuse_own(path, what, e);
  if (S_ISDIR(sb->st_mode))
    return err_set(e, SQLSTATE_WRONG_OBJECT_TYPE, "\"%s\" is a directory", path);
  if (!S_ISREG(sb->st_mode))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                   "could not open file \"%s\": not a regular file (a device, FIFO or socket "
                   "is never read or written by SQL)",
                   path);
  if (fs) {
    unsigned long t = (unsigned long)fs->f_type;
    if (t == EN_PROC_SUPER_MAGIC || t == EN_SYSFS_MAGIC || t == EN_DEBUGFS_MAGIC ||
        t == EN_SECURITYFS_MAGIC || t == EN_CGROUP_SUPER_MAGIC || t == EN_CGROUP2_SUPER_MAGIC)
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                     "could not open file \"%s\": a file of the kernel's (/proc, /sys) is never "
                     "read or written by SQL",
                     path);
  }
  return CZ_OK;
}

int en_file_check_path(void *session, const char *path, char *real, err_t *e)
{
  esession_t *s = session;
  if (!esession_is_superuser(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                   "permission denied to load RDF: only a superuser may read server files");
  if (!path)
    return CZ_OK;
  bool missing;
  if (en_file_resolve(path, real, &missing, e) != CZ_OK)
    return CZ_ERR;
  if (!en_dir_allowed(es_engine(s), real))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                   "permission denied to load RDF: \"%s\" is not in DirsAllowed", real);
  const char *what = fg_protected(NULL, real);
  if (what)
    return en_file_refuse_own(path, what, e);
  if (missing)
    return err_set(e, SQLSTATE_UNDEFINED_FILE, "could not open file \"%s\": %s", path,
                   strerror(ENOENT));
  return CZ_OK;
}

int en_file_open(esession_t *s, const char *op, const char *path, bool write, int *fd_out,
                 err_t *e)
{
  *fd_out = -1;
  if (!esession_is_superuser(s))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                   "permission denied to %s: only a superuser may read or write server files",
                   op);
  char real[PATH_MAX];
  bool missing;
  if (en_file_resolve(path, real, &missing, e) != CZ_OK)
    return CZ_ERR;
  if (!en_dir_allowed(es_engine(s), real))
    return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                   "permission denied to %s: \"%s\" is not in DirsAllowed", op, real);
  const char *what = fg_protected(NULL, real);
  if (what)
    return en_file_refuse_own(path, what, e);
  if (missing && !write)
    return err_set(e, SQLSTATE_UNDEFINED_FILE, "could not open file \"%s\" for reading: %s", path,
                   strerror(ENOENT));
  struct stat sb;
  if (!missing && stat(real, &sb) == 0 && en_file_check_stat(path, &sb, NULL, e) != CZ_OK)
    return CZ_ERR;

  int flags = O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK;
  flags |= write ? O_WRONLY | O_CREAT : O_RDONLY;
  int fd;
  do
    fd = open(real, flags, 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    int en = errno;
    if (en == ELOOP || en == ENXIO)
      return err_set(e, SQLSTATE_INSUFFICIENT_PRIVILEGE,
                     "could not open file \"%s\": it changed into a %s while being opened", path,
                     en == ELOOP ? "symbolic link" : "FIFO or device");
    return err_set(e, en == ENOENT ? SQLSTATE_UNDEFINED_FILE : SQLSTATE_IO_ERROR,
                   "could not open file \"%s\" for %s: %s", path, write ? "writing" : "reading",
                   strerror(en));
  }
  struct statfs fs;
  if (fstat(fd, &sb) != 0 || fstatfs(fd, &fs) != 0) {
    int en = errno;
    close(fd);
    return err_set(e, SQLSTATE_IO_ERROR, "could not open file \"%s\": %s", path, strerror(en));
  }
  if (en_file_check_stat(path, &sb, &fs, e) != CZ_OK) {
    close(fd);
    return CZ_ERR;
  }
  /* Blocking again (regular files ignore the flag, but say what we mean);
   * only now may a file to be written lose its old contents. */
  int fl = fcntl(fd, F_GETFL);
  if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0 || (write && ftruncate(fd, 0) != 0)) {
    int en = errno;
    close(fd);
    return err_set(e, SQLSTATE_IO_ERROR, "could not open file \"%s\" for %s: %s", path,
                   write ? "writing" : "reading", strerror(en));
  }
  *fd_out = fd;
  return CZ_OK;
}

void en_file_warn_config(const engine_t *eng, const ini_t *ini)
{
  const char *db = ini_get(ini, "Striping", "Stripe1");
  if (!db)
    db = ini_get(ini, "Database", "DatabaseFile");
  char real[PATH_MAX];
  if (db && realpath(db, real) && en_dir_allowed(eng, real))
    log_warn("[Parameters] DirsAllowed includes the database's folder: SQL cannot reach the "
             "server's own files, but give import and export files a folder of their own");
}

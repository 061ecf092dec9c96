/* st_file.c — the data files: opening and creating them, striping (where a
 * physical page lies), growth by whole extents, and the pread/pwrite
 * transfers with their short-transfer and EINTR handling.
 *
 * Design notes: extent e lives in stripe e % n at byte offset
 * (e / n) * ST_EXTENT_SIZE, so consecutive extents go to different files
 * (disks) and a stripe file holds whole extents only. Stripe 0 starts with
 * extent 0 and so holds the header; the other stripe files carry no header
 * of their own and are recognised by the count in stripe 0's header. All
 * I/O goes through the OS page cache (no O_DIRECT); durability comes from
 * fsync at checkpoints. An exclusive flock on every stripe file keeps a
 * second process from opening the same database or any of its files.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/storage_int.h"

#define ST_IOV_BATCH 256 /* pages per request; one extent, well under IOV_MAX */

static int open_file(storage_t *st, int i, const char *path, int flags, err_t *e)
{
  int fd;

  do
    fd = open(path, flags | O_RDWR | O_CLOEXEC, 0644);
  while (fd < 0 && errno == EINTR);
  if (fd < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "open %s: %s", path, strerror(errno));
  st->st_files[i].sf_fd = fd;
  st->st_files[i].sf_path = arena_strdup(st->st_arena, path);
  fg_protect_fd(fd, path, i == 0 ? "the database file" : "a stripe of the database");
  return CZ_OK;
}

static int64_t file_size(int fd)
{
  struct stat sb;

  return fstat(fd, &sb) == 0 ? (int64_t)sb.st_size : -1;
}

int st_files_open(storage_t *st, const st_config_t *cfg, bool *created, err_t *e)
{
  const char *paths[ST_MAX_STRIPES];
  int n = cfg->sc_n_stripes > 0 ? cfg->sc_n_stripes : 1;
  struct stat sb;

  if (n > ST_MAX_STRIPES)
    return err_set(e, SQLSTATE_CONFIG, "%d stripes: at most %d", n, ST_MAX_STRIPES);
  for (int i = 0; i < n; i++) {
    paths[i] = cfg->sc_n_stripes > 0 ? cfg->sc_stripes[i] : cfg->sc_path;
    if (i == 0 && !paths[0])
      paths[0] = cfg->sc_path;
    if (!paths[i] || !paths[i][0])
      return err_set(e, SQLSTATE_CONFIG, "database file %d: no path given", i + 1);
  }
  /* An empty stripe 0 (a file made by mktemp, say) counts as absent. */
  *created = stat(paths[0], &sb) != 0 ? errno == ENOENT : sb.st_size == 0;
  if (*created && !cfg->sc_create)
    return err_set(e, SQLSTATE_IO_ERROR, "open %s: database does not exist", paths[0]);
  for (int i = 0; i < n; i++) {
    if (*created && i > 0 && stat(paths[i], &sb) == 0 && sb.st_size > 0)
      return err_set(e, SQLSTATE_CONFIG,
                     "creating database %s: stripe file %s exists and is not empty", paths[0],
                     paths[i]);
    if (open_file(st, i, paths[i], *created ? O_CREAT : 0, e) != CZ_OK) {
      st_files_close(st);
      return CZ_ERR;
    }
    st->st_n_files = i + 1;
  }
  /* Every file is locked, not only stripe 0: a second server whose
   * stripe list shares any one file with ours must not write it. */
  for (int i = 0; i < n; i++)
    if (flk_lock_exclusive(st->st_files[i].sf_fd, paths[i],
                           i == 0 ? "database file" : "database stripe", e) != CZ_OK) {
      st_files_close(st);
      return CZ_ERR;
    }
  st->st_locked = true;
  return CZ_OK;
}

void st_files_close(storage_t *st)
{
  for (int i = 0; i < st->st_n_files; i++) {
    if (st->st_locked)
      flk_unlock(st->st_files[i].sf_fd);
    fg_release_fd(st->st_files[i].sf_fd);
    close(st->st_files[i].sf_fd);
  }
  st->st_n_files = 0;
  st->st_locked = false;
}

void st_locate(const storage_t *st, uint64_t phys, int *file, int64_t *off)
{
  uint64_t ext = phys / ST_EXTENT_PAGES;
  uint64_t n = (uint64_t)st->st_n_files;

  *file = (int)(ext % n);
  *off = (int64_t)((ext / n) * ST_EXTENT_SIZE + (phys % ST_EXTENT_PAGES) * ST_PAGE_SIZE);
}

int st_files_check_size(storage_t *st, uint64_t n_pages, err_t *e)
{
  uint64_t n_ext = n_pages / ST_EXTENT_PAGES;
  uint64_t n = (uint64_t)st->st_n_files;

  for (int i = 0; i < st->st_n_files; i++) {
    uint64_t exts = n_ext / n + ((uint64_t)i < n_ext % n ? 1 : 0);
    int64_t need = (int64_t)(exts * ST_EXTENT_SIZE);
    int64_t have = file_size(st->st_files[i].sf_fd);

    if (have < need)
      return err_set(e, SQLSTATE_DATA_CORRUPTED,
                     "database file %s is %lld bytes, its checkpoint image needs %lld",
                     st->st_files[i].sf_path, (long long)have, (long long)need);
  }
  return CZ_OK;
}

int st_file_grow(storage_t *st, uint32_t ext, err_t *e)
{
  int f;
  int64_t off;
  st_file_t *sf;
  int rc;

  st_locate(st, (uint64_t)ext * ST_EXTENT_PAGES, &f, &off);
  sf = &st->st_files[f];
  do
    rc = fallocate(sf->sf_fd, 0, off, ST_EXTENT_SIZE);
  while (rc != 0 && errno == EINTR);
  if (rc != 0 && (errno == EOPNOTSUPP || errno == ENOSYS)) {
    /* Filesystems without fallocate: a sparse extension does the job. */
    if (file_size(sf->sf_fd) >= off + ST_EXTENT_SIZE)
      return CZ_OK;
    do
      rc = ftruncate(sf->sf_fd, off + ST_EXTENT_SIZE);
    while (rc != 0 && errno == EINTR);
  }
  if (rc != 0) {
    if (errno == ENOSPC)
      return err_set(e, SQLSTATE_DISK_FULL, "growing %s to %lld bytes: %s", sf->sf_path,
                     (long long)(off + ST_EXTENT_SIZE), strerror(errno));
    return err_set(e, SQLSTATE_IO_ERROR, "growing %s to %lld bytes: %s", sf->sf_path,
                   (long long)(off + ST_EXTENT_SIZE), strerror(errno));
  }
  return CZ_OK;
}

void st_stat_io(storage_t *st, bool write, int pages)
{
  atomic_fetch_add_explicit(write ? &st->st_writes : &st->st_reads, 1, memory_order_relaxed);
  atomic_fetch_add_explicit(write ? &st->st_pages_written : &st->st_pages_read,
                            (uint64_t)pages, memory_order_relaxed);
}

/* One request; iov is consumed as the transfer advances. */
static int transfer(storage_t *st, int f, struct iovec *iov, int cnt, int64_t off, bool write,
                    err_t *e)
{
  st_file_t *sf = &st->st_files[f];
  int pages = 0;

  for (int i = 0; i < cnt; i++)
    pages += (int)(iov[i].iov_len / ST_PAGE_SIZE);
  while (cnt > 0) {
    ssize_t r = write ? pwritev(sf->sf_fd, iov, cnt, off) : preadv(sf->sf_fd, iov, cnt, off);

    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return err_set(e, SQLSTATE_IO_ERROR, "%s %s at offset %lld: %s", write ? "write" : "read",
                     sf->sf_path, (long long)off, strerror(errno));
    if (r == 0)
      return err_set(e, SQLSTATE_IO_ERROR, "%s %s at offset %lld: unexpected end of file",
                     write ? "write" : "read", sf->sf_path, (long long)off);
    off += r;
    while (cnt > 0 && (size_t)r >= iov->iov_len) {
      r -= (ssize_t)iov->iov_len;
      iov++;
      cnt--;
    }
    if (cnt > 0) {
      iov->iov_base = (uint8_t *)iov->iov_base + r;
      iov->iov_len -= (size_t)r;
    }
  }
  st_stat_io(st, write, pages);
  return CZ_OK;
}

int st_io_run(storage_t *st, st_pio_t *v, int n, bool write, err_t *e)
{
  struct iovec iov[ST_IOV_BATCH];
  int i = 0;

  while (i < n) {
    int f, f2, cnt = 0;
    int64_t off, off2;

    st_locate(st, v[i].pi_phys, &f, &off);
    do {
      iov[cnt].iov_base = v[i].pi_buf;
      iov[cnt].iov_len = ST_PAGE_SIZE;
      cnt++;
      i++;
      if (i < n)
        st_locate(st, v[i].pi_phys, &f2, &off2);
    } while (i < n && cnt < ST_IOV_BATCH && f2 == f && off2 == off + (int64_t)cnt * ST_PAGE_SIZE);
    if (transfer(st, f, iov, cnt, off, write, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

int st_io_pages(storage_t *st, uint64_t phys, int n, void *buf, bool write, err_t *e)
{
  while (n > 0) {
    /* An extent is contiguous in its stripe file: one request per extent. */
    int cnt = CZ_MIN(n, (int)(ST_EXTENT_PAGES - phys % ST_EXTENT_PAGES));
    struct iovec iov = {.iov_base = buf, .iov_len = (size_t)cnt * ST_PAGE_SIZE};
    int f;
    int64_t off;

    st_locate(st, phys, &f, &off);
    if (transfer(st, f, &iov, 1, off, write, e) != CZ_OK)
      return CZ_ERR;
    phys += (uint64_t)cnt;
    n -= cnt;
    buf = (uint8_t *)buf + (size_t)cnt * ST_PAGE_SIZE;
  }
  return CZ_OK;
}

int st_files_sync_dirs(storage_t *st, err_t *e)
{
  if (!st->st_do_sync)
    return CZ_OK;
  for (int i = 0; i < st->st_n_files; i++) {
    char *dir = arena_strdup(st->st_arena, st->st_files[i].sf_path);
    char *slash = strrchr(dir, '/');
    int fd;

    if (slash)
      *(slash == dir ? slash + 1 : slash) = '\0';
    else
      dir = ".";
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
      int err = errno;
      if (fd >= 0)
        close(fd);
      return err_set(e, SQLSTATE_IO_ERROR, "fsync of directory %s: %s", dir, strerror(err));
    }
    close(fd);
  }
  return CZ_OK;
}

int st_files_sync(storage_t *st, err_t *e)
{
  if (!st->st_do_sync)
    return CZ_OK;
  for (int i = 0; i < st->st_n_files; i++)
    if (fsync(st->st_files[i].sf_fd) != 0)
      return err_set(e, SQLSTATE_IO_ERROR, "fsync %s: %s", st->st_files[i].sf_path,
                     strerror(errno));
  return CZ_OK;
}

int st_sync(storage_t *st, err_t *e)
{
  return st_files_sync(st, e);
}

int st_drop_os_cache(storage_t *st, err_t *e)
{
  for (int i = 0; i < st->st_n_files; i++) {
    st_file_t *sf = &st->st_files[i];
    int rc;

    /* Dirty pages are not dropped: sync first, whatever sc_sync says. */
    if (fsync(sf->sf_fd) != 0)
      return err_set(e, SQLSTATE_IO_ERROR, "fsync %s: %s", sf->sf_path, strerror(errno));
    rc = posix_fadvise(sf->sf_fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc != 0)
      return err_set(e, SQLSTATE_IO_ERROR, "posix_fadvise %s: %s", sf->sf_path, strerror(rc));
  }
  return CZ_OK;
}

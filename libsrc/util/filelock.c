/* filelock — the exclusive lock a server holds on every file it writes
 * (database, stripes, transaction log), so that a second server aimed at
 * any one of them refuses to start instead of writing it too.
 *
 * Design notes: flock(2) on the descriptor the server keeps open. The
 * kernel drops the lock when the last descriptor of that open file goes
 * (at exit, kill -9 included), so a lock never outlives its process and a
 * stale lock cannot block a start. Each open(2) is its own open file
 * description, so a second open in the same process is refused as well.
 * Non-blocking: a server never waits for another one.
 */
#include <errno.h>
#include <string.h>
#include <sys/file.h>

#include "util/util.h"

int flk_lock_exclusive(int fd, const char *path, const char *what, err_t *e)
{
  int rc;
  do
    rc = flock(fd, LOCK_EX | LOCK_NB);
  while (rc != 0 && errno == EINTR);
  if (rc == 0)
    return CZ_OK;
  if (errno == EWOULDBLOCK)
    return err_set(e, SQLSTATE_OBJECT_IN_USE,
                   "%s %s is in use by another process (a server already runs on it)", what,
                   path);
  return err_set(e, SQLSTATE_IO_ERROR, "lock %s %s: %s", what, path, strerror(errno));
}

void flk_unlock(int fd)
{
  flock(fd, LOCK_UN);
}

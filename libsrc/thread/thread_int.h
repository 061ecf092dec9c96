/* thread_int — private helpers shared by the files of the thread module.
 *
 * Design notes: a pthread call that fails on a mutex or condition variable
 * the caller owns means memory corruption or a locking bug; continuing would
 * only move the damage, so th_check logs the call and aborts.
 */
#ifndef CZ_THREAD_INT_H
#define CZ_THREAD_INT_H

#include "thread/thread.h"

/* Logs "call failed: strerror(rc)" (or just call when rc is 0) and aborts. */
void th_check_failed(int rc, const char *call);

static inline void th_check(int rc, const char *call)
{
  if (CZ_UNLIKELY(rc != 0))
    th_check_failed(rc, call);
}

#endif /* CZ_THREAD_INT_H */

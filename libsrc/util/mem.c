/* mem — the process's memory: the emergency reserve and giving freed
 * memory back to the system.
 *
 * Design notes: arena_alloc cannot fail, so when malloc does (an address
 * space limit, overcommit off) the arena frees this reserve and retries;
 * the query that asked is marked over its budget and fails with 53200 at
 * its next check point, freeing what it held. The engine re-establishes
 * the reserve when that query has ended (mem_reserve_restore).
 *
 * Returning memory: jemalloc keeps freed pages for reuse and gives them
 * back after its decay time (set in the program's malloc_conf); after a
 * query that held much memory the engine asks for an immediate purge of
 * every jemalloc arena. mallctl is a weak reference so that builds without
 * jemalloc (the sanitizer build) link; they fall back to malloc_trim.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "util/util.h"

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static void *mem_reserve;       /* NULL while given back */
static size_t mem_reserve_size; /* 0 = no reserve wanted */

extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen)
  __attribute__((weak));

/* Not touched: the reserve is address space (what a limit such as
 * RLIMIT_AS refuses) and costs no resident memory while it waits. */
static void *reserve_alloc(size_t n)
{
  return malloc(n);
}

void mem_reserve_init(size_t bytes)
{
  pthread_mutex_lock(&mem_lock);
  mem_reserve_size = bytes;
  if (!mem_reserve && bytes > 0)
    mem_reserve = reserve_alloc(bytes);
  pthread_mutex_unlock(&mem_lock);
}

bool mem_reserve_release(void)
{
  pthread_mutex_lock(&mem_lock);
  void *p = mem_reserve;
  mem_reserve = NULL;
  pthread_mutex_unlock(&mem_lock);
  free(p);
  if (p)
    mem_return_to_os();
  return p != NULL;
}

void mem_reserve_restore(void)
{
  pthread_mutex_lock(&mem_lock);
  if (!mem_reserve && mem_reserve_size > 0) {
    mem_reserve = reserve_alloc(mem_reserve_size);
    if (mem_reserve)
      log_info("memory: emergency reserve of %zu bytes re-established", mem_reserve_size);
  }
  pthread_mutex_unlock(&mem_lock);
}

void mem_return_to_os(void)
{
  if (mallctl) {
    /* "arena.<MALLCTL_ARENAS_ALL>.purge": every arena's unused dirty pages. */
    char name[64];
    snprintf(name, sizeof name, "arena.%u.purge", 4096u);
    if (mallctl(name, NULL, NULL, NULL, 0) == 0)
      return;
  }
#if defined(__GLIBC__) && !defined(CZ_SANITIZE)
  malloc_trim(0);
#endif
}

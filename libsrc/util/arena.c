/* arena — a tree of memory contexts with bump allocation.
 *
 * Design notes: an arena owns a list of chunks. Small requests are carved
 * from the current chunk by moving a pointer; when it is exhausted a new
 * chunk twice the size of the last (8 KB up to 1 MB) becomes current.
 * Requests above ARENA_LARGE get a chunk of their own so that one big vector
 * does not waste the tail of a small chunk. Nothing is freed piecemeal: reset
 * frees every chunk but the current one (so a per-batch arena that is reset
 * in a loop stops calling malloc after the first batch), destroy frees all.
 *
 * Under CZ_SANITIZE every allocation is its own malloc so AddressSanitizer
 * reports overflows and use after reset at the exact allocation.
 *
 * Threads: an arena is used by one thread at a time. Only the links between
 * a parent and its children are shared (a server arena has session children
 * made by many threads), so those links are guarded by one process-wide
 * mutex; creating and destroying arenas is rare enough for that to be cheap.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define ARENA_ALIGN 16
#define ARENA_FIRST_CHUNK ((size_t)8 * 1024)
#define ARENA_MAX_CHUNK ((size_t)1024 * 1024)
#define ARENA_LARGE ((size_t)4 * 1024)
#define ARENA_NAME_LEN 32

#ifdef CZ_SANITIZE
#define ARENA_SEPARATE 1 /* every allocation its own malloc, for ASan */
#else
#define ARENA_SEPARATE 0
#endif

typedef struct arena_chunk_s {
  struct arena_chunk_s *ck_next;
  size_t ck_size; /* usable bytes after the header */
} arena_chunk_t;

/* The header is padded so that chunk data starts 16-byte aligned. */
#define ARENA_CHUNK_HDR \
  ((sizeof(arena_chunk_t) + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1))

struct arena_s {
  arena_t *ar_parent;
  arena_t *ar_first_child;
  arena_t *ar_next_sibling;
  arena_t *ar_prev_sibling;
  arena_chunk_t *ar_chunks; /* head is the current bump chunk */
  arena_chunk_t *ar_large;  /* dedicated chunks, freed at reset */
  char *ar_cur;             /* next free byte of the current chunk */
  char *ar_end;
  size_t ar_next_size;      /* size of the next regular chunk */
  size_t ar_used;           /* bytes handed out by this arena alone */
  char ar_name[ARENA_NAME_LEN];
};

static pthread_mutex_t arena_tree_lock = PTHREAD_MUTEX_INITIALIZER;

/* posix_memalign rather than malloc: the 16-byte promise must hold with
 * any allocator, including the sanitizer's. */
static void *arena_malloc_or_die(size_t n, const char *name)
{
  void *p = NULL;
  if (CZ_UNLIKELY(posix_memalign(&p, ARENA_ALIGN, n) != 0 || !p)) {
    log_error("out of memory: arena %s could not allocate %zu bytes", name, n);
    abort();
  }
  return p;
}

static void arena_free_list(arena_chunk_t *c)
{
  while (c) {
    arena_chunk_t *next = c->ck_next;
    free(c);
    c = next;
  }
}

arena_t *arena_create(arena_t *parent, const char *name)
{
  arena_t *a = arena_malloc_or_die(sizeof *a, name ? name : "?");
  memset(a, 0, sizeof *a);
  snprintf(a->ar_name, sizeof a->ar_name, "%s", name ? name : "");
  a->ar_next_size = ARENA_FIRST_CHUNK;
  if (parent) {
    pthread_mutex_lock(&arena_tree_lock);
    a->ar_parent = parent;
    a->ar_next_sibling = parent->ar_first_child;
    if (parent->ar_first_child)
      parent->ar_first_child->ar_prev_sibling = a;
    parent->ar_first_child = a;
    pthread_mutex_unlock(&arena_tree_lock);
  }
  return a;
}

static size_t arena_round(size_t n)
{
  return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

/* A chunk of its own, linked on ar_large. */
static void *arena_alloc_large(arena_t *a, size_t n)
{
  arena_chunk_t *c;
  if (n > SIZE_MAX - ARENA_CHUNK_HDR) {
    log_error("arena %s: request of %zu bytes is too large", a->ar_name, n);
    abort();
  }
  c = arena_malloc_or_die(ARENA_CHUNK_HDR + n, a->ar_name);
  c->ck_size = n;
  c->ck_next = a->ar_large;
  a->ar_large = c;
  return (char *)c + ARENA_CHUNK_HDR;
}

static void arena_new_chunk(arena_t *a)
{
  arena_chunk_t *c = arena_malloc_or_die(ARENA_CHUNK_HDR + a->ar_next_size, a->ar_name);
  c->ck_size = a->ar_next_size;
  c->ck_next = a->ar_chunks;
  a->ar_chunks = c;
  a->ar_cur = (char *)c + ARENA_CHUNK_HDR;
  a->ar_end = a->ar_cur + c->ck_size;
  if (a->ar_next_size < ARENA_MAX_CHUNK)
    a->ar_next_size *= 2;
}

void *arena_alloc(arena_t *a, size_t n)
{
  size_t r = arena_round(n ? n : 1);
  a->ar_used += n;
  if (ARENA_SEPARATE || r > ARENA_LARGE || r < n)
    return arena_alloc_large(a, n);
  if (CZ_UNLIKELY((size_t)(a->ar_end - a->ar_cur) < r))
    arena_new_chunk(a);
  a->ar_cur += r;
  return a->ar_cur - r;
}

void *arena_zalloc(arena_t *a, size_t n)
{
  void *p = arena_alloc(a, n);
  memset(p, 0, n);
  return p;
}

char *arena_strdup(arena_t *a, const char *s)
{
  size_t n = strlen(s) + 1;
  return memcpy(arena_alloc(a, n), s, n);
}

char *arena_sprintf(arena_t *a, const char *fmt, ...)
{
  va_list ap, ap2;
  int n;
  char *p;

  va_start(ap, fmt);
  va_copy(ap2, ap);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    va_end(ap2);
    return arena_strdup(a, "");
  }
  p = arena_alloc(a, (size_t)n + 1);
  vsnprintf(p, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return p;
}

static void arena_reset_self(arena_t *a)
{
  arena_free_list(a->ar_large);
  a->ar_large = NULL;
  if (a->ar_chunks) {
    /* Keep the current (largest) chunk for reuse. */
    arena_free_list(a->ar_chunks->ck_next);
    a->ar_chunks->ck_next = NULL;
    a->ar_cur = (char *)a->ar_chunks + ARENA_CHUNK_HDR;
    a->ar_end = a->ar_cur + a->ar_chunks->ck_size;
  }
  a->ar_used = 0;
}

static void arena_reset_tree(arena_t *a)
{
  arena_reset_self(a);
  for (arena_t *c = a->ar_first_child; c; c = c->ar_next_sibling)
    arena_reset_tree(c);
}

void arena_reset(arena_t *a)
{
  pthread_mutex_lock(&arena_tree_lock);
  arena_reset_tree(a);
  pthread_mutex_unlock(&arena_tree_lock);
}

/* Frees a and its subtree; a is already unlinked from its parent. */
static void arena_free_tree(arena_t *a)
{
  arena_t *c = a->ar_first_child;
  while (c) {
    arena_t *next = c->ar_next_sibling;
    arena_free_tree(c);
    c = next;
  }
  arena_free_list(a->ar_large);
  arena_free_list(a->ar_chunks);
  free(a);
}

void arena_destroy(arena_t *a)
{
  if (!a)
    return;
  pthread_mutex_lock(&arena_tree_lock);
  if (a->ar_parent) {
    if (a->ar_prev_sibling)
      a->ar_prev_sibling->ar_next_sibling = a->ar_next_sibling;
    else
      a->ar_parent->ar_first_child = a->ar_next_sibling;
    if (a->ar_next_sibling)
      a->ar_next_sibling->ar_prev_sibling = a->ar_prev_sibling;
  }
  arena_free_tree(a);
  pthread_mutex_unlock(&arena_tree_lock);
}

static size_t arena_bytes_tree(const arena_t *a)
{
  size_t n = a->ar_used;
  for (const arena_t *c = a->ar_first_child; c; c = c->ar_next_sibling)
    n += arena_bytes_tree(c);
  return n;
}

size_t arena_bytes_used(const arena_t *a)
{
  size_t n;
  pthread_mutex_lock(&arena_tree_lock);
  n = arena_bytes_tree(a);
  pthread_mutex_unlock(&arena_tree_lock);
  return n;
}

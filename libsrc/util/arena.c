/* arena — a tree of memory contexts with bump allocation.
 *
 * Design notes: an arena owns a list of chunks. Small requests are carved
 * from the current chunk by moving a pointer; when it is exhausted a new
 * chunk twice the size of the last (8 KB up to 1 MB) becomes current.
 * Requests above ARENA_LARGE get a chunk of their own so that one big vector
 * does not waste the tail of a small chunk. Nothing is freed piecemeal (except
 * a dedicated chunk given back by arena_free, for tables that double): reset
 * frees every chunk but the current one (so a per-batch arena that is reset
 * in a loop stops calling malloc after the first batch), destroy frees all.
 *
 * Under CZ_SANITIZE every allocation is its own malloc so AddressSanitizer
 * reports overflows and use after reset at the exact allocation.
 *
 * Budgets: every chunk (header included) is charged to the arena's budget
 * when malloced and uncharged when freed, so a budget's mb_used is exactly
 * the chunk memory its arenas hold; arena_set_budget moves the charge of
 * existing chunks. A failed malloc never aborts while the emergency reserve
 * (util/mem.c) can be given back: the reserve is freed, the malloc retried,
 * and the budget marked MEM_OVER_SYSTEM so that its query fails (53200) at
 * the next check point and frees what it holds.
 *
 * Threads: an arena is used by one thread at a time. Only the links between
 * a parent and its children are shared (a server arena has session children
 * made by many threads), so those links are guarded by one process-wide
 * mutex; creating and destroying arenas is rare enough for that to be cheap.
 */
#include <pthread.h>
#include <stdatomic.h>
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
  struct arena_chunk_s *ck_prev; /* ar_large only: arena_free unlinks in O(1) */
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
  mem_budget_t *ar_budget;  /* charged for every chunk; NULL = none */
  bool ar_scratch;          /* per-execution contents: arena_release_scratch */
  char ar_name[ARENA_NAME_LEN];
};

static pthread_mutex_t arena_tree_lock = PTHREAD_MUTEX_INITIALIZER;

static void budget_charge_one(mem_budget_t *b, size_t n)
{
  int64_t now = atomic_fetch_add(&b->mb_used, (int64_t)n) + (int64_t)n;
  int64_t peak = atomic_load(&b->mb_peak);
  while (now > peak && !atomic_compare_exchange_weak(&b->mb_peak, &peak, now))
    ;
  if (b->mb_limit > 0 && now > b->mb_limit && atomic_load(&b->mb_exceeded) == 0)
    atomic_store(&b->mb_exceeded, MEM_OVER_LIMIT);
}

/* The parent (the server's budget) is charged alongside; past its limit
 * the child is marked, not the parent: the query that took the total over
 * stops, the others go on. */
static void budget_charge(mem_budget_t *b, size_t n)
{
  if (!b)
    return;
  mem_budget_t *p = b->mb_parent;
  if (p) {
    int64_t now = atomic_fetch_add(&p->mb_used, (int64_t)n) + (int64_t)n;
    int64_t peak = atomic_load(&p->mb_peak);
    while (now > peak && !atomic_compare_exchange_weak(&p->mb_peak, &peak, now))
      ;
    if (p->mb_limit > 0 && now > p->mb_limit && atomic_load(&b->mb_exceeded) == 0)
      atomic_store(&b->mb_exceeded, MEM_OVER_SERVER);
  }
  budget_charge_one(b, n);
}

static void budget_uncharge(mem_budget_t *b, size_t n)
{
  if (!b)
    return;
  atomic_fetch_sub(&b->mb_used, (int64_t)n);
  if (b->mb_parent)
    atomic_fetch_sub(&b->mb_parent->mb_used, (int64_t)n);
}

/* Whether n more bytes would pass b's limit or its parent's; marks b. */
static bool budget_refuses(mem_budget_t *b, size_t n)
{
  if (!b)
    return false;
  if (b->mb_limit > 0 &&
      (n > (size_t)INT64_MAX || (int64_t)n > b->mb_limit - atomic_load(&b->mb_used))) {
    if (atomic_load(&b->mb_exceeded) == 0)
      atomic_store(&b->mb_exceeded, MEM_OVER_LIMIT);
    return true;
  }
  mem_budget_t *p = b->mb_parent;
  if (p && p->mb_limit > 0 &&
      (n > (size_t)INT64_MAX || (int64_t)n > p->mb_limit - atomic_load(&p->mb_used))) {
    if (atomic_load(&b->mb_exceeded) == 0)
      atomic_store(&b->mb_exceeded, MEM_OVER_SERVER);
    return true;
  }
  return false;
}

void mem_budget_set_parent(mem_budget_t *b, mem_budget_t *parent)
{
  b->mb_parent = parent;
}

int64_t mem_budget_room(const mem_budget_t *b)
{
  int64_t room = INT64_MAX;
  for (const mem_budget_t *x = b; x; x = x->mb_parent)
    if (x->mb_limit > 0) {
      int64_t r = x->mb_limit - atomic_load(&((mem_budget_t *)x)->mb_used);
      if (r < room)
        room = r;
    }
  return room;
}

void mem_budget_init(mem_budget_t *b, int64_t limit)
{
  atomic_init(&b->mb_used, 0);
  atomic_init(&b->mb_peak, 0);
  atomic_init(&b->mb_exceeded, 0);
  b->mb_limit = limit > 0 ? limit : 0;
  b->mb_parent = NULL;
}

int mem_budget_exceeded(const mem_budget_t *b)
{
  return b ? atomic_load(&((mem_budget_t *)b)->mb_exceeded) : 0;
}

bool mem_budget_try_charge(mem_budget_t *b, size_t n)
{
  if (!b)
    return true;
  if (budget_refuses(b, n))
    return false;
  budget_charge(b, n);
  return true;
}

void mem_budget_uncharge(mem_budget_t *b, size_t n)
{
  budget_uncharge(b, n);
}

static void *arena_memalign(size_t n)
{
  void *p = NULL;
  if (posix_memalign(&p, ARENA_ALIGN, n) != 0)
    return NULL;
  return p;
}

/* posix_memalign rather than malloc: the 16-byte promise must hold with
 * any allocator, including the sanitizer's. When the system refuses, the
 * emergency reserve is given back and the request retried once; only when
 * that fails too is there nothing left but to stop the server. */
static void *arena_malloc_or_die(size_t n, const char *name, mem_budget_t *b)
{
  void *p = arena_memalign(n);
  if (CZ_LIKELY(p != NULL))
    return p;
  if (b)
    atomic_store(&b->mb_exceeded, MEM_OVER_SYSTEM);
  bool had_reserve = mem_reserve_release();
  mem_return_to_os();  /* what jemalloc keeps dirty may be what the kernel lacks */
  p = arena_memalign(n);
  if (p) {
    log_warn("out of memory: arena %s could not allocate %zu bytes; %s, the query will be "
             "canceled", name, n, had_reserve ? "emergency reserve released" : "purged");
    return p;
  }
  log_error("out of memory: arena %s could not allocate %zu bytes", name, n);
  abort();
}

static void arena_free_list(arena_t *a, arena_chunk_t *c)
{
  while (c) {
    arena_chunk_t *next = c->ck_next;
    budget_uncharge(a->ar_budget, ARENA_CHUNK_HDR + c->ck_size);
    free(c);
    c = next;
  }
}

arena_t *arena_create(arena_t *parent, const char *name)
{
  arena_t *a = arena_malloc_or_die(sizeof *a, name ? name : "?", parent ? parent->ar_budget : NULL);
  memset(a, 0, sizeof *a);
  snprintf(a->ar_name, sizeof a->ar_name, "%s", name ? name : "");
  a->ar_next_size = ARENA_FIRST_CHUNK;
  if (parent) {
    pthread_mutex_lock(&arena_tree_lock);
    a->ar_parent = parent;
    a->ar_budget = parent->ar_budget;
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

/* Links c at the head of a's dedicated chunks. */
static void arena_link_large(arena_t *a, arena_chunk_t *c)
{
  c->ck_prev = NULL;
  c->ck_next = a->ar_large;
  if (a->ar_large)
    a->ar_large->ck_prev = c;
  a->ar_large = c;
}

/* A chunk of its own, linked on ar_large. */
static void *arena_alloc_large(arena_t *a, size_t n)
{
  arena_chunk_t *c;
  if (n > SIZE_MAX - ARENA_CHUNK_HDR) {
    log_error("arena %s: request of %zu bytes is too large", a->ar_name, n);
    abort();
  }
  c = arena_malloc_or_die(ARENA_CHUNK_HDR + n, a->ar_name, a->ar_budget);
  budget_charge(a->ar_budget, ARENA_CHUNK_HDR + n);
  c->ck_size = n;
  arena_link_large(a, c);
  return (char *)c + ARENA_CHUNK_HDR;
}

static void arena_new_chunk(arena_t *a)
{
  arena_chunk_t *c = arena_malloc_or_die(ARENA_CHUNK_HDR + a->ar_next_size, a->ar_name,
                                         a->ar_budget);
  budget_charge(a->ar_budget, ARENA_CHUNK_HDR + a->ar_next_size);
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

/* The budget check and malloc of arena_try_alloc: NULL (budget marked)
 * when need bytes would pass the limit or the system refuses them. */
static arena_chunk_t *arena_try_chunk(arena_t *a, size_t need)
{
  mem_budget_t *b = a->ar_budget;
  if (budget_refuses(b, need))
    return NULL;
  arena_chunk_t *c = arena_memalign(need);
  if (!c) {
    if (b)
      atomic_store(&b->mb_exceeded, MEM_OVER_SYSTEM);
    log_warn("out of memory: arena %s could not allocate %zu bytes; the query is canceled",
             a->ar_name, need);
    return NULL;
  }
  budget_charge(b, need);
  return c;
}

void *arena_try_alloc(arena_t *a, size_t n)
{
  size_t r = arena_round(n ? n : 1);
  if (!ARENA_SEPARATE && r >= n && r <= ARENA_LARGE) {
    /* A small request past the current chunk takes a new regular chunk, as
     * arena_alloc would: many small fallible requests (the strings of a row
     * store) must not each cost a malloc of their own. */
    if ((size_t)(a->ar_end - a->ar_cur) < r) {
      arena_chunk_t *c = arena_try_chunk(a, ARENA_CHUNK_HDR + a->ar_next_size);
      if (!c)
        return NULL;
      c->ck_size = a->ar_next_size;
      c->ck_next = a->ar_chunks;
      a->ar_chunks = c;
      a->ar_cur = (char *)c + ARENA_CHUNK_HDR;
      a->ar_end = a->ar_cur + c->ck_size;
      if (a->ar_next_size < ARENA_MAX_CHUNK)
        a->ar_next_size *= 2;
    }
    a->ar_used += n;
    a->ar_cur += r;
    return a->ar_cur - r;
  }
  if (n > SIZE_MAX - ARENA_CHUNK_HDR - ARENA_ALIGN)
    return NULL;
  arena_chunk_t *c = arena_try_chunk(a, ARENA_CHUNK_HDR + n);
  if (!c)
    return NULL;
  c->ck_size = n;
  arena_link_large(a, c);
  a->ar_used += n;
  return (char *)c + ARENA_CHUNK_HDR;
}

void *arena_try_zalloc(arena_t *a, size_t n)
{
  void *p = arena_try_alloc(a, n);
  if (p)
    memset(p, 0, n);
  return p;
}

void arena_free(arena_t *a, void *p, size_t n)
{
  size_t r = arena_round(n ? n : 1);
  if (!p || !(ARENA_SEPARATE || r > ARENA_LARGE || r < n))
    return;  /* carved from a regular chunk: lives until the reset */
  arena_chunk_t *c = (arena_chunk_t *)((char *)p - ARENA_CHUNK_HDR);
  if (c->ck_prev)
    c->ck_prev->ck_next = c->ck_next;
  else
    a->ar_large = c->ck_next;
  if (c->ck_next)
    c->ck_next->ck_prev = c->ck_prev;
  a->ar_used -= c->ck_size;
  budget_uncharge(a->ar_budget, ARENA_CHUNK_HDR + c->ck_size);
  free(c);
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
  arena_free_list(a, a->ar_large);
  a->ar_large = NULL;
  if (a->ar_chunks) {
    /* Keep the current (largest) chunk for reuse. */
    arena_free_list(a, a->ar_chunks->ck_next);
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
  arena_free_list(a, a->ar_large);
  arena_free_list(a, a->ar_chunks);
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

/* Frees every chunk of a, the kept one too. */
static void arena_release_self(arena_t *a)
{
  arena_free_list(a, a->ar_large);
  arena_free_list(a, a->ar_chunks);
  a->ar_large = NULL;
  a->ar_chunks = NULL;
  a->ar_cur = a->ar_end = NULL;
  a->ar_next_size = ARENA_FIRST_CHUNK;
  a->ar_used = 0;
}

static void arena_release_tree(arena_t *a, bool only_scratch)
{
  if (!only_scratch || a->ar_scratch)
    arena_release_self(a);
  for (arena_t *c = a->ar_first_child; c; c = c->ar_next_sibling)
    arena_release_tree(c, only_scratch && !a->ar_scratch);
}

void arena_release(arena_t *a)
{
  pthread_mutex_lock(&arena_tree_lock);
  arena_release_tree(a, false);
  pthread_mutex_unlock(&arena_tree_lock);
}

arena_t *arena_create_scratch(arena_t *parent, const char *name)
{
  arena_t *a = arena_create(parent, name);
  a->ar_scratch = true;  /* not yet seen by another thread: no lock needed */
  return a;
}

void arena_release_scratch(arena_t *root)
{
  pthread_mutex_lock(&arena_tree_lock);
  arena_release_tree(root, true);
  pthread_mutex_unlock(&arena_tree_lock);
}

static size_t arena_chunk_bytes(const arena_chunk_t *c)
{
  size_t n = 0;
  for (; c; c = c->ck_next)
    n += ARENA_CHUNK_HDR + c->ck_size;
  return n;
}

static void arena_set_budget_tree(arena_t *a, mem_budget_t *b)
{
  if (a->ar_budget != b) {
    size_t n = arena_chunk_bytes(a->ar_chunks) + arena_chunk_bytes(a->ar_large);
    budget_uncharge(a->ar_budget, n);
    budget_charge(b, n);
    a->ar_budget = b;
  }
  for (arena_t *c = a->ar_first_child; c; c = c->ar_next_sibling)
    arena_set_budget_tree(c, b);
}

void arena_set_budget(arena_t *a, mem_budget_t *b)
{
  pthread_mutex_lock(&arena_tree_lock);
  arena_set_budget_tree(a, b);
  pthread_mutex_unlock(&arena_tree_lock);
}

mem_budget_t *arena_budget(const arena_t *a)
{
  return a->ar_budget;
}

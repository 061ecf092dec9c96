/* sp_strmap — a string-keyed map in the parse's arena, for blank node
 * labels (the sharing check, the variables they become): a request may
 * carry hundreds of thousands of labels (INSERT DATA of a whole file), so
 * lookups must not be linear.
 *
 * Design notes: open addressing with linear probing, doubled at half full;
 * the old slots stay in the arena until it is reset (nothing here is freed
 * piecemeal). Keys are not copied: they live in the same arena.
 */
#include <string.h>

#include "sparql/sparql_int.h"

struct sp_strmap_s {
  arena_t *sm_arena;
  size_t sm_cap;          /* a power of two */
  size_t sm_n;
  const char **sm_keys;
  void **sm_vals;
};

sp_strmap_t *sp_strmap_new(arena_t *a)
{
  sp_strmap_t *m = arena_zalloc(a, sizeof *m);
  m->sm_arena = a;
  m->sm_cap = 64;
  m->sm_keys = arena_zalloc(a, m->sm_cap * sizeof(char *));
  m->sm_vals = arena_zalloc(a, m->sm_cap * sizeof(void *));
  return m;
}

static size_t sp_strmap_slot(const sp_strmap_t *m, const char *key)
{
  size_t i = (size_t)hash64(key, strlen(key), 0) & (m->sm_cap - 1);
  while (m->sm_keys[i] && strcmp(m->sm_keys[i], key) != 0)
    i = (i + 1) & (m->sm_cap - 1);
  return i;
}

void *sp_strmap_get(const sp_strmap_t *m, const char *key)
{
  size_t i = sp_strmap_slot(m, key);
  return m->sm_keys[i] ? m->sm_vals[i] : NULL;
}

void sp_strmap_put(sp_strmap_t *m, const char *key, void *val)
{
  if (2 * (m->sm_n + 1) > m->sm_cap) {
    sp_strmap_t old = *m;
    m->sm_cap *= 2;
    m->sm_n = 0;
    m->sm_keys = arena_zalloc(m->sm_arena, m->sm_cap * sizeof(char *));
    m->sm_vals = arena_zalloc(m->sm_arena, m->sm_cap * sizeof(void *));
    for (size_t j = 0; j < old.sm_cap; j++)
      if (old.sm_keys[j])
        sp_strmap_put(m, old.sm_keys[j], old.sm_vals[j]);
  }
  size_t i = sp_strmap_slot(m, key);
  if (!m->sm_keys[i]) {
    m->sm_keys[i] = key;
    m->sm_n++;
  }
  m->sm_vals[i] = val;
}

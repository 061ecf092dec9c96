/* test_rwlatch — the futex read-write latch: exclusion, sharing, try
 * variants, writer preference, cross-thread release, and a hard stress. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdatomic.h>
#include <stdlib.h>

#include "cz_test.h"
#include "thread/thread.h"

/* Waits up to about 5 s for *flag to reach at least want. */
static bool wait_for_at_least(_Atomic long *flag, long want)
{
  for (int i = 0; i < 5000 && atomic_load(flag) < want; i++)
    time_sleep_us(1000);
  return atomic_load(flag) >= want;
}

/* Waits up to about 5 s until a writer waits on l, i.e. new readers are
 * turned away. */
static bool wait_for_waiting_writer(rwlatch_t *l)
{
  for (int i = 0; i < 5000; i++) {
    if (!rwl_try_shared(l))
      return true;
    rwl_unlock_shared(l);
    time_sleep_us(1000);
  }
  return false;
}

static void test_rwl_zeroed_memory_is_unlatched(void **state)
{
  rwlatch_t *l = calloc(4, sizeof *l);
  (void)state;
  assert_false(rwl_is_excl(&l[2]));
  assert_true(rwl_try_excl(&l[2]));
  assert_true(rwl_is_excl(&l[2]));
  rwl_unlock_excl(&l[2]);
  assert_true(rwl_try_shared(&l[3]));
  rwl_unlock_shared(&l[3]);
  free(l);
}

static void test_rwl_try_variants(void **state)
{
  rwlatch_t l;
  (void)state;
  rwl_init(&l);
  assert_true(rwl_try_shared(&l));
  assert_true(rwl_try_shared(&l)); /* readers share */
  assert_false(rwl_try_excl(&l));
  assert_false(rwl_is_excl(&l));
  rwl_unlock_shared(&l);
  assert_false(rwl_try_excl(&l)); /* one reader left */
  rwl_unlock_shared(&l);
  assert_true(rwl_try_excl(&l));
  assert_false(rwl_try_excl(&l));
  assert_false(rwl_try_shared(&l));
  rwl_unlock_excl(&l);
  rwl_lock_excl(&l);
  assert_true(rwl_is_excl(&l));
  rwl_unlock_excl(&l);
  rwl_lock_shared(&l);
  assert_false(rwl_try_excl(&l));
  rwl_unlock_shared(&l);
  assert_int_equal(atomic_load(&l.rl_state), 0);
}

/* ---- stress: writers increment two plain counters, readers check them -- */

#define STRESS_WRITERS 4
#define STRESS_READERS 4
#define STRESS_ITERS 20000

typedef struct stress_s {
  rwlatch_t st_latch;
  uint64_t st_a, st_b;   /* plain, not atomic: the latch is the only guard */
  _Atomic int st_done;   /* writers finished */
  _Atomic long st_bad;   /* invariant violations seen by readers */
  _Atomic long st_reads;
} stress_t;

static void *stress_writer(void *arg)
{
  stress_t *s = arg;
  for (int i = 0; i < STRESS_ITERS; i++) {
    if (i % 8 == 0) {
      while (!rwl_try_excl(&s->st_latch))
        ;
    } else {
      rwl_lock_excl(&s->st_latch);
    }
    s->st_a++;
    if (i % 1000 == 0)
      time_sleep_us(50); /* forces waiters onto the futex */
    s->st_b++;
    rwl_unlock_excl(&s->st_latch);
  }
  atomic_fetch_add(&s->st_done, 1);
  return NULL;
}

static void *stress_reader(void *arg)
{
  stress_t *s = arg;
  while (atomic_load(&s->st_done) < STRESS_WRITERS) {
    if (atomic_load(&s->st_reads) % 4 == 0) {
      if (!rwl_try_shared(&s->st_latch))
        continue;
    } else {
      rwl_lock_shared(&s->st_latch);
    }
    if (rwl_is_excl(&s->st_latch) || s->st_a != s->st_b)
      atomic_fetch_add(&s->st_bad, 1);
    atomic_fetch_add(&s->st_reads, 1);
    rwl_unlock_shared(&s->st_latch);
  }
  return NULL;
}

static void test_rwl_stress_exclusion_and_invariant(void **state)
{
  stress_t *s = calloc(1, sizeof *s);
  cz_thread_t w[STRESS_WRITERS], r[STRESS_READERS];
  err_t e;
  (void)state;
  for (int i = 0; i < STRESS_READERS; i++)
    assert_int_equal(thread_start(&r[i], stress_reader, s, &e), CZ_OK);
  for (int i = 0; i < STRESS_WRITERS; i++)
    assert_int_equal(thread_start(&w[i], stress_writer, s, &e), CZ_OK);
  for (int i = 0; i < STRESS_WRITERS; i++)
    thread_join(&w[i]);
  for (int i = 0; i < STRESS_READERS; i++)
    thread_join(&r[i]);
  assert_int_equal(s->st_a, (uint64_t)STRESS_WRITERS * STRESS_ITERS);
  assert_int_equal(s->st_b, s->st_a);
  assert_int_equal(atomic_load(&s->st_bad), 0);
  assert_true(atomic_load(&s->st_reads) > 0);
  assert_int_equal(atomic_load(&s->st_latch.rl_state), 0);
  free(s);
}

/* ---- writer preference ------------------------------------------------- */

typedef struct pref_s {
  rwlatch_t pf_latch;
  _Atomic int pf_writer_in;   /* writer holds the latch */
  _Atomic int pf_writer_done; /* writer has released */
  _Atomic int pf_reader_in;   /* the late reader got the latch */
  _Atomic int pf_reader_saw_writer_done;
} pref_t;

static void *pref_writer(void *arg)
{
  pref_t *p = arg;
  rwl_lock_excl(&p->pf_latch);
  atomic_store(&p->pf_writer_in, 1);
  time_sleep_us(20000);
  atomic_store(&p->pf_writer_done, 1);
  rwl_unlock_excl(&p->pf_latch);
  return NULL;
}

static void *pref_late_reader(void *arg)
{
  pref_t *p = arg;
  rwl_lock_shared(&p->pf_latch);
  atomic_store(&p->pf_reader_saw_writer_done, atomic_load(&p->pf_writer_done));
  atomic_store(&p->pf_reader_in, 1);
  rwl_unlock_shared(&p->pf_latch);
  return NULL;
}

/* A reader holds the latch and a writer waits: a reader arriving now must
 * wait behind the writer instead of joining the first reader. */
static void test_rwl_new_readers_wait_for_waiting_writer(void **state)
{
  pref_t *p = calloc(1, sizeof *p);
  cz_thread_t w, r;
  err_t e;
  (void)state;
  rwl_lock_shared(&p->pf_latch);
  thread_start(&w, pref_writer, p, &e);
  /* The writer announces itself: try_shared starts failing. */
  assert_true(wait_for_waiting_writer(&p->pf_latch));
  thread_start(&r, pref_late_reader, p, &e);
  time_sleep_us(20000);
  assert_int_equal(atomic_load(&p->pf_reader_in), 0);
  assert_int_equal(atomic_load(&p->pf_writer_in), 0);
  rwl_unlock_shared(&p->pf_latch);
  thread_join(&w);
  thread_join(&r);
  assert_int_equal(atomic_load(&p->pf_reader_in), 1);
  assert_int_equal(atomic_load(&p->pf_reader_saw_writer_done), 1);
  free(p);
}

/* Overlapping readers never let the reader count reach zero; a writer must
 * still get in promptly. */
typedef struct starve_s {
  rwlatch_t sv_latch;
  _Atomic int sv_stop;
  _Atomic long sv_reads;
} starve_t;

static void *starve_reader(void *arg)
{
  starve_t *s = arg;
  while (!atomic_load(&s->sv_stop)) {
    rwl_lock_shared(&s->sv_latch);
    atomic_fetch_add(&s->sv_reads, 1);
    time_sleep_us(200);
    rwl_unlock_shared(&s->sv_latch);
  }
  return NULL;
}

static void test_rwl_reader_stream_does_not_starve_writer(void **state)
{
  starve_t *s = calloc(1, sizeof *s);
  cz_thread_t r[4];
  err_t e;
  uint64_t t0, waited;
  (void)state;
  for (int i = 0; i < 4; i++)
    thread_start(&r[i], starve_reader, s, &e);
  assert_true(wait_for_at_least(&s->sv_reads, 20));
  for (int round = 0; round < 5; round++) {
    t0 = time_now_ns();
    rwl_lock_excl(&s->sv_latch);
    waited = time_now_ns() - t0;
    rwl_unlock_excl(&s->sv_latch);
    /* A reader holds for 200 us; a second is starvation, not scheduling. */
    assert_true(waited < 1000000000u);
    time_sleep_us(1000);
  }
  atomic_store(&s->sv_stop, 1);
  for (int i = 0; i < 4; i++)
    thread_join(&r[i]);
  free(s);
}

/* ---- release by another thread ----------------------------------------- */

static void *unlock_excl_thread(void *arg)
{
  rwl_unlock_excl(arg);
  return NULL;
}

static void *unlock_shared_thread(void *arg)
{
  rwl_unlock_shared(arg);
  return NULL;
}

static void test_rwl_release_by_other_thread(void **state)
{
  rwlatch_t l;
  cz_thread_t t;
  err_t e;
  (void)state;
  rwl_init(&l);
  rwl_lock_excl(&l);
  thread_start(&t, unlock_excl_thread, &l, &e);
  thread_join(&t);
  assert_false(rwl_is_excl(&l));
  rwl_lock_shared(&l);
  thread_start(&t, unlock_shared_thread, &l, &e);
  thread_join(&t);
  assert_true(rwl_try_excl(&l));
  rwl_unlock_excl(&l);
}

/* ---- sleepers are woken ------------------------------------------------ */

typedef struct sleepers_s {
  rwlatch_t sl_latch;
  _Atomic int sl_through;
} sleepers_t;

static void *sleeper_reader(void *arg)
{
  sleepers_t *s = arg;
  rwl_lock_shared(&s->sl_latch);
  atomic_fetch_add(&s->sl_through, 1);
  rwl_unlock_shared(&s->sl_latch);
  return NULL;
}

static void *sleeper_writer(void *arg)
{
  sleepers_t *s = arg;
  rwl_lock_excl(&s->sl_latch);
  atomic_fetch_add(&s->sl_through, 1);
  rwl_unlock_excl(&s->sl_latch);
  return NULL;
}

/* Waiters that gave up spinning and sleep in the kernel all wake and pass
 * when the holder leaves. */
static void test_rwl_sleeping_waiters_all_wake(void **state)
{
  sleepers_t *s = calloc(1, sizeof *s);
  cz_thread_t t[8];
  err_t e;
  (void)state;
  rwl_lock_excl(&s->sl_latch);
  for (int i = 0; i < 8; i++)
    thread_start(&t[i], i % 3 == 0 ? sleeper_writer : sleeper_reader, s, &e);
  time_sleep_us(50000); /* long past the spin phase */
  assert_int_equal(atomic_load(&s->sl_through), 0);
  rwl_unlock_excl(&s->sl_latch);
  for (int i = 0; i < 8; i++)
    thread_join(&t[i]);
  assert_int_equal(atomic_load(&s->sl_through), 8);
  assert_int_equal(atomic_load(&s->sl_latch.rl_state), 0);
  free(s);
}

/* ---- many latches, random ops (seeded) --------------------------------- */

#define MANY_LATCHES 8
#define MANY_THREADS 6
#define MANY_OPS 20000

typedef struct many_s {
  rwlatch_t mn_latch[MANY_LATCHES];
  long mn_count[MANY_LATCHES]; /* plain; written only under excl */
  long mn_shadow[MANY_LATCHES];
  _Atomic long mn_bad;
  uint64_t mn_seed;
  _Atomic int mn_next_id;
  long mn_writes[MANY_THREADS][MANY_LATCHES];
} many_t;

static void *many_thread(void *arg)
{
  many_t *m = arg;
  int id = atomic_fetch_add(&m->mn_next_id, 1);
  uint64_t rng = hash64_int(m->mn_seed + (uint64_t)id);
  for (int i = 0; i < MANY_OPS; i++) {
    rng = hash64_int(rng);
    int k = (int)(rng % MANY_LATCHES);
    if ((rng >> 8) % 4 == 0) {
      rwl_lock_excl(&m->mn_latch[k]);
      m->mn_count[k]++;
      m->mn_shadow[k]++;
      m->mn_writes[id][k]++;
      rwl_unlock_excl(&m->mn_latch[k]);
    } else {
      rwl_lock_shared(&m->mn_latch[k]);
      if (m->mn_count[k] != m->mn_shadow[k])
        atomic_fetch_add(&m->mn_bad, 1);
      rwl_unlock_shared(&m->mn_latch[k]);
    }
  }
  return NULL;
}

static void test_rwl_random_ops_on_many_latches(void **state)
{
  many_t *m = calloc(1, sizeof *m);
  cz_thread_t t[MANY_THREADS];
  err_t e;
  (void)state;
  m->mn_seed = cz_test_seed();
  for (int i = 0; i < MANY_THREADS; i++)
    thread_start(&t[i], many_thread, m, &e);
  for (int i = 0; i < MANY_THREADS; i++)
    thread_join(&t[i]);
  assert_int_equal(atomic_load(&m->mn_bad), 0);
  for (int k = 0; k < MANY_LATCHES; k++) {
    long want = 0;
    for (int i = 0; i < MANY_THREADS; i++)
      want += m->mn_writes[i][k];
    assert_int_equal(m->mn_count[k], want);
    assert_int_equal(atomic_load(&m->mn_latch[k].rl_state), 0);
  }
  free(m);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rwl_zeroed_memory_is_unlatched),
      cmocka_unit_test(test_rwl_try_variants),
      cmocka_unit_test(test_rwl_stress_exclusion_and_invariant),
      cmocka_unit_test(test_rwl_new_readers_wait_for_waiting_writer),
      cmocka_unit_test(test_rwl_reader_stream_does_not_starve_writer),
      cmocka_unit_test(test_rwl_release_by_other_thread),
      cmocka_unit_test(test_rwl_sleeping_waiters_all_wake),
      cmocka_unit_test(test_rwl_random_ops_on_many_latches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}

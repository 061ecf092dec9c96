/* rwlatch — a 32-bit read-write latch: atomic state, brief spin, futex sleep.
 *
 * Design notes. The whole latch is rl_state:
 *   bit 31  RWL_WRITER   a writer holds the latch
 *   bit 30  RWL_WWAIT    a writer is waiting: new readers must wait
 *   bit 29  RWL_SLEEPERS some thread may be asleep on the futex
 *   0..28   reader count
 * All-zero is an unlatched latch, so calloc'ed frames need no init.
 *
 * Acquire and release are one compare-and-swap or fetch-add when
 * uncontended; no system call is made unless RWL_SLEEPERS is set. A thread
 * that cannot get the latch spins RWL_SPIN times with a pause instruction,
 * then sets RWL_SLEEPERS and sleeps in FUTEX_WAIT on the exact value it saw,
 * so a change made between its look and its sleep makes the kernel return at
 * once instead of losing the wake-up. A release that may unblock someone
 * (last reader out, or writer out) clears RWL_SLEEPERS in the same atomic
 * step and wakes all sleepers, who retry; latches are held briefly, so the
 * herd is small and this keeps the state free of waiter counts.
 *
 * Writer preference: a writer that finds the latch busy sets RWL_WWAIT, and
 * readers do not enter while it is set, so the current readers drain and the
 * writer gets in. RWL_WWAIT is set only by a writer inside rwl_lock_excl and
 * cleared only when some writer acquires, so whenever it is set a writer is
 * still waiting and the flag cannot strand readers. A writer leaving keeps
 * RWL_WWAIT: the next waiting writer goes before the waiting readers.
 * Consequence: a thread must not take a shared latch it already holds
 * shared (a waiting writer would block it forever).
 *
 * There is no owner: any thread may release (cursors migrate between
 * workers). Memory order: acquire on every lock, release on every unlock.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "thread/thread_int.h"

#define RWL_WRITER 0x80000000u
#define RWL_WWAIT 0x40000000u
#define RWL_SLEEPERS 0x20000000u
#define RWL_READERS 0x1fffffffu
#define RWL_SPIN 100

static inline void rwl_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

static void rwl_futex_wait(rwlatch_t *l, uint32_t expected)
{
  /* EAGAIN (the value changed) and EINTR both mean: look again. */
  syscall(SYS_futex, (uint32_t *)&l->rl_state, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void rwl_futex_wake_all(rwlatch_t *l)
{
  syscall(SYS_futex, (uint32_t *)&l->rl_state, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* After spinning, announce a sleeper and sleep while the state is s. */
static void rwl_sleep(rwlatch_t *l, uint32_t s)
{
  if (!(s & RWL_SLEEPERS)) {
    if (!atomic_compare_exchange_weak_explicit(&l->rl_state, &s, s | RWL_SLEEPERS,
                                               memory_order_relaxed, memory_order_relaxed))
      return;
    s |= RWL_SLEEPERS;
  }
  rwl_futex_wait(l, s);
}

void rwl_init(rwlatch_t *l)
{
  atomic_init(&l->rl_state, 0);
}

bool rwl_try_shared(rwlatch_t *l)
{
  uint32_t s = atomic_load_explicit(&l->rl_state, memory_order_relaxed);
  while (!(s & (RWL_WRITER | RWL_WWAIT))) {
    if (CZ_UNLIKELY((s & RWL_READERS) == RWL_READERS))
      th_check_failed(0, "rwl_lock_shared: reader count overflow");
    /* A failed CAS reloads s; only a writer's arrival makes us give up. */
    if (atomic_compare_exchange_weak_explicit(&l->rl_state, &s, s + 1,
                                              memory_order_acquire, memory_order_relaxed))
      return true;
  }
  return false;
}

void rwl_lock_shared(rwlatch_t *l)
{
  int spins = 0;
  for (;;) {
    uint32_t s;
    if (rwl_try_shared(l))
      return;
    s = atomic_load_explicit(&l->rl_state, memory_order_relaxed);
    if (!(s & (RWL_WRITER | RWL_WWAIT)))
      continue;
    if (spins < RWL_SPIN) {
      spins++;
      rwl_pause();
      continue;
    }
    rwl_sleep(l, s);
  }
}

bool rwl_try_excl(rwlatch_t *l)
{
  uint32_t s = atomic_load_explicit(&l->rl_state, memory_order_relaxed);
  while (!(s & (RWL_WRITER | RWL_READERS))) {
    if (atomic_compare_exchange_weak_explicit(&l->rl_state, &s, (s | RWL_WRITER) & ~RWL_WWAIT,
                                              memory_order_acquire, memory_order_relaxed))
      return true;
  }
  return false;
}

void rwl_lock_excl(rwlatch_t *l)
{
  int spins = 0;
  for (;;) {
    uint32_t s;
    if (rwl_try_excl(l))
      return;
    s = atomic_load_explicit(&l->rl_state, memory_order_relaxed);
    if (!(s & (RWL_WRITER | RWL_READERS)))
      continue;
    if (!(s & RWL_WWAIT)) {
      /* Stop new readers; on failure the state moved, so look again. */
      if (!atomic_compare_exchange_weak_explicit(&l->rl_state, &s, s | RWL_WWAIT,
                                                 memory_order_relaxed, memory_order_relaxed))
        continue;
      s |= RWL_WWAIT;
    }
    if (spins < RWL_SPIN) {
      spins++;
      rwl_pause();
      continue;
    }
    rwl_sleep(l, s);
  }
}

void rwl_unlock_shared(rwlatch_t *l)
{
  uint32_t s = atomic_load_explicit(&l->rl_state, memory_order_relaxed);
  uint32_t n;
  do {
    if (CZ_UNLIKELY(!(s & RWL_READERS)))
      th_check_failed(0, "rwl_unlock_shared: latch not held shared");
    n = s - 1;
    /* The last reader out hands the latch to whoever sleeps on it. */
    if (!(n & RWL_READERS))
      n &= ~RWL_SLEEPERS;
  } while (!atomic_compare_exchange_weak_explicit(&l->rl_state, &s, n, memory_order_release,
                                                  memory_order_relaxed));
  if ((s & RWL_SLEEPERS) && !(n & RWL_SLEEPERS))
    rwl_futex_wake_all(l);
}

void rwl_unlock_excl(rwlatch_t *l)
{
  uint32_t s = atomic_load_explicit(&l->rl_state, memory_order_relaxed);
  uint32_t n;
  do {
    if (CZ_UNLIKELY(!(s & RWL_WRITER)))
      th_check_failed(0, "rwl_unlock_excl: latch not held exclusive");
    n = s & ~(RWL_WRITER | RWL_SLEEPERS);
  } while (!atomic_compare_exchange_weak_explicit(&l->rl_state, &s, n, memory_order_release,
                                                  memory_order_relaxed));
  if (s & RWL_SLEEPERS)
    rwl_futex_wake_all(l);
}

bool rwl_is_excl(const rwlatch_t *l)
{
  return (atomic_load_explicit((_Atomic uint32_t *)&l->rl_state, memory_order_relaxed) &
          RWL_WRITER) != 0;
}

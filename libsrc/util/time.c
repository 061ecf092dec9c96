/* time — monotonic and wall clocks, and sleeping.
 *
 * Design notes: durations and timeouts use CLOCK_MONOTONIC so that a change
 * of the system clock cannot stretch or cut them; only timestamps meant for
 * people (and on-disk dates) use CLOCK_REALTIME.
 */
#include <errno.h>
#include <time.h>

#include "util/util.h"

uint64_t time_now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t time_wall_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

void time_sleep_us(uint64_t us)
{
  struct timespec ts = {.tv_sec = (time_t)(us / 1000000u),
                        .tv_nsec = (long)(us % 1000000u) * 1000L};
  /* A signal must not cut the sleep short: resume with what remains. */
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

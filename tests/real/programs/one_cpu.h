// tests/real programs that pin themselves to one CPU and measure their threads' CPU time
// (spin_sleep.c, sleep_beside_spin.c); the replay gives them one CPU (--cpus 1).
#ifndef MMREPLAY_TESTS_REAL_PROGRAMS_ONE_CPU_H
#define MMREPLAY_TESTS_REAL_PROGRAMS_ONE_CPU_H

#include <sched.h>
#include <time.h>

// The calling thread, and the threads it creates from then on, on CPU 0 only. 0 on success.
static inline int pin_to_cpu0(void) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  return sched_setaffinity(0, sizeof one, &one);
}

// The calling thread's CPU time (ns).
static inline long thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

#endif  // MMREPLAY_TESTS_REAL_PROGRAMS_ONE_CPU_H

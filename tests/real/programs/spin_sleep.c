// tests/real: pinned to one CPU, one thread spins for 0.3 s of CPU time while another sleeps
// 0.3 s. Native wall time is about 0.3 s: the sleeper leaves the CPU to the spinner. A replay
// that took the sleep for CPU work would take 0.6 s on one CPU.
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>

#include "one_cpu.h"

static const long kSpinNs = 300L * 1000 * 1000;

static void* spin(void* arg) {
  (void)arg;
  long start = thread_cpu_ns();
  volatile unsigned long sink = 0;
  while (thread_cpu_ns() - start < kSpinNs) {
    for (int i = 0; i < 1000; ++i) sink += (unsigned long)i;
  }
  return NULL;
}

int main(void) {
  if (pin_to_cpu0() != 0) return 1;
  pthread_t spinner;
  if (pthread_create(&spinner, NULL, spin, NULL) != 0) return 1;
  struct timespec nap = {0, kSpinNs};
  nanosleep(&nap, NULL);
  return pthread_join(spinner, NULL) == 0 ? 0 : 1;
}

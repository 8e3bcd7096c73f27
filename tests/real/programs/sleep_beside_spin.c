// tests/real: pinned to one CPU beside a spinning thread, the main thread sleeps 500 us 400
// times, then works 1 ms of CPU time before each of 50 sleeps of 20 us. The first phase is a
// sleeper owed CPU time: each wake-up preempts the spinner at once (about 0.23 s in all on the
// 6.18 guest). In the second it has had more than its share when it sleeps, and some wake-ups
// wait for the tick that ends the spinner's slice. Replayed with wake-ups that do not preempt
// the spinner (CFS's rule: 500 us is short of its wakeup granularity) it ran 1.65x its traced
// span; a 500 us sleeper alone replayed at 1.68x with the model's earlier EEVDF rule.
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "one_cpu.h"

static atomic_int stop;

static void* spin(void* arg) {
  (void)arg;
  volatile unsigned long sink = 0;
  while (!atomic_load(&stop)) {
    for (int i = 0; i < 1000; ++i) sink += (unsigned long)i;
  }
  return NULL;
}

static void nap(long ns) {
  struct timespec d = {0, ns};
  nanosleep(&d, NULL);
}

int main(void) {
  if (pin_to_cpu0() != 0) return 1;
  pthread_t spinner;
  if (pthread_create(&spinner, NULL, spin, NULL) != 0) return 1;
  for (int i = 0; i < 400; ++i) nap(500 * 1000L);
  volatile unsigned long sink = 0;
  for (int i = 0; i < 50; ++i) {
    long start = thread_cpu_ns();
    while (thread_cpu_ns() - start < 1000 * 1000L) {
      for (int k = 0; k < 100; ++k) sink += (unsigned long)k;
    }
    nap(20 * 1000L);
  }
  atomic_store(&stop, 1);
  return pthread_join(spinner, NULL) == 0 ? 0 : 1;
}

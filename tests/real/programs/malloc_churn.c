// tests/real: 4 threads each allocate and free blocks of 4 KiB..1 MiB (a fixed pseudo-random
// sequence per thread), writing every page of each block. Under LD_PRELOAD=libjemalloc.so.2 this
// is jemalloc's purging (madvise) and extent reuse; under glibc, its mmap threshold and trims.
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

enum { kThreads = 4, kRounds = 100000, kSlots = 64, kPageBytes = 4096 };

static void* churn(void* arg) {
  uint32_t state = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
  char* slots[kSlots] = {0};
  for (int round = 0; round < kRounds; ++round) {
    state = state * 1664525u + 1013904223u;  // Numerical Recipes' LCG: fixed, portable sequence
    int slot = (int)(state >> 26);           // 0..63
    free(slots[slot]);
    size_t bytes = (size_t)kPageBytes << ((state >> 8) % 9);  // 4 KiB .. 1 MiB
    char* block = malloc(bytes);
    if (block == NULL) return (void*)1;
    for (size_t off = 0; off < bytes; off += kPageBytes) block[off] = (char)round;
    slots[slot] = block;
  }
  for (int i = 0; i < kSlots; ++i) free(slots[i]);
  return NULL;
}

int main(void) {
  pthread_t threads[kThreads];
  for (uintptr_t i = 0; i < kThreads; ++i) {
    if (pthread_create(&threads[i], NULL, churn, (void*)i) != 0) return 1;
  }
  int failed = 0;
  for (int i = 0; i < kThreads; ++i) {
    void* result = NULL;
    pthread_join(threads[i], &result);
    failed |= result != NULL;
  }
  return failed;
}

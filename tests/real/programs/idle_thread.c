// tests/real: a thread that is created and then only waits (blocked on a condition variable)
// while the main thread writes 256 MiB; the main thread then wakes and joins it. The idle thread
// must not stretch the replay: it exists from its clone to its exit and is off the CPU between.
#include <pthread.h>
#include <stddef.h>
#include <sys/mman.h>

enum { kMappingBytes = 256 << 20, kPageBytes = 4096 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done_cond = PTHREAD_COND_INITIALIZER;
static int done;

static void* idle(void* arg) {
  (void)arg;
  pthread_mutex_lock(&lock);
  while (!done) pthread_cond_wait(&done_cond, &lock);
  pthread_mutex_unlock(&lock);
  return NULL;
}

int main(void) {
  pthread_t thread;
  if (pthread_create(&thread, NULL, idle, NULL) != 0) return 1;
  char* p = mmap(NULL, kMappingBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  for (size_t off = 0; off < kMappingBytes; off += kPageBytes) p[off] = 1;
  pthread_mutex_lock(&lock);
  done = 1;
  pthread_cond_signal(&done_cond);
  pthread_mutex_unlock(&lock);
  return pthread_join(thread, NULL) == 0 ? 0 : 1;
}

// tests/real: a buffer grown 64 times by one page with mremap(MREMAP_MAYMOVE), a one-page mapping
// placed right after it each time so that the kernel has to move it, and every page of the new
// buffer written after each step (the faults land at the address the kernel returned). 160 rounds,
// so that the program runs for tens of milliseconds rather than its own start-up's one.
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/mman.h>

enum { kPageBytes = 4096, kSteps = 64, kRounds = 160 };

static int grow_and_move(void) {
  size_t len = kPageBytes;
  char* buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) return 1;
  buf[0] = 1;
  for (int step = 0; step < kSteps; ++step) {
    // A blocker right after the buffer: growing in place is impossible, so mremap moves it.
    void* blocker = mmap(buf + len, kPageBytes, PROT_READ,
                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    char* grown = mremap(buf, len, len + kPageBytes, MREMAP_MAYMOVE);
    if (grown == MAP_FAILED) return 1;
    if (blocker != MAP_FAILED) munmap(blocker, kPageBytes);
    buf = grown;
    len += kPageBytes;
    for (size_t off = 0; off < len; off += kPageBytes) buf[off] = (char)step;
  }
  return munmap(buf, len) == 0 ? 0 : 1;
}

int main(void) {
  for (int round = 0; round < kRounds; ++round) {
    if (grow_and_move() != 0) return 1;
  }
  return 0;
}

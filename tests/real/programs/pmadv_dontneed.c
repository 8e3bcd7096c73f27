// tests/real: an 8 MiB buffer written page by page, then released with one process_madvise call
// of kRanges ranges on the program's own pidfd (MADV_DONTNEED, which the 6.18 kernel here takes),
// 32 times. perf prints the call's iovec only as a pointer: record's probe on glibc's wrapper
// reads the ranges, so each round's writes fault fresh pages in the replay as they did natively.
// 4 KiB faults need THP off or in madvise mode (as here): the model has no MADV_NOHUGEPAGE.
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum { kPageBytes = 4096, kBufferBytes = 8 << 20, kRanges = 8, kRounds = 32 };

int main(void) {
  char* buf = mmap(NULL, kBufferBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (buf == MAP_FAILED) return 1;
  const int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
  if (pidfd < 0) return 1;
  struct iovec ranges[kRanges];
  const size_t range_bytes = kBufferBytes / kRanges;
  for (int i = 0; i < kRanges; ++i) {
    ranges[i].iov_base = buf + (size_t)i * range_bytes;
    ranges[i].iov_len = range_bytes;
  }
  for (int round = 0; round < kRounds; ++round) {
    for (size_t off = 0; off < kBufferBytes; off += kPageBytes) buf[off] = (char)round;
    if (process_madvise(pidfd, ranges, kRanges, MADV_DONTNEED, 0) != kBufferBytes) return 1;
  }
  return 0;
}

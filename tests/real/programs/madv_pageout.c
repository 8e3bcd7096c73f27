// Prefaults argv[1] MiB of anonymous memory with MADV_POPULATE_WRITE, writes a non-zero byte in
// each page (6.x keeps zero-filled pages out of swap), pushes it all out with MADV_PAGEOUT and
// reads it back; prints the faults getrusage() counted in each phase. Exits 3 when the kernel
// lacks either advice (before 5.14).
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT 21
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static void faults(long* majflt, long* minflt) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  *majflt = r.ru_majflt;
  *minflt = r.ru_minflt;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: madv_pageout MIB\n");
    return 2;
  }
  const long page = sysconf(_SC_PAGESIZE);
  const size_t len = (size_t)atol(argv[1]) << 20;
  char* p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 2;
  long maj0, min0, maj1, min1, maj2, min2, maj3, min3;
  faults(&maj0, &min0);
  if (madvise(p, len, MADV_POPULATE_WRITE) != 0) return errno == EINVAL ? 3 : 2;
  faults(&maj1, &min1);
  for (size_t at = 0; at < len; at += (size_t)page) p[at] = (char)(1 + (at / (size_t)page) % 127);
  if (madvise(p, len, MADV_PAGEOUT) != 0) return errno == EINVAL ? 3 : 2;
  faults(&maj2, &min2);
  volatile long sum = 0;
  for (size_t at = 0; at < len; at += (size_t)page) sum += p[at];
  faults(&maj3, &min3);
  printf("populate minflt %ld majflt %ld\n", min1 - min0, maj1 - maj0);
  printf("write minflt %ld\n", min2 - min1);
  printf("read minflt %ld majflt %ld\n", min3 - min2, maj3 - maj2);
  return (int)(sum & 0);
}

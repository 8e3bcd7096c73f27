// Maps a file, drops its page cache (written back first), advises the mapping (argv[2]: random, sequential or
// normal) and reads one byte every argv[3] pages; prints the major faults getrusage() counted
// for the reads.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: mmap_random FILE random|sequential|normal STRIDE_PAGES\n");
    return 2;
  }
  const long page = sysconf(_SC_PAGESIZE);
  const long stride = atol(argv[3]);
  const int fd = open(argv[1], O_RDONLY);
  if (fd < 0 || stride <= 0) return 2;
  const off_t size = lseek(fd, 0, SEEK_END);
  // Written back first: POSIX_FADV_DONTNEED drops clean pages only.
  if (fdatasync(fd) != 0 || posix_fadvise(fd, 0, size, POSIX_FADV_DONTNEED) != 0) return 2;
  char* p = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return 2;
  const int advice = strcmp(argv[2], "random") == 0       ? MADV_RANDOM
                     : strcmp(argv[2], "sequential") == 0 ? MADV_SEQUENTIAL
                                                          : MADV_NORMAL;
  if (madvise(p, (size_t)size, advice) != 0) return 2;
  struct rusage before, after;
  getrusage(RUSAGE_SELF, &before);
  volatile long sum = 0;
  for (off_t at = 0; at < size; at += stride * page) sum += p[at];
  getrusage(RUSAGE_SELF, &after);
  printf("majflt %ld\n", after.ru_majflt - before.ru_majflt);
  return (int)(sum & 0);
}

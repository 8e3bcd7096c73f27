// tests/real: fork with memory in swap. Writes MIB MiB (argv[1]) a byte a page in a memcg smaller
// than that, so its first pages are in swap when it forks; the child reads every page (a snapshot,
// as redis's BGSAVE takes) and exits; the parent waits, then reads every page. Each process prints
// its own major and minor faults (getrusage) to stderr: "child majflt N minflt N", "parent ...".
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kPageBytes = 4096 };

static void print_faults(const char* who) {
  struct rusage r;
  getrusage(RUSAGE_SELF, &r);
  fprintf(stderr, "%s majflt %ld minflt %ld\n", who, r.ru_majflt, r.ru_minflt);
}

static long read_every_page(const volatile char* p, size_t bytes) {
  long sum = 0;
  for (size_t off = 0; off < bytes; off += kPageBytes) sum += p[off];
  return sum;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const size_t bytes = strtoul(argv[1], NULL, 10) << 20;
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  madvise(p, bytes, MADV_NOHUGEPAGE);
  for (size_t off = 0; off < bytes; off += kPageBytes) p[off] = (char)(off / kPageBytes);
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    const long sum = read_every_page(p, bytes);
    print_faults("child");
    _exit(sum == -1);
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 1;
  const long sum = read_every_page(p, bytes);
  print_faults("parent");
  return sum == -1 ? 1 : WEXITSTATUS(status);
}

// tests/real: fork, then both processes write every page of a 64 MiB private mapping that the
// parent half-filled before the fork. The child's writes to the first half are COW breaks of the
// parent's pages; the second half is fresh zero-fill in each process.
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kMappingBytes = 64 << 20, kPageBytes = 4096 };

int main(void) {
  char* p = mmap(NULL, kMappingBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return 1;
  memset(p, 1, kMappingBytes / 2);
  pid_t child = fork();
  if (child < 0) return 1;
  for (size_t off = 0; off < kMappingBytes; off += kPageBytes) p[off] = 2;
  if (child == 0) _exit(0);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}

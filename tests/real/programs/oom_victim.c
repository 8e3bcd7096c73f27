// tests/real: the memcg OOM killer's choice. The parent writes MIB MiB (argv[1]) a byte a page and
// forks; the child unmaps its copy, writes MIB MiB of its own, prints "child done" and exits; the
// parent waits for it, then prints "parent done". In a memcg of less than twice MIB MiB with no
// swap the group runs out while the child writes, and the OOM killer takes the process with the
// most pages: the parent, asleep in wait4(). The child completes.
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kPageBytes = 4096 };

static char* write_every_page(size_t bytes, char value) {
  char* p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return NULL;
  madvise(p, bytes, MADV_NOHUGEPAGE);  // one fault a page, as the model maps them
  for (size_t off = 0; off < bytes; off += kPageBytes) p[off] = value;
  return p;
}

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const size_t bytes = strtoul(argv[1], NULL, 10) << 20;
  char* p = write_every_page(bytes, 1);
  if (p == NULL) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    munmap(p, bytes);
    if (write_every_page(bytes, 2) == NULL) _exit(1);
    fprintf(stderr, "child done\n");
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  fprintf(stderr, "parent done\n");
  return 0;
}

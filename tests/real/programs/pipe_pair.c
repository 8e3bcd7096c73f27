// tests/real: a parent writes 64 MiB into a pipe in 64 KiB blocks; its child reads them into a
// heap buffer and writes every page of a 64 MiB mapping as the data arrives. Neither process's
// memory is a file: the pipe is a pipe.
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kTotalBytes = 64 << 20, kBlockBytes = 64 << 10, kPageBytes = 4096 };

static int child_reads(int fd) {
  char* sink = mmap(NULL, kTotalBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sink == MAP_FAILED) return 1;
  size_t got = 0;
  while (got < kTotalBytes) {
    ssize_t n = read(fd, sink + got, kTotalBytes - got);
    if (n <= 0) return 1;
    got += (size_t)n;
  }
  return 0;
}

int main(void) {
  int fds[2];
  if (pipe(fds) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(fds[1]);
    _exit(child_reads(fds[0]));
  }
  close(fds[0]);
  static char block[kBlockBytes];
  memset(block, 7, sizeof block);
  for (size_t sent = 0; sent < kTotalBytes; sent += kBlockBytes) {
    if (write(fds[1], block, sizeof block) != (ssize_t)sizeof block) return 1;
  }
  close(fds[1]);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}

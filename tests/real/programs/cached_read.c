// tests/real: reads the file named by argv[1] (the test writes it and reads it once first, so it
// is in the page cache) in 64 KiB blocks into one buffer, and writes each block to /dev/null;
// argv[2] passes over the file (default 1), each opening it again. One pass of 32 MiB takes 4-7 ms
// here, as much start-up as work; more passes make the makespan the reads'.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

enum { kBlockBytes = 64 << 10 };

static int read_once(const char* path, char* block, int out) {
  int in = open(path, O_RDONLY);
  if (in < 0) return 1;
  for (;;) {
    ssize_t n = read(in, block, kBlockBytes);
    if (n < 0) return 1;
    if (n == 0) break;
    if (write(out, block, (size_t)n) != n) return 1;
  }
  return close(in) == 0 ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) return 2;
  const int passes = argc == 3 ? atoi(argv[2]) : 1;
  if (passes < 1) return 2;
  int out = open("/dev/null", O_WRONLY);
  if (out < 0) return 1;
  char* block = malloc(kBlockBytes);
  if (block == NULL) return 1;
  for (int pass = 0; pass < passes; ++pass) {
    if (read_once(argv[1], block, out) != 0) return 1;
  }
  return close(out) == 0 ? 0 : 1;
}

// tests/real: reads the file named by argv[1] (the test writes it and reads it once first, so it
// is in the page cache) in 64 KiB blocks into one buffer, and writes each block to /dev/null.
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

enum { kBlockBytes = 64 << 10 };

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  int in = open(argv[1], O_RDONLY);
  int out = open("/dev/null", O_WRONLY);
  if (in < 0 || out < 0) return 1;
  char* block = malloc(kBlockBytes);
  if (block == NULL) return 1;
  for (;;) {
    ssize_t n = read(in, block, kBlockBytes);
    if (n < 0) return 1;
    if (n == 0) break;
    if (write(out, block, (size_t)n) != n) return 1;
  }
  return close(in) == 0 && close(out) == 0 ? 0 : 1;
}

// tests/real: a parent sends 64 MiB over an AF_UNIX socketpair (SOCK_STREAM, or SOCK_DGRAM with
// the argument "dgram") in 64 KiB blocks; its child receives them into a 64 MiB mapping, writing
// every page as the data arrives, and answers every 1 MiB with a 64-byte acknowledgement that the
// parent waits for before it sends on. Both directions block: the child waits for data, the
// parent for the acknowledgement. The data goes by write() and recv(), the answers by send() and
// read(), so both the plain and the socket calls carry it.
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
  kTotalBytes = 64 << 20,
  kBlockBytes = 64 << 10,
  kAckEveryBytes = 1 << 20,
  kAckBytes = 64,
};

static int child_receives(int fd) {
  char* sink = mmap(NULL, kTotalBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (sink == MAP_FAILED) return 1;
  char ack[kAckBytes];
  memset(ack, 1, sizeof ack);
  size_t got = 0;
  size_t acked = 0;
  while (got < kTotalBytes) {
    // A stream read may return less than a block; a datagram read returns one whole block.
    ssize_t n = recv(fd, sink + got, kBlockBytes, 0);
    if (n <= 0) return 1;
    got += (size_t)n;
    if (got - acked >= kAckEveryBytes) {
      acked += kAckEveryBytes;
      if (send(fd, ack, sizeof ack, 0) != (ssize_t)sizeof ack) return 1;
    }
  }
  return 0;
}

int main(int argc, char** argv) {
  const int type = argc > 1 && strcmp(argv[1], "dgram") == 0 ? SOCK_DGRAM : SOCK_STREAM;
  int fds[2];
  if (socketpair(AF_UNIX, type, 0, fds) != 0) return 1;
  pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(fds[0]);
    _exit(child_receives(fds[1]));
  }
  close(fds[1]);
  static char block[kBlockBytes];
  memset(block, 7, sizeof block);
  char ack[kAckBytes];
  for (size_t sent = 0; sent < kTotalBytes;) {
    if (write(fds[0], block, sizeof block) != (ssize_t)sizeof block) return 1;
    sent += kBlockBytes;
    if (sent % kAckEveryBytes == 0) {
      size_t have = 0;
      while (have < sizeof ack) {
        ssize_t n = read(fds[0], ack + have, sizeof ack - have);
        if (n <= 0) return 1;
        have += (size_t)n;
      }
    }
  }
  close(fds[0]);
  int status = 0;
  if (waitpid(child, &status, 0) != child || !WIFEXITED(status)) return 1;
  return WEXITSTATUS(status);
}

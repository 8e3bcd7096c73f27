// Two pipes between a side a (the measuring thread) and a side b (its partner: a thread or a
// forked child), closed when the probe ends. The probes of pipes and of the context switch use it.

#pragma once

#include <unistd.h>

namespace mmreplay::tools::calibrate {

class PipePair {
 public:
  PipePair() { ok_ = ::pipe(a_) == 0 && ::pipe(b_) == 0; }
  ~PipePair() { close_all(); }
  PipePair(const PipePair&) = delete;
  PipePair& operator=(const PipePair&) = delete;
  bool ok() const { return ok_; }
  int to_b_read() const { return a_[0]; }
  int to_b_write() const { return a_[1]; }
  int to_a_read() const { return b_[0]; }
  int to_a_write() const { return b_[1]; }
  // Closes the write end of the pipe to b: a reader of it sees end of file.
  void close_to_b_write() { close_fd(a_[1]); }
  // In a forked child playing b: closes a's ends, so that the child sees end of file when a
  // closes its write end.
  void close_a_ends() {
    close_fd(a_[1]);
    close_fd(b_[0]);
  }
  // In a forked child that uses none of this pair.
  void close_all() {
    for (int* fd : {&a_[0], &a_[1], &b_[0], &b_[1]}) close_fd(*fd);
  }

 private:
  static void close_fd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
  int a_[2] = {-1, -1};
  int b_[2] = {-1, -1};
  bool ok_ = false;
};

}  // namespace mmreplay::tools::calibrate

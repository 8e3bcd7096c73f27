// PipeWakeups: who woke a pipe read or write that blocked, for the importer to turn into a
// wake-up edge (issue 19), as futex waits get theirs.
//
// A read of an empty pipe sleeps in pipe_read() until a writer has put data in and woken it
// (fs/pipe.c: pipe_write() -> wake_up_interruptible_sync_poll()); a write to a full pipe sleeps
// in pipe_write() until a reader has taken data out. A recording shows the sleep as an off_cpu
// observation (perf --switch-events, not a preemption) inside the call. Replayed as a syscall
// and a copy, the call would not wait at all and each side would run at its own pace; replayed
// with an edge, the sleeper is off its CPU until the call that woke it has replayed.
//
// The waker of a call that slept from S to W (W: back on its CPU) is the last call of the other
// direction on the same pipe, by another thread, that began before W and had not ended before S.
// A call that slept with no such waker (the other end closed, a signal) keeps no edge.
// The kernel wakes the other side before it sleeps itself (pipe_write() wakes readers before
// pipe_wait_writable(), pipe_read() writers before pipe_wait_readable()) or at the call's end. So
// a waker that slept too woke the sleeper early, before its own sleep, when the sleeper was back
// on its CPU before the waker was; the replay then wakes it as the waker's call begins, before
// the waker waits for its own waker (waking at its end would close a cycle of waits).
//
// Invariants: (1) calls are added in recorded start order per pipe; (2) every edge goes from a
// call of one direction to a call of the other direction, by another thread.

#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "formats/import/address_order.h"

namespace mmreplay::formats::detail {

struct PipeCall {
  ItemRef ref;
  uint64_t ts = 0;   // start
  uint64_t end = 0;  // start + duration (start when not timed)
  bool write = false;
  // When it slept: from (switch out) and until (back on its CPU).
  std::optional<uint64_t> slept_from;
  uint64_t slept_until = 0;
};

class PipeWakeups {
 public:
  // REQUIRES: calls of one pipe (file id) in start order (1).
  void add(uint64_t file, const PipeCall& call);
  // One edge from its waker to each call that slept and has one.
  std::vector<OrderEdge> edges() const;
  uint64_t slept() const { return slept_; }

 private:
  struct Pipe {
    std::vector<PipeCall> reads;
    std::vector<PipeCall> writes;
  };
  std::map<uint64_t, Pipe> pipes_;
  uint64_t slept_ = 0;
};

}  // namespace mmreplay::formats::detail

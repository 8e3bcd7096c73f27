// PipeWakeups: the orders a pipe imposes between its readers and writers, for the importer to
// turn into wake-up edges (issue 19), as futex waits get theirs.
//
// A read of an empty pipe sleeps in pipe_read() until a writer has put data in and woken it
// (fs/pipe.c: pipe_write() -> wake_up_interruptible_sync_poll()); a write to a full pipe sleeps
// in pipe_write() until a reader has taken data out. Replayed as a syscall and a copy, neither
// would wait and each side would run at its own pace (pipe_pair's reader then replays its reads
// while the writer is still far behind, or the writer runs ahead of a reader it really waited
// for). The byte offsets say who waited for whom, whatever the recording saw of the sleeps:
//   - a read of bytes [a, ...) of the pipe's stream follows the write that put byte a in;
//   - a write of bytes [..., b) follows the read that took byte b - capacity - 1 out, as the pipe
//     holds at most `capacity` bytes (PIPE_DEF_BUFFERS pages; F_SETPIPE_SZ is not recorded, so a
//     program that grew its pipe is ordered more strictly than it ran).
// Offsets are the ends' positions, which the importer advances per open file description in
// recorded time order (fd_table.h), so they count the bytes that went through the pipe.
// A write longer than the capacity is never waited for as a whole (its reader takes its first
// bytes while it still writes the rest): reads of it get no edge. The replay wakes the waiter
// after the call it follows (and the faults the kernel took inside it).
//
// A connected socket is two such channels, one per direction (socket_wakeups.h); its limits
// are estimates (the sender's sk_sndbuf, not a byte count), so its edges are kept only where the
// recording agrees: the call waited for began before the waiting call returned.
//
// On a channel whose writes are queued in pieces (ChannelLimits::piece: a write of an AF_UNIX
// stream socket, one skb at a time), a read follows the piece that holds its first byte, not the
// whole write, and each piece of a write follows the read that made room for its own last byte
// (4); the importer then replays the write as its pieces, each woken after and waiting before as
// the edges say.
//
// Invariants: (1) calls are added in recorded start order per pipe; (2) every edge goes from a
// call of one direction to a call of the other direction, by another thread, and from lower to
// higher byte offsets, so the edges form no cycle within a channel; (3) on a channel with
// `recorded_order`, every edge's source began before its target ended in the recording, so the
// edges of several channels (the two directions of a socket) form no cycle either; (4) with
// pieces, no piece exceeds the capacity, so a piece's room comes from a read of earlier pieces'
// bytes only, and every `from_bytes`/`to_bytes` lies strictly inside its call.

#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "formats/import/address_order.h"

namespace mmreplay::formats::detail {

// include/linux/pipe_fs_i.h: PIPE_DEF_BUFFERS, the pages of a new pipe.
inline constexpr uint64_t kPipeDefBuffers = 16;

struct PipeCall {
  ItemRef ref;
  uint64_t offset = 0;  // bytes of the pipe's stream before this call's
  uint64_t len = 0;     // bytes it moved
  bool write = false;
  bool slept = false;     // an off_cpu interval inside it, not a preemption (for the report)
  uint64_t start_ns = 0;  // recorded start and end, for channels with recorded_order
  uint64_t end_ns = 0;
  int32_t end_cpu = -1;  // the CPU it returned on in the recording; -1: not recorded
};

// How a channel other than a pipe of the default size limits its writers.
struct ChannelLimits {
  uint64_t capacity = 0;        // units a writer may queue before it waits; 0: writes never wait
  bool recorded_order = false;  // keep only edges the recorded times agree with (3)
  // A write is queued in pieces of at most this many units, each readable as soon as it is
  // queued, each waiting for its own room (an AF_UNIX stream's skbs, socket_wakeups.h (1));
  // 0: a write is queued whole, as pipe_write() wakes its reader once it is done (4).
  uint64_t piece = 0;
};

// An edge of a channel: as OrderEdge, but either end may be a piece of a write (4): the wake
// comes after the first `from_bytes` units of `from`, the wait before unit `to_bytes` of `to`.
// 0 stands for the whole call: after its end, before its start.
// The calls' own `slept` and `end_cpu` say where the recording ran a call the edge woke.
struct ChannelEdge : OrderEdge {
  uint64_t from_bytes = 0;
  uint64_t to_bytes = 0;
  bool to_slept = false;  // `to` slept in the recording: the edge's wake-up ended it
  int32_t from_cpu = -1;  // end_cpu of `from` and of `to`
  int32_t to_cpu = -1;
};

class PipeWakeups {
 public:
  explicit PipeWakeups(uint64_t page_size) : capacity_(kPipeDefBuffers * page_size) {}
  // The limits of `channel`, before its first call; a channel without them is a pipe.
  void set_limits(uint64_t channel, const ChannelLimits& limits) { limits_[channel] = limits; }
  bool has_limits(uint64_t channel) const { return limits_.contains(channel); }
  // REQUIRES: calls of one pipe (file id) or channel in start order (1).
  void add(uint64_t file, const PipeCall& call);
  // The edges (2), at most one into each call or piece.
  std::vector<ChannelEdge> edges() const;
  uint64_t slept() const { return slept_; }

 private:
  struct Pipe {
    std::vector<PipeCall> reads;
    std::vector<PipeCall> writes;
  };
  uint64_t capacity_;
  std::map<uint64_t, Pipe> pipes_;
  std::map<uint64_t, ChannelLimits> limits_;
  uint64_t slept_ = 0;
};

}  // namespace mmreplay::formats::detail

// Which CPU the other side of a socket ran on: the data of an skb (or a pipe_buffer) moves
// between CPUs' caches when its writer and its reader run apart.
//
// The writer's copy_from_user() fills buffer pages; the reader's copy_to_user() then pulls their
// lines from the writer's CPU, where they sit modified, and frees the pages on its own CPU
// (anon_pipe_buf_release(), consume_skb()), so the writer's next pages likely come cold from
// another CPU's lists or the zone. Two sides on one CPU recycle the same lines through its caches
// and per-CPU lists. On the PVM guest of December 2026 a 64 KiB AF_UNIX write took 2.7 us with its
// reader on the same CPU and 8.7-8.9 us with the reader spinning on the other (no sleep on
// either side), the reads 2.6-3.0 us against 7.2-7.4 (a writer spinning): 280-380 ns a page a side
// (CostProfile::stream_page_remote, measured by calibrate's socket_stream_remote probe).
//
// Sockets only, for now. A pipe's data crosses CPUs the same way, but its replays already take
// what a cross-CPU pipe costs on that guest: a ping-pong of 64 KiB blocks through a pipe (the
// pipe holds one) ran at 70 us a block natively, as calibrate's 1-byte ping-pong (wakeup_latency,
// 32-36 us a wake-up) gives, not the 70 us plus the copies' 16 us it would be were the two costs
// apart; tests/real's pipe_pair replayed at 101.5 ms against 90-111 ms natively without the
// charge, 126.8 ms with it. What a wake-up between two busy CPUs costs on such a guest is not
// modelled apart from its data; until it is, charging pipes would count the lines twice.
//
// The model keeps, per file id, the last two tasks that wrote it and the last two that read it,
// with the CPU of each access. A read's other side is the latest writer that is not the reader; a
// write's, the latest reader that is not the writer (one file id stands for both ends of a pipe or
// a socket pair, both directions: the reader's own answers are its writes, not its data's).

#pragma once

#include <cstdint>
#include <vector>

namespace mmreplay::kernelsim {

class StreamSides {
 public:
  static constexpr int32_t kNone = -1;

  // The CPU the other side of `task`'s access of `file` last ran it on (kNone when no other task
  // has), then records this access on `cpu`.
  int32_t exchange(uint32_t file, uint32_t task, int32_t cpu, bool write);

 private:
  struct Access {
    uint32_t task = 0;
    int32_t cpu = kNone;
  };
  // The latest access first; the second is the latest by another task.
  struct LastTwo {
    Access latest;
    Access other;
    // The CPU of the latest access not by `task`, or kNone.
    int32_t cpu_not_of(uint32_t task) const;
    void record(uint32_t task, int32_t cpu);
  };
  struct Sides {
    LastTwo writes;
    LastTwo reads;
  };
  std::vector<Sides> files_;  // by file id
};

}  // namespace mmreplay::kernelsim

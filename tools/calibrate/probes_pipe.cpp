// Probes of pipes: a read and a write that do not wait, and the cross-CPU wake-up of a reader
// asleep in pipe_read() (fs/pipe.c) by a writer on another CPU; and a socketpair's read and
// write that do not wait (net/unix/af_unix.c).

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "tools/calibrate/pipe_pair.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr int kPairsPerSample = 200;
constexpr int kRoundTripsPerSample = 200;
// Round trips before the timed ones: both threads asleep in their reads, caches warm.
constexpr int kWarmUpRoundTrips = 20;

// Per-pair time of write(len) + read(len) through `p`'s first pipe on this thread, or a
// negative value when a call moved fewer bytes.
double time_pairs(const PipePair& p, char* buf, size_t len) {
  const uint64_t t0 = now_ns();
  for (int i = 0; i < kPairsPerSample; ++i) {
    if (::write(p.to_b_write(), buf, len) != static_cast<ssize_t>(len)) return -1;
    if (::read(p.to_b_read(), buf, len) != static_cast<ssize_t>(len)) return -1;
  }
  return static_cast<double>(now_ns() - t0) / kPairsPerSample;
}

}  // namespace

std::vector<Figure> probe_pipe_rw(const ProbeOptions& o) {
  Figure small =
      figure_of("pipe_rw_small", "write + read of 1 byte through a pipe, no wait", "pair");
  Figure block =
      figure_of("pipe_rw_block", "write + read of 64 KiB through a pipe, no wait", "pair");
  PipePair p;
  if (!p.ok()) {
    small.note = block.note = "skipped: pipe failed";
    return {small, block};
  }
  std::vector<char> buf(kPipeBlockBytes, 1);
  std::vector<double> s_small, s_block;
  for (int r = 0; r < o.repetitions(); ++r) {
    s_small.push_back(time_pairs(p, buf.data(), kPipeSmallBytes));
    s_block.push_back(time_pairs(p, buf.data(), kPipeBlockBytes));
    if (s_small.back() < 0 || s_block.back() < 0) {
      small.note = block.note = "skipped: a pipe call moved fewer bytes than asked";
      return {small, block};
    }
  }
  small.measured = block.measured = true;
  small.ns = summarize(s_small);
  block.ns = summarize(s_block);
  small.note = "pipe_write() into room, pipe_read() of data there: no sleep, no wake-up";
  block.note =
      "the pipe's whole capacity: pipe_write() fills its 16 buffers (a page allocated for each but "
      "the one kept from the last read), pipe_read() empties and releases them";
  return {small, block};
}

Figure probe_socket_rw(const ProbeOptions& o) {
  Figure f =
      figure_of("socket_rw_small",
                "write + read of 1 byte through an AF_UNIX stream socketpair, no wait", "pair");
  int sv[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    f.note = std::string("skipped: socketpair failed (") + std::strerror(errno) + ")";
    return f;
  }
  char c = 1;
  std::vector<double> samples;
  for (int r = 0; r < o.repetitions() && f.note.empty(); ++r) {
    const uint64_t t0 = now_ns();
    for (int i = 0; i < kPairsPerSample; ++i) {
      if (::write(sv[0], &c, 1) != 1 || ::read(sv[1], &c, 1) != 1) {
        f.note = "skipped: a socket call moved fewer bytes than asked";
        break;
      }
    }
    samples.push_back(static_cast<double>(now_ns() - t0) / kPairsPerSample);
  }
  ::close(sv[0]);
  ::close(sv[1]);
  if (!f.note.empty()) return f;
  f.measured = true;
  f.ns = summarize(samples);
  f.note = "unix_stream_sendmsg() into an empty queue, unix_stream_recvmsg() of it: no wake-up";
  return f;
}

Figure probe_wakeup(const ProbeOptions& o) {
  Figure f = figure_of("wakeup_round_trip",
                       "1-byte pipe ping-pong between threads on two CPUs, each read waiting",
                       "round trip");
  int a = 0, b = 0;
  if (first_two_allowed_cpus(&a, &b) < 2) {
    f.note = "skipped: fewer than 2 CPUs allowed";
    return f;
  }
  PipePair p;
  if (!p.ok()) {
    f.note = "skipped: pipe failed";
    return f;
  }
  AffinityGuard guard;
  if (!pin_to_cpu(a)) {
    f.note = std::string("skipped: sched_setaffinity refused (") + std::strerror(errno) + ")";
    return f;
  }
  const int rounds = kWarmUpRoundTrips + o.repetitions() * kRoundTripsPerSample;
  std::atomic<bool> pinned_b{false};
  std::atomic<bool> ready_b{false};
  std::thread partner([&] {
    pinned_b.store(pin_to_cpu(b));
    ready_b.store(true);
    char c = 0;
    for (int i = 0; i < rounds; ++i) {
      if (::read(p.to_b_read(), &c, 1) != 1 || ::write(p.to_a_write(), &c, 1) != 1) break;
    }
  });
  while (!ready_b.load()) std::this_thread::yield();
  char c = 0;
  bool ok = pinned_b.load();
  auto round_trips = [&](int n) {
    for (int i = 0; i < n && ok; ++i) {
      ok = ::write(p.to_b_write(), &c, 1) == 1 && ::read(p.to_a_read(), &c, 1) == 1;
    }
  };
  std::vector<double> samples;
  if (ok) round_trips(kWarmUpRoundTrips);
  for (int r = 0; r < o.repetitions() && ok; ++r) {
    const uint64_t t0 = now_ns();
    round_trips(kRoundTripsPerSample);
    samples.push_back(static_cast<double>(now_ns() - t0) / kRoundTripsPerSample);
  }
  // A partner left waiting (pinning refused, a call failed) gets its pipe closed under it.
  if (!ok) p.close_to_b_write();
  partner.join();
  if (!pinned_b.load()) {
    f.note = "skipped: could not pin the partner thread to CPU " + std::to_string(b);
    return f;
  }
  if (!ok) {
    f.note = "skipped: a pipe call failed";
    return f;
  }
  f.measured = true;
  f.ns = summarize(samples);
  f.note = "two wake-ups + two 1-byte writes and reads; CPUs " + std::to_string(a) + " and " +
           std::to_string(b);
  return f;
}

}  // namespace mmreplay::tools::calibrate

// Probes of pipes: a read and a write that do not wait, and the cross-CPU wake-up of a reader
// asleep in pipe_read() (fs/pipe.c) by a writer on another CPU, after a short and a long idle of
// the reader's CPU; and a socketpair's read and write that do not wait (net/unix/af_unix.c).

#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "tools/calibrate/pipe_pair.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr int kPairsPerSample = 200;
constexpr int kRoundTripsPerSample = 200;
// Round trips before the timed ones: both threads asleep in their reads, caches warm.
constexpr int kWarmUpRoundTrips = 20;
// probe_deep_idle: round trips per sample; the long idle, beyond KVM's default halt_poll_ns
// (200 us, virt/kvm/kvm_main.c) and the deepest target residencies of intel_idle's tables
// (hundreds of us); the bisection's stopping width and its samples per spin.
constexpr int kIdleRoundTrips = 10;
constexpr uint64_t kLongIdleNs = 2'000'000;
constexpr uint64_t kIdleStepResolutionNs = 5'000;
constexpr int kIdleStepSamples = 5;

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

// Two threads pinned to two CPUs passing a byte back and forth through a PipePair: this thread
// (a) writes and reads the answer; the partner (b) reads and answers until its pipe closes.
class CrossCpuPingPong {
 public:
  CrossCpuPingPong() {
    int a = 0, b = 0;
    if (!p_.ok()) {
      why_ = "pipe failed";
      return;
    }
    why_ = pin_to_first_of_two(&a, &b);
    if (!why_.empty()) return;
    cpus_ = std::to_string(a) + " and " + std::to_string(b);
    bool pinned_b = false;
    partner_ = start_pinned(b, &pinned_b, [this] {
      char c = 0;
      while (::read(p_.to_b_read(), &c, 1) == 1 && ::write(p_.to_a_write(), &c, 1) == 1) {
      }
    });
    if (!pinned_b) why_ = "could not pin the partner thread to CPU " + std::to_string(b);
  }
  // The partner sees end of file and returns.
  ~CrossCpuPingPong() {
    p_.close_to_b_write();
    if (partner_.joinable()) partner_.join();
  }
  CrossCpuPingPong(const CrossCpuPingPong&) = delete;
  CrossCpuPingPong& operator=(const CrossCpuPingPong&) = delete;

  bool ok() const { return why_.empty(); }
  const std::string& why() const { return why_; }
  const std::string& cpus() const { return cpus_; }

  // Time per round trip of `n`, each after a busy spin of `spin_ns` here (the partner's CPU idles
  // meanwhile), the spin not counted; negative when a call failed.
  double round_trips(int n, uint64_t spin_ns) {
    char c = 0;
    uint64_t total = 0;
    for (int i = 0; i < n; ++i) {
      spin_for(spin_ns);
      const uint64_t t0 = now_ns();
      if (::write(p_.to_b_write(), &c, 1) != 1 || ::read(p_.to_a_read(), &c, 1) != 1) return -1;
      total += now_ns() - t0;
    }
    return static_cast<double>(total) / n;
  }

 private:
  PipePair p_;
  AffinityGuard guard_;  // restores this thread's affinity last
  std::thread partner_;
  std::string why_;
  std::string cpus_;
};

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

// The writer's CPU time, not the wall clock: the reader spins, so the writer never waits for room
// and never wakes it, and nothing but the copies' cache-line traffic sets the two CPUs apart
// from probe_socket_rw()'s one.
Figure probe_socket_stream_remote(const ProbeOptions& o) {
  Figure f =
      figure_of("socket_stream_remote",
                "write() of 64 KiB into an AF_UNIX stream socketpair read on another CPU", "write");
  AffinityGuard guard;
  int a = 0, b = 0;
  if (std::string why = pin_to_first_of_two(&a, &b); !why.empty()) return failed(f, why);
  int sv[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0) {
    return failed(f, std::string("socketpair failed (") + std::strerror(errno) + ")");
  }
  bool pinned_b = false;
  std::thread reader = start_pinned(b, &pinned_b, [&sv] {
    std::vector<char> buf(kPipeBlockBytes);
    for (;;) {  // until the writer closes its end
      const ssize_t n = ::recv(sv[1], buf.data(), buf.size(), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) return;
    }
  });
  std::vector<char> block(kPipeBlockBytes, 5);
  // Writes per sample: 256 blocks (16 MiB); the first sample warms both sides and is not kept.
  constexpr int kWritesPerSample = 256;
  std::vector<double> samples;
  bool ok = pinned_b;
  for (int r = 0; r <= o.repetitions() && ok; ++r) {
    const uint64_t t0 = thread_cpu_ns();
    for (int i = 0; i < kWritesPerSample && ok; ++i) {
      ok = ::write(sv[0], block.data(), block.size()) == static_cast<ssize_t>(block.size());
    }
    if (r > 0) samples.push_back(static_cast<double>(thread_cpu_ns() - t0) / kWritesPerSample);
  }
  ::close(sv[0]);
  reader.join();
  ::close(sv[1]);
  if (!pinned_b) return failed(f, "could not pin the reader to CPU " + std::to_string(b));
  if (!ok) return failed(f, "a socket write moved fewer bytes than asked");
  f.measured = true;
  f.ns = summarize(samples);
  f.note = fmt::format("unix_stream_sendmsg() of 64 KiB, read on CPU {}, written on {}", b, a);
  return f;
}

Figure probe_wakeup(const ProbeOptions& o) {
  Figure f = figure_of("wakeup_round_trip",
                       "1-byte pipe ping-pong between threads on two CPUs, each read waiting",
                       "round trip");
  CrossCpuPingPong pp;
  if (!pp.ok()) return failed(f, pp.why());
  std::vector<double> samples;
  bool ok = pp.round_trips(kWarmUpRoundTrips, 0) >= 0;
  for (int r = 0; r < o.repetitions() && ok; ++r) {
    samples.push_back(pp.round_trips(kRoundTripsPerSample, 0));
    ok = samples.back() >= 0;
  }
  if (!ok) return failed(f, "a pipe call failed");
  f.measured = true;
  f.ns = summarize(samples);
  f.note = "two wake-ups + two 1-byte writes and reads; CPUs " + pp.cpus();
  return f;
}

std::vector<Figure> probe_deep_idle(const ProbeOptions& o) {
  Figure shallow =
      figure_of("wakeup_short_idle",
                "ping-pong of wakeup_round_trip, the partner's CPU idle a moment", "round trip");
  Figure deep = figure_of("wakeup_long_idle",
                          "the same with the partner's CPU idle 2 ms before each wake-up, the 2 "
                          "ms taken out",
                          "round trip");
  Figure step = figure_of(
      "deep_idle_step",
      "the shortest spin before the wake-up that makes it a long-idle one (bisection)", "idle");
  CrossCpuPingPong pp;
  if (!pp.ok()) return {failed(shallow, pp.why()), failed(deep, pp.why()), failed(step, pp.why())};
  std::vector<double> s_short, s_long;
  bool ok = pp.round_trips(kWarmUpRoundTrips, 0) >= 0;
  for (int r = 0; r < o.repetitions() && ok; ++r) {
    s_short.push_back(pp.round_trips(kIdleRoundTrips, 0));
    s_long.push_back(pp.round_trips(kIdleRoundTrips, kLongIdleNs));
    ok = s_short.back() >= 0 && s_long.back() >= 0;
  }
  if (!ok) {
    return {failed(shallow, "a pipe call failed"), failed(deep, "a pipe call failed"),
            failed(step, "a pipe call failed")};
  }
  shallow.measured = deep.measured = true;
  shallow.ns = summarize(s_short);
  deep.ns = summarize(s_long);
  shallow.note = deep.note = "CPUs " + pp.cpus();
  // One step, if the two are told apart: the long idle's fast samples slower than the short
  // idle's slow ones.
  if (deep.ns.p10 <= shallow.ns.p90) {
    step.note = "skipped: no step (a long idle wakes as fast as a short one)";
    return {shallow, deep, step};
  }
  // Bisection on the spin: below `lo` a wake-up is shallow, from `hi` on deep, judged by the
  // median of a few round trips against the midpoint of the two figures.
  const double mid = (shallow.ns.median + deep.ns.median) / 2;
  uint64_t lo = 0;
  uint64_t hi = kLongIdleNs;
  while (hi - lo > kIdleStepResolutionNs && ok) {
    const uint64_t spin = lo + (hi - lo) / 2;
    std::vector<double> at;
    for (int r = 0; r < kIdleStepSamples && ok; ++r) {
      at.push_back(pp.round_trips(kIdleRoundTrips, spin));
      ok = at.back() >= 0;
    }
    (summarize(at).median > mid ? hi : lo) = spin;
  }
  if (!ok) return {shallow, deep, failed(step, "a pipe call failed")};
  // The partner's CPU went idle when its read blocked, a round trip's half before the spin began
  // (the spinning thread's own wake-up and return from its read): that is idle time too.
  const double half_trip = shallow.ns.median / 2;
  step.measured = true;
  step.ns.median = half_trip + static_cast<double>(lo + hi) / 2;
  step.ns.p10 = half_trip + static_cast<double>(lo);
  step.ns.p90 = half_trip + static_cast<double>(hi);
  step.ns.samples = 1;
  step.note = fmt::format("between spins of {} and {} ns, plus half a short round trip", lo, hi);
  return {shallow, deep, step};
}

}  // namespace mmreplay::tools::calibrate

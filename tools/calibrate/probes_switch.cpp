// Probes of the context switch (kernel/sched/core.c context_switch()): a pipe ping-pong on one
// CPU between two threads of this process, and between this process and a forked child. The
// second switches mm on every switch (switch_mm_irqs_off(): the CR3 write, the TLB refill after
// it, and on a guest whose page tables the host shadows, the host's switch of shadow roots), the
// first never does; the difference per switch is the model's switch_mm.
//
// The two ping-pongs alternate sample by sample, so that a change of the machine's state during
// the probe (a busy host, a migrated vCPU) reaches both alike.

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>
#include <vector>

#include "tools/calibrate/pipe_pair.h"
#include "tools/calibrate/probes.h"

namespace mmreplay::tools::calibrate {
namespace {

constexpr int kPingPongsPerSample = 500;

// The partner's loop: echo `rounds` bytes, then return.
void echo(const PipePair& p, int rounds) {
  char c = 0;
  for (int i = 0; i < rounds; ++i) {
    if (::read(p.to_b_read(), &c, 1) != 1 || ::write(p.to_a_write(), &c, 1) != 1) return;
  }
}

// Per-switch time of kPingPongsPerSample round trips with the partner behind `p` (two switches
// each), or a negative value when a call moved nothing.
double time_round_trips(const PipePair& p) {
  char c = 0;
  const uint64_t t0 = now_ns();
  for (int i = 0; i < kPingPongsPerSample; ++i) {
    if (::write(p.to_b_write(), &c, 1) != 1 || ::read(p.to_a_read(), &c, 1) != 1) return -1;
  }
  return static_cast<double>(now_ns() - t0) / (2.0 * kPingPongsPerSample);
}

}  // namespace

std::vector<Figure> probe_context_switch(const ProbeOptions& o) {
  Figure threads = figure_of("context_switch",
                             "pipe ping-pong between two threads on one CPU, per switch", "switch");
  Figure mm = figure_of("switch_mm",
                        "pipe ping-pong between two processes on one CPU minus the same between "
                        "two threads, per switch",
                        "switch");
  PipePair with_thread;
  PipePair with_child;
  if (!with_thread.ok() || !with_child.ok()) {
    return {failed(threads, "pipe failed"), failed(mm, "pipe failed")};
  }
  AffinityGuard guard;
  int cpu = 0, unused = 0;
  first_two_allowed_cpus(&cpu, &unused);
  if (!pin_to_cpu(cpu)) {
    const std::string why = "sched_setaffinity refused (a switch needs one CPU)";
    return {failed(threads, why), failed(mm, why)};
  }
  const int rounds = o.repetitions() * kPingPongsPerSample;
  // The child inherits this thread's affinity: both processes share `cpu`.
  const pid_t child = ::fork();
  if (child < 0) return {failed(threads, "fork failed"), failed(mm, "fork failed")};
  if (child == 0) {
    // Only the child's own ends stay open, so that it sees end of file when we close ours.
    with_child.close_a_ends();
    with_thread.close_all();
    echo(with_child, rounds);
    ::_exit(0);
  }
  std::atomic<bool> partner_pinned{false};
  std::thread partner([&] {
    partner_pinned.store(pin_to_cpu(cpu));
    echo(with_thread, rounds);
  });
  std::vector<double> thread_samples;
  std::vector<double> differences;
  for (int r = 0; r < o.repetitions(); ++r) {
    const double t = time_round_trips(with_thread);
    const double p = time_round_trips(with_child);
    if (t < 0 || p < 0) break;
    thread_samples.push_back(t);
    differences.push_back(p - t);
  }
  // Closing our ends ends a partner that stopped early; the complete ones have returned.
  with_thread.close_to_b_write();
  with_child.close_to_b_write();
  partner.join();
  int status = 0;
  ::waitpid(child, &status, 0);
  if (static_cast<int>(thread_samples.size()) != o.repetitions()) {
    return {failed(threads, "a ping-pong write or read failed"),
            failed(mm, "a ping-pong write or read failed")};
  }
  threads.measured = true;
  threads.ns = summarize(thread_samples);
  threads.note = partner_pinned.load()
                     ? "one switch + one pipe write + one pipe read, CPU " + std::to_string(cpu)
                     : "NOT pinned (sched_setaffinity refused): includes cross-CPU wakeups";
  mm.measured = partner_pinned.load();
  mm.ns = summarize(differences);
  mm.note = mm.measured ? "process ping-pong " +
                              std::to_string(static_cast<long>(threads.ns.median + mm.ns.median)) +
                              " ns/switch, CPU " + std::to_string(cpu)
                        : "skipped: the thread partner could not be pinned";
  return {threads, mm};
}

}  // namespace mmreplay::tools::calibrate

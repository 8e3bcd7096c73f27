#include "tools/calibrate/host_capacity.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <chrono>
#include <numeric>
#include <thread>

#include "tools/calibrate/native_loops.h"
#include "tools/calibrate/sample_stats.h"

namespace mmreplay::tools::calibrate {
namespace {

// Median (sample_stats.h summarize()), min and max of `v`, into the three; unchanged when empty.
void median_and_range(const std::vector<double>& v, double* median, double* min, double* max) {
  if (v.empty()) return;
  *median = summarize(v).median;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  *min = *lo;
  *max = *hi;
}

}  // namespace

double HostCapacityRound::balance() const {
  if (alone.empty()) return 1;
  const auto [slowest, fastest] = std::minmax_element(alone.begin(), alone.end());
  return *fastest > 0 ? *slowest / *fastest : 1;
}

double HostCapacityRound::capacity() const {
  const double sum = std::accumulate(alone.begin(), alone.end(), 0.0);
  return sum > 0 ? together / sum : 1;
}

bool HostCapacity::whole() const {
  return balance >= kHostCapacityWarning && capacity >= kHostCapacityWarning;
}

HostCapacity summarize_host_capacity(int cpus, std::vector<HostCapacityRound> rounds) {
  HostCapacity c;
  c.cpus = cpus;
  std::vector<double> alone, balance, capacity;
  for (const HostCapacityRound& r : rounds) {
    if (!r.alone.empty())
      alone.push_back(std::accumulate(r.alone.begin(), r.alone.end(), 0.0) /
                      static_cast<double>(r.alone.size()));
    balance.push_back(r.balance());
    capacity.push_back(r.capacity());
  }
  c.alone = summarize(alone).median;  // 0 without rounds
  median_and_range(balance, &c.balance, &c.balance_min, &c.balance_max);
  median_and_range(capacity, &c.capacity, &c.capacity_min, &c.capacity_max);
  c.rounds = std::move(rounds);
  return c;
}

Status measure_host_capacity(const ThroughputOptions& o, int cpus, int rounds, HostCapacity* out) {
  assert(cpus >= 2 && rounds >= 1);
  const ThroughputLoop* loop = find_throughput_loop("read-page");
  assert(loop != nullptr);
  std::vector<HostCapacityRound> measured;
  for (int r = 0; r < rounds; ++r) {
    HostCapacityRound round;
    for (int cpu = 0; cpu < cpus; ++cpu) {
      const NativeSample s =
          run_native_loop(*loop, 1, NativeRun{kHostCapacitySampleSeconds, o.realtime, cpu});
      if (!s.ok)
        return Status::io_error(
            fmt::format("host capacity: read-page on CPU {}: {}", cpu, s.error));
      round.alone.push_back(s.ops_per_s);
    }
    const NativeSample all =
        run_native_loop(*loop, cpus, NativeRun{kHostCapacitySampleSeconds, o.realtime, 0});
    if (!all.ok)
      return Status::io_error(
          fmt::format("host capacity: read-page on {} CPUs: {}", cpus, all.error));
    round.together = all.ops_per_s;
    measured.push_back(std::move(round));
  }
  *out = summarize_host_capacity(cpus, std::move(measured));
  return Status::ok();
}

Status wait_for_host(const ThroughputOptions& o, int cpus, std::ostream* progress,
                     HostCapacity* out) {
  const auto start = std::chrono::steady_clock::now();
  const auto waited = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  for (bool said = false;; said = true) {
    if (Status s = measure_host_capacity(o, cpus, kHostCapacityRounds, out); !s) return s;
    out->waited_s = waited();
    if (out->whole() || out->waited_s >= o.host_wait_s) return Status::ok();
    if (progress != nullptr && !said) {
      *progress << fmt::format(
                       "  waiting up to {:.0f} s for the host: read-page's slowest CPU at {:.2f} "
                       "of the fastest, all together at {:.2f} of their sum alone\n",
                       o.host_wait_s, out->balance, out->capacity)
                << std::flush;
    }
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

Status check_host(const ThroughputOptions& o, int cpus, bool wait, std::ostream* progress,
                  std::optional<HostCapacity>* out) {
  if (cpus < 2) return Status::ok();
  HostCapacity measured;
  Status s = wait ? wait_for_host(o, cpus, progress, &measured)
                  : measure_host_capacity(o, cpus, kHostCapacityRounds, &measured);
  if (s) *out = std::move(measured);
  return s;
}

std::string host_capacity_note(const HostCapacity& c, const std::string& when) {
  std::string line = fmt::format(
      "host capacity {}: read-page on one CPU at a time {:.0f} ops/s, the slowest CPU at {:.2f} of "
      "the fastest; on all {} at once, {:.2f} of the sum of their rates alone (medians of {} "
      "rounds; {:.2f}-{:.2f} and {:.2f}-{:.2f})",
      c.waited_s >= 1 ? fmt::format("{} (after waiting {:.0f} s for it)", when, c.waited_s) : when,
      c.alone, c.balance, c.cpus, c.capacity, c.rounds.size(), c.balance_min, c.balance_max,
      c.capacity_min, c.capacity_max);
  if (c.whole()) return line;
  const bool unequal = c.balance < kHostCapacityWarning;
  const bool shared = c.capacity < kHostCapacityWarning;
  return line + fmt::format(
                    "; below {:.2f}: the host is running other work on these CPUs ({}), which no "
                    "load average shows; the model runs the loop alike on every CPU and linearly "
                    "in their number, so the rows measure the host as well as the kernel: measure "
                    "again when both are near 1",
                    kHostCapacityWarning,
                    unequal && shared ? "one CPU slower than another, and all of them together"
                    : unequal         ? "one CPU slower than another"
                                      : "all of them together");
}

}  // namespace mmreplay::tools::calibrate

// LockStat: per-lock-class figures, as /proc/lock_stat reports them (CONFIG_LOCK_STAT).
//
// A lock class is every instance of one lock in one role ("&mm->mmap_sem-R" for all mms' read
// acquisitions). A class counts acquisitions, contentions (the acquirer had to wait), bounces
// (acquired on another CPU than the previous acquisition: the lock's line moved) and keeps
// wait-time and hold-time histograms in ns. The registry belongs to the Simulation; references to
// classes stay valid for its lifetime.

#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "kernelsim/sim/histogram.h"

namespace mmreplay::kernelsim {

struct LockClassStats {
  uint64_t acquisitions = 0;
  uint64_t contentions = 0;
  uint64_t acq_bounces = 0;  // acquired on another CPU than the previous acquisition
  uint64_t con_bounces = 0;  // contended acquisitions that were also bounces
  Histogram wait_time;       // ns, contended acquisitions only (lock_stat's waittime)
  Histogram hold_time;       // ns, every release

  void record_acquire(uint32_t cpu, uint64_t wait_ns, bool contended);
  friend bool operator==(const LockClassStats&, const LockClassStats&) = default;

  int32_t last_cpu = -1;  // CPU of the previous acquisition
};

class LockStat {
 public:
  // The class named `name`, created empty on first use.
  LockClassStats& lock_class(std::string_view name);
  // The name of class `name` as stored here (valid for the LockStat's lifetime), created empty on
  // first use: what a lock hands to tracepoints (sim/trace_sink.h).
  std::string_view stored_name(std::string_view name);
  // nullptr when no lock of that class was created.
  const LockClassStats* find(std::string_view name) const;
  const std::map<std::string, LockClassStats, std::less<>>& classes() const { return classes_; }

  friend bool operator==(const LockStat&, const LockStat&) = default;

 private:
  std::map<std::string, LockClassStats, std::less<>> classes_;
};

}  // namespace mmreplay::kernelsim

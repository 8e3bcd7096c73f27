// FreePageTrend: the lookback window and least-squares trend of free pages of seed 003's RFC
// ("Add predictive memory reclamation and compaction", Khalid Aziz, 2019: mm/lsq.c, mem_predict()).
//
// A fixed-size window of (time, free pages) samples; once it is full, a least-squares line
// y = m x + c is fitted to it. With a downward slope, solving the line for the low watermark gives
// when free pages will reach it if consumption goes on; mem_predict() compares that with how long
// reclaim needs and asks for kswapd early. The RFC used a fixed percentage threshold and said the
// rate of reclamation should replace it: this model uses the rate (ReclaimRate below).
//
// Samples are taken where the RFC takes them: when kswapd decides whether to sleep
// (kswapd_try_to_sleep(), patch 2), and on the allocation path (get_page_from_freelist(), the
// RFC's alternative), in the model once per per-CPU list refill (rmqueue_bulk()).
//
// Invariant: size() <= lookback. Samples come from several tasks' clocks, so they need not be in
// time order; the fit does not care.

#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernelsim/sim/co.h"
#include "kernelsim/sim/time.h"

namespace mmreplay::kernelsim {

class Task;
class Simulation;

struct TrendLine {
  double slope_pages_per_ns = 0;  // m
  double pages_at_first = 0;      // c: the line's value at the oldest sample's time
  SimTime first;                  // time of the oldest sample (x = 0)
};

class FreePageTrend {
 public:
  // REQUIRES: lookback >= 2.
  explicit FreePageTrend(uint32_t lookback);

  // Adds a sample; the oldest one leaves a full window.
  void add_sample(SimTime when, uint64_t free_pages);
  bool full() const { return count_ == samples_.size(); }
  uint32_t size() const { return count_; }

  // The least-squares line over the window; nullopt until the window is full, or when all
  // samples share one time.
  std::optional<TrendLine> fit() const;

  // Models mem_predict(): true when the fitted line falls to `low` pages no later than `lead`
  // after `now` (false with a flat or rising trend or a window not yet full).
  bool predicts_low_within(SimTime now, uint64_t low, SimTime lead) const;

 private:
  struct Sample {
    SimTime when;
    uint64_t free_pages;
  };
  std::vector<Sample> samples_;  // ring buffer
  uint32_t next_ = 0;
  uint32_t count_ = 0;
};

// kswapd's observed reclaim speed: pages reclaimed per time spent in balance_pgdat().
class ReclaimRate {
 public:
  void record(uint64_t pages, SimTime took) {
    pages_ += pages;
    time_ += took;
  }
  // Pages per ns at the observed rate, or at one page per `per_page_estimate` before any was seen.
  double pages_per_ns(SimTime per_page_estimate) const;

 private:
  uint64_t pages_ = 0;
  SimTime time_;
};

// True under reclaim=predictive when free pages are below high + (high - low) (how far early
// reclaim may go: the gap plays the part of watermark_boost) and the trend falls to the low
// watermark within the lead kswapd needs: its wakeup latency plus the time to reclaim the low-high
// gap at its reclaim rate net of the consumption rate (the slope); right away when consumption
// outruns reclaim.
bool kswapd_predicts_shortage(Simulation& sim, SimTime now);

// The allocation-path sample (get_page_from_freelist()): records free pages and wakes a sleeping
// kswapd when the trend predicts a shortage. No-op under reclaim=reactive.
// REQUIRES: t holds no spinlock.
Co<void> sample_free_pages(Task& t);

}  // namespace mmreplay::kernelsim

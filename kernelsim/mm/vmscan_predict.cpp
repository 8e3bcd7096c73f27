#include "kernelsim/mm/vmscan_predict.h"

#include <cassert>

#include "kernelsim/mm/vmscan.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

FreePageTrend::FreePageTrend(uint32_t lookback) : samples_(lookback) {
  assert(lookback >= 2);
}

void FreePageTrend::add_sample(SimTime when, uint64_t free_pages) {
  samples_[next_] = Sample{when, free_pages};
  next_ = static_cast<uint32_t>((next_ + 1) % samples_.size());
  if (count_ < samples_.size()) ++count_;
}

// Models mm/lsq.c of the RFC: the least-squares fit m = (n Sxy - Sx Sy) / (n Sxx - Sx^2),
// c = (Sy - m Sx) / n, with x measured from the oldest sample (keeps the sums small).
std::optional<TrendLine> FreePageTrend::fit() const {
  if (!full()) return std::nullopt;
  const Sample& oldest = samples_[next_];  // full window: the next slot to overwrite is the oldest
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const Sample& s : samples_) {
    const double x = static_cast<double>((s.when - oldest.when).count_ns());
    const double y = static_cast<double>(s.free_pages);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double n = static_cast<double>(samples_.size());
  const double den = n * sxx - sx * sx;
  if (den <= 0) return std::nullopt;
  TrendLine line;
  line.slope_pages_per_ns = (n * sxy - sx * sy) / den;
  line.pages_at_first = (sy - line.slope_pages_per_ns * sx) / n;
  line.first = oldest.when;
  return line;
}

bool FreePageTrend::predicts_low_within(SimTime now, uint64_t low, SimTime lead) const {
  const std::optional<TrendLine> line = fit();
  if (!line || line->slope_pages_per_ns >= 0) return false;
  // y = m x + c = low  =>  x = (low - c) / m, from the oldest sample's time.
  const double x_low = (static_cast<double>(low) - line->pages_at_first) / line->slope_pages_per_ns;
  const double until = x_low - static_cast<double>((now - line->first).count_ns());
  return until <= static_cast<double>(lead.count_ns());
}

double ReclaimRate::pages_per_ns(SimTime per_page_estimate) const {
  if (pages_ == 0 || time_ <= SimTime::zero())
    return 1.0 / static_cast<double>(per_page_estimate.count_ns());
  return static_cast<double>(pages_) / static_cast<double>(time_.count_ns());
}

bool kswapd_predicts_shortage(Simulation& sim, SimTime now) {
  if (sim.config().reclaim != ReclaimMode::kPredictive) return false;
  const Zone& z = sim.page_alloc().zone();
  const uint64_t gap = z.wmark_high - z.wmark_low;
  if (z.free_pages >= z.wmark_high + gap) return false;
  KswapdData& kd = sim.kswapd_data();
  const std::optional<TrendLine> line = kd.trend.fit();
  if (!line || line->slope_pages_per_ns >= 0) return false;
  // kswapd's speed as observed; before it has run, the CPU cost of reclaiming an anon page.
  const CostProfile& c = sim.costs();
  const double reclaim = kd.rate.pages_per_ns(c.shrink_page + c.swap_out_page);
  const double net = reclaim + line->slope_pages_per_ns;  // slope < 0: the consumption
  if (net <= 0) return true;  // reclaim cannot keep up: start as soon as the trend is down
  const SimTime lead =
      c.wakeup_latency + SimTime::ns(static_cast<int64_t>(static_cast<double>(gap) / net));
  return kd.trend.predicts_low_within(now, z.wmark_low, lead);
}

Co<void> sample_free_pages(Task& t) {
  Simulation& sim = t.sim();
  if (sim.config().reclaim != ReclaimMode::kPredictive) co_return;
  sim.kswapd_data().trend.add_sample(t.clock(), sim.page_alloc().zone().free_pages);
  if (sim.kswapd() != nullptr && !sim.kswapd_data().waiting) co_return;  // awake already
  if (!kswapd_predicts_shortage(sim, t.clock())) co_return;
  co_await sync_point(t);
  if (wakeup_kswapd(t)) ++sim.vm().kswapd_predicted_wakeups;
}

}  // namespace mmreplay::kernelsim

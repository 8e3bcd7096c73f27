#include "kernelsim/policy/reclaim.h"

#include <memory>
#include <string>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/vmscan.c as merged: kswapd woken at low only (wakeup_kswapd()).
class Reactive final : public ReclaimPolicy {
 public:
  bool predictive() const override { return false; }
};

// Models the seed 003 RFC: mem_predict() on a least-squares trend of free pages.
class Predictive final : public ReclaimPolicy {
 public:
  bool predictive() const override { return true; }
};

// Models the RFC's LSQ_LOOKBACK (mm/lsq.c).
class PredictWindow final : public PredictWindowPolicy {
 public:
  explicit PredictWindow(uint32_t n) : n_(n) {}
  uint32_t lookback() const override { return n_; }

 private:
  uint32_t n_;
};

PolicyValue window(uint32_t n, const char* description) {
  return {std::to_string(n), description,
          [n](PolicySet& s) { s.predict_window = std::make_unique<PredictWindow>(n); }};
}

}  // namespace

PolicyKnob reclaim_knob() {
  return {"reclaim",
          "when kswapd starts: at the low watermark, or earlier on a free-page trend (seed 003)",
          "reactive",
          {}};
}

PolicyValue reclaim_reactive() {
  return {"reactive", "kswapd woken at the low watermark, asleep above high",
          [](PolicySet& s) { s.reclaim = std::make_unique<Reactive>(); }};
}

PolicyValue reclaim_predictive() {
  return {"predictive", "seed 003 RFC: least-squares trend of free pages wakes kswapd early",
          [](PolicySet& s) { s.reclaim = std::make_unique<Predictive>(); }};
}

PolicyKnob predict_window_knob() {
  return {"predict_window",
          "(time, free pages) samples in the reclaim=predictive lookback window",
          "8",
          {}};
}

PolicyValue predict_window_8() {
  return window(8, "LSQ_LOOKBACK of the seed 003 RFC");
}
PolicyValue predict_window_16() {
  return window(16, "twice the RFC's window: slower, smoother trend");
}
PolicyValue predict_window_32() {
  return window(32, "four times the RFC's window");
}

}  // namespace mmreplay::kernelsim

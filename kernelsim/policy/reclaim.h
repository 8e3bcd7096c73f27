// Knobs `reclaim` and `predict_window`: when kswapd starts and stops (seed 003, "Add predictive
// memory reclamation and compaction", Khalid Aziz, 2019).
//   reclaim=reactive    kswapd is woken when an allocation finds free pages at or below the low
//                       watermark and sleeps once they are above high (mm/vmscan.c as merged).
//   reclaim=predictive  also keeps a lookback window of (time, free pages) samples, fits a
//                       least-squares line (the RFC's mm/lsq.c) and wakes kswapd early, or keeps
//                       it from sleeping, while the trend reaches low sooner than kswapd can
//                       reclaim the low-high gap (mm/vmscan_predict.h).
//   predict_window=8|16|32  samples in the lookback window (the RFC's LSQ_LOOKBACK is 8).

#pragma once

#include <cstdint>

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class ReclaimPolicy {
 public:
  virtual ~ReclaimPolicy() = default;
  // True when free-page trends may wake kswapd before the low watermark is hit.
  virtual bool predictive() const = 0;
};

class PredictWindowPolicy {
 public:
  virtual ~PredictWindowPolicy() = default;
  // Samples in the lookback window (>= 2).
  virtual uint32_t lookback() const = 0;
};

PolicyKnob reclaim_knob();
PolicyValue reclaim_reactive();
PolicyValue reclaim_predictive();

PolicyKnob predict_window_knob();
PolicyValue predict_window_8();
PolicyValue predict_window_16();
PolicyValue predict_window_32();

}  // namespace mmreplay::kernelsim

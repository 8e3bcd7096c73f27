#include "kernelsim/policy/tlb_flush.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class Ipi final : public TlbFlushPolicy {
 public:
  TlbFlushMethod method(const TlbFlushView&) const override { return TlbFlushMethod::kIpi; }
};

class Broadcast final : public TlbFlushPolicy {
 public:
  TlbFlushMethod method(const TlbFlushView&) const override { return TlbFlushMethod::kBroadcast; }
};

}  // namespace

PolicyKnob tlb_flush_knob() {
  return {"tlb", "remote TLB invalidation mechanism", "ipi", {}};
}

PolicyValue tlb_ipi() {
  return {"ipi", "shootdown IPIs to mm_cpumask, initiator waits for all acks",
          [](PolicySet& s) { s.tlb = std::make_unique<Ipi>(); }};
}

PolicyValue tlb_broadcast() {
  return {"broadcast", "INVLPGB + TLBSYNC (AMD) / RAR (Intel): no IPIs",
          [](PolicySet& s) { s.tlb = std::make_unique<Broadcast>(); }};
}

}  // namespace mmreplay::kernelsim

#include "kernelsim/policy/lazy_tlb.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class LeaveMm final : public LazyTlbPolicy {
 public:
  bool ipi_lazy_cpu(bool) const override { return true; }
  bool check_tlb_gen_on_return() const override { return false; }
};

class Skip final : public LazyTlbPolicy {
 public:
  bool ipi_lazy_cpu(bool freed_tables) const override { return freed_tables; }
  bool check_tlb_gen_on_return() const override { return true; }
};

}  // namespace

PolicyKnob lazy_tlb_knob() {
  return {"lazy_tlb", "how lazy-TLB CPUs take shootdowns", "skip", {}};
}

PolicyValue lazy_tlb_leave_mm() {
  return {"leave_mm", "3.x: lazy CPUs get the IPI and leave the mm",
          [](PolicySet& s) { s.lazy_tlb = std::make_unique<LeaveMm>(); }};
}

PolicyValue lazy_tlb_skip() {
  return {"skip", "4.19+: lazy CPUs skipped unless page tables are freed; tlb_gen on return",
          [](PolicySet& s) { s.lazy_tlb = std::make_unique<Skip>(); }};
}

}  // namespace mmreplay::kernelsim

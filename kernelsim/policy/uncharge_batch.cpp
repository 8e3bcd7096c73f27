#include "kernelsim/policy/uncharge_batch.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class UnchargeBatch final : public UnchargeBatchPolicy {
 public:
  explicit UnchargeBatch(bool gather) : gather_(gather) {}
  bool per_gather_batch() const override { return gather_; }

 private:
  bool gather_;
};

PolicyValue value(const char* name, bool gather, const char* description) {
  return {name, description,
          [gather](PolicySet& s) { s.uncharge_batch = std::make_unique<UnchargeBatch>(gather); }};
}

}  // namespace

PolicyKnob uncharge_batch_knob() {
  return {"uncharge_batch",
          "pages per memcg uncharge when a zap frees its gathered pages",
          "gather",
          {}};
}

PolicyValue uncharge_batch_pagevec() {
  return value("pagevec", false,
               "3.17-rc: one uncharge per PAGEVEC_SIZE pages (seed 001 regression)");
}
PolicyValue uncharge_batch_gather() {
  return value("gather", true, "3.17+: one uncharge per mmu_gather batch (aabfb57296e3)");
}

}  // namespace mmreplay::kernelsim

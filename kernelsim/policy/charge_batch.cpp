#include "kernelsim/policy/charge_batch.h"

#include <memory>
#include <string>

#include "kernelsim/constants.h"
#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/memcontrol.c: CHARGE_BATCH / MEMCG_CHARGE_BATCH.
class ChargeBatch final : public ChargeBatchPolicy {
 public:
  explicit ChargeBatch(uint32_t n) : n_(n) {}
  uint32_t size() const override { return n_; }

 private:
  uint32_t n_;
};

PolicyValue value(uint32_t n, const char* description) {
  return {std::to_string(n), description,
          [n](PolicySet& s) { s.charge_batch = std::make_unique<ChargeBatch>(n); }};
}

}  // namespace

PolicyKnob charge_batch_knob() {
  return {
      "charge_batch", "pages per memcg counter charge kept in the per-CPU charge stock", "64", {}};
}

PolicyValue charge_batch_32() {
  return value(CHARGE_BATCH, "3.x CHARGE_BATCH, MEMCG_CHARGE_BATCH before 6.1");
}
PolicyValue charge_batch_64() {
  return value(MEMCG_CHARGE_BATCH, "6.1+ MEMCG_CHARGE_BATCH");
}

}  // namespace mmreplay::kernelsim

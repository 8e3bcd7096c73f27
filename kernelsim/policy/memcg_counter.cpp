#include "kernelsim/policy/memcg_counter.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class MemcgCounter final : public MemcgCounterPolicy {
 public:
  explicit MemcgCounter(MemcgCounterKind k) : k_(k) {}
  MemcgCounterKind kind() const override { return k_; }

 private:
  MemcgCounterKind k_;
};

PolicyValue value(const char* name, MemcgCounterKind k, const char* description) {
  return {name, description, [k](PolicySet& s) { s.memcg = std::make_unique<MemcgCounter>(k); }};
}

}  // namespace

PolicyKnob memcg_counter_knob() {
  return {"memcg", "memory cgroup charging of user pages and its counter", "off", {}};
}

PolicyValue memcg_off() {
  return value("off", MemcgCounterKind::kOff, "no memcg charging");
}
PolicyValue memcg_res_counter() {
  return value("res_counter", MemcgCounterKind::kResCounter,
               "<= 3.18: spinlocked res_counter (seed 001)");
}
PolicyValue memcg_page_counter() {
  return value("page_counter", MemcgCounterKind::kPageCounter,
               "3.19+: lockless page_counter (3e32cb2e0a12)");
}

}  // namespace mmreplay::kernelsim

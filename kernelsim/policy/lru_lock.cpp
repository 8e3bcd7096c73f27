#include "kernelsim/policy/lru_lock.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class LruLock final : public LruLockPolicy {
 public:
  explicit LruLock(bool per_lruvec) : per_lruvec_(per_lruvec) {}
  bool per_lruvec() const override { return per_lruvec_; }

 private:
  bool per_lruvec_;
};

PolicyValue value(const char* name, bool per_lruvec, const char* description) {
  return {name, description,
          [per_lruvec](PolicySet& s) { s.lru_lock = std::make_unique<LruLock>(per_lruvec); }};
}

}  // namespace

PolicyKnob lru_lock_knob() {
  return {"lru_lock", "granularity of the LRU lock", "lruvec", {}};
}

PolicyValue lru_lock_node() {
  return value("node", false, "<= 5.10: zone->lru_lock, pgdat->lru_lock (4.8)");
}
PolicyValue lru_lock_lruvec() {
  return value("lruvec", true, "5.11+: lruvec->lru_lock per memcg (6168d0da2b47)");
}

}  // namespace mmreplay::kernelsim

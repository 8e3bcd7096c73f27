#include "kernelsim/policy/zap_lru_drain.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

class ZapLruDrain final : public ZapLruDrainPolicy {
 public:
  explicit ZapLruDrain(bool on) : on_(on) {}
  bool drain() const override { return on_; }

 private:
  bool on_;
};

PolicyValue value(const char* name, bool on, const char* description) {
  return {name, description,
          [on](PolicySet& s) { s.zap_lru_drain = std::make_unique<ZapLruDrain>(on); }};
}

}  // namespace

PolicyKnob zap_lru_drain_knob() {
  return {"zap_lru_drain", "lru_add_drain() before zapping (MADV_DONTNEED, munmap)", "on", {}};
}

PolicyValue zap_lru_drain_on() {
  return value("on", true, "lru_add_drain() in the zap paths (all versions)");
}
PolicyValue zap_lru_drain_off() {
  return value("off", false, "no drain before the zap (experiment)");
}

}  // namespace mmreplay::kernelsim

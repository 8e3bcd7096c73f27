#include "kernelsim/policy/bh_invalidate.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// The decision is where (and whether) the bh_lrus are invalidated; fs/bh_invalidate.cpp and
// mm/alloc_contig.cpp carry out what each mode means.
class BhInvalidate final : public BhInvalidatePolicy {
 public:
  explicit BhInvalidate(BhInvalidateMode m) : m_(m) {}
  BhInvalidateMode mode() const override { return m_; }

 private:
  BhInvalidateMode m_;
};

PolicyValue value(const char* name, BhInvalidateMode m, const char* description) {
  return {name, description,
          [m](PolicySet& s) { s.bh_invalidate = std::make_unique<BhInvalidate>(m); }};
}

}  // namespace

PolicyKnob bh_invalidate_knob() {
  return {"bh_invalidate",
          "how bh_lru entries pinning pages are dropped before migration (seed 004)",
          "drain",
          {}};
}

PolicyValue bh_invalidate_all() {
  return value("all", BhInvalidateMode::kAll,
               "seed 004 patch: invalidate_bh_lrus() IPI to every CPU in alloc_contig_range()");
}
PolicyValue bh_invalidate_cond() {
  return value("cond", BhInvalidateMode::kCond,
               "IPIs only to CPUs with has_bh_in_lru() (on_each_cpu_cond)");
}
PolicyValue bh_invalidate_selected() {
  return value("selected", BhInvalidateMode::kSelected,
               "drop only the migrated pages' buffer heads, searching every CPU's bh_lru (no IPI)");
}
PolicyValue bh_invalidate_none() {
  return value("none", BhInvalidateMode::kNone,
               "before 5.13: migration fails and retries on busy buffer heads");
}
PolicyValue bh_invalidate_drain() {
  return value(
      "drain", BhInvalidateMode::kDrain,
      "5.13+ (8cc621d2f45d): invalidate in lru_add_drain(); lru_cache_disable() skips installs");
}

}  // namespace mmreplay::kernelsim

#include "kernelsim/policy/pagevec_size.h"

#include <memory>
#include <string>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// Models include/linux/pagevec.h: PAGEVEC_SIZE / PAGEVEC_SIZE of folio_batch.
class PagevecSize final : public PagevecSizePolicy {
 public:
  explicit PagevecSize(uint32_t n) : n_(n) {}
  uint32_t size() const override { return n_; }

 private:
  uint32_t n_;
};

PolicyValue value(uint32_t n, const char* description) {
  return {std::to_string(n), description, [n](PolicySet& s) { s.pagevec_size = std::make_unique<PagevecSize>(n); }};
}

}  // namespace

PolicyKnob pagevec_size_knob() {
  return {"pagevec_size", "pages per per-CPU LRU batch (lru_add, lru_lazyfree)", "31", {}};
}

PolicyValue pagevec_size_14() { return value(14, "3.x PAGEVEC_SIZE"); }
PolicyValue pagevec_size_15() { return value(15, "~4.15+ PAGEVEC_SIZE"); }
PolicyValue pagevec_size_31() { return value(31, "6.9+ folio_batch (9cecde80aae0)"); }

}  // namespace mmreplay::kernelsim

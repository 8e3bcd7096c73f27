#include "kernelsim/policy/bh_lru_size.h"

#include <memory>
#include <string>

#include "kernelsim/constants.h"
#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// Models fs/buffer.c: #define BH_LRU_SIZE.
class BhLruSize final : public BhLruSizePolicy {
 public:
  explicit BhLruSize(uint32_t n) : n_(n) {}
  uint32_t size() const override { return n_; }

 private:
  uint32_t n_;
};

PolicyValue value(uint32_t n, const char* description) {
  return {std::to_string(n), description, [n](PolicySet& s) { s.bh_lru_size = std::make_unique<BhLruSize>(n); }};
}

}  // namespace

PolicyKnob bh_lru_size_knob() {
  return {"bh_lru_size", "entries per per-CPU buffer-head LRU (BH_LRU_SIZE)", std::to_string(BH_LRU_SIZE), {}};
}

PolicyValue bh_lru_size_8() { return value(BH_LRU_SIZE_PRE_3_18, "BH_LRU_SIZE before 3.18"); }
PolicyValue bh_lru_size_16() { return value(BH_LRU_SIZE, "3.18+ BH_LRU_SIZE (86cf78d73de8)"); }

}  // namespace mmreplay::kernelsim

#include "kernelsim/policy/lazyfree_lru.h"

#include <memory>

#include "kernelsim/policy/policy_set.h"

namespace mmreplay::kernelsim {
namespace {

// Models mm/swap.c: deactivate_page() from madvise_free_pte_range() (4.5-4.11).
class InactiveAnon final : public LazyfreeLruPolicy {
 public:
  bool on_file_lru() const override { return false; }
};

// Models mm/swap.c: mark_page_lazyfree() (4.12+, f7ad2a6cb9f7).
class InactiveFile final : public LazyfreeLruPolicy {
 public:
  bool on_file_lru() const override { return true; }
};

}  // namespace

PolicyKnob lazyfree_lru_knob() {
  return {"lazyfree_lru", "LRU list of MADV_FREE'd pages", "inactive-file", {}};
}

PolicyValue lazyfree_lru_inactive_anon() {
  return {"inactive-anon", "4.5-4.11: inactive anon list, still swap-backed",
          [](PolicySet& s) { s.lazyfree_lru = std::make_unique<InactiveAnon>(); }};
}

PolicyValue lazyfree_lru_inactive_file() {
  return {"inactive-file", "4.12+: PG_swapbacked cleared, inactive file list (f7ad2a6cb9f7)",
          [](PolicySet& s) { s.lazyfree_lru = std::make_unique<InactiveFile>(); }};
}

}  // namespace mmreplay::kernelsim

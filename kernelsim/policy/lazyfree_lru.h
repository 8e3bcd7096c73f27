// Knob `lazyfree_lru`: which LRU list MADV_FREE moves a lazyfree page to.
//   inactive-anon  4.5-4.11: deactivate_page() to the inactive anon list; the page stays
//                  swap-backed, so reclaim only reaches it when anon is scanned (swap present).
//   inactive-file  4.12+ (f7ad2a6cb9f7): mark_page_lazyfree() clears PG_swapbacked and moves the
//                  page to the inactive file list, reclaimable without swap.

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class LazyfreeLruPolicy {
 public:
  virtual ~LazyfreeLruPolicy() = default;
  // True when lazyfree pages lose PG_swapbacked and live on the file LRU.
  virtual bool on_file_lru() const = 0;
};

PolicyKnob lazyfree_lru_knob();
PolicyValue lazyfree_lru_inactive_anon();
PolicyValue lazyfree_lru_inactive_file();

}  // namespace mmreplay::kernelsim

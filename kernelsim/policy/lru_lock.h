// Knob `lru_lock`: how fine the lock over the LRU lists is.
//   node    one lock per node: zone->lru_lock (<= 4.7), pgdat->lru_lock (4.8+)
//   lruvec  one lock per memcg lruvec (5.11+, 6168d0da2b47 "mm/lru: replace pgdat lru_lock
//           with lruvec lock"); with memcg=off every page is in the root lruvec, i.e. the node's

#pragma once

#include "kernelsim/policy/knob.h"

namespace mmreplay::kernelsim {

class LruLockPolicy {
 public:
  virtual ~LruLockPolicy() = default;
  // True when each memcg's lruvec has its own lru_lock.
  virtual bool per_lruvec() const = 0;
};

PolicyKnob lru_lock_knob();
PolicyValue lru_lock_node();
PolicyValue lru_lock_lruvec();

}  // namespace mmreplay::kernelsim

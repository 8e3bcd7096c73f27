// PolicySet: the policy objects a Simulation consults at its decision points.
//
// Each decision point has a small interface (one header per knob in this folder) whose hooks get a
// read-only view and return a decision; the model applies it. The set is built from a validated
// PolicyConfig by instantiate_policies() (registry.h) and owned by the Simulation.

#pragma once

#include <memory>

#include "kernelsim/policy/bh_invalidate.h"
#include "kernelsim/policy/bh_lru_size.h"
#include "kernelsim/policy/charge_batch.h"
#include "kernelsim/policy/fault_lock.h"
#include "kernelsim/policy/lazy_tlb.h"
#include "kernelsim/policy/lazyfree_lru.h"
#include "kernelsim/policy/lru_lock.h"
#include "kernelsim/policy/madv_free.h"
#include "kernelsim/policy/madvise_vector.h"
#include "kernelsim/policy/memcg_counter.h"
#include "kernelsim/policy/pagevec_size.h"
#include "kernelsim/policy/reclaim.h"
#include "kernelsim/policy/rwsem_wake.h"
#include "kernelsim/policy/tlb_flush.h"
#include "kernelsim/policy/uncharge_batch.h"
#include "kernelsim/policy/watermarks.h"
#include "kernelsim/policy/zap_lru_drain.h"

namespace mmreplay::kernelsim {

struct PolicySet {
  std::unique_ptr<const MadvFreePolicy> madv_free;
  std::unique_ptr<const MadviseVectorPolicy> madvise;
  std::unique_ptr<const TlbFlushPolicy> tlb;
  std::unique_ptr<const FaultLockPolicy> fault_lock;
  std::unique_ptr<const LazyTlbPolicy> lazy_tlb;
  std::unique_ptr<const RwsemWakePolicy> rwsem_wake;
  std::unique_ptr<const WatermarkPolicy> watermarks;
  std::unique_ptr<const LazyfreeLruPolicy> lazyfree_lru;
  std::unique_ptr<const PagevecSizePolicy> pagevec_size;
  std::unique_ptr<const BhLruSizePolicy> bh_lru_size;
  std::unique_ptr<const MemcgCounterPolicy> memcg;
  std::unique_ptr<const ChargeBatchPolicy> charge_batch;
  std::unique_ptr<const UnchargeBatchPolicy> uncharge_batch;
  std::unique_ptr<const LruLockPolicy> lru_lock;
  std::unique_ptr<const ZapLruDrainPolicy> zap_lru_drain;
  std::unique_ptr<const BhInvalidatePolicy> bh_invalidate;
  std::unique_ptr<const ReclaimPolicy> reclaim;
  std::unique_ptr<const PredictWindowPolicy> predict_window;

  // True when every hook has an implementation.
  bool complete() const {
    return madv_free && madvise && tlb && fault_lock && lazy_tlb && rwsem_wake && watermarks && lazyfree_lru && pagevec_size &&
           bh_lru_size && memcg && charge_batch && uncharge_batch && lru_lock && zap_lru_drain &&
           bh_invalidate && reclaim &&
           predict_window;
  }
};

}  // namespace mmreplay::kernelsim

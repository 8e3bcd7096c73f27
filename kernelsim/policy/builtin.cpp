// register_builtin_policies(): the one registration file. A new policy value is one new file plus
// one add_value() line here; a new knob one add_knob() line and its values.

#include "kernelsim/policy/registry.h"

namespace mmreplay::kernelsim {

void register_builtin_policies(PolicyRegistry& r) {
  r.add_knob(madv_free_knob());
  r.add_value("madv_free", madv_free_lazy());
  r.add_value("madv_free", madv_free_as_dontneed());
  r.add_value("madv_free", madv_free_throttled());
  r.add_value("madv_free", madv_free_free_swapped());

  r.add_knob(madvise_vector_knob());
  r.add_value("madvise", madvise_per_call());
  r.add_value("madvise", madvise_vector());

  r.add_knob(tlb_flush_knob());
  r.add_value("tlb", tlb_ipi());
  r.add_value("tlb", tlb_broadcast());

  r.add_knob(fault_lock_knob());
  r.add_value("fault_lock", fault_lock_mmap_sem());
  r.add_value("fault_lock", fault_lock_per_vma());

  r.add_knob(lazy_tlb_knob());
  r.add_value("lazy_tlb", lazy_tlb_skip());
  r.add_value("lazy_tlb", lazy_tlb_leave_mm());

  r.add_knob(rwsem_wake_knob());
  r.add_value("rwsem_wake", rwsem_wake_phase_fair());
  r.add_value("rwsem_wake", rwsem_wake_contiguous());

  r.add_knob(watermarks_knob());
  r.add_value("watermarks", watermarks_3x());
  r.add_value("watermarks", watermarks_scale_factor());

  r.add_knob(lazyfree_lru_knob());
  r.add_value("lazyfree_lru", lazyfree_lru_inactive_anon());
  r.add_value("lazyfree_lru", lazyfree_lru_inactive_file());

  r.add_knob(pagevec_size_knob());
  r.add_value("pagevec_size", pagevec_size_14());
  r.add_value("pagevec_size", pagevec_size_15());
  r.add_value("pagevec_size", pagevec_size_31());

  r.add_knob(bh_lru_size_knob());
  r.add_value("bh_lru_size", bh_lru_size_8());
  r.add_value("bh_lru_size", bh_lru_size_16());

  r.add_knob(memcg_counter_knob());
  r.add_value("memcg", memcg_off());
  r.add_value("memcg", memcg_res_counter());
  r.add_value("memcg", memcg_page_counter());

  r.add_knob(charge_batch_knob());
  r.add_value("charge_batch", charge_batch_32());
  r.add_value("charge_batch", charge_batch_64());

  r.add_knob(uncharge_batch_knob());
  r.add_value("uncharge_batch", uncharge_batch_pagevec());
  r.add_value("uncharge_batch", uncharge_batch_gather());

  r.add_knob(lru_lock_knob());
  r.add_value("lru_lock", lru_lock_node());
  r.add_value("lru_lock", lru_lock_lruvec());

  r.add_knob(zap_lru_drain_knob());
  r.add_value("zap_lru_drain", zap_lru_drain_on());
  r.add_value("zap_lru_drain", zap_lru_drain_off());
  r.add_knob(bh_invalidate_knob());
  r.add_value("bh_invalidate", bh_invalidate_all());
  r.add_value("bh_invalidate", bh_invalidate_cond());
  r.add_value("bh_invalidate", bh_invalidate_selected());
  r.add_value("bh_invalidate", bh_invalidate_none());
  r.add_value("bh_invalidate", bh_invalidate_drain());
  r.add_knob(reclaim_knob());
  r.add_value("reclaim", reclaim_reactive());
  r.add_value("reclaim", reclaim_predictive());

  r.add_knob(predict_window_knob());
  r.add_value("predict_window", predict_window_8());
  r.add_value("predict_window", predict_window_16());
  r.add_value("predict_window", predict_window_32());
}

}  // namespace mmreplay::kernelsim

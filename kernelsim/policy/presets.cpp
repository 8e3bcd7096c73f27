#include "kernelsim/policy/presets.h"

#include <compare>
#include <cstdint>

#include "kernelsim/policy/knob_table.h"

namespace mmreplay::kernelsim {

const std::vector<PolicyPreset>& policy_presets() {
  static const std::vector<PolicyPreset> kPresets = {
      {"default", "", "", "the model's defaults: a current kernel (6.x)"},
      // Kernel releases. Only knobs the model has are set; see `trace-replay policies`. 3.16 names
      // every knob the releases below differ in, so the chain does not lean on the model's
      // defaults for them; knobs no release before 6.18 changes (madvise, madvise_lock,
      // munmap_lock, tlb, zap_lru_drain, reclaim) keep the defaults there. linux-6.6 keeps
      // munmap_lock=write as it always had here, though the real 6.6 downgrades (4.20+).
      {"linux-3.16", "",
       "madv_free=as-dontneed,fault_lock=mmap_sem,lazy_tlb=leave_mm,pcid=off,rwsem_wake=contiguous,"
       "rwsem_writer_wake=steal,rwsem_reader_steal=off,rwsem_reader_spin=off,rwsem_spin=writer,"
       "csd_ipi=always,"
       "watermarks=3.x,lazyfree_lru=inactive-anon,lazyfree_pgdirty=kept,anon_lru=active-first,"
       "swapin_pte=read-only,sync_swapin=swapcache,swap_readahead=cluster,"
       "written_back_retry=off,reclaim_tlb_flush=per-page,mm_cpumask=eager,pcp_high=batch,"
       "pagevec_size=14,"
       "bh_lru_size=8,"
       "memcg=res_counter,charge_batch=32,uncharge_batch=gather,lru_lock=node,"
       "release_pages=pagevec,bh_invalidate=none,sched=cfs,idle_balance=newidle-avg-idle",
       "3.16 (seed 001's baseline): no MADV_FREE (allocators fall back to DONTNEED), 3.x rwsem (a "
       "woken writer races for "
       "the lock, nothing bounds the steals past it, and writers spin only on a running writer), "
       "BH_LRU_SIZE 8; res_counter memcg, uncharges batched over the whole unmap "
       "(mem_cgroup_uncharge_start/end), zone->lru_lock, taken by release_pages() per "
       "PAGEVEC_SIZE pages of a zap; a newly idle CPU pulls a task only while its idle periods "
       "average sysctl_sched_migration_cost"},
      {"linux-3.17-rc2", "linux-3.16", "uncharge_batch=pagevec",
       "3.17-rc2 (seed 001's regression): the uncharge rewrite (0a31bc97c80c) uncharges per "
       "release_pages() list, which free_pages_and_swap_cache() feeds in PAGEVEC_SIZE chunks"},
      {"linux-3.18", "linux-3.16", "bh_lru_size=16,release_pages=cluster",
       "3.18: BH_LRU_SIZE 8 -> 16 (86cf78d73de8); still res_counter (page_counter is 3.19), "
       "uncharge per gather batch and release_pages() over the whole batch since 3.17 "
       "(aabfb57296e3)"},
      {"linux-4.5", "linux-3.18",
       "madv_free=free-swapped,lazyfree_pgdirty=cleared,memcg=page_counter,"
       "reclaim_tlb_flush=batched",
       "4.5: MADV_FREE merged (854e9ed09ded) with seed 000's fix (swap entries in the range "
       "freed) and PG_dirty cleared on the pages it hints; lockless page_counter (3.19, "
       "3e32cb2e0a12); reclaim's unmap flushes batched (4.3, 72b252aed506 and d950c9477d51)"},
      {"linux-4.12", "linux-4.5", "watermarks=scale-factor,lazyfree_lru=inactive-file",
       "4.12: lazyfree pages on the inactive file LRU (f7ad2a6cb9f7); watermark_scale_factor "
       "(4.6)"},
      {"linux-5.3", "linux-4.12",
       "lazy_tlb=skip,pcid=on,rwsem_wake=phase-fair,rwsem_writer_wake=handoff,rwsem_spin=readers,"
       "rwsem_reader_spin=on,"
       "pagevec_size=15,"
       "csd_ipi=if-empty,"
       "sync_swapin=skip-swapcache,swap_readahead=vma",
       "5.3: rwsem rework (phase-fair reader wake-up, handoff, writers spin on readers too, "
       "readers spin on writers); "
       "lazy-TLB CPUs skipped (4.19); "
       "no IPI to a CPU whose call_single_queue holds a csd already (4.15); zram's swap-ins "
       "skip the swap cache (4.15); swap readahead per VMA (4.14); "
       "PCID keeps the TLB entries of the last 6 mms across switches (4.14, 10af6235e0d3)"},
      {"linux-6.6", "linux-5.3",
       "fault_lock=per-vma,charge_batch=64,lru_lock=lruvec,bh_invalidate=drain,"
       "anon_lru=inactive-first,pcp_high=wmark,rwsem_reader_steal=on,rwsem_reader_spin=off,"
       "rwsem_spin=handoff,sched=eevdf,eevdf_wakeup=parity,idle_balance=newidle",
       "6.4-6.6: per-VMA locks for page faults; MEMCG_CHARGE_BATCH 64 (6.1), lruvec->lru_lock "
       "(5.11, 6168d0da2b47); readers steal a free rwsem past its waiters instead of spinning "
       "(5.11, 1a728dff855a, 617f3ef95177); "
       "the writer due a handoff spins on a running owner (5.4, 91d2a812dfb9); "
       "new anon pages start inactive and are looked at twice (5.9, "
       "b518154e59aa); pcp high from the low watermark (5.14); newly idle balancing whatever "
       "the CPU's average idle (5.13, \"sched/fair: Remove sysctl_sched_migration_cost "
       "condition\"); EEVDF's base slice in place of "
       "CFS's share of sched_latency (6.6, 147f3efaa241), a wakee preempting by its lag and "
       "RUN_TO_PARITY (6.6-6.11)"},
      // 6.12, the LTS between them: what 6.7-6.12 changed that the model has. munmap's downgrade
      // is 4.20's, in every release since; linux-6.6 keeps munmap_lock=write as it always had
      // here, and this preset is new, so it has the kernel's.
      {"linux-6.12", "linux-6.6",
       "fault_lock=per-vma-all,pcp_high=auto,pagevec_size=31,swapin_pte=writable,"
       "munmap_lock=downgrade,eevdf_wakeup=eligible",
       "6.12 (LTS): per-VMA locks for file-backed faults too (6.7, 12214eba1992); pcp high tuned "
       "automatically (6.7, 51a755c56dc0); folio_batch of 31 (6.9, 9cecde80aae0); a page a read "
       "fault brings back from swap mapped writable and clean (6.11, c18160dba5ff); munmap zaps "
       "under mmap_lock downgraded to read (4.20, dd2283f2605e); EEVDF's delayed dequeue, a "
       "sleeper that leaves ineligible staying queued until its lag is paid back, and an "
       "eligible wakee preempting at once (6.12, 152e11f6df29 \"sched/fair: Implement delayed "
       "dequeue\")"},
      {"linux-6.18", "linux-6.12",
       "madvise=process-madvise,madvise_lock=per-vma,written_back_retry=on,mm_cpumask=lazy",
       "6.18 (this machine's kernel): per-VMA locks for anonymous faults (6.4, Suren "
       "Baghdasaryan) and file-backed ones (6.7, 12214eba1992); MADV_DONTNEED/MADV_FREE under the "
       "per-VMA lock when the range lies in one "
       "VMA (6.17, Barry Song \"mm: use per_vma lock for MADV_DONTNEED\", version per the mm "
       "tree; MADV_FREE per perf stat mmap_lock:* on 6.18); munmap zaps under mmap_lock "
       "downgraded to read (4.20, dd2283f2605e); folio_batch of 31 (6.9, 9cecde80aae0); "
       "process_madvise() batches the DONTNEED/FREE flushes of all ranges in one mmu_gather "
       "(6.16, SeongJae Park \"mm/madvise: batch tlb flushes for MADV_DONTNEED[_LOCKED]\") "
       "after taking mmap_lock once per call (6.15, 4000e3d0a367); a page a read fault brings back "
       "from "
       "swap mapped writable and clean (6.11, c18160dba5ff); a page whose reclaim write ended "
       "while reclaim held it tried again at once (6.14, 431614f1580a); mm_cpumask kept lazily "
       "(6.14, 209954cbc7d0); pcp high tuned automatically (6.7, 51a755c56dc0); INVLPGB (6.15, "
       "4afeb0ed1753) "
       "is an option: linux-6.18+tlb=broadcast"},
      // Seed 000 ("mm: throttle MADV_FREE"). Its kernel (February 2015, 3.19/4.0-rc) flushed each
      // page reclaim unmapped (batching came in 4.3).
      {"dontneed", "linux-4.5", "madv_free=as-dontneed,reclaim_tlb_flush=per-page",
       "seed 000: MADV_FREE handled as MADV_DONTNEED"},
      // The three MADV_FREE arms run the series as the thread had it (February 2015): hinted
      // pages stay where they are on the LRU (deactivate_page() came with "mm: move lazily freed
      // pages to inactive list", October 2015, 10853a039208 in 4.5), and PG_dirty of a page
      // swapped back in is kept, so such a page is never discarded (June 2015's fix).
      {"free", "linux-4.5",
       "madv_free=lazy,lazyfree_lru=in-place,lazyfree_pgdirty=kept,reclaim_tlb_flush=per-page",
       "seed 000: lazy free as the thread measured it (2015, before its fix: swapped PTEs stay)"},
      {"free-throttled", "linux-4.5",
       "madv_free=throttled,lazyfree_lru=in-place,lazyfree_pgdirty=kept,reclaim_tlb_flush=per-page",
       "seed 000 RFC 1/4: DONTNEED while free pages <= 1.5 x min watermark"},
      {"free-swapped", "linux-4.5",
       "madv_free=free-swapped,lazyfree_lru=in-place,lazyfree_pgdirty=kept,"
       "reclaim_tlb_flush=per-page",
       "seed 000 fix: lazy free that also frees swapped PTEs in the range (the series of "
       "February 2015 with the thread's patch)"},
      // Seed 002 ("mm: add a new vector based madvise syscall").
      {"per-call", "linux-4.5", "madvise=per-call", "seed 002: one madvise() per range"},
      {"vector", "linux-4.5", "madvise=vector",
       "seed 002: madvisev(), one lock and one TLB flush per call"},
      // Seed 004 ("CMA/HOTPLUG: clear buffer-head lru before page migration").
      {"bh-lru-8", "linux-3.18", "bh_lru_size=8", "seed 004: BH_LRU_SIZE 8 (before 3.18)"},
      {"bh-lru-16", "linux-3.18", "bh_lru_size=16",
       "seed 004: BH_LRU_SIZE 16 (3.18+, 86cf78d73de8)"},
      {"bh-invalidate-all", "linux-3.18", "bh_invalidate=all",
       "seed 004 patch: invalidate_bh_lrus() on every CPU before alloc_contig_range() migrates"},
      {"bh-drop-selected", "linux-3.18", "bh_invalidate=selected",
       "seed 004 alternative (Laura Abbott 2012): drop only the migrated pages' buffer heads"},
      // TLB invalidation mechanism.
      {"ipi", "", "tlb=ipi", "x86 shootdown IPIs (arch/x86/mm/tlb.c)"},
      {"broadcast", "", "tlb=broadcast", "AMD INVLPGB / Intel RAR broadcast invalidation (~6.15)"},
      // Seed 001 ("regression caused by cgroups optimization in 3.17-rc2").
      {"uncharge-pagevec", "linux-3.17-rc2",
       "memcg=res_counter,charge_batch=32,uncharge_batch=pagevec,pagevec_size=14,"
       "release_pages=pagevec",
       "seed 001: 3.17-rc2, free_pages_and_swap_cache() uncharges per PAGEVEC_SIZE pages"},
      {"uncharge-gather", "linux-3.17-rc2",
       "memcg=res_counter,charge_batch=32,uncharge_batch=gather,pagevec_size=14,"
       "release_pages=cluster",
       "seed 001 fix (aabfb57296e3): one uncharge per mmu_gather batch, release_pages() over the "
       "whole batch with the lru_lock dropped every SWAP_CLUSTER_MAX pages"},
      // Seed 003 ("Add predictive memory reclamation and compaction").
      {"reclaim-reactive", "linux-5.3", "reclaim=reactive",
       "seed 003: kswapd woken at the low watermark (5.3-rc2)"},
      {"reclaim-predictive", "linux-5.3", "reclaim=predictive",
       "seed 003 RFC: least-squares free-page trend wakes kswapd early"},
  };
  return kPresets;
}

const PolicyPreset* find_policy_preset(std::string_view name) {
  for (const PolicyPreset& p : policy_presets()) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

namespace {

struct KernelVersion {
  uint32_t major = 0;
  uint32_t minor = 0;
  auto operator<=>(const KernelVersion&) const = default;
};

// Reads "MAJOR.MINOR" at the start of `text`; *rest is what follows. False without both numbers.
bool parse_kernel_version(std::string_view text, KernelVersion* v, std::string_view* rest) {
  uint32_t parts[2] = {0, 0};
  size_t i = 0;
  for (int part = 0; part < 2; ++part) {
    if (part == 1) {
      if (i >= text.size() || text[i] != '.') return false;
      ++i;
    }
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 6) {
      parts[part] = parts[part] * 10 + static_cast<uint32_t>(text[i] - '0');
      ++i;
    }
    if (i == start) return false;
  }
  *v = KernelVersion{parts[0], parts[1]};
  *rest = text.substr(i);
  return true;
}

}  // namespace

std::string kernel_release_preset(std::string_view release) {
  KernelVersion running;
  std::string_view rest;
  if (!parse_kernel_version(release, &running, &rest)) return "";
  constexpr std::string_view kPrefix = "linux-";
  const PolicyPreset* newest_before = nullptr;
  const PolicyPreset* oldest = nullptr;
  KernelVersion newest_v, oldest_v;
  for (const PolicyPreset& p : policy_presets()) {
    if (!std::string_view(p.name).starts_with(kPrefix)) continue;
    KernelVersion v;
    if (!parse_kernel_version(std::string_view(p.name).substr(kPrefix.size()), &v, &rest) ||
        !rest.empty())
      continue;  // a release candidate ("linux-3.17-rc2")
    if (oldest == nullptr || v < oldest_v) {
      oldest = &p;
      oldest_v = v;
    }
    if (v <= running && (newest_before == nullptr || v > newest_v)) {
      newest_before = &p;
      newest_v = v;
    }
  }
  const PolicyPreset* chosen = newest_before != nullptr ? newest_before : oldest;
  return chosen != nullptr ? chosen->name : "";
}

namespace {

// Applies `preset` over the model's defaults: its base chain first, oldest first.
Status apply_preset(const PolicyPreset& preset, KernelConfig* config) {
  std::vector<const PolicyPreset*> chain = {&preset};
  while (!chain.back()->base.empty()) {
    const PolicyPreset* base = find_policy_preset(chain.back()->base);
    if (base == nullptr || chain.size() > policy_presets().size()) {
      return Status::internal("preset '" + chain.back()->name +
                              "' names a missing or circular base '" + chain.back()->base + "'");
    }
    chain.push_back(base);
  }
  KernelConfig c;
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    if (Status s = apply_knobs((*it)->knobs, &c); !s) {
      return Status::internal("preset '" + (*it)->name + "': " + s.message());
    }
  }
  *config = c;
  return Status::ok();
}

}  // namespace

Status expand_policy(std::string_view spec, KernelConfig* config) {
  const size_t plus = spec.find('+');
  const std::string_view head = spec.substr(0, plus);
  if (head.empty()) {
    return Status::invalid_argument(
        spec.empty() ? "empty policy" : "policy '" + std::string(spec) + "' starts with '+'");
  }
  KernelConfig c;
  std::string_view overrides = spec;
  if (head.find('=') == std::string_view::npos) {
    const PolicyPreset* preset = find_policy_preset(head);
    if (preset == nullptr) {
      return Status::invalid_argument("no preset '" + std::string(head) +
                                      "' (trace-replay policies lists them)");
    }
    if (Status s = apply_preset(*preset, &c); !s) return s;
    overrides = plus == std::string_view::npos ? std::string_view{} : spec.substr(plus + 1);
    if (plus != std::string_view::npos && overrides.empty()) {
      return Status::invalid_argument("policy '" + std::string(spec) + "' ends with '+'");
    }
  }
  if (Status s = apply_knobs(overrides, &c); !s) return s;
  *config = c;
  return Status::ok();
}

}  // namespace mmreplay::kernelsim

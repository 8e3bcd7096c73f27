// Memory cgroups (mm/memcontrol.c): charging user pages to a group's counter, the per-CPU charge
// stock, uncharge batching, and the group limit with its own reclaim and OOM. Policy `memcg`
// (off, res_counter, page_counter); nothing here runs with memcg=off.
//
// Page-cache pages are charged to the group of the task that adds them to the cache (read,
// readahead, write, fault) and uncharged when reclaim or truncation frees them; pages cached
// before the run (--cache warm) were someone else's and stay uncharged.
//
// Groups: every user mm belongs to one non-root group (Mm::memcg_id; the root memcg, id 0, is
// never charged, as in the kernel). MachineConfig::memcg_nr_groups groups exist; mms are placed
// round-robin in the order they first charge (1, the default: every process of the workload in
// one cgroup, like seed 001's benchmark; 0: one group per mm). Each group has the limit
// MachineConfig::memcg_limit_bytes (0 = unlimited).
//
// Charge (try_charge(), 3.x-6.x shape): consume_stock() takes the page from this CPU's stock when
// it caches the group; otherwise the counter is charged max(charge_batch, nr) pages and the rest
// refills the stock (refill_stock(): a stock caching another group is drained first, i.e. given
// back to that group's counter). A charge that would pass the limit retries with nr pages, then
// reclaims from the group (try_to_free_mem_cgroup_pages(), mm/vmscan.h) up to
// MEM_CGROUP_RECLAIM_RETRIES times, then is a memcg OOM: the group's OOM killer (mm/oom_kill.h)
// kills and reaps its largest process, and the charge retries once with fresh retries; it fails
// (the fault returns VM_FAULT_OOM) when its own process was the victim or it still does not fit.
// An OOM victim's charges fail at once.
//
// Uncharge: no stock (3.17+ uncharge_batch()): each call is one counter uncharge of its pages.
// The zap path calls mem_cgroup_uncharge_gathered() per mmu_gather batch, which policy
// `uncharge_batch` splits into PAGEVEC_SIZE chunks (3.17-rc) or not (3.17 fix), seed 001.
//
// Invariants:
//  (1) counter usage of a group == pages charged to it and not uncharged + pages in stocks
//      caching it (page_counter.h for the counter's own);
//  (2) a page is uncharged from the group it was charged to (the mm's group never changes).

#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "kernelsim/mm/page_counter.h"
#include "kernelsim/sim/co.h"

namespace mmreplay::kernelsim {

class Mm;
class Simulation;
class Task;

inline constexpr uint32_t kRootMemcg = 0;

// struct mem_cgroup, the parts the model uses.
struct MemCgroup {
  MemCgroup(Simulation& sim, MemcgCounterKind kind, uint32_t memcg_id, uint64_t limit_pages)
      : id(memcg_id), memory(sim, kind, limit_pages) {}
  uint32_t id;
  PageCounter memory;  // memcg->res (res_counter) / memcg->memory (page_counter)
};

class MemcgSet {
 public:
  MemcgSet(Simulation& sim, uint32_t nr_cpus);

  // The group of mm, placing mm in one on first use. kRootMemcg when memcg is off.
  uint32_t memcg_of(Mm& mm);
  // REQUIRES: id names a group (1 .. nr_groups()).
  MemCgroup& group(uint32_t id) { return *groups_[id - 1]; }
  const MemCgroup& group(uint32_t id) const { return *groups_[id - 1]; }
  uint32_t nr_groups() const { return static_cast<uint32_t>(groups_.size()); }
  bool enabled() const { return kind_ != MemcgCounterKind::kOff; }

  // Per-CPU charge stock (struct memcg_stock_pcp).
  struct Stock {
    uint32_t cached = kRootMemcg;
    uint64_t nr_pages = 0;
  };
  Stock& stock(uint32_t cpu) { return stocks_[cpu]; }
  const Stock& stock(uint32_t cpu) const { return stocks_[cpu]; }

 private:
  Simulation& sim_;
  MemcgCounterKind kind_;
  uint32_t wanted_groups_;  // MachineConfig::memcg_nr_groups (0: one per mm)
  uint32_t next_slot_ = 0;
  std::vector<std::unique_ptr<MemCgroup>> groups_;
  std::vector<Stock> stocks_;
};

// Models mem_cgroup_try_charge() + mem_cgroup_commit_charge() (3.17+) for nr new pages of t's
// mm. True when charged (always with memcg=off); false: memcg OOM, nothing charged.
// REQUIRES: t holds no spinlock; t.mm() != nullptr.
Co<bool> mem_cgroup_charge(Task& t, Mm& mm, uint64_t nr);
// Models the charge of a page-cache page as __filemap_add_folio() makes it (mem_cgroup_charge()
// with no mm: the adding task's group; 2.6.25-3.x mem_cgroup_cache_charge() in
// add_to_page_cache_locked()): one page to the group of t's mm, none for a kernel thread. Sets
// *memcg to the group charged (kRootMemcg when none). False: memcg OOM, nothing charged; with
// `noretry` (readahead's __GFP_NORETRY) after one reclaim pass, and not counted as an OOM.
// REQUIRES: t holds no spinlock.
Co<bool> mem_cgroup_charge_file(Task& t, uint32_t* memcg, bool noretry = false);
// Models mem_cgroup_cancel_charge(): a charged page that was not mapped after all.
Co<void> mem_cgroup_cancel_charge(Task& t, Mm& mm, uint64_t nr);
// Models mem_cgroup_uncharge_list() -> uncharge_batch(): nr freed pages of group memcg_id.
Co<void> mem_cgroup_uncharge_list(Task& t, uint32_t memcg_id, uint64_t nr);
// Models free_pages_and_swap_cache() -> release_pages() for one mmu_gather batch of nr pages of
// mm: one uncharge for the batch, or one per PAGEVEC_SIZE chunk (policy uncharge_batch).
Co<void> mem_cgroup_uncharge_gathered(Task& t, Mm& mm, uint64_t nr);

// Pages freed by one pass of reclaim, per group, uncharged together at the end
// (shrink_page_list()'s free_pages list -> mem_cgroup_uncharge_list()).
class MemcgUnchargeList {
 public:
  void add(uint32_t memcg_id);
  Co<void> uncharge(Task& t);

 private:
  std::vector<std::pair<uint32_t, uint64_t>> pages_;
};

}  // namespace mmreplay::kernelsim

#include "kernelsim/mm/memcontrol.h"

#include <algorithm>
#include <cassert>

#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/oom_kill.h"
#include "kernelsim/mm/vmscan.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// True when consume_stock() would find nr pages of memcg in this CPU's stock.
bool stock_holds(Task& t, uint32_t memcg_id, uint64_t nr) {
  const MemcgSet::Stock& s = t.sim().memcg().stock(t.cpu().id);
  return s.cached == memcg_id && s.nr_pages >= nr;
}

// Models consume_stock(): true when this CPU's stock caches memcg and holds nr pages.
bool consume_stock(Task& t, uint32_t memcg_id, uint64_t nr) {
  Simulation& sim = t.sim();
  t.work(sim.costs().memcg_stock);
  MemcgSet::Stock& s = sim.memcg().stock(t.cpu().id);
  if (s.cached != memcg_id || s.nr_pages < nr) return false;
  s.nr_pages -= nr;
  ++sim.vm().memcg_stock_hits;
  return true;
}

// Models drain_stock(): the stock's pages go back to the group it caches.
Co<void> drain_stock(Task& t, MemcgSet::Stock& s) {
  if (s.cached != kRootMemcg && s.nr_pages != 0) {
    const uint64_t n = std::exchange(s.nr_pages, 0);
    co_await t.sim().memcg().group(s.cached).memory.uncharge(t, n);
  }
  s.cached = kRootMemcg;
}

// Models refill_stock(): nr pages charged ahead go to this CPU's stock (4.x+: a stock over the
// batch is drained).
Co<void> refill_stock(Task& t, uint32_t memcg_id, uint64_t nr) {
  Simulation& sim = t.sim();
  t.work(sim.costs().memcg_stock);
  MemcgSet::Stock& s = sim.memcg().stock(t.cpu().id);
  if (s.cached != memcg_id) {
    co_await drain_stock(t, s);
    s.cached = memcg_id;
  }
  s.nr_pages += nr;
  if (s.nr_pages > sim.config().charge_batch) co_await drain_stock(t, s);
}

// Models try_charge() (mm/memcontrol.c, 3.17-5.x shape). `noretry`: __GFP_NORETRY (readahead's
// gfp): one reclaim pass, then -ENOMEM with no OOM.
Co<bool> try_charge(Task& t, uint32_t memcg_id, uint64_t nr, bool noretry = false) {
  Simulation& sim = t.sim();
  if (consume_stock(t, memcg_id, nr)) co_return true;
  MemCgroup& g = sim.memcg().group(memcg_id);
  uint64_t batch = std::max<uint64_t>(sim.config().charge_batch, nr);
  uint32_t retries = MEM_CGROUP_RECLAIM_RETRIES;
  bool passed_oom = false;
  for (;;) {
    // An OOM victim's charge fails (the kernel forces it past the limit to let the task exit,
    // should_force_charge(); the model ends the victim's op loop instead).
    if (t.oom_killed) co_return false;
    if (co_await g.memory.try_charge(t, batch)) {
      if (batch > nr) co_await refill_stock(t, memcg_id, batch - nr);  // done_restock
      co_return true;
    }
    if (batch > nr) {  // the batch does not fit: try the pages themselves
      batch = nr;
      continue;
    }
    ++sim.vm().memcg_reclaim;
    co_await try_to_free_mem_cgroup_pages(t, memcg_id, nr);
    if (g.memory.margin() >= nr) continue;
    if (noretry) co_return false;  // "if (gfp_mask & __GFP_NORETRY) goto nomem"
    if (retries-- > 0) continue;
    // mem_cgroup_oom() -> mem_cgroup_out_of_memory() (mm/oom_kill.h): a victim killed and
    // reaped, the charge retries with fresh retries ("passed_oom"); once only in the model.
    ++sim.vm().memcg_oom;
    if (passed_oom || !co_await mem_cgroup_out_of_memory(t, memcg_id)) break;
    passed_oom = true;
    retries = MEM_CGROUP_RECLAIM_RETRIES;
  }
  co_return false;
}

}  // namespace

MemcgSet::MemcgSet(Simulation& sim, uint32_t nr_cpus)
    : sim_(sim),
      kind_(sim.config().memcg),
      wanted_groups_(sim.machine().memcg_nr_groups),
      stocks_(nr_cpus) {}

uint32_t MemcgSet::memcg_of(Mm& mm) {
  if (kind_ == MemcgCounterKind::kOff) return kRootMemcg;
  if (mm.memcg_id != kRootMemcg) return mm.memcg_id;
  const uint32_t slot = next_slot_++;
  const uint32_t id = wanted_groups_ == 0 ? slot + 1 : slot % wanted_groups_ + 1;
  if (id > groups_.size()) {
    const uint64_t limit = sim_.machine().memcg_limit_bytes;
    groups_.push_back(std::make_unique<MemCgroup>(sim_, kind_, id,
                                                  limit != 0 ? limit >> PAGE_SHIFT : kNoPageLimit));
  }
  mm.memcg_id = id;
  return id;
}

namespace {

// commit_charge(): page->mem_cgroup of the nr pages charged.
void commit_charge(Task& t, uint64_t nr) {
  t.work(t.sim().costs().memcg_page * static_cast<int64_t>(nr));
  t.sim().vm().memcg_charged_pages += nr;
}

// Not `if (!co_await ...)` as its first statement: GCC 12.2 miscompiles that (sim/co.h).
Co<bool> charge_group_counter(Task& t, uint32_t id, uint64_t nr, bool noretry) {
  const bool ok = co_await try_charge(t, id, nr, noretry);
  if (!ok) co_return false;
  commit_charge(t, nr);
  co_return true;
}

// A charge the stock holds (most of a group's pages, anonymous or file) waits for nothing and
// makes no frame (sim/co.h); the rest go to try_charge(), its stock lookup included. Inlined
// into both callers: out of line it cost the 64-CPU fault benchmark 0.2% more host instructions.
[[gnu::always_inline]] inline Co<bool> charge_group(Task& t, uint32_t id, uint64_t nr,
                                                    bool noretry = false) {
  if (!stock_holds(t, id, nr)) return charge_group_counter(t, id, nr, noretry);
  consume_stock(t, id, nr);
  commit_charge(t, nr);
  return Co<bool>::ready(true);
}

}  // namespace

// The root memcg (or memcg=off) charges nothing, with no frame (sim/co.h).
Co<bool> mem_cgroup_charge(Task& t, Mm& mm, uint64_t nr) {
  const uint32_t id = t.sim().memcg().memcg_of(mm);
  if (id == kRootMemcg) return Co<bool>::ready(true);
  return charge_group(t, id, nr);
}

Co<bool> mem_cgroup_charge_file(Task& t, uint32_t* memcg, bool noretry) {
  Mm* mm = t.mm();
  *memcg = mm == nullptr ? kRootMemcg : t.sim().memcg().memcg_of(*mm);
  if (*memcg == kRootMemcg) return Co<bool>::ready(true);
  return charge_group(t, *memcg, 1, noretry);
}

Co<void> mem_cgroup_cancel_charge(Task& t, Mm& mm, uint64_t nr) {
  co_await mem_cgroup_uncharge_list(t, t.sim().memcg().memcg_of(mm), nr);
}

Co<void> mem_cgroup_uncharge_list(Task& t, uint32_t memcg_id, uint64_t nr) {
  if (memcg_id == kRootMemcg || nr == 0) co_return;
  Simulation& sim = t.sim();
  t.work(sim.costs().memcg_page * static_cast<int64_t>(nr));  // uncharge_list(): per page
  sim.vm().memcg_uncharged_pages += nr;
  co_await sim.memcg().group(memcg_id).memory.uncharge(t, nr);  // uncharge_batch()
}

Co<void> mem_cgroup_uncharge_gathered(Task& t, Mm& mm, uint64_t nr) {
  Simulation& sim = t.sim();
  const uint32_t id = sim.memcg().memcg_of(mm);
  if (id == kRootMemcg) co_return;
  if (sim.config().uncharge_batch == UnchargeBatchMode::kGather) {
    co_await mem_cgroup_uncharge_list(t, id, nr);
    co_return;
  }
  const uint64_t chunk = sim.config().pagevec_size;  // free_pages_and_swap_cache() 3.17-rc
  for (uint64_t done = 0; done < nr; done += chunk)
    co_await mem_cgroup_uncharge_list(t, id, std::min(chunk, nr - done));
}

void MemcgUnchargeList::add(uint32_t memcg_id) {
  if (memcg_id == kRootMemcg) return;
  for (auto& [id, n] : pages_) {
    if (id == memcg_id) {
      ++n;
      return;
    }
  }
  pages_.emplace_back(memcg_id, 1);
}

Co<void> MemcgUnchargeList::uncharge(Task& t) {
  for (const auto& [id, n] : std::exchange(pages_, {})) co_await mem_cgroup_uncharge_list(t, id, n);
}

}  // namespace mmreplay::kernelsim

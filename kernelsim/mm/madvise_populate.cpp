#include "kernelsim/mm/madvise_populate.h"

#include <algorithm>

#include "kernelsim/mm/memory.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models follow_page_pte()'s answer for get_user_pages(): whether pte p must be faulted in
// (faultin_page()) before the access is possible. A read needs a present page; a write needs one
// the pte lets it write (can_follow_write_pte()): an own page not shared with a fork peer (a
// swapped-in page mapped read-only before 6.11 is not), or a shared file page already dirty.
bool gup_needs_fault(const Simulation& sim, const Vma& vma, uint8_t p, bool write) {
  if (!pte::is_mapped(p) || (p & pte::kSwapCache)) return true;
  if (!write) return false;
  if (p & pte::kOwnPage) {
    if (p & pte::kCowShared) return true;
    return pte::swapped_in_read_only(p) && swapin_write_protects(sim);
  }
  return !(vma.kind == VmaKind::kFileShared && (p & pte::kDirty));
}

}  // namespace

bool madvise_is_populate(int advice) {
  return advice == MADV_POPULATE_READ || advice == MADV_POPULATE_WRITE;
}

Co<int64_t> madvise_populate(Task& t, Mm& mm, uint64_t start, uint64_t end, bool write) {
  Simulation& sim = t.sim();
  const CostProfile& c = sim.costs();
  uint64_t addr = start;
  while (addr < end) {
    Vma* vma = mm.vmas.vma_lookup(addr);
    if (vma == nullptr) co_return -ERRNO_ENOMEM;  // "No VMA or out of memory."
    t.work(c.find_vma);
    if (!vma->access_ok(write)) co_return -ERRNO_EINVAL;  // check_vma_flags()
    const uint64_t vma_end = std::min(end, vma->end);
    for (; addr < vma_end; addr += PAGE_SIZE) {
      t.work(c.pte_walk);  // follow_page_mask()
      if (!gup_needs_fault(sim, *vma, vma->ptes.get(addr), write)) continue;
      ++sim.vm().pgfault;
      ++sim.vm().madv_populate_faults;
      const FaultResult r = co_await handle_mm_fault(t, *vma, addr, write);
      if (r == FaultResult::kOom) co_return -ERRNO_ENOMEM;
      if (r == FaultResult::kSegv) co_return -ERRNO_EFAULT;
    }
  }
  co_return 0;
}

}  // namespace mmreplay::kernelsim

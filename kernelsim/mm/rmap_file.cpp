#include "kernelsim/mm/rmap_file.h"

#include <cassert>

#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models rmap_walk_file(): fn(mm, vma, addr, pte) for each pte that maps page-cache frame f.
// Stops once it has seen mapcount(f) of them.
template <class Fn>
void rmap_walk_file(Simulation& sim, uint32_t f, Fn&& fn) {
  const PageFrame& pf = sim.lruvec().frame(f);
  assert(pf.pagecache);
  const uint32_t file = pf.file;
  const uint64_t index = pf.addr;
  uint32_t left = sim.page_cache().mapcount(f);
  if (left == 0) return;
  sim.for_each_mm([&](Mm& mm) {
    if (left == 0 || mm.dead) return;
    mm.vmas.for_each([&](Vma& vma) {
      if (left == 0 || vma.file != file || vma.is_anonymous()) return;
      if (index < vma.pgoff || index - vma.pgoff >= vma.nr_pages()) return;
      const uint64_t addr = vma.start + ((index - vma.pgoff) << PAGE_SHIFT);
      const uint8_t p = vma.ptes.get(addr);
      if (!pte::is_mapped(p) || (p & (pte::kOwnPage | pte::kZeroPage | pte::kCowShared))) return;
      --left;
      fn(mm, vma, addr, vma.ptes.ref(addr));
    });
  });
  assert(left == 0 && "PageCache invariant (3): mapcount counts a pte no walk finds");
}

}  // namespace

uint32_t page_referenced_file(Simulation& sim, uint32_t f, bool* exec) {
  uint32_t referenced = 0;
  rmap_walk_file(sim, f, [&](Mm&, Vma& vma, uint64_t, uint8_t& p) {
    if (p & pte::kYoung) {
      ++referenced;
      p = static_cast<uint8_t>(p & ~pte::kYoung);
      if (exec != nullptr && (vma.prot & PROT_EXEC) != 0) *exec = true;
    }
  });
  return referenced;
}

void try_to_unmap_file(Simulation& sim, uint32_t f,
                       std::vector<std::pair<Mm*, uint64_t>>* flushes) {
  PageCache& pc = sim.page_cache();
  bool dirty = false;
  rmap_walk_file(sim, f, [&](Mm& mm, Vma&, uint64_t addr, uint8_t& p) {
    dirty = dirty || (p & pte::kDirty) != 0;
    p = pte::kNone;
    --mm.rss_file;
    pc.page_remove_file_rmap(f);
    ++sim.vm().pgcache_unmapped;
    flushes->emplace_back(&mm, addr);
  });
  if (dirty) pc.set_page_dirty(f);  // try_to_unmap_one(): "Move the dirty bit to the page"
}

std::vector<std::pair<Mm*, uint64_t>> page_mappings_file(Simulation& sim, uint32_t f) {
  std::vector<std::pair<Mm*, uint64_t>> out;
  rmap_walk_file(sim, f,
                 [&](Mm& mm, Vma&, uint64_t addr, uint8_t&) { out.emplace_back(&mm, addr); });
  return out;
}

void page_mkclean_file(Simulation& sim, uint32_t f) {
  rmap_walk_file(
      sim, f, [](Mm&, Vma&, uint64_t, uint8_t& p) { p = static_cast<uint8_t>(p & ~pte::kDirty); });
}

}  // namespace mmreplay::kernelsim

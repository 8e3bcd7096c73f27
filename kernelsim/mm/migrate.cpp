#include "kernelsim/mm/migrate.h"

#include "kernelsim/arch/x86/tlb.h"
#include "kernelsim/fs/bh_invalidate.h"
#include "kernelsim/mm/cma.h"
#include "kernelsim/mm/filemap.h"
#include "kernelsim/mm/lru.h"
#include "kernelsim/mm/mm_types.h"
#include "kernelsim/mm/rmap_file.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {
namespace {

// Models migrate_folio() of an anonymous page: try_to_migrate(), copy, remove_migration_ptes().
Co<bool> migrate_anon_page(Task& t, uint64_t pfn, uint32_t f) {
  Simulation& sim = t.sim();
  const PageFrame& pf = sim.lruvec().frame(f);
  // isolate_lru_page() fails on a page reclaim holds, or one freed while a batch holds it.
  if (pf.mm == nullptr || pf.mm->dead || pf.where == FrameWhere::kIsolated) co_return false;
  Mm& mm = *pf.mm;
  const uint64_t addr = pf.addr;
  t.work(sim.costs().migrate_page_rmap);  // rmap walk, pte -> migration entry, later back
  const Vma* vma = mm.vmas.vma_lookup(addr);
  if (vma != nullptr && pte::is_mapped(vma->ptes.get(addr))) {
    co_await flush_tlb_mm_range(t, FlushTlbInfo{&mm, addr, addr + PAGE_SIZE, false});
  }
  t.work(sim.costs().copy_page);  // migrate_page_copy()
  co_await sync_point(t);
  // The page may have been zapped while the flush waited: then there is nothing left to move.
  if (sim.cma().page(pfn).use == PhysUse::kAnon && sim.cma().page(pfn).frame == f)
    sim.cma().move_page(pfn);
  co_return true;
}

// Models buffer_migrate_page() (fs/buffer.c, mm/migrate.c) of a page-cache page with buffers.
Co<bool> migrate_file_page(Task& t, uint64_t pfn, uint32_t file, uint64_t index) {
  Simulation& sim = t.sim();
  BufferCache& cache = sim.buffers();
  const std::vector<BhKey> keys = cache.page_buffers(file, index);
  if (sim.config().bh_invalidate == BhInvalidateMode::kSelected) {
    for (const BhKey& k : keys) {
      const BufferHead* bh = cache.find(k);
      if (bh != nullptr && bh->b_count > 0) drop_bh_from_lrus(t, k);
    }
  }
  // __buffer_migrate_page(): a buffer head with a reference makes the page busy (-EAGAIN).
  for (const BhKey& k : keys) {
    const BufferHead* bh = cache.find(k);
    if (bh != nullptr && bh->b_count > 0) co_return false;
  }
  // A page mapped by ptes (mm/filemap_fault.h) is unmapped into migration entries and mapped
  // again afterwards (try_to_migrate(), remove_migration_ptes()): each mapping's TLB entry is
  // flushed, as for an anonymous page.
  if (const uint32_t f = sim.page_cache().find_get_page(file, index);
      f != kNoFrame && sim.page_cache().mapcount(f) != 0) {
    t.work(sim.costs().migrate_page_rmap);
    for (const auto& [mm, addr] : page_mappings_file(sim, f))
      co_await flush_tlb_mm_range(t, FlushTlbInfo{mm, addr, addr + PAGE_SIZE, false});
    co_await sync_point(t);
    // Reclaim may have taken the page while the flushes waited: then nothing is left to move.
    const PhysPage now = sim.cma().page(pfn);
    if (now.use != PhysUse::kFile || now.file != file || now.index != index) co_return true;
  }
  t.work(sim.costs().migrate_page_mapping + sim.costs().copy_page);
  sim.cma().move_page(pfn);
  co_return true;
}

}  // namespace

// Models mm/migrate.c: unmap_and_move()
Co<bool> migrate_page(Task& t, uint64_t pfn) {
  Simulation& sim = t.sim();
  co_await sync_point(t);  // other CPUs' bh_lrus and the page's mapping are shared state
  const PhysPage p = sim.cma().page(pfn);
  if (p.use != PhysUse::kAnon && p.use != PhysUse::kFile) co_return true;  // freed meanwhile
  const bool moved = p.use == PhysUse::kAnon ? co_await migrate_anon_page(t, pfn, p.frame)
                                             : co_await migrate_file_page(t, pfn, p.file, p.index);
  ++(moved ? sim.vm().pgmigrate_success : sim.vm().pgmigrate_fail);
  co_return moved;
}

// Models mm/migrate.c: migrate_pages() (one pass over the range's used pages)
Co<uint64_t> migrate_range(Task& t, uint64_t pfn, uint64_t n) {
  CmaArea& cma = t.sim().cma();
  uint64_t failed = 0;
  for (uint64_t p = pfn; p < pfn + n; ++p) {
    const PhysUse use = cma.page(p).use;
    if (use != PhysUse::kAnon && use != PhysUse::kFile) continue;
    if (!co_await migrate_page(t, p)) ++failed;
  }
  co_return failed;
}

}  // namespace mmreplay::kernelsim

#include "kernelsim/mm/cma_alloc.h"

#include "kernelsim/mm/alloc_contig.h"
#include "kernelsim/sim/shared_step.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

// Models mm/cma.c: cma_alloc()
Co<int64_t> cma_alloc(Task& t, uint64_t handle, uint64_t bytes) {
  Simulation& sim = t.sim();
  CmaArea& cma = sim.cma();
  co_await sync_point(t);
  t.work(sim.costs().syscall_entry);  // the driver is entered through a syscall (ioctl)
  const uint64_t count = (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
  if (count == 0 || cma.find_allocation(handle) != nullptr) co_return -ERRNO_EINVAL;
  for (uint64_t from = cma.base_pfn();;) {
    co_await sync_point(t);
    const std::optional<uint64_t> pfn = cma.find_free_range(from, count);
    if (!pfn) break;
    cma.set_bitmap(*pfn, count, true);  // under cma->lock, before the allocation
    const int64_t ret = co_await alloc_contig_range(t, *pfn, count);
    if (ret == 0) {
      cma.take_range(handle, *pfn, count);
      ++sim.vm().cma_alloc_success;
      co_return 0;
    }
    cma.set_bitmap(*pfn, count, false);  // cma_clear_bitmap()
    if (ret != -ERRNO_EBUSY) break;
    from = *pfn + 1;
  }
  ++sim.vm().cma_alloc_fail;
  co_return -ERRNO_ENOMEM;
}

// Models mm/cma.c: cma_release()
Co<int64_t> cma_release(Task& t, uint64_t handle) {
  Simulation& sim = t.sim();
  co_await sync_point(t);
  t.work(sim.costs().syscall_entry);
  const std::optional<CmaAllocation> a = sim.cma().release(handle);
  if (!a) co_return -ERRNO_EINVAL;
  co_await sim.page_alloc().free_contig_pages(t, a->count);  // free_contig_range()
  co_return 0;
}

}  // namespace mmreplay::kernelsim

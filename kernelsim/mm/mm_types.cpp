#include "kernelsim/mm/mm_types.h"

#include "kernelsim/locking/lock_classes.h"
#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

Mm::Mm(Simulation& sim, uint32_t mm_id)
    : id(mm_id),
      mmap_sem(sim, kMmapSemClass),
      vma_lock_read(sim.lockstat().lock_class(kVmaLockReadClass)),
      vma_lock_write(sim.lockstat().lock_class(kVmaLockWriteClass)) {}

}  // namespace mmreplay::kernelsim

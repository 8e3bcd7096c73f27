#include "kernelsim/mm/mm_types.h"

#include "kernelsim/simulation.h"

namespace mmreplay::kernelsim {

Mm::Mm(Simulation& sim, uint32_t mm_id)
    : id(mm_id), mmap_sem(sim, "&mm->mmap_sem"),
      vma_lock_read(sim.lockstat().lock_class("&vma->vm_lock-R")),
      vma_lock_write(sim.lockstat().lock_class("&vma->vm_lock-W")) {}

}  // namespace mmreplay::kernelsim

#include "kernelsim/mm/mm_types.h"

namespace mmreplay::kernelsim {

Mm::Mm(Simulation& sim, uint32_t mm_id) : id(mm_id), mmap_sem(sim, "&mm->mmap_sem") {}

}  // namespace mmreplay::kernelsim
